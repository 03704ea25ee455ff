package kernels

import (
	"math"
	"math/bits"
	"unsafe"
)

// Block floating point dot products for float32 layers built for TinyGo
// on a Cortex-M (the default -compiler): float32 is emulated there, and
// a float32 multiply-add costs about 90 instructions in compiler-rt's
// routines and 35 or more in exact integer emulation (f32sDot), against
// one SMLAL for a 32 x 32 -> 64-bit integer multiply-accumulate.
//
// A vector x of float32 becomes int32 significands X sharing one exponent
// ex (x[j] ~ X[j] * 2^ex): the largest magnitude gets bx bits, smaller
// ones are rounded to the same last place. A weight row becomes int32 W
// with its own exponent ew (at generation time, bw bits). The sum of X*W
// is exact in int64 (bx+bw+bits.Len(n) <= bfpSumBits), and the dot product
// is that sum times 2^(ex+ew), rounded once to float32 (to nearest even)
// after the bias is added. Each element is within half a last place of
// its vector's (row's) scale, so before that rounding the error is below
// 2^-bx*max|x|*sum|w| + 2^-bw*max|w|*sum|x| + n*2^-(bx+bw)*max|x|*max|w|
// (TestBFPDotAccuracy). On ordinary data of 16 or more elements that is
// 3 to 30 times closer to the exact value than float32's own sum of the
// products in order, which is what TFLM computes; an input whose
// elements span more than 2^bx loses the low bits of its smallest ones. The results are therefore not TFLM's
// bits but within the float tolerance of the tests (1e-5 relative), and
// they are the same bits on every target (integer arithmetic only), so
// the board's outputs equal the host's.

// bfpSumBits bounds a dot product's sum: |sum| < 2^bfpSumBits, which
// leaves room to add three aligned sums in int64.
const bfpSumBits = 61

// bfpBits returns the bits of the input significands (bx) and of the
// weights (bw) for dot products of n elements: bx+bw+bits.Len(n) <=
// bfpSumBits, the weights given up to 30 bits, the inputs up to 30.
func bfpBits(n int) (bx, bw uint32) {
	t := bfpSumBits - uint32(bits.Len(uint(n)))
	bw = min(30, (t+1)/2)
	return min(30, t-bw), bw
}

// bfpSig returns the significand and biased exponent of the float32 with
// bits b (a subnormal as exponent 1 with no leading one), and whether it
// is finite.
func bfpSig(b uint32) (m uint32, e int32, ok bool) {
	e = int32(b >> 23 & 0xff)
	m = b & 0x7fffff
	if e == 0 {
		return m, 1, true
	}
	return m | 1<<23, e, e != 255
}

// bfpVec stores in dst the significands of x's elements with the shared
// exponent it returns: x[j] is about dst[j] * 2^ex, |dst[j]| <= 2^bx
// (bx at most 30), each rounded to nearest (ties away from zero). ok is
// false, and dst unset, when an element is infinite or NaN. dst may be
// x's own memory (each element is read before it is written).
func bfpVec(dst []int32, x []float32, bx uint32) (ex int32, ok bool) {
	dst = dst[:len(x)]
	hi := uint32(0)
	for _, v := range x {
		b := math.Float32bits(v) &^ (1 << 31)
		if b >= 0x7f800000 {
			return 0, false
		}
		hi = max(hi, b)
	}
	eh := max(int32(hi>>23), 1)
	for j, v := range x {
		b := math.Float32bits(v)
		m, e, _ := bfpSig(b)
		// m<<7 has its leading one at bit 30 at most; shifted right by r
		// (at least 1) with rounding.
		r := uint32(eh-e) + 31 - bx
		var q int32
		if r < 32 {
			q = int32((m<<7 + 1<<(r-1)) >> r)
		}
		s := int32(b) >> 31
		dst[j] = q ^ s - s
	}
	return eh - 126 - int32(bx), true
}

// bfpAcc returns the [4]int64 in the first eight words of scratch xs
// (bfpDot4's sums live in the kernels' scratch, not in locals: see
// bfp_arm.go).
func bfpAcc(xs []int32) *[4]int64 {
	return (*[4]int64)(unsafe.Pointer(&xs[:8][0]))
}

// bfpDot4Ref stores in a the four sums of x[j] times the int32 words at
// w + 16*j + 4*k, k = 0..3 (the little-endian weights of four rows,
// interleaved; w need not be word-aligned): bfpDot4's Go form (bfp_go.go
// calls it; bfp_arm.go has the Thumb-2 loop for TinyGo on a Cortex-M).
func bfpDot4Ref(a *[4]int64, x []int32, w unsafe.Pointer) {
	var a0, a1, a2, a3 int64
	for _, v := range x {
		q := (*[4][4]byte)(w)
		x := int64(v)
		a0 += x * int64(le32(&q[0]))
		a1 += x * int64(le32(&q[1]))
		a2 += x * int64(le32(&q[2]))
		a3 += x * int64(le32(&q[3]))
		w = unsafe.Add(w, 16)
	}
	a[0], a[1], a[2], a[3] = a0, a1, a2, a3
}

// bfpTerm is one term of a sum to round: s * 2^e.
type bfpTerm struct {
	s int64
	e int32
}

// bfpAdd3 returns the sum of three terms (each |s| < 2^bfpSumBits) as
// one term, the smaller ones shifted right (arithmetically) to the
// largest exponent: the bits dropped are below 2^-bfpSumBits of the
// largest term's scale.
func bfpAdd3(t0, t1, t2 bfpTerm) bfpTerm {
	e := max(t0.e, t1.e, t2.e)
	return bfpTerm{t0.s>>uint32(e-t0.e) + t1.s>>uint32(e-t1.e) + t2.s>>uint32(e-t2.e), e}
}

// bfpF32 returns t.s * 2^t.e rounded to float32 (to nearest even):
// infinite when it is too large, subnormal or zero when too small.
func bfpF32(t bfpTerm) float32 {
	s := t.s
	var sign uint32
	if s < 0 {
		s, sign = -s, 1<<31
	}
	u := uint64(s)
	if u == 0 {
		return 0
	}
	lz := uint32(bits.LeadingZeros64(u))
	u <<= lz // leading one at bit 63: the value is u * 2^(t.e-lz)
	// Biased exponent of the result: 2^(t.e-lz+63) is 1.0 * 2^(be-127).
	be := t.e - int32(lz) + 63 + 127
	if be >= 255 {
		return math.Float32frombits(sign | 0x7f800000)
	}
	sh := uint32(40) // bits below the 24-bit significand
	if be < 1 {
		sh += uint32(1 - be) // a subnormal: fewer significand bits
		if sh > 64 {
			return math.Float32frombits(sign)
		}
		be = 1
	}
	var m uint64
	if sh < 64 {
		m = u >> sh
	}
	rest := u - m<<sh // (sh 64: m 0, rest u)
	half := uint64(1) << (sh - 1)
	if rest > half || rest == half && m&1 != 0 {
		m++
	}
	// m has its leading one at bit 23 (or is a subnormal's significand);
	// adding the exponent field less one carries a rounding to 2^24 into
	// the exponent, and a subnormal rounded up to 2^23 becomes normal.
	b := uint32(be-1)<<23 + uint32(m)
	if b >= 0x7f800000 {
		b = 0x7f800000
	}
	return math.Float32frombits(sign | b)
}

// bfpZeroE is the exponent of a zero term: below every other term's, so
// that adding it shifts nothing.
const bfpZeroE = -1 << 20

// bfpBias returns a float32 bias (finite) as a term whose significand
// has bfpSumBits bits (a zero one with exponent bfpZeroE).
func bfpBias(b float32) bfpTerm {
	m, e, _ := bfpSig(math.Float32bits(b))
	if m == 0 {
		return bfpTerm{0, bfpZeroE}
	}
	s := int64(m) << (bfpSumBits - 24)
	if int32(math.Float32bits(b)) < 0 {
		s = -s
	}
	return bfpTerm{s, e - 150 - (bfpSumBits - 24)}
}

// bfpDotSlow returns the float32 sum, in order, of x[j] times weight k of
// element j of w ([len(x)][4] int32 significands with exponent ew), each
// weight the float32 of its significand.
func bfpDotSlow(x []float32, w string, k int, ew int32) float32 {
	var acc float32
	for j, v := range x {
		wf := bfpF32(bfpTerm{int64(ld32(w, 4*j+k)), ew})
		acc = f32Add(acc, f32Mul(v, wf))
	}
	return acc
}
