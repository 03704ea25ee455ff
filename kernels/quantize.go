package kernels

// QUANTIZE (float32 to int8/int16, and requantization between integer
// types) and DEQUANTIZE (int8/int16/uint8 to float32), as in TFLite Micro's
// reference kernels.

// quantizeParams holds the output quantization of a float32 QUANTIZE.
type quantizeParams struct {
	scale float32
	zp    int32
}

// quantizeF32One quantizes v: round(v/scale) (ties away from zero, computed
// in float32 as TFLM does) plus the zero point, clamped to [lo, hi].
// Quotients beyond the int32 range saturate (what the float-to-int
// conversion of Arm targets does) and NaN becomes the zero point
// (f32RoundI32).
func quantizeF32One(p *quantizeParams, v float32, lo, hi int32) int32 {
	r := int64(f32RoundI32(v/p.scale)) + int64(p.zp)
	if r < int64(lo) {
		return lo
	}
	if r > int64(hi) {
		return hi
	}
	return int32(r)
}

// quantizeF32ToInt8 is QUANTIZE from float32 to int8.
func quantizeF32ToInt8(p *quantizeParams, in []float32, out []int8) {
	for i, v := range in {
		out[i] = int8(quantizeF32One(p, v, -128, 127))
	}
}

// quantizeF32ToInt16 is QUANTIZE from float32 to int16.
func quantizeF32ToInt16(p *quantizeParams, in []float32, out []int16) {
	for i, v := range in {
		out[i] = int16(quantizeF32One(p, v, -32768, 32767))
	}
}

// requantizeParams holds the constants of an integer-to-integer QUANTIZE:
// the input and output zero points, the ratio of the scales as a
// requantization in fcRQ form (mult, lsh, rsh, half; see fc_rq.go), and
// the output type's range.
type requantizeParams struct {
	inZP, outZP int32
	mult, half  int32
	lsh, rsh    uint8
	qmin, qmax  int32
}

// requantizeOne rescales x (already widened to int32) with q, built from p
// once per call by fcMakeRQ, to the output.
func requantizeOne(p *requantizeParams, q fcRQ, x int32) int32 {
	return min(max(fcRescale(x-p.inZP, q)+p.outZP, p.qmin), p.qmax)
}

// requantizeFast reports whether p's rescale of inputs x - inZP of an
// int8 or int16 input (|x - inZP| < 2^17) plus outZP is dwRQFast(x - inZP,
// m, k, mm, sh) (no left shift, a right shift of 1..21, |outZP| <= 128),
// and returns dwRQFast's constants.
func requantizeFast(p *requantizeParams) (m uint32, k, mm int32, sh uint32, ok bool) {
	r := int32(p.rsh) - 31
	if p.lsh != 0 || r < 1 || r > 21 || p.mult < 0 || p.outZP < -128 || p.outZP > 128 ||
		p.inZP < -32768 || p.inZP > 32767 {
		return 0, 0, 0, 0, false
	}
	return uint32(p.mult), 1 + int32(1)<<r + p.outZP<<(r+1), -p.mult - 2, uint32(r + 1), true
}

// requantizeI8ToI8 is QUANTIZE from int8 to int8.
func requantizeI8ToI8(p *requantizeParams, in, out []int8) {
	if m, k, mm, sh, ok := requantizeFast(p); ok {
		lo, hi, zi := p.qmin, p.qmax, p.inZP
		out = out[:len(in)]
		for i, x := range in {
			out[i] = int8(dwClamp(dwRQFast(int32(x)-zi, m, k, mm, sh), lo, hi))
		}
		return
	}
	q := fcMakeRQ(p.mult, p.half, p.lsh, p.rsh)
	for i, v := range in {
		out[i] = int8(requantizeOne(p, q, int32(v)))
	}
}

// requantizeI8ToU8 is QUANTIZE from int8 to uint8.
func requantizeI8ToU8(p *requantizeParams, in []int8, out []uint8) {
	q := fcMakeRQ(p.mult, p.half, p.lsh, p.rsh)
	for i, v := range in {
		out[i] = uint8(requantizeOne(p, q, int32(v)))
	}
}

// requantizeI8ToI16 is QUANTIZE from int8 to int16.
func requantizeI8ToI16(p *requantizeParams, in []int8, out []int16) {
	q := fcMakeRQ(p.mult, p.half, p.lsh, p.rsh)
	for i, v := range in {
		out[i] = int16(requantizeOne(p, q, int32(v)))
	}
}

// requantizeI8ToI32 is QUANTIZE from int8 to int32.
func requantizeI8ToI32(p *requantizeParams, in []int8, out []int32) {
	q := fcMakeRQ(p.mult, p.half, p.lsh, p.rsh)
	for i, v := range in {
		out[i] = requantizeOne(p, q, int32(v))
	}
}

// requantizeU8ToI8 is QUANTIZE from uint8 to int8.
func requantizeU8ToI8(p *requantizeParams, in []uint8, out []int8) {
	q := fcMakeRQ(p.mult, p.half, p.lsh, p.rsh)
	for i, v := range in {
		out[i] = int8(requantizeOne(p, q, int32(v)))
	}
}

// requantizeI16ToI8 is QUANTIZE from int16 to int8.
func requantizeI16ToI8(p *requantizeParams, in []int16, out []int8) {
	if m, k, mm, sh, ok := requantizeFast(p); ok {
		lo, hi, zi := p.qmin, p.qmax, p.inZP
		out = out[:len(in)]
		for i, x := range in {
			out[i] = int8(dwClamp(dwRQFast(int32(x)-zi, m, k, mm, sh), lo, hi))
		}
		return
	}
	q := fcMakeRQ(p.mult, p.half, p.lsh, p.rsh)
	for i, v := range in {
		out[i] = int8(requantizeOne(p, q, int32(v)))
	}
}

// requantizeI16ToI16 is QUANTIZE from int16 to int16.
func requantizeI16ToI16(p *requantizeParams, in, out []int16) {
	q := fcMakeRQ(p.mult, p.half, p.lsh, p.rsh)
	for i, v := range in {
		out[i] = int16(requantizeOne(p, q, int32(v)))
	}
}

// requantizeI16ToI32 is QUANTIZE from int16 to int32.
func requantizeI16ToI32(p *requantizeParams, in []int16, out []int32) {
	q := fcMakeRQ(p.mult, p.half, p.lsh, p.rsh)
	for i, v := range in {
		out[i] = requantizeOne(p, q, int32(v))
	}
}

// requantizeI32ToI8 is QUANTIZE from int32 to int8.
func requantizeI32ToI8(p *requantizeParams, in []int32, out []int8) {
	q := fcMakeRQ(p.mult, p.half, p.lsh, p.rsh)
	for i, v := range in {
		out[i] = int8(requantizeOne(p, q, v))
	}
}

// requantizeI32ToI16 is QUANTIZE from int32 to int16.
func requantizeI32ToI16(p *requantizeParams, in []int32, out []int16) {
	q := fcMakeRQ(p.mult, p.half, p.lsh, p.rsh)
	for i, v := range in {
		out[i] = int16(requantizeOne(p, q, v))
	}
}

// dequantizeParams holds the input quantization of a DEQUANTIZE.
type dequantizeParams struct {
	scale float32
	zp    int32
}

// dequantizeI8 is DEQUANTIZE from int8: scale*(q-zp) rounded once to
// float32. TFLM computes the product in double and rounds it to float:
// when q-zp is below 2^24 in magnitude (exact in float32; always, unless
// the zero point lies far outside the input type's range) the double
// product is exact (24+25 bits), so the float32 product, rounded once, is
// the same number; beyond, the two differ by an ulp at most.
func dequantizeI8(p *dequantizeParams, in []int8, out []float32) {
	for i, v := range in {
		out[i] = p.scale * float32(int32(v)-p.zp)
	}
}

// dequantizeI16 is DEQUANTIZE from int16.
func dequantizeI16(p *dequantizeParams, in []int16, out []float32) {
	for i, v := range in {
		out[i] = p.scale * float32(int32(v)-p.zp)
	}
}

// dequantizeU8 is DEQUANTIZE from uint8.
func dequantizeU8(p *dequantizeParams, in []uint8, out []float32) {
	for i, v := range in {
		out[i] = p.scale * float32(int32(v)-p.zp)
	}
}
