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

// fillTDummy adds a graph input that feeds nothing, for models whose
// operator reads only constants (the oracle needs one graph input).
func fillTDummy(m *builder.Model, c *diffCase, ins *[]int) {
	*ins = append(*ins, m.Tensor("unused", model.Int8, []int{1}, nil))
	c.inputs = append(c.inputs, difftest.Vals{DT: model.Int8, Ints: []int64{0}})
}

// fillTShape is a constant 1-D shape tensor of type dt holding dims.
func fillTShape(m *builder.Model, name string, dt model.DType, dims []int) int {
	v := difftest.Vals{DT: dt}
	for _, d := range dims {
		v.Ints = append(v.Ints, int64(d))
		v.Flts = append(v.Flts, float32(d))
	}
	return v.ConstTensor(m, name, []int{len(dims)}, nil)
}

// randZerosLike is a random ZEROS_LIKE of type dt.
func randZerosLike(r *rand.Rand, dt model.DType) diffCase {
	shape := randDims(r, r.IntN(6), 4)
	c := diffCase{outDT: dt, desc: fmt.Sprintf("ZEROS_LIKE %s %v", dt, shape)}
	m := builder.New("zeros_like differential case")
	q := difftest.RandQuant(r, dt)
	var ins []int
	ti := addInput(m, &c, &ins, "in", shape, q, randCmpVals(r, dt, shapeProd(shape)), false)
	to := m.Tensor("out", dt, shape, q)
	m.Op(model.OpZerosLike, []int{ti}, []int{to}, nil)
	m.IO(ins, []int{to})
	c.model = m.Bytes()
	return c
}

// randFill is a random FILL of type dt: dims of type dimsDT, the value a
// graph input or (one case in three) a constant.
func randFill(r *rand.Rand, dt, dimsDT model.DType) diffCase {
	shape := randDims(r, r.IntN(6), 4)
	c := diffCase{outDT: dt, desc: fmt.Sprintf("FILL %s dims %s %v", dt, dimsDT, shape)}
	m := builder.New("fill differential case")
	q := difftest.RandQuant(r, dt)
	var ins []int
	td := fillTShape(m, "dims", dimsDT, shape)
	konst := r.IntN(3) == 0
	tv := addInput(m, &c, &ins, "value", []int{}, q, randCmpVals(r, dt, 1), konst)
	if konst {
		fillTDummy(m, &c, &ins)
	}
	to := m.Tensor("out", dt, shape, q)
	m.Op(model.OpFill, []int{td, tv}, []int{to}, nil)
	m.IO(ins, []int{to})
	c.model = m.Bytes()
	return c
}

// randBroadcastTo is a random BROADCAST_TO of type dt to a shape of type
// shapeDT, the input constant one case in six.
func randBroadcastTo(r *rand.Rand, dt, shapeDT model.DType) diffCase {
	shapes, out := randBcastShapes(r, 1)
	in := shapes[0]
	c := diffCase{outDT: dt, desc: fmt.Sprintf("BROADCAST_TO %s %v to %v (%s)", dt, in, out, shapeDT)}
	m := builder.New("broadcast_to differential case")
	q := difftest.RandQuant(r, dt)
	var ins []int
	konst := r.IntN(6) == 0
	ti := addInput(m, &c, &ins, "in", in, q, randCmpVals(r, dt, shapeProd(in)), konst)
	if konst {
		fillTDummy(m, &c, &ins)
	}
	ts := fillTShape(m, "shape", shapeDT, out)
	to := m.Tensor("out", dt, out, q)
	m.Op(model.OpBroadcastTo, []int{ti, ts}, []int{to}, nil)
	m.IO(ins, []int{to})
	c.model = m.Bytes()
	return c
}

// randBroadcastArgs is a random BROADCAST_ARGS of two constant shapes of
// type dt (a graph input feeds nothing).
func randBroadcastArgs(r *rand.Rand, dt model.DType) diffCase {
	shapes, out := randBcastShapes(r, 2)
	for len(shapes[0]) == 0 || len(shapes[1]) == 0 {
		shapes, out = randBcastShapes(r, 2)
	}
	out = out[len(out)-max(len(shapes[0]), len(shapes[1])):]
	c := diffCase{outDT: dt, desc: fmt.Sprintf("BROADCAST_ARGS %s %v %v -> %v", dt, shapes[0], shapes[1], out)}
	m := builder.New("broadcast_args differential case")
	var ins []int
	fillTDummy(m, &c, &ins)
	t1 := fillTShape(m, "s1", dt, shapes[0])
	t2 := fillTShape(m, "s2", dt, shapes[1])
	to := m.Tensor("out", dt, []int{len(out)}, nil)
	m.Op(model.OpBroadcastArgs, []int{t1, t2}, []int{to}, nil)
	m.IO(ins, []int{to})
	c.model = m.Bytes()
	return c
}

// TestFillMatchesTFLM: ZEROS_LIKE, FILL, BROADCAST_TO and BROADCAST_ARGS
// of the types TFLM takes, against TFLM.
func TestFillMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	type tcase struct {
		name string
		gen  func(r *rand.Rand) diffCase
	}
	var cases []tcase
	for _, dt := range []model.DType{model.Int8, model.Int32, model.Int64, model.Float32} {
		cases = append(cases, tcase{"ZEROS_LIKE_" + dt.String(), func(r *rand.Rand) diffCase { return randZerosLike(r, dt) }})
	}
	for _, dt := range []model.DType{model.Int8, model.Int32, model.Float32} {
		cases = append(cases, tcase{"FILL_" + dt.String(), func(r *rand.Rand) diffCase {
			dims := []model.DType{model.Int8, model.Int16, model.Int32, model.Int64}[r.IntN(4)]
			return randFill(r, dt, dims)
		}})
	}
	for _, dt := range []model.DType{model.Int8, model.Int16, model.Int32, model.Int64, model.Float32, model.Bool} {
		cases = append(cases, tcase{"BROADCAST_TO_" + dt.String(), func(r *rand.Rand) diffCase {
			return randBroadcastTo(r, dt, []model.DType{model.Int32, model.Int64}[r.IntN(2)])
		}})
	}
	for _, dt := range []model.DType{model.Int32, model.Int64} {
		cases = append(cases, tcase{"BROADCAST_ARGS_" + dt.String(), func(r *rand.Rand) diffCase { return randBroadcastArgs(r, dt) }})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			seed := uint64(0)
			for _, b := range tc.name {
				seed = seed*31 + uint64(b)
			}
			runDiffCases(t, o, diffN{20, 200}, rand.New(rand.NewPCG(seed, 17)), tc.gen, nil)
		})
	}
}

// TestFillRefusedAsTFLM: types and shapes TFLM rejects.
func TestFillRefusedAsTFLM(t *testing.T) {
	o := oracle.New(t)
	r := rand.New(rand.NewPCG(2, 3))
	checkRefusedAsTFLM(t, o, randZerosLike(r, model.Int16), model.OpZerosLike, "not supported")
	checkRefusedAsTFLM(t, o, randFill(r, model.Int16, model.Int32), model.OpFill, "not supported")
	checkRefusedAsTFLM(t, o, randFill(r, model.Float32, model.Float32), model.OpFill, "dims type")
	// FILL dims that differ from the output shape; a 1-element value that
	// is not a scalar.
	m := builder.New("fill refused")
	td := fillTShape(m, "dims", model.Int32, []int{2, 3})
	tv := m.Tensor("value", model.Float32, []int{}, nil)
	to := m.Tensor("out", model.Float32, []int{3, 2}, nil)
	m.Op(model.OpFill, []int{td, tv}, []int{to}, nil)
	m.IO([]int{tv}, []int{to})
	checkRefusedAsTFLM(t, o, diffCase{model: m.Bytes(), desc: "FILL dims [2 3] into [3 2]", inputs: []difftest.Vals{{DT: model.Float32, Flts: []float32{1}}}}, model.OpFill, "does not match")
	m = builder.New("fill refused")
	td = fillTShape(m, "dims", model.Int32, []int{2})
	tv = m.Tensor("value", model.Float32, []int{1}, nil)
	to = m.Tensor("out", model.Float32, []int{2}, nil)
	m.Op(model.OpFill, []int{td, tv}, []int{to}, nil)
	m.IO([]int{tv}, []int{to})
	checkRefusedAsTFLM(t, o, diffCase{model: m.Bytes(), desc: "FILL value [1]", inputs: []difftest.Vals{{DT: model.Float32, Flts: []float32{1}}}}, model.OpFill, "scalar")
	// BROADCAST_TO: a shape that the input does not broadcast to, 6-D.
	for _, tc := range []struct {
		in, out []int
		want    string
	}{
		{[]int{2, 3}, []int{3, 3}, "does not broadcast"},
		{[]int{1}, []int{1, 1, 1, 1, 1, 2}, "more than 5"},
		{[]int{1, 2, 1}, []int{2, 1}, "more dimensions"},
	} {
		m := builder.New("broadcast_to refused")
		ti := m.Tensor("in", model.Float32, tc.in, nil)
		ts := fillTShape(m, "shape", model.Int32, tc.out)
		to := m.Tensor("out", model.Float32, tc.out, nil)
		m.Op(model.OpBroadcastTo, []int{ti, ts}, []int{to}, nil)
		m.IO([]int{ti}, []int{to})
		c := diffCase{model: m.Bytes(), desc: fmt.Sprintf("BROADCAST_TO %v to %v", tc.in, tc.out), inputs: []difftest.Vals{difftest.RandVals(r, model.Float32, shapeProd(tc.in))}}
		checkRefusedAsTFLM(t, o, c, model.OpBroadcastTo, tc.want)
	}
	checkRefusedAsTFLM(t, o, randBroadcastArgs(r, model.Int16), model.OpBroadcastArgs, "not supported")
}
