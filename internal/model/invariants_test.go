package model

import (
	"fmt"
	"math"
)

// checkInvariants verifies what Parse promises about a graph it accepted,
// so the fuzzer can check every graph it manages to build.
func checkInvariants(g *Graph) error {
	n := len(g.Tensors)
	if n > MaxTensors || len(g.Ops) > MaxTensors {
		return fmt.Errorf("%d tensors, %d operators", n, len(g.Ops))
	}
	var activations int64
	for i, t := range g.Tensors {
		if t == nil || t.Index != i {
			return fmt.Errorf("tensor %d: bad index", i)
		}
		if t.Type.Size() == 0 && (t.Type != Resource || t.IsConst()) {
			return fmt.Errorf("tensor %d: type %s", i, t.Type)
		}
		if len(t.Shape) > MaxRank {
			return fmt.Errorf("tensor %d: rank %d", i, len(t.Shape))
		}
		bound := int64(max(t.Type.Size(), 1))
		for _, d := range t.Shape {
			if d < 0 {
				return fmt.Errorf("tensor %d: shape %v", i, t.Shape)
			}
			bound *= int64(max(d, 1))
			if bound > MaxTensorBytes {
				return fmt.Errorf("tensor %d: shape %v too large", i, t.Shape)
			}
		}
		if t.IsConst() && len(t.Data) != t.Bytes() {
			return fmt.Errorf("tensor %d: %d data bytes for %d", i, len(t.Data), t.Bytes())
		}
		if t.IsConst() && t.IsVariable {
			return fmt.Errorf("tensor %d: constant variable", i)
		}
		if !t.IsConst() {
			activations += int64(t.Bytes())
		}
		if err := checkName(t.Name); err != nil {
			return fmt.Errorf("tensor %d: name %v", i, err)
		}
		if q := t.Quant; q != nil {
			if len(q.Scale) == 0 || len(q.Scale) != len(q.ZeroPoint) {
				return fmt.Errorf("tensor %d: %d scales, %d zero points", i, len(q.Scale), len(q.ZeroPoint))
			}
			if q.Axis < 0 || (len(t.Shape) > 0 && q.Axis >= len(t.Shape)) || (len(t.Shape) == 0 && q.Axis != 0) {
				return fmt.Errorf("tensor %d: axis %d of shape %v", i, q.Axis, t.Shape)
			}
			if len(q.Scale) > 1 && t.Shape[q.Axis] != len(q.Scale) {
				return fmt.Errorf("tensor %d: %d scales on dimension %d", i, len(q.Scale), q.Axis)
			}
			for _, s := range q.Scale {
				if !(s > 0) || math.IsInf(float64(s), 0) {
					return fmt.Errorf("tensor %d: scale %v", i, s)
				}
			}
		}
	}
	if activations > MaxActivationBytes {
		return fmt.Errorf("%d bytes of activations", activations)
	}
	written := make([]bool, n)
	ready := make([]bool, n)
	for _, t := range g.Tensors {
		ready[t.Index] = t.IsConst() || t.IsVariable
	}
	for _, in := range g.Inputs {
		if in < 0 || in >= n || g.Tensors[in].IsConst() || written[in] {
			return fmt.Errorf("bad graph input %d", in)
		}
		written[in], ready[in] = true, true
	}
	for k, op := range g.Ops {
		if op.Index != k {
			return fmt.Errorf("operator %d: index %d", k, op.Index)
		}
		if len(op.Outputs) == 0 {
			return fmt.Errorf("operator %d: no outputs", k)
		}
		for _, in := range op.Inputs {
			if in < -1 || in >= n || (in >= 0 && !ready[in]) {
				return fmt.Errorf("operator %d: input %d not ready", k, in)
			}
		}
		for _, in := range op.Intermediates {
			if in < -1 || in >= n {
				return fmt.Errorf("operator %d: intermediate %d", k, in)
			}
		}
		for _, out := range op.Outputs {
			if out < 0 || out >= n || written[out] || g.Tensors[out].IsConst() {
				return fmt.Errorf("operator %d: output %d written twice or constant", k, out)
			}
			written[out], ready[out] = true, true
		}
		o := op.Options()
		if o.Present() && o.Type() == 0 {
			return fmt.Errorf("operator %d: options present with NONE type", k)
		}
		if want, ok := optionsTypes[op.Code]; ok && o.Present() && o.Type() != want.typ {
			return fmt.Errorf("operator %d: options type %d", k, o.Type())
		}
		// Reading any slot must not panic.
		for slot := 0; slot < 8; slot++ {
			o.Int32(slot, 0)
			o.Float32(slot, 0)
			o.Uint8(slot, 0)
			o.Int32s(slot)
		}
	}
	seen := map[int]bool{}
	for _, out := range g.Outputs {
		if out < 0 || out >= n || !ready[out] || seen[out] || g.Tensors[out].IsConst() {
			return fmt.Errorf("bad graph output %d", out)
		}
		seen[out] = true
	}
	return nil
}
