package kernels

import "math"

// Float32 UNIDIRECTIONAL_SEQUENCE_LSTM (see lstm.go for the structure). The
// operations follow TFLM's float reference kernels: each FC sums its
// products in order in float32 and adds the bias (none for the recurrent
// FC), the two FCs are added, sigmoid uses TFLM's cut-offs, and products and
// FC results are clamped to the finite float32 range as TFLM's activation
// "none" does.

// lstmMaxF is the largest finite float32, TFLM's bound for activation none.
const lstmMaxF = math.MaxFloat32

// lstmDotF returns the float32 dot product of x with len(x) weights of the
// constant string w starting at element off, summed in order.
func lstmDotF(x []float32, w string, off int) float32 {
	t := float32(0)
	for d, xv := range x {
		t += float32(xv * ldf32(w, off+d))
	}
	return t
}

// lstmSigmoidF is TFLM's float logistic.
func lstmSigmoidF(v float32) float32 {
	if v > 16.619047164916992188 {
		return 1
	}
	if v < -9 {
		return float32(math.Exp(float64(v)))
	}
	return 1 / (1 + float32(math.Exp(float64(-v))))
}

// lstmTanhF is tanh rounded to float32.
func lstmTanhF(v float32) float32 { return float32(math.Tanh(float64(v))) }

// lstmGateF returns the pre-activation of unit o of one gate for one batch
// row: the input FC with the gate bias plus the recurrent FC.
func lstmGateF(p *lstmParams, x, h []float32, w, r, bias string, o int) float32 {
	a := clampF32(lstmDotF(x, w, o*p.inDim)+ldf32(bias, o), -lstmMaxF, lstmMaxF)
	b := clampF32(lstmDotF(h, r, o*p.units), -lstmMaxF, lstmMaxF)
	return a + b
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

// lstmFloat runs a float32 LSTM; weights and biases are constant strings of
// little-endian float32. Gate arguments come in TFLM's evaluation order:
// forget, input, cell, output, each as (input weights, recurrent weights,
// bias).
func lstmFloat(p *lstmParams, x []float32, h []float32, c []float32, out []float32,
	fw, fr, fb string, iw, ir, ib string, cw, cr, cb string, ow, or, ob string) {
	n, s := p.inDim, p.units
	for k := 0; k < lstmSteps(p); k++ {
		rows, xo, so, oo := lstmStepRange(p, k)
		hs, cs, ys := h[so:so+rows*s], c[so:so+rows*s], out[oo:oo+rows*s]
		for b := 0; b < rows; b++ {
			xr, hr := x[xo+b*n:xo+b*n+n], hs[b*s:b*s+s]
			for o := 0; o < s; o++ {
				f := lstmSigmoidF(lstmGateF(p, xr, hr, fw, fr, fb, o))
				i := lstmSigmoidF(lstmGateF(p, xr, hr, iw, ir, ib, o))
				g := lstmTanhF(lstmGateF(p, xr, hr, cw, cr, cb, o))
				cv := lstmCellF(p, cs[b*s+o], f, i, g)
				cs[b*s+o] = cv
				ov := lstmSigmoidF(lstmGateF(p, xr, hr, ow, or, ob, o))
				ys[b*s+o] = clampF32(float32(lstmTanhF(cv)*ov), -lstmMaxF, lstmMaxF)
			}
		}
		copy(hs, ys)
	}
}
