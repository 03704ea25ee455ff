package kernels

import (
	"math/rand"
	"slices"
	"testing"
)

// TestPoolDSPInt8 compares maxPoolDSPInt8 and avgPoolDSPInt8 (their Go
// loops here; TestDSPOnBoard compares the Thumb-2 ones with them) with
// maxPoolInt8 and avgPoolInt8 on random layers: windows 1x1 to 7x7 and
// global ones, strides 1 to 3, SAME and VALID padding (edge windows of
// every shape), depths 4 to 64, clamps, all-minimum inputs.
func TestPoolDSPInt8(t *testing.T) {
	r := rand.New(rand.NewSource(53))
	for i := 0; i < 300; i++ {
		p, in := randPoolLayer(r, i)
		if p == nil {
			continue
		}
		n := p.batches * p.outH * p.outW * p.depth
		for _, avg := range []bool{false, true} {
			k, ok := dspPoolPlan(avg, p.depth, p.inW, p.outW, p.strideW, p.filterH, p.filterW, p.actMin, p.actMax)
			if !ok {
				t.Fatalf("case %d %+v: no plan", i, *p)
			}
			want, got := make([]int8, n), make([]int8, n)
			if avg {
				avgPoolInt8(p, in, want)
				avgPoolDSPInt8(p, string(k), in, got)
			} else {
				maxPoolInt8(p, in, want)
				maxPoolDSPInt8(p, string(k), in, got)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("case %d %+v avg %v:\n got %v\nwant %v", i, *p, avg, got, want)
			}
		}
	}
}

// randPoolLayer returns random int8 pooling layer i of the pool tests
// (TestPoolDSPInt8's layers) and its input, nil when a window lies outside
// the input.
func randPoolLayer(r *rand.Rand, i int) (*poolParams, []int8) {
	p := &poolParams{batches: 1 + r.Intn(2), inH: 1 + r.Intn(12), inW: 1 + r.Intn(12), depth: 4 * (1 + r.Intn(16)),
		filterH: 1 + r.Intn(7), filterW: 1 + r.Intn(7), strideH: 1 + r.Intn(3), strideW: 1 + r.Intn(3)}
	if i%10 == 0 {
		p.filterH, p.filterW = p.inH, p.inW
	}
	same := r.Intn(2) == 0
	geo := func(in, f, s int) (out, pad int) {
		if same {
			out = (in + s - 1) / s
			return out, max((out-1)*s+f-in, 0) / 2
		}
		return (in - f + s) / s, 0
	}
	p.outH, p.padH = geo(p.inH, p.filterH, p.strideH)
	p.outW, p.padW = geo(p.inW, p.filterW, p.strideW)
	if p.outH <= 0 || p.outW <= 0 || !poolNonEmpty(p) {
		return nil, nil
	}
	p.actMin, p.actMax = -128, 127
	if i%3 == 1 {
		p.actMin, p.actMax = int32(r.Intn(100)-100), int32(r.Intn(100))
	}
	in := make([]int8, p.batches*p.inH*p.inW*p.depth)
	for j := range in {
		in[j] = int8(r.Intn(256) - 128)
		if i%7 == 0 {
			in[j] = -128
		}
	}
	return p, in
}

// poolNonEmpty reports whether every window of p overlaps the input.
func poolNonEmpty(p *poolParams) bool {
	for oy := 0; oy < p.outH; oy++ {
		if a, b := poolWindow(oy*p.strideH-p.padH, p.filterH, p.inH); a >= b {
			return false
		}
	}
	for ox := 0; ox < p.outW; ox++ {
		if a, b := poolWindow(ox*p.strideW-p.padW, p.filterW, p.inW); a >= b {
			return false
		}
	}
	return true
}
