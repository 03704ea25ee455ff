package kernels

import (
	"math"
	"math/rand"
	"testing"
)

// TestConvF32W checks convF32W, the build for gc's float convolution,
// bit for bit against convF32Taps (the reference's loop, each weight
// decoded where it is used) on random tensors: SAME and VALID, strides,
// dilations, groups, batches, one to nine input channels and 1x1 to 5x5
// filters, windows larger than the image, with and without a bias,
// clamps, and filter strings at every offset from a word. convF32 itself
// must give the same, also for filters beyond convF32MaxK (convF32Taps).
func TestConvF32W(t *testing.T) {
	r := rand.New(rand.NewSource(31))
	type tcase struct {
		b, inH, inW, inC, fH, fW, outC, groups, sH, sW, dH, dW int
		same                                                   bool
	}
	cases := []tcase{
		{1, 12, 12, 32, 1, 1, 64, 1, 1, 1, 1, 1, false},
		{1, 16, 16, 16, 3, 3, 16, 1, 1, 1, 1, 1, true},
		{1, 32, 32, 3, 3, 3, 16, 1, 2, 2, 1, 1, true},
		{2, 7, 9, 4, 3, 3, 4, 2, 1, 1, 1, 1, true},   // groups
		{1, 9, 7, 5, 3, 2, 3, 1, 2, 1, 2, 3, true},   // dilation
		{1, 3, 3, 2, 5, 5, 3, 1, 1, 1, 1, 1, true},   // windows larger than the image
		{1, 4, 4, 130, 3, 3, 2, 1, 1, 1, 1, 1, true}, // beyond convF32MaxK
		{1, 1, 1, 3, 2, 2, 2, 1, 2, 2, 1, 1, true},   // a window past the image, no padding before it
		{2, 3, 5, 2, 4, 4, 3, 1, 3, 2, 1, 1, true},
	}
	for i := 0; i < 80; i++ {
		inC := 1 + r.Intn(9)
		groups := 1
		if inC%2 == 0 && r.Intn(4) == 0 {
			groups = 2
		}
		cases = append(cases, tcase{1 + r.Intn(2), 1 + r.Intn(9), 1 + r.Intn(9), inC, 1 + r.Intn(5), 1 + r.Intn(5),
			groups * (1 + r.Intn(4)), groups, 1 + r.Intn(3), 1 + r.Intn(3), 1 + r.Intn(2), 1 + r.Intn(2), r.Intn(2) == 0})
	}
	for ci, c := range cases {
		oh := convTOutSize(c.same, c.inH, c.fH, c.sH, c.dH)
		ow := convTOutSize(c.same, c.inW, c.fW, c.sW, c.dW)
		if oh <= 0 || ow <= 0 {
			continue
		}
		fC := c.inC / c.groups
		p := &convParams{batches: c.b, inH: c.inH, inW: c.inW, inC: c.inC, filterH: c.fH, filterW: c.fW,
			filterC: fC, outH: oh, outW: ow, outC: c.outC, groupOutC: c.outC / c.groups, strideH: c.sH, strideW: c.sW,
			dilationH: c.dH, dilationW: c.dW, padH: convTPad(c.sH, c.dH, c.inH, c.fH, oh),
			padW: convTPad(c.sW, c.dW, c.inW, c.fW, ow), fActMin: float32(math.Inf(-1)), fActMax: float32(math.Inf(1))}
		if ci%3 == 1 {
			p.fActMin, p.fActMax = -1, 1.5
		}
		in := make([]float32, c.b*c.inH*c.inW*c.inC)
		for i := range in {
			in[i] = float32(r.NormFloat64())
		}
		filter := make([]float32, c.outC*c.fH*c.fW*fC)
		for i := range filter {
			filter[i] = float32(r.NormFloat64() / 3)
		}
		bias := ""
		if ci%4 != 3 {
			b := make([]float32, c.outC)
			for i := range b {
				b[i] = float32(r.NormFloat64())
			}
			bias = convTF32s(b)
		}
		fs := convTF32s(filter)
		want := make([]float32, c.b*oh*ow*c.outC)
		convF32Taps(p, in, fs, bias, want)
		for off := 0; off < 4; off++ {
			// The filter string off bytes past a word (the constants'
			// alignment in read-only data is the linker's).
			f := ("xxx" + fs)[3-off:]
			f = f[off:]
			for _, fn := range []struct {
				name string
				run  func(*convParams, []float32, string, string, []float32)
			}{{"convF32", convF32}, {"convF32W", convF32W}} {
				if fn.name == "convF32W" && c.fH*c.fW*fC > convF32MaxK {
					continue
				}
				got := make([]float32, len(want))
				fn.run(p, in, f, bias, got)
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("case %d %+v, filter at offset %d, %s: output %d is %v, want %v", ci, c, off, fn.name, i, got[i], want[i])
					}
				}
			}
		}
	}
}
