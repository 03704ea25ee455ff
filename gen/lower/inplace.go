package lower

import (
	"slices"

	"github.com/tflm-gen/tflm-gen/gen/program"

	"github.com/tflm-gen/tflm-gen/internal/model"
)

// inPlaceOps are the operators whose kernels read element i of an input and
// write element i of the output and nothing else, so the output may take
// over the memory of an input that dies at the operator. They qualify only
// when shapes and element sizes are equal (no broadcasting, no resizing).
var inPlaceOps = map[model.OpCode]bool{
	model.OpAdd: true, model.OpSub: true, model.OpMul: true,
	model.OpMaximum: true, model.OpMinimum: true,
	model.OpRelu: true, model.OpRelu6: true, model.OpLeakyRelu: true,
	model.OpLogistic: true, model.OpTanh: true, model.OpHardSwish: true,
	model.OpQuantize: true,
}

// findInPlace picks, for each elementwise operator, an input its output can
// overwrite: one that is not constant, not state, not a graph output, has
// the output's shape and element size, and is read by no later operator.
// find maps a tensor to the root of its buffer group (views already merged).
func findInPlace(g *model.Graph, find func(int) int) []program.InPlace {
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
		if !inPlaceOps[op.Code] || len(op.Outputs) != 1 {
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
