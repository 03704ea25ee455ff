package kernels

import (
	"math/rand"
	"slices"
	"testing"
)

// convTRasterPairShift is the smallest distance from an output's start to
// its input's at which a kernel writing pixel pairs of each row in raster
// order, each pair's windows read before its outputs are written, keeps
// every input a later pair reads (gen/lower's rasterWindowShift for 1x1
// windows without padding).
func convTRasterPairShift(p *convRowsParams) int {
	type px struct{ addr int }
	var v []px
	for b := 0; b < p.batches; b++ {
		for oy := 0; oy < p.outH; oy++ {
			for ox := 0; ox < p.outW; ox++ {
				v = append(v, px{addr: (b*p.inH*p.inW + oy*p.strideH*p.inW + ox*p.strideW) * p.inC})
			}
		}
	}
	shift := 0
	k := 0
	for b := 0; b < p.batches; b++ {
		for oy := 0; oy < p.outH; oy++ {
			for ox := 0; ox < p.outW; ox += 2 {
				e := k + min(2, p.outW-ox) // the pixels after the pair
				low := int(^uint(0) >> 1)
				for _, q := range v[e:] {
					low = min(low, q.addr)
				}
				if e < len(v) {
					shift = max(shift, e*p.outC-low)
				}
				k = e
			}
		}
	}
	return shift
}

// TestConvGatherPWInt8 compares convGatherPWInt8 with the reference-order
// kernel (convInt8) bit for bit on random 1x1 layers: rows of 8 to 128
// inputs (16, 32-multiples and others: the three tile loops), even and odd
// output channels, strides, batches, odd widths, zero points at the int8
// limits, narrow clamps, right shifts only or any exponent (the fallback
// to convGatherInt8); each also written over its input at the smallest
// distance raster order by pixel pairs allows, where convGatherInt8 must
// agree as well.
func TestConvGatherPWInt8(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	ks := []int{8, 16, 24, 32, 40, 64, 96, 128, 3, 12}
	fast := 0
	for i := 0; i < 300; i++ {
		k := ks[i%len(ks)]
		n := 2 * (1 + r.Intn(32))
		if i%9 == 4 {
			n = 1 + 2*r.Intn(10)
		}
		sh, sw := 1+r.Intn(2)*(i%4/3), 1+r.Intn(2)*(i%5/4)
		b, oh, ow := 1+r.Intn(2), 1+r.Intn(5), 1+r.Intn(7)
		ih, iw := (oh-1)*sh+1+r.Intn(2)*(sh-1), (ow-1)*sw+1+r.Intn(2)*(sw-1)
		zp := []int32{-128, 127, -1, 0, int32(r.Intn(256) - 128)}[r.Intn(5)]
		outZP := []int32{-128, 127, zp / 2}[i%3]
		lo, hi := int32(-128), int32(127)
		if i%4 == 1 {
			lo, hi = max(outZP, -128), min(outZP+80, 127)
		}
		in := convTRandI8(r, b*ih*iw*k)
		filter := convTRandI8(r, n*k)
		bias, mult, shift := convTRandQRight(r, n)
		if i%6 == 5 {
			bias, mult, shift = convTRandQ(r, n)
		}
		cp := &convParams{batches: b, inH: ih, inW: iw, inC: k, filterH: 1, filterW: 1, filterC: k,
			outH: oh, outW: ow, outC: n, groupOutC: n, strideH: sh, strideW: sw, dilationH: 1, dilationW: 1,
			inOffset: -zp, outOffset: outZP, actMin: lo, actMax: hi}
		want := make([]int8, b*oh*ow*n)
		convInt8(cp, in, filter, bias, mult, shift, want)
		p := &convRowsParams{batches: b, inH: ih, inW: iw, inC: k, filterH: 1, filterW: 1,
			outH: oh, outW: ow, outC: n, strideH: sh, strideW: sw, inZP: zp, outOffset: outZP, actMin: lo, actMax: hi}
		rq := convTRQ(bias, mult, shift, convTPWSums(filter, n), -zp)
		k8 := (k + 7) / 8 * 8
		padded := make([]int8, n*k8)
		for c := 0; c < n; c++ {
			copy(padded[c*k8:], filter[c*k:c*k+k])
		}
		wt := convTPWPairs(padded, n)
		if k%8 == 0 && n%2 == 0 && convPWChDecode(rq, k, outZP, lo, make([]convPWCh, n)) {
			fast++
		}
		got := make([]int8, len(want))
		convGatherPWInt8(p, in, wt, rq, make([]int32, convGatherScratch(k, n)), got)
		if !slices.Equal(got, want) {
			t.Fatalf("case %d (%dx%dx%dx%d -> %d, stride %dx%d): %v, want %v", i, b, ih, iw, k, n, sh, sw, got, want)
		}
		// Over its input.
		d := convTRasterPairShift(p)
		for _, f := range []struct {
			name string
			fn   func(*convRowsParams, []int8, string, string, []int32, []int8)
		}{{"convGatherInt8", convGatherInt8}, {"convGatherPWInt8", convGatherPWInt8}} {
			buf := make([]int8, max(d+len(in), len(want)))
			copy(buf[d:], in)
			f.fn(p, buf[d:d+len(in)], wt, rq, make([]int32, convGatherScratch(k, n)), buf[:len(want)])
			if !slices.Equal(buf[:len(want)], want) {
				t.Fatalf("case %d (%dx%dx%dx%d -> %d, stride %dx%d), %s over its input %d bytes on: %v, want %v", i, b, ih, iw, k, n, sh, sw, f.name, d, buf[:len(want)], want)
			}
		}
	}
	if fast < 150 {
		t.Fatalf("only %d cases took convGatherPWInt8's own loop", fast)
	}
}
