package kernels

import "math"

// REDUCE_MAX, REDUCE_MIN and REDUCE_ALL over constant axes, as TFLite
// Micro's ReduceGeneric: every output starts at the reduction's initial
// value and each input element, in input order, is combined into its
// output. The input is described by the MEAN kernels' levels (meanParams:
// at most five merged levels, output stride 0 for reduced ones); only the
// level sizes, strides and nOut are read. SUM uses the MEAN kernels
// themselves (kernels/mean.go).
//
// The float comparisons are TFLM's: an element replaces the running value
// only when it compares greater (MAX) or less (MIN), so NaN never enters a
// result, and the starting values are the largest finite floats:
// REDUCE_MAX of only -Inf or NaN elements is -MaxFloat32, REDUCE_MIN of
// only +Inf or NaN elements is +MaxFloat32.

// reduceMaxF32 is REDUCE_MAX for float32.
func reduceMaxF32(p *meanParams, in, out []float32) {
	out = out[:p.nOut]
	for i := range out {
		out[i] = -math.MaxFloat32
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
						m := out[o3]
						for _, v := range row {
							if v > m {
								m = v
							}
						}
						out[o3] = m
						continue
					}
					dst := out[o3 : o3+len(row)]
					for j, v := range row {
						if v > dst[j] {
							dst[j] = v
						}
					}
				}
			}
		}
	}
}

// reduceMinF32 is REDUCE_MIN for float32.
func reduceMinF32(p *meanParams, in, out []float32) {
	out = out[:p.nOut]
	for i := range out {
		out[i] = math.MaxFloat32
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
						m := out[o3]
						for _, v := range row {
							if v < m {
								m = v
							}
						}
						out[o3] = m
						continue
					}
					dst := out[o3 : o3+len(row)]
					for j, v := range row {
						if v < dst[j] {
							dst[j] = v
						}
					}
				}
			}
		}
	}
}

// reduceMaxInt8 is REDUCE_MAX for int8 (input and output share their
// quantization, so the values are compared as they are).
func reduceMaxInt8(p *meanParams, in, out []int8) {
	out = out[:p.nOut]
	for i := range out {
		out[i] = -128
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
						m := out[o3]
						for _, v := range row {
							if v > m {
								m = v
							}
						}
						out[o3] = m
						continue
					}
					dst := out[o3 : o3+len(row)]
					for j, v := range row {
						if v > dst[j] {
							dst[j] = v
						}
					}
				}
			}
		}
	}
}

// reduceMinInt8 is REDUCE_MIN for int8.
func reduceMinInt8(p *meanParams, in, out []int8) {
	out = out[:p.nOut]
	for i := range out {
		out[i] = 127
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
						m := out[o3]
						for _, v := range row {
							if v < m {
								m = v
							}
						}
						out[o3] = m
						continue
					}
					dst := out[o3 : o3+len(row)]
					for j, v := range row {
						if v < dst[j] {
							dst[j] = v
						}
					}
				}
			}
		}
	}
}

// reduceAll is REDUCE_ALL for bool (one byte per value): an output is 1
// unless one of its elements is 0.
func reduceAll(p *meanParams, in, out []uint8) {
	out = out[:p.nOut]
	for i := range out {
		out[i] = 1
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
						for _, v := range row {
							if v == 0 {
								out[o3] = 0
								break
							}
						}
						continue
					}
					dst := out[o3 : o3+len(row)]
					for j, v := range row {
						if v == 0 {
							dst[j] = 0
						}
					}
				}
			}
		}
	}
}
