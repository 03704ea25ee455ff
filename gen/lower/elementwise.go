package lower

import (
	"fmt"
	"math"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// Lowerings of the binary elementwise operators ADD, SUB, MUL, MAXIMUM and
// MINIMUM (kernels/elementwise*.go). Parameters follow TFLite Micro's
// Prepare functions (add_common.cc, sub_common.cc, mul_common.cc), including
// where TFLM computes in float32 rather than float64.

func init() {
	register(model.OpAdd, lowerAdd, elementwise)
	register(model.OpSub, lowerSub, elementwise)
	register(model.OpMul, lowerMul, elementwise)
	register(model.OpMaximum, lowerMaximum, elementwise)
	register(model.OpMinimum, lowerMinimum, elementwise)
}

// ewPlan is a generation-time broadcast plan (kernels.ewBcast): the row
// (innermost fused dimension) and up to five outer dimensions, innermost
// first, with the step of each input along each of them.
type ewPlan struct {
	Inner, AInner, BInner int
	N, A, B               [5]int
	Empty                 bool // the output has no elements
}

// ewBcastPlan plans a NumPy-style broadcast of shapes s1 and s2 to so.
// Dimensions are fused as TFLM's BroadcastBinaryOpSimple fuses them.
func ewBcastPlan(s1, s2, so []int) (ewPlan, error) {
	var p ewPlan
	rank := max(len(s1), len(s2), len(so))
	ext := func(s []int) []int {
		e := make([]int, rank)
		for i := range e {
			e[i] = 1
		}
		copy(e[rank-len(s):], s)
		return e
	}
	e1, e2, eo := ext(s1), ext(s2), ext(so)
	for i := range rank {
		want := e1[i]
		switch {
		case e1[i] == 1:
			want = e2[i]
		case e2[i] != 1 && e2[i] != e1[i]:
			return p, fmt.Errorf("shapes %v and %v do not broadcast", s1, s2)
		}
		if eo[i] != want {
			return p, fmt.Errorf("output shape %v is not the broadcast of %v and %v", so, s1, s2)
		}
		if want == 0 {
			p.Empty = true
		}
	}
	for k := range p.N {
		p.N[k] = 1
	}
	p.Inner = 1
	if p.Empty || rank == 0 {
		return p, nil
	}
	type loop struct{ n, sa, sb, so int }
	var loops []loop
	fuse := func(outDim, stride, expected, next int) bool {
		if outDim == 1 {
			return true
		}
		if next == 0 {
			return stride == 0
		}
		return stride == expected
	}
	accA, accB, accO := 1, 1, 1
	for i := rank - 1; i >= 0; i-- {
		d1, d2, do := e1[i], e2[i], eo[i]
		sa, sb := accA, accB
		if d1 == 1 && do != 1 {
			sa = 0
		}
		if d2 == 1 && do != 1 {
			sb = 0
		}
		if l := len(loops) - 1; l >= 0 && fuse(do, sa, accA, loops[l].sa) &&
			fuse(do, sb, accB, loops[l].sb) && fuse(do, accO, accO, loops[l].so) {
			loops[l].n *= do
		} else {
			loops = append(loops, loop{do, sa, sb, accO})
		}
		accA *= d1
		accB *= d2
		accO *= do
	}
	if len(loops) > 1+len(p.N) {
		return p, fmt.Errorf("broadcasting %v against %v needs %d loops, at most %d are supported", s1, s2, len(loops), 1+len(p.N))
	}
	p.Inner, p.AInner, p.BInner = loops[0].n, loops[0].sa, loops[0].sb
	for k, l := range loops[1:] {
		p.N[k], p.A[k], p.B[k] = l.n, l.sa, l.sb
	}
	return p, nil
}

// ewBcastArg is the kernels.ewBcast argument for a plan.
func ewBcastArg(p ewPlan) Arg {
	f := []Field{F("inner", Int(p.Inner)), F("aInner", Int(p.AInner)), F("bInner", Int(p.BInner))}
	for k := range p.N {
		f = append(f,
			F(fmt.Sprintf("n%d", k+1), Int(p.N[k])),
			F(fmt.Sprintf("a%d", k+1), Int(p.A[k])),
			F(fmt.Sprintf("b%d", k+1), Int(p.B[k])))
	}
	return Struct(kernelsig.EwBcast, f...)
}

// ewOperand returns the argument through which a kernel reads tensor t as a
// typed slice. Activations and one-byte constants are passed directly; a
// wider constant is decoded into a scratch buffer by a call emitted here,
// before the operator's own call.
func ewOperand(c *opCtx, t *model.Tensor) (Arg, error) {
	if !t.IsConst() || t.Type.Size() == 1 {
		return View(t), nil
	}
	var fn kernelsig.Func
	switch t.Type {
	case model.Int16:
		fn = kernelsig.EwLoadI16
	case model.Int32:
		fn = kernelsig.EwLoadI32
	case model.Float32:
		fn = kernelsig.EwLoadF32
	default:
		return nil, c.Errorf("constant operand %s: type %s is not supported", t.Describe(), t.Type)
	}
	s := c.Scratch(t.Type, t.NumElements())
	c.Call(fn, Str(t), s)
	return s, nil
}

// ewTensorQuant returns the per-tensor scale and zero point of t.
func ewTensorQuant(c *opCtx, t *model.Tensor) (float32, int32, error) {
	if t.Quant == nil {
		return 0, 0, c.Errorf("%s is not quantized", t.Describe())
	}
	if len(t.Quant.Scale) != 1 {
		return 0, 0, c.Errorf("%s has per-channel quantization (%d scales); only per-tensor is supported", t.Describe(), len(t.Quant.Scale))
	}
	zp := t.Quant.ZeroPoint[0]
	if zp < math.MinInt32 || zp > math.MaxInt32 {
		return 0, 0, c.Errorf("%s: zero point %d out of range", t.Describe(), zp)
	}
	return t.Quant.Scale[0], int32(zp), nil
}

// ewZPInRange checks that zero point zp is a value of type dt.
func ewZPInRange(c *opCtx, t *model.Tensor, zp int32) error {
	lo, hi := t.Type.IntRange()
	if zp < lo || zp > hi {
		return c.Errorf("%s: zero point %d is outside the %s range", t.Describe(), zp, t.Type)
	}
	return nil
}

// ewActivation accepts the fused activation functions (the options'
// fused_activation_function) that are clamps.
func ewActivation(c *opCtx, act uint8) (quant.Activation, error) {
	a := quant.Activation(act)
	switch a {
	case quant.ActNone, quant.ActRelu, quant.ActReluN1To1, quant.ActRelu6:
		return a, nil
	}
	return a, c.Errorf("fused activation %s is not supported", a)
}

// ewQuantConsts mirrors kernels.ewQuantParams.
type ewQuantConsts struct {
	In1Off, In2Off, OutOff       int32
	In1Mult, In2Mult, OutMult    int32
	In1Shift, In2Shift, OutShift int
	LeftShift                    int
	ActMin, ActMax               int32
}

// ewMultiplierBelowOne is TFLM's QuantizeMultiplierSmallerThanOneExp,
// which rejects multipliers outside (0, 1).
func ewMultiplierBelowOne(real float64) (int32, int, error) {
	if !(real > 0 && real < 1) {
		return 0, 0, fmt.Errorf("rescaling factor %v is not in (0, 1)", real)
	}
	m, s, err := quant.CheckedMultiplier(real)
	if err != nil {
		return 0, 0, err
	}
	if s > 0 {
		return 0, 0, fmt.Errorf("rescaling factor %v rounds to 1", real)
	}
	return m, s, nil
}

// addSubQuantConsts computes the constants of a quantized ADD (sub=false) or
// SUB (sub=true) with output type dt, from the scales and zero points of the
// inputs and output. ADD derives its multipliers in float64, SUB in float32,
// as their TFLM Prepare functions do.
func addSubQuantConsts(sub bool, dt model.DType, s1, s2, so float32, z1, z2, zo int32, act quant.Activation) (ewQuantConsts, error) {
	k := ewQuantConsts{In1Off: -z1, In2Off: -z2, OutOff: zo, LeftShift: 20}
	if dt == model.Int16 {
		k.LeftShift = 15
	}
	var r1, r2, ro float64
	if sub {
		twice := 2 * max(s1, s2)
		r1 = float64(s1 / twice)
		r2 = float64(s2 / twice)
		ro = float64(twice / (float32(int32(1)<<k.LeftShift) * so))
	} else {
		twice := 2 * float64(max(s1, s2))
		r1 = float64(s1) / twice
		r2 = float64(s2) / twice
		ro = twice / (float64(int32(1)<<k.LeftShift) * float64(so))
	}
	var err error
	if k.In1Mult, k.In1Shift, err = ewMultiplierBelowOne(r1); err != nil {
		return k, fmt.Errorf("input 1: %w", err)
	}
	if k.In2Mult, k.In2Shift, err = ewMultiplierBelowOne(r2); err != nil {
		return k, fmt.Errorf("input 2: %w", err)
	}
	if k.OutMult, k.OutShift, err = ewMultiplierBelowOne(ro); err != nil {
		return k, fmt.Errorf("output: %w", err)
	}
	qmin, qmax := dt.IntRange()
	k.ActMin, k.ActMax, err = quant.ActRange(act, so, zo, qmin, qmax)
	return k, err
}

// ewAddTable is the table of the kernels' addInt8Tab and subInt8Tab: the
// rescaled term of every int8 value of input 1 (entry uint8(x)) and of input
// 2 (entry 256+uint8(y), negated for SUB), as addQuantOne computes them.
func ewAddTable(k ewQuantConsts, sub bool) []int32 {
	t := make([]int32, 512)
	for v := int32(-128); v < 128; v++ {
		t[uint8(v)] = ewRequantGen((k.In1Off+v)*(int32(1)<<k.LeftShift), k.In1Mult, k.In1Shift)
		y := ewRequantGen((k.In2Off+v)*(int32(1)<<k.LeftShift), k.In2Mult, k.In2Shift)
		if sub {
			y = -y
		}
		t[256+int(uint8(v))] = y
	}
	return t
}

// ewRequantGen is TFLM's MultiplyByQuantizedMultiplierSmallerThanOneExp
// (SaturatingRoundingDoublingHighMul, then RoundingDivideByPOT by -shift),
// for tables computed at generation time.
func ewRequantGen(x, m int32, shift int) int32 {
	v := int32(math.MaxInt32)
	if x != m || x != math.MinInt32 {
		ab := int64(x) * int64(m)
		nudge := int64(1 << 30)
		if ab < 0 {
			nudge = 1 - 1<<30
		}
		v = int32((ab + nudge) / (1 << 31))
	}
	e := uint(-shift)
	mask := int32(1)<<e - 1
	rem, thr := v&mask, mask>>1
	if v < 0 {
		thr++
	}
	r := v >> e
	if rem > thr {
		r++
	}
	return r
}

// ewQuantArg is the kernels.ewQuantParams argument.
func ewQuantArg(k ewQuantConsts) Arg {
	return Struct(kernelsig.EwQuantParams,
		F("in1Off", I32(k.In1Off)), F("in2Off", I32(k.In2Off)), F("outOff", I32(k.OutOff)),
		F("in1Mult", I32(k.In1Mult)), F("in2Mult", I32(k.In2Mult)), F("outMult", I32(k.OutMult)),
		F("in1Shift", Int(k.In1Shift)), F("in2Shift", Int(k.In2Shift)), F("outShift", Int(k.OutShift)),
		F("leftShift", Int(k.LeftShift)),
		F("actMin", I32(k.ActMin)), F("actMax", I32(k.ActMax)))
}

// ewBinary checks the tensors of a binary elementwise operator: two inputs
// and one output of the same type, broadcast-compatible shapes.
func ewBinary(c *opCtx) (a, b, out *model.Tensor, plan ewPlan, err error) {
	if c.NumIn() != 2 || c.NumOut() != 1 {
		return nil, nil, nil, plan, c.Errorf("want 2 inputs and 1 output, have %d and %d", c.NumIn(), c.NumOut())
	}
	a, b, out = c.In(0), c.In(1), c.Out(0)
	if a == nil || b == nil {
		return nil, nil, nil, plan, c.Errorf("an input is missing")
	}
	if a.Type != out.Type || b.Type != out.Type {
		return nil, nil, nil, plan, c.Errorf("input types %s and %s and output type %s differ", a.Type, b.Type, out.Type)
	}
	if plan, err = ewBcastPlan(a.Shape, b.Shape, out.Shape); err != nil {
		return nil, nil, nil, plan, c.Errorf("%v", err)
	}
	return a, b, out, plan, nil
}

// ewEmitBinary emits a binary elementwise kernel call: fn(params..., bcast,
// a, b, out).
func ewEmitBinary(c *opCtx, band program.Band, fn kernelsig.Func, params []Arg, plan ewPlan, a, b, out *model.Tensor) error {
	if plan.Empty {
		return nil
	}
	av, err := ewOperand(c, a)
	if err != nil {
		return err
	}
	bv, err := ewOperand(c, b)
	if err != nil {
		return err
	}
	args := append(append([]Arg{}, params...), ewBcastArg(plan), av, bv, View(out))
	c.BandCall(band, fn, args...)
	return nil
}

// ewQuantTriple returns the quantization of two inputs and an output.
func ewQuantTriple(c *opCtx, a, b, out *model.Tensor) (s [3]float32, z [3]int32, err error) {
	for i, t := range []*model.Tensor{a, b, out} {
		if s[i], z[i], err = ewTensorQuant(c, t); err != nil {
			return s, z, err
		}
		if err = ewZPInRange(c, t, z[i]); err != nil {
			return s, z, err
		}
	}
	return s, z, nil
}

// ewRequireUnquantized rejects quantized tensors (TFLM's int32 ADD and SUB
// support only plain int32).
func ewRequireUnquantized(c *opCtx, ts ...*model.Tensor) error {
	for _, t := range ts {
		if t.Quant != nil {
			return c.Errorf("%s: quantized int32 is not supported", t.Describe())
		}
	}
	return nil
}

// lowerAdd lowers ADD.
func lowerAdd(c *opCtx) error { return lowerAddSub(c, false) }

// lowerSub lowers SUB.
func lowerSub(c *opCtx) error { return lowerAddSub(c, true) }

// ewFns names the kernels of one binary elementwise operator per output
// type; ADD and SUB have the table-driven int8Tab where the others have
// int8.
type ewFns struct{ int8, int8Tab, int16, i32, f32 kernelsig.Func }

var (
	ewAddFns = ewFns{int8Tab: kernelsig.AddInt8Tab, int16: kernelsig.AddInt16, i32: kernelsig.AddI32, f32: kernelsig.AddF32}
	ewSubFns = ewFns{int8Tab: kernelsig.SubInt8Tab, int16: kernelsig.SubInt16, i32: kernelsig.SubI32, f32: kernelsig.SubF32}
	ewMaxFns = ewFns{int8: kernelsig.MaximumInt8, int16: kernelsig.MaximumInt16, i32: kernelsig.MaximumI32, f32: kernelsig.MaximumF32}
	ewMinFns = ewFns{int8: kernelsig.MinimumInt8, int16: kernelsig.MinimumInt16, i32: kernelsig.MinimumI32, f32: kernelsig.MinimumF32}
)

// lowerAddSub lowers ADD or SUB.
func lowerAddSub(c *opCtx, sub bool) error {
	fns := ewAddFns
	if sub {
		fns = ewSubFns
	}
	a, b, out, plan, err := ewBinary(c)
	if err != nil {
		return err
	}
	// AddOptions and SubOptions are alike. pot_scale_int16 is read for
	// validation only: TFLM always takes the general rescaling path for
	// int16.
	o := c.Op.Options()
	var fused uint8
	if sub {
		fused = o.Sub().FusedActivationFunction
	} else {
		fused = o.Add().FusedActivationFunction
	}
	act, err := ewActivation(c, fused)
	if err != nil {
		return err
	}
	if err := o.Err(); err != nil {
		return c.Errorf("%v", err)
	}
	switch out.Type {
	case model.Int8, model.Int16:
		s, z, err := ewQuantTriple(c, a, b, out)
		if err != nil {
			return err
		}
		k, err := addSubQuantConsts(sub, out.Type, s[0], s[1], s[2], z[0], z[1], z[2], act)
		if err != nil {
			return c.Errorf("%v", err)
		}
		if out.Type == model.Int8 {
			// Both inputs' rescaled terms from a table: only their sum is
			// rescaled per element, with no scratch.
			return ewEmitBinary(c, elemsBand, fns.int8Tab, []Arg{ewQuantArg(k), c.ConstI32("Tab", ewAddTable(k, sub))}, plan, a, b, out)
		}
		return ewEmitBinary(c, elemsBand, fns.int16, []Arg{ewQuantArg(k)}, plan, a, b, out)
	case model.Float32:
		lo, hi, err := c.actRangeFloat(act)
		if err != nil {
			return err
		}
		p := Struct(kernelsig.EwF32Params, F("actMin", F32(lo)), F("actMax", F32(hi)))
		return ewEmitBinary(c, elemsBand, fns.f32, []Arg{p}, plan, a, b, out)
	case model.Int32:
		if err := ewRequireUnquantized(c, a, b); err != nil {
			return err
		}
		// TFLM's int32 ADD ignores the fused activation; SUB applies it.
		lo, hi := int32(math.MinInt32), int32(math.MaxInt32)
		if sub {
			if err := ewRequireUnquantized(c, out); err != nil {
				return err
			}
			lo, hi = quant.RangeInt32(act)
		}
		p := Struct(kernelsig.EwI32Params, F("actMin", I32(lo)), F("actMax", I32(hi)))
		return ewEmitBinary(c, noBand, fns.i32, []Arg{p}, plan, a, b, out)
	}
	return c.Errorf("type %s is not supported", out.Type)
}

// mulQuantConsts mirrors kernels.mulQuantParams.
type mulQuantConsts struct {
	In1Off, In2Off, OutOff int32
	Mult                   int32
	Shift                  int
	ActMin, ActMax         int32
}

// mulQuantConstsFor computes the constants of a quantized MUL (TFLM's
// CalculateOpDataMul). zeroProduct says every product is 0 (one input is a
// constant at its zero point); a rescaling factor too large to apply to a
// nonzero product (exponent over 30) then gives multiplier 0 instead of an
// error.
func mulQuantConstsFor(dt model.DType, s1, s2, so float32, z1, z2, zo int32, act quant.Activation, zeroProduct bool) (mulQuantConsts, error) {
	k := mulQuantConsts{In1Off: -z1, In2Off: -z2, OutOff: zo}
	if dt == model.Int16 && (z1 != 0 || z2 != 0 || zo != 0) {
		return k, fmt.Errorf("int16 MUL needs zero points 0, have %d, %d and %d", z1, z2, zo)
	}
	var err error
	if k.Mult, k.Shift, err = quant.CheckedMultiplier(float64(s1) * float64(s2) / float64(so)); err != nil {
		if !zeroProduct {
			return k, err
		}
		k.Mult, k.Shift = 0, 0
	}
	qmin, qmax := dt.IntRange()
	k.ActMin, k.ActMax, err = quant.ActRange(act, so, zo, qmin, qmax)
	return k, err
}

// lowerMul lowers MUL.
func lowerMul(c *opCtx) error {
	a, b, out, plan, err := ewBinary(c)
	if err != nil {
		return err
	}
	o := c.Op.Options()
	act, err := ewActivation(c, o.Mul().FusedActivationFunction)
	if err != nil {
		return err
	}
	if err := o.Err(); err != nil {
		return c.Errorf("%v", err)
	}
	switch out.Type {
	case model.Int8, model.Int16:
		s, z, err := ewQuantTriple(c, a, b, out)
		if err != nil {
			return err
		}
		// When one input is a constant at its zero point, every product
		// is 0 and the rescale never applies: TFLM runs such a MUL (an
		// all-zeros constant, often with a denormal scale) whatever its
		// multiplier, and the output is the zero point.
		zeroProduct := constAtZeroPoint(a, z[0]) || constAtZeroPoint(b, z[1])
		k, err := mulQuantConstsFor(out.Type, s[0], s[1], s[2], z[0], z[1], z[2], act, zeroProduct)
		if err != nil {
			return c.Errorf("%v", err)
		}
		p := Struct(kernelsig.MulQuantParams,
			F("in1Off", I32(k.In1Off)), F("in2Off", I32(k.In2Off)), F("outOff", I32(k.OutOff)),
			F("mult", I32(k.Mult)), F("shift", Int(k.Shift)),
			F("actMin", I32(k.ActMin)), F("actMax", I32(k.ActMax)))
		fn := kernelsig.MulInt8
		if out.Type == model.Int16 {
			fn = kernelsig.MulInt16
		} else if rec, ok := mulDSPRecord(c, plan, k); ok {
			// One requantization instruction an element on the DSP
			// extension, where its record takes the layer.
			return ewEmitBinary(c, noBand, kernelsig.MulDSPInt8, []Arg{c.Const("Mul", rec)}, plan, a, b, out)
		} else if !c.DSP() {
			fn = kernelsig.MulInt8Rows
			c.Because(fn, "the build for gc: a row of contiguous elements a call, one multiply an element for the rescale (mulInt8 where its range does not take the layer)")
		}
		return ewEmitBinary(c, elemsBand, fn, []Arg{p}, plan, a, b, out)
	case model.Float32:
		lo, hi, err := c.actRangeFloat(act)
		if err != nil {
			return err
		}
		p := Struct(kernelsig.EwF32Params, F("actMin", F32(lo)), F("actMax", F32(hi)))
		return ewEmitBinary(c, elemsBand, kernelsig.MulF32, []Arg{p}, plan, a, b, out)
	case model.Int32:
		// Quantization parameters are ignored for int32, as in TFLM.
		lo, hi := quant.RangeInt32(act)
		p := Struct(kernelsig.EwI32Params, F("actMin", I32(lo)), F("actMax", I32(hi)))
		return ewEmitBinary(c, noBand, kernelsig.MulI32, []Arg{p}, plan, a, b, out)
	}
	return c.Errorf("type %s is not supported", out.Type)
}

// mulDSPRecord returns the record of mulDSPInt8 (kernelsig.PlanMulDSP) for
// an int8 MUL with broadcast plan and constants k, ok false where the DSP
// kernels are not allowed or the kernel does not take the layer. (Under
// gc its plain Go form runs in about half mulInt8's instructions, but it
// runs on whole tensors only: the gc build takes mulInt8Rows, which fused
// groups can run in bands of rows.)
func mulDSPRecord(c *opCtx, plan ewPlan, k mulQuantConsts) ([]byte, bool) {
	if !c.DSP() || plan.Empty {
		return nil, false
	}
	return kernelsig.PlanMulDSP(plan.Inner, plan.AInner, plan.BInner, plan.N[0], plan.A[0], plan.B[0],
		k.In1Off, k.In2Off, k.OutOff, k.Mult, k.Shift, k.ActMin, k.ActMax)
}

// lowerMaximum lowers MAXIMUM.
func lowerMaximum(c *opCtx) error { return lowerMaxMin(c, ewMaxFns) }

// lowerMinimum lowers MINIMUM.
func lowerMinimum(c *opCtx) error { return lowerMaxMin(c, ewMinFns) }

// lowerMaxMin lowers MAXIMUM or MINIMUM. TFLM compares raw values and does
// not look at quantization parameters; neither does this.
func lowerMaxMin(c *opCtx, fns ewFns) error {
	a, b, out, plan, err := ewBinary(c)
	if err != nil {
		return err
	}
	var fn kernelsig.Func
	switch out.Type {
	case model.Int8:
		fn = fns.int8
	case model.Int16:
		fn = fns.int16
	case model.Int32:
		fn = fns.i32
	case model.Float32:
		fn = fns.f32
	default:
		return c.Errorf("type %s is not supported", out.Type)
	}
	return ewEmitBinary(c, noBand, fn, nil, plan, a, b, out)
}

// constAtZeroPoint reports whether t is a constant int8 or int16 tensor
// whose every element equals its zero point zp, so that every x - zp is 0.
func constAtZeroPoint(t *model.Tensor, zp int32) bool {
	if !t.IsConst() {
		return false
	}
	switch t.Type {
	case model.Int8:
		for _, v := range t.Data {
			if int32(int8(v)) != zp {
				return false
			}
		}
		return true
	case model.Int16:
		for i := 0; i+1 < len(t.Data); i += 2 {
			if int32(int16(uint16(t.Data[i])|uint16(t.Data[i+1])<<8)) != zp {
				return false
			}
		}
		return true
	}
	return false
}
