package kernels

import (
	"encoding/binary"
	"math/rand"
	"testing"
)

// TestTriDot compares triDot's twelve dot products with plain int32 sums,
// on random rows and on the extremes: every activation and weight -128 (the
// largest lane sums, +2^14 per product), activations -128 against weights
// 127, lengths around the block size triBlock.
func TestTriDot(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for trial := 0; trial < 300; trial++ {
		k := r.Intn(200)
		if trial < 12 {
			k = []int{0, 1, 2, 62, 63, 64, 125, 126, 127, 189, 190, 700}[trial]
		}
		mode := trial % 4
		x := make([]int8, k)
		var w [12][]int8
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
		b := make([]byte, 0, 32*k)
		for d := 0; d < k; d++ {
			for j := 0; j < 4; j++ {
				v := triTWord(func(u int) int8 { return w[3*j+u][d] }, 3)
				b = binary.LittleEndian.AppendUint64(b, uint64(v))
			}
		}
		var got triSums
		triDot(x, string(b), &got)
		for j := range w {
			var want int32
			for d := 0; d < k; d++ {
				want += int32(x[d]) * int32(w[j][d])
			}
			if got[j] != want {
				t.Fatalf("trial %d (k %d, mode %d): row %d = %d, want %d", trial, k, mode, j, got[j], want)
			}
		}
	}
}

// triTWord packs w(0), w(1), w(2) (rows n and up missing, counted as 0) as
// triDot reads them, w(0) + w(1)*2^21 + w(2)*2^42, as gen's triWord does.
func triTWord(w func(u int) int8, n int) int64 {
	var v int64
	for u := 0; u < n; u++ {
		v += int64(w(u)) << (21 * u)
	}
	return v
}
