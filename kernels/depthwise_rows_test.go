package kernels

import (
	"math/rand"
	"strconv"
	"testing"
)

// dwTRowsLayout re-lays a [1][fH][fW][C] depthwise filter out channel-major
// ([C][fH][fW], offset by 128 for 3x3 filters) and returns it with each
// channel's weight sum.
func dwTRowsLayout(filter []int8, c int) (string, []int32) {
	taps := len(filter) / c
	b := make([]byte, len(filter))
	sums := make([]int32, c)
	for ch := 0; ch < c; ch++ {
		for t := 0; t < taps; t++ {
			v := filter[t*c+ch]
			b[ch*taps+t] = byte(v)
			if taps == 9 {
				b[ch*taps+t] = byte(int(v) + 128)
			}
			sums[ch] += int32(v)
		}
	}
	return string(b), sums
}

// dwTRowsCase is a depthwise geometry (depth multiplier 1).
type dwTRowsCase struct {
	b, inH, inW, c, fH, fW, sH, sW, dH, dW int
	same                                   bool
}

// dwTRowsShapes are person_detect's depthwise layers with depth multiplier
// 1 plus odd geometries.
var dwTRowsShapes = []dwTRowsCase{
	{1, 48, 48, 8, 3, 3, 1, 1, 1, 1, true}, {1, 48, 48, 16, 3, 3, 2, 2, 1, 1, true},
	{1, 24, 24, 32, 3, 3, 1, 1, 1, 1, true}, {1, 24, 24, 32, 3, 3, 2, 2, 1, 1, true},
	{1, 12, 12, 64, 3, 3, 1, 1, 1, 1, true}, {1, 12, 12, 64, 3, 3, 2, 2, 1, 1, true},
	{1, 6, 6, 128, 3, 3, 1, 1, 1, 1, true}, {1, 6, 6, 128, 3, 3, 2, 2, 1, 1, true},
	{1, 3, 3, 256, 3, 3, 1, 1, 1, 1, true},
	{2, 7, 5, 3, 3, 3, 1, 1, 1, 1, true}, {1, 7, 8, 2, 3, 3, 2, 2, 1, 1, false},
	{1, 9, 11, 3, 4, 2, 2, 3, 1, 1, true}, {1, 9, 9, 2, 3, 3, 1, 1, 2, 2, true},
	{1, 5, 4, 5, 5, 5, 1, 1, 1, 1, true}, {1, 2, 2, 1, 3, 3, 1, 1, 1, 1, true},
	{1, 11, 10, 2, 3, 3, 1, 1, 3, 3, true}, {1, 12, 7, 3, 2, 3, 2, 1, 4, 2, true},
}

// dwTRowsRun runs the reference dwInt8 and dwRowsInt8 on one random case.
func dwTRowsRun(t *testing.T, r *rand.Rand, c dwTRowsCase, zp int32, lo, hi int32) {
	oh := convTOutSize(c.same, c.inH, c.fH, c.sH, c.dH)
	ow := convTOutSize(c.same, c.inW, c.fW, c.sW, c.dW)
	dp := &dwParams{batches: c.b, inH: c.inH, inW: c.inW, inC: c.c, filterH: c.fH, filterW: c.fW,
		outH: oh, outW: ow, outC: c.c, depthMul: 1, strideH: c.sH, strideW: c.sW, dilationH: c.dH, dilationW: c.dW,
		padH: convTPad(c.sH, c.dH, c.inH, c.fH, oh), padW: convTPad(c.sW, c.dW, c.inW, c.fW, ow),
		inOffset: -zp, outOffset: -7, actMin: lo, actMax: hi}
	in := convTRandI8(r, c.b*c.inH*c.inW*c.c)
	filter := convTRandI8(r, c.fH*c.fW*c.c)
	bias, mult, shift := convTRandQ(r, c.c)
	want := make([]int8, c.b*oh*ow*c.c)
	dwInt8(dp, in, filter, bias, mult, shift, want)
	rp := &dwRowsParams{batches: c.b, inH: c.inH, inW: c.inW, chans: c.c, filterH: c.fH, filterW: c.fW,
		outH: oh, outW: ow, strideH: c.sH, strideW: c.sW, dilationH: c.dH, dilationW: c.dW,
		padH: dp.padH, padW: dp.padW, inZP: int64(zp), outOffset: -7, actMin: lo, actMax: hi}
	wt, sums := dwTRowsLayout(filter, c.c)
	rq := convTRQ(bias, mult, shift, sums, -zp)
	T := (ow + 2) / 3
	got := make([]int8, len(want))
	dwRowsInt8(rp, in, wt, rq, make([]int64, c.c*convRQLen), make([]int64, c.fH*c.c*T*c.fW), make([]int8, c.c), got)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%+v zp %d: output %d is %d, want %d", c, zp, i, got[i], want[i])
		}
	}
}

// TestDepthwiseRowsInt8 checks the row-slot depthwise kernel against dwInt8
// on random tensors: SAME and VALID padding, strides 1 to 3, dilation,
// batches, filter sizes other than 3x3, zero points at the int8 limits.
func TestDepthwiseRowsInt8(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for _, c := range dwTRowsShapes {
		for _, zp := range []int32{-128, 0, 127} {
			dwTRowsRun(t, r, c, zp, -128, 127)
		}
		dwTRowsRun(t, r, c, -3, -128, -20)
	}
}

// BenchmarkDepthwiseRows times dwRowsInt8 against dwInt8 on person_detect's
// depth-multiplier-1 layers.
func BenchmarkDepthwiseRows(b *testing.B) {
	r := rand.New(rand.NewSource(6))
	for _, c := range dwTRowsShapes[:9] {
		oh := convTOutSize(true, c.inH, 3, c.sH, 1)
		ow := convTOutSize(true, c.inW, 3, c.sW, 1)
		dp := &dwParams{batches: 1, inH: c.inH, inW: c.inW, inC: c.c, filterH: 3, filterW: 3,
			outH: oh, outW: ow, outC: c.c, depthMul: 1, strideH: c.sH, strideW: c.sW, dilationH: 1, dilationW: 1,
			padH: convTPad(c.sH, 1, c.inH, 3, oh), padW: convTPad(c.sW, 1, c.inW, 3, ow),
			inOffset: 128, outOffset: -128, actMin: -128, actMax: 127}
		in := convTRandI8(r, c.inH*c.inW*c.c)
		filter := convTRandI8(r, 9*c.c)
		bias, mult, shift := convTRandQ(r, c.c)
		out := make([]int8, oh*ow*c.c)
		rp := &dwRowsParams{batches: 1, inH: c.inH, inW: c.inW, chans: c.c, filterH: 3, filterW: 3,
			outH: oh, outW: ow, strideH: c.sH, strideW: c.sW, dilationH: 1, dilationW: 1,
			padH: dp.padH, padW: dp.padW, inZP: -128, outOffset: -128, actMin: -128, actMax: 127}
		wt, wsums := dwTRowsLayout(filter, c.c)
		rq := convTRQ(bias, mult, shift, wsums, 128)
		T := (ow + 2) / 3
		rqs, slots, zrow := make([]int64, c.c*convRQLen), make([]int64, 3*c.c*T*3), make([]int8, c.c)
		name := strconv.Itoa(c.inH) + "x" + strconv.Itoa(c.inW) + "x" + strconv.Itoa(c.c) + "s" + strconv.Itoa(c.sH)
		macs := float64(oh * ow * c.c * 9)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				dwRowsInt8(rp, in, wt, rq, rqs, slots, zrow, out)
			}
			b.ReportMetric(macs*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "MAC/ns")
		})
		b.Run(name+"/ref", func(b *testing.B) {
			for b.Loop() {
				dwInt8(dp, in, filter, bias, mult, shift, out)
			}
			b.ReportMetric(macs*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "MAC/ns")
		})
	}
}
