package lower

import (
	"math"
	"slices"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// Lowerings of TFLite Micro's broadcasting division operators DIV (div.cc),
// FLOOR_DIV (floor_div.cc) and FLOOR_MOD (floor_mod.cc) (kernels/divmod.go).
// Broadcasting reuses the plan of ADD/SUB/MUL (ewBcastPlan).

// divAct is DivOptions.fused_activation_function; the union type of
// DivOptions is unionDiv.
const (
	divAct   = 0
	unionDiv = 29
)

func init() {
	register(model.OpDiv, lowerDiv, elementwise)
	register(model.OpFloorDiv, lowerFloorDivMod(kernelsig.FloorDivF32, true), elementwise)
	register(model.OpFloorMod, lowerFloorDivMod(kernelsig.FloorModF32, false), elementwise)
}

// dmBinary checks a broadcasting binary operator (ewBinary) and the rank
// its TFLM kernel can broadcast: TFLM's slow broadcast paths are written
// for maxRank dimensions and abort on more. The broadcast path is taken
// when the shapes differ: exactly (exact), or once extended to a common
// rank (DIV's ProcessBroadcastShapes).
func dmBinary(c *opCtx, maxRank int, exact bool) (a, b, out *model.Tensor, plan ewPlan, err error) {
	a, b, out, plan, err = ewBinary(c)
	if err != nil {
		return
	}
	same := slices.Equal(a.Shape, b.Shape)
	if !exact {
		same = slices.Equal(dmExtend(a.Shape, len(b.Shape)), dmExtend(b.Shape, len(a.Shape)))
	}
	if r := max(len(a.Shape), len(b.Shape), len(out.Shape)); !same && r > maxRank {
		err = c.Errorf("broadcasting %v against %v: rank %d, TFLite Micro broadcasts at most %d dimensions", a.Shape, b.Shape, r, maxRank)
	}
	return
}

// dmExtend prefixes s with 1s to rank n.
func dmExtend(s []int, n int) []int {
	e := make([]int, max(n-len(s), 0), max(n, len(s)))
	for i := range e {
		e[i] = 1
	}
	return append(e, s...)
}

// dmConstZero reports whether t is a constant holding a zero (any zero,
// for float32 also -0): TFLM cannot run such a division (FLOOR_DIV fails
// its Invoke, int32 DIV traps), so it is refused at generation time.
func dmConstZero(t *model.Tensor) bool {
	if !t.IsConst() {
		return false
	}
	d := t.Data
	switch t.Type {
	case model.Float32:
		for i := 0; i+4 <= len(d); i += 4 {
			if math.Float32frombits(uint32(d[i])|uint32(d[i+1])<<8|uint32(d[i+2])<<16|uint32(d[i+3])<<24) == 0 {
				return true
			}
		}
	case model.Int32:
		for i := 0; i+4 <= len(d); i += 4 {
			if d[i]|d[i+1]|d[i+2]|d[i+3] == 0 {
				return true
			}
		}
	}
	return false
}

// lowerDiv lowers DIV: float32 and int32 (not quantized) with the fused
// activation.
func lowerDiv(c *opCtx) error {
	a, b, out, plan, err := dmBinary(c, 5, false)
	if err != nil {
		return err
	}
	o := c.Op.Options()
	act, err := ewActivation(c, o)
	if err != nil {
		return err
	}
	if err := o.Err(); err != nil {
		return c.Errorf("%v", err)
	}
	switch out.Type {
	case model.Float32:
		lo, hi, err := c.actRangeFloat(act)
		if err != nil {
			return err
		}
		p := Struct(kernelsig.EwF32Params, F("actMin", F32(lo)), F("actMax", F32(hi)))
		return ewEmitBinary(c, kernelsig.DivF32, []Arg{p}, plan, a, b, out)
	case model.Int32:
		if err := ewRequireUnquantized(c, a, b); err != nil {
			return err
		}
		if dmConstZero(b) {
			return c.Errorf("constant divisor %s holds a zero (TFLite Micro's int32 DIV cannot divide by it)", b.Describe())
		}
		lo, hi := quant.RangeInt32(act)
		p := Struct(kernelsig.EwI32Params, F("actMin", I32(lo)), F("actMax", I32(hi)))
		return ewEmitBinary(c, kernelsig.DivI32, []Arg{p}, plan, a, b, out)
	}
	return c.Errorf("type %s is not supported (float32, int32)", out.Type)
}

// lowerFloorDivMod lowers FLOOR_DIV (div) or FLOOR_MOD: float32 only, as
// TFLM's Eval has them.
func lowerFloorDivMod(fn kernelsig.Func, div bool) lowering {
	return func(c *opCtx) error {
		a, b, out, plan, err := dmBinary(c, 4, true)
		if err != nil {
			return err
		}
		if out.Type != model.Float32 {
			return c.Errorf("type %s is not supported (float32 only, as in TFLite Micro)", out.Type)
		}
		if div && dmConstZero(b) {
			return c.Errorf("constant divisor %s holds a zero (TFLite Micro's FLOOR_DIV fails on it)", b.Describe())
		}
		return ewEmitBinary(c, fn, nil, plan, a, b, out)
	}
}
