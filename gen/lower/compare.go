package lower

import (
	"fmt"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// Lowerings of the comparisons EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER
// and GREATER_EQUAL (TFLite Micro's comparisons.cc) and of LOGICAL_AND and
// LOGICAL_OR (logical.cc), all with broadcasting (ewBcastPlan, as TFLM's
// BroadcastBinaryOpSimple fuses dimensions) into a bool output
// (kernels/compare.go).
//
// Types, as TFLM's Eval functions have them: float32, int32, int64 and int8
// for every comparison, bool too for EQUAL and NOT_EQUAL. int8 inputs are
// rescaled by their own scale before comparing (ComparisonsPrepare): the
// scale must be in (0, 1), which TFLM checks by aborting, and the zero
// point an int8 value. GREATER's int16 case is refused: TFLM's Prepare
// computes the rescaling for int8 only, so its int16 Eval compares with
// zero multipliers (every result false), not the inputs.
//
// Refused beyond TFLM's own checks (which do not look at the output or
// at the second input's type): an output that is not bool or whose shape
// is not the broadcast of the inputs, inputs of different types, and
// broadcasts that need more than six fused loops (TFLM allows rank 8).

func init() {
	register(model.OpEqual, lowerCompare(cmpMaskEqual, true), elementwise)
	register(model.OpNotEqual, lowerCompare(cmpMaskNotEqual, true), elementwise)
	register(model.OpLess, lowerCompare(cmpMaskLess, false), elementwise)
	register(model.OpLessEqual, lowerCompare(cmpMaskLessEqual, false), elementwise)
	register(model.OpGreater, lowerCompare(cmpMaskGreater, false), elementwise)
	register(model.OpGreaterEqual, lowerCompare(cmpMaskGreaterEqual, false), elementwise)
	register(model.OpLogicalAnd, lowerLogical(kernelsig.LogicalAnd), elementwise)
	register(model.OpLogicalOr, lowerLogical(kernelsig.LogicalOr), elementwise)
	register(model.OpSelectV2, lowerSelectV2, elementwise)
}

// Truth tables of the comparisons over the outcomes of kernels.cmpParams:
// bit 0 x < y, bit 1 x == y, bit 2 x > y, bit 3 unordered (NaN).
const (
	cmpMaskEqual        = 0b0010
	cmpMaskNotEqual     = 0b1101
	cmpMaskLess         = 0b0001
	cmpMaskLessEqual    = 0b0011
	cmpMaskGreater      = 0b0100
	cmpMaskGreaterEqual = 0b0110
)

// cmpBinary checks two inputs of one type, an output of type outDT and the
// broadcast of their shapes.
func cmpBinary(c *opCtx, outDT model.DType) (a, b, out *model.Tensor, plan ewPlan, err error) {
	if c.NumIn() != 2 || c.NumOut() != 1 {
		return nil, nil, nil, plan, c.Errorf("want 2 inputs and 1 output, have %d and %d", c.NumIn(), c.NumOut())
	}
	a, b, out = c.In(0), c.In(1), c.Out(0)
	if a == nil || b == nil {
		return nil, nil, nil, plan, c.Errorf("an input is missing")
	}
	if a.Type != b.Type {
		return nil, nil, nil, plan, c.Errorf("input types %s and %s differ", a.Type, b.Type)
	}
	if out.Type != outDT {
		return nil, nil, nil, plan, c.Errorf("output type %s, want %s", out.Type, outDT)
	}
	if plan, err = ewBcastPlan(a.Shape, b.Shape, out.Shape); err != nil {
		return nil, nil, nil, plan, c.Errorf("%v", err)
	}
	return a, b, out, plan, nil
}

// cmpOperand is ewOperand with int64 constants too.
func cmpOperand(c *opCtx, t *model.Tensor) (Arg, error) {
	if t.IsConst() && t.Type == model.Int64 {
		s := c.Scratch(t.Type, t.NumElements())
		c.Call(kernelsig.LoadI64, Str(t), s)
		return s, nil
	}
	return ewOperand(c, t)
}

// cmpEmit emits fn(params..., bcast, a, b, out).
func cmpEmit(c *opCtx, fn kernelsig.Func, params []Arg, plan ewPlan, a, b, out *model.Tensor) error {
	if plan.Empty {
		return nil
	}
	av, err := cmpOperand(c, a)
	if err != nil {
		return err
	}
	bv, err := cmpOperand(c, b)
	if err != nil {
		return err
	}
	c.Call(fn, append(append([]Arg{}, params...), ewBcastArg(plan), av, bv, View(out))...)
	return nil
}

// cmpInt8Scale returns TFLM's rescaling of one int8 comparison input: the
// offset -zp and the scale as a multiplier below one.
func cmpInt8Scale(c *opCtx, t *model.Tensor) (off, mult int32, shift int, err error) {
	s, zp, err := ewTensorQuant(c, t)
	if err != nil {
		return 0, 0, 0, err
	}
	if err := ewZPInRange(c, t, zp); err != nil {
		return 0, 0, 0, err
	}
	m, sh, err := ewMultiplierBelowOne(float64(s))
	if err != nil {
		return 0, 0, 0, c.Errorf("%s: scale %g: %v (TFLM requires a scale below 1)", t.Describe(), s, err)
	}
	return -zp, m, sh, nil
}

// lowerCompare lowers a comparison with truth table mask; withBool says
// whether TFLM's Eval takes bool inputs (EQUAL, NOT_EQUAL).
func lowerCompare(mask uint8, withBool bool) lowering {
	return func(c *opCtx) error {
		a, b, out, plan, err := cmpBinary(c, model.Bool)
		if err != nil {
			return err
		}
		fields := []Field{F("mask", Int(int(mask)))}
		var fn kernelsig.Func
		switch a.Type {
		case model.Float32:
			fn = kernelsig.CmpF32
		case model.Int32:
			fn = kernelsig.CmpI32
		case model.Int64:
			fn = kernelsig.CmpI64
		case model.Bool:
			if !withBool {
				return c.Errorf("type %s is not supported (float32, int32, int64, int8)", a.Type)
			}
			fn = kernelsig.CmpBool
		case model.Int8:
			fn = kernelsig.CmpInt8
			o1, m1, s1, err := cmpInt8Scale(c, a)
			if err != nil {
				return err
			}
			o2, m2, s2, err := cmpInt8Scale(c, b)
			if err != nil {
				return err
			}
			fields = append(fields,
				F("in1Off", I32(o1)), F("in2Off", I32(o2)),
				F("in1Mult", I32(m1)), F("in2Mult", I32(m2)),
				F("in1Shift", Int(s1)), F("in2Shift", Int(s2)))
		case model.Int16:
			if c.Op.Code == model.OpGreater {
				return c.Errorf("int16 is not supported: TFLite Micro's Prepare leaves the int16 rescaling unset, so its Eval does not compare the inputs")
			}
			return c.Errorf("type %s is not supported", a.Type)
		default:
			return c.Errorf("type %s is not supported", a.Type)
		}
		return cmpEmit(c, fn, []Arg{Struct(kernelsig.CmpParams, fields...)}, plan, a, b, out)
	}
}

// lowerLogical lowers LOGICAL_AND or LOGICAL_OR: bool inputs and output.
func lowerLogical(fn kernelsig.Func) lowering {
	return func(c *opCtx) error {
		a, b, out, plan, err := cmpBinary(c, model.Bool)
		if err != nil {
			return err
		}
		if a.Type != model.Bool {
			return c.Errorf("type %s is not supported (bool only)", a.Type)
		}
		return cmpEmit(c, fn, nil, plan, a, b, out)
	}
}

// SELECT_V2 (TFLite Micro's select.cc): out = condition ? x : y, the three
// inputs broadcast against each other (BroadcastSelectSimple fuses
// dimensions as the binary operators do). The condition is bool, x and y
// and the output float32, int8 or int16 of one type; quantization is not
// looked at (values are copied). As in TFLM's Prepare, three one-element
// inputs and a one-element output of any shapes are a plain copy, and
// otherwise the output shape must be the broadcast of the inputs' shapes,
// of the largest input rank.

// bcLoop is one fused loop of an N-input broadcast: its count and the step
// of each input along it (0 where the input is broadcast).
type bcLoop struct {
	n  int
	st []int
}

// bcLoops plans a broadcast of the input shapes ins to out as fused loops,
// innermost first, fusing neighbouring dimensions as TFLM's
// BroadcastBinaryOpSimple and BroadcastSelectSimple do. empty reports an
// output without elements.
func bcLoops(ins [][]int, out []int) (loops []bcLoop, empty bool, err error) {
	rank := len(out)
	for _, s := range ins {
		rank = max(rank, len(s))
	}
	ext := func(s []int) []int {
		e := make([]int, rank)
		for i := range e {
			e[i] = 1
		}
		copy(e[rank-len(s):], s)
		return e
	}
	eo := ext(out)
	es := make([][]int, len(ins))
	for k, s := range ins {
		es[k] = ext(s)
	}
	for i := range rank {
		want, zero := 1, false
		for k := range es {
			d := es[k][i]
			zero = zero || d == 0
			if d != 1 {
				if want != 1 && d != want {
					return nil, false, fmt.Errorf("shapes %v do not broadcast", ins)
				}
				want = d
			}
		}
		if zero {
			want = 0
		}
		if eo[i] != want {
			return nil, false, fmt.Errorf("output shape %v is not the broadcast of %v", out, ins)
		}
		if want == 0 {
			empty = true
		}
	}
	if empty {
		return nil, true, nil
	}
	fuse := func(outDim, stride, expected, next int) bool {
		if outDim == 1 {
			return true
		}
		if next == 0 {
			return stride == 0
		}
		return stride == expected
	}
	acc := make([]int, len(ins))
	for k := range acc {
		acc[k] = 1
	}
	accO := 1
	for i := rank - 1; i >= 0; i-- {
		do := eo[i]
		st := make([]int, len(ins))
		for k := range ins {
			st[k] = acc[k]
			if es[k][i] == 1 && do != 1 {
				st[k] = 0
			}
		}
		l := len(loops) - 1
		ok := l >= 0 && fuse(do, accO, accO, loops[l].n) // output strides: always contiguous
		for k := range ins {
			ok = ok && fuse(do, st[k], acc[k], loops[l].st[k])
		}
		if ok {
			loops[l].n *= do
		} else {
			loops = append(loops, bcLoop{do, st})
		}
		for k := range ins {
			acc[k] *= es[k][i]
		}
		accO *= do
	}
	if len(loops) == 0 {
		loops = []bcLoop{{1, make([]int, len(ins))}}
	}
	return loops, false, nil
}

// selLoops is the number of loops of kernels.selBcast (the row and four).
const selLoops = 5

func lowerSelectV2(c *opCtx) error {
	if c.NumIn() != 3 || c.NumOut() != 1 {
		return c.Errorf("want 3 inputs and 1 output, have %d and %d", c.NumIn(), c.NumOut())
	}
	cond, x, y, out := c.In(0), c.In(1), c.In(2), c.Out(0)
	if cond == nil || x == nil || y == nil {
		return c.Errorf("an input is missing")
	}
	if cond.Type != model.Bool {
		return c.Errorf("condition type %s, want bool", cond.Type)
	}
	if x.Type != y.Type || out.Type != x.Type {
		return c.Errorf("x, y and output types %s, %s and %s differ", x.Type, y.Type, out.Type)
	}
	var fn kernelsig.Func
	switch x.Type {
	case model.Int8:
		fn = kernelsig.SelectInt8
	case model.Int16:
		fn = kernelsig.SelectInt16
	case model.Float32:
		fn = kernelsig.SelectF32
	default:
		return c.Errorf("type %s is not supported (int8, int16, float32)", x.Type)
	}
	var loops []bcLoop
	switch {
	case moveSameShape(cond.Shape, x.Shape) && moveSameShape(x.Shape, y.Shape) && cond.NumElements() == out.NumElements():
		loops = []bcLoop{{out.NumElements(), []int{1, 1, 1}}}
	case cond.NumElements() == 1 && x.NumElements() == 1 && y.NumElements() == 1 && out.NumElements() == 1:
		loops = []bcLoop{{1, []int{0, 0, 0}}}
	default:
		if r := max(len(cond.Shape), len(x.Shape), len(y.Shape)); len(out.Shape) != r {
			return c.Errorf("output rank %d, want %d (the largest input rank)", len(out.Shape), r)
		}
		var empty bool
		var err error
		loops, empty, err = bcLoops([][]int{cond.Shape, x.Shape, y.Shape}, out.Shape)
		if err != nil {
			return c.Errorf("%v", err)
		}
		if empty {
			return nil
		}
	}
	if len(loops) > selLoops {
		return c.Errorf("the broadcast needs %d loops, at most %d are supported", len(loops), selLoops)
	}
	if loops[0].n == 0 {
		return nil
	}
	f := []Field{F("inner", Int(loops[0].n)),
		F("cInner", Int(loops[0].st[0])), F("xInner", Int(loops[0].st[1])), F("yInner", Int(loops[0].st[2]))}
	for k := 1; k < selLoops; k++ {
		l := bcLoop{1, []int{0, 0, 0}}
		if k < len(loops) {
			l = loops[k]
		}
		f = append(f, F(fmt.Sprintf("n%d", k), Int(l.n)),
			F(fmt.Sprintf("c%d", k), Int(l.st[0])), F(fmt.Sprintf("x%d", k), Int(l.st[1])), F(fmt.Sprintf("y%d", k), Int(l.st[2])))
	}
	xv, err := ewOperand(c, x)
	if err != nil {
		return err
	}
	yv, err := ewOperand(c, y)
	if err != nil {
		return err
	}
	c.Call(fn, Struct(kernelsig.SelBcast, f...), View(cond), xv, yv, View(out))
	return nil
}
