package kernels

// CONV_2D, as in TFLite Micro's reference kernels: a direct NHWC convolution
// with per-channel requantization for the integer variants. Filters are
// [outC, filterH, filterW, filterC] where filterC = inC / groups (grouped
// convolution when filterC < inC). Taps that fall into the padding are
// skipped, exactly as the reference skips them, so the input zero point is
// only applied to taps inside the image.
//
// For each output pixel the range of filter rows and columns that land
// inside the input is worked out once (convTaps), so the innermost loop is a
// plain dot product over contiguous channels.

// convParams describes one CONV_2D operator. Everything is fixed at
// generation time; integer kernels ignore the float bounds and vice versa.
type convParams struct {
	batches              int
	inH, inW, inC        int
	filterH, filterW     int
	filterC              int // input channels per group (filter dim 3)
	outH, outW, outC     int
	groupOutC            int // output channels per group
	strideH, strideW     int
	dilationH, dilationW int
	padH, padW           int   // padding before the first row / column
	inOffset             int32 // minus the input zero point (int8)
	outOffset            int32 // output zero point (int8)
	actMin, actMax       int32 // quantized activation bounds
	fActMin, fActMax     float32
}

// convTaps returns the half-open range [lo, hi) of filter taps k for which
// origin + k*dilation lies inside [0, size).
func convTaps(origin, dilation, taps, size int) (lo, hi int) {
	for lo < taps && origin+lo*dilation < 0 {
		lo++
	}
	hi = taps
	for hi > lo && origin+(hi-1)*dilation >= size {
		hi--
	}
	return lo, hi
}

// convInt8 is the int8 convolution with int8 per-channel weights and an
// int32 bias (bias is "" when the operator has none). mult and shift hold
// one int32 multiplier and exponent per output channel.
func convInt8(p *convParams, in, filter []int8, bias, mult, shift string, out []int8) {
	inRow := p.inW * p.inC
	inImg := p.inH * inRow
	cin := p.filterC
	fRow := p.filterW * cin
	fSize := p.filterH * fRow
	inOff := p.inOffset
	o := 0
	for b := 0; b < p.batches; b++ {
		img := in[b*inImg : (b+1)*inImg]
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			fy0, fy1 := convTaps(iy0, p.dilationH, p.filterH, p.inH)
			for ox := 0; ox < p.outW; ox++ {
				ix0 := ox*p.strideW - p.padW
				fx0, fx1 := convTaps(ix0, p.dilationW, p.filterW, p.inW)
				cbase, left := 0, p.groupOutC
				for oc := 0; oc < p.outC; oc++ {
					fc := filter[oc*fSize : (oc+1)*fSize]
					acc := int32(0)
					for fy := fy0; fy < fy1; fy++ {
						rowIn := (iy0+fy*p.dilationH)*inRow + cbase
						rowF := fy * fRow
						for fx := fx0; fx < fx1; fx++ {
							x := img[rowIn+(ix0+fx*p.dilationW)*p.inC:]
							w := fc[rowF+fx*cin : rowF+fx*cin+cin]
							x = x[:len(w)]
							for i, wv := range w {
								acc += int32(wv) * (int32(x[i]) + inOff)
							}
						}
					}
					if len(bias) != 0 {
						acc += ld32(bias, oc)
					}
					acc = mulByQuantMul(acc, ld32(mult, oc), int(ld32(shift, oc)))
					out[o] = int8(clampI32(acc+p.outOffset, p.actMin, p.actMax))
					o++
					if left--; left == 0 {
						cbase, left = cbase+cin, p.groupOutC
					}
				}
			}
		}
	}
}

// convInt16 is the 16x8 convolution (int16 activations, int8 weights) with a
// 64-bit accumulator and an int64 bias ("" when absent). Activation zero
// points are zero by construction and not applied.
func convInt16(p *convParams, in []int16, filter []int8, bias, mult, shift string, out []int16) {
	inRow := p.inW * p.inC
	inImg := p.inH * inRow
	cin := p.filterC
	fRow := p.filterW * cin
	fSize := p.filterH * fRow
	// Ungrouped and without horizontal dilation, a window row is one run
	// of values: one dot product (fcDotI16) a row.
	contiguous := cin == p.inC && p.dilationW == 1
	o := 0
	for b := 0; b < p.batches; b++ {
		img := in[b*inImg : (b+1)*inImg]
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			fy0, fy1 := convTaps(iy0, p.dilationH, p.filterH, p.inH)
			for ox := 0; ox < p.outW; ox++ {
				ix0 := ox*p.strideW - p.padW
				fx0, fx1 := convTaps(ix0, p.dilationW, p.filterW, p.inW)
				cbase, left := 0, p.groupOutC
				for oc := 0; oc < p.outC; oc++ {
					fc := filter[oc*fSize : (oc+1)*fSize]
					acc := int64(0)
					for fy := fy0; fy < fy1; fy++ {
						rowIn := (iy0+fy*p.dilationH)*inRow + cbase
						rowF := fy * fRow
						if contiguous {
							// The window's row is one run of input and
							// filter values.
							x := img[rowIn+(ix0+fx0)*cin:]
							acc += fcDotI16(x[:(fx1-fx0)*cin], fc[rowF+fx0*cin:rowF+fx1*cin])
							continue
						}
						for fx := fx0; fx < fx1; fx++ {
							x := img[rowIn+(ix0+fx*p.dilationW)*p.inC:]
							w := fc[rowF+fx*cin : rowF+fx*cin+cin]
							x = x[:len(w)]
							for i, wv := range w {
								acc += int64(int32(wv) * int32(x[i]))
							}
						}
					}
					if len(bias) != 0 {
						acc += ld64(bias, oc)
					}
					v := mulByQuantMul64(acc, ld32(mult, oc), int(ld32(shift, oc)))
					out[o] = int16(clampI32(v, p.actMin, p.actMax))
					o++
					if left--; left == 0 {
						cbase, left = cbase+cin, p.groupOutC
					}
				}
			}
		}
	}
}

// convInt16Acc32 is the 16x8 convolution for models whose bias (or declared
// quantized bias type) is int32: TFLite Micro then accumulates in 32 bits
// (wrapping) and rescales with the 32-bit multiplier.
func convInt16Acc32(p *convParams, in []int16, filter []int8, bias, mult, shift string, out []int16) {
	inRow := p.inW * p.inC
	inImg := p.inH * inRow
	cin := p.filterC
	fRow := p.filterW * cin
	fSize := p.filterH * fRow
	o := 0
	for b := 0; b < p.batches; b++ {
		img := in[b*inImg : (b+1)*inImg]
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			fy0, fy1 := convTaps(iy0, p.dilationH, p.filterH, p.inH)
			for ox := 0; ox < p.outW; ox++ {
				ix0 := ox*p.strideW - p.padW
				fx0, fx1 := convTaps(ix0, p.dilationW, p.filterW, p.inW)
				cbase, left := 0, p.groupOutC
				for oc := 0; oc < p.outC; oc++ {
					fc := filter[oc*fSize : (oc+1)*fSize]
					acc := int32(0)
					for fy := fy0; fy < fy1; fy++ {
						rowIn := (iy0+fy*p.dilationH)*inRow + cbase
						rowF := fy * fRow
						for fx := fx0; fx < fx1; fx++ {
							x := img[rowIn+(ix0+fx*p.dilationW)*p.inC:]
							w := fc[rowF+fx*cin : rowF+fx*cin+cin]
							x = x[:len(w)]
							for i, wv := range w {
								acc += int32(wv) * int32(x[i])
							}
						}
					}
					if len(bias) != 0 {
						acc += ld32(bias, oc)
					}
					acc = mulByQuantMul(acc, ld32(mult, oc), int(ld32(shift, oc)))
					out[o] = int16(clampI32(acc, p.actMin, p.actMax))
					o++
					if left--; left == 0 {
						cbase, left = cbase+cin, p.groupOutC
					}
				}
			}
		}
	}
}

// convF32 is the float32 convolution. filter and bias ("" when absent) are
// constant little-endian float32 data. Products are rounded to float32
// before they are summed (no fused multiply-add), in the reference's order.
// In the build for gc, filters of at most convF32MaxK values go to
// convF32W.
func convF32(p *convParams, in []float32, filter, bias string, out []float32) {
	fSize := p.filterH * p.filterW * p.filterC
	if convF32Copy && fSize <= convF32MaxK {
		convF32W(p, in, filter, bias, out)
		return
	}
	convF32Taps(p, in, filter, bias, out)
}

// convF32Taps is convF32 pixel by pixel and channel by channel, each weight
// decoded where it is used.
func convF32Taps(p *convParams, in []float32, filter, bias string, out []float32) {
	inRow := p.inW * p.inC
	inImg := p.inH * inRow
	cin := p.filterC
	fRow := p.filterW * cin
	fSize := p.filterH * fRow
	o := 0
	for b := 0; b < p.batches; b++ {
		img := in[b*inImg : (b+1)*inImg]
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			fy0, fy1 := convTaps(iy0, p.dilationH, p.filterH, p.inH)
			for ox := 0; ox < p.outW; ox++ {
				ix0 := ox*p.strideW - p.padW
				fx0, fx1 := convTaps(ix0, p.dilationW, p.filterW, p.inW)
				cbase, left := 0, p.groupOutC
				for oc := 0; oc < p.outC; oc++ {
					fBase := oc * fSize
					total := float32(0)
					for fy := fy0; fy < fy1; fy++ {
						rowIn := (iy0+fy*p.dilationH)*inRow + cbase
						rowF := fBase + fy*fRow
						for fx := fx0; fx < fx1; fx++ {
							x := img[rowIn+(ix0+fx*p.dilationW)*p.inC:]
							x = x[:cin]
							wi := rowF + fx*cin
							for i, xv := range x {
								total += float32(xv * ldf32(filter, wi+i))
							}
						}
					}
					bv := float32(0)
					if len(bias) != 0 {
						bv = ldf32(bias, oc)
					}
					out[o] = clampF32(total+bv, p.fActMin, p.fActMax)
					o++
					if left--; left == 0 {
						cbase, left = cbase+cin, p.groupOutC
					}
				}
			}
		}
	}
}
