package kernels

import "unsafe"

// avgPoolInt8Blocks and maxPoolInt8Blocks are avgPoolInt8 and maxPoolInt8
// for a depth that is a multiple of four: four channels a pass over the
// window, their sums or maxima in registers (poolWin4Sum, poolWin4Max),
// where the per-channel loops walk the window once a channel. The gc
// build's pooling kernels.

// avgPoolInt8Blocks is avgPoolInt8 for a depth that is a multiple of four.
func avgPoolInt8Blocks(p *poolParams, in, out []int8) {
	d := p.depth
	row := p.inW * d
	img := p.inH * row
	o := 0
	for b := 0; b < p.batches; b++ {
		base := b * img
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			fy0, fy1 := poolWindow(iy0, p.filterH, p.inH)
			for ox := 0; ox < p.outW; ox++ {
				ix0 := ox*p.strideW - p.padW
				fx0, fx1 := poolWindow(ix0, p.filterW, p.inW)
				ny, nx := fy1-fy0, fx1-fx0
				n := int32(ny * nx)
				dst := out[o : o+d]
				o += d
				if n <= 0 || n > poolRecipMax {
					// An empty window, or one too large for the
					// reciprocal: the per-channel loop.
					start := base + (iy0+fy0)*row + (ix0+fx0)*d
					for c := range dst {
						acc := poolSumI8(in, start+c, row, nx*d, d, ny)
						dst[c] = int8(clampI32(poolAvgRound(acc, n), p.actMin, p.actMax))
					}
					continue
				}
				start := base + (iy0+fy0)*row + (ix0+fx0)*d
				// The window's last four values, once: poolWin4Sum reads
				// through unsafe.Add.
				_ = in[start+(ny-1)*row+(nx-1)*d+d-1]
				rcp, h := poolRecip(n), uint32(n/2)
				for c := 0; c < d; c += 4 {
					var a [4]int32
					poolWin4Sum(unsafe.Pointer(&in[start+c]), ny, nx, row, d, &a)
					q := dst[c : c+4]
					for j, acc := range a {
						// poolAvgRound by the reciprocal: |acc| <= 128n.
						s := acc >> 31
						v := int32((uint64(uint32((acc^s)-s)+h) * rcp) >> 40)
						q[j] = int8(clampI32((v^s)-s, p.actMin, p.actMax))
					}
				}
			}
		}
	}
}

// maxPoolInt8Blocks is maxPoolInt8 for a depth that is a multiple of four.
func maxPoolInt8Blocks(p *poolParams, in, out []int8) {
	d := p.depth
	row := p.inW * d
	img := p.inH * row
	o := 0
	for b := 0; b < p.batches; b++ {
		base := b * img
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			fy0, fy1 := poolWindow(iy0, p.filterH, p.inH)
			for ox := 0; ox < p.outW; ox++ {
				ix0 := ox*p.strideW - p.padW
				fx0, fx1 := poolWindow(ix0, p.filterW, p.inW)
				ny, nx := fy1-fy0, fx1-fx0
				dst := out[o : o+d]
				o += d
				if ny <= 0 || nx <= 0 {
					// An empty window: the clamped -128 of maxPoolInt8.
					for c := range dst {
						dst[c] = int8(clampI32(-128, p.actMin, p.actMax))
					}
					continue
				}
				start := base + (iy0+fy0)*row + (ix0+fx0)*d
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
		}
	}
}

// poolWin4Sum adds to a the values of four channels in a window of ny
// rows (> 0) of nx values (> 0) from x: rows row bytes apart, values step
// bytes apart. Not inlined: with few values live, gc keeps the sums, the
// pointers and the counts in registers.
//
//go:noinline
func poolWin4Sum(x unsafe.Pointer, ny, nx, row, step int, a *[4]int32) {
	a0, a1, a2, a3 := a[0], a[1], a[2], a[3]
	// The pointers step only when another value or row follows: they
	// never point past the window.
	for {
		v := x
		for k := nx; ; {
			q := (*[4]int8)(v)
			a0 += int32(q[0])
			a1 += int32(q[1])
			a2 += int32(q[2])
			a3 += int32(q[3])
			if k--; k == 0 {
				break
			}
			v = unsafe.Add(v, step)
		}
		if ny--; ny == 0 {
			break
		}
		x = unsafe.Add(x, row)
	}
	a[0], a[1], a[2], a[3] = a0, a1, a2, a3
}

// poolWin4Max raises the maxima m to the values of four channels in a
// window laid out as poolWin4Sum's.
//
//go:noinline
func poolWin4Max(x unsafe.Pointer, ny, nx, row, step int, m *[4]int32) {
	m0, m1, m2, m3 := m[0], m[1], m[2], m[3]
	for {
		v := x
		for k := nx; ; {
			q := (*[4]int8)(v)
			m0 = max(m0, int32(q[0]))
			m1 = max(m1, int32(q[1]))
			m2 = max(m2, int32(q[2]))
			m3 = max(m3, int32(q[3]))
			if k--; k == 0 {
				break
			}
			v = unsafe.Add(v, step)
		}
		if ny--; ny == 0 {
			break
		}
		x = unsafe.Add(x, row)
	}
	m[0], m[1], m[2], m[3] = m0, m1, m2, m3
}
