package lower

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/devtools/oracle"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// inProcess runs a model in-process as this package's tests lower it
// (testProgram) and returns its outputs.
func inProcess(data []byte, inputs ...[]byte) ([][]byte, error) {
	return difftest.InProcess(testProgram, data, inputs...)
}

// inProcessPath is inProcess that also returns the model's path through
// the generator (difftest.PathOf).
func inProcessPath(data []byte, inputs ...[]byte) ([][]byte, []string, error) {
	return difftest.InProcessPath(testProgram, data, inputs...)
}

// unaryCase is one random single-operator model with its input values.
type unaryCase struct {
	model []byte
	difftest.Vals
}

// randShape is a random shape of rank 1-4 with at most 256 elements; one
// case in four is [256] (every int8 value fits).
func randShape(r *rand.Rand) []int {
	if r.IntN(4) == 0 {
		return []int{256}
	}
	shape := make([]int, 1+r.IntN(4))
	for i := range shape {
		shape[i] = 1 + r.IntN(5)
	}
	return shape
}

func randUnary(r *rand.Rand, code model.OpCode, dt model.DType, quantized bool) unaryCase {
	shape := randShape(r)
	n := 1
	for _, d := range shape {
		n *= d
	}
	m := builder.New("unary differential case")
	var qi, qo *builder.Quant
	if quantized {
		lo, hi := dt.IntRange()
		zp := func() int64 {
			if dt == model.Int16 {
				return 0
			}
			switch r.IntN(4) {
			case 0:
				return int64(lo)
			case 1:
				return int64(hi)
			}
			return int64(lo) + r.Int64N(int64(hi)-int64(lo)+1)
		}
		si := difftest.RandScale(r)
		so := si
		if r.IntN(3) > 0 {
			so = difftest.RandScale(r)
		}
		qi, qo = builder.PerTensor(si, zp()), builder.PerTensor(so, zp())
	}
	in := m.Tensor("in", dt, shape, qi)
	out := m.Tensor("out", dt, shape, qo)
	m.Op(code, []int{in}, []int{out}, nil)
	m.IO([]int{in}, []int{out})
	c := unaryCase{model: m.Bytes(), Vals: difftest.Vals{DT: dt}}
	switch dt {
	case model.Float32:
		specials := []float32{0, float32(math.Copysign(0, -1)), 1, -1, float32(math.Inf(1)), float32(math.Inf(-1)), 3.4e38, 1.2e-38}
		for i := 0; i < n; i++ {
			if r.IntN(8) == 0 {
				c.Flts = append(c.Flts, specials[r.IntN(len(specials))])
				continue
			}
			c.Flts = append(c.Flts, float32(r.NormFloat64()*math.Exp2(float64(r.IntN(20)-10))))
		}
	case model.Bool:
		for i := 0; i < n; i++ {
			c.Ints = append(c.Ints, int64(r.IntN(2)))
		}
	default:
		lo, hi := dt.IntRange()
		for i := 0; i < n; i++ {
			v := int64(lo) + r.Int64N(int64(hi)-int64(lo)+1)
			if n == 256 && dt == model.Int8 {
				v = int64(i) - 128
			}
			c.Ints = append(c.Ints, v)
		}
	}
	return c
}

// compare checks our output bytes against the oracle's printed values:
// exactly for integers and bool, by bits for float32 (NaN against NaN).
func (c unaryCase) compare(got []byte, want []string) error {
	switch c.DT {
	case model.Float32:
		w, err := oracle.ParseFloats(want)
		if err != nil {
			return err
		}
		if len(w)*4 != len(got) {
			return fmt.Errorf("%d output values, want %d", len(got)/4, len(w))
		}
		for i, x := range w {
			g := math.Float32frombits(binary.LittleEndian.Uint32(got[4*i:]))
			if math.IsNaN(float64(x)) != math.IsNaN(float64(g)) || !math.IsNaN(float64(x)) && math.Float32bits(g) != math.Float32bits(x) {
				return fmt.Errorf("element %d: input %v: got %v, TFLM %v", i, c.Flts[i], g, x)
			}
		}
	default:
		w, err := oracle.ParseInts(want)
		if err != nil {
			return err
		}
		size := c.DT.Size()
		if len(w)*size != len(got) {
			return fmt.Errorf("%d output values, want %d", len(got)/size, len(w))
		}
		for i, x := range w {
			var g int64
			switch c.DT {
			case model.Int16:
				g = int64(int16(binary.LittleEndian.Uint16(got[2*i:])))
			case model.Int8:
				g = int64(int8(got[i]))
			default:
				g = int64(got[i])
			}
			if g != x {
				return fmt.Errorf("element %d: input %d: got %d, TFLM %d", i, c.Ints[i], g, x)
			}
		}
	}
	return nil
}

// TestUnaryMatchesTFLM builds random single-operator models of every
// unary operator and type combination in unary.go, runs each through TFLite
// Micro (the oracle) and in-process, and compares every output element.
// Models TFLM rejects must be refused by the lowering too.
func TestUnaryMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	perCase := 200
	if testing.Short() {
		perCase = 20
	}
	for _, tc := range []struct {
		code      model.OpCode
		dt        model.DType
		quantized bool
	}{
		{model.OpAbs, model.Float32, false},
		{model.OpAbs, model.Int8, true},
		{model.OpAbs, model.Int16, true},
		{model.OpAbs, model.Int16, false},
		{model.OpNeg, model.Float32, false},
		{model.OpSqrt, model.Float32, false},
		{model.OpRsqrt, model.Float32, false},
		{model.OpSquare, model.Float32, false},
		{model.OpLogicalNot, model.Bool, false},
	} {
		name := fmt.Sprintf("%s_%s_q%v", tc.code, tc.dt, tc.quantized)
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(tc.code), uint64(tc.dt)))
			var n difftest.Tally
			var sw difftest.Sweep
			for i := 0; i < perCase; i++ {
				c := randUnary(r, tc.code, tc.dt, tc.quantized)
				got, path, gerr := inProcessPath(c.model, c.Raw())
				if !sw.Pick(i, path) {
					n.UnrunCase(gerr)
					continue
				}
				want, oerr := o.Run(c.model, c.CSV())
				if n.Skip(t, oerr, i, name) {
					continue
				}
				switch {
				case oerr != nil && errors.Is(oerr, oracle.ErrRejected):
					if gerr == nil {
						t.Errorf("case %d: TFLM rejects the model (%v) but tflm-gen lowers it", i, oerr)
						n.Mismatches++
					}
					n.Refused++
					continue
				case oerr != nil:
					t.Fatalf("case %d: oracle: %v", i, oerr)
				case gerr != nil:
					// Refusing what TFLM runs is allowed only for a
					// rescale TFLM cannot apply either (exponent > 30).
					if !errors.Is(gerr, ErrUnsupported) {
						t.Errorf("case %d: %v", i, gerr)
						n.Mismatches++
					}
					n.Refused++
					continue
				}
				if err := c.compare(got[0], want[0]); err != nil {
					t.Errorf("case %d: %v", i, err)
					n.Mismatches++
				}
				n.Compared++
			}
			n.Log(t)
		})
	}
}

// TestUnaryRefusedAsTFLM: type combinations TFLM's kernels reject are
// refused at generation time, with an error naming the operator.
func TestUnaryRefusedAsTFLM(t *testing.T) {
	o := oracle.New(t)
	r := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		code      model.OpCode
		dt        model.DType
		quantized bool
	}{
		{model.OpNeg, model.Int8, true},
		{model.OpSqrt, model.Int8, true},
		{model.OpSquare, model.Int16, true},
		{model.OpLogicalNot, model.Int8, true},
		{model.OpAbs, model.Int32, false},
	} {
		c := randUnary(r, tc.code, tc.dt, tc.quantized)
		dc := diffCase{desc: fmt.Sprintf("%s %s", tc.code, tc.dt), model: c.model, inputs: []difftest.Vals{c.Vals}}
		checkRefused(t, o, dc, "operator 0 ("+tc.code.String()+")", "")
	}
	// Quantized int16 ABS needs zero points 0 (TFLM's Prepare checks them).
	m := builder.New("abs int16 zp")
	in := m.Tensor("in", model.Int16, []int{4}, builder.PerTensor(0.5, 3))
	out := m.Tensor("out", model.Int16, []int{4}, builder.PerTensor(0.5, 0))
	m.Op(model.OpAbs, []int{in}, []int{out}, nil)
	m.IO([]int{in}, []int{out})
	t.Run("ABS int16 zero point 3", func(t *testing.T) {
		_, err := o.Run(m.Bytes(), oracle.Ints([]int16{1, 2, 3, 4}))
		oracle.SkipIfNotRecorded(t, err, "int16 ABS with zero point 3")
		if !errors.Is(err, oracle.ErrRejected) {
			t.Errorf("int16 ABS with zero point 3: TFLM did not reject it: %v", err)
		}
		if _, err := inProcess(m.Bytes(), make([]byte, 8)); err == nil || !strings.Contains(err.Error(), "zero points must be 0") {
			t.Errorf("int16 ABS with zero point 3: error %v", err)
		}
	})
}

// TestUnaryInPlace: the unary operators write over their input when it
// dies there (TestUnaryMatchesTFLM then runs them in place).
func TestUnaryInPlace(t *testing.T) {
	c := randUnary(rand.New(rand.NewPCG(1, 2)), model.OpAbs, model.Int8, true)
	g, err := model.Parse("abs.tflite", c.model)
	if err != nil {
		t.Fatal(err)
	}
	p, err := testProgram(g)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.InPlace) != 1 || len(p.Buffers) != 1 {
		t.Errorf("in-place pairs %v, %d buffers; want one pair sharing one buffer", p.InPlace, len(p.Buffers))
	}
}

// randRsqrtInt8 is a random int8 RSQRT of rank 1-5 (one case in eight
// [256] with every value from the zero point up) with inputs at or above
// the input zero point (TFLM's Invoke fails below it) and random scales;
// one case in four has a constant input (a graph input feeds a second
// RSQRT so that the oracle has one).
func randRsqrtInt8(r *rand.Rand) diffCase {
	shape := randDims(r, 1+r.IntN(5), 4)
	if r.IntN(8) == 0 {
		shape = []int{256}
	}
	qi, qo := difftest.RandQuant(r, model.Int8), difftest.RandQuant(r, model.Int8)
	if r.IntN(2) == 0 {
		// An output scale near 1/sqrt(input scale) fills the output range.
		qo.Scale[0] = float32(float64(0.02+r.Float64()) / math.Sqrt(float64(qi.Scale[0])))
	}
	n := shapeProd(shape)
	zi := qi.ZeroPoint[0]
	v := difftest.Vals{DT: model.Int8}
	for i := 0; i < n; i++ {
		x := zi + r.Int64N(128-zi)
		if r.IntN(4) == 0 {
			x = min(zi+r.Int64N(4), 127)
		}
		if n == 256 {
			x = min(zi+int64(i), 127)
		}
		v.Ints = append(v.Ints, x)
	}
	c := diffCase{outDT: model.Int8, desc: fmt.Sprintf("RSQRT int8 %v scales %g %g zps %d %d", shape, qi.Scale[0], qo.Scale[0], zi, qo.ZeroPoint[0])}
	m := builder.New("rsqrt int8 differential case")
	in := m.Tensor("in", model.Int8, shape, qi)
	out := m.Tensor("out", model.Int8, shape, qo)
	if r.IntN(4) == 0 {
		c.desc += " constant"
		k := v.ConstTensor(m, "k", shape, qi)
		m.Op(model.OpRsqrt, []int{k}, []int{out}, nil)
		out2 := m.Tensor("out2", model.Int8, shape, qo)
		m.Op(model.OpRsqrt, []int{in}, []int{out2}, nil)
		m.IO([]int{in}, []int{out, out2})
	} else {
		m.Op(model.OpRsqrt, []int{in}, []int{out}, nil)
		m.IO([]int{in}, []int{out})
	}
	c.model = m.Bytes()
	c.inputs = []difftest.Vals{v}
	return c
}

// TestRsqrtInt8MatchesTFLM: int8 RSQRT against TFLM bit for bit; int16
// (which TFLM's Prepare rejects) and a constant input below its zero point
// (TFLM's Invoke fails) are refused.
func TestRsqrtInt8MatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	t.Run("RSQRT_int8", func(t *testing.T) {
		r := rand.New(rand.NewPCG(76, 8))
		runDiffCases(t, o, diffN{20, 200}, r, randRsqrtInt8, func(err error) bool {
			return strings.Contains(err.Error(), "too small")
		})
	})
	r := rand.New(rand.NewPCG(76, 16))
	c := randUnary(r, model.OpRsqrt, model.Int16, true)
	checkRefusedAsTFLM(t, o, diffCase{desc: "RSQRT int16", model: c.model, inputs: []difftest.Vals{c.Vals}}, model.OpRsqrt, "not supported")

	m := builder.New("rsqrt of a negative constant")
	in := m.Tensor("in", model.Int8, []int{2}, builder.PerTensor(0.1, 0))
	k := m.Const("k", model.Int8, []int{2}, builder.PerTensor(0.1, 0), []byte{5, 0xfe})
	out := m.Tensor("out", model.Int8, []int{2}, builder.PerTensor(0.1, 0))
	out2 := m.Tensor("out2", model.Int8, []int{2}, builder.PerTensor(0.1, 0))
	m.Op(model.OpRsqrt, []int{k}, []int{out}, nil)
	m.Op(model.OpRsqrt, []int{in}, []int{out2}, nil)
	m.IO([]int{in}, []int{out, out2})
	checkRefusedAsTFLM(t, o, diffCase{desc: "RSQRT of constant -2", model: m.Bytes(), inputs: []difftest.Vals{{DT: model.Int8, Ints: []int64{1, 2}}}}, model.OpRsqrt, "below its zero point")
}

// TestRsqrtInt8Table: rsqrtInt8Table on elementwise_test.cc's RsqrtInt8
// and RsqrtCloseTo0Int8 cases (input scale 142/255, zero point -15, output
// zero point -128), dequantized and compared with their goldens within the
// input scale as that test does.
func TestRsqrtInt8Table(t *testing.T) {
	si := float32(142.0 / 255.0)
	for _, tc := range []struct {
		so         float32
		in, golden []float32
	}{
		{1.0 / 255, []float32{15, 46, 78, 142, 1, 17, 49, 113}, []float32{0.2582, 0.14744, 0.11323, 0.08392, 1, 0.24254, 0.142857, 0.09407}},
		{3.16 / 255, []float32{15, 46, 78, 142, 1, 0.1, 49, 113}, []float32{0.2582, 0.14744, 0.11323, 0.08392, 1, 3.16228, 0.142857, 0.09407}},
	} {
		m, shift := quant.Multiplier(1 / float64(float32(math.Sqrt(float64(si)))*tc.so))
		tab := rsqrtInt8Table(m, shift, -15, -128)
		for i, x := range tc.in {
			q := int8(min(max(math.Round(float64(x/si))-15, -128), 127))
			f := float64(int32(int8(tab[uint8(q)]))+128) * float64(tc.so)
			if math.Abs(f-float64(tc.golden[i])) > float64(si) {
				t.Errorf("output scale %g: rsqrt(%g) = %g, want %g", tc.so, x, f, tc.golden[i])
			}
		}
	}
}
