package lower

import "github.com/tflm-gen/tflm-gen/internal/model"

// MACs estimates the multiply-accumulates one Invoke performs: the
// convolution, fully connected, matrix multiplication and recurrent
// layers, which dominate the work (each operator's withMACs). Other
// operators count zero.
func MACs(g *model.Graph) int64 {
	var total int64
	for _, op := range g.Ops {
		total += opMACs(g, op)
	}
	return total
}

// opMACs is one operator's share of MACs.
func opMACs(g *model.Graph, op *model.Op) int64 {
	r := lowerings[op.Code]
	if r.macs == nil || len(op.Outputs) == 0 {
		return 0
	}
	return r.macs(g, op)
}

// inputReads is how many times, on average, operator op's kernel reads
// each byte of its input 0 (program.Op.InputReads, withInputReads).
func inputReads(g *model.Graph, op *model.Op) int {
	if r := lowerings[op.Code]; r.reads != nil {
		return r.reads(g, op)
	}
	return 1
}

// TFLMScratch is the scratch memory TFLite Micro's reference kernel for
// op requests in its Prepare (RequestScratchBufferInArena, at the commit
// of shared/ref): the sizes in bytes of the buffers, each live during
// that operator only (withTFLMScratch); nil for operators that request
// none. Pointer-sized requests count 8 bytes a pointer, the larger of 64-
// and 32-bit builds.
func TFLMScratch(g *model.Graph, op *model.Op) []int {
	if r := lowerings[op.Code]; r.tflmScratch != nil {
		return r.tflmScratch(g, op)
	}
	return nil
}

// dims64 is a tensor's shape as int64s, nil for an absent tensor.
func dims64(t *model.Tensor) []int64 {
	if t == nil {
		return nil
	}
	d := make([]int64, len(t.Shape))
	for i, x := range t.Shape {
		d[i] = int64(x)
	}
	return d
}

// elems64 is a tensor's element count, 0 for an absent tensor.
func elems64(t *model.Tensor) int64 {
	if t == nil {
		return 0
	}
	return int64(t.NumElements())
}

// dimOf is dimension i of t, 0 when t is absent or has no such dimension.
func dimOf(t *model.Tensor, i int) int {
	if t == nil || i < 0 || i >= len(t.Shape) {
		return 0
	}
	return t.Shape[i]
}

// windowReads is inputReads for a kernel reading windows of kh x kw
// pixels at strides sh, sw: the windows covering a byte, its window's area
// over its strides' product, rounded up.
func windowReads(kh, kw, sh, sw int) int {
	if sw < 1 || sh < 1 || kh < 1 || kw < 1 {
		return 1
	}
	return max(1, (kh*kw+sw*sh-1)/(sw*sh))
}

// tflmIntSize is sizeof(int) in TFLM's scratch requests.
const tflmIntSize = 4
