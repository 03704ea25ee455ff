package kernels

import (
	"fmt"
	"math"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// Cases ported from TFLite Micro's add_test.cc, sub_test.cc, mul_test.cc
// and maximum_minimum_test.cc. Quantized inputs and goldens are quantized
// with the tests' own helper (ewtQuantize) and compared exactly (ADD, SUB)
// or within TFLM's tolerance (MUL: 1).

// ewtBinCase is one binary elementwise case: float inputs and golden, the
// quantization of input 1, input 2 and output, and the fused activation.
type ewtBinCase struct {
	name             string // TFLM test name (and shape variant)
	s1, s2, so       []int
	in1, in2, golden []float32
	scales           [3]float32
	zps              [3]int32
	act              quant.Activation
}

// ewtVariousShapes are the shapes of TFLM's *VariousInputShapes and
// *ScalarBroadcast tests.
var ewtVariousShapes = [][]int{{6}, {2, 3}, {2, 1, 3}, {1, 3, 1, 2}}

// Mixed broadcast data shared by add_test.cc and sub_test.cc.
var (
	ewtMixedIn1Shape = []int{2, 3, 1, 2}
	ewtMixedIn1      = ewtF32(-0.3, 2.3, 0.9, 0.5, 0.8, -1.1, 1.2, 2.8, -1.6, 0.0, 0.7, -2.2)
	ewtMixedIn2Add   = ewtF32(0.2, 0.3, -0.4, 0.5, 1.0, 0.9)
	ewtMixedIn2Sub   = ewtF32(-0.2, -0.3, 0.4, -0.5, -1.0, -0.9)
	ewtMixedIn2Shape = [][]int{{1, 1, 3, 2}, {1, 3, 1, 2}, {2, 1, 3, 1}, {2, 3, 1, 1}}
	ewtMixedOutShape = [][]int{{2, 3, 3, 2}, {2, 3, 1, 2}, {2, 3, 3, 2}, {2, 3, 1, 2}}
	ewtMixedGolden   = [][]float32{
		ewtF32(-0.1, 2.6, -0.7, 2.8, 0.7, 3.2, 1.1, 0.8, 0.5, 1.0, 1.9, 1.4,
			1.0, -0.8, 0.4, -0.6, 1.8, -0.2, 1.4, 3.1, 0.8, 3.3, 2.2, 3.7,
			-1.4, 0.3, -2.0, 0.5, -0.6, 0.9, 0.9, -1.9, 0.3, -1.7, 1.7, -1.3),
		ewtF32(-0.1, 2.6, 0.5, 1.0, 1.8, -0.2, 1.4, 3.1, -2.0, 0.5, 1.7, -1.3),
		ewtF32(-0.1, 2.5, 0.0, 2.6, -0.7, 1.9, 1.1, 0.7, 1.2, 0.8, 0.5, 0.1,
			1.0, -0.9, 1.1, -0.8, 0.4, -1.5, 1.7, 3.3, 2.2, 3.8, 2.1, 3.7,
			-1.1, 0.5, -0.6, 1.0, -0.7, 0.9, 1.2, -1.7, 1.7, -1.2, 1.6, -1.3),
		ewtF32(-0.1, 2.5, 1.2, 0.8, 0.4, -1.5, 1.7, 3.3, -0.6, 1.0, 1.6, -1.3),
	}
)

// ewtShapeVariants repeats a case over ewtVariousShapes; scalar makes input
// 2 a scalar (shape []).
func ewtShapeVariants(c ewtBinCase, scalar bool) []ewtBinCase {
	var out []ewtBinCase
	for _, s := range ewtVariousShapes {
		v := c
		v.name = fmt.Sprintf("%s%v", c.name, s)
		v.s1, v.s2, v.so = s, s, s
		if scalar {
			v.s2 = []int{}
		}
		out = append(out, v)
	}
	return out
}

// ewtMixedVariants builds the four mixed-broadcast cases.
func ewtMixedVariants(name string, in2 []float32, scales [3]float32, zps [3]int32) []ewtBinCase {
	var out []ewtBinCase
	for i := range ewtMixedIn2Shape {
		out = append(out, ewtBinCase{
			name: fmt.Sprintf("%s%v", name, ewtMixedIn2Shape[i]),
			s1:   ewtMixedIn1Shape, s2: ewtMixedIn2Shape[i], so: ewtMixedOutShape[i],
			in1: ewtMixedIn1, in2: in2, golden: ewtMixedGolden[i],
			scales: scales, zps: zps,
		})
	}
	return out
}

// ewtFloatCases returns the float32 cases of ADD (sub=false) or SUB.
func ewtFloatCases(sub bool) []ewtBinCase {
	shape := []int{1, 2, 2, 1}
	six := ewtF32(-2.0, 0.2, 0.7, 0.8, 1.1, 2.0)
	if !sub {
		cs := []ewtBinCase{
			{name: "FloatAddNoActivation", s1: shape, s2: shape, so: shape,
				in1: ewtF32(-2.0, 0.2, 0.7, 0.8), in2: ewtF32(0.1, 0.2, 0.3, 0.5), golden: ewtF32(-1.9, 0.4, 1.0, 1.3)},
			{name: "FloatAddActivationRelu1", s1: shape, s2: shape, so: shape, act: quant.ActReluN1To1,
				in1: ewtF32(-2.0, 0.2, 0.7, 0.8), in2: ewtF32(0.1, 0.2, 0.3, 0.5), golden: ewtF32(-1.0, 0.4, 1.0, 1.0)},
		}
		cs = append(cs, ewtShapeVariants(ewtBinCase{name: "FloatAddVariousInputShapes", in1: six,
			in2: ewtF32(0.1, 0.2, 0.3, 0.5, 1.1, 0.1), golden: ewtF32(-1.9, 0.4, 1.0, 1.3, 2.2, 2.1)}, false)...)
		cs = append(cs, ewtShapeVariants(ewtBinCase{name: "FloatAddWithScalarBroadcast", in1: six,
			in2: ewtF32(0.1), golden: ewtF32(-1.9, 0.3, 0.8, 0.9, 1.2, 2.1)}, true)...)
		return append(cs, ewtMixedVariants("QuantizedAddWithScalarBroadcastFloat", ewtMixedIn2Add, [3]float32{}, [3]int32{})...)
	}
	cs := []ewtBinCase{
		{name: "FloatSubNoActivation", s1: shape, s2: shape, so: shape,
			in1: ewtF32(-2.0, 0.2, 0.7, 0.8), in2: ewtF32(0.1, 0.2, 0.3, 0.5), golden: ewtF32(-2.1, 0.0, 0.4, 0.3)},
		{name: "FloatSubActivationRelu1", s1: shape, s2: shape, so: shape, act: quant.ActReluN1To1,
			in1: ewtF32(-2.0, 0.2, 2.0, 0.8), in2: ewtF32(2.0, 0.2, 0.3, 0.5), golden: ewtF32(-1.0, 0.0, 1.0, 0.3)},
	}
	cs = append(cs, ewtShapeVariants(ewtBinCase{name: "FloatSubVariousInputShapes", in1: six,
		in2: ewtF32(0.1, 0.2, 0.3, 0.5, 1.1, 0.1), golden: ewtF32(-2.1, 0.0, 0.4, 0.3, 0.0, 1.9)}, false)...)
	cs = append(cs, ewtShapeVariants(ewtBinCase{name: "FloatSubWithScalarBroadcast", in1: six,
		in2: ewtF32(0.1), golden: ewtF32(-2.1, 0.1, 0.6, 0.7, 1.0, 1.9)}, true)...)
	return append(cs, ewtMixedVariants("QuantizedSubWithScalarBroadcastFloat", ewtMixedIn2Sub, [3]float32{}, [3]int32{})...)
}

// ewtQuantCases returns the quantized cases of ADD or SUB for int8
// (int16=false) or int16.
func ewtQuantCases(sub, int16 bool) []ewtBinCase {
	shape := []int{1, 2, 2, 1}
	op, ty := "Add", "Int8"
	if sub {
		op = "Sub"
	}
	if int16 {
		ty = "Int16"
	}
	zp := func(z ...int32) [3]int32 {
		if int16 {
			return [3]int32{}
		}
		return [3]int32{z[0], z[1], z[2]}
	}
	sign := float32(1)
	if sub {
		sign = -1
	}
	neg := func(v []float32) []float32 {
		out := make([]float32, len(v))
		for i, x := range v {
			out[i] = sign * x
		}
		return out
	}
	in2NoAct := ewtF32(1.01, 1.99, 2.99, 4.02)
	if int16 && !sub {
		in2NoAct = ewtF32(1.01, 2.01, 3.01, 4.02) // QuantizedAddNoActivationInt16
	}
	in1 := ewtF32(-2.01, -1.01, -0.01, 0.98)
	var cs []ewtBinCase
	if !(sub && int16) { // sub_test.cc has no QuantizedSubNoActivationInt16
		cs = append(cs, ewtBinCase{name: "Quantized" + op + "NoActivation" + ty, s1: shape, s2: shape, so: shape,
			in1: in1, in2: neg(in2NoAct), golden: ewtF32(-1, 1, 3, 5),
			scales: [3]float32{0.25, 0.5, 1.0}, zps: zp(-10, 4, 13)})
	}
	cs = append(cs, ewtBinCase{name: "Quantized" + op + "ActivationRelu1" + ty, s1: shape, s2: shape, so: shape,
		in1: in1, in2: neg(ewtF32(1.01, 1.99, 2.99, 4.02)), golden: ewtF32(-1, 1, 1, 1),
		scales: [3]float32{0.25, 0.5, 1.0}, zps: zp(-10, 4, 13), act: quant.ActReluN1To1})
	six := ewtF32(-2.0, 0.2, 0.7, 0.8, 1.1, 2.0)
	cs = append(cs, ewtShapeVariants(ewtBinCase{name: "Quantized" + op + "VariousInputShapes" + ty, in1: six,
		in2: neg(ewtF32(0.1, 0.2, 0.3, 0.5, 1.1, 0.1)), golden: ewtF32(-1.9, 0.4, 1.0, 1.3, 2.2, 2.1),
		scales: [3]float32{0.1, 0.05, 0.1}, zps: zp(-9, 5, 14)}, false)...)
	cs = append(cs, ewtShapeVariants(ewtBinCase{name: "Quantized" + op + "WithScalarBroadcast" + ty, in1: six,
		in2: neg(ewtF32(0.1)), golden: ewtF32(-1.9, 0.3, 0.8, 0.9, 1.2, 2.1),
		scales: [3]float32{0.1, 0.05, 0.05}, zps: zp(-8, 4, 12)}, true)...)
	in2 := ewtMixedIn2Add
	if sub {
		in2 = ewtMixedIn2Sub
	}
	return append(cs, ewtMixedVariants("Quantized"+op+"WithMixedBroadcast"+ty, in2,
		[3]float32{0.1, 0.05, 0.1}, zp(-10, -5, 7))...)
}

// ewtRunQuant runs a quantized ADD/SUB case and requires an exact match
// with the quantized golden.
func ewtRunQuant[T int8 | int16](t *testing.T, sub bool, c ewtBinCase, fn func(*ewQuantParams, *ewBcast, []T, []T, []T)) {
	t.Helper()
	a := ewtQuantize[T](c.in1, c.scales[0], c.zps[0])
	b := ewtQuantize[T](c.in2, c.scales[1], c.zps[1])
	want := ewtQuantize[T](c.golden, c.scales[2], c.zps[2])
	got := make([]T, len(want))
	fn(ewtAddSubParams[T](t, sub, c.scales, c.zps, c.act), ewtBcast(t, c.s1, c.s2, c.so), a, b, got)
	ewtCheckInts(t, c.name, got, want, 0)
}

func TestElementwiseAddSubFloat(t *testing.T) {
	for _, sub := range []bool{false, true} {
		fn := addF32
		if sub {
			fn = subF32
		}
		for _, c := range ewtFloatCases(sub) {
			got := make([]float32, len(c.golden))
			fn(ewtActRangeF32(c.act), ewtBcast(t, c.s1, c.s2, c.so), c.in1, c.in2, got)
			ewtCheckF32(t, c.name, got, c.golden, 1e-5)
		}
	}
}

func TestElementwiseAddSubInt16(t *testing.T) {
	for _, c := range ewtQuantCases(false, true) {
		ewtRunQuant(t, false, c, addInt16)
	}
	for _, c := range ewtQuantCases(true, true) {
		ewtRunQuant(t, true, c, subInt16)
	}
}

// TestElementwiseAddSubInt32 ports AddTest.Int32AddNoActivation and
// SubTest.Int32SubNoActivation (wrapping arithmetic at the int32 limits).
func TestElementwiseAddSubInt32(t *testing.T) {
	shape := []int{1, 2, 2, 1}
	a := []int32{-2, 2147483646, -1, 1146622854}
	b := []int32{3, 1, -2147483647, -726978367}
	full := &ewI32Params{math.MinInt32, math.MaxInt32}
	got := make([]int32, 4)
	addI32(full, ewtBcast(t, shape, shape, shape), a, b, got)
	ewtCheckInts(t, "Int32AddNoActivation", got, []int32{1, 2147483647, -2147483648, 419644487}, 0)
	subI32(full, ewtBcast(t, shape, shape, shape), a, b, got)
	ewtCheckInts(t, "Int32SubNoActivation", got, []int32{-5, 2147483645, 2147483646, 1873601221}, 0)
	// Fused RELU6 on int32 SUB (CalculateActivationRange<int32_t>).
	subI32(&ewI32Params{0, 6}, ewtBcast(t, shape, shape, shape), []int32{10, 3, -4, 7}, []int32{1, 1, 1, 7}, got)
	ewtCheckInts(t, "Int32SubRelu6", got, []int32{6, 2, 0, 0}, 0)
}

// ewtMulCase is one MUL case of mul_test.cc.
type ewtMulCase struct {
	name              string
	s1, s2            []int
	in1, in2, golden  []float32
	inScale, outScale float32
	act               quant.Activation
}

var ewtMulCases = []ewtMulCase{
	{"Simple", []int{1, 2, 2, 1}, []int{1, 2, 2, 1},
		ewtF32(-0.8, 0.2, 0.9, 0.7), ewtF32(0.6, 0.4, 0.9, 0.8), ewtF32(-0.48, 0.08, 0.81, 0.56), 0.01, 0.01, quant.ActNone},
	{"SimpleRelu", []int{1, 2, 2, 1}, []int{1, 2, 2, 1},
		ewtF32(-0.8, 0.2, 0.9, 0.7), ewtF32(0.6, 0.4, 0.9, 0.8), ewtF32(0.0, 0.08, 0.81, 0.56), 0.01, 0.01, quant.ActRelu},
	{"Broadcast", []int{1, 3, 1, 2}, []int{1},
		ewtF32(-2.0, 0.2, 0.7, 0.8, 1.1, 2.0), ewtF32(0.1), ewtF32(-0.2, 0.02, 0.07, 0.08, 0.11, 0.2), 0.05, 0.01, quant.ActNone},
	{"BroadcastRelu", []int{1, 3, 1, 2}, []int{1},
		ewtF32(-2.0, 0.2, 0.7, 0.8, 1.1, 2.0), ewtF32(0.1), ewtF32(0, 0.02, 0.07, 0.08, 0.11, 0.2), 0.05, 0.01, quant.ActRelu},
}

// TestElementwiseMul ports MulTest.*ShouldMatchGolden: float within 1e-5,
// int8/int16/int32 within 1 quantization step (TFLM's tolerance).
func TestElementwiseMul(t *testing.T) {
	for _, c := range ewtMulCases {
		bc := ewtBcast(t, c.s1, c.s2, c.s1)
		gotF := make([]float32, len(c.golden))
		mulF32(ewtActRangeF32(c.act), bc, c.in1, c.in2, gotF)
		ewtCheckF32(t, c.name+"Float", gotF, c.golden, 1e-5)
		if c.act != quant.ActNone {
			continue // TFLM has no quantized MUL case with an activation
		}
		s := [3]float32{c.inScale, c.inScale, c.outScale}
		z := [3]int32{}
		got8 := make([]int8, len(c.golden))
		mulInt8(ewtMulParams[int8](s, z, c.act), bc,
			ewtQuantize[int8](c.in1, s[0], 0), ewtQuantize[int8](c.in2, s[1], 0), got8)
		ewtCheckInts(t, c.name+"Int8", got8, ewtQuantize[int8](c.golden, s[2], 0), 1)
		got16 := make([]int16, len(c.golden))
		mulInt16(ewtMulParams[int16](s, z, c.act), bc,
			ewtQuantize[int16](c.in1, s[0], 0), ewtQuantize[int16](c.in2, s[1], 0), got16)
		ewtCheckInts(t, c.name+"Int16", got16, ewtQuantize[int16](c.golden, s[2], 0), 1)
	}
	// SimpleInt32NoActivationShouldMatchGolden: int32 MUL ignores
	// quantization; inputs at scale 0.01, product at 0.0001.
	c := ewtMulCases[0]
	got := make([]int32, 4)
	mulI32(&ewI32Params{math.MinInt32, math.MaxInt32}, ewtBcast(t, c.s1, c.s2, c.s1),
		ewtQuantize[int32](c.in1, 0.01, 0), ewtQuantize[int32](c.in2, 0.01, 0), got)
	ewtCheckInts(t, "SimpleInt32", got, ewtQuantize[int32](c.golden, 0.0001, 0), 1)
	// Saturation at the int8 limits with a non-zero output zero point.
	p := ewtMulParams[int8]([3]float32{1, 1, 1}, [3]int32{0, 0, 10}, quant.ActNone)
	got8 := make([]int8, 3)
	mulInt8(p, ewtBcast(t, []int{3}, []int{3}, []int{3}), []int8{127, -128, 3}, []int8{127, 127, -4}, got8)
	ewtCheckInts(t, "MulInt8Saturate", got8, []int8{127, -128, -2}, 0)
}

// TestElementwiseMaxMin ports MaximumMinimumTest (exact).
func TestElementwiseMaxMin(t *testing.T) {
	d := []int{3, 1, 2}
	bc := ewtBcast(t, d, d, d)
	{
		a := ewtF32(1.0, 0.0, -1.0, 11.0, -2.0, -1.44)
		b := ewtF32(-1.0, 0.0, 1.0, 12.0, -3.0, -1.43)
		got := make([]float32, 6)
		maximumF32(bc, a, b, got)
		ewtCheckF32(t, "FloatTest max", got, ewtF32(1.0, 0.0, 1.0, 12.0, -2.0, -1.43), 0)
		minimumF32(bc, a, b, got)
		ewtCheckF32(t, "FloatTest min", got, ewtF32(-1.0, 0.0, -1.0, 11.0, -3.0, -1.44), 0)
	}
	{
		a, b := []int8{1, 0, 2, 11, 2, 23}, []int8{0, 0, 1, 12, 127, 1}
		got := make([]int8, 6)
		maximumInt8(bc, a, b, got)
		ewtCheckInts(t, "Int8Test max", got, []int8{1, 0, 2, 12, 127, 23}, 0)
		minimumInt8(bc, a, b, got)
		ewtCheckInts(t, "Int8Test min", got, []int8{0, 0, 1, 11, 2, 1}, 0)
	}
	{
		a, b := []int16{-30, 0, 2124, -123, -32768, 26236}, []int16{24, 0, 1, -4256, 32767, -577}
		got := make([]int16, 6)
		maximumInt16(bc, a, b, got)
		ewtCheckInts(t, "Int16Test max", got, []int16{24, 0, 2124, -123, 32767, 26236}, 0)
		minimumInt16(bc, a, b, got)
		ewtCheckInts(t, "Int16Test min", got, []int16{-30, 0, 1, -4256, -32768, -577}, 0)
	}
	{
		bc := ewtBcast(t, d, []int{2}, d)
		a, b := ewtF32(1.0, 0.0, -1.0, -2.0, -1.44, 11.0), ewtF32(0.5, 2.0)
		got := make([]float32, 6)
		maximumF32(bc, a, b, got)
		ewtCheckF32(t, "FloatWithBroadcastTest max", got, ewtF32(1.0, 2.0, 0.5, 2.0, 0.5, 11.0), 0)
		minimumF32(bc, a, b, got)
		ewtCheckF32(t, "FloatWithBroadcastTest min", got, ewtF32(0.5, 0.0, -1.0, -2.0, -1.44, 2.0), 0)
	}
	{
		bc := ewtBcast(t, d, []int{1}, d)
		a, b := []int32{1, 0, -1, -2, 3, 11}, []int32{2}
		got := make([]int32, 6)
		maximumI32(bc, a, b, got)
		ewtCheckInts(t, "Int32WithBroadcastTest max", got, []int32{2, 2, 2, 2, 3, 11}, 0)
		minimumI32(bc, a, b, got)
		ewtCheckInts(t, "Int32WithBroadcastTest min", got, []int32{1, 0, -1, -2, 2, 2}, 0)
	}
	{
		// NaN: TFLM returns the second operand unless the first compares
		// greater (MAXIMUM) or smaller (MINIMUM).
		nan := float32(math.NaN())
		bc := ewtBcast(t, []int{2}, []int{2}, []int{2})
		got := make([]float32, 2)
		maximumF32(bc, []float32{nan, 1}, []float32{1, nan}, got)
		if got[0] != 1 || !math.IsNaN(float64(got[1])) {
			t.Errorf("maximum with NaN = %v, want [1 NaN]", got)
		}
	}
}

// TestElementwiseBroadcastFused runs the mixed broadcast cases with fused
// plans (what the generator emits: one row for equal shapes, fused outer
// loops) and with a rank-5 broadcast, against the unfused planner.
func TestElementwiseBroadcastFused(t *testing.T) {
	// [2,3,1,2] + [1,1,3,2] -> [2,3,3,2]: the generator's plan is a row
	// of 2 (steps a:1, b:1), then 3 (a:0, b:2), then the outer 2x3 fused
	// into 6 (a:2, b:0).
	fused := &ewBcast{inner: 2, aInner: 1, bInner: 1,
		n1: 3, a1: 0, b1: 2, n2: 6, a2: 2, b2: 0, n3: 1, n4: 1, n5: 1}
	got := make([]float32, 36)
	addF32(ewtActRangeF32(quant.ActNone), fused, ewtMixedIn1, ewtMixedIn2Add, got)
	ewtCheckF32(t, "fused mixed broadcast", got, ewtMixedGolden[0], 1e-5)

	// Rank 5, broadcasting in alternate dimensions, against a direct
	// computation.
	s1, s2, so := []int{2, 1, 3, 1, 2}, []int{1, 2, 1, 2, 2}, []int{2, 2, 3, 2, 2}
	a := make([]int32, 12)
	b := make([]int32, 8)
	for i := range a {
		a[i] = int32(100 * (i + 1))
	}
	for i := range b {
		b[i] = int32(i + 1)
	}
	got32 := make([]int32, 48)
	addI32(&ewI32Params{math.MinInt32, math.MaxInt32}, ewtBcast(t, s1, s2, so), a, b, got32)
	want := make([]int32, 48)
	o := 0
	for i0 := 0; i0 < 2; i0++ {
		for i1 := 0; i1 < 2; i1++ {
			for i2 := 0; i2 < 3; i2++ {
				for i3 := 0; i3 < 2; i3++ {
					for i4 := 0; i4 < 2; i4++ {
						want[o] = a[i0*6+i2*2+i4] + b[i1*4+i3*2+i4]
						o++
					}
				}
			}
		}
	}
	ewtCheckInts(t, "rank-5 broadcast", got32, want, 0)

	// Empty output: no row is visited.
	addI32(&ewI32Params{}, &ewBcast{n1: 1, n2: 1, n3: 1, n4: 1, n5: 1}, nil, nil, nil)
}

// TestElementwiseLoaders checks the constant decoders used for wide
// constant operands.
func TestElementwiseLoaders(t *testing.T) {
	i16 := make([]int16, 2)
	ewLoadI16("\x01\x80\xff\x7f", i16)
	ewtCheckInts(t, "ewLoadI16", i16, []int16{-32767, 32767}, 0)
	i32 := make([]int32, 1)
	ewLoadI32("\x00\x00\x00\x80", i32)
	ewtCheckInts(t, "ewLoadI32", i32, []int32{math.MinInt32}, 0)
	f := make([]float32, 1)
	ewLoadF32("\x00\x00\xc0\x3f", f)
	ewtCheckF32(t, "ewLoadF32", f, []float32{1.5}, 0)
}
