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

// TestRqOne compares rqOneQ (and rqOne0 inside the range) with
// mulByQuantMul plus zero point and clamp for random requantizations
// (right shifts of 0 to 21, left shifts of 1 to 4) wherever rqOneSet
// accepts them, on random sums, sums at the ends of [-2^30, 2^30) after
// the left shift, and the int32 extremes, where the sum is clamped first.
func TestRqOne(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	accepted := 0
	for i := 0; i < 3000; i++ {
		m := int32(1<<30 + r.Intn(1<<30))
		shift := r.Intn(26) - 21
		q := fcTRQ(m, shift)
		zo := int32(r.Intn(256) - 128)
		lo, hi := int32(-128), int32(127)
		if i%2 == 1 {
			lo, hi = max(zo, -128), min(zo+int32(r.Intn(200)), 127)
		}
		var t1 rqOne
		if !rqOneSet(&t1, q.mult, q.lsh, q.rsh, zo, lo, hi) {
			continue
		}
		accepted++
		for j := 0; j < 200; j++ {
			var v int32
			switch j % 5 {
			case 0:
				v = int32(r.Uint32())
			case 1:
				v = int32(r.Intn(1<<22)) - 1<<21
			case 2:
				v = (1<<30 - 1 - int32(r.Intn(3))) >> q.lsh
			case 3:
				v = (-1<<30 + int32(r.Intn(3))) >> q.lsh
			default:
				v = [2]int32{math.MaxInt32, math.MinInt32}[j&1]
			}
			want := min(max(mulByQuantMul(v, m, shift)+zo, lo), hi)
			if got := rqOneQ(v, &t1); got != want {
				t.Fatalf("m %d shift %d zo %d [%d %d] v %d: rqOneQ %d, want %d", m, shift, zo, lo, hi, v, got, want)
			}
		}
	}
	if accepted < 1000 {
		t.Fatalf("rqOneSet accepted %d of 3000 requantizations", accepted)
	}
	// Where a sum beyond the range need not saturate, the clamp would be
	// wrong: rqOneSet must decline.
	var t1 rqOne
	for _, m := range []int32{1, 1 << 20, 1 << 27} {
		if q := fcTRQ(m, -21); rqOneSet(&t1, q.mult, q.lsh, q.rsh, 0, -128, 127) {
			t.Errorf("rqOneSet accepts multiplier %d with right shift 21", m)
		}
	}
}
