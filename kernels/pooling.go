package kernels

// AVERAGE_POOL_2D and MAX_POOL_2D over NHWC tensors, as in TFLite Micro's
// reference kernels. Window positions that fall into the padding are
// skipped (an average divides by the number of positions inside the image).
// For every output pixel the window's bounds and element count are worked
// out once and shared by all channels. Integer pooling works on the raw
// quantized values: input and output share scale and zero point (checked at
// generation time).

// poolParams describes one pooling operator. Integer kernels ignore the
// float bounds and vice versa.
type poolParams struct {
	batches          int
	inH, inW         int
	depth            int
	outH, outW       int
	strideH, strideW int
	filterH, filterW int
	padH, padW       int // padding before the first row / column
	actMin, actMax   int32
	fActMin, fActMax float32
}

// poolWindow returns the half-open range [lo, hi) of window taps k for which
// origin + k lies inside [0, size).
func poolWindow(origin, taps, size int) (lo, hi int) {
	lo = max(0, -origin)
	hi = min(taps, size-origin)
	return lo, hi
}

// poolAvgRound divides a window sum by its element count n, rounding half
// away from zero as the reference's integer average does.
func poolAvgRound(acc, n int32) int32 {
	if acc > 0 {
		return (acc + n/2) / n
	}
	return (acc - n/2) / n
}

// poolRecipMax bounds the window sizes n for which poolRecip's
// multiply divides exactly the int8 window sums (|sum| + n/2 <= 129n).
const poolRecipMax = 1 << 16

// poolRecip is floor(2^40/n) + 1: for 0 <= x < 2^40/n, (x*poolRecip(n))
// >> 40 is floor(x/n) (the excess x*e/2^40, e <= 1, stays below 1/n).
// For the int8 average's x <= 129n that holds up to n = poolRecipMax.
func poolRecip(n int32) uint64 {
	return 1<<40/uint64(n) + 1
}

// avgPoolInt8 is the int8 average pooling.
func avgPoolInt8(p *poolParams, in, out []int8) {
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
				n := int32((fy1 - fy0) * (fx1 - fx0))
				start := base + (iy0+fy0)*row + (ix0+fx0)*d
				span := (fx1 - fx0) * d
				dst := out[o : o+d]
				if n <= 0 || n > poolRecipMax {
					for c := range dst {
						acc := poolSumI8(in, start+c, row, span, d, fy1-fy0)
						dst[c] = int8(clampI32(poolAvgRound(acc, n), p.actMin, p.actMax))
					}
					o += d
					continue
				}
				rcp, h := poolRecip(n), uint32(n/2)
				for c := range dst {
					acc := poolSumI8(in, start+c, row, span, d, fy1-fy0)
					// poolAvgRound by the reciprocal: |acc| <= 128n.
					s := acc >> 31
					q := int32((uint64(uint32((acc^s)-s)+h) * rcp) >> 40)
					dst[c] = int8(clampI32((q^s)-s, p.actMin, p.actMax))
				}
				o += d
			}
		}
	}
}

// poolSumI8 sums a window's values of one channel: rows rows from r, row
// apart, each span bytes of values d apart.
func poolSumI8(in []int8, r, row, span, d, rows int) int32 {
	var acc int32
	for ; rows > 0; rows, r = rows-1, r+row {
		for i := r; i < r+span; i += d {
			acc += int32(in[i])
		}
	}
	return acc
}

// avgPoolInt16 is the int16 average pooling.
func avgPoolInt16(p *poolParams, in, out []int16) {
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
				n := int32((fy1 - fy0) * (fx1 - fx0))
				start := base + (iy0+fy0)*row + (ix0+fx0)*d
				span := (fx1 - fx0) * d
				dst := out[o : o+d]
				for c := range dst {
					var acc int32
					for y, r := fy0, start+c; y < fy1; y, r = y+1, r+row {
						for i := r; i < r+span; i += d {
							acc += int32(in[i])
						}
					}
					dst[c] = int16(clampI32(poolAvgRound(acc, n), p.actMin, p.actMax))
				}
				o += d
			}
		}
	}
}

// avgPoolF32 is the float average pooling: the window is summed row by row,
// left to right, then divided by the element count, as in the reference.
func avgPoolF32(p *poolParams, in, out []float32) {
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
				n := float32((fy1 - fy0) * (fx1 - fx0))
				start := base + (iy0+fy0)*row + (ix0+fx0)*d
				span := (fx1 - fx0) * d
				dst := out[o : o+d]
				for c := range dst {
					var total float32
					for y, r := fy0, start+c; y < fy1; y, r = y+1, r+row {
						for i := r; i < r+span; i += d {
							total += in[i]
						}
					}
					dst[c] = clampF32(total/n, p.fActMin, p.fActMax)
				}
				o += d
			}
		}
	}
}

// maxPoolInt8 is the int8 max pooling.
func maxPoolInt8(p *poolParams, in, out []int8) {
	d := p.depth
	row := p.inW * d
	img := p.inH * row
	lo, hi := int8(p.actMin), int8(p.actMax)
	o := 0
	for b := 0; b < p.batches; b++ {
		base := b * img
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			fy0, fy1 := poolWindow(iy0, p.filterH, p.inH)
			for ox := 0; ox < p.outW; ox++ {
				ix0 := ox*p.strideW - p.padW
				fx0, fx1 := poolWindow(ix0, p.filterW, p.inW)
				start := base + (iy0+fy0)*row + (ix0+fx0)*d
				span := (fx1 - fx0) * d
				dst := out[o : o+d]
				for c := range dst {
					m := int8(-128)
					for y, r := fy0, start+c; y < fy1; y, r = y+1, r+row {
						for i := r; i < r+span; i += d {
							m = max(m, in[i])
						}
					}
					dst[c] = min(max(m, lo), hi)
				}
				o += d
			}
		}
	}
}

// maxPoolInt16 is the int16 max pooling.
func maxPoolInt16(p *poolParams, in, out []int16) {
	d := p.depth
	row := p.inW * d
	img := p.inH * row
	lo, hi := int16(p.actMin), int16(p.actMax)
	o := 0
	for b := 0; b < p.batches; b++ {
		base := b * img
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			fy0, fy1 := poolWindow(iy0, p.filterH, p.inH)
			for ox := 0; ox < p.outW; ox++ {
				ix0 := ox*p.strideW - p.padW
				fx0, fx1 := poolWindow(ix0, p.filterW, p.inW)
				start := base + (iy0+fy0)*row + (ix0+fx0)*d
				span := (fx1 - fx0) * d
				dst := out[o : o+d]
				for c := range dst {
					m := int16(-32768)
					for y, r := fy0, start+c; y < fy1; y, r = y+1, r+row {
						for i := r; i < r+span; i += d {
							m = max(m, in[i])
						}
					}
					dst[c] = min(max(m, lo), hi)
				}
				o += d
			}
		}
	}
}

// maxPoolF32 is the float max pooling. It keeps the running maximum unless
// a value compares greater, so NaN inputs are passed over as std::max does
// in the reference.
func maxPoolF32(p *poolParams, in, out []float32) {
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
				start := base + (iy0+fy0)*row + (ix0+fx0)*d
				span := (fx1 - fx0) * d
				dst := out[o : o+d]
				for c := range dst {
					m := float32(-3.4028234663852886e38)
					for y, r := fy0, start+c; y < fy1; y, r = y+1, r+row {
						for i := r; i < r+span; i += d {
							if m < in[i] {
								m = in[i]
							}
						}
					}
					dst[c] = clampF32(m, p.fActMin, p.fActMax)
				}
				o += d
			}
		}
	}
}
