package kernels

import (
	"math/rand"
	"testing"
)

// TestPoolInt8Rows compares maxPoolInt8Rows and avgPoolInt8Rows with
// maxPoolInt8 and avgPoolInt8 on TestPoolInt8Blocks's random layers.
func TestPoolInt8Rows(t *testing.T) {
	r := rand.New(rand.NewSource(79))
	ran := 0
	for i := 0; i < 600; i++ {
		p, in := randPoolLayer(r, i)
		if p == nil {
			continue
		}
		if i%2 == 0 {
			// Windows of 2 or 3 taps a side, the runs' own.
			p, in = randPoolLayerSmall(r, i)
			if p == nil {
				continue
			}
		}
		poolCompare(t, i, p, in, maxPoolInt8Rows, avgPoolInt8Rows)
		ran++
	}
	if ran < 200 {
		t.Fatalf("only %d of 600 random layers had windows inside the input", ran)
	}
}

// randPoolLayerSmall is randPoolLayer with windows of 1 to 3 taps a side.
func randPoolLayerSmall(r *rand.Rand, i int) (*poolParams, []int8) {
	for {
		p, in := randPoolLayer(r, i)
		if p == nil {
			return nil, nil
		}
		if p.filterH <= 3 && p.filterW <= 3 {
			return p, in
		}
	}
}

// TestPoolAvgQ checks poolAvgQ against poolAvgRound for every window sum
// of windows of 1 to 2047 taps.
func TestPoolAvgQ(t *testing.T) {
	for n := int32(1); n < 2048; n++ {
		m, k := poolAvgRecip(n)
		for acc := -128 * n; acc <= 127*n; acc++ {
			if got, want := int32(poolAvgQ(acc, m, k)), poolAvgRound(acc, n); got != want {
				t.Fatalf("n %d sum %d: got %d, want %d", n, acc, got, want)
			}
		}
	}
}
