package lower

import (
	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// Lowerings of QUANTIZE and DEQUANTIZE (kernels/quantize.go), following
// TFLite Micro's quantize_common.cc and dequantize_common.cc.

func init() {
	register(model.OpQuantize, lowerQuantize, elementwise)
	register(model.OpDequantize, lowerDequantize, ownBuffer)
}

// quantizeRequantKernels maps the integer (input, output) type pairs that
// TFLM's QUANTIZE requantizes to the kernel doing it.
var quantizeRequantKernels = map[[2]model.DType]kernelsig.Func{
	{model.Int8, model.Int8}:   kernelsig.RequantizeI8ToI8,
	{model.Int8, model.Uint8}:  kernelsig.RequantizeI8ToU8,
	{model.Int8, model.Int16}:  kernelsig.RequantizeI8ToI16,
	{model.Int8, model.Int32}:  kernelsig.RequantizeI8ToI32,
	{model.Uint8, model.Int8}:  kernelsig.RequantizeU8ToI8,
	{model.Int16, model.Int8}:  kernelsig.RequantizeI16ToI8,
	{model.Int16, model.Int16}: kernelsig.RequantizeI16ToI16,
	{model.Int16, model.Int32}: kernelsig.RequantizeI16ToI32,
	{model.Int32, model.Int8}:  kernelsig.RequantizeI32ToI8,
	{model.Int32, model.Int16}: kernelsig.RequantizeI32ToI16,
}

// quantizeRequantConsts mirrors kernels.requantizeParams.
type quantizeRequantConsts struct {
	InZP, OutZP int32
	Mult        int32
	Shift       int
	QMin, QMax  int32
}

// quantizeRequantFor computes the constants of an integer QUANTIZE from the
// input and output quantization and the output type.
func quantizeRequantFor(out model.DType, si, so float32, zi, zo int32) (quantizeRequantConsts, error) {
	k := quantizeRequantConsts{InZP: zi, OutZP: zo}
	var err error
	if k.Mult, k.Shift, err = quant.CheckedMultiplier(float64(si) / float64(so)); err != nil {
		return k, err
	}
	k.QMin, k.QMax = out.IntRange()
	return k, nil
}

// lowerQuantize lowers QUANTIZE.
func lowerQuantize(c *opCtx) error {
	if c.NumIn() != 1 || c.NumOut() != 1 || c.In(0) == nil {
		return c.Errorf("want 1 input and 1 output")
	}
	in, out := c.In(0), c.Out(0)
	if in.NumElements() != out.NumElements() {
		return c.Errorf("input has %d elements, output %d", in.NumElements(), out.NumElements())
	}
	so, zo, err := ewTensorQuant(c, out)
	if err != nil {
		return err
	}
	if err := ewZPInRange(c, out, zo); err != nil {
		return err
	}
	if in.Type == model.Float32 {
		var fn kernelsig.Func
		switch out.Type {
		case model.Int8:
			fn = kernelsig.QuantizeF32ToInt8
		case model.Int16:
			fn = kernelsig.QuantizeF32ToInt16
		default:
			return c.Errorf("float32 to %s is not supported", out.Type)
		}
		if out.NumElements() == 0 {
			return nil
		}
		iv, err := ewOperand(c, in)
		if err != nil {
			return err
		}
		c.BandCall(unaryBand, fn, Struct(kernelsig.QuantizeParams, F("scale", F32(so)), F("zp", I32(zo))), iv, View(out))
		return nil
	}
	fn, ok := quantizeRequantKernels[[2]model.DType{in.Type, out.Type}]
	if !ok {
		return c.Errorf("%s to %s is not supported", in.Type, out.Type)
	}
	si, zi, err := ewTensorQuant(c, in)
	if err != nil {
		return err
	}
	k, err := quantizeRequantFor(out.Type, si, so, zi, zo)
	if err != nil {
		return c.Errorf("%v", err)
	}
	if out.NumElements() == 0 {
		return nil
	}
	iv, err := ewOperand(c, in)
	if err != nil {
		return err
	}
	q, err := fcMakeRQ(c, k.Mult, k.Shift)
	if err != nil {
		return err
	}
	c.BandCall(unaryBand, fn, Struct(kernelsig.RequantizeParams,
		F("inZP", I32(k.InZP)), F("outZP", I32(k.OutZP)),
		F("mult", I32(q.mult)), F("half", I32(q.half)), F("lsh", Int(int(q.lsh))), F("rsh", Int(int(q.rsh))),
		F("qmin", I32(k.QMin)), F("qmax", I32(k.QMax))), iv, View(out))
	return nil
}

// lowerDequantize lowers DEQUANTIZE.
func lowerDequantize(c *opCtx) error {
	if c.NumIn() != 1 || c.NumOut() != 1 || c.In(0) == nil {
		return c.Errorf("want 1 input and 1 output")
	}
	in, out := c.In(0), c.Out(0)
	if out.Type != model.Float32 {
		return c.Errorf("output type %s is not supported (want float32)", out.Type)
	}
	if in.NumElements() != out.NumElements() {
		return c.Errorf("input has %d elements, output %d", in.NumElements(), out.NumElements())
	}
	var fn kernelsig.Func
	switch in.Type {
	case model.Int8:
		fn = kernelsig.DequantizeI8
	case model.Int16:
		fn = kernelsig.DequantizeI16
	case model.Uint8:
		fn = kernelsig.DequantizeU8
	default:
		return c.Errorf("input type %s is not supported", in.Type)
	}
	s, z, err := ewTensorQuant(c, in)
	if err != nil {
		return err
	}
	if out.NumElements() == 0 {
		return nil
	}
	iv, err := ewOperand(c, in)
	if err != nil {
		return err
	}
	c.BandCall(unaryBand, fn, Struct(kernelsig.DequantizeParams, F("scale", F32(s)), F("zp", I32(z))), iv, View(out))
	return nil
}
