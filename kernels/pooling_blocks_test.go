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
		p, in := randPoolLayer(r, i)
		if p == nil {
			continue
		}
		poolCompare(t, i, p, in, maxPoolInt8Blocks, avgPoolInt8Blocks)
		ran++
	}
	if ran < 100 {
		t.Fatalf("only %d of 300 random layers had windows inside the input", ran)
	}
}

// poolCompare runs random pool layer i (p, input in) through maxK and avgK
// and through the reference maxPoolInt8 and avgPoolInt8, and compares.
func poolCompare(t *testing.T, i int, p *poolParams, in []int8, maxK, avgK func(p *poolParams, in, out []int8)) {
	t.Helper()
	n := p.batches * p.outH * p.outW * p.depth
	for _, avg := range []bool{false, true} {
		want, got := make([]int8, n), make([]int8, n)
		if avg {
			avgPoolInt8(p, in, want)
			avgK(p, in, got)
		} else {
			maxPoolInt8(p, in, want)
			maxK(p, in, got)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("case %d %+v avg %v:\n got %v\nwant %v", i, *p, avg, got, want)
		}
	}
}
