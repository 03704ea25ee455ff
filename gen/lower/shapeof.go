package lower

import (
	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// SHAPE (TFLite Micro's shape.cc): the input's dimensions, which are fixed
// when the model is generated. The lowering folds them into a constant and
// emits one copy of it into the output (kernels.copyConst); the input is
// never read. Like TFLM the output must be int32 (its Eval rejects every
// other type, whatever ShapeOptions.out_type says), and here it must hold
// exactly one value per input dimension.

func init() {
	register(model.OpShape, lowerShape, ownBuffer)
}

func lowerShape(c *opCtx) error {
	if c.NumIn() != 1 || c.NumOut() != 1 {
		return c.Errorf("has %d inputs and %d outputs, want 1 and 1", c.NumIn(), c.NumOut())
	}
	in, out := c.In(0), c.Out(0)
	if in == nil {
		return c.Errorf("input 0 is missing")
	}
	if out.Type != model.Int32 {
		return c.Errorf("output type %s not supported (TFLite Micro supports int32 only)", out.Type)
	}
	if want := []int{len(in.Shape)}; !moveSameShape(out.Shape, want) {
		return c.Errorf("output shape %v, want %v for a %d-D input", out.Shape, want, len(in.Shape))
	}
	if len(in.Shape) == 0 {
		return nil
	}
	dims := make([]int32, len(in.Shape))
	for i, d := range in.Shape {
		dims[i] = int32(d)
	}
	c.Call(kernelsig.CopyConst, Bytes(out), c.ConstI32("Shape", dims))
	return nil
}
