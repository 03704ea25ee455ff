package gen

import "github.com/tflm-gen/tflm-gen/internal/model"

// tflmScratch is the scratch memory TFLite Micro's reference kernels
// request in their Prepare (RequestScratchBufferInArena, at the commit of
// shared/ref), per operator: the sizes in bytes of the buffers, each live
// during that operator only. The exported offline plan reserves room for
// them; otherwise TFLM's planner finds no gap for them among the offline
// tensors and puts them above, growing the arena (keyword_scrambled: 14,720
// -> 14,848 bytes). Operators not listed request none. Pointer-sized
// requests (ADD_N) count 8 bytes a pointer, the larger of 64- and 32-bit
// builds.
func tflmScratch(g *model.Graph, op *model.Op) []int {
	in := func(i int) *model.Tensor {
		if i >= len(op.Inputs) || op.Inputs[i] < 0 {
			return nil
		}
		return g.Tensors[op.Inputs[i]]
	}
	dim := func(t *model.Tensor, i int) int {
		if t == nil || i < 0 || i >= len(t.Shape) {
			return 0
		}
		return t.Shape[i]
	}
	out := g.Output(op, 0)
	const intSize = 4
	switch op.Code {
	case model.OpSvdf:
		x, wf := in(0), in(1)
		batch, filters := dim(x, 0), dim(wf, 0)
		if x == nil || x.Type == model.Float32 {
			return []int{batch * filters * 4}
		}
		rank := int(op.Options().Int32(0, 1)) // SVDFOptions.rank
		units := 0
		if rank > 0 {
			units = filters / rank
		}
		return []int{batch * filters * 4, batch * units * 4}
	case model.OpTransposeConv:
		x, bias := in(2), in(3)
		switch {
		case x != nil && x.Type == model.Int8:
			return []int{out.NumElements() * 4}
		case x != nil && x.Type == model.Int16:
			s := []int{out.NumElements() * 8}
			if bias != nil && bias.Type == model.Int16 {
				s = append([]int{bias.NumElements() * 8}, s...)
			}
			return s
		}
	case model.OpUnidirectionalSequenceLstm:
		x, hidden, cell := in(0), in(18), in(19)
		if x == nil || hidden == nil || cell == nil {
			return nil
		}
		batch := dim(x, 0)
		if op.Options().Bool(3, false) { // time_major
			batch = dim(x, 1)
		}
		n := batch * dim(hidden, len(hidden.Shape)-1) * cell.Type.Size()
		return []int{n, n, n, n}
	case model.OpMean, model.OpSum:
		x, axis := in(0), in(1)
		if x == nil || axis == nil {
			return nil
		}
		var s []int
		if x != nil && (x.Type == model.Int8 || x.Type == model.Int16) {
			s = append(s, out.NumElements()*4)
		}
		return append(s, len(x.Shape)*intSize, axis.NumElements()*intSize)
	case model.OpReduceMax, model.OpReduceMin, model.OpReduceAll:
		x, axis := in(0), in(1)
		if x == nil || axis == nil {
			return nil
		}
		return []int{len(x.Shape) * intSize, axis.NumElements() * intSize}
	case model.OpMirrorPad:
		x := in(0)
		if x == nil {
			return nil
		}
		return []int{len(x.Shape) * intSize, len(x.Shape) * intSize}
	case model.OpAddN:
		if out.Type == model.Float32 || out.Type == model.Int8 {
			return []int{8 * len(op.Inputs)}
		}
	}
	return nil
}
