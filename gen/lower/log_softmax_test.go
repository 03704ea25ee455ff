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
)

// randLogSoftmax is a random LOG_SOFTMAX model of rank 1-5 (rows of up to
// 40 elements one time in four, so that many exponentials are summed). The
// int8 input scale is log-uniform in [2^-10, 2^4] with zero points often
// at the limits; the output has TFLM's required 16/256 and 127.
func randLogSoftmax(r *rand.Rand, dt model.DType) diffCase {
	shape := randDims(r, 1+r.IntN(5), 4)
	if r.IntN(4) == 0 {
		shape[len(shape)-1] = 1 + r.IntN(40)
	}
	var qi, qo *builder.Quant
	if dt == model.Int8 {
		qi = difftest.RandQuant(r, dt)
		if r.IntN(8) == 0 {
			// Scales near the smallest TFLM accepts (2^-26: a multiplier
			// above one) and far above 1 (the multiplier capped at 2^31-1).
			qi.Scale[0] = []float32{1.5 / (1 << 26), 1.0 / (1 << 24), 1.0 / (1 << 20), 40, 1000}[r.IntN(5)]
		}
		qo = builder.PerTensor(16.0/256, 127)
	}
	m := builder.New("log_softmax differential case")
	in := m.Tensor("in", dt, shape, qi)
	out := m.Tensor("out", dt, shape, qo)
	m.Op(model.OpLogSoftmax, []int{in}, []int{out}, nil)
	m.IO([]int{in}, []int{out})
	v := difftest.RandVals(r, dt, shapeProd(shape))
	if dt == model.Float32 && r.IntN(2) == 0 {
		// Mostly ordinary values, spread so that rows have both close and
		// negligible competitors.
		for i := range v.Flts {
			if r.IntN(16) != 0 {
				v.Flts[i] = float32(r.NormFloat64() * 8)
			}
		}
	}
	return diffCase{desc: fmt.Sprintf("%s %v %v", dt, shape, qi), model: m.Bytes(), inputs: []difftest.Vals{v}, outDT: dt}
}

// logSoftmaxCompareNear compares float32 outputs with TFLM's within 1e-5
// relative or 1e-6 absolute, whichever is larger: the result is
// x - max - log(sum), and log(sum) inherits an ulp of the sum (about 1.2e-7
// for sums near 1) from C's expf, so results near zero are compared
// absolutely. NaN matches NaN; infinities must match exactly.
func logSoftmaxCompareNear(got []byte, want []string) error {
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
		case math.IsInf(wx, 0) || math.IsInf(gx, 0):
			if gx != wx {
				return fmt.Errorf("element %d: got %v, TFLM %v", i, g, x)
			}
		case math.Abs(gx-wx) > max(1e-5*math.Abs(wx), 1e-6):
			return fmt.Errorf("element %d: got %v (%#x), TFLM %v (%#x): beyond 1e-5 relative and 1e-6 absolute", i, g, math.Float32bits(g), x, math.Float32bits(x))
		}
	}
	return nil
}

// TestLogSoftmaxMatchesTFLM: float32 within logSoftmaxCompareNear's
// tolerance, int8 bit for bit.
func TestLogSoftmaxMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	t.Run("LOG_SOFTMAX_int8", func(t *testing.T) {
		r := rand.New(rand.NewPCG(50, 8))
		runDiffCases(t, o, diffN{20, 200}, r, func(r *rand.Rand) diffCase {
			return randLogSoftmax(r, model.Int8)
		}, nil)
	})
	t.Run("LOG_SOFTMAX_float32", func(t *testing.T) {
		r := rand.New(rand.NewPCG(50, 32))
		inexact := 0
		gen := func(r *rand.Rand) diffCase { return randLogSoftmax(r, model.Float32) }
		compared, _ := runDiffCasesWith(t, o, diffN{20, 200}, r, gen, nil, func(c diffCase, got [][]byte, want [][]string) error {
			if difftest.CompareRaw(model.Float32, got[0], want[0]) != nil {
				inexact++
			}
			return logSoftmaxCompareNear(got[0], want[0])
		})
		t.Logf("%d of %d compared cases not bit-exact", inexact, compared)
	})
}

// TestLogSoftmaxRefusedAsTFLM: types other than float32 and int8, mixed
// types, differing shapes and int8 outputs without TFLM's fixed
// quantization are rejected by TFLM and refused.
func TestLogSoftmaxRefusedAsTFLM(t *testing.T) {
	o := oracle.New(t)
	r := rand.New(rand.NewPCG(50, 1))
	build := func(desc string, it, ot model.DType, ishape, oshape []int, qi, qo *builder.Quant) diffCase {
		m := builder.New("log_softmax refusal")
		in := m.Tensor("in", it, ishape, qi)
		out := m.Tensor("out", ot, oshape, qo)
		m.Op(model.OpLogSoftmax, []int{in}, []int{out}, nil)
		m.IO([]int{in}, []int{out})
		return diffCase{desc: desc, model: m.Bytes(), inputs: []difftest.Vals{difftest.RandVals(r, it, shapeProd(ishape))}}
	}
	q := builder.PerTensor(0.1, 0)
	qo := builder.PerTensor(16.0/256, 127)
	for _, tc := range []struct {
		c    diffCase
		want string
	}{
		{build("int16", model.Int16, model.Int16, []int{2, 3}, []int{2, 3}, q, q), "not supported"},
		{build("int32", model.Int32, model.Int32, []int{2, 3}, []int{2, 3}, nil, nil), "not supported"},
		{build("float32 to int8", model.Float32, model.Int8, []int{2, 3}, []int{2, 3}, nil, qo), "differ"},
		{build("reshaped", model.Float32, model.Float32, []int{2, 3}, []int{3, 2}, nil, nil), "differs from input shape"},
		{build("output zero point", model.Int8, model.Int8, []int{2, 3}, []int{2, 3}, q, builder.PerTensor(16.0/256, 0)), "16/256"},
		{build("output scale", model.Int8, model.Int8, []int{2, 3}, []int{2, 3}, q, builder.PerTensor(1.0/256, 127)), "16/256"},
	} {
		checkRefusedAsTFLM(t, o, tc.c, model.OpLogSoftmax, tc.want)
	}
	// An input scale of 2^-26 or less makes TFLM's Prepare abort
	// (QuantizeMultiplierGreaterThanOne's check), so the oracle cannot
	// reject it as a model error; the lowering refuses it.
	c := build("tiny input scale", model.Int8, model.Int8, []int{2, 3}, []int{2, 3}, builder.PerTensor(1.0/(1<<26), 0), qo)
	if _, err := inProcess(c.model, c.inputs[0].Raw()); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "too small") {
		t.Errorf("%s: error %v, want a refusal", c.desc, err)
	}
}
