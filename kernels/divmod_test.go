package kernels

import (
	"math"
	"testing"
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
