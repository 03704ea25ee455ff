package kernels

import (
	"fmt"
	"math/rand"
	"testing"
	"unsafe"
)

// dwTDSPCase is a random depthwise convolution for the dwDSP kernels.
type dwTDSPCase struct {
	b, inH, inW, inC, mul  int
	fH, fW, sH, sW, dH, dW int
	same                   bool
}

// dwTDSPLayout returns the dwDSP kernels' operands for a [1][fH][fW][n]
// filter: the weights and records (dwDSPPlanQ8's when q8, else
// dwDSPPlan's).
func dwTDSPLayout(t *testing.T, filter []int8, n, fH, fW int, bias, mult, shift string, zp, zo, lo int32, q8 bool) (wt, rec string) {
	taps := len(filter) / n
	rows := make([][]int8, n)
	sums := make([]int32, n)
	for oc := range rows {
		rows[oc] = make([]int8, taps)
		for k := range rows[oc] {
			rows[oc][k] = filter[k*n+oc]
			sums[oc] += int32(rows[oc][k])
		}
	}
	rq := convTRQ(bias, mult, shift, sums, -zp)
	w, r, ok := dwDSPPlan(rows, []byte(rq), zo, lo)
	if q8 {
		w, r, ok = dwDSPPlanQ8(rows, fH, fW, []byte(rq), zo, lo)
	}
	if !ok {
		t.Fatalf("dwDSPPlan refused the layer")
	}
	return string(w), string(r)
}

// dwTArena returns scratch of s words and n bytes after it, in one
// allocation, as the arena holds them.
func dwTArena(s, n int) ([]int32, []int8) {
	a := make([]int32, s+(n+3)/4+1)
	return a[:s], unsafe.Slice((*int8)(unsafe.Pointer(&a[s])), n)
}

// dwTDSPRun runs dwInt8 and the dwDSP kernel of c's depth multiplier
// (dwDSPInt8Q8 when q8) on one random case; with overlap it also runs the
// kernel written over its input at dwDSPShift's distance.
func dwTDSPRun(t *testing.T, r *rand.Rand, c dwTDSPCase, zp, zo, lo, hi int32, q8, overlap bool) bool {
	t.Helper()
	n := c.inC * c.mul
	oh := convTOutSize(c.same, c.inH, c.fH, c.sH, c.dH)
	ow := convTOutSize(c.same, c.inW, c.fW, c.sW, c.dW)
	if oh <= 0 || ow <= 0 {
		return false
	}
	dp := &dwParams{batches: c.b, inH: c.inH, inW: c.inW, inC: c.inC, filterH: c.fH, filterW: c.fW,
		outH: oh, outW: ow, outC: n, depthMul: c.mul, strideH: c.sH, strideW: c.sW, dilationH: c.dH, dilationW: c.dW,
		padH: convTPad(c.sH, c.dH, c.inH, c.fH, oh), padW: convTPad(c.sW, c.dW, c.inW, c.fW, ow),
		inOffset: -zp, outOffset: zo, actMin: lo, actMax: hi}
	in := convTRandI8(r, c.b*c.inH*c.inW*c.inC)
	filter := convTRandI8(r, c.fH*c.fW*n)
	bias, mult, shift := convTRandQRight(r, n)
	want := make([]int8, c.b*oh*ow*n)
	dwInt8(dp, in, filter, bias, mult, shift, want)
	p := &dwDSPParams{batches: c.b, inH: c.inH, inW: c.inW, inC: c.inC, filterH: c.fH, filterW: c.fW,
		outH: oh, outW: ow, outC: n, depthMul: c.mul, strideH: c.sH, strideW: c.sW, dilationH: c.dH, dilationW: c.dW,
		padH: dp.padH, padW: dp.padW, span: hi - lo, hi: hi}
	wt, rec := dwTDSPLayout(t, filter, n, c.fH, c.fW, bias, mult, shift, zp, zo, lo, q8)
	z := make([]byte, max(c.inC, dwDSPZerosQ8(ow, c.sW)))
	for i := range z {
		z[i] = byte(zp)
	}
	zrow := string(z)
	S := dwDSPScratch(c.fH, c.fW)
	if q8 {
		S = dwDSPScratchQ8(c.fH, c.fW)
	}
	run := func(scr []int32, in []int8, out []int8) {
		switch {
		case q8:
			dwDSPInt8Q8(p, in, wt, rec, zrow, scr, out)
		case c.mul == 1:
			dwDSPInt8M1(p, in, wt, rec, zrow, scr, out)
		case c.mul == 2:
			dwDSPInt8M2(p, in, wt, rec, zrow, scr, out)
		default:
			dwDSPInt8MQ(p, in, wt, rec, zrow, scr, out)
		}
	}
	scr, mem := dwTArena(S, len(in)+len(want))
	copy(mem, in)
	got := mem[len(in):]
	run(scr, mem[:len(in)], got)
	what := fmt.Sprintf("%+v q8 %v zp %d zo %d [%d, %d]", c, q8, zp, zo, lo, hi)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: output %d is %d, want %d", what, i, got[i], want[i])
		}
	}
	if !overlap {
		return true
	}
	s := dwDSPShift(p, q8)
	scr, buf := dwTArena(S, max(s+len(in), len(want)))
	copy(buf[s:], in)
	run(scr, buf[s:s+len(in)], buf[:len(want)])
	for i := range want {
		if buf[i] != want[i] {
			t.Fatalf("%s, written over its input at distance %d: output %d is %d, want %d", what, s, i, buf[i], want[i])
		}
	}
	return true
}

// TestDepthwiseDSP checks the dwDSP kernels (their Go loops here; the
// board test checks the Thumb-2 ones against them) against dwInt8: the
// grid's filter shapes, strides 1 to 3, dilation, SAME and VALID padding,
// channel counts that are not a multiple of four, depth multipliers 1, 2,
// 4 and 8, batches, the int8 limits of the zero points and clamps; and
// written over their input at dwDSPShift's distance.
func TestDepthwiseDSP(t *testing.T) {
	r := rand.New(rand.NewSource(24))
	filters := [][2]int{{3, 3}, {5, 5}, {7, 7}, {1, 3}, {3, 1}, {1, 9}, {9, 1}, {10, 4}, {10, 8}, {1, 1}, {2, 2}}
	muls := []int{1, 1, 1, 2, 4, 8, 8, 16}
	ran, q8 := 0, 0
	for i := 0; i < 400; i++ {
		f := filters[i%len(filters)]
		c := dwTDSPCase{b: 1 + r.Intn(2), inH: 1 + r.Intn(14), inW: 1 + r.Intn(14), mul: muls[r.Intn(len(muls))],
			fH: f[0], fW: f[1], sH: 1 + r.Intn(3), sW: 1 + r.Intn(3), dH: 1, dW: 1, same: r.Intn(3) != 0}
		if r.Intn(6) == 0 {
			c.dH, c.dW = 1+r.Intn(2), 1+r.Intn(2)
		}
		switch c.mul {
		case 1:
			c.inC = 4 + r.Intn(14)
		case 2:
			c.inC = 2 + r.Intn(7)
		default:
			c.inC = 1 + r.Intn(3)
			if r.Intn(2) == 0 {
				c.inC = 1
			}
		}
		zp := int32(r.Intn(256) - 128)
		zo := int32(r.Intn(256) - 128)
		lo, hi := int32(-128), int32(127)
		switch r.Intn(3) {
		case 1:
			lo = zo
		case 2:
			lo, hi = zo, min(zo+int32(r.Intn(200)), 127)
		}
		if i%50 == 0 {
			zp, zo, lo, hi = -128, -128, -128, 127
		}
		if dwTDSPRun(t, r, c, zp, zo, lo, hi, false, true) {
			ran++
		}
		if c.inC == 1 && c.mul%8 == 0 && c.dW == 1 {
			dwTDSPRun(t, r, c, zp, zo, lo, hi, true, true)
			q8++
		}
	}
	if ran < 300 || q8 < 40 {
		t.Errorf("only %d of the cases have an output, %d of them for dwDSPInt8Q8", ran, q8)
	}
}
