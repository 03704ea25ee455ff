package kernels

import (
	"math"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// Cases from TFLite Micro's tensorflow/lite/micro/kernels/
// log_softmax_test.cc: float32 within that file's tolerances (1e-5 and
// 1e-6), int8 bit for bit against its quantized goldens, with the input
// quantized from [min, max] as its test helpers do (ScaleFromMinMax,
// ZeroPointFromMinMax, Quantize) and the generation-time constants computed
// as gen/lower/log_softmax.go computes them.

// logSoftmaxTPrep mirrors PreprocessLogSoftmaxScalingExp and
// CalculateInputRadius for beta 1 and 5 integer bits.
func logSoftmaxTPrep(t *testing.T, outer, depth int, inScale float32) *logSoftmaxParams {
	t.Helper()
	real := math.Min(float64(inScale)*(1<<26), 1<<31-1.0)
	m, s := quant.Multiplier(real)
	if real <= 1 || s < 0 {
		t.Fatalf("input multiplier %v not greater than one", real)
	}
	rm, rs := quant.Multiplier(float64(int64(1)<<(31-s)) / float64(m))
	if rs > 0 {
		t.Fatalf("reverse shift %d > 0", rs)
	}
	radius := math.Floor(31 * (1 << 26) / math.Ldexp(1, s))
	return &logSoftmaxParams{outer: outer, depth: depth, inputMult: m, inputShift: s,
		reverseMult: rm, reverseShift: rs, diffMin: -int32(radius)}
}

func TestLogSoftmaxF32(t *testing.T) {
	input := []float32{0, -6, 2, 4, 3, -2, 10, 1}
	for _, tc := range []struct {
		name         string
		outer, depth int
		in, want     []float32
		tol          float64
	}{
		{"2x4", 2, 4, input, []float32{
			-4.14297, -10.14297, -2.14297, -.142971,
			-7.00104, -12.00104, -.00104087, -9.00104}, 1e-5},
		{"4x2", 4, 2, input, []float32{
			-.00247565, -6.00247, -2.12692, -.126928,
			-.00671534, -5.00671, -.000123374, -9.00012}, 1e-5},
		{"simple", 2, 5, []float32{1, 2, 3, 4, 5, -1, -2, -3, -4, -5}, []float32{
			-4.45191431, -3.45191431, -2.45191431, -1.45191443, -0.4519144,
			-0.4519144, -1.45191443, -2.45191431, -3.45191431, -4.45191431}, 1e-6},
	} {
		out := make([]float32, len(tc.in))
		logSoftmaxF32(&logSoftmaxParams{outer: tc.outer, depth: tc.depth}, tc.in, out)
		for i := range out {
			if math.Abs(float64(out[i]-tc.want[i])) > tc.tol {
				t.Errorf("%s: element %d: got %v, want %v", tc.name, i, out[i], tc.want[i])
			}
		}
	}
}

func TestLogSoftmaxInt8(t *testing.T) {
	for _, tc := range []struct {
		name         string
		outer, depth int
		lo, hi       float32
		in           []float32
		want         []int8
	}{
		{"2x4", 2, 4, -10, 10, []float32{0, -6, 2, 4, 3, -2, 10, 1}, []int8{61, -36, 93, 125, 15, -65, 127, -16}},
		{"3x1", 3, 1, -1, 1, []float32{0, -1, 1}, []int8{127, 127, 127}},
	} {
		scale := (tc.hi - tc.lo) / 255
		zp := -128 + int32(math.Round(float64(-tc.lo/scale)))
		in := make([]int8, len(tc.in))
		for i, x := range tc.in {
			in[i] = int8(clampI32(int32(math.Round(float64(x/scale)))+zp, -128, 127))
		}
		out := make([]int8, len(in))
		logSoftmaxInt8(logSoftmaxTPrep(t, tc.outer, tc.depth, scale), in, out)
		for i := range out {
			if out[i] != tc.want[i] {
				t.Errorf("%s: element %d: got %d, want %d (all %v)", tc.name, i, out[i], tc.want[i], out)
				break
			}
		}
	}
}

// TestLogSoftmaxLog checks the fixed-point logarithm against math.Log over
// its input range [1, 4096) in Q12.19 within 2^-20.
func TestLogSoftmaxLog(t *testing.T) {
	for x := int32(1 << 19); x > 0 && x < math.MaxInt32-1<<16; x += 1<<16 + 7 {
		got := float64(logSoftmaxLog(x)) / (1 << 26)
		want := math.Log(float64(x) / (1 << 19))
		if math.Abs(got-want) > 1.0/(1<<20) {
			t.Fatalf("log(%v): got %v, want %v", float64(x)/(1<<19), got, want)
		}
	}
}
