package lower

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/internal/quant"
	"github.com/tflm-gen/tflm-gen/planner"
)

// Lowerings of the convolution family: CONV_2D, DEPTHWISE_CONV_2D and
// TRANSPOSE_CONV, following TFLite Micro's conv.cc, conv_common.cc,
// depthwise_conv*.cc and transpose_conv.cc. Everything TFLM's Prepare
// computes (padding, per-channel multipliers and shifts, activation bounds,
// zero points) is computed here; the kernels (kernels/conv.go,
// depthwise.go, transpose_conv.go) only loop. Int8 CONV_2D and
// DEPTHWISE_CONV_2D go to specialised kernels where they apply (see
// convLowerFastInt8 and dwLowerRowsInt8 below), with the reference-order
// kernels as the fallback.

func init() {
	register(model.OpConv2D, lowerConv2D, ownBuffer, withMACs(convMACs), withInputReads(convReads))
	register(model.OpDepthwiseConv2D, lowerDepthwiseConv2D, ownBuffer, withMACs(depthwiseMACs), withInputReads(convReads))
	register(model.OpTransposeConv, lowerTransposeConv, ownBuffer, withMACs(transposeConvMACs), withTFLMScratch(transposeConvTFLMScratch))
}

// convSame decodes the schema's Padding enum (SAME = 0, VALID = 1).
func convSame(c *opCtx, padding uint8) (bool, error) {
	switch padding {
	case 0:
		return true, nil
	case 1:
		return false, nil
	}
	return false, c.Errorf("padding %d is neither SAME (0) nor VALID (1)", padding)
}

// convGeometry reproduces tensorflow/lite/kernels/padding.h for one spatial
// dimension: the output size SAME/VALID padding gives and the padding before
// the first element.
func convGeometry(c *opCtx, what string, same bool, stride, dilation, in, filter int) (out, pad int, err error) {
	if stride <= 0 || dilation <= 0 || filter <= 0 || in < 0 {
		return 0, 0, c.Errorf("%s: stride %d, dilation %d, filter %d, input %d: all must be positive", what, stride, dilation, filter, in)
	}
	eff := (filter-1)*dilation + 1
	if out = model.WindowOut(same, in, stride, eff); out <= 0 {
		return 0, 0, c.Errorf("%s: input %d with filter %d (dilation %d) and stride %d leaves no output", what, in, filter, dilation, stride)
	}
	return out, model.SamePad(in, out, stride, eff), nil
}

// convDims applies convGeometry to height and width, or, for an operator
// with an explicit padding (model.Op.Padding: one that absorbed a PAD,
// gen/fold, or a column strip's, gen/strips; a pool too), that padding,
// which replaces the options' SAME or VALID: the output of the input
// padded by it, and the rows and columns before the input.
func convDims(c *opCtx, same bool, strideH, strideW, dilH, dilW, inH, inW, fH, fW int) (oh, ow, padH, padW int, err error) {
	ep := c.Op.Padding
	if ep == nil {
		if oh, padH, err = convGeometry(c, "height", same, strideH, dilH, inH, fH); err != nil {
			return 0, 0, 0, 0, err
		}
		ow, padW, err = convGeometry(c, "width", same, strideW, dilW, inW, fW)
		return oh, ow, padH, padW, err
	}
	if ep.Top < 0 || ep.Bottom < 0 || ep.Left < 0 || ep.Right < 0 {
		return 0, 0, 0, 0, c.Errorf("internal error: explicit padding %+v with negative sides", *ep)
	}
	if oh, _, err = convGeometry(c, "height", false, strideH, dilH, inH+ep.Top+ep.Bottom, fH); err != nil {
		return 0, 0, 0, 0, err
	}
	if ow, _, err = convGeometry(c, "width", false, strideW, dilW, inW+ep.Left+ep.Right, fW); err != nil {
		return 0, 0, 0, 0, err
	}
	return oh, ow, ep.Top, ep.Left, nil
}

// convShape4 checks that t is a 4-D tensor.
func convShape4(c *opCtx, t *model.Tensor, what string) error {
	if len(t.Shape) != 4 {
		return c.Errorf("%s %s: want a 4-D tensor", what, t.Describe())
	}
	return nil
}

// convPerTensor returns the scale and zero point of a per-tensor quantized
// activation tensor.
func convPerTensor(c *opCtx, t *model.Tensor, what string) (float32, int32, error) {
	if t.Quant == nil || len(t.Quant.Scale) != 1 || len(t.Quant.ZeroPoint) != 1 {
		return 0, 0, c.Errorf("%s %s: want per-tensor quantization (one scale and zero point)", what, t.Describe())
	}
	s := t.Quant.Scale[0]
	if !(s > 0) {
		return 0, 0, c.Errorf("%s %s: scale %g is not positive", what, t.Describe(), s)
	}
	return s, int32(t.Quant.ZeroPoint[0]), nil
}

// convMultipliers computes TFLM's per-channel output multipliers and
// exponents (PopulateConvolutionQuantizationParams): for channel i,
// QuantizeMultiplier(input_scale * filter_scale[i] / output_scale) in double
// precision, a single filter scale being broadcast. The filter must be
// symmetric (zero points 0) and per-channel along axis.
func convMultipliers(c *opCtx, inScale, outScale float32, filter *model.Tensor, nCh, axis int) (mult, shift []int32, err error) {
	q := filter.Quant
	if q == nil || len(q.Scale) == 0 {
		return nil, nil, c.Errorf("filter %s is not quantized", filter.Describe())
	}
	if len(q.Scale) != 1 && len(q.Scale) != nCh {
		return nil, nil, c.Errorf("filter %s has %d scales, want 1 or %d", filter.Describe(), len(q.Scale), nCh)
	}
	if len(q.Scale) > 1 && q.Axis != axis {
		return nil, nil, c.Errorf("filter %s is quantized along axis %d, want %d", filter.Describe(), q.Axis, axis)
	}
	if len(q.ZeroPoint) != len(q.Scale) {
		return nil, nil, c.Errorf("filter %s has %d zero points for %d scales", filter.Describe(), len(q.ZeroPoint), len(q.Scale))
	}
	for _, zp := range q.ZeroPoint {
		if zp != 0 {
			return nil, nil, c.Errorf("filter %s has zero point %d; TFLite Micro requires symmetric (zero point 0) filters", filter.Describe(), zp)
		}
	}
	mult = make([]int32, nCh)
	shift = make([]int32, nCh)
	for i := range mult {
		fs := q.Scale[0]
		if len(q.Scale) > 1 {
			fs = q.Scale[i]
		}
		if !(fs >= 0) {
			return nil, nil, c.Errorf("filter %s: channel %d scale %g is negative", filter.Describe(), i, fs)
		}
		m, s, err := quant.CheckedMultiplier(float64(inScale) * float64(fs) / float64(outScale))
		if err != nil {
			return nil, nil, c.Errorf("filter %s: channel %d: %v", filter.Describe(), i, err)
		}
		mult[i], shift[i] = m, int32(s)
	}
	return mult, shift, nil
}

// convConstArg passes a constant tensor of a wide type (float32 weights,
// biases) as a string, checking its type and element count.
func convConstArg(c *opCtx, t *model.Tensor, what string, dt model.DType, n int) (Arg, error) {
	if t.Type != dt {
		return nil, c.Errorf("%s %s: want %s", what, t.Describe(), dt)
	}
	if !t.IsConst() {
		return nil, c.Errorf("%s %s must be a constant", what, t.Describe())
	}
	if t.NumElements() != n {
		return nil, c.Errorf("%s %s: want %d elements", what, t.Describe(), n)
	}
	return Str(t), nil
}

// convNoBias is the empty string kernels take for "no bias".
func convNoBias(c *opCtx) Arg { return c.Const("NoBias", []byte{}) }

// convBias32 and convBias64 read an optional constant bias of n values
// (checked by convBiasArg or convFoldBias) into one value per output
// channel; a nil tensor reads as zeros.
func convBias32(bias *model.Tensor, n int) []int32 {
	b := make([]int32, n)
	if bias != nil {
		for i := range b {
			b[i] = int32(binary.LittleEndian.Uint32(bias.Data[4*i:]))
		}
	}
	return b
}

func convBias64(bias *model.Tensor, n int) []int64 {
	b := make([]int64, n)
	if bias != nil {
		for i := range b {
			b[i] = int64(binary.LittleEndian.Uint64(bias.Data[8*i:]))
		}
	}
	return b
}

// convBiasArg passes an optional bias (nil tensor: none).
func convBiasArg(c *opCtx, bias *model.Tensor, dt model.DType, n int) (Arg, error) {
	if bias == nil {
		return convNoBias(c), nil
	}
	return convConstArg(c, bias, "bias", dt, n)
}

// convZeroPoints16 checks the int16 activation zero points, which TFLite
// Micro's 16x8 kernels assume to be zero without applying them.
func convZeroPoints16(c *opCtx, inZP, outZP int32) error {
	if inZP != 0 || outZP != 0 {
		return c.Errorf("int16 input/output zero points are %d/%d; 16x8 kernels require 0", inZP, outZP)
	}
	return nil
}

// convShift64 checks the exponents for the 64-bit rescaling TFLM uses in
// 16x8 kernels, which assumes shift < 8 (and a positive multiplier).
func convShift64(c *opCtx, shift []int32) error {
	for i, s := range shift {
		if s >= 8 {
			return c.Errorf("channel %d: rescale exponent %d is too large for the 16x8 kernel (input*filter/output scale >= 128)", i, s)
		}
	}
	return nil
}

// convOp is an operator of the convolution family (CONV_2D,
// DEPTHWISE_CONV_2D, TRANSPOSE_CONV) after the checks the three share.
type convOp struct {
	in, filter, bias, out *model.Tensor // bias nil when omitted
	same                  bool          // SAME padding (else VALID)
	strideH, strideW      int
	act                   quant.Activation

	// Set by quantize, for int8 and int16 operators.
	inZP, outZP int32
	outScale    float32
	mult, shift []int32 // per output channel
}

// convShared is what the options of the three operators share: the
// padding, the strides and the fused activation.
type convShared struct {
	padding          uint8
	strideW, strideH int32
	act              uint8
}

// convPrologue checks what the three operators share: the padding, strides
// and fused activation of sh, then 4-D input, filter and output, input and
// output of one type. Each lowering reads its options from o (into sh and
// its own) before calling it; o's error is reported first.
func convPrologue(c *opCtx, in, filter, bias, out *model.Tensor, o *model.Options, sh convShared) (*convOp, error) {
	k := &convOp{in: in, filter: filter, bias: bias, out: out}
	padding := sh.padding
	k.strideW, k.strideH = int(sh.strideW), int(sh.strideH)
	k.act = quant.Activation(sh.act)
	if err := o.Err(); err != nil {
		return nil, c.Errorf("%v", err)
	}
	var err error
	if k.same, err = convSame(c, padding); err != nil {
		return nil, err
	}
	for _, x := range []struct {
		t    *model.Tensor
		what string
	}{{in, "input"}, {filter, "filter"}, {out, "output"}} {
		if err := convShape4(c, x.t, x.what); err != nil {
			return nil, err
		}
	}
	if in.Type != out.Type {
		return nil, c.Errorf("input type %s differs from output type %s", in.Type, out.Type)
	}
	return k, nil
}

// lowerFloat emits the float32 kernel fn(&typ{fields..., fActMin,
// fActMax}, in, filter, bias, out) of an operator with outC output channels.
func (k *convOp) lowerFloat(c *opCtx, band program.Band, fn kernelsig.Func, typ kernelsig.Struct, fields []Field, outC int) error {
	if k.filter.Type != model.Float32 {
		return c.Errorf("float32 input with %s filter (hybrid) is not supported", k.filter.Type)
	}
	lo, hi, err := c.actRangeFloat(k.act)
	if err != nil {
		return err
	}
	w, err := convConstArg(c, k.filter, "filter", model.Float32, k.filter.NumElements())
	if err != nil {
		return err
	}
	b, err := convBiasArg(c, k.bias, model.Float32, outC)
	if err != nil {
		return err
	}
	fields = append(fields, F("fActMin", F32(lo)), F("fActMax", F32(hi)))
	// A constant data input (TFLM accepts one) is copied to scratch.
	inArg, err := ewOperand(c, k.in)
	if err != nil {
		return err
	}
	c.BandCall(band, fn, Struct(typ, fields...), inArg, w, b, View(k.out))
	return nil
}

// quantize checks the types of an integer operator (int8 or int16
// activations, int8 filter) and computes the zero points and the
// per-channel multipliers of its outC output channels, the filter being
// quantized along axis.
func (k *convOp) quantize(c *opCtx, outC, axis int) error {
	in, filter := k.in, k.filter
	if in.Type != model.Int8 && in.Type != model.Int16 {
		return c.Errorf("input type %s is not supported (want float32, int8 or int16)", in.Type)
	}
	if filter.Type != model.Int8 {
		return c.Errorf("%s input with %s filter is not supported (want int8)", in.Type, filter.Type)
	}
	inScale, inZP, err := convPerTensor(c, in, "input")
	if err != nil {
		return err
	}
	outScale, outZP, err := convPerTensor(c, k.out, "output")
	if err != nil {
		return err
	}
	mult, shift, err := convMultipliers(c, inScale, outScale, filter, outC, axis)
	if err != nil {
		return err
	}
	k.inZP, k.outZP, k.outScale, k.mult, k.shift = inZP, outZP, outScale, mult, shift
	return nil
}

// convInOut fetches and checks the operator's input count, output count and
// the presence of the given inputs.
func convInOut(c *opCtx, minIn, maxIn int, required ...int) error {
	if c.NumOut() != 1 {
		return c.Errorf("want 1 output, have %d", c.NumOut())
	}
	if c.NumIn() < minIn || c.NumIn() > maxIn {
		return c.Errorf("want %d to %d inputs, have %d", minIn, maxIn, c.NumIn())
	}
	for _, i := range required {
		if c.In(i) == nil {
			return c.Errorf("input %d is missing", i)
		}
	}
	return nil
}

// lowerConv2D lowers CONV_2D: float32, int8 (int8 per-channel filter, int32
// bias) and 16x8 (int16 activations, int8 filter, int64 or int32 bias).
func lowerConv2D(c *opCtx) error {
	if err := convInOut(c, 2, 3, 0, 1); err != nil {
		return err
	}
	o := c.Op.Options()
	opt := o.Conv2D()
	dilW, dilH := int(opt.DilationWFactor), int(opt.DilationHFactor)
	biasType := model.DType(opt.QuantizedBiasType) // absent: FLOAT32, no bias type given
	k, err := convPrologue(c, c.In(0), c.In(1), c.In(2), c.Out(0), o,
		convShared{opt.Padding, opt.StrideW, opt.StrideH, opt.FusedActivationFunction})
	if err != nil {
		return err
	}
	in, filter, bias, out := k.in, k.filter, k.bias, k.out
	same, strideH, strideW, act := k.same, k.strideH, k.strideW, k.act
	batches, inH, inW, inC := in.Shape[0], in.Shape[1], in.Shape[2], in.Shape[3]
	outC, fH, fW, fC := filter.Shape[0], filter.Shape[1], filter.Shape[2], filter.Shape[3]
	if out.Shape[0] != batches || out.Shape[3] != outC {
		return c.Errorf("output %s does not match input %s and filter %s", out.Describe(), in.Describe(), filter.Describe())
	}
	if fC <= 0 || inC < fC || inC%fC != 0 || outC%(inC/fC) != 0 {
		return c.Errorf("input channels %d, filter channels %d and output channels %d do not form groups", inC, fC, outC)
	}
	// Like TFLM, padding comes from the output size the padding rules give;
	// the kernel then fills the output tensor's own shape.
	oh, ow, padH, padW, err := convDims(c, same, strideH, strideW, dilH, dilW, inH, inW, fH, fW)
	if err != nil {
		return err
	}
	if oh != out.Shape[1] || ow != out.Shape[2] {
		return c.Errorf("output %s: padding rules give %dx%d", out.Describe(), oh, ow)
	}
	fields := []Field{
		F("batches", Int(batches)), F("inH", Int(inH)), F("inW", Int(inW)), F("inC", Int(inC)),
		F("filterH", Int(fH)), F("filterW", Int(fW)), F("filterC", Int(fC)),
		F("outH", Int(oh)), F("outW", Int(ow)), F("outC", Int(outC)), F("groupOutC", Int(outC/(inC/fC))),
		F("strideH", Int(strideH)), F("strideW", Int(strideW)),
		F("dilationH", Int(dilH)), F("dilationW", Int(dilW)),
		F("padH", Int(padH)), F("padW", Int(padW)),
	}

	if in.Type == model.Float32 {
		return k.lowerFloat(c, windowBand, kernelsig.ConvF32, kernelsig.ConvParams, fields, outC)
	}
	if err := k.quantize(c, outC, 0); err != nil {
		return err
	}
	inZP, outZP, outScale, mult, shift := k.inZP, k.outZP, k.outScale, k.mult, k.shift

	if in.Type == model.Int8 {
		lo, hi, err := c.actRange(act, outScale, outZP, model.Int8)
		if err != nil {
			return err
		}
		b, err := convBiasArg(c, bias, model.Int32, outC)
		if err != nil {
			return err
		}
		// A pointwise convolution needs no scratch: convPWInt8 in every
		// build (convPWDSP for TinyGo when the rows are whole words; other
		// rows go through convDSP's gathered windows below).
		if fC == inC && convFastOK(shift) && fH == 1 && fW == 1 && strideH == 1 && strideW == 1 &&
			padH == 0 && padW == 0 && oh == inH && ow == inW && (inC%4 == 0 || !c.DSP()) {
			return convLowerPWInt8(c, in, bias, out, batches*oh*ow, inC, outC, convOHWI(filter.Data, outC),
				mult, shift, inZP, outZP, lo, hi)
		}
		// A dilated convolution in the gc build: convDilInt8, windows walked
		// tap by tap, where its eight-value steps fit the input channels.
		dilated := dilH > 1 || dilW > 1
		if !c.DSP() && dilated && fC == inC && convFastOK(shift) && inC%8 == 0 && (fH+1)*(fW+1) <= kernelsig.ConvDilMaxTaps {
			return convLowerDilInt8(c, in, bias, out, convFastGeom{
				batches: batches, inH: inH, inW: inW, inC: inC, fH: fH, fW: fW, outH: oh, outW: ow, outC: outC,
				strideH: strideH, strideW: strideW, dilH: dilH, dilW: dilW, padH: padH, padW: padW,
			}, convOHWI(filter.Data, outC), mult, shift, inZP, outZP, lo, hi)
		}
		// Other dilated convolutions take the DSP loop in the gc build too:
		// gc's kernels for it (convLeanInt8, convWinInt8) run about twice
		// its instructions under gc's A32 code (BENCH.md's grid).
		if fC == inC && (c.DSP() || dilated) {
			g := convFastGeom{
				batches: batches, inH: inH, inW: inW, inC: inC, fH: fH, fW: fW, outH: oh, outW: ow, outC: outC,
				strideH: strideH, strideW: strideW, dilH: dilH, dilW: dilW, padH: padH, padW: padW,
			}
			if ok, err := convLowerDSPInt8(c, in, bias, out, g, convOHWI(filter.Data, outC), mult, shift, inZP, outZP, lo, hi); ok || err != nil {
				return err
			}
		}
		if fC == inC && convFastOK(shift) && dilH == 1 && dilW == 1 {
			return convLowerRowsInt8(c, in, bias, out, convFastGeom{
				batches: batches, inH: inH, inW: inW, inC: inC, fH: fH, fW: fW, outH: oh, outW: ow, outC: outC,
				strideH: strideH, strideW: strideW, dilH: dilH, dilW: dilW, padH: padH, padW: padW,
			}, convOHWI(filter.Data, outC), mult, shift, inZP, outZP, lo, hi)
		}
		// The other fast kernels need scratch; the generator asks for the
		// lean variant where that scratch would make the arena larger.
		if fC == inC && convFastOK(shift) && !c.Lean() {
			return convLowerFastInt8(c, in, filter, bias, out, convFastGeom{
				batches: batches, inH: inH, inW: inW, inC: inC, fH: fH, fW: fW, outH: oh, outW: ow, outC: outC,
				strideH: strideH, strideW: strideW, dilH: dilH, dilW: dilW, padH: padH, padW: padW,
			}, convOHWI(filter.Data, outC), mult, shift, inZP, outZP, lo, hi)
		}
		fields = append(fields, F("inOffset", I32(-inZP)), F("outOffset", I32(outZP)),
			F("actMin", I32(lo)), F("actMax", I32(hi)))
		if fC == inC && convLeanOK(fH*fW*fC, outC) {
			c.Because(kernelsig.ConvLeanInt8, "ungrouped, exact int32 sums and at most %d bytes of weights laid out (convLeanOK); %s", convLeanMaxBytes, convGenericWhy(fC == inC, convFastOK(shift)))
			c.BandCall(windowBand, kernelsig.ConvLeanInt8, Struct(kernelsig.ConvParams, fields...), View(in),
				c.Const("Lean", convLeanLayout(convOHWI(filter.Data, outC))), b,
				c.ConstI32("Mult", mult), c.ConstI32("Shift", shift), View(out))
			return nil
		}
		c.Because(kernelsig.ConvInt8, "the reference kernel: %s", convGenericWhy(fC == inC, convFastOK(shift)))
		c.Call(kernelsig.ConvInt8, Struct(kernelsig.ConvParams, fields...), View(in), View(filter), b,
			c.ConstI32("Mult", mult), c.ConstI32("Shift", shift), View(out))
		return nil
	}

	// 16x8. TFLM accumulates in 32 bits when the bias is int32, or when there
	// is no bias and the options declare an int32 quantized bias type;
	// otherwise in 64 bits with an int64 bias.
	if err := convZeroPoints16(c, inZP, outZP); err != nil {
		return err
	}
	lo, hi, err := c.actRange(act, outScale, outZP, model.Int16)
	if err != nil {
		return err
	}
	fields = append(fields, F("actMin", I32(lo)), F("actMax", I32(hi)))
	acc32 := (bias != nil && bias.Type == model.Int32) || (bias == nil && biasType == model.Int32)
	if acc32 {
		b, err := convBiasArg(c, bias, model.Int32, outC)
		if err != nil {
			return err
		}
		// A constant data input (TFLM accepts one) is copied to scratch.
		inArg, err := ewOperand(c, in)
		if err != nil {
			return err
		}
		c.Call(kernelsig.ConvInt16Acc32, Struct(kernelsig.ConvParams, fields...), inArg, View(filter), b,
			c.ConstI32("Mult", mult), c.ConstI32("Shift", shift), View(out))
		return nil
	}
	if err := convShift64(c, shift); err != nil {
		return err
	}
	b, err := convBiasArg(c, bias, model.Int64, outC)
	if err != nil {
		return err
	}
	// A constant data input (TFLM accepts one) is copied to scratch.
	inArg, err := ewOperand(c, in)
	if err != nil {
		return err
	}
	if convLowerDSPInt16(c, inArg, filter, bias, out, fields, inC, fC, fH, fW, outC, padH, padW, mult, shift, lo, hi) {
		return nil
	}
	if fC == inC && !c.DSP() && (fH*fW*inC <= kernelsig.Int16QBuf || fH == 1 && fW == 1) {
		if blocks, ok := kernelsig.PlanInt16Q(convOHWI(filter.Data, outC), convBias64(bias, outC), mult, shift, 0, lo, hi); ok {
			c.Because(kernelsig.ConvInt16Q, "ungrouped; the gc kernel set: every channel's sums fit in 32 bits (PlanInt16Q), the rescale one 32x32-bit multiply")
			c.BandCall(windowBand, kernelsig.ConvInt16Q, Struct(kernelsig.ConvParams, fields...), inArg,
				c.Const("Blocks", blocks), View(out))
			return nil
		}
	}
	if fC == inC {
		c.Because(kernelsig.ConvInt16Blocks, "ungrouped; %s", int16BlocksWhy(c))
		wt, rec := kernelsig.PlanInt16Blocks(convOHWI(filter.Data, outC), convBias64(bias, outC), mult, shift)
		c.BandCall(windowBand, kernelsig.ConvInt16Blocks, Struct(kernelsig.ConvParams, fields...), inArg,
			c.Const("Blocks", wt), c.Const("Rec", rec), View(out))
		return nil
	}
	c.Because(kernelsig.ConvInt16, "grouped: the reference loop")
	c.BandCall(windowBand, kernelsig.ConvInt16, Struct(kernelsig.ConvParams, fields...), inArg, View(filter), b,
		c.ConstI32("Mult", mult), c.ConstI32("Shift", shift), View(out))
	return nil
}

// lowerDepthwiseConv2D lowers DEPTHWISE_CONV_2D: float32, int8 (int8
// per-channel filter, int32 bias) and 16x8 (int64 bias, as TFLM reads it).
func lowerDepthwiseConv2D(c *opCtx) error {
	if err := convInOut(c, 2, 3, 0, 1); err != nil {
		return err
	}
	o := c.Op.Options()
	opt := o.DepthwiseConv2D()
	depthMul := int(opt.DepthMultiplier)
	dilW, dilH := int(opt.DilationWFactor), int(opt.DilationHFactor)
	k, err := convPrologue(c, c.In(0), c.In(1), c.In(2), c.Out(0), o,
		convShared{opt.Padding, opt.StrideW, opt.StrideH, opt.FusedActivationFunction})
	if err != nil {
		return err
	}
	in, filter, bias, out := k.in, k.filter, k.bias, k.out
	same, strideH, strideW, act := k.same, k.strideH, k.strideW, k.act
	batches, inH, inW, inC := in.Shape[0], in.Shape[1], in.Shape[2], in.Shape[3]
	fH, fW, outC := filter.Shape[1], filter.Shape[2], filter.Shape[3]
	if filter.Shape[0] != 1 {
		return c.Errorf("filter %s: want first dimension 1", filter.Describe())
	}
	if out.Shape[0] != batches || out.Shape[3] != outC {
		return c.Errorf("output %s does not match input %s and filter %s", out.Describe(), in.Describe(), filter.Describe())
	}
	// TFLM's reference loops use the depth_multiplier option, so it must
	// agree with the shapes.
	if depthMul <= 0 || inC*depthMul != outC {
		return c.Errorf("depth_multiplier %d does not turn %d input channels into %d output channels", depthMul, inC, outC)
	}
	oh, ow, padH, padW, err := convDims(c, same, strideH, strideW, dilH, dilW, inH, inW, fH, fW)
	if err != nil {
		return err
	}
	if oh != out.Shape[1] || ow != out.Shape[2] {
		return c.Errorf("output %s: padding rules give %dx%d", out.Describe(), oh, ow)
	}
	fields := []Field{
		F("batches", Int(batches)), F("inH", Int(inH)), F("inW", Int(inW)), F("inC", Int(inC)),
		F("filterH", Int(fH)), F("filterW", Int(fW)),
		F("outH", Int(oh)), F("outW", Int(ow)), F("outC", Int(outC)), F("depthMul", Int(depthMul)),
		F("strideH", Int(strideH)), F("strideW", Int(strideW)),
		F("dilationH", Int(dilH)), F("dilationW", Int(dilW)),
		F("padH", Int(padH)), F("padW", Int(padW)),
	}

	if in.Type == model.Float32 {
		return k.lowerFloat(c, windowBand, kernelsig.DwF32, kernelsig.DwParams, fields, outC)
	}
	if err := k.quantize(c, outC, 3); err != nil {
		return err
	}
	inZP, outZP, outScale, mult, shift := k.inZP, k.outZP, k.outScale, k.mult, k.shift

	if in.Type == model.Int8 {
		lo, hi, err := c.actRange(act, outScale, outZP, model.Int8)
		if err != nil {
			return err
		}
		b, err := convBiasArg(c, bias, model.Int32, outC)
		if err != nil {
			return err
		}
		dwGeom := convFastGeom{
			batches: batches, inH: inH, inW: inW, inC: inC, fH: fH, fW: fW, outH: oh, outW: ow, outC: outC,
			strideH: strideH, strideW: strideW, dilH: dilH, dilW: dilW, padH: padH, padW: padW,
		}
		if c.DSP() {
			ok, err := dwLowerDSPInt8(c, in, filter, bias, out, dwGeom, depthMul, mult, shift, inZP, outZP, lo, hi)
			if ok || err != nil {
				return err
			}
		}
		// A 3x3 depthwise convolution needs no scratch: dw3x3Int8 in every
		// build.
		dspWhy := ""
		if c.DSP() {
			dspWhy = "; no DSP kernel takes it (its depth multiplier and channels, or a requantization its records would not compute exactly)"
		}
		if (depthMul == 1 || inC == 1) && fH == 3 && fW == 3 && dilH == 1 && dilW == 1 && (strideW == 1 || strideW == 2) &&
			convFastOK(shift) {
			c.Because(kernelsig.Dw3x3Int8, "3x3, undilated, horizontal stride 1 or 2, shifts the fast rescale takes%s", dspWhy)
			return dwLower3x3Int8(c, in, filter, bias, out, oh, ow, strideH, strideW, padH, padW,
				mult, shift, inZP, outZP, lo, hi)
		}
		if inC == 1 && dilH == 1 && dilW == 1 && convFastOK(shift) {
			// One input channel: a convolution whose weight rows are the
			// filter's columns, scratch-free.
			err := convLowerRowsInt8(c, in, bias, out, convFastGeom{
				batches: batches, inH: inH, inW: inW, inC: 1, fH: fH, fW: fW, outH: oh, outW: ow, outC: outC,
				strideH: strideH, strideW: strideW, dilH: 1, dilW: 1, padH: padH, padW: padW,
			}, convDepthwiseAsConv(filter.Data, outC), mult, shift, inZP, outZP, lo, hi)
			for _, fn := range []kernelsig.Func{kernelsig.ConvGatherInt8, kernelsig.ConvRowsInt8} {
				c.Because(fn, "one input channel, undilated, shifts the fast rescale takes: a convolution whose weight rows are the filter's columns%s", dspWhy)
			}
			return err
		}
		if convFastOK(shift) && !c.Lean() {
			g := dwGeom
			switch {
			case depthMul == 1 && fH <= kernelsig.DwRowsMaxRows && fH*fW <= kernelsig.DwRowsMaxTaps:
				c.Because(kernelsig.DwRowsInt8, "depth multiplier 1, at most %d filter rows and %d taps, shifts the fast rescale takes%s; a ring of input rows in scratch",
					kernelsig.DwRowsMaxRows, kernelsig.DwRowsMaxTaps, dspWhy)
				return dwLowerRowsInt8(c, in, filter, bias, out, g, mult, shift, inZP, outZP, lo, hi)
			case inC == 1:
				// One input channel: a convolution with depthMul output
				// channels whose weights are the filter's columns.
				err := convLowerFastInt8(c, in, filter, bias, out, g, convDepthwiseAsConv(filter.Data, outC),
					mult, shift, inZP, outZP, lo, hi)
				c.Because(kernelsig.ConvWinInt8, "one input channel, dilated, shifts the fast rescale takes%s: a convolution whose weight rows are the filter's columns, each window gathered into scratch", dspWhy)
				return err
			}
		}
		dwWhy := "the reference kernel: "
		switch {
		case !convFastOK(shift):
			dwWhy += fmt.Sprintf("a shift beyond the fast rescale's %d", convRQMaxShift)
		case c.Lean():
			dwWhy += leanWhy
		default:
			dwWhy += fmt.Sprintf("no fast kernel takes it (depth multiplier %d, %d input channels, %dx%d filter)", depthMul, inC, fH, fW)
		}
		if inC == 1 && convLeanOK(fH*fW, outC) {
			c.Because(kernelsig.ConvLeanInt8, "one input channel, exact int32 sums (convLeanOK): a convolution; %s", strings.TrimPrefix(dwWhy, "the reference kernel: "))
			// One input channel: a convolution, with the scratch-free
			// kernel.
			c.BandCall(windowBand, kernelsig.ConvLeanInt8, Struct(kernelsig.ConvParams,
				F("batches", Int(batches)), F("inH", Int(inH)), F("inW", Int(inW)), F("inC", Int(1)),
				F("filterH", Int(fH)), F("filterW", Int(fW)), F("filterC", Int(1)),
				F("outH", Int(oh)), F("outW", Int(ow)), F("outC", Int(outC)), F("groupOutC", Int(outC)),
				F("strideH", Int(strideH)), F("strideW", Int(strideW)),
				F("dilationH", Int(dilH)), F("dilationW", Int(dilW)),
				F("padH", Int(padH)), F("padW", Int(padW)),
				F("inOffset", I32(-inZP)), F("outOffset", I32(outZP)), F("actMin", I32(lo)), F("actMax", I32(hi))),
				View(in), c.Const("Lean", convLeanLayout(convDepthwiseAsConv(filter.Data, outC))), b,
				c.ConstI32("Mult", mult), c.ConstI32("Shift", shift), View(out))
			return nil
		}
		if tab, ok := dwBlocksRQ(c, bias, mult, shift, outC); ok && depthMul == 1 && inC%4 == 0 {
			c.Because(kernelsig.DwInt8Blocks, "depth multiplier 1, channels a multiple of four, no scratch: four channels' sums in registers; %s",
				strings.TrimPrefix(dwWhy, "the reference kernel: "))
			f := append(fields, F("inOffset", I32(-inZP)), F("outOffset", I32(outZP)),
				F("actMin", I32(lo)), F("actMax", I32(hi)))
			c.BandCall(windowBand, kernelsig.DwInt8Blocks, Struct(kernelsig.DwParams, f...), View(in), View(filter), c.Const("RQ", tab), View(out))
			return nil
		}
		if tab, ok := dwBlocksRQ(c, bias, mult, shift, outC); ok && (depthMul == 2 || depthMul%4 == 0) {
			c.Because(kernelsig.DwInt8BlocksMul, "depth multiplier %d, no scratch: four output channels' sums in registers, each input value loaded once for them; %s",
				depthMul, strings.TrimPrefix(dwWhy, "the reference kernel: "))
			f := append(fields, F("inOffset", I32(-inZP)), F("outOffset", I32(outZP)),
				F("actMin", I32(lo)), F("actMax", I32(hi)))
			rq := c.Const("RQ", tab)
			c.BandCall(windowBand, kernelsig.DwInt8BlocksMul, Struct(kernelsig.DwParams, f...), View(in), View(filter), rq, View(out))
			if outC <= kernelsig.DwRasterMax {
				// Written over its input: groups of pixels of a row,
				// their windows read before their outputs are written
				// (the same constants).
				c.offerOverlapWith(0, rasterWindowShift(dwGeom, 1, 1, kernelsig.DwRasterPix, true), func() {
					c.BandCall(windowBand, kernelsig.DwInt8BlocksMulRaster, Struct(kernelsig.DwParams, f...), View(in), View(filter), rq, View(out))
				})
			}
			return nil
		}
		if !c.DSP() && depthMul == 2 && strideW == 1 {
			// The gc build, where no kernel of its own takes the layer:
			// for depth multiplier 2 and horizontal stride 1 the DSP set's
			// kernel, plain Go there, beats the reference loop under gc's
			// A32 code (BENCH.md's grid: 5x5 32x32x2 by a third, 3x3
			// 48x48x4 by 11%); with stride 2, or multiplier 8, it ran 5-10%
			// slower.
			ok, err := dwLowerDSPInt8(c, in, filter, bias, out, dwGeom, depthMul, mult, shift, inZP, outZP, lo, hi)
			if ok || err != nil {
				return err
			}
		}
		fields = append(fields, F("inOffset", I32(-inZP)), F("outOffset", I32(outZP)),
			F("actMin", I32(lo)), F("actMax", I32(hi)))
		c.Because(kernelsig.DwInt8, "%s", dwWhy)
		c.BandCall(windowBand, kernelsig.DwInt8, Struct(kernelsig.DwParams, fields...), View(in), View(filter), b,
			c.ConstI32("Mult", mult), c.ConstI32("Shift", shift), View(out))
		return nil
	}

	if err := convZeroPoints16(c, inZP, outZP); err != nil {
		return err
	}
	if err := convShift64(c, shift); err != nil {
		return err
	}
	lo, hi, err := c.actRange(act, outScale, outZP, model.Int16)
	if err != nil {
		return err
	}
	b, err := convBiasArg(c, bias, model.Int64, outC)
	if err != nil {
		return err
	}
	fields = append(fields, F("actMin", I32(lo)), F("actMax", I32(hi)))
	// A constant data input (TFLM accepts one) is copied to scratch.
	inArg, err := ewOperand(c, in)
	if err != nil {
		return err
	}
	c.BandCall(windowBand, kernelsig.DwInt16, Struct(kernelsig.DwParams, fields...), inArg, View(filter), b,
		c.ConstI32("Mult", mult), c.ConstI32("Shift", shift), View(out))
	return nil
}

// lowerTransposeConv lowers TRANSPOSE_CONV: float32, int8 (int8 per-channel
// filter, int32 bias, int32 scratch) and 16x8 (int64 or int16 bias, int64
// scratch). Inputs are output_shape, weights, input and an optional bias;
// like TFLM, the output tensor's shape is what counts, so output_shape may
// be computed at run time (it is then not read).
func lowerTransposeConv(c *opCtx) error {
	if err := convInOut(c, 3, 4, 0, 1, 2); err != nil {
		return err
	}
	o := c.Op.Options()
	opt := o.TransposeConv() // quantized_bias_type is read, not used: the bias tensor's type counts
	k, err := convPrologue(c, c.In(2), c.In(1), c.In(3), c.Out(0), o,
		convShared{opt.Padding, opt.StrideW, opt.StrideH, opt.FusedActivationFunction})
	if err != nil {
		return err
	}
	outShape, in, filter, bias, out := c.In(0), k.in, k.filter, k.bias, k.out
	same, strideH, strideW, act := k.same, k.strideH, k.strideW, k.act
	if outShape.Type != model.Int32 || len(outShape.Shape) != 1 || outShape.Shape[0] != 4 {
		return c.Errorf("output_shape %s: want int32[4]", outShape.Describe())
	}
	if outShape.IsConst() {
		for i := 0; i < 4; i++ {
			v := int32(uint32(outShape.Data[4*i]) | uint32(outShape.Data[4*i+1])<<8 |
				uint32(outShape.Data[4*i+2])<<16 | uint32(outShape.Data[4*i+3])<<24)
			if int(v) != out.Shape[i] {
				return c.Errorf("output_shape %s holds dimension %d = %d, output is %s", outShape.Describe(), i, v, out.Describe())
			}
		}
	}
	batches, inH, inW, inC := in.Shape[0], in.Shape[1], in.Shape[2], in.Shape[3]
	outC, fH, fW := filter.Shape[0], filter.Shape[1], filter.Shape[2]
	outH, outW := out.Shape[1], out.Shape[2]
	if filter.Shape[3] != inC {
		return c.Errorf("filter %s does not match input %s channels", filter.Describe(), in.Describe())
	}
	if out.Shape[0] != batches || out.Shape[3] != outC {
		return c.Errorf("output %s does not match input %s and filter %s", out.Describe(), in.Describe(), filter.Describe())
	}
	// TFLM pads as if the output were the input of a forward convolution.
	_, padH, err := convGeometry(c, "height", same, strideH, 1, outH, fH)
	if err != nil {
		return err
	}
	_, padW, err := convGeometry(c, "width", same, strideW, 1, outW, fW)
	if err != nil {
		return err
	}
	fields := []Field{
		F("batches", Int(batches)), F("inH", Int(inH)), F("inW", Int(inW)), F("inC", Int(inC)),
		F("filterH", Int(fH)), F("filterW", Int(fW)),
		F("outH", Int(outH)), F("outW", Int(outW)), F("outC", Int(outC)),
		F("strideH", Int(strideH)), F("strideW", Int(strideW)),
		F("padH", Int(padH)), F("padW", Int(padW)),
	}

	if in.Type == model.Float32 {
		return k.lowerFloat(c, noBand, kernelsig.TconvF32, kernelsig.TconvParams, fields, outC)
	}
	if err := k.quantize(c, outC, 0); err != nil {
		return err
	}
	inZP, outZP, outScale, mult, shift := k.inZP, k.outZP, k.outScale, k.mult, k.shift
	n := out.NumElements()

	if in.Type == model.Int8 {
		lo, hi, err := c.actRange(act, outScale, outZP, model.Int8)
		if err != nil {
			return err
		}
		b, err := convBiasArg(c, bias, model.Int32, outC)
		if err != nil {
			return err
		}
		fields = append(fields, F("inOffset", I32(-inZP)), F("outOffset", I32(outZP)),
			F("actMin", I32(lo)), F("actMax", I32(hi)))
		c.Call(kernelsig.TconvInt8, Struct(kernelsig.TconvParams, fields...), View(in), View(filter), b,
			c.ConstI32("Mult", mult), c.ConstI32("Shift", shift), c.Scratch(model.Int32, n), View(out))
		return nil
	}

	if err := convZeroPoints16(c, inZP, outZP); err != nil {
		return err
	}
	if err := convShift64(c, shift); err != nil {
		return err
	}
	lo, hi, err := c.actRange(act, outScale, outZP, model.Int16)
	if err != nil {
		return err
	}
	var b Arg
	switch {
	case bias == nil:
		b = convNoBias(c)
	case bias.Type == model.Int16:
		// TFLM widens an int16 bias to int64 at run time; do it here.
		if !bias.IsConst() || bias.NumElements() != outC {
			return c.Errorf("bias %s: want a constant with %d elements", bias.Describe(), outC)
		}
		wide := make([]int64, outC)
		for i := range wide {
			wide[i] = int64(int16(uint16(bias.Data[2*i]) | uint16(bias.Data[2*i+1])<<8))
		}
		b = c.ConstI64("Bias", wide)
	default:
		if b, err = convConstArg(c, bias, "bias", model.Int64, outC); err != nil {
			return err
		}
	}
	fields = append(fields, F("actMin", I32(lo)), F("actMax", I32(hi)))
	// A constant data input (TFLM accepts one) is copied to scratch.
	inArg, err := ewOperand(c, in)
	if err != nil {
		return err
	}
	c.Call(kernelsig.TconvInt16, Struct(kernelsig.TconvParams, fields...), inArg, View(filter), b,
		c.ConstI32("Mult", mult), c.ConstI32("Shift", shift), c.Scratch(model.Int64, n), View(out))
	return nil
}

// Specialised int8 kernels (kernels/conv_pw.go, conv_rq.go,
// depthwise_rows.go). They take the weights re-laid-out for contiguous inner
// loops and one requantization record per output channel whose bias has the
// input offset folded in; taps in the padding read the input zero point,
// which the folded bias cancels, so they match the reference kernels bit
// for bit.

// convRQMaxShift is the largest left shift of the fast rescale.
const convRQMaxShift = 31

// convFastGeom is the geometry of a convolution lowered to a fast kernel.
type convFastGeom struct {
	batches, inH, inW, inC int
	fH, fW                 int
	outH, outW, outC       int
	strideH, strideW       int
	dilH, dilW             int
	padH, padW             int
}

// leanWhy says why a lowering took its lean form.
const leanWhy = "the lean form: the faster one's scratch would make the arena larger"

// convGenericWhy says why an int8 CONV_2D takes neither a DSP nor a fast
// kernel: grouped, or a shift beyond the fast rescale, or the lean form.
func convGenericWhy(ungrouped, fastRescale bool) string {
	switch {
	case !ungrouped:
		return "grouped (the fast kernels take ungrouped convolutions)"
	case !fastRescale:
		return fmt.Sprintf("a shift beyond the fast rescale's %d", convRQMaxShift)
	}
	return leanWhy
}

// convFastOK reports whether the fast kernels' rescale handles every
// exponent: left shifts up to 31 (the reference shifts a wrapping int32).
func convFastOK(shift []int32) bool {
	for _, s := range shift {
		if s > convRQMaxShift {
			return false
		}
	}
	return true
}

// convLeanMaxBytes bounds the flash convLeanInt8's weight layout may take
// (4 bytes a weight, against 1 for convInt8); larger convolutions keep the
// slower generic kernel rather than quadruple a large part of the model.
const convLeanMaxBytes = 64 << 10

// convLeanOK reports whether convLeanInt8 suits a convolution with K
// weights per output channel: its int32 sums of (w+128)*(x-zp) are exact
// (K*255*255 < 2^31) and its weights take at most convLeanMaxBytes.
func convLeanOK(k, outC int) bool {
	return k > 0 && outC > 0 && int64(k)*255*255 < 1<<31 && int64((outC+7)/8)*32*int64(k) <= convLeanMaxBytes
}

// convLeanLayout lays out weight rows [outC][K] for convLeanInt8: for each
// block of eight output channels, for each k, the channel pairs (2j, 2j+1)
// as little-endian int64 u(2j) + u(2j+1)<<32 with u = w+128 (128, a zero
// weight, for channels past outC).
func convLeanLayout(rows [][]int8) []byte {
	k := len(rows[0])
	blocks := (len(rows) + 7) / 8
	out := make([]byte, 0, blocks*32*k)
	u := func(oc, i int) uint64 {
		if oc < len(rows) {
			return uint64(int(rows[oc][i]) + 128)
		}
		return 128
	}
	for b := 0; b < blocks; b++ {
		for i := 0; i < k; i++ {
			for j := 0; j < 4; j++ {
				out = binary.LittleEndian.AppendUint64(out, u(8*b+2*j, i)|u(8*b+2*j+1, i)<<32)
			}
		}
	}
	return out
}

// convOHWI returns a CONV_2D filter's weights as rows [outC][K].
func convOHWI(data []byte, outC int) [][]int8 {
	k := len(data) / outC
	rows := make([][]int8, outC)
	for oc := range rows {
		rows[oc] = make([]int8, k)
		for i := range rows[oc] {
			rows[oc][i] = int8(data[oc*k+i])
		}
	}
	return rows
}

// convDepthwiseAsConv returns a depthwise filter [1][fH][fW][outC] as rows
// [outC][fH*fW], each output channel's taps: with one input channel they
// are a convolution's weight rows; with depth multiplier 1, the channel-
// major layout of the depthwise kernels.
func convDepthwiseAsConv(data []byte, outC int) [][]int8 {
	taps := len(data) / outC
	rows := make([][]int8, outC)
	for oc := range rows {
		rows[oc] = make([]int8, taps)
		for t := range rows[oc] {
			rows[oc][t] = int8(data[t*outC+oc])
		}
	}
	return rows
}

// convRQRecords builds the kernels' per-channel requantization triples
// (kernels/conv_rq.go): folded bias (convFoldBias), multiplier and shift.
func convRQRecords(c *opCtx, bias *model.Tensor, rows [][]int8, mult, shift []int32, inOffset int32) (Arg, error) {
	rec, err := convRQTriples(c, bias, rows, mult, shift, inOffset)
	if err != nil {
		return nil, err
	}
	return c.ConstI32("RQ", rec), nil
}

// convRQTriples returns convRQRecords' triples.
func convRQTriples(c *opCtx, bias *model.Tensor, rows [][]int8, mult, shift []int32, inOffset int32) ([]int32, error) {
	folded, err := convFoldBias(c, bias, rows, inOffset)
	if err != nil {
		return nil, err
	}
	rec := make([]int32, 0, 3*len(rows))
	for oc, b := range folded {
		rec = append(rec, b, mult[oc], shift[oc])
	}
	return rec, nil
}

// convFoldBias returns per output channel the bias plus inOffset times the
// sum of the channel's weights (rows), wrapping like the reference's int32
// accumulator.
func convFoldBias(c *opCtx, bias *model.Tensor, rows [][]int8, inOffset int32) ([]int32, error) {
	n := len(rows)
	if bias != nil {
		if bias.Type != model.Int32 || !bias.IsConst() || bias.NumElements() != n {
			return nil, c.Errorf("bias %s: want a constant int32 tensor of %d elements", bias.Describe(), n)
		}
	}
	folded := convBias32(bias, n)
	for oc, w := range rows {
		var sum int32
		for _, v := range w {
			sum += int32(v)
		}
		folded[oc] += inOffset * sum
	}
	return folded, nil
}

// convLowerFastInt8 emits convPWInt8 (1x1 filter, stride 1) or convWinInt8
// for an ungrouped int8 convolution with weight rows [outC][K] in filter
// order (taps, then input channels).
func convLowerFastInt8(c *opCtx, in, filter, bias, out *model.Tensor, g convFastGeom, rows [][]int8,
	mult, shift []int32, inZP, outZP, lo, hi int32) error {
	rq, err := convRQRecords(c, bias, rows, mult, shift, -inZP)
	if err != nil {
		return err
	}
	// Weights as uint8 w+128, rows padded with 128 to a multiple of four.
	k := len(rows[0])
	wt := make([]byte, (g.outC+3)/4*4*k)
	for i := range wt {
		wt[i] = 128
	}
	for oc, w := range rows {
		for i, v := range w {
			wt[oc*k+i] = byte(int(v) + 128)
		}
	}
	rqs := c.Scratch(model.Int64, g.outC*kernelsig.ConvRQLen)
	xp := c.Scratch(model.Int64, k)
	why := "ungrouped, shifts the fast rescale takes, dilated"
	if g.dilH == 1 && g.dilW == 1 {
		why = "ungrouped, shifts the fast rescale takes"
	}
	if c.DSP() {
		why += "; the DSP records are not exact for a requantization (PlanConvDSP)"
	}
	c.Because(kernelsig.ConvWinInt8, "%s; each window gathered into scratch", why)
	c.BandCall(windowBand, kernelsig.ConvWinInt8, Struct(kernelsig.ConvWinParams,
		F("batches", Int(g.batches)), F("inH", Int(g.inH)), F("inW", Int(g.inW)), F("inC", Int(g.inC)),
		F("filterH", Int(g.fH)), F("filterW", Int(g.fW)),
		F("outH", Int(g.outH)), F("outW", Int(g.outW)), F("outC", Int(g.outC)),
		F("strideH", Int(g.strideH)), F("strideW", Int(g.strideW)),
		F("dilationH", Int(g.dilH)), F("dilationW", Int(g.dilW)),
		F("padH", Int(g.padH)), F("padW", Int(g.padW)),
		F("inZP", I64(int64(inZP))), F("outOffset", I32(outZP)), F("actMin", I32(lo)), F("actMax", I32(hi))),
		View(in), c.Const("Win", wt), rq, rqs, xp, View(out))
	return nil
}

// convLowerPWInt8 emits convPWInt8 for a pointwise (1x1, stride 1)
// convolution of the given pixels with weight rows [outC][inC].
func convLowerPWInt8(c *opCtx, in, bias, out *model.Tensor, pixels, inC, outC int, rows [][]int8,
	mult, shift []int32, inZP, outZP, lo, hi int32) error {
	triples, err := convRQTriples(c, bias, rows, mult, shift, -inZP)
	if err != nil {
		return err
	}
	pw := "1x1, stride 1, unpadded"
	if wt, rec, ok := kernelsig.PlanPWDSP(rows, int32Bytes(triples), outZP, lo); ok && c.DSP() {
		c.Because(kernelsig.ConvPWDSPW, "%s, input channels a multiple of 4, the DSP records exact (PlanPWDSP); each pixel pair widened once into scratch", pw)
		c.Because(kernelsig.ConvPWDSP, "%s, input channels a multiple of 4, the DSP records exact (PlanPWDSP); %s", pw, leanWhy)
		// Tiles of two pixels by two channels through the DSP loop;
		// faster from a widened copy of each pixel pair where its
		// scratch is free.
		params := Struct(kernelsig.ConvPWDSPParams,
			F("pixels", Int(pixels)), F("inC", Int(inC)), F("outC", Int(outC)),
			F("span", I32(hi-lo)), F("hi", I32(hi)))
		pwArg, recArg := c.Const("PW", wt), c.Const("Rec", rec)
		widened := func() {
			c.BandCall(pixelsBand, kernelsig.ConvPWDSPW, params, View(in), pwArg, recArg,
				c.Scratch(model.Int32, kernelsig.DSPPWArgsWords+kernelsig.DSPWidenWords(inC)), View(out))
		}
		switch {
		case !c.Lean():
			widened()
		default:
			c.BandCall(pixelsBand, kernelsig.ConvPWDSP, params, View(in), pwArg, recArg, c.Scratch(model.Int32, kernelsig.DSPPWArgsWords), View(out))
		}
		if outC%2 == 0 && !c.Lean() {
			// convPWDSPW copies a pixel pair, widened, before it writes
			// the pair's outputs from the copy: written over its input,
			// the outputs of a pair must end before the next pair's rows
			// start.
			c.offerOverlap(0, pairwiseShiftWidened(pixels, inC, outC))
			return nil
		}
		// convPWDSP reads a pixel pair's rows while it writes the pair's
		// outputs channel pair by channel pair (and an odd last channel
		// from the rows again): written over its input, the outputs of
		// pair p must end before pair p's rows start.
		c.offerOverlap(0, pairwiseShift(pixels, inC, outC))
		if outC%2 == 0 {
			// Or it runs as convPWDSPW, on the same constants, closer to
			// its input for the scratch of the copy.
			c.offerOverlapAlt(0, pairwiseShiftWidened(pixels, inC, outC), widened)
		}
		return nil
	}
	rq := c.ConstI32("RQ", triples)
	wt := c.Const("PW", convPWPairs(rows))
	params := Struct(kernelsig.ConvPWParams,
		F("pixels", Int(pixels)), F("inC", Int(inC)), F("outC", Int(outC)),
		F("outOffset", I32(outZP)), F("actMin", I32(lo)), F("actMax", I32(hi)))
	if !c.DSP() && inC <= kernelsig.ConvPWKMax {
		// A few inputs a pixel: the requantization of every output is
		// the cost, which convPWKInt8's decoded records cut to one
		// multiply (the same constants; its fallback is convPWInt8's).
		c.Because(kernelsig.ConvPWKInt8, "%s; the build for gc, %d input channels, at most %d: channel by channel, each output one multiply-add per input and a one-multiply requantization, no scratch", pw, inC, kernelsig.ConvPWKMax)
		c.BandCall(pixelsBand, kernelsig.ConvPWKInt8, params, View(in), wt, rq, View(out))
		return nil
	}
	if c.DSP() {
		c.Because(kernelsig.ConvPWInt8, "%s; the DSP pointwise records are not exact for a requantization (PlanPWDSP)", pw)
	} else {
		c.Because(kernelsig.ConvPWInt8, "%s; the build for gc", pw)
	}
	c.Because(kernelsig.ConvGatherInt8, "%s, written over its input: raster order, each pixel pair's inputs read first", pw)
	c.BandCall(pixelsBand, kernelsig.ConvPWInt8, params, View(in), wt, rq, c.Scratch(model.Int32, kernelsig.ScratchConvPW(outC)), View(out))
	if inC%8 == 0 && inC <= kernelsig.ConvGatherMax && outC <= kernelsig.ConvGatherMaxC {
		// convPWInt8 writes channel pair by channel pair; written over its
		// input, the layer runs as convGatherInt8 (raster order, pixel
		// pairs) on the same weights: a 1x1 window of inC values.
		g := convFastGeom{batches: 1, inH: 1, inW: pixels, inC: inC, fH: 1, fW: 1, outH: 1, outW: pixels, outC: outC,
			strideH: 1, strideW: 1, dilH: 1, dilW: 1}
		gather := kernelsig.ConvGatherInt8
		if !c.DSP() {
			// The rows read where they lie rather than gathered into
			// scratch (the same constants, scratch and overlap).
			gather = kernelsig.ConvGatherPWInt8
			c.Because(gather, "%s, written over its input, the build for gc: raster order, each pixel pair's rows read in place before its outputs are written", pw)
		}
		c.offerOverlapWith(0, rasterWindowShift(g, 1, 1, 2, true), func() {
			c.BandCall(windowBand, gather, convRowsStruct(g, inZP, outZP, lo, hi), View(in), wt, rq,
				c.Scratch(model.Int32, kernelsig.ScratchConvGather(inC, outC)), View(out))
		})
	}
	return nil
}

// convLowerDSPInt8 emits convDSP (or, where its scratch is free,
// convDSPW) for an ungrouped int8 convolution with weight rows [outC][K]
// in filter order, when the kernel's records are exact for it (ok false
// otherwise, nothing emitted).
func convLowerDSPInt8(c *opCtx, in, bias, out *model.Tensor, g convFastGeom, rows [][]int8,
	mult, shift []int32, inZP, outZP, lo, hi int32) (bool, error) {
	triples, err := convRQTriples(c, bias, rows, mult, shift, -inZP)
	if err != nil {
		return false, err
	}
	wt, rec, ok := kernelsig.PlanConvDSP(rows, int32Bytes(triples), outZP, lo)
	if !ok {
		return false, nil
	}
	K := g.fH * g.fW * g.inC
	fn, words := kernelsig.ConvDSP, kernelsig.ScratchConvDSP(K)
	c.Because(fn, "ungrouped, the DSP records exact (PlanConvDSP); %s", leanWhy)
	if !c.Lean() {
		fn, words = kernelsig.ConvDSPW, kernelsig.ScratchConvDSPW(K)
		c.Because(fn, "ungrouped, the DSP records exact (PlanConvDSP); each window widened once into scratch")
	}
	c.BandCall(windowBand, fn, Struct(kernelsig.ConvDSPParams,
		F("batches", Int(g.batches)), F("inH", Int(g.inH)), F("inW", Int(g.inW)), F("inC", Int(g.inC)),
		F("filterH", Int(g.fH)), F("filterW", Int(g.fW)), F("outH", Int(g.outH)), F("outW", Int(g.outW)), F("outC", Int(g.outC)),
		F("strideH", Int(g.strideH)), F("strideW", Int(g.strideW)), F("dilationH", Int(g.dilH)), F("dilationW", Int(g.dilW)),
		F("padH", Int(g.padH)), F("padW", Int(g.padW)), F("inZP", I32(inZP)), F("span", I32(hi-lo)), F("hi", I32(hi))),
		View(in), c.Const("Conv", wt), c.Const("Rec", rec), c.Scratch(model.Int32, words), View(out))
	// A pixel pair's windows are gathered before any of its outputs is
	// written, in raster order.
	c.offerOverlap(0, rasterWindowShift(g, 1, 1, 2, true))
	return true, nil
}

// pairwiseShiftWidened is the least distance (bytes) at which convPWDSPW,
// which copies each pixel pair before it writes the pair's outputs (k
// input and n output bytes a pixel), may write its output over its input:
// the outputs of a pair must end before the next pair's rows start.
func pairwiseShiftWidened(pixels, k, n int) int {
	shift := 0
	for p := 0; p+2 < pixels; p += 2 {
		shift = max(shift, (p+2)*(n-k))
	}
	return shift
}

// pairwiseShift is the least distance (bytes) a pointwise kernel that goes
// pixel pair by pixel pair (pixels of k input and n output bytes, reading
// a pair's inputs while writing its outputs) needs between the start of
// its output and the start of its input when it writes over that input:
// the outputs of pixels p and p+1 end before pixel p's input starts.
func pairwiseShift(pixels, k, n int) int {
	shift := 0
	for p := 0; p < pixels; p += 2 {
		shift = max(shift, min(p+2, pixels)*n-p*k)
	}
	return shift
}

// convLowerRowsInt8 emits convRowsInt8, the scratch-free convolution
// without dilation, for weight rows [outC][K] in filter order (taps row by
// row, then input channels).
func convLowerRowsInt8(c *opCtx, in, bias, out *model.Tensor, g convFastGeom, rows [][]int8,
	mult, shift []int32, inZP, outZP, lo, hi int32) error {
	rq, err := convRQRecords(c, bias, rows, mult, shift, -inZP)
	if err != nil {
		return err
	}
	k := len(rows[0])
	why := "ungrouped, undilated, shifts the fast rescale takes"
	if c.DSP() {
		why += "; the DSP records are not exact for a requantization (PlanConvDSP)"
	}
	if kp := (k + 7) / 8 * 8; kp <= kernelsig.ConvGatherMax && len(rows) <= kernelsig.ConvGatherMaxC {
		c.Because(kernelsig.ConvGatherInt8, "%s; a window of at most %d values and at most %d output channels", why, kernelsig.ConvGatherMax, kernelsig.ConvGatherMaxC)
		// A small window: convGatherInt8, rows padded with zero weights.
		padded := make([][]int8, len(rows))
		for oc, r := range rows {
			padded[oc] = append(append([]int8(nil), r...), make([]int8, kp-k)...)
		}
		c.BandCall(windowBand, kernelsig.ConvGatherInt8, convRowsStruct(g, inZP, outZP, lo, hi), View(in), c.Const("Gather", convPWPairs(padded)), rq,
			c.Scratch(model.Int32, kernelsig.ScratchConvGather(k, len(rows))), View(out))
		// convGatherInt8 gathers the windows of two pixels, then writes
		// both, in raster order.
		c.offerOverlap(0, rasterWindowShift(g, 1, 1, 2, true))
		return nil
	}
	fn := kernelsig.ConvRowsInt8
	c.Because(fn, "%s; a window of more than %d values or more than %d output channels", why, kernelsig.ConvGatherMax, kernelsig.ConvGatherMaxC)
	// The build for gc: three pixels at a time, each window padded with
	// zero weights to a multiple of 32 values, where the gather of the
	// windows pays: input channels a multiple of 32 (word copies), or 32
	// output channels or more and window rows of at most 96 values (the
	// pairs' steps of a row cost more; measured on the grid's shapes).
	kp := (k + 31) &^ 31
	if !c.DSP() && kp <= kernelsig.ConvRowsTriK && len(rows)%2 == 0 &&
		(g.inC%32 == 0 || len(rows) >= 32 && g.fW*g.inC <= 96) {
		fn = kernelsig.ConvRowsTriInt8
		c.Because(fn, "%s; a window of more than %d values or more than %d output channels; the build for gc, a window of at most %d values (padded to a multiple of 32), an even number of output channels and input channels a multiple of 32 or 32 output channels or more and window rows of at most 96 values: three pixels by two channels a tile",
			why, kernelsig.ConvGatherMax, kernelsig.ConvGatherMaxC, kernelsig.ConvRowsTriK)
		padded := make([][]int8, len(rows))
		for oc, r := range rows {
			padded[oc] = append(append([]int8(nil), r...), make([]int8, kp-k)...)
		}
		rows = padded
	}
	wt := convRowsWeights(rows)
	c.BandCall(windowBand, fn, convRowsStruct(g, inZP, outZP, lo, hi), View(in), c.Const("Rows", wt), rq, View(out))
	return nil
}

// convLowerDilInt8 emits convDilInt8 for a dilated int8 convolution in the
// gc build: convRowsInt8's pairs of pixels and channels, the weights in its
// layout, each window walked tap by tap.
func convLowerDilInt8(c *opCtx, in, bias, out *model.Tensor, g convFastGeom, rows [][]int8,
	mult, shift []int32, inZP, outZP, lo, hi int32) error {
	rq, err := convRQRecords(c, bias, rows, mult, shift, -inZP)
	if err != nil {
		return err
	}
	wt := convRowsWeights(rows)
	c.Because(kernelsig.ConvDilInt8, "ungrouped, dilated, shifts the fast rescale takes, input channels a multiple of 8 and (filterH+1)*(filterW+1) at most %d: taps walked eight values a step for two pixels and two channels", kernelsig.ConvDilMaxTaps)
	params := Struct(kernelsig.ConvDilParams,
		F("batches", Int(g.batches)), F("inH", Int(g.inH)), F("inW", Int(g.inW)), F("inC", Int(g.inC)),
		F("filterH", Int(g.fH)), F("filterW", Int(g.fW)),
		F("outH", Int(g.outH)), F("outW", Int(g.outW)), F("outC", Int(g.outC)),
		F("strideH", Int(g.strideH)), F("strideW", Int(g.strideW)),
		F("dilationH", Int(g.dilH)), F("dilationW", Int(g.dilW)),
		F("padH", Int(g.padH)), F("padW", Int(g.padW)),
		F("inZP", I32(inZP)), F("outOffset", I32(outZP)), F("actMin", I32(lo)), F("actMax", I32(hi)))
	rowsArg := c.Const("Rows", wt)
	c.BandCall(windowBand, kernelsig.ConvDilInt8, params, View(in), rowsArg, rq, View(out))
	if g.outC <= kernelsig.ConvDilRasterMax {
		// Written over its input: pixel by pixel, each pixel's window
		// read before its outputs are written (the same constants).
		c.offerOverlapWith(0, rasterWindowShift(g, 1, 1, 1, true), func() {
			c.BandCall(windowBand, kernelsig.ConvDilInt8Raster, params, View(in), rowsArg, rq, View(out))
		})
	}
	return nil
}

// convRowsWeights lays out weight rows [outC][K] for convRowsInt8 and
// convDilInt8: for each pair of output channels (the second zero when
// outC is odd), for each column, the two weights.
func convRowsWeights(rows [][]int8) []byte {
	k := len(rows[0])
	wt := make([]byte, 0, (len(rows)+1)/2*2*k)
	for ob := 0; ob < len(rows); ob += 2 {
		for i := 0; i < k; i++ {
			var w1 int8
			if ob+1 < len(rows) {
				w1 = rows[ob+1][i]
			}
			wt = append(wt, byte(rows[ob][i]), byte(w1))
		}
	}
	return wt
}

// convRowsStruct is the convRowsParams of a convolution.
func convRowsStruct(g convFastGeom, inZP, outZP, lo, hi int32) Arg {
	return Struct(kernelsig.ConvRowsParams,
		F("batches", Int(g.batches)), F("inH", Int(g.inH)), F("inW", Int(g.inW)), F("inC", Int(g.inC)),
		F("filterH", Int(g.fH)), F("filterW", Int(g.fW)),
		F("outH", Int(g.outH)), F("outW", Int(g.outW)), F("outC", Int(g.outC)),
		F("strideH", Int(g.strideH)), F("strideW", Int(g.strideW)),
		F("padH", Int(g.padH)), F("padW", Int(g.padW)),
		F("inZP", I32(inZP)), F("outOffset", I32(outZP)), F("actMin", I32(lo)), F("actMax", I32(hi)))
}

// convPWPairs lays out weight rows [outC][K] for convPWInt8: for each pair
// of output channels (a zero row standing in for channel outC when outC is
// odd), for each group of eight columns the first channel's eight weights
// then the second's, then one (first, second) pair for each of the K%8
// last columns.
func convPWPairs(rows [][]int8) []byte {
	k := len(rows[0])
	zero := make([]int8, k)
	out := make([]byte, 0, (len(rows)+1)/2*2*k)
	for ob := 0; ob < len(rows); ob += 2 {
		r0, r1 := rows[ob], zero
		if ob+1 < len(rows) {
			r1 = rows[ob+1]
		}
		n := k / 8
		for g := 0; g < n; g++ {
			for _, r := range [2][]int8{r0, r1} {
				for _, v := range r[8*g : 8*g+8] {
					out = append(out, byte(v))
				}
			}
		}
		for i := 8 * n; i < k; i++ {
			out = append(out, byte(r0[i]), byte(r1[i]))
		}
	}
	return out
}

// dwLowerRowsInt8 emits dwRowsInt8 for an int8 depthwise convolution with
// depth multiplier 1.
func dwLowerRowsInt8(c *opCtx, in, filter, bias, out *model.Tensor, g convFastGeom,
	mult, shift []int32, inZP, outZP, lo, hi int32) error {
	// Weights channel-major; 3x3 filters offset by 128 as uint8.
	taps := g.fH * g.fW
	off := 0
	if g.fH == 3 && g.fW == 3 {
		off = 128
	}
	rows := convDepthwiseAsConv(filter.Data, g.outC)
	wt := make([]byte, 0, taps*g.outC)
	for _, w := range rows {
		for _, v := range w {
			wt = append(wt, byte(int(v)+off))
		}
	}
	rq, err := convRQRecords(c, bias, rows, mult, shift, -inZP)
	if err != nil {
		return err
	}
	t := (g.outW + 2) / 3
	c.BandCall(windowBand, kernelsig.DwRowsInt8, Struct(kernelsig.DwRowsParams,
		F("batches", Int(g.batches)), F("inH", Int(g.inH)), F("inW", Int(g.inW)), F("chans", Int(g.inC)),
		F("filterH", Int(g.fH)), F("filterW", Int(g.fW)), F("outH", Int(g.outH)), F("outW", Int(g.outW)),
		F("strideH", Int(g.strideH)), F("strideW", Int(g.strideW)),
		F("dilationH", Int(g.dilH)), F("dilationW", Int(g.dilW)),
		F("padH", Int(g.padH)), F("padW", Int(g.padW)),
		F("inZP", I64(int64(inZP))), F("outOffset", I32(outZP)), F("actMin", I32(lo)), F("actMax", I32(hi))),
		View(in), c.Const("DW", wt), rq, c.Scratch(model.Int64, g.outC*kernelsig.ConvRQLen),
		c.Scratch(model.Int64, g.fH*g.outC*t*g.fW), c.Scratch(model.Int8, g.outC), View(out))
	return nil
}

// dwLowerDSPInt8 emits the depthwise DSP kernel of the depth multiplier
// (kernels/dw_dsp.go: dwDSPInt8Q8 for one input channel and a multiple of
// eight without horizontal dilation, dwDSPInt8M1 for 1 with at least four
// channels, dwDSPInt8M2 for 2 with at least two input channels,
// dwDSPInt8MQ for a multiple of four) and reports whether it did: not for
// other depth multipliers, nor where a requantization is not one the
// kernels compute exactly (kernelsig.PlanDWDSP). Its scratch is small (an
// argument block and a pointer per tap, or per four taps and a window of
// one channel): it is the lean variant too.
func dwLowerDSPInt8(c *opCtx, in, filter, bias, out *model.Tensor, g convFastGeom, depthMul int,
	mult, shift []int32, inZP, outZP, lo, hi int32) (bool, error) {
	q8 := g.inC == 1 && depthMul%8 == 0 && g.dilW == 1
	var fn kernelsig.Func
	var why string
	switch {
	case q8:
		fn, why = kernelsig.DwDSPInt8Q8, "one input channel, a depth multiplier that is a multiple of 8, no horizontal dilation"
	case depthMul == 1 && g.inC >= 4:
		fn, why = kernelsig.DwDSPInt8M1, "depth multiplier 1, at least 4 channels"
	case depthMul == 2 && g.inC >= 2:
		fn, why = kernelsig.DwDSPInt8M2, "depth multiplier 2, at least 2 input channels"
	case depthMul%4 == 0:
		fn, why = kernelsig.DwDSPInt8MQ, "a depth multiplier that is a multiple of 4"
	default:
		return false, nil
	}
	rows := convDepthwiseAsConv(filter.Data, g.outC)
	triples, err := convRQTriples(c, bias, rows, mult, shift, -inZP)
	if err != nil {
		return false, err
	}
	wt, rec, ok := kernelsig.PlanDWDSP(rows, int32Bytes(triples), outZP, lo)
	words := kernelsig.DWDSPScratch(g.fH, g.fW)
	if q8 {
		wt, rec, ok = kernelsig.PlanDWDSPQ8(rows, g.fH, g.fW, int32Bytes(triples), outZP, lo)
		words = kernelsig.DWDSPScratchQ8(g.fH, g.fW)
	}
	if !ok {
		return false, nil
	}
	c.Because(fn, "%s; the DSP records exact (PlanDWDSP)", why)
	zrow := make([]byte, g.inC)
	if q8 {
		zrow = make([]byte, kernelsig.DWDSPZerosQ8(g.outW, g.strideW))
	}
	for i := range zrow {
		zrow[i] = byte(int8(inZP))
	}
	c.BandCall(windowBand, fn, Struct(kernelsig.DwDSPParams,
		F("batches", Int(g.batches)), F("inH", Int(g.inH)), F("inW", Int(g.inW)), F("inC", Int(g.inC)),
		F("filterH", Int(g.fH)), F("filterW", Int(g.fW)),
		F("outH", Int(g.outH)), F("outW", Int(g.outW)), F("outC", Int(g.outC)), F("depthMul", Int(depthMul)),
		F("strideH", Int(g.strideH)), F("strideW", Int(g.strideW)),
		F("dilationH", Int(g.dilH)), F("dilationW", Int(g.dilW)),
		F("padH", Int(g.padH)), F("padW", Int(g.padW)),
		F("span", I32(hi-lo)), F("hi", I32(hi))),
		View(in), c.Const("DW", wt), c.Const("Rec", rec), c.Const("ZP", zrow),
		c.Scratch(model.Int32, words), View(out))
	// The kernel's own order of reads and writes gives the distance; with
	// depth multiplier 1 it must be a multiple of the channels, which the
	// planner's alignment of the tie keeps.
	dist := kernelsig.DWDSPShift(kernelsig.DWGeometry{
		Batches: g.batches, InH: g.inH, InW: g.inW, InC: g.inC, FilterH: g.fH, FilterW: g.fW,
		OutH: g.outH, OutW: g.outW, OutC: g.outC, DepthMul: depthMul,
		StrideH: g.strideH, StrideW: g.strideW, DilationH: g.dilH, DilationW: g.dilW, PadH: g.padH, PadW: g.padW,
	}, q8)
	if depthMul == 1 {
		a := planner.DefaultAlign
		step := g.inC / gcd(g.inC, a) * a
		dist = (dist + step - 1) / step * step
	}
	c.offerOverlap(0, dist)
	return true, nil
}

// gcd is the greatest common divisor of two positive ints.
func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// dwLower3x3Int8 emits dw3x3Int8, the scratch-free 3x3 depthwise kernel
// (depth multiplier 1 or one input channel, no dilation, horizontal stride
// 1 or 2): the filter by output channel ([outC][9], taps row by row), a
// constant row of the input zero point for padded taps and conv_rq.go's
// requantization triples with the bias folded for input offset -zp.
func dwLower3x3Int8(c *opCtx, in, filter, bias, out *model.Tensor, oh, ow, strideH, strideW, padH, padW int,
	mult, shift []int32, inZP, outZP, lo, hi int32) error {
	batches, inH, inW, C := in.Shape[0], in.Shape[1], in.Shape[2], in.Shape[3]
	N := filter.Shape[3]
	rows := convDepthwiseAsConv(filter.Data, N)
	rq, err := convRQRecords(c, bias, rows, mult, shift, -inZP)
	if err != nil {
		return err
	}
	zrow := make([]byte, C)
	for ch := range zrow {
		zrow[ch] = byte(int8(inZP))
	}
	wt := make([]byte, 0, 9*N)
	for _, w := range rows {
		for _, v := range w {
			wt = append(wt, byte(v))
		}
	}
	// dw3x3Int8's scratch is for dw3x3ChainInt8, which takes rows of whole
	// blocks of six pixels of a multiple of four channels.
	words := 0
	if N == C && ow%6 == 0 && C%4 == 0 {
		words = kernelsig.Dw3x3Scratch
	}
	c.BandCall(dw3x3Band, kernelsig.Dw3x3Int8, Struct(kernelsig.Dw3x3Params,
		F("batches", Int(batches)), F("inH", Int(inH)), F("inW", Int(inW)), F("chans", Int(C)), F("mult", Int(N/C)),
		F("outH", Int(oh)), F("outW", Int(ow)), F("strideH", Int(strideH)), F("strideW", Int(strideW)),
		F("padH", Int(padH)), F("padW", Int(padW)),
		F("outOffset", I32(outZP)), F("actMin", I32(lo)), F("actMax", I32(hi))),
		View(in), c.Const("DW", wt), c.Const("ZP", zrow), rq, c.Scratch(model.Int32, words), View(out))
	g := convFastGeom{batches: batches, inH: inH, inW: inW, inC: C, fH: 3, fW: 3, outH: oh, outW: ow, outC: N,
		strideH: strideH, strideW: strideW, dilH: 1, dilW: 1, padH: padH, padW: padW}
	if N != C {
		// dw3x3Mult (one input channel) reads a segment's windows, then
		// writes its pixels.
		c.offerOverlap(0, rasterWindowShift(g, 1, 1, kernelsig.Dw3x3Seg, true))
		return nil
	}
	// dw3x3Int8 writes blocks of bw pixels of a row in raster order,
	// channel by channel (its reads and writes interleave in a block).
	c.offerOverlap(0, rasterWindowShift(g, 1, 1, kernelsig.BlockWidthDw3x3(ow), false))
	return nil
}

// convMACs: each output element sums a kH x kW x inC window.
func convMACs(g *model.Graph, op *model.Op) int64 {
	f := dims64(g.Input(op, 1)) // [outC, kH, kW, inC]
	if len(f) != 4 {
		return 0
	}
	return elems64(g.Output(op, 0)) * f[1] * f[2] * f[3]
}

// depthwiseMACs: each output element sums a kH x kW window of one channel.
func depthwiseMACs(g *model.Graph, op *model.Op) int64 {
	f := dims64(g.Input(op, 1)) // [1, kH, kW, outC]
	if len(f) != 4 {
		return 0
	}
	return elems64(g.Output(op, 0)) * f[1] * f[2]
}

// transposeConvMACs: each input element scatters into a kH x kW x outC
// block.
func transposeConvMACs(g *model.Graph, op *model.Op) int64 {
	f := dims64(g.Input(op, 1)) // [outC, kH, kW, inC]
	if len(f) != 4 {
		return 0
	}
	return elems64(g.Input(op, 2)) * f[0] * f[1] * f[2]
}

// convReads: the windows of CONV_2D and DEPTHWISE_CONV_2D. It runs for
// lowered operators only, whose strides are present and positive (the
// lowerings refuse others), so the strides' default does not matter.
func convReads(g *model.Graph, op *model.Op) int {
	o := op.Options()
	f := g.Input(op, 1)
	if f == nil || len(f.Shape) != 4 || o.Err() != nil {
		return 1
	}
	var sw, sh int32
	if op.Code == model.OpDepthwiseConv2D {
		opt := o.DepthwiseConv2D()
		sw, sh = opt.StrideW, opt.StrideH
	} else {
		opt := o.Conv2D()
		sw, sh = opt.StrideW, opt.StrideH
	}
	return windowReads(f.Shape[1], f.Shape[2], int(sh), int(sw))
}

// transposeConvTFLMScratch: TFLM's int8 kernel accumulates the output in
// int32, its int16 kernel in int64 (and the int16 bias widened to int64).
func transposeConvTFLMScratch(g *model.Graph, op *model.Op) []int {
	x, bias, out := g.Input(op, 2), g.Input(op, 3), g.Output(op, 0)
	switch {
	case x != nil && x.Type == model.Int8:
		return []int{out.NumElements() * 4}
	case x != nil && x.Type == model.Int16:
		s := []int{out.NumElements() * 8}
		if bias != nil && bias.Type == model.Int16 {
			s = append([]int{bias.NumElements() * 8}, s...)
		}
		return s
	}
	return nil
}

// dwBlocksRQ returns dwInt8Blocks' records (fcRQTable's: bias and
// requantization per channel) of a depthwise layer with int32 bias (nil:
// none; checked by convBiasArg), ok false where a requantization has no
// record.
func dwBlocksRQ(c *opCtx, bias *model.Tensor, mult, shift []int32, outC int) ([]byte, bool) {
	tab, err := fcRQTable(c, convBias32(bias, outC), mult, shift)
	return tab, err == nil
}
