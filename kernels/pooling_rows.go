package kernels

import "unsafe"

// maxPoolInt8Rows and avgPoolInt8Rows are maxPoolInt8Blocks and
// avgPoolInt8Blocks (a depth that is a multiple of four) with the
// pixels of an output row whose windows have the same shape in one call:
// the interior pixels of the row in one run, each edge pixel in a run of
// its own, a channel a step with the window's taps at fixed offsets
// (poolMaxRun*, poolAvgRun*). Where gc spends more on a pixel's setup
// than on its taps (2x2 windows), that setup is done once a row. Max
// pooling takes windows up to 3x3: a tap repeated in place of one outside
// the image leaves a maximum as it is. Average pooling takes windows of
// 2 or 3 taps a side and divides by one multiply (poolAvgRecip). Other
// windows go through the blocks kernels' per-pixel loops. The clamp is a
// pass over the run's outputs, where the activation bounds clamp at all.
// The gc build's pooling kernels.

// maxPoolInt8Rows is maxPoolInt8 for a depth that is a multiple of four.
func maxPoolInt8Rows(p *poolParams, in, out []int8) {
	d := p.depth
	row := p.inW * d
	img := p.inH * row
	od := p.outW * d
	xa, xb := poolInterior(p)
	clamp := p.actMin > -128 || p.actMax < 127
	o := 0
	for b := 0; b < p.batches; b++ {
		base := b * img
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			fy0, fy1 := poolWindow(iy0, p.filterH, p.inH)
			ny := fy1 - fy0
			dst := out[o : o+od]
			o += od
			r0 := base + (iy0+fy0)*row
			for ox := 0; ox < p.outW; {
				ix0 := ox*p.strideW - p.padW
				fx0, fx1 := poolWindow(ix0, p.filterW, p.inW)
				nx := fx1 - fx0
				if ny <= 0 || nx <= 0 || ny > 3 || nx > 3 {
					maxPoolPixel4(p, in, dst[ox*d:ox*d+d], r0, ny, ix0+fx0, nx)
					ox++
					continue
				}
				n := 1
				if ox == xa {
					n = xb - xa
				}
				x := r0 + (ix0+fx0)*d
				_ = in[x+(n-1)*p.strideW*d+(ny-1)*row+nx*d-1]
				q := dst[ox*d : (ox+n)*d]
				r1, c1 := min(ny-1, 1)*row, min(nx-1, 1)*d
				if ny <= 2 && nx <= 2 {
					poolMaxRun2(unsafe.Pointer(&in[x]), unsafe.Pointer(&q[0]), n, d, p.strideW*d, r1, c1)
				} else {
					poolMaxRun3(unsafe.Pointer(&in[x]), unsafe.Pointer(&q[0]), n, d, p.strideW*d, r1, (ny-1)*row, c1, (nx-1)*d)
				}
				if clamp {
					poolClamp(q, p.actMin, p.actMax)
				}
				ox += n
			}
		}
	}
}

// maxPoolPixel4 is maxPoolInt8Blocks's output pixel: window rows ny from
// r0, columns nx from column ix.
func maxPoolPixel4(p *poolParams, in, dst []int8, r0, ny, ix, nx int) {
	d := p.depth
	if ny <= 0 || nx <= 0 {
		for c := range dst {
			dst[c] = int8(clampI32(-128, p.actMin, p.actMax))
		}
		return
	}
	row := p.inW * d
	start := r0 + ix*d
	_ = in[start+(ny-1)*row+(nx-1)*d+d-1]
	for c := 0; c < d; c += 4 {
		a := [4]int32{-128, -128, -128, -128}
		poolWin4Max(unsafe.Pointer(&in[start+c]), ny, nx, row, d, &a)
		q := dst[c : c+4]
		for j, m := range a {
			q[j] = int8(clampI32(m, p.actMin, p.actMax))
		}
	}
}

// poolClamp clamps q to [lo, hi].
//
//go:noinline
func poolClamp(q []int8, lo, hi int32) {
	l, h := int8(lo), int8(hi)
	for i, v := range q {
		q[i] = min(max(v, l), h)
	}
}

// poolMaxRun2 writes to o the maxima of n pixels' windows of two columns
// (c1 bytes apart, 0 for one) by two rows (r1 bytes apart, 0 for one)
// from x, the pixels sx bytes apart, d channels each. Not inlined: with
// few values live, gc keeps them in registers.
//
//go:noinline
func poolMaxRun2(x, o unsafe.Pointer, n, d, sx, r1, c1 int) {
	for {
		a := x
		e := unsafe.Add(o, d-1)
		for {
			b := unsafe.Add(a, r1)
			m := max(int32(*(*int8)(a)), int32(*(*int8)(unsafe.Add(a, c1))))
			m = max(m, int32(*(*int8)(b)), int32(*(*int8)(unsafe.Add(b, c1))))
			*(*int8)(o) = int8(m)
			if o == e {
				break
			}
			a = unsafe.Add(a, 1)
			o = unsafe.Add(o, 1)
		}
		if n--; n == 0 {
			break
		}
		o = unsafe.Add(o, 1)
		x = unsafe.Add(x, sx)
	}
}

// poolMaxRun3 is poolMaxRun2 for windows of three columns (at 0, c1, c2)
// by three rows (at 0, r1, r2).
//
//go:noinline
func poolMaxRun3(x, o unsafe.Pointer, n, d, sx, r1, r2, c1, c2 int) {
	for {
		a := x
		e := unsafe.Add(o, d-1)
		for {
			b := unsafe.Add(a, r1)
			c := unsafe.Add(a, r2)
			m := max(int32(*(*int8)(a)), int32(*(*int8)(unsafe.Add(a, c1))), int32(*(*int8)(unsafe.Add(a, c2))))
			m = max(m, int32(*(*int8)(b)), int32(*(*int8)(unsafe.Add(b, c1))), int32(*(*int8)(unsafe.Add(b, c2))))
			m = max(m, int32(*(*int8)(c)), int32(*(*int8)(unsafe.Add(c, c1))), int32(*(*int8)(unsafe.Add(c, c2))))
			*(*int8)(o) = int8(m)
			if o == e {
				break
			}
			a = unsafe.Add(a, 1)
			o = unsafe.Add(o, 1)
		}
		if n--; n == 0 {
			break
		}
		o = unsafe.Add(o, 1)
		x = unsafe.Add(x, sx)
	}
}

// avgPoolInt8Rows is avgPoolInt8 for a depth that is a multiple of four.
func avgPoolInt8Rows(p *poolParams, in, out []int8) {
	d := p.depth
	row := p.inW * d
	img := p.inH * row
	od := p.outW * d
	xa, xb := poolInterior(p)
	clamp := p.actMin > -128 || p.actMax < 127
	o := 0
	for b := 0; b < p.batches; b++ {
		base := b * img
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			fy0, fy1 := poolWindow(iy0, p.filterH, p.inH)
			ny := fy1 - fy0
			dst := out[o : o+od]
			o += od
			r0 := base + (iy0+fy0)*row
			for ox := 0; ox < p.outW; {
				ix0 := ox*p.strideW - p.padW
				fx0, fx1 := poolWindow(ix0, p.filterW, p.inW)
				nx := fx1 - fx0
				if ny < 2 || nx < 2 || ny > 3 || nx > 3 {
					avgPoolPixel4(p, in, dst[ox*d:ox*d+d], r0, ny, ix0+fx0, nx)
					ox++
					continue
				}
				n := 1
				if ox == xa {
					n = xb - xa
				}
				x := r0 + (ix0+fx0)*d
				_ = in[x+(n-1)*p.strideW*d+(ny-1)*row+nx*d-1]
				q := dst[ox*d : (ox+n)*d]
				m, k := poolAvgRecip(int32(nx * ny))
				xp, qp, sx := unsafe.Pointer(&in[x]), unsafe.Pointer(&q[0]), p.strideW*d
				switch {
				case nx == 2 && ny == 2:
					poolAvgRun22(xp, qp, n, d, sx, row, m, k)
				case nx == 3 && ny == 3:
					poolAvgRun33(xp, qp, n, d, sx, row, m, k)
				case nx == 3:
					poolAvgRun32(xp, qp, n, d, sx, row, m, k)
				default:
					poolAvgRun23(xp, qp, n, d, sx, row, m, k)
				}
				if clamp {
					poolClamp(q, p.actMin, p.actMax)
				}
				ox += n
			}
		}
	}
}

// avgPoolPixel4 is avgPoolInt8Blocks's output pixel: window rows ny from
// r0, columns nx from column ix.
func avgPoolPixel4(p *poolParams, in, dst []int8, r0, ny, ix, nx int) {
	d := p.depth
	row := p.inW * d
	start := r0 + ix*d
	n := int32(ny * nx)
	if ny <= 0 || nx <= 0 || n > poolRecipMax {
		for c := range dst {
			acc := poolSumI8(in, start+c, row, nx*d, d, ny)
			dst[c] = int8(clampI32(poolAvgRound(acc, n), p.actMin, p.actMax))
		}
		return
	}
	_ = in[start+(ny-1)*row+(nx-1)*d+d-1]
	rcp, h := poolRecip(n), uint32(n/2)
	for c := 0; c < d; c += 4 {
		var a [4]int32
		poolWin4Sum(unsafe.Pointer(&in[start+c]), ny, nx, row, d, &a)
		q := dst[c : c+4]
		for j, acc := range a {
			s := acc >> 31
			v := int32((uint64(uint32((acc^s)-s)+h) * rcp) >> 40)
			q[j] = int8(clampI32((v^s)-s, p.actMin, p.actMax))
		}
	}
}

// poolAvgRecip returns the constants of poolAvgQ for a window of n taps
// (1 <= n <= 9 here; exact for n < 2048).
func poolAvgRecip(n int32) (m uint32, k int32) {
	// floor(2^32/2n) in 32 bits (gc calls the runtime for a 64-bit
	// division): floor((2^32 - 1)/2n), plus one where 2n divides 2^32.
	dd := uint32(2 * n)
	q := ^uint32(0) / dd
	if ^uint32(0)-q*dd == dd-1 {
		q++
	}
	return q + 1, 257 * n
}

// poolAvgQ is the average of a window of n taps whose sum is acc (|acc|
// <= 128n), rounded half away from zero (poolAvgRound), by m, k =
// poolAvgRecip(n): t = 2acc + n - [acc < 0] is the rounded average's
// floor(t / 2n) (for acc < 0, ceil((acc - n/2)/n) = floor((2acc + n -
// 1)/2n)); t + 256n = 2acc + (acc>>31) + k is in [0, 511n], where
// multiplying by m = floor(2^32/2n) + 1 divides by 2n exactly (u*e/2^32 <
// 1/2n for u < 2^32/2n, e <= 1 the excess of m).
func poolAvgQ(acc int32, m uint32, k int32) int8 {
	u := uint32(2*acc + acc>>31 + k)
	return int8(int32(uint32(uint64(u)*uint64(m)>>32)) - 128)
}

// poolAvgRun22 writes to o the averages (poolAvgQ with m, k) of n
// pixels' 2x2 windows from x, rows row bytes apart, the pixels sx bytes
// apart, d channels each. Not inlined: with few values live, gc keeps
// them in registers.
//
//go:noinline
func poolAvgRun22(x, o unsafe.Pointer, n, d, sx, row int, m uint32, k int32) {
	for {
		a := x
		e := unsafe.Add(o, d-1)
		for {
			b := unsafe.Add(a, row)
			acc := int32(*(*int8)(a)) + int32(*(*int8)(unsafe.Add(a, d)))
			acc += int32(*(*int8)(b)) + int32(*(*int8)(unsafe.Add(b, d)))
			*(*int8)(o) = poolAvgQ(acc, m, k)
			if o == e {
				break
			}
			a = unsafe.Add(a, 1)
			o = unsafe.Add(o, 1)
		}
		if n--; n == 0 {
			break
		}
		o = unsafe.Add(o, 1)
		x = unsafe.Add(x, sx)
	}
}

// poolAvgRun33 is poolAvgRun22 for 3x3 windows.
//
//go:noinline
func poolAvgRun33(x, o unsafe.Pointer, n, d, sx, row int, m uint32, k int32) {
	d2 := 2 * d
	for {
		a := x
		e := unsafe.Add(o, d-1)
		for {
			acc := int32(*(*int8)(a)) + int32(*(*int8)(unsafe.Add(a, d))) + int32(*(*int8)(unsafe.Add(a, d2)))
			b := unsafe.Add(a, row)
			acc += int32(*(*int8)(b)) + int32(*(*int8)(unsafe.Add(b, d))) + int32(*(*int8)(unsafe.Add(b, d2)))
			b = unsafe.Add(b, row)
			acc += int32(*(*int8)(b)) + int32(*(*int8)(unsafe.Add(b, d))) + int32(*(*int8)(unsafe.Add(b, d2)))
			*(*int8)(o) = poolAvgQ(acc, m, k)
			if o == e {
				break
			}
			a = unsafe.Add(a, 1)
			o = unsafe.Add(o, 1)
		}
		if n--; n == 0 {
			break
		}
		o = unsafe.Add(o, 1)
		x = unsafe.Add(x, sx)
	}
}

// poolAvgRun32 is poolAvgRun22 for windows of three columns by two rows.
//
//go:noinline
func poolAvgRun32(x, o unsafe.Pointer, n, d, sx, row int, m uint32, k int32) {
	d2 := 2 * d
	for {
		a := x
		e := unsafe.Add(o, d-1)
		for {
			acc := int32(*(*int8)(a)) + int32(*(*int8)(unsafe.Add(a, d))) + int32(*(*int8)(unsafe.Add(a, d2)))
			b := unsafe.Add(a, row)
			acc += int32(*(*int8)(b)) + int32(*(*int8)(unsafe.Add(b, d))) + int32(*(*int8)(unsafe.Add(b, d2)))
			*(*int8)(o) = poolAvgQ(acc, m, k)
			if o == e {
				break
			}
			a = unsafe.Add(a, 1)
			o = unsafe.Add(o, 1)
		}
		if n--; n == 0 {
			break
		}
		o = unsafe.Add(o, 1)
		x = unsafe.Add(x, sx)
	}
}

// poolAvgRun23 is poolAvgRun22 for windows of two columns by three rows.
//
//go:noinline
func poolAvgRun23(x, o unsafe.Pointer, n, d, sx, row int, m uint32, k int32) {
	for {
		a := x
		e := unsafe.Add(o, d-1)
		for {
			acc := int32(*(*int8)(a)) + int32(*(*int8)(unsafe.Add(a, d)))
			b := unsafe.Add(a, row)
			acc += int32(*(*int8)(b)) + int32(*(*int8)(unsafe.Add(b, d)))
			b = unsafe.Add(b, row)
			acc += int32(*(*int8)(b)) + int32(*(*int8)(unsafe.Add(b, d)))
			*(*int8)(o) = poolAvgQ(acc, m, k)
			if o == e {
				break
			}
			a = unsafe.Add(a, 1)
			o = unsafe.Add(o, 1)
		}
		if n--; n == 0 {
			break
		}
		o = unsafe.Add(o, 1)
		x = unsafe.Add(x, sx)
	}
}
