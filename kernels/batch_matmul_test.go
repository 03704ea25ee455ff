package kernels

import (
	"math"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// Cases from TFLite Micro's tensorflow/lite/micro/kernels/
// batch_matmul_test.cc. bmmTPrep computes the strides as
// gen/lower/batch_matmul.go does (without the operand swap, which
// TestBatchMatmulSwapped checks separately).

func bmmTPrep(lhs, rhs []int, adjX, adjY bool) *batchMatmulParams {
	ext := func(s []int) []int {
		e := []int{1, 1, 1, 1, 1}
		copy(e[5-len(s):], s)
		return e
	}
	ls, rs := ext(lhs), ext(rhs)
	p := &batchMatmulParams{rows: ls[3], depth: ls[4], lRow: ls[4], lK: 1, cols: rs[4], rK: rs[4], rCol: 1}
	if adjX {
		p.rows, p.depth, p.lRow, p.lK = ls[4], ls[3], 1, ls[4]
	}
	if adjY {
		p.cols, p.rK, p.rCol = rs[3], 1, rs[4]
	}
	p.oRow, p.oCol = p.cols, 1
	lStride, rStride := ls[3]*ls[4], rs[3]*rs[4]
	n := []*int{&p.n0, &p.n1, &p.n2}
	lb := []*int{&p.l0, &p.l1, &p.l2}
	rb := []*int{&p.r0, &p.r1, &p.r2}
	for i := 2; i >= 0; i-- {
		*n[i] = max(ls[i], rs[i])
		if ls[i] != 1 {
			*lb[i] = lStride
		}
		if rs[i] != 1 {
			*rb[i] = rStride
		}
		lStride *= ls[i]
		rStride *= rs[i]
	}
	return p
}

func iota32(n int, from float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = from + float32(i)
	}
	return v
}

func TestBatchMatmulF32(t *testing.T) {
	for _, c := range []struct {
		name       string
		lhs, rhs   []int
		adjX, adjY bool
		l, r       []float32
		want       []float32
	}{
		{"Simple", []int{1, 2, 3}, []int{1, 3, 4}, false, false, iota32(6, 1), iota32(12, 7),
			[]float32{74, 80, 86, 92, 173, 188, 203, 218}},
		{"SimpleRHSAdjoint", []int{1, 2, 3}, []int{1, 4, 3}, false, true, iota32(6, 1),
			[]float32{7, 11, 15, 8, 12, 16, 9, 13, 17, 10, 14, 18},
			[]float32{74, 80, 86, 92, 173, 188, 203, 218}},
		{"SimpleLHSAdjoint", []int{1, 3, 2}, []int{1, 3, 4}, true, false, []float32{1, 4, 2, 5, 3, 6}, iota32(12, 7),
			[]float32{74, 80, 86, 92, 173, 188, 203, 218}},
		{"Broadcast2", []int{2, 1, 3, 2}, []int{3, 2, 4}, false, false, iota32(12, 1), iota32(24, 7),
			[]float32{29, 32, 35, 38, 65, 72, 79, 86, 101, 112, 123, 134,
				53, 56, 59, 62, 121, 128, 135, 142, 189, 200, 211, 222,
				77, 80, 83, 86, 177, 184, 191, 198, 277, 288, 299, 310,
				137, 152, 167, 182, 173, 192, 211, 230, 209, 232, 255, 278,
				257, 272, 287, 302, 325, 344, 363, 382, 393, 416, 439, 462,
				377, 392, 407, 422, 477, 496, 515, 534, 577, 600, 623, 646}},
		{"BroadcastFromRHS", []int{4, 5}, []int{3, 1, 5, 2}, false, false, iota32(20, 1), iota32(30, 7),
			[]float32{185, 200, 460, 500, 735, 800, 1010, 1100, 335, 350, 860, 900,
				1385, 1450, 1910, 2000, 485, 500, 1260, 1300, 2035, 2100, 2810, 2900}},
		{"ConstRHSBatchMatMulOpModelRHSNotAdjoint", []int{1, 6, 2}, []int{2, 3}, false, false,
			[]float32{6, 3, 7, 4, 6, 9, 2, 6, 7, 4, 3, 7}, []float32{6, 3, 7, 4, 6, 9},
			[]float32{48, 36, 69, 58, 45, 85, 72, 72, 123, 36, 42, 68, 58, 45, 85, 46, 51, 84}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := bmmTPrep(c.lhs, c.rhs, c.adjX, c.adjY)
			out := make([]float32, len(c.want))
			batchMatmulF32(p, c.l, c.r, out)
			check := func(kind string) {
				for i := range c.want {
					if out[i] != c.want[i] {
						t.Fatalf("%s: got %v, want %v", kind, out, c.want)
					}
				}
			}
			check("arena rhs")
			var s []byte
			for _, v := range c.r {
				b := math.Float32bits(v)
				s = append(s, byte(b), byte(b>>8), byte(b>>16), byte(b>>24))
			}
			clear(out)
			batchMatmulF32ConstR(p, c.l, string(s), out)
			check("constant rhs")
		})
	}
}

// TestBatchMatmulSwapped: the transposed product with swapped operands
// (how the lowering reads a constant lhs) gives the same output.
func TestBatchMatmulSwapped(t *testing.T) {
	p := bmmTPrep([]int{2, 1, 3, 2}, []int{3, 2, 4}, false, false)
	want := make([]float32, 72)
	batchMatmulF32(p, iota32(12, 1), iota32(24, 7), want)
	q := *p
	q.l0, q.l1, q.l2, q.r0, q.r1, q.r2 = p.r0, p.r1, p.r2, p.l0, p.l1, p.l2
	q.rows, q.cols = p.cols, p.rows
	q.lRow, q.lK, q.rK, q.rCol = p.rCol, p.rK, p.lK, p.lRow
	q.oRow, q.oCol = 1, p.cols
	got := make([]float32, 72)
	batchMatmulF32(&q, iota32(24, 7), iota32(12, 1), got)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

// bmmTQuant quantizes as the test's tflite::Quantize.
func bmmTQuant(v []float32, scale float32, zp int32, lo, hi int32) []int32 {
	q := make([]int32, len(v))
	for i, x := range v {
		q[i] = min(max(int32(math.Round(float64(x/scale)))+zp, lo), hi)
	}
	return q
}

var (
	bmmTLhsQ = []float32{1, 2, 3, 4, 5, 6, 7, 8, -9, -10, 1, 2, 3, 4, 5, 6, 7, -8, 9, -10}
	bmmTRhsQ = []float32{1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5,
		6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9, 9, 10, 10, 10}
)

// TestBatchMatmulInt8: SimpleTestQuantizedInt8. The test's data ranges
// [-63.5, 64] and [-127, 128] give scales 0.5 and 1 with zero point -1
// (ScaleFromMinMax, ZeroPointFromMinMax).
func TestBatchMatmulInt8(t *testing.T) {
	p := bmmTPrep([]int{2, 10}, []int{10, 3}, false, false)
	p.lhsZP, p.rhsZP, p.outZP = -1, -1, -1
	p.mult, p.shift = quant.Multiplier(float64(float32(0.5)*float32(0.5)) / 1.0)
	conv := func(v []int32) []int8 {
		o := make([]int8, len(v))
		for i, x := range v {
			o[i] = int8(x)
		}
		return o
	}
	l := conv(bmmTQuant(bmmTLhsQ, 0.5, -1, -128, 127))
	r := conv(bmmTQuant(bmmTRhsQ, 0.5, -1, -128, 127))
	out := make([]int8, 6)
	batchMatmulInt8(p, l, r, out)
	want := []int8{22, 22, 22, 56, 56, 56}
	for i := range want {
		if out[i] != want[i] {
			t.Fatalf("got %v, want %v", out, want)
		}
	}
}

// TestBatchMatmulInt16: SimpleTestQuantizedInt16 (scales 10/32767 and 1,
// zero points 0), with the rhs in the arena and as a constant.
func TestBatchMatmulInt16(t *testing.T) {
	p := bmmTPrep([]int{2, 10}, []int{10, 3}, false, false)
	s := float32(10.0 / 32767)
	p.mult, p.shift = quant.Multiplier(float64(s*s) / 1.0)
	conv := func(v []int32) []int16 {
		o := make([]int16, len(v))
		for i, x := range v {
			o[i] = int16(x)
		}
		return o
	}
	l := conv(bmmTQuant(bmmTLhsQ, s, 0, -32768, 32767))
	r := conv(bmmTQuant(bmmTRhsQ, s, 0, -32768, 32767))
	want := []int16{23, 23, 23, 57, 57, 57}
	out := make([]int16, 6)
	batchMatmulInt16(p, l, r, out)
	var str []byte
	for _, v := range r {
		str = append(str, byte(v), byte(uint16(v)>>8))
	}
	out2 := make([]int16, 6)
	batchMatmulInt16ConstR(p, l, string(str), out2)
	for i := range want {
		if out[i] != want[i] || out2[i] != want[i] {
			t.Fatalf("got %v and %v, want %v", out, out2, want)
		}
	}
}
