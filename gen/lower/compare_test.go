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

// randBcastShapes draws an output shape of rank 0-5 and k input shapes
// that broadcast to it: each a suffix of the output's dimensions, every one
// kept or made 1. One case in eight has all shapes equal.
func randBcastShapes(r *rand.Rand, k int) (ins [][]int, out []int) {
	out = randDims(r, r.IntN(6), 4)
	if r.IntN(10) == 0 {
		out = []int{}
	}
	same := r.IntN(8) == 0
	for range k {
		if same {
			ins = append(ins, append([]int{}, out...))
			continue
		}
		s := append([]int{}, out[len(out)-r.IntN(len(out)+1):]...)
		for i := range s {
			if r.IntN(3) == 0 {
				s[i] = 1
			}
		}
		ins = append(ins, s)
	}
	// The output is the broadcast of the inputs (some dimensions of out
	// may have been made 1 in all of them).
	res := make([]int, len(out))
	for i := range res {
		res[i] = 1
	}
	for _, s := range ins {
		for j, d := range s {
			res[len(res)-len(s)+j] = max(res[len(res)-len(s)+j], d)
		}
	}
	return ins, res
}

// randCmpVals draws n values of type dt from a small pool half the time,
// so that equal values are common; float32 includes NaN and infinities.
func randCmpVals(r *rand.Rand, dt model.DType, n int) difftest.Vals {
	v := difftest.RandVals(r, dt, n)
	pool := r.IntN(2) == 0
	for i := range n {
		switch dt {
		case model.Bool:
			v.Ints[i] = int64(r.IntN(2))
		case model.Float32:
			if pool {
				v.Flts[i] = []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.5, float32(math.Inf(1)), float32(math.NaN())}[r.IntN(7)]
			} else if r.IntN(20) == 0 {
				v.Flts[i] = float32(math.NaN())
			}
		case model.Int64:
			if !pool {
				v.Ints[i] = int64(r.Uint64())
			}
			fallthrough
		default:
			if pool {
				lo, hi := dt.IntRange()
				v.Ints[i] = []int64{int64(lo), int64(hi), -1, 0, 1, 2}[r.IntN(6)]
				if dt == model.Int64 && r.IntN(3) == 0 {
					v.Ints[i] = []int64{math.MinInt64, math.MaxInt64}[r.IntN(2)]
				}
			}
		}
	}
	return v
}

// randCmpQuant is an int8 quantization TFLM's comparisons accept: a scale
// in [2^-12, 1) (it aborts at 1 and above), the zero point often at the
// type limits.
func randCmpQuant(r *rand.Rand) *builder.Quant {
	q := difftest.RandQuant(r, model.Int8)
	q.Scale[0] = float32(math.Exp2(-12 + 11.99*r.Float64()))
	return q
}

// randBinaryBool is a random two-input operator with a bool output
// (comparisons, LOGICAL_AND, LOGICAL_OR) over inputs of type dt,
// broadcasting, one input constant one case in five.
func randBinaryBool(r *rand.Rand, code model.OpCode, dt model.DType) diffCase {
	shapes, out := randBcastShapes(r, 2)
	c := diffCase{outDT: model.Bool, desc: fmt.Sprintf("%s %s %v %v -> %v", code, dt, shapes[0], shapes[1], out)}
	m := builder.New("binary bool differential case")
	var q1, q2 *builder.Quant
	if dt == model.Int8 || dt == model.Int16 {
		q1 = randCmpQuant(r)
		q2 = q1
		if r.IntN(2) == 0 {
			q2 = randCmpQuant(r)
		}
		c.desc += fmt.Sprintf(" q (%g, %d) (%g, %d)", q1.Scale[0], q1.ZeroPoint[0], q2.Scale[0], q2.ZeroPoint[0])
	}
	var ins []int
	k := -1
	if r.IntN(5) == 0 {
		k = r.IntN(2)
	}
	t1 := addInput(m, &c, &ins, "a", shapes[0], q1, randCmpVals(r, dt, shapeProd(shapes[0])), k == 0)
	t2 := addInput(m, &c, &ins, "b", shapes[1], q2, randCmpVals(r, dt, shapeProd(shapes[1])), k == 1)
	to := m.Tensor("out", model.Bool, out, nil)
	m.Op(code, []int{t1, t2}, []int{to}, nil)
	m.IO(ins, []int{to})
	c.model = m.Bytes()
	return c
}

// TestCompareMatchesTFLM: every comparison and logical operator on every
// type TFLM's Eval takes, broadcasting, against TFLM.
func TestCompareMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	type combo struct {
		code model.OpCode
		dt   model.DType
	}
	var combos []combo
	for _, code := range []model.OpCode{model.OpEqual, model.OpNotEqual, model.OpLess, model.OpLessEqual, model.OpGreater, model.OpGreaterEqual} {
		for _, dt := range []model.DType{model.Float32, model.Int32, model.Int64, model.Int8} {
			combos = append(combos, combo{code, dt})
		}
		if code == model.OpEqual || code == model.OpNotEqual {
			combos = append(combos, combo{code, model.Bool})
		}
	}
	combos = append(combos, combo{model.OpLogicalAnd, model.Bool}, combo{model.OpLogicalOr, model.Bool})
	for _, tc := range combos {
		name := fmt.Sprintf("%s_%s", tc.code, tc.dt)
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(tc.code), uint64(tc.dt)+100))
			runDiffCases(t, o, diffN{20, 200}, r, func(r *rand.Rand) diffCase { return randBinaryBool(r, tc.code, tc.dt) }, nil)
		})
	}
}

// TestCompareRefusedAsTFLM: type combinations TFLM's Eval rejects.
func TestCompareRefusedAsTFLM(t *testing.T) {
	o := oracle.New(t)
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		code model.OpCode
		dt   model.DType
	}{
		{model.OpEqual, model.Int16},
		{model.OpLess, model.Bool},
		{model.OpGreaterEqual, model.Int16},
	} {
		checkRefusedAsTFLM(t, o, randBinaryBool(r, tc.code, tc.dt), tc.code, "not supported")
	}
	// TFLM's logical operators do not check their types (they read any
	// input as bytes of bools); tflm-gen takes bool only.
	for _, tc := range []struct {
		code model.OpCode
		dt   model.DType
	}{{model.OpLogicalAnd, model.Int8}, {model.OpLogicalOr, model.Float32}} {
		c := randBinaryBool(r, tc.code, tc.dt)
		var raws [][]byte
		for _, v := range c.inputs {
			raws = append(raws, v.Raw())
		}
		if _, err := inProcess(c.model, raws...); err == nil || !strings.Contains(err.Error(), "bool only") {
			t.Errorf("%s: error %v, want a refusal", c.desc, err)
		}
	}
}

// TestCompareGreaterInt16Refused: TFLM runs int16 GREATER without its
// rescaling (Prepare sets it up for int8 only), so every result is false
// whatever the inputs; tflm-gen refuses the model instead.
func TestCompareGreaterInt16Refused(t *testing.T) {
	o := oracle.New(t)
	r := rand.New(rand.NewPCG(5, 6))
	c := randBinaryBool(r, model.OpGreater, model.Int16)
	for len(c.inputs) != 2 || len(c.inputs[0].Ints) == 0 || len(c.inputs[1].Ints) == 0 {
		c = randBinaryBool(r, model.OpGreater, model.Int16)
	}
	// a > b everywhere, where a is the type maximum and b the minimum.
	for i := range c.inputs[0].Ints {
		c.inputs[0].Ints[i] = math.MaxInt16
	}
	for i := range c.inputs[1].Ints {
		c.inputs[1].Ints[i] = math.MinInt16
	}
	want, err := o.Run(c.model, c.inputs[0].CSV(), c.inputs[1].CSV())
	oracle.SkipIfNotRecorded(t, err, c.desc)
	if err != nil {
		t.Fatalf("%s: %v", c.desc, err)
	}
	if s := strings.Join(want[0], ","); strings.Contains(s, "1") {
		t.Errorf("%s: TFLM gives %s, expected all false", c.desc, s)
	}
	_, err = inProcess(c.model, c.inputs[0].Raw(), c.inputs[1].Raw())
	if err == nil || !strings.Contains(err.Error(), "int16 rescaling unset") {
		t.Errorf("%s: error %v", c.desc, err)
	}
}

// randSelect is a random SELECT_V2 of type dt: three broadcast inputs (all
// one-element of mixed shapes one case in ten), one of x and y constant
// one case in five.
func randSelect(r *rand.Rand, dt model.DType) diffCase {
	shapes, out := randBcastShapes(r, 3)
	if r.IntN(10) == 0 {
		shapes = [][]int{randDims(r, r.IntN(3), 1), randDims(r, r.IntN(3), 1), randDims(r, r.IntN(3), 1)}
		out = randDims(r, r.IntN(3), 1)
	} else if rk := max(len(shapes[0]), len(shapes[1]), len(shapes[2])); r.IntN(4) > 0 {
		out = out[len(out)-rk:] // TFLM wants the largest input rank
	}
	c := diffCase{outDT: dt, desc: fmt.Sprintf("SELECT_V2 %s %v %v %v -> %v", dt, shapes[0], shapes[1], shapes[2], out)}
	m := builder.New("select_v2 differential case")
	q := difftest.RandQuant(r, dt)
	var ins []int
	k := -1
	if r.IntN(5) == 0 {
		k = 1 + r.IntN(2)
	}
	tc := addInput(m, &c, &ins, "cond", shapes[0], nil, randCmpVals(r, model.Bool, shapeProd(shapes[0])), false)
	tx := addInput(m, &c, &ins, "x", shapes[1], q, randCmpVals(r, dt, shapeProd(shapes[1])), k == 1)
	ty := addInput(m, &c, &ins, "y", shapes[2], q, randCmpVals(r, dt, shapeProd(shapes[2])), k == 2)
	to := m.Tensor("out", dt, out, q)
	m.Op(model.OpSelectV2, []int{tc, tx, ty}, []int{to}, nil)
	m.IO(ins, []int{to})
	c.model = m.Bytes()
	return c
}

// TestSelectMatchesTFLM: SELECT_V2 of every type TFLM's Eval takes.
func TestSelectMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	for _, dt := range []model.DType{model.Float32, model.Int8, model.Int16} {
		t.Run("SELECT_V2_"+dt.String(), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(dt), 123))
			runDiffCases(t, o, diffN{20, 200}, r, func(r *rand.Rand) diffCase { return randSelect(r, dt) }, nil)
		})
	}
}

// TestSelectRefusedAsTFLM: types TFLM's SELECT_V2 rejects, a condition
// that is not bool, and shapes that do not broadcast.
func TestSelectRefusedAsTFLM(t *testing.T) {
	o := oracle.New(t)
	r := rand.New(rand.NewPCG(8, 9))
	checkRefusedAsTFLM(t, o, randSelect(r, model.Int32), model.OpSelectV2, "not supported")
	checkRefusedAsTFLM(t, o, randSelect(r, model.Bool), model.OpSelectV2, "not supported")
	mk := func(condDT model.DType, cs, xs, ys, os []int) diffCase {
		m := builder.New("select_v2 refused")
		tc := m.Tensor("cond", condDT, cs, nil)
		tx := m.Tensor("x", model.Float32, xs, nil)
		ty := m.Tensor("y", model.Float32, ys, nil)
		to := m.Tensor("out", model.Float32, os, nil)
		m.Op(model.OpSelectV2, []int{tc, tx, ty}, []int{to}, nil)
		m.IO([]int{tc, tx, ty}, []int{to})
		return diffCase{model: m.Bytes(), desc: fmt.Sprintf("SELECT_V2 %s %v %v %v -> %v", condDT, cs, xs, ys, os),
			inputs: []difftest.Vals{randCmpVals(r, condDT, shapeProd(cs)), difftest.RandVals(r, model.Float32, shapeProd(xs)), difftest.RandVals(r, model.Float32, shapeProd(ys))}}
	}
	checkRefusedAsTFLM(t, o, mk(model.Int8, []int{2}, []int{2}, []int{2}, []int{2}), model.OpSelectV2, "want bool")
	checkRefusedAsTFLM(t, o, mk(model.Bool, []int{2}, []int{3}, []int{2}, []int{3}), model.OpSelectV2, "do not broadcast")
	checkRefusedAsTFLM(t, o, mk(model.Bool, []int{2}, []int{1}, []int{2}, []int{3}), model.OpSelectV2, "not the broadcast")
	checkRefusedAsTFLM(t, o, mk(model.Bool, []int{2}, []int{1}, []int{2}, []int{1, 2}), model.OpSelectV2, "rank")
}
