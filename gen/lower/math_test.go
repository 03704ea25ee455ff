package lower

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
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
func mathRoundingVals(r *rand.Rand, n int) difftest.Vals {
	v := difftest.RandVals(r, model.Float32, n)
	for i := range v.Flts {
		switch r.IntN(8) {
		case 0:
			v.Flts[i] = float32(r.IntN(41)-20) + 0.5
		case 1:
			v.Flts[i] = float32(r.IntN(41)-20) + float32(r.NormFloat64()*1e-4)
		case 2:
			v.Flts[i] = float32(math.Ldexp(1+r.Float64(), 23+r.IntN(10))) * float32(1-2*r.IntN(2))
		}
	}
	return v
}

// randMathUnary is a random single-operator model of a unary operator of
// type dt, rank 1-5 (a [256] case one time in eight).
func randMathUnary(r *rand.Rand, code model.OpCode, dt model.DType, vals func(r *rand.Rand, n int) difftest.Vals) diffCase {
	shape := randDims(r, 1+r.IntN(5), 4)
	if r.IntN(8) == 0 {
		shape = []int{256}
	}
	c := diffCase{outDT: dt, desc: fmt.Sprintf("%s %s %v", code, dt, shape)}
	m := builder.New("math differential case")
	q := difftest.RandQuant(r, dt)
	in := m.Tensor("in", dt, shape, q)
	out := m.Tensor("out", dt, shape, q)
	m.Op(code, []int{in}, []int{out}, nil)
	m.IO([]int{in}, []int{out})
	c.model = m.Bytes()
	c.inputs = []difftest.Vals{vals(r, shapeProd(shape))}
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
			runDiffCases(t, o, diffN{20, 200}, r, func(r *rand.Rand) diffCase {
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
			c := randMathUnary(r, code, dt, func(r *rand.Rand, n int) difftest.Vals { return difftest.RandVals(r, dt, n) })
			checkRefusedAsTFLM(t, o, c, code, "not supported")
		}
	}
	for _, code := range []model.OpCode{model.OpCeil, model.OpRound} {
		m := builder.New("reshaping " + code.String())
		in := m.Tensor("in", model.Float32, []int{2, 3}, nil)
		out := m.Tensor("out", model.Float32, []int{3, 2}, nil)
		m.Op(code, []int{in}, []int{out}, nil)
		m.IO([]int{in}, []int{out})
		c := diffCase{desc: code.String() + " [2 3] to [3 2]", model: m.Bytes(), inputs: []difftest.Vals{difftest.RandVals(r, model.Float32, 6)}}
		checkRefusedAsTFLM(t, o, c, code, "differs from input shape")
	}
}

// mathCompareNear compares float32 output bytes with TFLM's values within
// 1e-5 relative: NaN matches NaN, infinities and zeros must match exactly
// (a zero's sign aside).
func mathCompareNear(got []byte, want []string) error {
	w, err := oracle.ParseFloats(want)
	if err != nil {
		return err
	}
	if len(w)*4 != len(got) {
		return fmt.Errorf("%d output values, TFLM has %d", len(got)/4, len(w))
	}
	for i, x := range w {
		g := math.Float32frombits(binary.LittleEndian.Uint32(got[4*i:]))
		gx, wx := float64(g), float64(x)
		switch {
		case math.IsNaN(wx) || math.IsNaN(gx):
			if math.IsNaN(wx) != math.IsNaN(gx) {
				return fmt.Errorf("element %d: got %v, TFLM %v", i, g, x)
			}
		case math.IsInf(wx, 0) || math.IsInf(gx, 0) || wx == 0 || gx == 0:
			if gx != wx {
				return fmt.Errorf("element %d: got %v, TFLM %v", i, g, x)
			}
		case math.Abs(gx-wx) > 1e-5*math.Abs(wx):
			return fmt.Errorf("element %d: got %v (%#x), TFLM %v (%#x): beyond 1e-5 relative", i, g, math.Float32bits(g), x, math.Float32bits(x))
		}
	}
	return nil
}

// mathRunNear is runDiffCases for float32 operators TFLM computes with C's
// transcendental functions: output 0 is compared with mathCompareNear. It
// also logs how many outputs differed in their bits at all.
func mathRunNear(t *testing.T, o *oracle.Oracle, n diffN, r *rand.Rand, gen func(r *rand.Rand) diffCase) {
	t.Helper()
	inexact := 0
	compared, _ := runDiffCasesWith(t, o, n, r, gen, nil, func(c diffCase, got [][]byte, want [][]string) error {
		if difftest.CompareRaw(model.Float32, got[0], want[0]) != nil {
			inexact++
		}
		return mathCompareNear(got[0], want[0])
	})
	t.Logf("%d of %d compared cases not bit-exact (within 1e-5 relative)", inexact, compared)
}

// mathTranscVals draws inputs for EXP, LOG, SIN, COS and ELU: randVals
// with one in four from a range where the function is interesting
// (negative and positive up to 100, near multiples of pi, near 0).
func mathTranscVals(r *rand.Rand, n int) difftest.Vals {
	v := difftest.RandVals(r, model.Float32, n)
	for i := range v.Flts {
		switch r.IntN(8) {
		case 0:
			v.Flts[i] = float32(200*r.Float64() - 100)
		case 1:
			v.Flts[i] = float32(float64(r.IntN(21)-10)*math.Pi + r.NormFloat64()*1e-3)
		}
	}
	return v
}

// TestMathTranscendentalMatchesTFLM: EXP, LOG, SIN, COS and float32 ELU
// against TFLM within 1e-5 relative; int8 ELU (a table) bit for bit.
func TestMathTranscendentalMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	for _, code := range []model.OpCode{model.OpExp, model.OpLog, model.OpSin, model.OpCos, model.OpElu} {
		name := code.String() + "_float32"
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(mathSeed(name), 9))
			mathRunNear(t, o, diffN{20, 200}, r, func(r *rand.Rand) diffCase {
				return randMathUnary(r, code, model.Float32, mathTranscVals)
			})
		})
	}
	t.Run("ELU_int8", func(t *testing.T) {
		r := rand.New(rand.NewPCG(mathSeed("ELU_int8"), 9))
		runDiffCases(t, o, diffN{20, 200}, r, func(r *rand.Rand) diffCase {
			shape := randDims(r, 1+r.IntN(4), 4)
			if r.IntN(2) == 0 {
				shape = []int{256}
			}
			c := diffCase{outDT: model.Int8, desc: fmt.Sprintf("ELU int8 %v", shape)}
			m := builder.New("elu int8 differential case")
			in := m.Tensor("in", model.Int8, shape, difftest.RandQuant(r, model.Int8))
			out := m.Tensor("out", model.Int8, shape, difftest.RandQuant(r, model.Int8))
			m.Op(model.OpElu, []int{in}, []int{out}, nil)
			m.IO([]int{in}, []int{out})
			c.model = m.Bytes()
			v := difftest.RandVals(r, model.Int8, shapeProd(shape))
			if shapeProd(shape) == 256 {
				for i := range v.Ints {
					v.Ints[i] = int64(i - 128)
				}
			}
			c.inputs = []difftest.Vals{v}
			return c
		}, nil)
	})
}

// TestMathTranscendentalRefusedAsTFLM: EXP, LOG, SIN and COS run for
// float32 only, ELU for float32 and int8; EXP needs the input's shape on
// the output.
func TestMathTranscendentalRefusedAsTFLM(t *testing.T) {
	o := oracle.New(t)
	r := rand.New(rand.NewPCG(13, 14))
	for _, tc := range []struct {
		code model.OpCode
		dt   model.DType
	}{
		{model.OpExp, model.Int8}, {model.OpExp, model.Int16}, {model.OpLog, model.Int8},
		{model.OpSin, model.Int16}, {model.OpCos, model.Int32}, {model.OpElu, model.Int16},
	} {
		c := randMathUnary(r, tc.code, tc.dt, func(r *rand.Rand, n int) difftest.Vals { return difftest.RandVals(r, tc.dt, n) })
		checkRefusedAsTFLM(t, o, c, tc.code, "not supported")
	}
	m := builder.New("reshaping EXP")
	in := m.Tensor("in", model.Float32, []int{2, 3}, nil)
	out := m.Tensor("out", model.Float32, []int{6}, nil)
	m.Op(model.OpExp, []int{in}, []int{out}, nil)
	m.IO([]int{in}, []int{out})
	checkRefusedAsTFLM(t, o, diffCase{desc: "EXP [2 3] to [6]", model: m.Bytes(), inputs: []difftest.Vals{difftest.RandVals(r, model.Float32, 6)}}, model.OpExp, "differs from input shape")
}

// TestMathEluTable checks the int8 ELU table on elu_test.cc's quantized
// case (scale 1/16, zero point 0 for input and output), within its
// tolerance after dequantizing.
func TestMathEluTable(t *testing.T) {
	tab := eluInt8Table(1.0/16, 1.0/16, 0, 0)
	in := []float32{0, -6, 2, -4, 3, -2, 6, -0.1}
	want := []float32{0, -1.0, 2.0, -1, 3.0, -0.875, 6.0, -0.125}
	for i, x := range in {
		q := int8(math.Round(float64(x * 16)))
		got := float32(int8(tab[uint8(q)])) / 16
		if d := math.Abs(float64(got - want[i])); d > 1.0/16 {
			t.Errorf("ELU(%v) = %v, want %v", x, got, want[i])
		}
	}
}
