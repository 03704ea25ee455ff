package kernels

import (
	"math"
	"math/bits"
)

// float32 elementary functions computed in integer arithmetic: e^x, e^x-1,
// tanh, ln, sin, cos and the square root, for the float32 kernels. TFLM
// calls C's expf, tanhf, logf, sinf, cosf, expm1f and sqrtf; Go's math
// package works in float64, which TinyGo's Cortex-M targets emulate in
// software (soft float). These functions use only 32- and 64-bit integer
// operations, so a kernel gives the same bits on every target, gc or
// TinyGo, with or without a floating-point unit.
//
// Each function evaluates its result in fixed point to well below a
// float32 ulp and rounds once: results are the correctly rounded value
// except within about 2^-40 (relative) of a rounding boundary, where they
// may be one ulp off (as C libraries are; the square root is always
// correctly rounded). Special values follow C99 Annex F (exp(-inf) = 0,
// log(0) = -inf, log(x < 0) = NaN, sin(inf) = NaN, tanh(±inf) = ±1).

// f32Exp2Tab holds 2^(j/32) for j = 0..31 in Q62, little-endian uint64s.
const f32Exp2Tab = "" +
	"\x00\x00\x00\x00\x00\x00\x00\x40\xec\xd0\x15\x56\x4c\xc3\x66\x41" +
	"\x8a\x3d\x24\xe6\xb3\x61\xd5\x42\x94\x42\x6d\x49\x40\x07\x4c\x44" +
	"\x73\xeb\x45\xf5\xf1\xe0\xca\x45\xe0\xa9\xe6\xa2\xc5\x1c\x52\x47" +
	"\x9b\xe1\x88\xd5\xb9\xe9\xe1\x48\xb1\x84\x7b\x7f\xd4\x77\x7a\x4a" +
	"\xb8\x54\xdc\xc6\x28\xf8\x1b\x4c\x9c\x2a\xa7\xea\xdc\x9c\xc6\x4d" +
	"\xd7\x88\xd0\x48\x30\x99\x7a\x4f\x0c\xb4\x24\x86\x81\x21\x38\x51" +
	"\x75\x9c\xa8\xd8\x54\x6b\xff\x52\x7c\x07\x3e\x75\x5a\xad\xd0\x54" +
	"\x63\xa5\x50\x21\x75\x1f\xac\x56\xc8\x12\x56\xe9\xc0\xfa\x91\x58" +
	"\x42\x32\xef\xfc\x99\x79\x82\x5a\x75\xcf\x7d\xb1\xa3\xd7\x7d\x5c" +
	"\x5f\x1b\x06\xac\xcf\x51\x84\x5e\x2b\x4a\x38\x33\x65\x26\x96\x60" +
	"\x6f\x6d\x83\xaa\x08\x95\xb3\x62\xd1\x93\x17\x37\xc3\xde\xdc\x64" +
	"\x72\x40\xc2\x8f\x0a\x46\x12\x67\x2d\x72\x95\xf8\xc8\x0e\x54\x69" +
	"\x7a\xb5\x4e\x6b\x65\x7e\xa2\x6b\xab\x1b\x79\xed\xcb\xdb\xfd\x6d" +
	"\x89\x70\x4a\x15\x76\x6f\x66\x70\x54\xa4\x41\xbe\x73\x83\xdc\x72" +
	"\x97\x1c\x92\xee\x73\x63\x60\x75\xe6\x7a\x6d\xee\xcd\x5c\xf2\x77" +
	"\x16\x66\x43\x92\x8a\xbe\x92\x7a\x9d\x01\x15\xb9\x6d\xd9\x41\x7d"

// Constants of expFix: ln2/32 in Q56 (rounded), 32/ln2 in Q25 (rounded
// down), the offset of 185*32 multiples of ln2/32 (just over 128) that
// makes the reduced argument's numerator positive
// for x > -128, and the Taylor coefficients 1/720 (Q16), 1/120 (Q20),
// 1/24 (Q24) and 1/6 (Q28) for Horner's scheme in r (Q36).
const (
	expC56  = 1560828692041340
	expKQ   = 1549082004
	expKOff = 185
	expC720 = 91
	expC120 = 8738
	expC24  = 699051
	expC6   = 44739243
)

// f32Tab64 reads the i-th little-endian uint64 of a constant string.
func f32Tab64(s string, i int) uint64 {
	q := s[8*i : 8*i+8]
	return uint64(uint32(q[0])|uint32(q[1])<<8|uint32(q[2])<<16|uint32(q[3])<<24) |
		uint64(uint32(q[4])|uint32(q[5])<<8|uint32(q[6])<<16|uint32(q[7])<<24)<<32
}

// expFix returns e^x for the float32 x with bits b, 2^-26 <= |x| < 128,
// as M*2^(q-62), M in [2^62, 2^63.1), within about 2^-41 relative.
//
// x = k*ln2/32 + r with k = floor(32x/ln2) (or one less), so that e^x =
// 2^(k>>5) * 2^((k&31)/32) * e^r. x is exact in Q56 (its lowest bit is at
// least 2^-49); so is r, up to the rounding of ln2/32 (k times 2^-57, at
// most 2^-44.7). e^r - 1 = r + r^2*(1/2 + r/6 + r^2/24 + r^3/120 + r^4/720)
// (the next term is below 2^-43 for r < ln2/16), the polynomial in 32-bit
// fixed point. Everything is unsigned: adding 185*32 multiples of ln2/32
// makes the numerator positive.
//
// Written for 32-bit targets: products are uint64 of two uint32 (one
// UMULL), no 64-bit shift by a variable amount, no 64-bit comparison, and
// no calls (gc marks every inlined call with an instruction).
func expFix(b uint32) (M uint64, q int32) {
	m := b&0x7fffff | 0x800000
	ex := b >> 23 & 0xff // 102 to 133
	var X uint64         // |x| in Q56: m << (ex-94)
	if ex >= 126 {
		X = uint64(m<<((ex-126)&31)) << 32
	} else {
		X = uint64(m>>((126-ex)&31))<<32 | uint64(m<<((ex-94)&31))
	}
	const off = expKOff * 32 * expC56
	if int32(b) < 0 {
		X = off - X
	} else {
		X += off
	}
	// k from the top word: both truncations round down, so k is the
	// floor of 32x/ln2 or one less, and 0 <= r < 2*ln2/32.
	k := uint32(uint64(uint32(X>>32)) * expKQ >> 49)
	R := X - uint64(k)*expC56
	r := uint32(R >> 20) // Q36, below 2^31.5
	a := uint32(uint64(r) * expC720 >> 32)
	a = uint32(uint64(r) * uint64(expC120+a) >> 32)
	a = uint32(uint64(r) * uint64(expC24+a) >> 32)
	a = uint32(uint64(r) * uint64(expC6+a) >> 32)
	r2 := uint32(uint64(r) * uint64(r) >> 32) // Q40
	S := R + uint64(r2)*uint64(1<<31+a)>>16   // r + r^2*t in Q56
	T := f32Tab64(f32Exp2Tab, int(k&31))
	th, tl := uint32(T>>32), uint32(T)
	sh, sl := uint32(S>>32), uint32(S)
	M = T + uint64(th)*uint64(sh)<<8 + (uint64(th)*uint64(sl)+uint64(tl)*uint64(sh))>>24
	return M, int32(k>>5) - expKOff
}

// f32FromFix rounds M*2^(q-62) (M in [2^62, 2^64)) to float32, halves up
// (M holds an approximation: a tie is no more likely than any other
// pattern), subnormal results included, overflow to +Inf. Only M's top
// word matters: rounding halves up at bit 6 or lower of it, the bits
// below cannot carry into the result.
func f32FromFix(M uint64, q int32) float32 {
	h := uint32(M >> 32)
	if h >= 1<<31 {
		h >>= 1
		q++
	}
	e := q + 127 // biased exponent of h's bit 30
	if e >= 1 {
		m := (h + 1<<6) >> 7 // 24 bits, or 2^24 from rounding
		if m >= 1<<24 {
			m >>= 1
			e++
		}
		if e >= 255 {
			return math.Float32frombits(0x7f800000)
		}
		return math.Float32frombits(uint32(e)<<23 + m - 1<<23)
	}
	s := uint32(8 - e) // subnormal: its lowest bit is 2^-149
	if s >= 32 {
		return 0
	}
	return math.Float32frombits((h + 1<<(s-1)) >> s)
}

// f32Pack rounds M*2^(q-62) (M in [2^62, 2^64)) to float32, halves up,
// for results known to be normal: only M's top word matters (rounding
// at bit 6 or 7 of it, the bits below cannot carry), and a mantissa
// rounded up to 2^24 carries into the exponent by itself.
func f32Pack(M uint64, q int32) float32 {
	h := uint32(M >> 32)
	if h >= 1<<31 {
		h >>= 1
		q++
	}
	return math.Float32frombits(uint32(q+126)<<23 + (h+1<<6)>>7)
}

// f32Exp returns e^x.
func f32Exp(x float32) float32 {
	b := math.Float32bits(x)
	if a := b &^ (1 << 31); a-0x33000000 >= 0x42ae0000-0x33000000 {
		return f32ExpRare(x) // |x| < 2^-25 or >= 87, Inf, NaN
	}
	return f32Pack(expFix(b)) // 2^-25 <= |x| < 87: normal results
}

// f32ExpRare is f32Exp outside 2^-25 <= |x| < 87.
func f32ExpRare(x float32) float32 {
	b := math.Float32bits(x)
	a := b &^ (1 << 31)
	switch {
	case a < 0x33000000: // |x| < 2^-25: e^x rounds to 1
		return 1
	case a >= 0x42d00000: // |x| >= 104, Inf, NaN
		if a > 0x7f800000 {
			return x + x // NaN
		}
		if int32(b) < 0 {
			return 0
		}
		return math.Float32frombits(0x7f800000)
	}
	return f32FromFix(expFix(b))
}

// f32Logistic is TFLM's float logistic (reference_ops::Logistic) with its
// cut-offs: 1 above 16.619047, e^x below -9, else 1/(1+e^-x) with e^-x
// rounded to float32 (f32Exp) and the rest in float32, as TFLM computes
// it.
func f32Logistic(x float32) float32 {
	if f32Lt(16.619047164916992188, x) {
		return 1
	}
	a := -x
	low := f32Lt(x, -9)
	if low {
		a = x
	}
	e := f32Exp(a)
	if low {
		return e
	}
	return f32Div(1, f32Add(1, e))
}

// Constants of f32Tanh: the odd series tanh v = v*(1 - z*(1/3 - 2z/15 +
// 17z^2/315 - 62z^3/2835)), z = v^2, in Q33, and the linear first guess
// 24/17 - 8/17*D of 1/D on [1, 2) in Q32 (24/17 modulo 2^32).
const (
	tanhC1 = 2863311531
	tanhC2 = 1145324612
	tanhC3 = 463583772
	tanhC4 = 187857476
	recC0  = 1768515945
	recC1  = 4042322161
)

// f32Tanh returns tanh x: x itself below 2^-12 (where tanh x rounds to
// x), the odd series below 2^-4, (1 - E)/(1 + E) with E = e^-2|x| (expFix)
// below 10 and the sign of x beyond.
func f32Tanh(x float32) float32 {
	b := math.Float32bits(x)
	a := b &^ (1 << 31)
	sign := b & (1 << 31)
	var M uint64
	var q int32
	switch {
	case a < 0x39800000: // |x| < 2^-12
		return x
	case a >= 0x41200000: // |x| >= 10, Inf, NaN
		if a > 0x7f800000 {
			return x + x
		}
		return math.Float32frombits(sign | 0x3f800000)
	case a < 0x3d800000: // |x| < 2^-4
		M, q = tanhSmall(a)
	default:
		M, q = tanhMid(a)
	}
	return math.Float32frombits(sign | math.Float32bits(f32Pack(M, q)))
}

// tanhSmall returns tanh x for the float32 x with bits a, 2^-12 <= x <
// 2^-4, as M*2^(q-62), M in [2^62, 2^63): x*(1 - z*Q(z)), z = x^2, Q the
// series' polynomial (tanhC1..4) in Q33, z and x in 32-bit fixed point.
func tanhSmall(a uint32) (M uint64, q int32) {
	m := a&0x7fffff | 0x800000
	v := m << (a>>23 - 114)  // x in Q36 (the shift is 1 to 8)
	z, _ := bits.Mul32(v, v) // Q40
	s, _ := bits.Mul32(z, tanhC4)
	s, _ = bits.Mul32(z, tanhC3-s>>8)
	s, _ = bits.Mul32(z, tanhC2-s>>8)
	zh, zl := bits.Mul32(z, tanhC1-s>>8) // z*Q in Q73
	P := 1<<62 - (uint64(zh)<<32|uint64(zl))>>11
	ph, pl := bits.Mul32(m, uint32(P>>32))
	c, _ := bits.Mul32(m, uint32(P))
	M = (uint64(ph)<<32 | uint64(pl) + uint64(c)) << 9 // m*P/2^23 in Q62
	q = int32(a>>23) - 127
	if M < 1<<62 {
		M <<= 1
		q--
	}
	return M, q
}

// tanhMid returns tanh x for the float32 x with bits a, 2^-4 <= x < 10,
// as M*2^(q-62), M in [2^62, 2^63): (1 - E)/(1 + E) with E = e^-2x
// (expFix, x doubled through its exponent), N = 1 - E and D = 1 + E in
// Q62 as pairs of words. y ~ 1/D comes from the linear guess 24/17 -
// 8/17*D and three Newton steps in Q32 (error below 2^-30); the quotient
// q0 = N*y is then corrected once with its remainder, q0 + y*(N - D*q0),
// which leaves an error of about 2^-58.
func tanhMid(a uint32) (M uint64, q int32) {
	em, eq := expFix(a + 1<<23 | 1<<31)
	s := uint32(-eq) & 31 // 1 to 29: E = em >> s in Q62
	eh, el := uint32(em>>32)>>s, uint32(em)>>s|uint32(em>>32)<<(32-s)
	dh, dl := 1<<30+eh, el // D = 1 + E
	nl, c := bits.Sub32(0, el, 0)
	nh, _ := bits.Sub32(1<<30, eh, c) // N = 1 - E
	d := dh<<1 | dl>>31               // D in Q31
	h, _ := bits.Mul32(d, recC1)
	y := recC0 - h
	for i := 0; i < 3; i++ {
		h, _ := bits.Mul32(d, y)
		h, l := bits.Mul32(y, -h) // y*(2 - D*y), 2 - D*y in Q31
		y = h<<1 | l>>31
	}
	h, l := bits.Mul32(nh, y)
	q0 := h<<2 | l>>30 // N*y in Q32
	h, l = bits.Mul32(dh, q0)
	g, _ := bits.Mul32(dl, q0)
	rem := int64(uint64(nh)<<32|uint64(nl)) - int64(uint64(h)<<32|uint64(l)+uint64(g)) // N - D*q0 in Q62
	neg := rem < 0
	if neg {
		rem = -rem
	}
	rh, rl := uint32(uint64(rem)>>32), uint32(rem)
	h, l = bits.Mul32(rh, y)
	g, _ = bits.Mul32(rl, y)
	corr := uint64(h)<<32 | uint64(l) + uint64(g) // |rem|*y in Q62
	M = uint64(q0) << 30
	if neg {
		M -= corr
	} else {
		M += corr
	}
	n := bits.LeadingZeros32(uint32(M>>32)) - 1 // tanh >= 0.06: 1 to 4
	return M << uint(n&7), int32(-n)
}

// f32NaN is a quiet NaN (math.NaN is a float64: converting it would be
// double arithmetic on a soft-float target).
func f32NaN() float32 { return math.Float32frombits(0x7fc00000) }

// mulQ62 returns a*b/2^62, rounded toward zero, for Q62 values a and b
// (|a*b| < 2^125).
func mulQ62(a, b int64) int64 {
	ua, ub := uint64(a), uint64(b)
	if a < 0 {
		ua = -ua
	}
	if b < 0 {
		ub = -ub
	}
	hi, lo := bits.Mul64(ua, ub)
	r := int64(hi<<2 | lo>>62)
	if (a < 0) != (b < 0) {
		r = -r
	}
	return r
}

// f32FromQ rounds v*2^(q-62) to float32 (f32FromFix), v a signed fixed
// point value.
func f32FromQ(v int64, q int32) float32 {
	if v == 0 {
		return 0
	}
	var s uint32
	if v < 0 {
		v, s = -v, 1<<31
	}
	n := bits.LeadingZeros64(uint64(v)) - 1
	return math.Float32frombits(s | math.Float32bits(f32FromFix(uint64(v)<<uint(n), q-int32(n))))
}

// f32Unpack returns a finite non-zero float32 with bits a (sign cleared)
// as m*2^(e-150), m in [2^23, 2^24): subnormals are normalized (e < 1).
func f32Unpack(a uint32) (m uint32, e int32) {
	if a < 0x00800000 {
		n := bits.LeadingZeros32(a) - 8
		return a << uint(n), 1 - int32(n)
	}
	return a&0x7fffff | 0x800000, int32(a >> 23)
}

// f32Sqrt returns the square root of x, correctly rounded: the root of the
// significand (scaled to an even exponent) bit by bit, with the remainder
// deciding the last bit (an exact half cannot occur).
func f32Sqrt(x float32) float32 {
	b := math.Float32bits(x)
	switch {
	case b<<1 == 0: // ±0
		return x
	case int32(b) < 0:
		// The processor's default NaN, as its square root gives (the
		// sign differs between x86 and Arm).
		z := x - x
		return z / z
	case b > 0x7f800000: // NaN
		return math.Float32frombits(b | 0x00400000)
	case b == 0x7f800000:
		return x
	}
	m, e := f32Unpack(b)
	e -= 127 // x = m * 2^(e-23)
	if e&1 != 0 {
		m <<= 1
	}
	// The root of m (times 2 for an odd exponent), one bit at a time
	// from 2^24 down, with one bit more than the result has; r is the
	// running remainder (doubled at each step, below 2^26).
	var q, s, r uint32
	r = m << 1
	for bit := uint32(1 << 24); bit != 0; bit >>= 1 {
		t := s + bit
		if t <= r {
			s = t + bit
			r -= t
			q += bit
		}
		r <<= 1
	}
	// q has 25 bits: 24 of the root and one more; a non-zero remainder
	// says the root lies above q's value.
	if r != 0 {
		q += q & 1
	}
	return math.Float32frombits((q >> 1) + 0x3f000000 + uint32(e>>1)<<23)
}

// f32LogInv holds, for the intervals [1+j/32, 1+(j+1)/32) of the
// significand, j = 0..31, an approximation c of the reciprocal of the
// interval's middle in Q8, minus 128 (c = 256 for j = 0); f32LogC holds
// ln(256/c) for each in Q62, little-endian uint64s.
const (
	f32LogInv = "\x80\x75\x6d\x67\x60\x5a\x55\x4f\x4a\x45\x41\x3c\x38\x34\x30\x2c" +
		"\x29\x25\x22\x1f\x1c\x19\x16\x14\x11\x0e\x0c\x0a\x07\x05\x03\x01"
	f32LogC = "" +
		"\x00\x00\x00\x00\x00\x00\x00\x00" +
		"\x08\x6b\x97\x5a\x9e\x92\xcf\x02" +
		"\x0c\x99\x7b\xf4\x69\x7d\xef\x04" +
		"\xea\x0d\x6f\x2c\x90\x9d\x93\x06" +
		"\xef\x3d\xf2\x13\x41\xc7\x8b\x08" +
		"\x6f\xb0\xda\x99\xc1\x9e\x48\x0a" +
		"\x9f\x39\x26\xa2\xc2\xc6\xc4\x0b" +
		"\x54\x1e\xe7\xad\x2b\xec\x98\x0d" +
		"\x09\x09\x88\xf3\x7f\x87\x29\x0f" +
		"\x11\xe3\x62\x61\x67\x2d\xc4\x10" +
		"\x3f\xd4\xb8\x0e\x6d\x45\x14\x12" +
		"\xb5\x83\x31\x33\x77\x52\xc2\x13" +
		"\xce\xd7\xa3\x38\x07\xae\x22\x15" +
		"\x1a\x14\x6a\x9c\x3e\xc8\x8a\x16" +
		"\xee\x1b\x15\xd8\x3b\xfa\xfa\x17" +
		"\xcf\xad\x56\x13\x43\xa3\x73\x19" +
		"\x6f\xe3\xd9\x8a\x3c\xed\x93\x1a" +
		"\x90\x9d\xa3\x3f\x69\x60\x1c\x1c" +
		"\x76\x6b\xfa\xde\x46\x02\x49\x1d" +
		"\x56\x73\xad\xdd\xc3\x42\x7b\x1e" +
		"\x30\x84\x48\x7a\xaf\x58\xb3\x1f" +
		"\x24\xd0\x8a\x67\x0a\x7e\xf1\x20" +
		"\x37\x4f\xb5\x8e\x47\xf0\x35\x22" +
		"\xc5\x4c\x79\xe4\x81\xdc\x11\x23" +
		"\xc0\x2f\x79\x7d\xb1\x61\x61\x24" +
		"\x92\x85\xbe\x61\xaf\xea\xb7\x25" +
		"\x84\x0b\x19\x3b\x5b\x51\xa0\x26" +
		"\x46\x6a\x7f\x6d\x18\x10\x8c\x27" +
		"\x93\xa6\x45\xd1\x4f\x2a\xf4\x28" +
		"\x76\x32\x9c\xb4\x06\xb5\xe8\x29" +
		"\xc0\xcc\x18\x77\x4d\xf4\xe0\x2a" +
		"\x47\x40\x32\x48\x54\x05\xdd\x2b"
	ln2Q62 = 3196577161300663915
	ln2Q56 = 49946518145322874
)

// f32Log returns the natural logarithm of x: x = 2^e * m, m in [1, 2),
// ln x = e*ln2 + ln(256/c) + ln(1+u) with u = m*c/256 - 1 exact in Q31
// (|u| < 2^-5, c from f32LogInv) and ln(1+u) by its series to u^7 in
// Q62. The sum is taken in Q62 for e in [-1, 1] (where it may cancel down
// to 2^-24) and in Q56 beyond (where it is at least ln2 - 0.7).
func f32Log(x float32) float32 {
	b := math.Float32bits(x)
	switch {
	case b == 0x3f800000:
		return 0
	case b<<1 == 0:
		return math.Float32frombits(0xff800000)
	case b > 0x7f800000 && b < 0x80000000 || b > 0xff800000: // NaN
		return math.Float32frombits(b | 0x00400000)
	case int32(b) < 0:
		return f32NaN()
	case b == 0x7f800000:
		return x
	}
	m, e := f32Unpack(b)
	e -= 127
	j := int(m >> 18 & 31)
	c := uint32(f32LogInv[j]) + 128
	u := int64(int32(m*c-1<<31)) << 31 // Q62
	// ln(1+u) = u*(1 - u*(1/2 - u*(1/3 - u*(1/4 - u*(1/5 - u*(1/6 - u/7))))))
	p := int64(1<<62) / 7
	for k := int64(6); k >= 1; k-- {
		p = int64(1<<62)/k - mulQ62(u, p)
	}
	l := mulQ62(u, p) + int64(f32Tab64(f32LogC, j))
	if e >= -1 && e <= 1 {
		return f32FromQ(int64(e)*ln2Q62+l, 0)
	}
	return f32FromQ(int64(e)*ln2Q56+l>>6, 6)
}

// f32TwoOverPi holds 2/pi to 256 bits after the binary point, big-endian.
const f32TwoOverPi = "\xa2\xf9\x83\x6e\x4e\x44\x15\x29\xfc\x27\x57\xd1\xf5\x34\xdd\xc0" +
	"\xdb\x62\x95\x99\x3c\x43\x90\x41\xfe\x51\x63\xab\xde\xbb\xc5\x61"

// piOver2Q62 is pi/2 in Q62.
const piOver2Q62 = 7244019458077122842

// f32SinCos returns sin x (cos false) or cos x (cos true): x = (n + f)*pi/2
// with n an integer and |f| <= 1/2, from the bits of 2/pi that matter for
// x's exponent (Payne and Hanek: a 96-bit window times x's significand
// gives n mod 4 and 64 bits of f), then sin or cos of r = f*pi/2 by their
// series to r^14 in Q62. Below 2^-12, sin x rounds to x and cos x to 1.
func f32SinCos(x float32, cos bool) float32 {
	b := math.Float32bits(x)
	a := b &^ (1 << 31)
	switch {
	case a >= 0x7f800000: // Inf, NaN
		if a > 0x7f800000 {
			return math.Float32frombits(b | 0x00400000)
		}
		return f32NaN()
	case a < 0x39800000:
		if cos {
			return 1
		}
		return x
	}
	m, e := f32Unpack(a) // |x| = m*2^s, s = e-150 in [-35, 104]
	// x*2/pi = m*P*2^(s-256), P the 256-bit integer of f32TwoOverPi: the
	// window w of P's bits lo to lo+97 (lo = 160-s) times m has the
	// binary point at bit 96; P's higher bits add multiples of 4 (m is an
	// integer), its bits below lo less than 2^-72.
	lo := 160 - (int(e) - 150)
	var w [4]uint32 // w[0] bits lo..lo+31
	for k := 0; k < 98; k++ {
		if p := lo + k; p >= 0 && p < 256 {
			w[k/32] |= uint32(f32TwoOverPi[31-p/8]>>uint(p%8)&1) << uint(k%32)
		}
	}
	p0 := uint64(m) * uint64(w[0])
	p1 := uint64(m)*uint64(w[1]) + p0>>32
	p2 := uint64(m)*uint64(w[2]) + p1>>32
	p2 += uint64(m*w[3]) << 32
	n := uint32(p2 >> 32) // integer part (mod 4 matters)
	F := p2<<32 | p1&0xffffffff
	n += uint32(F >> 63) // nearest integer
	f := int64(F)        // f in Q64
	af := uint64(f)
	if f < 0 {
		af = -af
	}
	rh, _ := bits.Mul64(af, piOver2Q62)
	r := int64(rh) // f*pi/2 in Q62
	if f < 0 {
		r = -r
	}
	if int32(b) < 0 {
		r, n = -r, -n
	}
	z := mulQ62(r, r)
	// sin r = r*(1 - z/(2*3)*(1 - z/(4*5)*(...(1 - z/(12*13))))),
	// cos r = 1 - z/(1*2)*(1 - z/(3*4)*(...(1 - z/(13*14)))).
	var v int64
	if (n&1 == 0) != cos {
		t := int64(1 << 62)
		for k := int64(12); k >= 2; k -= 2 {
			t = 1<<62 - mulQ62(z, t)/(k*(k+1))
		}
		v = mulQ62(r, t)
	} else {
		t := int64(1 << 62)
		for k := int64(13); k >= 1; k -= 2 {
			t = 1<<62 - mulQ62(z, t)/(k*(k+1))
		}
		v = t
	}
	// sin: quadrants 0 1 2 3 give sin r, cos r, -sin r, -cos r; cos:
	// cos r, -sin r, -cos r, sin r.
	if cos {
		n++
	}
	if n&2 != 0 {
		v = -v
	}
	return f32FromQ(v, 0)
}

// f32Sin returns sin x.
func f32Sin(x float32) float32 { return f32SinCos(x, false) }

// f32Cos returns cos x.
func f32Cos(x float32) float32 { return f32SinCos(x, true) }

// f32Expm1 returns e^x - 1: x itself below 2^-25, x*(1 + x/2 + x^2/6 +
// x^3/24 + x^4/120 + x^5/720) below 1/16 (in Q62), e^x - 1 from expFix
// beyond (where e^x - 1 is at least 0.06 in magnitude), -1 below -17.5.
func f32Expm1(x float32) float32 {
	b := math.Float32bits(x)
	a := b &^ (1 << 31)
	switch {
	case a < 0x33000000: // |x| < 2^-25
		return x
	case a > 0x7f800000: // NaN
		return math.Float32frombits(b | 0x00400000)
	case int32(b) < 0 && a >= 0x418c0000: // x <= -17.5, -Inf
		return -1
	case a >= 0x42b20000: // x >= 89, Inf
		return math.Float32frombits(0x7f800000)
	case a < 0x3d800000: // |x| < 1/16: x in Q62 is exact
		m, e := f32Unpack(a)
		X := int64(m) << uint(e-88)
		if int32(b) < 0 {
			X = -X
		}
		t := int64(1<<62) / 720
		for _, k := range [...]int64{120, 24, 6, 2, 1} {
			t = int64(1<<62)/k + mulQ62(X, t)
		}
		return f32FromQ(mulQ62(X, t), 0)
	}
	M, q := expFix(b)
	switch {
	case q > 62: // 1 is below M's last bit
		return f32FromFix(M, q)
	case q >= 0:
		return f32FromQ(int64(M-1<<uint(62-q)), q)
	}
	return f32FromQ(int64(M>>uint(-q))-1<<62, 0)
}

// f32Floor returns the largest integer not above x (-0, Inf and NaN stay).
func f32Floor(x float32) float32 {
	b := math.Float32bits(x)
	e := int32(b>>23&0xff) - 127
	switch {
	case e >= 23: // an integer, Inf or NaN
		if b<<1 > 0xff000000 {
			return math.Float32frombits(b | 0x00400000) // quiet NaN
		}
		return x
	case e < 0: // |x| < 1
		if int32(b) >= 0 || b<<1 == 0 {
			return math.Float32frombits(b & (1 << 31)) // +0, or -0 for -0
		}
		return -1
	}
	frac := uint32(0x7fffff) >> uint(e)
	if b&frac == 0 {
		return x
	}
	if int32(b) < 0 {
		b += frac // the magnitude up (a carry moves into the exponent)
	}
	return math.Float32frombits(b &^ frac)
}

// f32Ceil returns the smallest integer not below x.
func f32Ceil(x float32) float32 { return -f32Floor(-x) }

// f32RoundI32 returns x rounded to the nearest integer, halves away from
// zero (C's roundf), saturated to the int32 range; NaN gives 0.
func f32RoundI32(x float32) int32 {
	b := math.Float32bits(x)
	a := b &^ (1 << 31)
	var u uint32
	switch {
	case a > 0x7f800000: // NaN
		return 0
	case a >= 0x4f000000: // |x| >= 2^31
		if int32(b) < 0 {
			return math.MinInt32
		}
		return math.MaxInt32
	case a < 0x3f000000: // |x| < 1/2
		return 0
	case a >= 0x4b000000: // |x| >= 2^23: an integer
		u = (a&0x7fffff | 0x800000) << (a>>23 - 150)
	default:
		s := 150 - a>>23 // 1 to 24
		u = (a&0x7fffff | 0x800000 + 1<<(s-1)) >> s
	}
	if int32(b) < 0 {
		return -int32(u)
	}
	return int32(u)
}

// f32Mod returns the remainder of x/y with the sign of x (C's fmodf):
// exact, by long division of the significands. NaN for y = 0, infinite x
// or a NaN; x for infinite y.
func f32Mod(x, y float32) float32 {
	bx, by := math.Float32bits(x), math.Float32bits(y)
	ax, ay := bx&^(1<<31), by&^(1<<31)
	sign := bx & (1 << 31)
	switch {
	case ay == 0 || ax >= 0x7f800000 || ay > 0x7f800000:
		return f32NaN()
	case ax < ay:
		return x
	case ax == ay:
		return math.Float32frombits(sign)
	}
	mx, ex := f32Unpack(ax)
	my, ey := f32Unpack(ay)
	for ; ex > ey; ex-- {
		if mx >= my {
			mx -= my
		}
		mx <<= 1
	}
	if mx >= my {
		mx -= my
	}
	if mx == 0 {
		return math.Float32frombits(sign)
	}
	n := bits.LeadingZeros32(mx) - 8
	mx <<= uint(n)
	ey -= int32(n)
	if ey >= 1 {
		return math.Float32frombits(sign | uint32(ey)<<23 | mx&0x7fffff)
	}
	return math.Float32frombits(sign | mx>>uint(1-ey))
}
