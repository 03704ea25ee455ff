package kernels

import "unsafe"

// dwInt8BlocksMul is dwInt8Blocks for a depth multiplier of 2 or a
// multiple of 4: output channel o reads input channel o/depthMul, so a
// block of four output channels reads one input channel (multiplier 4k:
// dwRow4One) or two (multiplier 2: dwRow4Two), each input value loaded
// once for the block's products. A last block of two channels (multiplier
// 2, an odd input channel count) takes dwRow2One. filter is the model's
// [fH][fW][inC*depthMul] weights, rq one fcRQRecordLen record an output
// channel (dwBlocksRQ's).
func dwInt8BlocksMul(p *dwParams, in, filter []int8, rq string, out []int8) {
	dm, oc := p.depthMul, p.outC
	for c0 := 0; c0 < oc; c0 += 4 {
		ic := c0 / dm
		switch {
		case oc-c0 < 4:
			dwBlockRun(p, in, filter, rq, out, c0, ic, 2, dwRowTwoOne)
		case dm == 2:
			dwBlockRun(p, in, filter, rq, out, c0, ic, 4, dwRowFourTwo)
		default:
			dwBlockRun(p, in, filter, rq, out, c0, ic, 4, dwRowFourOne)
		}
	}
}

// dwWin4One is dwWin4 for four output channels of one input channel:
// each tap's one input value times its four weights.
//
//go:noinline
func dwWin4One(x, w unsafe.Pointer, t *dwBlockT, a *[4]int32) {
	var a0, a1, a2, a3 int32
	xs, ws, off := t.xs, t.ws, t.off
	for m := t.m; ; {
		xk, wk := x, w
		for n := t.n; ; {
			v, q := int32(*(*int8)(xk))+off, (*[4]int8)(wk)
			a0 += v * int32(q[0])
			a1 += v * int32(q[1])
			a2 += v * int32(q[2])
			a3 += v * int32(q[3])
			if n--; n == 0 {
				break
			}
			xk, wk = unsafe.Add(xk, xs), unsafe.Add(wk, ws)
		}
		if m--; m == 0 {
			break
		}
		x, w = unsafe.Add(x, t.xo), unsafe.Add(w, t.wo)
	}
	a[0], a[1], a[2], a[3] = a0, a1, a2, a3
}

// dwWin4One3 is dwWin4One for windows of t.m rows of three taps (t.n =
// 3), a row's taps written out (gc does not unroll; in dwWin4One's two
// loops it spilled in the inner one).
//
//go:noinline
func dwWin4One3(x, w unsafe.Pointer, t *dwBlockT, a *[4]int32) {
	var a0, a1, a2, a3, v int32
	var q *[4]int8
	xs, ws, off := t.xs, t.ws, t.off
	for m := t.m; ; {
		v, q = int32(*(*int8)(x))+off, (*[4]int8)(w)
		a0 += v * int32(q[0])
		a1 += v * int32(q[1])
		a2 += v * int32(q[2])
		a3 += v * int32(q[3])
		x, w = unsafe.Add(x, xs), unsafe.Add(w, ws)
		v, q = int32(*(*int8)(x))+off, (*[4]int8)(w)
		a0 += v * int32(q[0])
		a1 += v * int32(q[1])
		a2 += v * int32(q[2])
		a3 += v * int32(q[3])
		x, w = unsafe.Add(x, xs), unsafe.Add(w, ws)
		v, q = int32(*(*int8)(x))+off, (*[4]int8)(w)
		a0 += v * int32(q[0])
		a1 += v * int32(q[1])
		a2 += v * int32(q[2])
		a3 += v * int32(q[3])
		if m--; m == 0 {
			break
		}
		x, w = unsafe.Add(x, t.xo-2*xs), unsafe.Add(w, t.wo-2*ws)
	}
	a[0], a[1], a[2], a[3] = a0, a1, a2, a3
}

// dwWin4Two is dwWin4 for four output channels of two input channels
// (depth multiplier 2): the first input value times the first two
// weights, the second times the other two.
//
//go:noinline
func dwWin4Two(x, w unsafe.Pointer, t *dwBlockT, a *[4]int32) {
	var a0, a1, a2, a3 int32
	xs, ws, off := t.xs, t.ws, t.off
	for m := t.m; ; {
		xk, wk := x, w
		for n := t.n; ; {
			p, q := (*[2]int8)(xk), (*[4]int8)(wk)
			v0, v1 := int32(p[0])+off, int32(p[1])+off
			a0 += v0 * int32(q[0])
			a1 += v0 * int32(q[1])
			a2 += v1 * int32(q[2])
			a3 += v1 * int32(q[3])
			if n--; n == 0 {
				break
			}
			xk, wk = unsafe.Add(xk, xs), unsafe.Add(wk, ws)
		}
		if m--; m == 0 {
			break
		}
		x, w = unsafe.Add(x, t.xo), unsafe.Add(w, t.wo)
	}
	a[0], a[1], a[2], a[3] = a0, a1, a2, a3
}

// dwWin2One is dwWin4One for the last two output channels of a pixel
// (depth multiplier 2 and an odd input channel count): a[0] and a[1].
//
//go:noinline
func dwWin2One(x, w unsafe.Pointer, t *dwBlockT, a *[4]int32) {
	var a0, a1 int32
	xs, ws, off := t.xs, t.ws, t.off
	for m := t.m; ; {
		xk, wk := x, w
		for n := t.n; ; {
			v, q := int32(*(*int8)(xk))+off, (*[2]int8)(wk)
			a0 += v * int32(q[0])
			a1 += v * int32(q[1])
			if n--; n == 0 {
				break
			}
			xk, wk = unsafe.Add(xk, xs), unsafe.Add(wk, ws)
		}
		if m--; m == 0 {
			break
		}
		x, w = unsafe.Add(x, t.xo), unsafe.Add(w, t.wo)
	}
	a[0], a[1] = a0, a1
}

// dwRasterMax bounds the output channels of dwInt8BlocksMulRaster, and
// dwRasterPix is how many pixels of a row it computes before it writes
// them (its stack buffer holds their outputs).
const (
	dwRasterMax = 64
	dwRasterPix = 4
)

// dwInt8BlocksMulRaster is dwInt8BlocksMul in raster order, for writing
// the output over the input: dwRasterPix pixels of a row at a time (from
// a multiple of it), each block of four output channels of them decoded
// once and computed (dwWin4One, dwWin4Two, dwWin2One) into a stack
// buffer, copied to out once every read of their windows is done. The
// same arguments; at most dwRasterMax output channels.
func dwInt8BlocksMulRaster(p *dwParams, in, filter []int8, rq string, out []int8) {
	c, dm, oc := p.inC, p.depthMul, p.outC
	inRow := p.inW * c
	inImg := p.inH * inRow
	fRow := p.filterW * oc
	var buf [dwRasterMax * dwRasterPix]int8
	t := dwBlockT{zo: p.outOffset, lo: p.actMin, hi: p.actMax, off: p.inOffset}
	// Where convPWQ is exact for every channel, their records are decoded
	// once, here, not for every group of pixels.
	taps := p.filterH * p.filterW
	var chs [dwRasterMax]convPWCh
	exact := oc <= dwRasterMax
	for c0 := 0; exact && c0 < oc; c0 += 4 {
		lanes := min(4, oc-c0)
		t.load(rq, c0, lanes, taps)
		exact = t.exact
		copy(chs[c0:c0+lanes], t.ch[:lanes])
	}
	o := 0
	for b := 0; b < p.batches; b++ {
		img := in[b*inImg : (b+1)*inImg]
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			fy0, fy1 := dwTaps(iy0, p.dilationH, p.filterH, p.inH)
			for ox0 := 0; ox0 < p.outW; ox0 += dwRasterPix {
				np := min(dwRasterPix, p.outW-ox0)
				px := buf[:np*oc]
				// The group's windows: their first taps' input and filter
				// offsets (-1: no tap in the image) and walks.
				var win [dwRasterPix]struct{ x0, w0, n, m, xs, ws, xo, wo int }
				for k := range np {
					ix0 := (ox0+k)*p.strideW - p.padW
					fx0, fx1 := dwTaps(ix0, p.dilationW, p.filterW, p.inW)
					ny, nx := fy1-fy0, fx1-fx0
					v := &win[k]
					v.x0 = -1
					if ny > 0 && nx > 0 {
						v.x0 = (iy0+fy0*p.dilationH)*inRow + (ix0+fx0*p.dilationW)*c
						v.w0 = fy0*fRow + fx0*oc
						v.xs, v.ws, v.xo, v.wo, v.n, v.m = p.dilationW*c, oc, p.dilationH*inRow, fRow, nx, ny
						if ny > nx {
							v.xs, v.ws, v.xo, v.wo, v.n, v.m = v.xo, v.wo, v.xs, v.ws, ny, nx
						}
						// The window's last tap, once: the window
						// functions read through unsafe.Add.
						_ = img[v.x0+(v.n-1)*v.xs+(v.m-1)*v.xo+c-1]
						_ = filter[v.w0+(v.n-1)*v.ws+(v.m-1)*v.wo+oc-1]
					}
				}
				for c0 := 0; c0 < oc; c0 += 4 {
					lanes, ic := min(4, oc-c0), c0/dm
					rc := &t.ch // the block's convPWQ records
					if exact {
						// c0, a multiple of four below oc <= dwRasterMax:
						// four records in chs.
						t.exact, rc = true, (*[4]convPWCh)(chs[c0:c0+4])
					} else {
						t.load(rq, c0, lanes, taps)
					}
					for k := range np {
						v := &win[k]
						var a [4]int32
						if v.x0 >= 0 {
							t.xs, t.ws, t.xo, t.wo, t.n, t.m = v.xs, v.ws, v.xo, v.wo, v.n, v.m
							x, w := unsafe.Pointer(&img[v.x0+ic]), unsafe.Pointer(&filter[v.w0+c0])
							switch {
							case lanes < 4:
								dwWin2One(x, w, &t, &a)
							case dm == 2:
								dwWin4Two(x, w, &t, &a)
							case t.n == 3:
								dwWin4One3(x, w, &t, &a)
							default:
								dwWin4One(x, w, &t, &a)
							}
						}
						if lanes == 4 {
							t.finish4(&a, (*[4]int8)(px[k*oc+c0:]), rc)
						} else {
							t.finish(&a, px[k*oc+c0:k*oc+c0+lanes], rc)
						}
					}
				}
				copy(out[o:o+len(px)], px)
				o += len(px)
			}
		}
	}
}
