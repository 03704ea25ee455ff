package lower

import (
	"math"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/internal/quant"
)

func init() {
	register(model.OpAveragePool2D, func(c *opCtx) error { return lowerPool(c, true) }, ownBuffer, withInputReads(poolReads))
	register(model.OpMaxPool2D, func(c *opCtx) error { return lowerPool(c, false) }, ownBuffer, withInputReads(poolReads))
}

// poolGeometry reproduces tensorflow/lite/kernels/padding.h for one spatial
// dimension without dilation: the output size the padding mode gives and
// the padding before the first element.
func poolGeometry(c *opCtx, what string, same bool, stride, filter, in int) (out, pad int, err error) {
	if stride <= 0 || filter <= 0 {
		return 0, 0, c.Errorf("%s: stride %d and filter %d must be positive", what, stride, filter)
	}
	if out = model.WindowOut(same, in, stride, filter); out <= 0 {
		return 0, 0, c.Errorf("%s: input %d with filter %d and stride %d leaves no output", what, in, filter, stride)
	}
	return out, model.SamePad(in, out, stride, filter), nil
}

// poolWindowsNonEmpty reports whether every output position's window
// overlaps the input (the reference stops at the first empty window).
func poolWindowsNonEmpty(outN, stride, pad, filter, in int) bool {
	for o := 0; o < outN; o++ {
		origin := o*stride - pad
		if max(0, -origin) >= min(filter, in-origin) {
			return false
		}
	}
	return true
}

// lowerPool lowers AVERAGE_POOL_2D and MAX_POOL_2D (TFLM pooling.cc) for
// float32, int8 and int16 NHWC tensors. Options: padding, stride_w,
// stride_h, filter_width, filter_height, fused activation. Padding comes
// from the padding mode and the input size; like TFLM the kernel then walks
// the output tensor's own height and width. Integer pooling needs the same
// scale (within 1e-6) and zero point on both sides.
func lowerPool(c *opCtx, avg bool) error {
	if c.NumIn() != 1 || c.NumOut() != 1 || c.In(0) == nil {
		return c.Errorf("has %d inputs and %d outputs, want 1 and 1", c.NumIn(), c.NumOut())
	}
	in, out := c.In(0), c.Out(0)
	o := c.Op.Options()
	opt := o.Pool2D()
	padding := opt.Padding
	strideW, strideH := int(opt.StrideW), int(opt.StrideH)
	filterW, filterH := int(opt.FilterWidth), int(opt.FilterHeight)
	act := quant.Activation(opt.FusedActivationFunction)
	if err := o.Err(); err != nil {
		return c.Errorf("%v", err)
	}
	if padding > 1 {
		return c.Errorf("padding %d is neither SAME (0) nor VALID (1)", padding)
	}
	same := padding == 0
	if len(in.Shape) != 4 || len(out.Shape) != 4 {
		return c.Errorf("input %s and output %s must be 4-D", in.Describe(), out.Describe())
	}
	if in.Type != out.Type {
		return c.Errorf("input %s and output %s types differ", in.Describe(), out.Describe())
	}
	if in.Shape[0] != out.Shape[0] || in.Shape[3] != out.Shape[3] {
		return c.Errorf("input %s and output %s: batch and channel dimensions differ", in.Describe(), out.Describe())
	}
	inH, inW := in.Shape[1], in.Shape[2]
	outH, outW := out.Shape[1], out.Shape[2]
	var padH, padW int
	if c.Op.Padding != nil {
		// A max pool that absorbed a PAD (gen/fold), a pool's column
		// strip (gen/strips): a window without dilation, as convDims
		// computes a convolution's. Its padding cells are skipped as
		// SAME's are (an average counts the cells inside the input).
		oh, ow, ph, pw, err := convDims(c, same, strideH, strideW, 1, 1, inH, inW, filterH, filterW)
		if err != nil {
			return err
		}
		if oh != outH || ow != outW {
			return c.Errorf("output %s: the explicit padding gives %dx%d", out.Describe(), oh, ow)
		}
		padH, padW = ph, pw
	} else {
		var err error
		if _, padH, err = poolGeometry(c, "height", same, strideH, filterH, inH); err != nil {
			return err
		}
		if _, padW, err = poolGeometry(c, "width", same, strideW, filterW, inW); err != nil {
			return err
		}
	}
	if !poolWindowsNonEmpty(outH, strideH, padH, filterH, inH) || !poolWindowsNonEmpty(outW, strideW, padW, filterW, inW) {
		return c.Errorf("output %s has pooling windows entirely outside the input", out.Describe())
	}
	params := []Field{
		F("batches", Int(in.Shape[0])), F("inH", Int(inH)), F("inW", Int(inW)), F("depth", Int(in.Shape[3])),
		F("outH", Int(outH)), F("outW", Int(outW)), F("strideH", Int(strideH)), F("strideW", Int(strideW)),
		F("filterH", Int(filterH)), F("filterW", Int(filterW)), F("padH", Int(padH)), F("padW", Int(padW)),
	}
	f32, i8, i16 := kernelsig.MaxPoolF32, kernelsig.MaxPoolInt8, kernelsig.MaxPoolInt16
	if avg {
		f32, i8, i16 = kernelsig.AvgPoolF32, kernelsig.AvgPoolInt8, kernelsig.AvgPoolInt16
	}

	var fn kernelsig.Func
	switch in.Type {
	case model.Float32:
		lo, hi, err := c.actRangeFloat(act)
		if err != nil {
			return err
		}
		c.BandCall(windowBand, f32, Struct(kernelsig.PoolParams, append(params, F("fActMin", F32(lo)), F("fActMax", F32(hi)))...), View(in), View(out))
		return nil
	case model.Int8:
		fn = i8
	case model.Int16:
		fn = i16
	default:
		return c.Errorf("input %s: type %s is not supported (float32, int8 or int16)", in.Describe(), in.Type)
	}
	if in.Quant == nil || len(in.Quant.Scale) != 1 || out.Quant == nil || len(out.Quant.Scale) != 1 {
		return c.Errorf("input %s and output %s need per-tensor quantization", in.Describe(), out.Describe())
	}
	// TFLM compares the float difference of the scales, widened, with 1e-6.
	diff := in.Quant.Scale[0] - out.Quant.Scale[0]
	if math.Abs(float64(diff)) > 1e-6 || in.Quant.ZeroPoint[0] != out.Quant.ZeroPoint[0] {
		return c.Errorf("input %s and output %s must have the same scale and zero point", in.Describe(), out.Describe())
	}
	lo, hi, err := c.actRange(act, out.Quant.Scale[0], int32(out.Quant.ZeroPoint[0]), in.Type)
	if err != nil {
		return err
	}
	p := Struct(kernelsig.PoolParams, append(params, F("actMin", I32(lo)), F("actMax", I32(hi)))...)
	if in.Type == model.Int8 && c.DSP() {
		// Four channels a word on the DSP extension where the layer's
		// record exists (depth a multiple of four, windows the runs and
		// 16-bit sums hold).
		if k, ok := kernelsig.PlanPoolDSP(avg, in.Shape[3], inW, outW, strideW, filterH, filterW, lo, hi); ok {
			fn = kernelsig.MaxPoolDSPInt8
			if avg {
				fn = kernelsig.AvgPoolDSPInt8
			}
			c.Because(fn, "depth %d, a multiple of 4; windows the DSP record takes (PlanPoolDSP)", in.Shape[3])
			c.BandCall(windowBand, fn, p, c.Const("Pool", k), View(in), View(out))
			return nil
		}
	}
	small := filterH <= 3 && filterW <= 3 && (!avg || filterH >= 2 && filterW >= 2)
	if in.Type == model.Int8 && in.Shape[3]%4 == 0 && !c.DSP() && small {
		// The gc build: the pixels of an output row whose windows have
		// the same shape in one call, where gc spends more on a pixel's
		// setup than on its taps.
		fn = kernelsig.MaxPoolInt8Rows
		if avg {
			fn = kernelsig.AvgPoolInt8Rows
		}
		c.Because(fn, "depth %d, a multiple of 4; the build for gc: an output row's pixels with windows of the same shape in one call (a %dx%d window, the runs' own)", in.Shape[3], filterH, filterW)
	} else if in.Type == model.Int8 && in.Shape[3]%4 == 0 {
		// Four channels a pass over the window, in registers: the gc
		// build's pool, and the DSP build's where its record does not
		// take the windows.
		fn = kernelsig.MaxPoolInt8Blocks
		if avg {
			fn = kernelsig.AvgPoolInt8Blocks
		}
		why := "the DSP record does not take its windows (too large for its sums)"
		if !c.DSP() {
			why = "the build for gc, a window the runs of maxPoolInt8Rows or avgPoolInt8Rows do not take"
		}
		c.Because(fn, "depth %d, a multiple of 4: four channels a pass over the window; %s", in.Shape[3], why)
	} else if in.Type == model.Int8 {
		if c.DSP() {
			c.Because(fn, "the DSP record does not take it (a depth not a multiple of 4)")
		} else {
			c.Because(fn, "the build for gc; a depth not a multiple of 4")
		}
	}
	c.BandCall(windowBand, fn, p, View(in), View(out))
	return nil
}

// poolReads: the windows of a pool. It runs for lowered operators only,
// whose strides and filter sizes are present and positive (lowerPool
// refuses others), so their default does not matter.
func poolReads(_ *model.Graph, op *model.Op) int {
	o := op.Options()
	opt := o.Pool2D()
	if o.Err() != nil {
		return 1
	}
	return windowReads(int(opt.FilterHeight), int(opt.FilterWidth), int(opt.StrideH), int(opt.StrideW))
}
