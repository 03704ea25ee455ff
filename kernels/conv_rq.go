package kernels

// Per-channel requantization records shared by the specialised int8
// convolution kernels (conv_pw.go, depthwise_rows.go).
//
// The lowering passes three little-endian int32 values per output channel
// as a constant string: the folded bias, bias + inOffset*sum(weights of the
// channel) in wrapping int32 arithmetic (so sum((x+inOffset)*w) + bias =
// sum(x*w) + folded), the multiplier (Q31, >= 0) and the shift (<= 31).
// convRQLoad expands them once per call into records of convRQLen int64
// values in scratch, so the inner loops read aligned, ready values:
//
//	0 folded bias
//	1 multiplier
//	2 left shift: max(shift, 0)
//	3 31 + right shift, right = max(-shift, 0)
//	4 rounding addend: 2^30, plus 2^(30+right) when right > 0
//	5 negative-tie correction: 2^31 when right > 0, else 0
//	6, 7 unused (0)
//
// With X = (acc << left) * multiplier, mulByQuantMul's rounding doubling
// high multiply is floor((X + 2^30) / 2^31) (the multiplier is never
// MinInt32, so it cannot saturate), and its rounding right shift adds
// 2^(right-1), minus one when that high part is negative, i.e. when
// X + 2^30 < 0, before flooring. Nested floors of integers by powers of two
// merge, so the result is
//
//	(X + addend - (X + 2^30 < 0 ? correction : 0)) >> (31 + right)
//
// computed in int64 without overflow (|X| < 2^62). The kernels write it
// out inline.
const convRQLen = 8

// convRQLoad expands the (folded bias, multiplier, shift) triples of rq into
// records in dst (convRQLen int64 per channel).
func convRQLoad(rq string, dst []int64) {
	n := len(rq) / 12
	dst = dst[:n*convRQLen]
	for c := 0; c < n; c++ {
		s := rq[12*c : 12*c+12]
		r := dst[c*convRQLen : c*convRQLen+convRQLen]
		r[0] = int64(int32(uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24))
		r[1] = int64(int32(uint32(s[4]) | uint32(s[5])<<8 | uint32(s[6])<<16 | uint32(s[7])<<24))
		shift := int64(int32(uint32(s[8]) | uint32(s[9])<<8 | uint32(s[10])<<16 | uint32(s[11])<<24))
		left, right := max(shift, 0), max(-shift, 0)
		r[2], r[3] = left, 31+right
		r[4], r[5] = 1<<30, 0
		if right > 0 {
			r[4] += 1 << (30 + uint64(right))
			r[5] = 1 << 31
		}
		r[6], r[7] = 0, 0
	}
}
