package lower

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/devtools/oracle"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// Operators whose data ("activation") input is a constant tensor, which
// TFLM runs: the lowerings pass such an input through ewOperand (a wide
// constant is copied into scratch first).

// constDataQuant is the quantization of a data or output tensor of type
// dt (int16: zero point 0), nil for float32.
func constDataQuant(r *rand.Rand, dt model.DType) *builder.Quant {
	if dt == model.Float32 {
		return nil
	}
	q := difftest.RandQuant(r, dt)
	q.Scale[0] = float32(0.01 + 0.1*r.Float64())
	return q
}

// randConstData is a random FULLY_CONNECTED, CONV_2D, ADD or MUL of type
// dt whose data input is constant; a graph input feeds a second ADD (the
// oracle needs one), and output 0 is the operator's.
func randConstData(r *rand.Rand, code model.OpCode, dt model.DType) diffCase {
	m := builder.New("constant data input")
	c := diffCase{outDT: dt}
	wq := func() *builder.Quant {
		if dt == model.Float32 {
			return nil
		}
		return builder.PerTensor(float32(0.005+0.05*r.Float64()), 0)
	}
	wdt := dt
	if dt == model.Int16 {
		wdt = model.Int8
	}
	var ins []int
	var out int
	var opts *builder.Options
	switch code {
	case model.OpFullyConnected:
		batch, depth, units := 1+r.IntN(3), 1+r.IntN(8), 1+r.IntN(6)
		x := difftest.RandVals(r, dt, batch*depth).ConstTensor(m, "x", []int{batch, depth}, constDataQuant(r, dt))
		w := difftest.RandVals(r, wdt, units*depth).ConstTensor(m, "w", []int{units, depth}, wq())
		ins = []int{x, w, -1}
		out = m.Tensor("out", dt, []int{batch, units}, constDataQuant(r, dt))
		c.desc = fmt.Sprintf("FULLY_CONNECTED %s constant [%d %d] x [%d %d]", dt, batch, depth, units, depth)
	case model.OpConv2D:
		h, w_, ic, oc, k := 1+r.IntN(5), 1+r.IntN(5), 1+r.IntN(3), 1+r.IntN(3), 1+2*r.IntN(2)
		x := difftest.RandVals(r, dt, h*w_*ic).ConstTensor(m, "x", []int{1, h, w_, ic}, constDataQuant(r, dt))
		f := difftest.RandVals(r, wdt, oc*k*k*ic).ConstTensor(m, "f", []int{oc, k, k, ic}, wq())
		ins = []int{x, f, -1}
		out = m.Tensor("out", dt, []int{1, h, w_, oc}, constDataQuant(r, dt))
		opts = &builder.Options{Type: model.UnionConv2DOptions, Fields: []builder.Field{builder.Byte(model.Conv2DOptionsPadding, 0), builder.Int(model.Conv2DOptionsStrideW, 1), builder.Int(model.Conv2DOptionsStrideH, 1), builder.Int(model.Conv2DOptionsDilationWFactor, 1), builder.Int(model.Conv2DOptionsDilationHFactor, 1)}}
		c.desc = fmt.Sprintf("CONV_2D %s constant [1 %d %d %d] filter %dx%d to %d", dt, h, w_, ic, k, k, oc)
	default:
		shape := randDims(r, 1+r.IntN(4), 4)
		n := shapeProd(shape)
		a := difftest.RandVals(r, dt, n).ConstTensor(m, "a", shape, constDataQuant(r, dt))
		b := difftest.RandVals(r, dt, n).ConstTensor(m, "b", shape, constDataQuant(r, dt))
		ins = []int{a, b}
		out = m.Tensor("out", dt, shape, constDataQuant(r, dt))
		c.desc = fmt.Sprintf("%s %s constants %v", code, dt, shape)
	}
	m.Op(code, ins, []int{out}, opts)
	q := constDataQuant(r, dt)
	u := m.Tensor("u", dt, []int{2}, q)
	u2 := m.Tensor("u2", dt, []int{2}, q)
	m.Op(model.OpAdd, []int{u, u}, []int{u2}, nil)
	m.IO([]int{u}, []int{out, u2})
	c.inputs = []difftest.Vals{difftest.RandVals(r, dt, 2)}
	c.model = m.Bytes()
	return c
}

// TestConstDataMatchesTFLM: FULLY_CONNECTED and CONV_2D (float32, int8,
// int16) and ADD and MUL (float32, int16) with constant data inputs,
// against TFLM bit for bit.
func TestConstDataMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	for _, tc := range []struct {
		code model.OpCode
		dt   model.DType
	}{
		{model.OpFullyConnected, model.Float32}, {model.OpFullyConnected, model.Int8}, {model.OpFullyConnected, model.Int16},
		{model.OpConv2D, model.Float32}, {model.OpConv2D, model.Int8}, {model.OpConv2D, model.Int16},
		{model.OpAdd, model.Float32}, {model.OpAdd, model.Int16}, {model.OpMul, model.Float32}, {model.OpMul, model.Int16},
	} {
		name := tc.code.String() + "_const_data_" + strings.ToLower(tc.dt.String())
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(mathSeed(name), 13))
			runDiffCases(t, o, diffN{20, 200}, r, func(r *rand.Rand) diffCase {
				return randConstData(r, tc.code, tc.dt)
			}, nil)
		})
	}
}
