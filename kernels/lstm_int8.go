package kernels

import (
	"math"
	"math/bits"
)

// Fast int8 UNIDIRECTIONAL_SEQUENCE_LSTM (int8 activations and weights, int16
// cell state; see lstm.go for the arithmetic it reproduces bit for bit).
//
// Units are taken two at a time: the four gates' dot products of a unit
// pair are one block of eight rows for octDot (oct.go), rows forget, input,
// cell, output of unit 2g, then those of unit 2g+1 (a missing unit has zero
// rows). The activations need no packing, so nothing is prepared per unit;
// the kernels' scratch (lstmInt8Scratch int32 words, planned by the
// generator) holds the input and recurrent sums of a block, which octDot's
// assembly stores to memory.
//
// Weight layout (built by gen): for unit pair g, the block [len][8] of
// octDot, one byte per weight; input weights in one string, recurrent
// weights in another, each ending with octPad zero bytes. Biases: per unit
// 8 int32, the four gates' input FC biases (zero point folded in) then the
// four recurrent FC biases.

// lstmInt8Scratch is the scratch of lstmInt8 and its forms in int32 words:
// the input and the recurrent sums of one block (octDot).
const lstmInt8Scratch = 16

// lstmInt8 runs the int8 LSTM in the form lstmInt8Form picks. Generated
// packages call that form's kernel directly (PlanLSTMInt8).
func lstmInt8(p *lstmParams, x []int8, h []int8, c []int16, out []int8,
	fg, ig, cg, og *lstmGate, wIn, wRec, bias string, scr []int32) {
	switch lstmInt8Form(p, fg, ig, cg, og) {
	case lstmFormWide:
		lstmInt8Wide(p, x, h, c, out, fg, ig, cg, og, wIn, wRec, bias, scr)
	case lstmFormR:
		lstmInt8R(p, x, h, c, out, fg, ig, cg, og, wIn, wRec, bias, scr)
	default:
		lstmInt8G(p, x, h, c, out, fg, ig, cg, og, wIn, wRec, bias, scr)
	}
}

// The forms of the int8 LSTM kernel, by its requantizations
// (lstmInt8Form).
const (
	lstmFormG    = iota // lstmInt8G: lstmR, and lstmRG for the input FCs
	lstmFormR           // lstmInt8R: every exponent a right shift (lstmRU)
	lstmFormWide        // lstmInt8Wide: rqApply's two rounding steps
)

// lstmInt8Form returns the form of the int8 kernel that is exact for the
// LSTM's requantizations and takes the fewest operations: lstmFormWide
// where lstmR's single rounding step could overflow (lstmRFits), else
// lstmFormR when every exponent shifts right, else lstmFormG. The
// generator calls it (PlanLSTMInt8) and emits that kernel alone.
func lstmInt8Form(p *lstmParams, fg, ig, cg, og *lstmGate) int {
	const prod = 1 << 30
	const sum = 1<<31 - 1
	if !lstmRGFits(fg.inMult, fg.inShift) || !lstmRFits(fg.recMult, fg.recShift, sum) ||
		!lstmRGFits(ig.inMult, ig.inShift) || !lstmRFits(ig.recMult, ig.recShift, sum) ||
		!lstmRGFits(cg.inMult, cg.inShift) || !lstmRFits(cg.recMult, cg.recShift, sum) ||
		!lstmRGFits(og.inMult, og.inShift) || !lstmRFits(og.recMult, og.recShift, sum) ||
		!lstmRFits(p.forgetMult, p.forgetShift, prod) || !lstmRFits(p.inputMult, p.inputShift, prod) ||
		!lstmRFits(p.hidMult, p.hidShift, prod) {
		return lstmFormWide
	}
	if fg.inShift < 0 && ig.inShift < 0 && cg.inShift < 0 && og.inShift < 0 &&
		fg.recShift < 0 && ig.recShift < 0 && cg.recShift < 0 && og.recShift < 0 &&
		p.forgetShift < 0 && p.inputShift < 0 && p.hidShift < 0 {
		return lstmFormR
	}
	return lstmFormG
}

// lstmInt8G is lstmInt8 in the form lstmFormG.
func lstmInt8G(p *lstmParams, x []int8, h []int8, c []int16, out []int8,
	fg, ig, cg, og *lstmGate, wIn, wRec, bias string, scr []int32) {
	n, s := p.inDim, p.units
	// The gates' FC requantizations and the unit's, prepared once.
	// The input FCs' exponents may be > 0 (a large input scale), the
	// recurrent FCs' (hidden scale about 1/128) are not in practice: a
	// recurrent left shift takes lstmInt8Wide.
	var grq [4]lstmRG
	var rrq [4]lstmR
	grq[0], rrq[0] = lstmMakeRG(fg.inMult, fg.inShift), lstmMakeR(fg.recMult, fg.recShift)
	grq[1], rrq[1] = lstmMakeRG(ig.inMult, ig.inShift), lstmMakeR(ig.recMult, ig.recShift)
	grq[2], rrq[2] = lstmMakeRG(cg.inMult, cg.inShift), lstmMakeR(cg.recMult, cg.recShift)
	grq[3], rrq[3] = lstmMakeRG(og.inMult, og.inShift), lstmMakeR(og.recMult, og.recShift)
	fq, iq, hq := lstmMakeR(p.forgetMult, p.forgetShift), lstmMakeR(p.inputMult, p.inputShift), lstmMakeR(p.hidMult, p.hidShift)
	// Saturation to int16 then clipping is one clamp to the intersection.
	cLo, cHi := int32(-32768), int32(32767)
	if p.clip {
		cLo, cHi = max(-p.cellClip, cLo), min(p.cellClip, cHi)
	}
	tMul, tSh := p.tanhMult, uint32(p.tanhShift)&31
	tRnd := int32(0)
	if tSh > 0 {
		tRnd = 1 << (tSh - 1)
	}
	hZP, hMin, hMax := p.hidZP, p.hidMin, p.hidMax
	// The clamps test a range first (one unsigned compare): cLo <= cHi and
	// hMin <= hMax.
	cSpan, hSpan := uint32(cHi-cLo), uint32(hMax-hMin)
	// The recurrent FC biases fold in the hidden state's zero point (no
	// LSTM operator has a recurrent bias): all zero for a zero point of 0.
	// Each is then a test of recB instead of a load of four bytes. The scan
	// costs about what one row's loads do: a single row just loads them.
	recB := p.batch*p.steps == 1
	for o := 0; o < s && !recB; o++ {
		recB = ld32(bias, 8*o+4)|ld32(bias, 8*o+5)|ld32(bias, 8*o+6)|ld32(bias, 8*o+7) != 0
	}
	in, rec := (*[8]int32)(scr[0:8]), (*[8]int32)(scr[8:16])
	for r := 0; r < p.batch*p.steps; r++ {
		b := lstmRowBatch(p, r)
		xr, hb, cb, yr := x[r*n:r*n+n], h[b*s:b*s+s], c[b*s:b*s+s], out[r*s:r*s+s]
		// octDot's sums are of x*(w+128).
		cx, ch := -128*fcSumI8(xr), -128*fcSumI8(hb)
		for o := 0; o < s; o++ {
			if o&1 == 0 {
				octDot(xr, wIn[4*n*o:], in)
				octDot(hb, wRec[4*s*o:], rec)
			}
			k := 4 * (o & 1)
			ia, ra := (*[4]int32)(in[k:]), (*[4]int32)(rec[k:])
			bb := bias[32*o : 32*o+32]
			{
				r0, r1, r2, r3 := ra[0]+ch, ra[1]+ch, ra[2]+ch, ra[3]+ch
				if recB {
					r0, r1, r2, r3 = r0+ld32(bb, 4), r1+ld32(bb, 5), r2+ld32(bb, 6), r3+ld32(bb, 7)
				}
				pf := lstmSat16(lstmSat16(grq[0].rq(ia[0]+cx+ld32(bb, 0))) + lstmSat16(rrq[0].rq(r0)))
				pi := lstmSat16(lstmSat16(grq[1].rq(ia[1]+cx+ld32(bb, 1))) + lstmSat16(rrq[1].rq(r1)))
				pg := lstmSat16(lstmSat16(grq[2].rq(ia[2]+cx+ld32(bb, 2))) + lstmSat16(rrq[2].rq(r2)))
				po := lstmSat16(lstmSat16(grq[3].rq(ia[3]+cx+ld32(bb, 3))) + lstmSat16(rrq[3].rq(r3)))

				// f, i = lstmSigmoidQ(pf), lstmSigmoidQ(pi).
				var f, i int32
				{
					x := pf * 3
					m := x >> 31
					ax := uint32((x ^ m) - m)
					var r uint32
					if u := ax >> 9; u >= 255 {
						r = 0x7FFF << 10
					} else {
						lo, hi := sigmoidTab2(int(u))
						r = lo<<9 + (ax&0x1FF)*(hi-lo)
					}
					if x >= 0 {
						r += 1 << 9
					} else {
						r = 1<<25 - r + 1<<9 - 1
					}
					f = int32(r >> 10)
				}
				{
					x := pi * 3
					m := x >> 31
					ax := uint32((x ^ m) - m)
					var r uint32
					if u := ax >> 9; u >= 255 {
						r = 0x7FFF << 10
					} else {
						lo, hi := sigmoidTab2(int(u))
						r = lo<<9 + (ax&0x1FF)*(hi-lo)
					}
					if x >= 0 {
						r += 1 << 9
					} else {
						r = 1<<25 - r + 1<<9 - 1
					}
					i = int32(r >> 10)
				}
				// gv = lstmTanhQ(pg, 3, 0).
				var gv int32
				{
					x := pg * 3
					m := x >> 31
					ax := uint32((x ^ m) - m)
					var r int32
					if u := ax >> 8; u >= 255 {
						r = 0xFFFF << 8
					} else {
						lo, hi := sigmoidTab2(int(u))
						r = int32(lo<<8 + (ax&0xFF)*(hi-lo))
					}
					if x >= 0 {
						r = r - 1<<23 + 1<<7
					} else {
						r = -r + 1<<23 + 1<<7 - 1
					}
					gv = r >> 8
				}
				// The cell update (lstmCellQ).
				cv := lstmSat16(fq.rq(f*int32(cb[o]))) + lstmSat16(iq.rq(i*gv))
				if uint32(cv-cLo) > cSpan {
					cv = min(max(cv, cLo), cHi)
				}
				cb[o] = int16(cv)
				// ov = lstmSigmoidQ(po).
				var ov int32
				{
					x := po * 3
					m := x >> 31
					ax := uint32((x ^ m) - m)
					var r uint32
					if u := ax >> 9; u >= 255 {
						r = 0x7FFF << 10
					} else {
						lo, hi := sigmoidTab2(int(u))
						r = lo<<9 + (ax&0x1FF)*(hi-lo)
					}
					if x >= 0 {
						r += 1 << 9
					} else {
						r = 1<<25 - r + 1<<9 - 1
					}
					ov = int32(r >> 10)
				}
				// The hidden state (lstmHiddenQ): tanh of the cell, times ov.
				var t int32
				{
					x := (cv*tMul + tRnd) >> tSh
					m := x >> 31
					ax := uint32((x ^ m) - m)
					var r int32
					if u := ax >> 8; u >= 255 {
						r = 0xFFFF << 8
					} else {
						lo, hi := sigmoidTab2(int(u))
						r = int32(lo<<8 + (ax&0xFF)*(hi-lo))
					}
					if x >= 0 {
						r = r - 1<<23 + 1<<7
					} else {
						r = -r + 1<<23 + 1<<7 - 1
					}
					t = r >> 8
				}
				y := hZP + hq.rq(t*ov)
				if uint32(y-hMin) > hSpan {
					y = min(max(y, hMin), hMax)
				}
				yr[o] = int8(y)
			}
		}
		copy(hb, yr)
	}
}

// lstmInt8R is lstmInt8 for gates whose FCs all shift right (every
// inShift and recShift < 0) and cell and hidden scalings that do too: all
// requantizations are lstmRU, with no left shift and one or two operations
// less than lstmR. It requires lstmInt8Form to be lstmFormR (lstmR
// exact).
func lstmInt8R(p *lstmParams, x []int8, h []int8, c []int16, out []int8,
	fg, ig, cg, og *lstmGate, wIn, wRec, bias string, scr []int32) {
	n, s := p.inDim, p.units
	// The gates' FC requantizations and the unit's, prepared once.
	var grq, rrq [4]lstmRU
	grq[0], rrq[0] = lstmMakeRU(fg.inMult, fg.inShift), lstmMakeRU(fg.recMult, fg.recShift)
	grq[1], rrq[1] = lstmMakeRU(ig.inMult, ig.inShift), lstmMakeRU(ig.recMult, ig.recShift)
	grq[2], rrq[2] = lstmMakeRU(cg.inMult, cg.inShift), lstmMakeRU(cg.recMult, cg.recShift)
	grq[3], rrq[3] = lstmMakeRU(og.inMult, og.inShift), lstmMakeRU(og.recMult, og.recShift)
	fq, iq, hq := lstmMakeRU(p.forgetMult, p.forgetShift), lstmMakeRU(p.inputMult, p.inputShift), lstmMakeRU(p.hidMult, p.hidShift)
	// Saturation to int16 then clipping is one clamp to the intersection.
	cLo, cHi := int32(-32768), int32(32767)
	if p.clip {
		cLo, cHi = max(-p.cellClip, cLo), min(p.cellClip, cHi)
	}
	tMul, tSh := p.tanhMult, uint32(p.tanhShift)&31
	tRnd := int32(0)
	if tSh > 0 {
		tRnd = 1 << (tSh - 1)
	}
	hZP, hMin, hMax := p.hidZP, p.hidMin, p.hidMax
	// The clamps test a range first (one unsigned compare): cLo <= cHi and
	// hMin <= hMax.
	cSpan, hSpan := uint32(cHi-cLo), uint32(hMax-hMin)
	// The recurrent FC biases fold in the hidden state's zero point (no
	// LSTM operator has a recurrent bias): all zero for a zero point of 0.
	// Each is then a test of recB instead of a load of four bytes. The scan
	// costs about what one row's loads do: a single row just loads them.
	recB := p.batch*p.steps == 1
	for o := 0; o < s && !recB; o++ {
		recB = ld32(bias, 8*o+4)|ld32(bias, 8*o+5)|ld32(bias, 8*o+6)|ld32(bias, 8*o+7) != 0
	}
	in, rec := (*[8]int32)(scr[0:8]), (*[8]int32)(scr[8:16])
	for r := 0; r < p.batch*p.steps; r++ {
		b := lstmRowBatch(p, r)
		xr, hb, cb, yr := x[r*n:r*n+n], h[b*s:b*s+s], c[b*s:b*s+s], out[r*s:r*s+s]
		// octDot's sums are of x*(w+128).
		// Plus 2^31: the gates' sums offset to unsigned (lstmRU).
		// In memory, so that gc loads each instead of recomputing it.
		var cc [2]int32
		cc[0], cc[1] = -128*fcSumI8(xr)+math.MinInt32, -128*fcSumI8(hb)+math.MinInt32
		for o := 0; o < s; o++ {
			if o&1 == 0 {
				octDot(xr, wIn[4*n*o:], in)
				octDot(hb, wRec[4*s*o:], rec)
			}
			k := 4 * (o & 1)
			ia, ra := (*[4]int32)(in[k:]), (*[4]int32)(rec[k:])
			bb := bias[32*o : 32*o+32]
			{
				r0, r1, r2, r3 := ra[0]+cc[1], ra[1]+cc[1], ra[2]+cc[1], ra[3]+cc[1]
				if recB {
					r0, r1, r2, r3 = r0+ld32(bb, 4), r1+ld32(bb, 5), r2+ld32(bb, 6), r3+ld32(bb, 7)
				}
				pf := lstmSat16(lstmSat16(grq[0].rq(uint32(ia[0]+cc[0]+ld32(bb, 0)))) + lstmSat16(rrq[0].rq(uint32(r0))))
				pi := lstmSat16(lstmSat16(grq[1].rq(uint32(ia[1]+cc[0]+ld32(bb, 1)))) + lstmSat16(rrq[1].rq(uint32(r1))))
				pg := lstmSat16(lstmSat16(grq[2].rq(uint32(ia[2]+cc[0]+ld32(bb, 2)))) + lstmSat16(rrq[2].rq(uint32(r2))))
				po := lstmSat16(lstmSat16(grq[3].rq(uint32(ia[3]+cc[0]+ld32(bb, 3)))) + lstmSat16(rrq[3].rq(uint32(r3))))

				// f, i = lstmSigmoidQ(pf), lstmSigmoidQ(pi).
				var f, i int32
				{
					x := pf * 3
					m := x >> 31
					ax := uint32((x ^ m) - m)
					var r uint32
					if u := ax >> 9; u >= 255 {
						r = 0x7FFF << 10
					} else {
						lo, hi := sigmoidTab2(int(u))
						r = lo<<9 + (ax&0x1FF)*(hi-lo)
					}
					if x >= 0 {
						r += 1 << 9
					} else {
						r = 1<<25 - r + 1<<9 - 1
					}
					f = int32(r >> 10)
				}
				{
					x := pi * 3
					m := x >> 31
					ax := uint32((x ^ m) - m)
					var r uint32
					if u := ax >> 9; u >= 255 {
						r = 0x7FFF << 10
					} else {
						lo, hi := sigmoidTab2(int(u))
						r = lo<<9 + (ax&0x1FF)*(hi-lo)
					}
					if x >= 0 {
						r += 1 << 9
					} else {
						r = 1<<25 - r + 1<<9 - 1
					}
					i = int32(r >> 10)
				}
				// gv = lstmTanhQ(pg, 3, 0).
				var gv int32
				{
					x := pg * 3
					m := x >> 31
					ax := uint32((x ^ m) - m)
					var r int32
					if u := ax >> 8; u >= 255 {
						r = 0xFFFF << 8
					} else {
						lo, hi := sigmoidTab2(int(u))
						r = int32(lo<<8 + (ax&0xFF)*(hi-lo))
					}
					if x >= 0 {
						r = r - 1<<23 + 1<<7
					} else {
						r = -r + 1<<23 + 1<<7 - 1
					}
					gv = r >> 8
				}
				// The cell update (lstmCellQ).
				cv := lstmSat16(fq.rq(uint32(f*int32(cb[o]))^1<<31)) + lstmSat16(iq.rq(uint32(i*gv)^1<<31))
				if uint32(cv-cLo) > cSpan {
					cv = min(max(cv, cLo), cHi)
				}
				cb[o] = int16(cv)
				// ov = lstmSigmoidQ(po).
				var ov int32
				{
					x := po * 3
					m := x >> 31
					ax := uint32((x ^ m) - m)
					var r uint32
					if u := ax >> 9; u >= 255 {
						r = 0x7FFF << 10
					} else {
						lo, hi := sigmoidTab2(int(u))
						r = lo<<9 + (ax&0x1FF)*(hi-lo)
					}
					if x >= 0 {
						r += 1 << 9
					} else {
						r = 1<<25 - r + 1<<9 - 1
					}
					ov = int32(r >> 10)
				}
				// The hidden state (lstmHiddenQ): tanh of the cell, times ov.
				var t int32
				{
					x := (cv*tMul + tRnd) >> tSh
					m := x >> 31
					ax := uint32((x ^ m) - m)
					var r int32
					if u := ax >> 8; u >= 255 {
						r = 0xFFFF << 8
					} else {
						lo, hi := sigmoidTab2(int(u))
						r = int32(lo<<8 + (ax&0xFF)*(hi-lo))
					}
					if x >= 0 {
						r = r - 1<<23 + 1<<7
					} else {
						r = -r + 1<<23 + 1<<7 - 1
					}
					t = r >> 8
				}
				y := hZP + hq.rq(uint32(t*ov)^1<<31)
				if uint32(y-hMin) > hSpan {
					y = min(max(y, hMin), hMax)
				}
				yr[o] = int8(y)
			}
		}
		copy(hb, yr)
	}
}

// lstmInt8Wide is lstmInt8 with rqApply's two rounding steps (lstmQ) for
// the gate requantizations, for a multiplier within 2^e of 2^31 (e the right
// shift) where lstmR's single step could overflow (see lstmRFits). No real
// model needs it.
func lstmInt8Wide(p *lstmParams, x []int8, h []int8, c []int16, out []int8,
	fg, ig, cg, og *lstmGate, wIn, wRec, bias string, scr []int32) {
	n, s := p.inDim, p.units
	// The gates' FC requantizations and the unit's, prepared once.
	var grq [8]lstmQ
	grq[0], grq[4] = lstmMakeQ(fg.inMult, fg.inShift), lstmMakeQ(fg.recMult, fg.recShift)
	grq[1], grq[5] = lstmMakeQ(ig.inMult, ig.inShift), lstmMakeQ(ig.recMult, ig.recShift)
	grq[2], grq[6] = lstmMakeQ(cg.inMult, cg.inShift), lstmMakeQ(cg.recMult, cg.recShift)
	grq[3], grq[7] = lstmMakeQ(og.inMult, og.inShift), lstmMakeQ(og.recMult, og.recShift)
	fq, iq, hq := lstmMakeQ(p.forgetMult, p.forgetShift), lstmMakeQ(p.inputMult, p.inputShift), lstmMakeQ(p.hidMult, p.hidShift)
	// Saturation to int16 then clipping is one clamp to the intersection.
	cLo, cHi := int32(-32768), int32(32767)
	if p.clip {
		cLo, cHi = max(-p.cellClip, cLo), min(p.cellClip, cHi)
	}
	tMul, tSh := p.tanhMult, uint32(p.tanhShift)&31
	tRnd := int32(0)
	if tSh > 0 {
		tRnd = 1 << (tSh - 1)
	}
	hZP, hMin, hMax := p.hidZP, p.hidMin, p.hidMax
	in, rec := (*[8]int32)(scr[0:8]), (*[8]int32)(scr[8:16])
	for r := 0; r < p.batch*p.steps; r++ {
		b := lstmRowBatch(p, r)
		xr, hb, cb, yr := x[r*n:r*n+n], h[b*s:b*s+s], c[b*s:b*s+s], out[r*s:r*s+s]
		// octDot's sums are of x*(w+128).
		cx, ch := -128*fcSumI8(xr), -128*fcSumI8(hb)
		for g := 0; 2*g < s; g++ {
			octDot(xr, wIn[8*n*g:], in)
			octDot(hb, wRec[8*s*g:], rec)
			for u := 0; u < 2; u++ {
				o := 2*g + u
				if o >= s {
					break
				}
				ia, ra := (*[4]int32)(in[4*u:4*u+4]), (*[4]int32)(rec[4*u:4*u+4])
				bb := bias[32*o : 32*o+32]
				pf := lstmSat16(lstmSat16(grq[0].rnd(grq[0].hm(ia[0]+cx+ld32(bb, 0)))) + lstmSat16(grq[4].rnd(grq[4].hm(ra[0]+ch+ld32(bb, 4)))))
				pi := lstmSat16(lstmSat16(grq[1].rnd(grq[1].hm(ia[1]+cx+ld32(bb, 1)))) + lstmSat16(grq[5].rnd(grq[5].hm(ra[1]+ch+ld32(bb, 5)))))
				pg := lstmSat16(lstmSat16(grq[2].rnd(grq[2].hm(ia[2]+cx+ld32(bb, 2)))) + lstmSat16(grq[6].rnd(grq[6].hm(ra[2]+ch+ld32(bb, 6)))))
				po := lstmSat16(lstmSat16(grq[3].rnd(grq[3].hm(ia[3]+cx+ld32(bb, 3)))) + lstmSat16(grq[7].rnd(grq[7].hm(ra[3]+ch+ld32(bb, 7)))))

				// f, i = lstmSigmoidQ(pf), lstmSigmoidQ(pi).
				var f, i int32
				{
					x := pf * 3
					m := x >> 31
					ax := uint32((x ^ m) - m)
					var r uint32
					if u := ax >> 9; u >= 255 {
						r = 0x7FFF << 10
					} else {
						lo, hi := sigmoidTab2(int(u))
						r = lo<<9 + (ax&0x1FF)*(hi-lo)
					}
					if x >= 0 {
						r += 1 << 9
					} else {
						r = 1<<25 - r + 1<<9 - 1
					}
					f = int32(r >> 10)
				}
				{
					x := pi * 3
					m := x >> 31
					ax := uint32((x ^ m) - m)
					var r uint32
					if u := ax >> 9; u >= 255 {
						r = 0x7FFF << 10
					} else {
						lo, hi := sigmoidTab2(int(u))
						r = lo<<9 + (ax&0x1FF)*(hi-lo)
					}
					if x >= 0 {
						r += 1 << 9
					} else {
						r = 1<<25 - r + 1<<9 - 1
					}
					i = int32(r >> 10)
				}
				// gv = lstmTanhQ(pg, 3, 0).
				var gv int32
				{
					x := pg * 3
					m := x >> 31
					ax := uint32((x ^ m) - m)
					var r int32
					if u := ax >> 8; u >= 255 {
						r = 0xFFFF << 8
					} else {
						lo, hi := sigmoidTab2(int(u))
						r = int32(lo<<8 + (ax&0xFF)*(hi-lo))
					}
					if x >= 0 {
						r = r - 1<<23 + 1<<7
					} else {
						r = -r + 1<<23 + 1<<7 - 1
					}
					gv = r >> 8
				}
				// The cell update (lstmCellQ).
				cv := lstmSat16(fq.rnd(fq.hm(f*int32(cb[o])))) + lstmSat16(iq.rnd(iq.hm(i*gv)))
				cv = min(max(cv, cLo), cHi)
				cb[o] = int16(cv)
				// ov = lstmSigmoidQ(po).
				var ov int32
				{
					x := po * 3
					m := x >> 31
					ax := uint32((x ^ m) - m)
					var r uint32
					if u := ax >> 9; u >= 255 {
						r = 0x7FFF << 10
					} else {
						lo, hi := sigmoidTab2(int(u))
						r = lo<<9 + (ax&0x1FF)*(hi-lo)
					}
					if x >= 0 {
						r += 1 << 9
					} else {
						r = 1<<25 - r + 1<<9 - 1
					}
					ov = int32(r >> 10)
				}
				// The hidden state (lstmHiddenQ): tanh of the cell, times ov.
				var t int32
				{
					x := (cv*tMul + tRnd) >> tSh
					m := x >> 31
					ax := uint32((x ^ m) - m)
					var r int32
					if u := ax >> 8; u >= 255 {
						r = 0xFFFF << 8
					} else {
						lo, hi := sigmoidTab2(int(u))
						r = int32(lo<<8 + (ax&0xFF)*(hi-lo))
					}
					if x >= 0 {
						r = r - 1<<23 + 1<<7
					} else {
						r = -r + 1<<23 + 1<<7 - 1
					}
					t = r >> 8
				}
				yr[o] = int8(min(max(hZP+hq.rnd(hq.hm(t*ov)), hMin), hMax))
			}
		}
		copy(hb, yr)
	}
}

// lstmR is rqApply (mulByQuantMul bit for bit) in one rounding step, for
// an exponent shift <= 0 (pow 1, right shift e) and x*mult below 2^62 -
// 2^(30+e) in magnitude (see lstmRFits). rqApply rounds y = (P + 2^30) >> 31
// of P = x*mult, then y/2^e half away from zero: (y + 2^(e-1) - [y < 0]) >>
// e. Nested floors make that (2P + 2^31 + 2^(31+e) - [y < 0]*2^32) >> (32 +
// e), and [y < 0] may be [x < 0]: they differ only where y = 0 and both
// give 0. So: the high word of the 64-bit product by m2 = 2*mult, less mc =
// m2 + [e > 0] for a negative x (the signed product's correction and the
// rounding term), plus kh = 2^(e-1) (0 for e = 0) and the carry of low +
// 2^31, shifted right by e: a UMULL and five ALU operations.
// (m2 is mc without its low bit: one word less of stack per lstmR.)
type lstmR struct {
	mc uint32
	kh int32
	e  uint8
}

// lstmMakeR prepares lstmR for the multiplier m (>= 0) and exponent shift
// in [-31, 0].
func lstmMakeR(m int32, shift int) lstmR {
	e := uint32(max(min(-shift, 31), 0))
	q := lstmR{mc: 2 * uint32(m), e: uint8(e)}
	if e > 0 {
		q.mc++
		q.kh = 1 << (e - 1)
	}
	return q
}

// lstmRFits reports whether lstmR(m, shift).rq(x) is rqApply for every x in
// [-2^31, xmax]: when shift <= 0 and 2*xmax*m + 2^31 + 2^(31+e) < 2^63 (e =
// -shift; always for e = 0). The gates' sums need xmax = 2^31-1, m <= 2^31 -
// 2^e; the cell and hidden products of two int16s 2^30, e < 31 or m <
// 2^31-1. A left shift (x*2^shift wrapping in 32 bits) is lstmInt8Wide's.
func lstmRFits(m int32, shift int, xmax uint64) bool {
	if shift > 0 {
		return false
	}
	e := uint(-shift)
	return e == 0 || 2*xmax*uint64(m)+1<<31+1<<(31+e) < 1<<63
}

// lstmRU is lstmR for a right shift e > 0 of the gate sum x given as u =
// x + 2^31 (mod 2^32, in [0, 2^32)): u*m2 = x*m2 + mult*2^32 has x*m2's
// low word and its high word plus mult, and [x < 0] = 1 - u>>31. So
// lstmR's value is (hi + k + u>>31 + lo>>31) >> e with hi, lo the words of
// u*m2 and k = kh - mult - 1: no sign correction.
type lstmRU struct {
	m2, k uint32
	e     uint8
}

// lstmMakeRU prepares lstmRU for the multiplier m (>= 0) and exponent
// shift in [-31, -1].
func lstmMakeRU(m int32, shift int) lstmRU {
	q := lstmMakeR(m, shift)
	return lstmRU{m2: q.mc &^ 1, k: uint32(q.kh) - uint32(m) - 1, e: q.e}
}

// rq scales x = u - 2^31.
func (q *lstmRU) rq(u uint32) int32 {
	hi, lo := bits.Mul32(u, q.m2)
	return int32(hi+q.k+u>>31+lo>>31) >> q.e
}

// lstmRG is a gate's lstmR with its left shift, the power of two pow.
type lstmRG struct {
	lstmR
	pow int32
}

// lstmMakeRG prepares lstmRG for the multiplier m (>= 0) and exponent shift
// in [-31, 30].
func lstmMakeRG(m int32, shift int) lstmRG {
	return lstmRG{lstmR: lstmMakeR(m, min(shift, 0)), pow: int32(uint32(1) << uint(max(shift, 0)))}
}

// lstmRGFits reports whether lstmRG(m, shift).rq(x) is rqApply for every
// int32 x: x*pow wraps in 32 bits as rqApply's does; then lstmR.
func lstmRGFits(m int32, shift int) bool {
	return lstmRFits(m, min(shift, 0), 1<<31-1)
}

// rq scales x.
func (q *lstmRG) rq(x int32) int32 {
	return q.lstmR.rq(x * q.pow)
}

// rq scales x.
func (q *lstmR) rq(x int32) int32 {
	hi, lo := bits.Mul32(uint32(x), q.mc&^1)
	return int32(hi-uint32(x>>31)&q.mc+uint32(q.kh)+lo>>31) >> q.e
}

// lstmQ is an rq32 for lstmInt8Wide, with the rounding threshold ready.
type lstmQ struct {
	mult, pow int32
	rsh       uint32
	mask, thr int32
}

// lstmMakeQ prepares the requantization by the generation-time multiplier m
// (>= 0) and exponent shift in [-31, 30] (see lstmMakeRQ).
func lstmMakeQ(m int32, shift int) lstmQ {
	q := rqFor(m, shift)
	return lstmQ{mult: q.mult, pow: q.pow, rsh: q.rsh & 31, mask: q.mask, thr: q.mask >> 1}
}

// hm is the first half of rqApply (mulByQuantMul bit for bit), the
// doubling high multiply (ab + 2^30) >> 31 of ab = (x*pow)*mult: it is 2*hi
// + ((lo>>1 + 2^29) >> 30) with hi, lo the signed product's words, from
// one UMULL (bits.Mul32) and the sign correction of a (mult >= 0). gc for
// 32-bit ARM builds a 64-bit product of int32s from a UMULL, two MULs and
// adds instead. q.rnd(q.hm(x)) is rqApply(x); they are two functions for
// gc's inliner.
func (q *lstmQ) hm(x int32) int32 {
	m := uint32(q.mult)
	a := x * q.pow
	hi, lo := bits.Mul32(uint32(a), m)
	return int32((hi-uint32(a>>31)&m)<<1 + (lo>>1+1<<29)>>30)
}

// rnd is the rounding right shift of rqApply.
func (q *lstmQ) rnd(y int32) int32 {
	return y>>(q.rsh&31) - (q.thr+int32(uint32(y)>>31)-y&q.mask)>>31
}

// lstmSat16 clamps v to int16.
func lstmSat16(v int32) int32 {
	if int32(int16(v)) != v {
		v = v>>31 ^ 0x7FFF
	}
	return v
}
