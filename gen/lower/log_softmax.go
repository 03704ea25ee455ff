package lower

import (
	"math"
	"slices"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// The kernels read a row completely before writing it and then element c
// before writing element c (kernels/log_softmax.go), so the output may take
// over the input's memory like an elementwise operator's.
func init() { register(model.OpLogSoftmax, lowerLogSoftmax, elementwise) }

// logSoftmaxMaxDepth is the longest row lowered for int8: the Q12.19 sum of
// 4096 exponentials of 1 overflows int32 (in TFLM as well, where the
// overflow is undefined behaviour), so longer rows are refused.
const logSoftmaxMaxDepth = 4095

// lowerLogSoftmax lowers LOG_SOFTMAX over the last dimension (TFLM
// log_softmax.cc): float32, and int8 with output scale 16/256 and zero
// point 127 (the values TFLM's Prepare requires). Input and output have
// the same type and shape. For int8 the lowering computes what TFLM's
// Prepare does: PreprocessLogSoftmaxScalingExp for beta 1 and Q5.26
// differences (input multiplier and left shift, reverse multiplier and
// shift) and CalculateInputRadius (diff_min). Prepare's checks on these
// (TFLITE_CHECK, which aborts TFLM) are refusals here, as are inputs
// without per-tensor quantization and rank 0 (TFLM indexes dimension -1).
func lowerLogSoftmax(c *opCtx) error {
	if c.NumIn() != 1 || c.NumOut() != 1 || c.In(0) == nil {
		return c.Errorf("has %d inputs and %d outputs, want 1 and 1", c.NumIn(), c.NumOut())
	}
	in, out := c.In(0), c.Out(0)
	if in.Type != out.Type {
		return c.Errorf("input type %s and output type %s differ", in.Type, out.Type)
	}
	if !slices.Equal(in.Shape, out.Shape) {
		return c.Errorf("output shape %v differs from input shape %v", out.Shape, in.Shape)
	}
	if len(in.Shape) == 0 {
		return c.Errorf("input %s has rank 0, want at least one dimension", in.Describe())
	}
	if in.Type != model.Float32 && in.Type != model.Int8 {
		return c.Errorf("type %s not supported (float32, int8)", in.Type)
	}
	depth := in.Shape[len(in.Shape)-1]
	params := []Field{F("depth", Int(depth))}
	if depth > 0 {
		params = append(params, F("outer", Int(in.NumElements()/depth)))
	}
	fn := kernelsig.LogSoftmaxF32
	if in.Type == model.Int8 {
		q, err := logSoftmaxInt8Params(c, in, out)
		if err != nil {
			return err
		}
		if depth > logSoftmaxMaxDepth {
			return c.Errorf("rows of %d elements: the int8 sum of exponentials overflows beyond %d", depth, logSoftmaxMaxDepth)
		}
		params = append(params, q...)
		fn = kernelsig.LogSoftmaxInt8
	}
	if in.NumElements() == 0 {
		return nil
	}
	iv, err := ewOperand(c, in)
	if err != nil {
		return err
	}
	c.Call(fn, Struct(kernelsig.LogSoftmaxParams, params...), iv, View(out))
	return nil
}

// logSoftmaxInt8Params checks the int8 quantization and returns the
// kernel's fixed-point parameters.
func logSoftmaxInt8Params(c *opCtx, in, out *model.Tensor) ([]Field, error) {
	for _, t := range []*model.Tensor{in, out} {
		if t.Quant == nil || len(t.Quant.Scale) != 1 || len(t.Quant.ZeroPoint) != 1 {
			return nil, c.Errorf("%s needs per-tensor quantization", t.Describe())
		}
	}
	if out.Quant.Scale[0] != 16.0/256 || out.Quant.ZeroPoint[0] != 127 {
		return nil, c.Errorf("output %s: int8 log_softmax output needs scale 16/256 and zero point 127", out.Describe())
	}
	// PreprocessSoftmaxScaling: input scale (beta 1) as a Q5.26 multiplier
	// greater than one, capped at 2^31 - 1; QuantizeMultiplierGreaterThanOne
	// checks it is above one with a shift >= 0.
	inS := float64(in.Quant.Scale[0])
	real := math.Min(inS*(1<<(31-softmaxScaledDiffBits)), 1<<31-1.0)
	m, s := quant.Multiplier(real)
	if !(real > 1) || s < 0 {
		return nil, c.Errorf("input scale %g is too small for the int8 log_softmax", inS)
	}
	// The reverse scaling 2^(31-s) / m, which QuantizeMultiplierSmallerThanOneExp
	// requires in (0, 1) with a shift <= 0 (s >= 1 given real > 1).
	rev := float64(int64(1)<<(31-s)) / float64(m)
	rm, rs := quant.Multiplier(rev)
	if !(rev < 1) || !(rev > 0) || rs > 0 {
		return nil, c.Errorf("input scale %g: reverse scaling %g is not below one", inS, rev)
	}
	radius := math.Floor(float64((1<<softmaxScaledDiffBits)-1) * (1 << (31 - softmaxScaledDiffBits)) / math.Ldexp(1, s))
	return []Field{
		F("inputMult", I32(m)), F("inputShift", Int(s)),
		F("reverseMult", I32(rm)), F("reverseShift", Int(rs)),
		F("diffMin", I32(-int32(radius))),
	}, nil
}
