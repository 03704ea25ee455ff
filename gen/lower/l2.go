package lower

import (
	"slices"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// L2_NORMALIZATION (TFLite Micro's l2norm.cc) and L2_POOL_2D
// (l2_pool_2d.cc), kernels in kernels/l2.go.
//
// L2_NORMALIZATION normalizes rows along the last dimension of a rank 1-4
// tensor: float32, or int8 with the result in units of 1/128 (TFLM does
// not read the output quantization); no fused activation. L2_POOL_2D is
// float32 only, as in TFLM. Refused although TFLM runs them: an output
// shape other than the input's (L2_NORMALIZATION) or other than the
// pooled size TFLM computes (L2_POOL_2D, whose Prepare overwrites the
// output shape without checking the buffer it has).

func init() {
	register(model.OpL2Normalization, lowerL2Norm, elementwise)
	register(model.OpL2Pool2D, lowerL2Pool, ownBuffer)
}

// lowerL2Norm follows L2NormPrepare and L2NormEval.
func lowerL2Norm(c *opCtx) error {
	if c.NumIn() != 1 || c.NumOut() != 1 || c.In(0) == nil || c.Out(0) == nil {
		return c.Errorf("has %d inputs and %d outputs, want 1 and 1", c.NumIn(), c.NumOut())
	}
	in, out := c.In(0), c.Out(0)
	o := c.Op.Options()
	act := quant.Activation(o.L2Norm().FusedActivationFunction)
	if err := o.Err(); err != nil {
		return c.Errorf("%v", err)
	}
	if len(in.Shape) < 1 || len(in.Shape) > 4 {
		return c.Errorf("input %s must have rank 1 to 4", in.Describe())
	}
	if in.Type != model.Float32 && in.Type != model.Int8 {
		return c.Errorf("input %s: type %s is not supported (float32 or int8)", in.Describe(), in.Type)
	}
	if out.Type != in.Type {
		return c.Errorf("input %s and output %s types differ", in.Describe(), out.Describe())
	}
	if act != quant.ActNone {
		return c.Errorf("fused activation %s is not supported (TFLite Micro has none)", act)
	}
	if !slices.Equal(in.Shape, out.Shape) {
		return c.Errorf("input %s and output %s shapes differ", in.Describe(), out.Describe())
	}
	depth := in.Shape[len(in.Shape)-1]
	if depth == 0 || in.NumElements() == 0 {
		return c.Errorf("input %s is empty", in.Describe())
	}
	fields := []Field{F("rows", Int(in.NumElements()/depth)), F("depth", Int(depth))}
	if in.Type == model.Float32 {
		c.Call(kernelsig.L2NormF32, Struct(kernelsig.L2NormParams, fields...), View(in), View(out))
		return nil
	}
	var zp int64 // TFLM reads params.zero_point, 0 without quantization
	if in.Quant != nil && len(in.Quant.ZeroPoint) > 0 {
		if len(in.Quant.ZeroPoint) != 1 {
			return c.Errorf("input %s needs per-tensor quantization", in.Describe())
		}
		zp = in.Quant.ZeroPoint[0]
	}
	c.Call(kernelsig.L2NormInt8, Struct(kernelsig.L2NormParams, append(fields, F("inZP", I32(int32(zp))))...), View(in), View(out))
	return nil
}

// lowerL2Pool follows L2Prepare: 4-D float32 NHWC, padding and output
// size as for the other pools (poolGeometry), the fused activation's
// float range.
func lowerL2Pool(c *opCtx) error {
	if c.NumIn() != 1 || c.NumOut() != 1 || c.In(0) == nil || c.Out(0) == nil {
		return c.Errorf("has %d inputs and %d outputs, want 1 and 1", c.NumIn(), c.NumOut())
	}
	in, out := c.In(0), c.Out(0)
	o := c.Op.Options()
	opt := o.Pool2D()
	padding := opt.Padding
	strideW, strideH := int(opt.StrideW), int(opt.StrideH)
	filterW, filterH := int(opt.FilterWidth), int(opt.FilterHeight)
	act := quant.Activation(opt.FusedActivationFunction)
	if err := o.Err(); err != nil {
		return c.Errorf("%v", err)
	}
	if padding > 1 {
		return c.Errorf("padding %d is neither SAME (0) nor VALID (1)", padding)
	}
	if len(in.Shape) != 4 || len(out.Shape) != 4 {
		return c.Errorf("input %s and output %s must be 4-D", in.Describe(), out.Describe())
	}
	if in.Type != out.Type {
		return c.Errorf("input %s and output %s types differ", in.Describe(), out.Describe())
	}
	if in.Type != model.Float32 {
		return c.Errorf("input %s: type %s is not supported (float32 only, as in TFLite Micro)", in.Describe(), in.Type)
	}
	inH, inW := in.Shape[1], in.Shape[2]
	outH, padH, err := poolGeometry(c, "height", padding == 0, strideH, filterH, inH)
	if err != nil {
		return err
	}
	outW, padW, err := poolGeometry(c, "width", padding == 0, strideW, filterW, inW)
	if err != nil {
		return err
	}
	if want := []int{in.Shape[0], outH, outW, in.Shape[3]}; !slices.Equal(out.Shape, want) {
		return c.Errorf("output %s: TFLite Micro computes shape %v", out.Describe(), want)
	}
	if !poolWindowsNonEmpty(outH, strideH, padH, filterH, inH) || !poolWindowsNonEmpty(outW, strideW, padW, filterW, inW) {
		return c.Errorf("output %s has pooling windows entirely outside the input", out.Describe())
	}
	lo, hi, err := c.actRangeFloat(act)
	if err != nil {
		return err
	}
	c.Call(kernelsig.L2PoolF32, Struct(kernelsig.PoolParams,
		F("batches", Int(in.Shape[0])), F("inH", Int(inH)), F("inW", Int(inW)), F("depth", Int(in.Shape[3])),
		F("outH", Int(outH)), F("outW", Int(outW)), F("strideH", Int(strideH)), F("strideW", Int(strideW)),
		F("filterH", Int(filterH)), F("filterW", Int(filterW)), F("padH", Int(padH)), F("padW", Int(padW)),
		F("fActMin", F32(lo)), F("fActMax", F32(hi))), View(in), View(out))
	return nil
}
