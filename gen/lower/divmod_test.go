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

// dmBcastShapes draws a shape of rank 1 to maxRank and two input shapes
// from it, each dimension kept or 1, leading ones sometimes dropped (one
// case in four has equal shapes), and their broadcast as output shape.
func dmBcastShapes(r *rand.Rand, maxRank int) (s1, s2, so []int) {
	so = randDims(r, 1+r.IntN(maxRank), 4)
	if r.IntN(4) == 0 {
		return so, so, so
	}
	in := func() []int {
		s := append([]int{}, so...)
		for i := range s {
			if r.IntN(3) == 0 {
				s[i] = 1
			}
		}
		drop := 0
		for drop < len(s)-1 && s[drop] == 1 && r.IntN(2) == 0 {
			drop++
		}
		return s[drop:]
	}
	s1, s2 = in(), in()
	// The output is their broadcast: 1 where both are 1.
	so = append([]int{}, so...)
	for i := range so {
		d1, d2 := dmDim(s1, len(so), i), dmDim(s2, len(so), i)
		so[i] = max(d1, d2)
	}
	return s1, s2, so
}

// dmDim is dimension i of s extended to rank n.
func dmDim(s []int, n, i int) int {
	if j := i - (n - len(s)); j >= 0 {
		return s[j]
	}
	return 1
}

// dmVals are the values of a binary operand: randVals, without zeros when
// noZero (a FLOOR_DIV or int32 DIV divisor) and, for int32, one value in
// two small so that quotients are not all 0, never MinInt32 (whose quotient
// by -1 traps in TFLM).
func dmVals(r *rand.Rand, dt model.DType, n int, noZero bool) difftest.Vals {
	v := difftest.RandVals(r, dt, n)
	for i := range v.Flts {
		if noZero && v.Flts[i] == 0 {
			v.Flts[i] = 0.75
		}
	}
	for i := range v.Ints {
		if r.IntN(2) == 0 {
			v.Ints[i] = int64(r.IntN(41) - 20)
		}
		if v.Ints[i] == math.MinInt32 || noZero && v.Ints[i] == 0 {
			v.Ints[i] = 3
		}
	}
	return v
}

// randDivmod is a random DIV, FLOOR_DIV or FLOOR_MOD of type dt with
// broadcasting up to maxRank, the divisor a constant one case in four,
// and for DIV a random fused activation.
func randDivmod(r *rand.Rand, code model.OpCode, dt model.DType, maxRank int) diffCase {
	s1, s2, so := dmBcastShapes(r, maxRank)
	c := diffCase{outDT: dt, desc: fmt.Sprintf("%s %s %v / %v", code, dt, s1, s2)}
	m := builder.New("divmod differential case")
	noZero := code == model.OpFloorDiv || dt == model.Int32
	var ins []int
	ta := addInput(m, &c, &ins, "a", s1, nil, dmVals(r, dt, shapeProd(s1), false), false)
	tb := addInput(m, &c, &ins, "b", s2, nil, dmVals(r, dt, shapeProd(s2), noZero), r.IntN(4) == 0)
	to := m.Tensor("out", dt, so, nil)
	var opts *builder.Options
	if code == model.OpDiv {
		act := []int{0, 1, 2, 3}[r.IntN(4)] // NONE, RELU, RELU_N1_TO_1, RELU6
		c.desc += fmt.Sprintf(" act %d", act)
		opts = &builder.Options{Type: model.UnionDivOptions, Fields: []builder.Field{builder.Byte(model.DivOptionsFusedActivationFunction, act)}}
	}
	m.Op(code, []int{ta, tb}, []int{to}, opts)
	m.IO(ins, []int{to})
	c.model = m.Bytes()
	return c
}

// TestDivmodMatchesTFLM: DIV (float32, int32), FLOOR_DIV and FLOOR_MOD
// (float32) with broadcasting, against TFLM bit for bit. Divisors are
// non-zero where TFLM cannot divide by zero (FLOOR_DIV, int32 DIV).
func TestDivmodMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	for _, tc := range []struct {
		code    model.OpCode
		dt      model.DType
		maxRank int
	}{
		{model.OpDiv, model.Float32, 5},
		{model.OpDiv, model.Int32, 5},
		{model.OpFloorDiv, model.Float32, 4},
		{model.OpFloorMod, model.Float32, 4},
	} {
		name := tc.code.String() + "_" + strings.ToLower(tc.dt.String())
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(mathSeed(name), 5))
			runDiffCases(t, o, diffN{20, 200}, r, func(r *rand.Rand) diffCase {
				return randDivmod(r, tc.code, tc.dt, tc.maxRank)
			}, nil)
		})
	}
}

// TestDivmodRefusedAsTFLM: the types TFLM's kernels reject, a constant
// zero divisor of FLOOR_DIV (its Invoke fails), and mixed types.
func TestDivmodRefusedAsTFLM(t *testing.T) {
	o := oracle.New(t)
	r := rand.New(rand.NewPCG(21, 22))
	for _, tc := range []struct {
		code model.OpCode
		dt   model.DType
	}{
		{model.OpDiv, model.Int16},
		{model.OpFloorDiv, model.Int32},
		{model.OpFloorDiv, model.Int8},
		{model.OpFloorMod, model.Int32},
		{model.OpFloorMod, model.Int16},
	} {
		c := randDivmod(r, tc.code, tc.dt, 4)
		checkRefusedAsTFLM(t, o, c, tc.code, "not supported")
	}
	m := builder.New("floor_div by a constant zero")
	a := m.Tensor("a", model.Float32, []int{3}, nil)
	b := m.ConstF32("b", []int{3}, []float32{1, 0, 2})
	out := m.Tensor("out", model.Float32, []int{3}, nil)
	m.Op(model.OpFloorDiv, []int{a, b}, []int{out}, nil)
	m.IO([]int{a}, []int{out})
	checkRefusedAsTFLM(t, o, diffCase{desc: "FLOOR_DIV by constant 0", model: m.Bytes(), inputs: []difftest.Vals{{DT: model.Float32, Flts: []float32{1, 2, 3}}}}, model.OpFloorDiv, "holds a zero")

	m = builder.New("div of mixed types")
	a = m.Tensor("a", model.Float32, []int{3}, nil)
	bi := m.Tensor("b", model.Int32, []int{3}, nil)
	out = m.Tensor("out", model.Float32, []int{3}, nil)
	m.Op(model.OpDiv, []int{a, bi}, []int{out}, nil)
	m.IO([]int{a, bi}, []int{out})
	checkRefusedAsTFLM(t, o, diffCase{desc: "DIV float32 / int32", model: m.Bytes(), inputs: []difftest.Vals{{DT: model.Float32, Flts: []float32{1, 2, 3}}, {DT: model.Int32, Ints: []int64{1, 2, 3}}}}, model.OpDiv, "differ")
}

// TestDivmodRankRefused: broadcasting beyond the ranks TFLM's slow
// broadcast paths handle (4 for FLOOR_DIV and FLOOR_MOD, 5 for DIV), which
// abort in TFLM, is refused; equal shapes of any rank are not.
func TestDivmodRankRefused(t *testing.T) {
	for _, tc := range []struct {
		code   model.OpCode
		s1, s2 []int
		ok     bool
	}{
		{model.OpFloorMod, []int{1, 2, 1, 2, 2}, []int{2}, false},
		{model.OpFloorMod, []int{1, 2, 1, 2, 2}, []int{1, 2, 1, 2, 2}, true},
		{model.OpFloorDiv, []int{2, 2, 2, 2}, []int{2}, true},
		{model.OpDiv, []int{1, 2, 1, 2, 2, 1}, []int{1}, false},
		{model.OpDiv, []int{1, 2, 1, 2, 2}, []int{1}, true},
		{model.OpDiv, []int{2, 1, 2, 2, 1, 2}, []int{2, 1, 2, 2, 1, 2}, true},
	} {
		so := tc.s1
		m := builder.New("rank")
		a := m.Tensor("a", model.Float32, tc.s1, nil)
		b := m.Tensor("b", model.Float32, tc.s2, nil)
		out := m.Tensor("out", model.Float32, so, nil)
		m.Op(tc.code, []int{a, b}, []int{out}, nil)
		m.IO([]int{a, b}, []int{out})
		_, err := inProcess(m.Bytes(), make([]byte, 4*shapeProd(tc.s1)), make([]byte, 4*shapeProd(tc.s2)))
		if tc.ok != (err == nil) || err != nil && !strings.Contains(err.Error(), "broadcasts at most") {
			t.Errorf("%s %v and %v: error %v, want ok %v", tc.code, tc.s1, tc.s2, err, tc.ok)
		}
	}
}

// randSqDiff is a random SQUARED_DIFFERENCE of type dt with broadcasting
// up to rank 4, per-tensor quantization for int8 and int16 (zero points
// at the limits often; int16: 0), the second input constant one case in
// four.
func randSqDiff(r *rand.Rand, dt model.DType) diffCase {
	s1, s2, so := dmBcastShapes(r, 4)
	c := diffCase{outDT: dt, desc: fmt.Sprintf("SQUARED_DIFFERENCE %s %v - %v", dt, s1, s2)}
	m := builder.New("squared_difference differential case")
	var ins []int
	ta := addInput(m, &c, &ins, "a", s1, difftest.RandQuant(r, dt), dmVals(r, dt, shapeProd(s1), false), false)
	tb := addInput(m, &c, &ins, "b", s2, difftest.RandQuant(r, dt), dmVals(r, dt, shapeProd(s2), false), r.IntN(4) == 0)
	to := m.Tensor("out", dt, so, difftest.RandQuant(r, dt))
	m.Op(model.OpSquaredDifference, []int{ta, tb}, []int{to}, nil)
	m.IO(ins, []int{to})
	c.model = m.Bytes()
	return c
}

// randAddN is a random ADD_N of 2 to 5 inputs of type dt and rank 1-5,
// some of them constant, int8 inputs sharing one quantization.
func randAddN(r *rand.Rand, dt model.DType) diffCase {
	shape := randDims(r, 1+r.IntN(5), 4)
	n := 2 + r.IntN(4)
	c := diffCase{outDT: dt, desc: fmt.Sprintf("ADD_N %s %d x %v", dt, n, shape)}
	m := builder.New("add_n differential case")
	q := difftest.RandQuant(r, dt)
	var ins, ops []int
	for i := range n {
		konst := i > 0 && r.IntN(4) == 0
		ops = append(ops, addInput(m, &c, &ins, fmt.Sprintf("in%d", i), shape, q, difftest.RandVals(r, dt, shapeProd(shape)), konst))
	}
	to := m.Tensor("out", dt, shape, difftest.RandQuant(r, dt))
	m.Op(model.OpAddN, ops, []int{to}, nil)
	m.IO(ins, []int{to})
	c.model = m.Bytes()
	return c
}

// dmRescaleRefusal allows refusing a rescaling factor TFLM applies with an
// overflowing shift.
func dmRescaleRefusal(err error) bool { return strings.Contains(err.Error(), "too large") }

// TestSquaredDifferenceMatchesTFLM: SQUARED_DIFFERENCE (float32, int32,
// int8, int16) and ADD_N (float32, int8) against TFLM, bit for bit.
func TestSquaredDifferenceMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	for _, tc := range []struct {
		code model.OpCode
		dt   model.DType
	}{
		{model.OpSquaredDifference, model.Float32},
		{model.OpSquaredDifference, model.Int32},
		{model.OpSquaredDifference, model.Int8},
		{model.OpSquaredDifference, model.Int16},
		{model.OpAddN, model.Float32},
		{model.OpAddN, model.Int8},
	} {
		name := tc.code.String() + "_" + strings.ToLower(tc.dt.String())
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(mathSeed(name), 7))
			runDiffCases(t, o, diffN{20, 200}, r, func(r *rand.Rand) diffCase {
				if tc.code == model.OpAddN {
					return randAddN(r, tc.dt)
				}
				return randSqDiff(r, tc.dt)
			}, dmRescaleRefusal)
		})
	}
}

// TestSquaredDifferenceRefusedAsTFLM: types TFLM rejects, int16 zero
// points other than 0, ADD_N inputs of different quantization.
func TestSquaredDifferenceRefusedAsTFLM(t *testing.T) {
	o := oracle.New(t)
	r := rand.New(rand.NewPCG(31, 32))
	checkRefusedAsTFLM(t, o, randSqDiff(r, model.Int64), model.OpSquaredDifference, "not supported")
	checkRefusedAsTFLM(t, o, randAddN(r, model.Int16), model.OpAddN, "not supported")
	checkRefusedAsTFLM(t, o, randAddN(r, model.Int32), model.OpAddN, "not supported")

	m := builder.New("int16 squared difference, zero point 5")
	a := m.Tensor("a", model.Int16, []int{3}, builder.PerTensor(0.5, 5))
	b := m.Tensor("b", model.Int16, []int{3}, builder.PerTensor(0.5, 0))
	out := m.Tensor("out", model.Int16, []int{3}, builder.PerTensor(0.5, 0))
	m.Op(model.OpSquaredDifference, []int{a, b}, []int{out}, nil)
	m.IO([]int{a, b}, []int{out})
	v := difftest.Vals{DT: model.Int16, Ints: []int64{1, 2, 3}}
	checkRefusedAsTFLM(t, o, diffCase{desc: "int16 zero point 5", model: m.Bytes(), inputs: []difftest.Vals{v, v}}, model.OpSquaredDifference, "zero points must be 0")

	m = builder.New("add_n of differently quantized inputs")
	a = m.Tensor("a", model.Int8, []int{3}, builder.PerTensor(0.5, 1))
	b = m.Tensor("b", model.Int8, []int{3}, builder.PerTensor(0.25, 1))
	out = m.Tensor("out", model.Int8, []int{3}, builder.PerTensor(0.5, 0))
	m.Op(model.OpAddN, []int{a, b}, []int{out}, nil)
	m.IO([]int{a, b}, []int{out})
	v = difftest.Vals{DT: model.Int8, Ints: []int64{1, 2, 3}}
	checkRefusedAsTFLM(t, o, diffCase{desc: "ADD_N scales 0.5 and 0.25", model: m.Bytes(), inputs: []difftest.Vals{v, v}}, model.OpAddN, "must be equal")

	m = builder.New("add_n of different shapes")
	a = m.Tensor("a", model.Float32, []int{3}, nil)
	b = m.Tensor("b", model.Float32, []int{1, 3}, nil)
	out = m.Tensor("out", model.Float32, []int{3}, nil)
	m.Op(model.OpAddN, []int{a, b}, []int{out}, nil)
	m.IO([]int{a, b}, []int{out})
	f := difftest.Vals{DT: model.Float32, Flts: []float32{1, 2, 3}}
	checkRefusedAsTFLM(t, o, diffCase{desc: "ADD_N [3] + [1 3]", model: m.Bytes(), inputs: []difftest.Vals{f, f}}, model.OpAddN, "differs in type or shape")
}

// randDivInt8 is a random int8 DIV with broadcasting up to rank 5,
// per-tensor quantization (zero points often at the limits), the divisor
// a constant one case in four and a random fused activation. Divisor
// values at their zero point, where TFLM's result is undefined, are moved
// off it unless zeroDivisor.
func randDivInt8(r *rand.Rand, zeroDivisor bool) diffCase {
	s1, s2, so := dmBcastShapes(r, 5)
	c := diffCase{outDT: model.Int8, desc: fmt.Sprintf("DIV int8 %v / %v", s1, s2)}
	m := builder.New("int8 div differential case")
	qa, qb, qo := difftest.RandQuant(r, model.Int8), difftest.RandQuant(r, model.Int8), difftest.RandQuant(r, model.Int8)
	if r.IntN(3) == 0 {
		// Scales of one order, so that quotients fill the output range.
		qb.Scale[0] = qa.Scale[0] * float32(0.5+r.Float64())
		qo.Scale[0] = float32(0.05 + 2*r.Float64())
	}
	vb := difftest.RandVals(r, model.Int8, shapeProd(s2))
	for i := range vb.Ints {
		if zeroDivisor && r.IntN(3) == 0 {
			vb.Ints[i] = qb.ZeroPoint[0]
		}
		if vb.Ints[i] == qb.ZeroPoint[0] && !zeroDivisor {
			vb.Ints[i] = qb.ZeroPoint[0] ^ 1
		}
	}
	c.desc += fmt.Sprintf(" scales %g %g %g zps %d %d %d", qa.Scale[0], qb.Scale[0], qo.Scale[0], qa.ZeroPoint[0], qb.ZeroPoint[0], qo.ZeroPoint[0])
	var ins []int
	ta := addInput(m, &c, &ins, "a", s1, qa, difftest.RandVals(r, model.Int8, shapeProd(s1)), false)
	tb := addInput(m, &c, &ins, "b", s2, qb, vb, r.IntN(4) == 0)
	to := m.Tensor("out", model.Int8, so, qo)
	act := []int{0, 1, 2, 3}[r.IntN(4)]
	c.desc += fmt.Sprintf(" act %d", act)
	m.Op(model.OpDiv, []int{ta, tb}, []int{to}, &builder.Options{Type: model.UnionDivOptions, Fields: []builder.Field{builder.Byte(model.DivOptionsFusedActivationFunction, act)}})
	m.IO(ins, []int{to})
	c.model = m.Bytes()
	return c
}

// TestDivInt8MatchesTFLM: int8 DIV against TFLM bit for bit, with
// divisors off their zero point and (DIV_int8_zero_divisor) with divisors
// at their zero point too. Output multipliers of 2^22 and more are
// refused (divMaxOutShift).
func TestDivInt8MatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	for _, zero := range []bool{false, true} {
		name := "DIV_int8"
		if zero {
			name += "_zero_divisor"
		}
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(mathSeed(name), 5))
			runDiffCases(t, o, diffN{20, 200}, r, func(r *rand.Rand) diffCase {
				return randDivInt8(r, zero)
			}, dmRescaleRefusal)
		})
	}
}

// TestDivInt8LargeMultiplierRefused: an int8 DIV whose output multiplier
// is 2^22 or more (divMaxOutShift), which TFLM would apply with a negative
// shift count, is refused.
func TestDivInt8LargeMultiplierRefused(t *testing.T) {
	m := builder.New("int8 div with a huge multiplier")
	a := m.Tensor("a", model.Int8, []int{3}, builder.PerTensor(16, 0))
	b := m.Tensor("b", model.Int8, []int{3}, builder.PerTensor(1.0/1024, 0))
	out := m.Tensor("out", model.Int8, []int{3}, builder.PerTensor(1.0/1024, 0))
	m.Op(model.OpDiv, []int{a, b}, []int{out}, nil)
	m.IO([]int{a, b}, []int{out})
	_, err := inProcess(m.Bytes(), make([]byte, 3), make([]byte, 3))
	if err == nil || !strings.Contains(err.Error(), "too large") || !strings.Contains(err.Error(), "(DIV)") {
		t.Errorf("error %v, want a refusal of the output multiplier", err)
	}
}
