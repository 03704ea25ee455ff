// Package fold rewrites a validated graph before lowering, folding an
// operator into another that can do its work at no cost. It is the stage
// between internal/model and gen/lower:
//
//	model -> graph -> fold -> lower -> schedule -> layout -> emit
//
// One rewrite today: a PAD or PADV2 of height and width only, read by
// nothing but a VALID CONV_2D, DEPTHWISE_CONV_2D or MAX_POOL_2D, becomes
// that operator's explicit padding (model.Op.Padding) where its pad value
// is what the operator's own padding stands for: the input's zero point
// for a convolution, the type's least value for a max pool. PyTorch's
// exports pad this way before every 3x3 and every strided convolution and
// before a padded max pool, Keras' ZeroPadding2D before its strided
// convolutions; folded, the padded tensor is never made, so the PAD's copy
// and its buffer are gone, and in a fused group the operator reads the
// lines of the PAD's input.
//
// The operator's arithmetic is unchanged: TFLite Micro's kernels skip
// padding taps and cells, which is what a tap of the input's zero point
// adds to a convolution (its input offset makes it 0) and what a cell of
// the least value does to a maximum, so outputs are bit for bit those of
// the model as written. Operators keep their positions: a folded PAD stays in the
// graph, without inputs, outputs or code, so that every operator number in
// layout.txt, Invoke and the trace is the model's.
package fold

import (
	"encoding/binary"
	"math"
	"slices"

	"github.com/tflm-gen/tflm-gen/internal/model"
)

// Pads returns g with every PAD that its reader absorbs folded into it
// (see the package comment), or g itself when there is none. g is not
// modified: the result shares its tensors and its unchanged operators.
func Pads(g *model.Graph) *model.Graph {
	// reads[t] counts the reads of tensor t (a graph output counts as
	// two: it is never folded), readBy[t] is the last operator reading it.
	reads, readBy := make([]int, len(g.Tensors)), make([]int, len(g.Tensors))
	for _, op := range g.Ops {
		for _, t := range op.Inputs {
			if t >= 0 && t < len(reads) {
				reads[t]++
				readBy[t] = op.Index
			}
		}
	}
	for _, t := range g.Outputs {
		if t >= 0 && t < len(reads) {
			reads[t] += 2
		}
	}
	var out *model.Graph
	for _, pad := range g.Ops {
		if pad.Code != model.OpPad && pad.Code != model.OpPadv2 || len(pad.Outputs) != 1 {
			continue
		}
		t := pad.Outputs[0]
		if t < 0 || t >= len(reads) || reads[t] != 1 || readBy[t] <= pad.Index {
			continue
		}
		ri := readBy[t]
		reader := g.Ops[ri]
		p, ok := absorb(g, pad, reader)
		if !ok {
			continue
		}
		if out == nil {
			c := *g
			c.Ops = slices.Clone(g.Ops)
			out = &c
		}
		nr := *reader
		nr.Inputs = slices.Clone(reader.Inputs)
		nr.Inputs[0] = pad.Inputs[0]
		nr.Padding = &p
		out.Ops[ri] = &nr
		np := *pad
		np.Inputs, np.Outputs, np.Intermediates = nil, nil, nil
		np.Folded, np.FoldedInto = true, ri
		out.Ops[pad.Index] = &np
	}
	if out == nil {
		return g
	}
	return out
}

// absorb returns the explicit padding that op (a convolution or a max
// pool), pad's output's only reader, takes instead of pad where it reads
// it as its input 0; ok is false when it cannot. (An op with a Padding
// already, of an earlier Pads, takes no other.)
func absorb(g *model.Graph, pad, op *model.Op) (p model.Padding, ok bool) {
	if op.Padding != nil || op.Inputs[0] != pad.Outputs[0] || len(pad.Inputs) < 2 {
		return p, false
	}
	in, out := g.Input(pad, 0), g.Output(pad, 0)
	if in == nil || in.IsConst() || in.IsVariable || len(in.Shape) != 4 || len(out.Shape) != 4 || in.Type != out.Type || !sameQuant(in.Quant, out.Quant) {
		return p, false
	}
	value, ok := padValue(g, pad, in)
	if !ok {
		return p, false
	}
	// The window's extent and strides, and whether the pad value is the
	// one the operator's own padding stands for.
	var padding uint8
	var strideH, strideW, effH, effW int
	o := op.Options()
	switch op.Code {
	case model.OpConv2D, model.OpDepthwiseConv2D:
		var dilH, dilW int
		if op.Code == model.OpConv2D {
			x := o.Conv2D()
			padding, strideH, strideW, dilH, dilW = x.Padding, int(x.StrideH), int(x.StrideW), int(x.DilationHFactor), int(x.DilationWFactor)
		} else {
			x := o.DepthwiseConv2D()
			padding, strideH, strideW, dilH, dilW = x.Padding, int(x.StrideH), int(x.StrideW), int(x.DilationHFactor), int(x.DilationWFactor)
		}
		filter := g.Input(op, 1)
		if filter == nil || len(filter.Shape) != 4 || dilH < 1 || dilW < 1 || dilH > 1<<16 || dilW > 1<<16 {
			return p, false
		}
		effH, effW = (filter.Shape[1]-1)*dilH+1, (filter.Shape[2]-1)*dilW+1
		// A skipped padding tap adds nothing; a tap of the input's zero
		// point adds 0 too, and for float32 0 times a finite weight.
		if !slices.Equal(value, zeroBytes(in)) || in.Type == model.Float32 && !finite(filter) {
			return p, false
		}
	case model.OpMaxPool2D:
		x := o.Pool2D()
		padding, strideH, strideW, effH, effW = x.Padding, int(x.StrideH), int(x.StrideW), int(x.FilterHeight), int(x.FilterWidth)
		// A max pool skips padding cells; a cell of the type's least
		// value never changes a maximum either.
		if !isLeast(value, in.Type) {
			return p, false
		}
	default:
		return p, false
	}
	if o.Err() != nil || padding != 1 || strideH < 1 || strideW < 1 || effH < 1 || effW < 1 {
		return p, false // not VALID, or options the lowering will reject
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
	// Every output row and column reads at least one input row and
	// column: no side pads more than the window's extent less one, and
	// the padding the operator reads after the input is no more.
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

// padValue returns the bytes pad pads its input t with: PAD pads int8
// with its output's zero point and other types with 0, PADV2 with its
// constant (for int8, of t's quantization); ok is false for a constant
// tflm-gen does not take.
func padValue(g *model.Graph, pad *model.Op, t *model.Tensor) (v []byte, ok bool) {
	switch t.Type {
	case model.Int8, model.Int16, model.Float32:
	default:
		return nil, false
	}
	if len(pad.Inputs) < 3 || pad.Inputs[2] < 0 {
		v = make([]byte, t.Type.Size())
		if t.Type == model.Int8 {
			if t.Quant == nil || len(t.Quant.ZeroPoint) != 1 || t.Quant.ZeroPoint[0] < -128 || t.Quant.ZeroPoint[0] > 127 {
				return nil, false
			}
			v[0] = byte(int8(t.Quant.ZeroPoint[0]))
		}
		return v, true
	}
	cv := g.Input(pad, 2)
	if cv == nil || !cv.IsConst() || cv.Type != t.Type || cv.NumElements() != 1 || len(cv.Data) != t.Type.Size() ||
		t.Type == model.Int8 && !sameQuant(cv.Quant, t.Quant) {
		return nil, false
	}
	return cv.Data, true
}

// zeroBytes is the value a convolution's padding stands for, in t's
// encoding: t's zero point (int8), 0 (int16, whose convolutions have zero
// point 0) or +0.0 (float32); nil when t's quantization gives none.
func zeroBytes(t *model.Tensor) []byte {
	var zp int64
	if t.Quant != nil {
		if len(t.Quant.ZeroPoint) != 1 {
			return nil
		}
		zp = t.Quant.ZeroPoint[0]
	}
	switch {
	case t.Type == model.Int8 && zp >= -128 && zp <= 127:
		return []byte{byte(int8(zp))}
	case t.Type == model.Int16 && zp == 0:
		return []byte{0, 0}
	case t.Type == model.Float32:
		return []byte{0, 0, 0, 0}
	}
	return nil
}

// isLeast says whether v is the least value of type dt (float32: -Inf or
// the lowest finite value, which a max pool starts from).
func isLeast(v []byte, dt model.DType) bool {
	switch dt {
	case model.Int8:
		return len(v) == 1 && int8(v[0]) == math.MinInt8
	case model.Int16:
		return len(v) == 2 && int16(binary.LittleEndian.Uint16(v)) == math.MinInt16
	case model.Float32:
		if len(v) != 4 {
			return false
		}
		f := math.Float32frombits(binary.LittleEndian.Uint32(v))
		return math.IsInf(float64(f), -1) || f == -math.MaxFloat32
	}
	return false
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
