package kernels

import "unsafe"

// Int8 CONV_2D without dilation (and DEPTHWISE_CONV_2D of one input
// channel, a convolution whose weight rows are the filter's columns)
// without scratch memory, for 32-bit cores: two horizontally adjacent
// output pixels by two output channels at a time, each product one int32
// multiply-add (MLA on ARM). A window row of a pixel is fW*inC contiguous
// input values, so while both windows are inside the image the kernel
// reads them straight from the input, the second pixel's strideW*inC
// values further on. Other pixels (borders) go through convRowsEdge,
// which reads the input zero point for taps in the padding; the folded
// bias (conv_rq.go, bias - zp*sum of the channel's weights) cancels those,
// so every sum is TFLM's int32 accumulator, wrapping alike.

// convRowsParams describes a convolution without dilation.
type convRowsParams struct {
	batches          int
	inH, inW, inC    int
	filterH, filterW int
	outH, outW, outC int
	strideH, strideW int
	padH, padW       int   // padding before the first row / column
	inZP             int32 // input zero point, read for padded taps
	outOffset        int32 // output zero point
	actMin, actMax   int32 // quantized activation bounds
}

// convRowsInt8 runs the convolution. wt holds, for each pair of output
// channels (outC rounded up to even, the missing channel's weights zero),
// for each index k of the filter order (taps row by row, then input
// channels), the two channels' weights; rq holds the requantization
// triples (conv_rq.go).
func convRowsInt8(p *convRowsParams, in []int8, wt, rq string, out []int8) {
	K := p.filterH * p.filterW * p.inC
	convRowsPairs(p, in, wt, rq, out, 0, p.outC, false, K)
}

// convRowsPairs is convRowsInt8 for output channels lo..hi-1 (lo even),
// whose weights wt hold ks pairs for each channel pair (its K first, then
// zeros); with tri, but for the pixels convRowsTri computed
// (convRowsPair).
func convRowsPairs(p *convRowsParams, in []int8, wt, rq string, out []int8, lo, hi int, tri bool, ks int) {
	K := p.filterH * p.filterW * p.inC
	N := p.outC
	w2 := unsafe.Slice((*[2]int8)(unsafe.Pointer(unsafe.StringData(wt))), len(wt)/2)
	w2 = w2[:(N+1)/2*ks]
	img := p.inH * p.inW * p.inC
	in = in[:p.batches*img]
	out = out[:p.batches*p.outH*p.outW*N]
	var q [2]convPWRQ
	var ch [2]convPWCh
	for ob := lo; ob < hi; ob += 2 {
		convPWRQLoad(rq, ob, &q[0])
		two := ob+1 < N
		nch := 1
		if two {
			convPWRQLoad(rq, ob+1, &q[1])
			nch = 2
		}
		exact := convPWChDecode(rq[12*ob:12*(ob+nch)], K, p.outOffset, p.actMin, ch[:nch])
		convRowsPair(p, in, w2[ob/2*ks:ob/2*ks+K], &q, &ch, exact, two, tri, out[ob:])
	}
}

// convRowsMaxRows bounds the filter rows for which convRowsPair keeps the
// zero point's share of each row in a local array.
const convRowsMaxRows = 16

// convRowsPair computes output channels ob and ob+1 (when two; w their
// interleaved weights, q their requantizations, ch the same as convPWQ's
// records where exact) of every pixel; out starts at channel ob of the
// first pixel. With tri it skips the pixels convRowsTri computed: in each
// row whose windows lie inside the image in height, those whose windows
// lie inside in width (but for a row's only such pixel, which it computes
// again).
//
//go:noinline
func convRowsPair(p *convRowsParams, in []int8, w [][2]int8, q *[2]convPWRQ, ch *[2]convPWCh, exact, two, tri bool, out []int8) {
	C, N := p.inC, p.outC
	L := p.filterW * C
	rs := p.inW * C
	img := p.inH * rs
	zo, lo, hi := p.outOffset, p.actMin, p.actMax
	q0, q1 := &q[0], &q[1]
	// cum[fy] is zp times the sums of the weights of filter rows below fy,
	// for windows cut at the top or bottom only (at most convRowsMaxRows);
	// zw0, zw1 zp times the sums of all the channels' weights, for
	// convRowsEdge.
	var cum [convRowsMaxRows + 1][2]int32
	fH := p.filterH
	cut := fH <= convRowsMaxRows
	// col[fx] is zp times the sums of the weights of filter columns left
	// of fx, for edge pixels in vertical pairs (windows cut at the left
	// or right only; at most convRowsMaxRows columns).
	var col [convRowsMaxRows + 1][2]int32
	pairs := p.filterW <= convRowsMaxRows
	// The sums are needed only where windows reach into the padding: in
	// height (rows), in width (cols).
	rows := p.padH > 0 || (p.outH-1)*p.strideH-p.padH+fH > p.inH
	cols := p.padW > 0 || (p.outW-1)*p.strideW-p.padW+p.filterW > p.inW
	var zw0, zw1 int32
	if (rows || cols) && len(w) > 0 {
		pw := unsafe.Pointer(&w[0])
		switch {
		case cut && pairs && cols:
			// One pass over the filter's taps gives both.
			var colSum [convRowsMaxRows][2]int32
			for fy := 0; fy < fH; fy++ {
				var r0, r1 int32
				for fx := 0; fx < p.filterW; fx++ {
					t0, t1 := convRowsSums(unsafe.Add(pw, 2*(fy*L+fx*C)), C)
					r0, r1 = r0+t0, r1+t1
					colSum[fx][0], colSum[fx][1] = colSum[fx][0]+t0, colSum[fx][1]+t1
				}
				cum[fy+1] = [2]int32{cum[fy][0] + r0*p.inZP, cum[fy][1] + r1*p.inZP}
			}
			for fx := 0; fx < p.filterW; fx++ {
				col[fx+1] = [2]int32{col[fx][0] + colSum[fx][0]*p.inZP, col[fx][1] + colSum[fx][1]*p.inZP}
			}
			zw0, zw1 = cum[fH][0], cum[fH][1]
		case cut:
			for fy := 0; fy < fH; fy++ {
				r0, r1 := convRowsSums(unsafe.Add(pw, 2*fy*L), L)
				cum[fy+1] = [2]int32{cum[fy][0] + r0*p.inZP, cum[fy][1] + r1*p.inZP}
			}
			zw0, zw1 = cum[fH][0], cum[fH][1]
			pairs = false
		default:
			zw0, zw1 = convRowsSums(pw, len(w))
			zw0, zw1 = zw0*p.inZP, zw1*p.inZP
			pairs = false
		}
	}
	f := convRowsFin{q0: q0, q1: q1, zo: zo, lo: lo, hi: hi, two: two, exact: exact, ch: ch, span: hi - lo}
	for b := 0; b < p.batches; b++ {
		x := in[b*img : b*img+img]
		// Pixels whose windows reach past the image's left or right
		// edge (edge pixels) go in vertical pairs where both windows lie
		// inside the image in height: pairEdges says this row's go with
		// the next row's, edgesDone that they went with the row above.
		// (Which pixels are edge pixels, or without a partner in their
		// row, depends on the column only.)
		edgesDone := false
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			rowsIn := iy0 >= 0 && iy0+p.filterH <= p.inH
			// Window rows fy0..fy1-1 lie inside the image; where cut, zc0
			// and zc1 are zp times the weights of the others.
			fy0, fy1 := 0, fH
			var zc0, zc1 int32
			if !rowsIn && cut {
				fy0, fy1 = max(-iy0, 0), max(min(fH, p.inH-iy0), max(-iy0, 0))
				zc0 = cum[fH][0] - cum[fy1][0] + cum[fy0][0]
				zc1 = cum[fH][1] - cum[fy1][1] + cum[fy0][1]
			}
			nextIn := oy+1 < p.outH && iy0+p.strideH >= 0 && iy0+p.strideH+p.filterH <= p.inH
			pairEdges := pairs && !edgesDone && rowsIn && nextIn
			doneHere := edgesDone
			edgesDone = pairEdges
			o := out[(b*p.outH+oy)*p.outW*N:]
			for ox := 0; ox < p.outW; {
				ix0 := ox*p.strideW - p.padW
				if ix0 < 0 || ix0*C+L > rs {
					// An edge pixel.
					switch {
					case doneHere:
					case pairEdges:
						// The taps in the padding read the zero point:
						// zp times their weights, all but columns lo..hi-1.
						lo, hi := convRowsCols(ix0, p.filterW, p.inW)
						s00, s01, s10, s11 := convRowsEdge2(p, x, iy0, ix0, lo, hi, w)
						z0 := zw0 - (col[hi][0] - col[lo][0])
						z1 := zw1 - (col[hi][1] - col[lo][1])
						f.put(o[ox*N:], s00+z0, s01+z1)
						f.put(o[(p.outW+ox)*N:], s10+z0, s11+z1)
					default:
						s00, s01 := convRowsEdge(p, x, iy0, ix0, w)
						f.put(o[ox*N:], s00+zw0, s01+zw1)
					}
					ox++
					continue
				}
				// Pixel ox's window lies inside the image in width; with
				// the next one's too, the two go together. A pixel
				// without a partner goes with the one below it, as edge
				// pixels do, or else on its own (the kernels computing
				// it twice, d = 0).
				second := ox+1 < p.outW && (ix0+p.strideW)*C+L <= rs
				if !second && (doneHere || pairEdges) {
					if pairEdges {
						s00, s01, s10, s11 := convRowsDot(x[iy0*rs+ix0*C:], p.strideH*rs, rs, fH, L, w)
						f.put(o[ox*N:], s00, s01)
						f.put(o[(p.outW+ox)*N:], s10, s11)
					}
					ox++
					continue
				}
				if second && exact && (rowsIn || cut) {
					if tri && rowsIn {
						// convRowsTri's pixels: the rest of the row's
						// interior.
						_, ox1 := convRowsInterior(p.padW, p.strideW, p.inW, p.filterW, p.outW)
						ox = ox1 + 1
						continue
					}
					// Pairs from ox on while both windows lie inside the
					// image in width, in one call: up to pixel jmax.
					if fy1 > fy0 {
						jmax := min((p.inW-p.filterW+p.padW)/p.strideW, p.outW-1)
						m := (jmax - ox + 1) / 2
						step := p.strideW * C
						a := (iy0+fy0)*rs + ix0*C
						_ = x[a+(fy1-fy0-1)*rs+(2*m-1)*step+L-1]
						last := (ox + 2*m - 1) * N // the last pair's second pixel
						if two {
							last++
						}
						_ = o[last]
						convRowsLinePairs(&convRowsLine{
							run: convRowsRunArgs{a: unsafe.Pointer(&x[a]), w: unsafe.Pointer(&w[fy0*L]), d: step, n: L,
								rs: rs, ws: 2 * L},
							step: 2 * step, o: unsafe.Pointer(&o[ox*N]), n: N, m: m, rows: fy1 - fy0,
							z0: zc0, z1: zc1, t: ch, span: hi - lo, hi: hi, two: two,
						})
						ox += 2 * m
						continue
					}
				}
				d := 0 // from the first pixel's window to the second's
				if second {
					d = p.strideW * C
				}
				var s00, s01, s10, s11 int32
				switch {
				case rowsIn:
					s00, s01, s10, s11 = convRowsDot(x[iy0*rs+ix0*C:], d, rs, fH, L, w)
				case cut:
					// Rows fy0..fy1-1 inside the image; the others read
					// the zero point.
					s00, s01, s10, s11 = convRowsDot(x[(iy0+fy0)*rs+ix0*C:], d, rs, fy1-fy0, L, w[fy0*L:])
					s00, s01, s10, s11 = s00+zc0, s01+zc1, s10+zc0, s11+zc1
				default:
					s00, s01 = convRowsEdge(p, x, iy0, ix0, w)
					s00, s01 = s00+zw0, s01+zw1
					if second {
						s10, s11 = convRowsEdge(p, x, iy0, ix0+p.strideW, w)
						s10, s11 = s10+zw0, s11+zw1
					}
				}
				f.put(o[ox*N:], s00, s01)
				if second {
					f.put(o[(ox+1)*N:], s10, s11)
					ox++
				}
				ox++
			}
		}
	}
}

// convRowsLine describes m pixel pairs of an output row for
// convRowsLinePairs: both windows of every pair inside the image in width,
// their rows inside in height.
type convRowsLine struct {
	run    convRowsRunArgs // the first pair's windows (ra, rw, rows set a pair)
	step   int             // bytes from a pair's windows to the next pair's
	o      unsafe.Pointer  // the first pair's first output
	n      int             // bytes from a pixel's outputs to the next one's
	m      int             // pairs
	rows   int             // window rows inside the image
	z0, z1 int32           // the zero point's share of the rows outside
	t      *[2]convPWCh    // the channels' convPWQ records (exact)
	span   int32           // hi - lo
	hi     int32
	two    bool // the pair's second channel exists
}

// convRowsLinePairs computes g's pixel pairs: each pair's sums by one
// convRowsRun over its window rows, requantized by convPWQ and stored, the
// pair's two outputs of each channel n bytes apart.
//
//go:noinline
func convRowsLinePairs(g *convRowsLine) {
	for k := 0; k < g.m; k++ {
		s := [4]int32{g.z0, g.z1, g.z0, g.z1}
		g.run.ra, g.run.rw, g.run.rows = k*g.step, 0, g.rows
		convRowsRun(&g.run, &s)
		o, t := unsafe.Add(g.o, 2*k*g.n), g.t
		*(*int8)(o) = int8(g.hi - convPWQ(s[0]+t[0].bias, &t[0], g.span))
		*(*int8)(unsafe.Add(o, g.n)) = int8(g.hi - convPWQ(s[2]+t[0].bias, &t[0], g.span))
		if g.two {
			*(*int8)(unsafe.Add(o, 1)) = int8(g.hi - convPWQ(s[1]+t[1].bias, &t[1], g.span))
			*(*int8)(unsafe.Add(o, g.n+1)) = int8(g.hi - convPWQ(s[3]+t[1].bias, &t[1], g.span))
		}
	}
}

// convRowsSums returns the sums of the first and of the second weights
// of the n (> 0) interleaved pairs at w, wrapping in int32: four pairs a
// step (written out: gc does not unroll), then one at a time.
//
//go:noinline
func convRowsSums(w unsafe.Pointer, n int) (s0, s1 int32) {
	for ; n >= 4; n -= 4 {
		q := (*[8]int8)(w)
		s0 += int32(q[0]) + int32(q[2]) + int32(q[4]) + int32(q[6])
		s1 += int32(q[1]) + int32(q[3]) + int32(q[5]) + int32(q[7])
		if n == 4 {
			return s0, s1
		}
		w = unsafe.Add(w, 8)
	}
	for {
		q := (*[2]int8)(w)
		s0 += int32(q[0])
		s1 += int32(q[1])
		if n--; n == 0 {
			return s0, s1
		}
		w = unsafe.Add(w, 2)
	}
}

// convRowsFin finishes a pixel's sums of a pair of output channels.
type convRowsFin struct {
	q0, q1     *convPWRQ
	zo, lo, hi int32
	two        bool // the pair's second channel exists
	// exact: convPWQ is exact for both channels (convPWChDecode), ch
	// their records; span is hi - lo.
	exact bool
	ch    *[2]convPWCh
	span  int32
}

// put writes the outputs of one pixel, at r, from its two sums s0 and s1
// (requantized, plus the output zero point, clamped): by convPWQ, one
// multiply with the zero point and the clamp folded in, where it is exact,
// else by convPWRescale. Not inlined: see convRowsRun.
//
//go:noinline
func (f *convRowsFin) put(r []int8, s0, s1 int32) {
	if f.exact {
		t := f.ch
		r[0] = int8(f.hi - convPWQ(s0+t[0].bias, &t[0], f.span))
		if f.two {
			r[1] = int8(f.hi - convPWQ(s1+t[1].bias, &t[1], f.span))
		}
		return
	}
	r[0] = int8(max(min(convPWRescale(s0, f.q0)+f.zo, f.hi), f.lo))
	if f.two {
		r[1] = int8(max(min(convPWRescale(s1, f.q1)+f.zo, f.hi), f.lo))
	}
}

// convRowsDot returns the sums of two pixels' windows inside the image
// with a pair of output channels: x starts at the first pixel's window,
// whose fH rows of L values are rs apart; the second pixel's window is d
// values further on; w holds the pair's interleaved weights. s01 is the
// first pixel with the second channel. One bounds check a call; each
// window row is one convRowsRun.
func convRowsDot(x []int8, d, rs, fH, L int, w [][2]int8) (s00, s01, s10, s11 int32) {
	if fH <= 0 || L <= 0 {
		return
	}
	_ = x[(fH-1)*rs+d+L-1]
	_ = w[fH*L-1]
	var s [4]int32
	convRowsRun(&convRowsRunArgs{unsafe.Pointer(unsafe.SliceData(x)), unsafe.Pointer(unsafe.SliceData(w)), d, L, rs, 2 * L, fH, 0, 0}, &s)
	return s[0], s[1], s[2], s[3]
}

// convRowsRunArgs are convRowsRun's arguments: rows (> 0) runs of n
// (> 0) values at a+ra and d bytes further on, the runs rs bytes apart,
// and rows runs of n interleaved weight pairs at w+rw, ws bytes apart (ra
// and rw: the row loop's offsets, zero at the call).
type convRowsRunArgs struct {
	a, w                       unsafe.Pointer
	d, n, rs, ws, rows, ra, rw int
}

// convRowsRun adds to s (s00, s01, s10, s11 as convRowsDot's) the
// products of g's runs of values with its runs of weight pairs. Not
// inlined: with few values live, gc keeps the sums, the pointers and the
// end in registers (in convRowsDot's loops it reloaded four of them from
// the stack for every value). Each value takes three temporaries (the two
// pixels' values, then each weight in turn): with a fourth, gc spilled
// the step count. The row loop's state lives in g, stored at the end of
// each row so that gc reads it again (kept in registers, it was reloaded
// on every step of the loop of sixteen). The pointers step only when more
// values or rows follow: they never point past the last run.
//
//go:noinline
func convRowsRun(g *convRowsRunArgs, s *[4]int32) {
	s00, s01, s10, s11 := s[0], s[1], s[2], s[3]
	var x0, x1, v int32
	for {
		a, q, k := unsafe.Add(g.a, g.ra), unsafe.Add(g.w, g.rw), g.n
		b := unsafe.Add(a, g.d)
		// Values one at a time until a multiple of four is left.
		for k%4 != 0 {
			x0, x1 = int32(*(*int8)(unsafe.Add(a, 0))), int32(*(*int8)(unsafe.Add(b, 0)))
			v = int32(*(*int8)(unsafe.Add(q, 0)))
			s00 += x0 * v
			s10 += x1 * v
			v = int32(*(*int8)(unsafe.Add(q, 1)))
			s01 += x0 * v
			s11 += x1 * v
			if k--; k == 0 {
				break
			}
			a, b, q = unsafe.Add(a, 1), unsafe.Add(b, 1), unsafe.Add(q, 2)
		}
		// Four values, once, until a multiple of eight is left.
		if k%8 != 0 {
			x0, x1 = int32(*(*int8)(unsafe.Add(a, 0))), int32(*(*int8)(unsafe.Add(b, 0)))
			v = int32(*(*int8)(unsafe.Add(q, 0)))
			s00 += x0 * v
			s10 += x1 * v
			v = int32(*(*int8)(unsafe.Add(q, 1)))
			s01 += x0 * v
			s11 += x1 * v
			x0, x1 = int32(*(*int8)(unsafe.Add(a, 1))), int32(*(*int8)(unsafe.Add(b, 1)))
			v = int32(*(*int8)(unsafe.Add(q, 2)))
			s00 += x0 * v
			s10 += x1 * v
			v = int32(*(*int8)(unsafe.Add(q, 3)))
			s01 += x0 * v
			s11 += x1 * v
			x0, x1 = int32(*(*int8)(unsafe.Add(a, 2))), int32(*(*int8)(unsafe.Add(b, 2)))
			v = int32(*(*int8)(unsafe.Add(q, 4)))
			s00 += x0 * v
			s10 += x1 * v
			v = int32(*(*int8)(unsafe.Add(q, 5)))
			s01 += x0 * v
			s11 += x1 * v
			x0, x1 = int32(*(*int8)(unsafe.Add(a, 3))), int32(*(*int8)(unsafe.Add(b, 3)))
			v = int32(*(*int8)(unsafe.Add(q, 6)))
			s00 += x0 * v
			s10 += x1 * v
			v = int32(*(*int8)(unsafe.Add(q, 7)))
			s01 += x0 * v
			s11 += x1 * v
			if k -= 4; k != 0 {
				a, b, q = unsafe.Add(a, 4), unsafe.Add(b, 4), unsafe.Add(q, 8)
			}
		}
		// Eight values, once, until a multiple of sixteen is left.
		if k%16 != 0 {
			x0, x1 = int32(*(*int8)(unsafe.Add(a, 0))), int32(*(*int8)(unsafe.Add(b, 0)))
			v = int32(*(*int8)(unsafe.Add(q, 0)))
			s00 += x0 * v
			s10 += x1 * v
			v = int32(*(*int8)(unsafe.Add(q, 1)))
			s01 += x0 * v
			s11 += x1 * v
			x0, x1 = int32(*(*int8)(unsafe.Add(a, 1))), int32(*(*int8)(unsafe.Add(b, 1)))
			v = int32(*(*int8)(unsafe.Add(q, 2)))
			s00 += x0 * v
			s10 += x1 * v
			v = int32(*(*int8)(unsafe.Add(q, 3)))
			s01 += x0 * v
			s11 += x1 * v
			x0, x1 = int32(*(*int8)(unsafe.Add(a, 2))), int32(*(*int8)(unsafe.Add(b, 2)))
			v = int32(*(*int8)(unsafe.Add(q, 4)))
			s00 += x0 * v
			s10 += x1 * v
			v = int32(*(*int8)(unsafe.Add(q, 5)))
			s01 += x0 * v
			s11 += x1 * v
			x0, x1 = int32(*(*int8)(unsafe.Add(a, 3))), int32(*(*int8)(unsafe.Add(b, 3)))
			v = int32(*(*int8)(unsafe.Add(q, 6)))
			s00 += x0 * v
			s10 += x1 * v
			v = int32(*(*int8)(unsafe.Add(q, 7)))
			s01 += x0 * v
			s11 += x1 * v
			x0, x1 = int32(*(*int8)(unsafe.Add(a, 4))), int32(*(*int8)(unsafe.Add(b, 4)))
			v = int32(*(*int8)(unsafe.Add(q, 8)))
			s00 += x0 * v
			s10 += x1 * v
			v = int32(*(*int8)(unsafe.Add(q, 9)))
			s01 += x0 * v
			s11 += x1 * v
			x0, x1 = int32(*(*int8)(unsafe.Add(a, 5))), int32(*(*int8)(unsafe.Add(b, 5)))
			v = int32(*(*int8)(unsafe.Add(q, 10)))
			s00 += x0 * v
			s10 += x1 * v
			v = int32(*(*int8)(unsafe.Add(q, 11)))
			s01 += x0 * v
			s11 += x1 * v
			x0, x1 = int32(*(*int8)(unsafe.Add(a, 6))), int32(*(*int8)(unsafe.Add(b, 6)))
			v = int32(*(*int8)(unsafe.Add(q, 12)))
			s00 += x0 * v
			s10 += x1 * v
			v = int32(*(*int8)(unsafe.Add(q, 13)))
			s01 += x0 * v
			s11 += x1 * v
			x0, x1 = int32(*(*int8)(unsafe.Add(a, 7))), int32(*(*int8)(unsafe.Add(b, 7)))
			v = int32(*(*int8)(unsafe.Add(q, 14)))
			s00 += x0 * v
			s10 += x1 * v
			v = int32(*(*int8)(unsafe.Add(q, 15)))
			s01 += x0 * v
			s11 += x1 * v
			if k -= 8; k != 0 {
				a, b, q = unsafe.Add(a, 8), unsafe.Add(b, 8), unsafe.Add(q, 16)
			}
		}
		// Sixteen values a step, unrolled by hand (gc does not unroll),
		// until a reaches the last step's start (no count to keep).
		if k != 0 {
			for last := unsafe.Add(a, k-16); ; {
				x0, x1 = int32(*(*int8)(unsafe.Add(a, 0))), int32(*(*int8)(unsafe.Add(b, 0)))
				v = int32(*(*int8)(unsafe.Add(q, 0)))
				s00 += x0 * v
				s10 += x1 * v
				v = int32(*(*int8)(unsafe.Add(q, 1)))
				s01 += x0 * v
				s11 += x1 * v
				x0, x1 = int32(*(*int8)(unsafe.Add(a, 1))), int32(*(*int8)(unsafe.Add(b, 1)))
				v = int32(*(*int8)(unsafe.Add(q, 2)))
				s00 += x0 * v
				s10 += x1 * v
				v = int32(*(*int8)(unsafe.Add(q, 3)))
				s01 += x0 * v
				s11 += x1 * v
				x0, x1 = int32(*(*int8)(unsafe.Add(a, 2))), int32(*(*int8)(unsafe.Add(b, 2)))
				v = int32(*(*int8)(unsafe.Add(q, 4)))
				s00 += x0 * v
				s10 += x1 * v
				v = int32(*(*int8)(unsafe.Add(q, 5)))
				s01 += x0 * v
				s11 += x1 * v
				x0, x1 = int32(*(*int8)(unsafe.Add(a, 3))), int32(*(*int8)(unsafe.Add(b, 3)))
				v = int32(*(*int8)(unsafe.Add(q, 6)))
				s00 += x0 * v
				s10 += x1 * v
				v = int32(*(*int8)(unsafe.Add(q, 7)))
				s01 += x0 * v
				s11 += x1 * v
				x0, x1 = int32(*(*int8)(unsafe.Add(a, 4))), int32(*(*int8)(unsafe.Add(b, 4)))
				v = int32(*(*int8)(unsafe.Add(q, 8)))
				s00 += x0 * v
				s10 += x1 * v
				v = int32(*(*int8)(unsafe.Add(q, 9)))
				s01 += x0 * v
				s11 += x1 * v
				x0, x1 = int32(*(*int8)(unsafe.Add(a, 5))), int32(*(*int8)(unsafe.Add(b, 5)))
				v = int32(*(*int8)(unsafe.Add(q, 10)))
				s00 += x0 * v
				s10 += x1 * v
				v = int32(*(*int8)(unsafe.Add(q, 11)))
				s01 += x0 * v
				s11 += x1 * v
				x0, x1 = int32(*(*int8)(unsafe.Add(a, 6))), int32(*(*int8)(unsafe.Add(b, 6)))
				v = int32(*(*int8)(unsafe.Add(q, 12)))
				s00 += x0 * v
				s10 += x1 * v
				v = int32(*(*int8)(unsafe.Add(q, 13)))
				s01 += x0 * v
				s11 += x1 * v
				x0, x1 = int32(*(*int8)(unsafe.Add(a, 7))), int32(*(*int8)(unsafe.Add(b, 7)))
				v = int32(*(*int8)(unsafe.Add(q, 14)))
				s00 += x0 * v
				s10 += x1 * v
				v = int32(*(*int8)(unsafe.Add(q, 15)))
				s01 += x0 * v
				s11 += x1 * v
				x0, x1 = int32(*(*int8)(unsafe.Add(a, 8))), int32(*(*int8)(unsafe.Add(b, 8)))
				v = int32(*(*int8)(unsafe.Add(q, 16)))
				s00 += x0 * v
				s10 += x1 * v
				v = int32(*(*int8)(unsafe.Add(q, 17)))
				s01 += x0 * v
				s11 += x1 * v
				x0, x1 = int32(*(*int8)(unsafe.Add(a, 9))), int32(*(*int8)(unsafe.Add(b, 9)))
				v = int32(*(*int8)(unsafe.Add(q, 18)))
				s00 += x0 * v
				s10 += x1 * v
				v = int32(*(*int8)(unsafe.Add(q, 19)))
				s01 += x0 * v
				s11 += x1 * v
				x0, x1 = int32(*(*int8)(unsafe.Add(a, 10))), int32(*(*int8)(unsafe.Add(b, 10)))
				v = int32(*(*int8)(unsafe.Add(q, 20)))
				s00 += x0 * v
				s10 += x1 * v
				v = int32(*(*int8)(unsafe.Add(q, 21)))
				s01 += x0 * v
				s11 += x1 * v
				x0, x1 = int32(*(*int8)(unsafe.Add(a, 11))), int32(*(*int8)(unsafe.Add(b, 11)))
				v = int32(*(*int8)(unsafe.Add(q, 22)))
				s00 += x0 * v
				s10 += x1 * v
				v = int32(*(*int8)(unsafe.Add(q, 23)))
				s01 += x0 * v
				s11 += x1 * v
				x0, x1 = int32(*(*int8)(unsafe.Add(a, 12))), int32(*(*int8)(unsafe.Add(b, 12)))
				v = int32(*(*int8)(unsafe.Add(q, 24)))
				s00 += x0 * v
				s10 += x1 * v
				v = int32(*(*int8)(unsafe.Add(q, 25)))
				s01 += x0 * v
				s11 += x1 * v
				x0, x1 = int32(*(*int8)(unsafe.Add(a, 13))), int32(*(*int8)(unsafe.Add(b, 13)))
				v = int32(*(*int8)(unsafe.Add(q, 26)))
				s00 += x0 * v
				s10 += x1 * v
				v = int32(*(*int8)(unsafe.Add(q, 27)))
				s01 += x0 * v
				s11 += x1 * v
				x0, x1 = int32(*(*int8)(unsafe.Add(a, 14))), int32(*(*int8)(unsafe.Add(b, 14)))
				v = int32(*(*int8)(unsafe.Add(q, 28)))
				s00 += x0 * v
				s10 += x1 * v
				v = int32(*(*int8)(unsafe.Add(q, 29)))
				s01 += x0 * v
				s11 += x1 * v
				x0, x1 = int32(*(*int8)(unsafe.Add(a, 15))), int32(*(*int8)(unsafe.Add(b, 15)))
				v = int32(*(*int8)(unsafe.Add(q, 30)))
				s00 += x0 * v
				s10 += x1 * v
				v = int32(*(*int8)(unsafe.Add(q, 31)))
				s01 += x0 * v
				s11 += x1 * v
				if a == last {
					break
				}
				a, b, q = unsafe.Add(a, 16), unsafe.Add(b, 16), unsafe.Add(q, 32)
			}
		}
		if g.rows--; g.rows == 0 {
			break
		}
		g.ra, g.rw = g.ra+g.rs, g.rw+g.ws
	}
	s[0], s[1], s[2], s[3] = s00, s01, s10, s11
}

// convRowsCols returns the filter columns [lo, hi) of a window starting
// at input column ix0 that lie inside the image's inW columns (fW taps,
// undilated).
func convRowsCols(ix0, fW, inW int) (lo, hi int) {
	lo = min(max(-ix0, 0), fW)
	return lo, max(min(inW-ix0, fW), lo)
}

// convRowsEdge returns the sums of one pixel's window, starting at input
// row iy0 and column ix0 and reaching into the padding, with a pair of
// output channels (w their interleaved weights), less zp times the sums of
// the weights (the folded bias's share): sum over the taps inside the image
// of (x - zp)*w. Each window row's taps inside the image are contiguous:
// one convRowsEdgeRun.
func convRowsEdge(p *convRowsParams, x []int8, iy0, ix0 int, w [][2]int8) (s0, s1 int32) {
	C, fW := p.inC, p.filterW
	lo, hi := convRowsCols(ix0, fW, p.inW)
	if hi == lo {
		return
	}
	var s [2]int32
	for fy := max(-iy0, 0); fy < min(p.filterH, p.inH-iy0); fy++ {
		q := ((iy0+fy)*p.inW + ix0 + lo) * C
		a := x[q : q+(hi-lo)*C]
		wr := w[(fy*fW+lo)*C : (fy*fW+hi)*C]
		wr = wr[:len(a)]
		convRowsEdgeRun(unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(wr)), len(a), p.inZP, &s)
	}
	return s[0], s[1]
}

// convRowsEdge2 returns the sums of two vertically adjacent pixels'
// windows, the second strideH input rows below the first, both inside the
// image in height, over their filter columns lo..hi-1 (those inside the
// image): s01 is the first pixel with the second channel. Each window row
// is one convRowsRun.
func convRowsEdge2(p *convRowsParams, x []int8, iy0, ix0, lo, hi int, w [][2]int8) (s00, s01, s10, s11 int32) {
	if hi == lo {
		return
	}
	C, fW := p.inC, p.filterW
	rs := p.inW * C
	d := p.strideH * rs
	n := (hi - lo) * C
	// The second pixel's last window row, once: convRowsRun reads through
	// unsafe.Add.
	q0 := (iy0*p.inW + ix0 + lo) * C
	_ = x[q0+(p.filterH-1)*rs+d+n-1]
	_ = w[((p.filterH-1)*fW+lo)*C+n-1]
	px, pw := unsafe.Pointer(&x[q0]), unsafe.Pointer(&w[lo*C])
	var s [4]int32
	convRowsRun(&convRowsRunArgs{px, pw, d, n, rs, 2 * fW * C, p.filterH, 0, 0}, &s)
	return s[0], s[1], s[2], s[3]
}

// convRowsEdgeRun adds to s the products (x - zp)*w of the n (> 0) values
// at a with the n interleaved weight pairs at w.
//
//go:noinline
func convRowsEdgeRun(a, w unsafe.Pointer, n int, zp int32, s *[2]int32) {
	s0, s1 := s[0], s[1]
	if n%2 != 0 {
		xv := int32(*(*int8)(a)) - zp
		q := (*[2]int8)(w)
		s0 += xv * int32(q[0])
		s1 += xv * int32(q[1])
		if n == 1 {
			s[0], s[1] = s0, s1
			return
		}
		a, w = unsafe.Add(a, 1), unsafe.Add(w, 2)
		n--
	}
	// Two values a step until a multiple of eight is left; the pointers
	// never point past the row.
	for n%8 != 0 {
		pa, q := (*[2]int8)(a), (*[4]int8)(w)
		x0, x1 := int32(pa[0])-zp, int32(pa[1])-zp
		s0 += x0 * int32(q[0])
		s1 += x0 * int32(q[1])
		s0 += x1 * int32(q[2])
		s1 += x1 * int32(q[3])
		if n -= 2; n == 0 {
			s[0], s[1] = s0, s1
			return
		}
		a, w = unsafe.Add(a, 2), unsafe.Add(w, 4)
	}
	// Eight values a step, written out (gc does not unroll).
	var x0 int32
	for h := n / 8; ; {
		x0 = int32(*(*int8)(unsafe.Add(a, 0))) - zp
		s0 += x0 * int32(*(*int8)(unsafe.Add(w, 0)))
		s1 += x0 * int32(*(*int8)(unsafe.Add(w, 1)))
		x0 = int32(*(*int8)(unsafe.Add(a, 1))) - zp
		s0 += x0 * int32(*(*int8)(unsafe.Add(w, 2)))
		s1 += x0 * int32(*(*int8)(unsafe.Add(w, 3)))
		x0 = int32(*(*int8)(unsafe.Add(a, 2))) - zp
		s0 += x0 * int32(*(*int8)(unsafe.Add(w, 4)))
		s1 += x0 * int32(*(*int8)(unsafe.Add(w, 5)))
		x0 = int32(*(*int8)(unsafe.Add(a, 3))) - zp
		s0 += x0 * int32(*(*int8)(unsafe.Add(w, 6)))
		s1 += x0 * int32(*(*int8)(unsafe.Add(w, 7)))
		x0 = int32(*(*int8)(unsafe.Add(a, 4))) - zp
		s0 += x0 * int32(*(*int8)(unsafe.Add(w, 8)))
		s1 += x0 * int32(*(*int8)(unsafe.Add(w, 9)))
		x0 = int32(*(*int8)(unsafe.Add(a, 5))) - zp
		s0 += x0 * int32(*(*int8)(unsafe.Add(w, 10)))
		s1 += x0 * int32(*(*int8)(unsafe.Add(w, 11)))
		x0 = int32(*(*int8)(unsafe.Add(a, 6))) - zp
		s0 += x0 * int32(*(*int8)(unsafe.Add(w, 12)))
		s1 += x0 * int32(*(*int8)(unsafe.Add(w, 13)))
		x0 = int32(*(*int8)(unsafe.Add(a, 7))) - zp
		s0 += x0 * int32(*(*int8)(unsafe.Add(w, 14)))
		s1 += x0 * int32(*(*int8)(unsafe.Add(w, 15)))
		if h--; h == 0 {
			break
		}
		a, w = unsafe.Add(a, 8), unsafe.Add(w, 16)
	}
	s[0], s[1] = s0, s1
}

// convGatherMax bounds the window (filterH*filterW*inC, rounded up to a
// multiple of eight) and convGatherMaxC the output channels of
// convGatherInt8.
const (
	convGatherMax  = 128
	convGatherMaxC = 64
)

// Words of the records convGatherInt8 decodes into its scratch: a
// convPWCh (convGatherGrid) or a dwRec per output channel, at most (a test
// checks them against unsafe.Sizeof).
const (
	convPWChWords = 6
	dwRecWords    = 5
)

// convGatherScratch is the scratch memory of convGatherInt8, in int32
// words, for windows of K values and outC output channels: the two
// gathered windows (K rounded up to a multiple of eight, each), then the
// decoded requantization records (convGatherGrid's convPWCh, or the
// fallback's dwRec, one more than the channels).
func convGatherScratch(K, outC int) int {
	return convGatherWinWords(K) + max(convPWChWords*outC, dwRecWords*(outC+1))
}

// convGatherWinWords is the words of the two windows in the scratch of
// convGatherInt8 for windows of K values: a multiple of four, so that the
// records after them are 16-byte aligned.
func convGatherWinWords(K int) int { return 4 * ((K + 7) / 8) }

// convGatherInt8 is convRowsInt8 for small windows (at most convGatherMax
// values, at most convGatherMaxC output channels), where a window row is
// too short for convRowsDot's per-row set-up to pay: the windows of two
// horizontally adjacent pixels are gathered into scratch (the input zero
// point for taps in the padding, which the folded bias cancels) and
// multiplied with every pair of output channels by convPWDot16 or
// convPWDot8. wt holds the weight rows [outC][K], K rounded up to a
// multiple of eight with zeros, in convPWPairs's layout; rq the
// requantization triples; scr convGatherScratch(K, outC) words of
// scratch (8-byte aligned) for K = filterH*filterW*inC.
func convGatherInt8(p *convRowsParams, in []int8, wt, rq string, scr []int32, out []int8) {
	N := p.outC
	K := p.filterH * p.filterW * p.inC
	K8 := (K + 7) / 8
	scr = scr[:convGatherScratch(K, N)]
	if convGatherGrid(p, in, wt, rq, scr, out) {
		return
	}
	w16 := unsafe.Slice((*[16]int8)(unsafe.Pointer(unsafe.StringData(wt))), len(wt)/16)
	w16 = w16[:(N+1)/2*K8]
	// Requantizations decoded once (channel N, when N is odd, is unused);
	// |acc| <= K*2^14 for dwRQFast.
	q := unsafe.Slice((*dwRec)(unsafe.Pointer(&scr[convGatherWinWords(K)])), N+1)
	dwRecDecode(rq, p.outOffset, 1<<29-int32(K)<<14, q[:N])
	// The two windows, 8*K8 bytes each.
	wa := unsafe.Slice((*int8)(unsafe.Pointer(&scr[0])), 8*K8)
	wb := unsafe.Slice((*int8)(unsafe.Pointer(&scr[2*K8])), 8*K8)
	a8 := unsafe.Slice((*[8]int8)(unsafe.Pointer(&wa[0])), K8)
	b8 := unsafe.Slice((*[8]int8)(unsafe.Pointer(&wb[0])), K8)
	a16 := unsafe.Slice((*[16]int8)(unsafe.Pointer(&wa[0])), K8/2)
	b16 := unsafe.Slice((*[16]int8)(unsafe.Pointer(&wb[0])), K8/2)
	w32 := unsafe.Slice((*[32]int8)(unsafe.Pointer(unsafe.StringData(wt))), len(wt)/32)
	img := p.inH * p.inW * p.inC
	lo, hi := p.actMin, p.actMax
	for b := 0; b < p.batches; b++ {
		x := in[b*img : b*img+img]
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			o := out[(b*p.outH+oy)*p.outW*N : (b*p.outH+oy+1)*p.outW*N]
			for ox := 0; ox < p.outW; ox += 2 {
				ix0 := ox*p.strideW - p.padW
				second := ox+1 < p.outW
				convGatherWin(p, x, iy0, ix0, wa[:K])
				if second {
					convGatherWin(p, x, iy0, ix0+p.strideW, wb[:K])
				}
				r := o[ox*N:]
				for ob := 0; ob < N; ob += 2 {
					var s00, s01, s10, s11 int32
					if K8%2 == 0 {
						s00, s01, s10, s11 = convPWDot16(a16, b16, w32[ob/2*(K8/2):ob/2*(K8/2)+K8/2])
					} else {
						s00, s01, s10, s11 = convPWDot8(a8, b8, w16[ob/2*K8:ob/2*K8+K8])
					}
					q0, q1 := &q[ob], &q[ob+1]
					if q0.fast && q1.fast {
						b0, m0, k0, mm0, sh0 := q0.bias, q0.m, q0.k, q0.mm, uint32(q0.sh)
						b1, m1, k1, mm1, sh1 := q1.bias, q1.m, q1.k, q1.mm, uint32(q1.sh)
						r[ob] = int8(dwClamp(dwRQFast(s00+b0, m0, k0, mm0, sh0), lo, hi))
						two := ob+1 < N
						if two {
							r[ob+1] = int8(dwClamp(dwRQFast(s01+b1, m1, k1, mm1, sh1), lo, hi))
						}
						if second {
							r[N+ob] = int8(dwClamp(dwRQFast(s10+b0, m0, k0, mm0, sh0), lo, hi))
							if two {
								r[N+ob+1] = int8(dwClamp(dwRQFast(s11+b1, m1, k1, mm1, sh1), lo, hi))
							}
						}
						continue
					}
					r[ob] = int8(q0.apply(s00, p))
					two := ob+1 < N
					if two {
						r[ob+1] = int8(q1.apply(s01, p))
					}
					if second {
						r[N+ob] = int8(q0.apply(s10, p))
						if two {
							r[N+ob+1] = int8(q1.apply(s11, p))
						}
					}
				}
			}
		}
	}
}

// convGatherGrid is convGatherInt8 through convPWGridPair, pixel pair by
// pixel pair of each output row (the raster order convGatherInt8's
// overlap relies on: a pair's windows are gathered before its outputs are
// written), for an even number of output channels whose requantizations
// convPWQ computes exactly; otherwise it writes nothing and reports false.
func convGatherGrid(p *convRowsParams, in []int8, wt, rq string, scr []int32, out []int8) bool {
	K := p.filterH * p.filterW * p.inC
	K8, N := (K+7)/8, p.outC
	if N%2 != 0 || N > convGatherMaxC || K8*8 > convGatherMax || p.outW <= 0 || N == 0 {
		return false
	}
	recs := unsafe.Slice((*convPWCh)(unsafe.Pointer(&scr[convGatherWinWords(K)])), N)
	if !convPWChDecode(rq, 8*K8, p.outOffset, p.actMin, recs) {
		return false
	}
	w := constI8(wt)[:N*8*K8]
	// The two windows, 8*K8 bytes each.
	wa := unsafe.Slice((*int8)(unsafe.Pointer(&scr[0])), 8*K8)
	wb := unsafe.Slice((*int8)(unsafe.Pointer(&scr[2*K8])), 8*K8)
	var g convPWRunArgs
	g.nb, g.K8, g.span, g.hi = N, K8, p.actMax-p.actMin, p.actMax
	g.pin, g.pwt, g.tp = unsafe.Pointer(&wa[0]), unsafe.Pointer(unsafe.SliceData(w)), unsafe.Pointer(&recs[0])
	img := p.inH * p.inW * p.inC
	row := p.outW * N
	for b := 0; b < p.batches; b++ {
		x := in[b*img : b*img+img]
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			o := out[(b*p.outH+oy)*row : (b*p.outH+oy+1)*row]
			g.pout = unsafe.Pointer(unsafe.SliceData(o))
			for ox := 0; ox < p.outW; ox += 2 {
				ix0 := ox*p.strideW - p.padW
				convGatherWin(p, x, iy0, ix0, wa[:K])
				g.xa, g.xb, g.oa, g.ob = 0, 0, ox*N, ox*N
				if ox+1 < p.outW {
					convGatherWin(p, x, iy0, ix0+p.strideW, wb[:K])
					g.xb, g.ob = 8*K8, ox*N+N
				}
				switch {
				case K8 == 2:
					convPWGridPair16(&g)
				case K8%4 == 0:
					convPWGridPairL(&g)
				default:
					convPWGridPair(&g)
				}
			}
		}
	}
	return true
}

// convGatherWin writes the window of the pixel whose taps start at input
// row iy0 and column ix0 into dst (filter order), the input zero point for
// taps in the padding.
func convGatherWin(p *convRowsParams, x []int8, iy0, ix0 int, dst []int8) {
	C, fW := p.inC, p.filterW
	L := fW * C
	rs := p.inW * C
	dst = dst[:p.filterH*L]
	if iy0 >= 0 && iy0+p.filterH <= p.inH && ix0 >= 0 && ix0+fW <= p.inW {
		// All inside: filterH row segments.
		off := (iy0*p.inW + ix0) * C
		if L == 8 {
			// Rows of eight values (micro_speech's 10x8 filter).
			for dj := 0; dj+8 <= len(dst); dj += 8 {
				s8, d8 := (*[8]int8)(x[off:off+8]), (*[8]int8)(dst[dj:dj+8])
				d8[0], d8[1], d8[2], d8[3] = s8[0], s8[1], s8[2], s8[3]
				d8[4], d8[5], d8[6], d8[7] = s8[4], s8[5], s8[6], s8[7]
				off += rs
			}
			return
		}
		if L == 4 {
			// Rows of four values (DS-CNN's 10x4 filter on one channel).
			for dj := 0; dj+4 <= len(dst); dj += 4 {
				s4, d4 := (*[4]int8)(x[off:off+4]), (*[4]int8)(dst[dj:dj+4])
				d4[0], d4[1], d4[2], d4[3] = s4[0], s4[1], s4[2], s4[3]
				off += rs
			}
			return
		}
		for dj := 0; dj+L <= len(dst); dj += L {
			src, d := x[off:off+L], dst[dj:dj+L]
			j := 0
			for ; j+8 <= len(src); j += 8 {
				s8, d8 := (*[8]int8)(src[j:j+8]), (*[8]int8)(d[j:j+8])
				d8[0], d8[1], d8[2], d8[3] = s8[0], s8[1], s8[2], s8[3]
				d8[4], d8[5], d8[6], d8[7] = s8[4], s8[5], s8[6], s8[7]
			}
			for ; j < len(src); j++ {
				d[j] = src[j]
			}
			off += rs
		}
		return
	}
	zp := int8(p.inZP)
	lo := min(max(-ix0, 0), fW) * C
	hi := max(min(p.inW-ix0, fW)*C, lo)
	if L == 8 {
		for fy := 0; fy < p.filterH; fy++ {
			d8 := (*[8]int8)(dst[8*fy : 8*fy+8])
			d8[0], d8[1], d8[2], d8[3] = zp, zp, zp, zp
			d8[4], d8[5], d8[6], d8[7] = zp, zp, zp, zp
			if iy := iy0 + fy; iy >= 0 && iy < p.inH {
				src := x[(iy*p.inW+ix0)*C+lo : (iy*p.inW+ix0)*C+hi]
				mid := d8[lo:hi]
				mid = mid[:len(src)]
				//lint:ignore S1001 short copies stay an inlined loop, not a memmove call
				for i, v := range src {
					mid[i] = v
				}
			}
		}
		return
	}
	if L < 8 {
		// Short rows: the copies inline, not convCopy calls.
		for fy := 0; fy < p.filterH; fy++ {
			d := dst[fy*L : fy*L+L]
			for i := range d {
				d[i] = zp
			}
			if iy := iy0 + fy; iy >= 0 && iy < p.inH {
				src := x[(iy*p.inW+ix0)*C+lo : (iy*p.inW+ix0)*C+hi]
				mid := d[lo:hi]
				mid = mid[:len(src)]
				//lint:ignore S1001 short copies stay an inlined loop, not a memmove call
				for i, v := range src {
					mid[i] = v
				}
			}
		}
		return
	}
	for fy := 0; fy < p.filterH; fy++ {
		d := dst[fy*L : fy*L+L]
		iy := iy0 + fy
		if iy < 0 || iy >= p.inH {
			for i := range d {
				d[i] = zp
			}
			continue
		}
		for i := range d[:lo] {
			d[i] = zp
		}
		q := (iy*p.inW + ix0) * C
		convCopy(d[lo:hi], x[q+lo:q+hi])
		for i := hi; i < L; i++ {
			d[i] = zp
		}
	}
}

// convCopy copies src into d (the same length) in groups of eight bytes at
// constant offsets, then byte by byte (short copies stay inline, not a
// memmove call).
func convCopy(d, src []int8) {
	d = d[:len(src)]
	j := 0
	for ; j+8 <= len(src); j += 8 {
		s8, d8 := (*[8]int8)(src[j:j+8]), (*[8]int8)(d[j:j+8])
		d8[0], d8[1], d8[2], d8[3] = s8[0], s8[1], s8[2], s8[3]
		d8[4], d8[5], d8[6], d8[7] = s8[4], s8[5], s8[6], s8[7]
	}
	for ; j < len(src); j++ {
		d[j] = src[j]
	}
}

// dwRec is a decoded requantization record (conv_rq.go's triple): fast
// says that dwRQFast(acc + bias, m, k, mm, sh) takes it (k includes the
// output zero point); otherwise sh is the exponent.
type dwRec struct {
	bias, k, mm int32
	m           uint32
	sh          int8
	fast        bool
}

// dwRecDecode decodes the records rq (12 bytes each) into t for output
// zero point zo; dwRQFast takes those with |bias| < biasMax (so that
// |acc + bias| < 2^29), a right shift of 1..21 and m >= 0, when |zo| <= 128.
func dwRecDecode(rq string, zo, biasMax int32, t []dwRec) {
	rq = rq[:12*len(t)]
	zok := zo >= -128 && zo <= 128
	for c := range t {
		r := rq[12*c : 12*c+12]
		bias := int32(uint32(r[0]) | uint32(r[1])<<8 | uint32(r[2])<<16 | uint32(r[3])<<24)
		m := int32(uint32(r[4]) | uint32(r[5])<<8 | uint32(r[6])<<16 | uint32(r[7])<<24)
		sh := int8(r[8]) // the exponent is within [-31, 31]
		rr := -int32(sh)
		e := &t[c]
		*e = dwRec{bias: bias, m: uint32(m), sh: sh}
		if zok && rr >= 1 && rr <= 21 && m >= 0 && bias > -biasMax && bias < biasMax {
			e.fast = true
			e.k = 1 + int32(1)<<uint32(rr) + zo<<uint32(rr+1)
			e.mm = -m - 2
			e.sh = int8(rr + 1)
		}
	}
}

// apply requantizes acc (bias not included) with r, adds the output zero
// point and clamps to p's activation range.
func (r *dwRec) apply(acc int32, p *convRowsParams) int32 {
	if r.fast {
		return dwClamp(dwRQFast(acc+r.bias, r.m, r.k, r.mm, uint32(r.sh)), p.actMin, p.actMax)
	}
	return r.slow(acc, p.outOffset, p.actMin, p.actMax)
}

// slow is apply for records dwRQFast does not take, with output zero point
// zo and activation range [lo, hi].
func (r *dwRec) slow(acc, zo, lo, hi int32) int32 {
	sh := int32(r.sh)
	left, right := uint32(max(sh, 0))&31, uint32(max(-sh, 0))&31
	mask := uint32(1)<<right - 1
	v := convRQ32(acc, r.bias, left, r.m<<1, right, mask, mask-mask>>1, -min(right, 1))
	return max(min(v+zo, hi), lo)
}
