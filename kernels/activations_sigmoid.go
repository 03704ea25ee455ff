package kernels

import (
	"math"
	"unsafe"
)

// LOGISTIC and TANH, as in TFLite Micro's reference kernels:
//   - int8 rescales the input to a Q4.27 fixed-point value and evaluates the
//     function with gemmlowp's fixed-point approximations (reproduced below
//     with the actfp prefix);
//   - int16 interpolates in a 256-entry table of sigmoid(i/24);
//   - float32 calls exp / tanh.

// logisticTanhParams holds the generation-time constants of an int8
// LOGISTIC or TANH: the input zero point, the radius beyond which the
// output saturates, and the rescaling of the input to Q4.27.
type logisticTanhParams struct {
	inZP, radius int32
	mult         int32
	shift        int
}

// logisticTanh16Params holds the constants of an int16 LOGISTIC or TANH: the
// input is rescaled with (x*mult + round) >> shift before the table lookup.
type logisticTanh16Params struct {
	mult  int32
	shift int
}

// actfpExpMult returns exp(-2^(k-2)) in Q0.31 for k = 0..6, the factors of
// the barrel shifter in actfpExpNeg.
func actfpExpMult(k int) int32 {
	switch k {
	case 0:
		return 1672461947
	case 1:
		return 1302514674
	case 2:
		return 790015084
	case 3:
		return 290630308
	case 4:
		return 39332535
	case 5:
		return 720401
	}
	return 242
}

// actfpShlSat multiplies x by 2^e (e >= 0), saturating to the int32 range.
func actfpShlSat(x int32, e int) int32 {
	if e == 0 {
		return x
	}
	limit := int32(1)<<uint(31-e) - 1
	if x > limit {
		return math.MaxInt32
	}
	if x < -limit {
		return math.MinInt32
	}
	return x * (int32(1) << uint(e))
}

// actfpExpQuarter returns exp(a) in Q0.31 for a Q0.31 value a in [-1/4, 0),
// from a Taylor expansion around -1/8.
func actfpExpQuarter(a int32) int32 {
	const expMinusEighth = 1895147668 // exp(-1/8)
	const third = 715827883           // 1/3
	x := a + 1<<28
	x2 := satRoundDoublingHighMul(x, x)
	x3 := satRoundDoublingHighMul(x2, x)
	x4 := satRoundDoublingHighMul(x2, x2)
	x4q := roundingDivByPOT(x4, 2)
	t := roundingDivByPOT(satRoundDoublingHighMul(x4q+x3, third)+x2, 1)
	return expMinusEighth + satRoundDoublingHighMul(expMinusEighth, x+t)
}

// actfpExpNeg returns exp(a) in Q0.31 for a <= 0 with intBits integer bits.
func actfpExpNeg(a int32, intBits int) int32 {
	frac := 31 - intBits
	quarter := int32(1) << uint(frac-2)
	low := (a & (quarter - 1)) - quarter
	r := actfpExpQuarter(actfpShlSat(low, intBits))
	rem := low - a
	for k := 0; k < 7; k++ {
		m := actfpExpMult(k)
		e := k - 2
		if intBits > e && rem&(int32(1)<<uint(frac+e)) != 0 {
			r = satRoundDoublingHighMul(r, m)
		}
	}
	if intBits > 5 && a < -(int32(1)<<uint(36-intBits)) {
		r = 0
	}
	if a == 0 {
		r = math.MaxInt32
	}
	return r
}

// actfpHalfDenominator returns (a + 1)/2 in Q0.31, rounded half away from
// zero, for a Q0.31 value a.
func actfpHalfDenominator(a int32) int32 {
	s := int64(a) + math.MaxInt32
	if s >= 0 {
		s++
	} else {
		s--
	}
	return int32(s / 2)
}

// actfpReciprocal runs three Newton-Raphson steps for 1/(2*hd) and returns
// the estimate in Q2.29.
func actfpReciprocal(hd int32) int32 {
	x := 1515870810 + satRoundDoublingHighMul(hd, -1010580540) // 48/17 - 32/17*hd
	for k := 0; k < 3; k++ {
		e := int32(1)<<29 - satRoundDoublingHighMul(hd, x)
		x += actfpShlSat(satRoundDoublingHighMul(x, e), 2)
	}
	return x
}

// actfpLogistic returns 1/(1+exp(-a)) in Q0.31 for a with intBits integer
// bits.
func actfpLogistic(a int32, intBits int) int32 {
	abs := a
	if a <= 0 {
		abs = -a
	}
	pos := actfpShlSat(actfpReciprocal(actfpHalfDenominator(actfpExpNeg(-abs, intBits))), 1)
	switch {
	case a == 0:
		return 1 << 30
	case a > 0:
		return pos
	}
	return math.MaxInt32 - pos
}

// actfpTanh returns tanh(a) in Q0.31 for a with intBits integer bits.
func actfpTanh(a int32, intBits int) int32 {
	n := -a
	if a < 0 {
		n = a
	}
	e := actfpExpNeg(n, intBits+1)
	t := actfpShlSat(actfpReciprocal(actfpHalfDenominator(e))-1<<29, 2)
	switch {
	case a == 0:
		return 0
	case a < 0:
		return -t
	}
	return t
}

// lutInt8 maps every int8 input x to tab[uint8(x)]: an int8 LOGISTIC or
// TANH whose 256 outputs were computed at generation time with TFLite
// Micro's fixed-point arithmetic.
func lutInt8(tab string, in, out []int8) {
	t := (*[256]byte)(unsafe.Pointer(unsafe.StringData(tab[:256])))
	out = out[:len(in)]
	for i, v := range in {
		out[i] = int8(t[uint8(v)])
	}
}

// logisticTanh16Input rescales an int16 input for the table lookup and
// returns it with its magnitude.
func logisticTanh16Input(p *logisticTanh16Params, v int16) (x int32, abs uint32) {
	round := int32(0)
	if p.shift > 0 {
		round = int32(1) << uint(p.shift-1)
	}
	x = (int32(v)*p.mult + round) >> uint(p.shift)
	if x < 0 {
		return x, uint32(-x)
	}
	return x, uint32(x)
}

// logisticInt16 is LOGISTIC for int16 (output scale 2^-15, zero point 0).
func logisticInt16(p *logisticTanh16Params, in, out []int16) {
	for i, v := range in {
		x, ax := logisticTanh16Input(p, v)
		var r uint32
		if h := ax >> 9; h >= 255 {
			r = 0x7FFF << 10
		} else {
			lo, hi := sigmoidTab(int(h)), sigmoidTab(int(h)+1)
			r = lo<<9 + (ax&0x1FF)*(hi-lo)
		}
		if x >= 0 {
			r += 1 << 9
		} else {
			r = 1<<25 - r + 1<<9 - 1
		}
		out[i] = int16(r >> 10)
	}
}

// tanhInt16 is TANH for int16 (output scale 2^-15, zero point 0).
func tanhInt16(p *logisticTanh16Params, in, out []int16) {
	for i, v := range in {
		x, ax := logisticTanh16Input(p, v)
		var r int32
		if h := ax >> 8; h >= 255 {
			r = 0xFFFF << 8
		} else {
			lo, hi := sigmoidTab(int(h)), sigmoidTab(int(h)+1)
			r = int32(lo<<8 + (ax&0xFF)*(hi-lo))
		}
		if x >= 0 {
			r = r - 1<<23 + 1<<7
		} else {
			r = -r + 1<<23 + 1<<7 - 1
		}
		out[i] = int16(r >> 8)
	}
}

// logisticF32 is LOGISTIC for float32, with TFLM's cut-offs: 1 above
// 16.619047, exp(x) below -9, 1/(1+exp(-x)) in between.
func logisticF32(in, out []float32) {
	for i, v := range in {
		switch {
		case v > 16.619047164916992188:
			out[i] = 1
		case v < -9:
			out[i] = float32(math.Exp(float64(v)))
		default:
			e := float32(math.Exp(float64(-v)))
			out[i] = 1 / (1 + e)
		}
	}
}

// tanhF32 is TANH for float32.
func tanhF32(in, out []float32) {
	for i, v := range in {
		out[i] = float32(math.Tanh(float64(v)))
	}
}
