package kernels

import "math"

// Elementwise float32 rounding operators of TFLite Micro: FLOOR (floor.cc),
// CEIL (ceil.cc) and ROUND (round.cc). All three are exact: a float32 is
// widened to float64 without loss, and floor or ceil of it is again a
// float32 value.

// floorF32 is FLOOR: the largest integer not above x (-0 and NaN stay).
func floorF32(in, out []float32) {
	out = out[:len(in)]
	for i, v := range in {
		out[i] = float32(math.Floor(float64(v)))
	}
}

// ceilF32 is CEIL: the smallest integer not below x.
func ceilF32(in, out []float32) {
	out = out[:len(in)]
	for i, v := range in {
		out[i] = float32(math.Ceil(float64(v)))
	}
}

// roundF32 is ROUND as TFLite Micro computes it (reference_ops::Round):
// halves go to the even neighbour ("banker's rounding"), written as floor
// plus a correction, so that the result of a negative input above -0.5 is
// +0 (the float32 sum -1 + 1), infinities stay and NaN stays NaN. The
// fraction x - floor(x) is exact in float32; int32(f) is only taken when
// the fraction is exactly 0.5, that is |x| < 2^23.
func roundF32(in, out []float32) {
	out = out[:len(in)]
	for i, v := range in {
		f := float32(math.Floor(float64(v)))
		d := v - f
		if d < 0.5 || d == 0.5 && int32(f)%2 == 0 {
			out[i] = f
			continue
		}
		out[i] = f + 1
	}
}

// EXP (exp.cc), LOG, SIN and COS (elementwise.cc) and float32 ELU (elu.cc):
// TFLM calls C's expf, logf, sinf, cosf and expm1f. These kernels compute
// in float64 and round once to float32, which gives the correctly rounded
// result, or one ulp off in rare double-rounding cases; C libraries are
// not all correctly rounded either, so these results match TFLM's within
// an ulp or two rather than bit for bit (the differential tests compare
// them within 1e-5 relative). Infinities, zeros and NaN follow C99 Annex F
// (exp(-inf) = 0, log(0) = -inf, log(x < 0) = NaN, sin(inf) = NaN).

// expF32 is EXP for float32.
func expF32(in, out []float32) {
	out = out[:len(in)]
	for i, v := range in {
		out[i] = float32(math.Exp(float64(v)))
	}
}

// logF32 is LOG (natural logarithm) for float32.
func logF32(in, out []float32) {
	out = out[:len(in)]
	for i, v := range in {
		out[i] = float32(math.Log(float64(v)))
	}
}

// sinF32 is SIN for float32.
func sinF32(in, out []float32) {
	out = out[:len(in)]
	for i, v := range in {
		out[i] = float32(math.Sin(float64(v)))
	}
}

// cosF32 is COS for float32.
func cosF32(in, out []float32) {
	out = out[:len(in)]
	for i, v := range in {
		out[i] = float32(math.Cos(float64(v)))
	}
}

// eluF32 is ELU for float32: expm1(x) for x < 0, x otherwise (NaN too).
// The int8 ELU is a table computed at generation time (lutInt8).
func eluF32(in, out []float32) {
	out = out[:len(in)]
	for i, v := range in {
		if v < 0 {
			v = float32(math.Expm1(float64(v)))
		}
		out[i] = v
	}
}
