package lower

import (
	"fmt"
	"math"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// Lowerings of the activation operators LOGISTIC, TANH, RELU, RELU6,
// LEAKY_RELU, HARD_SWISH and PRELU (kernels/activations*.go), following
// the Prepare functions of TFLite Micro's logistic_common.cc, tanh.cc,
// activations_common.cc, leaky_relu_common.cc, hard_swish_common.cc and
// prelu_common.cc.

func init() {
	register(model.OpLogistic, lowerLogistic, elementwise)
	register(model.OpTanh, lowerTanh, elementwise)
	register(model.OpRelu, lowerRelu, elementwise)
	register(model.OpRelu6, lowerRelu6, elementwise)
	register(model.OpLeakyRelu, lowerLeakyRelu, elementwise)
	register(model.OpHardSwish, lowerHardSwish, elementwise)
	register(model.OpPrelu, lowerPrelu, ownBuffer)
}

// actUnary checks a one-input, one-output operator whose output has the
// input's type and element count.
func actUnary(c *opCtx) (in, out *model.Tensor, err error) {
	if c.NumIn() != 1 || c.NumOut() != 1 || c.In(0) == nil {
		return nil, nil, c.Errorf("want 1 input and 1 output, have %d and %d", c.NumIn(), c.NumOut())
	}
	in, out = c.In(0), c.Out(0)
	if in.Type != out.Type {
		return nil, nil, c.Errorf("input type %s and output type %s differ", in.Type, out.Type)
	}
	if in.NumElements() != out.NumElements() {
		return nil, nil, c.Errorf("input has %d elements, output %d", in.NumElements(), out.NumElements())
	}
	return in, out, nil
}

// actQuantPair returns the per-tensor quantization of input and output.
func actQuantPair(c *opCtx, in, out *model.Tensor) (si, so float32, zi, zo int32, err error) {
	if si, zi, err = ewTensorQuant(c, in); err != nil {
		return
	}
	if err = ewZPInRange(c, in, zi); err != nil {
		return
	}
	if so, zo, err = ewTensorQuant(c, out); err != nil {
		return
	}
	err = ewZPInRange(c, out, zo)
	return
}

// actEmitUnary emits fn(params..., in, out), skipping empty tensors; band
// is unaryBand for the kernels scheduling may run on bands of rows.
func actEmitUnary(c *opCtx, band program.Band, fn kernelsig.Func, params []Arg, in, out *model.Tensor) error {
	if out.NumElements() == 0 {
		return nil
	}
	iv, err := ewOperand(c, in)
	if err != nil {
		return err
	}
	c.BandCall(band, fn, append(append([]Arg{}, params...), iv, View(out))...)
	return nil
}

// actCheckedLog2 is TFLM's CheckedLog2: the rounded base-2 logarithm of x,
// computed in float32, and whether x is within 1e-3 (in the exponent) of
// that power of two.
func actCheckedLog2(x float32) (int, bool) {
	l := float32(math.Log(float64(x))) * (1 / float32(math.Log(2)))
	r := float32(math.Round(float64(l)))
	return int(r), math.Abs(float64(l-r)) < 1e-3
}

// logisticTanhConsts mirrors kernels.logisticTanhParams.
type logisticTanhConsts struct {
	InZP, Radius int32
	Mult         int32
	Shift        int
}

// logisticTanhInt8Consts computes the constants of an int8 LOGISTIC or
// TANH: the input is rescaled to Q4.27 with a multiplier taken from frexp
// (without QuantizeMultiplier's carry), and inputs beyond the radius
// saturate. Input scales of 8 and more (shift 31 and more) give radius 0,
// as in TFLM: every input saturates (x <= 0 to -128, x > 0 to 127) and the
// shift is never applied. Scales below 2^-28 (a negative shift) are
// refused although TFLM runs them: its CalculateInputRadius then shifts
// by a negative amount, which is undefined.
func logisticTanhInt8Consts(scale float32, zp int32) (logisticTanhConsts, error) {
	k := logisticTanhConsts{InZP: zp}
	real := float64(scale) * float64(int64(1)<<27)
	q, shift := math.Frexp(real)
	m := math.Round(q * (1 << 31))
	if m >= 1<<31 {
		return k, fmt.Errorf("input scale %v: the input multiplier overflows int32", scale)
	}
	if shift < 0 {
		return k, fmt.Errorf("input scale %v is out of the supported range", scale)
	}
	k.Mult, k.Shift = int32(m), shift
	radius := math.Floor(15 * float64(int64(1)<<27) / math.Ldexp(1, shift))
	k.Radius = int32(radius)
	return k, nil
}

// logisticTanhInt16Consts computes the (mult, shift) input rescaling of an
// int16 LOGISTIC (tanh=false) or TANH, with TFLM's power-of-two special
// case already applied (multiplier 3<<shift, shift 0).
func logisticTanhInt16Consts(tanh bool, si, so float32, zi, zo int32) (mult int32, shift int, err error) {
	if zi != 0 || zo != 0 {
		return 0, 0, fmt.Errorf("int16 needs zero points 0, have %d and %d", zi, zo)
	}
	l2, pot := actCheckedLog2(si)
	shift = 12 + l2
	if tanh {
		pot = pot && (shift == 0 || shift == 1)
	} else {
		pot = pot && shift == 0
	}
	if pot {
		mult, shift = int32(3)<<shift, 0
	} else {
		m := float64(si) * 4096 * 3
		shift = 0
		for m <= 32767.0/2 && shift <= 30 {
			shift++
			m *= 2
		}
		if m > 65535 {
			return 0, 0, fmt.Errorf("input scale %v is too large", si)
		}
		mult = int32(m)
	}
	if ol2, ok := actCheckedLog2(so); !ok || ol2 != -15 {
		return 0, 0, fmt.Errorf("int16 output scale %v is not 2^-15", so)
	}
	return mult, shift, nil
}

// lowerLogistic lowers LOGISTIC.
func lowerLogistic(c *opCtx) error { return lowerLogisticTanh(c, false) }

// lowerTanh lowers TANH.
func lowerTanh(c *opCtx) error { return lowerLogisticTanh(c, true) }

// lowerLogisticTanh lowers LOGISTIC or TANH.
func lowerLogisticTanh(c *opCtx, tanh bool) error {
	f32, i16 := kernelsig.LogisticF32, kernelsig.LogisticInt16
	if tanh {
		f32, i16 = kernelsig.TanhF32, kernelsig.TanhInt16
	}
	in, out, err := actUnary(c)
	if err != nil {
		return err
	}
	switch in.Type {
	case model.Float32:
		return actEmitUnary(c, unaryBand, f32, nil, in, out)
	case model.Int8:
		si, _, zi, zo, err := actQuantPair(c, in, out)
		if err != nil {
			return err
		}
		if !tanh && zo != -128 {
			return c.Errorf("int8 output zero point is %d, want -128", zo)
		}
		k, err := logisticTanhInt8Consts(si, zi)
		if err != nil {
			return c.Errorf("%v", err)
		}
		// All 256 outputs computed now: a table lookup per element, with
		// no scratch.
		tab := logisticTanhInt8Table(k, tanh)
		return actEmitUnary(c, unaryBand, kernelsig.LutInt8, []Arg{c.Const("Tab", tab[:])}, in, out)
	case model.Int16:
		si, so, zi, zo, err := actQuantPair(c, in, out)
		if err != nil {
			return err
		}
		m, s, err := logisticTanhInt16Consts(tanh, si, so, zi, zo)
		if err != nil {
			return c.Errorf("%v", err)
		}
		p := Struct(kernelsig.LogisticTanh16Params, F("mult", I32(m)), F("shift", Int(s)))
		return actEmitUnary(c, unaryBand, i16, []Arg{p}, in, out)
	}
	return c.Errorf("type %s is not supported", in.Type)
}

// reluConsts mirrors kernels.reluParams.
type reluConsts struct {
	InZP, OutZP    int32
	Mult           int32
	Shift          int
	ActMin, ActMax int32
}

// reluConstsFor computes the constants of a quantized RELU (TFLM's
// CalculateReluOpData: the scale ratio is taken in float32).
func reluConstsFor(dt model.DType, si, so float32, zi, zo int32) (reluConsts, error) {
	k := reluConsts{InZP: zi, OutZP: zo}
	if dt == model.Int16 && (zi != 0 || zo != 0) {
		return k, fmt.Errorf("int16 needs zero points 0, have %d and %d", zi, zo)
	}
	var err error
	if k.Mult, k.Shift, err = quant.CheckedMultiplier(float64(si / so)); err != nil {
		return k, err
	}
	k.ActMin, k.ActMax = dt.IntRange()
	k.ActMin = max(k.ActMin, zo)
	return k, nil
}

// lowerRelu lowers RELU.
func lowerRelu(c *opCtx) error {
	in, out, err := actUnary(c)
	if err != nil {
		return err
	}
	switch in.Type {
	case model.Float32:
		return actEmitUnary(c, unaryBand, kernelsig.ReluF32, nil, in, out)
	case model.Int8, model.Int16:
		si, so, zi, zo, err := actQuantPair(c, in, out)
		if err != nil {
			return err
		}
		k, err := reluConstsFor(in.Type, si, so, zi, zo)
		if err != nil {
			return c.Errorf("%v", err)
		}
		p := Struct(kernelsig.ReluParams, F("inZP", I32(k.InZP)), F("outZP", I32(k.OutZP)),
			F("mult", I32(k.Mult)), F("shift", Int(k.Shift)),
			F("actMin", I32(k.ActMin)), F("actMax", I32(k.ActMax)))
		fn := kernelsig.ReluInt8
		if in.Type == model.Int16 {
			fn = kernelsig.ReluInt16
		}
		return actEmitUnary(c, unaryBand, fn, []Arg{p}, in, out)
	}
	return c.Errorf("type %s is not supported", in.Type)
}

// relu6Bounds computes the bounds of a quantized RELU6: the input's zero
// point and its quantized 6 (TFLM's FloatToQuantizedType). TFLM applies
// them to the raw input and ignores the output's quantization.
func relu6Bounds(dt model.DType, si float32, zi int32) (lo, hi int32, err error) {
	r := math.Round(float64(6/si)) + float64(zi)
	if !(r >= math.MinInt32 && r <= math.MaxInt32) {
		return 0, 0, fmt.Errorf("input scale %v: 6 is out of range", si)
	}
	tlo, thi := dt.IntRange()
	return zi, min(max(int32(r), tlo), thi), nil
}

// lowerRelu6 lowers RELU6.
func lowerRelu6(c *opCtx) error {
	in, out, err := actUnary(c)
	if err != nil {
		return err
	}
	switch in.Type {
	case model.Float32:
		return actEmitUnary(c, unaryBand, kernelsig.Relu6F32, nil, in, out)
	case model.Int8, model.Int16:
		si, zi, err := ewTensorQuant(c, in)
		if err != nil {
			return err
		}
		if err := ewZPInRange(c, in, zi); err != nil {
			return err
		}
		lo, hi, err := relu6Bounds(in.Type, si, zi)
		if err != nil {
			return c.Errorf("%v", err)
		}
		p := Struct(kernelsig.Relu6Params, F("lo", I32(lo)), F("hi", I32(hi)))
		fn := kernelsig.Relu6Int8
		if in.Type == model.Int16 {
			fn = kernelsig.Relu6Int16
		}
		return actEmitUnary(c, unaryBand, fn, []Arg{p}, in, out)
	}
	return c.Errorf("type %s is not supported", in.Type)
}

// leakyReluConsts mirrors kernels.leakyReluParams.
type leakyReluConsts struct {
	InZP, OutZP int32
	MultID      int32
	ShiftID     int
	MultAlpha   int32
	ShiftAlpha  int
	AlphaNeg    bool
	QMin, QMax  int32
}

// leakyReluConstsFor computes the constants of a quantized LEAKY_RELU
// (TFLM's CalculateOpDataLeakyRelu: both ratios are taken in float32).
func leakyReluConstsFor(dt model.DType, alpha, si, so float32, zi, zo int32) (leakyReluConsts, error) {
	k := leakyReluConsts{InZP: zi, OutZP: zo}
	ra := float64(si * alpha / so)
	ri := float64(si / so)
	var err error
	if k.MultAlpha, k.ShiftAlpha, err = quant.CheckedMultiplier(ra); err != nil {
		return k, fmt.Errorf("alpha: %w", err)
	}
	if k.MultID, k.ShiftID, err = quant.CheckedMultiplier(ri); err != nil {
		return k, fmt.Errorf("identity: %w", err)
	}
	if k.MultAlpha < 0 {
		if k.MultAlpha == math.MinInt32 {
			return k, fmt.Errorf("alpha rescaling factor %v cannot be negated", ra)
		}
		k.MultAlpha, k.AlphaNeg = -k.MultAlpha, true
	}
	k.QMin, k.QMax = dt.IntRange()
	return k, nil
}

// lowerLeakyRelu lowers LEAKY_RELU.
func lowerLeakyRelu(c *opCtx) error {
	in, out, err := actUnary(c)
	if err != nil {
		return err
	}
	o := c.Op.Options()
	alpha := o.LeakyRelu().Alpha
	if err := o.Err(); err != nil {
		return c.Errorf("%v", err)
	}
	switch in.Type {
	case model.Float32:
		return actEmitUnary(c, unaryBand, kernelsig.LeakyReluF32, []Arg{F32(alpha)}, in, out)
	case model.Int8, model.Int16:
		si, so, zi, zo, err := actQuantPair(c, in, out)
		if err != nil {
			return err
		}
		k, err := leakyReluConstsFor(in.Type, alpha, si, so, zi, zo)
		if err != nil {
			return c.Errorf("%v", err)
		}
		p := Struct(kernelsig.LeakyReluParams, F("inZP", I32(k.InZP)), F("outZP", I32(k.OutZP)),
			F("multID", I32(k.MultID)), F("shiftID", Int(k.ShiftID)),
			F("multAlpha", I32(k.MultAlpha)), F("shiftAlpha", Int(k.ShiftAlpha)),
			F("alphaNeg", Bool(k.AlphaNeg)),
			F("qmin", I32(k.QMin)), F("qmax", I32(k.QMax)))
		fn := kernelsig.LeakyReluInt8
		if in.Type == model.Int16 {
			fn = kernelsig.LeakyReluInt16
		}
		return actEmitUnary(c, unaryBand, fn, []Arg{p}, in, out)
	}
	return c.Errorf("type %s is not supported", in.Type)
}

// hardSwishConsts mirrors kernels.hardSwishParams.
type hardSwishConsts struct {
	InZP, OutZP int32
	OutMult     int32
	OutExp      int
	ReluishMult int32
	ReluishExp  int
}

// hardSwishDownscale is TFLM's DownScaleInt32ToInt16Multiplier.
func hardSwishDownscale(m int32) int32 {
	if m >= math.MaxInt32-(1<<15) {
		return math.MaxInt16
	}
	return (m + 1<<15) >> 16
}

// hardSwishConstsFor computes the constants of an int8 HARD_SWISH (TFLM's
// HardSwishPrepare; scale ratios in float32). Its multipliers are narrowed
// to int16 and applied by HARD_SWISH's own fixed-point code, which takes
// exponents up to 31 for the reluish rescaling: hence quant.Multiplier with
// TFLM's checks for this operator, not quant.CheckedMultiplier.
func hardSwishConstsFor(si, so float32, zi, zo int32) (hardSwishConsts, error) {
	k := hardSwishConsts{InZP: zi, OutZP: zo}
	hires := (1.0 / 128.0) * si
	const reluishScale = float32(3.0 / 32768.0)
	m, e := quant.Multiplier(float64(hires / so))
	if e > 0 {
		return k, fmt.Errorf("output rescaling %v is larger than 1", hires/so)
	}
	k.OutMult, k.OutExp = hardSwishDownscale(m), e
	m, e = quant.Multiplier(float64(hires / reluishScale))
	if e > 31 {
		return k, fmt.Errorf("input scale %v is too large", si)
	}
	k.ReluishMult, k.ReluishExp = hardSwishDownscale(m), e
	return k, nil
}

// lowerHardSwish lowers HARD_SWISH.
func lowerHardSwish(c *opCtx) error {
	in, out, err := actUnary(c)
	if err != nil {
		return err
	}
	switch in.Type {
	case model.Float32:
		return actEmitUnary(c, unaryBand, kernelsig.HardSwishF32, nil, in, out)
	case model.Int8:
		si, so, zi, zo, err := actQuantPair(c, in, out)
		if err != nil {
			return err
		}
		k, err := hardSwishConstsFor(si, so, zi, zo)
		if err != nil {
			return c.Errorf("%v", err)
		}
		p := Struct(kernelsig.HardSwishParams, F("inZP", I32(k.InZP)), F("outZP", I32(k.OutZP)),
			F("outMult", I32(k.OutMult)), F("outExp", Int(k.OutExp)),
			F("reluishMult", I32(k.ReluishMult)), F("reluishExp", Int(k.ReluishExp)))
		return actEmitUnary(c, unaryBand, kernelsig.HardSwishInt8, []Arg{p}, in, out)
	}
	return c.Errorf("type %s is not supported", in.Type)
}

// preluConsts mirrors kernels.preluParams.
type preluConsts struct {
	InOff, AlphaOff, OutOff int32
	Mult1, Mult2            int32
	Shift1, Shift2          int
	QMin, QMax              int32
}

// preluConstsFor computes the constants of a quantized PRELU (TFLM's
// CalculatePreluParams).
func preluConstsFor(dt model.DType, si, sa, so float32, zi, za, zo int32) (preluConsts, error) {
	k := preluConsts{InOff: -zi, AlphaOff: -za, OutOff: zo}
	r1 := float64(si) / float64(so)
	r2 := float64(si) * float64(sa) / float64(so)
	var err error
	if k.Mult1, k.Shift1, err = quant.CheckedMultiplier(r1); err != nil {
		return k, fmt.Errorf("identity: %w", err)
	}
	if k.Mult2, k.Shift2, err = quant.CheckedMultiplier(r2); err != nil {
		return k, fmt.Errorf("alpha: %w", err)
	}
	k.QMin, k.QMax = dt.IntRange()
	return k, nil
}

// lowerPrelu lowers PRELU (alpha broadcast against the input).
func lowerPrelu(c *opCtx) error {
	if c.NumIn() != 2 || c.NumOut() != 1 || c.In(0) == nil || c.In(1) == nil {
		return c.Errorf("want 2 inputs and 1 output")
	}
	in, alpha, out := c.In(0), c.In(1), c.Out(0)
	if in.Type != out.Type {
		return c.Errorf("input type %s and output type %s differ", in.Type, out.Type)
	}
	plan, err := ewBcastPlan(in.Shape, alpha.Shape, out.Shape)
	if err != nil {
		return c.Errorf("%v", err)
	}
	var fn kernelsig.Func
	var params []Arg
	switch in.Type {
	case model.Float32:
		if alpha.Type != model.Float32 {
			return c.Errorf("alpha type %s, want float32", alpha.Type)
		}
		fn = kernelsig.PreluF32
	case model.Int8, model.Int16:
		if alpha.Type != model.Int8 {
			return c.Errorf("alpha type %s, want int8", alpha.Type)
		}
		s, z, err := ewQuantTriple(c, in, alpha, out)
		if err != nil {
			return err
		}
		k, err := preluConstsFor(in.Type, s[0], s[1], s[2], z[0], z[1], z[2])
		if err != nil {
			return c.Errorf("%v", err)
		}
		params = []Arg{Struct(kernelsig.PreluParams,
			F("inOff", I32(k.InOff)), F("alphaOff", I32(k.AlphaOff)), F("outOff", I32(k.OutOff)),
			F("mult1", I32(k.Mult1)), F("mult2", I32(k.Mult2)),
			F("shift1", Int(k.Shift1)), F("shift2", Int(k.Shift2)),
			F("qmin", I32(k.QMin)), F("qmax", I32(k.QMax)))}
		fn = kernelsig.PreluInt8
		if in.Type == model.Int16 {
			fn = kernelsig.PreluInt16
		}
	default:
		return c.Errorf("type %s is not supported", in.Type)
	}
	return ewEmitBinary(c, noBand, fn, params, plan, in, alpha, out)
}

// logisticTanhInt8Table returns the output of an int8 LOGISTIC (or TANH)
// for every input byte b (entry b is input int8(b)), computed as TFLM's
// int8 kernels do (kernels/tables_test.go checks it against their
// arithmetic), for the kernels' lutInt8.
func logisticTanhInt8Table(k logisticTanhConsts, tanh bool) [256]byte {
	var t [256]byte
	for v := int32(-128); v < 128; v++ {
		x := v - k.InZP
		var o int32
		switch {
		case x <= -k.Radius:
			o = -128
		case x >= k.Radius:
			o = 127
		case tanh:
			a := actGenSRDHM(x*(int32(1)<<uint(k.Shift)), k.Mult)
			o = min(max(actGenRDivPOT(actGenTanh(a, 4), 24), -128), 127)
		default:
			a := actGenSRDHM(x*(int32(1)<<uint(k.Shift)), k.Mult)
			o = min(max(actGenRDivPOT(actGenLogistic(a, 4), 23)-128, -128), 127)
		}
		t[uint8(v)] = byte(int8(o))
	}
	return t
}

// The gemmlowp fixed-point arithmetic of TFLM's int8 LOGISTIC and TANH, as
// the kernels (activations_sigmoid.go) implement it, for the tables of
// logisticTanhInt8Table.

// actGenSRDHM is SaturatingRoundingDoublingHighMul.
func actGenSRDHM(a, b int32) int32 {
	if a == b && a == math.MinInt32 {
		return math.MaxInt32
	}
	ab := int64(a) * int64(b)
	nudge := int64(1 << 30)
	if ab < 0 {
		nudge = 1 - 1<<30
	}
	return int32((ab + nudge) / (1 << 31))
}

// actGenRDivPOT is RoundingDivideByPOT.
func actGenRDivPOT(x int32, e int) int32 {
	mask := int32(1)<<uint(e) - 1
	rem, thr := x&mask, mask>>1
	if x < 0 {
		thr++
	}
	r := x >> uint(e)
	if rem > thr {
		r++
	}
	return r
}

// actGenShlSat is SaturatingRoundingMultiplyByPOT for e >= 0.
func actGenShlSat(x int32, e int) int32 {
	if e == 0 {
		return x
	}
	limit := int32(1)<<uint(31-e) - 1
	if x > limit {
		return math.MaxInt32
	}
	if x < -limit {
		return math.MinInt32
	}
	return x * (int32(1) << uint(e))
}

// actGenExpQuarter is exp_on_interval_between_negative_one_quarter_and_0_excl.
func actGenExpQuarter(a int32) int32 {
	const expMinusEighth, third = 1895147668, 715827883
	x := a + 1<<28
	x2 := actGenSRDHM(x, x)
	x3 := actGenSRDHM(x2, x)
	x4 := actGenSRDHM(x2, x2)
	t := actGenRDivPOT(actGenSRDHM(actGenRDivPOT(x4, 2)+x3, third)+x2, 1)
	return expMinusEighth + actGenSRDHM(expMinusEighth, x+t)
}

// actGenExpNeg is exp_on_negative_values for a value with intBits integer
// bits.
func actGenExpNeg(a int32, intBits int) int32 {
	mults := [7]int32{1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242}
	frac := 31 - intBits
	quarter := int32(1) << uint(frac-2)
	low := (a & (quarter - 1)) - quarter
	r := actGenExpQuarter(actGenShlSat(low, intBits))
	rem := low - a
	for k, m := range mults {
		if e := k - 2; intBits > e && rem&(int32(1)<<uint(frac+e)) != 0 {
			r = actGenSRDHM(r, m)
		}
	}
	if intBits > 5 && a < -(int32(1)<<uint(36-intBits)) {
		r = 0
	}
	if a == 0 {
		r = math.MaxInt32
	}
	return r
}

// actGenReciprocal is one_over_one_plus_x_for_x_in_0_1's Newton-Raphson
// division on (a+1)/2 (Q0.31 in, Q2.29 out).
func actGenReciprocal(a int32) int32 {
	s := int64(a) + math.MaxInt32
	if s >= 0 {
		s++
	} else {
		s--
	}
	hd := int32(s / 2)
	x := 1515870810 + actGenSRDHM(hd, -1010580540)
	for k := 0; k < 3; k++ {
		e := int32(1)<<29 - actGenSRDHM(hd, x)
		x += actGenShlSat(actGenSRDHM(x, e), 2)
	}
	return x
}

// actGenLogistic is gemmlowp's logistic (Q0.31 result).
func actGenLogistic(a int32, intBits int) int32 {
	abs := a
	if a <= 0 {
		abs = -a
	}
	pos := actGenShlSat(actGenReciprocal(actGenExpNeg(-abs, intBits)), 1)
	switch {
	case a == 0:
		return 1 << 30
	case a > 0:
		return pos
	}
	return math.MaxInt32 - pos
}

// actGenTanh is gemmlowp's tanh (Q0.31 result).
func actGenTanh(a int32, intBits int) int32 {
	n := -a
	if a < 0 {
		n = a
	}
	t := actGenShlSat(actGenReciprocal(actGenExpNeg(n, intBits+1))-1<<29, 2)
	switch {
	case a == 0:
		return 0
	case a < 0:
		return -t
	}
	return t
}
