package kernels

import (
	"math"
	"math/bits"
)

// LOG_SOFTMAX over the last dimension, as in TFLite Micro's log_softmax.cc
// (reference_ops::LogSoftmax and LogSoftmaxQuantized).
//
// The float32 kernel is x - max - log(sum(exp(x - max))) per row, summed in
// float32; exp and log are f32Exp and f32Log, so results match C's expf and
// logf within an ulp or two, not bit for bit.
//
// The int8 kernel follows gemmlowp's fixed-point recipe: the difference to
// the row maximum is rescaled to Q5.26 (inputMult, inputShift; differences
// below diffMin are left out of the sum), exponentiated in Q0.31 and summed
// in Q12.19; the logarithm of the sum is taken in Q5.26 and subtracted from
// each rescaled difference, and the result is rounded to the output's
// Q4.3 (scale 16/256) with zero point 127. Differences at or below the
// threshold derived from reverseMult and reverseShift (the inverse of the
// input rescaling) give -128.
//
// Both kernels read a row completely before writing its output, and then
// read element c before writing element c, so the output may share the
// input's memory.

// logSoftmaxParams describes one LOG_SOFTMAX operator: rows of depth
// elements. The int8 fields are TFLM's PreprocessLogSoftmaxScalingExp and
// CalculateInputRadius results, computed at generation time.
type logSoftmaxParams struct {
	outer        int // number of rows
	depth        int // elements per row (last dimension)
	inputMult    int32
	inputShift   int // left shift applied with inputMult (>= 0)
	reverseMult  int32
	reverseShift int   // shift applied with reverseMult (<= 0)
	diffMin      int32 // smaller differences to the maximum are left out
}

// logSoftmaxF32 is the float32 LOG_SOFTMAX.
func logSoftmaxF32(p *logSoftmaxParams, in, out []float32) {
	d := p.depth
	for i := 0; i < p.outer; i++ {
		row := in[i*d : i*d+d]
		dst := out[i*d : i*d+d]
		mx := float32(-math.MaxFloat32)
		for _, v := range row {
			if mx < v {
				mx = v
			}
		}
		var sum float32
		for _, v := range row {
			sum += f32Exp(v - mx)
		}
		logSum := f32Log(sum)
		for c, v := range row {
			dst[c] = v - mx - logSum
		}
	}
}

// logSoftmaxPOT multiplies x by 2^exp (exp >= 0) with saturation
// (SaturatingRoundingMultiplyByPOTParam).
func logSoftmaxPOT(x int32, exp int) int32 {
	if exp == 0 {
		return x
	}
	return softmaxRescale(x, uint(exp))
}

// logSoftmaxSatAdd and logSoftmaxSatSub are int32 addition and subtraction
// saturated to the int32 range.
func logSoftmaxSatAdd(a, b int32) int32 {
	return int32(min(max(int64(a)+int64(b), math.MinInt32), math.MaxInt32))
}

func logSoftmaxSatSub(a, b int32) int32 {
	return int32(min(max(int64(a)-int64(b), math.MinInt32), math.MaxInt32))
}

// logSoftmaxHalfSum is (a + b) / 2 rounded half away from zero
// (gemmlowp's RoundingHalfSum).
func logSoftmaxHalfSum(a, b int32) int32 {
	s := int64(a) + int64(b)
	if s >= 0 {
		s++
	} else {
		s--
	}
	return int32(s / 2)
}

// logSoftmaxLog returns log(x) in Q5.26 for x >= 1 given in Q12.19
// (log_x_for_x_greater_than_or_equal_to_1 with 5 output and 12 input
// integer bits). x is normalised to r in [sqrt(1/2), 1) times a power of
// two taken from its leading zeros, in two ways a quarter of a bit apart
// whose better one is kept; log(r) is a rational approximation around
// (1/2)^(1/4), and the power of two adds its multiple of log(2). The sum is
// accumulated in Q6.25 and saturated into Q5.26.
func logSoftmaxLog(x int32) int32 {
	const (
		inBits    = 12
		accBits   = 6          // output integer bits + 1
		log2      = 1488522236 // log(2) in Q0.31
		sqrtSqrtH = 1805811301 // (1/2)^(1/4)
		sqrtHalf  = 1518500250 // (1/2)^(1/2)
		quarter   = 1 << 23    // 1/4 in Q6.25
		alphaN    = 117049297  // 11/240 * 2^(1/4)
		alphaD    = 127690142  // 1/20 * 2^(1/4)
		alphaI    = 1057819769 // 2 / 2^(1/4) - 2^(1/4)
		alphaF    = 638450708  // 1/4 * 2^(1/4)
	)
	mul := satRoundDoublingHighMul
	// Normalisation a: shift x up to its top bit, times sqrt(1/2).
	za := bits.LeadingZeros32(uint32(x))
	ra := logSoftmaxPOT(mul(logSoftmaxPOT(x, za-1), sqrtHalf), 1)
	pa := logSoftmaxSatAdd(logSoftmaxPOT(int32(inBits-za), 31-accBits), quarter)
	// Normalisation b: x times sqrt(1/2), shifted up to its top bit.
	zb := bits.LeadingZeros32(uint32(mul(x, sqrtHalf))) - 1
	rb := logSoftmaxPOT(x, zb)
	pb := logSoftmaxSatSub(logSoftmaxPOT(int32(inBits-zb), 31-accBits), quarter)
	r := min(ra, rb)
	pow := max(pa, pb)

	p := logSoftmaxHalfSum(r, sqrtSqrtH)
	q := r - sqrtSqrtH
	q += q
	sq := mul(q, q)
	num := mul(q, r) + mul(mul(q, sq), alphaN)
	den := mul(p, alphaI+q+mul(alphaD, sq)) + mul(alphaF, q)
	recip := softmaxRecip(den)
	numScaled := roundingDivByPOT(num, accBits)
	return logSoftmaxPOT(mul(pow, log2)+mul(numScaled, recip), 1)
}

// logSoftmaxInt8 is the int8 LOG_SOFTMAX (output scale 16/256, zero point
// 127).
func logSoftmaxInt8(p *logSoftmaxParams, in, out []int8) {
	d := p.depth
	for i := 0; i < p.outer; i++ {
		row := in[i*d : i*d+d]
		dst := out[i*d : i*d+d]
		mx := int8(-128)
		for _, v := range row {
			mx = max(mx, v)
		}
		var sum int32 // Q12.19
		for _, v := range row {
			diff := int32(v) - int32(mx)
			if diff >= p.diffMin {
				scaled := mulByQuantMul(diff, p.inputMult, p.inputShift)
				sum += roundingDivByPOT(softmaxExpNeg(scaled), 12)
			}
		}
		logSum := logSoftmaxLog(sum) // Q5.26
		// The smallest difference whose result is above the output range's
		// bottom, mapped back to input units; ">" below where the sum used
		// ">=".
		limit := max(p.diffMin-1, mulByQuantMul(logSum+math.MinInt32, p.reverseMult, p.reverseShift))
		for c, v := range row {
			diff := int32(v) - int32(mx)
			if diff <= limit {
				dst[c] = -128
				continue
			}
			scaled := mulByQuantMul(diff, p.inputMult, p.inputShift)
			o := roundingDivByPOT(scaled-logSum, 31-5-4) + 127
			dst[c] = int8(clampI32(o, -128, 127))
		}
	}
}
