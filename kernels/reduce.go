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

// cumsumParams describes one CUMSUM over one axis: outer positions before
// the axis, depth along it and inner positions after it (row-major).
// Integer fields are for int8: the input offset (-zero point) and
// TFLM's rescaling, the input scaled to 2^20 / 2 units (inMult, inShift
// <= 0), the running sum back to the output (outMult, outShift <= 0)
// plus outZP.
type cumsumParams struct {
	outer, depth, inner int
	exclusive, reverse  bool
	inOffset, outZP     int32
	inMult, outMult     int32
	inShift, outShift   int
}

// cumsumF32 is the float32 CUMSUM: a running sum from +0 along the axis
// (backwards when reverse), each output the sum before (exclusive) or
// after adding its own element. Every element is read before its output
// is written, so out may be in.
func cumsumF32(p *cumsumParams, in, out []float32) {
	step := p.inner
	for o := 0; o < p.outer; o++ {
		for i := 0; i < p.inner; i++ {
			idx := o*p.depth*p.inner + i
			st := step
			if p.reverse {
				idx += (p.depth - 1) * p.inner
				st = -step
			}
			var acc float32
			for d := 0; d < p.depth; d++ {
				v := in[idx]
				if p.exclusive {
					out[idx] = acc
					acc += v
				} else {
					acc += v
					out[idx] = acc
				}
				idx += st
			}
		}
	}
}

// cumsumInt8 is the int8 CUMSUM of TFLM's reference: each element minus
// the zero point, shifted left by 20 and rescaled, is added to a running
// int32 sum, which is rescaled to the output. As in the reference the sum
// does not start at 0 but at the rescaled input offset (-zero point), so
// a nonzero input zero point shifts every output. out may be in.
func cumsumInt8(p *cumsumParams, in, out []int8) {
	const leftShift = 20
	start := mulByQuantMul(p.inOffset*(1<<leftShift), p.inMult, p.inShift)
	step := p.inner
	for o := 0; o < p.outer; o++ {
		for i := 0; i < p.inner; i++ {
			idx := o*p.depth*p.inner + i
			st := step
			if p.reverse {
				idx += (p.depth - 1) * p.inner
				st = -step
			}
			acc := start
			for d := 0; d < p.depth; d++ {
				y := mulByQuantMul((p.inOffset+int32(in[idx]))*(1<<leftShift), p.inMult, p.inShift)
				s := acc + y
				if p.exclusive {
					s = acc
				}
				acc += y
				v := mulByQuantMul(s, p.outMult, p.outShift) + p.outZP
				out[idx] = int8(clampI32(v, -128, 127))
				idx += st
			}
		}
	}
}
