package schedule

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/planner"
)

// Fused row streaming. A chain of convolution-like operators, each reading
// only the previous one's output, can run row by row: an output row of a
// convolution needs a window of its input's rows, so each intermediate
// tensor only has to hold the rows its consumer still needs (a line
// buffer), never the whole tensor. The group is scheduled by demand: to
// produce row y of the last operator, each operator before it produces the
// rows the next one's window needs, one row at a time, so every line holds
// as few rows as the windows allow. Every row of every tensor is computed
// once, by the same kernel on a band of rows: a band of a convolution is
// the convolution of a shorter input (the rows the band's windows cover)
// with the padding that is left at that edge, so the kernels that run
// whole tensors run bands unchanged. A line keeps its rows from its start:
// before a producer writes new rows, the rows still needed slide down
// (slideDown over the line), a copy of a few rows per row produced.
//
// The group's input and output stay whole tensors; when the input dies in
// the group the output is written over it (tied at the smallest distance
// the schedule allows, computed by replaying it).
//
// A residual ADD (SUB, MUL) joins a chain too: its chain operand is the
// previous operator's output, and its other operand (the skip tensor,
// produced before the group) stays a whole tensor that each band reads the
// same rows of, so it lives through the group. Where the ADD writes its
// output over the skip tensor (an in-place operator), and the skip tensor
// is the group's input, the group's input and output are one buffer: each
// band of the ADD writes rows no later band reads.
//
// A unary elementwise operator (an activation, QUANTIZE, DEQUANTIZE) joins
// a chain as a window of one row. Written in place on its own, it gets a
// line of its own in a group (Options.NotInPlace), as does an ADD that
// would write over its chain operand (ADD(y, x)): the groups are estimated
// on the program without those in-place pairs, and each such operator on
// its own costs what it costs in place (belowTheBound).
//
// A group may be a DAG rather than a chain: a line may be read by several
// of its operators, each as its row input (a branch: a residual block's
// 1x1 shortcut convolution, a fire module's second expansion, reading an
// earlier line or the group's input) or a row a row (a residual
// operator's skip tensor, a CONCATENATION's other input, made in the
// group). The demand schedule then makes the rows each reader needs and
// keeps every row of a line until its last reader has read it, so a
// residual block's input is held as a few rows instead of whole.
//
// A MIRROR_PAD over height and width (mirrorPadRows: bandMirror) joins a
// chain as a window whose rows are the input rows its rows reflect: the
// top padding's rows read the rows below them, the bottom padding's the
// rows above, so a band is told its first output and input rows (row0,
// in0) rather than shifted by a padding, and the rows a band reads are
// made monotone (mirrorRows) as the demand schedule wants.
//
// A strided copy that writes its output row by row (TRANSPOSE, SLICE:
// bandMove) joins a chain too. Where output row y reads input row y alone
// (a TRANSPOSE of width and channels, a SLICE of columns or channels:
// moveRowLocal) it is a window of one row, anywhere in a chain; otherwise
// each band reads its whole input: at a chain's start, where the input is
// the group's and whole anyway, it keeps its output, an NCHW input
// transposed, from being held whole.
//
// A view whose rows are its input's (a RESHAPE of width and channels:
// isRowView) has no code and shares its input's buffer. A group steps
// over it as over a folded operator: its reader reads the line of its
// input, whose rows are its rows, with no copy and no line of its own.

// bandKind says how a kernel call is cut into bands of output rows: the
// kinds a lowering declares (program.BandKind, the same values), then the
// operators fusion cuts by kinds of its own.
type bandKind int

const (
	// bandWindow: a parameter struct with inH, outH, padH, filterH (or a
	// fixed height) and optionally batches (1), strideH and dilationH.
	bandWindow = bandKind(program.BandWindow)
	// bandPixels: a pointwise kernel whose struct counts pixels.
	bandPixels = bandKind(program.BandPixels)
	// bandElems: a binary elementwise kernel (ewBcast) on operands of
	// the output's shape, fn(params..., bc, a, b, out): one operand is
	// the chain's, the other (the skip tensor) is read whole, a band of
	// rows at a time; a band is a call on fewer elements (bc.inner).
	bandElems = bandKind(program.BandElems)
	// bandUnary: a unary elementwise kernel, fn(params..., in, out),
	// that writes element i of out from element i of in for every i of
	// in (an activation, QUANTIZE, DEQUANTIZE): a band is a call on
	// shorter slices.
	bandUnary = bandKind(program.BandUnary)
	// bandMove: moveStrided (TRANSPOSE, SLICE, ...) whose outermost loop
	// walks the output's rows, k iterations a row: a band is a call on
	// fewer iterations from a later source offset. Where output row y
	// reads input row y alone (moveRowLocal), a band reads its rows;
	// otherwise every band reads the whole input (a TRANSPOSE from NCHW
	// gathers each output row from every input channel plane), and the
	// operator pays in a chain at its start, where its input is the
	// group's input, kept whole anyway.
	bandMove = bandKind(program.BandMove)
	// bandMirror: mirrorPadRows (MIRROR_PAD over height and width), output
	// row y a reflected input row: a band reads the input rows its rows
	// reflect (rows, from mirrorLo and mirrorHi) and is told its first
	// output row and first input row (row0, in0).
	bandMirror = bandKind(program.BandMirror)
)

const (
	// bandConcat: a CONCATENATION along channels (one moveStrided a
	// input, each writing its channels of every output pixel, row by
	// row): one input is the chain operand, the others are read whole, a
	// band of rows at a time, as a residual ADD's skip tensor is.
	bandConcat = bandMirror + 1 + iota
	// bandSums: a global average pool (one window over the whole image)
	// ending a group (asSums): its bands add their input rows to the
	// per-channel sums (poolSum...), and one call at the group's end
	// divides them into the output (poolMean...), so that its input is
	// held a row at a time instead of whole.
	bandSums
)

// callBand returns the band kind of a kernel call and its geometry, as
// the lowering declared it (program.Call.Band); ok is false for a call
// that only runs whole.
func callBand(call program.Call) (kind bandKind, band program.Band, ok bool) {
	kind = bandKind(call.Band.Kind)
	if kind < bandWindow || kind > bandMirror || kind == withoutBand {
		return 0, program.Band{}, false
	}
	return kind, call.Band, true
}

// withoutBand is a band kind that callBand treats as running whole: the
// tests set it to compare chains with and without a kind (0: none).
var withoutBand bandKind

// bandOp is one operator that can run in bands of output rows.
type bandOp struct {
	op            int
	call          program.Call
	param         int // argument index of the parameter struct
	in, out       int // argument indices of the input and output views
	kind          bandKind
	inBuf, outBuf program.BufID
	inType        model.DType
	outType       model.DType
	inH, outH     int // tensor heights
	inRow, outRow int // elements per row
	outW          int // pixels per output row
	// Output row y reads input rows [y*stride-pad, y*stride-pad+span),
	// clipped to the image; for bandMirror, [mirrorLo[y], mirrorHi[y]).
	stride, pad, span  int
	mirrorLo, mirrorHi []int
	// skip is the argument index of the skip tensor's view (bandElems; -1
	// for the others): output row y reads its row y, outRow elements of
	// outType, from skipBuf.
	skip    int
	skipBuf program.BufID
	// moveLoop is the index of bandMove's outermost loop, moveK its
	// iterations a row and moveSrc, moveS its source offset and stride.
	moveLoop, moveK, moveSrc, moveS int
	// global: an average pool whose one window covers the whole image
	// (bandWindow), which may end a group as sums (asSums); sumsBuf is
	// the buffer of its sums there (fuse).
	global  bool
	chans   int
	sumsBuf program.BufID
	// mean: a MEAN over the pixels (bandableMean), which runs as sums
	// only, at a group's end.
	mean bool
	// parts are a CONCATENATION's copies (bandConcat), one an input, in
	// the operator's order.
	parts []concatPart
	// folded: an operator another does the work of (gen/fold), without
	// code, inputs or outputs (its buffers are -1), or a view whose rows
	// are its input's (view: isRowView), whose reader reads its
	// input's buffer. A group steps over it: chainOps leaves it out.
	folded, view bool
}

// concatPart is the strided copy of one input of a CONCATENATION along
// channels: a band of rows [r0, r1) runs its row loop's iterations
// [r0*k, r1*k) from source offset srcOff + r0*k*s (moveRows).
type concatPart struct {
	call               program.Call
	buf                program.BufID // the input's buffer
	chain              bool          // the chain operand (in the group's input or a line); else read whole, or from a line (partFrom)
	loop, k, srcOff, s int
}

// skipBufs lists the buffers an operator reads whole beside its chain
// operand: a residual operator's skip tensor, a CONCATENATION's other
// inputs.
func (b *bandOp) skipBufs() []program.BufID {
	var out []program.BufID
	if b.skip >= 0 {
		out = append(out, b.skipBuf)
	}
	for _, pt := range b.parts {
		if !pt.chain {
			out = append(out, pt.buf)
		}
	}
	return out
}

// fuseConcat lets CONCATENATION join chains (tests turn it off to
// measure what it saves).
var fuseConcat = true

// bandableConcat is bandable for a CONCATENATION along the channels of
// NHWC images of batch 1: its chain operand is the output of operator
// i-1, its other inputs whole activation tensors of other buffers; each
// input's copy (moveStrided) writes its channels of the output row by row
// (moveRows, its destination offset the input's first channel).
func bandableConcat(p *program.Program, i int) *bandOp {
	g := p.Graph
	gop, op := g.Ops[i], p.Ops[i]
	if !fuseConcat || i == 0 || len(op.Calls) != len(gop.Inputs) || len(gop.Outputs) != 1 || len(g.Ops[i-1].Outputs) != 1 || op.Flow != nil {
		return nil
	}
	prev, ok1 := p.TensorBuf[g.Ops[i-1].Outputs[0]]
	outBuf, ok2 := p.TensorBuf[gop.Outputs[0]]
	tout := g.Tensors[gop.Outputs[0]]
	h, row, w, ok3 := nhwc(tout)
	if !ok1 || !ok2 || !ok3 || outBuf == prev {
		return nil
	}
	b := &bandOp{op: i, param: 0, in: 2, out: 1, skip: -1, kind: bandConcat, inBuf: prev, outBuf: outBuf, outType: tout.Type,
		outH: h, outRow: row, outW: w, stride: 1, span: 1}
	chains := 0
	for k, t := range gop.Inputs {
		call := op.Calls[k]
		if t < 0 || call.Fn != string(kernelsig.MoveStrided) || len(call.Args) != 3 {
			return nil
		}
		tin := g.Tensors[t]
		hi, rowi, wi, ok := nhwc(tin)
		buf, ok4 := p.TensorBuf[t]
		if !ok || !ok4 || hi != h || wi != w || tin.Type != tout.Type || tin.IsConst() || buf == outBuf || p.Buffers[buf].Kind != planner.Activation {
			return nil
		}
		ps, ok5 := call.Args[0].(program.Struct)
		dst, ok6 := call.Args[1].(program.View)
		src, ok7 := call.Args[2].(program.View)
		if !ok5 || !ok6 || !ok7 || dst.Buf != outBuf || src.Buf != buf || dst.Off != 0 || src.Off != 0 || dst.Step != 0 || src.Step != 0 ||
			!dst.Raw || !src.Raw || dst.N != h*row || src.N != hi*rowi {
			return nil
		}
		rb := &bandOp{outH: h, outRow: row, outType: tout.Type}
		if !rb.moveRowsAt(ps, true) {
			return nil
		}
		pt := concatPart{call: call, buf: buf, chain: buf == prev, loop: rb.moveLoop, k: rb.moveK, srcOff: rb.moveSrc, s: rb.moveS}
		if pt.chain {
			chains++
			b.call, b.inType, b.inH, b.inRow = call, tin.Type, hi, rowi
		}
		b.parts = append(b.parts, pt)
	}
	if chains != 1 {
		return nil
	}
	return b
}

// concatCalls are the calls of a band of a CONCATENATION (bandConcat):
// each input's copy on the band's rows, the chain operand's from in (the
// band's rows of its line or of the group's input), the others' from
// their whole tensors, into out (the band's output rows).
func (b *bandOp) concatCalls(ev bandEvent, in, out program.View) []program.Call {
	var calls []program.Call
	out.N, out.Raw = (ev.r1-ev.r0)*b.outRow, true
	for p, pt := range b.parts {
		args := slices.Clone(pt.call.Args)
		var src int
		switch {
		case pt.chain:
			src = pt.srcOff // the view starts at the band's first row
			v := in
			v.N, v.Raw = (ev.hi-ev.lo)*b.inRow, true
			args[2] = v
		case ev.partOff != nil && ev.partOff[p] >= 0:
			// The band's rows of a line of the group (its buffer is
			// the input's).
			src = pt.srcOff
			whole := args[2].(program.View)
			args[2] = program.View{Buf: pt.buf, Type: whole.Type, Off: ev.partOff[p], N: (ev.r1 - ev.r0) * (whole.N / b.outH), Raw: true}
		default:
			// The band's rows of the whole input.
			src, args[2] = moveBandSource(args[0].(program.Struct), pt.loop, pt.k, pt.srcOff, pt.s, ev.r0, ev.r1, args[2].(program.View))
		}
		args[0] = withInts(args[0].(program.Struct), map[string]int{fmt.Sprint("n", pt.loop): (ev.r1 - ev.r0) * pt.k, "src": src})
		args[1] = out
		calls = append(calls, program.Call{Fn: pt.call.Fn, Args: args})
	}
	return calls
}

// sumsKernels are the kernels of a global average pool run as sums, by
// element type: the sums' element type, the kernel adding input rows to
// them and the one dividing them into the output.
var sumsKernels = map[model.DType]struct {
	acc       model.DType
	sum, mean kernelsig.Func
}{
	model.Int8:    {model.Int32, kernelsig.PoolSumInt8, kernelsig.PoolMeanInt8},
	model.Int16:   {model.Int32, kernelsig.PoolSumInt16, kernelsig.PoolMeanInt16},
	model.Float32: {model.Float32, kernelsig.PoolSumF32, kernelsig.PoolMeanF32},
}

// meanKernels are the MEAN kernels and, for a MEAN over an image's
// pixels run as sums (bandableMean), the kernel dividing the sums into
// the output.
var meanKernels = map[kernelsig.Func]kernelsig.Func{
	kernelsig.MeanInt8:  kernelsig.MeanFinishInt8,
	kernelsig.MeanInt16: kernelsig.MeanFinishInt16,
	kernelsig.MeanF32:   kernelsig.MeanFinishF32,
}

// bandableMean is bandable for a MEAN: one over the height and width of
// an NHWC image of batch 1 (Keras' global average pooling) can end a
// group as sums (bandSums), its bands adding input rows to the sums
// (sumsKernels) and meanKernels' call dividing them into the output; a
// MEAN cannot run in bands otherwise.
func bandableMean(p *program.Program, i int, call program.Call) *bandOp {
	g := p.Graph
	gop := g.Ops[i]
	tin, tout := g.Tensors[gop.Inputs[0]], g.Tensors[gop.Outputs[0]]
	h, row, w, ok := nhwc(tin)
	inBuf, ok1 := p.TensorBuf[gop.Inputs[0]]
	outBuf, ok2 := p.TensorBuf[gop.Outputs[0]]
	if _, typed := sumsKernels[tin.Type]; !ok || !ok1 || !ok2 || inBuf == outBuf || !typed || tin.IsConst() || tin.Type != tout.Type || len(call.Args) < 3 {
		return nil
	}
	s, ok := call.Args[0].(program.Struct)
	if !ok {
		return nil
	}
	c := row / w
	// Levels 0-2 of size 1, the pixels summed (level 3), the channels
	// kept (level 4): one sum a channel over every pixel.
	for name, want := range map[string]int{"d0": 1, "d1": 1, "d2": 1, "d3": h * w, "d4": c, "s3": 0, "s4": 1, "nOut": c} {
		if v, ok := structInt(s, name); !ok || v != want {
			return nil
		}
	}
	in, out := call.Args[1].(program.View), call.Args[len(call.Args)-1].(program.View)
	if in.Buf != inBuf || out.Buf != outBuf || in.Off != 0 || out.Off != 0 || in.N != h*row || out.N != c || tout.NumElements() != c {
		return nil
	}
	return &bandOp{op: i, call: call, param: 0, in: 1, out: len(call.Args) - 1, skip: -1, kind: bandSums, inBuf: inBuf, outBuf: outBuf,
		inType: tin.Type, outType: tout.Type, inH: h, inRow: row, outH: h, outRow: row, outW: w, stride: 1, span: 1, global: true, mean: true, chans: c}
}

// sumsBytes is the size of a global pool's sums (one 4-byte sum a
// channel).
func (b *bandOp) sumsBytes() int { return b.chans * 4 }

// asSums returns the global average pool b run as sums when that holds
// its input in fewer bytes than its window's (the whole input): a band
// of its "output rows" is a band of input rows added to the sums.
func (b *bandOp) asSums() (*bandOp, bool) {
	if b.mean {
		return b, true
	}
	if !b.global || b.inH*b.inRow*b.inType.Size() <= b.inRow*b.inType.Size()+b.sumsBytes() {
		return b, false
	}
	s := *b
	s.kind = bandSums
	s.outH, s.outRow, s.outW = b.inH, b.inRow, b.inRow/max(b.outRow, 1)
	s.stride, s.pad, s.span = 1, 0, 1
	return &s, true
}

// chainOps returns the operators of a group from band (bandable's, not
// modified), its last one run as sums where that pays (asSums).
func chainOps(band []*bandOp) []*bandOp {
	ops := slices.DeleteFunc(slices.Clone(band), func(b *bandOp) bool { return b.folded })
	ops[len(ops)-1], _ = ops[len(ops)-1].asSums()
	return ops
}

// rows returns the input rows output row y reads, [lo, hi): empty (lo ==
// hi, at the image's edge) for a row of padding only.
func (b *bandOp) rows(y int) (lo, hi int) {
	if b.mirrorLo != nil {
		return b.mirrorLo[y], b.mirrorHi[y]
	}
	o := y*b.stride - b.pad
	lo = min(max(o, 0), b.inH)
	return lo, max(min(o+b.span, b.inH), lo)
}

func structInt(s program.Struct, name string) (int, bool) {
	for _, f := range s.Fields {
		if f.Name == name {
			if l, ok := f.Value.(program.Lit); ok {
				switch v := l.Value.(type) {
				case int:
					return v, true
				case int32:
					return int(v), true
				case int64:
					return int(v), true
				}
			}
			return 0, false
		}
	}
	return 0, false
}

// structIntOr is structInt's value, def where s has no such integer
// field.
func structIntOr(s program.Struct, name string, def int) int {
	if v, ok := structInt(s, name); ok {
		return v
	}
	return def
}

func withInts(s program.Struct, set map[string]int) program.Struct {
	out := program.Struct{Type: s.Type, Fields: slices.Clone(s.Fields)}
	for i, f := range out.Fields {
		if v, ok := set[f.Name]; ok {
			out.Fields[i].Value = program.Lit{Value: v}
		}
	}
	return out
}

// nhwc returns the height and row length (W*C elements) and width of a
// rank-4 tensor of batch 1.
func nhwc(t *model.Tensor) (h, row, w int, ok bool) {
	if len(t.Shape) != 4 || t.Shape[0] != 1 {
		return 0, 0, 0, false
	}
	for _, d := range t.Shape {
		if d <= 0 {
			return 0, 0, 0, false
		}
	}
	return int(t.Shape[1]), int(t.Shape[2] * t.Shape[3]), int(t.Shape[2]), true
}

// isRowView reports whether operator i of p is a view (no code, its
// output in its input's buffer: RESHAPE, SQUEEZE, EXPAND_DIMS) whose rows
// are its input's: both batch-1 NHWC of one type, of the same height and
// elements a row (a RESHAPE of width and channels). Row y of its output
// is row y of its input, the same bytes at the same place: in a group,
// its reader reads its input's line.
func isRowView(p *program.Program, i int) bool {
	if noRowViews || !p.IsView(i) {
		return false
	}
	gop := p.Graph.Ops[i]
	tin, tout := p.Graph.Tensors[gop.Inputs[0]], p.Graph.Tensors[gop.Outputs[0]]
	inH, inRow, _, ok3 := nhwc(tin)
	outH, outRow, _, ok4 := nhwc(tout)
	return ok3 && ok4 && tin.Type == tout.Type && inH == outH && inRow == outRow
}

// noRowViews, set by tests, keeps every view out of groups.
var noRowViews bool

// bandable returns operator i of p as a bandOp, or nil when it cannot run
// in bands: one call of a band kernel, reading tensor input 0 whole and
// writing output 0 whole, NHWC of batch 1.
func bandable(p *program.Program, i int) *bandOp {
	op := p.Ops[i]
	gop := p.Graph.Ops[i]
	if gop.Folded {
		return &bandOp{op: i, folded: true, param: -1, in: -1, out: -1, skip: -1, inBuf: -1, outBuf: -1, skipBuf: -1}
	}
	if gop.Code == model.OpConcatenation {
		return bandableConcat(p, i)
	}
	if isRowView(p, i) {
		return &bandOp{op: i, folded: true, view: true, param: -1, in: -1, out: -1, skip: -1, inBuf: -1, outBuf: -1, skipBuf: -1}
	}
	if len(op.Calls) != 1 || op.Flow != nil || len(gop.Inputs) == 0 || len(gop.Outputs) != 1 || gop.Inputs[0] < 0 {
		return nil
	}
	call := op.Calls[0]
	if _, ok := meanKernels[kernelsig.Func(call.Fn)]; ok {
		return bandableMean(p, i, call)
	}
	kind, bk, ok := callBand(call)
	if !ok {
		return nil
	}
	if kind == bandElems {
		return bandableElems(p, i, call)
	}
	g := p.Graph
	tin, tout := g.Tensors[gop.Inputs[0]], g.Tensors[gop.Outputs[0]]
	if tin.IsConst() {
		return nil
	}
	inBuf, ok1 := p.TensorBuf[gop.Inputs[0]]
	outBuf, ok2 := p.TensorBuf[gop.Outputs[0]]
	if !ok1 || !ok2 || inBuf == outBuf {
		return nil
	}
	b := &bandOp{op: i, call: call, param: -1, in: -1, out: -1, skip: -1, kind: kind, inBuf: inBuf, outBuf: outBuf, inType: tin.Type, outType: tout.Type}
	var ok3, ok4 bool
	b.inH, b.inRow, _, ok3 = nhwc(tin)
	b.outH, b.outRow, b.outW, ok4 = nhwc(tout)
	if !ok3 || !ok4 {
		return nil
	}
	for k, a := range call.Args {
		switch a := a.(type) {
		case program.View:
			if a.Off != 0 || a.Step != 0 {
				return nil
			}
			raw := kind == bandMove || kind == bandMirror // moveStrided and mirrorPadRows take bytes
			switch a.Buf {
			case inBuf:
				if b.in >= 0 || a.Raw != raw || a.Type != tin.Type || a.N != b.inH*b.inRow {
					return nil
				}
				b.in = k
			case outBuf:
				if b.out >= 0 || a.Raw != raw || a.Type != tout.Type || a.N != b.outH*b.outRow {
					return nil
				}
				b.out = k
			}
		case program.Struct:
			if b.param >= 0 {
				return nil
			}
			b.param = k
		}
	}
	if b.in < 0 || b.out < 0 || b.param < 0 && kind != bandUnary {
		return nil
	}
	var s program.Struct
	if b.param >= 0 {
		s = call.Args[b.param].(program.Struct)
	}
	switch kind {
	case bandMove:
		if !b.moveRows(s) {
			return nil
		}
		b.stride, b.pad, b.span = 0, 0, b.inH
		if !noRowMoves && b.moveRowLocal(s) {
			b.stride, b.pad, b.span = 1, 0, 1
		}
	case bandUnary:
		// Element i from element i: the same shape, whatever the
		// element types.
		if !slices.Equal(tin.Shape, tout.Shape) {
			return nil
		}
		b.stride, b.pad, b.span = 1, 0, 1
	case bandPixels:
		px, ok := structInt(s, "pixels")
		if !ok || px != b.outH*b.outW || b.inH != b.outH {
			return nil
		}
		b.stride, b.pad, b.span = 1, 0, 1
	case bandWindow:
		batches, strideH, dil := structIntOr(s, "batches", 1), structIntOr(s, "strideH", 1), structIntOr(s, "dilationH", 1)
		inH, outH, padH := structIntOr(s, "inH", -1), structIntOr(s, "outH", -1), structIntOr(s, "padH", -1)
		fH := bk.FilterH
		if fH == 0 {
			fH = structIntOr(s, "filterH", -1)
		}
		if batches != 1 || inH != b.inH || outH != b.outH || padH < 0 || strideH < 1 || fH < 1 || dil < 1 {
			return nil
		}
		b.stride, b.pad, b.span = strideH, padH, (fH-1)*dil+1
		if b.global = isGlobalPool(call.Fn, s, b); b.global {
			b.chans = b.outRow
		}
	case bandMirror:
		if !b.mirrorRows(s) {
			return nil
		}
	}
	// Every output row must read at least one input row (a band of only
	// padding would be a call on an empty input), but for kernels that
	// write rows of padding themselves.
	for y := 0; y < b.outH && !bk.PadRows; y++ {
		if lo, hi := b.rows(y); hi <= lo {
			return nil
		}
	}
	return b
}

// mirrorRows sets the input rows each output row of a mirrorPadRows call
// reads, from its parameter struct s, and reports whether the call is the
// whole tensors' (row0 and in0 0, inH and outH the tensors' heights).
// Output row y reflects input row i(y); a band of rows [r0, r1) reads the
// rows [mirrorLo[r0], mirrorHi[r1-1]): mirrorLo[y] is the least row any
// output row from y on reflects and mirrorHi[y] one past the greatest any
// row up to y reflects, both never decreasing, as the schedule wants of
// its bands (the top padding's first row reflects the input's row top,
// read again by the rows below it).
func (b *bandOp) mirrorRows(s program.Struct) bool {
	get := func(name string) int { return structIntOr(s, name, -1) }
	imgH, top, offset := get("imgH"), get("top"), get("offset")
	if get("inH") != b.inH || get("outH") != b.outH || get("row0") != 0 || get("in0") != 0 || imgH != b.inH ||
		top < 0 || offset < 0 || offset > 1 || top > imgH-offset {
		return false
	}
	a := imgH - 1 - offset
	reflect := func(y int) int {
		switch {
		case y < top:
			return top + offset - 1 - y
		case y < top+imgH:
			return y - top
		}
		return a - min(y-top-imgH, a)
	}
	b.mirrorLo, b.mirrorHi = make([]int, b.outH), make([]int, b.outH)
	hi := 0
	for y := range b.outH {
		hi = max(hi, reflect(y)+1)
		b.mirrorHi[y] = hi
	}
	lo := b.inH
	for y := b.outH - 1; y >= 0; y-- {
		lo = min(lo, reflect(y))
		b.mirrorLo[y] = lo
	}
	return true
}

// isGlobalPool says whether a band kernel call is an average pool whose
// one output pixel's window covers the whole image: the sums kernels can
// compute it (sumsKernels; the pool's actMin, actMax, fActMin and fActMax
// clamp, its inH and inW count the pixels).
func isGlobalPool(fn string, s program.Struct, b *bandOp) bool {
	switch kernelsig.Func(fn) {
	case kernelsig.AvgPoolInt8, kernelsig.AvgPoolDSPInt8, kernelsig.AvgPoolInt8Blocks, kernelsig.AvgPoolInt8Rows, kernelsig.AvgPoolInt16, kernelsig.AvgPoolF32:
	default:
		return false
	}
	if _, ok := sumsKernels[b.inType]; !ok || b.inType != b.outType || b.outH != 1 || b.outW != 1 {
		return false
	}
	get := func(n string) int { return structIntOr(s, n, -1) }
	inH, inW, padH, padW, fH, fW := get("inH"), get("inW"), get("padH"), get("padW"), get("filterH"), get("filterW")
	return get("depth") == b.outRow && inW*b.outRow == b.inRow && inH == b.inH &&
		padH >= 0 && padW >= 0 && fH-padH >= inH && fW-padW >= inW
}

// moveRows checks that moveStrided's parameters s copy the output in
// rows: the outermost loop that runs more than once writes the whole
// output, row after row, a whole number of iterations a row (the loops
// inside it writing the bytes between), from destination offset 0. It
// records that loop in b.
func (b *bandOp) moveRows(s program.Struct) bool { return b.moveRowsAt(s, false) }

// moveRowsAt is moveRows; with part, the copy may start at a destination
// offset inside the first iteration of the row loop (one input of a
// CONCATENATION: its channels of each pixel, the others' between them).
func (b *bandOp) moveRowsAt(s program.Struct, part bool) bool {
	get := func(n string) (int, bool) { return structInt(s, n) }
	dst, ok := get("dst")
	if !ok || dst < 0 || dst != 0 && !part {
		return false
	}
	for j := 0; j < kernelsig.MoveLoops; j++ {
		n, ok1 := get(fmt.Sprint("n", j))
		d, ok2 := get(fmt.Sprint("d", j))
		sj, ok3 := get(fmt.Sprint("s", j))
		if !ok1 || !ok2 || !ok3 {
			return false
		}
		if n == 1 {
			continue
		}
		rowBytes := b.outRow * b.outType.Size()
		if n%b.outH != 0 || d <= 0 || n*d != b.outH*rowBytes || n/b.outH*d != rowBytes || dst >= d {
			return false
		}
		src, ok := get("src")
		if !ok {
			return false
		}
		b.moveLoop, b.moveK, b.moveSrc, b.moveS = j, n/b.outH, src, sj
		return true
	}
	return false
}

// noRowMoves, set by tests, has every strided copy read its whole input.
var noRowMoves bool

// moveRowLocal reports whether output row y of a strided copy (moveRows)
// reads input row y alone: a TRANSPOSE of width and channels, a SLICE of
// columns or channels. Then its bands read their own rows, and it joins a
// chain anywhere, not only at its start: the row loop steps one input row
// a row, and row 0's reads (moveBandView) end within input row 0.
func (b *bandOp) moveRowLocal(s program.Struct) bool {
	rowBytes := b.inRow * b.inType.Size()
	if b.inH != b.outH || b.moveS <= 0 || b.moveK*b.moveS != rowBytes || b.moveSrc < 0 {
		return false
	}
	base, n, ok := moveBandView(s, b.moveLoop, b.moveK, b.moveS, 0, 1)
	return ok && base == 0 && n <= rowBytes
}

// moveBandView returns the bytes a band of rows [r0, r1) of a strided copy
// reads, as an offset from the source's start and a length: its row loop
// (loop, k iterations a row, stride S bytes) from r0*k on, the loops
// inside it, the run. ok is false where a stride is not positive (the
// band would read below its first row's bytes). Passing the copy a view of
// just these bytes, its source offset unchanged from band to band, lets a
// fused group's bands be one loop.
func moveBandView(s program.Struct, loop, k, S, r0, r1 int) (base, n int, ok bool) {
	src, ok1 := structInt(s, "src")
	run, ok2 := structInt(s, "run")
	below, above, ok3 := moveInner(s, loop)
	if S <= 0 || !ok1 || !ok2 || !ok3 || src < 0 || below < 0 {
		return 0, 0, false
	}
	return r0 * k * S, src + ((r1-r0)*k-1)*S + above + run, true
}

// moveInner returns how far below and above its first byte one iteration
// of a strided copy's loop number loop reaches through the loops inside
// it (each loop's count and stride), ok false where a count or stride is
// missing.
func moveInner(s program.Struct, loop int) (below, above int, ok bool) {
	for j := loop + 1; j < kernelsig.MoveLoops; j++ {
		n, ok1 := structInt(s, fmt.Sprint("n", j))
		sj, ok2 := structInt(s, fmt.Sprint("s", j))
		if !ok1 || !ok2 {
			return 0, 0, false
		}
		below += min(0, (n-1)*sj)
		above += max(0, (n-1)*sj)
	}
	return below, above, true
}

// moveBandSource returns a band [r0, r1) of a strided copy's source (its
// row loop: loop, k iterations a row from offset srcOff, stride S bytes),
// reading from v, a view of the whole source: the source offset and view
// to pass. Where the band's reads are one range from its first row on
// (moveBandView), the view covers just that range and the offset stays
// srcOff, so that band after band only the view moves; otherwise the
// offset moves to the band's first row.
func moveBandSource(s program.Struct, loop, k, srcOff, S, r0, r1 int, v program.View) (int, program.View) {
	size := v.Type.Size()
	base, n, ok := moveBandView(s, loop, k, S, r0, r1)
	if !ok || base%size != 0 {
		return srcOff + r0*k*S, v
	}
	v.Off, v.N = v.Off+base/size, (n+size-1)/size
	return srcOff, v
}

// moveLowest is the lowest input byte a band of a bandMove operator
// reads: the band's iterations of the row loop, every iteration of the
// loops inside it (those outside it run once), at the loops' strides. An
// NCHW input's TRANSPOSE reads row y of every channel plane for output
// row y: the planes' rows below the band are dead, and the group's output
// may be written over the first plane's as the bands go.
func (b *bandOp) moveLowest(ev bandEvent) int {
	below, _, ok := moveInner(b.call.Args[b.param].(program.Struct), b.moveLoop)
	if !ok {
		return 0 // unknown: the whole input, from its first byte
	}
	return max(b.moveSrc+min(ev.r0*b.moveK*b.moveS, (ev.r1*b.moveK-1)*b.moveS)+below, 0)
}

// bandableElems is bandable for a binary elementwise kernel (bandElems):
// its chain operand is the output of operator i-1, its other operand a
// whole activation tensor of another buffer, both of the output's shape
// and type, with no broadcast. The output may share the skip tensor's
// buffer (an in-place operator), not the chain operand's.
func bandableElems(p *program.Program, i int, call program.Call) *bandOp {
	g := p.Graph
	gop := g.Ops[i]
	if i == 0 || len(gop.Inputs) != 2 || len(g.Ops[i-1].Outputs) != 1 || len(call.Args) < 4 {
		return nil
	}
	prev, ok := p.TensorBuf[g.Ops[i-1].Outputs[0]]
	if !ok {
		return nil
	}
	var bufs [2]program.BufID
	for k, t := range gop.Inputs {
		if t < 0 || g.Tensors[t].IsConst() {
			return nil
		}
		if bufs[k], ok = p.TensorBuf[t]; !ok {
			return nil
		}
	}
	chain := slices.Index(bufs[:], prev)
	if chain < 0 || bufs[1-chain] == prev {
		return nil
	}
	tin, tskip, tout := g.Tensors[gop.Inputs[chain]], g.Tensors[gop.Inputs[1-chain]], g.Tensors[gop.Outputs[0]]
	outBuf, ok := p.TensorBuf[gop.Outputs[0]]
	if !ok || outBuf == prev || tin.Type != tout.Type || tskip.Type != tout.Type ||
		!slices.Equal(tin.Shape, tout.Shape) || !slices.Equal(tskip.Shape, tout.Shape) || p.Buffers[bufs[1-chain]].Kind != planner.Activation {
		return nil
	}
	b := &bandOp{op: i, call: call, param: -1, kind: bandElems, inBuf: prev, outBuf: outBuf, inType: tin.Type, outType: tout.Type,
		stride: 1, pad: 0, span: 1, skipBuf: bufs[1-chain]}
	var ok1, ok2 bool
	b.inH, b.inRow, _, ok1 = nhwc(tin)
	b.outH, b.outRow, b.outW, ok2 = nhwc(tout)
	if !ok1 || !ok2 {
		return nil
	}
	// fn(params..., bc, a, b, out): the last three arguments are the
	// operands and the output, whole.
	n := len(call.Args)
	b.in, b.skip, b.out = n-3+chain, n-2-chain, n-1
	views := map[int]program.BufID{b.in: b.inBuf, b.skip: b.skipBuf, b.out: b.outBuf}
	for k, a := range call.Args {
		switch a := a.(type) {
		case program.View:
			buf, mine := views[k]
			if !mine || a.Buf != buf || a.Off != 0 || a.Step != 0 || a.Raw || a.Type != tout.Type || a.N != b.outH*b.outRow {
				return nil
			}
			delete(views, k)
		case program.Struct:
			if a.Type == string(kernelsig.EwBcast) {
				b.param = k
			}
		}
	}
	if len(views) > 0 || b.param < 0 {
		return nil
	}
	// One row of all the elements, no outer dimension: no broadcast.
	s := call.Args[b.param].(program.Struct)
	for name, want := range map[string]int{"inner": b.outH * b.outRow, "aInner": 1, "bInner": 1, "n1": 1, "n2": 1, "n3": 1, "n4": 1, "n5": 1} {
		if v, ok := structInt(s, name); !ok || v != want {
			return nil
		}
	}
	return b
}

// bandEvent is one call of a group's schedule: a band of output rows
// [r0, r1) of chain operator op reading its input rows [lo, hi), or (slide)
// a slide of op's line.
type bandEvent struct {
	op     int
	slide  bool
	r0, r1 int
	lo, hi int
	// inOff, outOff: element offsets of the band's input and output views
	// (in the group's input or a line, in the output or a line).
	inOff, outOff int
	// slide: the line holds rows elements rows..., drop the first from.
	rows, from int
	// skipOff: the element of a residual operator's skip tensor where
	// its band's rows start, in the whole tensor or in the line holding
	// it (bandSchedule.skipFrom; the line's buffer is the tensor's).
	skipOff int
	// partOff: a CONCATENATION's inputs read from lines of the chain
	// (bandSchedule.partFrom), each band's rows from element partOff[p]
	// of its line (-1 for the chain operand and inputs read whole).
	partOff []int
}

// bandSchedule is the demand-driven schedule of a chain.
type bandSchedule struct {
	ops      []*bandOp
	events   []bandEvent
	lineRows []int // rows each intermediate line holds at most
	// shift is the least distance the group's input may start above its
	// output so that no band writes output bytes that a later band still
	// reads as input (inputLow). An operator reading the same elements
	// of its band as it writes (an elementwise one whose skip tensor is
	// the group's input) reads each before it writes it, so its own
	// reads ask no distance of its writes (0: the output may be written
	// over that input in place).
	shift int
	// inFrom[i] is the operator whose line is operator i's row input
	// (i-1 along a chain; an earlier one for a branch, such as a
	// residual block's shortcut convolution), -1 for the group's input.
	// skipFrom[i] is the operator whose line is operator i's skip tensor
	// (a residual block's input, made in the group), -1 where the skip
	// tensor, if any, is read whole. Either makes the group a DAG.
	inFrom, skipFrom []int
	// partFrom[i][p], for a CONCATENATION, is the operator whose line is
	// its input p other than the chain operand (a fire module's
	// expansions), -1 for the chain operand and inputs read whole.
	partFrom [][]int
}

// lineOf returns the operator before operator i of a group (never its
// last) whose output, a line of the group, is buffer b, -1 for none.
func lineOf(ops []*bandOp, i int, b program.BufID) int {
	for j := min(i, len(ops)-1) - 1; j >= 0; j-- {
		if ops[j].outBuf == b {
			return j
		}
	}
	return -1
}

// readLines returns a group's inFrom, skipFrom and partFrom (bandSchedule).
func readLines(ops []*bandOp) (in, skip []int, parts [][]int) {
	in, skip, parts = make([]int, len(ops)), make([]int, len(ops)), make([][]int, len(ops))
	for i, b := range ops {
		in[i], skip[i] = lineOf(ops, i, b.inBuf), -1
		if b.skip >= 0 {
			skip[i] = lineOf(ops, i, b.skipBuf)
		}
		if b.kind != bandConcat {
			continue
		}
		parts[i] = make([]int, len(b.parts))
		for p, pt := range b.parts {
			parts[i][p] = -1
			if !pt.chain {
				parts[i][p] = lineOf(ops, i, pt.buf)
			}
		}
	}
	return in, skip, parts
}

// wholeReads lists the buffers operator i of the group reads whole beside
// its row input: a skip tensor or CONCATENATION input made before the
// group (not one of its lines).
func (s *bandSchedule) wholeReads(i int) []program.BufID {
	b := s.ops[i]
	var out []program.BufID
	if b.skip >= 0 && s.skipFrom[i] < 0 {
		out = append(out, b.skipBuf)
	}
	for p, pt := range b.parts {
		if !pt.chain && s.partFrom[i][p] < 0 {
			out = append(out, pt.buf)
		}
	}
	return out
}

// schedule runs the chain by demand (its events recorded where record is
// set; an estimate needs only the lines' sizes and shift): each output row of the last operator
// in turn, each operator producing the rows the next one's window needs
// (and a residual operator the rows of its skip tensor, where that is a
// line of the chain), then the rows nobody needs (every row is computed,
// as layer by layer). A line keeps each row until its last reader, the
// next operator or a residual one, has read it.
func schedule(ops []*bandOp, record bool) *bandSchedule {
	k := len(ops)
	s := &bandSchedule{ops: ops, lineRows: make([]int, k-1)}
	s.inFrom, s.skipFrom, s.partFrom = readLines(ops)
	// The operators reading each line as their row input (windows) and
	// as their skip tensor (one row a row).
	rowReaders, skipReaders := make([][]int, k), make([][]int, k)
	for i := range ops {
		if j := s.inFrom[i]; j >= 0 {
			rowReaders[j] = append(rowReaders[j], i)
		}
		if j := s.skipFrom[i]; j >= 0 {
			skipReaders[j] = append(skipReaders[j], i)
		}
		for _, j := range s.partFrom[i] {
			if j >= 0 {
				skipReaders[j] = append(skipReaders[j], i)
			}
		}
	}
	if record {
		rows := 0
		for _, b := range ops {
			rows += b.outH
		}
		// At most a band and a slide per row.
		s.events = make([]bandEvent, 0, 2*rows)
	}
	// shift: the end of the output bytes written so far, against
	// the lowest input byte each later band reads.
	wrote := -1
	first, last := ops[0], ops[k-1]
	account := func(ev bandEvent) {
		if lo, ok := s.inputLow(ev, first); ok && wrote >= 0 {
			s.shift = max(s.shift, wrote-lo)
		}
		if ev.op == k-1 {
			wrote = max(wrote, ev.r1*last.outRow*last.outType.Size())
		}
	}
	done := make([]int, k)
	base := make([]int, k) // the first row each line holds
	var ensure func(i, y int)
	ensure = func(i, y int) {
		b := ops[i]
		for done[i] <= y {
			r := done[i]
			lo, hi := b.rows(r)
			if j := s.inFrom[i]; j >= 0 && hi > lo {
				ensure(j, hi-1)
			}
			ev := bandEvent{op: i, r0: r, r1: r + 1, lo: lo, hi: hi}
			// The rows read one row a row from lines: all made first,
			// then their offsets taken.
			if j := s.skipFrom[i]; j >= 0 {
				ensure(j, r)
			}
			for _, j := range s.partFrom[i] {
				if j >= 0 {
					ensure(j, r)
				}
			}
			if j := s.skipFrom[i]; j >= 0 {
				ev.skipOff = (r - base[j]) * ops[j].outRow
			} else {
				ev.skipOff = r * b.outRow
			}
			if s.partFrom[i] != nil {
				ev.partOff = make([]int, len(s.partFrom[i]))
				for p, j := range s.partFrom[i] {
					ev.partOff[p] = -1
					if j >= 0 {
						ev.partOff[p] = (r - base[j]) * ops[j].outRow
					}
				}
			}
			if j := s.inFrom[i]; j < 0 {
				ev.inOff = lo * b.inRow
			} else {
				ev.inOff = (lo - base[j]) * b.inRow
			}
			if i == k-1 {
				ev.outOff = r * b.outRow
			} else {
				// The first row a reader still needs.
				keep := r
				for _, c := range rowReaders[i] {
					if done[c] < ops[c].outH {
						next, _ := ops[c].rows(done[c])
						keep = min(keep, next)
					}
				}
				for _, c := range skipReaders[i] {
					if done[c] < ops[c].outH {
						keep = min(keep, done[c])
					}
				}
				if keep > base[i] {
					if held := done[i] - keep; held > 0 && record {
						s.events = append(s.events, bandEvent{op: i, slide: true, rows: done[i] - base[i], from: keep - base[i]})
					}
					base[i] = keep
				}
				s.lineRows[i] = max(s.lineRows[i], r+1-base[i])
				ev.outOff = (r - base[i]) * b.outRow
			}
			account(ev)
			done[i]++
			if !record {
				continue
			}
			if n := len(s.events); n > 0 {
				if last := &s.events[n-1]; !last.slide && last.op == i && last.r1 == r && last.outOff+(last.r1-last.r0)*b.outRow == ev.outOff &&
					last.skipOff+(last.r1-last.r0)*b.outRow == ev.skipOff && s.partsFollow(i, *last, ev) {
					// The same operator's next row, nothing in between:
					// one band.
					last.r1, last.hi = r+1, hi
					continue
				}
			}
			s.events = append(s.events, ev)
		}
	}
	for y := 0; y < last.outH; y++ {
		ensure(k-1, y)
	}
	for i := k - 2; i >= 0; i-- {
		ensure(i, ops[i].outH-1)
	}
	return s
}

// partsFollow says whether event ev of CONCATENATION i reads each input
// from a line right after last's rows (true for other operators).
func (s *bandSchedule) partsFollow(i int, last, ev bandEvent) bool {
	for p, j := range s.partFrom[i] {
		if j >= 0 && last.partOff[p]+(last.r1-last.r0)*s.ops[j].outRow != ev.partOff[p] {
			return false
		}
	}
	return true
}

// dagReaders returns the operators (their graph indices) reading line j
// where that is not operator j+1 alone, as its row input, nil otherwise.
func (s *bandSchedule) dagReaders(j int) []int {
	var out []int
	for i := range s.ops {
		if s.inFrom[i] == j || s.skipFrom[i] == j || slices.Contains(s.partFrom[i], j) {
			out = append(out, s.ops[i].op)
		}
	}
	if len(out) == 1 && s.inFrom[j+1] == j {
		return nil
	}
	return out
}

// inputLow returns the lowest byte of the group's input a band reads: as
// rows, by an operator whose row input it is (the first, and a branch
// from it such as a shortcut convolution), or as the skip tensor of an
// elementwise operator; ok is false when the band reads none.
func (s *bandSchedule) inputLow(ev bandEvent, first *bandOp) (lo int, ok bool) {
	b := s.ops[ev.op]
	lo = int(^uint(0) >> 1)
	if s.inFrom[ev.op] < 0 && ev.hi > ev.lo {
		ok = true
		lo = ev.lo * b.inRow * b.inType.Size()
		if b.kind == bandMove {
			// Reads the whole input, but its lowest byte only at the
			// band's rows.
			lo = b.moveLowest(ev)
		}
	}
	if b.skip >= 0 && b.skipBuf == first.inBuf {
		ok = true
		lo = min(lo, ev.r0*b.outRow*b.outType.Size())
	}
	return lo, ok
}

// lineBytes is the size of intermediate line j.
func (s *bandSchedule) lineBytes(j int) int {
	b := s.ops[j]
	return s.lineRows[j] * b.outRow * b.outType.Size()
}

// bandCall is the kernel call of a band event, over views of in and out
// (and of the skip tensor's rows, for bandElems).
func (b *bandOp) bandCall(ev bandEvent, in, out program.View) program.Call {
	args := slices.Clone(b.call.Args)
	var inView *program.View // bandMove: the band's bytes of the input
	var s program.Struct
	if b.param >= 0 {
		s = args[b.param].(program.Struct)
	}
	switch b.kind {
	case bandPixels:
		args[b.param] = withInts(s, map[string]int{"pixels": (ev.r1 - ev.r0) * b.outW})
	case bandMove:
		// The band's bytes of the whole input.
		whole := in
		whole.N, whole.Raw = (ev.hi-ev.lo)*b.inRow, true
		// Rows from the view's first, input row ev.lo (0 where every band
		// reads the whole input).
		src, v := moveBandSource(s, b.moveLoop, b.moveK, b.moveSrc, b.moveS, ev.r0-ev.lo, ev.r1-ev.lo, whole)
		inView = &v
		args[b.param] = withInts(s, map[string]int{
			fmt.Sprint("n", b.moveLoop): (ev.r1 - ev.r0) * b.moveK,
			"src":                       src,
		})
	case bandElems:
		n := (ev.r1 - ev.r0) * b.outRow
		args[b.param] = withInts(s, map[string]int{"inner": n})
		args[b.skip] = program.View{Buf: b.skipBuf, Type: b.outType, Off: ev.skipOff, N: n}
	case bandSums:
		// poolSum(acc, in, start): the band's input rows added to the
		// sums, which the group's first band sets.
		in.N, in.Raw = (ev.hi-ev.lo)*b.inRow, false
		k := sumsKernels[b.inType]
		return program.Call{Fn: string(k.sum), Args: []program.Arg{b.sumsView(), in, program.Lit{Value: ev.r0 == 0}}}
	case bandMirror:
		args[b.param] = withInts(s, map[string]int{
			"inH": ev.hi - ev.lo, "outH": ev.r1 - ev.r0,
			"row0": ev.r0, "in0": ev.lo,
		})
	case bandWindow:
		args[b.param] = withInts(s, map[string]int{
			"inH":  ev.hi - ev.lo,
			"outH": ev.r1 - ev.r0,
			"padH": ev.lo - (ev.r0*b.stride - b.pad),
		})
	}
	in.N, out.N = (ev.hi-ev.lo)*b.inRow, (ev.r1-ev.r0)*b.outRow
	// A kernel that takes bytes (bandMove) takes its bands as bytes.
	in.Raw, out.Raw = b.call.Args[b.in].(program.View).Raw, b.call.Args[b.out].(program.View).Raw
	if inView != nil {
		in = *inView
	}
	args[b.in], args[b.out] = in, out
	return program.Call{Fn: b.call.Fn, Args: args}
}

// sumsView is the view of a global pool's sums (bandSums).
func (b *bandOp) sumsView() program.View {
	return program.View{Buf: b.sumsBuf, Type: sumsKernels[b.inType].acc, N: b.sumsBytes() / 4}
}

// meanCall is the call that ends a group whose last operator b runs as
// sums: poolMean(p, sums, out), the pool's own parameters.
func (b *bandOp) meanCall(out program.View) program.Call {
	out.N = b.chans
	fn := sumsKernels[b.inType].mean
	if b.mean {
		fn = meanKernels[kernelsig.Func(b.call.Fn)]
	}
	return program.Call{Fn: string(fn), Args: []program.Arg{b.call.Args[b.param], b.sumsView(), out}}
}

// shareGroupScratch gives the operators of group sp one scratch buffer,
// live through the group: a kernel's scratch holds nothing from one call
// to the next (in the layer-by-layer plan other buffers reuse it between
// calls), and the group's calls run one after another, so one buffer
// serves every call. An operator's own scratch buffers stay apart in it,
// one after another (16-byte aligned); the buffer is the largest
// operator's total. The group's other scratch buffers are left empty and
// the calls' views moved into the shared one.
func shareGroupScratch(q *program.Program, ops []*bandOp, sp fuseSpan) {
	const align = 16
	shared := program.BufID(-1)
	where := map[program.BufID]int{} // scratch buffer -> byte offset in the shared one
	used := map[int]int{}            // operator -> bytes of the shared buffer its scratch takes
	for k := range q.Buffers {
		b := &q.Buffers[k]
		if b.Kind != planner.Scratch || b.Op < sp.first || b.Op > sp.last {
			continue
		}
		if shared < 0 {
			shared = program.BufID(k)
		}
		where[program.BufID(k)] = used[b.Op]
		used[b.Op] += (b.Size + align - 1) / align * align
	}
	if shared < 0 {
		return
	}
	size := 0
	for _, n := range used {
		size = max(size, n)
	}
	for id := range where {
		if id != shared {
			q.Buffers[id].Size = 0
		}
	}
	s := &q.Buffers[shared]
	s.Size, s.First, s.Last = size, sp.first, sp.last
	for _, o := range ops {
		args := slices.Clone(o.call.Args)
		for i, a := range args {
			if v, ok := a.(program.View); ok {
				if off, moved := where[v.Buf]; moved {
					v.Buf, v.Off = shared, v.Off+off/v.Type.Size()
					args[i] = v
				}
			}
		}
		o.call = program.Call{Fn: o.call.Fn, Args: args}
	}
}

// fuseSpan is a chosen group: operators first..last.
type fuseSpan struct{ first, last int }

// fuse returns p with the chosen spans run as fused groups: the
// intermediate tensors' buffers shrink to lines living through the group,
// the output is born and the input lives through the whole group, the
// operators' scratch lives through it too, and the input is tied below
// the output where it dies in the group. p is not modified.
func fuse(p *program.Program, spans []fuseSpan) (*program.Program, error) {
	if len(spans) == 0 {
		return p, nil
	}
	q := *p
	q.Buffers = slices.Clone(p.Buffers)
	q.Ops = slices.Clone(p.Ops)
	q.Groups = nil
	for _, sp := range spans {
		var ops []*bandOp
		for i := sp.first; i <= sp.last; i++ {
			b := bandable(p, i)
			if b == nil {
				return nil, fmt.Errorf("internal error: operator %d cannot run in bands", i)
			}
			ops = append(ops, b)
		}
		ops = chainOps(ops)
		last := ops[len(ops)-1]
		sums := last.kind == bandSums
		s := schedule(ops, true)
		grp := program.Group{First: sp.first, Last: sp.last, In: ops[0].inBuf, Out: ops[len(ops)-1].outBuf, MinShift: -1}
		lines := make([]program.BufID, len(ops)-1)
		for j := range lines {
			id := ops[j].outBuf
			lines[j] = id
			b := &q.Buffers[id]
			b.Size = s.lineBytes(j)
			b.First, b.Last = sp.first, sp.last
			grp.Lines = append(grp.Lines, program.Line{Buf: id, Tensor: p.Graph.Ops[ops[j].op].Outputs[0], Rows: s.lineRows[j], RowBytes: ops[j].outRow * ops[j].outType.Size(), TensorRows: ops[j].outH,
				Readers: s.dagReaders(j)})
		}
		// A group ending in sums writes its output at its end, a few
		// bytes: its input and output stay apart.
		mayTie := !sums && !concatReadsInput(ops) && grp.In != grp.Out && groupMayTie(&q, grp.In, grp.Out, sp) && q.Buffers[grp.In].Tie == nil && !tiedTo(q.Buffers, grp.Out)
		in, out := &q.Buffers[grp.In], &q.Buffers[grp.Out]
		in.Last = max(in.Last, sp.last)
		out.First = min(out.First, sp.first)
		for k, b := range ops {
			// A skip tensor, born before the group (the group's operators
			// write lines, the last its output), lives through it; one
			// made in it is a line the schedule keeps until it is read.
			for _, sb := range s.wholeReads(k) {
				if slices.Contains(lines, sb) {
					return nil, fmt.Errorf("internal error: operator %d reads a line of its group whole", b.op)
				}
				q.Buffers[sb].Last = max(q.Buffers[sb].Last, sp.last)
			}
		}
		if last.mean {
			// Its own sums' scratch is the whole operator's: unused.
			for k := range q.Buffers {
				if b := &q.Buffers[k]; b.Kind == planner.Scratch && b.Op == last.op {
					b.Size = 0
				}
			}
		}
		shareGroupScratch(&q, ops, sp)
		if sums {
			// The sums live through the group, apart from the scratch
			// the calls share.
			last.sumsBuf = program.BufID(len(q.Buffers))
			q.Buffers = append(q.Buffers, program.Buffer{
				Buffer: planner.Buffer{Name: fmt.Sprintf("op%d sums (%s)", last.op, p.Ops[last.op].Code), Size: last.sumsBytes(), First: sp.first, Last: sp.last, Kind: planner.Scratch},
				Reset:  -1, Op: last.op,
			})
			grp.Sums, grp.SumsBuf = true, last.sumsBuf
		}
		if grp.In == grp.Out {
			// The last operator writes its output over its skip tensor,
			// which is the group's input: in place, every write must fall
			// on input no later band reads.
			if shift := s.shift; shift > 0 {
				return nil, fmt.Errorf("internal error: operators %d-%d: the output over the input needs a distance of %d bytes", sp.first, sp.last, shift)
			}
			grp.MinShift = 0
		} else if mayTie {
			shift := s.shift
			if shift+in.Size < in.Size+out.Size {
				in.Tie = &planner.Tie{To: int(grp.Out), Shift: planner.AlignedSize(shift, 0)}
				grp.MinShift = shift
			}
		}
		var steps []program.Step
		for _, ev := range s.events {
			b := ops[ev.op]
			if ev.slide {
				// The rows still needed move down to the line's start
				// (slideDown: the destination below the source, overlapping).
				kept := (ev.rows - ev.from) * b.outRow
				steps = append(steps, program.Step{Op: b.op, Call: program.Call{Fn: string(kernelsig.SlideDown), Args: []program.Arg{
					program.View{Buf: lines[ev.op], Type: b.outType, N: kept, Raw: true},
					program.View{Buf: lines[ev.op], Type: b.outType, Off: ev.from * b.outRow, N: kept, Raw: true},
				}}})
				continue
			}
			inV := program.View{Buf: grp.In, Type: b.inType, Off: ev.inOff}
			if j := s.inFrom[ev.op]; j >= 0 {
				inV.Buf = lines[j]
			}
			outV := program.View{Buf: grp.Out, Type: b.outType, Off: ev.outOff}
			if ev.op < len(ops)-1 {
				outV.Buf = lines[ev.op]
			}
			calls := []program.Call{}
			if b.kind == bandConcat {
				calls = b.concatCalls(ev, inV, outV)
			} else {
				calls = append(calls, b.bandCall(ev, inV, outV))
			}
			for _, c := range calls {
				steps = append(steps, program.Step{Op: b.op, Call: c,
					Rows: program.RowRange{Lo: ev.r0, Hi: ev.r1}, InRows: program.RowRange{Lo: ev.lo, Hi: ev.hi}})
			}
		}
		if sums {
			// The output, row 0, from the sums of every input row.
			steps = append(steps, program.Step{Op: last.op, Call: last.meanCall(program.View{Buf: grp.Out, Type: last.outType}), Rows: program.RowRange{Lo: 0, Hi: 1}})
		}
		compress(&grp, steps, sp.last)
		if got := grp.Expand(); !reflect.DeepEqual(got, steps) {
			return nil, fmt.Errorf("internal error: operators %d-%d: the loop of the fused group does not give its schedule back", sp.first, sp.last)
		}
		for i := sp.first; i <= sp.last; i++ {
			q.Ops[i].Calls = nil
		}
		q.Groups = append(q.Groups, grp)
	}
	return &q, nil
}

// concatReadsInput says whether a CONCATENATION of the chain ops reads
// the group's input whole (DenseNet's concatenation of a block's input
// with its output): the group's output is then not written over it.
func concatReadsInput(ops []*bandOp) bool {
	for _, b := range ops {
		for _, pt := range b.parts {
			if !pt.chain && pt.buf == ops[0].inBuf {
				return true
			}
		}
	}
	return false
}

// groupMayTie says whether group sp may write its output over its input:
// both activations, the input dying in the group (read by no later
// operator: in the group, only its first operator and elementwise
// operators whose skip tensor it is read it, and the schedule's shift counts both)
// and not a graph output, the output born in the group.
func groupMayTie(p *program.Program, in, out program.BufID, sp fuseSpan) bool {
	ib, ob := p.Buffers[in], p.Buffers[out]
	return ib.Last >= sp.first && ib.Last <= sp.last && ob.First >= sp.first && ib.Kind == planner.Activation && ob.Kind == planner.Activation && !p.IsGraphOutput(in)
}

func tiedTo(bufs []program.Buffer, to program.BufID) bool {
	for _, b := range bufs {
		if b.Tie != nil && b.Tie.To == int(to) {
			return true
		}
	}
	return false
}

// compress writes steps as the group's Pre, loop and Post: the steps are
// cut into segments, each ending with a band of the last operator, and the
// longest run of segments that are the same calls with every view offset
// moving by the same amount from one segment to the next becomes the loop.
func compress(grp *program.Group, steps []program.Step, lastOp int) {
	var segs [][]program.Step
	start := 0
	for i, s := range steps {
		// A band of the last operator ends a segment, at its last call
		// (a CONCATENATION makes one an input).
		if s.Op == lastOp && s.Rows.Hi > s.Rows.Lo && (i+1 == len(steps) || steps[i+1].Op != lastOp || steps[i+1].Rows != s.Rows) {
			segs = append(segs, steps[start:i+1])
			start = i + 1
		}
	}
	tail := steps[start:]
	bestAt, bestLen := 0, 1
	for t0 := 0; t0+1 < len(segs); t0++ {
		d, ok := segDelta(segs[t0], segs[t0+1])
		if !ok {
			continue
		}
		n := 2
		for t0+n < len(segs) {
			d2, ok := segDelta(segs[t0+n-1], segs[t0+n])
			if !ok || !slices.Equal(d, d2) {
				break
			}
			n++
		}
		if n > bestLen {
			bestAt, bestLen = t0, n
		}
	}
	if bestLen < 2 {
		grp.Pre = slices.Clone(steps)
		return
	}
	for _, s := range segs[:bestAt] {
		grp.Pre = append(grp.Pre, s...)
	}
	d, _ := segDelta(segs[bestAt], segs[bestAt+1])
	k := 0
	for _, s := range segs[bestAt] {
		c := program.Call{Fn: s.Call.Fn, Args: slices.Clone(s.Call.Args)}
		s.Rows.Step, s.InRows.Step = d[k], d[k+1]
		k += 2
		for i, a := range c.Args {
			if v, ok := a.(program.View); ok {
				v.Step = d[k]
				k++
				c.Args[i] = v
			}
		}
		grp.Body = append(grp.Body, program.Step{Op: s.Op, Call: c, Rows: s.Rows, InRows: s.InRows})
	}
	grp.Iter = bestLen
	for _, s := range segs[bestAt+bestLen:] {
		grp.Post = append(grp.Post, s...)
	}
	grp.Post = append(grp.Post, tail...)
}

// segDelta returns, for two segments of the same calls, how far each view
// moved from a to b; ok is false when they differ otherwise.
func segDelta(a, b []program.Step) ([]int, bool) {
	if len(a) != len(b) {
		return nil, false
	}
	var d []int
	for i := range a {
		ca, cb := a[i].Call, b[i].Call
		if a[i].Op != b[i].Op || ca.Fn != cb.Fn || len(ca.Args) != len(cb.Args) {
			return nil, false
		}
		ra, rb, ia, ib := a[i].Rows, b[i].Rows, a[i].InRows, b[i].InRows
		if rb.Hi-rb.Lo != ra.Hi-ra.Lo || ib.Hi-ib.Lo != ia.Hi-ia.Lo {
			return nil, false
		}
		d = append(d, rb.Lo-ra.Lo, ib.Lo-ia.Lo)
		for k := range ca.Args {
			va, okA := ca.Args[k].(program.View)
			vb, okB := cb.Args[k].(program.View)
			if okA != okB {
				return nil, false
			}
			if okA {
				if va.Buf != vb.Buf || va.Type != vb.Type || va.N != vb.N || va.Raw != vb.Raw {
					return nil, false
				}
				d = append(d, vb.Off-va.Off)
				continue
			}
			if !reflect.DeepEqual(ca.Args[k], cb.Args[k]) {
				return nil, false
			}
		}
	}
	return d, true
}
