package kernels

import "unsafe"

// dwInt8Blocks is dwInt8 for depth multiplier 1 and a channel count that is
// a multiple of four, with no scratch: four channels a pass over the
// image (dwBlockRun), their sums in registers (dwRow4, once per window
// row), where dwInt8's general loop keeps them in memory. The gc build's
// depthwise kernel for the shapes its own fast kernels (3x3, a ring of
// rows in scratch) do not take; filter is the model's [fH][fW][C] weights,
// rq one fcRQRecordLen record a channel (its bias and requantization,
// rescaled as rqApply does: one 32x32->64 multiply).
func dwInt8Blocks(p *dwParams, in, filter []int8, rq string, out []int8) {
	for c0 := 0; c0 < p.inC; c0 += 4 {
		dwBlockRun(p, in, filter, rq, out, c0, c0, 4, dwRowFour)
	}
}

// The row functions dwBlockRun calls (a switch of direct calls: through a
// func value, the sums would escape to the heap).
const (
	dwRowFour    = iota // dwWin4: four channels of four input channels
	dwRowFourOne        // dwWin4One: four channels of one
	dwRowFourTwo        // dwWin4Two: four channels of two
	dwRowTwoOne         // dwWin2One: two channels of one
)

// dwBlockT is what dwBlockRun's pixels share: a block's requantization
// (its records decoded once), and the walk of a window inside the image.
type dwBlockT struct {
	q          [4]rq32
	bias       [4]int32
	zo, lo, hi int32
	off        int32 // the input offset
	row        int   // the row function (dwRowFour...)
	// exact: convPWQ is exact for every lane (load), ch the lanes'
	// records for it; span is hi - lo.
	exact bool
	ch    [4]convPWCh
	span  int32
	// A window: m calls of n taps, the taps xs input and ws filter bytes
	// apart, the calls xo and wo apart.
	n, m, xs, ws, xo, wo int
}

// load decodes the records of output channels c0 to c0+lanes-1 of rq
// (fcRQRecordLen bytes each: bias, then the requantization) into t, for
// windows of at most taps taps. Where every lane's requantization has no
// left shift and a right shift of 1 to 21, and its bias plus the largest
// sum, taps*255*128 (input plus offset times weight), stays below 2^30 in
// magnitude, it also fills t.ch and sets t.exact: convPWQ's one multiply,
// zero point and clamp folded in (conv_pw.go), is then exact.
func (t *dwBlockT) load(rq string, c0, lanes, taps int) {
	t.exact, t.span = taps < 1<<14, t.hi-t.lo
	for j := range lanes {
		r := rq[fcRQRecordLen*(c0+j) : fcRQRecordLen*(c0+j)+fcRQRecordLen]
		t.q[j], t.bias[j] = rqFromFC(ld32(r, 1), r[12], r[13]), ld32(r, 0)
		b, rs := t.bias[j], uint32(r[13])-32 // the right shift less one
		if r[12] != 0 || rs >= 21 || int64(max(b, -b))+int64(taps)*255*128 >= 1<<30 {
			t.exact = false
			continue
		}
		convPWChSet(&t.ch[j], b, uint32(t.q[j].mult)<<1, rs+1, uint32(t.zo-t.lo))
	}
}

// dwBlockRun computes output channels c0 to c0+lanes-1 (lanes 2 or 4) of
// every pixel of a depthwise convolution, their records decoded once: for
// each pixel, row adds the sums of a window row (walking the window's
// longer side, once per tap of the other) from input channel ic, and the
// sums are requantized (rqApply) into out. row names the row function
// (dwRowFour...). The pixels whose windows lie inside the image in width
// run in one call of dwBlockPixels a row.
func dwBlockRun(p *dwParams, in, filter []int8, rq string, out []int8, c0, ic, lanes, row int) {
	c, oc := p.inC, p.outC
	inRow := p.inW * c
	inImg := p.inH * inRow
	fRow := p.filterW * oc
	t := dwBlockT{zo: p.outOffset, lo: p.actMin, hi: p.actMax, off: p.inOffset, row: row}
	t.load(rq, c0, lanes, p.filterH*p.filterW)
	// The last input value and weight a tap reads, from its first.
	lastIn, lastW := (lanes-1)/(oc/c), lanes-1
	// Output columns [xa, xb) have windows inside the image in width.
	xa, xb := p.outW, p.outW
	for ox := 0; ox < p.outW; ox++ {
		if ix0 := ox*p.strideW - p.padW; ix0 >= 0 && ix0+(p.filterW-1)*p.dilationW < p.inW {
			if xa == p.outW {
				xa = ox
			}
			xb = ox + 1
		}
	}
	o := c0
	for b := 0; b < p.batches; b++ {
		img := in[b*inImg : (b+1)*inImg]
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			fy0, fy1 := dwTaps(iy0, p.dilationH, p.filterH, p.inH)
			for ox := 0; ox < p.outW; {
				ix0 := ox*p.strideW - p.padW
				fx0, fx1 := dwTaps(ix0, p.dilationW, p.filterW, p.inW)
				ny, nx := fy1-fy0, fx1-fx0
				if ny <= 0 || nx <= 0 {
					// No tap inside the image: the bias alone.
					var a [4]int32
					t.finish(&a, out[o:o+lanes], &t.ch)
					o += oc
					ox++
					continue
				}
				x0 := (iy0+fy0*p.dilationH)*inRow + ix0*c + fx0*p.dilationW*c + ic
				w0 := fy0*fRow + fx0*oc + c0
				t.xs, t.ws, t.xo, t.wo, t.n, t.m = p.dilationW*c, oc, p.dilationH*inRow, fRow, nx, ny
				if ny > nx {
					t.xs, t.ws, t.xo, t.wo, t.n, t.m = t.xo, t.wo, t.xs, t.ws, ny, nx
				}
				count := 1
				if ox == xa {
					count = xb - xa
				}
				// The last pixel's last tap, once: dwBlockPixels reads
				// through unsafe.Add.
				_ = img[x0+(count-1)*p.strideW*c+(t.n-1)*t.xs+(t.m-1)*t.xo+lastIn]
				_ = filter[w0+(t.n-1)*t.ws+(t.m-1)*t.wo+lastW]
				_ = out[o+(count-1)*oc+lanes-1]
				dwBlockPixels(&t, unsafe.Pointer(&img[x0]), unsafe.Pointer(&filter[w0]), unsafe.Pointer(&out[o]), count, p.strideW*c, oc, lanes)
				o += count * oc
				ox += count
			}
		}
	}
}

// dwBlockPixels computes count pixels of a block (lanes output channels)
// whose windows have t's shape, the first at input x and filter w, each
// next one xPix input bytes on; it writes their outputs from out, oPix
// bytes apart. Not inlined: with few values live, gc keeps them in
// registers.
//
//go:noinline
func dwBlockPixels(t *dwBlockT, x, w, out unsafe.Pointer, count, xPix, oPix, lanes int) {
	for {
		var a [4]int32
		switch t.row {
		case dwRowFour:
			dwWin4(x, w, t, &a)
		case dwRowFourOne:
			if t.n == 3 {
				dwWin4One3(x, w, t, &a)
			} else {
				dwWin4One(x, w, t, &a)
			}
		case dwRowFourTwo:
			dwWin4Two(x, w, t, &a)
		default:
			dwWin2One(x, w, t, &a)
		}
		if lanes == 4 {
			t.finish4(&a, (*[4]int8)(out), &t.ch)
		} else {
			t.finish(&a, unsafe.Slice((*int8)(out), lanes), &t.ch)
		}
		if count--; count == 0 {
			return
		}
		x, out = unsafe.Add(x, xPix), unsafe.Add(out, oPix)
	}
}

// finish4 requantizes four sums (after the bias: by convPWQ and c's
// records where t.exact, else by rqApply), adds the output zero point,
// clamps and writes them. Not inlined: see dwBlockPixels.
//
//go:noinline
func (t *dwBlockT) finish4(a *[4]int32, out *[4]int8, c *[4]convPWCh) {
	if t.exact {
		out[0] = int8(t.hi - convPWQ(a[0]+c[0].bias, &c[0], t.span))
		out[1] = int8(t.hi - convPWQ(a[1]+c[1].bias, &c[1], t.span))
		out[2] = int8(t.hi - convPWQ(a[2]+c[2].bias, &c[2], t.span))
		out[3] = int8(t.hi - convPWQ(a[3]+c[3].bias, &c[3], t.span))
		return
	}
	out[0] = int8(clampI32(rqApply(a[0]+t.bias[0], &t.q[0])+t.zo, t.lo, t.hi))
	out[1] = int8(clampI32(rqApply(a[1]+t.bias[1], &t.q[1])+t.zo, t.lo, t.hi))
	out[2] = int8(clampI32(rqApply(a[2]+t.bias[2], &t.q[2])+t.zo, t.lo, t.hi))
	out[3] = int8(clampI32(rqApply(a[3]+t.bias[3], &t.q[3])+t.zo, t.lo, t.hi))
}

// finish is finish4 for len(out) (at most 4) sums.
func (t *dwBlockT) finish(a *[4]int32, out []int8, c *[4]convPWCh) {
	if t.exact {
		for j := range out {
			out[j] = int8(t.hi - convPWQ(a[j]+c[j].bias, &c[j], t.span))
		}
		return
	}
	for j := range out {
		out[j] = int8(clampI32(rqApply(a[j]+t.bias[j], &t.q[j])+t.zo, t.lo, t.hi))
	}
}

// dwWin4 sets a to the sums over a window of four channels: (input + off)
// * weight, t.m rows of t.n taps (t.n, t.m > 0), each tap's four inputs
// and four weights contiguous. Not inlined: with few values live, gc
// keeps the sums, the pointers and the count in registers.
//
//go:noinline
func dwWin4(x, w unsafe.Pointer, t *dwBlockT, a *[4]int32) {
	var a0, a1, a2, a3 int32
	xs, ws, off := t.xs, t.ws, t.off
	for m := t.m; ; {
		xk, wk := x, w
		// The pointers step only when another tap follows: they never
		// point past the window.
		for n := t.n; ; {
			p, q := (*[4]int8)(xk), (*[4]int8)(wk)
			a0 += (int32(p[0]) + off) * int32(q[0])
			a1 += (int32(p[1]) + off) * int32(q[1])
			a2 += (int32(p[2]) + off) * int32(q[2])
			a3 += (int32(p[3]) + off) * int32(q[3])
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
