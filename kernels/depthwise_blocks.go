package kernels

import "unsafe"

// dwInt8Blocks is dwInt8 for depth multiplier 1 and a channel count that is
// a multiple of four, with no scratch: four channels a pass over the
// window, their sums in registers (dwRow4, once per window row), where
// dwInt8's general loop keeps them in memory. The gc build's depthwise
// kernel for the shapes its own fast kernels (3x3, a ring of rows in
// scratch) do not take; filter is the model's [fH][fW][C] weights, rq one
// fcRQRecordLen record a channel (its bias and requantization, rescaled as
// rqApply does: one 32x32->64 multiply).
func dwInt8Blocks(p *dwParams, in, filter []int8, rq string, out []int8) {
	c := p.inC
	inRow := p.inW * c
	inImg := p.inH * inRow
	fRow := p.filterW * c
	o := 0
	for b := 0; b < p.batches; b++ {
		img := in[b*inImg : (b+1)*inImg]
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			fy0, fy1 := dwTaps(iy0, p.dilationH, p.filterH, p.inH)
			for ox := 0; ox < p.outW; ox++ {
				ix0 := ox*p.strideW - p.padW
				fx0, fx1 := dwTaps(ix0, p.dilationW, p.filterW, p.inW)
				px := out[o : o+c]
				for c0 := 0; c0 < c; c0 += 4 {
					var a [4]int32
					// dwRow4 walks the window's longer side (a Kx1
					// filter's column), once per tap of the other.
					ny, nx := fy1-fy0, fx1-fx0
					if ny > 0 && nx > 0 {
						x0 := (iy0+fy0*p.dilationH)*inRow + (ix0+fx0*p.dilationW)*c + c0
						w0 := fy0*fRow + fx0*c + c0
						xs, ws, xo, wo := p.dilationW*c, c, p.dilationH*inRow, fRow
						n, m := nx, ny
						if ny > nx {
							xs, ws, xo, wo, n, m = xo, wo, xs, ws, ny, nx
						}
						// The last tap's four values, once: dwRow4 reads
						// through unsafe.Add.
						_ = img[x0+(n-1)*xs+(m-1)*xo+3]
						_ = filter[w0+(n-1)*ws+(m-1)*wo+3]
						for k := range m {
							dwRow4(unsafe.Pointer(&img[x0+k*xo]), unsafe.Pointer(&filter[w0+k*wo]), n, xs, ws, p.inOffset, &a)
						}
					}
					dwFinish4(&a, rq[fcRQRecordLen*c0:fcRQRecordLen*c0+4*fcRQRecordLen], p.outOffset, p.actMin, p.actMax, px[c0:c0+4])
				}
				o += c
			}
		}
	}
}

// dwRow4 adds to a the sums over n (> 0) taps of four channels: (input +
// off) * weight, the taps' four inputs xStep bytes apart from x and their
// four weights wStep bytes apart from w. Not inlined: with few values
// live, gc keeps the sums, the pointers and the count in registers.
//
//go:noinline
func dwRow4(x, w unsafe.Pointer, n, xStep, wStep int, off int32, a *[4]int32) {
	a0, a1, a2, a3 := a[0], a[1], a[2], a[3]
	// The pointers step only when another tap follows: they never point
	// past the window.
	for {
		p, q := (*[4]int8)(x), (*[4]int8)(w)
		a0 += (int32(p[0]) + off) * int32(q[0])
		a1 += (int32(p[1]) + off) * int32(q[1])
		a2 += (int32(p[2]) + off) * int32(q[2])
		a3 += (int32(p[3]) + off) * int32(q[3])
		if n--; n == 0 {
			break
		}
		x, w = unsafe.Add(x, xStep), unsafe.Add(w, wStep)
	}
	a[0], a[1], a[2], a[3] = a0, a1, a2, a3
}

// dwFinish4 adds to the sums a their records' biases, requantizes them
// (rqApply), adds the output zero point zo, clamps to [lo, hi] and writes
// them to out.
func dwFinish4(a *[4]int32, rq string, zo, lo, hi int32, out []int8) {
	rq = rq[:4*fcRQRecordLen]
	out = out[:4]
	for j := range 4 {
		t := rq[fcRQRecordLen*j : fcRQRecordLen*j+fcRQRecordLen]
		q := rqFromFC(ld32(t, 1), t[12], t[13])
		out[j] = int8(clampI32(rqApply(a[j]+ld32(t, 0), &q)+zo, lo, hi))
	}
}
