package kernels

import (
	"math"
	"testing"
)

// mathTNear checks got against TFLM's goldens within its tolerance (or
// bit for bit where exact).
func mathTNear(t *testing.T, name string, in, got, want []float32, tol float64) {
	t.Helper()
	for i, w := range want {
		g := got[i]
		ok := math.Abs(float64(g-w)) <= tol*max(1, math.Abs(float64(w)))
		if tol == 0 {
			ok = math.Float32bits(g) == math.Float32bits(w) || g != g && w != w
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
