package kernels

import "unsafe"

// Fast int8 UNIDIRECTIONAL_SEQUENCE_LSTM (int8 activations and weights, int16
// cell state; see lstm.go for the arithmetic it reproduces bit for bit).
//
// Units are taken three at a time, and one 64-bit multiplication gives the
// products of an activation with the weights of all three. At generation
// time the weights of units 3g, 3g+1 and 3g+2 for one gate and one input
// element d are packed into one int64, w0 + w1*2^21 + w2*2^42 (a missing
// unit counts as 0); multiplied by the activation x[d] it gives x*w0 +
// x*w1*2^21 + x*w2*2^42, three products in 21-bit lanes. The activations
// need no packing, so nothing is prepared per unit or kept in scratch
// memory. A product is at most 2^14 in magnitude, so a lane summing up to
// lstmTriBlock (63) of them stays inside (-2^20, 2^20) and is split exactly
// before it could overflow; the blocks' sums are added in int32. Integer
// sums are exact, so the result is bit-identical to TFLM's term-by-term
// int32 accumulation.
//
// Weight layout (built by gen): for unit group g, for input element d, the
// packed int64 of the forget, input, cell and output gates, 32 bytes per
// element; input weights in one string, recurrent weights in another (8/3
// bytes per int8 weight). Biases: per unit 8 int32, the four gates' input FC
// biases (zero point folded in) then the four recurrent FC biases.

// lstmTriBlock is the number of elements summed before the lanes are split.
const lstmTriBlock = 63

// lstmTriSums is the four gates' dot products of a unit triple: [gate][unit].
type lstmTriSums [4][3]int32

// lstmDotTriBlock returns the four raw lane sums of the activations x
// (at most lstmTriBlock) with the packed weights wq of a unit triple.
// (Unrolled by two elements, it runs the same number of instructions.)
func lstmDotTriBlock(x []int8, wq [][32]byte) (s0, s1, s2, s3 int64) {
	wq = wq[:len(x)]
	for d, xv := range x {
		v, q := int64(xv), &wq[d]
		s0 += v * int64(le64((*[8]byte)(q[0:8])))
		s1 += v * int64(le64((*[8]byte)(q[8:16])))
		s2 += v * int64(le64((*[8]byte)(q[16:24])))
		s3 += v * int64(le64((*[8]byte)(q[24:32])))
	}
	return s0, s1, s2, s3
}

// lstmTriAdd splits the lanes of s and adds them to a.
func lstmTriAdd(a *[3]int32, s int64) {
	v0 := s << 43 >> 43
	s = (s - v0) >> 21
	v1 := s << 43 >> 43
	a[0] += int32(v0)
	a[1] += int32(v1)
	a[2] += int32((s - v1) >> 21)
}

// lstmDotTri adds to a the dot products of the activations x with the
// packed weights w of a unit triple (32 bytes per element of x).
func lstmDotTri(x []int8, w string, a *lstmTriSums) {
	wq := unsafe.Slice((*[32]byte)(unsafe.Pointer(unsafe.StringData(w))), len(w)/32)
	wq = wq[:len(x)]
	for len(x) > 0 {
		m := min(len(x), lstmTriBlock)
		s0, s1, s2, s3 := lstmDotTriBlock(x[:m], wq[:m])
		lstmTriAdd(&a[0], s0)
		lstmTriAdd(&a[1], s1)
		lstmTriAdd(&a[2], s2)
		lstmTriAdd(&a[3], s3)
		x, wq = x[m:], wq[m:]
	}
}

// lstmInt8 runs an LSTM with int8 input, output and hidden state h, int8
// weights (packed, see above) and int16 cell state c. It needs no scratch
// memory. Gates come in TFLM's evaluation order: forget, input, cell,
// output.
func lstmInt8(p *lstmParams, x []int8, h []int8, c []int16, out []int8,
	fg, ig, cg, og *lstmGate, wIn, wRec, bias string) {
	n, s := p.inDim, p.units
	// The gates' FC requantizations and the unit's, prepared once.
	var grq [8]fcRQ
	for k, g := range [4]*lstmGate{fg, ig, cg, og} {
		grq[k], grq[4+k] = lstmMakeRQ(g.inMult, g.inShift), lstmMakeRQ(g.recMult, g.recShift)
	}
	urq := lstmMakeUnitRQ(p)
	for r := 0; r < p.batch*p.steps; r++ {
		b := lstmRowBatch(p, r)
		xr, hb, cb, yr := x[r*n:r*n+n], h[b*s:b*s+s], c[b*s:b*s+s], out[r*s:r*s+s]
		for g := 0; 3*g < s; g++ {
			var in, rec lstmTriSums
			lstmDotTri(xr, wIn[32*n*g:32*n*(g+1)], &in)
			lstmDotTri(hb, wRec[32*s*g:32*s*(g+1)], &rec)
			// The triple's units are finished stage by stage, so that
			// the processor overlaps their long dependency chains (one
			// unit after the other, they run 5% slower).
			o0, m := 3*g, min(3, s-3*g)
			// Each gate: the input and recurrent FC requantized and
			// clamped to int16, then added with int16 saturation.
			var pre [3][4]int16
			for u := 0; u < m; u++ {
				bb := bias[32*(o0+u) : 32*(o0+u)+32]
				for k := range pre[u] {
					a := clampI32(fcRescale(in[k][u]+ld32(bb, k), grq[k]), -32768, 32767)
					b := clampI32(fcRescale(rec[k][u]+ld32(bb, 4+k), grq[4+k]), -32768, 32767)
					pre[u][k] = int16(clampI32(a+b, -32768, 32767))
				}
			}
			var act [3][4]int16
			for u := 0; u < m; u++ {
				act[u] = [4]int16{lstmSigmoidQ(pre[u][0]), lstmSigmoidQ(pre[u][1]), lstmTanhQ(pre[u][2], 3, 0), lstmSigmoidQ(pre[u][3])}
			}
			for u := 0; u < m; u++ {
				cb[o0+u] = lstmCellQ(p, &urq, cb[o0+u], act[u][0], act[u][1], act[u][2])
			}
			for u := 0; u < m; u++ {
				yr[o0+u] = int8(lstmHiddenQ(p, &urq, cb[o0+u], act[u][3]))
			}
		}
		copy(hb, yr)
	}
}
