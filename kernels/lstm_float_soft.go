package kernels

import "unsafe"

// The float LSTM where float32 arithmetic is emulated (f32Soft): the same
// operations in the same order as lstmRunViewF, the dot products by
// f32sMAC (exact float32 arithmetic on unpacked values) when the weights,
// inputs and state keep every product and sum normal (f32sDotOK, checked
// for the weights once per call and for each row's input and state), by
// plain float32 arithmetic otherwise.

// lstmRunSoftF runs the float LSTM (weights as for lstmFloat) with
// software float32 arithmetic.
func lstmRunSoftF(p *lstmParams, x []float32, h []float32, c []float32, out []float32, wIn, wRec, bias string) {
	n, s := p.inDim, p.units
	np := s / 2
	bias = bias[:16*s]
	wlo, whi, wok := f32sRangeStr(wIn[:16*n*s])
	rlo, rhi, rok := f32sRangeStr(wRec[:16*s*s])
	w := lstmStrF{wIn, wRec, bias}
	var xu [f32sChunk]f32sX // (zeroed once here, not in every lstmDotS8)
	for r := 0; r < p.batch*p.steps; r++ {
		b := lstmRowBatch(p, r)
		xr, hb, cb, yr := x[r*n:r*n+n], h[b*s:b*s+s], c[b*s:b*s+s], out[r*s:r*s+s]
		xlo, xhi, xok := f32sRange(xr)
		hlo, hhi, hok := f32sRange(hb)
		softIn := wok && xok && f32sDotOK(xlo, xhi, wlo, whi, n)
		softRec := rok && hok && f32sDotOK(hlo, hhi, rlo, rhi, s)
		var a, rc [8]float32
		for k := 0; k < np; k++ {
			if softIn {
				lstmDotS8(&a, &xu, xr, wIn[32*n*k:32*n*(k+1)])
			} else {
				a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7] = lstmDotF8S(xr, wIn[32*n*k:32*n*(k+1)])
			}
			lstmAddBias8(&a, bias[32*k:32*k+32])
			if softRec {
				lstmDotS8(&rc, &xu, hb, wRec[32*s*k:32*s*(k+1)])
			} else {
				rc[0], rc[1], rc[2], rc[3], rc[4], rc[5], rc[6], rc[7] = lstmDotF8S(hb, wRec[32*s*k:32*s*(k+1)])
			}
			lstmFinish2F(p, &a, &rc, (*[2]float32)(cb[2*k:2*k+2]), (*[2]float32)(yr[2*k:2*k+2]))
		}
		if np*2 < s {
			lstmLastUnitF(p, xr, hb, &cb[s-1], &yr[s-1], &w)
		}
		copy(hb, yr)
	}
}

// lstmDotS8 is lstmDotF8S with f32sDot: the eight sums of x with the
// weights w (32 bytes per element of x) go to a. The
// non-zero elements of x are unpacked into xu in chunks of f32sChunk; each
// sum runs over a chunk with its accumulator in registers.
func lstmDotS8(a *[8]float32, xu *[f32sChunk]f32sX, x []float32, w string) {
	acc := [8]f32sSum{{0, f32sZeroE}, {0, f32sZeroE}, {0, f32sZeroE}, {0, f32sZeroE},
		{0, f32sZeroE}, {0, f32sZeroE}, {0, f32sZeroE}, {0, f32sZeroE}}
	pw := unsafe.Pointer(unsafe.StringData(w))
	aligned := f32StrOff(w) == 0
	for d := 0; d < len(x); {
		n, read := f32sUnpackN(xu, x[d:], uint32(32*d), 32)
		for i := range acc {
			acc[i] = f32sDot(acc[i], xu[:n], unsafe.Add(pw, 4*i), aligned)
		}
		d += read
	}
	for i := range acc {
		a[i] = f32sSumF32(acc[i])
	}
}
