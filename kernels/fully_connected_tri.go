package kernels

// fcTriInt8 is the int8 fully connected layer computed with triDot (tri.go):
// twelve output channels per pass over the input row, three per 64-bit
// multiply. w holds the weights packed at generation time (gen/lower_fc.go,
// fcPackTri): per block of twelve channels (the last padded with zero
// rows), per input element, four int64 each packing three channels' weights
// (32 bytes; 8/3 bytes per weight). rq holds one fcRQRecordLen-byte record
// per output channel: the bias with the input offset folded in and the
// channel's requantization.
func fcTriInt8(p *fcParams, in []int8, w, rq string, out []int8) {
	k, n := p.accumDepth, p.outDepth
	for b := 0; b < p.batches; b++ {
		x := in[b*k : b*k+k]
		o := out[b*n : b*n+n]
		for c := 0; c < n; c += 12 {
			var a triSums
			blk := 32 * k * (c / 12)
			triDot(x, w[blk:blk+32*k], &a)
			m := min(12, n-c)
			fcOutPC(p, a[:m], 0, rq[fcRQRecordLen*c:], o[c:c+m])
		}
	}
}
