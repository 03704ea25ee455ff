package lower

import (
	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// ARG_MAX and ARG_MIN as TFLM's arg_min_max.cc over the reference
// ArgMinMax: constant int32 axis, int8, int16 or float32 input, int32 or
// int64 indices. (TFLM itself accepts only int8/float32 input and int32
// output; the reference arithmetic is the same for the others.)

func init() {
	register(model.OpArgMax, lowerArgMax, ownBuffer)
	register(model.OpArgMin, lowerArgMin, ownBuffer)
}

// lowerArgMax lowers ARG_MAX.
func lowerArgMax(c *opCtx) error { return lowerArgMinMax(c, false) }

// lowerArgMin lowers ARG_MIN.
func lowerArgMin(c *opCtx) error { return lowerArgMinMax(c, true) }

// argMinMaxFns names the kernel for each input and output type.
var argMinMaxFns = map[[2]model.DType]kernelsig.Func{
	{model.Int8, model.Int32}:    kernelsig.ArgMinMaxI8I32,
	{model.Int8, model.Int64}:    kernelsig.ArgMinMaxI8I64,
	{model.Int16, model.Int32}:   kernelsig.ArgMinMaxI16I32,
	{model.Int16, model.Int64}:   kernelsig.ArgMinMaxI16I64,
	{model.Float32, model.Int32}: kernelsig.ArgMinMaxF32I32,
	{model.Float32, model.Int64}: kernelsig.ArgMinMaxF32I64,
}

// lowerArgMinMax validates the operator and emits the kernel call.
func lowerArgMinMax(c *opCtx, isMin bool) error {
	if c.NumIn() != 2 || c.NumOut() != 1 {
		return c.Errorf("has %d inputs and %d outputs, want 2 and 1", c.NumIn(), c.NumOut())
	}
	in, out := c.In(0), c.Out(0)
	if in == nil {
		return c.Errorf("input 0 is missing")
	}
	fn, ok := argMinMaxFns[[2]model.DType{in.Type, out.Type}]
	if !ok {
		return c.Errorf("input type %s with output type %s is not supported", in.Type, out.Type)
	}
	if in.IsConst() {
		return c.Errorf("constant input is not supported")
	}
	// An absent output_type (the schema's default is FLOAT32) trusts the
	// output tensor.
	o := c.Op.Options()
	var ot uint8
	if isMin {
		ot = o.ArgMinOr(model.ArgMinOptions{OutputType: uint8(out.Type)}).OutputType
	} else {
		ot = o.ArgMaxOr(model.ArgMaxOptions{OutputType: uint8(out.Type)}).OutputType
	}
	if err := o.Err(); err != nil {
		return c.Errorf("%v", err)
	}
	if model.DType(ot) != out.Type {
		return c.Errorf("output_type option %s differs from the output tensor's %s", model.DType(ot), out.Type)
	}
	av, err := moveConstInts(c.In(1), false)
	if err != nil {
		return c.Errorf("axis: %v", err)
	}
	if len(av) != 1 {
		return c.Errorf("axis has %d values, want 1", len(av))
	}
	if len(in.Shape) == 0 {
		return c.Errorf("scalar input is not supported")
	}
	axis, err := shapeAxis(c, int32(av[0]), len(in.Shape))
	if err != nil {
		return err
	}
	want := append(append([]int{}, in.Shape[:axis]...), in.Shape[axis+1:]...)
	if !moveSameShape(want, out.Shape) {
		return c.Errorf("output shape %v, want %v", out.Shape, want)
	}
	if in.Shape[axis] == 0 {
		return c.Errorf("axis %d has size 0", axis)
	}
	if out.NumElements() == 0 {
		return nil
	}
	c.Call(fn, Struct(kernelsig.ArgMinMaxParams,
		F("outer", Int(shapeProd(in.Shape[:axis]))),
		F("axis", Int(in.Shape[axis])),
		F("inner", Int(shapeProd(in.Shape[axis+1:]))),
		F("isMin", Bool(isMin)),
	), View(in), View(out))
	return nil
}
