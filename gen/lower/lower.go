package lower

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// A lowering turns one operator of the graph into kernel calls. It validates
// everything it relies on (types, shapes, options, quantization) and reports
// problems with c.Errorf, which names the operator.
//
// Lowerings register themselves from init functions in the file of their op
// family (conv.go, fc.go, ...), so families stay independent.
type lowering func(c *opCtx) error

// memory says whether an operator's output may take over an input's memory.
// Every registration declares it next to its lowering.
type memory int

const (
	// ownBuffer: the output never takes over an input's memory in place
	// (a lowering may still make it a view of its input with Alias).
	ownBuffer memory = iota
	// elementwise: the kernels read element i of the inputs and write
	// element i of the output and nothing else, so the output may take over
	// the memory of an input that dies at the operator. findInPlace still
	// requires equal shapes and element sizes (no broadcasting, no
	// resizing).
	elementwise
)

// registration is the one declaration of an operator: its lowering, how
// its output may share memory, and the facts about it that the generator
// reports or plans with, each declared next to the lowering (register's
// facts) and nowhere else.
type registration struct {
	lower lowering
	mem   memory
	// macs counts the multiply-accumulates one Invoke of the operator
	// performs (withMACs); nil: none worth counting. TestOperatorFacts
	// fails when an operator whose kernels multiply-accumulate lacks it.
	macs func(g *model.Graph, op *model.Op) int64
	// tflmScratch is the scratch TFLite Micro's reference kernel requests
	// in its Prepare (withTFLMScratch), in bytes a buffer; nil: none.
	// -emit-offline reserves it (TFLMScratch).
	tflmScratch func(g *model.Graph, op *model.Op) []int
	// reads is how many times, on average, the kernel reads each byte of
	// input 0 (withInputReads); nil: once.
	reads func(g *model.Graph, op *model.Op) int
}

// A fact adds one fact about an operator to its registration.
type fact func(*registration)

// withMACs declares the operator's multiply-accumulates per Invoke.
func withMACs(f func(g *model.Graph, op *model.Op) int64) fact {
	return func(r *registration) { r.macs = f }
}

// withTFLMScratch declares the scratch buffers TFLM's kernel requests.
func withTFLMScratch(f func(g *model.Graph, op *model.Op) []int) fact {
	return func(r *registration) { r.tflmScratch = f }
}

// withInputReads declares how many times the kernel reads each input byte.
func withInputReads(f func(g *model.Graph, op *model.Op) int) fact {
	return func(r *registration) { r.reads = f }
}

var lowerings = map[model.OpCode]registration{}

// register installs the lowering for an operator code, with how its output
// may share memory and the facts the operator declares.
func register(code model.OpCode, l lowering, mem memory, facts ...fact) {
	if _, dup := lowerings[code]; dup {
		panic(fmt.Sprintf("gen: lowering for %s registered twice", code))
	}
	r := registration{lower: l, mem: mem}
	for _, f := range facts {
		f(&r)
	}
	lowerings[code] = r
}

// opCtx is what a lowering sees: the graph, its operator, and the means to
// emit calls and ask the planner for memory.
type opCtx struct {
	G  *model.Graph
	Op *model.Op

	lean    bool
	st      *lowerState // shared by the operators of one model
	flow    *flowSpec   // control flow (flow.go), nil for other operators
	err     error       // a problem found while emitting calls
	calls   []kcall
	scratch []*scratchReq
	persist []*scratchReq
	aliases []alias
	consts  []*constData
	// why says, per kernel chosen among others, why (Because).
	why     map[kernelsig.Func]string
	overlap *overlapOffer // the kernel may write its output over an input
	// overlapAlt is a second way to do so (offerOverlapAlt), nil for most.
	overlapAlt *overlapOffer
}

// kcall is one emitted kernel call: fn(args...).
type kcall struct {
	Fn   kernelsig.Func
	Args []Arg
	Band program.Band
}

type alias struct{ out, in int }

// scratchReq is a planner buffer owned by one operator: scratch (live during
// the operator only) or persistent (live for the whole program).
type scratchReq struct {
	op    int
	n     int // index within the operator
	bytes int
	dtype model.DType
}

type constData struct {
	hint string // "Mult"
	data []byte
}

// Lean reports whether the operator must use its kernel variant with the
// least scratch memory. A lowering with a faster variant that needs extra
// scratch (an im2col buffer, a row cache) emits it only when Lean is false;
// the generator then keeps it only where that memory is free in the plan.
// Lean means nothing else: a variant that is faster and needs no scratch
// (a generation-time table) is used either way.
func (c *opCtx) Lean() bool { return c.lean }

// Speed reports whether the build trades flash for speed (-speed): a
// lowering may then emit variants whose constants are laid out more than
// once.
func (c *opCtx) Speed() bool { return c.st != nil && c.st.kernels.Speed }

// DSP reports whether the lowering may call the kernels built on the DSP
// loops (kernels/dsp.go): the default, for TinyGo on a Cortex-M4/M7; not
// for a build for gc (-compiler gc), whose kernels are tuned for gc's
// code generation.
func (c *opCtx) DSP() bool { return c.st == nil || !c.st.kernels.GC }

// Errorf returns an error prefixed with the operator's index and type.
func (c *opCtx) Errorf(format string, args ...any) error {
	return fmt.Errorf("%s: %s", c.Op.Describe(), fmt.Sprintf(format, args...))
}

// In returns input i of the operator, nil when it is omitted or absent.
func (c *opCtx) In(i int) *model.Tensor { return c.G.Input(c.Op, i) }

// Out returns output i of the operator, nil when absent.
func (c *opCtx) Out(i int) *model.Tensor {
	if i >= len(c.Op.Outputs) {
		return nil
	}
	return c.G.Output(c.Op, i)
}

// NumIn and NumOut count the operator's inputs and outputs.
func (c *opCtx) NumIn() int  { return len(c.Op.Inputs) }
func (c *opCtx) NumOut() int { return len(c.Op.Outputs) }

// Call emits one kernel call of fn, a function of package kernels. Assemble
// checks the arguments against its signature.
func (c *opCtx) Call(fn kernelsig.Func, args ...Arg) {
	c.call(program.Band{}, fn, args)
}

// BandCall is Call of a kernel that scheduling may run on a band of output
// rows (fusion), with b its band geometry.
func (c *opCtx) BandCall(b program.Band, fn kernelsig.Func, args ...Arg) {
	c.call(b, fn, args)
}

// The band geometries of the lowerings' band kernels (BandCall).
var (
	noBand     = program.Band{}
	windowBand = program.Band{Kind: program.BandWindow}
	pixelsBand = program.Band{Kind: program.BandPixels}
	elemsBand  = program.Band{Kind: program.BandElems}
	unaryBand  = program.Band{Kind: program.BandUnary}
	moveBand   = program.Band{Kind: program.BandMove}
	mirrorBand = program.Band{Kind: program.BandMirror}
	// dw3x3Band: dw3x3Int8's struct has no filterH.
	dw3x3Band = program.Band{Kind: program.BandWindow, FilterH: 3}
	// padBand: a PAD's rows of padding read no input row.
	padBand = program.Band{Kind: program.BandWindow, FilterH: 1, PadRows: true}
)

func (c *opCtx) call(b program.Band, fn kernelsig.Func, args []Arg) {
	for _, a := range args {
		if v, ok := a.(viewArg); ok && v.t.IsConst() && !v.raw && v.t.Type.Size() != 1 && c.err == nil {
			// Read-only data has no alignment guarantee: kernels read wide
			// constants from strings, and this one does not.
			c.err = c.Errorf("%s is a constant, which %s cannot take for that input", v.t.Describe(), fn)
		}
	}
	c.calls = append(c.calls, kcall{Fn: fn, Args: args, Band: b})
}

// Because records why the lowering chose kernel fn among the forms the
// operator has (the predicates that held), for layout.txt and
// report.json; a later reason for fn replaces an earlier one.
func (c *opCtx) Because(fn kernelsig.Func, format string, args ...any) {
	if c.why == nil {
		c.why = map[kernelsig.Func]string{}
	}
	c.why[fn] = fmt.Sprintf(format, args...)
}

// Alias makes output out share input in's buffer: no copy, one planned
// buffer. Only for operators that reinterpret their input (RESHAPE, SQUEEZE,
// EXPAND_DIMS) and whose input and output have the same byte size.
func (c *opCtx) Alias(out, in int) {
	c.aliases = append(c.aliases, alias{out: out, in: in})
}

// Scratch asks the planner for a buffer of n elements of type dt that is live
// during this operator only, and returns it as a typed arena view argument.
func (c *opCtx) Scratch(dt model.DType, n int) Arg {
	r := &scratchReq{op: c.Op.Index, n: len(c.scratch), bytes: n * dt.Size(), dtype: dt}
	c.scratch = append(c.scratch, r)
	return reqArg{r}
}

// Persistent asks for n elements of type dt kept for the whole program
// (state that survives Invoke; Reset zeroes it).
func (c *opCtx) Persistent(dt model.DType, n int) Arg {
	r := &scratchReq{op: c.Op.Index, n: len(c.persist), bytes: n * dt.Size(), dtype: dt}
	c.persist = append(c.persist, r)
	return reqArg{r}
}

// Const adds generation-time data as a read-only string constant; hint says
// what it holds ("Mult", "RQ"), and emission names it after the operator's
// output tensor and the hint. It returns the constant as an argument.
func (c *opCtx) Const(hint string, data []byte) Arg {
	cd := &constData{hint: hint, data: data}
	c.consts = append(c.consts, cd)
	return constArg{cd}
}

// ConstI32 is Const for little-endian int32 values.
func (c *opCtx) ConstI32(hint string, v []int32) Arg {
	return c.Const(hint, int32Bytes(v))
}

// ConstI64 is Const for little-endian int64 values.
func (c *opCtx) ConstI64(hint string, v []int64) Arg {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return c.Const(hint, b)
}

// ConstF32 is Const for little-endian float32 values.
func (c *opCtx) ConstF32(hint string, v []float32) Arg {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return c.Const(hint, b)
}

// Arg is one argument of an emitted kernel call.
type Arg interface{ isArg() }

// View passes tensor t as a typed slice over its arena bytes ([]int8,
// []int16, []int32, []float32, ...). A constant tensor of a one-byte type is
// passed as a slice over its read-only data; constants of wider types must
// use Str (their data has no alignment guarantee).
func View(t *model.Tensor) Arg { return viewArg{t: t} }

// Bytes passes tensor t's arena bytes as []byte.
func Bytes(t *model.Tensor) Arg { return viewArg{t: t, raw: true} }

// Str passes a constant tensor's data as a read-only string constant
// (little-endian bytes; kernels decode wide types with ld32/ldf32/...).
func Str(t *model.Tensor) Arg { return strArg{t} }

// Int passes an int literal.
func Int(v int) Arg { return litArg{v} }

// I32 passes an int32 literal.
func I32(v int32) Arg { return litArg{v} }

// I64 passes an int64 literal.
func I64(v int64) Arg { return litArg{v} }

// F32 passes a float32 literal (exact bits preserved).
func F32(v float32) Arg { return litArg{v} }

// Bool passes a bool literal.
func Bool(v bool) Arg { return litArg{v} }

// Field is one field of a Struct argument.
type Field struct {
	Name  string
	Value Arg
}

// F builds a Field.
func F(name string, v Arg) Field { return Field{name, v} }

// Struct passes &typ{fields...}: a parameter block of constants.
func Struct(typ kernelsig.Struct, fields ...Field) Arg { return structArg{typ, fields} }

type (
	viewArg struct {
		t   *model.Tensor
		raw bool
	}
	strArg    struct{ t *model.Tensor }
	litArg    struct{ v any }
	structArg struct {
		typ    kernelsig.Struct
		fields []Field
	}
	reqArg   struct{ r *scratchReq } // a Scratch or Persistent buffer
	constArg struct{ c *constData }
)

func (viewArg) isArg()   {}
func (strArg) isArg()    {}
func (litArg) isArg()    {}
func (structArg) isArg() {}
func (reqArg) isArg()    {}
func (constArg) isArg()  {}

// The quantization toolkit of the lowerings: every multiplier and every
// activation range is computed by internal/quant through these, so that
// overflow is treated the same way everywhere.

// multiplier is quant.CheckedMultiplier with an error naming the operator
// and what the multiplier rescales.
func (c *opCtx) multiplier(what string, real float64) (int32, int, error) {
	m, s, err := quant.CheckedMultiplier(real)
	if err != nil {
		return 0, 0, c.Errorf("%s: %v", what, err)
	}
	return m, s, nil
}

// actRange returns the quantized clamp bounds of a fused activation for an
// output of type dt (quant.ActRange).
func (c *opCtx) actRange(act quant.Activation, scale float32, zp int32, dt model.DType) (int32, int32, error) {
	qmin, qmax := dt.IntRange()
	lo, hi, err := quant.ActRange(act, scale, zp, qmin, qmax)
	if err != nil {
		return 0, 0, c.Errorf("%v", err)
	}
	return lo, hi, nil
}

// actRangeFloat returns the float clamp bounds of a fused activation.
func (c *opCtx) actRangeFloat(act quant.Activation) (float32, float32, error) {
	lo, hi, ok := quant.RangeFloat(act)
	if !ok {
		return 0, 0, c.Errorf("fused activation %s is not supported", act)
	}
	return lo, hi, nil
}

// perTensor returns the scale and zero point of a tensor with per-tensor
// quantization and a positive, finite scale (the LSTM and SVDF operands).
func perTensor(c *opCtx, what string, t *model.Tensor) (float32, int64, error) {
	q := t.Quant
	if q == nil || len(q.Scale) != 1 || len(q.ZeroPoint) != 1 {
		return 0, 0, c.Errorf("%s %s: needs per-tensor quantization", what, t.Describe())
	}
	s := q.Scale[0]
	if !(s > 0) || math.IsInf(float64(s), 0) {
		return 0, 0, c.Errorf("%s %s: invalid scale %g", what, t.Describe(), s)
	}
	return s, q.ZeroPoint[0], nil
}

// walk calls fn on c and on the contexts of the operators of the subgraphs
// c calls (control flow), depth first in program order.
func (c *opCtx) walk(fn func(*opCtx)) {
	fn(c)
	if c.flow != nil {
		for _, b := range c.flow.blocks {
			for _, cc := range b.ops {
				cc.walk(fn)
			}
		}
	}
}

// phase4 returns b four times, each copy one byte after the one before
// (copy i at offset i*(len(b)+1)), so that for a len(b) that is a
// multiple of 4 one copy is word-aligned wherever the string lands (the
// kernels' strAligned4): -speed's layout of small per-channel tables.
func phase4(b []byte) []byte {
	out := make([]byte, 0, 4*len(b)+3)
	for i := 0; i < 4; i++ {
		if i > 0 {
			out = append(out, 0)
		}
		out = append(out, b...)
	}
	return out
}

// int32Bytes is v as little-endian bytes.
func int32Bytes(v []int32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], uint32(x))
	}
	return out
}
