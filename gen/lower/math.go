package lower

import (
	"slices"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// Lowerings of TFLite Micro's elementwise float32 rounding operators FLOOR
// (floor.cc), CEIL (ceil.cc) and ROUND (round.cc) (kernels/math.go).

func init() {
	register(model.OpFloor, lowerFloor, elementwise)
	register(model.OpCeil, lowerSameShapeF32(kernelsig.CeilF32), elementwise)
	register(model.OpRound, lowerSameShapeF32(kernelsig.RoundF32), elementwise)
}

// lowerFloor lowers FLOOR. TFLM has no Prepare for it and checks only the
// input type (float32) in Eval; an output of another type or size is
// refused here.
func lowerFloor(c *opCtx) error {
	in, out, err := actUnary(c)
	if err != nil {
		return err
	}
	if in.Type != model.Float32 {
		return c.Errorf("type %s not supported (float32 only, as in TFLite Micro)", in.Type)
	}
	return actEmitUnary(c, kernelsig.FloorF32, nil, in, out)
}

// lowerSameShapeF32 lowers a float32 operator whose Prepare requires an
// output of the input's type and shape (CEIL, ROUND).
func lowerSameShapeF32(fn kernelsig.Func) lowering {
	return func(c *opCtx) error {
		in, out, err := actUnary(c)
		if err != nil {
			return err
		}
		if in.Type != model.Float32 {
			return c.Errorf("type %s not supported (float32 only, as in TFLite Micro)", in.Type)
		}
		if !slices.Equal(in.Shape, out.Shape) {
			return c.Errorf("output shape %v differs from input shape %v", out.Shape, in.Shape)
		}
		return actEmitUnary(c, fn, nil, in, out)
	}
}
