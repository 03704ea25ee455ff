package kernels

import (
	"math/rand"
	"testing"
)

// TestConvDilInt8 checks the dilated window kernel against convInt8 on
// random tensors: SAME and VALID padding, strides, dilations 1 to 3,
// batches, odd widths and output channel counts, zero points at the int8
// limits, narrow clamps, per-channel requantizations.
func TestConvDilInt8(t *testing.T) {
	r := rand.New(rand.NewSource(23))
	cases := []convTWinCase{
		{1, 12, 12, 32, 3, 3, 32, 1, 1, 2, 2, true},
		{1, 1, 98, 32, 1, 3, 32, 1, 1, 2, 2, true},
		{1, 16, 16, 16, 3, 3, 16, 1, 1, 2, 2, true},
		{1, 24, 24, 8, 3, 3, 16, 1, 1, 2, 2, false},
		{2, 7, 9, 8, 3, 3, 5, 1, 1, 3, 3, true},
		{1, 9, 7, 16, 3, 2, 3, 2, 1, 2, 3, true},
		{1, 5, 5, 8, 3, 3, 4, 1, 1, 3, 3, true}, // windows larger than the image
		{1, 6, 11, 8, 2, 4, 6, 1, 2, 1, 2, false},
		{1, 4, 4, 8, 7, 7, 2, 1, 1, 1, 1, true},
		{1, 6, 6, 72, 3, 3, 4, 1, 1, 2, 2, true}, // a window beyond convRowsTriK
		{2, 5, 7, 64, 3, 3, 6, 2, 1, 1, 2, true},
		{1, 9, 9, 24, 3, 3, 64, 1, 1, 2, 2, false},
	}
	for i := 0; i < 60; i++ {
		cases = append(cases, convTWinCase{1 + r.Intn(2), 1 + r.Intn(10), 1 + r.Intn(12), 8 * (1 + r.Intn(3)),
			1 + r.Intn(4), 1 + r.Intn(4), 1 + r.Intn(7), 1 + r.Intn(3), 1 + r.Intn(3), 1 + r.Intn(3), 1 + r.Intn(3), r.Intn(3) != 0})
	}
	for ci, c := range cases {
		for _, zp := range []int32{-128, -5, 0, 127} {
			oh := convTOutSize(c.same, c.inH, c.fH, c.sH, c.dH)
			ow := convTOutSize(c.same, c.inW, c.fW, c.sW, c.dW)
			if oh <= 0 || ow <= 0 {
				continue
			}
			lo, hi := int32(-128), int32(127)
			if zp == -5 {
				lo, hi = -90, 60
			}
			cp := &convParams{batches: c.b, inH: c.inH, inW: c.inW, inC: c.inC, filterH: c.fH, filterW: c.fW,
				filterC: c.inC, outH: oh, outW: ow, outC: c.outC, groupOutC: c.outC, strideH: c.sH, strideW: c.sW,
				dilationH: c.dH, dilationW: c.dW, padH: convTPad(c.sH, c.dH, c.inH, c.fH, oh),
				padW: convTPad(c.sW, c.dW, c.inW, c.fW, ow), inOffset: -zp, outOffset: 3, actMin: lo, actMax: hi}
			in := convTRandI8(r, c.b*c.inH*c.inW*c.inC)
			filter := convTRandI8(r, c.outC*c.fH*c.fW*c.inC)
			bias, mult, shift := convTRandQ(r, c.outC)
			if ci%5 == 0 && zp == 0 {
				// Biases beyond dwRQFast's bound: the general rescale.
				b := make([]int32, c.outC)
				for i := range b {
					b[i] = int32(r.Intn(1<<30)) - 1<<29
				}
				bias = convTI32s(b)
			}
			want := make([]int8, c.b*oh*ow*c.outC)
			convInt8(cp, in, filter, bias, mult, shift, want)
			dp := &convDilParams{batches: c.b, inH: c.inH, inW: c.inW, inC: c.inC, filterH: c.fH, filterW: c.fW,
				outH: oh, outW: ow, outC: c.outC, strideH: c.sH, strideW: c.sW, dilationH: c.dH, dilationW: c.dW,
				padH: cp.padH, padW: cp.padW, inZP: zp, outOffset: 3, actMin: lo, actMax: hi}
			got := make([]int8, len(want))
			rq := convTRQ(bias, mult, shift, convTPWSums(filter, c.outC), -zp)
			wt := convTRowsPairs(filter, c.outC)
			convDilInt8(dp, in, wt, rq, got)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("case %d %+v zp %d: output %d is %d, want %d", ci, c, zp, i, got[i], want[i])
				}
			}
			if c.outC > convDilRasterMax {
				continue
			}
			// The raster variant, on its own, from an input not at a
			// multiple of four, and written over its input.
			for _, run := range []string{"alone", "unaligned", "over"} {
				got := make([]int8, len(want))
				switch run {
				case "alone":
					convDilInt8Raster(dp, in, wt, rq, got)
				case "unaligned":
					odd := make([]int8, len(in)+1)[1:]
					copy(odd, in)
					convDilInt8Raster(dp, odd, wt, rq, got)
				case "over":
					convDilRasterOverInput(dp, in, wt, rq, got)
				}
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("case %d %+v zp %d, raster (%s): output %d is %d, want %d", ci, c, zp, run, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// convDilRasterOverInput runs convDilInt8Raster written over its input
// (rasterOverInput, a pixel at a time) and copies the output to out.
func convDilRasterOverInput(p *convDilParams, in []int8, wt, rq string, out []int8) {
	g := tRasterGeom{p.batches, p.inH, p.inW, p.inC, p.outH, p.outW, p.outC, p.filterH, p.filterW,
		p.strideH, p.strideW, p.dilationH, p.dilationW, p.padH, p.padW}
	rasterOverInput(g, 1, in, out, func(in, out []int8) { convDilInt8Raster(p, in, wt, rq, out) })
}
