package kernels

import (
	"math"
	"math/rand"
	"testing"
	"unsafe"
)

// octTPack lays out rows [n][k] as octDot reads them (as gen's octPack
// does): blocks of eight rows, the last padded with zero rows, each
// [k/4][8][4] then [8][k%4], of w^0x80, then octPad zero bytes.
func octTPack(w [][]int8, k int) string {
	var b []byte
	at := func(r, d int) byte {
		if r < len(w) {
			return byte(w[r][d]) ^ 0x80
		}
		return 0x80
	}
	for c := 0; c < len(w); c += 8 {
		for g := 0; g < k; g += 4 {
			for r := c; r < c+8; r++ {
				for d := g; d < min(g+4, k); d++ {
					b = append(b, at(r, d))
				}
			}
		}
	}
	return string(append(b, make([]byte, octPad)...))
}

// TestOctDot compares octDot's eight sums (less 128*sum(x)) with plain
// int32 dot products: random rows, and the extremes (all -128; -128
// against 127), lengths around the unrollings (16, 8, 4, 1 on 32-bit
// targets; 4, 1 on 64-bit ones) and up to 2000.
func TestOctDot(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for trial := 0; trial < 400; trial++ {
		k := r.Intn(300)
		if ks := []int{0, 1, 3, 4, 7, 8, 9, 12, 15, 16, 17, 20, 28, 31, 32, 33, 257, 560, 1000, 2000}; trial < len(ks) {
			k = ks[trial]
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
		// octDot, and both of its paths directly (the other target's too).
		ws := octTPack(w, k)
		wp := unsafe.Pointer(unsafe.StringData(ws))
		var got, got8, got64 [8]int32
		octDot(x, ws, &got)
		octPass8(x, wp, &got8)
		octDot64(x, wp, &got64)
		corr := -128 * fcSumI8(x)
		for j := range w {
			var want int32
			for d := 0; d < k; d++ {
				want += int32(x[d]) * int32(w[j][d])
			}
			for _, g := range []struct {
				name string
				a    *[8]int32
			}{{"octDot", &got}, {"octPass8", &got8}, {"octDot64", &got64}} {
				if g.a[j]+corr != want {
					t.Fatalf("trial %d (k %d, mode %d): %s row %d = %d, want %d", trial, k, mode, g.name, j, g.a[j]+corr, want)
				}
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
