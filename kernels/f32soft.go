package kernels

import (
	"math"
	"math/bits"
	"runtime"
	"unsafe"
)

// Float32 arithmetic for targets without a floating-point unit, where the
// compiler calls a software routine for every float32 add and multiply
// (TinyGo's Cortex-M targets: compiler-rt, 50 to 100 instructions each).
// The kernels' hot loops use these instead; they give the bits of IEEE
// float32 arithmetic (round to nearest even), so every target computes
// the same results, and they keep values unpacked between operations.
//
// The fast paths take normal operands whose results stay normal; the
// kernels check that (f32sRange, f32sDotOK) and otherwise use plain
// float32 arithmetic.

// f32Soft is true where float32 arithmetic is emulated in software:
// TinyGo for 32-bit ARM (its Cortex-M targets have no FPU).
const f32Soft = runtime.Compiler == "tinygo" && runtime.GOARCH == "arm"

// f32sRange returns the smallest and largest biased exponent of the
// non-zero values among x (lo > hi when all are zero), and whether all of
// them are normal or zero (no exponent field 0 or 255 among them).
func f32sRange(x []float32) (lo, hi uint32, ok bool) {
	lo, hi = 255, 0
	for _, v := range x {
		if b := math.Float32bits(v); b<<1 != 0 {
			e := b >> 23 & 0xff
			lo, hi = min(lo, e), max(hi, e)
		}
	}
	return lo, hi, lo > hi || lo != 0 && hi != 255
}

// f32sRangeStr is f32sRange for the little-endian float32 values of a
// constant string (viewed as float32 when word-aligned).
func f32sRangeStr(w string) (lo, hi uint32, ok bool) {
	if f32StrOff(w) == 0 {
		return f32sRange(f32StrView(w))
	}
	lo, hi = 255, 0
	for i := 0; i+4 <= len(w); i += 4 {
		if b := uint32(w[i]) | uint32(w[i+1])<<8 | uint32(w[i+2])<<16 | uint32(w[i+3])<<24; b<<1 != 0 {
			e := b >> 23 & 0xff
			lo, hi = min(lo, e), max(hi, e)
		}
	}
	return lo, hi, lo > hi || lo != 0 && hi != 255
}

// f32sDotOK reports whether f32sDot may sum n products of values with
// exponents in [xlo, xhi] and [wlo, whi] (f32sRange): every product and
// every partial sum is then normal or zero. Products are multiples of
// 2^(xlo+wlo-277), so a non-zero sum is at least that, normal when
// xlo+wlo >= 151; the sum of n products is below
// 2^(xhi+whi-252+bits.Len(n)).
func f32sDotOK(xlo, xhi, wlo, whi uint32, n int) bool {
	if xlo > xhi || wlo > whi {
		return true // all products are zero
	}
	return xlo+wlo >= 151 && xhi+whi+uint32(bits.Len(uint(n))) <= 379
}

// f32sX is a non-zero element of a dot product's input, unpacked for
// f32sDot: m its significand with the leading one at bit 31, e its biased
// exponent minus 126, s its sign (bit 31) and w the byte offset of its
// weight.
type f32sX struct {
	m uint32
	e int32
	s uint32
	w uint32
}

// f32sChunk is the most elements f32sUnpackN unpacks at once (a local
// array of f32sX of this length stays on TinyGo's stack).
const f32sChunk = 16

// f32sUnpackN unpacks the non-zero elements among the first f32sChunk of
// x (normal or zero) into u, their weights at byte offsets stride apart
// from w0, and returns how many there are and how many elements of x it
// read.
func f32sUnpackN(u *[f32sChunk]f32sX, x []float32, w0, stride uint32) (n, read int) {
	x = x[:min(len(x), f32sChunk)]
	for i, v := range x {
		b := math.Float32bits(v)
		if b<<1 != 0 {
			u[n] = f32sX{b<<8 | 1<<31, int32(b>>23&0xff) - 126, b & (1 << 31), w0 + stride*uint32(i)}
			n++
		}
	}
	return n, len(x)
}

// f32sSum is a float32 sum in progress for f32sDot: a its significand
// with its sign, the magnitude in [2^29, 2^30) (24 bits at bits 29..6, 0
// for zero), e its biased exponent (f32sZeroE for zero).
type f32sSum struct{ a, e int32 }

// f32sZeroE is the exponent of a zero f32sSum: below any product's.
const f32sZeroE = -1 << 20

// f32sDot returns s plus the products of the elements of x with their
// weights (the little-endian float32 values at pw + x[i].w, read as words
// when aligned says all are word-aligned, else byte by byte), in
// order, each product rounded to float32 and each sum rounded to float32
// (to nearest even), as float32 arithmetic computes them. The products
// and sums must stay normal (f32sDotOK).
//
// The significands are signed, so one path adds and subtracts: the
// operand with the smaller exponent is shifted right by the difference
// (the bits shifted out make bit 0 a sticky bit, which stays below the
// rounding point whatever the shift back), the sum is normalized and
// rounded at bit 6.
func f32sDot(s f32sSum, x []f32sX, pw unsafe.Pointer, aligned bool) f32sSum {
	a, ae := s.a, s.e
	// (x is ranged over by value: its address must not go through an
	// unsafe.Pointer, or TinyGo moves the caller's array to the heap.)
	for _, v := range x {
		var w uint32
		if aligned {
			w = *(*uint32)(unsafe.Add(pw, v.w))
		} else {
			q := (*[4]byte)(unsafe.Add(pw, v.w))
			w = uint32(q[0]) | uint32(q[1])<<8 | uint32(q[2])<<16 | uint32(q[3])<<24
		}
		if w<<1 == 0 {
			continue
		}
		// The product: 24 x 24 bits in [2^62, 2^64), rounded to 24 bits
		// and moved to bits 29..6.
		hi, lo := bits.Mul32(v.m, w<<8|1<<31)
		pe := v.e + int32(w>>23&0xff)
		if int32(hi) >= 0 {
			hi = hi<<1 | lo>>31
			lo <<= 1
			pe--
		}
		if lo != 0 {
			hi |= 1
		}
		r := hi + 0x7f + hi>>8&1
		p := int32(r>>2) &^ 0x3f
		if r < hi {
			p, pe = 1<<29, pe+1 // rounded up to 2^32
		}
		sg := int32(v.s^w) >> 31
		p = p ^ sg - sg
		// The sum.
		d := ae - pe
		if d < 0 {
			a, p = p, a
			ae, d = pe, -d
		}
		if d > 25 {
			continue // p is below a quarter of a's last place
		}
		t := p >> uint(d&31)
		if t<<uint(d&31) != p {
			t |= 1
		}
		a += t
		if a == 0 {
			ae = f32sZeroE
			continue
		}
		// f32sRound, inline.
		sa := a >> 31
		m := uint32(a ^ sa - sa)
		n := int32(bits.LeadingZeros32(m)) - 2 // 0 when the magnitude is in place
		if n < 0 {
			m = m>>1 | m&1
		} else {
			m <<= uint(n & 31)
		}
		ae -= n
		m = (m + 0x1f + m>>6&1) &^ 0x3f
		if m >= 1<<30 {
			m, ae = 1<<29, ae+1
		}
		a = int32(m) ^ sa - sa
	}
	return f32sSum{a, ae}
}

// f32sSumF32 returns the float32 of a sum.
func f32sSumF32(s f32sSum) float32 {
	if s.a == 0 {
		return 0
	}
	sa := s.a >> 31
	m := uint32(s.a ^ sa - sa)
	return math.Float32frombits(uint32(sa)&(1<<31) | uint32(s.e)<<23 | m>>6&0x7fffff)
}

// f32Add returns x + y: the compiler's float32 addition, or f32sAdd where
// float32 is emulated. f32Mul, f32Div, f32Lt and f32Finite likewise: the
// float kernels' scalar arithmetic outside the dot products.
func f32Add(x, y float32) float32 {
	if f32Soft {
		return f32sAdd(x, y)
	}
	return x + y
}

// f32Mul returns x * y (see f32Add).
func f32Mul(x, y float32) float32 {
	if f32Soft {
		return f32sMul(x, y)
	}
	return x * y
}

// f32Div returns x / y (see f32Add).
func f32Div(x, y float32) float32 {
	if f32Soft {
		return f32sDiv(x, y)
	}
	return x / y
}

// f32Lt reports whether x < y (false when either is NaN; see f32Add).
func f32Lt(x, y float32) bool {
	if f32Soft {
		return f32sLt(x, y)
	}
	return x < y
}

// f32Finite reports whether x is neither infinite nor NaN (see f32Add).
func f32Finite(x float32) bool {
	if f32Soft {
		return math.Float32bits(x)&0x7f800000 != 0x7f800000
	}
	return x-x == 0
}

// f32Finite2 reports whether x and y are both finite (see f32Add; on an
// FPU one comparison).
func f32Finite2(x, y float32) bool {
	if f32Soft {
		return math.Float32bits(x)&0x7f800000 != 0x7f800000 && math.Float32bits(y)&0x7f800000 != 0x7f800000
	}
	return x-x+(y-y) == 0
}

// f32sSig returns the significand of the normal float32 with bits b, with
// its sign, at bits 29..6 (as f32sSum).
func f32sSig(b uint32) int32 {
	m := int32((b&0x7fffff | 0x800000) << 6)
	s := int32(b) >> 31
	return m ^ s - s
}

// f32sBits returns the bits of the float32 with significand a (as
// f32sSum, not zero) and biased exponent e, which must be in [1, 254].
func f32sBits(a, e int32) uint32 {
	s := a >> 31
	return uint32(s)&(1<<31) | uint32(e)<<23 | uint32(a^s-s)>>6&0x7fffff
}

// f32sRound normalizes and rounds (to nearest even) the sum a (not zero;
// bit 0 sticky) with biased exponent e of f32sDot's form: magnitude below
// 2^31 with its leading one at bit 30 at most, rounded to bits 29..6.
// (f32sDot has the same lines in its loop: LLVM at -Oz calls a function
// with two callers rather than inline it.)
func f32sRound(a, e int32) (int32, int32) {
	sa := a >> 31
	m := uint32(a ^ sa - sa)
	n := int32(bits.LeadingZeros32(m)) - 2 // 0 when the magnitude is in place
	if n < 0 {
		m = m>>1 | m&1
	} else {
		m <<= uint(n & 31)
	}
	e -= n
	m = (m + 0x1f + m>>6&1) &^ 0x3f
	if m >= 1<<30 {
		m, e = 1<<29, e+1
	}
	return int32(m) ^ sa - sa, e
}

// f32sAdd returns x + y rounded to float32 (to nearest even): the
// significands aligned with a sticky bit, added and rounded as in f32sDot,
// for normal operands and a normal or zero sum; the compiler's addition
// otherwise.
func f32sAdd(x, y float32) float32 {
	bx, by := math.Float32bits(x), math.Float32bits(y)
	ex, ey := int32(bx>>23&0xff), int32(by>>23&0xff)
	if uint32(ex-1) >= 254 || uint32(ey-1) >= 254 {
		return x + y // zero, subnormal, infinite, NaN
	}
	a, b := f32sSig(bx), f32sSig(by)
	d := ex - ey
	if d < 0 {
		a, b, ex, d = b, a, ey, -d
		bx = by
	}
	if d > 25 {
		return math.Float32frombits(bx) // b is below a quarter of a's last place
	}
	t := b >> uint(d&31)
	if t<<uint(d&31) != b {
		t |= 1
	}
	if a += t; a == 0 {
		return 0
	}
	a, ex = f32sRound(a, ex)
	if uint32(ex-1) >= 254 {
		return x + y // a subnormal or infinite sum
	}
	return math.Float32frombits(f32sBits(a, ex))
}

// f32sMul returns x * y rounded to float32 (to nearest even) for normal
// operands and a normal product; the compiler's multiplication otherwise.
func f32sMul(x, y float32) float32 {
	bx, by := math.Float32bits(x), math.Float32bits(y)
	ex, ey := int32(bx>>23&0xff), int32(by>>23&0xff)
	if uint32(ex-1) >= 254 || uint32(ey-1) >= 254 {
		return x * y
	}
	hi, lo := bits.Mul32(bx<<8|1<<31, by<<8|1<<31) // in [2^62, 2^64)
	e := ex + ey - 126
	if int32(hi) >= 0 {
		hi = hi<<1 | lo>>31
		lo <<= 1
		e--
	}
	if lo != 0 {
		hi |= 1
	}
	r := hi + 0x7f + hi>>8&1
	m := r >> 8
	if r < hi {
		m, e = 1<<23, e+1 // rounded up to 2^32
	}
	if uint32(e-1) >= 254 {
		return x * y
	}
	return math.Float32frombits((bx^by)&(1<<31) | uint32(e)<<23 | m&0x7fffff)
}

// f32sDiv returns x / y rounded to float32 (to nearest even) for normal
// operands and a normal quotient; the compiler's division otherwise. The
// significands' quotient comes seven bits at a time from 32-bit divisions
// (one instruction each on Cortex-M4), 28 bits with the remainder as
// sticky bit.
func f32sDiv(x, y float32) float32 {
	bx, by := math.Float32bits(x), math.Float32bits(y)
	ex, ey := int32(bx>>23&0xff), int32(by>>23&0xff)
	if uint32(ex-1) >= 254 || uint32(ey-1) >= 254 {
		return x / y
	}
	mx, my := bx&0x7fffff|0x800000, by&0x7fffff|0x800000
	var q uint32
	r := mx
	for i := 0; i < 4; i++ {
		r <<= 7 // below 2^31
		d := r / my
		r -= d * my
		q = q<<7 | d
	}
	// q = mx/my * 2^28 in (2^27, 2^29): leading one at bit 28 or 27.
	if r != 0 {
		q |= 1
	}
	e := ex - ey + 127
	if q < 1<<28 {
		q <<= 1
		e--
	}
	m := (q + 0xf + q>>5&1) >> 5 // 24 bits, or 2^24
	if uint32(e-1) >= 254 {
		return x / y
	}
	return math.Float32frombits((bx^by)&(1<<31) + uint32(e)<<23 + m - 1<<23)
}

// f32sLt reports whether x < y, false when either is NaN: the bits as
// signed magnitudes, made two's complement (-0 and +0 both 0).
func f32sLt(x, y float32) bool {
	bx, by := math.Float32bits(x), math.Float32bits(y)
	if bx&^(1<<31) > 0x7f800000 || by&^(1<<31) > 0x7f800000 {
		return false
	}
	sx, sy := int32(bx)>>31, int32(by)>>31
	return int32(bx&^(1<<31))^sx-sx < int32(by&^(1<<31))^sy-sy
}
