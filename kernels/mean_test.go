package kernels

import (
	"math"
	"math/bits"
	"math/rand"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// Cases ported from TFLite Micro's tensorflow/lite/micro/kernels/
// reduce_test.cc (the Mean TESTs): float outputs within 1e-5, quantized
// outputs compared with the float goldens quantized with the output
// parameters within that file's tolerance of 1. The level decomposition
// and requantization constants are computed as gen/lower_mean.go computes
// them (meanTPrep mirrors it); TestMeanMatchesReference checks them and
// the kernels bit for bit against a transcription of the reference.

// meanTPrep resolves axes (negative and repeated entries allowed), merges
// neighbouring dimensions that are both reduced or both kept into at most
// five levels, and computes the integer requantization with 1/count folded
// in (QuantizedMeanOrSum's multiplier adjustment).
func meanTPrep(t *testing.T, shape []int, axes []int, inScale float32, inZP int32, outScale float32, outZP int32) *meanParams {
	t.Helper()
	reduced := make([]bool, len(shape))
	for _, a := range axes {
		if a < 0 {
			a += len(shape)
		}
		reduced[a] = true
	}
	var sizes []int
	var red []bool
	count := 1
	for d, n := range shape {
		if reduced[d] {
			count *= n
		}
		if len(sizes) > 0 && red[len(red)-1] == reduced[d] {
			sizes[len(sizes)-1] *= n
			continue
		}
		sizes = append(sizes, n)
		red = append(red, reduced[d])
	}
	if len(sizes) > 5 {
		t.Fatalf("%d levels", len(sizes))
	}
	var dims, strides [5]int
	for i := range dims {
		dims[i] = 1
	}
	stride := 1
	for i := len(sizes) - 1; i >= 0; i-- {
		j := 5 - len(sizes) + i
		dims[j] = sizes[i]
		if !red[i] {
			strides[j] = stride
			stride *= sizes[i]
		}
	}
	p := &meanParams{d0: dims[0], d1: dims[1], d2: dims[2], d3: dims[3], d4: dims[4],
		s0: strides[0], s1: strides[1], s2: strides[2], s3: strides[3], s4: strides[4],
		nOut: stride, count: float32(count), outOffset: outZP, inZeroSum: int64(inZP) * int64(count)}
	if outScale != 0 {
		m, s := quant.Multiplier(float64(inScale) / float64(outScale))
		sh := min(bits.Len64(uint64(count))-1, 32, 31+s)
		p.mult = int32((int64(m) << uint(sh)) / int64(count))
		p.shift = s - sh
	}
	return p
}

type meanTCase struct {
	name          string
	shape         []int
	axes          []int
	input, golden []float32
}

var (
	meanTData8  = []float32{1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0}
	meanTData24 = []float32{
		1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0,
		13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0}
	meanTData12 = []float32{1.0, 24.0, 13.0, 3.0, 9.0, 17.0, 11.0, 36.0, 14.0, 19.0, 17.0, 22.0}
)

// meanTCases: keep_dims only changes the output shape, so each *KeepDims
// and *WithoutKeepDims pair is one case here.
var meanTCases = []meanTCase{
	{"2D", []int{2, 4}, []int{1}, meanTData8, []float32{2.5, 6.5}},
	{"3D", []int{2, 2, 2}, []int{1, 2}, meanTData8, []float32{2.5, 6.5}},
	{"4D", []int{2, 2, 3, 2}, []int{1, 2}, meanTData24, []float32{6, 7, 18, 19}},
	{"4DWithPrecision", []int{2, 2, 3, 1}, []int{1, 2}, meanTData12, []float32{11.166667, 19.833334}},
}

func TestMeanF32(t *testing.T) {
	for _, c := range meanTCases {
		t.Run("MeanFloat"+c.name, func(t *testing.T) {
			p := meanTPrep(t, c.shape, c.axes, 0, 0, 0, 0)
			out := make([]float32, p.nOut)
			meanF32(p, c.input, out)
			for i, g := range c.golden {
				if math.Abs(float64(out[i]-g)) > 1e-5 {
					t.Fatalf("got %v, want %v", out, c.golden)
				}
			}
		})
	}
}

func TestMeanInt8(t *testing.T) {
	for _, c := range meanTCases {
		if c.name == "4DWithPrecision" {
			continue // below, with its own name
		}
		t.Run("MeanInt8"+c.name, func(t *testing.T) { meanTRunInt8(t, c) })
	}
	t.Run("MeanInt84DWithoutKeepDimsWithPrecision", func(t *testing.T) { meanTRunInt8(t, meanTCases[3]) })
}

func meanTRunInt8(t *testing.T, c meanTCase) {
	p := meanTPrep(t, c.shape, c.axes, 0.5, 0, 0.5, 0)
	in := make([]int8, len(c.input))
	for i, v := range fcTQuantize(c.input, 0.5, 0, -128, 127) {
		in[i] = int8(v)
	}
	out := make([]int8, p.nOut)
	meanInt8(p, in, make([]int32, p.nOut), out)
	want := fcTQuantize(c.golden, 0.5, 0, -128, 127)
	for i := range want {
		if d := int32(out[i]) - want[i]; d > 1 || d < -1 {
			t.Fatalf("got %v, want %v", out, want)
		}
	}
}

func TestMeanInt16(t *testing.T) {
	cases := []struct {
		name     string
		c        meanTCase
		outScale float32
	}{
		{"MeanInt162DKeepDims", meanTCases[0], 0.5},
		{"MeanInt163DKeepDims", meanTCases[1], 0.5},
		{"MeanInt164DKeepDims", meanTCases[2], 0.5},
		{"MeanInt164DWithoutKeepDimsDifferentScaleAndZeroPoint", meanTCases[2], 0.7},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.c
			p := meanTPrep(t, c.shape, c.axes, 0.5, 0, tc.outScale, 0)
			in := make([]int16, len(c.input))
			for i, v := range fcTQuantize(c.input, 0.5, 0, -32768, 32767) {
				in[i] = int16(v)
			}
			out := make([]int16, p.nOut)
			meanInt16(p, in, make([]int32, p.nOut), out)
			want := fcTQuantize(c.golden, tc.outScale, 0, -32768, 32767)
			for i := range want {
				if d := int32(out[i]) - want[i]; d > 1 || d < -1 {
					t.Fatalf("got %v, want %v", out, want)
				}
			}
		})
	}
}

// meanTRef transcribes reference_ops::QuantizedMeanOrSum (int8, compute_sum
// false) and the float Mean: an odometer over the input, each element added
// to the output at ReducedOutputOffset, then the multiplier adjusted for
// 1/count and every sum requantized (or divided, for floats).
func meanTRef(shape []int, axes []int, in []float64, inZP int32, m int32, s int, outZP int32, float bool) []float64 {
	red := make([]bool, len(shape))
	for _, a := range axes {
		if a < 0 {
			a += len(shape)
		}
		red[a] = true
	}
	nOut, count := 1, 1
	for d, n := range shape {
		if red[d] {
			count *= n
		} else {
			nOut *= n
		}
	}
	sumI := make([]int32, nOut)
	sumF := make([]float32, nOut)
	idx := make([]int, len(shape))
	for k := range in {
		off := 0
		for d, n := range shape {
			if !red[d] {
				off = off*n + idx[d]
			}
		}
		sumI[off] += int32(in[k])
		sumF[off] += float32(in[k])
		for d := len(shape) - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	out := make([]float64, nOut)
	if float {
		for i := range out {
			out[i] = float64(sumF[i] / float32(count))
		}
		return out
	}
	sh := 63 - bits.LeadingZeros64(uint64(count))
	sh = min(sh, 32)
	sh = min(sh, 31+s)
	m = int32((int64(m) << uint(sh)) / int64(count))
	s -= sh
	for i := range out {
		v := int32(int64(sumI[i]) - int64(inZP)*int64(count))
		out[i] = float64(clampI32(mulByQuantMul(v, m, s)+outZP, -128, 127))
	}
	return out
}

// TestMeanMatchesReference runs random shapes and axis lists (negative and
// repeated axes, every pattern of reduced and kept dimensions up to rank
// five, zero points at the int8 limits) through the kernels and the
// reference transcription.
func TestMeanMatchesReference(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for iter := 0; iter < 300; iter++ {
		rank := 1 + r.Intn(5)
		shape := make([]int, rank)
		total := 1
		for d := range shape {
			shape[d] = 1 + r.Intn(5)
			total *= shape[d]
		}
		var axes []int
		for d := 0; d < rank; d++ {
			if r.Intn(2) == 0 {
				a := d
				if r.Intn(2) == 0 {
					a -= rank
				}
				axes = append(axes, a)
				if r.Intn(4) == 0 {
					axes = append(axes, d)
				}
			}
		}
		inZP := []int32{-128, 127, 3}[iter%3]
		outZP := []int32{-128, 127, -5}[(iter/3)%3]
		inScale, outScale := float32(0.02+r.Float64()), float32(0.02+r.Float64())
		p := meanTPrep(t, shape, axes, inScale, inZP, outScale, outZP)
		m, s := quant.Multiplier(float64(inScale) / float64(outScale))

		in8 := make([]int8, total)
		inF := make([]float32, total)
		ref := make([]float64, total)
		for i := range in8 {
			in8[i] = int8(r.Intn(256) - 128)
			ref[i] = float64(in8[i])
			inF[i] = float32(in8[i]) / 7
		}
		want := meanTRef(shape, axes, ref, inZP, m, s, outZP, false)
		out := make([]int8, p.nOut)
		meanInt8(p, in8, make([]int32, p.nOut), out)
		for i := range want {
			if float64(out[i]) != want[i] {
				t.Fatalf("int8 shape %v axes %v: output %d = %d, want %v", shape, axes, i, out[i], want[i])
			}
		}

		for i := range ref {
			ref[i] = float64(inF[i])
		}
		wantF := meanTRef(shape, axes, ref, 0, 0, 0, 0, true)
		outF := make([]float32, p.nOut)
		meanF32(p, inF, outF)
		for i := range wantF {
			if float64(outF[i]) != wantF[i] {
				t.Fatalf("float shape %v axes %v: output %d = %v, want %v", shape, axes, i, outF[i], wantF[i])
			}
		}
	}
}
