package kernels

import (
	"math"
	"unsafe"
)

// Float32 UNIDIRECTIONAL_SEQUENCE_LSTM (see lstm.go for the structure). The
// operations follow TFLM's float reference kernels: each FC sums its
// products in order in float32 and adds the bias (none for the recurrent
// FC), the two FCs are added, sigmoid uses TFLM's cut-offs, and products and
// FC results are clamped to the finite float32 range as TFLM's activation
// "none" does. exp and tanh are f32Exp and f32Tanh (integer arithmetic,
// within an ulp of the C library's expf and tanhf).
//
// Weights are re-laid out at generation time so that the four gates of one
// unit are computed together: for unit o and input element d, the forget,
// input, cell and output gate weights follow each other (16 bytes). Each of
// the four sums still runs over d in order, so the results are those of
// TFLM's row-by-row FC. Decoding a float from string bytes costs more than
// the multiply-add it feeds, so with several input rows lstmFloat first
// decodes all weights into scratch memory (when the generator can afford
// it); lstmFloatLean decodes them as it goes.

// lstmMaxF is the largest finite float32, TFLM's bound for activation none.
const lstmMaxF = math.MaxFloat32

// lstmDotF8 is f32Dot4 for two units at once: w holds 8 floats per
// element of x (the four gates of one unit, then of the next).
//
// The element's eight weights are one [8]float32 behind one bounds check
// (the slice is sized once). The loop tests its end after the adds: then
// each accumulator has one use and gc for ARM makes multiply and add one
// VMLA (which rounds the product as the separate multiply does). Eight
// accumulators, x and eight weights need one register more than gc for
// ARM has (one accumulator goes through the stack), which still costs
// fewer instructions than splitting the element in two bounds-checked
// halves.
func lstmDotF8(x []float32, w []float32) (a0, a1, a2, a3, b0, b1, b2, b3 float32) {
	if len(x) == 0 {
		return
	}
	wq := unsafe.Slice((*[8]float32)(unsafe.Pointer(unsafe.SliceData(w[:8*len(x)]))), len(x))
	if f32RangeLoop {
		// gc for amd64 keeps the accumulators in place over a range
		// loop (the loop below makes it shuffle them at the back edge).
		for d, xv := range x {
			q := &wq[d]
			a0 += float32(xv * q[0])
			a1 += float32(xv * q[1])
			a2 += float32(xv * q[2])
			a3 += float32(xv * q[3])
			b0 += float32(xv * q[4])
			b1 += float32(xv * q[5])
			b2 += float32(xv * q[6])
			b3 += float32(xv * q[7])
		}
		return
	}
	for d := 0; ; {
		xv := x[d]
		q := &wq[d]
		a0 += float32(xv * q[0])
		a1 += float32(xv * q[1])
		a2 += float32(xv * q[2])
		a3 += float32(xv * q[3])
		b0 += float32(xv * q[4])
		b1 += float32(xv * q[5])
		b2 += float32(xv * q[6])
		b3 += float32(xv * q[7])
		d++
		if d >= len(x) {
			return
		}
	}
}

// lstmDotF8S is lstmDotF8 for weights read from a constant string (32
// bytes per element of x).
func lstmDotF8S(x []float32, w string) (a0, a1, a2, a3, b0, b1, b2, b3 float32) {
	if off := f32StrOff(w); off == 0 || f32Unaligned {
		return lstmDotF8(x, f32StrView(w))
	} else if f32Funnel {
		return lstmDotF8Q(x, w, off)
	}
	wq := unsafe.Slice((*[16]byte)(unsafe.Pointer(unsafe.StringData(w))), len(w)/16)
	for d, xv := range x {
		p := wq[2*d][:]
		a0 += float32(xv * f32q(p, 0))
		a1 += float32(xv * f32q(p, 1))
		a2 += float32(xv * f32q(p, 2))
		a3 += float32(xv * f32q(p, 3))
		p = wq[2*d+1][:]
		b0 += float32(xv * f32q(p, 0))
		b1 += float32(xv * f32q(p, 1))
		b2 += float32(xv * f32q(p, 2))
		b3 += float32(xv * f32q(p, 3))
	}
	return
}

// lstmDotF8Q is lstmDotF8S through the funnel (see f32Words): the
// elements but the last in a loop over blocks of eight words, then the
// last one, whose last word is e. The loop tests its end after the adds:
// then each accumulator has one use and gc for ARM makes multiply and add
// one VMLA (which rounds the product as the separate multiply does).
func lstmDotF8Q(x []float32, w string, off uint32) (a0, a1, a2, a3, b0, b1, b2, b3 float32) {
	c, q, e := f32Words(w, off)
	sl, sr := (8*off)&31, (32-8*off)&31
	n := len(x) - 1
	if n < 0 {
		return
	}
	q = q[:8*n+7]
	if n > 0 {
		qb := unsafe.Slice((*[8]uint32)(unsafe.Pointer(unsafe.SliceData(q))), n)
		xs := x[:n]
		for d := 0; ; {
			xv := xs[d]
			r := &qb[d]
			w0 := c | r[0]<<sr
			w1 := r[0]>>sl | r[1]<<sr
			w2 := r[1]>>sl | r[2]<<sr
			w3 := r[2]>>sl | r[3]<<sr
			a0 += float32(xv * math.Float32frombits(w0))
			a1 += float32(xv * math.Float32frombits(w1))
			a2 += float32(xv * math.Float32frombits(w2))
			a3 += float32(xv * math.Float32frombits(w3))
			w4 := r[3]>>sl | r[4]<<sr
			w5 := r[4]>>sl | r[5]<<sr
			w6 := r[5]>>sl | r[6]<<sr
			w7 := r[6]>>sl | r[7]<<sr
			c = r[7] >> sl
			b0 += float32(xv * math.Float32frombits(w4))
			b1 += float32(xv * math.Float32frombits(w5))
			b2 += float32(xv * math.Float32frombits(w6))
			b3 += float32(xv * math.Float32frombits(w7))
			d++
			if d >= len(qb) {
				break
			}
		}
	}
	r := (*[7]uint32)(q[8*n:])
	xv := x[n]
	a0 += float32(xv * math.Float32frombits(c|r[0]<<sr))
	a1 += float32(xv * math.Float32frombits(r[0]>>sl|r[1]<<sr))
	a2 += float32(xv * math.Float32frombits(r[1]>>sl|r[2]<<sr))
	a3 += float32(xv * math.Float32frombits(r[2]>>sl|r[3]<<sr))
	b0 += float32(xv * math.Float32frombits(r[3]>>sl|r[4]<<sr))
	b1 += float32(xv * math.Float32frombits(r[4]>>sl|r[5]<<sr))
	b2 += float32(xv * math.Float32frombits(r[5]>>sl|r[6]<<sr))
	b3 += float32(xv * math.Float32frombits(r[6]>>sl|e<<sr))
	return
}

// lstmGateF returns a gate's pre-activation: the clamped input FC a plus
// bias b, plus the clamped recurrent FC r. Clamping to the finite range
// changes only infinities: x-x is 0 exactly when x is finite, so one test
// skips both clamps.
func lstmGateF(a, b, r float32) float32 {
	return lstmGateFS(f32Add(a, b), r)
}

// lstmClampF is clampF32(x, -lstmMaxF, lstmMaxF) (see lstmGateF).
func lstmClampF(x float32) float32 {
	if f32Finite(x) {
		return x
	}
	return clampF32(x, -lstmMaxF, lstmMaxF)
}

// lstmDecodeF decodes len(dst) little-endian float32 values of src.
// The string is viewed as 4-byte groups so that the loop has one bounds
// check, not one per element as with ldf32 (about 12 instructions a float).
func lstmDecodeF(dst []float32, src string) {
	q := unsafe.Slice((*[4]byte)(unsafe.Pointer(unsafe.StringData(src))), len(src)/4)
	q = q[:len(dst)]
	for i := range q {
		b := &q[i]
		dst[i] = math.Float32frombits(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24)
	}
}

// lstmSigmoidF stores f32Logistic of each element of src in dst (which
// may be src).
func lstmSigmoidF(dst, src []float32) {
	dst = dst[:len(src)]
	for k, v := range src {
		dst[k] = f32Logistic(v)
	}
}

// lstmTanhF stores tanh of each element of src in dst (which may be src).
func lstmTanhF(dst, src []float32) {
	dst = dst[:len(src)]
	for k, v := range src {
		dst[k] = f32Tanh(v)
	}
}

// lstmCellF returns the updated cell state of one unit.
func lstmCellF(p *lstmParams, c, f, i, g float32) float32 {
	a, b := f32Mul(f, c), f32Mul(i, g)
	var v float32
	if f32Finite2(a, b) {
		v = f32Add(a, b)
	} else {
		v = clampF32(a, -lstmMaxF, lstmMaxF) + clampF32(b, -lstmMaxF, lstmMaxF)
	}
	if p.clip {
		v = lstmClipF(v, p.cellClipF)
	}
	return v
}

// lstmFloat runs a float32 LSTM. wIn ([units][inDim][4 gates]), wRec
// ([units][units][4 gates]) and bias ([units][4 gates]) are little-endian
// float32 with the gates in TFLM's evaluation order (forget, input, cell,
// output), except that units are paired: for units 2p and 2p+1 the eight
// gate weights of an input element follow each other ([pairs][inDim][2][4];
// with an odd number of units the last one is alone, [inDim][4]). wbuf is
// scratch for the decoded weights (4*(inDim+units)*units floats). Decoding
// once pays when there are several input rows; lstmFloatLean needs no
// scratch.
func lstmFloat(p *lstmParams, x []float32, h []float32, c []float32, out []float32, wbuf []float32,
	wIn, wRec, bias string) {
	n, s := p.inDim, p.units
	if f32Soft {
		lstmRunSoftF(p, x, h, c, out, wIn, wRec, bias)
		return
	}
	if f32Unaligned && s >= 2 {
		// Any string is viewed as float32 here: decoding gains nothing.
		lstmRunViewF(p, x, h, c, out, wIn, wRec, bias)
		return
	}
	wb := wbuf[:4*(n+s)*s]
	lstmDecodeF(wb[:4*n*s], wIn)
	lstmDecodeF(wb[4*n*s:], wRec)
	if s >= 2 {
		lstmRunDecF(p, x, h, c, out, wb[:4*n*s], wb[4*n*s:], wIn, wRec, bias)
		return
	}
	lstmRunF(p, x, h, c, out, wb[:4*n*s], wb[4*n*s:], "", "", bias)
}

// lstmRunDecF is lstmRunViewF for the decoded weights wi and wr (a last
// odd unit reads wIn and wRec).
func lstmRunDecF(p *lstmParams, x []float32, h []float32, c []float32, out []float32, wi, wr []float32,
	wIn, wRec, bias string) {
	n, s := p.inDim, p.units
	np := s / 2
	bias = bias[:16*s]
	wi, wr = wi[:8*n*np], wr[:8*s*np]
	w := lstmStrF{wIn, wRec, bias}
	for r := 0; r < p.batch*p.steps; r++ {
		b := lstmRowBatch(p, r)
		xr, hb, cb, yr := x[r*n:r*n+n], h[b*s:b*s+s], c[b*s:b*s+s], out[r*s:r*s+s]
		var a, rc [8]float32
		for k := 0; k < np; k++ {
			a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7] = lstmDotF8(xr, wi[8*n*k:8*n*(k+1)])
			lstmAddBias8(&a, bias[32*k:32*k+32])
			rc[0], rc[1], rc[2], rc[3], rc[4], rc[5], rc[6], rc[7] = lstmDotF8(hb, wr[8*s*k:8*s*(k+1)])
			lstmFinish2F(p, &a, &rc, (*[2]float32)(cb[2*k:2*k+2]), (*[2]float32)(yr[2*k:2*k+2]))
		}
		if np*2 < s {
			lstmLastUnitF(p, xr, hb, &cb[s-1], &yr[s-1], &w)
		}
		copy(hb, yr)
	}
}

// lstmFloatLean is lstmFloat without scratch memory: weights are decoded as
// they are used.
func lstmFloatLean(p *lstmParams, x []float32, h []float32, c []float32, out []float32,
	wIn, wRec, bias string) {
	if f32Soft {
		lstmRunSoftF(p, x, h, c, out, wIn, wRec, bias)
		return
	}
	if p.units >= 2 && p.inDim >= 2 {
		lstmRunFunnelF(p, x, h, c, out, wIn, wRec, bias)
		return
	}
	lstmRunF(p, x, h, c, out, nil, nil, wIn, wRec, bias)
}

// lstmNextMax is the most input FC results (4 per unit) lstmRunFunnelF
// keeps for the next time step, in two local arrays of half as many
// (TinyGo keeps no local larger than 256 bytes on the stack); pairs beyond
// compute their input FC one step at a time.
const lstmNextMax = 80

// lstmNext returns unit pair k's slot (k < lstmNextMax/8) in the two
// halves a and b of lstmRunFunnelF's results for the next row.
func lstmNext(a, b *[lstmNextMax / 2]float32, k int) *[8]float32 {
	if k < lstmNextMax/16 {
		return (*[8]float32)(a[8*k : 8*k+8])
	}
	k -= lstmNextMax / 16
	return (*[8]float32)(b[8*k : 8*k+8])
}

// lstmFunnelSt is what lstmRunFunnelF keeps over a call: the current
// pair's input and recurrent FC results (a, rc) and the funnel views of both
// weight strings. Element d of unit pair k: input words qI[8(n*k+d)+4u-1
// ...] for unit u, recurrent words qR[8(s*k+d)-1 ...], in groups of eight
// words from word 0 (gI0: unit 0 of a pair; gR: the recurrent pair) or
// word 4 (gI4: unit 1 of a pair).
type lstmFunnelSt struct {
	a, rc                              [8]float32
	w                                  lstmStrF
	qI, qR                             []uint32
	gI0, gI4, gR                       [][8]uint32
	cI, eI, slI, srI, cR, eR, slR, srR uint32
}

// lstmRunFunnelF is lstmRunF for weight strings that are not word-aligned
// on 32-bit targets (see f32Words), without scratch memory. Decoding a
// float through the funnel costs more than the multiply-add it feeds, so
// the input FC, which does not depend on the recurrence, runs over two time
// steps at once: each decoded weight serves both, and the second step's
// results (bias added) wait in nx. The funnel views of both weight strings
// are made once per call; each unit pair's gates are finished right after
// its dot products. The loop holds little more than indices: the pair's
// work is in functions of their own, which keeps the deepest stack chain
// short.
func lstmRunFunnelF(p *lstmParams, x []float32, h []float32, c []float32, out []float32,
	wIn, wRec, bias string) {
	n, s := p.inDim, p.units
	np := s / 2 // unit pairs; with odd s the last unit is alone
	bias = bias[:16*s]
	offI, offR := f32StrOff(wIn), f32StrOff(wRec)
	if !f32Funnel || f32Unaligned || offI == 0 || offR == 0 {
		// Weights read as float32 directly (lstmDotF8S) need no
		// funnel.
		lstmRunViewF(p, x, h, c, out, wIn, wRec, bias)
		return
	}
	var st lstmFunnelSt
	// The next row's input FC results with bias (lstmNext).
	var nxA, nxB [lstmNextMax / 2]float32
	st.w.in, st.w.rec, st.w.bias = wIn, wRec, bias
	lstmFunnelInit(&st, wIn[:16*n*s], wRec[:16*s*s], offI, offR)
	// The first pk pairs compute the next row's input FC in advance.
	pk := min(np, lstmNextMax/8)
	rows := p.batch * p.steps
	for r := 0; r < rows; r++ {
		b := lstmRowBatch(p, r)
		xr, hb, cb, yr := x[r*n:r*n+n], h[b*s:b*s+s], c[b*s:b*s+s], out[r*s:r*s+s]
		// first: this step computes its input FC together with the next
		// row's; second: its input FC waits in nx.
		first := r%2 == 0 && r+1 < rows
		second := r%2 == 1
		x1 := xr
		if first {
			x1 = x[(r+1)*n : (r+1)*n+n]
		}
		for k := 0; k < np; k++ {
			a := &st.a
			switch {
			case second && k < pk:
				a = lstmNext(&nxA, &nxB, k)
			case first && k < pk:
				lstmInPairF(&st, lstmNext(&nxA, &nxB, k), xr, x1, k, bias[32*k:32*k+32])
			default:
				lstmInOneF(a, xr, wIn[32*n*k:32*n*(k+1)], bias[32*k:32*k+32])
			}
			lstmRecPairF(&st, hb, k)
			lstmFinish2F(p, a, &st.rc, (*[2]float32)(cb[2*k:2*k+2]), (*[2]float32)(yr[2*k:2*k+2]))
		}
		if np*2 < s {
			lstmLastUnitF(p, xr, hb, &cb[s-1], &yr[s-1], &st.w)
		}
		copy(hb, yr)
	}
}

// lstmFunnelInit sets up st for the weight strings wIn and wRec (address
// offI and offR mod 4, both non-zero).
func lstmFunnelInit(st *lstmFunnelSt, wIn, wRec string, offI, offR uint32) {
	st.slI, st.srI = (8*offI)&31, (32-8*offI)&31
	st.slR, st.srR = (8*offR)&31, (32-8*offR)&31
	var qI, qR []uint32
	st.cI, qI, st.eI = f32Words(wIn, offI)
	st.cR, qR, st.eR = f32Words(wRec, offR)
	st.qI, st.qR = qI, qR
	st.gI0 = unsafe.Slice((*[8]uint32)(unsafe.Pointer(unsafe.SliceData(qI))), len(qI)/8)
	st.gI4 = unsafe.Slice((*[8]uint32)(unsafe.Pointer(unsafe.SliceData(qI[4:]))), (len(qI)-4)/8)
	st.gR = unsafe.Slice((*[8]uint32)(unsafe.Pointer(unsafe.SliceData(qR))), len(qR)/8)
}

// lstmInOneF computes a unit pair's input FC of x with bias into a (w the
// pair's weights, bb its bias).
func lstmInOneF(a *[8]float32, x []float32, w, bb string) {
	a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7] = lstmDotF8S(x, w)
	lstmAddBias8(a, bb)
}

// lstmRunViewF is lstmRunFunnelF for weights read without the funnel
// (lstmDotF8S), one time step at a time.
func lstmRunViewF(p *lstmParams, x []float32, h []float32, c []float32, out []float32,
	wIn, wRec, bias string) {
	n, s := p.inDim, p.units
	np := s / 2
	bias = bias[:16*s]
	w := lstmStrF{wIn, wRec, bias}
	for r := 0; r < p.batch*p.steps; r++ {
		b := lstmRowBatch(p, r)
		xr, hb, cb, yr := x[r*n:r*n+n], h[b*s:b*s+s], c[b*s:b*s+s], out[r*s:r*s+s]
		var a, rc [8]float32
		for k := 0; k < np; k++ {
			a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7] = lstmDotF8S(xr, wIn[32*n*k:32*n*(k+1)])
			lstmAddBias8(&a, bias[32*k:32*k+32])
			rc[0], rc[1], rc[2], rc[3], rc[4], rc[5], rc[6], rc[7] = lstmDotF8S(hb, wRec[32*s*k:32*s*(k+1)])
			lstmFinish2F(p, &a, &rc, (*[2]float32)(cb[2*k:2*k+2]), (*[2]float32)(yr[2*k:2*k+2]))
		}
		if np*2 < s {
			lstmLastUnitF(p, xr, hb, &cb[s-1], &yr[s-1], &w)
		}
		copy(hb, yr)
	}
}

// lstmAddBias8 adds the eight floats of b to a.
func lstmAddBias8(a *[8]float32, b string) {
	b = b[:32]
	a[0], a[1], a[2], a[3] = f32Add(a[0], ldf32(b, 0)), f32Add(a[1], ldf32(b, 1)), f32Add(a[2], ldf32(b, 2)), f32Add(a[3], ldf32(b, 3))
	a[4], a[5], a[6], a[7] = f32Add(a[4], ldf32(b, 4)), f32Add(a[5], ldf32(b, 5)), f32Add(a[6], ldf32(b, 6)), f32Add(a[7], ldf32(b, 7))
}

// lstmInPairF computes unit pair k's input FC with bias for the rows x0
// (into st.a) and x1 (into a1) through the funnel; bb is the pair's bias.
func lstmInPairF(st *lstmFunnelSt, a1 *[8]float32, x0, x1 []float32, k int, bb string) {
	a := &st.a
	lstmInUnitF(st, (*[4]float32)(a[:4]), (*[4]float32)(a1[:4]), x0, x1, st.gI0, k, 0)
	lstmInUnitF(st, (*[4]float32)(a[4:]), (*[4]float32)(a1[4:]), x0, x1, st.gI4, k, 4)
	bb = bb[:32]
	for i := range a {
		bv := ldf32(bb, i)
		a[i] += bv
		a1[i] += bv
	}
}

// lstmInUnitF computes one unit's four gate sums of pair k for the rows x0
// (into v) and x1 (into v1): its words start at word 8*n*k+u of st.qI,
// grouped by eight in g.
func lstmInUnitF(st *lstmFunnelSt, v, v1 *[4]float32, x0, x1 []float32, g [][8]uint32, k, u int) {
	n := len(x0)
	q := st.qI
	sl, sr := st.slI&31, st.srI&31
	j := 8*n*k + u // the unit's first word
	cw := st.cI
	if j > 0 {
		cw = q[j-1] >> sl
	}
	// Whole groups for all elements but at the very end of the string.
	m := min(n, len(g)-n*k)
	cw = lstmFunnel4x2(v, v1, x0[:m], x1[:m], g[n*k:n*k+m], cw, sl, sr)
	if m < n {
		lstmFunnelTail4x2(v, v1, x0[n-1], x1[n-1], q, j+8*(n-1), cw, st.eI, sl, sr)
	}
}

// lstmRecPairF computes unit pair k's recurrent FC of h into st.rc through
// the funnel.
func lstmRecPairF(st *lstmFunnelSt, h []float32, k int) {
	s := len(h)
	j := 8 * s * k
	q, g := st.qR, st.gR
	sl, sr := st.slR&31, st.srR&31
	c := st.cR
	if j > 0 {
		c = q[j-1] >> sl
	}
	m := min(s, len(g)-s*k)
	c = lstmFunnel8(&st.rc, h[:m], g[s*k:s*k+m], c, sl, sr)
	if m < s {
		lstmFunnelTail8(&st.rc, h[s-1], q, j+8*(s-1), c, st.eR, sl, sr)
	}
}

// lstmStrF holds the weight and bias strings of a float LSTM.
type lstmStrF struct{ in, rec, bias string }

// lstmLastUnitF runs the last unit of an odd number of units (weights
// [inDim][4] and [units][4] after the pairs in w), whose cell state is *cs
// and output *yo. Its few arguments keep the caller's frame small.
func lstmLastUnitF(p *lstmParams, x, h []float32, co, yo *float32, w *lstmStrF) {
	wIn, wRec, bias := w.in, w.rec, w.bias
	n, s := len(x), len(h)
	o := s - 1
	var a, rc [4]float32
	a[0], a[1], a[2], a[3] = f32DotStr4(x, wIn[16*n*o:16*n*(o+1)])
	rc[0], rc[1], rc[2], rc[3] = f32DotStr4(h, wRec[16*s*o:16*s*(o+1)])
	bb := bias[16*o : 16*o+16]
	g0, g1, g2, g3 := lstmGateF(a[0], ldf32(bb, 0), rc[0]), lstmGateF(a[1], ldf32(bb, 1), rc[1]),
		lstmGateF(a[2], ldf32(bb, 2), rc[2]), lstmGateF(a[3], ldf32(bb, 3), rc[3])
	v := lstmCellF(p, *co, lstmSigP(p, g0), lstmSigP(p, g1), lstmTanhP(p, g2))
	*co = v
	*yo = lstmClampF(f32Mul(lstmTanhP(p, v), lstmSigP(p, g3)))
}

// lstmFinish2F finishes two units from their input FCs with bias a and
// recurrent FCs rc (gates forget, input, cell, output of the first unit,
// then of the second): the new cell states go to c, the outputs to y.
func lstmFinish2F(p *lstmParams, a, rc *[8]float32, c, y *[2]float32) {
	for u := 0; u < 2; u++ {
		g := (*[4]float32)(a[4*u : 4*u+4])
		r := (*[4]float32)(rc[4*u : 4*u+4])
		g0, g1, g2, g3 := lstmGateFS(g[0], r[0]), lstmGateFS(g[1], r[1]), lstmGateFS(g[2], r[2]), lstmGateFS(g[3], r[3])
		// (One test of p.fpu for the four gates: a call of lstmSigP per
		// gate costs more than gc for ARM saves with the FPU functions.)
		var f, i, cg, o float32
		if p.fpu {
			f, i, cg, o = f32LogisticFPU(g0), f32LogisticFPU(g1), f32TanhFPU(g2), f32LogisticFPU(g3)
		} else {
			f, i, cg, o = f32Logistic(g0), f32Logistic(g1), f32Tanh(g2), f32Logistic(g3)
		}
		v := lstmCellF(p, c[u], f, i, cg)
		c[u] = v
		var tv float32
		if p.fpu {
			tv = f32TanhFPU(v)
		} else {
			tv = f32Tanh(v)
		}
		y[u] = lstmClampF(f32Mul(tv, o))
	}
}

// lstmSigP is f32Logistic, or f32LogisticFPU where p.fpu is set.
func lstmSigP(p *lstmParams, x float32) float32 {
	if p.fpu {
		return f32LogisticFPU(x)
	}
	return f32Logistic(x)
}

// lstmTanhP is f32Tanh, or f32TanhFPU where p.fpu is set.
func lstmTanhP(p *lstmParams, x float32) float32 {
	if p.fpu {
		return f32TanhFPU(x)
	}
	return f32Tanh(x)
}

// lstmClipF is TFLM's std::max(std::min(clip, v), -clip), NaN included.
func lstmClipF(v, clip float32) float32 {
	if !f32Lt(v, clip) {
		v = clip
	}
	if f32Lt(v, -clip) {
		v = -clip
	}
	return v
}

// lstmGateFS is lstmGateF with the bias already added to x.
func lstmGateFS(x, r float32) float32 {
	if f32Finite2(x, r) {
		return f32Add(x, r)
	}
	return clampF32(x, -lstmMaxF, lstmMaxF) + clampF32(r, -lstmMaxF, lstmMaxF)
}

// lstmFunnel4x2 is the funnel dot product (see f32Words) of one unit's four
// gates with two input rows x0 and x1 at once: element d's four floats are
// words 0-3 of g[d] (the first shifted together with c, the previous word
// shifted down by sl); word 7's high bytes are the next element's carry,
// returned at the end; the sums go to a (row x0) and b (row x1). The loop
// walks pointers (no index, no bounds checks) that never pass their last
// element, two elements per pass (an odd last one follows the loop), and
// tests its end after the adds (one VMLA per multiply-add on gc for ARM).
func lstmFunnel4x2(a, b *[4]float32, x0, x1 []float32, g [][8]uint32, c, sl, sr uint32) uint32 {
	var a0, a1, a2, a3, b0, b1, b2, b3 float32
	sl, sr = sl&31, sr&31
	g = g[:len(x0)]
	x1 = x1[:len(x0)]
	// What is needed after the loop stays in memory (gc would otherwise
	// hold it in a register over the loop or reload it every pass).
	var odd [3]unsafe.Pointer // an odd last element of x0 and x1, its group
	if n := len(x0); n%2 != 0 {
		odd[0], odd[1], odd[2] = unsafe.Pointer(&x0[n-1]), unsafe.Pointer(&x1[n-1]), unsafe.Pointer(&g[n-1])
	}
	if len(x0) >= 2 {
		p0 := unsafe.Pointer(unsafe.SliceData(x0))
		p1 := unsafe.Pointer(unsafe.SliceData(x1))
		xl := unsafe.Add(p0, 8*(len(x0)/2-1)) // the last pair
		pg := unsafe.Pointer(unsafe.SliceData(g))
		for {
			q := (*[2][8]uint32)(pg)
			u, v := (*[2]float32)(p0)[0], (*[2]float32)(p1)[0]
			r0, r1, r2, r3 := q[0][0], q[0][1], q[0][2], q[0][3]
			w := math.Float32frombits(c | r0<<sr)
			a0 += float32(u * w)
			b0 += float32(v * w)
			w = math.Float32frombits(r0>>sl | r1<<sr)
			a1 += float32(u * w)
			b1 += float32(v * w)
			w = math.Float32frombits(r1>>sl | r2<<sr)
			a2 += float32(u * w)
			b2 += float32(v * w)
			w = math.Float32frombits(r2>>sl | r3<<sr)
			a3 += float32(u * w)
			b3 += float32(v * w)
			c = q[0][7] >> sl
			u, v = (*[2]float32)(p0)[1], (*[2]float32)(p1)[1]
			r0, r1, r2, r3 = q[1][0], q[1][1], q[1][2], q[1][3]
			w = math.Float32frombits(c | r0<<sr)
			a0 += float32(u * w)
			b0 += float32(v * w)
			w = math.Float32frombits(r0>>sl | r1<<sr)
			a1 += float32(u * w)
			b1 += float32(v * w)
			w = math.Float32frombits(r1>>sl | r2<<sr)
			a2 += float32(u * w)
			b2 += float32(v * w)
			w = math.Float32frombits(r2>>sl | r3<<sr)
			a3 += float32(u * w)
			b3 += float32(v * w)
			c = q[1][7] >> sl
			if p0 == xl {
				break
			}
			p0 = unsafe.Add(p0, 8)
			p1 = unsafe.Add(p1, 8)
			pg = unsafe.Add(pg, 64)
		}
	}
	if odd[0] != nil {
		u, v, r := *(*float32)(odd[0]), *(*float32)(odd[1]), (*[8]uint32)(odd[2])
		w := math.Float32frombits(c | r[0]<<sr)
		a0 += float32(u * w)
		b0 += float32(v * w)
		w = math.Float32frombits(r[0]>>sl | r[1]<<sr)
		a1 += float32(u * w)
		b1 += float32(v * w)
		w = math.Float32frombits(r[1]>>sl | r[2]<<sr)
		a2 += float32(u * w)
		b2 += float32(v * w)
		w = math.Float32frombits(r[2]>>sl | r[3]<<sr)
		a3 += float32(u * w)
		b3 += float32(v * w)
		c = r[7] >> sl
	}
	a[0], a[1], a[2], a[3] = a0, a1, a2, a3
	b[0], b[1], b[2], b[3] = b0, b1, b2, b3
	return c
}

// lstmFunnelTail4x2 adds the last element (x0v, x1v) of lstmFunnel4x2 to
// a and b: its floats are the words q[t..t+3] (q[t+3] is e at the end of
// the string) with the carry c.
func lstmFunnelTail4x2(a, b *[4]float32, x0v, x1v float32, q []uint32, t int, c, e, sl, sr uint32) {
	sl, sr = sl&31, sr&31
	r := (*[3]uint32)(q[t : t+3])
	r3 := e
	if t+3 < len(q) {
		r3 = q[t+3]
	}
	w := [4]float32{math.Float32frombits(c | r[0]<<sr), math.Float32frombits(r[0]>>sl | r[1]<<sr),
		math.Float32frombits(r[1]>>sl | r[2]<<sr), math.Float32frombits(r[2]>>sl | r3<<sr)}
	for k := range w {
		a[k] += float32(x0v * w[k])
		b[k] += float32(x1v * w[k])
	}
}

// lstmFunnel8 is lstmDotF8Q's loop over whole groups g of eight words
// with the carry c (see lstmFunnel4x2): the sums go to a, the next carry
// is returned. The loop walks pointers (no index, no bounds checks) that
// never pass their last element, two elements per pass; an odd last
// element follows the loop.
func lstmFunnel8(a *[8]float32, x []float32, g [][8]uint32, c, sl, sr uint32) uint32 {
	var a0, a1, a2, a3, b0, b1, b2, b3 float32
	sl, sr = sl&31, sr&31
	g = g[:len(x)]
	// What is needed after the loop stays in memory (gc would otherwise
	// hold it in a register over the loop and reload it every pass).
	var odd [2]unsafe.Pointer // an odd last element and its group
	if n := len(x); n%2 != 0 {
		odd[0], odd[1] = unsafe.Pointer(&x[n-1]), unsafe.Pointer(&g[n-1])
	}
	if len(x) >= 2 {
		px := unsafe.Pointer(unsafe.SliceData(x))
		xl := unsafe.Add(px, 8*(len(x)/2-1)) // the last pair
		pg := unsafe.Pointer(unsafe.SliceData(g))
		for {
			q := (*[2][8]uint32)(pg)
			xv := (*[2]float32)(px)[0]
			r0, r1, r2, r3 := q[0][0], q[0][1], q[0][2], q[0][3]
			a0 += float32(xv * math.Float32frombits(c|r0<<sr))
			a1 += float32(xv * math.Float32frombits(r0>>sl|r1<<sr))
			a2 += float32(xv * math.Float32frombits(r1>>sl|r2<<sr))
			a3 += float32(xv * math.Float32frombits(r2>>sl|r3<<sr))
			r4, r5, r6, r7 := q[0][4], q[0][5], q[0][6], q[0][7]
			b0 += float32(xv * math.Float32frombits(r3>>sl|r4<<sr))
			b1 += float32(xv * math.Float32frombits(r4>>sl|r5<<sr))
			b2 += float32(xv * math.Float32frombits(r5>>sl|r6<<sr))
			b3 += float32(xv * math.Float32frombits(r6>>sl|r7<<sr))
			c = r7 >> sl
			xv = (*[2]float32)(px)[1]
			r0, r1, r2, r3 = q[1][0], q[1][1], q[1][2], q[1][3]
			a0 += float32(xv * math.Float32frombits(c|r0<<sr))
			a1 += float32(xv * math.Float32frombits(r0>>sl|r1<<sr))
			a2 += float32(xv * math.Float32frombits(r1>>sl|r2<<sr))
			a3 += float32(xv * math.Float32frombits(r2>>sl|r3<<sr))
			r4, r5, r6, r7 = q[1][4], q[1][5], q[1][6], q[1][7]
			b0 += float32(xv * math.Float32frombits(r3>>sl|r4<<sr))
			b1 += float32(xv * math.Float32frombits(r4>>sl|r5<<sr))
			b2 += float32(xv * math.Float32frombits(r5>>sl|r6<<sr))
			b3 += float32(xv * math.Float32frombits(r6>>sl|r7<<sr))
			c = r7 >> sl
			if px == xl {
				break
			}
			px = unsafe.Add(px, 8)
			pg = unsafe.Add(pg, 64)
		}
	}
	if odd[0] != nil {
		xv, r := *(*float32)(odd[0]), (*[8]uint32)(odd[1])
		a0 += float32(xv * math.Float32frombits(c|r[0]<<sr))
		a1 += float32(xv * math.Float32frombits(r[0]>>sl|r[1]<<sr))
		a2 += float32(xv * math.Float32frombits(r[1]>>sl|r[2]<<sr))
		a3 += float32(xv * math.Float32frombits(r[2]>>sl|r[3]<<sr))
		b0 += float32(xv * math.Float32frombits(r[3]>>sl|r[4]<<sr))
		b1 += float32(xv * math.Float32frombits(r[4]>>sl|r[5]<<sr))
		b2 += float32(xv * math.Float32frombits(r[5]>>sl|r[6]<<sr))
		b3 += float32(xv * math.Float32frombits(r[6]>>sl|r[7]<<sr))
		c = r[7] >> sl
	}
	a[0], a[1], a[2], a[3] = a0, a1, a2, a3
	a[4], a[5], a[6], a[7] = b0, b1, b2, b3
	return c
}

// lstmFunnelTail8 adds the last element xv of lstmFunnel8 to a: its floats
// are the words q[t..t+7] (q[t+7] is e at the end of the string) with the
// carry c.
func lstmFunnelTail8(a *[8]float32, xv float32, q []uint32, t int, c, e, sl, sr uint32) {
	sl, sr = sl&31, sr&31
	r := (*[7]uint32)(q[t : t+7])
	r7 := e
	if t+7 < len(q) {
		r7 = q[t+7]
	}
	a[0] += float32(xv * math.Float32frombits(c|r[0]<<sr))
	a[1] += float32(xv * math.Float32frombits(r[0]>>sl|r[1]<<sr))
	a[2] += float32(xv * math.Float32frombits(r[1]>>sl|r[2]<<sr))
	a[3] += float32(xv * math.Float32frombits(r[2]>>sl|r[3]<<sr))
	a[4] += float32(xv * math.Float32frombits(r[3]>>sl|r[4]<<sr))
	a[5] += float32(xv * math.Float32frombits(r[4]>>sl|r[5]<<sr))
	a[6] += float32(xv * math.Float32frombits(r[5]>>sl|r[6]<<sr))
	a[7] += float32(xv * math.Float32frombits(r[6]>>sl|r7<<sr))
}

// lstmRunF runs the float LSTM with the decoded weights wi and wr, or, when
// they are empty, with weights decoded from wIn and wRec as they are used:
// two units at a time (lstmDotF8, lstmFinish2F), an odd last unit alone.
func lstmRunF(p *lstmParams, x []float32, h []float32, c []float32, out []float32, wi, wr []float32,
	wIn, wRec, bias string) {
	n, s := p.inDim, p.units
	bias = bias[:16*s]
	for r := 0; r < p.batch*p.steps; r++ {
		b := lstmRowBatch(p, r)
		xr, hb, cb, yr := x[r*n:r*n+n], h[b*s:b*s+s], c[b*s:b*s+s], out[r*s:r*s+s]
		for o := 0; o < s; o += 2 {
			var a, rc [8]float32
			pair := o+1 < s
			switch {
			case pair && len(wi) > 0:
				a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7] = lstmDotF8(xr, wi[4*n*o:4*n*(o+2)])
				rc[0], rc[1], rc[2], rc[3], rc[4], rc[5], rc[6], rc[7] = lstmDotF8(hb, wr[4*s*o:4*s*(o+2)])
			case pair:
				a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7] = lstmDotF8S(xr, wIn[16*n*o:16*n*(o+2)])
				rc[0], rc[1], rc[2], rc[3], rc[4], rc[5], rc[6], rc[7] = lstmDotF8S(hb, wRec[16*s*o:16*s*(o+2)])
			case len(wi) > 0:
				a[0], a[1], a[2], a[3] = f32Dot4(xr, wi[4*n*o:4*n*(o+1)])
				rc[0], rc[1], rc[2], rc[3] = f32Dot4(hb, wr[4*s*o:4*s*(o+1)])
			default:
				a[0], a[1], a[2], a[3] = f32DotStr4(xr, wIn[16*n*o:16*n*(o+1)])
				rc[0], rc[1], rc[2], rc[3] = f32DotStr4(hb, wRec[16*s*o:16*s*(o+1)])
			}
			if !pair {
				bb := bias[16*o : 16*o+16]
				g0, g1 := lstmGateF(a[0], ldf32(bb, 0), rc[0]), lstmGateF(a[1], ldf32(bb, 1), rc[1])
				g2, g3 := lstmGateF(a[2], ldf32(bb, 2), rc[2]), lstmGateF(a[3], ldf32(bb, 3), rc[3])
				v := lstmCellF(p, cb[o], lstmSigP(p, g0), lstmSigP(p, g1), lstmTanhP(p, g2))
				cb[o] = v
				yr[o] = lstmClampF(f32Mul(lstmTanhP(p, v), lstmSigP(p, g3)))
				break
			}
			lstmAddBias8(&a, bias[16*o:16*o+32])
			lstmFinish2F(p, &a, &rc, (*[2]float32)(cb[o:o+2]), (*[2]float32)(yr[o:o+2]))
		}
		copy(hb, yr)
	}
}
