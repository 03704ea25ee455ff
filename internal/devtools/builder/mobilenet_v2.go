package builder

import (
	"fmt"

	"github.com/tflm-gen/tflm-gen/internal/model"
)

// MobileNetV2Int8 is the mobilenet_v2_int8 example: the first 7 blocks of
// MobileNet V2 0.35 on a 96x96 image (MobileNetV2Net).
func MobileNetV2Int8() []byte { return MobileNetV2Net("mobilenet_v2_int8", 96, 0.35, 7) }

// MobileNetV2Net is an int8 MobileNet V2 as TensorFlow writes it (NHWC,
// SAME padding, RELU6 fused into the convolutions) on a size x size RGB
// image, its channels scaled by width (at least 8): a strided 3x3
// convolution, the first blocks of its 17 inverted residual blocks (1x1
// expansion, 3x3 depthwise, 1x1 projection, a residual ADD where the shapes
// allow), with all 17 its 1x1 convolution to 1280 channels, then an
// average pool over the image and a fully connected layer to 10 classes.
// Weights are random (deterministic), scales plausible.
func MobileNetV2Net(name string, size int, width float64, blocks int) []byte {
	r := rng(0x3b2)
	m := New("tflm-gen example: " + name)
	ch := func(c int) int { return max(8, int(float64(c)*width+4)/8*8) }
	n := 0
	zps := map[int]int64{}
	tensor := func(what string, h, w, c int, s float32, zp int64) (int, float32) {
		n++
		t := m.Tensor(fmt.Sprintf("%s%d", what, n), model.Int8, []int{1, h, w, c}, PerTensor(s, zp))
		zps[t] = zp
		return t, s
	}
	x, xs := tensor("image", size, size, 3, 0.0078125, 0)
	in := x
	h, w, c := size, size, 3
	conv := func(x int, xs float32, oc, k, stride int, dw, relu6 bool) (int, float32) {
		oh, ow := (h+stride-1)/stride, (w+stride-1)/stride
		if dw {
			oc = c
		}
		os := float32(0.02 + float32(r.next()%16)/1000)
		var zp int64 = -128
		if !relu6 {
			zp = int64(r.next()%32) - 16
		}
		y, ys := tensor("act", oh, ow, oc, os, zp)
		wq, bq := &Quant{}, &Quant{}
		shape := []int{oc, k, k, c}
		if dw {
			shape, wq.Axis = []int{1, k, k, oc}, 3
		}
		for range oc {
			s := 0.002 + float32(r.next()%40)/10000
			wq.Scale, wq.ZeroPoint = append(wq.Scale, s), append(wq.ZeroPoint, 0)
			bq.Scale, bq.ZeroPoint = append(bq.Scale, xs*s), append(bq.ZeroPoint, 0)
		}
		wt := m.ConstI8(fmt.Sprintf("w%d", n), shape, wq, r.int8s(shape[0]*shape[1]*shape[2]*shape[3]))
		bt := m.ConstI32(fmt.Sprintf("b%d", n), []int{oc}, bq, r.int32s(oc, 400))
		act := actNone
		if relu6 {
			act = actRelu6
		}
		if dw {
			m.Op(model.OpDepthwiseConv2D, []int{x, wt, bt}, []int{y}, depthwiseOpts(padSame, stride, act))
		} else {
			m.Op(model.OpConv2D, []int{x, wt, bt}, []int{y}, conv2DOpts(padSame, stride, act))
		}
		h, w, c = oh, ow, oc
		return y, ys
	}
	x, xs = conv(x, xs, ch(32), 3, 2, false, true)
	full := blocks >= 17
	for _, b := range []struct{ t, c, n, s int }{{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2}, {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}} {
		for k := range b.n {
			if blocks == 0 {
				break
			}
			blocks--
			s := b.s
			if k > 0 {
				s = 1
			}
			skip, skipC := x, c
			y, ys := x, xs
			if b.t > 1 {
				y, ys = conv(y, ys, c*b.t, 1, 1, false, true)
			}
			y, ys = conv(y, ys, 0, 3, s, true, true)
			y, ys = conv(y, ys, ch(b.c), 1, 1, false, false)
			if s == 1 && c == skipC {
				z, zs := tensor("add", h, w, c, 0.03+float32(r.next()%16)/1000, int64(r.next()%32)-16)
				m.Op(model.OpAdd, []int{skip, y}, []int{z}, nil)
				y, ys = z, zs
			}
			x, xs = y, ys
		}
	}
	if full {
		x, xs = conv(x, xs, ch(1280), 1, 1, false, true)
	}
	pool, ps := tensor("pool", 1, 1, c, xs, zps[x])
	m.Op(model.OpAveragePool2D, []int{x}, []int{pool}, &Options{Type: model.UnionPool2DOptions, Fields: []Field{
		Byte(model.Pool2DOptionsPadding, padValid), Int(model.Pool2DOptionsStrideW, 1), Int(model.Pool2DOptionsStrideH, 1),
		Int(model.Pool2DOptionsFilterWidth, w), Int(model.Pool2DOptionsFilterHeight, h), Byte(model.Pool2DOptionsFusedActivationFunction, actNone)}})
	flat := m.Tensor("flatten", model.Int8, []int{1, c}, PerTensor(ps, zps[x]))
	shape := m.ConstI32("flatten/shape", []int{2}, nil, []int32{1, int32(c)})
	m.Op(model.OpReshape, []int{pool, shape}, []int{flat}, reshapeOpts([]int32{1, int32(c)}))
	logits := m.Tensor("logits", model.Int8, []int{1, 10}, PerTensor(0.1, 0))
	wf := m.ConstI8("fc/weights", []int{10, c}, PerTensor(0.004, 0), r.int8s(10*c))
	bf := m.ConstI32("fc/bias", []int{10}, PerTensor(ps*0.004, 0), r.int32s(10, 500))
	m.Op(model.OpFullyConnected, []int{flat, wf, bf}, []int{logits}, fcOpts(actNone))
	m.IO([]int{in}, []int{logits})
	return m.Bytes()
}
