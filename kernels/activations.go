package kernels

// RELU, RELU6, LEAKY_RELU, HARD_SWISH and PRELU, as in TFLite Micro's
// reference kernels.

// reluParams holds the constants of a quantized RELU: the input is rescaled
// to the output scale and clamped to [actMin, actMax] (actMin is the output
// zero point, raised to the type's minimum if needed).
type reluParams struct {
	inZP, outZP    int32
	mult           int32
	shift          int
	actMin, actMax int32
}

// reluOne rescales and clamps one quantized value.
func reluOne(p *reluParams, x int32) int32 {
	return clampI32(p.outZP+mulByQuantMul(x-p.inZP, p.mult, p.shift), p.actMin, p.actMax)
}

// reluInt8 is RELU for int8.
func reluInt8(p *reluParams, in, out []int8) {
	for i, v := range in {
		out[i] = int8(reluOne(p, int32(v)))
	}
}

// reluInt16 is RELU for int16.
func reluInt16(p *reluParams, in, out []int16) {
	for i, v := range in {
		out[i] = int16(reluOne(p, int32(v)))
	}
}

// reluF32 is RELU for float32 (NaN passes through, as in TFLM).
func reluF32(in, out []float32) {
	for i, v := range in {
		if v < 0 {
			v = 0
		}
		out[i] = v
	}
}

// relu6Params holds the bounds of a quantized RELU6: the input's quantized
// 0 and 6. TFLM clamps the raw values and does not rescale to the output.
type relu6Params struct {
	lo, hi int32
}

// relu6Int8 is RELU6 for int8.
func relu6Int8(p *relu6Params, in, out []int8) {
	lo, hi := int8(p.lo), int8(p.hi)
	for i, v := range in {
		if v > hi {
			v = hi
		} else if v < lo {
			v = lo
		}
		out[i] = v
	}
}

// relu6Int16 is RELU6 for int16.
func relu6Int16(p *relu6Params, in, out []int16) {
	lo, hi := int16(p.lo), int16(p.hi)
	for i, v := range in {
		if v > hi {
			v = hi
		} else if v < lo {
			v = lo
		}
		out[i] = v
	}
}

// relu6F32 is RELU6 for float32.
func relu6F32(in, out []float32) {
	for i, v := range in {
		if v > 6 {
			v = 6
		} else if v < 0 {
			v = 0
		}
		out[i] = v
	}
}

// leakyReluParams holds the constants of a quantized LEAKY_RELU: two
// rescalings to the output, one for non-negative inputs (identity) and one
// for negative inputs (alpha). multAlpha is the magnitude of alpha's
// multiplier; alphaNeg is set when alpha is negative.
type leakyReluParams struct {
	inZP, outZP int32
	multID      int32
	shiftID     int
	multAlpha   int32
	shiftAlpha  int
	alphaNeg    bool
	qmin, qmax  int32
}

// leakyReluOne computes one quantized output.
func leakyReluOne(p *leakyReluParams, x int32) int32 {
	x -= p.inZP
	r := p.outZP
	if x >= 0 {
		r += mulByQuantMul(x, p.multID, p.shiftID)
	} else if s := mulByQuantMul(x, p.multAlpha, p.shiftAlpha); p.alphaNeg {
		r -= s
	} else {
		r += s
	}
	return clampI32(r, p.qmin, p.qmax)
}

// leakyReluInt8 is LEAKY_RELU for int8.
func leakyReluInt8(p *leakyReluParams, in, out []int8) {
	for i, v := range in {
		out[i] = int8(leakyReluOne(p, int32(v)))
	}
}

// leakyReluInt16 is LEAKY_RELU for int16.
func leakyReluInt16(p *leakyReluParams, in, out []int16) {
	for i, v := range in {
		out[i] = int16(leakyReluOne(p, int32(v)))
	}
}

// leakyReluF32 is LEAKY_RELU for float32: x > 0 ? x : x*alpha.
func leakyReluF32(alpha float32, in, out []float32) {
	for i, v := range in {
		if !(v > 0) {
			v *= alpha
		}
		out[i] = v
	}
}

// hardSwishParams holds the constants of an int8 HARD_SWISH: 16-bit
// fixed-point multipliers and exponents taking the input (shifted left by 7
// bits) to the output scale and to the "relu-ish" scale where 3.0 is 32768.
type hardSwishParams struct {
	inZP, outZP int32
	outMult     int32 // int16 range
	outExp      int   // <= 0
	reluishMult int32 // int16 range
	reluishExp  int
}

// hardSwishSrdhm16 is the int16 saturating rounding doubling high multiply.
func hardSwishSrdhm16(a, b int16) int16 {
	if a == b && a == -32768 {
		return 32767
	}
	ab := int32(a) * int32(b)
	nudge := int32(1 << 14)
	if ab < 0 {
		nudge = 1 - (1 << 14)
	}
	return int16((ab + nudge) / (1 << 15))
}

// hardSwishSdhm16 is the int16 saturating doubling high multiply, rounding
// towards zero.
func hardSwishSdhm16(a, b int16) int16 {
	if a == b && a == -32768 {
		return 32767
	}
	return int16(int32(a) * int32(b) / (1 << 15))
}

// hardSwishShl16 multiplies v by 2^e (0 <= e < 31), saturating to int16.
func hardSwishShl16(v int16, e int) int16 {
	r := int64(v) * int64(int32(1)<<uint(e))
	if r > 32767 {
		return 32767
	}
	if r < -32768 {
		return -32768
	}
	return int16(r)
}

// hardSwishDivPOT16 divides x by 2^e rounding to nearest, in int16
// arithmetic as gemmlowp does for int16 values.
func hardSwishDivPOT16(x int16, e int) int16 {
	mask := int16(int64(1)<<uint(e) - 1)
	threshold := mask >> 1
	if x < 0 {
		threshold++
	}
	r := int16(int32(x) >> uint(e))
	if x&mask > threshold {
		r++
	}
	return r
}

// hardSwishInt8 is HARD_SWISH for int8: x * relu6(x+3) / 6.
func hardSwishInt8(p *hardSwishParams, in, out []int8) {
	outMult, reluishMult := int16(p.outMult), int16(p.reluishMult)
	for i, v := range in {
		hires := int16((int32(v) - p.inZP) * 128)
		preshift := hardSwishSrdhm16(hires, outMult)
		r := hires
		if p.reluishExp > 0 {
			r = hardSwishShl16(r, p.reluishExp-1)
		}
		r = hardSwishSrdhm16(r, reluishMult)
		if p.reluishExp > 0 {
			r = hardSwishShl16(r, 1)
		}
		if p.reluishExp < 0 {
			r = hardSwishDivPOT16(r, -p.reluishExp)
		}
		r = int16((int32(r) + 1<<15) >> 1)
		o := hardSwishDivPOT16(hardSwishSdhm16(r, preshift), -p.outExp)
		o = int16(int32(o) + p.outZP)
		out[i] = int8(clampI32(int32(o), -128, 127))
	}
}

// hardSwishF32 is HARD_SWISH for float32: x * min(6, max(0, x+3)) / 6.
func hardSwishF32(in, out []float32) {
	for i, v := range in {
		m := v + 3
		if !(m > 0) {
			m = 0
		}
		if !(m < 6) {
			m = 6
		}
		out[i] = v * m / 6
	}
}

// preluParams holds the constants of a quantized PRELU: negated zero points
// of input and alpha, the output zero point, and the rescalings of
// non-negative inputs (1) and of input*alpha products (2) to the output.
type preluParams struct {
	inOff, alphaOff, outOff int32
	mult1, mult2            int32
	shift1, shift2          int
	qmin, qmax              int32
}

// preluOne computes one quantized output.
func preluOne(p *preluParams, x, a int32) int32 {
	x += p.inOff
	var r int32
	if x >= 0 {
		r = mulByQuantMul(x, p.mult1, p.shift1)
	} else {
		r = mulByQuantMul(x*(p.alphaOff+a), p.mult2, p.shift2)
	}
	return clampI32(r+p.outOff, p.qmin, p.qmax)
}

// preluInt8 is PRELU with int8 input, alpha and output, alpha broadcast
// against the input as described by bc.
func preluInt8(p *preluParams, bc *ewBcast, in, alpha, out []int8) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			o[i] = int8(preluOne(p, int32(in[ai]), int32(alpha[bi])))
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// preluInt16 is PRELU with int16 input and output and int8 alpha.
func preluInt16(p *preluParams, bc *ewBcast, in []int16, alpha []int8, out []int16) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			o[i] = int16(preluOne(p, int32(in[ai]), int32(alpha[bi])))
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// preluF32 is PRELU for float32: x >= 0 ? x : x*alpha.
func preluF32(bc *ewBcast, in, alpha, out []float32) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			v := in[ai]
			if !(v >= 0) {
				v *= alpha[bi]
			}
			o[i] = v
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}
