package kernels

import "unsafe"

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
// A sum of up to lstmPairBlock such products keeps |sum of x1*w0| and |sum
// of x0*w0 + x1*w1| below 2^22 (127*2*128*128 < 2^22), so the middle term is
// recovered exactly from bits 23..45 (higher bits, which may wrap, are
// discarded). Integer sums are exact, so the result is bit-identical to
// TFLM's term-by-term int32 accumulation.
//
// Weight layout (built by gen): for unit o, for pair k, the packed int32 of
// the forget, input, cell and output gate rows, 16 bytes per pair; input
// weights in one string, recurrent weights in another (twice the bytes of
// the int8 weight tensors). Biases: per unit 8 int32, the four gates' input
// FC biases (zero point folded in) then the four recurrent FC biases.

// lstmPairBlock is the number of packed pairs summed before the middle term
// is extracted.
const lstmPairBlock = 127

// lstmPackPairs8 packs int8 activations into pairs x[2k]<<23 + x[2k+1]; a
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

// lstmQ4 reads the k-th little-endian int32 of a 16-byte group as int64.
func lstmQ4(q *[16]byte, k int) int64 {
	return int64(int32(uint32(q[4*k]) | uint32(q[4*k+1])<<8 | uint32(q[4*k+2])<<16 | uint32(q[4*k+3])<<24))
}

// lstmQ2 reads the two little-endian int32 of an 8-byte group as int64:
// gc loads all eight bytes at once.
func lstmQ2(q *[8]byte) (lo, hi int64) {
	u := uint64(q[0]) | uint64(q[1])<<8 | uint64(q[2])<<16 | uint64(q[3])<<24 |
		uint64(q[4])<<32 | uint64(q[5])<<40 | uint64(q[6])<<48 | uint64(q[7])<<56
	return int64(int32(u)), int64(u) >> 32
}

// lstmDotPairBlock returns the four raw sums of packed products of xp with
// the four interleaved packed weight rows wq.
func lstmDotPairBlock(xp []int64, wq [][16]byte) (s0, s1, s2, s3 int64) {
	wq = wq[:len(xp)]
	for k, v := range xp {
		q := &wq[k]
		w0, w1 := lstmQ2((*[8]byte)(q[:8]))
		w2, w3 := lstmQ2((*[8]byte)(q[8:]))
		s0 += v * w0
		s1 += v * w1
		s2 += v * w2
		s3 += v * w3
	}
	return s0, s1, s2, s3
}

// lstmDotPairBlock8 is lstmDotPairBlock for activations not packed in
// advance: x holds the block's int8 values, packed pair by pair on the fly
// (both read with one 16-bit load).
func lstmDotPairBlock8(x []int8, wq [][16]byte) (s0, s1, s2, s3 int64) {
	m := len(x) / 2
	xq := unsafe.Slice((*[2]byte)(unsafe.Pointer(unsafe.SliceData(x))), m)
	wm := wq[:m]
	for k := range xq {
		u := uint16(xq[k][0]) | uint16(xq[k][1])<<8
		v := int64(int8(u))<<23 + int64(int16(u)>>8)
		q := &wm[k]
		w0, w1 := lstmQ2((*[8]byte)(q[:8]))
		w2, w3 := lstmQ2((*[8]byte)(q[8:]))
		s0 += v * w0
		s1 += v * w1
		s2 += v * w2
		s3 += v * w3
	}
	if len(x)%2 == 1 {
		v := int64(x[len(x)-1]) << 23
		q := &wq[m]
		s0 += v * lstmQ4(q, 0)
		s1 += v * lstmQ4(q, 1)
		s2 += v * lstmQ4(q, 2)
		s3 += v * lstmQ4(q, 3)
	}
	return s0, s1, s2, s3
}

// lstmPairMid extracts the middle term, bits 23..45 (signed), of a block's
// sum of packed products.
func lstmPairMid(acc int64) int32 {
	return int32((acc - acc<<41>>41) << 18 >> 41)
}

// lstmDotPairs4 returns the four dot products of the packed activations xp
// (or, when xp is empty, of the int8 activations x packed on the fly) with
// the four interleaved packed weight rows w (16 bytes per pair), block by
// block.
func lstmDotPairs4(xp []int64, x []int8, w string) (a0, a1, a2, a3 int32) {
	wq := unsafe.Slice((*[16]byte)(unsafe.Pointer(unsafe.StringData(w))), len(w)/16)
	if len(wq) <= lstmPairBlock {
		// One block (the usual case): no block loop.
		var s0, s1, s2, s3 int64
		if len(xp) > 0 {
			s0, s1, s2, s3 = lstmDotPairBlock(xp[:len(wq)], wq)
		} else {
			s0, s1, s2, s3 = lstmDotPairBlock8(x, wq)
		}
		return lstmPairMid(s0), lstmPairMid(s1), lstmPairMid(s2), lstmPairMid(s3)
	}
	for len(wq) > 0 {
		m := min(len(wq), lstmPairBlock)
		var s0, s1, s2, s3 int64
		if len(xp) > 0 {
			s0, s1, s2, s3 = lstmDotPairBlock(xp[:m], wq[:m])
			xp = xp[m:]
		} else {
			e := min(len(x), 2*m)
			s0, s1, s2, s3 = lstmDotPairBlock8(x[:e], wq[:m])
			x = x[e:]
		}
		a0 += lstmPairMid(s0)
		a1 += lstmPairMid(s1)
		a2 += lstmPairMid(s2)
		a3 += lstmPairMid(s3)
		wq = wq[m:]
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
// for the packed input row ((inDim+1)/2) and hidden state ((units+1)/2);
// when they are empty (the lean variant), activations are packed on the
// fly. Gates come in TFLM's evaluation order: forget, input, cell, output.
func lstmInt8(p *lstmParams, x []int8, h []int8, c []int16, out []int8, xp, hp []int64,
	fg, ig, cg, og *lstmGate, wIn, wRec, bias string) {
	n, s := p.inDim, p.units
	np, sp := (n+1)/2, (s+1)/2
	packed := len(xp) > 0
	if packed {
		xp, hp = xp[:np], hp[:sp]
	}
	// The gates' FC requantizations and the unit's, prepared once.
	var grq [8]lstmRQ
	for k, g := range [4]*lstmGate{fg, ig, cg, og} {
		grq[k], grq[4+k] = lstmMakeRQ(g.inMult, g.inShift), lstmMakeRQ(g.recMult, g.recShift)
	}
	urq := lstmMakeUnitRQ(p)
	for r := 0; r < p.batch*p.steps; r++ {
		b := lstmRowBatch(p, r)
		xr, hb, cb, yr := x[r*n:r*n+n], h[b*s:b*s+s], c[b*s:b*s+s], out[r*s:r*s+s]
		if packed {
			lstmPackPairs8(xr, xp)
			lstmPackPairs8(hb, hp)
		}
		for o := range yr {
			var in, rec [4]int32
			in[0], in[1], in[2], in[3] = lstmDotPairs4(xp, xr, wIn[16*np*o:16*np*(o+1)])
			rec[0], rec[1], rec[2], rec[3] = lstmDotPairs4(hp, hb, wRec[16*sp*o:16*sp*(o+1)])
			bb := bias[32*o : 32*o+32]
			// lstmGateSum of each gate, written out so that the
			// requantizations inline.
			var pre [4]int16
			for k := range pre {
				a := clampI32(lstmRescale(in[k]+ld32(bb, k), &grq[k]), -32768, 32767)
				b := clampI32(lstmRescale(rec[k]+ld32(bb, 4+k), &grq[4+k]), -32768, 32767)
				pre[k] = int16(clampI32(a+b, -32768, 32767))
			}
			cv := lstmCellQ(p, &urq, cb[o], lstmSigmoidQ(pre[0]), lstmSigmoidQ(pre[1]), lstmTanhQ(pre[2], 3, 0))
			cb[o] = cv
			yr[o] = int8(lstmHiddenQ(p, &urq, cv, lstmSigmoidQ(pre[3])))
		}
		copy(hb, yr)
	}
}

// lstmInt8Lean is lstmInt8 without scratch memory (activations packed on
// the fly).
func lstmInt8Lean(p *lstmParams, x []int8, h []int8, c []int16, out []int8,
	fg, ig, cg, og *lstmGate, wIn, wRec, bias string) {
	lstmInt8(p, x, h, c, out, nil, nil, fg, ig, cg, og, wIn, wRec, bias)
}
