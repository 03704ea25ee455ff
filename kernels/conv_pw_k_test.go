package kernels

import (
	"math/rand"
	"testing"
)

// TestConvPWKInt8 compares convPWKInt8 with the reference-order kernel
// (convInt8) bit for bit on random pointwise layers of one to four input
// channels (and five, its fallback): pixel counts odd and even, one to 40
// output channels, input and output zero points at the int8 limits,
// narrow clamps, biases or none; right shifts of 1 to 21 (convPWQ's, the
// fast path, required to be taken) and any exponent or large biases (the
// fallback through convPWPairs).
func TestConvPWKInt8(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	fast := 0
	for i := 0; i < 500; i++ {
		px, k, n := 1+r.Intn(40), 1+i%5, 1+r.Intn(40)
		zp := []int32{-128, 127, -1, 0, int32(r.Intn(256) - 128)}[r.Intn(5)]
		in := convTRandI8(r, px*k)
		filter := convTRandI8(r, n*k)
		right := i%3 != 0
		bias, mult, shift := convTRandQ(r, n)
		if right {
			bias, mult, shift = convTRandQRight(r, n)
		}
		if i%7 == 3 {
			bias = ""
		}
		if i%11 == 5 {
			b := make([]int32, n)
			for c := range b {
				b[c] = int32(r.Uint32()) >> 1 // beyond convPWQ's range: the fallback
			}
			bias = convTI32s(b)
		}
		outZP := []int32{-128, 127, zp / 2}[i%3]
		lo, hi := int32(-128), int32(127)
		if i%4 == 1 {
			lo, hi = max(outZP, -128), min(outZP+80, 127)
		}
		cp := &convParams{batches: 1, inH: 1, inW: px, inC: k, filterH: 1, filterW: 1, filterC: k,
			outH: 1, outW: px, outC: n, groupOutC: n, strideH: 1, strideW: 1, dilationH: 1, dilationW: 1,
			inOffset: -zp, outOffset: outZP, actMin: lo, actMax: hi}
		want := make([]int8, px*n)
		convInt8(cp, in, filter, bias, mult, shift, want)
		pp := &convPWParams{pixels: px, inC: k, outC: n, outOffset: outZP, actMin: lo, actMax: hi}
		rq := convTRQ(bias, mult, shift, convTPWSums(filter, n), -zp)
		if k <= convPWKMax && convPWChDecode(rq, k, outZP, lo, make([]convPWCh, n)) {
			fast++
		}
		got := make([]int8, px*n)
		convPWKInt8(pp, in, convTPWPairs(filter, n), rq, got)
		for j := range want {
			if got[j] != want[j] {
				t.Fatalf("case %d: %d pixels, %d inputs, %d outputs, zp %d, out zp %d [%d %d]: output %d is %d, want %d",
					i, px, k, n, zp, outZP, lo, hi, j, got[j], want[j])
			}
		}
	}
	if fast < 200 {
		t.Fatalf("only %d cases took convPWKInt8's own loops", fast)
	}
}
