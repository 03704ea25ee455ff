package kernels

import "unsafe"

// fcBFPMinDepth is the least input depth for which the generator calls
// fcF32BFP: each output channel costs about 100 instructions to round
// and each input row about 15 an element to convert, against about 80 a
// multiply-add in software float32 (TinyGo, Cortex-M4).
const fcBFPMinDepth = 4

// fcBFPRec is the bytes of fcF32BFP's record per output channel: the
// weight row's exponent and the bias (float32 bits, 0 without a bias),
// little-endian int32 each.
const fcBFPRec = 8

// fcF32BFP is fcF32 with block floating point dot products (bfp.go), the
// float FULLY_CONNECTED of the default build with -speed, for layers of
// at least fcBFPMinDepth inputs: each channel's sum and bias rounded once to
// float32, then clamped to [fActMin, fActMax]. w holds blocks of four
// channels, [blocks][accumDepth][4] int32 significands (the last block
// padded with zero rows), rec fcBFPRec bytes per channel
// (PlanFCF32BFP); xs is scratch (8+accumDepth words): the sums, then an
// input row's significands. A row holding an infinity or NaN is summed in
// float32 arithmetic in order (bfpDotSlow).
func fcF32BFP(p *fcParams, in []float32, xs []int32, w, rec string, out []float32) {
	k, n, nbat := p.accumDepth, p.outDepth, p.batches
	if k <= 0 || n <= 0 || nbat <= 0 {
		return
	}
	nb := (n + 3) / 4
	w, rec = w[:16*k*nb], rec[:fcBFPRec*n]
	in, out, xs = in[:k*nbat], out[:n*nbat], xs[:8+k]
	a := bfpAcc(xs)
	xs = xs[8:]
	bx, _ := bfpBits(k)
	pw := unsafe.Pointer(unsafe.StringData(w))
	for b := 0; b < nbat; b++ {
		x, o := in[b*k:b*k+k], out[b*n:b*n+n]
		ex, ok := bfpVec(xs, x, bx)
		for blk := 0; blk < nb; blk++ {
			if ok {
				bfpDot4(a, xs, unsafe.Add(pw, 16*k*blk))
			}
			for j := 0; j < min(4, n-4*blk); j++ {
				ch := 4*blk + j
				ew, bias := ld32(rec, 2*ch), ldf32(rec, 2*ch+1)
				if ok {
					o[ch] = bfpF32(bfpAdd3(bfpTerm{a[j], ex + ew}, bfpBias(bias), bfpTerm{0, bfpZeroE}))
				} else {
					o[ch] = f32Add(bfpDotSlow(x, w[16*k*blk:16*k*(blk+1)], j, ew), bias)
				}
			}
		}
		fcActF32(o, "", p.fActMin, p.fActMax)
	}
}
