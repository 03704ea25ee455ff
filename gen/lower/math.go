package lower

import (
	"math"
	"slices"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// Lowerings of TFLite Micro's elementwise float32 rounding operators FLOOR
// (floor.cc), CEIL (ceil.cc) and ROUND (round.cc), of EXP (exp.cc), LOG,
// SIN and COS (elementwise.cc), float32, and of ELU (elu.cc), float32 and
// int8 through a table (kernels/math.go). The transcendental float32
// results match TFLM's C library within an ulp or two, not bit for bit.

func init() {
	register(model.OpFloor, lowerFloor, elementwise)
	register(model.OpCeil, lowerSameShapeF32(kernelsig.CeilF32), elementwise)
	register(model.OpRound, lowerSameShapeF32(kernelsig.RoundF32), elementwise)
	register(model.OpExp, lowerSameShapeF32(kernelsig.ExpF32), elementwise)
	register(model.OpLog, lowerFloatUnary(kernelsig.LogF32), elementwise)
	register(model.OpSin, lowerFloatUnary(kernelsig.SinF32), elementwise)
	register(model.OpCos, lowerFloatUnary(kernelsig.CosF32), elementwise)
	register(model.OpElu, lowerElu, elementwise)
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
	return actEmitUnary(c, noBand, kernelsig.FloorF32, nil, in, out)
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
		return actEmitUnary(c, noBand, fn, nil, in, out)
	}
}

// lowerElu lowers ELU: float32 as expm1, int8 through the 256-entry table
// TFLM's Prepare fills (eluInt8Table).
func lowerElu(c *opCtx) error {
	in, out, err := actUnary(c)
	if err != nil {
		return err
	}
	switch in.Type {
	case model.Float32:
		return actEmitUnary(c, noBand, kernelsig.EluF32, nil, in, out)
	case model.Int8:
	default:
		return c.Errorf("type %s not supported (float32, int8)", in.Type)
	}
	si, so, zi, zo, err := actQuantPair(c, in, out)
	if err != nil {
		return err
	}
	t := eluInt8Table(si, so, zi, zo)
	return actEmitUnary(c, unaryBand, kernelsig.LutInt8, []Arg{c.Const("EluTab", t[:])}, in, out)
}

// eluInt8Table is TFLM's PopulateLookupTable for ELU, entry uint8(v) for
// input v, in float32 as TFLM computes it: x = si * (v - zi), y = exp(x) -
// 1 for x < 0 (else x), round(y * (1/so)) half away from zero plus zo,
// converted to int32 as x86's cvttss2si does (out of range or NaN gives
// MinInt32), clamped to int8.
func eluInt8Table(si, so float32, zi, zo int32) [256]byte {
	var t [256]byte
	inv := 1 / so
	for v := int32(-128); v < 128; v++ {
		x := si * float32(v-zi)
		y := x
		if x < 0 {
			y = float32(math.Exp(float64(x))) - 1
		}
		r := float32(math.Round(float64(y*inv))) + float32(zo)
		q := int32(math.MinInt32)
		if r >= -2147483648 && r < 2147483648 {
			q = int32(r)
		}
		t[uint8(v)] = byte(int8(min(max(q, -128), 127)))
	}
	return t
}
