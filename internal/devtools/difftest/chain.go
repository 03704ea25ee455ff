package difftest

import (
	"fmt"
	"math/rand/v2"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// RandChain is a random int8 chain of 2-5 layers (3x3 or 1x1 convolutions,
// 3x3 depthwise convolutions, strides 1 and 2, SAME and VALID, and average
// pools) on a random image, quantized per channel as converters write it.
func RandChain(r *rand.Rand) ([]byte, Vals, string) {
	m := builder.New("overlap chain")
	h, w, c := 4+r.IntN(13), 4+r.IntN(13), 1+r.IntN(8)
	q := RandQuant(r, model.Int8)
	in := m.Tensor("in", model.Int8, []int{1, h, w, c}, q)
	vals := RandVals(r, model.Int8, h*w*c)
	desc := fmt.Sprintf("%dx%dx%d", h, w, c)
	x, xq := in, q
	layers := 2 + r.IntN(4)
	for k := 0; k < layers; k++ {
		stride, same := 1+r.IntN(2), r.IntN(2) == 0
		kind := r.IntN(4) // 0 conv 3x3, 1 pointwise, 2 depthwise 3x3, 3 average pool
		f := 3
		if kind == 1 {
			f, stride, same = 1, 1, false
		}
		if !same && (h < f || w < f) {
			same = true
		}
		oh, ow := (h-f)/stride+1, (w-f)/stride+1
		pad := 1
		if same {
			oh, ow, pad = (h+stride-1)/stride, (w+stride-1)/stride, 0
		}
		oc := c
		if kind <= 1 {
			oc = 1 + r.IntN(12)
		}
		oq := xq // a pool keeps its input's quantization
		if kind != 3 {
			oq = builder.PerTensor(RandScale(r)*4, int64(r.IntN(256)-128))
		}
		y := m.Tensor(fmt.Sprint("l", k), model.Int8, []int{1, oh, ow, oc}, oq)
		desc += fmt.Sprintf(" -> %s%d/%d %dx%dx%d", [...]string{"conv", "pw", "dw", "pool"}[kind], f, stride, oh, ow, oc)
		if kind == 3 {
			m.Op(model.OpAveragePool2D, []int{x}, []int{y}, &builder.Options{Type: model.UnionPool2DOptions, Fields: []builder.Field{
				builder.Byte(model.Pool2DOptionsPadding, pad), builder.Int(model.Pool2DOptionsStrideW, stride), builder.Int(model.Pool2DOptionsStrideH, stride), builder.Int(model.Pool2DOptionsFilterWidth, 3), builder.Int(model.Pool2DOptionsFilterHeight, 3), builder.Byte(model.Pool2DOptionsFusedActivationFunction, 0)}})
		} else {
			wq := &builder.Quant{}
			bq := &builder.Quant{}
			shape := []int{oc, f, f, c}
			if kind == 2 {
				shape, wq.Axis = []int{1, 3, 3, oc}, 3
			}
			bias := make([]int32, oc)
			for i := 0; i < oc; i++ {
				wq.Scale = append(wq.Scale, 0.005+0.003*float32(r.IntN(8)))
				wq.ZeroPoint = append(wq.ZeroPoint, 0)
				bq.Scale = append(bq.Scale, xq.Scale[0]*wq.Scale[i])
				bq.ZeroPoint = append(bq.ZeroPoint, 0)
				bias[i] = int32(r.IntN(4001) - 2000)
			}
			wt := m.ConstI8(fmt.Sprint("w", k), shape, wq, RandInt8s(r, shape[0]*shape[1]*shape[2]*shape[3]))
			bt := m.ConstI32(fmt.Sprint("b", k), []int{oc}, bq, bias)
			act := r.IntN(2) // NONE or RELU
			if kind == 2 {
				m.Op(model.OpDepthwiseConv2D, []int{x, wt, bt}, []int{y}, &builder.Options{Type: model.UnionDepthwiseConv2DOptions, Fields: []builder.Field{
					builder.Byte(model.DepthwiseConv2DOptionsPadding, pad), builder.Int(model.DepthwiseConv2DOptionsStrideW, stride), builder.Int(model.DepthwiseConv2DOptionsStrideH, stride), builder.Int(model.DepthwiseConv2DOptionsDepthMultiplier, 1), builder.Byte(model.DepthwiseConv2DOptionsFusedActivationFunction, act), builder.Int(model.DepthwiseConv2DOptionsDilationWFactor, 1), builder.Int(model.DepthwiseConv2DOptionsDilationHFactor, 1)}})
			} else {
				m.Op(model.OpConv2D, []int{x, wt, bt}, []int{y}, &builder.Options{Type: model.UnionConv2DOptions, Fields: []builder.Field{
					builder.Byte(model.Conv2DOptionsPadding, pad), builder.Int(model.Conv2DOptionsStrideW, stride), builder.Int(model.Conv2DOptionsStrideH, stride), builder.Byte(model.Conv2DOptionsFusedActivationFunction, act), builder.Int(model.Conv2DOptionsDilationWFactor, 1), builder.Int(model.Conv2DOptionsDilationHFactor, 1)}})
			}
		}
		x, xq, h, w, c = y, oq, oh, ow, oc
	}
	m.IO([]int{in}, []int{x})
	return m.Bytes(), vals, desc
}
