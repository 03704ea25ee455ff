package kernels

// Fast int8 UNIDIRECTIONAL_SEQUENCE_LSTM (int8 activations and weights, int16
// cell state; see lstm.go for the arithmetic it reproduces bit for bit).
//
// Units are taken three at a time: the four gates' dot products of a unit
// triple come from one triDot (tri.go), whose four packed rows are the
// forget, input, cell and output gates, each packing the weights of units
// 3g, 3g+1 and 3g+2 (a missing unit counts as 0). The activations need no
// packing, so nothing is prepared per unit or kept in scratch memory.
//
// Weight layout (built by gen): for unit group g, for input element d, the
// packed int64 of the forget, input, cell and output gates, 32 bytes per
// element; input weights in one string, recurrent weights in another (8/3
// bytes per int8 weight). Biases: per unit 8 int32, the four gates' input FC
// biases (zero point folded in) then the four recurrent FC biases.

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
			var in, rec triSums
			triDot(xr, wIn[32*n*g:32*n*(g+1)], &in)
			triDot(hb, wRec[32*s*g:32*s*(g+1)], &rec)
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
					a := clampI32(fcRescale(in[3*k+u]+ld32(bb, k), grq[k]), -32768, 32767)
					b := clampI32(fcRescale(rec[3*k+u]+ld32(bb, 4+k), grq[4+k]), -32768, 32767)
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
