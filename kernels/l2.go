package kernels

import (
	"math"
	"math/bits"
)

// L2_NORMALIZATION and L2_POOL_2D as TFLite Micro's reference kernels
// compute them (reference_ops::L2Normalization and L2Pool,
// reference_integer_ops::L2Normalization).

// l2NormParams describes one L2_NORMALIZATION: rows of depth values along
// the last dimension.
type l2NormParams struct {
	rows, depth int
	inZP        int32 // int8 input zero point
}

// l2NormF32 divides each row by max(sqrt(sum of squares), 1e-6), the
// squares rounded to float32 and summed in order (no fused multiply-add).
// Each row is read in full before it is written, so out may be in.
func l2NormF32(p *l2NormParams, in, out []float32) {
	const eps = float32(1e-6)
	d := p.depth
	for r := 0; r < p.rows; r++ {
		x := in[r*d : r*d+d]
		y := out[r*d : r*d+d]
		var s float32
		for _, v := range x {
			s += float32(v * v)
		}
		n := f32Sqrt(s) // correctly rounded, as sqrtf
		if n < eps {
			n = eps
		}
		for i, v := range x {
			y[i] = v / n
		}
	}
}

// l2InvSqrt is TFLM's GetInvSqrtQuantizedMultiplierExp for a sum of
// squares: a Q31 multiplier m and a right shift s (s >= 0) with
// m * 2^-s about 1/sqrt(acc), from five Newton-Raphson steps in gemmlowp
// fixed point with three integer bits. acc <= 1 gives MaxInt32, 0.
func l2InvSqrt(acc int32) (m int32, s int) {
	if acc <= 1 {
		return math.MaxInt32, 0
	}
	s = 11
	for acc >= 1<<29 {
		acc /= 4
		s++
	}
	pairs := (bits.LeadingZeros32(uint32(acc))-1)/2 - 1
	s -= pairs
	acc <<= uint(2 * pairs)
	half := roundingDivByPOT(acc>>1, 1)
	const halfThree = 1<<28 + 1<<27 // 1.5 with three integer bits
	x := int32(1 << 28)             // 1.0
	for i := 0; i < 5; i++ {
		x3 := softmaxRescale(satRoundDoublingHighMul(satRoundDoublingHighMul(x, x), x), 6)
		x = softmaxRescale(satRoundDoublingHighMul(halfThree, x)-satRoundDoublingHighMul(half, x3), 3)
	}
	x = satRoundDoublingHighMul(x, 1518500250) // sqrt(2)/2 in Q0.31
	if s < 0 {
		x <<= uint(-s)
		s = 0
	}
	return x, s
}

// l2NormInt8 is the int8 L2_NORMALIZATION: out = (x - inZP) / norm in
// units of 1/128 (the output's own quantization is not read, as in TFLM),
// saturated to int8. out may be in.
func l2NormInt8(p *l2NormParams, in, out []int8) {
	d := p.depth
	for r := 0; r < p.rows; r++ {
		x := in[r*d : r*d+d]
		y := out[r*d : r*d+d]
		var acc int32
		for _, v := range x {
			t := int32(v) - p.inZP
			acc += t * t
		}
		m, s := l2InvSqrt(acc)
		for i, v := range x {
			y[i] = int8(clampI32(mulByQuantMul(int32(v)-p.inZP, m, 7-s), -128, 127))
		}
	}
}

// l2PoolF32 is L2_POOL_2D: the square root of the mean of the squares in
// each window (squares rounded to float32, summed row by row), clamped to
// the fused activation's range.
func l2PoolF32(p *poolParams, in, out []float32) {
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
							total += float32(in[i] * in[i])
						}
					}
					v := f32Sqrt(total / n)
					dst[c] = clampF32(v, p.fActMin, p.fActMax)
				}
				o += d
			}
		}
	}
}
