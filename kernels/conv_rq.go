package kernels

// Per-channel requantization records shared by the specialised int8
// convolution kernels (conv_pw.go, conv_fast.go, depthwise_fast.go).
//
// The lowering computes one record of convRQLen int32 values per output
// channel and passes the records as a constant string; the kernel copies
// them once per call into an int32 scratch view, so the inner loops read
// aligned int32 values instead of decoding little-endian bytes.
//
// Record layout (index: meaning):
//
//	0 folded bias: bias + inOffset*sum(weights of the channel), in wrapping
//	  int32 arithmetic. Valid for outputs whose whole window lies inside
//	  the input, where sum((x+inOffset)*w) + bias equals sum(x*w) + folded.
//	1 multiplier (Q31, >= 0)
//	2 left shift (0..31)
//	3 right shift (0..31)
//	4 rounding half for the right shift: (1<<right)>>1
//	5 -1 when right > 0, else 0 (rounds negative ties away from zero)
//	6 the operator's own bias (0 when absent), for windows that reach
//	  into the padding
//	7 unused (0)
const convRQLen = 8

// convRQLoad decodes the little-endian records rq into dst.
func convRQLoad(rq string, dst []int32) {
	dst = dst[:len(rq)/4]
	for i := range dst {
		s := rq[4*i : 4*i+4]
		dst[i] = int32(uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24)
	}
}

// convRQScale is mulByQuantMul for one record r (a convRQLen slice): the
// same doubling high multiply and rounding right shift, written without
// branches. The multiplier is never MinInt32, so the high multiply cannot
// saturate, and (a*b + 2^30) >> 31 equals its nudged, truncating division
// for either sign of a*b.
func convRQScale(acc int32, r []int32) int32 {
	r = r[:convRQLen]
	h := (int64(acc<<(uint32(r[2])&31))*int64(r[1]) + 1<<30) >> 31
	h += int64(r[4]) + (h>>63)&int64(r[5])
	return int32(h >> (uint32(r[3]) & 31))
}
