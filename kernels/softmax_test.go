package kernels

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// Cases ported from TFLite Micro's tensorflow/lite/micro/kernels/
// softmax_test.cc: beta 1, inputs quantized with scale 0.1 and zero point
// 0, outputs compared with the float goldens quantized with the output
// parameters, within that file's tolerances (float 1e-5, int8 and
// int8->int16 1, int16 1 or 7). The generation-time constants (input
// multiplier, diff_min, int16 lookup tables) are computed as
// gen/lower_softmax.go computes them.

type softmaxTCase struct {
	name          string
	outer, depth  int
	input, golden []float32
	tol16         int32 // tolerance of the int16 -> int16 TEST
}

var softmaxTInputData1d = []float32{1.0, 2.0, 3.0, 4.0, 5.0}

var softmaxTGolden1d = []float32{0.011656231, 0.031684921, 0.086128544, 0.234121657, 0.636408647}

var softmaxTInputData2d = []float32{1.0, 2.0, 3.0, 4.0, 5.0, -1.0, -2.0, -3.0, -4.0, -5.0}

var softmaxTGolden2d = []float32{
	0.011656231, 0.031684921, 0.086128544, 0.234121657, 0.636408647,
	0.636408647, 0.234121657, 0.086128544, 0.031684921, 0.011656231,
}

var softmaxTCases = []softmaxTCase{
	{"1D", 1, 5, softmaxTInputData1d, softmaxTGolden1d, 1},
	{"2D", 2, 5, softmaxTInputData2d, softmaxTGolden2d, 1},
	{"3D", 12, 5, softmaxTInputData3d, softmaxTGolden3d, 7},
	{"4D", 24, 5, softmaxTInputData4d, softmaxTGolden4d, 7},
}

// softmaxTPrepInt8 mirrors PreprocessSoftmaxScaling and
// CalculateInputRadius for 5 integer bits of scaled difference.
func softmaxTPrepInt8(t *testing.T, outer, depth int, inScale, beta float32) *softmaxParams {
	t.Helper()
	real := math.Min(float64(beta)*float64(inScale)*(1<<26), 1<<31-1.0)
	m, s := quant.Multiplier(real)
	if real <= 1 || s < 0 {
		t.Fatalf("input multiplier %v not greater than one", real)
	}
	radius := math.Floor(31 * (1 << 26) / math.Ldexp(1, s))
	return &softmaxParams{outer: outer, depth: depth, inputMult: m, inputShift: s, diffMin: -int32(radius)}
}

// softmaxTLUT mirrors LUTPopulate<int16_t> (detail::LUTPopulateInt16 with
// float arithmetic): 512 interpolation steps plus the end point, each
// sample biased by half the interpolation error at the step's midpoint.
// Products are converted explicitly so that no fused multiply-add is used.
func softmaxTLUT(inScale float32, inZP int32, outScale float32, outZP int32, f func(float32) float32) string {
	inMin := inScale * float32(-32768-inZP)
	inMax := inScale * float32(32767-inZP)
	outMin := outScale * float32(-32768-outZP)
	outMax := outScale * float32(32767-outZP)
	step := (inMax - inMin) / 512
	half := step / 2
	inv := float32(65536) / (outMax - outMin)
	round := func(x float32) float32 { return float32(math.Round(float64(x))) }
	clamp := func(x float32) int16 { return int16(min(max(x, -32768), 32767)) }
	b := make([]byte, 2*513)
	for i := 0; i < 512; i++ {
		x := inMin + float32(float32(i)*step)
		val := f(x)
		mid := f(x + half)
		next := f(inMin + float32(float32(i+1)*step))
		sample := round(float32(val * inv))
		interp := round((float32(next*inv) + sample) / 2)
		bias := round((interp - round(float32(mid*inv))) / 2)
		binary.LittleEndian.PutUint16(b[2*i:], uint16(clamp(sample-bias)))
	}
	binary.LittleEndian.PutUint16(b[1024:], uint16(clamp(round(float32(f(inMax)*inv)))))
	return string(b)
}

// softmaxTPrepInt16 returns the params and the exp and 1/(1+x) tables of
// an int16 softmax (CalculateSoftmaxParams / InitializeLutForInt16).
func softmaxTPrepInt16(outer, depth int, inScale, beta float32) (*softmaxParams, string, string) {
	m, s := quant.Multiplier(float64(inScale) * float64(beta) / (10.0 / 65535.0))
	const rng = 65535
	expLUT := softmaxTLUT(10.0/rng, 32767, 2.0/rng, 0, func(x float32) float32 {
		return float32(math.Exp(float64(x)))
	})
	recipLUT := softmaxTLUT(1.0/rng, -32768, 2.0/rng, 0, func(x float32) float32 { return 1 / (1 + x) })
	return &softmaxParams{outer: outer, depth: depth, inputMult: m, inputShift: s}, expLUT, recipLUT
}

func softmaxTCompare(t *testing.T, got []int32, golden []float32, scale float32, zp, lo, hi, tol int32) {
	t.Helper()
	want := fcTQuantize(golden, scale, zp, lo, hi)
	for i := range want {
		if d := got[i] - want[i]; d > tol || d < -tol {
			t.Fatalf("output %d = %d, want %d (tolerance %d)\ngot  %v\nwant %v", i, got[i], want[i], tol, got, want)
		}
	}
}

func TestSoftmaxF32(t *testing.T) {
	for _, c := range softmaxTCases {
		t.Run("Softmax"+c.name+"FloatShouldMatchGolden", func(t *testing.T) {
			out := make([]float32, len(c.golden))
			softmaxF32(&softmaxParams{outer: c.outer, depth: c.depth, beta: 1}, c.input, out)
			for i, g := range c.golden {
				if math.Abs(float64(out[i]-g)) > 1e-5 {
					t.Fatalf("output %d = %v, want %v", i, out[i], g)
				}
			}
		})
	}
}

func TestSoftmaxInt8(t *testing.T) {
	for _, c := range softmaxTCases {
		t.Run("Softmax"+c.name+"QuantizedInt8ShouldMatchGolden", func(t *testing.T) {
			p := softmaxTPrepInt8(t, c.outer, c.depth, 0.1, 1)
			in := make([]int8, len(c.input))
			for i, v := range fcTQuantize(c.input, 0.1, 0, -128, 127) {
				in[i] = int8(v)
			}
			out := make([]int8, len(in))
			softmaxInt8(p, in, out, make([]int32, c.depth))
			got := make([]int32, len(out))
			for i, v := range out {
				got[i] = int32(v)
			}
			softmaxTCompare(t, got, c.golden, 1.0/256, -128, -128, 127, 1)
		})
	}
}

func TestSoftmaxInt8Int16(t *testing.T) {
	c := softmaxTCases[1]
	t.Run("Softmax2DQuantizedInt8InputInt16OutputShouldMatchGolden", func(t *testing.T) {
		p := softmaxTPrepInt8(t, c.outer, c.depth, 0.1, 1)
		in := make([]int8, len(c.input))
		for i, v := range fcTQuantize(c.input, 0.1, 0, -128, 127) {
			in[i] = int8(v)
		}
		out := make([]int16, len(in))
		softmaxInt8Int16(p, in, out, make([]int32, c.depth))
		got := make([]int32, len(out))
		for i, v := range out {
			got[i] = int32(v)
		}
		softmaxTCompare(t, got, c.golden, 1.0/65536, -32768, -32768, 32767, 1)
	})
}

func TestSoftmaxInt16(t *testing.T) {
	for _, c := range softmaxTCases {
		t.Run("Softmax"+c.name+"QuantizedInt16ShouldMatchGolden", func(t *testing.T) {
			p, expLUT, recipLUT := softmaxTPrepInt16(c.outer, c.depth, 0.1, 1)
			in := make([]int16, len(c.input))
			for i, v := range fcTQuantize(c.input, 0.1, 0, -32768, 32767) {
				in[i] = int16(v)
			}
			out := make([]int16, len(in))
			softmaxInt16(p, in, out, expLUT, recipLUT)
			got := make([]int32, len(out))
			for i, v := range out {
				got[i] = int32(v)
			}
			softmaxTCompare(t, got, c.golden, 1.0/32768, 0, -32768, 32767, c.tol16)
		})
	}
}

// TestSoftmaxFixedPoint checks the gemmlowp-style helpers against the
// functions they approximate: exp on Q5.26 inputs and 1/(1+x) on Q0.31,
// within the error of the fourth-order Taylor step (about 2.5e-7).
func TestSoftmaxFixedPoint(t *testing.T) {
	for x := int32(0); x > -32<<26 && x <= 0; x -= 1<<20 + 12345 {
		got := float64(softmaxExpNeg(x)) / (1 << 31)
		want := math.Exp(float64(x) / (1 << 26))
		if math.Abs(got-want) > 1e-6 {
			t.Fatalf("exp(%v) = %v, want %v", float64(x)/(1<<26), got, want)
		}
	}
	for a := int32(0); a >= 0; a += 1<<24 + 777 {
		got := float64(softmaxRecip(a)) / (1 << 31)
		want := 1 / (1 + float64(a)/(1<<31))
		if math.Abs(got-want) > 1e-6 {
			t.Fatalf("1/(1+%v) = %v, want %v", float64(a)/(1<<31), got, want)
		}
	}
}

var softmaxTInputData3d = []float32{
	3.00, 6.00, -5.00, 4.00, -9.00,
	-10.00, -10.00, -8.00, 2.00, 2.00,
	8.00, -5.00, -8.00, 5.00, -6.00,
	-8.00, 6.00, 1.00, -10.00, -8.00,
	7.00, 6.00, -10.00, -4.00, -5.00,
	2.00, 7.00, 9.00, -9.00, 7.00,
	-4.00, -2.00, 8.00, 2.00, 2.00,
	3.00, 6.00, 6.00, 2.00, 4.00,
	9.00, 7.00, -7.00, 0.00, 4.00,
	-3.00, 8.00, 8.00, -3.00, -4.00,
	-9.00, -9.00, 4.00, -8.00, -1.00,
	-10.00, -2.00, 6.00, -7.00, 0.00,
}

var softmaxTGolden3d = []float32{
	0.042009463, 0.843782625, 0.000014093, 0.114193561, 0.000000258,
	0.000003072, 0.000003072, 0.000022699, 0.499985578, 0.499985578,
	0.952571219, 0.000002153, 0.000000107, 0.047425728, 0.000000792,
	0.000000826, 0.993305397, 0.006692839, 0.000000112, 0.000000826,
	0.731046347, 0.268936922, 0.000000030, 0.000012210, 0.000004492,
	0.000717124, 0.106430599, 0.786421666, 0.000000012, 0.106430599,
	0.000006114, 0.000045174, 0.995015917, 0.002466398, 0.002466398,
	0.022595176, 0.453836234, 0.453836234, 0.008312301, 0.061420055,
	0.875505904, 0.118486839, 0.000000099, 0.000108046, 0.005899112,
	0.000008351, 0.499990113, 0.499990113, 0.000008351, 0.000003072,
	0.000002245, 0.000002245, 0.993296627, 0.000006103, 0.006692780,
	0.000000112, 0.000334520, 0.997191323, 0.000002254, 0.002471790,
}

var softmaxTInputData4d = []float32{
	3.00, 6.00, -5.00, 4.00, -9.00,
	-10.00, -10.00, -8.00, 2.00, 2.00,
	8.00, -5.00, -8.00, 5.00, -6.00,
	-8.00, 6.00, 1.00, -10.00, -8.00,
	7.00, 6.00, -10.00, -4.00, -5.00,
	2.00, 7.00, 9.00, -9.00, 7.00,
	-4.00, -2.00, 8.00, 2.00, 2.00,
	3.00, 6.00, 6.00, 2.00, 4.00,
	9.00, 7.00, -7.00, 0.00, 4.00,
	-3.00, 8.00, 8.00, -3.00, -4.00,
	-9.00, -9.00, 4.00, -8.00, -1.00,
	-10.00, -2.00, 6.00, -7.00, 0.00,
	-9.00, -8.00, 6.00, -1.00, -5.00,
	-10.00, -5.00, -10.00, 7.00, -2.00,
	-5.00, -4.00, 1.00, 2.00, 2.00,
	-2.00, -2.00, 1.00, 1.00, -4.00,
	-8.00, -3.00, 1.00, 1.00, -1.00,
	-2.00, 6.00, -1.00, -5.00, 6.00,
	-7.00, 8.00, 9.00, 0.00, 9.00,
	-9.00, -5.00, -2.00, 0.00, 8.00,
	4.00, 2.00, -3.00, 5.00, 8.00,
	-1.00, 1.00, -4.00, -9.00, 7.00,
	3.00, -8.00, 0.00, 9.00, -4.00,
	8.00, -1.00, 9.00, -9.00, 1.00,
}

var softmaxTGolden4d = []float32{
	0.042009463, 0.843782625, 0.000014093, 0.114193561, 0.000000258,
	0.000003072, 0.000003072, 0.000022699, 0.499985578, 0.499985578,
	0.952571219, 0.000002153, 0.000000107, 0.047425728, 0.000000792,
	0.000000826, 0.993305397, 0.006692839, 0.000000112, 0.000000826,
	0.731046347, 0.268936922, 0.000000030, 0.000012210, 0.000004492,
	0.000717124, 0.106430599, 0.786421666, 0.000000012, 0.106430599,
	0.000006114, 0.000045174, 0.995015917, 0.002466398, 0.002466398,
	0.022595176, 0.453836234, 0.453836234, 0.008312301, 0.061420055,
	0.875505904, 0.118486839, 0.000000099, 0.000108046, 0.005899112,
	0.000008351, 0.499990113, 0.499990113, 0.000008351, 0.000003072,
	0.000002245, 0.000002245, 0.993296627, 0.000006103, 0.006692780,
	0.000000112, 0.000334520, 0.997191323, 0.000002254, 0.002471790,
	0.000000306, 0.000000831, 0.999071142, 0.000911035, 0.000016686,
	0.000000041, 0.000006143, 0.000000041, 0.999870380, 0.000123394,
	0.000384554, 0.001045327, 0.155140254, 0.421714933, 0.421714933,
	0.023637081, 0.023637081, 0.474763454, 0.474763454, 0.003198931,
	0.000057299, 0.008503973, 0.464301197, 0.464301197, 0.062836334,
	0.000167625, 0.499684188, 0.000455653, 0.000008346, 0.499684188,
	0.000000048, 0.155354299, 0.422296769, 0.000052116, 0.422296769,
	0.000000041, 0.000002259, 0.000045383, 0.000335334, 0.999616982,
	0.017107856, 0.002315297, 0.000015600, 0.046503973, 0.934057274,
	0.000334516, 0.002471755, 0.000016655, 0.000000112, 0.997176963,
	0.002472313, 0.000000041, 0.000123089, 0.997402302, 0.000002254,
	0.268866557, 0.000033181, 0.730855076, 0.000000011, 0.000245175,
}
