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

// Random differential tests against TFLM for the operators that had
// lowerings and kernels before the shared harness: the elementwise
// arithmetic, pools, convolutions, FULLY_CONNECTED and TRANSPOSE_CONV.

// doAct is a random fused activation TFLM's kernels take: NONE, RELU,
// RELU_N1_TO_1 or RELU6.
func doAct(r *rand.Rand) int { return r.IntN(4) }

// doBcastShapes is a random output shape of rank 1-4 and two input shapes
// that broadcast to it: dimensions set to 1 and leading dimensions dropped.
func doBcastShapes(r *rand.Rand) (a, b, out []int) {
	out = make([]int, 1+r.IntN(4))
	for i := range out {
		out[i] = 1 + r.IntN(5)
	}
	derive := func() []int {
		s := append([]int(nil), out...)
		switch r.IntN(3) {
		case 0: // same shape
			return s
		case 1: // some dimensions 1
			for i := range s {
				if r.IntN(2) == 0 {
					s[i] = 1
				}
			}
		}
		drop := r.IntN(len(s) + 1)
		if r.IntN(2) == 0 {
			drop = 0
		}
		s = s[drop:]
		if len(s) == 0 {
			s = []int{1}
		}
		return s
	}
	a, b = derive(), derive()
	// Make sure the inputs cover out: one of them keeps the full shape
	// where the other does not.
	if !doCovers(a, b, out) {
		a = append([]int(nil), out...)
	}
	return a, b, out
}

// doCovers reports whether a and b broadcast to exactly out.
func doCovers(a, b, out []int) bool {
	for i := range out {
		d := 1
		for _, s := range [][]int{a, b} {
			if j := i - (len(out) - len(s)); j >= 0 && s[j] > d {
				d = s[j]
			}
		}
		if d != out[i] {
			return false
		}
	}
	return true
}

// randDOBinary is a random ADD, SUB, MUL, MAXIMUM or MINIMUM case with
// broadcasting, per-tensor quantization (int8, int16) and a random fused
// activation (ADD, SUB, MUL); the second operand is constant in one case
// in four.
func randDOBinary(r *rand.Rand, code model.OpCode, dt model.DType) diffCase {
	sa, sb, so := doBcastShapes(r)
	m := builder.New("binary differential case")
	qa, qb, qo := difftest.RandQuant(r, dt), difftest.RandQuant(r, dt), difftest.RandQuant(r, dt)
	if code == model.OpMaximum || code == model.OpMinimum {
		qb, qo = qa, qa
	}
	va, vb := difftest.RandVals(r, dt, shapeProd(sa)), difftest.RandVals(r, dt, shapeProd(sb))
	a := m.Tensor("a", dt, sa, qa)
	c := diffCase{outDT: dt, inputs: []difftest.Vals{va}}
	constB := r.IntN(4) == 0
	var b int
	if constB {
		b = vb.ConstTensor(m, "b", sb, qb)
	} else {
		b = m.Tensor("b", dt, sb, qb)
		c.inputs = append(c.inputs, vb)
	}
	out := m.Tensor("out", dt, so, qo)
	var opts *builder.Options
	act := 0
	switch code {
	case model.OpAdd, model.OpSub, model.OpMul:
		act = doAct(r)
		u, slot := uint8(model.UnionAddOptions), model.AddOptionsFusedActivationFunction
		switch code {
		case model.OpSub:
			u, slot = model.UnionSubOptions, model.SubOptionsFusedActivationFunction
		case model.OpMul:
			u, slot = model.UnionMulOptions, model.MulOptionsFusedActivationFunction
		}
		opts = &builder.Options{Type: u, Fields: []builder.Field{builder.Byte(slot, act)}}
	}
	m.Op(code, []int{a, b}, []int{out}, opts)
	if constB {
		m.IO([]int{a}, []int{out})
	} else {
		m.IO([]int{a, b}, []int{out})
	}
	c.model = m.Bytes()
	c.desc = fmt.Sprintf("%s %s %v %v -> %v act %d const b %v quant %v %v %v", code, dt, sa, sb, so, act, constB, doQ(qa), doQ(qb), doQ(qo))
	return c
}

func doQ(q *builder.Quant) string {
	if q == nil {
		return "-"
	}
	return fmt.Sprintf("%g/%d", q.Scale[0], q.ZeroPoint[0])
}

// TestDiffOldArithMatchesTFLM: random ADD, SUB, MUL, MAXIMUM and MINIMUM
// models of every type, through TFLM and in-process.
func TestDiffOldArithMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	for _, code := range []model.OpCode{model.OpAdd, model.OpSub, model.OpMul, model.OpMaximum, model.OpMinimum} {
		for _, dt := range []model.DType{model.Int8, model.Int16, model.Float32, model.Int32} {
			t.Run(fmt.Sprintf("%s_%s", code, dt), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(code), 100+uint64(dt)))
				gen := func(r *rand.Rand) diffCase { return randDOBinary(r, code, dt) }
				runDiffCases(t, o, diffN{10, 100}, r, gen, nil)
			})
		}
	}
}

// doOutSize is the output size of a window of size f (dilation d) at
// stride s over in, with SAME or VALID padding, and the padding before.
func doOutSize(in, f, s, d int, same bool) (out, pad int) {
	ef := (f-1)*d + 1
	if same {
		out = (in + s - 1) / s
	} else {
		out = (in-ef)/s + 1
	}
	pad = max(0, ((out-1)*s+ef-in)/2)
	return out, pad
}

// randDOPool is a random AVERAGE_POOL_2D or MAX_POOL_2D case.
func randDOPool(r *rand.Rand, code model.OpCode, dt model.DType) diffCase {
	b, h, w, ch := 1+r.IntN(2), 1+r.IntN(10), 1+r.IntN(10), 1+r.IntN(5)
	fh, fw, sh, sw := 1+r.IntN(4), 1+r.IntN(4), 1+r.IntN(3), 1+r.IntN(3)
	same := r.IntN(2) == 0
	if !same && (h < fh || w < fw) {
		same = true
	}
	oh, _ := doOutSize(h, fh, sh, 1, same)
	ow, _ := doOutSize(w, fw, sw, 1, same)
	act := doAct(r)
	q := difftest.RandQuant(r, dt)
	m := builder.New("pool differential case")
	in := m.Tensor("in", dt, []int{b, h, w, ch}, q)
	out := m.Tensor("out", dt, []int{b, oh, ow, ch}, q)
	pad := 1
	if same {
		pad = 0
	}
	m.Op(code, []int{in}, []int{out}, &builder.Options{Type: model.UnionPool2DOptions, Fields: []builder.Field{
		builder.Byte(model.Pool2DOptionsPadding, pad), builder.Int(model.Pool2DOptionsStrideW, sw), builder.Int(model.Pool2DOptionsStrideH, sh),
		builder.Int(model.Pool2DOptionsFilterWidth, fw), builder.Int(model.Pool2DOptionsFilterHeight, fh), builder.Byte(model.Pool2DOptionsFusedActivationFunction, act)}})
	m.IO([]int{in}, []int{out})
	return diffCase{outDT: dt, model: m.Bytes(), inputs: []difftest.Vals{difftest.RandVals(r, dt, b*h*w*ch)},
		desc: fmt.Sprintf("%s %s [%d %d %d %d] filter %dx%d stride %dx%d same %v act %d quant %s", code, dt, b, h, w, ch, fh, fw, sh, sw, same, act, doQ(q))}
}

// TestDiffOldPoolMatchesTFLM: random pools of every type TFLM runs.
func TestDiffOldPoolMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	for _, code := range []model.OpCode{model.OpAveragePool2D, model.OpMaxPool2D} {
		for _, dt := range []model.DType{model.Int8, model.Int16, model.Float32} {
			t.Run(fmt.Sprintf("%s_%s", code, dt), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(code), 200+uint64(dt)))
				gen := func(r *rand.Rand) diffCase { return randDOPool(r, code, dt) }
				runDiffCases(t, o, diffN{10, 100}, r, gen, nil)
			})
		}
	}
}

// doKind is the type combination of a convolution-like case: float32,
// int8 (int8 filter per channel, int32 bias) or 16x8 (int16 activations,
// int8 filter per channel, int64 bias).
type doKind int

const (
	doF32 doKind = iota
	doI8
	doI16x8
)

func (k doKind) String() string { return [...]string{"float32", "int8", "int16x8"}[k] }

func (k doKind) dt() model.DType {
	return [...]model.DType{model.Float32, model.Int8, model.Int16}[k]
}

// doFloats are n normal float32 values of scale s.
func doFloats(r *rand.Rand, n int, s float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64() * s)
	}
	return v
}

// doWeights adds a constant filter of the given shape quantized per
// channel along axis (int8 and 16x8; per tensor when perTensor) and, when
// withBias, a bias of oc elements (int32 for int8, int64 for 16x8,
// float32); it returns the filter, the bias (-1 without) and the mean
// filter scale.
func doWeights(r *rand.Rand, m *builder.Model, k doKind, shape []int, axis, oc int, inScale float32, perTensor, withBias bool) (wt, bt int, ws float32) {
	n := shapeProd(shape)
	bt = -1
	if k == doF32 {
		wt = m.ConstF32("w", shape, doFloats(r, n, 0.5))
		if withBias {
			bt = m.ConstF32("b", []int{oc}, doFloats(r, oc, 2))
		}
		return wt, bt, 1
	}
	wq, bq := &builder.Quant{Axis: axis}, &builder.Quant{}
	nq := oc
	if perTensor {
		nq, wq.Axis = 1, 0
	}
	for i := 0; i < nq; i++ {
		s := float32(0.002 + 0.002*float64(r.IntN(10)))
		wq.Scale = append(wq.Scale, s)
		wq.ZeroPoint = append(wq.ZeroPoint, 0)
		bq.Scale = append(bq.Scale, inScale*s)
		bq.ZeroPoint = append(bq.ZeroPoint, 0)
		ws += s / float32(nq)
	}
	wt = m.ConstI8("w", shape, wq, difftest.RandInt8s(r, n))
	if !withBias {
		return wt, bt, ws
	}
	if k == doI8 {
		bias := make([]int32, oc)
		for i := range bias {
			bias[i] = int32(r.IntN(40001) - 20000)
		}
		bt = m.ConstI32("b", []int{oc}, bq, bias)
	} else {
		var raw []byte
		for i := 0; i < oc; i++ {
			raw = binary.LittleEndian.AppendUint64(raw, uint64(r.Int64N(4000001)-2000000))
		}
		bt = m.Const("b", model.Int64, []int{oc}, bq, raw)
	}
	return wt, bt, ws
}

// doInOutQuant is a random input quantization and an output quantization
// whose scale puts a sum of depth products of the filter scale ws near the
// output range (times 2^-3 .. 2^3); int16 zero points are 0.
func doInOutQuant(r *rand.Rand, k doKind, depth int, wsFor func(inScale float32) float32) (iq, oq *builder.Quant, ws float32) {
	if k == doF32 {
		return nil, nil, wsFor(1)
	}
	iq = difftest.RandQuant(r, k.dt())
	ws = wsFor(iq.Scale[0])
	// |x - zp| * |w| summed over depth terms: about a quarter of the range
	// times 64 times sqrt(depth), in units of in*w.
	inRange, outRange := 256.0, 256.0
	if k == doI16x8 {
		inRange, outRange = 65536, 65536
	}
	acc := inRange / 4 * 64 * math.Sqrt(float64(depth))
	os := float64(iq.Scale[0]) * float64(ws) * acc / (outRange / 4) * math.Exp2(float64(r.IntN(7)-3))
	zp := int64(0)
	if k == doI8 {
		zp = int64(r.IntN(256) - 128)
	}
	return iq, builder.PerTensor(float32(os), zp), ws
}

// randDOConv is a random CONV_2D or DEPTHWISE_CONV_2D case: filter sizes
// 1-4, strides 1-3, dilations 1-3, both paddings, depth multipliers 1-3,
// fused activations, bias present in most cases.
func randDOConv(r *rand.Rand, depthwise bool, k doKind) diffCase {
	b, h, w, ic := 1+r.IntN(2), 1+r.IntN(10), 1+r.IntN(10), 1+r.IntN(5)
	fh, fw, sh, sw := 1+r.IntN(4), 1+r.IntN(4), 1+r.IntN(3), 1+r.IntN(3)
	dh, dw := 1, 1
	if r.IntN(3) == 0 {
		dh, dw = 1+r.IntN(3), 1+r.IntN(3)
	}
	same := r.IntN(2) == 0
	if !same && (h < (fh-1)*dh+1 || w < (fw-1)*dw+1) {
		same = true
	}
	oh, _ := doOutSize(h, fh, sh, dh, same)
	ow, _ := doOutSize(w, fw, sw, dw, same)
	oc, dm := 1+r.IntN(8), 1
	shape, axis, depth := []int{oc, fh, fw, ic}, 0, fh*fw*ic
	if depthwise {
		dm = 1 + r.IntN(3)
		oc = ic * dm
		shape, axis, depth = []int{1, fh, fw, oc}, 3, fh*fw
	}
	withBias := r.IntN(5) > 0
	act := doAct(r)
	m := builder.New("conv differential case")
	var wt, bt int
	iq, oq, _ := doInOutQuant(r, k, depth, func(inScale float32) float32 {
		var ws float32
		wt, bt, ws = doWeights(r, m, k, shape, axis, oc, inScale, false, withBias)
		return ws
	})
	in := m.Tensor("in", k.dt(), []int{b, h, w, ic}, iq)
	out := m.Tensor("out", k.dt(), []int{b, oh, ow, oc}, oq)
	pad := 1
	if same {
		pad = 0
	}
	ins := []int{in, wt}
	if bt >= 0 {
		ins = append(ins, bt)
	}
	code := model.OpConv2D
	opts := &builder.Options{Type: model.UnionConv2DOptions, Fields: []builder.Field{builder.Byte(model.Conv2DOptionsPadding, pad), builder.Int(model.Conv2DOptionsStrideW, sw), builder.Int(model.Conv2DOptionsStrideH, sh),
		builder.Byte(model.Conv2DOptionsFusedActivationFunction, act), builder.Int(model.Conv2DOptionsDilationWFactor, dw), builder.Int(model.Conv2DOptionsDilationHFactor, dh)}}
	if depthwise {
		code = model.OpDepthwiseConv2D
		opts = &builder.Options{Type: model.UnionDepthwiseConv2DOptions, Fields: []builder.Field{builder.Byte(model.DepthwiseConv2DOptionsPadding, pad), builder.Int(model.DepthwiseConv2DOptionsStrideW, sw), builder.Int(model.DepthwiseConv2DOptionsStrideH, sh),
			builder.Int(model.DepthwiseConv2DOptionsDepthMultiplier, dm), builder.Byte(model.DepthwiseConv2DOptionsFusedActivationFunction, act), builder.Int(model.DepthwiseConv2DOptionsDilationWFactor, dw), builder.Int(model.DepthwiseConv2DOptionsDilationHFactor, dh)}}
	}
	m.Op(code, ins, []int{out}, opts)
	m.IO([]int{in}, []int{out})
	return diffCase{outDT: k.dt(), model: m.Bytes(), inputs: []difftest.Vals{difftest.RandVals(r, k.dt(), b*h*w*ic)},
		desc: fmt.Sprintf("%s %s [%d %d %d %d] filter %v stride %dx%d dilation %dx%d same %v multiplier %d act %d bias %v quant %s -> %s",
			code, k, b, h, w, ic, shape, sh, sw, dh, dw, same, dm, act, withBias, doQ(iq), doQ(oq))}
}

// TestDiffOldConvMatchesTFLM: random CONV_2D and DEPTHWISE_CONV_2D models
// of every type combination TFLM runs.
func TestDiffOldConvMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	for _, depthwise := range []bool{false, true} {
		for _, k := range []doKind{doI8, doI16x8, doF32} {
			code := model.OpConv2D
			if depthwise {
				code = model.OpDepthwiseConv2D
			}
			t.Run(fmt.Sprintf("%s_%s", code, k), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(code), 300+uint64(k)))
				gen := func(r *rand.Rand) diffCase { return randDOConv(r, depthwise, k) }
				runDiffCases(t, o, diffN{10, 100}, r, gen, difftest.ConvTooLarge)
			})
		}
	}
}

// randDOFC is a random FULLY_CONNECTED case: input of rank 1-4 (rows the
// product of the leading dimensions), keep_num_dims, per-tensor or
// per-channel weights, with or without bias, fused activations.
func randDOFC(r *rand.Rand, k doKind, perTensor bool) diffCase {
	rank := 1 + r.IntN(4)
	ishape := make([]int, rank)
	for i := range ishape {
		ishape[i] = 1 + r.IntN(4)
	}
	depth := 1 + r.IntN(24)
	ishape[rank-1] = depth
	rows := shapeProd(ishape) / depth
	units := 1 + r.IntN(16)
	keep := r.IntN(2) == 0
	oshape := []int{rows, units}
	if keep {
		oshape = append(append([]int(nil), ishape[:rank-1]...), units)
	}
	withBias := r.IntN(3) > 0
	act := doAct(r)
	m := builder.New("fully connected differential case")
	var wt, bt int
	iq, oq, _ := doInOutQuant(r, k, depth, func(inScale float32) float32 {
		var ws float32
		wt, bt, ws = doWeights(r, m, k, []int{units, depth}, 0, units, inScale, perTensor, withBias)
		return ws
	})
	in := m.Tensor("in", k.dt(), ishape, iq)
	out := m.Tensor("out", k.dt(), oshape, oq)
	ins := []int{in, wt}
	if bt >= 0 {
		ins = append(ins, bt)
	} else if r.IntN(2) == 0 {
		ins = append(ins, -1) // an absent optional bias
	}
	m.Op(model.OpFullyConnected, ins, []int{out}, &builder.Options{Type: model.UnionFullyConnectedOptions, Fields: []builder.Field{
		builder.Byte(model.FullyConnectedOptionsFusedActivationFunction, act), builder.Bool(model.FullyConnectedOptionsKeepNumDims, keep)}})
	m.IO([]int{in}, []int{out})
	return diffCase{outDT: k.dt(), model: m.Bytes(), inputs: []difftest.Vals{difftest.RandVals(r, k.dt(), shapeProd(ishape))},
		desc: fmt.Sprintf("FULLY_CONNECTED %s %v -> %v units %d keep %v per-tensor %v bias %v act %d quant %s -> %s",
			k, ishape, oshape, units, keep, perTensor, withBias, act, doQ(iq), doQ(oq))}
}

// TestDiffOldFullyConnectedMatchesTFLM: random FULLY_CONNECTED models of
// every type combination TFLM runs.
func TestDiffOldFullyConnectedMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	for _, tc := range []struct {
		name      string
		k         doKind
		perTensor bool
	}{
		{"int8", doI8, true},
		{"int8_perchannel", doI8, false},
		{"int16x8", doI16x8, false},
		{"float32", doF32, false},
	} {
		t.Run("FULLY_CONNECTED_"+tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(model.OpFullyConnected), 400+uint64(tc.k)*2+map[bool]uint64{true: 1}[tc.perTensor]))
			gen := func(r *rand.Rand) diffCase { return randDOFC(r, tc.k, tc.perTensor) }
			runDiffCases(t, o, diffN{10, 100}, r, gen, difftest.ConvTooLarge)
		})
	}
}

// randDOTransposeConv is a random TRANSPOSE_CONV case: filter sizes 1-4,
// strides 1-3, both paddings, with or without bias, fused activations.
func randDOTransposeConv(r *rand.Rand, k doKind) diffCase {
	b, h, w, ic := 1+r.IntN(2), 1+r.IntN(6), 1+r.IntN(6), 1+r.IntN(5)
	fh, fw, sh, sw := 1+r.IntN(4), 1+r.IntN(4), 1+r.IntN(3), 1+r.IntN(3)
	oc := 1 + r.IntN(6)
	same := r.IntN(2) == 0
	oh, ow := (h-1)*sh+fh, (w-1)*sw+fw
	if same {
		oh, ow = h*sh, w*sw
	}
	withBias := r.IntN(3) > 0
	act := doAct(r)
	m := builder.New("transpose conv differential case")
	var wt, bt int
	depth := max(1, fh*fw*ic/(sh*sw))
	iq, oq, _ := doInOutQuant(r, k, depth, func(inScale float32) float32 {
		var ws float32
		wt, bt, ws = doWeights(r, m, k, []int{oc, fh, fw, ic}, 0, oc, inScale, false, withBias)
		return ws
	})
	osh := m.ConstI32("output_shape", []int{4}, nil, []int32{int32(b), int32(oh), int32(ow), int32(oc)})
	in := m.Tensor("in", k.dt(), []int{b, h, w, ic}, iq)
	out := m.Tensor("out", k.dt(), []int{b, oh, ow, oc}, oq)
	pad := 1
	if same {
		pad = 0
	}
	ins := []int{osh, wt, in}
	if bt >= 0 {
		ins = append(ins, bt)
	}
	m.Op(model.OpTransposeConv, ins, []int{out}, &builder.Options{Type: model.UnionTransposeConvOptions, Fields: []builder.Field{
		builder.Byte(model.TransposeConvOptionsPadding, pad), builder.Int(model.TransposeConvOptionsStrideW, sw), builder.Int(model.TransposeConvOptionsStrideH, sh), builder.Byte(model.TransposeConvOptionsFusedActivationFunction, act)}})
	m.IO([]int{in}, []int{out})
	return diffCase{outDT: k.dt(), model: m.Bytes(), inputs: []difftest.Vals{difftest.RandVals(r, k.dt(), b*h*w*ic)},
		desc: fmt.Sprintf("TRANSPOSE_CONV %s [%d %d %d %d] filter %dx%d -> %d stride %dx%d same %v bias %v act %d quant %s -> %s",
			k, b, h, w, ic, fh, fw, oc, sh, sw, same, withBias, act, doQ(iq), doQ(oq))}
}

// TestDiffOldTransposeConvMatchesTFLM: random TRANSPOSE_CONV models, int8
// and float32.
func TestDiffOldTransposeConvMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	for _, k := range []doKind{doI8, doF32} {
		t.Run(fmt.Sprintf("TRANSPOSE_CONV_%s", k), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(model.OpTransposeConv), 500+uint64(k)))
			gen := func(r *rand.Rand) diffCase { return randDOTransposeConv(r, k) }
			runDiffCases(t, o, diffN{10, 100}, r, gen, difftest.ConvTooLarge)
		})
	}
}
