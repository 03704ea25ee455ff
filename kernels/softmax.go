package kernels

import (
	"math"
	"math/bits"
)

// SOFTMAX over the last dimension, as in TFLite Micro's reference kernels.
//
// The int8-input variants follow gemmlowp's fixed-point recipe: the
// difference to the row maximum is rescaled to Q5.26 (inputMult,
// inputShift; differences below diffMin contribute nothing), exponentiated
// in Q0.31, summed in Q12.19, and each exponential is multiplied by the
// fixed-point reciprocal of the sum. The exponentials are computed once per
// row into an int32 scratch buffer instead of twice as in the reference; the
// arithmetic is the same. The int16 variant uses two 513-entry lookup
// tables (exp on [-10, 0] and 1/(1+x) on [0, 1]) built at generation time.

// softmaxParams describes one SOFTMAX operator: rows of depth elements.
type softmaxParams struct {
	outer      int // number of rows
	depth      int // elements per row (last dimension)
	inputMult  int32
	inputShift int   // left shift applied with inputMult (>= 0 for int8 input)
	diffMin    int32 // int8 input: smaller differences to the maximum give 0
	beta       float32
}

// softmaxRescale multiplies x by 2^exp with saturation (gemmlowp's
// SaturatingRoundingMultiplyByPOT for a positive exponent).
func softmaxRescale(x int32, exp uint) int32 {
	limit := int32(1)<<(31-exp) - 1
	if x > limit {
		return math.MaxInt32
	}
	if x < -limit {
		return math.MinInt32
	}
	return x << exp
}

// softmaxExpSmall returns exp(a) in Q0.31 for a in [-1/4, 0) given in Q0.31:
// a fourth-order Taylor expansion around -1/8.
func softmaxExpSmall(a int32) int32 {
	const expMinusEighth = 1895147668 // exp(-1/8) in Q0.31
	const oneThird = 715827883        // 1/3 in Q0.31
	x := a + 1<<28                    // a + 1/8
	x2 := satRoundDoublingHighMul(x, x)
	x3 := satRoundDoublingHighMul(x2, x)
	x4 := satRoundDoublingHighMul(x2, x2)
	x4q := roundingDivByPOT(x4, 2)
	t := roundingDivByPOT(satRoundDoublingHighMul(x4q+x3, oneThird)+x2, 1)
	return expMinusEighth + satRoundDoublingHighMul(expMinusEighth, x+t)
}

// softmaxExpNeg returns exp(a) in Q0.31 for a <= 0 given in Q5.26.
func softmaxExpNeg(a int32) int32 {
	if a == 0 {
		return math.MaxInt32 // exactly one
	}
	const quarter = int32(1) << 24 // 1/4 in Q5.26
	r := (a & (quarter - 1)) - quarter
	result := softmaxExpSmall(softmaxRescale(r, 5))
	rem := r - a
	// exp(-2^k) in Q0.31 for k = -2 .. 4, applied for each set bit of the
	// remainder -a rounded up to a multiple of 1/4.
	if rem&(1<<24) != 0 {
		result = satRoundDoublingHighMul(result, 1672461947)
	}
	if rem&(1<<25) != 0 {
		result = satRoundDoublingHighMul(result, 1302514674)
	}
	if rem&(1<<26) != 0 {
		result = satRoundDoublingHighMul(result, 790015084)
	}
	if rem&(1<<27) != 0 {
		result = satRoundDoublingHighMul(result, 290630308)
	}
	if rem&(1<<28) != 0 {
		result = satRoundDoublingHighMul(result, 39332535)
	}
	if rem&(1<<29) != 0 {
		result = satRoundDoublingHighMul(result, 720401)
	}
	if rem&(1<<30) != 0 {
		result = satRoundDoublingHighMul(result, 242)
	}
	return result
}

// softmaxRecip returns 1/(1+a) in Q0.31 for a in [0, 1) given in Q0.31, by
// three Newton-Raphson steps in Q2.29.
func softmaxRecip(a int32) int32 {
	const fortyEight17 = 1515870810    // 48/17 in Q2.29
	const negThirtyTwo17 = -1010580540 // -32/17 in Q2.29
	const one2 = int32(1) << 29        // 1 in Q2.29
	s := int64(a) + math.MaxInt32      // (a + 1) / 2, rounded half away
	if s >= 0 {
		s++
	} else {
		s--
	}
	half := int32(s / 2)
	x := fortyEight17 + satRoundDoublingHighMul(half, negThirtyTwo17)
	for i := 0; i < 3; i++ {
		e := one2 - satRoundDoublingHighMul(half, x)
		x += softmaxRescale(satRoundDoublingHighMul(x, e), 2)
	}
	return softmaxRescale(x, 1)
}

// softmaxInt8Row computes the exponentials of one int8 row into exps (-1
// marks elements below diffMin) and returns the fixed-point reciprocal of
// their sum and its exponent adjustment (num_bits_over_unit).
func softmaxInt8Row(p *softmaxParams, row []int8, exps []int32) (scale int32, over int) {
	mx := int8(-128)
	for _, v := range row {
		mx = max(mx, v)
	}
	exps = exps[:len(row)]
	var sum int32 // Q12.19
	for c, v := range row {
		diff := int32(v) - int32(mx)
		if diff < p.diffMin {
			exps[c] = -1
			continue
		}
		scaled := satRoundDoublingHighMul(diff*(1<<uint(p.inputShift)), p.inputMult)
		e := softmaxExpNeg(scaled)
		exps[c] = e
		sum += roundingDivByPOT(e, 12)
	}
	lz := bits.LeadingZeros32(uint32(sum))
	over = 12 - lz
	scale = softmaxRecip(int32((uint32(sum) << uint(lz)) - 1<<31))
	return scale, over
}

// softmaxInt8 is the int8 -> int8 softmax (output scale 1/256, zero point
// -128). scratch holds at least depth int32 values.
func softmaxInt8(p *softmaxParams, in, out []int8, scratch []int32) {
	d := p.depth
	for i := 0; i < p.outer; i++ {
		row := in[i*d : i*d+d]
		dst := out[i*d : i*d+d]
		scale, over := softmaxInt8Row(p, row, scratch)
		exp := over + 31 - 8
		for c, e := range scratch[:d] {
			if e < 0 {
				dst[c] = -128
				continue
			}
			v := roundingDivByPOT(satRoundDoublingHighMul(scale, e), exp) - 128
			dst[c] = int8(clampI32(v, -128, 127))
		}
	}
}

// softmaxInt8Int16 is the int8 -> int16 softmax (output scale 1/65536, zero
// point -32768). scratch holds at least depth int32 values.
func softmaxInt8Int16(p *softmaxParams, in []int8, out []int16, scratch []int32) {
	d := p.depth
	for i := 0; i < p.outer; i++ {
		row := in[i*d : i*d+d]
		dst := out[i*d : i*d+d]
		scale, over := softmaxInt8Row(p, row, scratch)
		exp := over + 31 - 16
		for c, e := range scratch[:d] {
			if e < 0 {
				dst[c] = -32768
				continue
			}
			v := roundingDivByPOT(satRoundDoublingHighMul(scale, e), exp) - 32768
			dst[c] = int16(clampI32(v, -32768, 32767))
		}
	}
}

// softmaxLUT evaluates a 513-entry int16 table (little-endian string) at v
// with linear interpolation between entries (TFLite's LUTLookup).
func softmaxLUT(v int16, lut string) int16 {
	idx := 256 + int(v>>7)
	off := int32(v & 0x7f)
	s := lut[2*idx : 2*idx+4]
	base := int16(uint16(s[0]) | uint16(s[1])<<8)
	next := int16(uint16(s[2]) | uint16(s[3])<<8)
	slope := int32(next - base)
	return base + int16((slope*off+64)>>7)
}

// softmaxInt16 is the int16 -> int16 softmax (input and output zero point 0,
// output scale 1/32768). expLUT and recipLUT are the 513-entry tables for
// exp on [-10, 0] and 1/(1+x) on [0, 1]. The output row doubles as the
// store for the exponentials, as in the reference.
func softmaxInt16(p *softmaxParams, in, out []int16, expLUT, recipLUT string) {
	d := p.depth
	for i := 0; i < p.outer; i++ {
		row := in[i*d : i*d+d]
		dst := out[i*d : i*d+d]
		mx := int16(-32768)
		for _, v := range row {
			mx = max(mx, v)
		}
		var sum int32 // Q16.15
		for c, v := range row {
			diff := int32(v) - int32(mx)
			scaled := mulByQuantMul(diff, p.inputMult, p.inputShift) + 32767
			e := softmaxLUT(int16(clampI32(scaled, -32768, 32767)), expLUT)
			dst[c] = e
			sum += int32(e)
		}
		lz := uint(bits.LeadingZeros32(uint32(sum)))
		shifted := int32((int64(sum)<<(lz-1) + 1<<13) >> 14)
		x := clampI32(shifted-(1<<15+1<<16), -32768, 32767)
		recip := int64(softmaxLUT(int16(x), recipLUT))
		rs := 31 - lz
		round := int64(1) << (rs - 1)
		for c, e := range dst {
			r := int32((int64(e)*recip + round) >> rs)
			dst[c] = int16(clampI32(r, 0, 32767))
		}
	}
}

// softmaxF32 is the float softmax: exp((x - max) * beta), normalised by the
// row sum, in float32 as the reference computes it.
func softmaxF32(p *softmaxParams, in, out []float32) {
	d := p.depth
	for i := 0; i < p.outer; i++ {
		row := in[i*d : i*d+d]
		dst := out[i*d : i*d+d]
		mx := float32(-3.4028234663852886e38)
		for _, v := range row {
			if mx < v {
				mx = v
			}
		}
		var sum float32
		for c, v := range row {
			e := f32Exp((v - mx) * p.beta)
			dst[c] = e
			sum += e
		}
		for c := range dst {
			dst[c] /= sum
		}
	}
}
