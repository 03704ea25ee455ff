package kernels

// Pointwise (1x1, stride 1, ungrouped) int8 CONV_2D as a matrix multiply:
// out[p][oc] = requant(sum_k x[p][k]*w[oc][k] + folded bias[oc]) over the
// pixels p of all batches. A 1x1 window with stride 1 never reaches into
// the padding, so the folded bias of the record (conv_rq.go) is exact for
// every output.
//
// Two pixels are multiplied at once: their input values are packed into one
// int64 (a + b<<32) in a scratch row, so one 64-bit multiply by a weight
// yields both products in separate halves. Each half's sum is bounded by
// inC*128*128, far inside int32 for the channel counts the lowering
// accepts, so both halves are recovered exactly.

// convPWParams describes a pointwise convolution.
type convPWParams struct {
	pixels         int // batches * height * width
	inC, outC      int
	outOffset      int32 // output zero point
	actMin, actMax int32 // quantized activation bounds
}

// convPWInt8 runs the pointwise convolution. filter is [outC][inC]; rq holds
// convRQLen records per output channel, decoded into rqs (outC*convRQLen
// int32 of scratch); xp is inC int64 of scratch.
func convPWInt8(p *convPWParams, in, filter []int8, rq string, rqs []int32, xp []int64, out []int8) {
	convRQLoad(rq, rqs)
	K, N := p.inC, p.outC
	xp = xp[:K]
	lo, hi, zo := p.actMin, p.actMax, p.outOffset
	px := 0
	for ; px+2 <= p.pixels; px += 2 {
		a := in[px*K : px*K+K]
		b := in[px*K+K : px*K+2*K]
		b = b[:len(a)]
		xp := xp[:len(a)]
		for k, av := range a {
			xp[k] = int64(av) + int64(b[k])<<32
		}
		o0 := out[px*N : px*N+N]
		o1 := out[px*N+N : px*N+2*N]
		o1 = o1[:len(o0)]
		oc := 0
		for ; oc+4 <= N; oc += 4 {
			w0 := filter[oc*K : oc*K+K]
			w1 := filter[oc*K+K : oc*K+2*K]
			w2 := filter[oc*K+2*K : oc*K+3*K]
			w3 := filter[oc*K+3*K : oc*K+4*K]
			w0, w1, w2, w3 = w0[:len(xp)], w1[:len(xp)], w2[:len(xp)], w3[:len(xp)]
			var s0, s1, s2, s3 int64
			for k, xv := range xp {
				s0 += xv * int64(w0[k])
				s1 += xv * int64(w1[k])
				s2 += xv * int64(w2[k])
				s3 += xv * int64(w3[k])
			}
			convPWStore(s0, rqs[oc*convRQLen:], zo, lo, hi, o0, o1, oc)
			convPWStore(s1, rqs[(oc+1)*convRQLen:], zo, lo, hi, o0, o1, oc+1)
			convPWStore(s2, rqs[(oc+2)*convRQLen:], zo, lo, hi, o0, o1, oc+2)
			convPWStore(s3, rqs[(oc+3)*convRQLen:], zo, lo, hi, o0, o1, oc+3)
		}
		for ; oc < N; oc++ {
			w := filter[oc*K : oc*K+K]
			w = w[:len(xp)]
			var s int64
			for k, xv := range xp {
				s += xv * int64(w[k])
			}
			convPWStore(s, rqs[oc*convRQLen:], zo, lo, hi, o0, o1, oc)
		}
	}
	if px < p.pixels {
		a := in[px*K : px*K+K]
		o := out[px*N : px*N+N]
		for oc := range o {
			w := filter[oc*K : oc*K+K]
			w = w[:len(a)]
			var s int32
			for k, av := range a {
				s += int32(av) * int32(w[k])
			}
			r := rqs[oc*convRQLen : oc*convRQLen+convRQLen]
			o[oc] = int8(clampI32(convRQScale(s+r[0], r)+zo, lo, hi))
		}
	}
}

// convPWStore splits a packed pair of sums, adds the folded bias, rescales
// and stores channel oc of both pixels.
func convPWStore(s int64, r []int32, zo, lo, hi int32, o0, o1 []int8, oc int) {
	a := int32(s)
	b := int32((s - int64(a)) >> 32)
	o0[oc] = int8(clampI32(convRQScale(a+r[0], r)+zo, lo, hi))
	o1[oc] = int8(clampI32(convRQScale(b+r[0], r)+zo, lo, hi))
}
