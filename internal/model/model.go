// Package model reads a TensorFlow Lite flatbuffer into a validated graph:
// plain Go values for tensors and operators, with every index, size and
// constant buffer checked, so that later stages never see a malformed model.
package model

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// ErrInvalid is wrapped by every error that reports a malformed model.
var ErrInvalid = errors.New("invalid model")

// ErrUnsupported is wrapped by errors that report a well-formed model using a
// feature tflm-gen does not implement.
var ErrUnsupported = errors.New("unsupported model feature")

// UnsupportedError lists every unsupported feature found in a well-formed
// model, so that one run reports them all. It wraps ErrUnsupported. Its
// message is one line: operators with the same problem are listed
// together, and past a few entries the rest are counted (problems.go);
// Problems has them all.
type UnsupportedError struct {
	Problems []string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("%v: %d problem(s): %s", ErrUnsupported, len(e.Problems), summarize(e.Problems))
}

// Unwrap returns ErrUnsupported.
func (e *UnsupportedError) Unwrap() error { return ErrUnsupported }

// MaxTensorBytes bounds the size of any one tensor; offsets in generated code
// must fit a 32-bit int.
const MaxTensorBytes = math.MaxInt32

// OpCode is a TensorFlow Lite builtin operator code.
type OpCode int32

// String returns the schema name of the operator, e.g. "CONV_2D".
func (c OpCode) String() string {
	if c >= 0 && int(c) < len(opNames) && opNames[c] != "" {
		return opNames[c]
	}
	return fmt.Sprintf("OP_%d", int32(c))
}

// DType is a tensor element type, numbered as in the schema.
type DType uint8

// Tensor element types.
const (
	Float32 DType = 0
	Float16 DType = 1
	Int32   DType = 2
	Uint8   DType = 3
	Int64   DType = 4
	String  DType = 5
	Bool    DType = 6
	Int16   DType = 7
	Int8    DType = 9
	Float64 DType = 10
	Uint32  DType = 15
	Uint16  DType = 16
	Int4    DType = 17
	// Resource is the type of a resource handle (VAR_HANDLE's output): it
	// names a resource variable and holds no tensor data of its own.
	Resource DType = 13
)

var dtypeNames = map[DType]string{
	Float32: "float32", Float16: "float16", Int32: "int32", Uint8: "uint8",
	Int64: "int64", String: "string", Bool: "bool", Int16: "int16", 8: "complex64",
	Int8: "int8", Float64: "float64", 11: "complex128", 12: "uint64", 13: "resource",
	14: "variant", Uint32: "uint32", Uint16: "uint16", Int4: "int4", 18: "bfloat16",
}

func (d DType) String() string {
	if n, ok := dtypeNames[d]; ok {
		return n
	}
	return fmt.Sprintf("type(%d)", uint8(d))
}

// IntRange is the range of the type's values for int8, uint8 and int16,
// int32's for every other type.
func (d DType) IntRange() (lo, hi int32) {
	switch d {
	case Int8:
		return math.MinInt8, math.MaxInt8
	case Uint8:
		return 0, math.MaxUint8
	case Int16:
		return math.MinInt16, math.MaxInt16
	}
	return math.MinInt32, math.MaxInt32
}

// Size is the element size in bytes, 0 for types without a fixed size.
func (d DType) Size() int {
	switch d {
	case Int8, Uint8, Bool:
		return 1
	case Int16, Uint16, Float16:
		return 2
	case Int32, Uint32, Float32:
		return 4
	case Int64, Float64:
		return 8
	}
	return 0
}

// Quant holds a tensor's affine quantization: real = Scale*(q-ZeroPoint).
// Scale and ZeroPoint have one entry (per tensor) or one per slice along Axis.
type Quant struct {
	Scale     []float32
	ZeroPoint []int64
	Axis      int
}

// Tensor is one tensor of the graph.
type Tensor struct {
	Index int
	Name  string
	Type  DType
	Shape []int
	Quant *Quant // nil when the tensor is not quantized
	// Data holds the bytes of a constant tensor (little-endian), nil otherwise.
	Data       []byte
	IsVariable bool
}

// NumElements is the product of the shape.
func (t *Tensor) NumElements() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// Bytes is the tensor's size in bytes.
func (t *Tensor) Bytes() int { return t.NumElements() * t.Type.Size() }

// IsConst reports whether the tensor has constant data in the model.
func (t *Tensor) IsConst() bool { return t.Data != nil }

// Describe names the tensor for error messages: `tensor 5 "conv1/weights" int8[1 3 3 8]`.
func (t *Tensor) Describe() string {
	return fmt.Sprintf("tensor %d %q %s%v", t.Index, t.Name, t.Type, t.Shape)
}

// Op is one operator of the graph. Inputs holds -1 for omitted optional inputs.
type Op struct {
	Index         int
	Code          OpCode
	Custom        string // custom op name when Code is OpCustom
	CustomOptions []byte // its custom_options (a flexbuffer), nil when absent
	Version       int
	Inputs        []int
	Outputs       []int
	Intermediates []int
	// Padding, set by a graph rewrite (gen/fold, gen/strips) and never by
	// Parse, replaces a CONV_2D's, DEPTHWISE_CONV_2D's or pool's SAME or
	// VALID padding with explicit rows and columns that the operator
	// skips as it skips its own padding: it then reads the input of a PAD
	// it absorbed, or a strip of columns of its input. Nil: the options'
	// padding.
	Padding *Padding
	// Folded, set by the same rewrite, marks an operator whose work
	// operator FoldedInto does (a PAD its reader absorbed into its
	// Padding): it has no inputs, outputs or code.
	Folded     bool
	FoldedInto int
	optType    uint8
	opts       table
}

// Strips, set by a graph rewrite (gen/strips, -recompute) and never by
// Parse, says that operators First..Last of the model run in Count column
// strips: the graph holds each strip's copy of them (on the columns of
// each tensor that strip needs, with the SLICEs that cut them), the
// operators that join the strips' results into the stage's output, then
// the model's operators after the stage.
type Strips struct {
	First, Last, Count int
	// Source is, for each operator of the graph, the model's operator it
	// computes or computes a strip of (the stage's last for the joining
	// PAD and DYNAMIC_UPDATE_SLICEs); Strip is its strip, -1 outside the
	// stage and for the joining operators.
	Source, Strip []int
	// In and Out are the stage's input and output tensors, InCols and
	// OutCols the columns [lo, hi) of them each strip reads and writes.
	In, Out         int
	InCols, OutCols [][2]int
	// ModelMACs and MACs are the multiply-accumulates of one Invoke of
	// the model as written and as split (set by the caller, which counts
	// them).
	ModelMACs, MACs int64
}

// Padding is a convolution's explicit padding, in rows and columns before
// (Top, Left) and after (Bottom, Right) the input.
type Padding struct{ Top, Bottom, Left, Right int }

// WindowOut is TFLite's output size along one axis of a window operator
// (convolution, pool) over in elements with stride and a window spanning
// span input elements ((filter-1)*dilation+1): SAME padding covers every
// input position's stride, VALID only whole windows. It may be 0 or less
// (no output).
func WindowOut(same bool, in, stride, span int) int {
	if same {
		return (in + stride - 1) / stride
	}
	return (in + stride - span) / stride
}

// SamePad is the padding SAME puts before the input along one axis (the
// rest goes after it): half of what out windows of span at stride need
// beyond in, rounded down, as TFLite's ComputePaddingHeightWidth.
func SamePad(in, out, stride, span int) int {
	return max((out-1)*stride+span-in, 0) / 2
}

// Describe names the operator for error messages: `operator 3 (CONV_2D)`.
func (o *Op) Describe() string {
	if o.Code == OpCustom {
		return fmt.Sprintf("operator %d (CUSTOM %q)", o.Index, o.Custom)
	}
	return fmt.Sprintf("operator %d (%s)", o.Index, o.Code)
}

// Graph is a validated model: its subgraph 0, the one Invoke runs, with the
// model's other subgraphs (called by control flow operators) in Subgraphs.
type Graph struct {
	Name        string // file base name, e.g. "person_detect.tflite"
	SHA256      string // hex digest of the model file
	Description string
	Tensors     []*Tensor
	Ops         []*Op
	Inputs      []int
	Outputs     []int
	// Metadata maps metadata names to their buffer bytes.
	Metadata map[string][]byte
	// Subgraphs holds subgraphs 1, 2, ... of the model (Subgraphs[k-1] is
	// subgraph k), each validated like subgraph 0 and holding only Tensors,
	// Ops, Inputs, Outputs and SubgraphIndex; nil for a single-subgraph
	// model. Their operators run only when a control flow operator (IF,
	// WHILE, CALL_ONCE) calls them.
	Subgraphs []*Graph
	// SubgraphIndex is the graph's position among the model's subgraphs (0
	// for the graph Parse returns).
	SubgraphIndex int
	// Strips is set where a stage of the graph runs in column strips
	// (gen/strips), nil otherwise.
	Strips *Strips
}

// Subgraph returns subgraph k of the model g was parsed from (g itself for
// 0), nil when k is out of range. Call it on the graph Parse returned.
func (g *Graph) Subgraph(k int) *Graph {
	switch {
	case k == 0:
		return g
	case k > 0 && k <= len(g.Subgraphs):
		return g.Subgraphs[k-1]
	}
	return nil
}

// Input returns input tensor i of operator op, nil when omitted.
func (g *Graph) Input(op *Op, i int) *Tensor {
	if i >= len(op.Inputs) || op.Inputs[i] < 0 {
		return nil
	}
	return g.Tensors[op.Inputs[i]]
}

// Output returns output tensor i of operator op.
func (g *Graph) Output(op *Op, i int) *Tensor { return g.Tensors[op.Outputs[i]] }

// Options is a checked view of an operator's builtin options table. Its
// typed readers (options_gen.go, one per table of options.fbs, such as
// Conv2D) are built on the getters by field slot below, which return the
// given default when the table or field is absent; the first structural
// error is kept and reported by Err.
type Options struct {
	t       table
	typ     uint8
	present bool
	err     error
}

// Options returns a fresh reader for the operator's builtin options.
func (o *Op) Options() *Options {
	return &Options{t: o.opts, typ: o.optType, present: o.opts.valid()}
}

// Type is the BuiltinOptions union type stored with the operator.
func (o *Options) Type() uint8 { return o.typ }

// Present reports whether the operator carries an options table.
func (o *Options) Present() bool { return o.present }

// Err returns the first error met while reading fields.
func (o *Options) Err() error { return o.err }

func (o *Options) keep(err error) {
	if err != nil && o.err == nil {
		o.err = fmt.Errorf("builtin options: %w", err)
	}
}

// Int32 reads an int field.
func (o *Options) Int32(slot int, def int32) int32 {
	if !o.present {
		return def
	}
	v, err := o.t.int32(slot, def)
	o.keep(err)
	return v
}

// Uint8 reads a byte-sized field (enums, bools).
func (o *Options) Uint8(slot int, def uint8) uint8 {
	if !o.present {
		return def
	}
	v, err := o.t.uint8(slot, def)
	o.keep(err)
	return v
}

// Bool reads a bool field.
func (o *Options) Bool(slot int, def bool) bool {
	d := uint8(0)
	if def {
		d = 1
	}
	return o.Uint8(slot, d) != 0
}

// Float32 reads a float field.
func (o *Options) Float32(slot int, def float32) float32 {
	if !o.present {
		return def
	}
	v, err := o.t.float32(slot, def)
	o.keep(err)
	return v
}

// String reads a string field; ok is false when the field is absent (an
// empty string that is present gives "", true).
func (o *Options) String(slot int) (s string, ok bool) {
	if !o.present {
		return "", false
	}
	b, err := o.t.bytes(slot, maxName)
	o.keep(err)
	return string(b), b != nil
}

// Int32s reads an [int] field; nil when absent.
func (o *Options) Int32s(slot int) []int32 {
	if !o.present {
		return nil
	}
	v, err := o.t.int32s(slot, maxOptionVector)
	o.keep(err)
	return v
}

// Parse reads and validates a model. name is used in errors and recorded as
// the graph's base name. A well-formed model that uses features tflm-gen
// does not support gives the graph together with an *UnsupportedError
// listing them, so that a caller can add the problems it finds later (the
// operators' lowerings) to the same report; any other error gives no
// graph.
func Parse(name string, data []byte) (g *Graph, err error) {
	defer func() {
		// The flatbuffer accessors are all bounds-checked; this is a last
		// line of defence so that a missed case is an error, not a crash.
		if r := recover(); r != nil {
			g, err = nil, fmt.Errorf("%w: %w: unexpected structure (%v)", ErrInvalid, errCorrupt, r)
		}
	}()
	g, err = parse(data)
	var unsup *UnsupportedError
	if err != nil && !errors.As(err, &unsup) {
		return nil, err
	}
	base := name
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	g.Name = base
	sum := sha256.Sum256(data)
	g.SHA256 = hex.EncodeToString(sum[:])
	return g, err
}

// Limits on the model structure. They are far above what any model for a
// microcontroller needs and keep a hostile file from making the reader (or
// the later stages, which are not linear in every dimension) exhaust memory.
const (
	// MaxRank is the largest number of dimensions of a tensor.
	MaxRank = 16
	// MaxTensors bounds the tensors, operators, buffers, operator codes and
	// metadata entries of a model, each.
	MaxTensors = 1 << 18
	// maxOpIO bounds the inputs, outputs or intermediates of one operator.
	maxOpIO = 1 << 16
	// maxName bounds tensor names, custom operator names and metadata names.
	maxName = 1 << 16
	// maxOptionVector bounds an [int] field of builtin options.
	maxOptionVector = 1 << 12
	// maxCustomOptions bounds a custom operator's custom_options bytes.
	maxCustomOptions = 1 << 16
	// MaxActivationBytes bounds the sum of the sizes of all non-constant
	// tensors, so that no arena offset the planner computes, even without
	// any reuse and with alignment padding, overflows a 32-bit int.
	MaxActivationBytes = 1 << 30
)

// firstErr returns the first non-nil error: a message must stay on one line
// (errors.Join would put each error on its own).
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// wrapInvalid prefixes a reader error with the table it was reading; a
// vector over one of the limits above is an unsupported model, anything else
// a malformed one.
func wrapInvalid(ctx string, err error) error {
	switch {
	case errors.Is(err, ErrInvalid), errors.Is(err, ErrUnsupported):
		return fmt.Errorf("%s: %w", ctx, err)
	case errors.Is(err, errTooLong):
		return fmt.Errorf("%w: %s: %w", ErrUnsupported, ctx, err)
	}
	return fmt.Errorf("%w: %s: %w", ErrInvalid, ctx, err)
}

// parser accumulates the unsupported features of a model, so that they are
// all reported together once the model is known to be well formed.
type parser struct {
	unsup []string
	// prefix names the subgraph being read ("subgraph 2: "), "" for 0.
	prefix string
}

func (p *parser) unsupported(format string, args ...any) {
	p.unsup = append(p.unsup, p.prefix+fmt.Sprintf(format, args...))
}

func parse(data []byte) (*Graph, error) {
	if len(data) < 8 {
		return nil, invalid("file is %d bytes, too short for a flatbuffer (truncated, or not a model)", len(data))
	}
	// The file identifier is optional: TFLite Micro's GetModel does not
	// check it, so a model without one is accepted when the rest
	// validates. When it does not, the missing identifier is named first.
	if id := data[4:8]; string(id) != "TFL3" {
		g, err := parseRoot(data)
		if err != nil && !errors.Is(err, ErrUnsupported) {
			why := strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": ")
			return nil, fmt.Errorf("%w: file identifier is %q, not \"TFL3\" (probably not a TensorFlow Lite model), and the file does not read as a model without one: %s", ErrInvalid, id, why)
		}
		return g, err
	}
	return parseRoot(data)
}

// parseRoot reads the model's root table and subgraph 0.
func parseRoot(data []byte) (g *Graph, err error) {
	f := &fbuf{b: data, budget: 2*int64(len(data)) + 1<<20, charging: true}
	defer func() {
		// A file cut short refers to data past its end: say so first.
		if err != nil && f.pastEnd && errors.Is(err, errCorrupt) {
			err = fmt.Errorf("%w: the file looks truncated: it refers to data past its end (%s)", ErrInvalid, strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": "))
		}
	}()
	// Options tables are read after parsing, without charging (each read is
	// bounded by maxOptionVector); nothing writes to f after this.
	defer func() { f.charging = false }()
	p := &parser{}
	root, err := f.root()
	if err != nil {
		return nil, wrapInvalid("model", err)
	}
	g = &Graph{Metadata: map[string][]byte{}}
	if g.Description, err = root.str(3, maxName); err != nil {
		return nil, wrapInvalid("model description", err)
	}

	buffers, err := readBuffers(f, root)
	if err != nil {
		return nil, err
	}
	codes, err := readOpCodes(root)
	if err != nil {
		return nil, err
	}
	if err := readMetadata(root, buffers, g); err != nil {
		return nil, err
	}

	sgStart, nsg, err := root.vector(2, 4, maxVectorElems)
	if err != nil {
		return nil, wrapInvalid("subgraphs", err)
	}
	if nsg == 0 {
		return nil, invalid("model has no subgraph")
	}
	var total int64
	for k := 0; k < nsg; k++ {
		sgPos := int64(sgStart+4*k) + int64(f.u32(sgStart+4*k))
		if sgPos >= int64(len(data)) {
			return nil, invalid("subgraph %d: offset past the end of the file", k)
		}
		sg, err := f.tableAt(int(sgPos), fmt.Sprintf("subgraph %d", k))
		if err != nil {
			return nil, wrapInvalid(fmt.Sprintf("subgraph %d", k), err)
		}
		s := g
		if k > 0 {
			s = &Graph{SubgraphIndex: k}
			p.prefix = fmt.Sprintf("subgraph %d: ", k)
		}
		if err := p.readSubgraph(k, s, sg, buffers, codes); err != nil {
			if k > 0 {
				return nil, fmt.Errorf("subgraph %d: %w", k, err)
			}
			return nil, err
		}
		if k > 0 {
			g.Subgraphs = append(g.Subgraphs, s)
		}
		for _, t := range s.Tensors {
			if !t.IsConst() {
				total += int64(t.Bytes())
			}
		}
	}
	p.prefix = ""
	if total > MaxActivationBytes {
		p.unsupported("the non-constant tensors need %d bytes in total, more than %d", total, MaxActivationBytes)
	}
	p.checkCalls(g)
	if len(p.unsup) > 0 {
		return g, &UnsupportedError{Problems: p.unsup}
	}
	return g, nil
}

// readSubgraph reads and validates one subgraph's tensors, inputs, outputs
// and operators into s.
func (p *parser) readSubgraph(k int, s *Graph, sg table, buffers [][]byte, codes []opCode) error {
	tts, err := sg.tables(0, "tensor", MaxTensors)
	if err != nil {
		return wrapInvalid(fmt.Sprintf("subgraph %d tensors", k), err)
	}
	s.Tensors = make([]*Tensor, 0, len(tts))
	for i, tt := range tts {
		t, err := p.readTensor(i, tt, buffers)
		if err != nil {
			return err
		}
		s.Tensors = append(s.Tensors, t)
	}
	if s.Inputs, err = tensorList(sg, 1, len(s.Tensors), "subgraph inputs", false); err != nil {
		return err
	}
	if s.Outputs, err = tensorList(sg, 2, len(s.Tensors), "subgraph outputs", false); err != nil {
		return err
	}
	ots, err := sg.tables(3, "operator", MaxTensors)
	if err != nil {
		return wrapInvalid(fmt.Sprintf("subgraph %d operators", k), err)
	}
	s.Ops = make([]*Op, 0, len(ots))
	for i, ot := range ots {
		op, err := readOp(i, ot, codes, len(s.Tensors))
		if err != nil {
			return err
		}
		s.Ops = append(s.Ops, op)
	}
	if err := checkDataflow(s); err != nil {
		return err
	}
	p.checkGraph(s)
	return nil
}

// Callees returns the subgraphs an operator calls, read from its options
// (IF: then, else; WHILE: cond, body; CALL_ONCE: init); nil for other
// operators.
func (o *Op) Callees() []int {
	opt := o.Options()
	switch o.Code {
	case OpIf:
		t := opt.If()
		return []int{int(t.ThenSubgraphIndex), int(t.ElseSubgraphIndex)}
	case OpWhile:
		t := opt.While()
		return []int{int(t.CondSubgraphIndex), int(t.BodySubgraphIndex)}
	case OpCallOnce:
		return []int{int(opt.CallOnce().InitSubgraphIndex)}
	}
	return nil
}

// MaxInlinedOps bounds the operators of called subgraphs (IF, WHILE,
// CALL_ONCE), counted once per call site: tflm-gen inlines a called
// subgraph at each operator that calls it (gen/lower/flow.go), so a
// subgraph calling the next one twice, a few levels deep, would otherwise
// multiply the program (and the generator's time and memory) by a power of
// two. Real models call a few small subgraphs.
const MaxInlinedOps = 1 << 12

// MaxOperators bounds the operators of the program tflm-gen generates:
// subgraph 0's and, once per call site, those of the subgraphs it calls.
// Generation takes time and memory in proportion (up to about 60 KB of
// memory per operator for a chain of convolutions), so this bounds both,
// at 65,536 operators: dozens of times what any model for a
// microcontroller has.
const MaxOperators = 1 << 16

// checkCalls records control flow that cannot be lowered (CallProblems).
func (p *parser) checkCalls(g *Graph) {
	p.unsup = append(p.unsup, CallProblems(g)...)
}

// CallProblems lists the control flow of model g (subgraph 0) that cannot be
// lowered: a subgraph index out of range, a subgraph calling itself
// (directly or through others, which TFLite Micro would run until its stack
// overflows), subgraphs no operator calls (multi-signature models: only
// subgraph 0 runs), called subgraphs that, inlined at every call site,
// exceed MaxInlinedOps operators or MaxActivationBytes of tensors, and a
// program of more than MaxOperators operators. The
// lowering must not start when the list is not empty. It takes time linear
// in the model's operators and subgraphs.
func CallProblems(g *Graph) []string {
	var probs []string
	n := 1 + len(g.Subgraphs)
	where := func(k int, op *Op) string {
		if k > 0 {
			return fmt.Sprintf("subgraph %d: %s", k, op.Describe())
		}
		return op.Describe()
	}
	called := make([]bool, n)
	state := make([]int8, n) // 0 unvisited, 1 on the path, 2 done
	var post []int           // subgraphs in the order their calls are done
	// An explicit stack instead of recursion: the call depth is bounded
	// only by the number of subgraphs.
	type frame struct{ k, op, callee int }
	stack := []frame{{k: 0}}
	state[0] = 1
	bad := false
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		ops := g.Subgraph(f.k).Ops
		if f.op == len(ops) {
			state[f.k] = 2
			post = append(post, f.k)
			stack = stack[:len(stack)-1]
			continue
		}
		op := ops[f.op]
		cs := op.Callees()
		if f.callee == len(cs) {
			f.op, f.callee = f.op+1, 0
			continue
		}
		c := cs[f.callee]
		f.callee++
		switch {
		case c < 0 || c >= n:
			bad = true
			probs = append(probs, fmt.Sprintf("%s: calls subgraph %d, but the model has subgraphs 0 to %d", where(f.k, op), c, n-1))
		case state[c] == 1:
			bad = true
			// The path from the subgraph called again, which is on
			// the stack; a long one is shortened.
			from := len(stack) - 1
			for stack[from].k != c {
				from--
			}
			var path strings.Builder
			for i := from; i < len(stack); i++ {
				if i-from == 8 && len(stack)-i > 8 {
					fmt.Fprintf(&path, " ... (%d more)", len(stack)-8-i)
					i = len(stack) - 8
				}
				fmt.Fprintf(&path, "%d -> ", stack[i].k)
			}
			probs = append(probs, fmt.Sprintf("%s: calls subgraph %d recursively (call cycle %s%d)", where(f.k, op), c, path.String(), c))
		default:
			called[c] = true
			if state[c] == 0 {
				state[c] = 1
				stack = append(stack, frame{k: c})
			}
		}
	}
	for k := 1; k < n; k++ {
		if !called[k] {
			probs = append(probs, fmt.Sprintf("subgraph %d is not called by any control flow operator (only subgraph 0 runs; multi-signature models are not supported)", k))
		}
	}
	if bad {
		return probs
	}
	// What each subgraph runs with its calls inlined: operators and
	// non-constant tensor bytes, saturating far above the limits.
	const cap = 1 << 50
	ops, bytes := make([]int64, n), make([]int64, n)
	once := int64(0)
	for k := range n {
		for _, t := range g.Subgraph(k).Tensors {
			if !t.IsConst() {
				once += int64(t.Bytes())
			}
		}
	}
	if once > MaxActivationBytes {
		return probs // parseRoot reports it
	}
	for _, k := range post {
		sub := g.Subgraph(k)
		o, b := int64(len(sub.Ops)), int64(0)
		for _, t := range sub.Tensors {
			if !t.IsConst() {
				b += int64(t.Bytes())
			}
		}
		for _, op := range sub.Ops {
			for _, c := range op.Callees() {
				o, b = min(o+ops[c], cap), min(b+bytes[c], cap)
			}
		}
		ops[k], bytes[k] = o, b
	}
	if ops[0] > MaxOperators && ops[0]-int64(len(g.Ops)) <= MaxInlinedOps {
		probs = append(probs, fmt.Sprintf("the program has %d operators, more than the limit of %d (model.MaxOperators)", ops[0], MaxOperators))
	}
	if inlined := ops[0] - int64(len(g.Ops)); inlined > MaxInlinedOps {
		most, mostOps := (*Op)(nil), int64(0)
		for _, op := range g.Ops {
			o := int64(0)
			for _, c := range op.Callees() {
				o = min(o+ops[c], cap)
			}
			if o > mostOps {
				most, mostOps = op, o
			}
		}
		probs = append(probs, fmt.Sprintf("%s: runs %d operators of called subgraphs, each call site inlining its own copy of the subgraph it calls; the model's control flow runs %d in all, more than the limit of %d (model.MaxInlinedOps)", most.Describe(), mostOps, inlined, MaxInlinedOps))
	} else if bytes[0] > MaxActivationBytes {
		probs = append(probs, fmt.Sprintf("the non-constant tensors need %d bytes in total with a copy of a called subgraph's tensors for each call site, more than %d", bytes[0], MaxActivationBytes))
	}
	return probs
}

func readBuffers(f *fbuf, root table) ([][]byte, error) {
	bts, err := root.tables(4, "buffer", MaxTensors)
	if err != nil {
		return nil, wrapInvalid("buffers", err)
	}
	out := make([][]byte, len(bts))
	for i, bt := range bts {
		d, err := bt.bytes(0, maxVectorElems)
		if err != nil {
			return nil, wrapInvalid(fmt.Sprintf("buffer %d", i), err)
		}
		off, err := bt.uint64(1, 0)
		if err != nil {
			return nil, wrapInvalid(fmt.Sprintf("buffer %d", i), err)
		}
		size, err := bt.uint64(2, 0)
		if err != nil {
			return nil, wrapInvalid(fmt.Sprintf("buffer %d", i), err)
		}
		if off > 1 {
			// Data stored after the flatbuffer (models over 2 GiB layout).
			if off > uint64(len(f.b)) || size > uint64(len(f.b))-off {
				return nil, invalid("buffer %d: external data [%d, +%d) is outside the %d-byte file", i, off, size, len(f.b))
			}
			d = f.b[off : off+size : off+size]
		}
		if len(d) > 0 {
			out[i] = d
		}
	}
	return out, nil
}

type opCode struct {
	code    OpCode
	custom  string
	version int
}

func readOpCodes(root table) ([]opCode, error) {
	cts, err := root.tables(1, "operator code", MaxTensors)
	if err != nil {
		return nil, wrapInvalid("operator codes", err)
	}
	out := make([]opCode, len(cts))
	for i, ct := range cts {
		dep, err1 := ct.uint8(0, 0)
		custom, err2 := ct.str(1, maxName)
		ver, err3 := ct.int32(2, 1)
		code, err4 := ct.int32(3, 0)
		if err := firstErr(err1, err2, err3, err4); err != nil {
			return nil, wrapInvalid(fmt.Sprintf("operator code %d", i), err)
		}
		// Old converters only fill the deprecated byte; newer ones keep it
		// at 127 (the placeholder) and store the real code in builtin_code.
		c := max(code, int32(int8(dep)))
		if c < 0 {
			return nil, invalid("operator code %d: negative builtin code %d", i, c)
		}
		if OpCode(c) == OpCustom {
			if err := checkName(custom); err != nil {
				return nil, invalid("operator code %d: custom operator name %q %s", i, custom, err)
			}
		}
		out[i] = opCode{code: OpCode(c), custom: custom, version: int(ver)}
	}
	return out, nil
}

func readMetadata(root table, buffers [][]byte, g *Graph) error {
	mts, err := root.tables(6, "metadata", MaxTensors)
	if err != nil {
		return wrapInvalid("metadata", err)
	}
	for i, mt := range mts {
		name, err1 := mt.str(0, maxName)
		buf, err2 := mt.int32(1, 0)
		if err := firstErr(err1, err2); err != nil {
			return wrapInvalid(fmt.Sprintf("metadata %d", i), err)
		}
		if buf < 0 || int(buf) >= len(buffers) {
			return invalid("metadata %d %q: buffer index %d out of range [0, %d)", i, name, uint32(buf), len(buffers))
		}
		// TFLM does not check that names are unique; the first entry of a
		// name is the one read.
		if _, dup := g.Metadata[name]; !dup {
			g.Metadata[name] = buffers[buf]
		}
	}
	return nil
}

// checkName accepts names that can be quoted in one line of text: valid
// UTF-8 without control characters. Names end up in messages and in
// comments of generated code.
func checkName(s string) error {
	if !utf8.ValidString(s) {
		return errors.New("is not valid UTF-8")
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' {
			return fmt.Errorf("contains control character %U", r)
		}
	}
	// Names appear in comments of generated code; one that opens or closes
	// a Go comment is never legitimate and must not get a chance to end one.
	if strings.HasPrefix(s, "//") || strings.Contains(s, "/*") || strings.Contains(s, "*/") {
		return errors.New("contains a Go comment delimiter")
	}
	return nil
}

// fmtShape prints a shape for a message, eliding the middle of a very long
// one.
func fmtShape(s []int32) string {
	if len(s) > 2*MaxRank {
		return fmt.Sprintf("%v ... %v (%d dimensions)", s[:MaxRank/2], s[len(s)-MaxRank/2:], len(s))
	}
	return fmt.Sprint(s)
}

func (p *parser) readTensor(i int, tt table, buffers [][]byte) (*Tensor, error) {
	ctx := func(err error) error { return wrapInvalid(fmt.Sprintf("tensor %d", i), err) }
	shape, err := tt.int32s(0, maxOpIO)
	if err != nil {
		return nil, ctx(err)
	}
	typ, err := tt.uint8(1, 0)
	if err != nil {
		return nil, ctx(err)
	}
	buf, err := tt.int32(2, 0)
	if err != nil {
		return nil, ctx(err)
	}
	name, err := tt.str(3, maxName)
	if err != nil {
		return nil, ctx(err)
	}
	if err := checkName(name); err != nil {
		return nil, invalid("tensor %d: name %q %s", i, name, err)
	}
	isVar, err := tt.uint8(5, 0)
	if err != nil {
		return nil, ctx(err)
	}
	t := &Tensor{Index: i, Name: name, Type: DType(typ), IsVariable: isVar != 0}
	desc := fmt.Sprintf("tensor %d %q", i, name)
	_, sparse, err := tt.subTable(6, "sparsity")
	if err != nil {
		return nil, ctx(err)
	}
	if sparse {
		p.unsupported("%s: sparse tensors are not supported", desc)
	}
	sig, sigErr := tt.int32s(7, MaxRank)
	if sigErr != nil && !errors.Is(sigErr, errTooLong) {
		return nil, ctx(sigErr)
	}
	sized := t.Type.Size() != 0
	if !sized && t.Type != Resource {
		p.unsupported("%s: element type %s is not supported", desc, t.Type)
	}
	if len(shape) > MaxRank {
		p.unsupported("%s: %d dimensions, at most %d supported", desc, len(shape), MaxRank)
	}
	// total is the byte size; bound is the same product with zero
	// dimensions counted as 1, so that no partial product of the shape a
	// later stage may compute can overflow either.
	total, bound := int64(max(t.Type.Size(), 1)), int64(max(t.Type.Size(), 1))
	t.Shape = make([]int, 0, len(shape))
	for _, d := range shape {
		if d < 0 {
			return nil, invalid("%s: negative dimension %d in shape %s", desc, d, fmtShape(shape))
		}
		total *= int64(d)
		bound *= int64(max(d, 1))
		if bound > MaxTensorBytes {
			if slices.Contains(shape, 0) {
				return nil, invalid("%s: the nonzero dimensions of shape %s multiply to more than %d bytes", desc, fmtShape(shape), MaxTensorBytes)
			}
			return nil, invalid("%s: shape %s is larger than %d bytes", desc, fmtShape(shape), MaxTensorBytes)
		}
		t.Shape = append(t.Shape, int(d))
	}
	// shape_signature marks dimensions that were dynamic in the source
	// graph. Like TFLite Micro, tflm-gen plans with the concrete shape
	// stored in the model; a dynamic batch (the first dimension) is
	// common and harmless, any other dynamic dimension is not supported.
	if sig != nil || sigErr != nil {
		switch {
		case sigErr != nil || len(sig) != len(shape):
			p.unsupported("%s: dynamic rank (shape %s, shape_signature of another length)", desc, fmtShape(shape))
		case slices.Contains(sig[min(1, len(sig)):], -1):
			p.unsupported("%s: dynamic shape (shape_signature %v)", desc, sig)
		}
	}
	if buf < 0 || int(buf) >= len(buffers) {
		return nil, invalid("%s: buffer index %d out of range [0, %d)", desc, uint32(buf), len(buffers))
	}
	if d := buffers[buf]; d != nil && t.Type == Resource {
		return nil, invalid("%s: resource handle with constant data in buffer %d", desc, buf)
	} else if d != nil {
		if sized && !sparse && int64(len(d)) != total {
			return nil, invalid("%s: constant buffer %d has %d bytes, shape %s of %s needs %d", desc, buf, len(d), fmtShape(shape), t.Type, total)
		}
		t.Data = d
		if t.IsVariable {
			p.unsupported("%s: variable tensor with initial data in buffer %d", desc, buf)
		}
	}
	qt, ok, err := tt.subTable(4, "quantization")
	if err != nil {
		return nil, ctx(err)
	}
	if ok {
		q, err := readQuant(qt, t, desc)
		if err != nil {
			return nil, err
		}
		t.Quant = q
	}
	return t, nil
}

func readQuant(qt table, t *Tensor, desc string) (*Quant, error) {
	scale, err1 := qt.float32s(2, MaxTensors)
	zp, err2 := qt.int64s(3, MaxTensors)
	dt, err3 := qt.uint8(4, 0)
	axis, err4 := qt.int32(6, 0)
	if err := firstErr(err1, err2, err3, err4); err != nil {
		return nil, wrapInvalid(desc+": quantization", err)
	}
	if dt != 0 {
		return nil, fmt.Errorf("%w: %s: custom quantization details are not supported", ErrUnsupported, desc)
	}
	if len(scale) == 0 {
		return nil, nil // min/max only: not quantized for inference
	}
	if len(zp) != len(scale) {
		return nil, invalid("%s: quantization has %d scales but %d zero points", desc, len(scale), len(zp))
	}
	if len(scale) > 1 {
		if (axis < 0 || int(axis) >= len(t.Shape)) && len(t.Shape) == 1 {
			// Converters emit biases with the filter's axis; a 1-D tensor
			// can only be quantized along its one dimension.
			axis = 0
		}
		if axis < 0 || int(axis) >= len(t.Shape) {
			return nil, invalid("%s: quantized dimension %d outside shape %v", desc, axis, t.Shape)
		}
		if t.Shape[axis] != len(scale) {
			return nil, invalid("%s: %d per-channel scales for dimension %d of size %d", desc, len(scale), axis, t.Shape[axis])
		}
	} else if axis < 0 || int(axis) >= max(len(t.Shape), 1) {
		// The axis of a per-tensor quantization means nothing; keep later
		// stages from indexing the shape with it.
		axis = 0
	}
	for i, s := range scale {
		if !(s > 0) || math.IsInf(float64(s), 0) {
			return nil, invalid("%s: quantization scale %d is %v, must be positive and finite", desc, i, s)
		}
	}
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	switch t.Type {
	case Int8:
		lo, hi = math.MinInt8, math.MaxInt8
	case Uint8:
		lo, hi = 0, math.MaxUint8
	case Int16:
		lo, hi = math.MinInt16, math.MaxInt16
	case Int32:
		lo, hi = math.MinInt32, math.MaxInt32
	}
	for i, z := range zp {
		if z < lo || z > hi {
			return nil, invalid("%s: quantization zero point %d is %d, outside the %s range", desc, i, z, t.Type)
		}
	}
	return &Quant{Scale: scale, ZeroPoint: zp, Axis: int(axis)}, nil
}

func tensorList(t table, slot, n int, what string, optional bool) ([]int, error) {
	v, err := t.int32s(slot, maxOpIO)
	if err != nil {
		return nil, wrapInvalid(what, err)
	}
	out := make([]int, len(v))
	for i, x := range v {
		if optional && x == -1 {
			out[i] = -1
			continue
		}
		if x < 0 || int(x) >= n {
			return nil, invalid("%s: entry %d: tensor index %d out of range [0, %d)", what, i, x, n)
		}
		out[i] = int(x)
	}
	return out, nil
}

// optionsType is the BuiltinOptions union member an operator's options must
// have. optionsTypes (options_gen.go, from options.fbs) gives each
// operator's.
type optionsType struct {
	typ  uint8
	name string
}

func readOp(i int, ot table, codes []opCode, nTensors int) (*Op, error) {
	idx, err := ot.int32(0, 0)
	if err != nil {
		return nil, wrapInvalid(fmt.Sprintf("operator %d", i), err)
	}
	if idx < 0 || int(idx) >= len(codes) {
		return nil, invalid("operator %d: opcode index %d out of range [0, %d)", i, uint32(idx), len(codes))
	}
	c := codes[idx]
	op := &Op{Index: i, Code: c.code, Custom: c.custom, Version: c.version}
	d := op.Describe()
	if op.Inputs, err = tensorList(ot, 1, nTensors, d+": inputs", true); err != nil {
		return nil, err
	}
	if op.Outputs, err = tensorList(ot, 2, nTensors, d+": outputs", false); err != nil {
		return nil, err
	}
	if len(op.Outputs) == 0 && op.Code != OpAssignVariable && op.Code != OpCallOnce {
		// ASSIGN_VARIABLE and CALL_ONCE act only through state.
		return nil, invalid("%s: has no outputs", d)
	}
	if op.Intermediates, err = tensorList(ot, 8, nTensors, d+": intermediates", true); err != nil {
		return nil, err
	}
	if op.optType, err = ot.uint8(3, 0); err != nil {
		return nil, wrapInvalid(d+": builtin options type", err)
	}
	o, ok, err := ot.subTable(4, "builtin options")
	if err != nil {
		return nil, wrapInvalid(d, err)
	}
	// A NONE union carries no table; a table of another type than the
	// operator's would be read field by field as if it were its own.
	if ok && op.optType != 0 {
		if want, known := optionsTypes[op.Code]; known && op.optType != want.typ {
			return nil, invalid("%s: builtin options have union type %d, want %d (%s)", d, op.optType, want.typ, want.name)
		}
		op.opts = o
	}
	if op.Code == OpCustom {
		// Operator.custom_options (slot 5), as TFLite Micro hands it to
		// the custom operator's Init.
		if op.CustomOptions, err = ot.bytes(5, maxCustomOptions); err != nil {
			return nil, wrapInvalid(d+": custom options", err)
		}
	}
	return op, nil
}

// checkDataflow verifies that the operators are in execution order: every
// tensor an operator reads is constant, a graph input, a variable or written
// by an earlier operator, and no tensor is written twice.
func checkDataflow(g *Graph) error {
	ready := make([]bool, len(g.Tensors))
	written := make([]int, len(g.Tensors))
	for i := range written {
		written[i] = -1
	}
	for _, t := range g.Tensors {
		ready[t.Index] = t.IsConst() || t.IsVariable
	}
	for k, in := range g.Inputs {
		if g.Tensors[in].IsConst() {
			return invalid("subgraph input %d: %s is a constant", k, g.Tensors[in].Describe())
		}
		if written[in] == -2 {
			return invalid("subgraph input %d: %s is listed twice", k, g.Tensors[in].Describe())
		}
		ready[in] = true
		written[in] = -2
	}
	for _, op := range g.Ops {
		for k, in := range op.Inputs {
			// A custom operator may read tensors nothing writes: an NPU's
			// command stream and scratch (CUSTOM "ethos-u"). Its meaning
			// is unknown here; the lowering refuses the operator itself.
			if in >= 0 && !ready[in] && op.Code != OpCustom {
				return invalid("%s: input %d: %s is read before any operator writes it (cycle or wrong operator order)", op.Describe(), k, g.Tensors[in].Describe())
			}
		}
		for k, out := range op.Outputs {
			t := g.Tensors[out]
			if t.IsConst() {
				return invalid("%s: output %d: %s is a constant", op.Describe(), k, t.Describe())
			}
			if written[out] == op.Index {
				return invalid("%s: outputs %d and %d are both tensor %d", op.Describe(), slices.Index(op.Outputs, out), k, out)
			}
			if written[out] != -1 {
				what := "the graph input"
				if written[out] >= 0 {
					what = fmt.Sprintf("operator %d", written[out])
				}
				return invalid("%s: output %d: %s is already written by %s", op.Describe(), k, t.Describe(), what)
			}
			written[out] = op.Index
			ready[out] = true
		}
	}
	listed := make([]bool, len(g.Tensors))
	for k, out := range g.Outputs {
		if !ready[out] {
			return invalid("subgraph output %d: %s is never written", k, g.Tensors[out].Describe())
		}
		if listed[out] {
			return invalid("subgraph outputs %d and %d are both %s", slices.Index(g.Outputs, out), k, g.Tensors[out].Describe())
		}
		listed[out] = true
	}
	return nil
}

// checkGraph records graph outputs that generated code cannot expose
// (constants are not in the arena).
func (p *parser) checkGraph(g *Graph) {
	for k, out := range g.Outputs {
		if t := g.Tensors[out]; t.IsConst() {
			p.unsupported("subgraph output %d: %s is a constant", k, t.Describe())
		}
	}
}

// Lifetimes returns, per tensor, the first and last operator that uses it
// ({1<<30, -1} for an unused one): graph inputs count as used at operator 0
// and graph outputs at the last operator.
func (g *Graph) Lifetimes() [][2]int {
	l := make([][2]int, len(g.Tensors))
	for i := range l {
		l[i] = [2]int{1 << 30, -1}
	}
	touch := func(t, s int) {
		if t >= 0 {
			l[t][0], l[t][1] = min(l[t][0], s), max(l[t][1], s)
		}
	}
	for _, t := range g.Inputs {
		touch(t, 0)
	}
	for _, op := range g.Ops {
		for _, t := range op.Inputs {
			touch(t, op.Index)
		}
		for _, t := range op.Outputs {
			touch(t, op.Index)
		}
	}
	for _, t := range g.Outputs {
		touch(t, len(g.Ops)-1)
	}
	return l
}
