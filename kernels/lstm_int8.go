package kernels

// Fast int8 UNIDIRECTIONAL_SEQUENCE_LSTM (int8 activations and weights, int16
// cell state; see lstm.go for the arithmetic it reproduces bit for bit).
//
// Units are taken two at a time: the four gates' dot products of a unit
// pair are one block of eight rows for octDot (oct.go), rows forget, input,
// cell, output of unit 2g, then those of unit 2g+1 (a missing unit has zero
// rows). The activations need no packing, so nothing is prepared per unit
// or kept in scratch memory.
//
// Weight layout (built by gen): for unit pair g, the block [len][8] of
// octDot, one byte per weight; input weights in one string, recurrent
// weights in another, each ending with octPad zero bytes. Biases: per unit
// 8 int32, the four gates' input FC biases (zero point folded in) then the
// four recurrent FC biases.

// lstmInt8 runs an LSTM with int8 input, output and hidden state h, int8
// weights (packed, see above) and int16 cell state c. It needs no scratch
// memory. Gates come in TFLM's evaluation order: forget, input, cell,
// output.
func lstmInt8(p *lstmParams, x []int8, h []int8, c []int16, out []int8,
	fg, ig, cg, og *lstmGate, wIn, wRec, bias string) {
	n, s := p.inDim, p.units
	// The gates' FC requantizations and the unit's, prepared once.
	var grq [8]rq32
	grq[0], grq[4] = lstmMakeRQ(fg.inMult, fg.inShift), lstmMakeRQ(fg.recMult, fg.recShift)
	grq[1], grq[5] = lstmMakeRQ(ig.inMult, ig.inShift), lstmMakeRQ(ig.recMult, ig.recShift)
	grq[2], grq[6] = lstmMakeRQ(cg.inMult, cg.inShift), lstmMakeRQ(cg.recMult, cg.recShift)
	grq[3], grq[7] = lstmMakeRQ(og.inMult, og.inShift), lstmMakeRQ(og.recMult, og.recShift)
	var urq lstmUnitRQ
	lstmMakeUnitRQ(p, &urq)
	for r := 0; r < p.batch*p.steps; r++ {
		b := lstmRowBatch(p, r)
		xr, hb, cb, yr := x[r*n:r*n+n], h[b*s:b*s+s], c[b*s:b*s+s], out[r*s:r*s+s]
		// octDot's sums are of x*(w+128).
		cx, ch := -128*fcSumI8(xr), -128*fcSumI8(hb)
		for g := 0; 2*g < s; g++ {
			var in, rec [8]int32
			octDot(xr, wIn[8*n*g:], &in)
			octDot(hb, wRec[8*s*g:], &rec)
			for u := 0; u < 2; u++ {
				o := 2*g + u
				if o >= s {
					break
				}
				j := 4 * (u & 1)
				bb := bias[32*o : 32*o+32]
				pf := min(max(lstmRq16(in[j]+cx+ld32(bb, 0), &grq[0])+lstmRq16(rec[j]+ch+ld32(bb, 4), &grq[4]), -32768), 32767)
				pi := min(max(lstmRq16(in[j+1]+cx+ld32(bb, 1), &grq[1])+lstmRq16(rec[j+1]+ch+ld32(bb, 5), &grq[5]), -32768), 32767)
				pg := min(max(lstmRq16(in[j+2]+cx+ld32(bb, 2), &grq[2])+lstmRq16(rec[j+2]+ch+ld32(bb, 6), &grq[6]), -32768), 32767)
				po := min(max(lstmRq16(in[j+3]+cx+ld32(bb, 3), &grq[3])+lstmRq16(rec[j+3]+ch+ld32(bb, 7), &grq[7]), -32768), 32767)
				f, i := lstmSigmoidQ(int16(pf)), lstmSigmoidQ(int16(pi))
				gv, og := lstmTanhQ(int16(pg), 3, 0), lstmSigmoidQ(int16(po))
				cv := lstmCellQ(p, &urq, cb[o], f, i, gv)
				cb[o] = cv
				yr[o] = int8(lstmHiddenQ(p, &urq, cv, og))
			}
		}
		copy(hb, yr)
	}
}

// lstmRq16 requantizes one FC accumulator of a gate to Q3.12 and clamps it
// to int16 (the two FCs of a gate are then added with int16 saturation).
func lstmRq16(a int32, q *rq32) int32 {
	return min(max(rqApply(a, q), -32768), 32767)
}
