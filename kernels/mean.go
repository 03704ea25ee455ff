package kernels

// MEAN over constant axes, as in TFLite Micro's reference kernels: the
// input is summed into one accumulator per output element in input order,
// then each sum is divided (float) or requantized with a multiplier that
// includes 1/count (integers).
//
// At generation time the input shape is reduced to at most five levels by
// merging neighbouring dimensions that are both reduced or both kept; each
// level has a size and an output stride (0 for reduced levels). Merging
// keeps the row-major order of the input, so float sums are accumulated in
// the same order as the reference.

// meanParams describes one MEAN operator.
type meanParams struct {
	d0, d1, d2, d3, d4 int // level sizes, outermost first
	s0, s1, s2, s3, s4 int // output strides of the levels (0: reduced)
	nOut               int // number of output elements
	inZeroSum          int64
	mult               int32 // requantization including 1/count (integers)
	shift              int
	outOffset          int32
	count              float32 // elements per output (float)
}

// meanSumI8 adds every int8 input element to its output's int32
// accumulator (wrapping, as the reference).
func meanSumI8(p *meanParams, in []int8, acc []int32) {
	acc = acc[:p.nOut]
	for i := range acc {
		acc[i] = 0
	}
	k := 0
	for i0 := 0; i0 < p.d0; i0++ {
		o0 := i0 * p.s0
		for i1 := 0; i1 < p.d1; i1++ {
			o1 := o0 + i1*p.s1
			for i2 := 0; i2 < p.d2; i2++ {
				o2 := o1 + i2*p.s2
				for i3 := 0; i3 < p.d3; i3++ {
					o3 := o2 + i3*p.s3
					row := in[k : k+p.d4]
					k += p.d4
					if p.s4 == 0 {
						var s int32
						for _, v := range row {
							s += int32(v)
						}
						acc[o3] += s
						continue
					}
					dst := acc[o3 : o3+len(row)]
					for j, v := range row {
						dst[j] += int32(v)
					}
				}
			}
		}
	}
}

// meanSumI16 is meanSumI8 for int16 input.
func meanSumI16(p *meanParams, in []int16, acc []int32) {
	acc = acc[:p.nOut]
	for i := range acc {
		acc[i] = 0
	}
	k := 0
	for i0 := 0; i0 < p.d0; i0++ {
		o0 := i0 * p.s0
		for i1 := 0; i1 < p.d1; i1++ {
			o1 := o0 + i1*p.s1
			for i2 := 0; i2 < p.d2; i2++ {
				o2 := o1 + i2*p.s2
				for i3 := 0; i3 < p.d3; i3++ {
					o3 := o2 + i3*p.s3
					row := in[k : k+p.d4]
					k += p.d4
					if p.s4 == 0 {
						var s int32
						for _, v := range row {
							s += int32(v)
						}
						acc[o3] += s
						continue
					}
					dst := acc[o3 : o3+len(row)]
					for j, v := range row {
						dst[j] += int32(v)
					}
				}
			}
		}
	}
}

// meanRequant turns an accumulated sum into the quantized mean: subtract
// count * input zero point (truncated to 32 bits as the reference does),
// rescale, add the output zero point and saturate to [lo, hi].
func meanRequant(p *meanParams, sum int32, lo, hi int32) int32 {
	v := int32(int64(sum) - p.inZeroSum)
	return clampI32(mulByQuantMul(v, p.mult, p.shift)+p.outOffset, lo, hi)
}

// meanInt8 is the int8 mean; acc is a scratch buffer of nOut int32 values.
func meanInt8(p *meanParams, in []int8, acc []int32, out []int8) {
	meanSumI8(p, in, acc)
	out = out[:p.nOut]
	for i, s := range acc[:len(out)] {
		out[i] = int8(meanRequant(p, s, -128, 127))
	}
}

// meanInt16 is the int16 mean; acc is a scratch buffer of nOut int32 values.
func meanInt16(p *meanParams, in []int16, acc []int32, out []int16) {
	meanSumI16(p, in, acc)
	out = out[:p.nOut]
	for i, s := range acc[:len(out)] {
		out[i] = int16(meanRequant(p, s, -32768, 32767))
	}
}

// meanF32 is the float mean: the sums are accumulated in the output in
// input order and divided by the element count.
func meanF32(p *meanParams, in []float32, out []float32) {
	out = out[:p.nOut]
	for i := range out {
		out[i] = 0
	}
	k := 0
	for i0 := 0; i0 < p.d0; i0++ {
		o0 := i0 * p.s0
		for i1 := 0; i1 < p.d1; i1++ {
			o1 := o0 + i1*p.s1
			for i2 := 0; i2 < p.d2; i2++ {
				o2 := o1 + i2*p.s2
				for i3 := 0; i3 < p.d3; i3++ {
					o3 := o2 + i3*p.s3
					row := in[k : k+p.d4]
					k += p.d4
					if p.s4 == 0 {
						s := out[o3]
						for _, v := range row {
							s += v
						}
						out[o3] = s
						continue
					}
					dst := out[o3 : o3+len(row)]
					for j, v := range row {
						dst[j] += v
					}
				}
			}
		}
	}
	for i := range out {
		out[i] /= p.count
	}
}
