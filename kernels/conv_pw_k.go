package kernels

import "unsafe"

// convPWKInt8 is convPWInt8 for rows of one to four input channels (the
// generator's choice in the build for gc, where convPWInt8 runs such rows
// through convPWDotAny and convPWRescale at some hundred instructions an
// output): the cost is the requantization of every output, not the
// products. It decodes every output channel once per call into a
// convPWKRec in scratch (convPWKScratch words): the channel's weights as
// int32, and its convPWCh (convPWQ: one multiply, zero point and clamp
// folded in). Then pixel by pixel, it keeps the pixel's inputs in
// registers and walks the records: a sum, started at the record's bias,
// of one MLA per input, and convPWQ. Where convPWChDecode finds convPWQ
// inexact for a channel (a right shift outside 1 to 21, a folded bias too
// large) the layer runs as convPWInt8 does (convPWPairs). Arguments are
// convPWInt8's, the weights in its layout (convPWPairs), the triples in
// conv_rq.go's.
func convPWKInt8(p *convPWParams, in []int8, wt, rq string, scr []int32, out []int8) {
	K, N, P := p.inC, p.outC, p.pixels
	w := constI8(wt)
	in = in[:P*K]
	out = out[:P*N]
	w = w[:(N+1)/2*2*K]
	if P <= 0 || N <= 0 || K < 1 || K > convPWKMax {
		convPWPairs(p, in, w, rq, out, 0, N)
		return
	}
	scr = scr[:convPWKScratch(N)]
	t := unsafe.Slice((*convPWKRec)(unsafe.Pointer(&scr[0])), N)
	rq = rq[:12*N]
	for c := range t {
		if !convPWChDecode(rq[12*c:12*c+12], K, p.outOffset, p.actMin, unsafe.Slice(&t[c].ch, 1)) {
			convPWPairs(p, in, w, rq, out, 0, N)
			return
		}
		// Weight k of channel c: its pair's row, 2k bytes in, the
		// second channel one byte further (convPWPairs' layout for
		// rows shorter than eight).
		wc := w[c/2*2*K+c%2:]
		t[c].w = [convPWKMax]int32{}
		for k := 0; k < K; k++ {
			t[c].w[k] = int32(wc[2*k])
		}
	}
	a := convPWKArgs{x: unsafe.Pointer(unsafe.SliceData(in)), o: unsafe.Pointer(unsafe.SliceData(out)),
		t: unsafe.Pointer(&t[0]), P: P, N: N, span: p.actMax - p.actMin, hi: p.actMax}
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

// convPWKMax is the most input channels convPWKInt8 computes itself.
const convPWKMax = 4

// convPWKRec is one output channel of convPWKInt8: its weights (the
// unused ones zero) and its requantization.
type convPWKRec struct {
	w  [convPWKMax]int32
	ch convPWCh
}

// convPWKWords bounds the size of a convPWKRec in int32 words (a test
// checks it against unsafe.Sizeof).
const convPWKWords = convPWKMax + convPWChWords

// convPWKScratch is convPWKInt8's scratch in int32 words for outC output
// channels: one convPWKRec each.
func convPWKScratch(outC int) int { return outC * convPWKWords }

// convPWKArgs are the pixel loops' arguments: the rows x, the outputs o
// and the records t (N of them) as pointers, P pixels, the clamp's span
// and upper bound.
type convPWKArgs struct {
	x, o, t  unsafe.Pointer
	P, N     int
	span, hi int32
}

// convPWK1 computes every output of rows of one input (convPWKInt8): per
// output one load of the weight, one MLA and convPWQ; the record pointer
// stops at the last record (never a pointer past the scratch).
//
//go:noinline
func convPWK1(a *convPWKArgs) {
	const sz = unsafe.Sizeof(convPWKRec{})
	for px := 0; px < a.P; px++ {
		x0 := int32(*(*int8)(unsafe.Add(a.x, px)))
		q := a.t
		qe := unsafe.Add(q, (a.N-1)*int(sz))
		o := unsafe.Add(a.o, px*a.N)
		span, hi := a.span, a.hi
		for {
			r := (*convPWKRec)(q)
			*(*int8)(o) = int8(hi - convPWQ(r.ch.bias+x0*r.w[0], &r.ch, span))
			if q == qe {
				break
			}
			q, o = unsafe.Add(q, sz), unsafe.Add(o, 1)
		}
	}
}

// convPWK2 is convPWK1 for rows of two inputs.
//
//go:noinline
func convPWK2(a *convPWKArgs) {
	const sz = unsafe.Sizeof(convPWKRec{})
	for px := 0; px < a.P; px++ {
		xx := (*[2]int8)(unsafe.Add(a.x, 2*px))
		x0, x1 := int32(xx[0]), int32(xx[1])
		q := a.t
		qe := unsafe.Add(q, (a.N-1)*int(sz))
		o := unsafe.Add(a.o, px*a.N)
		span, hi := a.span, a.hi
		for {
			r := (*convPWKRec)(q)
			*(*int8)(o) = int8(hi - convPWQ(r.ch.bias+x0*r.w[0]+x1*r.w[1], &r.ch, span))
			if q == qe {
				break
			}
			q, o = unsafe.Add(q, sz), unsafe.Add(o, 1)
		}
	}
}

// convPWK3 is convPWK1 for rows of three inputs.
//
//go:noinline
func convPWK3(a *convPWKArgs) {
	const sz = unsafe.Sizeof(convPWKRec{})
	for px := 0; px < a.P; px++ {
		xx := (*[3]int8)(unsafe.Add(a.x, 3*px))
		x0, x1, x2 := int32(xx[0]), int32(xx[1]), int32(xx[2])
		q := a.t
		qe := unsafe.Add(q, (a.N-1)*int(sz))
		o := unsafe.Add(a.o, px*a.N)
		span, hi := a.span, a.hi
		for {
			r := (*convPWKRec)(q)
			*(*int8)(o) = int8(hi - convPWQ(r.ch.bias+x0*r.w[0]+x1*r.w[1]+x2*r.w[2], &r.ch, span))
			if q == qe {
				break
			}
			q, o = unsafe.Add(q, sz), unsafe.Add(o, 1)
		}
	}
}

// convPWK4 is convPWK1 for rows of four inputs.
//
//go:noinline
func convPWK4(a *convPWKArgs) {
	const sz = unsafe.Sizeof(convPWKRec{})
	for px := 0; px < a.P; px++ {
		xx := (*[4]int8)(unsafe.Add(a.x, 4*px))
		x0, x1, x2, x3 := int32(xx[0]), int32(xx[1]), int32(xx[2]), int32(xx[3])
		q := a.t
		qe := unsafe.Add(q, (a.N-1)*int(sz))
		o := unsafe.Add(a.o, px*a.N)
		span, hi := a.span, a.hi
		for {
			r := (*convPWKRec)(q)
			*(*int8)(o) = int8(hi - convPWQ(r.ch.bias+x0*r.w[0]+x1*r.w[1]+x2*r.w[2]+x3*r.w[3], &r.ch, span))
			if q == qe {
				break
			}
			q, o = unsafe.Add(q, sz), unsafe.Add(o, 1)
		}
	}
}
