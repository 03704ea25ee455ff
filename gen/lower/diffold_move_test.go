package lower

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/devtools/oracle"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// Differential tests against TFLM of the data-movement operators lowered
// before the shared harness existed (shape.go, slice.go, pad.go): random
// shapes, axes, masks and quantizations, through TFLM and in-process.
// Operators with several outputs put a random one first among the graph
// outputs, so that runDiffCases (which compares output 0) covers them all.

// dmAxis is axis, or one time in two the same axis counted from the end.
func dmAxis(r *rand.Rand, axis, rank int) int {
	if r.IntN(2) == 0 {
		return axis - rank
	}
	return axis
}

// dmOutputs puts a random output first.
func dmOutputs(r *rand.Rand, outs []int) []int {
	k := r.IntN(len(outs))
	io := append([]int{outs[k]}, outs[:k]...)
	return append(io, outs[k+1:]...)
}

// dmQ describes a quantization for a case description.
func dmQ(q *builder.Quant) string {
	if q == nil {
		return "-"
	}
	return fmt.Sprintf("(%g,%d)", q.Scale[0], q.ZeroPoint[0])
}

func randConcat(r *rand.Rand, dt model.DType) diffCase {
	rank := 1 + r.IntN(5)
	base := randDims(r, rank, 3)
	axis := r.IntN(rank)
	n := 1 + r.IntN(4)
	axisOpt := dmAxis(r, axis, rank)
	act := 0
	if r.IntN(10) == 0 {
		act = 1 + r.IntN(3) // RELU, RELU_N1_TO_1, RELU6
	}
	q := difftest.RandQuant(r, dt)
	c := diffCase{outDT: dt}
	m := builder.New("concatenation differential case")
	var ins, gin []int
	var shapes [][]int
	var qs []string
	sum := 0
	for i := range n {
		s := append([]int{}, base...)
		s[axis] = 1 + r.IntN(4)
		sum += s[axis]
		qi := q
		if q != nil && r.IntN(8) == 0 {
			qi = difftest.RandQuant(r, dt) // differing quantization
		}
		qs = append(qs, dmQ(qi))
		vals := reshuffleVals(r, dt, shapeProd(s))
		if i > 0 && r.IntN(4) == 0 {
			ins = append(ins, vals.ConstTensor(m, fmt.Sprintf("c%d", i), s, qi))
		} else {
			t := m.Tensor(fmt.Sprintf("in%d", i), dt, s, qi)
			ins, gin = append(ins, t), append(gin, t)
			c.inputs = append(c.inputs, vals)
		}
		shapes = append(shapes, s)
	}
	os := append([]int{}, base...)
	os[axis] = sum
	oq := q
	if q != nil && r.IntN(8) == 0 {
		oq = difftest.RandQuant(r, dt)
	}
	qs = append(qs, "out "+dmQ(oq))
	to := m.Tensor("out", dt, os, oq)
	m.Op(model.OpConcatenation, ins, []int{to}, &builder.Options{Type: model.UnionConcatenationOptions, Fields: []builder.Field{
		builder.Int(model.ConcatenationOptionsAxis, axisOpt), builder.Byte(model.ConcatenationOptionsFusedActivationFunction, act)}})
	m.IO(gin, []int{to})
	c.desc = fmt.Sprintf("CONCATENATION %s %v axis %d act %d quant %v", dt, shapes, axisOpt, act, qs)
	c.model = m.Bytes()
	return c
}

func randPack(r *rand.Rand, dt model.DType) diffCase {
	rank := r.IntN(5) // input rank 0-4, output 1-5
	s := randDims(r, rank, 3)
	n := 1 + r.IntN(4)
	axis := r.IntN(rank + 1)
	axisOpt := dmAxis(r, axis, rank+1)
	q := difftest.RandQuant(r, dt)
	c := diffCase{outDT: dt, desc: fmt.Sprintf("PACK %s %d x %v axis %d", dt, n, s, axisOpt)}
	m := builder.New("pack differential case")
	var ins []int
	for i := range n {
		ins = append(ins, m.Tensor(fmt.Sprintf("in%d", i), dt, s, q))
		c.inputs = append(c.inputs, reshuffleVals(r, dt, shapeProd(s)))
	}
	os := append(append(append([]int{}, s[:axis]...), n), s[axis:]...)
	to := m.Tensor("out", dt, os, q)
	m.Op(model.OpPack, ins, []int{to}, &builder.Options{Type: model.UnionPackOptions, Fields: []builder.Field{
		builder.Int(model.PackOptionsValuesCount, n), builder.Int(model.PackOptionsAxis, axisOpt)}})
	m.IO(ins, []int{to})
	c.model = m.Bytes()
	return c
}

func randUnpack(r *rand.Rand, dt model.DType) diffCase {
	rank := 1 + r.IntN(5)
	s := randDims(r, rank, 3)
	axis := r.IntN(rank)
	s[axis] = 1 + r.IntN(4)
	n := s[axis]
	axisOpt := dmAxis(r, axis, rank)
	c := diffCase{outDT: dt, desc: fmt.Sprintf("UNPACK %s %v axis %d", dt, s, axisOpt)}
	m := builder.New("unpack differential case")
	ti, q := reshuffleIn(r, m, &c, dt, s)
	os := append(append([]int{}, s[:axis]...), s[axis+1:]...)
	var outs []int
	for i := range n {
		outs = append(outs, m.Tensor(fmt.Sprintf("out%d", i), dt, os, q))
	}
	m.Op(model.OpUnpack, []int{ti}, outs, &builder.Options{Type: model.UnionUnpackOptions, Fields: []builder.Field{
		builder.Int(model.UnpackOptionsNum, n), builder.Int(model.UnpackOptionsAxis, axisOpt)}})
	m.IO([]int{ti}, dmOutputs(r, outs))
	c.model = m.Bytes()
	return c
}

func randSplit(r *rand.Rand, dt model.DType) diffCase {
	rank := 1 + r.IntN(5)
	s := randDims(r, rank, 3)
	axis := r.IntN(rank)
	n := 1 + r.IntN(4)
	s[axis] = n * (1 + r.IntN(3))
	axisOpt := dmAxis(r, axis, rank)
	c := diffCase{outDT: dt, desc: fmt.Sprintf("SPLIT %s %v axis %d num %d", dt, s, axisOpt, n)}
	m := builder.New("split differential case")
	ashape := []int{1}
	if r.IntN(2) == 0 {
		ashape = []int{}
	}
	ta := i32Vals([]int64{int64(axisOpt)}).ConstTensor(m, "axis", ashape, nil)
	ti, q := reshuffleIn(r, m, &c, dt, s)
	os := append([]int{}, s...)
	os[axis] /= n
	var outs []int
	for i := range n {
		outs = append(outs, m.Tensor(fmt.Sprintf("out%d", i), dt, os, q))
	}
	m.Op(model.OpSplit, []int{ta, ti}, outs, &builder.Options{Type: model.UnionSplitOptions, Fields: []builder.Field{builder.Int(model.SplitOptionsNumSplits, n)}})
	m.IO([]int{ti}, dmOutputs(r, outs))
	c.model = m.Bytes()
	return c
}

func randSlice(r *rand.Rand, dt model.DType) diffCase {
	rank := 1 + r.IntN(5)
	s := randDims(r, rank, 4)
	begin, size, os := make([]int64, rank), make([]int64, rank), make([]int, rank)
	for i, d := range s {
		begin[i] = int64(r.IntN(d))
		size[i] = 1 + int64(r.IntN(d-int(begin[i])))
		os[i] = int(size[i])
		if r.IntN(4) == 0 {
			size[i] = -1
			os[i] = d - int(begin[i])
		}
	}
	idx64 := r.IntN(4) == 0
	c := diffCase{outDT: dt, desc: fmt.Sprintf("SLICE %s %v begin %v size %v int64 %v", dt, s, begin, size, idx64)}
	m := builder.New("slice differential case")
	ti, q := reshuffleIn(r, m, &c, dt, s)
	var tb, ts int
	if idx64 {
		tb, ts = i64Vals(begin).ConstTensor(m, "begin", []int{rank}, nil), i64Vals(size).ConstTensor(m, "size", []int{rank}, nil)
	} else {
		tb, ts = i32Vals(begin).ConstTensor(m, "begin", []int{rank}, nil), i32Vals(size).ConstTensor(m, "size", []int{rank}, nil)
	}
	to := m.Tensor("out", dt, os, reshuffleOutQ(r, dt, q))
	m.Op(model.OpSlice, []int{ti, tb, ts}, []int{to}, nil)
	m.IO([]int{ti}, []int{to})
	c.model = m.Bytes()
	return c
}

// dmClamp clamps v to [lo, hi].
func dmClamp(v, lo, hi int) int { return max(lo, min(hi, v)) }

// dmStridedCount is the number of elements STRIDED_SLICE takes along one
// axis of size d (TFLM's strided_slice_logic.h, without offset).
func dmStridedCount(d, begin, end, stride int, bm, em, shrink bool) int {
	start := begin
	if bm {
		start = map[bool]int{true: -1 << 30, false: 1 << 30}[stride > 0]
	}
	if start < 0 && !bm {
		start += d
	}
	if stride > 0 {
		start = dmClamp(start, 0, d)
	} else {
		start = dmClamp(start, -1, d-1)
	}
	if shrink {
		return 1
	}
	stop := end
	if em {
		stop = map[bool]int{true: 1 << 30, false: -1 << 30}[stride > 0]
	} else if stop < 0 {
		stop += d
	}
	if stride > 0 {
		stop = dmClamp(stop, 0, d)
	} else {
		stop = dmClamp(stop, -1, d-1)
	}
	n := 0
	for i := start; (stride > 0 && i < stop) || (stride < 0 && i > stop); i += stride {
		n++
	}
	return n
}

func randStridedSlice(r *rand.Rand, dt model.DType) diffCase {
	for {
		rank := 1 + r.IntN(5)
		s := randDims(r, rank, 5)
		begin, end, strides := make([]int64, rank), make([]int64, rank), make([]int64, rank)
		var bmask, emask, smask int
		var os []int
		empty := false
		for i, d := range s {
			st := 1 + r.IntN(3)
			if r.IntN(2) == 0 {
				st = -st
			}
			b, e := r.IntN(2*d+3)-d-1, r.IntN(2*d+3)-d-1
			bm, em, sh := r.IntN(4) == 0, r.IntN(4) == 0, r.IntN(6) == 0
			if sh {
				b = r.IntN(2*d) - d // in range
				bm = false
				if r.IntN(4) > 0 {
					st = 1 + r.IntN(3)
				}
			}
			begin[i], end[i], strides[i] = int64(b), int64(e), int64(st)
			if bm {
				bmask |= 1 << i
			}
			if em {
				emask |= 1 << i
			}
			if sh {
				smask |= 1 << i
			}
			n := dmStridedCount(d, b, e, st, bm, em, sh)
			if n == 0 {
				empty = true
			}
			if !sh {
				os = append(os, n)
			}
		}
		if empty {
			continue
		}
		c := diffCase{outDT: dt, desc: fmt.Sprintf("STRIDED_SLICE %s %v begin %v end %v strides %v masks b%b e%b s%b -> %v",
			dt, s, begin, end, strides, bmask, emask, smask, os)}
		m := builder.New("strided_slice differential case")
		ti, q := reshuffleIn(r, m, &c, dt, s)
		tb := i32Vals(begin).ConstTensor(m, "begin", []int{rank}, nil)
		te := i32Vals(end).ConstTensor(m, "end", []int{rank}, nil)
		ts := i32Vals(strides).ConstTensor(m, "strides", []int{rank}, nil)
		to := m.Tensor("out", dt, os, reshuffleOutQ(r, dt, q))
		m.Op(model.OpStridedSlice, []int{ti, tb, te, ts}, []int{to}, &builder.Options{Type: model.UnionStridedSliceOptions, Fields: []builder.Field{
			builder.Int(model.StridedSliceOptionsBeginMask, bmask), builder.Int(model.StridedSliceOptionsEndMask, emask), builder.Int(model.StridedSliceOptionsShrinkAxisMask, smask)}})
		m.IO([]int{ti}, []int{to})
		c.model = m.Bytes()
		return c
	}
}

func randTranspose(r *rand.Rand, dt model.DType) diffCase {
	rank := 1 + r.IntN(6)
	s := randDims(r, rank, 4)
	perm := r.Perm(rank)
	p := make([]int64, rank)
	os := make([]int, rank)
	for i, k := range perm {
		p[i], os[i] = int64(k), s[k]
	}
	c := diffCase{outDT: dt, desc: fmt.Sprintf("TRANSPOSE %s %v perm %v", dt, s, p)}
	m := builder.New("transpose differential case")
	ti, q := reshuffleIn(r, m, &c, dt, s)
	tp := i32Vals(p).ConstTensor(m, "perm", []int{rank}, nil)
	to := m.Tensor("out", dt, os, reshuffleOutQ(r, dt, q))
	m.Op(model.OpTranspose, []int{ti, tp}, []int{to}, nil)
	m.IO([]int{ti}, []int{to})
	c.model = m.Bytes()
	return c
}

// randPad is a PAD (v2 false) or PADV2 case; PADV2's pad value is quantized
// like the output except one time in eight.
func randPad(r *rand.Rand, dt model.DType, v2 bool) diffCase {
	rank := 1 + r.IntN(5)
	s := randDims(r, rank, 3)
	pads := make([]int64, 2*rank)
	os := make([]int, rank)
	for i := range s {
		pads[2*i], pads[2*i+1] = int64(r.IntN(3)), int64(r.IntN(3))
		os[i] = s[i] + int(pads[2*i]+pads[2*i+1])
	}
	code := model.OpPad
	if v2 {
		code = model.OpPadv2
	}
	c := diffCase{outDT: dt}
	m := builder.New("pad differential case")
	ti, q := reshuffleIn(r, m, &c, dt, s)
	oq := reshuffleOutQ(r, dt, q)
	tp := i32Vals(pads).ConstTensor(m, "paddings", []int{rank, 2}, nil)
	ins := []int{ti, tp}
	desc := ""
	if v2 {
		vq := oq
		if oq != nil && r.IntN(8) == 0 {
			vq = difftest.RandQuant(r, dt)
		}
		val := reshuffleVals(r, dt, 1)
		shape := []int{1}
		if r.IntN(2) == 0 {
			shape = []int{}
		}
		ins = append(ins, val.ConstTensor(m, "constant_values", shape, vq))
		desc = fmt.Sprintf(" value %v%v quant %s", val.Ints, val.Flts, dmQ(vq))
	}
	to := m.Tensor("out", dt, os, oq)
	m.Op(code, ins, []int{to}, nil)
	m.IO([]int{ti}, []int{to})
	c.desc = fmt.Sprintf("%s %s %v paddings %v in %s out %s%s", code, dt, s, pads, dmQ(q), dmQ(oq), desc)
	c.model = m.Bytes()
	return c
}

// randReshape is a RESHAPE with its shape from a constant int32 input
// (with one -1 in two cases), from the options, or from the output alone.
func randReshape(r *rand.Rand, dt model.DType) diffCase {
	s := randDims(r, 1+r.IntN(5), 3)
	n := shapeProd(s)
	// A random factorization of n.
	var os []int
	rest := n
	for rest > 1 && len(os) < 5 {
		d := 1 + r.IntN(rest)
		if rest%d == 0 {
			os = append(os, d)
			rest /= d
		}
	}
	if rest > 1 {
		os = append(os, rest)
	}
	if len(os) == 0 || r.IntN(6) == 0 {
		os = append(os, 1)
	}
	r.Shuffle(len(os), func(i, j int) { os[i], os[j] = os[j], os[i] })
	ns := make([]int64, len(os))
	for i, d := range os {
		ns[i] = int64(d)
	}
	if r.IntN(2) == 0 {
		ns[r.IntN(len(ns))] = -1
	}
	mode := r.IntN(3) // 0 shape input, 1 options, 2 output only
	c := diffCase{outDT: dt, desc: fmt.Sprintf("RESHAPE %s %v -> %v new_shape %v mode %d", dt, s, os, ns, mode)}
	m := builder.New("reshape differential case")
	ti, q := reshuffleIn(r, m, &c, dt, s)
	to := m.Tensor("out", dt, os, q)
	ins := []int{ti}
	var opts *builder.Options
	ns32 := make([]int32, len(ns))
	for i, v := range ns {
		ns32[i] = int32(v)
	}
	switch mode {
	case 0:
		ins = append(ins, i32Vals(ns).ConstTensor(m, "shape", []int{len(ns)}, nil))
	case 1:
		o := builder.Options{Type: model.UnionReshapeOptions}.IntVector(model.ReshapeOptionsNewShape, ns32)
		opts = &o
	}
	m.Op(model.OpReshape, ins, []int{to}, opts)
	m.IO([]int{ti}, []int{to})
	c.model = m.Bytes()
	return c
}

// randSqueeze squeezes given dimensions (some counted from the end) or,
// with no squeeze_dims, every dimension of size 1.
func randSqueeze(r *rand.Rand, dt model.DType) diffCase {
	rank := 1 + r.IntN(6)
	s := randDims(r, rank, 3)
	for i := range s {
		if r.IntN(2) == 0 {
			s[i] = 1
		}
	}
	var dims []int32
	var os []int
	all := r.IntN(3) == 0
	for i, d := range s {
		if d == 1 && (all || r.IntN(2) == 0) {
			if !all {
				dims = append(dims, int32(dmAxis(r, i, rank)))
			}
			continue
		}
		os = append(os, d)
	}
	if len(dims) == 0 {
		// No squeeze_dims: every dimension of size 1 goes.
		os = os[:0]
		for _, d := range s {
			if d != 1 {
				os = append(os, d)
			}
		}
	}
	c := diffCase{outDT: dt, desc: fmt.Sprintf("SQUEEZE %s %v squeeze_dims %v -> %v", dt, s, dims, os)}
	m := builder.New("squeeze differential case")
	ti, q := reshuffleIn(r, m, &c, dt, s)
	to := m.Tensor("out", dt, os, q)
	o := builder.Options{Type: model.UnionSqueezeOptions}
	if len(dims) > 0 {
		o = o.IntVector(model.SqueezeOptionsSqueezeDims, dims)
	}
	m.Op(model.OpSqueeze, []int{ti}, []int{to}, &o)
	m.IO([]int{ti}, []int{to})
	c.model = m.Bytes()
	return c
}

func randExpandDims(r *rand.Rand, dt model.DType) diffCase {
	rank := r.IntN(5)
	s := randDims(r, rank, 3)
	axis := r.IntN(rank + 1)
	axisOpt := dmAxis(r, axis, rank+1)
	os := append(append(append([]int{}, s[:axis]...), 1), s[axis:]...)
	c := diffCase{outDT: dt, desc: fmt.Sprintf("EXPAND_DIMS %s %v axis %d", dt, s, axisOpt)}
	m := builder.New("expand_dims differential case")
	ti, q := reshuffleIn(r, m, &c, dt, s)
	ashape := []int{1}
	if r.IntN(2) == 0 {
		ashape = []int{}
	}
	ta := i32Vals([]int64{int64(axisOpt)}).ConstTensor(m, "axis", ashape, nil)
	to := m.Tensor("out", dt, os, q)
	m.Op(model.OpExpandDims, []int{ti, ta}, []int{to}, nil)
	m.IO([]int{ti}, []int{to})
	c.model = m.Bytes()
	return c
}

// dmEmptyShrink allows the documented STRIDED_SLICE refusal: a shrunk axis
// with a negative stride, where TFLM's reference loop takes no element and
// leaves its output unwritten.
func dmEmptyShrink(err error) bool { return strings.Contains(err.Error(), "slice takes 0 elements") }

// TestMoveOpsMatchTFLM: random cases of every data-movement operator and
// type combination, through TFLM and in-process, compared bit for bit.
// Models TFLM rejects (differing int8 concatenation quantization, fused
// activations, PADV2 pad values quantized unlike the output) must be
// refused by the lowering.
func TestMoveOpsMatchTFLM(t *testing.T) {
	o := oracle.New(t)
	type gen func(r *rand.Rand, dt model.DType) diffCase
	all := []model.DType{model.Float32, model.Int8, model.Int16, model.Int32, model.Int64, model.Bool}
	fis := []model.DType{model.Float32, model.Int8, model.Int16, model.Int32}
	fisl := append(fis, model.Int64)
	fisb := append(fis[:4:4], model.Bool)
	fi := []model.DType{model.Float32, model.Int8, model.Int16}
	for _, tc := range []struct {
		code  model.OpCode
		gen   gen
		dts   []model.DType
		allow func(error) bool
	}{
		{model.OpConcatenation, randConcat, all, nil},
		{model.OpPack, randPack, fisl, nil},
		{model.OpUnpack, randUnpack, fis, nil},
		{model.OpSplit, randSplit, fis, nil},
		{model.OpSlice, randSlice, fisb, nil},
		{model.OpStridedSlice, randStridedSlice, fisb, dmEmptyShrink},
		{model.OpTranspose, randTranspose, fi, nil},
		{model.OpPad, func(r *rand.Rand, dt model.DType) diffCase { return randPad(r, dt, false) }, fis, nil},
		{model.OpPadv2, func(r *rand.Rand, dt model.DType) diffCase { return randPad(r, dt, true) }, fis, nil},
		{model.OpReshape, randReshape, all, nil},
		{model.OpSqueeze, randSqueeze, all, nil},
		{model.OpExpandDims, randExpandDims, fi, nil},
	} {
		for _, dt := range tc.dts {
			t.Run(fmt.Sprintf("%s_%s", tc.code, dt), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(tc.code), uint64(dt)+77))
				g := func(r *rand.Rand) diffCase { return tc.gen(r, dt) }
				runDiffCases(t, o, diffN{10, 100}, r, g, tc.allow)
			})
		}
	}
}

// dmPow2 is 2^e.
func dmPow2(e int) float32 { return float32(math.Ldexp(1, e)) }

// randSvdf is one Invoke of a random SVDF (int8 with int16 weights_time
// and state, or float32; rank 1 or 2) from a zero state. Integer scales
// are drawn so that both effective scales are in [2^-14, 2^1), with the
// bias scale state*weights_time as TFLM requires.
func randSvdf(r *rand.Rand, dt model.DType) diffCase {
	batch, inSize, units, rank, memory := 1+r.IntN(2), 1+r.IntN(6), 1+r.IntN(4), 1+r.IntN(2), 1+r.IntN(5)
	filters := units * rank
	c := diffCase{outDT: dt}
	m := builder.New("svdf differential case")
	act := 0
	if dt == model.Float32 {
		act = r.IntN(4)
	}
	var ti, twf, twt, tb, ts, to int
	desc := ""
	if dt == model.Int8 {
		qin := difftest.RandQuant(r, model.Int8)
		inS := qin.Scale[0]
		wfS := difftest.RandScale(r)
		stS := float32(float64(inS) * float64(wfS) / float64(dmPow2(r.IntN(16)-14)))
		wtS := difftest.RandScale(r)
		outS := float32(float64(stS) * float64(wtS) / float64(dmPow2(r.IntN(15)-14)))
		bS := stS * wtS
		oq := difftest.RandQuant(r, model.Int8)
		oq.Scale[0] = outS
		ti = m.Tensor("in", dt, []int{batch, inSize}, qin)
		c.inputs = []difftest.Vals{difftest.RandVals(r, dt, batch*inSize)}
		twf = difftest.RandVals(r, model.Int8, filters*inSize).ConstTensor(m, "weights_feature", []int{filters, inSize}, builder.PerTensor(wfS, 0))
		twt = difftest.RandVals(r, model.Int16, filters*memory).ConstTensor(m, "weights_time", []int{filters, memory}, builder.PerTensor(wtS, 0))
		bv := difftest.Vals{DT: model.Int32}
		for range units {
			bv.Ints = append(bv.Ints, r.Int64N(1<<20)-1<<19)
		}
		tb = bv.ConstTensor(m, "bias", []int{units}, builder.PerTensor(bS, 0))
		ts = m.Variable("state", model.Int16, []int{batch, memory * filters}, builder.PerTensor(stS, 0))
		to = m.Tensor("out", dt, []int{batch, units}, oq)
		desc = fmt.Sprintf(" scales in %g wf %g wt %g state %g out %g zp in %d out %d", inS, wfS, wtS, stS, outS, qin.ZeroPoint[0], oq.ZeroPoint[0])
	} else {
		w := func(n int) difftest.Vals {
			v := difftest.Vals{DT: dt}
			for range n {
				v.Flts = append(v.Flts, float32(r.NormFloat64()))
			}
			return v
		}
		// Inputs with randVals' specials (zeros of both signs,
		// infinities, extremes), which overflow to infinities and NaN:
		// TFLM's activation passes infinities for NONE and RELU and
		// turns NaN into the lower bound (kernels' svdfActF32).
		ti = m.Tensor("in", dt, []int{batch, inSize}, nil)
		c.inputs = []difftest.Vals{w(batch * inSize)}
		if r.IntN(2) == 0 {
			c.inputs[0] = difftest.RandVals(r, dt, batch*inSize)
		}
		twf = w(filters*inSize).ConstTensor(m, "weights_feature", []int{filters, inSize}, nil)
		twt = w(filters*memory).ConstTensor(m, "weights_time", []int{filters, memory}, nil)
		tb = w(units).ConstTensor(m, "bias", []int{units}, nil)
		ts = m.Variable("state", dt, []int{batch, memory * filters}, nil)
		to = m.Tensor("out", dt, []int{batch, units}, nil)
	}
	m.Op(model.OpSvdf, []int{ti, twf, twt, tb, ts}, []int{to}, &builder.Options{Type: model.UnionSVDFOptions, Fields: []builder.Field{
		builder.Int(model.SVDFOptionsRank, rank), builder.Byte(model.SVDFOptionsFusedActivationFunction, act)}})
	m.IO([]int{ti}, []int{to})
	c.desc = fmt.Sprintf("SVDF %s batch %d input %d units %d rank %d memory %d act %d%s", dt, batch, inSize, units, rank, memory, act, desc)
	c.model = m.Bytes()
	return c
}

// TestSvdfMatchesTFLM: one Invoke of random SVDF operators, int8 (int16
// weights_time and state) and float32, compared bit for bit.
func TestSvdfMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	for _, dt := range []model.DType{model.Int8, model.Float32} {
		t.Run("SVDF_"+dt.String(), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(model.OpSvdf), uint64(dt)+77))
			runDiffCases(t, o, diffN{10, 100}, r, func(r *rand.Rand) diffCase { return randSvdf(r, dt) }, nil)
		})
	}
}
