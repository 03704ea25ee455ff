package kernels

import (
	"math"
	"math/rand"
	"testing"
)

// TestLstmR checks lstmR's one-step requantization against rqApply over
// extreme and random accumulators, multipliers and exponents wherever
// lstmRFits says it holds (for any int32 and for |x| <= 2^30; never for a
// left shift), and lstmRG (with a left shift) wherever lstmRGFits holds.
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
			g, gfits := lstmMakeRG(m, shift), lstmRGFits(m, shift)
			for _, x := range xs {
				if gfits {
					if got, want := g.rq(x), rqApply(x, &r); got != want {
						t.Fatalf("m %d shift %d x %d: lstmRG %d, rqApply %d", m, shift, x, got, want)
					}
				}
				small := x >= -1<<30 && x <= 1<<30 && fitsSmall
				if !fits && !small {
					continue
				}
				if got, want := q.rq(x), rqApply(x, &r); got != want {
					t.Fatalf("m %d shift %d x %d (fits %v): lstmR %d, rqApply %d", m, shift, x, fits, got, want)
				}
				if shift < 0 && fits {
					u := lstmMakeRU(m, shift)
					if got, want := u.rq(uint32(x)^1<<31), rqApply(x, &r); got != want {
						t.Fatalf("m %d shift %d x %d: lstmRU %d, rqApply %d", m, shift, x, got, want)
					}
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

// TestLstmInt8Wide runs lstmInt8 and lstmInt8Wide (rqApply's two steps,
// the path for multipliers lstmR does not fit) on random models, with and
// without recurrent biases, odd and even unit counts, and extreme biases
// that saturate the gates: outputs and states must agree.
func TestLstmInt8Wide(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	for trial := range 300 {
		n, s := 1+rng.Intn(20), 1+rng.Intn(11)
		p := &lstmParams{batch: 1 + rng.Intn(2), steps: 1 + rng.Intn(4), inDim: n, units: s, timeMajor: rng.Intn(2) == 0,
			forgetMult: 1<<30 + int32(rng.Intn(1<<30)), forgetShift: -10 - rng.Intn(10),
			inputMult: 1<<30 + int32(rng.Intn(1<<30)), inputShift: -10 - rng.Intn(10),
			hidMult: 1<<30 + int32(rng.Intn(1<<30)), hidShift: -18 - rng.Intn(10),
			hidZP: int32(rng.Intn(21) - 10), hidMin: -128, hidMax: 127,
			tanhMult: 3, tanhShift: 0, clip: rng.Intn(2) == 0, cellClip: int32(1000 + rng.Intn(40000)),
		}
		if rng.Intn(3) == 0 {
			p.tanhMult, p.tanhShift = int32(1+rng.Intn(7)), rng.Intn(4)
		}
		var gates [4]*lstmGate
		for k := range gates {
			gates[k] = &lstmGate{inMult: 1<<30 + int32(rng.Intn(1<<30)), inShift: -rng.Intn(8) + rng.Intn(2),
				recMult: 1<<30 + int32(rng.Intn(1<<30)), recShift: -rng.Intn(8) + rng.Intn(2)}
		}
		var w, r [4][]int8
		for k := range w {
			w[k], r[k] = make([]int8, s*n), make([]int8, s*s)
			for i := range w[k] {
				w[k][i] = int8(rng.Intn(256) - 128)
			}
			for i := range r[k] {
				r[k][i] = int8(rng.Intn(256) - 128)
			}
		}
		recB := trial%2 == 0
		var b []int64
		for range s {
			for half := range 2 {
				for range 4 {
					v := int64(rng.Intn(1<<18) - 1<<17)
					if rng.Intn(10) == 0 {
						v = int64(int32(rng.Uint32()))
					}
					if half == 1 && !recB {
						v = 0
					}
					b = append(b, v)
				}
			}
		}
		wIn, wRec, bias := lstmTPackW(w, s, n), lstmTPackW(r, s, s), lstmTStr(b, 4)
		rows := p.batch * p.steps
		x := make([]int8, rows*n)
		for i := range x {
			x[i] = int8(rng.Intn(256) - 128)
		}
		h0, c0 := make([]int8, p.batch*s), make([]int16, p.batch*s)
		for i := range h0 {
			h0[i], c0[i] = int8(rng.Intn(256)-128), int16(rng.Intn(65536)-32768)
		}
		h1, c1, o1 := append([]int8(nil), h0...), append([]int16(nil), c0...), make([]int8, rows*s)
		h2, c2, o2 := append([]int8(nil), h0...), append([]int16(nil), c0...), make([]int8, rows*s)
		lstmInt8(p, x, h1, c1, o1, gates[0], gates[1], gates[2], gates[3], wIn, wRec, bias, make([]int32, lstmInt8Scratch))
		lstmInt8Wide(p, x, h2, c2, o2, gates[0], gates[1], gates[2], gates[3], wIn, wRec, bias, make([]int32, lstmInt8Scratch))
		for i := range o1 {
			if o1[i] != o2[i] {
				t.Fatalf("trial %d (%+v): out[%d] = %d, wide %d", trial, *p, i, o1[i], o2[i])
			}
		}
		for i := range h1 {
			if h1[i] != h2[i] || c1[i] != c2[i] {
				t.Fatalf("trial %d: state %d = %d/%d, wide %d/%d", trial, i, h1[i], c1[i], h2[i], c2[i])
			}
		}
	}
}
