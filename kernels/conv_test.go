package kernels

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// Test helpers shared by the convolution family's tests (conv, depthwise,
// transpose conv). The quantization helpers reproduce TFLite Micro's test
// helpers (micro_utils.h, test_helpers.cc) so that ported test cases build
// exactly the tensors TFLM's own tests build.

// convTQuant quantizes like TFLM's FloatToQuantizedType: round(v/scale)+zp
// computed in float32, clamped to [lo, hi].
func convTQuant(v []float32, scale float32, zp, lo, hi int32) []int32 {
	out := make([]int32, len(v))
	for i, x := range v {
		q := int32(math.Round(float64(x/scale))) + zp
		out[i] = min(max(q, lo), hi)
	}
	return out
}

// convTSymPerChannel quantizes a filter like TFLM's
// SignedSymmetricPerChannelQuantize (int8): one scale per channel along axis
// (0 or 3) equal to max|w|/127, values rounded and clamped to [-127, 127].
func convTSymPerChannel(v []float32, nCh, axis int) ([]int8, []float32) {
	per := len(v) / nCh
	stride, chStride := 1, per
	if axis == 3 {
		stride, chStride = nCh, 1
	}
	q := make([]int8, len(v))
	scales := make([]float32, nCh)
	for c := 0; c < nCh; c++ {
		var lo, hi float32
		for i := 0; i < per; i++ {
			x := v[c*chStride+i*stride]
			lo = min(lo, x)
			hi = max(hi, x)
		}
		scales[c] = max(float32(math.Abs(float64(lo))), float32(math.Abs(float64(hi)))) / 127
		for i := 0; i < per; i++ {
			idx := c*chStride + i*stride
			r := int32(math.Round(float64(v[idx] / scales[c])))
			q[idx] = int8(min(max(r, -127), 127))
		}
	}
	return q, scales
}

// convTBias quantizes a bias like TFLM's CreatePerChannelQuantizedBiasTensor:
// channel c uses scale inScale*fScales[c] (fScales of length 1 broadcast),
// round(v/scale) clamped to [-(2^(bits-1)-1), 2^(bits-1)-1]. It returns the
// little-endian bytes (bits 16, 32 or 64) as a constant string.
func convTBias(v []float32, inScale float32, fScales []float32, bits int) string {
	lim := int64(1)<<(bits-1) - 1
	b := make([]byte, 0, len(v)*bits/8)
	for i, x := range v {
		s := inScale * fScales[min(i, len(fScales)-1)]
		q := min(max(int64(math.Round(float64(x/s))), -lim), lim)
		switch bits {
		case 16:
			b = binary.LittleEndian.AppendUint16(b, uint16(q))
		case 32:
			b = binary.LittleEndian.AppendUint32(b, uint32(q))
		default:
			b = binary.LittleEndian.AppendUint64(b, uint64(q))
		}
	}
	return string(b)
}

// convTMult computes the per-channel multipliers and exponents as TFLM's
// PopulateConvolutionQuantizationParams does, for nCh channels.
func convTMult(inScale float32, fScales []float32, outScale float32, nCh int) (mult, shift string) {
	m := make([]int32, nCh)
	s := make([]int32, nCh)
	for c := range m {
		fs := fScales[min(c, len(fScales)-1)]
		mm, sh := quant.Multiplier(float64(inScale) * float64(fs) / float64(outScale))
		m[c], s[c] = mm, int32(sh)
	}
	return convTI32s(m), convTI32s(s)
}

// convTI32s encodes int32 values as a little-endian constant string.
func convTI32s(v []int32) string {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	return string(b)
}

// convTF32s encodes float32 values as a little-endian constant string.
func convTF32s(v []float32) string {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return string(b)
}

// convTActRange returns the quantized activation bounds for the output.
func convTActRange(t *testing.T, a quant.Activation, scale float32, zp, qmin, qmax int32) (int32, int32) {
	t.Helper()
	lo, hi, ok := quant.RangeQuantized(a, float64(scale), zp, qmin, qmax)
	if !ok {
		t.Fatalf("activation %v has no quantized range", a)
	}
	return lo, hi
}

// convTFloatRange returns the float activation bounds.
func convTFloatRange(t *testing.T, a quant.Activation) (float32, float32) {
	t.Helper()
	lo, hi, ok := quant.RangeFloat(a)
	if !ok {
		t.Fatalf("activation %v has no float range", a)
	}
	return lo, hi
}

// convTOutSize and convTPad reproduce tensorflow/lite/kernels/padding.h:
// the output size for SAME/VALID padding and the leading padding.
func convTOutSize(same bool, in, f, stride, dil int) int {
	eff := (f-1)*dil + 1
	if same {
		return (in + stride - 1) / stride
	}
	return (in + stride - eff) / stride
}

func convTPad(stride, dil, in, f, out int) int {
	total := (out-1)*stride + (f-1)*dil + 1 - in
	return max(total, 0) / 2
}

// convTNear fails the test for any element of got farther than tol from
// want, as TFLM's EXPECT_NEAR loops do.
func convTNear[T int8 | int16 | int32](t *testing.T, got []T, want []int32, tol int32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d values, want %d", len(got), len(want))
	}
	for i := range got {
		if d := int32(got[i]) - want[i]; d > tol || d < -tol {
			t.Errorf("element %d = %d, want %d (tolerance %d)\n got  %v\n want %v", i, got[i], want[i], tol, got, want)
			return
		}
	}
}

// convTNearF fails for any element whose relative error exceeds 1e-5 (or
// absolute error 1e-5 near zero).
func convTNearF(t *testing.T, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d values, want %d", len(got), len(want))
	}
	for i := range got {
		d := math.Abs(float64(got[i] - want[i]))
		if d > 1e-5*max(1, math.Abs(float64(want[i]))) {
			t.Errorf("element %d = %g, want %g\n got  %v\n want %v", i, got[i], want[i], got, want)
			return
		}
	}
}

// convTSharedDir returns the shared/ reference directory ($TFLM_SHARED, or
// shared/ beside the checkout), skipping the test when it is absent.
func convTSharedDir(t *testing.T) string {
	t.Helper()
	d := os.Getenv("TFLM_SHARED")
	if d == "" {
		d = filepath.Join("..", "..", "shared")
	}
	if fi, err := os.Stat(filepath.Join(d, "ref")); err != nil || !fi.IsDir() {
		t.Skipf("reference data not found at %s (set TFLM_SHARED or place shared/ beside the checkout); skipping the check against TFLM's recorded tensors", d)
	}
	return d
}

// convTModel parses a model file.
func convTModel(t *testing.T, path string) *model.Graph {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g, err := model.Parse(path, b)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// convTRefTensor reads the tensor TFLM recorded for tensor idx of a model
// after one xorshift Invoke (shared/ref/tensors/<model>/t<idx>.bin).
func convTRefTensor(t *testing.T, shared, modelName string, idx int) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(shared, "ref", "tensors", modelName, "t"+strconv.Itoa(idx)+".bin"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// convTCSV reads a one-line CSV of integers (the seanet vectors).
func convTCSV(t *testing.T, path string) []int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for _, f := range strings.FieldsFunc(string(b), func(r rune) bool { return r == ',' || r == '\n' || r == '\r' || r == ' ' }) {
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	return out
}

// convTBytesI8 views bytes as int8.
func convTBytesI8(b []byte) []int8 {
	out := make([]int8, len(b))
	for i, x := range b {
		out[i] = int8(x)
	}
	return out
}

// convTOpQuant derives what a lowering derives for a quantized convolution:
// per-channel multipliers and exponents (channel count nCh), the activation
// bounds for the output type's range, and the input/output zero points.
type convTOpQuant struct {
	mult, shift    string
	actMin, actMax int32
	inZP, outZP    int32
}

func convTQuantFromOp(t *testing.T, in, filter, out *model.Tensor, act quant.Activation, nCh int, qmin, qmax int32) convTOpQuant {
	t.Helper()
	if in.Quant == nil || filter.Quant == nil || out.Quant == nil {
		t.Fatal("tensor without quantization")
	}
	mult, shift := convTMult(in.Quant.Scale[0], filter.Quant.Scale, out.Quant.Scale[0], nCh)
	outZP := int32(out.Quant.ZeroPoint[0])
	lo, hi := convTActRange(t, act, out.Quant.Scale[0], outZP, qmin, qmax)
	return convTOpQuant{mult: mult, shift: shift, actMin: lo, actMax: hi,
		inZP: int32(in.Quant.ZeroPoint[0]), outZP: outZP}
}

// convTConvParams builds convParams for a CONV_2D operator of a model.
func convTConvParams(t *testing.T, g *model.Graph, op *model.Op) (*convParams, quant.Activation) {
	t.Helper()
	in, filter, out := g.Input(op, 0), g.Input(op, 1), g.Output(op, 0)
	o := op.Options()
	same := o.Uint8(0, 0) == 0
	sw, sh := int(o.Int32(1, 0)), int(o.Int32(2, 0))
	act := quant.Activation(o.Uint8(3, 0))
	dw, dh := int(o.Int32(4, 1)), int(o.Int32(5, 1))
	if err := o.Err(); err != nil {
		t.Fatal(err)
	}
	p := &convParams{
		batches: in.Shape[0], inH: in.Shape[1], inW: in.Shape[2], inC: in.Shape[3],
		filterH: filter.Shape[1], filterW: filter.Shape[2], filterC: filter.Shape[3],
		outH: out.Shape[1], outW: out.Shape[2], outC: out.Shape[3],
		strideH: sh, strideW: sw, dilationH: dh, dilationW: dw,
	}
	p.groupOutC = p.outC / (p.inC / p.filterC)
	oh := convTOutSize(same, p.inH, p.filterH, sh, dh)
	ow := convTOutSize(same, p.inW, p.filterW, sw, dw)
	if oh != p.outH || ow != p.outW {
		t.Fatalf("%s: output %dx%d, padding rules give %dx%d", op.Describe(), p.outH, p.outW, oh, ow)
	}
	p.padH = convTPad(sh, dh, p.inH, p.filterH, oh)
	p.padW = convTPad(sw, dw, p.inW, p.filterW, ow)
	return p, act
}

// The shared 2x2x4x1 input, 3x2x2x1 filter and golden of conv_test.cc.
var (
	convTInput  = []float32{1, 1, 1, 1, 2, 2, 2, 2, 1, 2, 3, 4, 1, 2, 3, 4}
	convTFilter = []float32{1, 2, 3, 4, -1, 1, -1, 1, -1, -1, 1, 1}
	convTBiasV  = []float32{1, 2, 3}
	convTGolden = []float32{18, 2, 5, 18, 2, 5, 17, 4, 3, 37, 4, 3}
)

// convTCase is one quantized or float CONV_2D test ported from TFLM's
// conv_test.cc. Shapes are NHWC for input/output and OHWI for the filter.
type convTCase struct {
	name                      string
	inShape, fShape, outShape [4]int
	in, filter, bias, golden  []float32
	inScale, outScale         float32
	inZP, outZP               int32
	strideH, strideW          int
	dilH, dilW                int
	same                      bool
	act                       quant.Activation
	// perLayer quantizes the filter per tensor with scale 1 (and the bias
	// with scale inScale*outScale) instead of per channel.
	perLayer bool
}

// convTCommon is conv_test.cc's common_conv_params applied to the shared
// tensors: VALID padding, stride 2, no activation, no dilation.
func convTCommon(name string) convTCase {
	return convTCase{
		name: name, inShape: [4]int{2, 2, 4, 1}, fShape: [4]int{3, 2, 2, 1}, outShape: [4]int{2, 1, 2, 3},
		in: convTInput, filter: convTFilter, bias: convTBiasV, golden: convTGolden,
		inScale: 0.5, outScale: 1, strideH: 2, strideW: 2, dilH: 1, dilW: 1,
	}
}

// params builds the geometry of a case. Like TFLM, the padding comes from
// the output size the padding rules give, while the kernel iterates over the
// output tensor's own shape (SimpleTestDilatedQuantizedPerChannel relies on
// the two differing).
func (c convTCase) params(t *testing.T) *convParams {
	t.Helper()
	p := &convParams{
		batches: c.inShape[0], inH: c.inShape[1], inW: c.inShape[2], inC: c.inShape[3],
		filterH: c.fShape[1], filterW: c.fShape[2], filterC: c.fShape[3],
		outH: c.outShape[1], outW: c.outShape[2], outC: c.outShape[3],
		strideH: c.strideH, strideW: c.strideW, dilationH: c.dilH, dilationW: c.dilW,
	}
	p.groupOutC = p.outC / (p.inC / p.filterC)
	oh := convTOutSize(c.same, p.inH, p.filterH, c.strideH, c.dilH)
	ow := convTOutSize(c.same, p.inW, p.filterW, c.strideW, c.dilW)
	p.padH = convTPad(c.strideH, c.dilH, p.inH, p.filterH, oh)
	p.padW = convTPad(c.strideW, c.dilW, p.inW, p.filterW, ow)
	return p
}

// quantFilter quantizes the case's filter and returns it with its scales.
func (c convTCase) quantFilter() ([]int8, []float32) {
	if c.perLayer {
		q := convTQuant(c.filter, 1, 0, -128, 127)
		f := make([]int8, len(q))
		for i, v := range q {
			f[i] = int8(v)
		}
		return f, []float32{1}
	}
	return convTSymPerChannel(c.filter, c.fShape[0], 0)
}

func TestConvFloat(t *testing.T) {
	cases := []convTCase{
		convTCommon("SimpleTestFloat"),
		// InputAndFilterSameWidthHeight
		{name: "InputAndFilterSameWidthHeight", inShape: [4]int{2, 2, 4, 1}, fShape: [4]int{1, 2, 4, 1},
			outShape: [4]int{2, 1, 1, 1}, in: convTInput, filter: []float32{1, 2, 3, 4, -1, -1, 1, 1},
			bias: []float32{0}, golden: []float32{10, 34}, strideH: 2, strideW: 2, dilH: 1, dilW: 1},
	}
	// SimpleTestFloat without the bias tensor: golden minus bias.
	nb := convTCommon("SimpleTestFloatNoBias")
	nb.bias = nil
	nb.golden = make([]float32, len(convTGolden))
	for i, v := range convTGolden {
		nb.golden[i] = v - convTBiasV[i%3]
	}
	cases = append(cases, nb)
	// SimpleTestFloat with RELU6: the same sums clamped to [0, 6].
	r6 := convTCommon("SimpleTestFloatRelu6")
	r6.act = quant.ActRelu6
	r6.golden = []float32{6, 2, 5, 6, 2, 5, 6, 4, 3, 6, 4, 3}
	cases = append(cases, r6)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := c.params(t)
			p.fActMin, p.fActMax = convTFloatRange(t, c.act)
			out := make([]float32, len(c.golden))
			bias := ""
			if c.bias != nil {
				bias = convTF32s(c.bias)
			}
			convF32(p, c.in, convTF32s(c.filter), bias, out)
			convTNearF(t, out, c.golden)
		})
	}
}

// convTInt8Cases are the int8 per-channel cases of conv_test.cc.
func convTInt8Cases() []convTCase {
	relu6 := convTCommon("SimpleTestQuantizedPerChannelRelu6")
	relu6.bias = []float32{1, 2, -3}
	relu6.golden = []float32{6, 2, 0, 6, 2, 0, 6, 4, 0, 6, 4, 0}
	relu6.inScale, relu6.outScale = 0.023529, 0.023529
	relu6.inZP, relu6.outZP = -128, -128

	broadcast := convTCommon("BroadcastPerLayerQuantizationToPerChannelShouldMatchGolden")
	broadcast.inScale, broadcast.outScale, broadcast.perLayer = 1, 1, true

	return []convTCase{
		convTCommon("SimpleTestQuantizedPerChannel"),
		{name: "SimpleTestDilatedQuantizedPerChannel", inShape: [4]int{2, 4, 6, 1}, fShape: [4]int{3, 2, 2, 1},
			outShape: [4]int{2, 2, 2, 3},
			in: []float32{1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4,
				1, 2, 3, 4, 5, 6, 2, 6, 2, 4, 4, 2, 3, 2, 6, 5, 1, 4, 1, 2, 1, 4, 6, 3},
			filter: convTFilter, bias: convTBiasV,
			golden: []float32{25, 2, 7, 25, 2, 7, 10, 2, -3, 10, 2, -3,
				39, 7, 6, 50, 3, 4, 14, 4, -5, 15, 0, -7},
			inScale: 0.5, outScale: 1, strideH: 2, strideW: 2, dilH: 2, dilW: 3},
		relu6,
		{name: "Kernel1x1QuantizedPerChannel", inShape: [4]int{1, 2, 2, 4}, fShape: [4]int{3, 1, 1, 4},
			outShape: [4]int{1, 2, 2, 3}, in: convTInput, filter: convTFilter, bias: []float32{1, 2, 3},
			golden:  []float32{11, 2, 3, 21, 2, 3, 31, 4, 7, 31, 4, 7},
			inScale: 0.5, outScale: 1, strideH: 1, strideW: 1, dilH: 1, dilW: 1},
		{name: "Kernel1x1QuantizedPerChannelRelu6", inShape: [4]int{1, 2, 2, 4}, fShape: [4]int{3, 1, 1, 4},
			outShape: [4]int{1, 2, 2, 3}, in: convTInput, filter: convTFilter, bias: []float32{1, 2, -3},
			golden:  []float32{6, 2, 0, 6, 2, 0, 6, 4, 1, 6, 4, 1},
			inScale: 0.023529, outScale: 0.023529, inZP: -128, outZP: -128,
			strideH: 1, strideW: 1, dilH: 1, dilW: 1, act: quant.ActRelu6},
		broadcast,
	}
}

func TestConvInt8(t *testing.T) {
	for _, c := range convTInt8Cases() {
		t.Run(c.name, func(t *testing.T) {
			p := c.params(t)
			filter, fScales := c.quantFilter()
			in := convTQuant(c.in, c.inScale, c.inZP, -128, 127)
			in8 := make([]int8, len(in))
			for i, v := range in {
				in8[i] = int8(v)
			}
			var bias string
			if c.perLayer {
				// SymmetricQuantize(bias, input_scale * output_scale).
				bias = convTBias(c.bias, c.inScale*c.outScale, []float32{1}, 32)
			} else {
				bias = convTBias(c.bias, c.inScale, fScales, 32)
			}
			mult, shift := convTMult(c.inScale, fScales, c.outScale, p.outC)
			p.inOffset, p.outOffset = -c.inZP, c.outZP
			p.actMin, p.actMax = convTActRange(t, c.act, c.outScale, c.outZP, -128, 127)
			out := make([]int8, len(c.golden))
			convInt8(p, in8, filter, bias, mult, shift, out)
			convTNear(t, out, convTQuant(c.golden, c.outScale, c.outZP, -128, 127), 1)
		})
	}
}

// TestConvInt8PaddingSame ports Int8Filter1x3x3x1ShouldMatchGoldenEvenInput
// PaddingSame and ...OddInputPaddingSame (conv_test_data.cc): already
// quantized tensors, SAME padding, stride 2, tolerance 1 as in TFLM.
func TestConvInt8PaddingSame(t *testing.T) {
	filter := []int8{22, -98, 78, -127, 101, 47, 87, 12, -15}
	cases := []struct {
		name   string
		hw     int
		in     []int8
		golden []int32
	}{
		{"Int8Filter1x3x3x1ShouldMatchGoldenEvenInputPaddingSame", 4,
			[]int8{-127, -111, -95, -79, -63, -47, -31, -15, 1, 17, 33, 49, 65, 81, 97, 113},
			[]int32{38, 24, 16, -58}},
		{"Int8Filter1x3x3x1ShouldMatchGoldenOddInputPaddingSame", 5,
			[]int8{-128, -111, -95, -79, -63, -47, -31, -15, 1, 17, 33, 49, 65,
				81, 97, 113, 127, 100, 80, 60, 40, 20, 0, -20, -40},
			[]int32{-6, 25, 30, 58, 76, 7, 50, -11, -59}},
	}
	const inScale, fScale, outScale = float32(0.00392120517), float32(0.00448552053), float32(0.00627814838)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			oh := convTOutSize(true, c.hw, 3, 2, 1)
			tc := convTCase{inShape: [4]int{1, c.hw, c.hw, 1}, fShape: [4]int{1, 3, 3, 1},
				outShape: [4]int{1, oh, oh, 1}, strideH: 2, strideW: 2, dilH: 1, dilW: 1, same: true}
			p := tc.params(t)
			mult, shift := convTMult(inScale, []float32{fScale}, outScale, 1)
			p.inOffset, p.outOffset = 128, -7
			p.actMin, p.actMax = -128, 127
			out := make([]int8, len(c.golden))
			convInt8(p, c.in, filter, convTI32s([]int32{0}), mult, shift, out)
			convTNear(t, out, c.golden, 1)
		})
	}
}

// TestConvInt16 ports the 16x8 cases of conv_test.cc (SimpleTestQuantized
// 16x8PerChannel{64b,32b}Bias, ...Relu6{64b,32b}Bias, Kernel1x1Quantized
// 16x8PerChannelRelu6) for both accumulator widths.
func TestConvInt16(t *testing.T) {
	relu6 := convTCommon("SimpleTestQuantized16x8PerChannelRelu6")
	relu6.bias = []float32{1, 2, -3}
	relu6.golden = []float32{6, 2, 0, 6, 2, 0, 6, 4, 0, 6, 4, 0}
	relu6.inScale, relu6.outScale = 0.023529, 0.023529
	relu6.act = quant.ActRelu6
	cases := []convTCase{
		convTCommon("SimpleTestQuantized16x8PerChannel"),
		relu6,
		{name: "Kernel1x1Quantized16x8PerChannelRelu6", inShape: [4]int{1, 2, 2, 4}, fShape: [4]int{3, 1, 1, 4},
			outShape: [4]int{1, 2, 2, 3}, in: convTInput, filter: convTFilter, bias: []float32{1, 2, -3},
			golden:  []float32{6, 2, 0, 6, 2, 0, 6, 4, 1, 6, 4, 1},
			inScale: 0.023529, outScale: 0.023529, strideH: 1, strideW: 1, dilH: 1, dilW: 1, act: quant.ActRelu6},
	}
	for _, c := range cases {
		for _, bits := range []int{64, 32} {
			t.Run(c.name+"/bias"+strconv.Itoa(bits), func(t *testing.T) {
				p := c.params(t)
				filter, fScales := c.quantFilter()
				q := convTQuant(c.in, c.inScale, 0, -32768, 32767)
				in := make([]int16, len(q))
				for i, v := range q {
					in[i] = int16(v)
				}
				mult, shift := convTMult(c.inScale, fScales, c.outScale, p.outC)
				p.actMin, p.actMax = convTActRange(t, c.act, c.outScale, 0, -32768, 32767)
				out := make([]int16, len(c.golden))
				bias := convTBias(c.bias, c.inScale, fScales, bits)
				if bits == 64 {
					convInt16(p, in, filter, bias, mult, shift, out)
				} else {
					convInt16Acc32(p, in, filter, bias, mult, shift, out)
				}
				convTNear(t, out, convTQuant(c.golden, c.outScale, 0, -32768, 32767), 1)
			})
		}
	}
}

// TestConvGrouped checks grouped convolution (filterC < inC), which TFLM's
// reference kernels support, against an independent float computation with
// exactly representable values: 2 groups of 2 input channels, 4 outputs.
func TestConvGrouped(t *testing.T) {
	const inC, outC, fC = 4, 4, 2
	in := []float32{1, 2, 3, 4, -1, 0, 2, 1, 3, -2, 1, 0}
	filter := []float32{1, -1, 2, 0, 1, 1, -2, 3, 0, 1, 1, 0, -1, 2, 1, 1, 2, 2, 0, -1, 1, 0, 3, 1}
	// input [1,1,3,4], filter [4,1,3,2], VALID -> output [1,1,1,4]
	want := make([]float32, outC)
	for oc := 0; oc < outC; oc++ {
		g := oc / (outC / (inC / fC))
		for x := 0; x < 3; x++ {
			for i := 0; i < fC; i++ {
				want[oc] += in[x*inC+g*fC+i] * filter[(oc*3+x)*fC+i]
			}
		}
	}
	c := convTCase{inShape: [4]int{1, 1, 3, inC}, fShape: [4]int{outC, 1, 3, fC}, outShape: [4]int{1, 1, 1, outC},
		strideH: 1, strideW: 1, dilH: 1, dilW: 1}
	p := c.params(t)
	if p.groupOutC != 2 {
		t.Fatalf("groupOutC = %d, want 2", p.groupOutC)
	}
	p.fActMin, p.fActMax = convTFloatRange(t, quant.ActNone)
	out := make([]float32, outC)
	convF32(p, in, convTF32s(filter), "", out)
	convTNearF(t, out, want)

	// The same in int8 with unit scales is exact.
	in8 := make([]int8, len(in))
	for i, v := range in {
		in8[i] = int8(v)
	}
	f8 := make([]int8, len(filter))
	for i, v := range filter {
		f8[i] = int8(v)
	}
	mult, shift := convTMult(1, []float32{1}, 1, outC)
	p.actMin, p.actMax = -128, 127
	out8 := make([]int8, outC)
	convInt8(p, in8, f8, "", mult, shift, out8)
	w := make([]int32, outC)
	for i, v := range want {
		w[i] = int32(v)
	}
	convTNear(t, out8, w, 0)
}

// TestConvReference runs every CONV_2D of the int8 reference models on the
// input TFLM recorded and requires the recorded output bit for bit.
func TestConvReference(t *testing.T) {
	shared := convTSharedDir(t)
	for _, name := range []string{"person_detect"} {
		g := convTModel(t, filepath.Join(shared, "models", name+".tflite"))
		n := 0
		for _, op := range g.Ops {
			if op.Code != model.OpConv2D {
				continue
			}
			n++
			t.Run(name+"/"+op.Describe(), func(t *testing.T) {
				p, act := convTConvParams(t, g, op)
				in, filter, bias, out := g.Input(op, 0), g.Input(op, 1), g.Input(op, 2), g.Output(op, 0)
				q := convTQuantFromOp(t, in, filter, out, act, p.outC, -128, 127)
				p.inOffset, p.outOffset, p.actMin, p.actMax = -q.inZP, q.outZP, q.actMin, q.actMax
				x := convTBytesI8(convTRefTensor(t, shared, name, in.Index))
				want := convTBytesI8(convTRefTensor(t, shared, name, out.Index))
				got := make([]int8, len(want))
				convInt8(p, x, convTBytesI8(filter.Data), string(bias.Data), q.mult, q.shift, got)
				w := make([]int32, len(want))
				for i, v := range want {
					w[i] = int32(v)
				}
				convTNear(t, got, w, 0)
			})
		}
		if n == 0 {
			t.Fatalf("%s has no CONV_2D", name)
		}
	}
}

// TestConvSeanetInt16 runs TFLM's seanet 16x8 CONV_2D test models (int64
// bias) on their input vectors and requires the golden output exactly
// (TFLM_CHECK.txt records 0 mismatches for all of them).
func TestConvSeanetInt16(t *testing.T) {
	shared := convTSharedDir(t)
	dir := filepath.Join(shared, "vectors", "seanet", "conv")
	files, _ := filepath.Glob(filepath.Join(dir, "conv*.tflite"))
	if len(files) == 0 {
		t.Skip("no seanet conv vectors in " + dir)
	}
	for _, f := range files {
		base := strings.TrimSuffix(filepath.Base(f), ".tflite")
		t.Run(base, func(t *testing.T) {
			g := convTModel(t, f)
			if len(g.Ops) != 1 || g.Ops[0].Code != model.OpConv2D {
				t.Fatalf("expected a single CONV_2D")
			}
			op := g.Ops[0]
			p, act := convTConvParams(t, g, op)
			in, filter, bias, out := g.Input(op, 0), g.Input(op, 1), g.Input(op, 2), g.Output(op, 0)
			if in.Type != model.Int16 || bias == nil || bias.Type != model.Int64 {
				t.Fatalf("expected int16 input and int64 bias, got %s and %v", in.Type, bias)
			}
			q := convTQuantFromOp(t, in, filter, out, act, p.outC, -32768, 32767)
			if q.inZP != 0 || q.outZP != 0 {
				t.Fatalf("non-zero int16 zero points %d %d", q.inZP, q.outZP)
			}
			p.actMin, p.actMax = q.actMin, q.actMax
			xs := convTCSV(t, filepath.Join(dir, base+"_input0_int16.csv"))
			x := make([]int16, len(xs))
			for i, v := range xs {
				x[i] = int16(v)
			}
			ws := convTCSV(t, filepath.Join(dir, base+"_golden_int16.csv"))
			want := make([]int32, len(ws))
			for i, v := range ws {
				want[i] = int32(v)
			}
			if len(x) != in.NumElements() || len(want) != out.NumElements() {
				t.Fatalf("vector sizes %d/%d, tensors %d/%d", len(x), len(want), in.NumElements(), out.NumElements())
			}
			got := make([]int16, len(want))
			convInt16(p, x, convTBytesI8(filter.Data), string(bias.Data), q.mult, q.shift, got)
			convTNear(t, got, want, 0)
		})
	}
}
