package kernels

// DEPTHWISE_CONV_2D, as in TFLite Micro's reference kernels. The filter is
// [1, filterH, filterW, outC] with outC = inC * depthMul; output channel
// oc = ic*depthMul + m reads input channel ic only. Taps in the padding are
// skipped (the input zero point applies to taps inside the image only).

// dwParams describes one DEPTHWISE_CONV_2D operator, fixed at generation
// time; integer kernels ignore the float bounds and vice versa.
type dwParams struct {
	batches              int
	inH, inW, inC        int
	filterH, filterW     int
	outH, outW, outC     int
	depthMul             int
	strideH, strideW     int
	dilationH, dilationW int
	padH, padW           int   // padding before the first row / column
	inOffset             int32 // minus the input zero point (int8)
	outOffset            int32 // output zero point (int8)
	actMin, actMax       int32 // quantized activation bounds
	fActMin, fActMax     float32
}

// dwTaps returns the half-open range [lo, hi) of filter taps k for which
// origin + k*dilation lies inside [0, size).
func dwTaps(origin, dilation, taps, size int) (lo, hi int) {
	for lo < taps && origin+lo*dilation < 0 {
		lo++
	}
	hi = taps
	for hi > lo && origin+(hi-1)*dilation >= size {
		hi--
	}
	return lo, hi
}

// dwBlock is how many output channels dwInt8 accumulates at once, in a
// small array on the stack, so the innermost loop runs over contiguous
// channels of the input pixel and of the filter tap.
const dwBlock = 16

// dwInt8 is the int8 depthwise convolution with int8 per-channel weights and
// an int32 bias ("" when absent); mult and shift hold one int32 multiplier
// and exponent per output channel. It needs no scratch memory. Each output
// is the same int32 sum as the reference's, tap by tap in the same order.
func dwInt8(p *dwParams, in, filter []int8, bias, mult, shift string, out []int8) {
	inRow := p.inW * p.inC
	inImg := p.inH * inRow
	fRow := p.filterW * p.outC
	inOff := p.inOffset
	dm := p.depthMul
	var acc [dwBlock]int32
	o := 0
	for b := 0; b < p.batches; b++ {
		img := in[b*inImg : (b+1)*inImg]
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			fy0, fy1 := dwTaps(iy0, p.dilationH, p.filterH, p.inH)
			for ox := 0; ox < p.outW; ox++ {
				ix0 := ox*p.strideW - p.padW
				fx0, fx1 := dwTaps(ix0, p.dilationW, p.filterW, p.inW)
				c0 := 0
				if p.inC == 1 && p.dilationW == 1 {
					// One input channel, contiguous taps: eight channels at
					// a time in registers, walking the input row and the
					// filter row together (1.45x the loop below; with depth
					// multiplier 1 registers gain nothing measurable).
					for ; c0+8 <= p.outC; c0 += 8 {
						var s0, s1, s2, s3, s4, s5, s6, s7 int32
						for fy := fy0; fy < fy1; fy++ {
							rowIn := (iy0 + fy*p.dilationH) * inRow
							rowF := fy*fRow + c0
							xr := img[rowIn+ix0+fx0 : rowIn+ix0+fx1]
							wr := filter[rowF+fx0*p.outC : rowF+(fx1-1)*p.outC+8]
							for k, xb := range xr {
								if k*p.outC+8 > len(wr) {
									break
								}
								w := wr[k*p.outC : k*p.outC+8 : k*p.outC+8]
								xv := int32(xb) + inOff
								s0 += int32(w[0]) * xv
								s1 += int32(w[1]) * xv
								s2 += int32(w[2]) * xv
								s3 += int32(w[3]) * xv
								s4 += int32(w[4]) * xv
								s5 += int32(w[5]) * xv
								s6 += int32(w[6]) * xv
								s7 += int32(w[7]) * xv
							}
						}
						acc = [dwBlock]int32{s0, s1, s2, s3, s4, s5, s6, s7}
						dwFinish(acc[:8], c0, bias, mult, shift, p.outOffset, p.actMin, p.actMax, out[o:o+p.outC])
					}
				}
				for ; c0 < p.outC; c0 += dwBlock {
					n := min(dwBlock, p.outC-c0)
					a := acc[:n]
					clear(a)
					for fy := fy0; fy < fy1; fy++ {
						rowIn := (iy0 + fy*p.dilationH) * inRow
						rowF := fy*fRow + c0
						for fx := fx0; fx < fx1; fx++ {
							px := rowIn + (ix0+fx*p.dilationW)*p.inC
							w := filter[rowF+fx*p.outC : rowF+fx*p.outC+n]
							w = w[:len(a)]
							switch {
							case dm == 1:
								x := img[px+c0 : px+c0+n]
								x = x[:len(a)]
								for j := range a {
									a[j] += int32(w[j]) * (int32(x[j]) + inOff)
								}
								continue
							case p.inC == 1:
								// One input channel feeds every output.
								xv := int32(img[px]) + inOff
								for j := range a {
									a[j] += int32(w[j]) * xv
								}
								continue
							}
							ic, m := c0/dm, c0%dm
							for j := range a {
								a[j] += int32(w[j]) * (int32(img[px+ic]) + inOff)
								if m++; m == dm {
									m = 0
									ic++
								}
							}
						}
					}
					dwFinish(a, c0, bias, mult, shift, p.outOffset, p.actMin, p.actMax, out[o:o+p.outC])
				}
				o += p.outC
			}
		}
	}
}

// dwFinish adds the bias to the sums a of output channels c0.., requantizes
// them per channel (mult, shift), adds the output zero point zo, clamps to
// [lo, hi] and writes them to the pixel's outputs. convLeanInt8 uses it too.
func dwFinish(a []int32, c0 int, bias, mult, shift string, zo, lo, hi int32, out []int8) {
	for j, v := range a {
		oc := c0 + j
		if len(bias) != 0 {
			v += ld32(bias, oc)
		}
		v = dwRescale(v, ld32(mult, oc), int(ld32(shift, oc)))
		out[oc] = int8(clampI32(v+zo, lo, hi))
	}
}

// dwRescale is mulByQuantMul computed as fcRescale's single 64-bit multiply
// (bit-exact for the multipliers and exponents quant.Multiplier produces;
// anything else takes the reference path).
func dwRescale(x, m int32, shift int) int32 {
	q, ok := fcRQFor(m, shift)
	if !ok {
		return mulByQuantMul(x, m, shift)
	}
	return fcRescale(x, q)
}

// dwInt16 is the 16x8 depthwise convolution (int16 activations, int8
// weights) with a 64-bit accumulator and an int64 bias ("" when absent).
// Activation zero points are zero by construction and not applied.
func dwInt16(p *dwParams, in []int16, filter []int8, bias, mult, shift string, out []int16) {
	inRow := p.inW * p.inC
	inImg := p.inH * inRow
	fRow := p.filterW * p.outC
	o := 0
	for b := 0; b < p.batches; b++ {
		img := in[b*inImg : (b+1)*inImg]
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			fy0, fy1 := dwTaps(iy0, p.dilationH, p.filterH, p.inH)
			for ox := 0; ox < p.outW; ox++ {
				ix0 := ox*p.strideW - p.padW
				fx0, fx1 := dwTaps(ix0, p.dilationW, p.filterW, p.inW)
				for ic := 0; ic < p.inC; ic++ {
					for m := 0; m < p.depthMul; m++ {
						oc := ic*p.depthMul + m
						acc := int64(0)
						for fy := fy0; fy < fy1; fy++ {
							rowIn := (iy0+fy*p.dilationH)*inRow + ic
							rowF := fy*fRow + oc
							for fx := fx0; fx < fx1; fx++ {
								x := int64(img[rowIn+(ix0+fx*p.dilationW)*p.inC])
								acc += int64(filter[rowF+fx*p.outC]) * x
							}
						}
						if len(bias) != 0 {
							acc += ld64(bias, oc)
						}
						v := mulByQuantMul64(acc, ld32(mult, oc), int(ld32(shift, oc)))
						out[o+oc] = int16(clampI32(v, p.actMin, p.actMax))
					}
				}
				o += p.outC
			}
		}
	}
}

// dwF32 is the float32 depthwise convolution; filter and bias ("" when
// absent) are constant little-endian float32 data. Products are rounded to
// float32 before they are summed, in the reference's order.
func dwF32(p *dwParams, in []float32, filter, bias string, out []float32) {
	inRow := p.inW * p.inC
	inImg := p.inH * inRow
	fRow := p.filterW * p.outC
	o := 0
	for b := 0; b < p.batches; b++ {
		img := in[b*inImg : (b+1)*inImg]
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			fy0, fy1 := dwTaps(iy0, p.dilationH, p.filterH, p.inH)
			for ox := 0; ox < p.outW; ox++ {
				ix0 := ox*p.strideW - p.padW
				fx0, fx1 := dwTaps(ix0, p.dilationW, p.filterW, p.inW)
				for ic := 0; ic < p.inC; ic++ {
					for m := 0; m < p.depthMul; m++ {
						oc := ic*p.depthMul + m
						total := float32(0)
						for fy := fy0; fy < fy1; fy++ {
							rowIn := (iy0+fy*p.dilationH)*inRow + ic
							rowF := fy*fRow + oc
							for fx := fx0; fx < fx1; fx++ {
								x := img[rowIn+(ix0+fx*p.dilationW)*p.inC]
								total += float32(x * ldf32(filter, rowF+fx*p.outC))
							}
						}
						bv := float32(0)
						if len(bias) != 0 {
							bv = ldf32(bias, oc)
						}
						out[o+oc] = clampF32(total+bv, p.fActMin, p.fActMax)
					}
				}
				o += p.outC
			}
		}
	}
}
