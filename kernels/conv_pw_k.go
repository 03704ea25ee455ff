package kernels

import "unsafe"

// convPWKInt8 is convPWInt8 for rows of one to four input channels (the
// generator's choice in the build for gc, where convPWInt8 runs such rows
// through convPWDotAny and convPWRescale at some hundred instructions an
// output): the cost is the requantization of every output, not the
// products. It runs output channel by output channel, without scratch:
// it decodes the channel into a convPWKRec on the stack (the channel's
// weights as int32, and its convPWCh: convPWQ's one multiply, zero point
// and clamp folded in), then walks every pixel: a sum, started at the
// record's bias, of one MLA per input, and convPWQ. Where convPWChDecode
// finds convPWQ inexact for a channel (a right shift outside 1 to 21, a
// folded bias too large) the layer runs as convPWInt8 does (convPWPairs,
// which writes every output). Arguments are convPWInt8's, the weights in
// its layout (convPWPairs), the triples in conv_rq.go's. It writes its
// outputs in another order than it reads its inputs: never over them.
func convPWKInt8(p *convPWParams, in []int8, wt, rq string, out []int8) {
	K, N, P := p.inC, p.outC, p.pixels
	w := constI8(wt)
	in = in[:P*K]
	out = out[:P*N]
	w = w[:(N+1)/2*2*K]
	if P <= 0 || N <= 0 || K < 1 || K > convPWKMax {
		convPWPairs(p, in, w, rq, out, 0, N)
		return
	}
	rq = rq[:12*N]
	var r convPWKRec
	a := convPWKArgs{x: unsafe.Pointer(unsafe.SliceData(in)), t: unsafe.Pointer(&r), P: P, N: N,
		span: p.actMax - p.actMin, hi: p.actMax}
	for c := 0; c < N; c++ {
		if !convPWChDecode(rq[12*c:12*c+12], K, p.outOffset, p.actMin, unsafe.Slice(&r.ch, 1)) {
			convPWPairs(p, in, w, rq, out, 0, N)
			return
		}
		// Weight k of channel c: its pair's row, 2k bytes in, the
		// second channel one byte further (convPWPairs' layout for
		// rows shorter than eight).
		wc := w[c/2*2*K+c%2:]
		r.w = [convPWKMax]int32{}
		for k := 0; k < K; k++ {
			r.w[k] = int32(wc[2*k])
		}
		a.o = unsafe.Pointer(&out[c])
		switch K {
		case 1:
			convPWK1(&a)
		case 2:
			convPWK2(&a)
		case 3:
			convPWK3(&a)
		default:
			convPWK4(&a)
		}
	}
}

// convPWKMax is the most input channels convPWKInt8 computes itself.
const convPWKMax = 4

// convPWKRec is one output channel of convPWKInt8: its weights (the
// unused ones zero) and its requantization.
type convPWKRec struct {
	w  [convPWKMax]int32
	ch convPWCh
}

// convPWKArgs are the pixel loops' arguments: the rows x, the channel's
// first output o and its record t as pointers, P pixels of N outputs,
// the clamp's span and upper bound.
type convPWKArgs struct {
	x, o, t  unsafe.Pointer
	P, N     int
	span, hi int32
}

// convPWK1 computes one output channel (record a.t) of every pixel of
// rows of one input (convPWKInt8): per output one load of the input, one
// MLA and convPWQ; the pointers step only when another pixel follows.
//
//go:noinline
func convPWK1(a *convPWKArgs) {
	r := (*convPWKRec)(a.t)
	w0, b := r.w[0], r.ch.bias
	x, o, span, hi, N := a.x, a.o, a.span, a.hi, a.N
	for n := a.P; ; {
		x0 := int32(*(*int8)(x))
		*(*int8)(o) = int8(hi - convPWQ(b+x0*w0, &r.ch, span))
		if n--; n == 0 {
			return
		}
		x, o = unsafe.Add(x, 1), unsafe.Add(o, N)
	}
}

// convPWK2 is convPWK1 for rows of two inputs.
//
//go:noinline
func convPWK2(a *convPWKArgs) {
	r := (*convPWKRec)(a.t)
	w0, w1, b := r.w[0], r.w[1], r.ch.bias
	x, o, span, hi, N := a.x, a.o, a.span, a.hi, a.N
	for n := a.P; ; {
		xx := (*[2]int8)(x)
		*(*int8)(o) = int8(hi - convPWQ(b+int32(xx[0])*w0+int32(xx[1])*w1, &r.ch, span))
		if n--; n == 0 {
			return
		}
		x, o = unsafe.Add(x, 2), unsafe.Add(o, N)
	}
}

// convPWK3 is convPWK1 for rows of three inputs.
//
//go:noinline
func convPWK3(a *convPWKArgs) {
	r := (*convPWKRec)(a.t)
	w0, w1, w2, b := r.w[0], r.w[1], r.w[2], r.ch.bias
	x, o, span, hi, N := a.x, a.o, a.span, a.hi, a.N
	for n := a.P; ; {
		xx := (*[3]int8)(x)
		*(*int8)(o) = int8(hi - convPWQ(b+int32(xx[0])*w0+int32(xx[1])*w1+int32(xx[2])*w2, &r.ch, span))
		if n--; n == 0 {
			return
		}
		x, o = unsafe.Add(x, 3), unsafe.Add(o, N)
	}
}

// convPWK4 is convPWK1 for rows of four inputs.
//
//go:noinline
func convPWK4(a *convPWKArgs) {
	r := (*convPWKRec)(a.t)
	w0, w1, w2, w3, b := r.w[0], r.w[1], r.w[2], r.w[3], r.ch.bias
	x, o, span, hi, N := a.x, a.o, a.span, a.hi, a.N
	for n := a.P; ; {
		xx := (*[4]int8)(x)
		*(*int8)(o) = int8(hi - convPWQ(b+int32(xx[0])*w0+int32(xx[1])*w1+int32(xx[2])*w2+int32(xx[3])*w3, &r.ch, span))
		if n--; n == 0 {
			return
		}
		x, o = unsafe.Add(x, 4), unsafe.Add(o, N)
	}
}
