package kernels

import (
	"math/rand"
	"slices"
	"testing"
)

// convTRowsPairs stores a [outC][k] filter as convRowsInt8 wants it: for
// each pair of output channels (the missing one zero) and each k, the two
// weights.
func convTRowsPairs(filter []int8, outC int) string {
	k := len(filter) / outC
	var b []byte
	for ob := 0; ob < outC; ob += 2 {
		for i := 0; i < k; i++ {
			b = append(b, byte(filter[ob*k+i]))
			if ob+1 < outC {
				b = append(b, byte(filter[(ob+1)*k+i]))
			} else {
				b = append(b, 0)
			}
		}
	}
	return string(b)
}

// TestConvRowsInt8 checks the scratch-free window kernel against convInt8
// on random tensors: SAME and VALID padding, strides, batches, odd widths
// and channel counts, zero points at the int8 limits, narrow clamps.
func TestConvRowsInt8(t *testing.T) {
	r := rand.New(rand.NewSource(21))
	cases := []convTWinCase{
		{1, 5, 7, 3, 3, 3, 5, 1, 1, 1, 1, true},
		{2, 6, 6, 2, 3, 3, 4, 2, 2, 1, 1, true},
		{1, 9, 8, 1, 4, 3, 6, 2, 3, 1, 1, true},
		{1, 10, 10, 4, 5, 5, 9, 2, 2, 1, 1, true},
		{1, 3, 3, 30, 3, 3, 7, 1, 1, 1, 1, true},
		{1, 4, 5, 3, 1, 1, 2, 2, 2, 1, 1, true},
		{1, 3, 2, 2, 5, 5, 3, 1, 1, 1, 1, true},
		{1, 49, 40, 1, 10, 8, 8, 2, 2, 1, 1, true},
		{1, 96, 96, 1, 3, 3, 8, 2, 2, 1, 1, true},
		{1, 7, 9, 2, 2, 2, 3, 1, 2, 1, 1, false},
		{1, 8, 11, 3, 3, 4, 1, 3, 1, 1, 1, false},
		// Window rows of eight values (convGatherWin's unrolled rows).
		{2, 6, 7, 2, 3, 4, 5, 1, 2, 1, 1, true},
		{1, 5, 6, 4, 2, 2, 3, 2, 1, 1, 1, true},
		{1, 9, 12, 1, 5, 8, 4, 1, 1, 1, 1, true},
		{1, 9, 12, 1, 5, 8, 4, 1, 1, 1, 1, false},
		// Window rows of 4 + 8 + 16 and of 12*16 values (convRowsRun's
		// blocks and its loop of sixteen).
		{1, 6, 6, 28, 3, 1, 4, 1, 1, 1, 1, true},
		{1, 5, 5, 64, 3, 3, 6, 1, 1, 1, 1, true},
		// convRowsTriInt8's layers (windows of at most convRowsTriK
		// values, an even number of channels; inC a multiple of 32 for
		// its word copies): pixel counts of each remainder modulo three,
		// blocks of convRowsTriBlk channels and a short last one, SAME
		// and VALID, strides, 1xK, batches; and beyond its limits (odd
		// channels, long windows).
		{1, 7, 9, 32, 3, 3, 6, 1, 1, 1, 1, true},
		{2, 9, 8, 64, 3, 3, 66, 2, 2, 1, 1, true},
		{1, 13, 12, 3, 7, 7, 8, 2, 2, 1, 1, false},
		{1, 10, 10, 8, 3, 3, 4, 2, 2, 1, 1, true},
		{2, 9, 9, 5, 3, 3, 6, 1, 1, 1, 1, true},
		{1, 8, 7, 32, 3, 3, 18, 2, 1, 1, 1, false},
		{1, 6, 6, 64, 3, 3, 4, 1, 1, 1, 1, false},
		{1, 1, 20, 32, 1, 9, 8, 1, 1, 1, 1, true},
		{1, 5, 11, 32, 1, 3, 2, 1, 2, 1, 1, true},
		{1, 5, 5, 32, 3, 3, 5, 1, 1, 1, 1, true},
		{1, 5, 5, 96, 3, 3, 4, 1, 1, 1, 1, true},
	}
	for i := 0; i < 60; i++ {
		cases = append(cases, convTWinCase{1 + r.Intn(2), 1 + r.Intn(9), 1 + r.Intn(12), 1 + r.Intn(5),
			1 + r.Intn(4), 1 + r.Intn(4), 1 + r.Intn(7), 1 + r.Intn(3), 1 + r.Intn(3), 1, 1, true})
	}
	grid := 0
	for ci, c := range cases {
		for _, zq := range []int32{-128, -5, 127, -128 + 256, -5 + 256} {
			// The last two are -128 and -5 again with right shifts only,
			// the requantizations convGatherGrid takes.
			zp, right := zq, zq > 127
			if right {
				zp -= 256
			}
			oh := convTOutSize(c.same, c.inH, c.fH, c.sH, 1)
			ow := convTOutSize(c.same, c.inW, c.fW, c.sW, 1)
			if oh <= 0 || ow <= 0 {
				continue
			}
			lo, hi := int32(-128), int32(127)
			if zp == -5 {
				lo, hi = -90, 60
			}
			cp := &convParams{batches: c.b, inH: c.inH, inW: c.inW, inC: c.inC, filterH: c.fH, filterW: c.fW,
				filterC: c.inC, outH: oh, outW: ow, outC: c.outC, groupOutC: c.outC, strideH: c.sH, strideW: c.sW,
				dilationH: 1, dilationW: 1, padH: convTPad(c.sH, 1, c.inH, c.fH, oh),
				padW: convTPad(c.sW, 1, c.inW, c.fW, ow), inOffset: -zp, outOffset: 3, actMin: lo, actMax: hi}
			in := convTRandI8(r, c.b*c.inH*c.inW*c.inC)
			filter := convTRandI8(r, c.outC*c.fH*c.fW*c.inC)
			bias, mult, shift := convTRandQ(r, c.outC)
			if right {
				bias, mult, shift = convTRandQRight(r, c.outC)
			}
			want := make([]int8, c.b*oh*ow*c.outC)
			convInt8(cp, in, filter, bias, mult, shift, want)
			rp := &convRowsParams{batches: c.b, inH: c.inH, inW: c.inW, inC: c.inC, filterH: c.fH, filterW: c.fW,
				outH: oh, outW: ow, outC: c.outC, strideH: c.sH, strideW: c.sW,
				padH: cp.padH, padW: cp.padW, inZP: zp, outOffset: 3, actMin: lo, actMax: hi}
			got := make([]int8, len(want))
			rq := convTRQ(bias, mult, shift, convTPWSums(filter, c.outC), -zp)
			convRowsInt8(rp, in, convTRowsPairs(filter, c.outC), rq, got)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("case %d %+v zp %d: output %d is %d, want %d", ci, c, zp, i, got[i], want[i])
				}
			}
			// Three pixels at a time, the input word-aligned and not,
			// each channel's window padded with zero weights to a
			// multiple of 32.
			k, kp := c.fH*c.fW*c.inC, (c.fH*c.fW*c.inC+31)&^31
			padded := make([]int8, c.outC*kp)
			for oc := 0; oc < c.outC; oc++ {
				copy(padded[oc*kp:], filter[oc*k:(oc+1)*k])
			}
			for _, off := range []int{0, 1} {
				x := make([]int8, len(in)+off)[off:]
				copy(x, in)
				clear(got)
				convRowsTriInt8(rp, x, convTRowsPairs(padded, c.outC), rq, got)
				if !slices.Equal(got, want) {
					t.Fatalf("convRowsTriInt8: case %d %+v zp %d, input %d bytes past a word: %v, want %v", ci, c, zp, off, got, want)
				}
			}
			if kp := (k + 7) / 8 * 8; kp <= convGatherMax && c.outC <= convGatherMaxC {
				padded := make([]int8, c.outC*kp)
				for oc := 0; oc < c.outC; oc++ {
					copy(padded[oc*kp:], filter[oc*k:(oc+1)*k])
				}
				clear(got)
				convGatherInt8(rp, in, convTPWPairs(padded, c.outC), rq, make([]int32, convGatherScratch(rp.filterH*rp.filterW*rp.inC, c.outC)), got)
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("gather: case %d %+v zp %d: output %d is %d, want %d", ci, c, zp, i, got[i], want[i])
					}
				}
				if right && c.outC%2 == 0 {
					// The tile path itself, which convGatherInt8 takes here.
					clear(got)
					if !convGatherGrid(rp, in, convTPWPairs(padded, c.outC), rq, make([]int32, convGatherScratch(rp.filterH*rp.filterW*rp.inC, c.outC)), got) {
						t.Fatalf("gather: case %d %+v zp %d: convGatherGrid declined right shifts", ci, c, zp)
					}
					for i := range want {
						if got[i] != want[i] {
							t.Fatalf("gather grid: case %d %+v zp %d: output %d is %d, want %d", ci, c, zp, i, got[i], want[i])
						}
					}
					grid++
				}
			}
		}
	}
	t.Logf("%d gather cases through convGatherGrid", grid)
	if grid == 0 {
		t.Fatal("no case ran convGatherGrid")
	}
}
