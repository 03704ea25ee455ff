package kernels

import (
	"math"
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// dwTCase is one DEPTHWISE_CONV_2D test ported from TFLM's
// depthwise_conv_test.cc. TFLM's harness always uses VALID padding and
// depth_multiplier = filter channels / input channels. Shapes are NHWC; the
// filter is [1, H, W, outC].
type dwTCase struct {
	name                      string
	inShape, fShape, outShape [4]int
	in, filter, bias, golden  []float32
	inScale, outScale         float32
	inZP, outZP               int32
	strideH, strideW          int
	dilH, dilW                int
	act                       quant.Activation
	perLayer                  bool // filter per tensor with scale 1
}

func (c dwTCase) params(t *testing.T) *dwParams {
	t.Helper()
	p := &dwParams{
		batches: c.inShape[0], inH: c.inShape[1], inW: c.inShape[2], inC: c.inShape[3],
		filterH: c.fShape[1], filterW: c.fShape[2],
		outH: c.outShape[1], outW: c.outShape[2], outC: c.outShape[3],
		strideH: c.strideH, strideW: c.strideW, dilationH: c.dilH, dilationW: c.dilW,
	}
	p.depthMul = p.outC / p.inC
	oh := convTOutSize(false, p.inH, p.filterH, c.strideH, c.dilH)
	ow := convTOutSize(false, p.inW, p.filterW, c.strideW, c.dilW)
	p.padH = convTPad(c.strideH, c.dilH, p.inH, p.filterH, oh)
	p.padW = convTPad(c.strideW, c.dilW, p.inW, p.filterW, ow)
	return p
}

var (
	dwTInput  = []float32{1, 2, 7, 8, 3, 4, 9, 10, 5, 6, 11, 12}
	dwTFilter = []float32{1, 2, 3, 4, -9, 10, -11, 12, 5, 6, 7, 8, 13, -14, 15, -16}
)

// dwTSimple is SimpleTest's geometry: input 1x3x2x2, filter 1x2x2x4
// (depth multiplier 2), output 1x2x1x4.
func dwTSimple(name string, golden []float32) dwTCase {
	return dwTCase{name: name, inShape: [4]int{1, 3, 2, 2}, fShape: [4]int{1, 2, 2, 4}, outShape: [4]int{1, 2, 1, 4},
		in: dwTInput, filter: dwTFilter, bias: []float32{1, 2, 3, 4}, golden: golden,
		inScale: 0.5, outScale: 1, strideH: 1, strideW: 1, dilH: 1, dilW: 1}
}

func TestDepthwiseFloat(t *testing.T) {
	relu := dwTSimple("SimpleTestRelu", []float32{71, 0, 99, 0, 91, 0, 127, 0})
	relu.act = quant.ActRelu
	cmp := dwTCase{name: "TestQuantizedPerChannelCompareWithFloat", inShape: [4]int{1, 2, 3, 2},
		fShape: [4]int{1, 2, 2, 4}, outShape: [4]int{1, 1, 2, 4},
		in:     []float32{3, 2, 1, -1, -2, -3, 4, 3, 2, -2, -3, -4},
		filter: []float32{1, 2, 3, 4, 3, 4, 5, 6, 7, 8, 5, 6, 3, 4, 1, 2},
		bias:   []float32{3, -2, 4, 6}, golden: []float32{43, 48, 18, 22, 3, -4, -28, -36},
		strideH: 1, strideW: 1, dilH: 1, dilW: 1}
	for _, c := range []dwTCase{dwTSimple("SimpleTest", []float32{71, -34, 99, -20, 91, -26, 127, -4}), relu, cmp} {
		t.Run(c.name, func(t *testing.T) {
			p := c.params(t)
			p.fActMin, p.fActMax = convTFloatRange(t, c.act)
			out := make([]float32, len(c.golden))
			dwF32(p, c.in, convTF32s(c.filter), convTF32s(c.bias), out)
			convTNearF(t, out, c.golden)
		})
	}
}

// dwTInt8Cases are the int8 cases of depthwise_conv_test.cc.
func dwTInt8Cases() []dwTCase {
	dm1 := dwTCase{name: "SimpleTestQuantizedPerChannelDepthMultiplier1", inShape: [4]int{1, 3, 2, 2},
		fShape: [4]int{1, 2, 2, 2}, outShape: [4]int{1, 2, 1, 2}, in: dwTInput,
		filter: []float32{1, 2, 3, 4, -9, 10, -11, 12}, bias: []float32{1, 2},
		golden: []float32{-103, 127, -128, 127}, inScale: 1, outScale: 1, strideH: 1, strideW: 1, dilH: 1, dilW: 1}
	dm1Relu6 := dwTCase{name: "TestQuantizedPerChannelDepthMultiplier1Relu6", inShape: [4]int{1, 3, 2, 4},
		fShape: [4]int{1, 2, 2, 4}, outShape: [4]int{1, 2, 1, 4},
		in:     []float32{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		filter: []float32{0, 1, 8, -2, -1, 2, -10, 0, -1, 3, -18, 0, 0, 4, 20, -3},
		bias:   []float32{1, 2, 3, 4}, golden: []float32{0, 6, 3, 0, 0, 6, 3, 0},
		inScale: 0.023529, outScale: 0.023529, inZP: -128, outZP: -128,
		strideH: 1, strideW: 1, dilH: 1, dilW: 1, act: quant.ActRelu6}
	dilated := dwTCase{name: "SimpleTestDilatedQuantizedPerChannel", inShape: [4]int{1, 4, 6, 2},
		fShape: [4]int{1, 2, 2, 4}, outShape: [4]int{1, 2, 3, 4},
		in: []float32{1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4,
			1, 2, 3, 4, 5, 6, 2, 6, 2, 4, 4, 2, 3, 2, 6, 5, 1, 4, 1, 2, 1, 4, 6, 3},
		filter: dwTFilter, bias: []float32{1, 2, 3, 4},
		golden: []float32{15, 2, 88, -48, 25, 14, 72, 0, 61, -2, 56, 48,
			-4, 52, 12, 48, 11, 70, 63, 40, 51, -30, 41, 48},
		inScale: 0.5, outScale: 1, strideH: 1, strideW: 1, dilH: 2, dilW: 3}
	cmp := dwTCase{name: "TestQuantizedPerChannelCompareWithFloat", inShape: [4]int{1, 2, 3, 2},
		fShape: [4]int{1, 2, 2, 4}, outShape: [4]int{1, 1, 2, 4},
		in:     []float32{3, 2, 1, -1, -2, -3, 4, 3, 2, -2, -3, -4},
		filter: []float32{1, 2, 3, 4, 3, 4, 5, 6, 7, 8, 5, 6, 3, 4, 1, 2},
		bias:   []float32{3, -2, 4, 6}, golden: []float32{43, 48, 18, 22, 3, -4, -28, -36},
		inScale: 0.5, outScale: 1, strideH: 1, strideW: 1, dilH: 1, dilW: 1}
	broadcast := dwTSimple("PerChannelBroadcastQuantizationParams", []float32{71, -34, 99, -20, 91, -26, 127, -4})
	broadcast.inScale, broadcast.perLayer = 1, true
	return []dwTCase{
		dwTSimple("SimpleTestQuantizedPerChannel", []float32{71, -34, 99, -20, 91, -26, 127, -4}),
		dm1, dm1Relu6, dilated, cmp, broadcast,
	}
}

func TestDepthwiseInt8(t *testing.T) {
	for _, c := range dwTInt8Cases() {
		t.Run(c.name, func(t *testing.T) {
			p := c.params(t)
			var filter []int8
			var fScales []float32
			var bias string
			if c.perLayer {
				q := convTQuant(c.filter, 1, 0, -128, 127)
				filter = make([]int8, len(q))
				for i, v := range q {
					filter[i] = int8(v)
				}
				fScales = []float32{1}
				bias = convTBias(c.bias, c.inScale*c.outScale, fScales, 32)
			} else {
				filter, fScales = convTSymPerChannel(c.filter, p.outC, 3)
				bias = convTBias(c.bias, c.inScale, fScales, 32)
			}
			q := convTQuant(c.in, c.inScale, c.inZP, -128, 127)
			in := make([]int8, len(q))
			for i, v := range q {
				in[i] = int8(v)
			}
			mult, shift := convTMult(c.inScale, fScales, c.outScale, p.outC)
			p.inOffset, p.outOffset = -c.inZP, c.outZP
			p.actMin, p.actMax = convTActRange(t, c.act, c.outScale, c.outZP, -128, 127)
			out := make([]int8, len(c.golden))
			dwInt8(p, in, filter, bias, mult, shift, out)
			convTNear(t, out, convTQuant(c.golden, c.outScale, c.outZP, -128, 127), 1)
		})
	}
}

// TestDepthwiseInt8PerTensorStride2 ports Int8Input32x4Filter32x4Should
// MatchGolden: per-tensor filter scale, input zero point -128, a 4x1 filter
// with stride 2 over 32 channels, zero bias, tolerance 1 as in TFLM.
func TestDepthwiseInt8PerTensorStride2(t *testing.T) {
	in := []float32{
		11.0589, 10.8824, 11.1766, 11.5295, 10.8236, 9.5295, 9.5295, 10.0001,
		11.2354, 10.8824, 9.1765, 9.0589, 9.6471, 8.9412, 7.9412, 9.0001,
		9.3530, 7.5295, 9.2354, 9.5883, 7.5883, 8.1765, 7.5883, 9.2942,
		9.1177, 8.5883, 8.2354, 8.6471, 8.0589, 8.0001, 7.4118, 7.3530,
		11.0001, 11.1177, 11.0589, 11.2354, 10.5883, 9.2942, 9.2942, 10.1177,
		11.2354, 10.8824, 8.9412, 8.8236, 9.2354, 8.8824, 7.0001, 9.1177,
		9.5883, 8.2354, 9.1765, 9.5295, 7.4118, 8.5883, 8.1177, 9.1765,
		9.0001, 9.0589, 8.9412, 8.2942, 7.8824, 8.4118, 7.2942, 7.2354,
		10.4118, 10.8824, 11.1177, 11.0001, 10.0001, 9.7060, 9.7648, 10.1766,
		11.1766, 10.6471, 8.6471, 8.5295, 9.5295, 9.0001, 7.0001, 9.4118,
		9.8236, 8.0001, 9.2354, 9.5883, 7.5295, 9.0001, 8.5295, 9.0589,
		8.9412, 9.1177, 8.9412, 8.0001, 8.0589, 8.8824, 7.0589, 7.3530,
		11.3530, 11.0589, 10.7060, 10.7648, 9.9413, 9.1177, 9.1177, 9.7648,
		10.7060, 10.2354, 8.5883, 8.8236, 9.7648, 9.2942, 7.5295, 9.2354,
		9.7060, 8.1177, 9.2942, 9.5883, 7.7648, 9.6471, 9.1177, 9.4707,
		9.3530, 8.8236, 8.5295, 8.0589, 8.6471, 9.5883, 7.4118, 7.5883,
	}
	filter := []float32{
		-0.1617, -0.1948, 0.1419, -0.2311, -0.0891, 0.1551, 0.0033, 0.3037,
		-0.1683, 0.1353, 0.1518, -0.1683, -0.1386, 0.1452, 0.1816, 0.1716,
		-0.1948, 0.2080, 0.2245, -0.1981, -0.2410, 0.1849, 0.1981, 0.1584,
		0.2509, 0.1783, -0.2146, -0.1518, 0.2080, -0.2872, 0.2014, 0.2476,
		-0.4126, -0.0561, -0.3235, -0.0594, -0.0957, 0.2014, -0.1056, 0.1386,
		-0.2542, -0.1617, 0.1287, -0.1816, -0.0363, 0.1419, -0.0594, 0.2344,
		-0.0099, 0.4192, 0.1287, -0.2311, -0.2212, -0.0528, -0.2080, 0.1816,
		-0.1452, 0.1221, 0.1254, -0.1056, -0.0759, 0.1221, 0.1023, 0.1485,
		0.2707, 0.1716, -0.1882, -0.1783, 0.1650, -0.2740, 0.1915, 0.2080,
		-0.2971, -0.2575, -0.3169, 0.0198, -0.0231, 0.2410, -0.0429, 0.0660,
		-0.1816, 0.1981, 0.2014, -0.1386, -0.1915, 0.1716, 0.1320, 0.1419,
		0.1320, 0.1353, -0.1386, -0.1716, 0.1320, -0.1650, 0.1386, 0.0825,
		-0.1419, -0.1023, 0.1783, 0.0462, 0.2047, -0.2179, -0.1518, -0.1551,
		0.1518, 0.3334, 0.3103, -0.2047, -0.2047, -0.0957, -0.1650, 0.1221,
		0.0990, 0.1353, -0.1617, -0.1485, 0.1650, -0.1816, 0.1518, 0.1254,
		-0.0363, -0.1254, 0.1386, 0.0429, 0.2113, -0.2839, -0.1056, -0.2278,
	}
	golden := []float32{
		-5.1194, -2.0075, -2.1751, -4.7958, 1.7073, -1.2963, -0.4641, 5.0416,
		-6.4424, 0.3836, 2.4684, -4.7643, -3.8913, 3.8382, -0.5164, 5.4304,
		-2.7400, 7.7016, 3.6115, -6.8545, -3.6290, 0.8509, 2.3247, 5.6117,
		1.8215, 2.7645, -0.7032, -3.2156, 3.9689, -5.4583, 2.4346, 1.7731,
	}
	const inScale, fScale, outScale = float32(0.058824), float32(0.003301), float32(0.092596)
	c := dwTCase{inShape: [4]int{1, 4, 1, 32}, fShape: [4]int{1, 4, 1, 32}, outShape: [4]int{1, 1, 1, 32},
		strideH: 2, strideW: 2, dilH: 1, dilW: 1}
	p := c.params(t)
	qi := convTQuant(in, inScale, -128, -128, 127)
	qf := convTQuant(filter, fScale, 0, -128, 127)
	in8, f8 := make([]int8, len(qi)), make([]int8, len(qf))
	for i := range qi {
		in8[i], f8[i] = int8(qi[i]), int8(qf[i])
	}
	mult, shift := convTMult(inScale, []float32{fScale}, outScale, 32)
	p.inOffset, p.outOffset = 128, 0
	p.actMin, p.actMax = -128, 127
	out := make([]int8, 32)
	dwInt8(p, in8, f8, convTI32s(make([]int32, 32)), mult, shift, out)
	convTNear(t, out, convTQuant(golden, outScale, 0, -128, 127), 1)
}

// TestDepthwiseInt16 ports SimpleTestQuantizedPerChannelInt16InputInt8Filter.
func TestDepthwiseInt16(t *testing.T) {
	c := dwTSimple("SimpleTestQuantizedPerChannelInt16InputInt8Filter",
		[]float32{4894, -9009, -16596, 10268, -2564, -7483, -6599, 4356})
	c.in = []float32{-547, 108, -682, 540, -161, -539, 9, -482, -859, 84, 153, -726}
	p := c.params(t)
	filter, fScales := convTSymPerChannel(c.filter, p.outC, 3)
	q := convTQuant(c.in, c.inScale, 0, -32768, 32767)
	in := make([]int16, len(q))
	for i, v := range q {
		in[i] = int16(v)
	}
	mult, shift := convTMult(c.inScale, fScales, c.outScale, p.outC)
	p.actMin, p.actMax = -32768, 32767
	out := make([]int16, len(c.golden))
	dwInt16(p, in, filter, convTBias(c.bias, c.inScale, fScales, 64), mult, shift, out)
	convTNear(t, out, convTQuant(c.golden, c.outScale, 0, -32768, 32767), 1)
}

// TestDepthwiseReference runs every DEPTHWISE_CONV_2D of the int8 reference
// models on the input TFLM recorded and requires the recorded output bit for
// bit (person_detect: depth multiplier 8 and 1, stride 1 and 2, SAME
// padding, RELU6; micro_speech: a 10x8 filter with stride 2).
func TestDepthwiseReference(t *testing.T) {
	shared := convTSharedDir(t)
	for _, name := range []string{"person_detect", "micro_speech_quantized"} {
		g := convTModel(t, filepath.Join(shared, "models", name+".tflite"))
		n := 0
		for _, op := range g.Ops {
			if op.Code != model.OpDepthwiseConv2D {
				continue
			}
			n++
			t.Run(name+"/"+op.Describe(), func(t *testing.T) {
				in, filter, bias, out := g.Input(op, 0), g.Input(op, 1), g.Input(op, 2), g.Output(op, 0)
				o := op.Options()
				same := o.Uint8(0, 0) == 0
				sw, sh := int(o.Int32(1, 0)), int(o.Int32(2, 0))
				dm := int(o.Int32(3, 0))
				act := quant.Activation(o.Uint8(4, 0))
				dw, dh := int(o.Int32(5, 1)), int(o.Int32(6, 1))
				if err := o.Err(); err != nil {
					t.Fatal(err)
				}
				p := &dwParams{
					batches: in.Shape[0], inH: in.Shape[1], inW: in.Shape[2], inC: in.Shape[3],
					filterH: filter.Shape[1], filterW: filter.Shape[2],
					outH: out.Shape[1], outW: out.Shape[2], outC: out.Shape[3], depthMul: dm,
					strideH: sh, strideW: sw, dilationH: dh, dilationW: dw,
				}
				if dm*p.inC != p.outC {
					t.Fatalf("depth_multiplier %d, channels %d -> %d", dm, p.inC, p.outC)
				}
				oh := convTOutSize(same, p.inH, p.filterH, sh, dh)
				ow := convTOutSize(same, p.inW, p.filterW, sw, dw)
				if oh != p.outH || ow != p.outW {
					t.Fatalf("output %dx%d, padding rules give %dx%d", p.outH, p.outW, oh, ow)
				}
				p.padH = convTPad(sh, dh, p.inH, p.filterH, oh)
				p.padW = convTPad(sw, dw, p.inW, p.filterW, ow)
				q := convTQuantFromOp(t, in, filter, out, act, p.outC, -128, 127)
				p.inOffset, p.outOffset, p.actMin, p.actMax = -q.inZP, q.outZP, q.actMin, q.actMax
				x := convTBytesI8(convTRefTensor(t, shared, name, in.Index))
				want := convTBytesI8(convTRefTensor(t, shared, name, out.Index))
				got := make([]int8, len(want))
				dwInt8(p, x, convTBytesI8(filter.Data), string(bias.Data), q.mult, q.shift, got)
				w := make([]int32, len(want))
				for i, v := range want {
					w[i] = int32(v)
				}
				convTNear(t, got, w, 0)
			})
		}
		if n == 0 {
			t.Fatalf("%s has no DEPTHWISE_CONV_2D", name)
		}
	}
}

// TestDwRescaleMatchesReference checks dwRescale against mulByQuantMul on
// edge values and random inputs, for every exponent.
func TestDwRescaleMatchesReference(t *testing.T) {
	xs := []int32{0, 1, -1, 2, -2, 1 << 20, -(1 << 20), math.MaxInt32, math.MinInt32, 12345, -12345}
	ms := []int32{0, 1, 1 << 30, math.MaxInt32, 1518500250, 1073741825}
	seed := uint32(7)
	next := func() int32 {
		seed ^= seed << 13
		seed ^= seed >> 17
		seed ^= seed << 5
		return int32(seed)
	}
	for shift := -31; shift <= 30; shift++ {
		for k := 0; k < 200; k++ {
			xs = append(xs[:11], next())
			m := ms[k%len(ms)]
			if k >= len(ms) {
				m = next() & math.MaxInt32
			}
			for _, x := range xs {
				if got, want := dwRescale(x, m, shift), mulByQuantMul(x, m, shift); got != want {
					t.Fatalf("dwRescale(%d, %d, %d) = %d, mulByQuantMul gives %d", x, m, shift, got, want)
				}
			}
		}
	}
}

// dwTNaive is TFLM's reference depthwise loop transcribed directly: per
// output channel, the taps inside the image, then bias, requantization,
// output zero point and clamp.
func dwTNaive(p *dwParams, in, filter []int8, bias, mult, shift string, out []int8) {
	o := 0
	for b := 0; b < p.batches; b++ {
		for oy := 0; oy < p.outH; oy++ {
			for ox := 0; ox < p.outW; ox++ {
				for oc := 0; oc < p.outC; oc++ {
					ic := oc / p.depthMul
					var acc int32
					for fy := 0; fy < p.filterH; fy++ {
						for fx := 0; fx < p.filterW; fx++ {
							iy := oy*p.strideH - p.padH + fy*p.dilationH
							ix := ox*p.strideW - p.padW + fx*p.dilationW
							if iy < 0 || iy >= p.inH || ix < 0 || ix >= p.inW {
								continue
							}
							x := int32(in[((b*p.inH+iy)*p.inW+ix)*p.inC+ic])
							acc += int32(filter[(fy*p.filterW+fx)*p.outC+oc]) * (x + p.inOffset)
						}
					}
					if bias != "" {
						acc += ld32(bias, oc)
					}
					acc = mulByQuantMul(acc, ld32(mult, oc), int(ld32(shift, oc)))
					out[o+oc] = int8(min(max(acc+p.outOffset, p.actMin), p.actMax))
				}
				o += p.outC
			}
		}
	}
}

// TestDepthwiseInt8Paths compares dwInt8 with dwTNaive on random tensors
// through each of its paths: one input channel with contiguous taps (eight
// channels in registers, then the rest), one input channel with dilated
// taps, depth multiplier 1, and other depth multipliers, with channel
// counts that leave partial blocks.
func TestDepthwiseInt8Paths(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	for _, c := range []struct{ inC, dm, dil, stride int }{
		{1, 8, 1, 2}, {1, 11, 1, 1}, {1, 8, 2, 1}, {1, 19, 2, 2}, {3, 1, 1, 1}, {20, 1, 2, 2}, {3, 2, 1, 1}, {5, 3, 2, 1},
	} {
		p := &dwParams{batches: 2, inH: 9, inW: 11, inC: c.inC, filterH: 3, filterW: 4, outC: c.inC * c.dm, depthMul: c.dm,
			strideH: c.stride, strideW: c.stride, dilationH: c.dil, dilationW: c.dil, inOffset: 7, outOffset: -3, actMin: -128, actMax: 127}
		p.outH = convTOutSize(true, p.inH, p.filterH, p.strideH, p.dilationH)
		p.outW = convTOutSize(true, p.inW, p.filterW, p.strideW, p.dilationW)
		p.padH = convTPad(p.strideH, p.dilationH, p.inH, p.filterH, p.outH)
		p.padW = convTPad(p.strideW, p.dilationW, p.inW, p.filterW, p.outW)
		in := convTRandI8(r, p.batches*p.inH*p.inW*p.inC)
		filter := convTRandI8(r, p.filterH*p.filterW*p.outC)
		bias, mult, shift := convTRandQ(r, p.outC)
		want := make([]int8, p.batches*p.outH*p.outW*p.outC)
		got := make([]int8, len(want))
		dwTNaive(p, in, filter, bias, mult, shift, want)
		dwInt8(p, in, filter, bias, mult, shift, got)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%+v: output %d is %d, want %d", c, i, got[i], want[i])
			}
		}
	}
}
