package builder

import (
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// Example is a fixture model the project builds itself.
type Example struct {
	Name  string // file base name in testdata/ and package name in generated_examples/
	About string
	Build func() []byte
	// Recompute is the example's -recompute=N% (gen.Options.Recompute;
	// 0: off), as generated_examples/doc.go generates it.
	Recompute float64
}

// Examples lists the project's fixture models, written to testdata/ and
// generated into generated_examples/.
func Examples() []Example {
	return []Example{
		{"dense_int8", "int8 three-layer perceptron (FULLY_CONNECTED with RELU), shaped like TFLite Micro's hello_world, random weights", DenseInt8, 0},
		{"tiny_conv_int8", "int8 convolutional classifier: CONV_2D, DEPTHWISE_CONV_2D, AVERAGE_POOL_2D, RESHAPE, FULLY_CONNECTED, SOFTMAX", TinyConvInt8, 0},
		{"mlp_float", "float32 perceptron with ADD and SOFTMAX", MLPFloat, 0},
		{"mobilenet_int8", "int8 MobileNet V1-style image classifier (32x32): depthwise-separable blocks that tflm-gen runs as fused row-by-row groups", MobileNetInt8, 0},
		{"mobilenet_torch_int8", "mobilenet_int8 as PyTorch's converters write it: an explicit PAD before every 3x3 convolution, then VALID, each PAD folded into its convolution's padding", MobileNetTorchInt8, 0},
		{"mobilenet_v2_int8", "the first 7 blocks of an int8 MobileNet V2 0.35 on a 96x96 image, generated with -recompute=10%: its first operators run in column strips", MobileNetV2Int8, 10},
	}
}

// rng is a deterministic xorshift generator for weights.
type rng uint32

func (r *rng) next() uint32 {
	x := uint32(*r)
	x ^= x << 13
	x ^= x >> 17
	x ^= x << 5
	*r = rng(x)
	return x
}

func (r *rng) int8s(n int) []int8 {
	out := make([]int8, n)
	for i := range out {
		out[i] = int8(r.next()%255 - 127)
	}
	return out
}

func (r *rng) int32s(n int, span int32) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(r.next()%uint32(2*span+1)) - span
	}
	return out
}

func (r *rng) floats(n int, scale float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = (float32(r.next()%2001)/1000 - 1) * scale
	}
	return out
}

// Option values used by the examples: Padding and ActivationFunctionType
// of internal/model/options.fbs.
const (
	padSame  = 0
	padValid = 1
	actNone  = 0
	actRelu  = 1
	actRelu6 = 3
)

// conv2DOpts is CONV_2D's options: the padding, the stride on both axes,
// the fused activation, no dilation.
func conv2DOpts(pad, stride, act int) *Options {
	return &Options{Type: model.UnionConv2DOptions, Fields: []Field{
		Byte(model.Conv2DOptionsPadding, pad), Int(model.Conv2DOptionsStrideW, stride), Int(model.Conv2DOptionsStrideH, stride),
		Byte(model.Conv2DOptionsFusedActivationFunction, act),
		Int(model.Conv2DOptionsDilationWFactor, 1), Int(model.Conv2DOptionsDilationHFactor, 1)}}
}

// depthwiseOpts is DEPTHWISE_CONV_2D's options: the padding, the stride on
// both axes, depth multiplier 1, the fused activation, no dilation.
func depthwiseOpts(pad, stride, act int) *Options {
	return &Options{Type: model.UnionDepthwiseConv2DOptions, Fields: []Field{
		Byte(model.DepthwiseConv2DOptionsPadding, pad), Int(model.DepthwiseConv2DOptionsStrideW, stride), Int(model.DepthwiseConv2DOptionsStrideH, stride),
		Int(model.DepthwiseConv2DOptionsDepthMultiplier, 1), Byte(model.DepthwiseConv2DOptionsFusedActivationFunction, act),
		Int(model.DepthwiseConv2DOptionsDilationWFactor, 1), Int(model.DepthwiseConv2DOptionsDilationHFactor, 1)}}
}

// poolOpts is a 2-D pool's options: the padding, a square window of size
// k moved by k, the fused activation.
func poolOpts(pad, k, act int) *Options {
	return &Options{Type: model.UnionPool2DOptions, Fields: []Field{
		Byte(model.Pool2DOptionsPadding, pad), Int(model.Pool2DOptionsStrideW, k), Int(model.Pool2DOptionsStrideH, k),
		Int(model.Pool2DOptionsFilterWidth, k), Int(model.Pool2DOptionsFilterHeight, k), Byte(model.Pool2DOptionsFusedActivationFunction, act)}}
}

// fcOpts is FULLY_CONNECTED's options: the fused activation.
func fcOpts(act int) *Options {
	return &Options{Type: model.UnionFullyConnectedOptions, Fields: []Field{Byte(model.FullyConnectedOptionsFusedActivationFunction, act)}}
}

// softmaxOpts is SOFTMAX's options: beta 1.
func softmaxOpts() *Options {
	return &Options{Type: model.UnionSoftmaxOptions, Fields: []Field{Float(model.SoftmaxOptionsBeta, 1)}}
}

// reshapeOpts is RESHAPE's options: the new shape.
func reshapeOpts(shape []int32) *Options {
	return (&Options{Type: model.UnionReshapeOptions}).IntVector(model.ReshapeOptionsNewShape, shape).ptr()
}

// DenseInt8 is a 1 -> 16 -> 16 -> 1 int8 perceptron.
func DenseInt8() []byte {
	r := rng(0x51e)
	m := New("tflm-gen example: dense_int8")
	in := m.Tensor("x", model.Int8, []int{1, 1}, PerTensor(0.024574, -128))
	h1 := m.Tensor("dense1/relu", model.Int8, []int{1, 16}, PerTensor(0.011, -128))
	h2 := m.Tensor("dense2/relu", model.Int8, []int{1, 16}, PerTensor(0.0105, -128))
	out := m.Tensor("y", model.Int8, []int{1, 1}, PerTensor(0.0085, 4))
	fc := func(name string, x, y, nIn, nOut int, xs float32, act int) {
		ws := float32(0.0047)
		w := m.ConstI8(name+"/weights", []int{nOut, nIn}, PerTensor(ws, 0), r.int8s(nIn*nOut))
		b := m.ConstI32(name+"/bias", []int{nOut}, PerTensor(xs*ws, 0), r.int32s(nOut, 2000))
		m.Op(model.OpFullyConnected, []int{x, w, b}, []int{y}, fcOpts(act))
	}
	fc("dense1", in, h1, 1, 16, 0.024574, actRelu)
	fc("dense2", h1, h2, 16, 16, 0.011, actRelu)
	fc("dense3", h2, out, 16, 1, 0.0105, actNone)
	m.IO([]int{in}, []int{out})
	return m.Bytes()
}

// TinyConvInt8 is a 16x16 single-channel image classifier with four classes.
func TinyConvInt8() []byte {
	r := rng(0xc0ffee)
	m := New("tflm-gen example: tiny_conv_int8")
	const inS, c1S, c2S, c3S, poolS, fcS = 0.0078125, 0.02, 0.0235, 0.03, 0.03, 0.09
	in := m.Tensor("image", model.Int8, []int{1, 16, 16, 1}, PerTensor(inS, -1))
	c1 := m.Tensor("conv1/relu", model.Int8, []int{1, 8, 8, 8}, PerTensor(c1S, -128))
	c2 := m.Tensor("dw2/relu6", model.Int8, []int{1, 8, 8, 8}, PerTensor(c2S, -128))
	c3 := m.Tensor("conv3/relu", model.Int8, []int{1, 8, 8, 16}, PerTensor(c3S, -128))
	pool := m.Tensor("pool", model.Int8, []int{1, 1, 1, 16}, PerTensor(poolS, -128))
	flat := m.Tensor("flatten", model.Int8, []int{1, 16}, PerTensor(poolS, -128))
	logits := m.Tensor("logits", model.Int8, []int{1, 4}, PerTensor(fcS, 10))
	probs := m.Tensor("probs", model.Int8, []int{1, 4}, PerTensor(1.0/256, -128))

	perChan := func(n int, base float32) *Quant {
		q := &Quant{Axis: 0}
		for i := 0; i < n; i++ {
			q.Scale = append(q.Scale, base*(1+float32(i)/8))
			q.ZeroPoint = append(q.ZeroPoint, 0)
		}
		return q
	}
	bias := func(name string, inScale float32, wq *Quant) int {
		bq := &Quant{Axis: 0}
		for _, s := range wq.Scale {
			bq.Scale = append(bq.Scale, inScale*s)
			bq.ZeroPoint = append(bq.ZeroPoint, 0)
		}
		return m.ConstI32(name, []int{len(wq.Scale)}, bq, r.int32s(len(wq.Scale), 300))
	}

	w1q := perChan(8, 0.004)
	w1 := m.ConstI8("conv1/weights", []int{8, 3, 3, 1}, w1q, r.int8s(8*9))
	m.Op(model.OpConv2D, []int{in, w1, bias("conv1/bias", inS, w1q)}, []int{c1},
		conv2DOpts(padSame, 2, actRelu))

	w2q := perChan(8, 0.01)
	w2q.Axis = 3
	w2 := m.ConstI8("dw2/weights", []int{1, 3, 3, 8}, w2q, r.int8s(9*8))
	m.Op(model.OpDepthwiseConv2D, []int{c1, w2, bias("dw2/bias", c1S, w2q)}, []int{c2},
		depthwiseOpts(padSame, 1, actRelu6))

	w3q := perChan(16, 0.006)
	w3 := m.ConstI8("conv3/weights", []int{16, 1, 1, 8}, w3q, r.int8s(16*8))
	m.Op(model.OpConv2D, []int{c2, w3, bias("conv3/bias", c2S, w3q)}, []int{c3},
		conv2DOpts(padValid, 1, actRelu))

	m.Op(model.OpAveragePool2D, []int{c3}, []int{pool},
		poolOpts(padValid, 8, actNone))

	shape := m.ConstI32("flatten/shape", []int{2}, nil, []int32{1, 16})
	m.Op(model.OpReshape, []int{pool, shape}, []int{flat}, reshapeOpts([]int32{1, 16}))

	w4 := m.ConstI8("fc/weights", []int{4, 16}, PerTensor(0.008, 0), r.int8s(4*16))
	b4 := m.ConstI32("fc/bias", []int{4}, PerTensor(poolS*0.008, 0), r.int32s(4, 500))
	m.Op(model.OpFullyConnected, []int{flat, w4, b4}, []int{logits}, fcOpts(actNone))
	m.Op(model.OpSoftmax, []int{logits}, []int{probs}, softmaxOpts())
	m.IO([]int{in}, []int{probs})
	return m.Bytes()
}

func (o Options) ptr() *Options { return &o }

// MLPFloat is a float32 perceptron: two dense layers whose outputs are
// added, then a softmax over 3 classes.
func MLPFloat() []byte {
	r := rng(0xf10a7)
	m := New("tflm-gen example: mlp_float")
	in := m.Tensor("features", model.Float32, []int{1, 6}, nil)
	a := m.Tensor("branch_a", model.Float32, []int{1, 3}, nil)
	b := m.Tensor("branch_b", model.Float32, []int{1, 3}, nil)
	sum := m.Tensor("sum", model.Float32, []int{1, 3}, nil)
	out := m.Tensor("probs", model.Float32, []int{1, 3}, nil)
	wa := m.ConstF32("a/weights", []int{3, 6}, r.floats(18, 0.8))
	ba := m.ConstF32("a/bias", []int{3}, r.floats(3, 0.1))
	wb := m.ConstF32("b/weights", []int{3, 6}, r.floats(18, 0.8))
	m.Op(model.OpFullyConnected, []int{in, wa, ba}, []int{a}, fcOpts(actRelu))
	m.Op(model.OpFullyConnected, []int{in, wb, -1}, []int{b}, fcOpts(actNone))
	m.Op(model.OpAdd, []int{a, b}, []int{sum}, &Options{Type: model.UnionAddOptions, Fields: []Field{Byte(model.AddOptionsFusedActivationFunction, actNone)}})
	m.Op(model.OpSoftmax, []int{sum}, []int{out}, softmaxOpts())
	m.IO([]int{in}, []int{out})
	return m.Bytes()
}

// MobileNetInt8 is a MobileNet V1-style int8 classifier on a 32x32 image:
// a strided 3x3 convolution, three depthwise-separable blocks (3x3
// depthwise, 1x1 pointwise; the second strided), average pool, fully
// connected, softmax. Its high-resolution layers are what fused row
// streaming runs row by row.
func MobileNetInt8() []byte { return mobileNet("mobilenet_int8", false) }

// MobileNetTorchInt8 is MobileNetInt8 (the same weights) as converted from
// PyTorch: each 3x3 convolution reads an explicit PAD of one row and
// column on every side (the input's zero point) with VALID padding.
func MobileNetTorchInt8() []byte { return mobileNet("mobilenet_torch_int8", true) }

// mobileNet builds MobileNetInt8, with explicit PADs where torch is set.
func mobileNet(name string, torch bool) []byte {
	r := rng(0x5eed)
	m := New("tflm-gen example: " + name)
	perChan := func(n int, base float32, axis int) *Quant {
		q := &Quant{Axis: axis}
		for i := 0; i < n; i++ {
			q.Scale = append(q.Scale, base*(1+float32(i%5)/8))
			q.ZeroPoint = append(q.ZeroPoint, 0)
		}
		return q
	}
	bias := func(name string, inScale float32, wq *Quant) int {
		bq := &Quant{}
		for _, s := range wq.Scale {
			bq.Scale = append(bq.Scale, inScale*s)
			bq.ZeroPoint = append(bq.ZeroPoint, 0)
		}
		return m.ConstI32(name, []int{len(wq.Scale)}, bq, r.int32s(len(wq.Scale), 300))
	}
	scale, zp := float32(0.0078125), int64(-1)
	x := m.Tensor("image", model.Int8, []int{1, 32, 32, 1}, PerTensor(scale, zp))
	in := x
	h, c := 32, 1
	layer := func(name string, dw bool, oc, stride int) {
		oh := (h + stride - 1) / stride
		if dw {
			oc = c
		}
		pad := padSame
		if torch && (dw || c == 1) {
			// PyTorch's padding=1 around a 3x3 window.
			p := m.Tensor(name+"/pad", model.Int8, []int{1, h + 2, h + 2, c}, PerTensor(scale, zp))
			pads := m.ConstI32(name+"/paddings", []int{4, 2}, nil, []int32{0, 0, 1, 1, 1, 1, 0, 0})
			m.Op(model.OpPad, []int{x, pads}, []int{p}, nil)
			x, pad = p, padValid
		}
		os := float32(0.02) + 0.002*float32(oc%7)
		y := m.Tensor(name+"/relu6", model.Int8, []int{1, oh, oh, oc}, PerTensor(os, -128))
		if dw {
			wq := perChan(oc, 0.01, 3)
			w := m.ConstI8(name+"/weights", []int{1, 3, 3, oc}, wq, r.int8s(9*oc))
			m.Op(model.OpDepthwiseConv2D, []int{x, w, bias(name+"/bias", scale, wq)}, []int{y},
				depthwiseOpts(pad, stride, actRelu6))
		} else {
			f := 1
			if c == 1 {
				f = 3
			}
			wq := perChan(oc, 0.006, 0)
			w := m.ConstI8(name+"/weights", []int{oc, f, f, c}, wq, r.int8s(oc*f*f*c))
			m.Op(model.OpConv2D, []int{x, w, bias(name+"/bias", scale, wq)}, []int{y},
				conv2DOpts(pad, stride, actRelu6))
		}
		x, scale, zp, h, c = y, os, -128, oh, oc
	}
	layer("conv0", false, 8, 2)
	layer("block1/dw", true, 0, 1)
	layer("block1/pw", false, 16, 1)
	layer("block2/dw", true, 0, 2)
	layer("block2/pw", false, 32, 1)
	layer("block3/dw", true, 0, 1)
	layer("block3/pw", false, 32, 1)
	pool := m.Tensor("pool", model.Int8, []int{1, 1, 1, c}, PerTensor(scale, -128))
	m.Op(model.OpAveragePool2D, []int{x}, []int{pool},
		poolOpts(padValid, h, actNone))
	flat := m.Tensor("flatten", model.Int8, []int{1, c}, PerTensor(scale, -128))
	shape := m.ConstI32("flatten/shape", []int{2}, nil, []int32{1, int32(c)})
	m.Op(model.OpReshape, []int{pool, shape}, []int{flat}, reshapeOpts([]int32{1, int32(c)}))
	logits := m.Tensor("logits", model.Int8, []int{1, 4}, PerTensor(0.3, 10))
	w := m.ConstI8("fc/weights", []int{4, c}, PerTensor(0.008, 0), r.int8s(4*c))
	b := m.ConstI32("fc/bias", []int{4}, PerTensor(scale*0.008, 0), r.int32s(4, 500))
	m.Op(model.OpFullyConnected, []int{flat, w, b}, []int{logits}, fcOpts(actNone))
	probs := m.Tensor("probs", model.Int8, []int{1, 4}, PerTensor(1.0/256, -128))
	m.Op(model.OpSoftmax, []int{logits}, []int{probs}, softmaxOpts())
	m.IO([]int{in}, []int{probs})
	return m.Bytes()
}
