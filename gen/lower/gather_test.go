package lower

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/devtools/oracle"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// randDims is a random shape of the given rank, dimensions 1 to max.
func randDims(r *rand.Rand, rank, max int) []int {
	s := make([]int, rank)
	for i := range s {
		s[i] = 1 + r.IntN(max)
	}
	return s
}

// randIndices draws in-range index values: n values below bound (for
// GATHER_ND a bound per position of the tuple, cycling).
func randIndices(r *rand.Rand, n int, bounds []int) difftest.Vals {
	v := difftest.Vals{DT: model.Int32, Bounds: bounds}
	for i := 0; i < n; i++ {
		v.Ints = append(v.Ints, int64(r.IntN(bounds[i%len(bounds)])))
	}
	return v
}

// addInput adds a tensor that is either a graph input (its values appended
// to c.inputs) or, when konst, a constant with those values.
func addInput(m *builder.Model, c *diffCase, ins *[]int, name string, shape []int, q *builder.Quant, v difftest.Vals, konst bool) int {
	if konst {
		c.desc += " const " + name
		return v.ConstTensor(m, name, shape, q)
	}
	t := m.Tensor(name, v.DT, shape, q)
	*ins = append(*ins, t)
	c.inputs = append(c.inputs, v)
	return t
}

// randGather is a random GATHER: any axis and batch_dims TFLM allows
// (written negative half the time), 0-D to 3-D positions, constant params
// or positions one case in four each.
func randGather(r *rand.Rand, dt, posDT model.DType) diffCase {
	rank := 1 + r.IntN(4)
	in := randDims(r, rank, 4)
	axis := r.IntN(rank)
	bd := r.IntN(axis + 1)
	pos := append([]int{}, in[:bd]...)
	pos = append(pos, randDims(r, r.IntN(3), 3)...)
	out := append(append(append([]int{}, in[:axis]...), pos[bd:]...), in[axis+1:]...)
	axisOpt, bdOpt := axis, bd
	if r.IntN(2) == 0 {
		axisOpt -= rank
	}
	if r.IntN(2) == 0 && bd > 0 && bd < len(pos) {
		bdOpt -= len(pos) // negative batch_dims count from the end of the positions
	}
	c := diffCase{outDT: dt, desc: fmt.Sprintf("GATHER %s %v axis %d batch_dims %d positions %v", dt, in, axisOpt, bdOpt, pos)}
	m := builder.New("gather differential case")
	q := difftest.RandQuant(r, dt)
	var ins []int
	constParams := r.IntN(4) == 0
	ti := addInput(m, &c, &ins, "params", in, q, difftest.RandVals(r, dt, shapeProd(in)), constParams)
	pv := randIndices(r, shapeProd(pos), []int{in[axis]})
	pv.DT = posDT
	tp := addInput(m, &c, &ins, "positions", pos, nil, pv, !constParams && r.IntN(4) == 0)
	to := m.Tensor("out", dt, out, q)
	m.Op(model.OpGather, []int{ti, tp}, []int{to}, &builder.Options{Type: model.UnionGatherOptions, Fields: []builder.Field{
		builder.Int(model.GatherOptionsAxis, axisOpt), builder.Int(model.GatherOptionsBatchDims, bdOpt)}})
	m.IO(ins, []int{to})
	c.model = m.Bytes()
	return c
}

// randGatherNd is a random GATHER_ND: index tuples of 0 to rank values.
func randGatherNd(r *rand.Rand, dt, idxDT model.DType) diffCase {
	rank := 1 + r.IntN(4)
	params := randDims(r, rank, 4)
	nd := r.IntN(rank + 1)
	if nd == 0 && r.IntN(4) > 0 {
		nd = 1
	}
	idx := append(randDims(r, r.IntN(3), 3), nd)
	out := append(append([]int{}, idx[:len(idx)-1]...), params[nd:]...)
	c := diffCase{outDT: dt, desc: fmt.Sprintf("GATHER_ND %s %v indices %v", dt, params, idx)}
	m := builder.New("gather_nd differential case")
	q := difftest.RandQuant(r, dt)
	var ins []int
	constParams := r.IntN(4) == 0
	tp := addInput(m, &c, &ins, "params", params, q, difftest.RandVals(r, dt, shapeProd(params)), constParams)
	bounds := params[:nd]
	if nd == 0 {
		bounds = []int{1}
	}
	iv := randIndices(r, shapeProd(idx), bounds)
	iv.DT = idxDT
	// (An empty constant has no data, which the model reader takes for an
	// activation: empty index tensors stay graph inputs.)
	ti := addInput(m, &c, &ins, "indices", idx, nil, iv, !constParams && shapeProd(idx) > 0 && r.IntN(4) == 0)
	to := m.Tensor("out", dt, out, q)
	m.Op(model.OpGatherNd, []int{tp, ti}, []int{to}, nil)
	m.IO(ins, []int{to})
	c.model = m.Bytes()
	return c
}

// randEmbedding is a random EMBEDDING_LOOKUP from a table of type dt into
// outDT (int8 into float32 is TFLM's hybrid lookup: symmetric scale).
func randEmbedding(r *rand.Rand, dt, outDT model.DType) diffCase {
	table := append([]int{1 + r.IntN(6)}, randDims(r, 1+r.IntN(2), 4)...)
	n := 1 + r.IntN(6)
	out := append([]int{n}, table[1:]...)
	c := diffCase{outDT: outDT, desc: fmt.Sprintf("EMBEDDING_LOOKUP %s to %s table %v ids %d", dt, outDT, table, n)}
	m := builder.New("embedding_lookup differential case")
	q := difftest.RandQuant(r, dt)
	if dt == model.Int8 && outDT == model.Float32 {
		q = builder.PerTensor(difftest.RandScale(r), 0)
	}
	var qo *builder.Quant
	if outDT == dt {
		qo = q
	}
	var ins []int
	iv := randIndices(r, n, []int{table[0]})
	constTable := r.IntN(2) == 0
	ti := addInput(m, &c, &ins, "ids", []int{n}, nil, iv, !constTable && r.IntN(4) == 0)
	tt := addInput(m, &c, &ins, "table", table, q, difftest.RandVals(r, dt, shapeProd(table)), constTable)
	to := m.Tensor("out", outDT, out, qo)
	m.Op(model.OpEmbeddingLookup, []int{ti, tt}, []int{to}, nil)
	m.IO(ins, []int{to})
	c.model = m.Bytes()
	return c
}

// TestGatherMatchesTFLM: random GATHER, GATHER_ND and EMBEDDING_LOOKUP
// models of every type combination TFLM runs, with in-range indices,
// through TFLM and in-process, compared bit for bit.
func TestGatherMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	for _, tc := range []struct {
		name string
		gen  func(r *rand.Rand) diffCase
	}{
		{"GATHER_float32", func(r *rand.Rand) diffCase { return randGather(r, model.Float32, model.Int32) }},
		{"GATHER_int8", func(r *rand.Rand) diffCase { return randGather(r, model.Int8, model.Int32) }},
		{"GATHER_ND_float32", func(r *rand.Rand) diffCase { return randGatherNd(r, model.Float32, model.Int32) }},
		{"GATHER_ND_int8", func(r *rand.Rand) diffCase { return randGatherNd(r, model.Int8, model.Int32) }},
		{"EMBEDDING_LOOKUP_float32", func(r *rand.Rand) diffCase { return randEmbedding(r, model.Float32, model.Float32) }},
		{"EMBEDDING_LOOKUP_int8", func(r *rand.Rand) diffCase { return randEmbedding(r, model.Int8, model.Int8) }},
		{"EMBEDDING_LOOKUP_int8_to_float32", func(r *rand.Rand) diffCase { return randEmbedding(r, model.Int8, model.Float32) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seed := uint64(0)
			for _, b := range tc.name {
				seed = seed*31 + uint64(b)
			}
			r := rand.New(rand.NewPCG(seed, 13))
			runDiffCases(t, o, diffN{20, 200}, r, tc.gen, nil)
		})
	}
}

// TestGatherRefusedAsTFLM: the type combinations TFLM's kernels reject.
func TestGatherRefusedAsTFLM(t *testing.T) {
	o := oracle.New(t)
	r := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		c    diffCase
		code model.OpCode
		want string
	}{
		{randGather(r, model.Int16, model.Int32), model.OpGather, "not supported"},
		{randGather(r, model.Int32, model.Int32), model.OpGather, "not supported"},
		{randGather(r, model.Float32, model.Int64), model.OpGather, "int32 only"},
		{randGatherNd(r, model.Int16, model.Int32), model.OpGatherNd, "not supported"},
		{randGatherNd(r, model.Int8, model.Int64), model.OpGatherNd, "int32 only"},
		{randEmbedding(r, model.Int16, model.Int16), model.OpEmbeddingLookup, "not supported"},
		{randEmbedding(r, model.Float32, model.Int8), model.OpEmbeddingLookup, "not supported"},
	} {
		checkRefusedAsTFLM(t, o, tc.c, tc.code, tc.want)
	}
}

// TestShapeMatchesTFLM: SHAPE of tensors of every rank 1-5 and several
// types, folded into a constant, against TFLM; an int64 output (which
// TFLM's Eval rejects) is refused.
func TestShapeMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	r := rand.New(rand.NewPCG(77, 1))
	gen := func(outDT model.DType) func(r *rand.Rand) diffCase {
		return func(r *rand.Rand) diffCase {
			dts := []model.DType{model.Float32, model.Int8, model.Int16, model.Int32}
			dt := dts[r.IntN(len(dts))]
			shape := randDims(r, 1+r.IntN(5), 4)
			m := builder.New("shape differential case")
			in := m.Tensor("in", dt, shape, difftest.RandQuant(r, dt))
			out := m.Tensor("out", outDT, []int{len(shape)}, nil)
			m.Op(model.OpShape, []int{in}, []int{out}, &builder.Options{Type: model.UnionShapeOptions, Fields: []builder.Field{builder.Byte(model.ShapeOptionsOutType, int(outDT))}})
			m.IO([]int{in}, []int{out})
			return diffCase{model: m.Bytes(), inputs: []difftest.Vals{difftest.RandVals(r, dt, shapeProd(shape))}, outDT: outDT,
				desc: fmt.Sprintf("SHAPE of %s %v", dt, shape)}
		}
	}
	t.Run("SHAPE_int32", func(t *testing.T) { runDiffCases(t, o, diffN{10, 50}, r, gen(model.Int32), nil) })
	checkRefusedAsTFLM(t, o, gen(model.Int64)(r), model.OpShape, "int32 only")
}

// TestGatherOutOfRangeClamps: with out-of-range run-time indices (negative,
// past the end, int32 extremes) the lowered models give what TFLM gives for
// the same indices clamped into their dimensions, the behaviour the
// kernels document; in-process, so any access outside a tensor panics.
func TestGatherOutOfRangeClamps(t *testing.T) {
	o := oracle.New(t)
	for _, tc := range []struct {
		name string
		gen  func(r *rand.Rand) diffCase
	}{
		{"GATHER", func(r *rand.Rand) diffCase { return randGather(r, model.Int8, model.Int32) }},
		{"GATHER_ND", func(r *rand.Rand) diffCase { return randGatherNd(r, model.Float32, model.Int32) }},
		{"EMBEDDING_LOOKUP", func(r *rand.Rand) diffCase { return randEmbedding(r, model.Int8, model.Float32) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(len(tc.name)), 99))
			var n difftest.Tally
			var sw difftest.Sweep
			for i := 0; n.Done() < difftest.Count(10, 60) && i < 1000; i++ {
				c := tc.gen(r)
				k := -1
				for j, v := range c.inputs {
					if v.Bounds != nil {
						k = j
					}
				}
				if k < 0 || len(c.inputs[k].Ints) == 0 {
					continue // constant or empty indices
				}
				wild := c.inputs[k]
				wild.Ints = append([]int64(nil), wild.Ints...)
				clamped := c.inputs[k]
				clamped.Ints = append([]int64(nil), clamped.Ints...)
				for j := range wild.Ints {
					n := int64(wild.Bounds[j%len(wild.Bounds)])
					var v int64
					switch r.IntN(6) {
					case 0:
						v = -1 - r.Int64N(5)
					case 1:
						v = n + r.Int64N(5)
					case 2:
						v = math.MinInt32
					case 3:
						v = math.MaxInt32
					case 4:
						v = int64(int32(r.Uint32()))
					default:
						v = r.Int64N(n)
					}
					wild.Ints[j] = v
					clamped.Ints[j] = min(max(v, 0), n-1)
				}
				var csvs [][]string
				var raws [][]byte
				for j, v := range c.inputs {
					if j == k {
						csvs = append(csvs, clamped.CSV())
						raws = append(raws, wild.Raw())
						continue
					}
					csvs = append(csvs, v.CSV())
					raws = append(raws, v.Raw())
				}
				if !sw.Take(i, c.model, testProgram) {
					// Against the reference implementations on the
					// clamped indices.
					got, err := inProcess(c.model, raws...)
					n.UnrunCase(err)
					if err != nil {
						t.Errorf("case %d (%s): %v", i, c.desc, err)
						continue
					}
					cc := c
					cc.inputs = slices.Clone(c.inputs)
					cc.inputs[k] = clamped
					ok, err := refCompare(cc, got, func(c diffCase, got [][]byte, want [][]string) error {
						return difftest.CompareRaw(c.outDT, got[0], want[0])
					})
					if err != nil {
						t.Errorf("case %d (%s): indices %v: %v", i, c.desc, wild.Ints, err)
					} else if ok {
						n.RefChecked++
					}
					continue
				}
				want, err := o.Run(c.model, csvs...)
				if n.Skip(t, err, i, c.desc) {
					continue
				}
				if err != nil {
					t.Fatalf("case %d (%s): oracle: %v", i, c.desc, err)
				}
				got, err := inProcess(c.model, raws...)
				if err != nil {
					t.Fatalf("case %d (%s): %v", i, c.desc, err)
				}
				if err := difftest.CompareRaw(c.outDT, got[0], want[0]); err != nil {
					t.Errorf("case %d (%s): indices %v: %v", i, c.desc, wild.Ints, err)
				}
				n.Compared++
			}
			t.Logf("%d cases with out-of-range indices compared with TFLM on clamped indices", n.Compared)
			n.LogUnrun(t)
			n.SkipIfNoneCompared(t)
		})
	}
}

// TestIndexOpsStructureRefusedAsTFLM: structural problems TFLM's Prepare
// rejects are refused too: a non-constant resize size, batch_dims past the
// axis, index tuples longer than the params' rank, 2-D embedding ids.
func TestIndexOpsStructureRefusedAsTFLM(t *testing.T) {
	o := oracle.New(t)
	i8 := func(n int) difftest.Vals { return difftest.Vals{DT: model.Int8, Ints: make([]int64, n)} }
	i32 := func(v ...int64) difftest.Vals { return difftest.Vals{DT: model.Int32, Ints: v} }
	{
		m := builder.New("resize with a run-time size")
		in := m.Tensor("in", model.Int8, []int{1, 2, 2, 1}, nil)
		size := m.Tensor("size", model.Int32, []int{2}, nil)
		out := m.Tensor("out", model.Int8, []int{1, 3, 3, 1}, nil)
		m.Op(model.OpResizeNearestNeighbor, []int{in, size}, []int{out}, nil)
		m.IO([]int{in, size}, []int{out})
		checkRefusedAsTFLM(t, o, diffCase{desc: "run-time size", model: m.Bytes(), inputs: []difftest.Vals{i8(4), i32(3, 3)}},
			model.OpResizeNearestNeighbor, "not constant")
	}
	{
		m := builder.New("gather with batch_dims past the axis")
		in := m.Tensor("in", model.Int8, []int{2, 3}, nil)
		pos := m.Tensor("pos", model.Int32, []int{2, 1}, nil)
		out := m.Tensor("out", model.Int8, []int{2, 1, 3}, nil)
		m.Op(model.OpGather, []int{in, pos}, []int{out}, &builder.Options{Type: model.UnionGatherOptions, Fields: []builder.Field{
			builder.Int(model.GatherOptionsAxis, 0), builder.Int(model.GatherOptionsBatchDims, 1)}})
		m.IO([]int{in, pos}, []int{out})
		checkRefusedAsTFLM(t, o, diffCase{desc: "batch_dims 1, axis 0", model: m.Bytes(), inputs: []difftest.Vals{i8(6), i32(0, 1)}},
			model.OpGather, "batch_dims")
	}
	{
		m := builder.New("gather_nd with too long tuples")
		in := m.Tensor("in", model.Int8, []int{2, 3}, nil)
		idx := m.Tensor("idx", model.Int32, []int{1, 3}, nil)
		out := m.Tensor("out", model.Int8, []int{1}, nil)
		m.Op(model.OpGatherNd, []int{in, idx}, []int{out}, nil)
		m.IO([]int{in, idx}, []int{out})
		checkRefusedAsTFLM(t, o, diffCase{desc: "3-tuples into 2-D params", model: m.Bytes(), inputs: []difftest.Vals{i8(6), i32(0, 0, 0)}},
			model.OpGatherNd, "index tuples")
	}
	{
		m := builder.New("embedding lookup with 2-D ids")
		ids := m.Tensor("ids", model.Int32, []int{1, 2}, nil)
		table := m.Tensor("table", model.Int8, []int{3, 2}, nil)
		out := m.Tensor("out", model.Int8, []int{2, 2}, nil)
		m.Op(model.OpEmbeddingLookup, []int{ids, table}, []int{out}, nil)
		m.IO([]int{ids, table}, []int{out})
		checkRefusedAsTFLM(t, o, diffCase{desc: "2-D ids", model: m.Bytes(), inputs: []difftest.Vals{i32(0, 1), i8(6)}},
			model.OpEmbeddingLookup, "ids shape")
	}
}
