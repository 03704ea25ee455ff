package kernels

import (
	"math"
	"math/bits"
)

// Binary division operators of TFLite Micro with broadcasting (see ewBcast):
// DIV (div.cc: float32, int32 and int8 with the fused activation), FLOOR_DIV
// (floor_div.cc) and FLOOR_MOD (floor_mod.cc), float32.
//
// Division by zero cannot stop an Invoke here. TFLM's float32 DIV and
// FLOOR_MOD give the IEEE result (an infinity or NaN) and so do these
// kernels; TFLM's FLOOR_DIV fails the Invoke on a zero divisor, where
// floorDivF32 gives floor(x / 0) (an infinity, or NaN for 0 / 0); TFLM's
// int32 DIV traps on a zero divisor, where divI32 gives 0 (and, as Go
// defines it, MinInt32 / -1 = MinInt32 where the reference traps too). The
// lowering refuses constant divisors with a zero, which TFLM cannot run.

// divF32 is DIV for float32: a / b rounded to float32, clamped to the
// activation bounds (NaN passes).
func divF32(p *ewF32Params, bc *ewBcast, a, b, out []float32) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			o[i] = clampF32(a[ai]/b[bi], p.actMin, p.actMax)
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// divI32 is DIV for int32: the quotient truncated toward zero, clamped to
// the activation bounds; x / 0 is 0 (see above).
func divI32(p *ewI32Params, bc *ewBcast, a, b, out []int32) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			q := int32(0)
			if d := b[bi]; d != 0 {
				q = a[ai] / d
			}
			o[i] = clampI32(q, p.actMin, p.actMax)
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// divQuantOne is one quantized DIV element (div.h's DivElementwise):
// with the divisor d = y - zero point made positive (both signs flipped),
// x is shifted up to its headroom and multiplied by 1/d, taken from
// GetReciprocal as a Q0.31 value in [1/2, 1] with a power of two, then
// rescaled by the output multiplier and the combined shift and moved to
// the output zero point, where the combined right shift may exceed 31
// (divRoundingDivByPOT).
//
// A divisor at its zero point (d = 0) is not excluded by TFLM (only a
// debug check), and its arithmetic stays defined in practice: the
// normalising shift of 0 by 32 bits gives 0 (in Go, and for a zero operand
// on any machine), so the reciprocal is one_over_one_plus_x(-1) with
// exponent -1. The result is TFLM's, deterministic but not a quotient
// (e.g. -x scaled by about 1.43 for scales 0.1).
func divQuantOne(p *mulQuantParams, x, y int32) int32 {
	n := p.in1Off + x
	d := p.in2Off + y
	if d < 0 {
		n, d = -n, -d
	}
	lz := bits.LeadingZeros32(uint32(d))
	inv := softmaxRecip(int32(uint32(d)<<uint(lz) - 1<<31))
	recipShift := 31 - lz
	headroom := divLeadingSignBits(n)
	q := satRoundDoublingHighMul(n*(1<<uint(headroom)), inv)
	total := p.shift - recipShift - headroom
	r := divRoundingDivByPOT(satRoundDoublingHighMul(q, p.mult), -total) + p.outOff
	return clampI32(r, p.actMin, p.actMax)
}

// divLeadingSignBits is the number of bits after the sign bit equal to it
// (31 for 0 and -1).
func divLeadingSignBits(x int32) int {
	if x < 0 {
		x = ^x
	}
	return bits.LeadingZeros32(uint32(x)) - 1
}

// divRoundingDivByPOT is roundingDivByPOT for exponents in [0, 31]; beyond
// 31 it reproduces what TFLM's RoundingDivideByPOT computes on x86-64,
// where the exponent is out of its documented range: the mask 2^e - 1 is
// formed in 64 bits and truncated to 32, and the shift count is taken
// modulo 32.
func divRoundingDivByPOT(x int32, e int) int32 {
	if e >= 0 && e <= 31 {
		return roundingDivByPOT(x, e)
	}
	mask := int32(int64(1)<<uint(e&63) - 1)
	threshold := mask >> 1
	if x < 0 {
		threshold++
	}
	r := x >> uint(e&31)
	if x&mask > threshold {
		r++
	}
	return r
}

// divInt8 is DIV for int8 tensors.
func divInt8(p *mulQuantParams, bc *ewBcast, a, b, out []int8) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			o[i] = int8(divQuantOne(p, int32(a[ai]), int32(b[bi])))
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// floorDivF32 is FLOOR_DIV for float32: floor(a / b) with the quotient
// taken in float64, then rounded to float32. TFLM computes it in double
// (floor_div.h: std::floor(double(x) / double(y))), and so does this
// kernel, to give its bits: the one float32 kernel with double arithmetic
// (software routines on targets without a double-precision FPU).
func floorDivF32(bc *ewBcast, a, b, out []float32) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			o[i] = float32(math.Floor(float64(a[ai]) / float64(b[bi])))
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// floorModF32 is FLOOR_MOD for float32: the truncated remainder (fmodf,
// exact, with the sign of a), moved by b when it is non-zero and its sign
// differs from b's. x mod 0 is NaN.
func floorModF32(bc *ewBcast, a, b, out []float32) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			y := b[bi]
			m := f32Mod(a[ai], y)
			if m != 0 && (y < 0) != (m < 0) {
				m += y
			}
			o[i] = m
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// SQUARED_DIFFERENCE (squared_difference.cc): (a - b)^2 for float32 and
// int32 (wrapping), and for int8 and int16 both inputs moved to a common
// scale with p.leftShift bits of headroom (7 for int8, 0 for int16), their
// difference squared and rescaled to the output. p is ADD's parameter
// struct; here p.outShift may be positive (a left shift).

// sqDiffQuantOne is one quantized SQUARED_DIFFERENCE element before the
// cast to the output type.
func sqDiffQuantOne(p *ewQuantParams, x, y int32) int32 {
	a := ewRequantDown((p.in1Off+x)*(int32(1)<<uint(p.leftShift)), p.in1Mult, uint(-p.in1Shift))
	b := ewRequantDown((p.in2Off+y)*(int32(1)<<uint(p.leftShift)), p.in2Mult, uint(-p.in2Shift))
	d := a - b
	return clampI32(mulByQuantMul(d*d, p.outMult, p.outShift)+p.outOff, p.actMin, p.actMax)
}

// sqDiffInt8 is SQUARED_DIFFERENCE for int8 tensors.
func sqDiffInt8(p *ewQuantParams, bc *ewBcast, a, b, out []int8) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			o[i] = int8(sqDiffQuantOne(p, int32(a[ai]), int32(b[bi])))
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// sqDiffInt16 is SQUARED_DIFFERENCE for int16 tensors (zero points 0).
func sqDiffInt16(p *ewQuantParams, bc *ewBcast, a, b, out []int16) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			o[i] = int16(sqDiffQuantOne(p, int32(a[ai]), int32(b[bi])))
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// sqDiffF32 is SQUARED_DIFFERENCE for float32: d*d with d = a - b, each
// rounded to float32.
func sqDiffF32(bc *ewBcast, a, b, out []float32) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			d := a[ai] - b[bi]
			o[i] = d * d
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// sqDiffI32 is SQUARED_DIFFERENCE for int32 (wrapping arithmetic).
func sqDiffI32(bc *ewBcast, a, b, out []int32) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			d := a[ai] - b[bi]
			o[i] = d * d
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// ADD_N (add_n.cc) sums its inputs one call at a time: a start call
// initialises the accumulator, one accumulate call per input (in input
// order) adds it, so float32 sums are rounded in TFLM's order (0 + x0 +
// x1 + ...). The int8 accumulator is int32 scratch: each input value
// moved to its offset and 20 bits of headroom and halved (p.in1Mult,
// p.in1Shift), starting from the term of the offset alone as TFLM's
// reference does, then rescaled to the output.

// addNF32Start sets the float32 ADD_N accumulator (the output) to +0.
func addNF32Start(out []float32) {
	for i := range out {
		out[i] = 0
	}
}

// addNF32Acc adds one float32 ADD_N input to the accumulator.
func addNF32Acc(in, out []float32) {
	out = out[:len(in)]
	for i, v := range in {
		out[i] += v
	}
}

// addNInt8Term is the scaled term of one int8 ADD_N value.
func addNInt8Term(p *ewQuantParams, x int32) int32 {
	return ewRequantDown((p.in1Off+x)*(int32(1)<<uint(p.leftShift)), p.in1Mult, uint(-p.in1Shift))
}

// addNInt8Start sets the int8 ADD_N accumulator to the term of the zero
// value itself (x = 0 before the offset), as TFLM's reference starts.
func addNInt8Start(p *ewQuantParams, acc []int32) {
	t := ewRequantDown(p.in1Off*(int32(1)<<uint(p.leftShift)), p.in1Mult, uint(-p.in1Shift))
	for i := range acc {
		acc[i] = t
	}
}

// addNInt8Acc adds the terms of one int8 ADD_N input to the accumulator.
func addNInt8Acc(p *ewQuantParams, in []int8, acc []int32) {
	acc = acc[:len(in)]
	for i, v := range in {
		acc[i] += addNInt8Term(p, int32(v))
	}
}

// addNInt8Out rescales the int8 ADD_N accumulator to the output.
func addNInt8Out(p *ewQuantParams, acc []int32, out []int8) {
	acc = acc[:len(out)]
	for i, s := range acc {
		out[i] = int8(clampI32(ewRequantDown(s, p.outMult, uint(-p.outShift))+p.outOff, p.actMin, p.actMax))
	}
}
