// Package fold rewrites a validated graph before lowering, folding an
// operator into another that can do its work at no cost. It is the stage
// between internal/model and gen/lower:
//
//	model -> graph -> fold -> lower -> schedule -> layout -> emit
//
// One rewrite today: a PAD or PADV2 of height and width only, whose pad
// value is its input's zero point, read by nothing but a VALID CONV_2D or
// DEPTHWISE_CONV_2D, becomes that convolution's explicit padding
// (model.Op.Padding). PyTorch's exports pad this way before every 3x3 and
// every strided convolution; folded, the padded tensor is never made, so
// the PAD's copy and its buffer are gone, and in a fused group the
// convolution reads the lines of the PAD's input.
//
// The convolution's arithmetic is unchanged: TFLite Micro's kernels skip
// padding taps, which is what a tap of the input's zero point adds (its
// input offset makes it 0), so outputs are bit for bit those of the model
// as written. Operators keep their positions: a folded PAD stays in the
// graph, without inputs, outputs or code, so that every operator number in
// layout.txt, Invoke and the trace is the model's.
package fold

import (
	"encoding/binary"
	"math"
	"slices"

	"github.com/tflm-gen/tflm-gen/internal/model"
)

// Pads returns g with every PAD that a convolution absorbs folded into it
// (see the package comment), or g itself when there is none. g is not
// modified: the result shares its tensors and its unchanged operators.
func Pads(g *model.Graph) *model.Graph {
	readers := make([]int, len(g.Tensors))
	for _, op := range g.Ops {
		for _, t := range op.Inputs {
			if t >= 0 && t < len(readers) {
				readers[t]++
			}
		}
	}
	for _, t := range g.Outputs {
		if t >= 0 && t < len(readers) {
			readers[t] += 2 // never folded
		}
	}
	// reader[t]: the operator reading tensor t, where one does.
	reader := map[int]int{}
	for _, op := range g.Ops {
		for _, t := range op.Inputs {
			if t >= 0 && t < len(readers) && readers[t] == 1 {
				reader[t] = op.Index
			}
		}
	}
	var out *model.Graph
	for _, pad := range g.Ops {
		if pad.Code != model.OpPad && pad.Code != model.OpPadv2 || len(pad.Outputs) != 1 {
			continue
		}
		t := pad.Outputs[0]
		if t < 0 || t >= len(readers) || readers[t] != 1 {
			continue
		}
		ci, ok := reader[t]
		if !ok || ci <= pad.Index {
			continue
		}
		conv := g.Ops[ci]
		p, ok := absorb(g, pad, conv)
		if !ok {
			continue
		}
		if out == nil {
			c := *g
			c.Ops = slices.Clone(g.Ops)
			out = &c
		}
		nc := *conv
		nc.Inputs = slices.Clone(conv.Inputs)
		nc.Inputs[0] = pad.Inputs[0]
		nc.Padding = &p
		out.Ops[ci] = &nc
		np := *pad
		np.Inputs, np.Outputs, np.Intermediates = nil, nil, nil
		np.Folded, np.FoldedInto = true, ci
		out.Ops[pad.Index] = &np
	}
	if out == nil {
		return g
	}
	return out
}

// absorb returns the explicit padding that conv, reading pad's output as
// its input 0 and nothing else of it, takes instead of pad; ok is false
// when it cannot.
func absorb(g *model.Graph, pad, conv *model.Op) (p model.Padding, ok bool) {
	if conv.Folded || conv.Padding != nil || len(conv.Inputs) < 2 || conv.Inputs[0] != pad.Outputs[0] || len(pad.Inputs) < 2 {
		return p, false
	}
	var padding uint8
	var strideH, strideW, dilH, dilW int
	o := conv.Options()
	switch conv.Code {
	case model.OpConv2D:
		x := o.Conv2D()
		padding, strideH, strideW, dilH, dilW = x.Padding, int(x.StrideH), int(x.StrideW), int(x.DilationHFactor), int(x.DilationWFactor)
	case model.OpDepthwiseConv2D:
		x := o.DepthwiseConv2D()
		padding, strideH, strideW, dilH, dilW = x.Padding, int(x.StrideH), int(x.StrideW), int(x.DilationHFactor), int(x.DilationWFactor)
	default:
		return p, false
	}
	if o.Err() != nil || padding != 1 || strideH < 1 || strideW < 1 || dilH < 1 || dilW < 1 {
		return p, false // not VALID, or options the lowering will reject
	}
	in, out, filter := g.Input(pad, 0), g.Output(pad, 0), g.Input(conv, 1)
	if in == nil || filter == nil || in.IsConst() || in.IsVariable || len(in.Shape) != 4 || len(out.Shape) != 4 || len(filter.Shape) != 4 ||
		in.Type != out.Type || !sameQuant(in.Quant, out.Quant) {
		return p, false
	}
	for _, t := range conv.Inputs[1:] {
		if t == pad.Outputs[0] {
			return p, false
		}
	}
	pads := g.Input(pad, 1)
	if pads == nil || !pads.IsConst() || pads.Type != model.Int32 || len(pads.Data) != 4*8 {
		return p, false
	}
	var v [8]int
	for i := range v {
		v[i] = int(int32(binary.LittleEndian.Uint32(pads.Data[4*i:])))
	}
	if v[0] != 0 || v[1] != 0 || v[6] != 0 || v[7] != 0 || slices.ContainsFunc(v[2:6], func(n int) bool { return n < 0 }) {
		return p, false
	}
	p = model.Padding{Top: v[2], Bottom: v[3], Left: v[4], Right: v[5]}
	for i, n := range in.Shape {
		if n != out.Shape[i]-v[2*i]-v[2*i+1] {
			return p, false
		}
	}
	if !zeroValue(g, pad, in) || in.Type == model.Float32 && !finite(filter) {
		return p, false
	}
	// Every output row and column reads at least one input row and
	// column: no side pads more than the window's extent less one, and
	// the padding the convolution reads after the input is no more.
	effH, effW := (filter.Shape[1]-1)*dilH+1, (filter.Shape[2]-1)*dilW+1
	oh, ow := out.Shape[1], out.Shape[2]
	if oh < effH || ow < effW {
		return p, false
	}
	outH, outW := (oh-effH)/strideH+1, (ow-effW)/strideW+1
	readH := max((outH-1)*strideH+effH-in.Shape[1]-p.Top, 0)
	readW := max((outW-1)*strideW+effW-in.Shape[2]-p.Left, 0)
	if p.Top >= effH || p.Left >= effW || readH >= effH || readW >= effW {
		return p, false
	}
	return p, true
}

// sameQuant says whether two quantizations are the same.
func sameQuant(a, b *model.Quant) bool {
	if a == nil || b == nil {
		return a == b
	}
	if len(a.Scale) != len(b.Scale) || len(a.ZeroPoint) != len(b.ZeroPoint) || a.Axis != b.Axis {
		return false
	}
	for i := range a.Scale {
		if math.Float32bits(a.Scale[i]) != math.Float32bits(b.Scale[i]) {
			return false
		}
	}
	return slices.Equal(a.ZeroPoint, b.ZeroPoint)
}

// zeroValue says whether pad pads its input t with the value a
// convolution's padding stands for: t's zero point (int8), 0 (int16,
// whose convolutions have zero point 0) or +0.0 (float32). PAD pads int8
// with its output's zero point, others with 0; PADV2 with its constant.
func zeroValue(g *model.Graph, pad *model.Op, t *model.Tensor) bool {
	var zp int64
	if t.Quant != nil {
		if len(t.Quant.ZeroPoint) != 1 {
			return false
		}
		zp = t.Quant.ZeroPoint[0]
	}
	var want []byte
	switch t.Type {
	case model.Int8:
		if zp < -128 || zp > 127 {
			return false
		}
		want = []byte{byte(int8(zp))}
	case model.Int16:
		if zp != 0 {
			return false
		}
		want = []byte{0, 0}
	case model.Float32:
		want = []byte{0, 0, 0, 0}
	default:
		return false
	}
	if len(pad.Inputs) < 3 || pad.Inputs[2] < 0 {
		return true // PAD, or PADV2 without its constant: as above
	}
	cv := g.Input(pad, 2)
	if cv == nil || !cv.IsConst() || cv.Type != t.Type || cv.NumElements() != 1 || !slices.Equal(cv.Data, want) {
		return false
	}
	return t.Type != model.Int8 || sameQuant(cv.Quant, t.Quant)
}

// finite says whether every weight of a float32 filter is finite: a
// padded 0.0 times an infinite or NaN weight is NaN, which a skipped tap
// is not.
func finite(t *model.Tensor) bool {
	if t.Type != model.Float32 || !t.IsConst() {
		return false
	}
	for i := 0; i+4 <= len(t.Data); i += 4 {
		if f := math.Float32frombits(binary.LittleEndian.Uint32(t.Data[i:])); math.IsInf(float64(f), 0) || f != f {
			return false
		}
	}
	return true
}
