package kernels

import (
	"math"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// TestDivmodDiv ports div_test.cc's float32 and int32 cases (inputs,
// activations, shapes and goldens; float within its 1e-5) and checks the
// documented results of int32 division by zero and MinInt32 / -1.
func TestDivmodDiv(t *testing.T) {
	maxF := float32(math.MaxFloat32)
	for _, c := range []struct {
		name       string
		s1, s2     []int
		a, b, want []float32
		lo, hi     float32
	}{
		{"act none", []int{1, 2, 2, 1}, []int{1, 2, 2, 1}, ewtF32(-0.2, 0.2, -1.2, 0.8), ewtF32(0.5, 0.2, -1.5, 0.5), ewtF32(-0.4, 1.0, 0.8, 1.6), -maxF, maxF},
		{"relu_n1_to_1", []int{1, 2, 2, 1}, []int{1, 2, 2, 1}, ewtF32(-0.2, 0.2, -1.2, 0.8), ewtF32(0.1, 0.2, -1.5, 0.5), ewtF32(-1.0, 1.0, 0.8, 1.0), -1, 1},
		{"multi shape", []int{1, 3, 1, 2}, []int{1, 3, 1, 2}, ewtF32(-2.0, 0.2, 0.3, 0.8, 1.1, -2.0), ewtF32(0.1, 0.2, 0.6, 0.5, -1.1, -0.1), ewtF32(-20.0, 1.0, 0.5, 1.6, -1.0, 20.0), -maxF, maxF},
		{"broadcast", []int{1, 2, 2, 2}, []int{1}, ewtF32(-0.2, 0.2, 0.07, 0.08, 0.11, -0.123, -0.32, 0.54), ewtF32(0.1), ewtF32(-2.0, 2.0, 0.7, 0.8, 1.1, -1.23, -3.2, 5.4), -maxF, maxF},
		{"broadcast 5D", []int{1, 2, 1, 2, 2}, []int{1}, ewtF32(-0.2, 0.2, 0.07, 0.08, 0.11, -0.123, -0.32, 0.54), ewtF32(0.1), ewtF32(-2.0, 2.0, 0.7, 0.8, 1.1, -1.23, -3.2, 5.4), -maxF, maxF},
	} {
		out := make([]float32, len(c.want))
		divF32(&ewF32Params{c.lo, c.hi}, ewtBcast(t, c.s1, c.s2, c.s1), c.a, c.b, out)
		mathTNear(t, "DIV float32 "+c.name, c.a, out, c.want, 1e-5)
	}
	inf := float32(math.Inf(1))
	out := make([]float32, 3)
	divF32(&ewF32Params{-maxF, maxF}, ewtBcast(t, []int{3}, []int{3}, []int{3}), ewtF32(1, 0, -1), ewtF32(0, 0, 0), out)
	mathTNear(t, "DIV float32 by zero", ewtF32(1, 0, -1), out, []float32{maxF, float32(math.NaN()), -maxF}, 0)
	divF32(&ewF32Params{float32(math.Inf(-1)), inf}, ewtBcast(t, []int{3}, []int{3}, []int{3}), ewtF32(1, 0, -1), ewtF32(0, 0, 0), out)
	mathTNear(t, "DIV float32 by zero unclamped", ewtF32(1, 0, -1), out, []float32{inf, float32(math.NaN()), -inf}, 0)

	for _, c := range []struct {
		name       string
		a, b, want []int32
		lo, hi     int32
	}{
		{"no activation", []int32{-2, 2, -15, 8}, []int32{5, -2, -3, 5}, []int32{0, -1, 5, 1}, math.MinInt32, math.MaxInt32},
		{"relu_n1_to_1", []int32{-2, 2, -12, 8}, []int32{1, 2, -15, 5}, []int32{-1, 1, 0, 1}, -1, 1},
		{"by zero and overflow", []int32{7, math.MinInt32, math.MinInt32, 0}, []int32{0, -1, 1, 0}, []int32{0, math.MinInt32, math.MinInt32, 0}, math.MinInt32, math.MaxInt32},
	} {
		got := make([]int32, len(c.want))
		divI32(&ewI32Params{c.lo, c.hi}, ewtBcast(t, []int{1, 2, 2, 1}, []int{1, 2, 2, 1}, []int{1, 2, 2, 1}), c.a, c.b, got)
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("DIV int32 %s: %d / %d = %d, want %d", c.name, c.a[i], c.b[i], got[i], c.want[i])
			}
		}
	}
}

// TestDivmodDivInt8 ports div_test.cc's int8 cases: inputs and output
// quantized from [-1, 1] (scale 2/255, zero point 0, as ScaleFromMinMax and
// ZeroPointFromMinMax give), results dequantized and compared with the
// goldens within its 2*step + step^2.
func TestDivmodDivInt8(t *testing.T) {
	scale := float32(2.0 / 255)
	m, shift := quant.Multiplier(float64(scale / (scale * scale)))
	q := func(xs []float32) []int8 {
		v := make([]int8, len(xs))
		for i, x := range xs {
			v[i] = int8(clampI32(int32(math.Round(float64(x/scale))), -128, 127))
		}
		return v
	}
	tol := 2*float64(scale) + float64(scale)*float64(scale)
	for _, c := range []struct {
		name       string
		act        quant.Activation
		a, b, want []float32
	}{
		{"act none", quant.ActNone, ewtF32(-0.8, -0.2, 0.3, 0.7), ewtF32(-0.8, 0.4, 0.8, 1.0), ewtF32(1.0, -0.5, 0.375, 0.7)},
		{"relu_n1_to_1", quant.ActReluN1To1, ewtF32(-0.8, 0.2, 0.9, 0.7), ewtF32(0.6, 0.4, 0.9, -0.8), ewtF32(-1.0, 0.5, 1.0, -0.875)},
		{"relu_n1_to_1 2", quant.ActReluN1To1, ewtF32(-0.5, 0.2, 0.6, 0.3), ewtF32(0.6, 0.5, -0.8, 0.5), ewtF32(-0.833, 0.4, -0.75, 0.6)},
	} {
		lo, hi, ok := quant.RangeQuantized(c.act, float64(scale), 0, -128, 127)
		if !ok {
			t.Fatalf("%s: no activation range", c.name)
		}
		p := &mulQuantParams{mult: m, shift: shift, actMin: lo, actMax: hi}
		out := make([]int8, len(c.want))
		sh := []int{1, 2, 2, 1}
		divInt8(p, ewtBcast(t, sh, sh, sh), q(c.a), q(c.b), out)
		for i := range out {
			if got := float64(out[i]) * float64(scale); math.Abs(got-float64(c.want[i])) > tol {
				t.Errorf("DIV int8 %s: element %d: got %v, want %v", c.name, i, got, c.want[i])
			}
		}
	}
}

// TestDivmodFloor ports floor_div_test.cc and floor_mod_test.cc (float32,
// with their broadcast cases) and checks division by zero.
func TestDivmodFloor(t *testing.T) {
	s, one := []int{1, 2, 2, 1}, []int{1}
	for _, c := range []struct {
		name       string
		fn         func(*ewBcast, []float32, []float32, []float32)
		s2         []int
		a, b, want []float32
	}{
		{"FLOOR_DIV simple", floorDivF32, s, ewtF32(10.05, 9.09, 11.9, 3.01), ewtF32(2.05, 2.03, 3.03, 4.03), ewtF32(4, 4, 3, 0)},
		{"FLOOR_DIV negative", floorDivF32, s, ewtF32(10.03, -9.9, -11.0, 7.0), ewtF32(2.0, 2.3, -3.0, -4.1), ewtF32(5, -5, 3, -2)},
		{"FLOOR_DIV broadcast", floorDivF32, one, ewtF32(10.03, -9.9, -11.0, 7.0), ewtF32(-3.3), ewtF32(-4, 2, 3, -3)},
		{"FLOOR_MOD simple", floorModF32, s, ewtF32(10, 9, 11, 3), ewtF32(2, 2, 3, 4), ewtF32(0, 1, 2, 3)},
		{"FLOOR_MOD negative", floorModF32, s, ewtF32(10, -9, -11, 7), ewtF32(2, 2, -3, -4), ewtF32(0, 1, -2, -1)},
		{"FLOOR_MOD broadcast", floorModF32, one, ewtF32(10, -9, -11, 7), ewtF32(-3), ewtF32(-2, 0, -2, -2)},
	} {
		out := make([]float32, len(c.want))
		c.fn(ewtBcast(t, s, c.s2, s), c.a, c.b, out)
		mathTNear(t, c.name, c.a, out, c.want, 1e-5)
	}
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	negZero := math.Float32frombits(1 << 31)
	a, b := ewtF32(3, -3, 0, 5.5), ewtF32(0, 0, 0, float64(inf))
	out := make([]float32, 4)
	bc := ewtBcast(t, []int{4}, []int{4}, []int{4})
	floorDivF32(bc, a, b, out)
	mathTNear(t, "FLOOR_DIV by zero", a, out, []float32{inf, -inf, nan, 0}, 0)
	floorModF32(bc, a, b, out)
	mathTNear(t, "FLOOR_MOD by zero", a, out, []float32{nan, nan, nan, 5.5}, 0)
	a, b = []float32{negZero, -4, 4, -1}, ewtF32(3, 2, -2, float64(inf))
	floorModF32(bc, a, b, out)
	// -1 mod +inf: fmod gives -1, whose sign differs, so -1 + inf = inf.
	mathTNear(t, "FLOOR_MOD zeros", a, out, []float32{negZero, negZero, 0, inf}, 0)
}

// dmtScaleZP is TFLM's test helpers ScaleFromMinMax and ZeroPointFromMinMax
// for int8.
func dmtScaleZP(lo, hi float32) (float32, int32) {
	s := (hi - lo) / 255
	return s, -128 + int32(-lo/s+0.5)
}

// dmtSqDiffParams computes a quantized SQUARED_DIFFERENCE's parameters as
// TFLM's PrepareQuantized does.
func dmtSqDiffParams(t *testing.T, leftShift int, s1, s2, so float32, z1, z2, zo, lo, hi int32) *ewQuantParams {
	t.Helper()
	twice := 2 * float64(max(s1, s2))
	p := &ewQuantParams{in1Off: -z1, in2Off: -z2, outOff: zo, leftShift: leftShift, actMin: lo, actMax: hi}
	var err error
	if p.in1Mult, p.in1Shift, err = quant.CheckedMultiplier(float64(s1) / twice); err != nil {
		t.Fatal(err)
	}
	if p.in2Mult, p.in2Shift, err = quant.CheckedMultiplier(float64(s2) / twice); err != nil {
		t.Fatal(err)
	}
	if p.outMult, p.outShift, err = quant.CheckedMultiplier(twice * twice / float64(float32(int32(1)<<(2*leftShift))*so)); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDivmodSquaredDifference ports squared_difference_test.cc: float32
// and int32 with and without broadcasting, int8 with its min/max ranges and
// int16 with its scales, compared after dequantizing within the test's
// tolerance. (The test writes one input as -0.0, which is +0 in C++ as in
// Go.)
func TestDivmodSquaredDifference(t *testing.T) {
	s, s6, one := []int{1, 2, 2, 1}, []int{1, 3, 1, 2}, []int{1}
	for _, c := range []struct {
		name       string
		s1, s2     []int
		a, b, want []float32
	}{
		{"same shape", s, s, ewtF32(-0.2, 0.2, -1.2, 0.8), ewtF32(0.5, 0.2, -1.5, 0.5), ewtF32(0.49, 0.0, 0.09, 0.09)},
		{"various shapes", s6, s6, ewtF32(-2.0, 0.2, 0.3, 0.8, 1.1, -2.0), ewtF32(1.0, 0.2, 0.6, 0.4, -1.0, 0), ewtF32(9.0, 0.0, 0.09, 0.16, 4.41, 4.0)},
		{"broadcast", s6, one, ewtF32(-0.2, 0.2, 0.5, 0.8, 0.11, 1.1), ewtF32(0.1), ewtF32(0.09, 0.01, 0.16, 0.49, 0.0001, 1.0)},
	} {
		out := make([]float32, len(c.want))
		sqDiffF32(ewtBcast(t, c.s1, c.s2, c.s1), c.a, c.b, out)
		mathTNear(t, "SQUARED_DIFFERENCE float32 "+c.name, c.a, out, c.want, 1e-5)
	}
	for _, c := range []struct {
		name       string
		s1, s2     []int
		a, b, want []int32
	}{
		{"same shape", s, s, []int32{-2, 2, -15, 8}, []int32{5, -2, -3, 5}, []int32{49, 16, 144, 9}},
		{"various shapes", s6, s6, []int32{-20, 2, 3, 8, 11, -20}, []int32{1, 2, 6, 5, -5, -20}, []int32{441, 0, 9, 9, 256, 0}},
		{"broadcast", s6, one, []int32{-20, 10, 7, 3, 1, 13}, []int32{3}, []int32{529, 49, 16, 0, 4, 100}},
	} {
		out := make([]int32, len(c.want))
		sqDiffI32(ewtBcast(t, c.s1, c.s2, c.s1), c.a, c.b, out)
		for i := range out {
			if out[i] != c.want[i] {
				t.Errorf("SQUARED_DIFFERENCE int32 %s: element %d: got %d, want %d", c.name, i, out[i], c.want[i])
			}
		}
	}
	for _, c := range []struct {
		name                   string
		s1, s2                 []int
		a, b, want             []float32
		lo1, hi1, lo2, hi2, ho float32
		tol                    float64
	}{
		{"same shape", s, s, ewtF32(-0.2, 0.2, -1.2, 0.8), ewtF32(0.5, 0.2, -1.5, 0.5), ewtF32(0.49, 0.0, 0.09, 0.09), -1.2, 0.8, -1.5, 0.5, 0.5, 2.0 / 255},
		{"various shapes", s6, s6, ewtF32(-2.0, 0.2, 0.3, 0.8, 1.1, -2.0), ewtF32(1.0, 0.2, 0.6, 0.4, -1.0, 0), ewtF32(9.0, 0.0, 0.09, 0.16, 4.41, 4.0), -2, 1.7, -1, 1, 9, 18.0 / 255},
		{"broadcast", s6, one, ewtF32(-0.2, 0.2, 0.5, 0.8, 0.11, 1.1), ewtF32(0.1), ewtF32(0.09, 0.01, 0.16, 0.49, 0.0001, 1.0), -0.2, 1.1, 0, 1, 1, 2.0 / 255},
	} {
		s1, z1 := dmtScaleZP(c.lo1, c.hi1)
		s2, z2 := dmtScaleZP(c.lo2, c.hi2)
		so, zo := dmtScaleZP(0, c.ho)
		p := dmtSqDiffParams(t, 7, s1, s2, so, z1, z2, zo, -128, 127)
		out := make([]int8, len(c.want))
		sqDiffInt8(p, ewtBcast(t, c.s1, c.s2, c.s1), ewtQuantize[int8](c.a, s1, z1), ewtQuantize[int8](c.b, s2, z2), out)
		got := ewtDequantize(out, so, zo)
		for i, w := range c.want {
			if math.Abs(float64(got[i]-w)) > c.tol {
				t.Errorf("SQUARED_DIFFERENCE int8 %s: element %d: got %v, want %v", c.name, i, got[i], w)
			}
		}
	}
	for _, c := range []struct {
		name       string
		s1, s2     []int
		a, b, want []float32
	}{
		{"same shape", s, s, ewtF32(-0.2, 0.2, -1.2, 0.8), ewtF32(0.5, 0.2, -1.5, 0.5), ewtF32(0.49, 0.0, 0.09, 0.09)},
		{"various shapes", s6, s6, ewtF32(-2.0, 0.2, 0.3, 0.8, 1.1, -2.0), ewtF32(1.0, 0.2, 0.6, 0.4, -1.0, 0), ewtF32(9.0, 0.0, 0.09, 0.16, 4.41, 4.0)},
		{"broadcast", s6, one, ewtF32(-0.2, 0.2, 0.5, 0.8, 0.11, 1.1), ewtF32(0.1), ewtF32(0.09, 0.01, 0.16, 0.49, 0.0001, 1.0)},
	} {
		p := dmtSqDiffParams(t, 0, 0.0025, 0.005, 0.001, 0, 0, 0, -32768, 32767)
		out := make([]int16, len(c.want))
		sqDiffInt16(p, ewtBcast(t, c.s1, c.s2, c.s1), ewtQuantize[int16](c.a, 0.0025, 0), ewtQuantize[int16](c.b, 0.005, 0), out)
		want := ewtQuantize[int16](c.want, 0.001, 0)
		for i := range want {
			if d := int32(out[i]) - int32(want[i]); d < -2 || d > 2 {
				t.Errorf("SQUARED_DIFFERENCE int16 %s: element %d: got %d, want %d", c.name, i, out[i], want[i])
			}
		}
	}
}

// TestDivmodAddN ports add_n_test.cc: three float32 and three int8 inputs
// (range -3..3), and checks that float32 sums start from +0.
func TestDivmodAddN(t *testing.T) {
	ins := [][]float32{ewtF32(-2.0, 0.2, 0.7, 0.8), ewtF32(0.1, 0.2, 0.3, 0.5), ewtF32(0.5, 0.1, 0.1, 0.2)}
	want := ewtF32(-1.4, 0.5, 1.1, 1.5)
	out := make([]float32, 4)
	addNF32Start(out)
	for _, in := range ins {
		addNF32Acc(in, out)
	}
	mathTNear(t, "ADD_N float32", ins[0], out, want, 1e-5)
	negZero := math.Float32frombits(1 << 31)
	z := []float32{negZero}
	addNF32Start(out[:1])
	addNF32Acc(z, out[:1])
	addNF32Acc(z, out[:1])
	mathTNear(t, "ADD_N float32 -0 + -0", z, out, []float32{0}, 0)

	s, zp := dmtScaleZP(-3, 3)
	m, shift, err := quant.CheckedMultiplier(float64(2*float64(s)) / (float64(1<<20) * float64(s)))
	if err != nil {
		t.Fatal(err)
	}
	p := &ewQuantParams{in1Off: -zp, outOff: zp, in1Mult: 1 << 30, in1Shift: 0, outMult: m, outShift: shift, leftShift: 20, actMin: -128, actMax: 127}
	acc := make([]int32, 4)
	addNInt8Start(p, acc)
	for _, in := range ins {
		addNInt8Acc(p, ewtQuantize[int8](in, s, zp), acc)
	}
	q := make([]int8, 4)
	addNInt8Out(p, acc, q)
	got := ewtDequantize(q, s, zp)
	tol := float64(2*s + s*s)
	for i, w := range want {
		if math.Abs(float64(got[i]-w)) > tol {
			t.Errorf("ADD_N int8: element %d: got %v, want %v", i, got[i], w)
		}
	}
}
