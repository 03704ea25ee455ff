package kernels

import "math"

// Elementwise unary operators whose result TFLite Micro's reference kernels
// compute exactly: ABS (float32, int8, int16), NEG, SQRT, RSQRT and SQUARE
// (float32) and LOGICAL_NOT (bool). The float32 kernels give the bits of
// the reference: a sign flip or clear, and square roots correctly rounded
// (f32Sqrt, as sqrtf).

// absF32 is float32 ABS: the sign bit cleared, as fabsf does (NaNs too).
func absF32(in, out []float32) {
	out = out[:len(in)]
	for i, v := range in {
		out[i] = math.Float32frombits(math.Float32bits(v) &^ (1 << 31))
	}
}

// negF32 is float32 NEG: the sign bit flipped.
func negF32(in, out []float32) {
	out = out[:len(in)]
	for i, v := range in {
		out[i] = -v
	}
}

// sqrtF32 is float32 SQRT.
func sqrtF32(in, out []float32) {
	out = out[:len(in)]
	for i, v := range in {
		out[i] = f32Sqrt(v)
	}
}

// rsqrtF32 is float32 RSQRT: 1 / sqrtf(x), both steps rounded to float32
// as the reference computes them.
func rsqrtF32(in, out []float32) {
	out = out[:len(in)]
	for i, v := range in {
		out[i] = 1 / f32Sqrt(v)
	}
}

// squareF32 is float32 SQUARE: x*x rounded to float32.
func squareF32(in, out []float32) {
	out = out[:len(in)]
	for i, v := range in {
		out[i] = v * v
	}
}

// logicalNot is LOGICAL_NOT over bools stored one per byte (0 or 1).
func logicalNot(in, out []uint8) {
	out = out[:len(in)]
	for i, v := range in {
		out[i] = 1 &^ v
	}
}

// absParams is a quantized ABS: out = |x - inZP|, rescaled by mult and
// shift when the input and output scales differ, plus outZP, saturated to
// the output type.
type absParams struct {
	inZP, outZP int32
	mult        int32
	shift       int
	rescale     bool
}

// absQ is one element of a quantized ABS before saturation.
func absQ(p *absParams, x int32) int32 {
	x -= p.inZP
	if x < 0 {
		x = -x
	}
	if p.rescale {
		x = mulByQuantMul(x, p.mult, p.shift)
	}
	return x + p.outZP
}

// absInt8 is int8 ABS.
func absInt8(p *absParams, in, out []int8) {
	out = out[:len(in)]
	for i, v := range in {
		out[i] = int8(min(max(absQ(p, int32(v)), -128), 127))
	}
}

// absInt16 is quantized int16 ABS (zero points 0, as TFLite Micro requires).
func absInt16(p *absParams, in, out []int16) {
	out = out[:len(in)]
	for i, v := range in {
		out[i] = int16(min(max(absQ(p, int32(v)), -32768), 32767))
	}
}

// absInt16Plain is ABS of an int16 tensor without quantization: |x|, where
// -32768 stays -32768 (the reference's int result cast back to int16).
func absInt16Plain(in, out []int16) {
	out = out[:len(in)]
	for i, v := range in {
		if v < 0 {
			v = -v
		}
		out[i] = v
	}
}
