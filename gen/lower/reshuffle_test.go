package lower

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/devtools/oracle"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// reshuffleVals draws n values of type dt; bool as 0 and 1.
func reshuffleVals(r *rand.Rand, dt model.DType, n int) difftest.Vals {
	if dt == model.Bool {
		v := difftest.Vals{DT: dt}
		for range n {
			v.Ints = append(v.Ints, int64(r.IntN(2)))
		}
		return v
	}
	if dt == model.Int64 {
		v := difftest.Vals{DT: dt}
		for range n {
			v.Ints = append(v.Ints, int64(r.Uint64()))
		}
		return v
	}
	return difftest.RandVals(r, dt, n)
}

// i32Vals and i64Vals encode index values as constant data.
func i32Vals(v []int64) difftest.Vals { return difftest.Vals{DT: model.Int32, Ints: v} }
func i64Vals(v []int64) difftest.Vals { return difftest.Vals{DT: model.Int64, Ints: v} }

// reshuffleIn adds the data input of a case: a graph input of random
// values (randQuant for int8/int16), returning its tensor and quantization.
func reshuffleIn(r *rand.Rand, m *builder.Model, c *diffCase, dt model.DType, shape []int) (int, *builder.Quant) {
	q := difftest.RandQuant(r, dt)
	t := m.Tensor("in", dt, shape, q)
	c.inputs = append(c.inputs, reshuffleVals(r, dt, shapeProd(shape)))
	return t, q
}

// reshuffleOutQ is the output quantization: the input's, or one time in
// four another one (TFLM checks none of these operators' scales).
func reshuffleOutQ(r *rand.Rand, dt model.DType, q *builder.Quant) *builder.Quant {
	if r.IntN(4) == 0 {
		return difftest.RandQuant(r, dt)
	}
	return q
}

func randSplitV(r *rand.Rand, dt model.DType) diffCase {
	rank := 1 + r.IntN(5)
	shape := randDims(r, rank, 3)
	axis := r.IntN(rank)
	shape[axis] = 1 + r.IntN(8)
	n := 1 + r.IntN(min(4, shape[axis]))
	// n positive sizes adding up to shape[axis].
	sizes := make([]int64, n)
	for i := range sizes {
		sizes[i] = 1
	}
	for k := n; k < shape[axis]; k++ {
		sizes[r.IntN(n)]++
	}
	ss := append([]int64{}, sizes...)
	if r.IntN(2) == 0 {
		ss[r.IntN(n)] = -1
	}
	axisOpt := axis
	if r.IntN(2) == 0 {
		axisOpt -= rank
	}
	c := diffCase{outDT: dt, desc: fmt.Sprintf("SPLIT_V %s %v axis %d size_splits %v", dt, shape, axisOpt, ss)}
	m := builder.New("split_v differential case")
	ti, q := reshuffleIn(r, m, &c, dt, shape)
	var ts int
	if r.IntN(4) == 0 {
		ts = i64Vals(ss).ConstTensor(m, "size_splits", []int{n}, nil)
	} else {
		ts = i32Vals(ss).ConstTensor(m, "size_splits", []int{n}, nil)
	}
	ashape := []int{1}
	if r.IntN(2) == 0 {
		ashape = []int{}
	}
	ta := i32Vals([]int64{int64(axisOpt)}).ConstTensor(m, "axis", ashape, nil)
	var outs []int
	for i := range n {
		os := append([]int{}, shape...)
		os[axis] = int(sizes[i])
		outs = append(outs, m.Tensor(fmt.Sprintf("out%d", i), dt, os, reshuffleOutQ(r, dt, q)))
	}
	m.Op(model.OpSplitV, []int{ti, ts, ta}, outs, &builder.Options{Type: model.UnionSplitVOptions, Fields: []builder.Field{builder.Int(model.SplitVOptionsNumSplits, n)}})
	m.IO([]int{ti}, outs)
	c.model = m.Bytes()
	return c
}

func randDepthToSpace(r *rand.Rand, dt model.DType) diffCase {
	b, h, w, bs, d := 1+r.IntN(2), 1+r.IntN(3), 1+r.IntN(3), 1+r.IntN(3), 1+r.IntN(3)
	in := []int{b, h, w, d * bs * bs}
	out := []int{b, h * bs, w * bs, d}
	c := diffCase{outDT: dt, desc: fmt.Sprintf("DEPTH_TO_SPACE %s %v block %d", dt, in, bs)}
	m := builder.New("depth_to_space differential case")
	ti, q := reshuffleIn(r, m, &c, dt, in)
	to := m.Tensor("out", dt, out, reshuffleOutQ(r, dt, q))
	m.Op(model.OpDepthToSpace, []int{ti}, []int{to}, &builder.Options{Type: model.UnionDepthToSpaceOptions, Fields: []builder.Field{builder.Int(model.DepthToSpaceOptionsBlockSize, bs)}})
	m.IO([]int{ti}, []int{to})
	c.model = m.Bytes()
	return c
}

func randSpaceToDepth(r *rand.Rand, dt model.DType) diffCase {
	b, h, w, bs, d := 1+r.IntN(2), 1+r.IntN(3), 1+r.IntN(3), 1+r.IntN(3), 1+r.IntN(3)
	in := []int{b, h * bs, w * bs, d}
	out := []int{b, h, w, d * bs * bs}
	c := diffCase{outDT: dt, desc: fmt.Sprintf("SPACE_TO_DEPTH %s %v block %d", dt, in, bs)}
	m := builder.New("space_to_depth differential case")
	ti, q := reshuffleIn(r, m, &c, dt, in)
	to := m.Tensor("out", dt, out, reshuffleOutQ(r, dt, q))
	m.Op(model.OpSpaceToDepth, []int{ti}, []int{to}, &builder.Options{Type: model.UnionSpaceToDepthOptions, Fields: []builder.Field{builder.Int(model.SpaceToDepthOptionsBlockSize, bs)}})
	m.IO([]int{ti}, []int{to})
	c.model = m.Bytes()
	return c
}

// batchSpaceShape returns an N, H, W, C shape as a rank-3 or rank-4 shape.
func batchSpaceShape(rank int, s [4]int) []int {
	if rank == 3 {
		return []int{s[0], s[1], s[3]}
	}
	return s[:]
}

func randBatchToSpace(r *rand.Rand, dt model.DType) diffCase {
	rank := 3 + r.IntN(2)
	bh, bw := 1+r.IntN(3), 1
	if rank == 4 {
		bw = 1 + r.IntN(3)
	}
	n, ih, iw, d := 1+r.IntN(2), 1+r.IntN(3), 1+r.IntN(3), 1+r.IntN(3)
	if rank == 3 {
		iw = 1
	}
	crop := func(full int) (int, int) {
		t := r.IntN(full) // leave at least one row
		a := r.IntN(t + 1)
		return a, t - a
	}
	ct, cb := crop(ih * bh)
	cl, cr := 0, 0
	if rank == 4 {
		cl, cr = crop(iw * bw)
	}
	in := [4]int{n * bh * bw, ih, iw, d}
	out := [4]int{n, ih*bh - ct - cb, iw*bw - cl - cr, d}
	block, crops := []int64{int64(bh)}, []int64{int64(ct), int64(cb)}
	if rank == 4 {
		block, crops = append(block, int64(bw)), append(crops, int64(cl), int64(cr))
	}
	c := diffCase{outDT: dt, desc: fmt.Sprintf("BATCH_TO_SPACE_ND %s %v block %v crops %v", dt, batchSpaceShape(rank, in), block, crops)}
	m := builder.New("batch_to_space_nd differential case")
	ti, q := reshuffleIn(r, m, &c, dt, batchSpaceShape(rank, in))
	tb := i32Vals(block).ConstTensor(m, "block", []int{rank - 2}, nil)
	tc := i32Vals(crops).ConstTensor(m, "crops", []int{rank - 2, 2}, nil)
	to := m.Tensor("out", dt, batchSpaceShape(rank, out), reshuffleOutQ(r, dt, q))
	m.Op(model.OpBatchToSpaceNd, []int{ti, tb, tc}, []int{to}, nil)
	m.IO([]int{ti}, []int{to})
	c.model = m.Bytes()
	return c
}

func randSpaceToBatch(r *rand.Rand, dt model.DType) diffCase {
	rank := 3 + r.IntN(2)
	bh, bw := 1+r.IntN(3), 1
	if rank == 4 {
		bw = 1 + r.IntN(3)
	}
	n, ih, iw, d := 1+r.IntN(2), 1+r.IntN(4), 1+r.IntN(4), 1+r.IntN(3)
	if rank == 3 {
		iw = 1
	}
	pad := func(size, block int) (int, int) {
		a := r.IntN(3)
		b := (block - (size+a)%block) % block
		if r.IntN(3) == 0 {
			b += block
		}
		return a, b
	}
	pt, pb := pad(ih, bh)
	pl, pr := 0, 0
	if rank == 4 {
		pl, pr = pad(iw, bw)
	}
	in := [4]int{n, ih, iw, d}
	out := [4]int{n * bh * bw, (ih + pt + pb) / bh, (iw + pl + pr) / bw, d}
	block, pads := []int64{int64(bh)}, []int64{int64(pt), int64(pb)}
	if rank == 4 {
		block, pads = append(block, int64(bw)), append(pads, int64(pl), int64(pr))
	}
	c := diffCase{outDT: dt, desc: fmt.Sprintf("SPACE_TO_BATCH_ND %s %v block %v paddings %v", dt, batchSpaceShape(rank, in), block, pads)}
	m := builder.New("space_to_batch_nd differential case")
	ti, q := reshuffleIn(r, m, &c, dt, batchSpaceShape(rank, in))
	tb := i32Vals(block).ConstTensor(m, "block", []int{rank - 2}, nil)
	tp := i32Vals(pads).ConstTensor(m, "paddings", []int{rank - 2, 2}, nil)
	to := m.Tensor("out", dt, batchSpaceShape(rank, out), reshuffleOutQ(r, dt, q))
	m.Op(model.OpSpaceToBatchNd, []int{ti, tb, tp}, []int{to}, nil)
	m.IO([]int{ti}, []int{to})
	c.model = m.Bytes()
	return c
}

func randMirrorPad(r *rand.Rand, dt model.DType) diffCase {
	rank := 1 + r.IntN(5)
	shape := randDims(r, rank, 4)
	mode := r.IntN(2)
	offset := 1 - mode
	var pads []int64
	out := make([]int, rank)
	for i, n := range shape {
		l, rt := 0, 0
		if r.IntN(3) > 0 {
			l, rt = r.IntN(n-offset+1), r.IntN(n-offset+1)
			if r.IntN(6) == 0 {
				rt = n + r.IntN(3) // past what TFLite allows: TFLM repeats element 0
			}
		}
		pads = append(pads, int64(l), int64(rt))
		out[i] = n + l + rt
	}
	c := diffCase{outDT: dt, desc: fmt.Sprintf("MIRROR_PAD %s %v mode %d paddings %v", dt, shape, mode, pads)}
	m := builder.New("mirror_pad differential case")
	ti, q := reshuffleIn(r, m, &c, dt, shape)
	var tp int
	if r.IntN(3) == 0 {
		tp = i64Vals(pads).ConstTensor(m, "paddings", []int{rank, 2}, nil)
	} else {
		tp = i32Vals(pads).ConstTensor(m, "paddings", []int{rank, 2}, nil)
	}
	to := m.Tensor("out", dt, out, reshuffleOutQ(r, dt, q))
	m.Op(model.OpMirrorPad, []int{ti, tp}, []int{to}, &builder.Options{Type: model.UnionMirrorPadOptions, Fields: []builder.Field{builder.Byte(model.MirrorPadOptionsMode, mode)}})
	m.IO([]int{ti}, []int{to})
	c.model = m.Bytes()
	return c
}

func randReverse(r *rand.Rand, dt model.DType) diffCase {
	rank := 1 + r.IntN(6)
	shape := randDims(r, rank, 3)
	lo := r.IntN(rank)
	hi := lo + r.IntN(rank-lo)
	var axes []int64
	for a := lo; a <= hi; a++ {
		v := int64(a)
		if r.IntN(2) == 0 {
			v -= int64(rank)
		}
		axes = append(axes, v)
	}
	r.Shuffle(len(axes), func(i, j int) { axes[i], axes[j] = axes[j], axes[i] })
	c := diffCase{outDT: dt, desc: fmt.Sprintf("REVERSE_V2 %s %v axes %v", dt, shape, axes)}
	m := builder.New("reverse_v2 differential case")
	ti, q := reshuffleIn(r, m, &c, dt, shape)
	ta := i32Vals(axes).ConstTensor(m, "axes", []int{len(axes)}, nil)
	to := m.Tensor("out", dt, shape, q)
	m.Op(model.OpReverseV2, []int{ti, ta}, []int{to}, nil)
	m.IO([]int{ti}, []int{to})
	c.model = m.Bytes()
	return c
}

// randDynamicUpdateSlice: start indices are a graph input (in range, or one
// case in two anywhere in int32, which TFLM and the kernels clamp) or, one
// case in four, a constant.
func randDynamicUpdateSlice(r *rand.Rand, dt, idxDT model.DType) diffCase {
	rank := 1 + r.IntN(5)
	shape := randDims(r, rank, 4)
	upd := make([]int, rank)
	for i, n := range shape {
		upd[i] = 1 + r.IntN(n)
	}
	if r.IntN(10) == 0 {
		copy(upd, shape)
	}
	start := make([]int64, rank)
	wild := r.IntN(2) == 0
	for i := range start {
		start[i] = int64(r.IntN(shape[i] - upd[i] + 1))
		if wild {
			switch r.IntN(4) {
			case 0:
				start[i] = -1 - r.Int64N(5)
			case 1:
				start[i] = int64(shape[i]) + r.Int64N(3)
			case 2:
				start[i] = int64(int32(r.Uint32()))
			}
		}
	}
	c := diffCase{outDT: dt, desc: fmt.Sprintf("DYNAMIC_UPDATE_SLICE %s %v update %v start %s %v", dt, shape, upd, idxDT, start)}
	m := builder.New("dynamic_update_slice differential case")
	q := difftest.RandQuant(r, dt)
	var ins []int
	constOperand := r.IntN(5) == 0
	to := addInput(m, &c, &ins, "operand", shape, q, reshuffleVals(r, dt, shapeProd(shape)), constOperand)
	tu := addInput(m, &c, &ins, "update", upd, q, reshuffleVals(r, dt, shapeProd(upd)), !constOperand && r.IntN(5) == 0)
	iv := difftest.Vals{DT: idxDT, Ints: start}
	ti := addInput(m, &c, &ins, "start", []int{rank}, nil, iv, len(ins) > 0 && r.IntN(4) == 0)
	tout := m.Tensor("out", dt, shape, q)
	m.Op(model.OpDynamicUpdateSlice, []int{to, tu, ti}, []int{tout}, nil)
	m.IO(ins, []int{tout})
	c.model = m.Bytes()
	return c
}

// runReshuffleCases is runDiffCases comparing every output (SPLIT_V has
// several), with no refusal allowed.
func runReshuffleCases(t *testing.T, o *oracle.Oracle, n diffN, r *rand.Rand, gen func(r *rand.Rand) diffCase) {
	t.Helper()
	runDiffCasesWith(t, o, n, r, gen, nil, func(c diffCase, got [][]byte, want [][]string) error {
		if len(got) != len(want) {
			return fmt.Errorf("%d outputs, TFLM has %d", len(got), len(want))
		}
		for k := range got {
			if err := difftest.CompareRaw(c.outDT, got[k], want[k]); err != nil {
				return fmt.Errorf("output %d: %v", k, err)
			}
		}
		return nil
	})
}

// TestReshuffleMatchesTFLM: random models of every operator of
// reshuffle.go and mirror_pad.go and every type TFLM runs them with,
// through TFLM and in-process, compared bit for bit.
func TestReshuffleMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	type gen = func(r *rand.Rand) diffCase
	var cases []struct {
		name string
		gen  gen
	}
	add := func(op string, f func(r *rand.Rand, dt model.DType) diffCase, dts ...model.DType) {
		for _, dt := range dts {
			cases = append(cases, struct {
				name string
				gen  gen
			}{fmt.Sprintf("%s_%s", op, dt), func(r *rand.Rand) diffCase { return f(r, dt) }})
		}
	}
	add("SPLIT_V", randSplitV, model.Float32, model.Int8, model.Int16, model.Int32)
	add("DEPTH_TO_SPACE", randDepthToSpace, model.Float32, model.Int8)
	add("SPACE_TO_DEPTH", randSpaceToDepth, model.Float32, model.Int8)
	add("BATCH_TO_SPACE_ND", randBatchToSpace, model.Float32, model.Int8)
	add("SPACE_TO_BATCH_ND", randSpaceToBatch, model.Float32, model.Int8)
	add("MIRROR_PAD", randMirrorPad, model.Float32, model.Int8)
	add("REVERSE_V2", randReverse, model.Float32, model.Int8, model.Uint8, model.Int16, model.Int32, model.Int64, model.Bool)
	for _, idx := range []model.DType{model.Int32, model.Int64} {
		add("DYNAMIC_UPDATE_SLICE", func(r *rand.Rand, dt model.DType) diffCase { return randDynamicUpdateSlice(r, dt, idx) },
			model.Float32, model.Int8, model.Int16, model.Int32)
		for i := len(cases) - 4; i < len(cases); i++ {
			cases[i].name += "_" + idx.String()
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			seed := uint64(0)
			for _, b := range tc.name {
				seed = seed*31 + uint64(b)
			}
			r := rand.New(rand.NewPCG(seed, 17))
			runReshuffleCases(t, o, diffN{20, 200}, r, tc.gen)
		})
	}
}

// reshuffleModel builds a one-operator model whose first input is a graph
// input of the given type and shape and whose other inputs are constants.
func reshuffleModel(code model.OpCode, opts *builder.Options, dt model.DType, shape []int, consts []shapeT, outs []shapeT) diffCase {
	m := builder.New("reshuffle refusal case")
	in := m.Tensor("in", dt, shape, shapeQ(dt))
	ins, gin := []int{in}, []int{in}
	vals := []difftest.Vals{{DT: dt, Ints: make([]int64, shapeProd(shape)), Flts: make([]float32, shapeProd(shape))}}
	for i, k := range consts {
		if k.data == nil {
			t := m.Tensor(fmt.Sprintf("in%d", i+1), k.dt, k.shape, nil)
			ins, gin = append(ins, t), append(gin, t)
			vals = append(vals, difftest.Vals{DT: k.dt, Ints: make([]int64, shapeProd(k.shape))})
			continue
		}
		ins = append(ins, m.Const(fmt.Sprintf("c%d", i), k.dt, k.shape, nil, k.data))
	}
	var out []int
	for i, o := range outs {
		out = append(out, m.Tensor(fmt.Sprintf("out%d", i), o.dt, o.shape, shapeQ(o.dt)))
	}
	m.Op(code, ins, out, opts)
	m.IO(gin, out)
	return diffCase{model: m.Bytes(), inputs: vals}
}

// TestReshuffleRefusedAsTFLM: types and structures TFLM's Prepare or Eval
// rejects are refused, naming the operator.
func TestReshuffleRefusedAsTFLM(t *testing.T) {
	o := oracle.New(t)
	i32 := func(shape []int, v ...int32) shapeT {
		return shapeT{dt: model.Int32, shape: shape, data: shapeI32(v...)}
	}
	i64 := func(shape []int, v ...int64) shapeT {
		f := make([]float64, len(v))
		for i, x := range v {
			f[i] = float64(x)
		}
		return shapeT{dt: model.Int64, shape: shape, data: shapeVals(model.Int64, f)}
	}
	out := func(dt model.DType, shape ...int) shapeT { return shapeT{dt: dt, shape: shape} }
	splitV := &builder.Options{Type: model.UnionSplitVOptions, Fields: []builder.Field{builder.Int(model.SplitVOptionsNumSplits, 2)}}
	d2s := func(bs int) *builder.Options {
		return &builder.Options{Type: model.UnionDepthToSpaceOptions, Fields: []builder.Field{builder.Int(model.DepthToSpaceOptionsBlockSize, bs)}}
	}
	s2d := func(bs int) *builder.Options {
		return &builder.Options{Type: model.UnionSpaceToDepthOptions, Fields: []builder.Field{builder.Int(model.SpaceToDepthOptionsBlockSize, bs)}}
	}
	mirror := &builder.Options{Type: model.UnionMirrorPadOptions, Fields: []builder.Field{builder.Byte(model.MirrorPadOptionsMode, mirrorPadReflect)}}
	for _, tc := range []struct {
		desc string
		c    diffCase
		code model.OpCode
		want string
	}{
		{"SPLIT_V int64", reshuffleModel(model.OpSplitV, splitV, model.Int64, []int{4},
			[]shapeT{i32([]int{2}, 1, 3), i32([]int{1}, 0)}, []shapeT{out(model.Int64, 1), out(model.Int64, 3)}), model.OpSplitV, "not supported"},
		{"SPLIT_V run-time axis", reshuffleModel(model.OpSplitV, splitV, model.Float32, []int{4},
			[]shapeT{i32([]int{2}, 1, 3), {dt: model.Int32, shape: []int{1}}}, []shapeT{out(model.Float32, 1), out(model.Float32, 3)}), model.OpSplitV, "not constant"},
		{"DEPTH_TO_SPACE int16", reshuffleModel(model.OpDepthToSpace, d2s(2), model.Int16, []int{1, 1, 1, 4}, nil,
			[]shapeT{out(model.Int16, 1, 2, 2, 1)}), model.OpDepthToSpace, "not supported"},
		{"DEPTH_TO_SPACE block 0", reshuffleModel(model.OpDepthToSpace, d2s(0), model.Float32, []int{1, 1, 1, 4}, nil,
			[]shapeT{out(model.Float32, 1, 1, 1, 4)}), model.OpDepthToSpace, "block_size"},
		{"DEPTH_TO_SPACE 3-D", reshuffleModel(model.OpDepthToSpace, d2s(2), model.Int8, []int{1, 1, 4}, nil,
			[]shapeT{out(model.Int8, 2, 2, 1)}), model.OpDepthToSpace, "want 4"},
		{"DEPTH_TO_SPACE depth 3 block 2", reshuffleModel(model.OpDepthToSpace, d2s(2), model.Int8, []int{1, 1, 1, 3}, nil,
			[]shapeT{out(model.Int8, 1, 2, 2, 1)}), model.OpDepthToSpace, "multiple"},
		{"SPACE_TO_DEPTH int32", reshuffleModel(model.OpSpaceToDepth, s2d(2), model.Int32, []int{1, 2, 2, 1}, nil,
			[]shapeT{out(model.Int32, 1, 1, 1, 4)}), model.OpSpaceToDepth, "not supported"},
		{"SPACE_TO_DEPTH height 3 block 2", reshuffleModel(model.OpSpaceToDepth, s2d(2), model.Int8, []int{1, 3, 2, 1}, nil,
			[]shapeT{out(model.Int8, 1, 1, 1, 4)}), model.OpSpaceToDepth, "multiples"},
		{"BATCH_TO_SPACE_ND int16", reshuffleModel(model.OpBatchToSpaceNd, nil, model.Int16, []int{4, 1, 1, 1},
			[]shapeT{i32([]int{2}, 2, 2), i32([]int{2, 2}, 0, 0, 0, 0)}, []shapeT{out(model.Int16, 1, 2, 2, 1)}), model.OpBatchToSpaceNd, "not supported"},
		{"BATCH_TO_SPACE_ND 2-D", reshuffleModel(model.OpBatchToSpaceNd, nil, model.Float32, []int{4, 1},
			[]shapeT{i32([]int{1}, 2), i32([]int{1, 2}, 0, 0)}, []shapeT{out(model.Float32, 2, 2)}), model.OpBatchToSpaceNd, "3 or 4"},
		{"SPACE_TO_BATCH_ND int32", reshuffleModel(model.OpSpaceToBatchNd, nil, model.Int32, []int{1, 2, 2, 1},
			[]shapeT{i32([]int{2}, 2, 2), i32([]int{2, 2}, 0, 0, 0, 0)}, []shapeT{out(model.Int32, 4, 1, 1, 1)}), model.OpSpaceToBatchNd, "not supported"},
		{"SPACE_TO_BATCH_ND 5-D", reshuffleModel(model.OpSpaceToBatchNd, nil, model.Int8, []int{1, 2, 2, 1, 1},
			[]shapeT{i32([]int{3}, 2, 2, 1), i32([]int{3, 2}, 0, 0, 0, 0, 0, 0)}, []shapeT{out(model.Int8, 4, 1, 1, 1, 1)}), model.OpSpaceToBatchNd, "3 or 4"},
		{"MIRROR_PAD int16", reshuffleModel(model.OpMirrorPad, mirror, model.Int16, []int{3},
			[]shapeT{i32([]int{1, 2}, 1, 1)}, []shapeT{out(model.Int16, 5)}), model.OpMirrorPad, "not supported"},
		{"MIRROR_PAD 1-D paddings", reshuffleModel(model.OpMirrorPad, mirror, model.Float32, []int{3},
			[]shapeT{i32([]int{2}, 1, 1)}, []shapeT{out(model.Float32, 5)}), model.OpMirrorPad, "shape [1, 2]"},
		{"REVERSE_V2 non-contiguous axes", reshuffleModel(model.OpReverseV2, nil, model.Float32, []int{2, 2, 2},
			[]shapeT{i32([]int{2}, 0, 2)}, []shapeT{out(model.Float32, 2, 2, 2)}), model.OpReverseV2, "contiguous"},
		{"REVERSE_V2 repeated axis", reshuffleModel(model.OpReverseV2, nil, model.Int8, []int{2, 2},
			[]shapeT{i32([]int{2}, 1, -1)}, []shapeT{out(model.Int8, 2, 2)}), model.OpReverseV2, "contiguous"},
		{"REVERSE_V2 int64 axis", reshuffleModel(model.OpReverseV2, nil, model.Int8, []int{2, 2},
			[]shapeT{i64([]int{1}, 1)}, []shapeT{out(model.Int8, 2, 2)}), model.OpReverseV2, "want int32"},
		{"REVERSE_V2 axis out of range", reshuffleModel(model.OpReverseV2, nil, model.Int16, []int{2, 2},
			[]shapeT{i32([]int{1}, 2)}, []shapeT{out(model.Int16, 2, 2)}), model.OpReverseV2, "out of range"},
		{"DYNAMIC_UPDATE_SLICE int64", reshuffleModel(model.OpDynamicUpdateSlice, nil, model.Int64, []int{3},
			[]shapeT{i64([]int{1}, 5), i32([]int{1}, 0)}, []shapeT{out(model.Int64, 3)}), model.OpDynamicUpdateSlice, "not supported"},
		{"DYNAMIC_UPDATE_SLICE update too large", reshuffleModel(model.OpDynamicUpdateSlice, nil, model.Int32, []int{2, 2},
			[]shapeT{i32([]int{1, 3}, 1, 2, 3), i32([]int{2}, 0, 0)}, []shapeT{out(model.Int32, 2, 2)}), model.OpDynamicUpdateSlice, "larger"},
		{"DYNAMIC_UPDATE_SLICE rank mismatch", reshuffleModel(model.OpDynamicUpdateSlice, nil, model.Int32, []int{2, 2},
			[]shapeT{i32([]int{2}, 1, 2), i32([]int{2}, 0, 0)}, []shapeT{out(model.Int32, 2, 2)}), model.OpDynamicUpdateSlice, "rank"},
		{"DYNAMIC_UPDATE_SLICE short indices", reshuffleModel(model.OpDynamicUpdateSlice, nil, model.Int8, []int{2, 2},
			[]shapeT{{dt: model.Int8, shape: []int{1, 1}, data: []byte{7}}, i32([]int{1}, 0)}, []shapeT{out(model.Int8, 2, 2)}), model.OpDynamicUpdateSlice, "start indices have shape"},
	} {
		tc.c.desc = tc.desc
		checkRefusedAsTFLM(t, o, tc.c, tc.code, tc.want)
	}
}

// reshuffleGolden runs a one-operator model in-process on float32 or int8
// inputs and compares output 0 with a golden list.
func reshuffleGolden(t *testing.T, name string, dt model.DType, data []byte, in, golden []float64) {
	t.Helper()
	got, err := inProcess(data, shapeVals(dt, in))
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	if want := shapeVals(dt, golden); string(got[0]) != string(want) {
		t.Errorf("%s %s: got % x, want % x", name, dt, got[0], want)
	}
}

// TestReshuffleTFLMGoldens ports the cases of TFLM's mirror_pad_test.cc
// (shapes written as there: rank first), depth_to_space_test.cc,
// space_to_batch_nd_test.cc and batch_to_space_nd_test.cc, in float32 and
// int8 (scale 1, zero point 0, as the int8 variants there).
func TestReshuffleTFLMGoldens(t *testing.T) {
	mirror := []struct {
		name          string
		mode          int
		in, out       []int
		pads          []int32
		input, golden []float64
	}{
		{"EmptyPad", mirrorPadReflect, []int{2, 2, 3}, []int{2, 2, 3}, []int32{0, 0, 0, 0}, []float64{1, 2, 3, 4, 5, 6}, []float64{1, 2, 3, 4, 5, 6}},
		{"PadOneSide_right_Reflect", mirrorPadReflect, []int{2, 2, 3}, []int{2, 3, 4}, []int32{0, 1, 0, 1}, []float64{1, 2, 3, 4, 5, 6}, []float64{1, 2, 3, 2, 4, 5, 6, 5, 1, 2, 3, 2}},
		{"PadOneSide_left_Reflect", mirrorPadReflect, []int{2, 2, 3}, []int{2, 3, 4}, []int32{1, 0, 1, 0}, []float64{1, 2, 3, 4, 5, 6}, []float64{5, 4, 5, 6, 2, 1, 2, 3, 5, 4, 5, 6}},
		{"PadOneSide_right_Symmetric", mirrorPadSymmetric, []int{2, 2, 3}, []int{2, 3, 4}, []int32{0, 1, 0, 1}, []float64{1, 2, 3, 4, 5, 6}, []float64{1, 2, 3, 3, 4, 5, 6, 6, 4, 5, 6, 6}},
		{"PadOneSide_left_Symmetric", mirrorPadSymmetric, []int{2, 2, 3}, []int{2, 3, 4}, []int32{1, 0, 1, 0}, []float64{1, 2, 3, 4, 5, 6}, []float64{1, 1, 2, 3, 1, 1, 2, 3, 4, 4, 5, 6}},
		{"PadBothSides_Symmetric", mirrorPadSymmetric, []int{2, 2, 3}, []int{2, 4, 5}, []int32{1, 1, 1, 1}, []float64{1, 2, 3, 4, 5, 6}, []float64{1, 1, 2, 3, 3, 1, 1, 2, 3, 3, 4, 4, 5, 6, 6, 4, 4, 5, 6, 6}},
		{"PadBothSides_Reflect", mirrorPadReflect, []int{2, 2, 3}, []int{2, 4, 5}, []int32{1, 1, 1, 1}, []float64{1, 2, 3, 4, 5, 6}, []float64{5, 4, 5, 6, 5, 2, 1, 2, 3, 2, 5, 4, 5, 6, 5, 2, 1, 2, 3, 2}},
		{"PadBothSides_Symmetric_Whole", mirrorPadSymmetric, []int{2, 2, 3}, []int{2, 6, 9}, []int32{2, 2, 3, 3}, []float64{1, 2, 3, 4, 5, 6}, []float64{6, 5, 4, 4, 5, 6, 6, 5, 4, 3, 2, 1, 1, 2, 3, 3, 2, 1, 3, 2, 1, 1, 2, 3, 3, 2, 1, 6, 5, 4, 4, 5, 6, 6, 5, 4, 6, 5, 4, 4, 5, 6, 6, 5, 4, 3, 2, 1, 1, 2, 3, 3, 2, 1}},
		{"PadBothSides_Reflect_Whole", mirrorPadReflect, []int{2, 2, 3}, []int{2, 4, 7}, []int32{1, 1, 2, 2}, []float64{1, 2, 3, 4, 5, 6}, []float64{6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1, 6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1}},
		{"Pad_Symmetric", mirrorPadSymmetric, []int{2, 2, 3}, []int{2, 4, 7}, []int32{1, 1, 2, 2}, []float64{1, 2, 3, 4, 5, 6}, []float64{2, 1, 1, 2, 3, 3, 2, 2, 1, 1, 2, 3, 3, 2, 5, 4, 4, 5, 6, 6, 5, 5, 4, 4, 5, 6, 6, 5}},
		{"Pad_1D_Reflect", mirrorPadReflect, []int{1, 3}, []int{1, 5}, []int32{0, 2}, []float64{1, 2, 3}, []float64{1, 2, 3, 2, 1}},
		{"Pad_1D_Symmetric", mirrorPadSymmetric, []int{1, 3}, []int{1, 5}, []int32{0, 2}, []float64{1, 2, 3}, []float64{1, 2, 3, 3, 2}},
	}
	for _, dt := range []model.DType{model.Float32, model.Int8} {
		q := shapeQ(dt)
		for _, c := range mirror {
			in, out := c.in[1:], c.out[1:]
			opts := &builder.Options{Type: model.UnionMirrorPadOptions, Fields: []builder.Field{builder.Byte(model.MirrorPadOptionsMode, c.mode)}}
			data := shapeModel(model.OpMirrorPad, opts,
				[]shapeT{{dt: dt, shape: in, q: q}, {dt: model.Int32, shape: []int{len(in), 2}, data: shapeI32(c.pads...)}},
				[]shapeT{{dt: dt, shape: out, q: q}})
			reshuffleGolden(t, "MIRROR_PAD "+c.name, dt, data, c.input, c.golden)
		}
		d2s := []struct {
			name          string
			in, out       []int
			input, golden []float64
		}{
			{"SimpleCase1", []int{1, 1, 1, 4}, []int{1, 2, 2, 1}, []float64{1.4, 2.3, 3.2, 4.1}, []float64{1.4, 2.3, 3.2, 4.1}},
			{"SimpleCase2", []int{1, 1, 2, 4}, []int{1, 2, 4, 1}, []float64{1, 2, 3, 4, 5, 6, 7, 8}, []float64{1, 2, 5, 6, 3, 4, 7, 8}},
			{"SimpleCase3", []int{1, 2, 1, 4}, []int{1, 4, 2, 1}, []float64{1, 2, 3, 4, 5, 6, 7, 8}, []float64{1, 2, 3, 4, 5, 6, 7, 8}},
			{"SimpleCase4", []int{1, 2, 2, 4}, []int{1, 4, 4, 1},
				[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
				[]float64{1, 2, 5, 6, 3, 4, 7, 8, 9, 10, 13, 14, 11, 12, 15, 16}},
			{"SimpleCase5", []int{1, 1, 1, 1}, []int{1, 1, 1, 1}, []float64{4}, []float64{4}},
		}
		for _, c := range d2s {
			if dt == model.Int8 && c.name == "SimpleCase1" {
				continue // fractional values: the int8 test quantizes them
			}
			bs := 2
			if c.name == "SimpleCase5" {
				bs = 1
			}
			opts := &builder.Options{Type: model.UnionDepthToSpaceOptions, Fields: []builder.Field{builder.Int(model.DepthToSpaceOptionsBlockSize, bs)}}
			data := shapeModel(model.OpDepthToSpace, opts, []shapeT{{dt: dt, shape: c.in, q: q}}, []shapeT{{dt: dt, shape: c.out, q: q}})
			reshuffleGolden(t, "DEPTH_TO_SPACE "+c.name, dt, data, c.input, c.golden)
			// SPACE_TO_DEPTH inverts it.
			opts = &builder.Options{Type: model.UnionSpaceToDepthOptions, Fields: []builder.Field{builder.Int(model.SpaceToDepthOptionsBlockSize, bs)}}
			data = shapeModel(model.OpSpaceToDepth, opts, []shapeT{{dt: dt, shape: c.out, q: q}}, []shapeT{{dt: dt, shape: c.in, q: q}})
			reshuffleGolden(t, "SPACE_TO_DEPTH inverse of "+c.name, dt, data, c.golden, c.input)
		}
		block := shapeT{dt: model.Int32, shape: []int{2}, data: shapeI32(2, 2)}
		crops := shapeT{dt: model.Int32, shape: []int{2, 2}, data: shapeI32(0, 0, 0, 0)}
		data := shapeModel(model.OpSpaceToBatchNd, nil, []shapeT{{dt: dt, shape: []int{1, 4, 4, 1}, q: q}, block, crops},
			[]shapeT{{dt: dt, shape: []int{4, 2, 2, 1}, q: q}})
		reshuffleGolden(t, "SPACE_TO_BATCH_ND Basic", dt, data, shapeSeq(16), []float64{1, 3, 9, 11, 2, 4, 10, 12, 5, 7, 13, 15, 6, 8, 14, 16})
		data = shapeModel(model.OpBatchToSpaceNd, nil, []shapeT{{dt: dt, shape: []int{4, 2, 2, 1}, q: q}, block, crops},
			[]shapeT{{dt: dt, shape: []int{1, 4, 4, 1}, q: q}})
		reshuffleGolden(t, "BATCH_TO_SPACE_ND Basic", dt, data, shapeSeq(16), []float64{1, 5, 2, 6, 9, 13, 10, 14, 3, 7, 4, 8, 11, 15, 12, 16})
	}
}
