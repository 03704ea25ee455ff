package lower

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/devtools/oracle"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// randL2Norm is a random L2_NORMALIZATION: rank 1-4 (rank 5 when
// badRank), rows of 1 to 40 values; int8 outputs mostly with the scale
// 1/128 and zero point 0 converters give them, sometimes another (which
// TFLM ignores).
func randL2Norm(r *rand.Rand, dt model.DType, act quant.Activation, badRank bool) diffCase {
	rank := 1 + r.IntN(4)
	if badRank {
		rank = 5
	}
	shape := randDims(r, rank, 4)
	shape[rank-1] = 1 + r.IntN(40)
	c := diffCase{outDT: dt, desc: fmt.Sprintf("L2_NORMALIZATION %s %v act %s", dt, shape, act)}
	m := builder.New("l2_normalization differential case")
	qi := difftest.RandQuant(r, dt)
	var qo *builder.Quant
	if dt == model.Int8 {
		qo = builder.PerTensor(1.0/128, 0)
		if r.IntN(4) == 0 {
			qo = difftest.RandQuant(r, dt)
		}
	}
	vals := difftest.RandVals(r, dt, shapeProd(shape))
	if dt == model.Int8 && r.IntN(8) == 0 {
		// A row of zero points: a zero norm.
		for i := range vals.Ints {
			vals.Ints[i] = qi.ZeroPoint[0]
		}
	}
	in := m.Tensor("in", dt, shape, qi)
	out := m.Tensor("out", dt, shape, qo)
	m.Op(model.OpL2Normalization, []int{in}, []int{out}, &builder.Options{Type: model.UnionL2NormOptions, Fields: []builder.Field{builder.Byte(model.L2NormOptionsFusedActivationFunction, int(act))}})
	m.IO([]int{in}, []int{out})
	c.inputs = []difftest.Vals{vals}
	c.model = m.Bytes()
	return c
}

// randL2Pool is a random L2_POOL_2D: filters 1-4, strides 1-3, both
// paddings, the fused activations TFLM applies.
func randL2Pool(r *rand.Rand, dt model.DType) diffCase {
	for {
		b, h, w, d := 1+r.IntN(2), 1+r.IntN(8), 1+r.IntN(8), 1+r.IntN(3)
		fh, fw, sh, sw := 1+r.IntN(4), 1+r.IntN(4), 1+r.IntN(3), 1+r.IntN(3)
		same := r.IntN(2) == 0
		size := func(in, f, s int) int {
			if same {
				return (in + s - 1) / s
			}
			return (in + s - f) / s
		}
		oh, ow := size(h, fh, sh), size(w, fw, sw)
		if oh <= 0 || ow <= 0 {
			continue
		}
		act := []int{0, 1, 2, 3}[r.IntN(4)]
		pad := 1
		if same {
			pad = 0
		}
		c := diffCase{outDT: dt, desc: fmt.Sprintf("L2_POOL_2D %s [%d %d %d %d] filter %dx%d stride %dx%d same %v act %d", dt, b, h, w, d, fh, fw, sh, sw, same, act)}
		m := builder.New("l2_pool_2d differential case")
		q := difftest.RandQuant(r, dt)
		in := m.Tensor("in", dt, []int{b, h, w, d}, q)
		out := m.Tensor("out", dt, []int{b, oh, ow, d}, q)
		m.Op(model.OpL2Pool2D, []int{in}, []int{out}, &builder.Options{Type: model.UnionPool2DOptions, Fields: []builder.Field{
			builder.Byte(model.Pool2DOptionsPadding, pad), builder.Int(model.Pool2DOptionsStrideW, sw), builder.Int(model.Pool2DOptionsStrideH, sh),
			builder.Int(model.Pool2DOptionsFilterWidth, fw), builder.Int(model.Pool2DOptionsFilterHeight, fh), builder.Byte(model.Pool2DOptionsFusedActivationFunction, act)}})
		m.IO([]int{in}, []int{out})
		c.inputs = []difftest.Vals{difftest.RandVals(r, dt, b*h*w*d)}
		c.model = m.Bytes()
		return c
	}
}

// TestL2MatchesTFLM: random L2_NORMALIZATION (float32, int8) and
// L2_POOL_2D (float32) models through TFLM and in-process, compared bit
// for bit; one L2_NORMALIZATION case in 20 has a fused activation and one
// in 20 rank 5, which TFLM rejects and the lowering must refuse.
func TestL2MatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	for _, tc := range []struct {
		name string
		gen  func(r *rand.Rand) diffCase
	}{
		{"L2_NORMALIZATION_float32", func(r *rand.Rand) diffCase {
			return randL2Norm(r, model.Float32, quant.Activation(map[bool]int{true: 1}[r.IntN(20) == 0]), r.IntN(20) == 0)
		}},
		{"L2_NORMALIZATION_int8", func(r *rand.Rand) diffCase {
			return randL2Norm(r, model.Int8, quant.Activation(map[bool]int{true: 3}[r.IntN(20) == 0]), r.IntN(20) == 0)
		}},
		{"L2_POOL_2D_float32", func(r *rand.Rand) diffCase { return randL2Pool(r, model.Float32) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seed := uint64(0)
			for _, b := range tc.name {
				seed = seed*31 + uint64(b)
			}
			r := rand.New(rand.NewPCG(seed, 12))
			runDiffCases(t, o, diffN{20, 200}, r, tc.gen, nil)
		})
	}
}

// TestL2RefusedAsTFLM: types TFLM rejects, a fused activation and rank 5
// for L2_NORMALIZATION; int8 and int16 L2_POOL_2D.
func TestL2RefusedAsTFLM(t *testing.T) {
	o := oracle.New(t)
	r := rand.New(rand.NewPCG(12, 5))
	for _, tc := range []struct {
		c    diffCase
		code model.OpCode
		want string
	}{
		{randL2Norm(r, model.Int16, 0, false), model.OpL2Normalization, "not supported"},
		{randL2Norm(r, model.Int32, 0, false), model.OpL2Normalization, "not supported"},
		{randL2Norm(r, model.Float32, quant.ActRelu, false), model.OpL2Normalization, "fused activation"},
		{randL2Norm(r, model.Int8, 0, true), model.OpL2Normalization, "rank 1 to 4"},
		{randL2Pool(r, model.Int8), model.OpL2Pool2D, "float32 only"},
		{randL2Pool(r, model.Int16), model.OpL2Pool2D, "float32 only"},
	} {
		checkRefusedAsTFLM(t, o, tc.c, tc.code, tc.want)
	}
}
