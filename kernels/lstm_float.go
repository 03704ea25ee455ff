package kernels

import "math"

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
// TFLM's row-by-row FC. The input FCs do not depend on the hidden state;
// they are computed for two input rows at a time (sharing the weight loads)
// into scratch, then the two rows' recurrent steps run one after the other.

// lstmMaxF is the largest finite float32, TFLM's bound for activation none.
const lstmMaxF = math.MaxFloat32

// lstmF32at reads the little-endian float32 at byte offset o of s.
func lstmF32at(s string, o int) float32 {
	return math.Float32frombits(uint32(s[o]) | uint32(s[o+1])<<8 | uint32(s[o+2])<<16 | uint32(s[o+3])<<24)
}

// lstmDotF4 returns the dot products of x with the four interleaved weight
// rows w (16 bytes per element of x), each summed in order.
func lstmDotF4(x []float32, w string) (a0, a1, a2, a3 float32) {
	for _, xv := range x {
		if len(w) < 16 {
			break
		}
		a0 += float32(xv * lstmF32at(w, 0))
		a1 += float32(xv * lstmF32at(w, 4))
		a2 += float32(xv * lstmF32at(w, 8))
		a3 += float32(xv * lstmF32at(w, 12))
		w = w[16:]
	}
	return a0, a1, a2, a3
}

// lstmInFC2 computes the input FCs (bias added, clamped) of the four gates
// of one unit for two input rows x0 and x1 into g0 and g1.
func lstmInFC2(x0, x1 []float32, w, bias string, g0, g1 []float32) {
	x1 = x1[:len(x0)]
	var a0, a1, a2, a3, b0, b1, b2, b3 float32
	for d, u := range x0 {
		if len(w) < 16 {
			break
		}
		v := x1[d]
		w0, w1, w2, w3 := lstmF32at(w, 0), lstmF32at(w, 4), lstmF32at(w, 8), lstmF32at(w, 12)
		a0 += float32(u * w0)
		a1 += float32(u * w1)
		a2 += float32(u * w2)
		a3 += float32(u * w3)
		b0 += float32(v * w0)
		b1 += float32(v * w1)
		b2 += float32(v * w2)
		b3 += float32(v * w3)
		w = w[16:]
	}
	g0, g1, bias = g0[:4], g1[:4], bias[:16]
	bf, bi, bc, bo := lstmF32at(bias, 0), lstmF32at(bias, 4), lstmF32at(bias, 8), lstmF32at(bias, 12)
	g0[0], g1[0] = clampF32(a0+bf, -lstmMaxF, lstmMaxF), clampF32(b0+bf, -lstmMaxF, lstmMaxF)
	g0[1], g1[1] = clampF32(a1+bi, -lstmMaxF, lstmMaxF), clampF32(b1+bi, -lstmMaxF, lstmMaxF)
	g0[2], g1[2] = clampF32(a2+bc, -lstmMaxF, lstmMaxF), clampF32(b2+bc, -lstmMaxF, lstmMaxF)
	g0[3], g1[3] = clampF32(a3+bo, -lstmMaxF, lstmMaxF), clampF32(b3+bo, -lstmMaxF, lstmMaxF)
}

// lstmExp returns e^x for float32 arguments, in float64: e^x = 2^k * e^r
// with k = round(x/ln2), |r| <= ln2/2 and a degree-8 Taylor polynomial for
// e^r (relative error below 3e-10). Arguments are limited to +-200, beyond
// which the float32 result is 0 or +Inf anyway; NaN propagates.
func lstmExp(x float64) float64 {
	const round = 6755399441055744.0 // 1.5*2^52: adding it rounds to an integer
	if x > 200 {
		x = 200
	}
	if x < -200 {
		x = -200
	}
	t := x*1.4426950408889634 + round
	k := t - round
	r := x - k*0.6931471805599453
	p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120+r*(1.0/720+r*(1.0/5040+r*(1.0/40320))))))))
	n := int64(math.Float64bits(t) - math.Float64bits(round))
	return p * math.Float64frombits(uint64(n+1023)<<52)
}

// lstmSigmoidF is TFLM's float logistic (its cut-offs, expf rounded to
// float32, then 1/(1+e) in float32).
func lstmSigmoidF(v float32) float32 {
	if v > 16.619047164916992188 {
		return 1
	}
	if v < -9 {
		return float32(lstmExp(float64(v)))
	}
	return 1 / (1 + float32(lstmExp(float64(-v))))
}

// lstmTanhF is tanh rounded to float32: a rational approximation (Cephes)
// for |v| < 0.625, 1 - 2/(e^(2|v|)+1) with the sign of v above.
func lstmTanhF(v float32) float32 {
	x := float64(v)
	ax := math.Abs(x)
	if ax < 0.625 {
		s := x * x
		q := (((s+1.12811678491632931402e2)*s+2.23548839060100448583e3)*s + 4.84406305325125486048e3)
		return float32(x + x*s*((-9.64399179425052238628e-1*s-9.92877231001918586564e1)*s-1.61468768441708447952e3)/q)
	}
	t := 1 - 2/(lstmExp(2*ax)+1)
	if x < 0 {
		t = -t
	}
	return float32(t)
}

// lstmCellF returns the updated cell state of one unit.
func lstmCellF(p *lstmParams, c, f, i, g float32) float32 {
	a := clampF32(float32(f*c), -lstmMaxF, lstmMaxF)
	b := clampF32(float32(i*g), -lstmMaxF, lstmMaxF)
	v := a + b
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

// lstmStepF runs the recurrent part of input row r: gin holds the row's
// input FC results (4 per unit), wRec the interleaved recurrent weights.
func lstmStepF(p *lstmParams, h, c, out, gin []float32, wRec string, r int) {
	s := p.units
	b := lstmRowBatch(p, r)
	hb, cb, yr := h[b*s:b*s+s], c[b*s:b*s+s], out[r*s:r*s+s]
	gin = gin[:4*s]
	for o := range yr {
		rf, ri, rc, ro := lstmDotF4(hb, wRec[16*s*o:16*s*(o+1)])
		gi := gin[4*o : 4*o+4]
		f := lstmSigmoidF(gi[0] + clampF32(rf, -lstmMaxF, lstmMaxF))
		i := lstmSigmoidF(gi[1] + clampF32(ri, -lstmMaxF, lstmMaxF))
		g := lstmTanhF(gi[2] + clampF32(rc, -lstmMaxF, lstmMaxF))
		cv := lstmCellF(p, cb[o], f, i, g)
		cb[o] = cv
		ov := lstmSigmoidF(gi[3] + clampF32(ro, -lstmMaxF, lstmMaxF))
		yr[o] = clampF32(float32(lstmTanhF(cv)*ov), -lstmMaxF, lstmMaxF)
	}
	copy(hb, yr)
}

// lstmFloat runs a float32 LSTM. wIn ([units][inDim][4 gates]), wRec
// ([units][units][4 gates]) and bias ([units][4 gates]) are little-endian
// float32 with the gates in TFLM's evaluation order (forget, input, cell,
// output); gin is scratch for 8*units values.
func lstmFloat(p *lstmParams, x []float32, h []float32, c []float32, out []float32, gin []float32,
	wIn, wRec, bias string) {
	n, s := p.inDim, p.units
	rows := p.batch * p.steps
	g0, g1 := gin[:4*s], gin[4*s:8*s]
	for r := 0; r < rows; r += 2 {
		x0 := x[r*n : r*n+n]
		x1 := x0
		if r+1 < rows {
			x1 = x[r*n+n : r*n+2*n]
		}
		for o := 0; o < s; o++ {
			lstmInFC2(x0, x1, wIn[16*n*o:16*n*(o+1)], bias[16*o:16*o+16], g0[4*o:4*o+4], g1[4*o:4*o+4])
		}
		lstmStepF(p, h, c, out, g0, wRec, r)
		if r+1 < rows {
			lstmStepF(p, h, c, out, g1, wRec, r+1)
		}
	}
}
