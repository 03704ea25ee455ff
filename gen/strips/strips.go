// Package strips rewrites a graph so that a stage of its operators runs in
// column strips (-recompute): patch-based execution, as MCUNetV2 runs the
// first stage of a MobileNet. It is a stage between gen/fold and lowering:
//
//	model -> graph -> fold -> strips -> lower -> schedule -> layout -> emit
//
// Fused row streaming (gen/schedule) already holds a chain's intermediate
// tensors as a few rows; a row of an early, wide tensor is still large
// (MobileNet V2 224's 3-row line of 112x96 is 32 KB). Split into K strips
// of columns, each strip's chain holds rows of its own columns only. The
// price is the halo: a strip's convolutions need the columns its windows
// reach beyond its own, which neighbouring strips compute too, so those
// are computed twice. The rewrite states that price as extra
// multiply-accumulates (Split's Info), and the caller chooses the stage and
// the strip count within the extra it allows.
//
// Strip k computes columns [c_k, c_k+1) of the stage's last tensor T. From
// T backwards, each tensor of the stage gets the columns its readers need
// (a window's stride, size, dilation and padding widen them); the strip's
// copy of each operator reads and writes those columns only, with an
// explicit padding (model.Op.Padding) that is the operator's own at the
// image's edges and none inside it, so every output element is computed by
// the same taps as in the whole operator: outputs are bit for bit the
// model's. The strip starts with a SLICE of the stage's input (along the
// last axis of an NCHW input that a TRANSPOSE to NHWC, the stage's first
// operator, reads: PyTorch's exports start so); a reader
// that needs fewer columns of a tensor than the strip holds (a residual
// ADD's skip operand, held as wide as the block's first convolution needs)
// reads a SLICE of it. Strip 0's result is PADded to T's width (its other
// columns are written by the later strips); strip k > 0 writes its columns
// into the result with a DYNAMIC_UPDATE_SLICE over it, in place (the
// lowering makes its output an alias of its operand, read by nothing else).
// The last of these writes T itself, so the operators after the stage are
// unchanged.
package strips

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/tflm-gen/tflm-gen/internal/model"
)

// Stage is operators First..Last of a graph (execution order) run as
// Strips column strips.
type Stage struct {
	First, Last, Strips int
}

// unary lists the elementwise operators of one input that a strip runs on
// its columns as they are.
var unary = map[model.OpCode]bool{
	model.OpRelu: true, model.OpRelu6: true, model.OpReluN1To1: true, model.OpRelu0To1: true,
	model.OpLeakyRelu: true, model.OpHardSwish: true, model.OpLogistic: true, model.OpTanh: true,
	model.OpQuantize: true, model.OpDequantize: true,
}

// binaryOps lists the elementwise operators of two inputs of the output's
// shape.
var binaryOps = map[model.OpCode]bool{model.OpAdd: true, model.OpSub: true, model.OpMul: true}

// window is the column geometry of a convolution or pool: output column x
// reads input columns [x*stride-pad, x*stride-pad+span).
type window struct {
	stride, pad, span int
	// top and bottom are the padding rows of the operator's height.
	top, bottom int
}

// interval is the columns [lo, hi).
type interval struct{ lo, hi int }

func (a interval) union(b interval) interval {
	if a.hi <= a.lo {
		return b
	}
	return interval{min(a.lo, b.lo), max(a.hi, b.hi)}
}

// Split returns g with stage st run in column strips (its Strips says
// how), or an error saying why the stage cannot be. g is not modified.
func Split(g *model.Graph, st Stage) (*model.Graph, error) {
	s := &splitter{g: g, st: st}
	if err := s.check(); err != nil {
		return nil, s.refusal(err)
	}
	return s.build()
}

// Check says why stage st of g cannot run in column strips, nil when it
// can.
func Check(g *model.Graph, st Stage) error {
	s := &splitter{g: g, st: st}
	if err := s.check(); err != nil {
		return s.refusal(err)
	}
	return nil
}

func (s *splitter) refusal(err error) error {
	return fmt.Errorf("operators %d-%d in %d strips: %w", s.st.First, s.st.Last, s.st.Strips, err)
}

type splitter struct {
	g  *model.Graph
	st Stage
	// in is the stage's input tensor, out its output (T).
	in, out int
	// made marks the tensors made in the stage.
	made map[int]bool
	// win is each windowed operator's geometry.
	win map[int]window
	// nchw is the stage's input where a TRANSPOSE makes it NHWC (its
	// columns are its last axis), -1 otherwise.
	nchw int
}

// nhwc returns the height, width and channels of a batch-1 rank-4 tensor.
func nhwc(t *model.Tensor) (h, w, c int, ok bool) {
	if len(t.Shape) != 4 || t.Shape[0] != 1 || t.Shape[1] < 1 || t.Shape[2] < 1 || t.Shape[3] < 1 {
		return 0, 0, 0, false
	}
	return t.Shape[1], t.Shape[2], t.Shape[3], true
}

// activations returns the inputs of op that the strips split: input 0,
// and for a binary operator input 1.
func activations(op *model.Op) []int {
	if binaryOps[op.Code] {
		return op.Inputs[:2]
	}
	return op.Inputs[:1]
}

func (s *splitter) check() error {
	g, st := s.g, s.st
	if st.First < 0 || st.Last >= len(g.Ops) || st.First > st.Last {
		return fmt.Errorf("not a range of the graph's %d operators", len(g.Ops))
	}
	if st.Strips < 2 {
		return fmt.Errorf("fewer than 2 strips")
	}
	if g.Strips != nil {
		return fmt.Errorf("the graph runs in strips already")
	}
	s.made, s.win = map[int]bool{}, map[int]window{}
	s.in, s.out, s.nchw = -1, -1, -1
	for i := st.First; i <= st.Last; i++ {
		op := g.Ops[i]
		if op.Folded {
			if op.FoldedInto < st.First || op.FoldedInto > st.Last {
				return fmt.Errorf("%s is folded into an operator outside the stage", op.Describe())
			}
			continue
		}
		if len(op.Outputs) != 1 || len(op.Inputs) == 0 {
			return fmt.Errorf("%s: not one output", op.Describe())
		}
		if err := s.checkOp(op); err != nil {
			return fmt.Errorf("%s: %w", op.Describe(), err)
		}
		for _, t := range activations(op) {
			if t < 0 || g.Tensors[t].IsConst() {
				return fmt.Errorf("%s: a constant or missing operand", op.Describe())
			}
			if !s.made[t] {
				if s.in >= 0 && s.in != t {
					return fmt.Errorf("%s reads tensor %d, a second input of the stage (the first is tensor %d)", op.Describe(), t, s.in)
				}
				s.in = t
			}
		}
		s.made[op.Outputs[0]] = true
		s.out = op.Outputs[0]
	}
	if s.in < 0 || s.out < 0 {
		return fmt.Errorf("no operator")
	}
	// Every tensor made in the stage but its output is read in it only.
	for i, op := range g.Ops {
		if i >= st.First && i <= st.Last {
			if slices.Contains(op.Inputs, s.out) {
				return fmt.Errorf("%s reads the stage's output inside it", op.Describe())
			}
			continue
		}
		for _, t := range op.Inputs {
			if t >= 0 && s.made[t] && t != s.out {
				return fmt.Errorf("%s, outside the stage, reads tensor %d made in it", op.Describe(), t)
			}
		}
	}
	for _, t := range g.Outputs {
		if s.made[t] && t != s.out {
			return fmt.Errorf("tensor %d, made in the stage, is a graph output", t)
		}
	}
	if _, w, _, _ := nhwc(g.Tensors[s.out]); w < st.Strips {
		return fmt.Errorf("the output %s is narrower than %d columns", g.Tensors[s.out].Describe(), st.Strips)
	}
	return nil
}

// checkOp checks that op can run on a strip of columns and records its
// window.
func (s *splitter) checkOp(op *model.Op) error {
	g := s.g
	out := g.Tensors[op.Outputs[0]]
	oh, ow, _, ok := nhwc(out)
	if !ok {
		return fmt.Errorf("output %s is not a batch-1 image", out.Describe())
	}
	for _, t := range activations(op) {
		if t < 0 {
			return fmt.Errorf("an operand is missing")
		}
		if _, _, _, ok := nhwc(g.Tensors[t]); !ok {
			return fmt.Errorf("input %s is not a batch-1 image", g.Tensors[t].Describe())
		}
	}
	in := g.Tensors[op.Inputs[0]]
	ih, iw, _, _ := nhwc(in)
	switch {
	case op.Code == model.OpTranspose:
		// PyTorch's NCHW input made NHWC: its strips transpose their
		// columns of it, which a SLICE along its last axis cuts.
		if op.Index != s.st.First {
			return fmt.Errorf("a TRANSPOSE runs in column strips only as the stage's first operator")
		}
		perm := g.Input(op, 1)
		if perm == nil || !perm.IsConst() || perm.Type != model.Int32 || len(perm.Data) != 16 ||
			binary.LittleEndian.Uint32(perm.Data[4:]) != 2 || binary.LittleEndian.Uint32(perm.Data[8:]) != 3 || binary.LittleEndian.Uint32(perm.Data[12:]) != 1 ||
			binary.LittleEndian.Uint32(perm.Data) != 0 {
			return fmt.Errorf("not a constant permutation [0, 2, 3, 1] (NCHW to NHWC)")
		}
		if in.Shape[1] != out.Shape[3] || in.Shape[2] != oh || in.Shape[3] != ow {
			return fmt.Errorf("input %s is not output %s in NCHW", in.Describe(), out.Describe())
		}
		s.nchw = op.Inputs[0]
		return nil
	case unary[op.Code]:
		if ih != oh || iw != ow {
			return fmt.Errorf("input %s and output %s differ in size", in.Describe(), out.Describe())
		}
		return nil
	case binaryOps[op.Code]:
		b := g.Tensors[op.Inputs[1]]
		if !slices.Equal(in.Shape, out.Shape) || !slices.Equal(b.Shape, out.Shape) {
			return fmt.Errorf("operands %s and %s are not of the output's shape %v", in.Describe(), b.Describe(), out.Shape)
		}
		return nil
	}
	o := op.Options()
	var same bool
	var sh, sw, dh, dw, kh, kw int
	switch op.Code {
	case model.OpConv2D, model.OpDepthwiseConv2D:
		f := g.Input(op, 1)
		if f == nil || len(f.Shape) != 4 {
			return fmt.Errorf("the filter is not 4-D")
		}
		kh, kw = f.Shape[1], f.Shape[2]
		if op.Code == model.OpConv2D {
			c := o.Conv2D()
			same, sh, sw, dh, dw = c.Padding == 0, int(c.StrideH), int(c.StrideW), int(c.DilationHFactor), int(c.DilationWFactor)
		} else {
			c := o.DepthwiseConv2D()
			same, sh, sw, dh, dw = c.Padding == 0, int(c.StrideH), int(c.StrideW), int(c.DilationHFactor), int(c.DilationWFactor)
		}
	case model.OpAveragePool2D, model.OpMaxPool2D:
		c := o.Pool2D()
		same, sh, sw, dh, dw, kh, kw = c.Padding == 0, int(c.StrideH), int(c.StrideW), 1, 1, int(c.FilterHeight), int(c.FilterWidth)
	default:
		return fmt.Errorf("%s cannot run in column strips", op.Code)
	}
	if err := o.Err(); err != nil {
		return err
	}
	if sh < 1 || sw < 1 || dh < 1 || dw < 1 || kh < 1 || kw < 1 {
		return fmt.Errorf("strides, dilations or window not positive")
	}
	w := window{stride: sw, span: (kw-1)*dw + 1}
	spanH := (kh-1)*dh + 1
	if p := op.Padding; p != nil {
		w.pad, w.top = p.Left, p.Top
	} else if same {
		w.pad, w.top = model.SamePad(iw, ow, sw, w.span), model.SamePad(ih, oh, sh, spanH)
	}
	w.bottom = max((oh-1)*sh+spanH-ih-w.top, 0)
	if (w.top+ih+w.bottom-spanH)/sh+1 != oh || w.pad < 0 || w.top < 0 {
		return fmt.Errorf("its height geometry does not give its output's")
	}
	s.win[op.Index] = w
	return nil
}

// need is the columns of input t that op reads to make columns out of its
// output.
func (s *splitter) need(op *model.Op, out interval) interval {
	w, ok := s.win[op.Index]
	if !ok {
		return out
	}
	_, iw, _, _ := nhwc(s.g.Tensors[op.Inputs[0]])
	lo := out.lo*w.stride - w.pad
	hi := (out.hi-1)*w.stride - w.pad + w.span
	return interval{max(lo, 0), min(hi, iw)}
}

func (s *splitter) build() (*model.Graph, error) {
	g, st := s.g, s.st
	_, outW, _, _ := nhwc(g.Tensors[s.out])
	ng := *g
	ng.Tensors = slices.Clone(g.Tensors)
	ng.Ops = nil
	info := &model.Strips{First: st.First, Last: st.Last, Count: st.Strips, In: s.in, Out: s.out}
	ng.Strips = info
	addTensor := func(t model.Tensor) int {
		t.Index = len(ng.Tensors)
		ng.Tensors = append(ng.Tensors, &t)
		return t.Index
	}
	addOp := func(op model.Op, src, strip int) {
		op.Index = len(ng.Ops)
		ng.Ops = append(ng.Ops, &op)
		info.Source = append(info.Source, src)
		info.Strip = append(info.Strip, strip)
	}
	constI32 := func(name string, v ...int32) int {
		data := make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(data[4*i:], uint32(x))
		}
		return addTensor(model.Tensor{Name: name, Type: model.Int32, Shape: []int{len(v)}, Data: data})
	}
	// moved[i] is model operator i's position in the new graph (a stage
	// operator's: its strip 0), for the folded operators' FoldedInto.
	moved := make([]int, len(g.Ops))
	for i := range st.First {
		moved[i] = len(ng.Ops)
		addOp(*g.Ops[i], i, -1)
	}
	result := -1 // the stage's output so far (strip 0's PAD, then each DYNAMIC_UPDATE_SLICE's)
	for k := range st.Strips {
		lo, hi := k*outW/st.Strips, (k+1)*outW/st.Strips
		// Each tensor's columns: what its readers need, from T back.
		cols := map[int]interval{s.out: {lo, hi}}
		for i := st.Last; i >= st.First; i-- {
			op := g.Ops[i]
			if op.Folded {
				continue
			}
			oc := cols[op.Outputs[0]]
			if oc.hi <= oc.lo {
				return nil, fmt.Errorf("%s: its output is read by no operator of the stage", op.Describe())
			}
			for _, t := range activations(op) {
				cols[t] = cols[t].union(s.need(op, oc))
			}
		}
		info.InCols = append(info.InCols, [2]int{cols[s.in].lo, cols[s.in].hi})
		info.OutCols = append(info.OutCols, [2]int{lo, hi})
		// narrow[t] is the strip's tensor of t's columns cols[t].
		narrow := map[int]int{}
		// axis is the axis of t's columns: 2 (NHWC), 3 for an NCHW input.
		axis := func(t int) int {
			if t == s.nchw {
				return 3
			}
			return 2
		}
		strip := func(t int, c interval, what string) int {
			x := *g.Tensors[t]
			x.Shape = slices.Clone(x.Shape)
			x.Shape[axis(t)] = c.hi - c.lo
			x.Data = nil
			x.Name = fmt.Sprintf("%s/%s%d", x.Name, what, k)
			return addTensor(x)
		}
		// sliceOf returns a tensor of columns c of t's strip tensor,
		// which holds t's columns have.
		sliceOf := func(t int, have, c interval, src int) int {
			if c == have {
				return narrow[t]
			}
			y := strip(t, c, "cols")
			begin := []int32{0, 0, 0, 0}
			begin[axis(t)] = int32(c.lo - have.lo)
			size := make([]int32, 4)
			for i, d := range ng.Tensors[y].Shape {
				size[i] = int32(d)
			}
			b := constI32(fmt.Sprintf("strip%d/begin", k), begin...)
			n := constI32(fmt.Sprintf("strip%d/size", k), size...)
			addOp(model.Op{Code: model.OpSlice, Version: 1, Inputs: []int{narrow[t], b, n}, Outputs: []int{y}}, src, k)
			return y
		}
		// The stage's input is whole: the strip's columns are cut from it.
		narrow[s.in] = s.in
		narrow[s.in] = sliceOf(s.in, interval{0, g.Tensors[s.in].Shape[axis(s.in)]}, cols[s.in], st.First)
		for i := st.First; i <= st.Last; i++ {
			op := g.Ops[i]
			if op.Folded {
				continue
			}
			oc := cols[op.Outputs[0]]
			nop := *op
			nop.Inputs = slices.Clone(op.Inputs)
			for j, t := range activations(op) {
				nop.Inputs[j] = sliceOf(t, cols[t], s.need(op, oc), i)
			}
			if w, ok := s.win[i]; ok {
				need := s.need(op, oc)
				p := &model.Padding{Top: w.top, Bottom: w.bottom}
				p.Left = need.lo - (oc.lo*w.stride - w.pad)
				p.Right = (oc.hi-1)*w.stride - w.pad + w.span - need.hi
				nop.Padding = p
			}
			narrow[op.Outputs[0]] = strip(op.Outputs[0], oc, "strip")
			nop.Outputs = []int{narrow[op.Outputs[0]]}
			if k == 0 {
				moved[i] = len(ng.Ops)
			}
			addOp(nop, i, k)
		}
		// Into the stage's output.
		part := narrow[s.out]
		to := s.out
		if k < st.Strips-1 {
			x := *g.Tensors[s.out]
			x.Name = fmt.Sprintf("%s/to%d", x.Name, k)
			to = addTensor(x)
		}
		if k == 0 {
			pads := model.Tensor{Name: "strip0/pads", Type: model.Int32, Shape: []int{4, 2}, Data: make([]byte, 32)}
			binary.LittleEndian.PutUint32(pads.Data[20:], uint32(outW-hi))
			addOp(model.Op{Code: model.OpPad, Version: 1, Inputs: []int{part, addTensor(pads)}, Outputs: []int{to}}, st.Last, -1)
		} else {
			start := constI32(fmt.Sprintf("strip%d/start", k), 0, 0, int32(lo), 0)
			addOp(model.Op{Code: model.OpDynamicUpdateSlice, Version: 1, Inputs: []int{result, part, start}, Outputs: []int{to}}, st.Last, -1)
		}
		result = to
	}
	// The operators after the stage, renumbered.
	for i := st.Last + 1; i < len(g.Ops); i++ {
		moved[i] = len(ng.Ops)
		addOp(*g.Ops[i], i, -1)
	}
	for _, op := range ng.Ops {
		if op.Folded {
			op.FoldedInto = moved[op.FoldedInto]
		}
	}
	return &ng, nil
}
