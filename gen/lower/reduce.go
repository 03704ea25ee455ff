package lower

import (
	"encoding/binary"
	"slices"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// SUM, REDUCE_MAX, REDUCE_MIN and REDUCE_ALL (TFLite Micro's reduce.cc and
// reduce_common.cc) over the constant int32 axes of input 1, which are
// resolved as for MEAN (meanLevels: negative axes count from the end,
// repeats are ignored). keep_dims only shapes the output. Types as TFLM's
// Eval accepts them: SUM float32, int8 and int16; REDUCE_MAX and
// REDUCE_MIN float32 and int8 (input and output with the same scale and
// zero point, which TFLM's Eval checks); REDUCE_ALL bool.
//
// SUM runs the MEAN kernels: float32 with a count of 1 (x/1 is x, and the
// sums are accumulated in TFLM's order), int8 and int16 with the
// requantization QuantizedMeanOrSum uses for sums (the input/output scale
// ratio without 1/count).
//
// Refused although TFLM runs them: axes that are not a constant tensor
// (TFLM reads them at Invoke), empty inputs, inputs whose reduced and
// kept dimensions alternate more than five times, and int8 and int16 SUM
// with an axis out of range (TFLM's Eval ignores the failed ResolveAxis
// there and leaves zeros; its float path fails the Invoke).
//
// CUMSUM (TFLM's cumsum.cc), a running sum along one axis, is here too.

func init() {
	register(model.OpSum, lowerSum, ownBuffer, withTFLMScratch(reduceSumTFLMScratch))
	register(model.OpReduceMax, lowerReduceMinMax(kernelsig.ReduceMaxF32, kernelsig.ReduceMaxInt8), ownBuffer, withTFLMScratch(reduceTFLMScratch))
	register(model.OpReduceMin, lowerReduceMinMax(kernelsig.ReduceMinF32, kernelsig.ReduceMinInt8), ownBuffer, withTFLMScratch(reduceTFLMScratch))
	register(model.OpReduceAll, lowerReduceAll, ownBuffer, withTFLMScratch(reduceTFLMScratch))
	register(model.OpCumsum, lowerCumsum, elementwise)
}

// reduceOperands checks what all the reductions share: two inputs and one
// output of the input's type, constant int32 axes in range, an output with
// one element per kept position. It returns the level fields of
// meanParams and the number of input elements per output.
func reduceOperands(c *opCtx) (in, out *model.Tensor, levels []Field, count int, err error) {
	if c.NumIn() != 2 || c.NumOut() != 1 || c.In(0) == nil || c.In(1) == nil || c.Out(0) == nil {
		return nil, nil, nil, 0, c.Errorf("has %d inputs and %d outputs, want 2 and 1", c.NumIn(), c.NumOut())
	}
	in, axis, out := c.In(0), c.In(1), c.Out(0)
	o := c.Op.Options()
	_ = o.Reducer() // keep_dims is reflected in the output shape
	if err := o.Err(); err != nil {
		return nil, nil, nil, 0, c.Errorf("%v", err)
	}
	if axis.Type != model.Int32 {
		return nil, nil, nil, 0, c.Errorf("axis %s must be int32", axis.Describe())
	}
	if !axis.IsConst() {
		return nil, nil, nil, 0, c.Errorf("axis %s must be a constant tensor", axis.Describe())
	}
	if in.Type != out.Type {
		return nil, nil, nil, 0, c.Errorf("input %s and output %s types differ", in.Describe(), out.Describe())
	}
	axes := make([]int32, axis.NumElements())
	for i := range axes {
		axes[i] = int32(binary.LittleEndian.Uint32(axis.Data[4*i:]))
	}
	for _, n := range in.Shape {
		if n == 0 {
			return nil, nil, nil, 0, c.Errorf("input %s is empty", in.Describe())
		}
	}
	dims, strides, nOut, count, ok := meanLevels(in.Shape, axes)
	if !ok {
		return nil, nil, nil, 0, c.Errorf("axes %v of input %s are out of range or alternate too often (at most %d runs of reduced and kept dimensions)", axes, in.Describe(), meanMaxLevels)
	}
	if out.NumElements() != nOut {
		return nil, nil, nil, 0, c.Errorf("output %s: want %d elements", out.Describe(), nOut)
	}
	levels = []Field{
		F("d0", Int(dims[0])), F("d1", Int(dims[1])), F("d2", Int(dims[2])), F("d3", Int(dims[3])), F("d4", Int(dims[4])),
		F("s0", Int(strides[0])), F("s1", Int(strides[1])), F("s2", Int(strides[2])), F("s3", Int(strides[3])), F("s4", Int(strides[4])),
		F("nOut", Int(nOut)),
	}
	return in, out, levels, count, nil
}

// reduceQuant returns the per-tensor scale and zero point of an int8 or
// int16 operand.
func reduceQuant(c *opCtx, t *model.Tensor) (float32, int64, error) {
	if t.Quant == nil || len(t.Quant.Scale) != 1 || len(t.Quant.ZeroPoint) != 1 {
		return 0, 0, c.Errorf("%s needs per-tensor quantization", t.Describe())
	}
	return t.Quant.Scale[0], t.Quant.ZeroPoint[0], nil
}

// lowerSum follows EvalSumHelper: float32 summed in input order; int8 and
// int16 summed in int32, count * input zero point subtracted, rescaled by
// input/output scale and offset by the output zero point, saturated.
func lowerSum(c *opCtx) error {
	in, out, levels, count, err := reduceOperands(c)
	if err != nil {
		return err
	}
	var fn kernelsig.Func
	switch in.Type {
	case model.Float32:
		c.Call(kernelsig.MeanF32, Struct(kernelsig.MeanParams, append(levels, F("count", F32(1)))...), View(in), View(out))
		return nil
	case model.Int8:
		fn = kernelsig.MeanInt8
	case model.Int16:
		fn = kernelsig.MeanInt16
	default:
		return c.Errorf("input %s: type %s is not supported (float32, int8 or int16)", in.Describe(), in.Type)
	}
	si, zi, err := reduceQuant(c, in)
	if err != nil {
		return err
	}
	so, zo, err := reduceQuant(c, out)
	if err != nil {
		return err
	}
	m, s, err := c.multiplier("input/output scale ratio", float64(si)/float64(so))
	if err != nil {
		return err
	}
	params := append(levels, F("inZeroSum", I64(zi*int64(count))), F("mult", I32(m)), F("shift", Int(s)),
		F("outOffset", I32(int32(zo))))
	c.Call(fn, Struct(kernelsig.MeanParams, params...), View(in), c.Scratch(model.Int32, out.NumElements()), View(out))
	return nil
}

// lowerReduceMinMax follows EvalMinMaxHelper: float32, or int8 with equal
// input and output quantization (compared as raw values).
func lowerReduceMinMax(f32, i8 kernelsig.Func) lowering {
	return func(c *opCtx) error {
		in, out, levels, _, err := reduceOperands(c)
		if err != nil {
			return err
		}
		fn := f32
		switch in.Type {
		case model.Float32:
		case model.Int8:
			si, zi, err := reduceQuant(c, in)
			if err != nil {
				return err
			}
			so, zo, err := reduceQuant(c, out)
			if err != nil {
				return err
			}
			if si != so || zi != zo {
				return c.Errorf("input and output quantization differ (scales %g and %g, zero points %d and %d); TFLite Micro needs them equal", si, so, zi, zo)
			}
			fn = i8
		default:
			return c.Errorf("input %s: type %s is not supported (float32 or int8)", in.Describe(), in.Type)
		}
		c.Call(fn, Struct(kernelsig.MeanParams, levels...), View(in), View(out))
		return nil
	}
}

// lowerReduceAll follows EvalAllHelper: bool only.
func lowerReduceAll(c *opCtx) error {
	in, out, levels, _, err := reduceOperands(c)
	if err != nil {
		return err
	}
	if in.Type != model.Bool {
		return c.Errorf("input %s: type %s is not supported (bool only)", in.Describe(), in.Type)
	}
	c.Call(kernelsig.ReduceAll, Struct(kernelsig.MeanParams, levels...), View(in), View(out))
	return nil
}

// lowerCumsum follows TFLM's cumsum.cc: float32 or int8, input and output
// of one shape, a constant int32 axis of one element (negative counts from
// the end). The int8 rescaling is CalculateOpData's: the input by 1/2
// after a left shift of 20, the running sum by 2 * input scale /
// (2^20 * output scale), which must be below 1 as TFLM checks. Refused
// although TFLM runs it: an axis that is not constant (TFLM reads it at
// Invoke).
func lowerCumsum(c *opCtx) error {
	if c.NumIn() != 2 || c.NumOut() != 1 || c.In(0) == nil || c.In(1) == nil || c.Out(0) == nil {
		return c.Errorf("has %d inputs and %d outputs, want 2 and 1", c.NumIn(), c.NumOut())
	}
	in, axis, out := c.In(0), c.In(1), c.Out(0)
	o := c.Op.Options()
	opt := o.Cumsum()
	exclusive, reverse := opt.Exclusive, opt.Reverse
	if err := o.Err(); err != nil {
		return c.Errorf("%v", err)
	}
	if in.Type != model.Float32 && in.Type != model.Int8 {
		return c.Errorf("input %s: type %s is not supported (float32 or int8)", in.Describe(), in.Type)
	}
	if axis.Type != model.Int32 || axis.NumElements() != 1 {
		return c.Errorf("axis %s must be one int32 value", axis.Describe())
	}
	if !axis.IsConst() {
		return c.Errorf("axis %s must be a constant tensor", axis.Describe())
	}
	if len(in.Shape) < 1 {
		return c.Errorf("input %s must have rank 1 or more", in.Describe())
	}
	if out.Type != in.Type || !slices.Equal(in.Shape, out.Shape) {
		return c.Errorf("input %s and output %s differ in type or shape", in.Describe(), out.Describe())
	}
	a := int(int32(binary.LittleEndian.Uint32(axis.Data)))
	if a < 0 {
		a += len(in.Shape)
	}
	if a < 0 || a >= len(in.Shape) {
		return c.Errorf("axis %d is out of range for input %s", a, in.Describe())
	}
	outer, inner := 1, 1
	for d, n := range in.Shape {
		switch {
		case d < a:
			outer *= n
		case d > a:
			inner *= n
		}
	}
	fields := []Field{F("outer", Int(outer)), F("depth", Int(in.Shape[a])), F("inner", Int(inner)),
		F("exclusive", Bool(exclusive)), F("reverse", Bool(reverse))}
	if in.Type == model.Float32 {
		c.Call(kernelsig.CumsumF32, Struct(kernelsig.CumsumParams, fields...), View(in), View(out))
		return nil
	}
	si, zi, err := reduceQuant(c, in)
	if err != nil {
		return err
	}
	so, zo, err := reduceQuant(c, out)
	if err != nil {
		return err
	}
	twice := 2 * float64(si)
	inReal, outReal := float64(si)/twice, twice/(float64(1<<20)*float64(so))
	if !(inReal > 0 && inReal < 1 && outReal > 0 && outReal < 1) {
		return c.Errorf("scales %g and %g give rescalings %g and %g, which TFLite Micro needs in (0, 1)", si, so, inReal, outReal)
	}
	im, is, err := c.multiplier("input rescaling", inReal)
	if err != nil {
		return err
	}
	om, os, err := c.multiplier("output rescaling", outReal)
	if err != nil {
		return err
	}
	fields = append(fields, F("inOffset", I32(int32(-zi))), F("outZP", I32(int32(zo))),
		F("inMult", I32(im)), F("inShift", Int(is)), F("outMult", I32(om)), F("outShift", Int(os)))
	c.Call(kernelsig.CumsumInt8, Struct(kernelsig.CumsumParams, fields...), View(in), View(out))
	return nil
}

// reduceTFLMScratch: TFLM's reductions request an int per input
// dimension (the index walk) and per axis (the resolved axes).
func reduceTFLMScratch(g *model.Graph, op *model.Op) []int {
	x, axis := g.Input(op, 0), g.Input(op, 1)
	if x == nil || axis == nil {
		return nil
	}
	return []int{len(x.Shape) * tflmIntSize, axis.NumElements() * tflmIntSize}
}

// reduceSumTFLMScratch is reduceTFLMScratch for MEAN and SUM, which
// quantized also request an int32 sum per output element.
func reduceSumTFLMScratch(g *model.Graph, op *model.Op) []int {
	s := reduceTFLMScratch(g, op)
	if x := g.Input(op, 0); s != nil && (x.Type == model.Int8 || x.Type == model.Int16) {
		s = append([]int{g.Output(op, 0).NumElements() * 4}, s...)
	}
	return s
}
