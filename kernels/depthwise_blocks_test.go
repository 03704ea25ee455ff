package kernels

import (
	"encoding/binary"
	"math/rand"
	"testing"
)

// TestDwInt8Blocks: dwInt8Blocks equals the reference dwInt8 bit for bit on
// random depthwise layers of multiplier 1 and channels a multiple of four:
// the grid's filter shapes (KxK to 7x7, 1xK, Kx1, DS-CNN's 10x4), strides,
// dilations, SAME and VALID padding, batches, zero points and clamps.
func TestDwInt8Blocks(t *testing.T) {
	r := rand.New(rand.NewSource(71))
	filters := [][2]int{{3, 3}, {5, 5}, {7, 7}, {1, 3}, {3, 1}, {1, 9}, {9, 1}, {10, 4}, {2, 3}, {1, 1}}
	for i := range 400 {
		f := filters[i%len(filters)]
		c := dwTRowsCase{b: 1 + r.Intn(2), inH: 1 + r.Intn(12), inW: 1 + r.Intn(12), c: 4 * (1 + r.Intn(6)),
			fH: f[0], fW: f[1], sH: 1 + r.Intn(2), sW: 1 + r.Intn(2), dH: 1 + r.Intn(2), dW: 1 + r.Intn(2), same: r.Intn(2) == 0}
		oh := convTOutSize(c.same, c.inH, c.fH, c.sH, c.dH)
		ow := convTOutSize(c.same, c.inW, c.fW, c.sW, c.dW)
		if oh <= 0 || ow <= 0 {
			continue
		}
		zp := int32(r.Intn(256) - 128)
		lo, hi := int32(-128), int32(127)
		if i%3 == 1 {
			lo, hi = int32(r.Intn(100)-128), int32(r.Intn(100))
		}
		dp := &dwParams{batches: c.b, inH: c.inH, inW: c.inW, inC: c.c, filterH: c.fH, filterW: c.fW,
			outH: oh, outW: ow, outC: c.c, depthMul: 1, strideH: c.sH, strideW: c.sW, dilationH: c.dH, dilationW: c.dW,
			padH: convTPad(c.sH, c.dH, c.inH, c.fH, oh), padW: convTPad(c.sW, c.dW, c.inW, c.fW, ow),
			inOffset: -zp, outOffset: int32(r.Intn(256) - 128), actMin: lo, actMax: hi}
		in := convTRandI8(r, c.b*c.inH*c.inW*c.c)
		filter := convTRandI8(r, c.fH*c.fW*c.c)
		bias, mult, shift := convTRandQ(r, c.c)
		if i%5 == 2 {
			bias = ""
		}
		want, got := make([]int8, c.b*oh*ow*c.c), make([]int8, c.b*oh*ow*c.c)
		dwInt8(dp, in, filter, bias, mult, shift, want)
		var rq []byte
		for ch := range c.c {
			var b int32
			if bias != "" {
				b = ld32(bias, ch)
			}
			q, ok := fcRQFor(ld32(mult, ch), int(ld32(shift, ch)))
			if !ok {
				t.Fatalf("case %d: channel %d's requantization has no record", i, ch)
			}
			rq = binary.LittleEndian.AppendUint32(rq, uint32(b))
			rq = binary.LittleEndian.AppendUint32(rq, uint32(q.mult))
			rq = binary.LittleEndian.AppendUint32(rq, uint32(int32(q.hi>>31)))
			rq = append(rq, uint8(q.sh), uint8(q.sh>>8), 0, 0)
		}
		dwInt8Blocks(dp, in, filter, string(rq), got)
		for j := range want {
			if got[j] != want[j] {
				t.Fatalf("case %d %+v: out[%d] = %d, dwInt8 gives %d", i, c, j, got[j], want[j])
			}
		}
	}
}
