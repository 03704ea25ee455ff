package kernels

// TRANSPOSE_CONV, as in TFLite Micro's reference kernels: every input pixel
// scatters input*filter into the output window it covers, then each output
// value gets its bias, is rescaled and clamped. The filter is
// [outC, filterH, filterW, inC]. The integer variants accumulate in a
// planner scratch buffer of one int32 (int8) or int64 (16x8) per output
// element; the float variant accumulates in the output itself. The scatter
// visits input pixels in the reference's order, so every output element
// receives its contributions in the same order (which matters for float32).

// tconvParams describes one TRANSPOSE_CONV operator, fixed at generation
// time; integer kernels ignore the float bounds and vice versa.
type tconvParams struct {
	batches          int
	inH, inW, inC    int
	filterH, filterW int
	outH, outW, outC int
	strideH, strideW int
	padH, padW       int   // padding cut from the top / left of the output
	inOffset         int32 // minus the input zero point (int8)
	outOffset        int32 // output zero point (int8)
	actMin, actMax   int32 // quantized activation bounds
	fActMin, fActMax float32
}

// tconvTaps returns the half-open range [lo, hi) of filter taps k for which
// origin + k lies inside [0, size).
func tconvTaps(origin, taps, size int) (lo, hi int) {
	lo = 0
	if origin < 0 {
		lo = min(-origin, taps)
	}
	hi = min(taps, size-origin)
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

// tconvInt8 is the int8 transpose convolution with int8 per-channel weights
// and an int32 bias ("" when absent). scratch holds one int32 per output
// element; mult and shift one multiplier and exponent per output channel.
func tconvInt8(p *tconvParams, in, filter []int8, bias, mult, shift string, scratch []int32, out []int8) {
	n := p.batches * p.outH * p.outW * p.outC
	acc := scratch[:n]
	for i := range acc {
		acc[i] = 0
	}
	fSize := p.filterH * p.filterW * p.inC
	outRow := p.outW * p.outC
	outImg := p.outH * outRow
	i := 0
	for b := 0; b < p.batches; b++ {
		img := acc[b*outImg : (b+1)*outImg]
		for iy := 0; iy < p.inH; iy++ {
			oy0 := iy*p.strideH - p.padH
			fy0, fy1 := tconvTaps(oy0, p.filterH, p.outH)
			for ix := 0; ix < p.inW; ix++ {
				ox0 := ix*p.strideW - p.padW
				fx0, fx1 := tconvTaps(ox0, p.filterW, p.outW)
				for ic := 0; ic < p.inC; ic++ {
					x := int32(in[i]) + p.inOffset
					i++
					for fy := fy0; fy < fy1; fy++ {
						for fx := fx0; fx < fx1; fx++ {
							dst := img[(oy0+fy)*outRow+(ox0+fx)*p.outC:]
							dst = dst[:p.outC]
							w := (fy*p.filterW+fx)*p.inC + ic
							for oc := range dst {
								dst[oc] += x * int32(filter[oc*fSize+w])
							}
						}
					}
				}
			}
		}
	}
	for base := 0; base < n; base += p.outC {
		for oc := 0; oc < p.outC; oc++ {
			v := acc[base+oc]
			if len(bias) != 0 {
				v += ld32(bias, oc)
			}
			v = mulByQuantMul(v, ld32(mult, oc), int(ld32(shift, oc)))
			out[base+oc] = int8(clampI32(v+p.outOffset, p.actMin, p.actMax))
		}
	}
}

// tconvInt16 is the 16x8 transpose convolution (int16 activations, int8
// weights) with an int64 bias ("" when absent) and one int64 of scratch per
// output element. Activation zero points are zero by construction.
func tconvInt16(p *tconvParams, in []int16, filter []int8, bias, mult, shift string, scratch []int64, out []int16) {
	n := p.batches * p.outH * p.outW * p.outC
	acc := scratch[:n]
	for i := range acc {
		acc[i] = 0
	}
	fSize := p.filterH * p.filterW * p.inC
	outRow := p.outW * p.outC
	outImg := p.outH * outRow
	i := 0
	for b := 0; b < p.batches; b++ {
		img := acc[b*outImg : (b+1)*outImg]
		for iy := 0; iy < p.inH; iy++ {
			oy0 := iy*p.strideH - p.padH
			fy0, fy1 := tconvTaps(oy0, p.filterH, p.outH)
			for ix := 0; ix < p.inW; ix++ {
				ox0 := ix*p.strideW - p.padW
				fx0, fx1 := tconvTaps(ox0, p.filterW, p.outW)
				for ic := 0; ic < p.inC; ic++ {
					x := int32(in[i])
					i++
					for fy := fy0; fy < fy1; fy++ {
						for fx := fx0; fx < fx1; fx++ {
							dst := img[(oy0+fy)*outRow+(ox0+fx)*p.outC:]
							dst = dst[:p.outC]
							w := (fy*p.filterW+fx)*p.inC + ic
							for oc := range dst {
								dst[oc] += int64(x * int32(filter[oc*fSize+w]))
							}
						}
					}
				}
			}
		}
	}
	for base := 0; base < n; base += p.outC {
		for oc := 0; oc < p.outC; oc++ {
			v := acc[base+oc]
			if len(bias) != 0 {
				v += ld64(bias, oc)
			}
			r := mulByQuantMul64(v, ld32(mult, oc), int(ld32(shift, oc)))
			out[base+oc] = int16(clampI32(r, p.actMin, p.actMax))
		}
	}
}

// tconvF32 is the float32 transpose convolution; filter and bias ("" when
// absent) are constant little-endian float32 data. Products are rounded to
// float32 before they are added, in the reference's order.
func tconvF32(p *tconvParams, in []float32, filter, bias string, out []float32) {
	n := p.batches * p.outH * p.outW * p.outC
	acc := out[:n]
	for i := range acc {
		acc[i] = 0
	}
	fSize := p.filterH * p.filterW * p.inC
	outRow := p.outW * p.outC
	outImg := p.outH * outRow
	i := 0
	for b := 0; b < p.batches; b++ {
		img := acc[b*outImg : (b+1)*outImg]
		for iy := 0; iy < p.inH; iy++ {
			oy0 := iy*p.strideH - p.padH
			fy0, fy1 := tconvTaps(oy0, p.filterH, p.outH)
			for ix := 0; ix < p.inW; ix++ {
				ox0 := ix*p.strideW - p.padW
				fx0, fx1 := tconvTaps(ox0, p.filterW, p.outW)
				for ic := 0; ic < p.inC; ic++ {
					x := in[i]
					i++
					for fy := fy0; fy < fy1; fy++ {
						for fx := fx0; fx < fx1; fx++ {
							dst := img[(oy0+fy)*outRow+(ox0+fx)*p.outC:]
							dst = dst[:p.outC]
							w := (fy*p.filterW+fx)*p.inC + ic
							for oc := range dst {
								dst[oc] += float32(x * ldf32(filter, oc*fSize+w))
							}
						}
					}
				}
			}
		}
	}
	for base := 0; base < n; base += p.outC {
		for oc := 0; oc < p.outC; oc++ {
			v := acc[base+oc]
			if len(bias) != 0 {
				v += ldf32(bias, oc)
			}
			acc[base+oc] = clampF32(v, p.fActMin, p.fActMax)
		}
	}
}
