package kernels

// Elementwise float32 rounding operators of TFLite Micro: FLOOR (floor.cc),
// CEIL (ceil.cc) and ROUND (round.cc). All three are exact (f32Floor and
// f32Ceil clear the fraction bits).

// floorF32 is FLOOR: the largest integer not above x (-0 and NaN stay).
func floorF32(in, out []float32) {
	out = out[:len(in)]
	for i, v := range in {
		out[i] = f32Floor(v)
	}
}

// ceilF32 is CEIL: the smallest integer not below x.
func ceilF32(in, out []float32) {
	out = out[:len(in)]
	for i, v := range in {
		out[i] = f32Ceil(v)
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
		f := f32Floor(v)
		d := v - f
		if d < 0.5 || d == 0.5 && int32(f)%2 == 0 {
			out[i] = f
			continue
		}
		out[i] = f + 1
	}
}

// EXP (exp.cc), LOG, SIN and COS (elementwise.cc) and float32 ELU (elu.cc):
// TFLM calls C's expf, logf, sinf, cosf and expm1f. These kernels use
// f32Exp, f32Log, f32Sin, f32Cos and f32Expm1 (integer arithmetic, see
// f32math.go), which give the correctly rounded result but within about
// 2^-40 of a rounding boundary, where they may be one ulp off; C libraries
// are not all correctly rounded either, so these results match TFLM's
// within an ulp or two rather than bit for bit (the differential tests
// compare them within 1e-5 relative). Infinities, zeros and NaN follow C99
// Annex F (exp(-inf) = 0, log(0) = -inf, log(x < 0) = NaN, sin(inf) = NaN).

// expF32 is EXP for float32.
func expF32(in, out []float32) {
	out = out[:len(in)]
	for i, v := range in {
		out[i] = f32Exp(v)
	}
}

// logF32 is LOG (natural logarithm) for float32.
func logF32(in, out []float32) {
	out = out[:len(in)]
	for i, v := range in {
		out[i] = f32Log(v)
	}
}

// sinF32 is SIN for float32.
func sinF32(in, out []float32) {
	out = out[:len(in)]
	for i, v := range in {
		out[i] = f32Sin(v)
	}
}

// cosF32 is COS for float32.
func cosF32(in, out []float32) {
	out = out[:len(in)]
	for i, v := range in {
		out[i] = f32Cos(v)
	}
}

// eluF32 is ELU for float32: expm1(x) for x < 0, x otherwise (NaN too).
// The int8 ELU is a table computed at generation time (lutInt8).
func eluF32(in, out []float32) {
	out = out[:len(in)]
	for i, v := range in {
		if v < 0 {
			v = f32Expm1(v)
		}
		out[i] = v
	}
}
