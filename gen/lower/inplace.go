package lower

import (
	"slices"

	"github.com/tflm-gen/tflm-gen/gen/program"

	"github.com/tflm-gen/tflm-gen/internal/model"
)

// findInPlace picks, for each operator registered as elementwise, an input
// its output can overwrite: one that is not constant, not state, not a
// graph output, has the output's shape and element size, and is read by no
// later operator; none for the operators notInPlace lists.
// find maps a tensor to the root of its buffer group (views already merged).
func findInPlace(g *model.Graph, find func(int) int, notInPlace map[int]bool) []program.InPlace {
	last := map[int]int{} // buffer root -> last reading operator
	outRoots := map[int]bool{}
	for _, op := range g.Ops {
		for _, t := range op.Inputs {
			if t >= 0 {
				last[find(t)] = op.Index
			}
		}
	}
	for _, t := range g.Outputs {
		outRoots[find(t)] = true
	}
	var pairs []program.InPlace
	for _, op := range g.Ops {
		if lowerings[op.Code].mem != elementwise || len(op.Outputs) != 1 || notInPlace[op.Index] {
			continue
		}
		out := g.Tensors[op.Outputs[0]]
		if out.IsVariable {
			continue
		}
		same := true
		for _, t := range op.Inputs {
			if t >= 0 && (!slices.Equal(g.Tensors[t].Shape, out.Shape)) {
				same = false
			}
		}
		if !same {
			continue
		}
		for _, t := range op.Inputs {
			if t < 0 {
				continue
			}
			in := g.Tensors[t]
			r := find(t)
			if in.IsConst() || in.IsVariable || in.Type.Size() != out.Type.Size() ||
				outRoots[r] || last[r] != op.Index || find(out.Index) == r {
				continue
			}
			pairs = append(pairs, program.InPlace{Op: op.Index, In: t, Out: out.Index})
			break
		}
	}
	return pairs
}
