package lower

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/devtools/oracle"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// randTileConv is a random int8 convolution shaped for the tile kernels:
// a pointwise CONV_2D with a multiple of eight input channels and an even
// number of outputs (convPWGrid's variants, convPWRunK8 for eight), a
// small-window CONV_2D (convGatherInt8 through convPWGridPair), or a 3x3
// DEPTHWISE_CONV_2D with a multiple of four channels and whole six-pixel
// output rows (dw3x3ChainInt8).
func randTileConv(r *rand.Rand, kind int) diffCase {
	b, h := 1+r.IntN(2), 1+r.IntN(9)
	var w, ic, oc, fh, fw, sh, sw, dm int
	same := r.IntN(2) == 0
	switch kind {
	case 0: // pointwise
		w, ic, oc, fh, fw, sh, sw = 1+r.IntN(9), 8*(1+r.IntN(9)), 2*(1+r.IntN(20)), 1, 1, 1, 1
	case 1: // small window, gathered
		w, ic, oc, fh, fw, sh, sw = 2+r.IntN(8), 1+r.IntN(8), 2*(1+r.IntN(12)), 1+r.IntN(3), 1+r.IntN(3), 1+r.IntN(2), 1+r.IntN(2)
	default: // 3x3 depthwise, rows of whole blocks of six pixels
		sw = 1 + r.IntN(2)
		ow := 6 * (1 + r.IntN(2))
		w = ow * sw
		if !same {
			w = (ow-1)*sw + 3
		}
		ic, fh, fw, sh, dm = 4*(1+r.IntN(6)), 3, 3, 1+r.IntN(2), 1
		h = max(h, 3)
	}
	if !same && (h < fh || w < fw) {
		same = true
	}
	oh, _ := doOutSize(h, fh, sh, 1, same)
	ow, _ := doOutSize(w, fw, sw, 1, same)
	shape, axis, depth := []int{oc, fh, fw, ic}, 0, fh*fw*ic
	if kind == 2 {
		oc = ic
		shape, axis, depth = []int{1, fh, fw, oc}, 3, fh*fw
	}
	act := doAct(r)
	m := builder.New("tile kernel differential case")
	var wt, bt int
	iq, oq, _ := doInOutQuant(r, doI8, depth, func(inScale float32) float32 {
		var ws float32
		wt, bt, ws = doWeights(r, m, doI8, shape, axis, oc, inScale, false, true)
		return ws
	})
	in := m.Tensor("in", model.Int8, []int{b, h, w, ic}, iq)
	out := m.Tensor("out", model.Int8, []int{b, oh, ow, oc}, oq)
	pad := 1
	if same {
		pad = 0
	}
	code := model.OpConv2D
	opts := &builder.Options{Type: model.UnionConv2DOptions, Fields: []builder.Field{builder.Byte(model.Conv2DOptionsPadding, pad), builder.Int(model.Conv2DOptionsStrideW, sw), builder.Int(model.Conv2DOptionsStrideH, sh),
		builder.Byte(model.Conv2DOptionsFusedActivationFunction, act), builder.Int(model.Conv2DOptionsDilationWFactor, 1), builder.Int(model.Conv2DOptionsDilationHFactor, 1)}}
	if kind == 2 {
		code = model.OpDepthwiseConv2D
		opts = &builder.Options{Type: model.UnionDepthwiseConv2DOptions, Fields: []builder.Field{builder.Byte(model.DepthwiseConv2DOptionsPadding, pad), builder.Int(model.DepthwiseConv2DOptionsStrideW, sw), builder.Int(model.DepthwiseConv2DOptionsStrideH, sh),
			builder.Int(model.DepthwiseConv2DOptionsDepthMultiplier, dm), builder.Byte(model.DepthwiseConv2DOptionsFusedActivationFunction, act), builder.Int(model.DepthwiseConv2DOptionsDilationWFactor, 1), builder.Int(model.DepthwiseConv2DOptionsDilationHFactor, 1)}}
	}
	m.Op(code, []int{in, wt, bt}, []int{out}, opts)
	m.IO([]int{in}, []int{out})
	return diffCase{outDT: model.Int8, model: m.Bytes(), inputs: []difftest.Vals{difftest.RandVals(r, model.Int8, b*h*w*ic)},
		desc: fmt.Sprintf("%s [%d %d %d %d] filter %v stride %dx%d same %v act %d quant %s -> %s",
			code, b, h, w, ic, shape, sh, sw, same, act, doQ(iq), doQ(oq))}
}

// TestDiffTileKernelsMatchTFLM: random int8 convolutions of the shapes the
// 32-bit tile kernels take (pointwise grid, gathered small windows, the
// 3x3 depthwise channel groups), generated as the lowering chooses and
// compared with TFLM byte for byte.
func TestDiffTileKernelsMatchTFLM(t *testing.T) {
	o := oracle.New(t)
	for kind, name := range []string{"pointwise", "gathered", "depthwise3x3"} {
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(77, uint64(kind)))
			gen := func(r *rand.Rand) diffCase { return randTileConv(r, kind) }
			runDiffCases(t, o, diffN{20, 120}, r, gen, difftest.ConvTooLarge)
		})
	}
}
