package kernels

// Fast int8 UNIDIRECTIONAL_SEQUENCE_LSTM (int8 activations and weights, int16
// cell state; see lstm.go for the arithmetic it reproduces bit for bit).
//
// The eight fully connected products of a unit (input and recurrent FC of
// four gates) are computed together with two multiply-accumulates per 64-bit
// multiplication. At generation time every pair of weights (w0, w1) of a row
// is packed into one int32, w0 + w1*2^23; at run time every pair of
// activations (x0, x1) into one int64, x0*2^23 + x1. Their product is
//
//	x1*w0 + (x0*w0 + x1*w1)*2^23 + x0*w1*2^46
//
// and the sum of up to lstmPairBlock such products keeps the middle term in
// bits 23..45 intact (|x1*w0| sums stay below 2^22, the middle term too), so
// it is recovered exactly by two shifts. Integer sums are exact, so the
// result is bit-identical to TFLM's term-by-term int32 accumulation.
//
// Weight layout (lstmPackInt8W in gen): for unit o, for pair k, the packed
// int32 of the forget, input, cell and output gate rows, 16 bytes per pair;
// input weights in one string, recurrent weights in another. Biases: per
// unit 8 int32, the four gates' input FC biases (zero point folded in) then
// the four recurrent FC biases.

// lstmPairBlock is the number of packed pairs summed in one int64 before
// the middle term is extracted: 127 * 2 * 128 * 128 < 2^22.
const lstmPairBlock = 127

// lstmPackPairs8 packs int8 activations into pairs x[2k]*2^23 + x[2k+1]; a
// missing last element counts as 0.
func lstmPackPairs8(src []int8, dst []int64) {
	for k := range dst {
		var x1 int64
		if 2*k+1 < len(src) {
			x1 = int64(src[2*k+1])
		}
		dst[k] = int64(src[2*k])<<23 + x1
	}
}

// lstmPairSum extracts the middle term (bits 23..45, signed) of a sum of
// packed products.
func lstmPairSum(acc int64) int32 {
	lo := acc << 41 >> 41
	return int32((acc - lo) << 18 >> 41)
}

// lstmI32at reads the little-endian int32 at byte offset o of s as int64.
func lstmI32at(s string, o int) int64 {
	return int64(int32(uint32(s[o]) | uint32(s[o+1])<<8 | uint32(s[o+2])<<16 | uint32(s[o+3])<<24))
}

// lstmDotPairs4 returns the four dot products of the packed activations xp
// with the four interleaved packed weight rows w (16 bytes per pair).
func lstmDotPairs4(xp []int64, w string) (a0, a1, a2, a3 int32) {
	for len(xp) > 0 {
		m := min(len(xp), lstmPairBlock)
		blk := w[:16*m]
		var s0, s1, s2, s3 int64
		for _, v := range xp[:m] {
			if len(blk) < 16 {
				break
			}
			s0 += v * lstmI32at(blk, 0)
			s1 += v * lstmI32at(blk, 4)
			s2 += v * lstmI32at(blk, 8)
			s3 += v * lstmI32at(blk, 12)
			blk = blk[16:]
		}
		a0 += lstmPairSum(s0)
		a1 += lstmPairSum(s1)
		a2 += lstmPairSum(s2)
		a3 += lstmPairSum(s3)
		xp, w = xp[m:], w[16*m:]
	}
	return a0, a1, a2, a3
}

// lstmGateSum returns a gate's Q3.12 pre-activation from its input and
// recurrent FC accumulators (biases included): each requantized and clamped
// to int16, then added with int16 saturation.
func lstmGateSum(g *lstmGate, in, rec int32) int16 {
	a := clampI32(lstmMulQ(in, g.inMult, g.inShift), -32768, 32767)
	b := clampI32(lstmMulQ(rec, g.recMult, g.recShift), -32768, 32767)
	return int16(clampI32(a+b, -32768, 32767))
}

// lstmInt8 runs an LSTM with int8 input, output and hidden state h, int8
// weights (packed, see above) and int16 cell state c. xp and hp are scratch
// for the packed input row ((inDim+1)/2) and hidden state ((units+1)/2).
// Gates come in TFLM's evaluation order: forget, input, cell, output.
func lstmInt8(p *lstmParams, x []int8, h []int8, c []int16, out []int8, xp, hp []int64,
	fg, ig, cg, og *lstmGate, wIn, wRec, bias string) {
	n, s := p.inDim, p.units
	np, sp := (n+1)/2, (s+1)/2
	xp, hp = xp[:np], hp[:sp]
	for r := 0; r < p.batch*p.steps; r++ {
		b := lstmRowBatch(p, r)
		hb, cb, yr := h[b*s:b*s+s], c[b*s:b*s+s], out[r*s:r*s+s]
		lstmPackPairs8(x[r*n:r*n+n], xp)
		lstmPackPairs8(hb, hp)
		for o := range yr {
			fi, ii, ci, oi := lstmDotPairs4(xp, wIn[16*np*o:16*np*(o+1)])
			fr, ir, cr, or := lstmDotPairs4(hp, wRec[16*sp*o:16*sp*(o+1)])
			bb := bias[32*o : 32*o+32]
			f := lstmSigmoidQ(lstmGateSum(fg, fi+int32(lstmI32at(bb, 0)), fr+int32(lstmI32at(bb, 16))))
			i := lstmSigmoidQ(lstmGateSum(ig, ii+int32(lstmI32at(bb, 4)), ir+int32(lstmI32at(bb, 20))))
			g := lstmTanhQ(lstmGateSum(cg, ci+int32(lstmI32at(bb, 8)), cr+int32(lstmI32at(bb, 24))), 3, 0)
			cv := lstmCellQ(p, cb[o], f, i, g)
			cb[o] = cv
			ov := lstmSigmoidQ(lstmGateSum(og, oi+int32(lstmI32at(bb, 12)), or+int32(lstmI32at(bb, 28))))
			yr[o] = int8(lstmHiddenQ(p, cv, ov))
		}
		copy(hb, yr)
	}
}
