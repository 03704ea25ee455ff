package kernels

import (
	"math"
	"math/rand"
	"testing"
)

// TestLstmR checks lstmR's one-step requantization against rqApply over
// extreme and random accumulators, multipliers and exponents wherever
// lstmRFits says it holds (for any int32 and for |x| <= 2^30).
func TestLstmR(t *testing.T) {
	rng := rand.New(rand.NewSource(12))
	xs := []int32{0, 1, -1, 2, -2, 3, -3, math.MaxInt32, math.MinInt32, math.MaxInt32 - 1, math.MinInt32 + 1, 1 << 30, -1 << 30, 32767, -32768, 32767 * 32767, -32768 * 32767}
	for range 2000 {
		xs = append(xs, int32(rng.Uint32()), int32(rng.Uint32())>>uint(rng.Intn(31)))
	}
	ms := []int32{0, 1, 1 << 30, math.MaxInt32, math.MaxInt32 - 1, 1 << 29, 1518500250, 1<<31 - 1<<10, 1<<31 - 1<<10 + 1}
	for range 40 {
		ms = append(ms, int32(rng.Uint32()>>1), int32(1<<31-1-rng.Intn(1<<12)))
	}
	for shift := -31; shift <= 30; shift++ {
		for _, m := range ms {
			r, q := rqFor(m, shift), lstmMakeR(m, shift)
			fits, fitsSmall := lstmRFits(m, shift, 1<<31-1), lstmRFits(m, shift, 1<<30)
			for _, x := range xs {
				small := x >= -1<<30 && x <= 1<<30 && fitsSmall
				if !fits && !small {
					continue
				}
				if got, want := q.rq(x), rqApply(x, &r); got != want {
					t.Fatalf("m %d shift %d x %d (fits %v): lstmR %d, rqApply %d", m, shift, x, fits, got, want)
				}
			}
		}
	}
	// lstmRFits declines just above its bound, where lstmR can be wrong.
	if lstmRFits(math.MaxInt32, -3, 1<<31-1) || !lstmRFits(1<<31-1<<4, -3, 1<<31-1) || !lstmRFits(math.MaxInt32, -30, 1<<30) || lstmRFits(math.MaxInt32, -31, 1<<30) {
		t.Fatal("lstmRFits bound")
	}
	q, r := lstmMakeR(math.MaxInt32, -20), rqFor(math.MaxInt32, -20)
	if q.rq(math.MaxInt32) == rqApply(math.MaxInt32, &r) {
		t.Fatal("lstmR is right where lstmRFits declines: the fallback is untested")
	}
}
