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

// castTRange is the value range of an integer CAST target.
func castTRange(dt model.DType) (lo, hi float64) {
	if dt == model.Uint32 {
		return 0, math.MaxUint32
	}
	l, h := dt.IntRange()
	return float64(l), float64(h)
}

// randCastVals draws n inputs of type from; float32 values lie inside the
// range of an integer target to (outside it C++ leaves the result
// undefined), with halves, small values and signed zeros.
func randCastVals(r *rand.Rand, from, to model.DType, n int) difftest.Vals {
	if from == model.Bool {
		return randCmpVals(r, from, n)
	}
	if from != model.Float32 {
		return difftest.RandVals(r, from, n)
	}
	if to == model.Float32 {
		v := randCmpVals(r, from, n)
		return v
	}
	lo, hi := castTRange(to)
	v := difftest.Vals{DT: from}
	for len(v.Flts) < n {
		var f float32
		switch r.IntN(4) {
		case 0:
			f = []float32{0, float32(math.Copysign(0, -1)), 0.5, -0.5, 0.99, -0.99, 1.5, -1.5}[r.IntN(8)]
		case 1:
			f = float32(r.NormFloat64() * 100)
		default:
			f = float32(lo + (hi-lo)*r.Float64())
		}
		if float64(f) <= lo-1 || float64(f) >= hi+1 {
			continue
		}
		v.Flts = append(v.Flts, f)
	}
	return v
}

// randCast is a random CAST from one type to another; via, when not 0, is
// a middle type (uint32, which cannot be a graph input or output): from ->
// via -> to, two CASTs. The input is constant one case in eight (then a
// second graph input feeds nothing, as the oracle needs one).
func randCast(r *rand.Rand, from, via, to model.DType) diffCase {
	shape := randDims(r, r.IntN(5), 5)
	c := diffCase{outDT: to, desc: fmt.Sprintf("CAST %s to %s %v", from, to, shape)}
	target := to
	if via != 0 {
		target = via
		c.desc += " via " + via.String()
	}
	m := builder.New("cast differential case")
	var ins []int
	konst := r.IntN(8) == 0
	ti := addInput(m, &c, &ins, "in", shape, difftest.RandQuant(r, from), randCastVals(r, from, target, shapeProd(shape)), konst)
	if konst {
		ins = append(ins, m.Tensor("unused", model.Int8, []int{1}, nil))
		c.inputs = append(c.inputs, difftest.Vals{DT: model.Int8, Ints: []int64{0}})
	}
	cur := ti
	if via != 0 {
		mid := m.Tensor("mid", via, shape, nil)
		m.Op(model.OpCast, []int{cur}, []int{mid}, nil)
		cur = mid
	}
	to_ := m.Tensor("out", to, shape, difftest.RandQuant(r, to))
	m.Op(model.OpCast, []int{cur}, []int{to_}, nil)
	m.IO(ins, []int{to_})
	c.model = m.Bytes()
	return c
}

// TestCastMatchesTFLM: CAST between every pair of types TFLM's Eval takes,
// uint32 through a second CAST, against TFLM.
func TestCastMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	type combo struct{ from, via, to model.DType }
	var combos []combo
	for _, from := range []model.DType{model.Int8, model.Int16, model.Int32, model.Float32, model.Bool} {
		for _, to := range []model.DType{model.Int8, model.Int16, model.Int32, model.Float32} {
			combos = append(combos, combo{from, 0, to})
		}
	}
	for _, from := range []model.DType{model.Int8, model.Int16, model.Float32, model.Bool} {
		combos = append(combos, combo{from, model.Uint32, model.Int32})
	}
	for _, to := range []model.DType{model.Int8, model.Int16, model.Int32, model.Float32} {
		combos = append(combos, combo{model.Int32, model.Uint32, to})
	}
	for _, tc := range combos {
		name := fmt.Sprintf("CAST_%s_to_%s", tc.from, tc.to)
		switch {
		case tc.via != 0 && tc.from == model.Int32:
			name = fmt.Sprintf("CAST_uint32_to_%s", tc.to)
		case tc.via != 0:
			name = fmt.Sprintf("CAST_%s_to_uint32", tc.from)
		}
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(tc.from)*31+uint64(tc.via), uint64(tc.to)))
			runDiffCases(t, o, diffN{20, 200}, r, func(r *rand.Rand) diffCase { return randCast(r, tc.from, tc.via, tc.to) }, nil)
		})
	}
}

// TestCastRefusedAsTFLM: int64 in or out and bool out, which TFLM's Eval
// rejects.
func TestCastRefusedAsTFLM(t *testing.T) {
	o := oracle.New(t)
	r := rand.New(rand.NewPCG(1, 5))
	checkRefusedAsTFLM(t, o, randCast(r, model.Int64, 0, model.Int32), model.OpCast, "not supported")
	checkRefusedAsTFLM(t, o, randCast(r, model.Int32, 0, model.Int64), model.OpCast, "not supported")
	checkRefusedAsTFLM(t, o, randCast(r, model.Float32, 0, model.Bool), model.OpCast, "not supported")
	// uint32 tensors have byte views only, so they cannot be graph inputs
	// or outputs (TFLM runs such models).
	m := builder.New("cast to a uint32 output")
	in := m.Tensor("in", model.Int32, []int{3}, nil)
	out := m.Tensor("out", model.Uint32, []int{3}, nil)
	m.Op(model.OpCast, []int{in}, []int{out}, nil)
	m.IO([]int{in}, []int{out})
	if _, err := inProcess(m.Bytes(), make([]byte, 12)); err == nil || !strings.Contains(err.Error(), "not supported for model inputs and outputs") {
		t.Errorf("uint32 graph output: error %v", err)
	}
}

// TestCastUint32ConstMatchesTFLM: a constant uint32 tensor (values over
// the whole range) cast to int32, int8 and float32, against TFLM.
func TestCastUint32ConstMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	r := rand.New(rand.NewPCG(32, 32))
	for _, to := range []model.DType{model.Int32, model.Int8, model.Float32} {
		name := fmt.Sprintf("CAST_uint32_const_to_%s", to)
		t.Run(name, func(t *testing.T) {
			runDiffCases(t, o, diffN{20, 200}, r, func(r *rand.Rand) diffCase {
				shape := randDims(r, 1+r.IntN(4), 4)
				var raw []byte
				for range shapeProd(shape) {
					v := r.Uint32()
					if r.IntN(4) == 0 {
						v = []uint32{0, 1, math.MaxInt32, 1 << 31, math.MaxUint32}[r.IntN(5)]
					}
					raw = append(raw, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
				}
				m := builder.New("cast of a uint32 constant")
				k := m.Const("k", model.Uint32, shape, nil, raw)
				out := m.Tensor("out", to, shape, nil)
				m.Op(model.OpCast, []int{k}, []int{out}, nil)
				unused := m.Tensor("unused", model.Int8, []int{1}, nil)
				m.IO([]int{unused}, []int{out})
				return diffCase{desc: fmt.Sprintf("CAST uint32 constant %v to %s", shape, to), model: m.Bytes(), outDT: to,
					inputs: []difftest.Vals{{DT: model.Int8, Ints: []int64{0}}}}
			}, nil)
		})
	}
}
