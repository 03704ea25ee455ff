package kernels

import (
	"math"
	"strconv"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// Cases ported from TFLite Micro's logistic_test.cc, tanh_test.cc,
// activations_test.cc, leaky_relu_test.cc, hard_swish_test.cc and
// prelu_test.cc, with TFLM's tolerances, plus dtln's LOGISTIC checked
// exactly against TFLM's recorded tensors.

// actTSigParams computes int8 LOGISTIC/TANH parameters as
// logistic_common.cc and tanh.cc do.
func actTSigParams(t *testing.T, scale float32, zp int32) *logisticTanhParams {
	t.Helper()
	q, shift := math.Frexp(float64(scale) * float64(int64(1)<<27))
	m := math.Round(q * (1 << 31))
	if m >= 1<<31 || shift < 0 {
		t.Fatalf("scale %v not supported", scale)
	}
	radius := math.Floor(15 * float64(int64(1)<<27) / float64(int64(1)<<shift))
	return &logisticTanhParams{inZP: zp, radius: int32(radius), mult: int32(m), shift: shift}
}

// actTSig16Params computes int16 LOGISTIC/TANH parameters (zero points 0,
// output scale 2^-15), with the power-of-two case folded in.
func actTSig16Params(tanh bool, si float32) *logisticTanh16Params {
	l := float32(math.Log(float64(si))) * (1 / float32(math.Log(2)))
	r := float32(math.Round(float64(l)))
	shift := 12 + int(r)
	pot := math.Abs(float64(l-r)) < 1e-3 && (shift == 0 || (tanh && shift == 1))
	if pot {
		return &logisticTanh16Params{mult: int32(3) << shift}
	}
	m := float64(si) * 4096 * 3
	shift = 0
	for m <= 32767.0/2 && shift <= 30 {
		shift++
		m *= 2
	}
	return &logisticTanh16Params{mult: int32(m), shift: shift}
}

// actTRange returns n values evenly spaced from lo to hi (the input
// vectors of the int16 logistic and tanh tests: -20 + 40*i/176, and of
// the float tanh test: -8 + 16*i/88).
func actTRange(lo, hi float64, n int) ([]float32, []float64) {
	f := make([]float32, n)
	d := make([]float64, n)
	for i := range f {
		d[i] = lo + (hi-lo)*float64(i)/float64(n-1)
		f[i] = float32(d[i])
	}
	return f, d
}

// actTMap applies fn to every value.
func actTMap(x []float64, fn func(float64) float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(fn(v))
	}
	return out
}

func actTSigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func TestActivationLogistic(t *testing.T) {
	basicIn := ewtF32(1, 2, 3, 4, 5, -1, -2, -3, -4, -5)
	basicGold := ewtF32(0.73105858, 0.88079708, 0.95257413, 0.98201379, 0.99330715,
		0.26894142, 0.11920292, 0.04742587, 0.01798621, 0.00669285)
	wideIn := ewtF32(1.0, 2.0, 3.0, 4.0, 93.0, -1.0, -2.0, -3.0, -4.0, -93.0)
	wideGold := ewtF32(0.73105858, 0.88079708, 0.95257413, 0.98201379, 1.0,
		0.26894142, 0.11920292, 0.04742587, 0.01798621, 0.0)

	got := make([]float32, 10)
	logisticF32(basicIn, got)
	ewtCheckF32(t, "LogisticFloatBasicShouldMatchGolden", got, basicGold, 1e-5)
	logisticF32(wideIn, got)
	ewtCheckF32(t, "LogisticFloatWideRangeShouldMatchGolden", got, wideGold, 1e-5)

	// LogisticQuantizedInt16ShouldMatchGolden (177 values in [-20, 20]).
	in, x := actTRange(-20, 20, 177)
	const si, so = float32(32.0 / 65536), float32(2.0 / 65536)
	got16 := make([]int16, len(in))
	logisticInt16(actTSig16Params(false, si), ewtQuantize[int16](in, si, 0), got16)
	ewtCheckInts(t, "LogisticQuantizedInt16ShouldMatchGolden", got16,
		ewtQuantize[int16](actTMap(x, actTSigmoid), so, 0), 16)

	// Table corners: 0 is exactly 1/2, saturation far out.
	logisticInt16(&logisticTanh16Params{mult: 6}, []int16{0, 32767, -32768}, got16[:3])
	ewtCheckInts(t, "logistic int16 corners", got16[:3], []int16{16384, 32767, 1}, 0)
}

func TestActivationTanh(t *testing.T) {
	// SimpleTestTanhFloat: 89 values -8 + 2i/11 and a trailing zero (the C
	// array has 90 elements and 89 initializers).
	in, x := actTRange(-8, 8, 89)
	in, x = append(in, 0), append(x, 0)
	gold := actTMap(x, math.Tanh)
	got := make([]float32, len(in))
	tanhF32(in, got)
	ewtCheckF32(t, "SimpleTestTanhFloat", got, gold, 1e-7)

	// TestTanhInt16WideRange.
	in16, x16 := actTRange(-20, 20, 177)
	const si, so = float32(32.0 / 65536), float32(2.0 / 65536)
	got16 := make([]int16, len(in16))
	tanhInt16(actTSig16Params(true, si), ewtQuantize[int16](in16, si, 0), got16)
	ewtCheckInts(t, "TestTanhInt16WideRange", got16, ewtQuantize[int16](actTMap(x16, math.Tanh), so, 0), 16)
}

// actTQuantRelu computes quantized RELU parameters (activations_common.cc).
func actTQuantRelu[T ewtInt](si, so float32, zi, zo int32) *reluParams {
	p := &reluParams{inZP: zi, outZP: zo}
	p.mult, p.shift = quant.Multiplier(float64(si / so))
	lo, hi := ewtRange[T]()
	p.actMin, p.actMax = max(lo, zo), hi
	return p
}

// actTRelu6 computes quantized RELU6 bounds (FloatToQuantizedType of 0 and
// 6 on the input's quantization).
func actTRelu6[T ewtInt](si float32, zi int32) *relu6Params {
	lo, hi := ewtRange[T]()
	six := int32(min(max(math.Round(float64(6/si))+float64(zi), float64(lo)), float64(hi)))
	return &relu6Params{lo: zi, hi: six}
}

func TestActivationRelu(t *testing.T) {
	got := make([]float32, 10)
	reluF32(ewtF32(1, 2, 3, 4, 5, -1, -2, -3, -4, -5), got)
	ewtCheckF32(t, "SimpleReluTestFloat", got, ewtF32(1, 2, 3, 4, 5, 0, 0, 0, 0, 0), 1e-5)
	relu6F32(ewtF32(4, 5, 6, 7, 8, -4, -5, -6, -7, -8), got)
	ewtCheckF32(t, "SimpleRelu6TestFloat", got, ewtF32(4, 5, 6, 6, 6, 0, 0, 0, 0, 0), 1e-5)

	{
		in := ewtF32(1, 2, 3, 4, 5, -1, -2, -3, -4, -5)
		want := ewtF32(1, 2, 3, 4, 5, 0, 0, 0, 0, 0)
		got := make([]int8, 10)
		reluInt8(actTQuantRelu[int8](0.5, 0.5, 0, 0), ewtQuantize[int8](in, 0.5, 0), got)
		ewtCheckInts(t, "SimpleReluTestInt8", got, ewtQuantize[int8](want, 0.5, 0), 0)
	}
	{
		in := ewtF32(256, 257, 258, 259, 260, -256, -257, -258, -259, -260)
		want := ewtF32(256, 257, 258, 259, 260, 0, 0, 0, 0, 0)
		got := make([]int16, 10)
		reluInt16(actTQuantRelu[int16](0.5, 0.5, 0, 0), ewtQuantize[int16](in, 0.5, 0), got)
		ewtCheckInts(t, "SimpleReluTestInt16", got, ewtQuantize[int16](want, 0.5, 0), 0)
	}
	{
		in := ewtF32(4, 5, 6, 7, 8, -1, -2, -3, -4, -5)
		want := ewtF32(4, 5, 6, 6, 6, 0, 0, 0, 0, 0)
		got := make([]int8, 10)
		relu6Int8(actTRelu6[int8](0.5, 127), ewtQuantize[int8](in, 0.5, 127), got)
		ewtCheckInts(t, "SimpleRelu6TestInt8", got, ewtQuantize[int8](want, 0.5, 127), 0)
		got16 := make([]int16, 10)
		relu6Int16(actTRelu6[int16](0.5, 0), ewtQuantize[int16](in, 0.5, 0), got16)
		ewtCheckInts(t, "SimpleRelu6TestInt16", got16, ewtQuantize[int16](want, 0.5, 0), 0)
	}
	{
		// RELU rescaling to a different output quantization, with the
		// output zero point at the type minimum.
		in := []int8{-128, -10, 0, 10, 127}
		got := make([]int8, 5)
		reluInt8(actTQuantRelu[int8](0.1, 0.2, 0, -128), in, got)
		ewtCheckInts(t, "ReluInt8Rescale", got, []int8{-128, -128, -128, -123, -64}, 0)
	}
}

// actTLeakyParams computes quantized LEAKY_RELU parameters
// (leaky_relu_common.cc).
func actTLeakyParams[T ewtInt](alpha, si, so float32, zi, zo int32) *leakyReluParams {
	p := &leakyReluParams{inZP: zi, outZP: zo}
	p.multAlpha, p.shiftAlpha = quant.Multiplier(float64(si * alpha / so))
	p.multID, p.shiftID = quant.Multiplier(float64(si / so))
	if p.multAlpha < 0 {
		p.multAlpha, p.alphaNeg = -p.multAlpha, true
	}
	p.qmin, p.qmax = ewtRange[T]()
	return p
}

// actTLeaky runs a quantized LEAKY_RELU case with input and output sharing
// scale and zero point, comparing dequantized outputs within tol.
func actTLeaky[T int8 | int16](t *testing.T, name string, alpha, scale float32, zp int32, in, want []float32, tol float64, fn func(*leakyReluParams, []T, []T)) {
	t.Helper()
	got := make([]T, len(in))
	fn(actTLeakyParams[T](alpha, scale, scale, zp, zp), ewtQuantize[T](in, scale, zp), got)
	ewtCheckF32(t, name, ewtDequantize(got, scale, zp), want, tol)
}

// actTScaleZP are TFLM's ScaleFromMinMax and ZeroPointFromMinMax.
func actTScaleZP[T ewtInt](lo, hi float32) (float32, int32) {
	tlo, thi := ewtRange[T]()
	scale := (hi - lo) / float32(float64(thi)-float64(tlo))
	return scale, tlo + int32(math.Round(float64(-lo/scale)))
}

func TestActivationLeakyRelu(t *testing.T) {
	const tol = 2 * (1.0 / 256)
	in1 := ewtF32(0, 1, 3, 1, -1, -2)
	want1 := ewtF32(0, 1, 3, 1, -0.5, -1)
	got := make([]float32, 6)
	leakyReluF32(0.5, in1, got)
	ewtCheckF32(t, "FloatActivationsOpTestLeakyRelu", got, want1, 0)
	actTLeaky(t, "QuantizedActivationsOpTestLeakyReluInt8_1", 0.5, 0.1, 0, in1, want1, tol, leakyReluInt8)
	actTLeaky(t, "QuantizedActivationsOpTestLeakyReluInt16_1", 0.5, 0.01, 0, in1, want1, tol, leakyReluInt16)

	in2 := ewtF32(-5.0, -4.6, -4.2, -3.8, -3.4, -3.0, -2.6, -2.2, -1.8, -1.4,
		-1.0, -0.6, -0.2, 0.2, 0.6, 1.0, 1.4, 1.8, 2.2, 2.6, 3.0, 3.4, 3.8, 4.2, 4.6)
	want2 := ewtF32(-0.50, -0.46, -0.42, -0.38, -0.34, -0.30, -0.26, -0.22, -0.18, -0.14,
		-0.10, -0.06, -0.02, 0.20, 0.60, 1.00, 1.40, 1.80, 2.20, 2.60, 3.00, 3.40, 3.80, 4.20, 4.60)
	s8, z8 := actTScaleZP[int8](-5, 5*float32(127.0/128))
	actTLeaky(t, "QuantizedActivationsOpTestLeakyReluInt8_2", 0.1, s8, z8, in2, want2, 5*tol, leakyReluInt8)
	s16, z16 := actTScaleZP[int16](-5, 5*float32(32767.0/32768))
	actTLeaky(t, "QuantizedActivationsOpTestLeakyReluInt16_2", 0.1, s16, z16, in2, want2, 5*tol, leakyReluInt16)

	// Negative alpha (the kernel negates the rescaled value).
	neg := make([]int8, 3)
	leakyReluInt8(actTLeakyParams[int8](-0.5, 0.1, 0.1, 0, 0), []int8{-20, 0, 20}, neg)
	ewtCheckInts(t, "LeakyReluNegativeAlpha", neg, []int8{10, 0, 20}, 0)
}

// actTMinstd is std::minstd_rand (seed 1), as used by hard_swish_test.cc.
type actTMinstd struct{ x uint64 }

func (r *actTMinstd) next() uint32 {
	if r.x == 0 {
		r.x = 1
	}
	r.x = r.x * 48271 % 2147483647
	return uint32(r.x)
}

// uniform is GenerateUniformRandomVector's value in [lo, hi].
func (r *actTMinstd) uniform(lo, hi float32) float32 {
	v := float32(r.next()) * (1 / float32(2147483647))
	return lo + (hi-lo)*v
}

// actTHardSwishRef is EvalTestReferenceHardSwish.
func actTHardSwishRef(in float32) float32 {
	return in * min(6, max(0, in+3)) * (1.0 / 6.0)
}

// actTHardSwishParams computes int8 HARD_SWISH parameters
// (hard_swish_common.cc).
func actTHardSwishParams(si, so float32, zi, zo int32) *hardSwishParams {
	down := func(m int32) int32 {
		if m >= math.MaxInt32-(1<<15) {
			return math.MaxInt16
		}
		return (m + 1<<15) >> 16
	}
	hires := (1.0 / 128.0) * si
	p := &hardSwishParams{inZP: zi, outZP: zo}
	m, e := quant.Multiplier(float64(hires / so))
	p.outMult, p.outExp = down(m), e
	m, e = quant.Multiplier(float64(hires / float32(3.0/32768.0)))
	p.reluishMult, p.reluishExp = down(m), e
	return p
}

func TestActivationHardSwish(t *testing.T) {
	// SimpleHardSwishTestFloat.
	var rng actTMinstd
	in := make([]float32, 100)
	want := make([]float32, 100)
	for i := range in {
		in[i] = rng.uniform(-10, 10)
		want[i] = actTHardSwishRef(in[i])
	}
	got := make([]float32, 100)
	hardSwishF32(in, got)
	ewtCheckF32(t, "SimpleHardSwishTestFloat", got, want, 1e-5)

	// SimpleHardSwishTestInt8: four input/output ranges, one generator.
	rng = actTMinstd{}
	ranges := [][4]float32{{-0.375, 1, -0.375, 1}, {-2, 1, -0.375, 1}, {-5, 10, -0.375, 10}, {-40, 60, -0.375, 60}}
	for _, r := range ranges {
		si, zi := actTScaleZP[int8](r[0], r[1])
		so, zo := actTScaleZP[int8](r[2], r[3])
		tol := float64(max(r[1]-r[0], r[3]-r[2]) * (1.5 / 256))
		in := make([]float32, 101)
		want := make([]float32, 101)
		for i := range in {
			in[i] = rng.uniform(r[0], r[1])
			want[i] = min(r[3], max(r[2], actTHardSwishRef(in[i])))
		}
		got := make([]int8, 101)
		hardSwishInt8(actTHardSwishParams(si, so, zi, zo), ewtQuantize[int8](in, si, zi), got)
		ewtCheckF32(t, "SimpleHardSwishTestInt8"+strconv.Itoa(int(r[1])), ewtDequantize(got, so, zo), want, tol)
	}
}

// actTPreluParams computes quantized PRELU parameters (prelu_common.cc).
func actTPreluParams[T ewtInt](si, sa, so float32, zi, za, zo int32) *preluParams {
	p := &preluParams{inOff: -zi, alphaOff: -za, outOff: zo}
	p.mult1, p.shift1 = quant.Multiplier(float64(si) / float64(so))
	p.mult2, p.shift2 = quant.Multiplier(float64(si) * float64(sa) / float64(so))
	p.qmin, p.qmax = ewtRange[T]()
	return p
}

func TestActivationPrelu(t *testing.T) {
	shape, ashape := []int{2, 2, 3}, []int{1, 1, 3}
	bc := ewtBcast(t, shape, ashape, shape)
	{
		in := ewtF32(0, 0, 0, 1, 1, 1, -1, -1, -1, -2, -2, -2)
		got := make([]float32, 12)
		preluF32(bc, in, ewtF32(0, 1, 2), got)
		ewtCheckF32(t, "FloatPreluActivationsOpTest", got, ewtF32(0, 0, 0, 1, 1, 1, 0, -1, -2, 0, -2, -4), 0)
	}
	in := ewtF32(0, 0, 0, 0.5, 0.5, 0.5, -1, -1, -1, -0.25, -0.25, -0.25)
	alpha := ewtF32(0, 0.5, -0.5)
	want := ewtF32(0, 0, 0, 0.5, 0.5, 0.5, 0, -0.5, 0.5, 0, -0.125, 0.125)
	const tol = 2 * (1.0 / 256)
	{
		s := float32(2.0 / 255)
		got := make([]int8, 12)
		preluInt8(actTPreluParams[int8](s, s, s, 0, 0, 0), bc,
			ewtQuantize[int8](in, s, 0), ewtQuantize[int8](alpha, s, 0), got)
		ewtCheckF32(t, "QuantizedInt8PreluActivationsOpTest", ewtDequantize(got, s, 0), want, tol)
	}
	{
		s, sa := float32(2.0/65535), float32(2.0/255)
		got := make([]int16, 12)
		preluInt16(actTPreluParams[int16](s, sa, s, 0, 0, 0), bc,
			ewtQuantize[int16](in, s, 0), ewtQuantize[int8](alpha, sa, 0), got)
		ewtCheckF32(t, "QuantizedInt16PreluActivationsOpTest", ewtDequantize(got, s, 0), want, tol)
	}
}
