package kernels

import (
	"math/rand"
	"strconv"
	"testing"
)

// Tests of the specialised int8 convolution kernels: each must equal the
// reference-order kernel (convInt8 / dwInt8, which TestConvInt8,
// TestConvReference and friends check against TFLM) bit for bit.

// convTRQ builds the requantization records the lowering emits
// (conv_rq.go) from the bias ("" for none), the per-channel multipliers and
// exponents as strings, the per-channel weight sums and the input offset.
func convTRQ(bias, mult, shift string, wsum []int32, inOffset int32) string {
	n := len(wsum)
	rec := make([]int32, n*convRQLen)
	for c := 0; c < n; c++ {
		var b int32
		if bias != "" {
			b = ld32(bias, c)
		}
		s := ld32(shift, c)
		left, right := max(s, 0), max(-s, 0)
		r := rec[c*convRQLen:]
		r[0] = b + inOffset*wsum[c]
		r[1] = ld32(mult, c)
		r[2], r[3] = left, right
		r[4] = int32(int64(1) << right >> 1)
		if right > 0 {
			r[5] = -1
		}
		r[6] = b
	}
	return convTI32s(rec)
}

// convTRandI8 returns n pseudo-random int8 values.
func convTRandI8(r *rand.Rand, n int) []int8 {
	v := make([]int8, n)
	for i := range v {
		v[i] = int8(r.Intn(256) - 128)
	}
	return v
}

// convTRandQ returns random per-channel bias, multipliers and exponents.
func convTRandQ(r *rand.Rand, n int) (bias, mult, shift string) {
	b := make([]int32, n)
	m := make([]int32, n)
	s := make([]int32, n)
	for i := range b {
		b[i] = int32(r.Intn(40001) - 20000)
		m[i] = int32(1<<30 + r.Intn(1<<30))
		s[i] = int32(r.Intn(14) - 12)
	}
	return convTI32s(b), convTI32s(m), convTI32s(s)
}

// convTPWSums sums each output channel's weights of a [outC][k] filter.
func convTPWSums(filter []int8, outC int) []int32 {
	k := len(filter) / outC
	s := make([]int32, outC)
	for c := range s {
		for _, w := range filter[c*k : (c+1)*k] {
			s[c] += int32(w)
		}
	}
	return s
}

// convTPWLayout re-lays a [outC][k] filter out as the pointwise kernel
// wants it: [outC/4 rounded up][k][4], zero-padded.
func convTPWLayout(filter []int8, outC int) string {
	k := len(filter) / outC
	nb := (outC + 3) / 4
	b := make([]byte, nb*k*4)
	for oc := 0; oc < outC; oc++ {
		for i := 0; i < k; i++ {
			b[((oc/4)*k+i)*4+oc%4] = byte(filter[oc*k+i])
		}
	}
	return string(b)
}

// TestConvRQScale compares the branch-free rescale with mulByQuantMul on
// edge and random accumulators, multipliers and exponents.
func TestConvRQScale(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	accs := []int32{0, 1, -1, 2, -2, 3, -3, 1 << 30, -1 << 30, 1<<31 - 1, -1 << 31, 12345, -12345}
	mults := []int32{0, 1, 1 << 30, 1<<31 - 1, 1518500250, 1073741825}
	for i := 0; i < 200000; i++ {
		accs = append(accs, int32(r.Uint32())>>uint(r.Intn(31)))
	}
	for i := 0; i < 50; i++ {
		mults = append(mults, int32(r.Uint32()>>1))
	}
	for _, m := range mults {
		for s := -31; s <= 31; s++ {
			rec := make([]int32, convRQLen)
			rec[1] = m
			rec[2], rec[3] = int32(max(s, 0)), int32(max(-s, 0))
			rec[4] = int32(int64(1) << rec[3] >> 1)
			if rec[3] > 0 {
				rec[5] = -1
			}
			for i, a := range accs {
				if i > 40 && (i+s)%13 != 0 {
					continue
				}
				if got, want := convRQScale(a, rec), mulByQuantMul(a, m, s); got != want {
					t.Fatalf("acc %d mult %d shift %d: got %d, want %d", a, m, s, got, want)
				}
			}
		}
	}
}

// convTPWShapes are person_detect's pointwise layers (pixels, inC, outC)
// plus odd sizes that exercise the pixel and channel tails.
var convTPWShapes = [][3]int{
	{2304, 8, 16}, {576, 16, 32}, {576, 32, 32}, {144, 32, 64}, {144, 64, 64},
	{36, 64, 128}, {36, 128, 128}, {9, 128, 256}, {9, 256, 256}, {1, 256, 2},
	{7, 5, 7}, {3, 1, 1}, {5, 300, 6},
}

// TestConvPWInt8 checks the pointwise kernel against convInt8 on random
// tensors, including zero points at the int8 limits and narrow clamps.
func TestConvPWInt8(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for _, sh := range convTPWShapes {
		for _, zp := range []int32{-128, -1, 0, 127} {
			px, k, n := sh[0], sh[1], sh[2]
			in := convTRandI8(r, px*k)
			filter := convTRandI8(r, n*k)
			for i := range filter {
				if filter[i] == -128 {
					filter[i] = -127
				}
			}
			bias, mult, shift := convTRandQ(r, n)
			lo, hi := int32(-128), int32(127)
			if zp == -1 {
				lo, hi = -100, 50
			}
			cp := &convParams{batches: 1, inH: 1, inW: px, inC: k, filterH: 1, filterW: 1, filterC: k,
				outH: 1, outW: px, outC: n, groupOutC: n, strideH: 1, strideW: 1, dilationH: 1, dilationW: 1,
				inOffset: -zp, outOffset: zp / 2, actMin: lo, actMax: hi}
			want := make([]int8, px*n)
			convInt8(cp, in, filter, bias, mult, shift, want)
			pp := &convPWParams{pixels: px, inC: k, outC: n, chunk: 63, outOffset: zp / 2, actMin: lo, actMax: hi}
			got := make([]int8, px*n)
			rq := convTRQ(bias, mult, shift, convTPWSums(filter, n), -zp)
			convPWInt8(pp, in, convTPWLayout(filter, n), rq, make([]int32, n*convRQLen), make([]int64, k), got)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%v zp %d: output %d is %d, want %d", sh, zp, i, got[i], want[i])
				}
			}
		}
	}
}

// convTWinCase is a random convolution geometry for TestConvWinInt8.
type convTWinCase struct {
	b, inH, inW, inC, fH, fW, outC, sH, sW, dH, dW int
	same                                           bool
}

// TestConvWinInt8 checks the gathered-window kernel against convInt8 on
// random tensors: SAME and VALID padding, strides, dilation, batches, zero
// points at the int8 limits and filters holding -128.
func TestConvWinInt8(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	cases := []convTWinCase{
		{1, 5, 7, 3, 3, 3, 5, 1, 1, 1, 1, true},
		{2, 6, 6, 2, 3, 3, 4, 2, 2, 1, 1, true},
		{1, 9, 8, 1, 4, 3, 6, 2, 3, 1, 1, true},
		{1, 7, 9, 2, 2, 2, 3, 1, 2, 2, 3, false},
		{1, 10, 10, 4, 5, 5, 9, 2, 2, 1, 1, true},
		{1, 3, 3, 30, 3, 3, 7, 1, 1, 1, 1, true},
		{1, 4, 5, 3, 1, 1, 2, 2, 2, 1, 1, true},
	}
	for ci, c := range cases {
		for _, zp := range []int32{-128, -5, 127} {
			oh := convTOutSize(c.same, c.inH, c.fH, c.sH, c.dH)
			ow := convTOutSize(c.same, c.inW, c.fW, c.sW, c.dW)
			cp := &convParams{batches: c.b, inH: c.inH, inW: c.inW, inC: c.inC, filterH: c.fH, filterW: c.fW,
				filterC: c.inC, outH: oh, outW: ow, outC: c.outC, groupOutC: c.outC, strideH: c.sH, strideW: c.sW,
				dilationH: c.dH, dilationW: c.dW, padH: convTPad(c.sH, c.dH, c.inH, c.fH, oh),
				padW: convTPad(c.sW, c.dW, c.inW, c.fW, ow), inOffset: -zp, outOffset: 3, actMin: -128, actMax: 127}
			in := convTRandI8(r, c.b*c.inH*c.inW*c.inC)
			filter := convTRandI8(r, c.outC*c.fH*c.fW*c.inC)
			bias, mult, shift := convTRandQ(r, c.outC)
			want := make([]int8, c.b*oh*ow*c.outC)
			convInt8(cp, in, filter, bias, mult, shift, want)
			wp := &convWinParams{batches: c.b, inH: c.inH, inW: c.inW, inC: c.inC, filterH: c.fH, filterW: c.fW,
				outH: oh, outW: ow, outC: c.outC, strideH: c.sH, strideW: c.sW, dilationH: c.dH, dilationW: c.dW,
				padH: cp.padH, padW: cp.padW, chunk: 63, inZP: int64(zp), outOffset: 3, actMin: -128, actMax: 127}
			got := make([]int8, len(want))
			k := c.fH * c.fW * c.inC
			rq := convTRQ(bias, mult, shift, convTPWSums(filter, c.outC), -zp)
			convWinInt8(wp, in, convTPWLayout(filter, c.outC), rq, make([]int32, c.outC*convRQLen), make([]int64, k), got)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("case %d zp %d: output %d is %d, want %d", ci, zp, i, got[i], want[i])
				}
			}
		}
	}
}

// BenchmarkConvPW times the pointwise kernel on person_detect's shapes.
func BenchmarkConvPW(b *testing.B) {
	r := rand.New(rand.NewSource(3))
	for _, sh := range convTPWShapes[:10] {
		px, k, n := sh[0], sh[1], sh[2]
		in := convTRandI8(r, px*k)
		filter := convTRandI8(r, n*k)
		bias, mult, shift := convTRandQ(r, n)
		rq := convTRQ(bias, mult, shift, convTPWSums(filter, n), 128)
		pp := &convPWParams{pixels: px, inC: k, outC: n, chunk: 64, outOffset: -128, actMin: -128, actMax: 127}
		wt := convTPWLayout(filter, n)
		out := make([]int8, px*n)
		rqs, xp := make([]int32, n*convRQLen), make([]int64, k)
		b.Run(convTShapeName(sh), func(b *testing.B) {
			for b.Loop() {
				convPWInt8(pp, in, wt, rq, rqs, xp, out)
			}
			b.ReportMetric(float64(px*k*n)*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "MAC/ns")
		})
		cp := &convParams{batches: 1, inH: 1, inW: px, inC: k, filterH: 1, filterW: 1, filterC: k,
			outH: 1, outW: px, outC: n, groupOutC: n, strideH: 1, strideW: 1, dilationH: 1, dilationW: 1,
			inOffset: 128, outOffset: -128, actMin: -128, actMax: 127}
		b.Run(convTShapeName(sh)+"/ref", func(b *testing.B) {
			for b.Loop() {
				convInt8(cp, in, filter, bias, mult, shift, out)
			}
			b.ReportMetric(float64(px*k*n)*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "MAC/ns")
		})
	}
}

// convTShapeName names a benchmark shape.
func convTShapeName(sh [3]int) string {
	return strconv.Itoa(sh[0]) + "x" + strconv.Itoa(sh[1]) + "x" + strconv.Itoa(sh[2])
}
