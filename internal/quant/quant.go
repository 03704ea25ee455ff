// Package quant computes, at generation time, the fixed-point constants that
// TensorFlow Lite's integer kernels use: quantized multipliers and shifts and
// activation ranges.
package quant

import (
	"fmt"
	"math"
)

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

// CheckedMultiplier is Multiplier for multipliers a kernel will apply: it
// reports an error where TensorFlow Lite's MultiplyByQuantizedMultiplier
// cannot apply the result, i.e. for a real multiplier that is NaN or
// infinite, or whose exponent exceeds 30 (the left shift would overflow 32
// bits). Tiny multipliers are flushed to zero as by Multiplier; negative
// ones give a negative m, as QuantizeMultiplier does (LEAKY_RELU with a
// negative alpha). The lowerings compute their multipliers with it, except
// where TensorFlow Lite uses another conversion (the int8 SOFTMAX's
// QuantizeMultiplierGreaterThanOne, HARD_SWISH's and the int8
// LOGISTIC/TANH input rescaling, each with checks of its own).
func CheckedMultiplier(real float64) (m int32, shift int, err error) {
	if math.IsNaN(real) || math.IsInf(real, 0) {
		return 0, 0, fmt.Errorf("rescaling factor %g is not finite", real)
	}
	m, shift = Multiplier(real)
	if shift > 30 {
		return 0, 0, fmt.Errorf("rescaling factor %g is too large (exponent %d, at most 30)", real, shift)
	}
	return m, shift, nil
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

// ActRange returns the clamp bounds of a fused activation for a quantized
// output with the given scale and zero point, within [qmin, qmax]: TensorFlow
// Lite's CalculateActivationRangeQuantized, each bound zp + round(f/scale)
// with the division and rounding in float32 as its Quantize does. Like
// Quantize (which fails Prepare), it reports an error when a bound does not
// fit in int32: the rounded quotient, or its sum with the zero point. It
// also reports activations that are not a clamp (TANH, SIGN_BIT), which
// cannot be fused into a quantized kernel. Every lowering computes its
// quantized activation ranges with it.
func ActRange(a Activation, scale float32, zp, qmin, qmax int32) (lo, hi int32, err error) {
	q := func(f float32) (int32, error) {
		t := float32(math.Round(float64(f / scale)))
		v := int64(zp) + int64(t)
		if !(t >= -(1 << 31)) || !(t < 1<<31) || v < math.MinInt32 || v > math.MaxInt32 {
			return 0, fmt.Errorf("fused activation %s: bound %v overflows int32 with output scale %v and zero point %d", a, f, scale, zp)
		}
		return int32(v), nil
	}
	lo, hi = qmin, qmax
	var bounds []float32
	switch a {
	case ActNone:
	case ActRelu:
		bounds = []float32{0}
	case ActRelu6:
		bounds = []float32{0, 6}
	case ActReluN1To1:
		bounds = []float32{-1, 1}
	default:
		return 0, 0, fmt.Errorf("fused activation %s is not supported", a)
	}
	for i, f := range bounds {
		v, err := q(f)
		if err != nil {
			return 0, 0, err
		}
		if i == 0 {
			lo = max(lo, v)
		} else {
			hi = min(hi, v)
		}
	}
	return lo, hi, nil
}

// RangeQuantized is ActRange with the scale widened to float64 and the
// error as ok (the form the kernel tests use).
func RangeQuantized(a Activation, scale float64, zp, qmin, qmax int32) (lo, hi int32, ok bool) {
	lo, hi, err := ActRange(a, float32(scale), zp, qmin, qmax)
	return lo, hi, err == nil
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

// RangeInt32 returns the clamp bounds of a fused activation for plain
// (unquantized) int32 kernels, as TensorFlow Lite's CalculateActivationRange
// for int32; activations that are not a clamp leave the full range.
func RangeInt32(a Activation) (lo, hi int32) {
	switch a {
	case ActRelu:
		return 0, math.MaxInt32
	case ActRelu6:
		return 0, 6
	case ActReluN1To1:
		return -1, 1
	}
	return math.MinInt32, math.MaxInt32
}
