// Package quant computes, at generation time, the fixed-point constants that
// TensorFlow Lite's integer kernels use: quantized multipliers and shifts and
// activation ranges.
package quant

import "math"

// Multiplier converts a real multiplier into a Q31 fixed-point value and a
// power-of-two exponent: real ≈ m * 2^shift / 2^31. It reproduces
// TensorFlow Lite's QuantizeMultiplier (frexp, round half away from zero,
// tiny multipliers flushed to zero).
func Multiplier(real float64) (m int32, shift int) {
	if real == 0 {
		return 0, 0
	}
	q, exp := math.Frexp(real)
	qf := int64(math.Round(q * (1 << 31)))
	if qf == 1<<31 {
		qf /= 2
		exp++
	}
	if exp < -31 {
		return 0, 0
	}
	return int32(qf), exp
}

// Activation is a fused activation function as stored in the model.
type Activation uint8

// Fused activations, numbered as in the schema.
const (
	ActNone      Activation = 0
	ActRelu      Activation = 1
	ActReluN1To1 Activation = 2
	ActRelu6     Activation = 3
	ActTanh      Activation = 4
	ActSignBit   Activation = 5
)

func (a Activation) String() string {
	switch a {
	case ActNone:
		return "NONE"
	case ActRelu:
		return "RELU"
	case ActReluN1To1:
		return "RELU_N1_TO_1"
	case ActRelu6:
		return "RELU6"
	case ActTanh:
		return "TANH"
	case ActSignBit:
		return "SIGN_BIT"
	}
	return "UNKNOWN"
}

// RangeQuantized returns the clamp bounds of a fused activation for a
// quantized output with the given scale and zero point, within [qmin, qmax]
// (TensorFlow Lite's CalculateActivationRangeQuantized). scale is the
// tensor's float32 scale; like TensorFlow Lite, the division is done in
// float32. ok is false for activations that cannot be fused into a
// quantized kernel.
func RangeQuantized(a Activation, scale float64, zp, qmin, qmax int32) (lo, hi int32, ok bool) {
	q := func(f float64) int32 {
		v := float64(zp) + math.Round(float64(float32(f)/float32(scale)))
		if v < float64(math.MinInt32) {
			return math.MinInt32
		}
		if v > float64(math.MaxInt32) {
			return math.MaxInt32
		}
		return int32(v)
	}
	switch a {
	case ActNone:
		return qmin, qmax, true
	case ActRelu:
		return max(qmin, q(0)), qmax, true
	case ActRelu6:
		return max(qmin, q(0)), min(qmax, q(6)), true
	case ActReluN1To1:
		return max(qmin, q(-1)), min(qmax, q(1)), true
	}
	return 0, 0, false
}

// RangeFloat returns the clamp bounds of a fused activation for float
// kernels. ok is false for activations that are not a clamp.
func RangeFloat(a Activation) (lo, hi float32, ok bool) {
	switch a {
	case ActNone:
		return -math.MaxFloat32, math.MaxFloat32, true
	case ActRelu:
		return 0, math.MaxFloat32, true
	case ActRelu6:
		return 0, 6, true
	case ActReluN1To1:
		return -1, 1, true
	}
	return 0, 0, false
}
