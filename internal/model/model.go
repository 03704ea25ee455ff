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
	"strings"
)

// ErrInvalid is wrapped by every error that reports a malformed model.
var ErrInvalid = errors.New("invalid model")

// ErrUnsupported is wrapped by errors that report a well-formed model using a
// feature tflm-gen does not implement.
var ErrUnsupported = errors.New("unsupported model feature")

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
	Version       int
	Inputs        []int
	Outputs       []int
	Intermediates []int
	optType       uint8
	opts          table
}

// Describe names the operator for error messages: `operator 3 (CONV_2D)`.
func (o *Op) Describe() string {
	if o.Code == OpCustom {
		return fmt.Sprintf("operator %d (CUSTOM %q)", o.Index, o.Custom)
	}
	return fmt.Sprintf("operator %d (%s)", o.Index, o.Code)
}

// Graph is a validated single-subgraph model.
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

// Options is a checked view of an operator's builtin options table. Getters
// return the schema default when the table or field is absent; the first
// structural error is kept and reported by Err.
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

// Int32s reads an [int] field; nil when absent.
func (o *Options) Int32s(slot int) []int32 {
	if !o.present {
		return nil
	}
	v, err := o.t.int32s(slot)
	o.keep(err)
	return v
}

// Parse reads and validates a model. name is used in errors and recorded as
// the graph's base name.
func Parse(name string, data []byte) (g *Graph, err error) {
	defer func() {
		// The flatbuffer accessors are all bounds-checked; this is a last
		// line of defence so that a missed case is an error, not a crash.
		if r := recover(); r != nil {
			g, err = nil, fmt.Errorf("%w: %w: unexpected structure (%v)", ErrInvalid, errCorrupt, r)
		}
	}()
	g, err = parse(data)
	if err != nil {
		return nil, err
	}
	base := name
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	g.Name = base
	sum := sha256.Sum256(data)
	g.SHA256 = hex.EncodeToString(sum[:])
	return g, nil
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

func wrapInvalid(ctx string, err error) error {
	if errors.Is(err, ErrInvalid) {
		return fmt.Errorf("%s: %w", ctx, err)
	}
	return fmt.Errorf("%w: %s: %w", ErrInvalid, ctx, err)
}

func parse(data []byte) (*Graph, error) {
	if len(data) < 8 {
		return nil, invalid("file is %d bytes, too short for a flatbuffer", len(data))
	}
	if string(data[4:8]) != "TFL3" {
		return nil, invalid("file identifier is %q, want \"TFL3\" (not a TensorFlow Lite model)", data[4:8])
	}
	f := &fbuf{b: data}
	root, err := f.root()
	if err != nil {
		return nil, wrapInvalid("model", err)
	}
	g := &Graph{Metadata: map[string][]byte{}}
	if g.Description, err = root.str(3); err != nil {
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

	subgraphs, err := root.tables(2, "subgraph")
	if err != nil {
		return nil, wrapInvalid("subgraphs", err)
	}
	switch {
	case len(subgraphs) == 0:
		return nil, invalid("model has no subgraph")
	case len(subgraphs) > 1:
		return nil, fmt.Errorf("%w: model has %d subgraphs; only single-subgraph models are supported (no control flow)", ErrUnsupported, len(subgraphs))
	}
	sg := subgraphs[0]

	tts, err := sg.tables(0, "tensor")
	if err != nil {
		return nil, wrapInvalid("subgraph 0 tensors", err)
	}
	for i, tt := range tts {
		t, err := readTensor(i, tt, buffers)
		if err != nil {
			return nil, err
		}
		g.Tensors = append(g.Tensors, t)
	}
	if g.Inputs, err = tensorList(sg, 1, len(g.Tensors), "subgraph inputs", false); err != nil {
		return nil, err
	}
	if g.Outputs, err = tensorList(sg, 2, len(g.Tensors), "subgraph outputs", false); err != nil {
		return nil, err
	}
	ots, err := sg.tables(3, "operator")
	if err != nil {
		return nil, wrapInvalid("subgraph 0 operators", err)
	}
	for i, ot := range ots {
		op, err := readOp(i, ot, codes, len(g.Tensors))
		if err != nil {
			return nil, err
		}
		g.Ops = append(g.Ops, op)
	}
	if err := checkDataflow(g); err != nil {
		return nil, err
	}
	return g, nil
}

func readBuffers(f *fbuf, root table) ([][]byte, error) {
	bts, err := root.tables(4, "buffer")
	if err != nil {
		return nil, wrapInvalid("buffers", err)
	}
	out := make([][]byte, len(bts))
	for i, bt := range bts {
		d, err := bt.bytes(0)
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
	cts, err := root.tables(1, "operator code")
	if err != nil {
		return nil, wrapInvalid("operator codes", err)
	}
	out := make([]opCode, len(cts))
	for i, ct := range cts {
		dep, err1 := ct.uint8(0, 0)
		custom, err2 := ct.str(1)
		ver, err3 := ct.int32(2, 1)
		code, err4 := ct.int32(3, 0)
		if err := errors.Join(err1, err2, err3, err4); err != nil {
			return nil, wrapInvalid(fmt.Sprintf("operator code %d", i), err)
		}
		// Old converters only fill the deprecated byte; newer ones keep it
		// at 127 (the placeholder) and store the real code in builtin_code.
		c := max(code, int32(int8(dep)))
		if c < 0 {
			return nil, invalid("operator code %d: negative builtin code %d", i, c)
		}
		out[i] = opCode{code: OpCode(c), custom: custom, version: int(ver)}
	}
	return out, nil
}

func readMetadata(root table, buffers [][]byte, g *Graph) error {
	mts, err := root.tables(6, "metadata")
	if err != nil {
		return wrapInvalid("metadata", err)
	}
	for i, mt := range mts {
		name, err1 := mt.str(0)
		buf, err2 := mt.int32(1, 0)
		if err := errors.Join(err1, err2); err != nil {
			return wrapInvalid(fmt.Sprintf("metadata %d", i), err)
		}
		if buf < 0 || int(buf) >= len(buffers) {
			return invalid("metadata %d %q: buffer index %d out of range [0, %d)", i, name, uint32(buf), len(buffers))
		}
		g.Metadata[name] = buffers[buf]
	}
	return nil
}

func readTensor(i int, tt table, buffers [][]byte) (*Tensor, error) {
	ctx := func(err error) error { return wrapInvalid(fmt.Sprintf("tensor %d", i), err) }
	shape, err := tt.int32s(0)
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
	name, err := tt.str(3)
	if err != nil {
		return nil, ctx(err)
	}
	isVar, err := tt.uint8(5, 0)
	if err != nil {
		return nil, ctx(err)
	}
	t := &Tensor{Index: i, Name: name, Type: DType(typ), IsVariable: isVar != 0}
	desc := fmt.Sprintf("tensor %d %q", i, name)
	if _, ok, err := tt.subTable(6, "sparsity"); err != nil {
		return nil, ctx(err)
	} else if ok {
		return nil, fmt.Errorf("%w: %s: sparse tensors are not supported", ErrUnsupported, desc)
	}
	// shape_signature (slot 7) marks dimensions that were dynamic in the
	// source graph, typically the batch; like TFLite Micro, tflm-gen plans
	// with the concrete shape stored in the model.
	if t.Type.Size() == 0 {
		return nil, fmt.Errorf("%w: %s: element type %s is not supported", ErrUnsupported, desc, t.Type)
	}
	total := int64(t.Type.Size())
	for _, d := range shape {
		if d < 0 {
			return nil, invalid("%s: negative dimension in shape %v", desc, shape)
		}
		total *= int64(d)
		if total > MaxTensorBytes {
			return nil, invalid("%s: shape %v is larger than %d bytes", desc, shape, MaxTensorBytes)
		}
		t.Shape = append(t.Shape, int(d))
	}
	if t.Shape == nil {
		t.Shape = []int{}
	}
	if buf < 0 || int(buf) >= len(buffers) {
		return nil, invalid("%s: buffer index %d out of range [0, %d)", desc, uint32(buf), len(buffers))
	}
	if d := buffers[buf]; d != nil {
		if int64(len(d)) != total {
			return nil, invalid("%s: constant buffer %d has %d bytes, shape %v of %s needs %d", desc, buf, len(d), shape, t.Type, total)
		}
		t.Data = d
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
	scale, err1 := qt.float32s(2)
	zp, err2 := qt.int64s(3)
	dt, err3 := qt.uint8(4, 0)
	axis, err4 := qt.int32(6, 0)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
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
	}
	for i, s := range scale {
		if !(s > 0) || math.IsInf(float64(s), 0) {
			return nil, invalid("%s: quantization scale %d is %v, must be positive and finite", desc, i, s)
		}
	}
	return &Quant{Scale: scale, ZeroPoint: zp, Axis: int(axis)}, nil
}

func tensorList(t table, slot, n int, what string, optional bool) ([]int, error) {
	v, err := t.int32s(slot)
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
	if op.Intermediates, err = tensorList(ot, 8, nTensors, d+": intermediates", true); err != nil {
		return nil, err
	}
	if op.optType, err = ot.uint8(3, 0); err != nil {
		return nil, wrapInvalid(d+": builtin options type", err)
	}
	if o, ok, err := ot.subTable(4, "builtin options"); err != nil {
		return nil, wrapInvalid(d, err)
	} else if ok {
		op.opts = o
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
	for _, in := range g.Inputs {
		if g.Tensors[in].IsConst() {
			return invalid("subgraph input %s is a constant", g.Tensors[in].Describe())
		}
		ready[in] = true
		written[in] = -2
	}
	for _, op := range g.Ops {
		for k, in := range op.Inputs {
			if in >= 0 && !ready[in] {
				return invalid("%s: input %d: %s is read before any operator writes it (cycle or wrong operator order)", op.Describe(), k, g.Tensors[in].Describe())
			}
		}
		for k, out := range op.Outputs {
			t := g.Tensors[out]
			if t.IsConst() {
				return invalid("%s: output %d: %s is a constant", op.Describe(), k, t.Describe())
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
	for k, out := range g.Outputs {
		if !ready[out] {
			return invalid("subgraph output %d: %s is never written", k, g.Tensors[out].Describe())
		}
	}
	return nil
}
