package kernels

import (
	"math"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// Cases from TFLite Micro's tensorflow/lite/micro/kernels/reduce_test.cc
// (the Max, Min, Sum and All TESTs). keep_dims only shapes the output, so
// each KeepDims/NotKeepDims pair with the same axes is one case. The
// quantized inputs and goldens are the file's floats quantized with its
// scales (round half away from zero); its tolerance for SUM is 1, but the
// results here are exact.

var reduceTData24 = []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
	13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24}

func TestReduceMaxMinF32(t *testing.T) {
	for _, c := range []struct {
		name   string
		max    bool
		shape  []int
		axes   []int
		golden []float32
	}{
		{"FloatMaxOpTestNotKeepDims", true, []int{4, 3, 2}, []int{1, 0, -3, -3}, []float32{23, 24}},
		{"FloatMaxOpTestKeepDims", true, []int{4, 3, 2}, []int{0, 2}, []float32{20, 22, 24}},
		{"FloatMinOpTestNotKeepDims", false, []int{4, 3, 2}, []int{1, 0, -3, -3}, []float32{1, 2}},
		{"FloatMinOpTestKeepDims", false, []int{4, 3, 2}, []int{0, 2}, []float32{1, 3, 5}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := meanTPrep(t, c.shape, c.axes, 0, 0, 0, 0)
			out := make([]float32, p.nOut)
			if c.max {
				reduceMaxF32(p, reduceTData24, out)
			} else {
				reduceMinF32(p, reduceTData24, out)
			}
			for i := range c.golden {
				if out[i] != c.golden[i] {
					t.Fatalf("got %v, want %v", out, c.golden)
				}
			}
		})
	}
}

// TestReduceMaxMinSpecials: TFLM's starting values and comparisons (NaN
// skipped, results never beyond the largest finite float).
func TestReduceMaxMinSpecials(t *testing.T) {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	p := meanTPrep(t, []int{3, 2}, []int{0}, 0, 0, 0, 0)
	in := []float32{-inf, inf, nan, nan, -inf, 1}
	out := make([]float32, 2)
	reduceMaxF32(p, in, out)
	if out[0] != -math.MaxFloat32 || out[1] != inf {
		t.Errorf("max: got %v", out)
	}
	reduceMinF32(p, in, out)
	if out[0] != -inf || out[1] != 1 {
		t.Errorf("min: got %v", out)
	}
	in = []float32{inf, nan, nan, nan, inf, nan}
	reduceMinF32(p, in, out)
	if out[0] != math.MaxFloat32 || out[1] != math.MaxFloat32 {
		t.Errorf("min: got %v", out)
	}
}

// reduceTQuant quantizes as tflite::Quantize does (round half away from
// zero, saturated).
func reduceTQuant(v []float32, scale float32, zp int32, lo, hi int32) []int32 {
	q := make([]int32, len(v))
	for i, x := range v {
		q[i] = min(max(int32(math.Round(float64(x/scale)))+zp, lo), hi)
	}
	return q
}

func TestReduceMaxMinInt8(t *testing.T) {
	in := []float32{0.4, 0.2, 0.3, 0.4, 0.5, 0.6}
	scale := float32(2 / 255.0)
	for _, c := range []struct {
		name   string
		max    bool
		golden []float32
	}{
		{"Int8MaxOpTest", true, []float32{0.5, 0.6}},
		{"Int8MinOpTest", false, []float32{0.3, 0.2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := meanTPrep(t, []int{1, 3, 2}, []int{1}, 0, 0, 0, 0)
			q := reduceTQuant(in, scale, 0, -128, 127)
			qi := make([]int8, len(q))
			for i, v := range q {
				qi[i] = int8(v)
			}
			out := make([]int8, p.nOut)
			if c.max {
				reduceMaxInt8(p, qi, out)
			} else {
				reduceMinInt8(p, qi, out)
			}
			want := reduceTQuant(c.golden, scale, 0, -128, 127)
			for i := range want {
				if int32(out[i]) != want[i] {
					t.Fatalf("got %v, want %v", out, want)
				}
			}
		})
	}
}

// sumTPrep is meanTPrep with SUM's requantization: the input/output scale
// ratio alone, no 1/count.
func sumTPrep(t *testing.T, shape []int, axes []int, inScale float32, inZP int32, outScale float32, outZP int32) *meanParams {
	p := meanTPrep(t, shape, axes, inScale, inZP, outScale, outZP)
	p.mult, p.shift = quant.Multiplier(float64(inScale) / float64(outScale))
	return p
}

func TestReduceSum(t *testing.T) {
	for _, c := range []struct {
		name            string
		shape, axes     []int
		in, golden      []float32
		inScale, outSc  float32
		withQuantized16 bool
	}{
		{"Sum2D", []int{2, 4}, []int{1}, reduceTData24[:8], []float32{10, 26}, 0.5, 0.5, true},
		{"Sum3D", []int{2, 2, 2}, []int{1, 2}, reduceTData24[:8], []float32{10, 26}, 0.5, 0.5, true},
		{"Sum4D", []int{2, 2, 3, 2}, []int{1, 2}, reduceTData24, []float32{36, 42, 108, 114}, 0.5, 0.5, true},
		{"SumInt164DWithoutKeepDimsDifferentScaleAndZeroPoint", []int{2, 2, 3, 2}, []int{1, 2}, reduceTData24, []float32{36, 42, 108, 114}, 0.5, 0.7, true},
		{"SumFloatFlatten2ReduceDims", []int{4, 3, 2}, []int{2, 1}, reduceTData24, []float32{21, 57, 93, 129}, 0, 0, false},
		{"SumFloatFlatten2NonReduceDims", []int{4, 3, 2}, []int{2}, reduceTData24, []float32{3, 7, 11, 15, 19, 23, 27, 31, 35, 39, 43, 47}, 0, 0, false},
		{"SumFloat2DRedundantDims", []int{1, 2, 4}, []int{1}, reduceTData24[:8], []float32{6, 8, 10, 12}, 0, 0, false},
		{"SumFloatSize1", []int{1}, []int{0}, []float32{1}, []float32{1}, 0, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := meanTPrep(t, c.shape, c.axes, 0, 0, 0, 0)
			p.count = 1 // SUM runs the float mean with count 1
			out := make([]float32, p.nOut)
			meanF32(p, c.in, out)
			for i := range c.golden {
				if out[i] != c.golden[i] {
					t.Fatalf("float: got %v, want %v", out, c.golden)
				}
			}
			if !c.withQuantized16 {
				return
			}
			for _, bits16 := range []bool{false, true} {
				if c.outSc != c.inScale && !bits16 {
					continue
				}
				lo, hi := int32(-128), int32(127)
				if bits16 {
					lo, hi = -32768, 32767
				}
				p := sumTPrep(t, c.shape, c.axes, c.inScale, 0, c.outSc, 0)
				q := reduceTQuant(c.in, c.inScale, 0, lo, hi)
				want := reduceTQuant(c.golden, c.outSc, 0, lo, hi)
				acc := make([]int32, p.nOut)
				got := make([]int32, p.nOut)
				if bits16 {
					in, out := make([]int16, len(q)), make([]int16, p.nOut)
					for i, v := range q {
						in[i] = int16(v)
					}
					meanInt16(p, in, acc, out)
					for i, v := range out {
						got[i] = int32(v)
					}
				} else {
					in, out := make([]int8, len(q)), make([]int8, p.nOut)
					for i, v := range q {
						in[i] = int8(v)
					}
					meanInt8(p, in, acc, out)
					for i, v := range out {
						got[i] = int32(v)
					}
				}
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("int16 %v: got %v, want %v", bits16, got, want)
					}
				}
			}
		})
	}
}

func TestReduceAll(t *testing.T) {
	in := []uint8{1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1}
	for _, c := range []struct {
		name   string
		axes   []int
		golden []uint8
	}{
		{"AllOpTestNotKeepDims", []int{1, 0, -3, -3}, []uint8{1, 0}},
		{"AllOpTestKeepDims", []int{0, 2}, []uint8{1, 1, 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := meanTPrep(t, []int{2, 3, 2}, c.axes, 0, 0, 0, 0)
			out := make([]uint8, p.nOut)
			reduceAll(p, in, out)
			for i := range c.golden {
				if out[i] != c.golden[i] {
					t.Fatalf("got %v, want %v", out, c.golden)
				}
			}
		})
	}
}

// Cases from TFLite Micro's cumsum_test.cc: float exact, int8 within that
// file's tolerance (two quantization steps) with its symmetric ranges
// (zero point 0).
func TestCumsum(t *testing.T) {
	in := []float32{1, 2, 3, 4, 5, 6, 7, 8}
	for _, c := range []struct {
		name           string
		shape          []int
		axis           int
		exclusive, rev bool
		want           []float32
		rangeMax       float32
	}{
		{"CumSumOpTestSimpleTest", []int{2, 4}, 1, false, false, []float32{1, 3, 6, 10, 5, 11, 18, 26}, 26},
		{"CumSumOpTestSimpleAxis0Test", []int{2, 4}, 0, false, false, []float32{1, 2, 3, 4, 6, 8, 10, 12}, 12},
		{"CumSumOpTestSimple1DTest", []int{8}, 0, false, false, []float32{1, 3, 6, 10, 15, 21, 28, 36}, 36},
		{"CumSumOpTestSimpleReverseTest", []int{2, 4}, 1, false, true, []float32{10, 9, 7, 4, 26, 21, 15, 8}, 26},
		{"CumSumOpTestSimpleExclusiveTest", []int{2, 4}, 1, true, false, []float32{0, 1, 3, 6, 0, 5, 11, 18}, 18},
		{"CumSumOpTestSimpleReverseExclusiveTest", []int{2, 4}, 1, true, true, []float32{9, 7, 4, 0, 21, 15, 8, 0}, 21},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &cumsumParams{outer: 1, depth: c.shape[c.axis], inner: 1, exclusive: c.exclusive, reverse: c.rev}
			for d := 0; d < c.axis; d++ {
				p.outer *= c.shape[d]
			}
			for d := c.axis + 1; d < len(c.shape); d++ {
				p.inner *= c.shape[d]
			}
			out := make([]float32, 8)
			cumsumF32(p, in, out)
			for i := range c.want {
				if out[i] != c.want[i] {
					t.Fatalf("float: got %v, want %v", out, c.want)
				}
			}
			scale := 2 * c.rangeMax / 255
			p.inMult, p.inShift = quant.Multiplier(0.5)
			p.outMult, p.outShift = quant.Multiplier(2 * float64(scale) / (float64(1<<20) * float64(scale)))
			q := reduceTQuant(in, scale, 0, -128, 127)
			qi := make([]int8, len(q))
			for i, v := range q {
				qi[i] = int8(v)
			}
			qo := make([]int8, 8)
			cumsumInt8(p, qi, qo)
			for i := range c.want {
				if math.Abs(float64(float32(qo[i])*scale-c.want[i])) > float64(2*scale) {
					t.Fatalf("int8: got %v (scale %g), want %v", qo, scale, c.want)
				}
			}
		})
	}
}
