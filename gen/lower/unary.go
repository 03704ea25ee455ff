package lower

import (
	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// Lowerings of the elementwise unary operators whose reference results are
// exact (kernels/unary.go), following TFLite Micro's elementwise.cc (ABS,
// SQRT, RSQRT, SQUARE, LOGICAL_NOT) and neg.cc (NEG). SIN, COS, LOG and
// EXP, whose C library results Go reproduces within an ulp or two rather
// than bit for bit, are in math.go. Quantized RSQRT is not supported yet.

func init() {
	register(model.OpAbs, lowerAbs, elementwise)
	register(model.OpNeg, lowerFloatUnary(kernelsig.NegF32), elementwise)
	register(model.OpSqrt, lowerFloatUnary(kernelsig.SqrtF32), elementwise)
	register(model.OpRsqrt, lowerFloatUnary(kernelsig.RsqrtF32), elementwise)
	register(model.OpSquare, lowerFloatUnary(kernelsig.SquareF32), elementwise)
	register(model.OpLogicalNot, lowerLogicalNot, elementwise)
}

// lowerFloatUnary lowers an operator TFLM runs for float32 only.
func lowerFloatUnary(fn kernelsig.Func) lowering {
	return func(c *opCtx) error {
		in, out, err := actUnary(c)
		if err != nil {
			return err
		}
		if in.Type != model.Float32 {
			return c.Errorf("type %s not supported (float32 only, as in TFLite Micro)", in.Type)
		}
		return actEmitUnary(c, fn, nil, in, out)
	}
}

func lowerLogicalNot(c *opCtx) error {
	in, out, err := actUnary(c)
	if err != nil {
		return err
	}
	if in.Type != model.Bool {
		return c.Errorf("type %s not supported (bool only)", in.Type)
	}
	return actEmitUnary(c, kernelsig.LogicalNot, nil, in, out)
}

// lowerAbs follows PrepareAbsRsqrt: float32 as is; int8, and int16 when it
// is quantized, as |x - zin| rescaled by in/out scale when the scales
// differ (int16: both zero points 0); int16 without quantization as |x|.
func lowerAbs(c *opCtx) error {
	in, out, err := actUnary(c)
	if err != nil {
		return err
	}
	switch {
	case in.Type == model.Float32:
		return actEmitUnary(c, kernelsig.AbsF32, nil, in, out)
	case in.Type == model.Int16 && in.Quant == nil:
		return actEmitUnary(c, kernelsig.AbsInt16Plain, nil, in, out)
	case in.Type != model.Int8 && in.Type != model.Int16:
		return c.Errorf("type %s not supported (float32, int8, int16)", in.Type)
	}
	si, so, zi, zo, err := actQuantPair(c, in, out)
	if err != nil {
		return err
	}
	if in.Type == model.Int16 && (zi != 0 || zo != 0) {
		return c.Errorf("int16 zero points must be 0, have %d and %d", zi, zo)
	}
	fields := []Field{F("inZP", I32(zi)), F("outZP", I32(zo))}
	if si != so {
		m, shift, err := quant.CheckedMultiplier(float64(si) / float64(so))
		if err != nil {
			return c.Errorf("%v", err)
		}
		fields = append(fields, F("mult", I32(m)), F("shift", Int(shift)), F("rescale", Bool(true)))
	}
	fn := kernelsig.AbsInt8
	if in.Type == model.Int16 {
		fn = kernelsig.AbsInt16
	}
	return actEmitUnary(c, fn, []Arg{Struct(kernelsig.AbsParams, fields...)}, in, out)
}
