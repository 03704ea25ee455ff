package lower

import (
	"math"
	"slices"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// Lowerings of TFLite Micro's broadcasting division operators DIV (div.cc),
// FLOOR_DIV (floor_div.cc) and FLOOR_MOD (floor_mod.cc), of
// SQUARED_DIFFERENCE (squared_difference.cc) and of ADD_N (add_n.cc)
// (kernels/divmod.go); int8 DIV as div.h's DivElementwise. Broadcasting
// reuses the plan of ADD/SUB/MUL (ewBcastPlan).

func init() {
	register(model.OpDiv, lowerDiv, elementwise)
	register(model.OpFloorDiv, lowerFloorDivMod(kernelsig.FloorDivF32, true), elementwise)
	register(model.OpFloorMod, lowerFloorDivMod(kernelsig.FloorModF32, false), elementwise)
	register(model.OpSquaredDifference, lowerSquaredDifference, elementwise)
	// ADD_N accumulates into its output input by input: the output must
	// not take over an input's memory.
	register(model.OpAddN, lowerAddN, ownBuffer, withTFLMScratch(addNTFLMScratch))
}

// dmBinary checks a broadcasting binary operator (ewBinary) and the rank
// its TFLM kernel can broadcast: TFLM's slow broadcast paths are written
// for maxRank dimensions and abort on more. The broadcast path is taken
// when the shapes differ: exactly (exact), or once extended to a common
// rank (DIV's ProcessBroadcastShapes).
func dmBinary(c *opCtx, maxRank int, exact bool) (a, b, out *model.Tensor, plan ewPlan, err error) {
	a, b, out, plan, err = ewBinary(c)
	if err != nil {
		return
	}
	same := slices.Equal(a.Shape, b.Shape)
	if !exact {
		same = slices.Equal(dmExtend(a.Shape, len(b.Shape)), dmExtend(b.Shape, len(a.Shape)))
	}
	if r := max(len(a.Shape), len(b.Shape), len(out.Shape)); !same && r > maxRank {
		err = c.Errorf("broadcasting %v against %v: rank %d, TFLite Micro broadcasts at most %d dimensions", a.Shape, b.Shape, r, maxRank)
	}
	return
}

// dmExtend prefixes s with 1s to rank n.
func dmExtend(s []int, n int) []int {
	e := make([]int, max(n-len(s), 0), max(n, len(s)))
	for i := range e {
		e[i] = 1
	}
	return append(e, s...)
}

// dmConstZero reports whether t is a constant holding a zero (any zero,
// for float32 also -0): TFLM cannot run such a division (FLOOR_DIV fails
// its Invoke, int32 DIV traps), so it is refused at generation time.
func dmConstZero(t *model.Tensor) bool {
	if !t.IsConst() {
		return false
	}
	d := t.Data
	switch t.Type {
	case model.Float32:
		for i := 0; i+4 <= len(d); i += 4 {
			if math.Float32frombits(uint32(d[i])|uint32(d[i+1])<<8|uint32(d[i+2])<<16|uint32(d[i+3])<<24) == 0 {
				return true
			}
		}
	case model.Int32:
		for i := 0; i+4 <= len(d); i += 4 {
			if d[i]|d[i+1]|d[i+2]|d[i+3] == 0 {
				return true
			}
		}
	}
	return false
}

// lowerDiv lowers DIV: float32, int32 (not quantized) and int8 with the
// fused activation.
func lowerDiv(c *opCtx) error {
	a, b, out, plan, err := dmBinary(c, 5, false)
	if err != nil {
		return err
	}
	o := c.Op.Options()
	act, err := ewActivation(c, o.Div().FusedActivationFunction)
	if err != nil {
		return err
	}
	if err := o.Err(); err != nil {
		return c.Errorf("%v", err)
	}
	switch out.Type {
	case model.Float32:
		lo, hi, err := c.actRangeFloat(act)
		if err != nil {
			return err
		}
		p := Struct(kernelsig.EwF32Params, F("actMin", F32(lo)), F("actMax", F32(hi)))
		return ewEmitBinary(c, noBand, kernelsig.DivF32, []Arg{p}, plan, a, b, out)
	case model.Int32:
		if err := ewRequireUnquantized(c, a, b); err != nil {
			return err
		}
		if dmConstZero(b) {
			return c.Errorf("constant divisor %s holds a zero (TFLite Micro's int32 DIV cannot divide by it)", b.Describe())
		}
		lo, hi := quant.RangeInt32(act)
		p := Struct(kernelsig.EwI32Params, F("actMin", I32(lo)), F("actMax", I32(hi)))
		return ewEmitBinary(c, noBand, kernelsig.DivI32, []Arg{p}, plan, a, b, out)
	case model.Int8:
		return lowerDivInt8(c, act, plan, a, b, out)
	}
	return c.Errorf("type %s is not supported (float32, int32, int8)", out.Type)
}

// divMaxOutShift bounds the int8 DIV output shift: the kernel's combined
// shift is output shift - reciprocal shift (-1..7, -1 for a divisor at its
// zero point) - headroom (23..31), and above 22 it could become a left
// shift, which TFLM's MultiplyByQuantizedMultiplierSmallerThanOneExp
// cannot apply (a real multiplier of 2^22 and more; refused).
const divMaxOutShift = 22

// lowerDivInt8 lowers int8 DIV as TFLM's CalculateOpDataDiv prepares it:
// per-tensor scales and zero points, the output multiplier of input 1
// scale / (input 2 scale * output scale) taken in float32 and converted by
// QuantizeMultiplier, the activation range on the output. A divisor at its
// zero point gives TFLM's (meaningless but deterministic) value, see
// kernels.divQuantOne.
func lowerDivInt8(c *opCtx, act quant.Activation, plan ewPlan, a, b, out *model.Tensor) error {
	s, z, err := ewQuantTriple(c, a, b, out)
	if err != nil {
		return err
	}
	real := float64(s[0] / (s[1] * s[2]))
	if math.IsInf(real, 0) || math.IsNaN(real) || !(real > 0) {
		return c.Errorf("output multiplier %g (input scales %g, %g, output scale %g) is not a positive finite number", real, s[0], s[1], s[2])
	}
	m, shift := quant.Multiplier(real)
	if shift > divMaxOutShift {
		return c.Errorf("output multiplier %g is too large (shift %d > %d)", real, shift, divMaxOutShift)
	}
	lo, hi, err := c.actRange(act, s[2], z[2], out.Type)
	if err != nil {
		return err
	}
	p := Struct(kernelsig.MulQuantParams,
		F("in1Off", I32(-z[0])), F("in2Off", I32(-z[1])), F("outOff", I32(z[2])),
		F("mult", I32(m)), F("shift", Int(shift)),
		F("actMin", I32(lo)), F("actMax", I32(hi)))
	return ewEmitBinary(c, noBand, kernelsig.DivInt8, []Arg{p}, plan, a, b, out)
}

// lowerFloorDivMod lowers FLOOR_DIV (div) or FLOOR_MOD: float32 only, as
// TFLM's Eval has them.
func lowerFloorDivMod(fn kernelsig.Func, div bool) lowering {
	return func(c *opCtx) error {
		a, b, out, plan, err := dmBinary(c, 4, true)
		if err != nil {
			return err
		}
		if out.Type != model.Float32 {
			return c.Errorf("type %s is not supported (float32 only, as in TFLite Micro)", out.Type)
		}
		if div && dmConstZero(b) {
			return c.Errorf("constant divisor %s holds a zero (TFLite Micro's FLOOR_DIV fails on it)", b.Describe())
		}
		return ewEmitBinary(c, noBand, fn, nil, plan, a, b, out)
	}
}

// lowerSquaredDifference lowers SQUARED_DIFFERENCE: float32, int32, and
// int8 and int16 with the parameters of TFLM's PrepareQuantized (int16
// with zero points 0). TFLM sets the output type to the inputs'; an
// output of another type is refused.
func lowerSquaredDifference(c *opCtx) error {
	a, b, out, plan, err := dmBinary(c, 4, true)
	if err != nil {
		return err
	}
	switch out.Type {
	case model.Float32:
		return ewEmitBinary(c, noBand, kernelsig.SqDiffF32, nil, plan, a, b, out)
	case model.Int32:
		return ewEmitBinary(c, noBand, kernelsig.SqDiffI32, nil, plan, a, b, out)
	case model.Int8, model.Int16:
	default:
		return c.Errorf("type %s is not supported (float32, int32, int8, int16)", out.Type)
	}
	s, z, err := ewQuantTriple(c, a, b, out)
	if err != nil {
		return err
	}
	leftShift, fn := 7, kernelsig.SqDiffInt8
	if out.Type == model.Int16 {
		if z != [3]int32{} {
			return c.Errorf("int16 zero points must be 0, have %d, %d and %d", z[0], z[1], z[2])
		}
		leftShift, fn = 0, kernelsig.SqDiffInt16
	}
	k := ewQuantConsts{In1Off: -z[0], In2Off: -z[1], OutOff: z[2], LeftShift: leftShift}
	k.ActMin, k.ActMax = out.Type.IntRange()
	twice := 2 * float64(max(s[0], s[1]))
	if k.In1Mult, k.In1Shift, err = ewMultiplierBelowOne(float64(s[0]) / twice); err != nil {
		return c.Errorf("input 1: %v", err)
	}
	if k.In2Mult, k.In2Shift, err = ewMultiplierBelowOne(float64(s[1]) / twice); err != nil {
		return c.Errorf("input 2: %v", err)
	}
	// TFLM multiplies 2^(2*leftShift) by the output scale in float32.
	if k.OutMult, k.OutShift, err = c.multiplier("output", twice*twice/float64(float32(int32(1)<<(2*leftShift))*s[2])); err != nil {
		return err
	}
	return ewEmitBinary(c, noBand, fn, []Arg{ewQuantArg(k)}, plan, a, b, out)
}

// lowerAddN lowers ADD_N: two or more inputs of one type and shape,
// float32 or int8 (all inputs with the same scale and zero point), summed
// by a start call, one accumulate call per input and, for int8, a final
// rescaling from int32 scratch.
func lowerAddN(c *opCtx) error {
	if c.NumIn() < 2 || c.NumOut() != 1 {
		return c.Errorf("want at least 2 inputs and 1 output, have %d and %d", c.NumIn(), c.NumOut())
	}
	first, out := c.In(0), c.Out(0)
	for i := range c.NumIn() {
		in := c.In(i)
		if in == nil {
			return c.Errorf("input %d is missing", i)
		}
		if in.Type != first.Type || !slices.Equal(in.Shape, first.Shape) {
			return c.Errorf("input %d (%s %v) differs in type or shape from input 0 (%s %v)", i, in.Type, in.Shape, first.Type, first.Shape)
		}
	}
	if out.Type != first.Type {
		return c.Errorf("output type %s differs from the input type %s", out.Type, first.Type)
	}
	if !slices.Equal(out.Shape, first.Shape) {
		return c.Errorf("output shape %v differs from the input shape %v", out.Shape, first.Shape)
	}
	n := out.NumElements()
	switch out.Type {
	case model.Float32:
		if n == 0 {
			return nil
		}
		c.Call(kernelsig.AddNF32Start, View(out))
		for i := range c.NumIn() {
			v, err := ewOperand(c, c.In(i))
			if err != nil {
				return err
			}
			c.Call(kernelsig.AddNF32Acc, v, View(out))
		}
		return nil
	case model.Int8:
	default:
		return c.Errorf("type %s is not supported (float32, int8)", out.Type)
	}
	si, zi, err := ewTensorQuant(c, first)
	if err != nil {
		return err
	}
	for i := 1; i < c.NumIn(); i++ {
		s, z, err := ewTensorQuant(c, c.In(i))
		if err != nil {
			return err
		}
		if s != si || z != zi {
			return c.Errorf("input %d has scale %g and zero point %d, input 0 %g and %d (they must be equal)", i, s, z, si, zi)
		}
	}
	so, zo, err := ewTensorQuant(c, out)
	if err != nil {
		return err
	}
	if err := ewZPInRange(c, out, zo); err != nil {
		return err
	}
	k := ewQuantConsts{In1Off: -zi, OutOff: zo, LeftShift: 20, ActMin: -128, ActMax: 127}
	twice := 2 * float64(si)
	if k.In1Mult, k.In1Shift, err = ewMultiplierBelowOne(float64(si) / twice); err != nil {
		return c.Errorf("input: %v", err)
	}
	if k.OutMult, k.OutShift, err = ewMultiplierBelowOne(twice / (float64(int32(1)<<20) * float64(so))); err != nil {
		return c.Errorf("output: %v", err)
	}
	if n == 0 {
		return nil
	}
	p := ewQuantArg(k)
	acc := c.Scratch(model.Int32, n)
	c.Call(kernelsig.AddNInt8Start, p, acc)
	for i := range c.NumIn() {
		c.Call(kernelsig.AddNInt8Acc, p, View(c.In(i)), acc)
	}
	c.Call(kernelsig.AddNInt8Out, p, acc, View(out))
	return nil
}

// addNTFLMScratch: TFLM's float32 and int8 kernels request a pointer per
// input.
func addNTFLMScratch(g *model.Graph, op *model.Op) []int {
	if out := g.Output(op, 0); out.Type == model.Float32 || out.Type == model.Int8 {
		return []int{8 * len(op.Inputs)}
	}
	return nil
}
