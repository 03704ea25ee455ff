package kernels

import (
	"math"
	"testing"
)

// mathTNear checks got against TFLM's goldens: equal bits (any NaN for
// NaN), else within tol relative (at least tol absolute); tol 0 asks for
// the bits.
func mathTNear(t *testing.T, name string, in, got, want []float32, tol float64) {
	t.Helper()
	for i, w := range want {
		g := got[i]
		ok := math.Float32bits(g) == math.Float32bits(w) || g != g && w != w
		if !ok && tol > 0 {
			ok = math.Abs(float64(g-w)) <= tol*max(1, math.Abs(float64(w)))
		}
		if !ok {
			t.Errorf("%s: element %d (input %v): got %v (%#x), want %v (%#x)", name, i, in[i], g, math.Float32bits(g), w, math.Float32bits(w))
		}
	}
}

// TestMathRounding ports floor_test.cc, ceil_test.cc and round_test.cc
// (their inputs and goldens) and adds the exact bits of signed zeros,
// infinities, NaN and values beyond 2^23.
func TestMathRounding(t *testing.T) {
	negZero := math.Float32frombits(1 << 31)
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	for _, c := range []struct {
		name     string
		fn       func(in, out []float32)
		in, want []float32
		tol      float64
	}{
		{"floor single", floorF32, []float32{8.5, 0}, []float32{8, 0}, 1e-5},
		{"floor multi", floorF32,
			[]float32{0.0001, 8.0001, 0.9999, 9.9999, 0.5, -0.0001, -8.0001, -0.9999, -9.9999, -0.5},
			[]float32{0, 8, 0, 9, 0, -1, -9, -1, -10, -1}, 1e-5},
		{"ceil single", ceilF32, []float32{8.5, 0}, []float32{9, 0}, 1e-5},
		{"ceil multi", ceilF32,
			[]float32{0.0001, 8.0001, 0.9999, 9.9999, 0.5, -0.0001, -8.0001, -0.9999, -9.9999, -0.5},
			[]float32{1, 9, 1, 10, 1, 0, -8, 0, -9, 0}, 1e-5},
		{"round single", roundF32, []float32{8.5, 0, 3.5, 4.2, -3.5, -4.5}, []float32{8, 0, 4, 4, -4, -4}, 1e-5},
		{"round multi", roundF32,
			[]float32{0.0001, 8.0001, 0.9999, 9.9999, 0.5, -0.0001, -8.0001, -0.9999, -9.9999, -0.5, -2.5, 1.5},
			[]float32{0, 8, 1, 10, 0, 0, -8, -1, -10, 0, -2, 2}, 1e-5},
		// Exact bits: the sign of zero results and the specials.
		{"floor special", floorF32, []float32{negZero, -0.5, inf, -inf, nan, 1e30}, []float32{negZero, -1, inf, -inf, nan, 1e30}, 0},
		{"ceil special", ceilF32, []float32{-0.5, negZero, inf, -inf, nan, 8388609}, []float32{negZero, negZero, inf, -inf, nan, 8388609}, 0},
		{"round special", roundF32,
			[]float32{-0.5, -0.3, negZero, 0.5, 2.5, -2.5, 8388607.5, 1e30, inf, -inf, nan},
			[]float32{0, 0, negZero, 0, 2, -2, 8388608, 1e30, inf, -inf, nan}, 0},
	} {
		out := make([]float32, len(c.in)+1)
		out[len(c.in)] = 23
		c.fn(c.in, out)
		if out[len(c.in)] != 23 {
			t.Errorf("%s: wrote past the input length", c.name)
		}
		mathTNear(t, c.name, c.in, out, c.want, c.tol)
	}
}

// TestMathTranscendental ports the float32 cases of exp_test.cc,
// elementwise_test.cc (SIN, COS, LOG) and elu_test.cc within their
// tolerances, and checks the IEEE special values exactly.
func TestMathTranscendental(t *testing.T) {
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	negZero := math.Float32frombits(1 << 31)
	for _, c := range []struct {
		name     string
		fn       func(in, out []float32)
		in, want []float32
		tol      float64
	}{
		{"exp", expF32, ewtF32(0, 1, -1, 100, -100, 0.01, -0.01), []float32{1, 2.71828, 0.36788, inf, 3.7200760e-44, 1.01005, 0.99005}, 1e-5},
		{"sin", sinF32, ewtF32(0, 3.1415926, -3.1415926, 1), ewtF32(0, 0, 0, 0.84147), 1e-5},
		{"cos", cosF32, ewtF32(0, 3.1415926, -3.1415926, 1), ewtF32(1, -1, -1, 0.54030), 1e-5},
		{"log", logF32, ewtF32(1, 2.7182818, 0.5, 2), ewtF32(0, 1, -0.693147, 0.693147), 1e-5},
		{"elu", eluF32, ewtF32(0, -6, 2, -4, 3, -2, 10, -0.1), ewtF32(0.0, -0.997521, 2.0, -0.981684, 3.0, -0.864665, 10.0, -0.0951626), 1e-5},
		{"exp special", expF32, []float32{inf, -inf, nan, negZero, 89}, []float32{inf, 0, nan, 1, inf}, 0},
		{"log special", logF32, []float32{0, negZero, -1, inf, nan, 1}, []float32{-inf, -inf, nan, inf, nan, 0}, 0},
		{"sin special", sinF32, []float32{inf, -inf, nan, negZero}, []float32{nan, nan, nan, negZero}, 0},
		{"cos special", cosF32, []float32{inf, nan, negZero}, []float32{nan, nan, 1}, 0},
		{"elu special", eluF32, []float32{-inf, inf, nan, negZero}, []float32{-1, inf, nan, negZero}, 0},
	} {
		out := make([]float32, len(c.in)+1)
		out[len(c.in)] = 23
		c.fn(c.in, out)
		if out[len(c.in)] != 23 {
			t.Errorf("%s: wrote past the input length", c.name)
		}
		mathTNear(t, c.name, c.in, out, c.want, c.tol)
	}
}
