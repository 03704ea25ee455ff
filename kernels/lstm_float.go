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
// "none" does. exp and tanh are evaluated in float64 and rounded to float32
// (within an ulp of the C library's expf and tanhf).
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
	x := a + b
	if x-x+(r-r) == 0 {
		return x + r
	}
	return clampF32(x, -lstmMaxF, lstmMaxF) + clampF32(r, -lstmMaxF, lstmMaxF)
}

// lstmClampF is clampF32(x, -lstmMaxF, lstmMaxF) (see lstmGateF).
func lstmClampF(x float32) float32 {
	if x-x == 0 {
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

// lstmActMax is the most values lstmSigmoidF and lstmTanhF take at once.
const lstmActMax = 32

// lstmExpN replaces each element a of v (|a| <= 200) with e^a, computed in
// float64 as 2^k * e^r with k = round(a/ln2) and |r| <= ln2/2 (ln2 in two
// parts, so r is exact to about 2^-60): 2^k from the exponent field, e^r by
// its degree-10 Taylor polynomial (Horner; the remainder is below 2.3e-13
// relative). Rounding the result to float32 gives the correctly rounded
// e^a except within about 3e-13 of a rounding boundary. Outside [-200, 200]
// the result is meaningless (nothing panics). The loop has no branches,
// calls or table loads: the processor overlaps the long dependency chains
// of the elements.
func lstmExpN(v []float64) {
	const (
		round = 6755399441055744.0 // 1.5*2^52: adding it rounds to an integer
		ln2hi = 6.93147180369123816490e-01
		ln2lo = 1.90821492927058770002e-10
	)
	// The coefficients are read from a local array: gc for ARM would
	// otherwise load each constant through the literal pool (two
	// instructions) in every iteration.
	cs := [11]float64{1.44269504088896338700, ln2hi, ln2lo, 1.0 / 3628800, 1.0 / 362880, 1.0 / 40320,
		1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6}
	for k, a := range v {
		t := a*cs[0] + round
		kf := t - round
		r := (a - kf*cs[1]) - kf*cs[2]
		p := 1 + r*(1+r*(1.0/2+r*(cs[10]+r*(cs[9]+r*(cs[8]+r*(cs[7]+
			r*(cs[6]+r*(cs[5]+r*(cs[4]+r*cs[3])))))))))
		n := uint32(math.Float64bits(t)) // k in the low bits, two's complement
		v[k] = p * math.Float64frombits(uint64(n+1023)<<52)
	}
}

// lstmSigmoidF stores TFLM's float logistic of each element of src (at
// most lstmActMax) in dst (which may be src), with its cut-offs: 1 above
// 16.619047, e^v (expf, rounded to float32) below -9, else 1/(1+e^-v) with
// e^-v rounded to float32 and the rest in float32, as TFLM computes it. e^a
// comes from lstmExpN: below -9, a = v is limited to -200 (beyond, the
// float32 result no longer changes); above 16.619047 (a < -16.6, maybe far
// below -200) e^a is not used.
func lstmSigmoidF(dst, src []float32) {
	var e [lstmActMax]float64
	es := e[:len(src)]
	for k, v := range src {
		es[k] = lstmSigArg(v)
	}
	lstmExpN(es)
	dst = dst[:len(src)]
	for k, v := range src {
		dst[k] = lstmSigFin(v, es[k])
	}
}

// lstmSigArg returns the argument of e^a for the logistic of v.
func lstmSigArg(v float32) float64 {
	a := -float64(v)
	if v < -9 {
		a = float64(v)
		if a < -200 {
			a = -200
		}
	}
	return a
}

// lstmSigFin returns the logistic of v from e, e^lstmSigArg(v).
func lstmSigFin(v float32, e float64) float32 {
	ef := float32(e)
	y := 1 / (1 + ef)
	if v < -9 {
		y = ef
	}
	if v > 16.619047164916992188 {
		y = 1
	}
	return y
}

// lstmTanhF stores tanh of each element of src (at most lstmActMax) in dst
// (which may be src): 1 - 2/(e^(2|v|)+1) in float64 with the sign of v,
// rounded to float32 (v itself for |v| < 2^-14, where tanh v rounds to v).
// 2|v| is limited to 200 (beyond, the result is 1).
func lstmTanhF(dst, src []float32) {
	var e [lstmActMax]float64
	es := e[:len(src)]
	for k, v := range src {
		es[k] = lstmTanhArg(v)
	}
	lstmExpN(es)
	dst = dst[:len(src)]
	for k, v := range src {
		dst[k] = lstmTanhFin(v, es[k])
	}
}

// lstmTanhArg returns the argument of e^a for tanh v.
func lstmTanhArg(v float32) float64 {
	a := 2 * math.Abs(float64(v))
	if a > 200 {
		a = 200
	}
	return a
}

// lstmTanhFin returns tanh v from e, e^lstmTanhArg(v).
func lstmTanhFin(v float32, e float64) float32 {
	y := float32(math.Copysign(1-2/(e+1), float64(v)))
	if math.Abs(float64(v)) < 1.0/16384 {
		y = v
	}
	return y
}

// lstmCellF returns the updated cell state of one unit.
func lstmCellF(p *lstmParams, c, f, i, g float32) float32 {
	a, b := float32(f*c), float32(i*g)
	v := a + b
	if a-a+(b-b) != 0 {
		v = clampF32(a, -lstmMaxF, lstmMaxF) + clampF32(b, -lstmMaxF, lstmMaxF)
	}
	if p.clip {
		// std::max(std::min(clip, v), -clip), NaN included.
		if !(v < p.cellClipF) {
			v = p.cellClipF
		}
		if v < -p.cellClipF {
			v = -p.cellClipF
		}
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
	wb := wbuf[:4*(n+s)*s]
	lstmDecodeF(wb[:4*n*s], wIn)
	lstmDecodeF(wb[4*n*s:], wRec)
	lstmRunF(p, x, h, c, out, wb[:4*n*s], wb[4*n*s:], "", "", bias)
}

// lstmFloatLean is lstmFloat without scratch memory: weights are decoded as
// they are used.
func lstmFloatLean(p *lstmParams, x []float32, h []float32, c []float32, out []float32,
	wIn, wRec, bias string) {
	lstmRunF(p, x, h, c, out, nil, nil, wIn, wRec, bias)
}

// lstmRunF runs the float LSTM with the decoded weights wi and wr, or, when
// they are empty, with weights decoded from wIn and wRec as they are used.
// Units are finished in groups of lstmChunkF: first their gate
// pre-activations (input FC with bias and recurrent FC, each clamped, then
// added), two units at a time; then the activations, cell updates and
// hidden values, each over the whole group, so that the long dependency
// chains of exp and tanh overlap across units.
func lstmRunF(p *lstmParams, x []float32, h []float32, c []float32, out []float32, wi, wr []float32,
	wIn, wRec, bias string) {
	n, s := p.inDim, p.units
	bias = bias[:16*s]
	// g holds a group of m units' forget, input and output gates
	// (sigmoid), then its cell gates (tanh), m values each; e the
	// arguments of e^a for their activations.
	const k = lstmChunkF
	var g [4 * k]float32
	var t [k]float32
	var e [4 * k]float64
	for r := 0; r < p.batch*p.steps; r++ {
		b := lstmRowBatch(p, r)
		xr, hb, cb, yr := x[r*n:r*n+n], h[b*s:b*s+s], c[b*s:b*s+s], out[r*s:r*s+s]
		for o0 := 0; o0 < s; o0 += k {
			m := min(k, s-o0)
			for j := 0; j < m; j += 2 {
				o := o0 + j
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
				for u := 0; u < 2 && j+u < m; u++ {
					bb := bias[16*(o+u) : 16*(o+u)+16]
					g[j+u] = lstmGateF(a[4*u], ldf32(bb, 0), rc[4*u])
					g[m+j+u] = lstmGateF(a[4*u+1], ldf32(bb, 1), rc[4*u+1])
					g[3*m+j+u] = lstmGateF(a[4*u+2], ldf32(bb, 2), rc[4*u+2])
					g[2*m+j+u] = lstmGateF(a[4*u+3], ldf32(bb, 3), rc[4*u+3])
				}
			}
			gs, es := g[:4*m], e[:4*m]
			for j, v := range gs[:3*m] {
				es[j] = lstmSigArg(v)
			}
			for j, v := range gs[3*m:] {
				es[3*m+j] = lstmTanhArg(v)
			}
			lstmExpN(es)
			for j, v := range gs[:3*m] {
				gs[j] = lstmSigFin(v, es[j])
			}
			for j, v := range gs[3*m:] {
				gs[3*m+j] = lstmTanhFin(v, es[3*m+j])
			}
			ts, et := t[:m], e[:m]
			for j := range ts {
				v := lstmCellF(p, cb[o0+j], gs[j], gs[m+j], gs[3*m+j])
				cb[o0+j] = v
				ts[j] = v
				et[j] = lstmTanhArg(v)
			}
			lstmExpN(et)
			for j, v := range ts {
				yr[o0+j] = lstmClampF(float32(lstmTanhFin(v, et[j]) * gs[2*m+j]))
			}
		}
		copy(hb, yr)
	}
}

// lstmChunkF is the number of units lstmRunF finishes together (even).
const lstmChunkF = 8
