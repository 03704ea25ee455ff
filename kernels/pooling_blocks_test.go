package kernels

import (
	"math/rand"
	"slices"
	"testing"
)

// TestPoolInt8Blocks compares maxPoolInt8Blocks and avgPoolInt8Blocks with
// maxPoolInt8 and avgPoolInt8 on random layers: windows 1x1 to 7x7 and
// global ones, strides 1 to 3, SAME and VALID padding (edge windows of
// every shape), depths 4 to 64, batches, clamps, all-minimum inputs.
func TestPoolInt8Blocks(t *testing.T) {
	r := rand.New(rand.NewSource(73))
	ran := 0
	for i := 0; i < 300; i++ {
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
			continue
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
		n := p.batches * p.outH * p.outW * p.depth
		for _, avg := range []bool{false, true} {
			want, got := make([]int8, n), make([]int8, n)
			if avg {
				avgPoolInt8(p, in, want)
				avgPoolInt8Blocks(p, in, got)
			} else {
				maxPoolInt8(p, in, want)
				maxPoolInt8Blocks(p, in, got)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("case %d %+v avg %v:\n got %v\nwant %v", i, *p, avg, got, want)
			}
		}
		ran++
	}
	if ran < 100 {
		t.Fatalf("only %d of 300 random layers had windows inside the input", ran)
	}
}
