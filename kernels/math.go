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
