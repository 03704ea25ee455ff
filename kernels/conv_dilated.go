package kernels

import "unsafe"

// Int8 CONV_2D with dilation, without scratch memory, for 32-bit cores
// (gc's A32 code): convRowsInt8's scheme (two horizontally adjacent output
// pixels by two output channels, each product one multiply-add) where a
// window row is not contiguous: its taps, inC contiguous values each, are
// dilationW*inC values apart. convDilDot2 and its variants walk the taps
// of two windows inside the image, sixteen values a step (eight where inC
// is an odd multiple of eight), in small functions whose few live values
// gc keeps in registers. Taps in the padding are left out; the folded
// bias (conv_rq.go, bias - zp*sum of the channel's weights) needs zp times
// their weights back, which a table of partial sums over the filter's taps
// gives for any rectangle of taps. The sums of a batch of pixel pairs are
// requantized channel by channel afterwards (convDilStore).

// convDilParams describes a convolution of inC a multiple of eight.
type convDilParams struct {
	batches              int
	inH, inW, inC        int
	filterH, filterW     int
	outH, outW, outC     int
	strideH, strideW     int
	dilationH, dilationW int
	padH, padW           int   // padding before the first row / column
	inZP                 int32 // input zero point, whose share the folded bias takes out
	outOffset            int32 // output zero point
	actMin, actMax       int32 // quantized activation bounds
}

// convDilMaxTaps bounds (filterH+1)*(filterW+1), the partial sums of zp
// times the weights convDilPair keeps in a local array.
const convDilMaxTaps = 64

// convDilInt8 runs the convolution. wt holds, like convRowsInt8's, for each
// pair of output channels (outC rounded up to even, the missing channel's
// weights zero), for each index k of the filter order (taps row by row,
// then input channels), the two channels' weights; rq holds the
// requantization triples (conv_rq.go).
func convDilInt8(p *convDilParams, in []int8, wt, rq string, out []int8) {
	K := p.filterH * p.filterW * p.inC
	N := p.outC
	w2 := unsafe.Slice((*[2]int8)(unsafe.Pointer(unsafe.StringData(wt))), len(wt)/2)
	w2 = w2[:(N+1)/2*K]
	in = in[:p.batches*p.inH*p.inW*p.inC]
	out = out[:p.batches*p.outH*p.outW*N]
	var q [2]convPWRQ
	for ob := 0; ob < N; ob += 2 {
		convPWRQLoad(rq, ob, &q[0])
		two := ob+1 < N
		if two {
			convPWRQLoad(rq, ob+1, &q[1])
		}
		convDilPair(p, in, w2[ob/2*K:ob/2*K+K], &q, two, out[ob:])
	}
}

// convDilWalk is the walk of convDilDot2 and convDilDot1 over taps inside
// the image: ny rows of nx taps of n steps of k values each (n, nx, ny >
// 0; k is 16, or 8 for input channels an odd multiple of 8).
type convDilWalk struct {
	n, k, nx, ny int
	d            int // bytes from the first pixel's taps to the second's
	gx           int // bytes from a tap's last step to the next tap
	gy           int // bytes from a row's last tap's last step to the next row
	wy           int // weight bytes from a row's last tap's last step to the next row
}

// convDilPair computes output channels ob and ob+1 (when two; w their
// interleaved weights, q their requantizations) of every pixel; out
// starts at channel ob of the first pixel.
//
//go:noinline
func convDilPair(p *convDilParams, in []int8, w [][2]int8, q *[2]convPWRQ, two bool, out []int8) {
	C, N := p.inC, p.outC
	fH, fW, dH, dW := p.filterH, p.filterW, p.dilationH, p.dilationW
	sW, inW := p.strideW, p.inW
	rs := inW * C
	img := p.inH * rs
	zo, lo, hi := p.outOffset, p.actMin, p.actMax
	// zs[y*(fW+1)+x] is zp times the sums of the weights of the taps in
	// rows below y and columns below x.
	var e convDilEdgeArgs
	zs := &e.zs
	W1 := fW + 1
	_ = zs[(fH+1)*W1-1]
	for fy := 0; fy < fH; fy++ {
		var r0, r1 int32
		for fx := 0; fx < fW; fx++ {
			var t [2]int32
			convDilSum(unsafe.Pointer(&w[(fy*fW+fx)*C : (fy*fW+fx+1)*C][0]), C/8, &t)
			r0, r1 = r0+t[0]*p.inZP, r1+t[1]*p.inZP
			up := zs[fy*W1+fx+1]
			zs[(fy+1)*W1+fx+1] = [2]int32{up[0] + r0, up[1] + r1}
		}
	}
	e.p = p
	e.bias = [2]int32{q[0].bias, q[1].bias}
	e.pw = unsafe.Pointer(unsafe.SliceData(w))
	// g walks whole window rows; e.g, copied, the windows cut at the
	// sides.
	var g convDilWalk
	g.k = 8
	if C%16 == 0 {
		g.k = 16
	}
	g.n = C / g.k
	g.gx = dW*C - C + g.k
	g.d = sW * C
	e.g = g
	// Pairs of pixels from ox0 on, before ox1, have whole window rows.
	ox0 := (p.padW + sW - 1) / sW
	ox0 += ox0 % 2
	ox1 := ox0
	for ox1+1 < p.outW && ox1*sW-p.padW+sW+(fW-1)*dW < inW {
		ox1 += 2
	}
	// The sums with the folded bias are below K*2^14 + |bias| in
	// magnitude (each tap's product, or zp times the weight, at most
	// 2^14): dwRQFast's 2^29 holds for |bias| < biasMax.
	var biasMax int32
	if K := fH * fW * C; K < 1<<15 {
		biasMax = int32(1<<29 - K<<14)
	}
	nch := 1
	if two {
		nch = 2
	}
	// The channels' requantizations for convDilStore, where fast.
	var rqs [2]convDilRQ
	var fast [2]bool
	for j := range nch {
		qj := &q[j]
		if rr := qj.right; rr >= 1 && rr <= 21 && zo >= -128 && zo <= 128 && qj.bias > -biasMax && qj.bias < biasMax {
			// |sum| < 2^29: dwRQFast (zo in k).
			m := qj.mult2 >> 1
			rqs[j] = convDilRQ{m: m, k: 1 + int32(1)<<rr + zo<<(rr+1), mm: -int32(m) - 2, sh: rr + 1, lo: lo, hi: hi}
			fast[j] = true
		}
	}
	// sums[i] holds the sums of the batch's pair i: s00, s01, s10, s11;
	// pixel t of the batch, channel j is at 2t+j.
	var sums [convDilBatch][4]int32
	flat := (*[4 * convDilBatch]int32)(unsafe.Pointer(&sums))
	for b := 0; b < p.batches; b++ {
		x := in[b*img : b*img+img]
		e.px = unsafe.Pointer(unsafe.SliceData(x))
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			fy0, fy1 := dwTaps(iy0, dH, fH, p.inH)
			e.iy0, e.fy0, e.fy1 = iy0, fy0, fy1
			g.ny = fy1 - fy0
			convDilSet(&g, rs, dH, dW, C, fW, 0, fW)
			// The folded biases and zp times the weights of the rows
			// outside the image.
			zr := e.outside(fy0, fy1, 0, fW)
			// The window rows' first input row and first weights (where
			// a row is inside: pointers stay inside their slices).
			row, wrow := e.px, e.pw
			if g.ny > 0 {
				row, wrow = unsafe.Add(e.px, (iy0+fy0*dH)*rs), unsafe.Add(e.pw, 2*fy0*fW*C)
			}
			o := out[(b*p.outH+oy)*p.outW*N:]
			for px := 0; px < p.outW; px += 2 * convDilBatch {
				n := min(convDilBatch, (p.outW-px+1)/2)
				// Pairs i0..i1-1 have whole window rows.
				i0 := min(max((ox0-px)/2, 0), n)
				i1 := min(max((ox1-px)/2, i0), n)
				if g.ny <= 0 {
					i1 = i0
				}
				for i := range sums[:i0] {
					convDilEdge(&e, (px+2*i)*sW-p.padW, px+2*i+1 < p.outW, &sums[i])
				}
				if i1 > i0 {
					convDilRun(unsafe.Add(row, ((px+2*i0)*sW-p.padW)*C), wrow, 2*sW*C, &g, zr, sums[i0:i1])
				}
				for i := i1; i < n; i++ {
					convDilEdge(&e, (px+2*i)*sW-p.padW, px+2*i+1 < p.outW, &sums[i])
				}
				m := min(2*convDilBatch, p.outW-px)
				for j := 0; j < nch; j++ {
					// One channel at a time, as convPWPair8's.
					qj := &q[j]
					oj := o[px*N+j : px*N+j+(m-1)*N+1]
					if fast[j] {
						convDilStore(unsafe.Pointer(&flat[j]), unsafe.Pointer(&oj[0]), m, N, &rqs[j])
						continue
					}
					for t := range m {
						v := convRQ32(flat[2*t+j], 0, qj.left, qj.mult2, qj.right, qj.mask, qj.half, qj.negRound)
						oj[t*N] = int8(max(min(v+zo, hi), lo))
					}
				}
			}
		}
	}
}

// convDilSum adds to s the sums of the first and of the second weights of
// the 8*n8 (n8 > 0) interleaved pairs at w.
//
//go:noinline
func convDilSum(w unsafe.Pointer, n8 int, s *[2]int32) {
	s0, s1 := s[0], s[1]
	for {
		q := (*[16]int8)(w)
		s0 += int32(q[0]) + int32(q[2]) + int32(q[4]) + int32(q[6]) + int32(q[8]) + int32(q[10]) + int32(q[12]) + int32(q[14])
		s1 += int32(q[1]) + int32(q[3]) + int32(q[5]) + int32(q[7]) + int32(q[9]) + int32(q[11]) + int32(q[13]) + int32(q[15])
		if n8--; n8 == 0 {
			break
		}
		w = unsafe.Add(w, 16)
	}
	s[0], s[1] = s0, s1
}

// convDilDot runs convDilDot2, convDilDot2x8, convDilTap2 or
// convDilTap2x8, as g's steps take: a switch of direct calls (through a
// func value the sums would escape to the heap, an allocation a call).
func convDilDot(a, w unsafe.Pointer, g *convDilWalk, s *[4]int32) {
	switch {
	case g.n == 1 && g.k == 16:
		convDilTap2(a, w, g, s)
	case g.n == 1:
		convDilTap2x8(a, w, g, s)
	case g.k == 16:
		convDilDot2(a, w, g, s)
	default:
		convDilDot2x8(a, w, g, s)
	}
}

// convDilRun sets sums[i] to the sums of pixel pair i of a row whose
// windows have whole rows (g walks them, with z their zero-point share):
// the first pair's window starts at a, the next pairs' step bytes apart.
//
//go:noinline
func convDilRun(a, w unsafe.Pointer, step int, g *convDilWalk, z [2]int32, sums [][4]int32) {
	for i := range sums {
		sums[i] = [4]int32{z[0], z[1], z[0], z[1]}
		convDilDot(a, w, g, &sums[i])
		if i+1 < len(sums) {
			a = unsafe.Add(a, step)
		}
	}
}

// convDilRQ is a requantization dwRQFast takes (the output zero point in
// k) and the activation bounds.
type convDilRQ struct {
	m      uint32
	k, mm  int32
	sh     uint32
	lo, hi int32
}

// convDilStore writes the m (> 0) outputs of one channel, N bytes apart
// from o, requantizing the sums at s (the folded bias included, below
// 2^29 in magnitude), 8 bytes apart. The rescale is below 2^30 in
// magnitude, as dwClamp wants.
//
//go:noinline
func convDilStore(s, o unsafe.Pointer, m, N int, r *convDilRQ) {
	mult, k, mm, sh, lo, hi := r.m, r.k, r.mm, r.sh&31, r.lo, r.hi
	for {
		*(*int8)(o) = int8(dwClamp(dwRQFast(*(*int32)(s), mult, k, mm, sh), lo, hi))
		if m--; m == 0 {
			return
		}
		s, o = unsafe.Add(s, 8), unsafe.Add(o, N)
	}
}

// convDilBatch is the pixel pairs whose sums convDilPair keeps before
// requantizing them.
const convDilBatch = 16

// convDilEdgeArgs is what convDilEdge needs of convDilPair's state.
type convDilEdgeArgs struct {
	p             *convDilParams
	px, pw        unsafe.Pointer // the batch's input, the pair's weights
	iy0, fy0, fy1 int            // the window's first input row; its rows [fy0, fy1) inside the image
	bias          [2]int32       // the channels' folded biases
	g             convDilWalk    // n, k, gx and d set
	// zs[y*(filterW+1)+x] is zp times the sums of the weights of the taps
	// in rows below y and columns below x.
	zs [convDilMaxTaps][2]int32
}

// outside returns the folded biases plus zp times the weights of the taps
// outside rows [y0, y1) and columns [x0, x1).
func (e *convDilEdgeArgs) outside(y0, y1, x0, x1 int) [2]int32 {
	W1, fH, fW := e.p.filterW+1, e.p.filterH, e.p.filterW
	zs := &e.zs
	a, b, c, d, t := zs[y1*W1+x1], zs[y0*W1+x1], zs[y1*W1+x0], zs[y0*W1+x0], zs[fH*W1+fW]
	return [2]int32{e.bias[0] + t[0] - (a[0] - b[0] - c[0] + d[0]), e.bias[1] + t[1] - (a[1] - b[1] - c[1] + d[1])}
}

// convDilEdge sets s to the sums of the pixel pair (or the single pixel,
// unless second) whose first window starts at input column ixa, of the
// row e describes, where a window is cut at the sides or by the image's
// rows.
//
//go:noinline
func convDilEdge(e *convDilEdgeArgs, ixa int, second bool, s *[4]int32) {
	p := e.p
	C, fW, dH, dW := p.inC, p.filterW, p.dilationH, p.dilationW
	rs := p.inW * C
	ixb := ixa + p.strideW
	fy0, fy1 := e.fy0, e.fy1
	g := &e.g
	g.ny = fy1 - fy0
	la, ha := dwTaps(ixa, dW, fW, p.inW)
	lb, hb := la, ha
	if second {
		lb, hb = dwTaps(ixb, dW, fW, p.inW)
	}
	if g.ny <= 0 {
		la, ha, lb, hb = 0, 0, 0, 0
	}
	za, zb := e.outside(fy0, fy1, la, ha), e.outside(fy0, fy1, lb, hb)
	*s = [4]int32{za[0], za[1], zb[0], zb[1]}
	// Taps inside the image for both pixels.
	lc, hc := max(la, lb), min(ha, hb)
	// Taps inside for one pixel only: those left of the common ones and
	// those right of them (all of them without common ones).
	rng := [4][3]int{{ixa, la, lc}, {ixa, hc, ha}, {ixb, lb, lc}, {ixb, hc, hb}}
	if !second || hc <= lc {
		rng = [4][3]int{{ixa, la, ha}, {}, {ixb, lb, hb}, {}}
	} else {
		convDilSet(g, rs, dH, dW, C, fW, lc, hc)
		a, w := unsafe.Add(e.px, (e.iy0+fy0*dH)*rs+(ixa+lc*dW)*C), unsafe.Add(e.pw, 2*((fy0*fW+lc)*C))
		convDilDot(a, w, g, s)
	}
	var t [2]int32
	for k, r := range rng {
		if r[2] <= r[1] || k >= 2 && !second {
			continue
		}
		convDilSet(g, rs, dH, dW, C, fW, r[1], r[2])
		t = [2]int32{}
		convDilDot1(unsafe.Add(e.px, (e.iy0+fy0*dH)*rs+(r[0]+r[1]*dW)*C), unsafe.Add(e.pw, 2*((fy0*fW+r[1])*C)), g, &t)
		s[k/2*2] += t[0]
		s[k/2*2+1] += t[1]
	}
}

// convDilSet sets the walk g over taps [x0, x1) of its rows (g.ny set).
func convDilSet(g *convDilWalk, rs, dH, dW, C, fW, x0, x1 int) {
	g.nx = x1 - x0
	// From the last tap's last eight values: the tap's end, then on to
	// the next row's first tap.
	g.gy = dH*rs - (g.nx-1)*dW*C - C + g.k
	g.wy = 2 * ((fW-g.nx)*C + g.k)
}

// convDilDot2 adds to s (s00, s01, s10, s11: pixel, then channel) the
// products of the taps g walks (g.k = 16) from a, and from a+g.d for the
// second pixel, with the interleaved weight pairs from w, sixteen values a
// step. Not inlined; the pointers step only when more values follow (they
// never point past the taps), like convRowsRun's.
//
//go:noinline
func convDilDot2(a, w unsafe.Pointer, g *convDilWalk, s *[4]int32) {
	s00, s01, s10, s11 := s[0], s[1], s[2], s[3]
	for y := g.ny; ; {
		for x := g.nx; ; {
			b := unsafe.Add(a, g.d)
			for h := g.n; ; {
				pa, pb, q := (*[16]int8)(a), (*[16]int8)(b), (*[32]int8)(w)
				var x0, x1, w0 int32
				x0, x1 = int32(pa[0]), int32(pb[0])
				w0 = int32(q[0])
				s00 += x0 * w0
				s10 += x1 * w0
				w0 = int32(q[1])
				s01 += x0 * w0
				s11 += x1 * w0
				x0, x1 = int32(pa[1]), int32(pb[1])
				w0 = int32(q[2])
				s00 += x0 * w0
				s10 += x1 * w0
				w0 = int32(q[3])
				s01 += x0 * w0
				s11 += x1 * w0
				x0, x1 = int32(pa[2]), int32(pb[2])
				w0 = int32(q[4])
				s00 += x0 * w0
				s10 += x1 * w0
				w0 = int32(q[5])
				s01 += x0 * w0
				s11 += x1 * w0
				x0, x1 = int32(pa[3]), int32(pb[3])
				w0 = int32(q[6])
				s00 += x0 * w0
				s10 += x1 * w0
				w0 = int32(q[7])
				s01 += x0 * w0
				s11 += x1 * w0
				x0, x1 = int32(pa[4]), int32(pb[4])
				w0 = int32(q[8])
				s00 += x0 * w0
				s10 += x1 * w0
				w0 = int32(q[9])
				s01 += x0 * w0
				s11 += x1 * w0
				x0, x1 = int32(pa[5]), int32(pb[5])
				w0 = int32(q[10])
				s00 += x0 * w0
				s10 += x1 * w0
				w0 = int32(q[11])
				s01 += x0 * w0
				s11 += x1 * w0
				x0, x1 = int32(pa[6]), int32(pb[6])
				w0 = int32(q[12])
				s00 += x0 * w0
				s10 += x1 * w0
				w0 = int32(q[13])
				s01 += x0 * w0
				s11 += x1 * w0
				x0, x1 = int32(pa[7]), int32(pb[7])
				w0 = int32(q[14])
				s00 += x0 * w0
				s10 += x1 * w0
				w0 = int32(q[15])
				s01 += x0 * w0
				s11 += x1 * w0
				x0, x1 = int32(pa[8]), int32(pb[8])
				w0 = int32(q[16])
				s00 += x0 * w0
				s10 += x1 * w0
				w0 = int32(q[17])
				s01 += x0 * w0
				s11 += x1 * w0
				x0, x1 = int32(pa[9]), int32(pb[9])
				w0 = int32(q[18])
				s00 += x0 * w0
				s10 += x1 * w0
				w0 = int32(q[19])
				s01 += x0 * w0
				s11 += x1 * w0
				x0, x1 = int32(pa[10]), int32(pb[10])
				w0 = int32(q[20])
				s00 += x0 * w0
				s10 += x1 * w0
				w0 = int32(q[21])
				s01 += x0 * w0
				s11 += x1 * w0
				x0, x1 = int32(pa[11]), int32(pb[11])
				w0 = int32(q[22])
				s00 += x0 * w0
				s10 += x1 * w0
				w0 = int32(q[23])
				s01 += x0 * w0
				s11 += x1 * w0
				x0, x1 = int32(pa[12]), int32(pb[12])
				w0 = int32(q[24])
				s00 += x0 * w0
				s10 += x1 * w0
				w0 = int32(q[25])
				s01 += x0 * w0
				s11 += x1 * w0
				x0, x1 = int32(pa[13]), int32(pb[13])
				w0 = int32(q[26])
				s00 += x0 * w0
				s10 += x1 * w0
				w0 = int32(q[27])
				s01 += x0 * w0
				s11 += x1 * w0
				x0, x1 = int32(pa[14]), int32(pb[14])
				w0 = int32(q[28])
				s00 += x0 * w0
				s10 += x1 * w0
				w0 = int32(q[29])
				s01 += x0 * w0
				s11 += x1 * w0
				x0, x1 = int32(pa[15]), int32(pb[15])
				w0 = int32(q[30])
				s00 += x0 * w0
				s10 += x1 * w0
				w0 = int32(q[31])
				s01 += x0 * w0
				s11 += x1 * w0
				if h--; h == 0 {
					break
				}
				a, b, w = unsafe.Add(a, 16), unsafe.Add(b, 16), unsafe.Add(w, 32)
			}
			if x--; x == 0 {
				break
			}
			a, w = unsafe.Add(a, g.gx), unsafe.Add(w, 32)
		}
		if y--; y == 0 {
			break
		}
		a, w = unsafe.Add(a, g.gy), unsafe.Add(w, g.wy)
	}
	s[0], s[1], s[2], s[3] = s00, s01, s10, s11
}

// convDilDot2x8 is convDilDot2 eight values a step (g.k = 8).
//
//go:noinline
func convDilDot2x8(a, w unsafe.Pointer, g *convDilWalk, s *[4]int32) {
	s00, s01, s10, s11 := s[0], s[1], s[2], s[3]
	for y := g.ny; ; {
		for x := g.nx; ; {
			b := unsafe.Add(a, g.d)
			for h := g.n; ; {
				pa, pb, q := (*[8]int8)(a), (*[8]int8)(b), (*[16]int8)(w)
				var x0, x1, w0 int32
				x0, x1 = int32(pa[0]), int32(pb[0])
				w0 = int32(q[0])
				s00 += x0 * w0
				s10 += x1 * w0
				w0 = int32(q[1])
				s01 += x0 * w0
				s11 += x1 * w0
				x0, x1 = int32(pa[1]), int32(pb[1])
				w0 = int32(q[2])
				s00 += x0 * w0
				s10 += x1 * w0
				w0 = int32(q[3])
				s01 += x0 * w0
				s11 += x1 * w0
				x0, x1 = int32(pa[2]), int32(pb[2])
				w0 = int32(q[4])
				s00 += x0 * w0
				s10 += x1 * w0
				w0 = int32(q[5])
				s01 += x0 * w0
				s11 += x1 * w0
				x0, x1 = int32(pa[3]), int32(pb[3])
				w0 = int32(q[6])
				s00 += x0 * w0
				s10 += x1 * w0
				w0 = int32(q[7])
				s01 += x0 * w0
				s11 += x1 * w0
				x0, x1 = int32(pa[4]), int32(pb[4])
				w0 = int32(q[8])
				s00 += x0 * w0
				s10 += x1 * w0
				w0 = int32(q[9])
				s01 += x0 * w0
				s11 += x1 * w0
				x0, x1 = int32(pa[5]), int32(pb[5])
				w0 = int32(q[10])
				s00 += x0 * w0
				s10 += x1 * w0
				w0 = int32(q[11])
				s01 += x0 * w0
				s11 += x1 * w0
				x0, x1 = int32(pa[6]), int32(pb[6])
				w0 = int32(q[12])
				s00 += x0 * w0
				s10 += x1 * w0
				w0 = int32(q[13])
				s01 += x0 * w0
				s11 += x1 * w0
				x0, x1 = int32(pa[7]), int32(pb[7])
				w0 = int32(q[14])
				s00 += x0 * w0
				s10 += x1 * w0
				w0 = int32(q[15])
				s01 += x0 * w0
				s11 += x1 * w0
				if h--; h == 0 {
					break
				}
				a, b, w = unsafe.Add(a, 8), unsafe.Add(b, 8), unsafe.Add(w, 16)
			}
			if x--; x == 0 {
				break
			}
			a, w = unsafe.Add(a, g.gx), unsafe.Add(w, 16)
		}
		if y--; y == 0 {
			break
		}
		a, w = unsafe.Add(a, g.gy), unsafe.Add(w, g.wy)
	}
	s[0], s[1], s[2], s[3] = s00, s01, s10, s11
}

// convDilTap2 is convDilDot2 for taps of one step (g.n = 1, g.k = 16):
// one loop fewer.
//
//go:noinline
func convDilTap2(a, w unsafe.Pointer, g *convDilWalk, s *[4]int32) {
	s00, s01, s10, s11 := s[0], s[1], s[2], s[3]
	for y := g.ny; ; {
		for x := g.nx; ; {
			pa, pb, q := (*[16]int8)(a), (*[16]int8)(unsafe.Add(a, g.d)), (*[32]int8)(w)
			var x0, x1, w0 int32
			x0, x1 = int32(pa[0]), int32(pb[0])
			w0 = int32(q[0])
			s00 += x0 * w0
			s10 += x1 * w0
			w0 = int32(q[1])
			s01 += x0 * w0
			s11 += x1 * w0
			x0, x1 = int32(pa[1]), int32(pb[1])
			w0 = int32(q[2])
			s00 += x0 * w0
			s10 += x1 * w0
			w0 = int32(q[3])
			s01 += x0 * w0
			s11 += x1 * w0
			x0, x1 = int32(pa[2]), int32(pb[2])
			w0 = int32(q[4])
			s00 += x0 * w0
			s10 += x1 * w0
			w0 = int32(q[5])
			s01 += x0 * w0
			s11 += x1 * w0
			x0, x1 = int32(pa[3]), int32(pb[3])
			w0 = int32(q[6])
			s00 += x0 * w0
			s10 += x1 * w0
			w0 = int32(q[7])
			s01 += x0 * w0
			s11 += x1 * w0
			x0, x1 = int32(pa[4]), int32(pb[4])
			w0 = int32(q[8])
			s00 += x0 * w0
			s10 += x1 * w0
			w0 = int32(q[9])
			s01 += x0 * w0
			s11 += x1 * w0
			x0, x1 = int32(pa[5]), int32(pb[5])
			w0 = int32(q[10])
			s00 += x0 * w0
			s10 += x1 * w0
			w0 = int32(q[11])
			s01 += x0 * w0
			s11 += x1 * w0
			x0, x1 = int32(pa[6]), int32(pb[6])
			w0 = int32(q[12])
			s00 += x0 * w0
			s10 += x1 * w0
			w0 = int32(q[13])
			s01 += x0 * w0
			s11 += x1 * w0
			x0, x1 = int32(pa[7]), int32(pb[7])
			w0 = int32(q[14])
			s00 += x0 * w0
			s10 += x1 * w0
			w0 = int32(q[15])
			s01 += x0 * w0
			s11 += x1 * w0
			x0, x1 = int32(pa[8]), int32(pb[8])
			w0 = int32(q[16])
			s00 += x0 * w0
			s10 += x1 * w0
			w0 = int32(q[17])
			s01 += x0 * w0
			s11 += x1 * w0
			x0, x1 = int32(pa[9]), int32(pb[9])
			w0 = int32(q[18])
			s00 += x0 * w0
			s10 += x1 * w0
			w0 = int32(q[19])
			s01 += x0 * w0
			s11 += x1 * w0
			x0, x1 = int32(pa[10]), int32(pb[10])
			w0 = int32(q[20])
			s00 += x0 * w0
			s10 += x1 * w0
			w0 = int32(q[21])
			s01 += x0 * w0
			s11 += x1 * w0
			x0, x1 = int32(pa[11]), int32(pb[11])
			w0 = int32(q[22])
			s00 += x0 * w0
			s10 += x1 * w0
			w0 = int32(q[23])
			s01 += x0 * w0
			s11 += x1 * w0
			x0, x1 = int32(pa[12]), int32(pb[12])
			w0 = int32(q[24])
			s00 += x0 * w0
			s10 += x1 * w0
			w0 = int32(q[25])
			s01 += x0 * w0
			s11 += x1 * w0
			x0, x1 = int32(pa[13]), int32(pb[13])
			w0 = int32(q[26])
			s00 += x0 * w0
			s10 += x1 * w0
			w0 = int32(q[27])
			s01 += x0 * w0
			s11 += x1 * w0
			x0, x1 = int32(pa[14]), int32(pb[14])
			w0 = int32(q[28])
			s00 += x0 * w0
			s10 += x1 * w0
			w0 = int32(q[29])
			s01 += x0 * w0
			s11 += x1 * w0
			x0, x1 = int32(pa[15]), int32(pb[15])
			w0 = int32(q[30])
			s00 += x0 * w0
			s10 += x1 * w0
			w0 = int32(q[31])
			s01 += x0 * w0
			s11 += x1 * w0
			if x--; x == 0 {
				break
			}
			a, w = unsafe.Add(a, g.gx), unsafe.Add(w, 32)
		}
		if y--; y == 0 {
			break
		}
		a, w = unsafe.Add(a, g.gy), unsafe.Add(w, g.wy)
	}
	s[0], s[1], s[2], s[3] = s00, s01, s10, s11
}

// convDilTap2x8 is convDilDot2x8 for taps of one step (g.n = 1, g.k = 8).
//
//go:noinline
func convDilTap2x8(a, w unsafe.Pointer, g *convDilWalk, s *[4]int32) {
	s00, s01, s10, s11 := s[0], s[1], s[2], s[3]
	for y := g.ny; ; {
		for x := g.nx; ; {
			pa, pb, q := (*[8]int8)(a), (*[8]int8)(unsafe.Add(a, g.d)), (*[16]int8)(w)
			var x0, x1, w0 int32
			x0, x1 = int32(pa[0]), int32(pb[0])
			w0 = int32(q[0])
			s00 += x0 * w0
			s10 += x1 * w0
			w0 = int32(q[1])
			s01 += x0 * w0
			s11 += x1 * w0
			x0, x1 = int32(pa[1]), int32(pb[1])
			w0 = int32(q[2])
			s00 += x0 * w0
			s10 += x1 * w0
			w0 = int32(q[3])
			s01 += x0 * w0
			s11 += x1 * w0
			x0, x1 = int32(pa[2]), int32(pb[2])
			w0 = int32(q[4])
			s00 += x0 * w0
			s10 += x1 * w0
			w0 = int32(q[5])
			s01 += x0 * w0
			s11 += x1 * w0
			x0, x1 = int32(pa[3]), int32(pb[3])
			w0 = int32(q[6])
			s00 += x0 * w0
			s10 += x1 * w0
			w0 = int32(q[7])
			s01 += x0 * w0
			s11 += x1 * w0
			x0, x1 = int32(pa[4]), int32(pb[4])
			w0 = int32(q[8])
			s00 += x0 * w0
			s10 += x1 * w0
			w0 = int32(q[9])
			s01 += x0 * w0
			s11 += x1 * w0
			x0, x1 = int32(pa[5]), int32(pb[5])
			w0 = int32(q[10])
			s00 += x0 * w0
			s10 += x1 * w0
			w0 = int32(q[11])
			s01 += x0 * w0
			s11 += x1 * w0
			x0, x1 = int32(pa[6]), int32(pb[6])
			w0 = int32(q[12])
			s00 += x0 * w0
			s10 += x1 * w0
			w0 = int32(q[13])
			s01 += x0 * w0
			s11 += x1 * w0
			x0, x1 = int32(pa[7]), int32(pb[7])
			w0 = int32(q[14])
			s00 += x0 * w0
			s10 += x1 * w0
			w0 = int32(q[15])
			s01 += x0 * w0
			s11 += x1 * w0
			if x--; x == 0 {
				break
			}
			a, w = unsafe.Add(a, g.gx), unsafe.Add(w, 16)
		}
		if y--; y == 0 {
			break
		}
		a, w = unsafe.Add(a, g.gy), unsafe.Add(w, g.wy)
	}
	s[0], s[1], s[2], s[3] = s00, s01, s10, s11
}

// convDilDot1 is convDilDot2 for one pixel: it adds to s the products of
// the taps g walks from a with the weight pairs from w.
//
//go:noinline
func convDilDot1(a, w unsafe.Pointer, g *convDilWalk, s *[2]int32) {
	s0, s1 := s[0], s[1]
	// Eight values a step: the steps from a tap's last eight values.
	gx, gy, wy := g.gx+8-g.k, g.gy+8-g.k, g.wy+16-2*g.k
	h8 := g.n * g.k / 8 // steps a tap
	for y := g.ny; ; {
		for x := g.nx; ; {
			for h := h8; ; {
				pa, q := (*[8]int8)(a), (*[16]int8)(w)
				// Written out: gc does not unroll.
				x0 := int32(pa[0])
				s0 += x0 * int32(q[0])
				s1 += x0 * int32(q[1])
				x0 = int32(pa[1])
				s0 += x0 * int32(q[2])
				s1 += x0 * int32(q[3])
				x0 = int32(pa[2])
				s0 += x0 * int32(q[4])
				s1 += x0 * int32(q[5])
				x0 = int32(pa[3])
				s0 += x0 * int32(q[6])
				s1 += x0 * int32(q[7])
				x0 = int32(pa[4])
				s0 += x0 * int32(q[8])
				s1 += x0 * int32(q[9])
				x0 = int32(pa[5])
				s0 += x0 * int32(q[10])
				s1 += x0 * int32(q[11])
				x0 = int32(pa[6])
				s0 += x0 * int32(q[12])
				s1 += x0 * int32(q[13])
				x0 = int32(pa[7])
				s0 += x0 * int32(q[14])
				s1 += x0 * int32(q[15])
				if h--; h == 0 {
					break
				}
				a, w = unsafe.Add(a, 8), unsafe.Add(w, 16)
			}
			if x--; x == 0 {
				break
			}
			a, w = unsafe.Add(a, gx), unsafe.Add(w, 16)
		}
		if y--; y == 0 {
			break
		}
		a, w = unsafe.Add(a, gy), unsafe.Add(w, wy)
	}
	s[0], s[1] = s0, s1
}

// convDilRasterMax bounds the output channels of convDilInt8Raster (its
// stack buffers: a pixel's outputs, the channel pairs' zero-point sums).
const convDilRasterMax = 64

// convDilInt8Raster is convDilInt8 in raster order, for writing the output
// over the input: pixel by pixel, every channel pair's sum over the
// window's taps inside the image (convDilTapsRun, a window row's taps a
// call: (x - zp)*w) plus zp times all the pair's weights, requantized into
// a stack buffer copied to out once the pixel's window is read. The same
// arguments; at most convDilRasterMax output channels. On 32-bit cores,
// layers whose channels and windows convDilTri takes go three pixels at a
// time.
func convDilInt8Raster(p *convDilParams, in []int8, wt, rq string, out []int8) {
	C, N := p.inC, p.outC
	K := p.filterH * p.filterW * C
	pairs := (N + 1) / 2
	w2 := unsafe.Slice((*[2]int8)(unsafe.Pointer(unsafe.StringData(wt))), len(wt)/2)
	w2 = w2[:pairs*K]
	in = in[:p.batches*p.inH*p.inW*C]
	out = out[:p.batches*p.outH*p.outW*N]
	// The channels' convPWQ records, decoded once, where exact.
	var chs [convDilRasterMax]convPWCh
	exact := convPWChDecode(rq, K, p.outOffset, p.actMin, chs[:N])
	if !convPW64 && exact && N%2 == 0 && K <= convRowsTriK && len(in) > 0 {
		convDilTri(p, in, w2, &chs, out)
		return
	}
	var zw [convDilRasterMax / 2][2]int32
	for pr := range pairs {
		s0, s1 := convRowsSums(unsafe.Pointer(&w2[pr*K]), K)
		zw[pr] = [2]int32{s0 * p.inZP, s1 * p.inZP}
	}
	var buf [convDilRasterMax]int8
	px := buf[:N]
	// A window inside the image: one convDilDot1 a channel pair over all
	// its taps, without zp (its share is the folded bias's: the sum is
	// the same).
	rs := p.inW * C
	var g convDilWalk
	g.k = 8
	if C%16 == 0 {
		g.k = 16
	}
	g.n = C / g.k
	g.gx = p.dilationW*C - C + g.k
	g.ny = p.filterH
	convDilSet(&g, rs, p.dilationH, p.dilationW, C, p.filterW, 0, p.filterW)
	last := (p.filterH-1)*p.dilationH*rs + (p.filterW-1)*p.dilationW*C + C - 1
	wa := convDilWin2Args{c8: C / 8, xs: p.dilationW * C, nx: p.filterW, xo: p.dilationH * rs, ny: p.filterH, d2: 2 * K}
	wz := wa // for windows reaching into the padding
	wz.zp = p.inZP
	o := 0
	for b := 0; b < p.batches; b++ {
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			fy0, fy1 := dwTaps(iy0, p.dilationH, p.filterH, p.inH)
			for ox := 0; ox < p.outW; ox++ {
				ix0 := ox*p.strideW - p.padW
				fx0, fx1 := dwTaps(ix0, p.dilationW, p.filterW, p.inW)
				full := fy0 == 0 && fy1 == p.filterH && fx0 == 0 && fx1 == p.filterW
				base := 0
				if full {
					base = ((b*p.inH+iy0)*p.inW + ix0) * C
					_ = in[base+last]
				}
				// A window reaching into the padding, with taps inside the
				// image: convDilWin2Z walks those from cbase (the weights
				// from woff on).
				cut := !full && fx1 > fx0 && fy1 > fy0
				cbase, woff := 0, 0
				if cut {
					wz.nx, wz.ny = fx1-fx0, fy1-fy0
					wz.wy = 2 * (p.filterW - wz.nx) * C
					cbase = ((b*p.inH+iy0+fy0*p.dilationH)*p.inW + ix0 + fx0*p.dilationW) * C
					_ = in[cbase+(wz.ny-1)*wz.xo+(wz.nx-1)*wz.xs+C-1]
					woff = (fy0*p.filterW + fx0) * C
				}
				for pr := 0; pr < pairs; {
					if (full || cut) && pr+1 < pairs {
						// Two channel pairs, each value loaded once.
						var s4 [4]int32
						if full && C%16 == 0 {
							convDilWin2x16(unsafe.Pointer(&in[base]), unsafe.Pointer(&w2[pr*K]), &wa, &s4)
						} else if full {
							convDilWin2(unsafe.Pointer(&in[base]), unsafe.Pointer(&w2[pr*K]), &wa, &s4)
						} else {
							s4 = [4]int32{zw[pr][0], zw[pr][1], zw[pr+1][0], zw[pr+1][1]}
							convDilWin2Z(unsafe.Pointer(&in[cbase]), unsafe.Pointer(&w2[pr*K+woff]), &wz, &s4)
						}
						if exact && 2*pr+4 <= N {
							// Four channels: convPWQ inline.
							c, o := (*[4]convPWCh)(chs[2*pr:2*pr+4]), (*[4]int8)(px[2*pr:2*pr+4])
							hi, span := p.actMax, p.actMax-p.actMin
							o[0] = int8(hi - convPWQ(s4[0]+c[0].bias, &c[0], span))
							o[1] = int8(hi - convPWQ(s4[1]+c[1].bias, &c[1], span))
							o[2] = int8(hi - convPWQ(s4[2]+c[2].bias, &c[2], span))
							o[3] = int8(hi - convPWQ(s4[3]+c[3].bias, &c[3], span))
						} else {
							convDilRasterOut(p, rq, &chs, exact, pr, [2]int32{s4[0], s4[1]}, px)
							convDilRasterOut(p, rq, &chs, exact, pr+1, [2]int32{s4[2], s4[3]}, px)
						}
						pr += 2
						continue
					}
					s := zw[pr]
					w := w2[pr*K : pr*K+K]
					if full {
						s = [2]int32{}
						convDilDot1(unsafe.Pointer(&in[base]), unsafe.Pointer(&w[0]), &g, &s)
					} else if fx1 > fx0 {
						for fy := fy0; fy < fy1; fy++ {
							// The row's taps inside the image, once:
							// convDilTapsRun reads through unsafe.Add.
							row := ((b*p.inH+iy0+fy*p.dilationH)*p.inW + ix0) * C
							x := in[row+fx0*p.dilationW*C : row+(fx1-1)*p.dilationW*C+C]
							wt := w[(fy*p.filterW+fx0)*C : (fy*p.filterW+fx1)*C]
							convDilTapsRun(unsafe.Pointer(&x[0]), unsafe.Pointer(&wt[0]), fx1-fx0, p.dilationW*C, 2*C, C/8, p.inZP, &s)
						}
					}
					convDilRasterOut(p, rq, &chs, exact, pr, s, px)
					pr++
				}
				copy(out[o:o+N], px)
				o += N
			}
		}
	}
}

// convDilRasterOut requantizes channel pair pr's sums s into px (the
// channels below outC): by convPWQ and chs where exact, else by the
// triples of rq.
func convDilRasterOut(p *convDilParams, rq string, chs *[convDilRasterMax]convPWCh, exact bool, pr int, s [2]int32, px []int8) {
	for j := range min(2, p.outC-2*pr) {
		if exact {
			c := &chs[2*pr+j]
			px[2*pr+j] = int8(p.actMax - convPWQ(s[j]+c.bias, c, p.actMax-p.actMin))
			continue
		}
		var q convPWRQ
		convPWRQLoad(rq, 2*pr+j, &q)
		px[2*pr+j] = int8(max(min(convPWRescale(s[j], &q)+p.outOffset, p.actMax), p.actMin))
	}
}

// convDilWin2Args is the walk of convDilWin2 and convDilWin2Z over a
// window's taps inside the image: ny rows of nx taps of 8*c8 values (all
// > 0), a tap's values xs bytes after the previous tap's, a row's first
// tap xo bytes after the previous row's; the second channel pair's
// weights d2 bytes after the first's. For convDilWin2Z, a row's weights
// start wy bytes after the previous row's last tap's end (the taps left
// out), and zp is the input zero point; convDilWin2 walks whole windows
// (wy = 0).
type convDilWin2Args struct {
	c8, xs, nx, xo, ny, wy, d2 int
	zp                         int32
}

// convDilWin2 adds to s the sums of one pixel's window (at a, walked as g
// says) with two channel pairs' interleaved weights (the first at w, in
// filter order, the second g.d2 bytes further on): s[0], s[1] the first
// pair's channels, s[2], s[3] the second's. Each value loaded once for
// four products; the loop state beside the innermost loop's is read from
// g. Not inlined, as convRowsRun.
//
//go:noinline
func convDilWin2(a, w unsafe.Pointer, g *convDilWin2Args, s *[4]int32) {
	s0, s1, s2, s3 := s[0], s[1], s[2], s[3]
	var x, v int32
	u := unsafe.Add(w, g.d2)
	for y := g.ny; ; {
		xa := a
		for t := g.nx; ; {
			xk := xa
			for h := g.c8; ; {
				x = int32(*(*int8)(unsafe.Add(xk, 0)))
				v = int32(*(*int8)(unsafe.Add(w, 0)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 1)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 0)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 1)))
				s3 += x * v
				x = int32(*(*int8)(unsafe.Add(xk, 1)))
				v = int32(*(*int8)(unsafe.Add(w, 2)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 3)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 2)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 3)))
				s3 += x * v
				x = int32(*(*int8)(unsafe.Add(xk, 2)))
				v = int32(*(*int8)(unsafe.Add(w, 4)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 5)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 4)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 5)))
				s3 += x * v
				x = int32(*(*int8)(unsafe.Add(xk, 3)))
				v = int32(*(*int8)(unsafe.Add(w, 6)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 7)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 6)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 7)))
				s3 += x * v
				x = int32(*(*int8)(unsafe.Add(xk, 4)))
				v = int32(*(*int8)(unsafe.Add(w, 8)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 9)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 8)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 9)))
				s3 += x * v
				x = int32(*(*int8)(unsafe.Add(xk, 5)))
				v = int32(*(*int8)(unsafe.Add(w, 10)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 11)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 10)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 11)))
				s3 += x * v
				x = int32(*(*int8)(unsafe.Add(xk, 6)))
				v = int32(*(*int8)(unsafe.Add(w, 12)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 13)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 12)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 13)))
				s3 += x * v
				x = int32(*(*int8)(unsafe.Add(xk, 7)))
				v = int32(*(*int8)(unsafe.Add(w, 14)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 15)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 14)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 15)))
				s3 += x * v
				// The pointers step only when more values follow: they
				// never point past the window or the weights.
				if h--; h == 0 {
					break
				}
				xk, w, u = unsafe.Add(xk, 8), unsafe.Add(w, 16), unsafe.Add(u, 16)
			}
			if t--; t == 0 {
				break
			}
			xa, w, u = unsafe.Add(xa, g.xs), unsafe.Add(w, 16), unsafe.Add(u, 16)
		}
		if y--; y == 0 {
			break
		}
		a, w, u = unsafe.Add(a, g.xo), unsafe.Add(w, 16), unsafe.Add(u, 16)
	}
	s[0], s[1], s[2], s[3] = s0, s1, s2, s3
}

// convDilWin2x16 is convDilWin2 for taps of a multiple of sixteen values
// (g.c8 even): sixteen values a step.
//
//go:noinline
func convDilWin2x16(a, w unsafe.Pointer, g *convDilWin2Args, s *[4]int32) {
	s0, s1, s2, s3 := s[0], s[1], s[2], s[3]
	var x, v int32
	u := unsafe.Add(w, g.d2)
	for y := g.ny; ; {
		xa := a
		for t := g.nx; ; {
			xk := xa
			for h := g.c8 / 2; ; {
				x = int32(*(*int8)(unsafe.Add(xk, 0)))
				v = int32(*(*int8)(unsafe.Add(w, 0)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 1)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 0)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 1)))
				s3 += x * v
				x = int32(*(*int8)(unsafe.Add(xk, 1)))
				v = int32(*(*int8)(unsafe.Add(w, 2)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 3)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 2)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 3)))
				s3 += x * v
				x = int32(*(*int8)(unsafe.Add(xk, 2)))
				v = int32(*(*int8)(unsafe.Add(w, 4)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 5)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 4)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 5)))
				s3 += x * v
				x = int32(*(*int8)(unsafe.Add(xk, 3)))
				v = int32(*(*int8)(unsafe.Add(w, 6)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 7)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 6)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 7)))
				s3 += x * v
				x = int32(*(*int8)(unsafe.Add(xk, 4)))
				v = int32(*(*int8)(unsafe.Add(w, 8)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 9)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 8)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 9)))
				s3 += x * v
				x = int32(*(*int8)(unsafe.Add(xk, 5)))
				v = int32(*(*int8)(unsafe.Add(w, 10)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 11)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 10)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 11)))
				s3 += x * v
				x = int32(*(*int8)(unsafe.Add(xk, 6)))
				v = int32(*(*int8)(unsafe.Add(w, 12)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 13)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 12)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 13)))
				s3 += x * v
				x = int32(*(*int8)(unsafe.Add(xk, 7)))
				v = int32(*(*int8)(unsafe.Add(w, 14)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 15)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 14)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 15)))
				s3 += x * v
				x = int32(*(*int8)(unsafe.Add(xk, 8)))
				v = int32(*(*int8)(unsafe.Add(w, 16)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 17)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 16)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 17)))
				s3 += x * v
				x = int32(*(*int8)(unsafe.Add(xk, 9)))
				v = int32(*(*int8)(unsafe.Add(w, 18)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 19)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 18)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 19)))
				s3 += x * v
				x = int32(*(*int8)(unsafe.Add(xk, 10)))
				v = int32(*(*int8)(unsafe.Add(w, 20)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 21)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 20)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 21)))
				s3 += x * v
				x = int32(*(*int8)(unsafe.Add(xk, 11)))
				v = int32(*(*int8)(unsafe.Add(w, 22)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 23)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 22)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 23)))
				s3 += x * v
				x = int32(*(*int8)(unsafe.Add(xk, 12)))
				v = int32(*(*int8)(unsafe.Add(w, 24)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 25)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 24)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 25)))
				s3 += x * v
				x = int32(*(*int8)(unsafe.Add(xk, 13)))
				v = int32(*(*int8)(unsafe.Add(w, 26)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 27)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 26)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 27)))
				s3 += x * v
				x = int32(*(*int8)(unsafe.Add(xk, 14)))
				v = int32(*(*int8)(unsafe.Add(w, 28)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 29)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 28)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 29)))
				s3 += x * v
				x = int32(*(*int8)(unsafe.Add(xk, 15)))
				v = int32(*(*int8)(unsafe.Add(w, 30)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 31)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 30)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 31)))
				s3 += x * v
				// The pointers step only when more values follow: they
				// never point past the window or the weights.
				if h--; h == 0 {
					break
				}
				xk, w, u = unsafe.Add(xk, 16), unsafe.Add(w, 32), unsafe.Add(u, 32)
			}
			if t--; t == 0 {
				break
			}
			xa, w, u = unsafe.Add(xa, g.xs), unsafe.Add(w, 32), unsafe.Add(u, 32)
		}
		if y--; y == 0 {
			break
		}
		a, w, u = unsafe.Add(a, g.xo), unsafe.Add(w, 32), unsafe.Add(u, 32)
	}
	s[0], s[1], s[2], s[3] = s0, s1, s2, s3
}

// convDilWin2Z is convDilWin2 for a window reaching into the padding: it
// adds the products (x - zp)*w of the taps g walks (those inside the
// image); the zero point's share of the others is the caller's (the sums
// start at zp times all the weights).
//
//go:noinline
func convDilWin2Z(a, w unsafe.Pointer, g *convDilWin2Args, s *[4]int32) {
	s0, s1, s2, s3 := s[0], s[1], s[2], s[3]
	var x, v int32
	zp := g.zp
	u := unsafe.Add(w, g.d2)
	for y := g.ny; ; {
		xa := a
		for t := g.nx; ; {
			xk := xa
			for h := g.c8; ; {
				x = int32(*(*int8)(unsafe.Add(xk, 0))) - zp
				v = int32(*(*int8)(unsafe.Add(w, 0)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 1)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 0)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 1)))
				s3 += x * v
				x = int32(*(*int8)(unsafe.Add(xk, 1))) - zp
				v = int32(*(*int8)(unsafe.Add(w, 2)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 3)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 2)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 3)))
				s3 += x * v
				x = int32(*(*int8)(unsafe.Add(xk, 2))) - zp
				v = int32(*(*int8)(unsafe.Add(w, 4)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 5)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 4)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 5)))
				s3 += x * v
				x = int32(*(*int8)(unsafe.Add(xk, 3))) - zp
				v = int32(*(*int8)(unsafe.Add(w, 6)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 7)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 6)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 7)))
				s3 += x * v
				x = int32(*(*int8)(unsafe.Add(xk, 4))) - zp
				v = int32(*(*int8)(unsafe.Add(w, 8)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 9)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 8)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 9)))
				s3 += x * v
				x = int32(*(*int8)(unsafe.Add(xk, 5))) - zp
				v = int32(*(*int8)(unsafe.Add(w, 10)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 11)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 10)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 11)))
				s3 += x * v
				x = int32(*(*int8)(unsafe.Add(xk, 6))) - zp
				v = int32(*(*int8)(unsafe.Add(w, 12)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 13)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 12)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 13)))
				s3 += x * v
				x = int32(*(*int8)(unsafe.Add(xk, 7))) - zp
				v = int32(*(*int8)(unsafe.Add(w, 14)))
				s0 += x * v
				v = int32(*(*int8)(unsafe.Add(w, 15)))
				s1 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 14)))
				s2 += x * v
				v = int32(*(*int8)(unsafe.Add(u, 15)))
				s3 += x * v
				// The pointers step only when more values follow: they
				// never point past the window or the weights.
				if h--; h == 0 {
					break
				}
				xk, w, u = unsafe.Add(xk, 8), unsafe.Add(w, 16), unsafe.Add(u, 16)
			}
			if t--; t == 0 {
				break
			}
			xa, w, u = unsafe.Add(xa, g.xs), unsafe.Add(w, 16), unsafe.Add(u, 16)
		}
		if y--; y == 0 {
			break
		}
		a, w, u = unsafe.Add(a, g.xo), unsafe.Add(w, 16+g.wy), unsafe.Add(u, 16+g.wy)
	}
	s[0], s[1], s[2], s[3] = s0, s1, s2, s3
}

// convDilTapsRun adds to s the products (x - zp)*w of nt (> 0) taps of 8*c8
// (c8 > 0) values each with a channel pair's interleaved weights: the
// taps' values xs bytes apart from x, their weights ws bytes apart from w.
//
//go:noinline
func convDilTapsRun(x, w unsafe.Pointer, nt, xs, ws, c8 int, zp int32, s *[2]int32) {
	s0, s1 := s[0], s[1]
	for {
		xa, wa := x, w
		for k := c8; ; {
			p, q := (*[8]int8)(xa), (*[16]int8)(wa)
			v := int32(p[0]) - zp
			s0 += v * int32(q[0])
			s1 += v * int32(q[1])
			v = int32(p[1]) - zp
			s0 += v * int32(q[2])
			s1 += v * int32(q[3])
			v = int32(p[2]) - zp
			s0 += v * int32(q[4])
			s1 += v * int32(q[5])
			v = int32(p[3]) - zp
			s0 += v * int32(q[6])
			s1 += v * int32(q[7])
			v = int32(p[4]) - zp
			s0 += v * int32(q[8])
			s1 += v * int32(q[9])
			v = int32(p[5]) - zp
			s0 += v * int32(q[10])
			s1 += v * int32(q[11])
			v = int32(p[6]) - zp
			s0 += v * int32(q[12])
			s1 += v * int32(q[13])
			v = int32(p[7]) - zp
			s0 += v * int32(q[14])
			s1 += v * int32(q[15])
			if k--; k == 0 {
				break
			}
			xa, wa = unsafe.Add(xa, 8), unsafe.Add(wa, 16)
		}
		if nt--; nt == 0 {
			break
		}
		x, w = unsafe.Add(x, xs), unsafe.Add(w, ws)
	}
	s[0], s[1] = s0, s1
}
