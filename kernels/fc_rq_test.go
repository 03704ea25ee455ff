package kernels

import (
	"math"
	"math/rand"
	"testing"
)

// fcTQ is the generation-time form of a requantization (gen/lower_fc.go's
// fcRQ): multiplier, rounding half, left shift and 31 + right shift.
type fcTQ struct {
	mult, half int32
	lsh, rsh   uint8
}

// rq builds the kernels' fcRQ.
func (q fcTQ) rq() fcRQ { return fcMakeRQ(q.mult, q.half, q.lsh, q.rsh) }

// fcTRQ builds the requantization of multiplier m and exponent shift as
// gen/lower_fc.go does.
func fcTRQ(m int32, shift int) fcTQ {
	q := fcTQ{mult: m, rsh: 31}
	if shift > 0 {
		q.lsh = uint8(shift)
	} else if shift < 0 {
		q.rsh = uint8(31 - shift)
		q.half = 1 << (-shift - 1)
	}
	return q
}

// TestFcRescale compares fcRescale with mulByQuantMul (the transcription of
// TFLite's MultiplyByQuantizedMultiplier) for every exponent on random and
// extreme accumulators, including ties and 32-bit wrap of the left shift.
func TestFcRescale(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	xs := []int32{0, 1, -1, 2, -2, 3, -3, math.MaxInt32, math.MinInt32, math.MaxInt32 - 1, math.MinInt32 + 1, 1 << 20, -1 << 20}
	ms := []int32{0, 1 << 30, 1<<31 - 1, 1<<30 + 1, 1518500250}
	for shift := -31; shift <= 30; shift++ {
		for k := 0; k < 4000; k++ {
			var x, m int32
			if k < len(xs)*len(ms) {
				x, m = xs[k%len(xs)], ms[k/len(xs)]
			} else {
				m = 1<<30 + r.Int31n(1<<30)
				switch k % 4 {
				case 0:
					x = int32(r.Uint32())
				case 1:
					x = r.Int31n(1<<16) - 1<<15
				case 2:
					// Values landing near a rounding tie of the second step.
					x = int32(r.Uint32()) >> uint(r.Intn(31))
				default:
					x = r.Int31n(256) - 128
				}
			}
			want := mulByQuantMul(x, m, shift)
			if got := fcRescale(x, fcTRQ(m, shift).rq()); got != want {
				t.Fatalf("x=%d m=%d shift=%d: got %d, want %d", x, m, shift, got, want)
			}
		}
	}
	// Exact ties: x*m/2^31 = (2j+1)/2 * 2^r for small multipliers.
	for shift := -20; shift < 0; shift++ {
		for j := int32(-300); j <= 300; j++ {
			m := int32(1 << 30) // x*m/2^31 = x/2
			x := j
			want := mulByQuantMul(x, m, shift)
			if got := fcRescale(x, fcTRQ(m, shift).rq()); got != want {
				t.Fatalf("tie x=%d shift=%d: got %d, want %d", x, shift, got, want)
			}
		}
	}
}
