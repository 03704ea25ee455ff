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

// fcRQ holds one requantization: the multiplier and the precomputed shifts
// and rounding terms (see the file comment).
type fcRQ struct {
	mult int32
	lsh  uint8 // left shift of the accumulator, 0..30
	rsh  uint8 // 31 + right shift, 31..62
	half int32 // 2^(r-1), or 0 when r = 0
}

// fcRescale scales x by one requantization (bit-exact
// MultiplyByQuantizedMultiplier).
func fcRescale(x int32, q fcRQ) int32 {
	z := int64(x<<(q.lsh&31))*int64(q.mult) + 1<<30
	neg := int64(-q.half) >> 63
	return int32((z + (int64(q.half)+(z>>63)&neg)<<31) >> (q.rsh & 63))
}

// fcRQRecordLen is the length in bytes of a per-channel record in an
// fcRQ table string: folded bias (int32), multiplier (int32), half
// (int32), left shift (byte), 31 + right shift (byte), two zero bytes. All
// little-endian.
const fcRQRecordLen = 16

// fcRecord decodes record c of a per-channel table: the channel's folded
// bias and its requantization.
func fcRecord(tab string, c int) (int32, fcRQ) {
	r := tab[fcRQRecordLen*c : fcRQRecordLen*c+fcRQRecordLen]
	bias := int32(uint32(r[0]) | uint32(r[1])<<8 | uint32(r[2])<<16 | uint32(r[3])<<24)
	m := int32(uint32(r[4]) | uint32(r[5])<<8 | uint32(r[6])<<16 | uint32(r[7])<<24)
	h := int32(uint32(r[8]) | uint32(r[9])<<8 | uint32(r[10])<<16 | uint32(r[11])<<24)
	return bias, fcRQ{mult: m, lsh: r[12], rsh: r[13], half: h}
}
