package kernels

// A global AVERAGE_POOL_2D (one window over the whole image) as the last
// operator of a fused group: the per-channel sums are added up band by
// band of input rows as the chain before it produces them, then divided
// once. The sums run over the pixels in raster order, as the whole-image
// window of avgPoolInt8 (avgPoolF32: float sums depend on the order) sums
// them, and the division is the same, so the output is the pool's, bit for
// bit.

// poolSumInt8 adds the pixels of in, len(acc) channels each, to acc:
// channel c to acc[c]. With start, acc is set to their sums instead.
func poolSumInt8(acc []int32, in []int8, start bool) {
	if start {
		clear(acc)
	}
	c := len(acc)
	for c > 0 && len(in) >= c {
		px := in[:c]
		a := acc[:len(px)]
		for k, v := range px {
			a[k] += int32(v)
		}
		in = in[c:]
	}
}

// poolSumInt16 is poolSumInt8 for int16 values.
func poolSumInt16(acc []int32, in []int16, start bool) {
	if start {
		clear(acc)
	}
	c := len(acc)
	for c > 0 && len(in) >= c {
		px := in[:c]
		a := acc[:len(px)]
		for k, v := range px {
			a[k] += int32(v)
		}
		in = in[c:]
	}
}

// poolSumF32 is poolSumInt8 for float32 values: each sum adds the pixels
// one after another, in the order given.
func poolSumF32(acc []float32, in []float32, start bool) {
	if start {
		clear(acc)
	}
	c := len(acc)
	for c > 0 && len(in) >= c {
		px := in[:c]
		a := acc[:len(px)]
		for k, v := range px {
			a[k] += v
		}
		in = in[c:]
	}
}

// poolMeanInt8 writes the int8 average pool's output from the sums of
// its one window, the whole inH x inW image (batch 1): out[c] is acc[c]
// divided by the pixels, rounded half away from zero, clamped.
func poolMeanInt8(p *poolParams, acc []int32, out []int8) {
	n := int32(p.inH * p.inW)
	o := out[:len(acc)]
	for c, s := range acc {
		o[c] = int8(clampI32(poolAvgRound(s, n), p.actMin, p.actMax))
	}
}

// poolMeanInt16 is poolMeanInt8 for int16 outputs.
func poolMeanInt16(p *poolParams, acc []int32, out []int16) {
	n := int32(p.inH * p.inW)
	o := out[:len(acc)]
	for c, s := range acc {
		o[c] = int16(clampI32(poolAvgRound(s, n), p.actMin, p.actMax))
	}
}

// poolMeanF32 is poolMeanInt8 for float32: each sum divided by the pixels,
// clamped.
func poolMeanF32(p *poolParams, acc []float32, out []float32) {
	n := float32(p.inH * p.inW)
	o := out[:len(acc)]
	for c, s := range acc {
		o[c] = clampF32(s/n, p.fActMin, p.fActMax)
	}
}

// meanFinishInt8 writes the int8 MEAN over an image's pixels (a global
// average pooling, as Keras converts it) from the per-channel sums of
// every pixel's raw values: meanInt8's requantization of each sum.
func meanFinishInt8(p *meanParams, acc []int32, out []int8) {
	o := out[:len(acc)]
	for c, s := range acc {
		o[c] = int8(meanRequant(p, s, -128, 127))
	}
}

// meanFinishInt16 is meanFinishInt8 for int16.
func meanFinishInt16(p *meanParams, acc []int32, out []int16) {
	o := out[:len(acc)]
	for c, s := range acc {
		o[c] = int16(meanRequant(p, s, -32768, 32767))
	}
}

// meanFinishF32 is meanFinishInt8 for float32: each sum, added in pixel
// order as meanF32 adds it, divided by the element count.
func meanFinishF32(p *meanParams, acc []float32, out []float32) {
	o := out[:len(acc)]
	for c, s := range acc {
		o[c] = s / p.count
	}
}
