package lower

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/oracle"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// mathSeed derives a test's random seed from its name.
func mathSeed(name string) uint64 {
	seed := uint64(0)
	for _, b := range name {
		seed = seed*31 + uint64(b)
	}
	return seed
}

// mathRoundingVals draws float32 inputs for the rounding operators: the
// values of randVals with one in four replaced by a half-integer, a value
// near an integer or one beyond 2^23 (where every float32 is an integer).
func mathRoundingVals(r *rand.Rand, n int) diffVals {
	v := randVals(r, model.Float32, n)
	for i := range v.flts {
		switch r.IntN(8) {
		case 0:
			v.flts[i] = float32(r.IntN(41)-20) + 0.5
		case 1:
			v.flts[i] = float32(r.IntN(41)-20) + float32(r.NormFloat64()*1e-4)
		case 2:
			v.flts[i] = float32(math.Ldexp(1+r.Float64(), 23+r.IntN(10))) * float32(1-2*r.IntN(2))
		}
	}
	return v
}

// randMathUnary is a random single-operator model of a unary operator of
// type dt, rank 1-5 (a [256] case one time in eight).
func randMathUnary(r *rand.Rand, code model.OpCode, dt model.DType, vals func(r *rand.Rand, n int) diffVals) diffCase {
	shape := randDims(r, 1+r.IntN(5), 4)
	if r.IntN(8) == 0 {
		shape = []int{256}
	}
	c := diffCase{outDT: dt, desc: fmt.Sprintf("%s %s %v", code, dt, shape)}
	m := builder.New("math differential case")
	q := randQuant(r, dt)
	in := m.Tensor("in", dt, shape, q)
	out := m.Tensor("out", dt, shape, q)
	m.Op(code, []int{in}, []int{out}, nil)
	m.IO([]int{in}, []int{out})
	c.model = m.Bytes()
	c.inputs = []diffVals{vals(r, shapeProd(shape))}
	return c
}

// TestMathRoundingMatchesTFLM: FLOOR, CEIL and ROUND (float32) against
// TFLM, bit for bit, with half-integers for ROUND's ties to even.
func TestMathRoundingMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	for _, code := range []model.OpCode{model.OpFloor, model.OpCeil, model.OpRound} {
		name := code.String() + "_float32"
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(mathSeed(name), 3))
			runDiffCases(t, o, diffCount(20, 200), r, func(r *rand.Rand) diffCase {
				return randMathUnary(r, code, model.Float32, mathRoundingVals)
			}, nil)
		})
	}
}

// TestMathRoundingRefusedAsTFLM: FLOOR, CEIL and ROUND run for float32
// only; CEIL and ROUND also need the input's shape on the output.
func TestMathRoundingRefusedAsTFLM(t *testing.T) {
	o := oracle.New(t)
	r := rand.New(rand.NewPCG(11, 12))
	for _, code := range []model.OpCode{model.OpFloor, model.OpCeil, model.OpRound} {
		for _, dt := range []model.DType{model.Int8, model.Int32} {
			c := randMathUnary(r, code, dt, func(r *rand.Rand, n int) diffVals { return randVals(r, dt, n) })
			checkRefusedAsTFLM(t, o, c, code, "not supported")
		}
	}
	for _, code := range []model.OpCode{model.OpCeil, model.OpRound} {
		m := builder.New("reshaping " + code.String())
		in := m.Tensor("in", model.Float32, []int{2, 3}, nil)
		out := m.Tensor("out", model.Float32, []int{3, 2}, nil)
		m.Op(code, []int{in}, []int{out}, nil)
		m.IO([]int{in}, []int{out})
		c := diffCase{desc: code.String() + " [2 3] to [3 2]", model: m.Bytes(), inputs: []diffVals{randVals(r, model.Float32, 6)}}
		checkRefusedAsTFLM(t, o, c, code, "differs from input shape")
	}
}
