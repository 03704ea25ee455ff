package kernels

import "unsafe"

// The float LSTM of the default build (for TinyGo on a Cortex-M, where
// float32 is emulated): each gate's two FCs and its bias by block floating
// point (bfp.go), rounded once to float32; the gate functions and the cell
// and hidden updates as lstmFinish2F computes them.

// lstmBFPRec is the bytes of lstmFloatBFP's record per unit: the weight
// exponents of the four gates' input rows, of their recurrent rows, and
// the four biases (float32 bits), little-endian int32 each.
const lstmBFPRec = 48

// lstmFloatBFP runs the float32 LSTM with block floating point dot
// products. wIn holds [units][inDim][4 gates] and wRec [units][units][4
// gates] int32 significands (little-endian; gates forget, input, cell,
// output; one exponent per unit and gate in rec, PlanLSTMFloatBFP), rec
// lstmBFPRec bytes per unit. xs is scratch (8+inDim words): the sums,
// then the input row's significands; the state h holds its own significands
// during a step (it is rewritten from the outputs at the step's end). A
// row whose input or state holds an infinity or NaN runs lstmRowBFPSlow.
func lstmFloatBFP(p *lstmParams, x []float32, h []float32, c []float32, out []float32, xs []int32,
	wIn, wRec, rec string) {
	n, s := p.inDim, p.units
	if n <= 0 || s <= 0 {
		return
	}
	bxIn, _ := bfpBits(n)
	bxRec, _ := bfpBits(s)
	wIn, wRec, rec = wIn[:16*n*s], wRec[:16*s*s], rec[:lstmBFPRec*s]
	xs = xs[:8+n]
	a := bfpAcc(xs)
	xs = xs[8:]
	pi := unsafe.Pointer(unsafe.StringData(wIn))
	pr := unsafe.Pointer(unsafe.StringData(wRec))
	for r := 0; r < p.batch*p.steps; r++ {
		b := lstmRowBatch(p, r)
		xr, hb, cb, yr := x[r*n:r*n+n], h[b*s:b*s+s], c[b*s:b*s+s], out[r*s:r*s+s]
		ex, okx := bfpVec(xs, xr, bxIn)
		if !okx {
			lstmRowBFPSlow(p, xr, hb, cb, yr, wIn, wRec, rec)
			continue
		}
		hs := unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(hb))), s)
		eh, okh := bfpVec(hs, hb, bxRec) // (in place; unchanged when not ok)
		if !okh {
			lstmRowBFPSlow(p, xr, hb, cb, yr, wIn, wRec, rec)
			continue
		}
		for u := 0; u < s; u++ {
			bfpDot4(a, xs, unsafe.Add(pi, 16*n*u))
			ai := *a
			bfpDot4(a, hs, unsafe.Add(pr, 16*s*u))
			var g [4]float32
			ru := rec[lstmBFPRec*u : lstmBFPRec*u+lstmBFPRec]
			for k := range g {
				t := bfpAdd3(bfpTerm{ai[k], ex + ld32(ru, k)}, bfpTerm{a[k], eh + ld32(ru, 4+k)},
					bfpBias(ldf32(ru, 8+k)))
				g[k] = lstmClampF(bfpF32(t))
			}
			lstmFinishBFP(p, &g, &cb[u], &yr[u])
		}
		copy(hb, yr)
	}
}

// lstmFinishBFP finishes one unit from its gates' pre-activations g
// (forget, input, cell, output): the new cell state goes to *c, the
// output to *y (as lstmFinish2F).
func lstmFinishBFP(p *lstmParams, g *[4]float32, c, y *float32) {
	f := f32Logistic(g[0])
	i := f32Logistic(g[1])
	cg := f32Tanh(g[2])
	o := f32Logistic(g[3])
	v := lstmCellF(p, *c, f, i, cg)
	*c = v
	*y = lstmClampF(f32Mul(f32Tanh(v), o))
}

// lstmRowBFPSlow runs one row of lstmFloatBFP whose input or state holds
// an infinity or NaN in float32 arithmetic in TFLM's order (lstmGateF),
// with each weight the float32 of its significand and exponent.
func lstmRowBFPSlow(p *lstmParams, x, h, c, y []float32, wIn, wRec, rec string) {
	n, s := len(x), len(h)
	for u := 0; u < s; u++ {
		ru := rec[lstmBFPRec*u : lstmBFPRec*u+lstmBFPRec]
		var g [4]float32
		for k := range g {
			a := bfpDotSlow(x, wIn[16*n*u:16*n*(u+1)], k, ld32(ru, k))
			r := bfpDotSlow(h, wRec[16*s*u:16*s*(u+1)], k, ld32(ru, 4+k))
			g[k] = lstmGateF(a, ldf32(ru, 8+k), r)
		}
		lstmFinishBFP(p, &g, &c[u], &y[u])
	}
	copy(h, y)
}
