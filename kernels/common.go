package kernels

import (
	"math"
	"unsafe"
)

// Fixed-point helpers shared by the integer kernels. They reproduce the
// arithmetic of TFLite Micro's reference kernels (gemmlowp-style double
// rounding) so that results are bit-exact.

// satRoundDoublingHighMul returns the high 32 bits of 2*a*b, rounded to
// nearest (ties away from zero), saturating the one overflowing case.
func satRoundDoublingHighMul(a, b int32) int32 {
	if a == b && a == math.MinInt32 {
		return math.MaxInt32
	}
	ab := int64(a) * int64(b)
	nudge := int64(1 << 30)
	if ab < 0 {
		nudge = 1 - (1 << 30)
	}
	return int32((ab + nudge) / (1 << 31))
}

// roundingDivByPOT divides x by 2^exponent, rounding to nearest with ties
// away from zero.
func roundingDivByPOT(x int32, exponent int) int32 {
	mask := int32(1)<<uint(exponent) - 1
	remainder := x & mask
	threshold := mask >> 1
	if x < 0 {
		threshold++
	}
	r := x >> uint(exponent)
	if remainder > threshold {
		r++
	}
	return r
}

// mulByQuantMul scales x by the fixed-point multiplier m (Q31) and the power
// of two 2^shift (shift > 0 shifts left).
func mulByQuantMul(x, m int32, shift int) int32 {
	left, right := 0, 0
	if shift > 0 {
		left = shift
	} else {
		right = -shift
	}
	return roundingDivByPOT(satRoundDoublingHighMul(x*(1<<uint(left)), m), right)
}

// mulByQuantMul64 scales a 64-bit accumulator (16x8 kernels) by m and shift
// with the reduced 16-bit multiplier TFLite uses for that case.
func mulByQuantMul64(x int64, m int32, shift int) int32 {
	reduced := int64(0x7FFF)
	if m < 0x7FFF0000 {
		reduced = int64((m + (1 << 15)) >> 16)
	}
	total := uint(15 - shift)
	x = x*reduced + int64(1)<<(total-1)
	return int32(x >> total)
}

// sumI8 is the sum of x in plain int32 additions (one byte load and
// one add per element on a 32-bit core), eight at a time.
func sumI8(x []int8) int32 {
	var s int32
	n := len(x) / 8
	if n > 0 {
		x8 := unsafe.Slice((*[8]int8)(unsafe.Pointer(unsafe.SliceData(x))), n)
		for i := range x8 {
			v := &x8[i]
			s += int32(v[0]) + int32(v[1]) + int32(v[2]) + int32(v[3]) +
				int32(v[4]) + int32(v[5]) + int32(v[6]) + int32(v[7])
		}
	}
	for _, v := range x[8*n:] {
		s += int32(v)
	}
	return s
}

// strAligned4 returns the word-aligned copy of the n bytes (a multiple
// of 4) that s holds four times, each copy one byte further from a word
// boundary than the one before (copy i at offset i*(n+1); gen/lower's
// phase4). Read-only data has no alignment guarantee; -speed builds store
// small per-channel tables this way so that the kernels read words.
func strAligned4(s string, n int) string {
	i := int(-uintptr(unsafe.Pointer(unsafe.StringData(s)))) & 3
	return s[i*(n+1) : i*(n+1)+n]
}

// le32 is the little-endian int32 of four bytes.
func le32(q *[4]byte) int32 {
	return int32(uint32(q[0]) | uint32(q[1])<<8 | uint32(q[2])<<16 | uint32(q[3])<<24)
}

// ld32 reads the i-th little-endian int32 of a constant string.
func ld32(s string, i int) int32 {
	s = s[4*i : 4*i+4]
	return int32(uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24)
}

// ld64 reads the i-th little-endian int64 of a constant string.
func ld64(s string, i int) int64 {
	s = s[8*i : 8*i+8]
	return int64(uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56)
}

// le64 is the little-endian uint64 of eight bytes (gc loads them at once).
func le64(q *[8]byte) uint64 {
	return uint64(q[0]) | uint64(q[1])<<8 | uint64(q[2])<<16 | uint64(q[3])<<24 |
		uint64(q[4])<<32 | uint64(q[5])<<40 | uint64(q[6])<<48 | uint64(q[7])<<56
}

// ldf32 reads the i-th little-endian float32 of a constant string.
func ldf32(s string, i int) float32 { return math.Float32frombits(uint32(ld32(s, i))) }

// clampI32 limits x to [lo, hi].
func clampI32(x, lo, hi int32) int32 {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

// clampF32 limits x to [lo, hi].
func clampF32(x, lo, hi float32) float32 {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}
