package lower

import (
	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// convLowerDSPInt16 emits the 16x8 convolution with a 64-bit accumulator on
// the DSP loop (kernels/conv_dsp16.go) where the DSP kernels are allowed,
// the convolution is ungrouped and the loop's records take its
// requantization (kernelsig.PlanFC16DSP), and reports whether it did: a 1x1
// filter without padding over a multiple of four channels reads the
// pixels in place (convDSPInt16PW), every other convolution gathers each
// window into a scratch row of its fH*fW*inC values rounded up to a
// multiple of four (convDSPInt16). fields are the convParams fields.
func convLowerDSPInt16(c *opCtx, inArg Arg, filter, bias, out *model.Tensor, fields []Field,
	inC, fC, fH, fW, outC, padH, padW int, mult, shift []int32, lo, hi int32) bool {
	if !c.DSP() || fC != inC {
		return false
	}
	K := fH * fW * inC
	K4 := (K + 3) &^ 3
	rec, ok := kernelsig.PlanFC16DSP(K4, convBias64(bias, outC), mult, shift, 0, lo, hi)
	if !ok {
		return false
	}
	rows := convOHWI(filter.Data, outC)
	wt := kernelsig.PlanFC16DSPWeights(outC, K4, func(j int) []byte {
		r := make([]byte, K4)
		for i, v := range rows[j] {
			r[i] = byte(v)
		}
		return r
	})
	p := Struct(kernelsig.ConvParams, fields...)
	if fH == 1 && fW == 1 && padH == 0 && padW == 0 && inC%4 == 0 {
		c.BandCall(windowBand, kernelsig.ConvDSPInt16PW, p, inArg, c.Const("Weights", wt), c.Const("Rec", rec), View(out))
		return true
	}
	c.BandCall(windowBand, kernelsig.ConvDSPInt16, p, inArg, c.Const("Weights", wt), c.Const("Rec", rec), c.Scratch(model.Int16, K4), View(out))
	return true
}

// int16BlocksWhy says why a 16x8 layer runs the block kernel rather than
// the DSP loop.
func int16BlocksWhy(c *opCtx) string {
	if !c.DSP() {
		return "the gc kernel set (no DSP loop), and the 32-bit kernel does not take the layer (PlanInt16Q: sums that may leave int32, a total shift outside 16..32, an output offset, or a gathered window of more than Int16QBuf values): four channels a pass over the input, 32-bit sums widened every 256 products"
	}
	return "the DSP records do not take the requantization (PlanFC16DSP): four channels a pass over the input"
}
