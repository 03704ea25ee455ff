package kernels

// Requantization in the form the fully connected, SVDF, softmax and
// quantize kernels use: TFLite's MultiplyByQuantizedMultiplier (see
// mulByQuantMul) rewritten with constants computed at generation time so
// that it costs one multiply, a few adds and two shifts, and no branch.
//
// For a multiplier m (0 <= m < 2^31, so the doubling high multiply never
// saturates) and an exponent e, with l = max(e, 0) and r = max(-e, 0):
//
//	z := int64(x << l) * m + 2^30     (x << l wraps in 32 bits, as TFLite)
//	SaturatingRoundingDoublingHighMul = floor(z / 2^31)   for either sign
//	RoundingDivideByPOT(y, r) = floor((y + 2^(r-1) - [y < 0]) / 2^r)  (r > 0)
//
// and [y < 0] = [z < 0], so the two nested floors merge into one:
//
//	result = (z + (half + (z>>63)&neg) << 31) >> (31 + r)
//
// where half = 2^(r-1) and neg = -1 when r > 0, and both are 0 when r = 0.
// All intermediate values fit in int64 (|z| < 2^62, half < 2^31).

// fcRQ holds one requantization in the form fcRescale uses, built once per
// kernel call (or per channel) by fcMakeRQ from the generation-time
// multiplier, shifts and rounding half. It has four fields so that the
// compiler keeps it in registers.
type fcRQ struct {
	mult int64
	hi   int64  // half << 31
	neg  int64  // -1 << 31 when r > 0, else 0
	sh   uint16 // left shift (0..30) | (31 + right shift) << 8
}

// fcMakeRQ builds an fcRQ from a multiplier, the rounding half 2^(r-1) (0
// when r = 0), the left shift and 31 + the right shift r.
func fcMakeRQ(mult, half int32, lsh, rsh uint8) fcRQ {
	h := int64(half)
	return fcRQ{mult: int64(mult), hi: h << 31, neg: (-h >> 63) << 31, sh: uint16(lsh) | uint16(rsh)<<8}
}

// fcRQFor builds the fcRQ of a multiplier m and exponent shift (shift > 0
// shifts left), and reports whether fcRescale with it is exactly
// mulByQuantMul(x, m, shift): for 0 <= m and -31 <= shift <= 30, which
// covers what quant.Multiplier produces. It is written to inline.
func fcRQFor(m int32, shift int) (fcRQ, bool) {
	if shift > 30 || shift < -31 || m < 0 {
		return fcRQ{}, false
	}
	r := uint(max(-shift, 0)) // right shift; the rounding half is 2^(r-1), 0 when r = 0
	return fcMakeRQ(m, int32(uint32(1)<<r>>1), uint8(max(shift, 0)), uint8(31+r)), true
}

// fcRescale scales x by one requantization (bit-exact
// MultiplyByQuantizedMultiplier).
func fcRescale(x int32, q fcRQ) int32 {
	z := int64(x<<(q.sh&31))*q.mult + 1<<30
	return int32((z + q.hi + (z>>63)&q.neg) >> (q.sh >> 8 & 63))
}

// fcRQRecordLen is the length in bytes of a per-channel record in an
// fcRQ table string: folded bias (int32), multiplier (int32), half
// (int32), left shift (byte), 31 + right shift (byte), two zero bytes. All
// little-endian.
const fcRQRecordLen = 16

// rq32 is one requantization in the form rqApply uses: TFLite's
// MultiplyByQuantizedMultiplier written for 32-bit cores, whose only wide
// operations are one 32x32->64 multiplication, an add and a constant shift. The left shift is a wrapping
// multiplication by 2^lsh (as TFLite's x * (1 << left_shift)), and the right
// shift's rounding is done in int32 without overflow:
//
//	y = SaturatingRoundingDoublingHighMul(x << lsh, mult) = floor((x*m + 2^30) / 2^31)
//	RoundingDivideByPOT(y, r) = (y >> r) + [(y & mask) > (mask >> 1) + [y < 0]]
//
// with mask = 2^r - 1 (for m >= 0 the high product never saturates).
type rq32 struct {
	mult int32
	pow  int32 // 2^lsh
	rsh  uint32
	mask int32
}

// rqFor builds the rq32 of a multiplier m >= 0 and exponent shift (> 0
// shifts left) in [-31, 30], as quant.Multiplier produces them.
func rqFor(m int32, shift int) rq32 {
	l, r := uint32(max(shift, 0)), uint32(max(-shift, 0))
	return rq32{mult: m, pow: int32(uint32(1) << l), rsh: r, mask: int32(uint32(1)<<r - 1)}
}

// rqApply scales x by q, bit for bit as mulByQuantMul.
func rqApply(x int32, q *rq32) int32 {
	y := int32(uint64(int64(x*q.pow)*int64(uint32(q.mult))+1<<30) >> 31) // q.mult >= 0
	thr := q.mask>>1 + int32(uint32(y)>>31)
	return y>>(q.rsh&31) - (thr-y&q.mask)>>31
}

// rqFromFC builds the rq32 of a requantization given in fcRQ's terms: the
// multiplier, the left shift and 31 + the right shift.
func rqFromFC(mult int32, lsh, rsh uint8) rq32 {
	r := uint32(rsh) - 31
	return rq32{mult: mult, pow: int32(1) << (lsh & 31), rsh: r, mask: int32(uint32(1)<<(r&31) - 1)}
}

// rqOne is a per-tensor requantization, plus zero point and clamp, in a
// one-multiply form: convPWQ's (see there), generalized to a right shift r
// of 0 (no rounding step; e masks the sign bit's term off) and to a left
// shift lsh applied to the sum first, as TFLM does (wrapping in int32).
// For u = v<<lsh in [-2^30, 2^30) and s = u + 2^30, y = mulByQuantMul(v)
// + zo - lo is (the high word of s*m2 + d, plus s>>30 & e) >> r; the
// output clamp(y + lo) is hi - max(span - max(y, 0), 0). Sums outside
// that range are clamped into it first, exact when both of its ends
// already saturate the output (rescaling is monotonic), which rqOneSet
// requires.
type rqOne struct {
	m2, e    uint32 // twice the multiplier; 1 when r > 0, else 0
	d        int64  // the addend, with the rounding and zo - lo folded in (|d| < 2^62)
	r, lsh   uint32
	span, hi int32 // hi - lo, hi
}

// rqOneSet fills t for the requantization given in fcRQ's terms
// (multiplier, left shift, 31 + right shift), output zero point zo and
// clamp [lo, hi], and reports whether rqOneQ with it is exact: a
// multiplier >= 0, a left shift up to 30, a right shift up to 21, 0 <=
// zo - lo <= 255, and both ends of the sums' range saturating (zo = lo =
// hi = 0 sets the form without zero point and clamp, rqOne0, whose ends
// the caller checks with rqOneSat).
func rqOneSet(t *rqOne, mult int32, lsh, rsh uint8, zo, lo, hi int32) bool {
	r := uint32(rsh) - 31
	zl := uint32(zo - lo)
	if mult < 0 || lsh > 30 || r > 21 || zl > 255 || lo > hi {
		return false
	}
	m2 := 2 * uint32(mult)
	kh := zl // r = 0: N = 2mv + 2^31 + zl*2^32
	t.e = 0
	if r > 0 {
		// convPWChSet's N: the rounding half, and -[v < 0], which the
		// sign bit's term adds back for v >= 0 (below 2^30 for r <= 21;
		// the masks only spare gc the code for shifts of 32 and more).
		kh = 1<<((r-1)&31) + zl<<(r&31) - 1
		t.e = 1
	}
	t.m2, t.r, t.lsh = m2, r, uint32(lsh)
	t.d = 1<<31 + int64(kh)<<32 - int64(m2)<<30
	t.span, t.hi = hi-lo, hi
	return lo == hi || rqOneSat(mult, rsh, zo, lo, hi)
}

// rqOneSat reports whether shifted sums at or beyond the ends of [-2^30,
// 2^30) rescale (multiplier mult, 31 + right shift rsh) to outputs, plus
// zo, at or beyond [lo, hi]. It tests a bound instead of rescaling the
// ends: with A = (mult>>1) - 1, the doubling high multiply of 2^30 - 1 is
// at least A and that of -2^30 at most -A, and the rounding shift by r
// keeps them beyond +-(A>>r); the test leaves one more unit of margin.
func rqOneSat(mult int32, rsh uint8, zo, lo, hi int32) bool {
	if mult < 2 {
		return false
	}
	g := int32((uint32(mult)>>1-1)>>((uint32(rsh)-31)&31)) - 1
	return g+zo >= hi && zo-g <= lo
}

// rqOne0 is mulByQuantMul(v) + zo - lo for t (unclamped; exact for v<<lsh
// in [-2^30, 2^30), otherwise a value at least as far out).
func rqOne0(v int32, t *rqOne) int32 {
	s := uint32(rqOneIn(v<<(t.lsh&31))) + 1<<30
	x := uint64(s)*uint64(t.m2) + uint64(t.d)
	return (int32(uint32(x>>32)) + int32(s>>30&t.e)) >> (t.r & 31)
}

// rqOneQ is the output of sum v: rescaled, plus the zero point, clamped.
func rqOneQ(v int32, t *rqOne) int32 {
	y := rqOne0(v, t)
	y &^= y >> 31
	y = t.span - y
	return t.hi - y&^(y>>31)
}

// rqOneR is rqOneQ's int8 output for a record with no left shift and a
// right shift sh >= 1, its fields passed by value so that a loop keeps
// them in registers.
func rqOneR(v int32, m2 uint32, d uint64, sh uint32, span, hi int32) int8 {
	s := uint32(rqOneIn(v)) + 1<<30
	x := uint64(s)*uint64(m2) + d
	y := (int32(uint32(x>>32)) + int32(s>>30)) >> sh
	y &^= y >> 31
	y = span - y
	return int8(hi - y&^(y>>31))
}

// rqOneIn clamps u into [-2^30, 2^30), rqOne's range (one test and a
// branch not taken for the sums inside it).
func rqOneIn(u int32) int32 {
	if u != u<<1>>1 {
		u = u>>31 ^ (1<<30 - 1)
	}
	return u
}
