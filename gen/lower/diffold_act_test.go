package lower

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/devtools/oracle"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// Differential tests against TFLM of operators that were lowered before
// the shared harness existed: SOFTMAX, the activations, QUANTIZE,
// DEQUANTIZE, ARG_MAX and ARG_MIN.

// oldActShape is a random shape of rank 1-5 with dimensions up to 4; one
// case in four is [256] (every int8 value fits).
func oldActShape(r *rand.Rand) []int {
	if r.IntN(4) == 0 {
		return []int{256}
	}
	return randDims(r, 1+r.IntN(5), 4)
}

// oldActCase is a random one-input, one-output model: input of type in
// with quantization qi, output of type out with quantization qo, same
// shape.
func oldActCase(r *rand.Rand, code model.OpCode, in, out model.DType, qi, qo *builder.Quant, opts *builder.Options, desc string) diffCase {
	shape := oldActShape(r)
	m := builder.New("activation differential case")
	ti := m.Tensor("in", in, shape, qi)
	to := m.Tensor("out", out, shape, qo)
	m.Op(code, []int{ti}, []int{to}, opts)
	m.IO([]int{ti}, []int{to})
	vals := difftest.RandVals(r, in, shapeProd(shape))
	return diffCase{
		desc:   fmt.Sprintf("%s %s->%s %v in %s out %s %s", code, in, out, shape, oldQuantDesc(qi), oldQuantDesc(qo), desc),
		model:  m.Bytes(),
		inputs: []difftest.Vals{vals},
		outDT:  out,
	}
}

func oldQuantDesc(q *builder.Quant) string {
	if q == nil {
		return "-"
	}
	return fmt.Sprintf("%g/%d", q.Scale[0], q.ZeroPoint[0])
}

// oldRandQuant is randQuant extended to uint8 (zero point 0-255).
func oldRandQuant(r *rand.Rand, dt model.DType) *builder.Quant {
	if dt == model.Uint8 {
		zp := []int64{0, 255, int64(r.IntN(256))}[r.IntN(3)]
		return builder.PerTensor(difftest.RandScale(r), zp)
	}
	return difftest.RandQuant(r, dt)
}

// oldBeta is a softmax beta: 1 in half the cases, else in [0.1, 5].
func oldBeta(r *rand.Rand) float32 {
	if r.IntN(2) == 0 {
		return 1
	}
	return float32(0.1 + 4.9*r.Float64())
}

// oldNear is 1 in half the cases, else a factor within 0.05% of 1 (TFLM's
// TF_LITE_ENSURE_NEAR tolerance for softmax's int16 output scales is
// 0.1%).
func oldNear(r *rand.Rand) float32 {
	if r.IntN(2) == 0 {
		return 1
	}
	return float32(1 + 0.001*(r.Float64()-0.5))
}

func randSoftmaxCase(r *rand.Rand, in, out model.DType) diffCase {
	beta := oldBeta(r)
	opts := &builder.Options{Type: model.UnionSoftmaxOptions, Fields: []builder.Field{builder.Float(model.SoftmaxOptionsBeta, beta)}}
	var qi, qo *builder.Quant
	switch {
	case in == model.Int8 && out == model.Int8:
		qi, qo = difftest.RandQuant(r, in), builder.PerTensor(1.0/256, -128)
	case in == model.Int8 && out == model.Int16:
		qi, qo = difftest.RandQuant(r, in), builder.PerTensor(1.0/65536*oldNear(r), -32768)
	case in == model.Int16:
		// TFLM checks only the output's zero point: the input's cancels
		// in the differences to the row maximum.
		zp := int64(0)
		if r.IntN(3) == 0 {
			zp = int64(r.IntN(65536) - 32768)
		}
		qi, qo = builder.PerTensor(difftest.RandScale(r)/64, zp), builder.PerTensor(1.0/32768*oldNear(r), 0)
	}
	return oldActCase(r, model.OpSoftmax, in, out, qi, qo, opts, fmt.Sprintf("beta %g", beta))
}

// TestOldSoftmaxMatchesTFLM: SOFTMAX float32 (within 1e-5, TFLM uses C's
// expf), int8 to int8, int8 to int16 and int16 to int16 bit for bit, with
// the output quantizations TFLM requires.
func TestOldSoftmaxMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	t.Run("SOFTMAX_float32", func(t *testing.T) {
		r := rand.New(rand.NewPCG(90, 1))
		mathRunNear(t, o, diffN{10, 100}, r, func(r *rand.Rand) diffCase {
			return randSoftmaxCase(r, model.Float32, model.Float32)
		})
	})
	for _, tc := range [][2]model.DType{{model.Int8, model.Int8}, {model.Int8, model.Int16}, {model.Int16, model.Int16}} {
		t.Run(fmt.Sprintf("SOFTMAX_%s_to_%s", tc[0], tc[1]), func(t *testing.T) {
			r := rand.New(rand.NewPCG(90, uint64(tc[0])<<8|uint64(tc[1])))
			runDiffCases(t, o, diffN{10, 100}, r, func(r *rand.Rand) diffCase {
				return randSoftmaxCase(r, tc[0], tc[1])
			}, nil)
		})
	}
}

// TestOldSoftmaxRefusedAsTFLM: output quantizations TFLM's Prepare rejects.
func TestOldSoftmaxRefusedAsTFLM(t *testing.T) {
	o := oracle.New(t)
	r := rand.New(rand.NewPCG(91, 1))
	opts := &builder.Options{Type: model.UnionSoftmaxOptions, Fields: []builder.Field{builder.Float(model.SoftmaxOptionsBeta, 1)}}
	for _, tc := range []struct {
		in, out model.DType
		qi, qo  *builder.Quant
		want    string
	}{
		{model.Int8, model.Int8, builder.PerTensor(0.1, 0), builder.PerTensor(1.0/256, 0), "zero point -128"},
		{model.Int8, model.Int16, builder.PerTensor(0.1, 0), builder.PerTensor(1.0/32768, 0), "1/65536"},
		{model.Int16, model.Int16, builder.PerTensor(0.001, 0), builder.PerTensor(1.0/65536, 0), "1/32768"},
	} {
		checkRefusedAsTFLM(t, o, oldActCase(r, model.OpSoftmax, tc.in, tc.out, tc.qi, tc.qo, opts, ""), model.OpSoftmax, tc.want)
	}
}

// randLogisticTanhCase: int8 outputs mostly with the quantization TFLM's
// kernels assume (LOGISTIC 1/256 zero point -128, TANH 1/128 zero point
// 0), int16 inputs often at power-of-two scales (TFLM's special case).
func randLogisticTanhCase(r *rand.Rand, code model.OpCode, dt model.DType) diffCase {
	var qi, qo *builder.Quant
	switch dt {
	case model.Int8:
		qi = difftest.RandQuant(r, dt)
		qo = builder.PerTensor(1.0/256, -128)
		if code == model.OpTanh {
			qo = builder.PerTensor(1.0/128, 0)
		}
		if r.IntN(4) == 0 {
			qo = difftest.RandQuant(r, dt)
		}
	case model.Int16:
		s := difftest.RandScale(r) / 16
		if r.IntN(3) == 0 {
			s = float32(math.Exp2(float64(-13 + r.IntN(3))))
		}
		qi, qo = builder.PerTensor(s, 0), builder.PerTensor(1.0/32768, 0)
	}
	return oldActCase(r, code, dt, dt, qi, qo, nil, "")
}

// TestOldLogisticTanhMatchesTFLM: LOGISTIC and TANH, float32 within 1e-5
// (C's expf and tanhf), int8 and int16 bit for bit.
func TestOldLogisticTanhMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	for _, code := range []model.OpCode{model.OpLogistic, model.OpTanh} {
		for _, dt := range []model.DType{model.Float32, model.Int8, model.Int16} {
			t.Run(fmt.Sprintf("%s_%s", code, dt), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(code), uint64(dt)))
				gen := func(r *rand.Rand) diffCase { return randLogisticTanhCase(r, code, dt) }
				if dt == model.Float32 {
					mathRunNear(t, o, diffN{10, 100}, r, gen)
					return
				}
				runDiffCases(t, o, diffN{10, 100}, r, gen, nil)
			})
		}
	}
}

// randReluCase: RELU, RELU6, LEAKY_RELU (alpha in [-2, 2], often 0.2) and
// HARD_SWISH with random input and output quantizations.
func randReluCase(r *rand.Rand, code model.OpCode, dt model.DType) diffCase {
	var opts *builder.Options
	desc := ""
	if code == model.OpLeakyRelu {
		alpha := float32(0.2)
		if r.IntN(2) == 0 {
			alpha = float32(-2 + 4*r.Float64())
		}
		opts = &builder.Options{Type: model.UnionLeakyReluOptions, Fields: []builder.Field{builder.Float(model.LeakyReluOptionsAlpha, alpha)}}
		desc = fmt.Sprintf("alpha %g", alpha)
	}
	qi := difftest.RandQuant(r, dt)
	qo := qi
	if r.IntN(3) > 0 {
		qo = difftest.RandQuant(r, dt)
	}
	return oldActCase(r, code, dt, dt, qi, qo, opts, desc)
}

// TestOldReluMatchesTFLM: RELU, RELU6, LEAKY_RELU (float32, int8, int16)
// and HARD_SWISH (float32, int8), bit for bit.
func TestOldReluMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	for _, tc := range []struct {
		code model.OpCode
		dts  []model.DType
	}{
		{model.OpRelu, []model.DType{model.Float32, model.Int8, model.Int16}},
		{model.OpRelu6, []model.DType{model.Float32, model.Int8, model.Int16}},
		{model.OpLeakyRelu, []model.DType{model.Float32, model.Int8, model.Int16}},
		{model.OpHardSwish, []model.DType{model.Float32, model.Int8}},
	} {
		for _, dt := range tc.dts {
			t.Run(fmt.Sprintf("%s_%s", tc.code, dt), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(tc.code), uint64(dt)))
				runDiffCases(t, o, diffN{10, 100}, r, func(r *rand.Rand) diffCase {
					return randReluCase(r, tc.code, dt)
				}, nil)
			})
		}
	}
}

// randPreluCase: input of rank 1-4, alpha broadcast against it (rank at
// most the input's, each dimension 1 or the input's), alpha constant in
// half the cases and a graph input otherwise. An int16 input has an int8
// alpha (the only alpha type TFLM takes with it).
func randPreluCase(r *rand.Rand, dt model.DType) diffCase {
	shape := randDims(r, 1+r.IntN(4), 4)
	ashape := append([]int(nil), shape[len(shape)-r.IntN(len(shape)+1):]...)
	for i := range ashape {
		if r.IntN(2) == 0 {
			ashape[i] = 1
		}
	}
	if len(ashape) == 0 {
		ashape = []int{1}
	}
	adt := dt
	if dt == model.Int16 {
		adt = model.Int8
	}
	qi, qa, qo := difftest.RandQuant(r, dt), difftest.RandQuant(r, adt), difftest.RandQuant(r, dt)
	m := builder.New("prelu differential case")
	in := m.Tensor("in", dt, shape, qi)
	c := diffCase{outDT: dt, inputs: []difftest.Vals{difftest.RandVals(r, dt, shapeProd(shape))}}
	av := difftest.RandVals(r, adt, shapeProd(ashape))
	constAlpha := r.IntN(2) == 0
	var alpha int
	if constAlpha {
		alpha = av.ConstTensor(m, "alpha", ashape, qa)
	} else {
		alpha = m.Tensor("alpha", adt, ashape, qa)
		c.inputs = append(c.inputs, av)
	}
	out := m.Tensor("out", dt, shape, qo)
	m.Op(model.OpPrelu, []int{in, alpha}, []int{out}, nil)
	if constAlpha {
		m.IO([]int{in}, []int{out})
	} else {
		m.IO([]int{in, alpha}, []int{out})
	}
	c.model = m.Bytes()
	c.desc = fmt.Sprintf("PRELU %s %v alpha %v const %v in %s alpha %s out %s", dt, shape, ashape, constAlpha, oldQuantDesc(qi), oldQuantDesc(qa), oldQuantDesc(qo))
	return c
}

// TestOldPreluMatchesTFLM: PRELU float32, int8 and int16 (int8 alpha)
// with broadcast alpha, bit for bit.
func TestOldPreluMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	for _, dt := range []model.DType{model.Float32, model.Int8, model.Int16} {
		t.Run(fmt.Sprintf("PRELU_%s", dt), func(t *testing.T) {
			r := rand.New(rand.NewPCG(92, uint64(dt)))
			runDiffCases(t, o, diffN{10, 100}, r, func(r *rand.Rand) diffCase { return randPreluCase(r, dt) }, nil)
		})
	}
}

// oldQuantizeInRange replaces the float32 QUANTIZE inputs whose quotient
// by the output scale is beyond the int32 range (infinities, 3.4e38) by
// the largest in range of their sign. TFLM converts the rounded quotient
// with static_cast<int32_t>, undefined for those: on the x86-64 oracle it
// gives INT32_MIN whatever the sign, then wraps when adding the zero point
// (+inf with zero point 127 gives -128, -inf with -71 gives 127). The
// kernel saturates as Arm's conversion does (kernels/quantize.go), so the
// two agree only on quotients in range.
func oldQuantizeInRange(v []float32, scale float32) {
	for i, x := range v {
		if q := float64(x / scale); math.Abs(q) >= 1<<31 {
			v[i] = float32(math.Copysign(float64(scale)*(1<<30), float64(x)))
		}
	}
}

// TestOldQuantizeMatchesTFLM: QUANTIZE from float32 and between integer
// types, DEQUANTIZE to float32, bit for bit.
func TestOldQuantizeMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	for _, tc := range [][2]model.DType{
		{model.Float32, model.Int8}, {model.Float32, model.Int16},
		{model.Int8, model.Int8}, {model.Int8, model.Int16}, {model.Int8, model.Int32}, {model.Int8, model.Uint8},
		{model.Uint8, model.Int8},
		{model.Int16, model.Int8}, {model.Int16, model.Int16}, {model.Int16, model.Int32},
		{model.Int32, model.Int8}, {model.Int32, model.Int16},
	} {
		t.Run(fmt.Sprintf("QUANTIZE_%s_to_%s", tc[0], tc[1]), func(t *testing.T) {
			r := rand.New(rand.NewPCG(93, uint64(tc[0])<<8|uint64(tc[1])))
			runDiffCases(t, o, diffN{10, 100}, r, func(r *rand.Rand) diffCase {
				var qi *builder.Quant
				if tc[0] != model.Float32 {
					qi = oldRandQuant(r, tc[0])
					if tc[0] == model.Int32 {
						qi = builder.PerTensor(difftest.RandScale(r)/1024, 0)
					}
				}
				qo := oldRandQuant(r, tc[1])
				if tc[1] == model.Int32 {
					qo = builder.PerTensor(difftest.RandScale(r), 0)
				}
				c := oldActCase(r, model.OpQuantize, tc[0], tc[1], qi, qo, nil, "")
				if tc[0] == model.Float32 {
					oldQuantizeInRange(c.inputs[0].Flts, qo.Scale[0])
				}
				return c
			}, nil)
		})
	}
	for _, dt := range []model.DType{model.Int8, model.Int16, model.Uint8} {
		t.Run(fmt.Sprintf("DEQUANTIZE_%s", dt), func(t *testing.T) {
			r := rand.New(rand.NewPCG(94, uint64(dt)))
			runDiffCases(t, o, diffN{10, 100}, r, func(r *rand.Rand) diffCase {
				return oldActCase(r, model.OpDequantize, dt, model.Float32, oldRandQuant(r, dt), nil, nil, "")
			}, nil)
		})
	}
}

// randArgMinMaxCase: input of rank 1-5, a constant int32 axis (negative in
// half the cases, shape [1] or scalar), output_type matching the output.
func randArgMinMaxCase(r *rand.Rand, code model.OpCode, in, out model.DType) diffCase {
	c, _ := randArgMinMaxTwins(r, code, in, out)
	return c
}

// randArgMinMaxTwins is randArgMinMaxCase and the same model with an int32
// output (its twin, what TFLM runs when out is int64).
func randArgMinMaxTwins(r *rand.Rand, code model.OpCode, in, out model.DType) (diffCase, diffCase) {
	shape := randDims(r, 1+r.IntN(5), 5)
	if r.IntN(4) == 0 {
		shape = []int{1 + r.IntN(300)}
	}
	axis := r.IntN(len(shape))
	a := int32(axis)
	if r.IntN(2) == 0 {
		a -= int32(len(shape))
	}
	oshape := append(append([]int{}, shape[:axis]...), shape[axis+1:]...)
	q := difftest.RandQuant(r, in)
	axisShape := []int{1}
	if r.IntN(2) == 0 {
		axisShape = []int{}
	}
	build := func(out model.DType) []byte {
		m := builder.New("argminmax differential case")
		ti := m.Tensor("in", in, shape, q)
		ta := m.ConstI32("axis", axisShape, nil, []int32{a})
		to := m.Tensor("out", out, oshape, nil)
		union, slot := uint8(model.UnionArgMaxOptions), model.ArgMaxOptionsOutputType
		if code == model.OpArgMin {
			union, slot = model.UnionArgMinOptions, model.ArgMinOptionsOutputType
		}
		m.Op(code, []int{ti, ta}, []int{to}, &builder.Options{Type: union, Fields: []builder.Field{builder.Int(slot, int(out))}})
		m.IO([]int{ti}, []int{to})
		return m.Bytes()
	}
	vals := difftest.RandVals(r, in, shapeProd(shape))
	if in == model.Int8 && r.IntN(2) == 0 {
		// Few distinct values: ties, which both take the first index.
		for i := range vals.Ints {
			vals.Ints[i] = int64(r.IntN(3))
		}
	}
	desc := fmt.Sprintf("%s %s->%s %v axis %d", code, in, out, shape, a)
	return diffCase{desc: desc, model: build(out), inputs: []difftest.Vals{vals}, outDT: out},
		diffCase{desc: desc + " (int32 twin)", model: build(model.Int32), inputs: []difftest.Vals{vals}, outDT: model.Int32}
}

// TestOldArgMinMaxMatchesTFLM: ARG_MAX and ARG_MIN over float32 and int8,
// int32 and int64 indices, constant axis. TFLM's Eval accepts only int32
// indices, while the lowering also gives int64 ones (gen/lower/argmax.go,
// README): the int64 cases check that TFLM rejects the model, and compare
// the in-process int64 output with what TFLM computes for the same model
// with an int32 output.
func TestOldArgMinMaxMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	for _, code := range []model.OpCode{model.OpArgMax, model.OpArgMin} {
		for _, in := range []model.DType{model.Float32, model.Int8} {
			for _, out := range []model.DType{model.Int32, model.Int64} {
				t.Run(fmt.Sprintf("%s_%s_to_%s", code, in, out), func(t *testing.T) {
					r := rand.New(rand.NewPCG(uint64(code), uint64(in)<<8|uint64(out)))
					if out == model.Int32 {
						runDiffCases(t, o, diffN{10, 100}, r, func(r *rand.Rand) diffCase {
							return randArgMinMaxCase(r, code, in, out)
						}, nil)
						return
					}
					oldArgMinMaxInt64(t, o, difftest.Count(10, 100), r, code, in)
				})
			}
		}
	}
}

// oldArgMinMaxInt64 runs n int64-output cases in-process against TFLM's
// results for their int32 twins; the first case's model must be rejected
// by TFLM as it is.
func oldArgMinMaxInt64(t *testing.T, o *oracle.Oracle, n int, r *rand.Rand, code model.OpCode, in model.DType) {
	t.Helper()
	var tally difftest.Tally
	var sw difftest.Sweep
	for i := 0; i < n; i++ {
		c, twin := randArgMinMaxTwins(r, code, in, model.Int64)
		csv, raw := c.inputs[0].CSV(), c.inputs[0].Raw()
		if !sw.Take(i, c.model, testProgram) { // case 0 is always taken
			_, gerr := inProcess(c.model, raw)
			tally.UnrunCase(gerr)
			continue
		}
		if i == 0 {
			_, err := o.Run(c.model, csv)
			if tally.Skip(t, err, i, c.desc) {
				continue // case 0 without its rejection: skipped whole
			}
			if !errors.Is(err, oracle.ErrRejected) {
				t.Errorf("%s: TFLM did not reject the int64 output: %v", c.desc, err)
			}
		}
		want, err := o.Run(twin.model, csv)
		if tally.Skip(t, err, i, twin.desc) {
			continue
		}
		if err != nil {
			t.Fatalf("case %d (%s): oracle: %v", i, twin.desc, err)
		}
		got, err := inProcess(c.model, raw)
		if err != nil {
			t.Errorf("case %d (%s): %v", i, c.desc, err)
			tally.Mismatches++
			continue
		}
		if err := difftest.CompareRaw(model.Int64, got[0], want[0]); err != nil {
			t.Errorf("case %d (%s): %v", i, c.desc, err)
			tally.Mismatches++
		}
		tally.Compared++
	}
	tally.Log(t)
}

// TestOldActivationsRefusedAsTFLM: quantizations and types TFLM's Prepare
// or Eval rejects for the activations.
func TestOldActivationsRefusedAsTFLM(t *testing.T) {
	o := oracle.New(t)
	r := rand.New(rand.NewPCG(95, 1))
	q := builder.PerTensor
	for _, tc := range []struct {
		code   model.OpCode
		dt     model.DType
		qi, qo *builder.Quant
		want   string
	}{
		{model.OpLogistic, model.Int8, q(0.1, 0), q(1.0/256, 0), "want -128"},
		{model.OpLogistic, model.Int16, q(1.0/4096, 0), q(1.0/256, 0), "not 2^-15"},
		{model.OpTanh, model.Int16, q(1.0/4096, 3), q(1.0/32768, 0), "zero points 0"},
		{model.OpTanh, model.Int16, q(1.0/4096, 0), q(1.0/32768, 3), "zero points 0"},
		{model.OpRelu, model.Int16, q(0.5, 1), q(0.5, 0), "zero points 0"},
		{model.OpHardSwish, model.Int16, q(0.5, 0), q(0.5, 0), "not supported"},
		{model.OpHardSwish, model.Int8, q(10, 0), q(0.001, 0), "larger than 1"},
		{model.OpRelu, model.Int32, nil, nil, "not supported"},
		{model.OpLogistic, model.Int32, nil, nil, "not supported"},
	} {
		checkRefusedAsTFLM(t, o, oldActCase(r, tc.code, tc.dt, tc.dt, tc.qi, tc.qo, nil, ""), tc.code, tc.want)
	}
}
