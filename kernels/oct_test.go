package kernels

import (
	"math"
	"math/rand"
	"testing"
)

// octTPack lays out rows [n][k] as octDot reads them (as gen's octPack
// does): blocks of eight rows, the last padded with zero rows, each [k][8]
// of w^0x80, then octPad zero bytes.
func octTPack(w [][]int8, k int) string {
	var b []byte
	for c := 0; c < len(w); c += 8 {
		for d := 0; d < k; d++ {
			for r := c; r < c+8; r++ {
				v := byte(0x80)
				if r < len(w) {
					v = byte(w[r][d]) ^ 0x80
				}
				b = append(b, v)
			}
		}
	}
	return string(append(b, make([]byte, octPad)...))
}

// TestOctDot compares octDot's eight sums (less 128*sum(x)) with plain
// int32 dot products: random rows, and the extremes (all -128; -128
// against 127), lengths around the unrolling and up to 2000.
func TestOctDot(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for trial := 0; trial < 400; trial++ {
		k := r.Intn(300)
		if trial < 12 {
			k = []int{0, 1, 7, 8, 9, 15, 16, 17, 257, 560, 1000, 2000}[trial]
		}
		mode := trial % 4
		x := make([]int8, k)
		w := make([][]int8, 8)
		for j := range w {
			w[j] = make([]int8, k)
		}
		for d := 0; d < k; d++ {
			x[d] = int8(r.Intn(256) - 128)
			for j := range w {
				w[j][d] = int8(r.Intn(256) - 128)
				switch mode {
				case 1:
					x[d], w[j][d] = -128, -128
				case 2:
					x[d], w[j][d] = -128, 127
				}
			}
		}
		var got [8]int32
		octDot(x, octTPack(w, k), &got)
		corr := -128 * fcSumI8(x)
		for j := range w {
			var want int32
			for d := 0; d < k; d++ {
				want += int32(x[d]) * int32(w[j][d])
			}
			if got[j]+corr != want {
				t.Fatalf("trial %d (k %d, mode %d): row %d = %d, want %d", trial, k, mode, j, got[j]+corr, want)
			}
		}
	}
}

// TestRqApply compares rqApply with mulByQuantMul on random and extreme
// values for every exponent quant.Multiplier can produce.
func TestRqApply(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	xs := []int32{0, 1, -1, 2, -2, math.MaxInt32, math.MinInt32, math.MaxInt32 - 1, math.MinInt32 + 1, 1 << 30, -1 << 30}
	for shift := -31; shift <= 30; shift++ {
		for _, m := range []int32{0, 1, 1 << 30, 1<<30 + 1, math.MaxInt32, 1518500250} {
			for i := 0; i < 300; i++ {
				m := m
				if i%3 == 0 {
					m = 1<<30 + r.Int31n(1<<30)
				}
				var x int32
				if i < len(xs) {
					x = xs[i]
				} else {
					x = int32(r.Uint32()) >> uint(r.Intn(32))
				}
				q := rqFor(m, shift)
				if got, want := rqApply(x, &q), mulByQuantMul(x, m, shift); got != want {
					t.Fatalf("rqApply(%d, %d, %d) = %d, want %d", x, m, shift, got, want)
				}
			}
		}
	}
}
