package lower

import (
	"fmt"
	"slices"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// Reshuffling data movement: SPLIT_V, DEPTH_TO_SPACE, SPACE_TO_DEPTH,
// BATCH_TO_SPACE_ND, SPACE_TO_BATCH_ND and REVERSE_V2 move whole elements
// to places known at generation time, so each becomes one or more strided
// copies (moveStrided, kernels/slice.go) planned by newMovePlan. None of
// them looks at quantization: like TFLM they copy raw elements, whatever
// the scales and zero points. DYNAMIC_UPDATE_SLICE, whose start indices
// are run-time data, is here too (kernels/reshuffle.go).

func init() {
	register(model.OpSplitV, lowerSplitV, ownBuffer)
	register(model.OpDepthToSpace, lowerDepthToSpace, ownBuffer)
	register(model.OpSpaceToDepth, lowerSpaceToDepth, ownBuffer)
	register(model.OpBatchToSpaceNd, lowerBatchToSpaceNd, ownBuffer)
	register(model.OpSpaceToBatchNd, lowerSpaceToBatchNd, ownBuffer)
	register(model.OpReverseV2, lowerReverseV2, ownBuffer)
	register(model.OpDynamicUpdateSlice, lowerDynamicUpdateSlice, ownBuffer)
}

// reshuffleType checks that t has one of the element types an operator
// accepts (TFLM's kernel switch) and names them otherwise.
func reshuffleType(c *opCtx, t *model.Tensor, ok ...model.DType) error {
	for _, dt := range ok {
		if t.Type == dt {
			return nil
		}
	}
	return c.Errorf("type %s is not supported (TFLM supports %v)", t.Type, ok)
}

// lowerSplitV lowers SPLIT_V (data, size_splits, axis) as TFLM's
// split_v.cc: the axis must be a constant int32; the output shapes say how
// the input is cut, as in TFLM's Eval (which never reads size_splits). A
// constant size_splits (one entry may be -1) must agree with them.
func lowerSplitV(c *opCtx) error {
	if c.NumIn() != 3 || c.NumOut() < 1 {
		return c.Errorf("has %d inputs and %d outputs, want 3 and at least 1", c.NumIn(), c.NumOut())
	}
	in := c.In(0)
	if in == nil {
		return c.Errorf("input 0 is missing")
	}
	if err := reshuffleType(c, in, model.Float32, model.Int8, model.Int16, model.Int32); err != nil {
		return err
	}
	av, err := moveConstInts(c.In(2), false)
	if err != nil {
		return c.Errorf("axis: %v", err)
	}
	if len(av) < 1 {
		return c.Errorf("axis has no value")
	}
	if av[0] < -int64(len(in.Shape)) || av[0] >= int64(len(in.Shape)) {
		return c.Errorf("axis %d out of range for %d dimensions", av[0], len(in.Shape))
	}
	axis, err := shapeAxis(c, int32(av[0]), len(in.Shape))
	if err != nil {
		return err
	}
	n := c.NumOut()
	sum := 0
	for i := range n {
		out := c.Out(i)
		if out.Type != in.Type {
			return c.Errorf("output %d type %s differs from input type %s", i, out.Type, in.Type)
		}
		if len(out.Shape) != len(in.Shape) {
			return c.Errorf("output %d shape %v and input shape %v differ in rank", i, out.Shape, in.Shape)
		}
		for j := range in.Shape {
			if j != axis && out.Shape[j] != in.Shape[j] {
				return c.Errorf("output %d shape %v does not match input shape %v off axis %d", i, out.Shape, in.Shape, axis)
			}
		}
		sum += out.Shape[axis]
	}
	if sum != in.Shape[axis] {
		return c.Errorf("outputs add up to %d along axis %d, input has %d", sum, axis, in.Shape[axis])
	}
	if ss := c.In(1); ss != nil && ss.IsConst() {
		sizes, err := moveConstInts(ss, true)
		if err != nil {
			return c.Errorf("size_splits: %v", err)
		}
		if err := splitVSizesAgree(sizes, in.Shape[axis], c, axis); err != nil {
			return c.Errorf("size_splits %v: %v", sizes, err)
		}
	}
	outer := shapeProd(in.Shape[:axis])
	inner := shapeProd(in.Shape[axis+1:])
	row := in.Shape[axis] * inner
	off := 0
	for i := range n {
		out := c.Out(i)
		chunk := out.Shape[axis] * inner
		if err := emitMove(c, in, out, []int{outer, chunk}, []int{row, 1}, []int{chunk, 1}, off, 0); err != nil {
			return err
		}
		off += chunk
	}
	return nil
}

// splitVSizesAgree checks constant size_splits against the outputs' sizes
// along the axis, resolving one -1 entry from the dimension's size.
func splitVSizesAgree(sizes []int64, dim int, c *opCtx, axis int) error {
	if len(sizes) != c.NumOut() {
		return fmt.Errorf("has %d entries for %d outputs", len(sizes), c.NumOut())
	}
	free, known := -1, int64(0)
	for i, s := range sizes {
		switch {
		case s == -1 && free < 0:
			free = i
		case s < 0:
			return fmt.Errorf("entry %d is %d", i, s)
		default:
			known += s
		}
	}
	for i, s := range sizes {
		if i == free {
			s = int64(dim) - known
		}
		if s != int64(c.Out(i).Shape[axis]) {
			return fmt.Errorf("output %d has %d along axis %d", i, c.Out(i).Shape[axis], axis)
		}
	}
	return nil
}

// blockSize reads the block_size option of DEPTH_TO_SPACE and
// SPACE_TO_DEPTH, which must be positive (TFLM divides by it).
func blockSize(c *opCtx) (int, error) {
	o := c.Op.Options()
	if !o.Present() {
		return 0, c.Errorf("options are missing (block_size)")
	}
	var bs int32
	if c.Op.Code == model.OpDepthToSpace {
		bs = o.DepthToSpace().BlockSize
	} else {
		bs = o.SpaceToDepth().BlockSize
	}
	if err := o.Err(); err != nil {
		return 0, c.Errorf("%v", err)
	}
	if bs <= 0 {
		return 0, c.Errorf("block_size %d, want > 0", bs)
	}
	return int(bs), nil
}

// depthSpaceIO checks the one 4-D input and output of DEPTH_TO_SPACE and
// SPACE_TO_DEPTH, float32 or int8 as TFLM's Prepare requires.
func depthSpaceIO(c *opCtx) (in, out *model.Tensor, err error) {
	in, out, err = moveIO(c, 1, 1)
	if err != nil {
		return nil, nil, err
	}
	if err := reshuffleType(c, in, model.Float32, model.Int8); err != nil {
		return nil, nil, err
	}
	if len(in.Shape) != 4 {
		return nil, nil, c.Errorf("input has %d dimensions, want 4", len(in.Shape))
	}
	return in, out, nil
}

// lowerDepthToSpace lowers DEPTH_TO_SPACE: output[b, h*bs+i, w*bs+j, d] =
// input[b, h, w, (i*bs+j)*D + d], a six-dimensional transpose of the input
// seen as [B, H, W, bs, bs, D]. TFLM's Prepare sets the output shape
// itself; a model whose output shape differs is refused.
func lowerDepthToSpace(c *opCtx) error {
	in, out, err := depthSpaceIO(c)
	if err != nil {
		return err
	}
	bs, err := blockSize(c)
	if err != nil {
		return err
	}
	b, h, w, ch := in.Shape[0], in.Shape[1], in.Shape[2], in.Shape[3]
	d := ch / bs / bs
	if d*bs*bs != ch {
		return c.Errorf("input depth %d is not a multiple of block_size² (%d)", ch, bs*bs)
	}
	want := []int{b, h * bs, w * bs, d}
	if !moveSameShape(out.Shape, want) {
		return c.Errorf("output shape %v, want %v", out.Shape, want)
	}
	ow := w * bs
	count := []int{b, h, bs, w, bs, d}
	src := []int{h * w * ch, w * ch, bs * d, ch, d, 1}
	dst := []int{h * bs * ow * d, bs * ow * d, ow * d, bs * d, d, 1}
	return emitMove(c, in, out, count, src, dst, 0, 0)
}

// lowerSpaceToDepth lowers SPACE_TO_DEPTH, the inverse of DEPTH_TO_SPACE:
// output[b, h, w, (i*bs+j)*D + d] = input[b, h*bs+i, w*bs+j, d]. As for
// DEPTH_TO_SPACE the output shape must be the one TFLM's Prepare sets.
func lowerSpaceToDepth(c *opCtx) error {
	in, out, err := depthSpaceIO(c)
	if err != nil {
		return err
	}
	bs, err := blockSize(c)
	if err != nil {
		return err
	}
	b, h, w, d := in.Shape[0], in.Shape[1], in.Shape[2], in.Shape[3]
	oh, ow := h/bs, w/bs
	if oh*bs != h || ow*bs != w {
		return c.Errorf("input height %d and width %d are not multiples of block_size %d", h, w, bs)
	}
	od := d * bs * bs
	want := []int{b, oh, ow, od}
	if !moveSameShape(out.Shape, want) {
		return c.Errorf("output shape %v, want %v", out.Shape, want)
	}
	count := []int{b, oh, ow, bs, bs, d}
	src := []int{h * w * d, bs * w * d, bs * d, w * d, d, 1}
	dst := []int{oh * ow * od, ow * od, od, bs * d, d, 1}
	return emitMove(c, in, out, count, src, dst, 0, 0)
}

// batchSpace is the geometry of BATCH_TO_SPACE_ND and SPACE_TO_BATCH_ND as
// TFLM's reference kernels see it: 3-D tensors [N, H, C] are [N, H, 1, C],
// and only the first two spatial dimensions exist.
type batchSpace struct {
	bh, bw    int    // block shape
	top, left int    // crops or paddings before H and W
	in, out   [4]int // input and output as N, H, W, C
	rank      int
}

// batchSpaceParams reads and checks the inputs of BATCH_TO_SPACE_ND and
// SPACE_TO_BATCH_ND: a 3-D or 4-D float32 or int8 input and output (TFLM's
// Prepare), constant int32 block_shape [M] and crops/paddings [M, 2] with
// M = rank - 2. It returns the geometry and the (before, after) amounts.
func batchSpaceParams(c *opCtx, what string) (g batchSpace, amounts [][2]int, err error) {
	in, out, err := moveIO(c, 3, 1)
	if err != nil {
		return g, nil, err
	}
	if err := reshuffleType(c, in, model.Float32, model.Int8); err != nil {
		return g, nil, err
	}
	if len(in.Shape) < 3 || len(in.Shape) > 4 || len(out.Shape) != len(in.Shape) {
		return g, nil, c.Errorf("input shape %v and output shape %v: both must have 3 or 4 dimensions, the same", in.Shape, out.Shape)
	}
	m := len(in.Shape) - 2
	block, err := moveConstInts(c.In(1), false)
	if err != nil {
		return g, nil, c.Errorf("block_shape: %v", err)
	}
	if len(block) != m || len(c.In(1).Shape) != 1 {
		return g, nil, c.Errorf("block_shape has shape %v, want [%d]", c.In(1).Shape, m)
	}
	pv, err := moveConstInts(c.In(2), false)
	if err != nil {
		return g, nil, c.Errorf("%s: %v", what, err)
	}
	if len(pv) != 2*m || len(c.In(2).Shape) != 2 {
		return g, nil, c.Errorf("%s has shape %v, want [%d, 2]", what, c.In(2).Shape, m)
	}
	for i := range m {
		if block[i] < 1 {
			return g, nil, c.Errorf("block_shape %v: entries must be at least 1", block)
		}
		if pv[2*i] < 0 || pv[2*i+1] < 0 {
			return g, nil, c.Errorf("%s %v: entries must not be negative", what, pv)
		}
		amounts = append(amounts, [2]int{int(pv[2*i]), int(pv[2*i+1])})
	}
	ext := func(s []int) [4]int {
		if len(s) == 3 {
			return [4]int{s[0], s[1], 1, s[2]}
		}
		return [4]int{s[0], s[1], s[2], s[3]}
	}
	g = batchSpace{bh: int(block[0]), bw: 1, top: amounts[0][0], in: ext(in.Shape), out: ext(out.Shape), rank: len(in.Shape)}
	if m == 2 {
		g.bw, g.left = int(block[1]), amounts[1][0]
	} else {
		amounts = append(amounts, [2]int{0, 0})
	}
	return g, amounts, nil
}

// ceilDiv is ⌈a/b⌉ for b > 0 and any a.
func ceilDiv(a, b int) int {
	if a <= 0 {
		return -(-a / b)
	}
	return (a + b - 1) / b
}

// floorDiv is ⌊a/b⌋ for b > 0 and any a.
func floorDiv(a, b int) int {
	if a >= 0 {
		return a / b
	}
	return -((-a + b - 1) / b)
}

// blockRange returns the first k and the count of k in [0, n) for which
// k*step + shift lies in [0, limit).
func blockRange(n, step, shift, limit int) (first, count int) {
	first = max(0, ceilDiv(-shift, step))
	last := min(n-1, floorDiv(limit-1-shift, step))
	return first, max(0, last-first+1)
}

// lowerBatchToSpaceNd lowers BATCH_TO_SPACE_ND as TFLM's reference kernel:
// input batch s*N + n, s = sh*bw + sw, holds the output positions
// (h*bh + sh - crop_top, w*bw + sw - crop_left) of output batch n, cropped
// to the output. That is one strided copy per block offset (sh, sw). The
// output shape must be the one TFLite derives (TFLM's Prepare does not
// check it).
func lowerBatchToSpaceNd(c *opCtx) error {
	g, crops, err := batchSpaceParams(c, "crops")
	if err != nil {
		return err
	}
	in, out := c.In(0), c.Out(0)
	blocks := g.bh * g.bw
	if g.in[0]%blocks != 0 {
		return c.Errorf("input batch %d is not a multiple of the block size %d", g.in[0], blocks)
	}
	want := [4]int{g.in[0] / blocks, g.in[1]*g.bh - crops[0][0] - crops[0][1], g.in[2]*g.bw - crops[1][0] - crops[1][1], g.in[3]}
	if want[1] < 0 || want[2] < 0 || want != g.out {
		return c.Errorf("output shape %v, want %v (as N, H, W, C) for block %dx%d and crops %v", out.Shape, want, g.bh, g.bw, crops)
	}
	n, ih, iw, d := g.in[0]/blocks, g.in[1], g.in[2], g.in[3]
	oh, ow := g.out[1], g.out[2]
	for s := range blocks {
		sh, sw := s/g.bw, s%g.bw
		h0, nh := blockRange(ih, g.bh, sh-g.top, oh)
		w0, nw := blockRange(iw, g.bw, sw-g.left, ow)
		if nh == 0 || nw == 0 {
			continue
		}
		srcOff := ((s*n*ih+h0)*iw + w0) * d
		dstOff := ((h0*g.bh+sh-g.top)*ow + (w0*g.bw + sw - g.left)) * d
		count := []int{n, nh, nw, d}
		src := []int{ih * iw * d, iw * d, d, 1}
		dst := []int{oh * ow * d, g.bh * ow * d, g.bw * d, 1}
		if err := emitMove(c, in, out, count, src, dst, srcOff, dstOff); err != nil {
			return err
		}
	}
	return nil
}

// lowerSpaceToBatchNd lowers SPACE_TO_BATCH_ND as TFLM's reference kernel:
// output batch s*N + n, s = sh*bw + sw, takes input positions
// (h*bh + sh - pad_top, w*bw + sw - pad_left) of batch n, and the padding
// outside the input is zero bytes. (TFLM pads with the output_offset of a
// parameter block it never sets, zero in its zeroed arena; so int8 pads
// with 0, not with the zero point.) The output is cleared first when
// there is padding, then one strided copy per block offset fills it.
func lowerSpaceToBatchNd(c *opCtx) error {
	g, pads, err := batchSpaceParams(c, "paddings")
	if err != nil {
		return err
	}
	in, out := c.In(0), c.Out(0)
	blocks := g.bh * g.bw
	ph, pw := g.in[1]+pads[0][0]+pads[0][1], g.in[2]+pads[1][0]+pads[1][1]
	if ph%g.bh != 0 || pw%g.bw != 0 {
		return c.Errorf("padded height %d and width %d are not multiples of the block %dx%d", ph, pw, g.bh, g.bw)
	}
	want := [4]int{g.in[0] * blocks, ph / g.bh, pw / g.bw, g.in[3]}
	if want != g.out {
		return c.Errorf("output shape %v, want %v (as N, H, W, C) for block %dx%d and paddings %v", out.Shape, want, g.bh, g.bw, pads)
	}
	n, ih, iw, d := g.in[0], g.in[1], g.in[2], g.in[3]
	oh, ow := g.out[1], g.out[2]
	if out.NumElements() == 0 {
		return nil
	}
	padded := false
	for _, p := range pads {
		padded = padded || p[0] > 0 || p[1] > 0
	}
	if padded {
		emitZero(c, out)
	}
	for s := range blocks {
		sh, sw := s/g.bw, s%g.bw
		h0, nh := blockRange(oh, g.bh, sh-g.top, ih)
		w0, nw := blockRange(ow, g.bw, sw-g.left, iw)
		if nh == 0 || nw == 0 || n == 0 {
			continue
		}
		srcOff := ((h0*g.bh+sh-g.top)*iw + (w0*g.bw + sw - g.left)) * d
		dstOff := ((s*n*oh+h0)*ow + w0) * d
		count := []int{n, nh, nw, d}
		src := []int{ih * iw * d, g.bh * iw * d, g.bw * d, 1}
		dst := []int{oh * ow * d, ow * d, d, 1}
		if err := emitMove(c, in, out, count, src, dst, srcOff, dstOff); err != nil {
			return err
		}
	}
	return nil
}

// emitZero clears out: one strided copy of a small constant of zero bytes
// (source stride 0) over the whole tensor.
func emitZero(c *opCtx, out *model.Tensor) {
	total := out.Bytes()
	run := total
	for _, r := range []int{256, 64, 16, 4, 1} {
		if total%r == 0 && total >= r {
			run = r
			break
		}
	}
	p := movePlan{run: run}
	for i := range p.n {
		p.n[i] = 1
	}
	p.n[kernelsig.MoveLoops-1] = total / run
	p.d[kernelsig.MoveLoops-1] = run
	c.Call(kernelsig.MoveStridedConst, p.arg(), Bytes(out), c.Const("Zero", make([]byte, run)))
}

// lowerReverseV2 lowers REVERSE_V2 with a constant int32 axis list as
// TFLM's reverse.cc: up to 6-D, every element type it has; the axes
// (negative ones counted from the end) must be distinct and contiguous
// once sorted, as TFLM's Eval requires. The copy walks the reversed
// dimensions with negative strides.
func lowerReverseV2(c *opCtx) error {
	in, out, err := moveIO(c, 2, 1)
	if err != nil {
		return err
	}
	if err := reshuffleType(c, in, model.Float32, model.Int8, model.Uint8, model.Int16, model.Int32, model.Int64, model.Bool); err != nil {
		return err
	}
	rank := len(in.Shape)
	if rank > 6 {
		return c.Errorf("input has %d dimensions, at most 6 are supported (as TFLM)", rank)
	}
	if !moveSameShape(in.Shape, out.Shape) {
		return c.Errorf("output shape %v differs from input shape %v", out.Shape, in.Shape)
	}
	at := c.In(1)
	if at == nil || len(at.Shape) != 1 {
		return c.Errorf("axis must be 1-D")
	}
	axes, err := moveConstInts(at, false)
	if err != nil {
		return c.Errorf("axis: %v", err)
	}
	if len(axes) == 0 || len(axes) > rank {
		return c.Errorf("axis has %d entries for a %d-D input, want 1 to %d", len(axes), rank, rank)
	}
	rev := make([]bool, rank)
	lo, hi := rank, -1
	for _, a := range axes {
		k := a
		if k < 0 {
			k += int64(rank)
		}
		if k < 0 || k >= int64(rank) {
			return c.Errorf("axis %d out of range for %d dimensions", a, rank)
		}
		if rev[k] {
			return c.Errorf("axes %v are not contiguous (TFLM requires distinct, contiguous axes)", axes)
		}
		rev[k] = true
		lo, hi = min(lo, int(k)), max(hi, int(k))
	}
	if hi-lo+1 != len(axes) {
		return c.Errorf("axes %v are not contiguous (TFLM requires distinct, contiguous axes)", axes)
	}
	st := moveStrides(in.Shape)
	src := make([]int, rank)
	off := 0
	for i := range st {
		src[i] = st[i]
		if rev[i] {
			src[i] = -st[i]
			off += (in.Shape[i] - 1) * st[i]
		}
	}
	return emitMove(c, in, out, in.Shape, src, st, off, 0)
}

// lowerDynamicUpdateSlice lowers DYNAMIC_UPDATE_SLICE (operand, update,
// start indices) as TFLM's dynamic_update_slice.cc: float32, int8, int16
// or int32, update of the operand's rank and no larger in any dimension,
// int32 or int64 start indices, one per dimension, each clamped into
// [0, operand dim - update dim] (TFLM clamps them too). The output is the
// operand copied, then the update written over it: at a place fixed at
// generation time when the indices are constant, else by dusI32/dusI64.
// dusInPlace says which DYNAMIC_UPDATE_SLICEs of g may write their update
// over their operand instead of copying the operand first: an activation
// tensor that no other operator reads, not the graph's input, output or a
// variable, made by a PAD or PADV2 (whose output has a buffer of its own,
// never a view of another tensor) or by a DYNAMIC_UPDATE_SLICE that writes
// in place too (the column strips of gen/strips join their results so).
// One pass over the graph.
func dusInPlace(g *model.Graph) map[*model.Op]bool {
	reads := make([]int, len(g.Tensors))
	maker := make([]*model.Op, len(g.Tensors))
	for _, op := range g.Ops {
		for _, t := range op.Inputs {
			if t >= 0 && t < len(reads) {
				reads[t]++
			}
		}
		for _, t := range op.Outputs {
			if t >= 0 && t < len(maker) {
				maker[t] = op
			}
		}
	}
	ok := map[*model.Op]bool{}
	for _, op := range g.Ops {
		if op.Code != model.OpDynamicUpdateSlice || len(op.Inputs) < 2 {
			continue
		}
		t := op.Inputs[0]
		if t < 0 || t >= len(reads) || reads[t] != 1 || op.Inputs[1] == t || g.Tensors[t].IsConst() || g.Tensors[t].IsVariable ||
			slices.Contains(g.Inputs, t) || slices.Contains(g.Outputs, t) {
			continue
		}
		m := maker[t]
		ok[op] = m != nil && len(m.Outputs) == 1 && (m.Code == model.OpPad || m.Code == model.OpPadv2 || m.Code == model.OpDynamicUpdateSlice && ok[m])
	}
	return ok
}

// dusInPlace is the package-level dusInPlace of g, computed once.
func (st *lowerState) dusInPlace(g *model.Graph, op *model.Op) bool {
	if st.dus == nil {
		st.dus = map[*model.Graph]map[*model.Op]bool{}
	}
	m, ok := st.dus[g]
	if !ok {
		m = dusInPlace(g)
		st.dus[g] = m
	}
	return m[op]
}

func lowerDynamicUpdateSlice(c *opCtx) error {
	in, out, err := moveIO(c, 3, 1)
	if err != nil {
		return err
	}
	if err := reshuffleType(c, in, model.Float32, model.Int8, model.Int16, model.Int32); err != nil {
		return err
	}
	upd, idx := c.In(1), c.In(2)
	if upd == nil || idx == nil {
		return c.Errorf("update or start indices are missing")
	}
	if upd.Type != in.Type {
		return c.Errorf("update type %s differs from operand type %s", upd.Type, in.Type)
	}
	rank := len(in.Shape)
	if rank < 1 || rank > 6 {
		return c.Errorf("operand has %d dimensions, want 1 to 6", rank)
	}
	if !moveSameShape(in.Shape, out.Shape) {
		return c.Errorf("output shape %v differs from operand shape %v", out.Shape, in.Shape)
	}
	if idx.Type != model.Int32 && idx.Type != model.Int64 {
		return c.Errorf("start indices have type %s, want int32 or int64", idx.Type)
	}
	if len(idx.Shape) != 1 || idx.Shape[0] != rank {
		return c.Errorf("start indices have shape %v, want [%d]", idx.Shape, rank)
	}
	if len(upd.Shape) != rank {
		return c.Errorf("update shape %v and operand shape %v differ in rank", upd.Shape, in.Shape)
	}
	lim := make([]int, rank)
	for i := range rank {
		if upd.Shape[i] > in.Shape[i] {
			return c.Errorf("update shape %v is larger than operand shape %v", upd.Shape, in.Shape)
		}
		lim[i] = in.Shape[i] - upd.Shape[i]
	}
	st := moveStrides(in.Shape)
	if moveSameShape(upd.Shape, in.Shape) {
		// TFLM copies the update whatever the indices (all clamp to 0).
		return emitMove(c, upd, out, upd.Shape, moveStrides(upd.Shape), st, 0, 0)
	}
	if c.st != nil && c.st.dusInPlace(c.G, c.Op) {
		// The output takes over the operand's memory: only the update
		// is written.
		c.Alias(0, 0)
	} else if err := emitMove(c, in, out, in.Shape, st, st, 0, 0); err != nil {
		return err
	}
	if upd.NumElements() == 0 {
		return nil
	}
	if idx.IsConst() {
		start, err := moveConstInts(idx, true)
		if err != nil {
			return c.Errorf("start indices: %v", err)
		}
		off := 0
		for i, v := range start {
			off += int(min(max(v, 0), int64(lim[i]))) * st[i]
		}
		return emitMove(c, upd, out, upd.Shape, moveStrides(upd.Shape), st, 0, off)
	}
	p, empty, err := newMovePlan(in.Type.Size(), upd.Shape, moveStrides(upd.Shape), st, 0, 0)
	if err != nil {
		return c.Errorf("%v", err)
	}
	if empty {
		return nil
	}
	// The update at the largest start indices is the farthest it can reach.
	far := 0
	for i := range rank {
		far += lim[i] * st[i]
	}
	q := p
	q.dst += far * in.Type.Size()
	if err := q.check(upd.Bytes(), out.Bytes()); err != nil {
		return c.Errorf("internal error: %v", err)
	}
	f := []Field{F("rank", Int(rank))}
	for i := range 6 {
		l := 0
		if i < rank {
			l = lim[i]
		}
		f = append(f, F(fmt.Sprintf("lim%d", i), Int(l)))
	}
	for i := range 6 {
		s := 0
		if i < rank {
			s = st[i] * in.Type.Size()
		}
		f = append(f, F(fmt.Sprintf("st%d", i), Int(s)))
	}
	f = append(f, F("move", p.arg()))
	args := Struct(kernelsig.DusParams, f...)
	switch {
	case idx.Type == model.Int32 && upd.IsConst():
		c.Call(kernelsig.DusI32Const, args, Bytes(out), Str(upd), View(idx))
	case idx.Type == model.Int32:
		c.Call(kernelsig.DusI32, args, Bytes(out), Bytes(upd), View(idx))
	case upd.IsConst():
		c.Call(kernelsig.DusI64Const, args, Bytes(out), Str(upd), View(idx))
	default:
		c.Call(kernelsig.DusI64, args, Bytes(out), Bytes(upd), View(idx))
	}
	return nil
}
