package kernels

// BATCH_MATMUL as TFLite Micro's reference kernel computes it: for every
// batch position (up to three batch dimensions after extension to rank 5,
// a size-1 dimension of one operand broadcast against the other), every
// output element out[a][c] is the sum over k = 0, 1, ... of
// lhs[a][k] * rhs[k][c], starting from zero. TFLM transposes the operands
// into scratch copies first; here the element strides (lRow, lK, rK, rCol)
// say where lhs[a][k] and rhs[k][c] are, so adj_x and adj_y need no copy,
// and the output strides (oRow, oCol) let the lowering swap the operands
// (out^T = rhs^T lhs^T) so that a constant operand, read from a string, is
// always the rhs. Float products are rounded to float32 before they are
// added (no fused multiply-add), as in the reference. Quantized kernels
// accumulate (lhs - lhsZP) * (rhs - rhsZP) in int32 (int8) or int64
// (int16) and requantize with mult and shift, add outZP and saturate.

// batchMatmulParams describes one BATCH_MATMUL. All values are element
// counts or strides.
type batchMatmulParams struct {
	n0, n1, n2          int // output batch dimensions
	l0, l1, l2          int // lhs strides per batch dimension (0: broadcast)
	r0, r1, r2          int // rhs strides per batch dimension (0: broadcast)
	rows, cols, depth   int // a, c and k ranges
	lRow, lK, rK, rCol  int // element strides of lhs[a][k] and rhs[k][c]
	oRow, oCol          int // output strides of out[a][c]
	lhsZP, rhsZP, outZP int32
	mult                int32
	shift               int
}

// batchMatmulF32 multiplies float32 operands held in the arena.
func batchMatmulF32(p *batchMatmulParams, lhs, rhs, out []float32) {
	o := 0
	for b0 := 0; b0 < p.n0; b0++ {
		for b1 := 0; b1 < p.n1; b1++ {
			for b2 := 0; b2 < p.n2; b2++ {
				lb := b0*p.l0 + b1*p.l1 + b2*p.l2
				rb := b0*p.r0 + b1*p.r1 + b2*p.r2
				for a := 0; a < p.rows; a++ {
					for c := 0; c < p.cols; c++ {
						var t float32
						li, ri := lb+a*p.lRow, rb+c*p.rCol
						for k := 0; k < p.depth; k++ {
							t += float32(lhs[li] * rhs[ri])
							li += p.lK
							ri += p.rK
						}
						out[o+a*p.oRow+c*p.oCol] = t
					}
				}
				o += p.rows * p.cols
			}
		}
	}
}

// batchMatmulF32ConstR is batchMatmulF32 with a constant rhs
// (little-endian float32 in a string).
func batchMatmulF32ConstR(p *batchMatmulParams, lhs []float32, rhs string, out []float32) {
	o := 0
	for b0 := 0; b0 < p.n0; b0++ {
		for b1 := 0; b1 < p.n1; b1++ {
			for b2 := 0; b2 < p.n2; b2++ {
				lb := b0*p.l0 + b1*p.l1 + b2*p.l2
				rb := b0*p.r0 + b1*p.r1 + b2*p.r2
				for a := 0; a < p.rows; a++ {
					for c := 0; c < p.cols; c++ {
						var t float32
						li, ri := lb+a*p.lRow, rb+c*p.rCol
						for k := 0; k < p.depth; k++ {
							t += float32(lhs[li] * ldf32(rhs, ri))
							li += p.lK
							ri += p.rK
						}
						out[o+a*p.oRow+c*p.oCol] = t
					}
				}
				o += p.rows * p.cols
			}
		}
	}
}

// batchMatmulInt8 multiplies int8 operands (arena or constant views).
func batchMatmulInt8(p *batchMatmulParams, lhs, rhs, out []int8) {
	o := 0
	for b0 := 0; b0 < p.n0; b0++ {
		for b1 := 0; b1 < p.n1; b1++ {
			for b2 := 0; b2 < p.n2; b2++ {
				lb := b0*p.l0 + b1*p.l1 + b2*p.l2
				rb := b0*p.r0 + b1*p.r1 + b2*p.r2
				for a := 0; a < p.rows; a++ {
					for c := 0; c < p.cols; c++ {
						var t int32
						li, ri := lb+a*p.lRow, rb+c*p.rCol
						for k := 0; k < p.depth; k++ {
							t += (int32(lhs[li]) - p.lhsZP) * (int32(rhs[ri]) - p.rhsZP)
							li += p.lK
							ri += p.rK
						}
						v := mulByQuantMul(t, p.mult, p.shift) + p.outZP
						out[o+a*p.oRow+c*p.oCol] = int8(clampI32(v, -128, 127))
					}
				}
				o += p.rows * p.cols
			}
		}
	}
}

// batchMatmulInt16 multiplies int16 operands held in the arena (zero
// points 0, as TFLM requires).
func batchMatmulInt16(p *batchMatmulParams, lhs, rhs, out []int16) {
	o := 0
	for b0 := 0; b0 < p.n0; b0++ {
		for b1 := 0; b1 < p.n1; b1++ {
			for b2 := 0; b2 < p.n2; b2++ {
				lb := b0*p.l0 + b1*p.l1 + b2*p.l2
				rb := b0*p.r0 + b1*p.r1 + b2*p.r2
				for a := 0; a < p.rows; a++ {
					for c := 0; c < p.cols; c++ {
						var t int64
						li, ri := lb+a*p.lRow, rb+c*p.rCol
						for k := 0; k < p.depth; k++ {
							t += int64(lhs[li]) * int64(rhs[ri])
							li += p.lK
							ri += p.rK
						}
						v := mulByQuantMul64(t, p.mult, p.shift) + p.outZP
						out[o+a*p.oRow+c*p.oCol] = int16(clampI32(v, -32768, 32767))
					}
				}
				o += p.rows * p.cols
			}
		}
	}
}

// batchMatmulInt16ConstR is batchMatmulInt16 with a constant rhs
// (little-endian int16 in a string).
func batchMatmulInt16ConstR(p *batchMatmulParams, lhs []int16, rhs string, out []int16) {
	o := 0
	for b0 := 0; b0 < p.n0; b0++ {
		for b1 := 0; b1 < p.n1; b1++ {
			for b2 := 0; b2 < p.n2; b2++ {
				lb := b0*p.l0 + b1*p.l1 + b2*p.l2
				rb := b0*p.r0 + b1*p.r1 + b2*p.r2
				for a := 0; a < p.rows; a++ {
					for c := 0; c < p.cols; c++ {
						var t int64
						li, ri := lb+a*p.lRow, rb+c*p.rCol
						for k := 0; k < p.depth; k++ {
							r := int16(uint16(rhs[2*ri]) | uint16(rhs[2*ri+1])<<8)
							t += int64(lhs[li]) * int64(r)
							li += p.lK
							ri += p.rK
						}
						v := mulByQuantMul64(t, p.mult, p.shift) + p.outZP
						out[o+a*p.oRow+c*p.oCol] = int16(clampI32(v, -32768, 32767))
					}
				}
				o += p.rows * p.cols
			}
		}
	}
}
