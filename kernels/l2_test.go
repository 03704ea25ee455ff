package kernels

import (
	"math"
	"testing"
)

// Cases from TFLite Micro's tensorflow/lite/micro/kernels/l2norm_test.cc
// (float goldens exact there too, int8 bit for bit; the int8 input range
// [-2, 2] gives zero point -1) and l2_pool_2d_test.cc (float within that
// file's tolerance, 1e-5 unless it says 1e-4).

func TestL2NormF32(t *testing.T) {
	in := []float32{-1.1, 0.6, 0.7, 1.2, -0.7, 0.1}
	want := []float32{-0.55, 0.3, 0.35, 0.6, -0.35, 0.05}
	for _, rows := range []int{1, 3} {
		var x, w []float32
		for r := 0; r < rows; r++ {
			x, w = append(x, in...), append(w, want...)
		}
		out := make([]float32, len(x))
		l2NormF32(&l2NormParams{rows: rows, depth: 6}, x, out)
		for i := range w {
			if out[i] != w[i] {
				t.Fatalf("%d rows: got %v, want %v", rows, out, w)
			}
		}
	}
	out := make([]float32, 6)
	l2NormF32(&l2NormParams{rows: 1, depth: 6}, make([]float32, 6), out)
	for _, v := range out {
		if v != 0 {
			t.Fatalf("zeros: got %v", out)
		}
	}
}

func TestL2NormInt8(t *testing.T) {
	for _, c := range []struct {
		name     string
		rows     int
		in, want []int8
	}{
		{"SimpleInt8Test", 1, []int8{-71, 37, 44, 76, -46, 5}, []int8{-70, 38, 45, 77, -45, 6}},
		{"ZerosVectorInt8Test", 1, []int8{-1, -1, -1, -1, -1, -1}, []int8{0, 0, 0, 0, 0, 0}},
		{"MultipleBatchInt8Test", 3, []int8{-71, 37, 44, 76, -46, 5, -71, 37, 44, 76, -46, 5, -71, 37, 44, 76, -46, 5},
			[]int8{-70, 38, 45, 77, -45, 6, -70, 38, 45, 77, -45, 6, -70, 38, 45, 77, -45, 6}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := make([]int8, len(c.in))
			l2NormInt8(&l2NormParams{rows: c.rows, depth: 6, inZP: -1}, c.in, out)
			for i := range c.want {
				if out[i] != c.want[i] {
					t.Fatalf("got %v, want %v", out, c.want)
				}
			}
		})
	}
}

// TestL2InvSqrt: the fixed-point inverse square root is close to the real
// one over the whole input range (the multiplier is m * 2^-s / 2^31).
func TestL2InvSqrt(t *testing.T) {
	for _, acc := range []int32{2, 3, 4, 17, 1000, 65025, 1 << 20, 6*65025 + 1, 1<<29 - 1, 1 << 29, math.MaxInt32} {
		m, s := l2InvSqrt(acc)
		got := float64(m) / (1 << 31) / math.Exp2(float64(s))
		want := 1 / math.Sqrt(float64(acc))
		if math.Abs(got-want) > 1e-5*want {
			t.Errorf("acc %d: %g, want %g", acc, got, want)
		}
	}
}

func TestL2PoolF32(t *testing.T) {
	in := []float32{0, 6, 2, 4, 3, 2, 10, 7}
	inf := float32(math.Inf(1))
	for _, c := range []struct {
		name       string
		in         []float32
		same       bool
		stride     int
		lo, hi     float32
		outW, outH int
		want       []float32
		tol        float64
	}{
		{"FloatPoolingOpTestL2Pool", in, false, 2, -inf, inf, 2, 1, []float32{3.5, 6.5}, 1e-5},
		{"FloatPoolingOpTestL2PoolActivationRelu", []float32{-1, -6, 2, 4, -3, -2, 10, 7}, false, 2, 0, inf, 2, 1, []float32{3.53553, 6.5}, 1e-5},
		{"FloatPoolingOpTestL2PoolActivationRelu1", []float32{-0.1, -0.6, 2, 4, -0.3, -0.2, 10, 7}, false, 2, -1, 1, 2, 1, []float32{0.353553, 1}, 1e-5},
		{"FloatPoolingOpTestL2PoolActivationRelu6", []float32{-0.1, -0.6, 2, 4, -0.3, -0.2, 10, 7}, false, 2, 0, 6, 2, 1, []float32{0.353553, 6}, 1e-5},
		{"FloatPoolingOpTestL2PoolPaddingSame", in, true, 2, -inf, inf, 2, 1, []float32{3.5, 6.5}, 1e-5},
		{"FloatPoolingOpTestL2PoolPaddingSameStride1", in, true, 1, -inf, inf, 4, 2, []float32{3.5, 6, 6.5, 5.70088, 2.54951, 7.2111, 8.63134, 7}, 1e-4},
		{"FloatPoolingOpTestL2PoolPaddingValidStride1", in, false, 1, -inf, inf, 3, 1, []float32{3.5, 6, 6.5}, 1e-5},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &poolParams{batches: 1, inH: 2, inW: 4, depth: 1, outH: c.outH, outW: c.outW,
				strideH: c.stride, strideW: c.stride, filterH: 2, filterW: 2, fActMin: c.lo, fActMax: c.hi}
			// SAME padding with a 2x2 filter pads at the end only (padding
			// before is 0 for these sizes).
			out := make([]float32, len(c.want))
			l2PoolF32(p, c.in, out)
			for i := range c.want {
				if math.Abs(float64(out[i]-c.want[i])) > c.tol {
					t.Fatalf("got %v, want %v", out, c.want)
				}
			}
		})
	}
}
