package kernels

import (
	"math"
	"testing"
)

// argMinMaxQuant quantizes float values as TFLM's test helpers do
// (round half away from zero, then add the zero point).
func argMinMaxQuant(v []float32, scale float32, zp int) []int8 {
	out := make([]int8, len(v))
	for i, x := range v {
		out[i] = int8(int(math.Round(float64(x/scale))) + zp)
	}
	return out
}

// Cases from tensorflow/lite/micro/kernels/arg_min_max_test.cc. The input
// is described as outer x axis x inner, which is what the generator derives
// from the shape and the (possibly negative) axis.
func TestArgMinMaxTFLM(t *testing.T) {
	tests := []struct {
		name   string
		p      argMinMaxParams
		in     []float32
		float  bool
		golden []int32
	}{
		// GetMaxArgFloat: shape {1,1,1,4}, axis 3.
		{"GetMaxArgFloat", argMinMaxParams{outer: 1, axis: 4, inner: 1}, []float32{0.1, 0.9, 0.7, 0.3}, true, []int32{1}},
		// GetMinArgFloat.
		{"GetMinArgFloat", argMinMaxParams{outer: 1, axis: 4, inner: 1, isMin: true}, []float32{0.1, 0.9, 0.7, 0.3}, true, []int32{0}},
		// GetMaxArgInt8: scale 0.5, zero point -9.
		{"GetMaxArgInt8", argMinMaxParams{outer: 1, axis: 4, inner: 1}, []float32{1, 9, 7, 3}, false, []int32{1}},
		{"GetMinArgInt8", argMinMaxParams{outer: 1, axis: 4, inner: 1, isMin: true}, []float32{1, 9, 7, 3}, false, []int32{0}},
		// GetMaxArgMulDimensions: shape {1,1,2,4}, axis 3.
		{"GetMaxArgMulDimensions", argMinMaxParams{outer: 2, axis: 4, inner: 1}, []float32{1, 2, 7, 8, 1, 9, 7, 3}, false, []int32{3, 1}},
		{"GetMinArgMulDimensions", argMinMaxParams{outer: 2, axis: 4, inner: 1, isMin: true}, []float32{1, 2, 7, 8, 1, 9, 7, 3}, false, []int32{0, 0}},
		// GetMaxArgNegativeAxis: shape {1,1,2,4}, axis -2 = 2; ties keep the first index.
		{"GetMaxArgNegativeAxis", argMinMaxParams{outer: 1, axis: 2, inner: 4}, []float32{1, 2, 7, 8, 1, 9, 7, 3}, false, []int32{0, 1, 0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got32 := make([]int32, len(tc.golden))
			got64 := make([]int64, len(tc.golden))
			if tc.float {
				argMinMaxF32I32(&tc.p, tc.in, got32)
				argMinMaxF32I64(&tc.p, tc.in, got64)
			} else {
				q := argMinMaxQuant(tc.in, 0.5, -9)
				argMinMaxI8I32(&tc.p, q, got32)
				argMinMaxI8I64(&tc.p, q, got64)
				// The same values as int16 must give the same indices.
				q16 := make([]int16, len(q))
				for i, v := range q {
					q16[i] = int16(v) * 100
				}
				g16 := make([]int32, len(tc.golden))
				argMinMaxI16I32(&tc.p, q16, g16)
				g16w := make([]int64, len(tc.golden))
				argMinMaxI16I64(&tc.p, q16, g16w)
				for i := range tc.golden {
					if g16[i] != tc.golden[i] || g16w[i] != int64(tc.golden[i]) {
						t.Errorf("int16 out[%d] = %d/%d, want %d", i, g16[i], g16w[i], tc.golden[i])
					}
				}
			}
			for i := range tc.golden {
				if got32[i] != tc.golden[i] || got64[i] != int64(tc.golden[i]) {
					t.Errorf("out[%d] = %d/%d, want %d", i, got32[i], got64[i], tc.golden[i])
				}
			}
		})
	}
}

// NaN handling follows the reference comparator in
// tensorflow/lite/kernels/internal/reference/arg_min_max.h: a NaN candidate
// never wins and any number replaces a NaN current value.
func TestArgMinMaxF32NaN(t *testing.T) {
	nan := float32(math.NaN())
	tests := []struct {
		name  string
		isMin bool
		in    []float32
		want  int32
	}{
		{"MaxFirstNaN", false, []float32{nan, 1, 3, 2}, 2},
		{"MinFirstNaN", true, []float32{nan, 1, 3, 0}, 3},
		{"MaxNaNInside", false, []float32{1, nan, 0, 5}, 3},
		{"MaxAllNaN", false, []float32{nan, nan}, 0},
		{"MaxNegInf", false, []float32{float32(math.Inf(-1)), -1e30}, 1},
		{"MinTieFirst", true, []float32{2, -1, -1}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := argMinMaxParams{outer: 1, axis: len(tc.in), inner: 1, isMin: tc.isMin}
			out := make([]int32, 1)
			argMinMaxF32I32(&p, tc.in, out)
			if out[0] != tc.want {
				t.Errorf("got %d, want %d", out[0], tc.want)
			}
		})
	}
}

// Int16 extremes: values at the type limits compare correctly.
func TestArgMinMaxI16Limits(t *testing.T) {
	in := []int16{-32768, 32767, 0, 32767, -32768, -32768}
	p := argMinMaxParams{outer: 1, axis: 3, inner: 2} // shape {3,2}, axis 0
	out := make([]int32, 2)
	argMinMaxI16I32(&p, in, out)
	if out[0] != 1 || out[1] != 0 {
		t.Errorf("max = %v, want [1 0]", out)
	}
	p.isMin = true
	argMinMaxI16I32(&p, in, out)
	if out[0] != 0 || out[1] != 2 {
		t.Errorf("min = %v, want [0 2]", out)
	}
}
