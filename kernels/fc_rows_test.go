package kernels

import (
	"math"
	"math/rand"
	"testing"
)

// fcTPackRows mirrors gen/lower's fcPackRows for a weight matrix [n][k]:
// fcRowsBlocks' blocks, each [k][m] signed bytes.
func fcTPackRows(w []int8, n, k int) string {
	nb, base, rem := fcRowsBlocks(n)
	var out []byte
	c := 0
	for i := 0; i < nb; i++ {
		m := base
		if i < rem {
			m++
		}
		for d := 0; d < k; d++ {
			for r := c; r < c+m; r++ {
				out = append(out, byte(w[r*k+d]))
			}
		}
		c += m
	}
	return string(out)
}

// TestFcRowsInt8 compares fcRowsInt8 (per-channel records) and
// fcRowsInt8Q (one-multiply record, where rqOneSet takes the
// requantization) bit for bit with the reference (fcTRef) on random
// layers: every block size, depths around the unrolled group of sixteen,
// several batches, input and output zero points at the int8 limits, narrow
// clamps, per-tensor and per-channel multipliers, with and without bias,
// biases large enough to wrap the accumulator.
func TestFcRowsInt8(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	depths := []int{1, 2, 5, 15, 16, 17, 31, 32, 33, 64, 100, 128, 255, 256, 300}
	fast := 0
	for i := 0; i < 600; i++ {
		k := depths[i%len(depths)]
		if i%5 == 4 {
			k = 1 + r.Intn(90)
		}
		n := 1 + i%40
		if i%7 == 6 {
			n = 1 + r.Intn(130)
		}
		batches := 1 + r.Intn(4)
		inZP := int32(r.Intn(256) - 128)
		if i%4 == 0 {
			inZP = []int32{-128, 127}[i/4%2]
		}
		outZP := int32(r.Intn(256) - 128)
		if i%6 == 1 {
			outZP = []int32{-128, 127}[i/6%2]
		}
		lo, hi := int32(-128), int32(127)
		if i%3 == 1 {
			lo, hi = max(outZP, -128), min(outZP+90, 127)
		}
		p := &fcParams{batches: batches, outDepth: n, accumDepth: k, outOffset: outZP, actMin: lo, actMax: hi}
		x := make([]int32, batches*k)
		in := make([]int8, len(x))
		for j := range x {
			x[j] = int32(r.Intn(256) - 128)
			if j%11 == 0 {
				x[j] = -128
			}
			in[j] = int8(x[j])
		}
		w := make([]int8, n*k)
		for j := range w {
			w[j] = int8(r.Intn(256) - 128)
		}
		perTensor := i%2 == 0
		typical := 74 * 74 * math.Sqrt(float64(k))
		rsh := int32(math.Round(math.Log2(typical / 127 * 4)))
		bias := make([]int64, n)
		mult := make([]int32, n)
		shift := make([]int32, n)
		folded := make([]int64, n)
		for c := range bias {
			switch {
			case i%9 == 3: // no bias
			case i%9 == 5 && c%3 == 0:
				bias[c] = int64(int32(r.Uint32())) // wraps the accumulator
			default:
				bias[c] = int64(r.Int31n(1<<12) - 1<<11)
			}
			mult[c] = 1<<30 + r.Int31n(1<<30)
			shift[c] = -rsh + int32(r.Intn(3)) - 1
			if i%10 == 8 {
				shift[c] = int32(r.Intn(3)) // left shifts
			}
			if perTensor && c > 0 {
				mult[c], shift[c] = mult[0], shift[0]
			}
			var sum int64
			for _, v := range w[c*k : (c+1)*k] {
				sum += int64(v)
			}
			folded[c] = bias[c] - int64(inZP)*sum
		}
		want := fcTRef(p, x, w, bias, -inZP, mult, shift, false)
		b32 := make([]int32, n)
		for c, v := range folded {
			b32[c] = int32(v)
		}
		packed := fcTPackRows(w, n, k)
		got := make([]int8, len(want))
		fcRowsInt8(p, in, packed, fcTTable(fcTStr32(b32), fcTStr32(mult), fcTStr32(shift)), got)
		for j := range want {
			if int32(got[j]) != want[j] {
				t.Fatalf("case %d (k %d n %d b %d): fcRowsInt8 out[%d] = %d, want %d", i, k, n, batches, j, got[j], want[j])
			}
		}
		if !perTensor {
			continue
		}
		q := fcTRQ(mult[0], int(shift[0]))
		var rec rqOne
		if !rqOneSet(&rec, q.mult, q.lsh, q.rsh, outZP, lo, hi) {
			continue
		}
		fast++
		clear(got)
		fcRowsInt8Q(p, in, packed, fcTStr32(b32), &rec, got)
		for j := range want {
			if int32(got[j]) != want[j] {
				t.Fatalf("case %d (k %d n %d b %d): fcRowsInt8Q out[%d] = %d, want %d", i, k, n, batches, j, got[j], want[j])
			}
		}
	}
	if fast < 200 {
		t.Fatalf("only %d cases took fcRowsInt8Q", fast)
	}
}
