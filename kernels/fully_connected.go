package kernels

// FULLY_CONNECTED, as in TFLite Micro's reference kernels: every row of the
// input (rows = elements / accumDepth) is multiplied by the weight matrix
// [outDepth, accumDepth] and a bias is added.
//
// The integer kernels take a bias that already contains, per output channel,
// inputOffset * sum(weights of the channel) (folded at generation time, see
// gen/lower_fc.go). Because two's-complement addition is associative modulo
// 2^32 (and the 64-bit sums of the 16x8 variant never overflow), the folded
// dot product is bit-identical to the reference's sum of
// weight * (input + inputOffset), whatever the order of summation.
//
// Multipliers and shifts are always per output channel (a per-tensor model
// repeats one value), which costs one load per output, not per product.

// fcParams describes one FULLY_CONNECTED operator. Integer kernels ignore
// the float bounds and vice versa.
type fcParams struct {
	batches    int // rows of input and output
	outDepth   int // output channels (weight rows)
	accumDepth int // input channels (weight columns)
	outOffset  int32
	actMin     int32
	actMax     int32
	fActMin    float32
	fActMax    float32
}

// fcDotI8 returns the int32 (wrapping) dot product of two int8 vectors of
// the same length.
func fcDotI8(x, w []int8) int32 {
	w = w[:len(x)]
	var acc int32
	for i, xv := range x {
		acc += int32(xv) * int32(w[i])
	}
	return acc
}

// fcDotI16 returns the 64-bit dot product of int16 activations and int8
// weights. A product is at most 2^22 in magnitude, so blocks of 256 are
// summed in int32 (cheap on 32-bit targets) and only block sums are
// widened; the result equals a plain 64-bit sum.
func fcDotI16(x []int16, w []int8) int64 {
	w = w[:len(x)]
	var acc int64
	for len(x) > 0 {
		n := min(len(x), 256)
		xs, ws := x[:n], w[:n]
		var blk int32
		for i, xv := range xs {
			blk += int32(xv) * int32(ws[i])
		}
		acc += int64(blk)
		x, w = x[n:], w[n:]
	}
	return acc
}

// fcDotI16Acc32 returns the int32 (wrapping) dot product of int16
// activations and int8 weights.
func fcDotI16Acc32(x []int16, w []int8) int32 {
	w = w[:len(x)]
	var acc int32
	for i, xv := range x {
		acc += int32(xv) * int32(w[i])
	}
	return acc
}

// fcInt8 is the int8 fully connected layer with int8 weights (per-tensor or
// per-channel). bias holds one int32 per output channel with the input
// offset folded in; mult and shift hold one int32 each per output channel.
func fcInt8(p *fcParams, in, w []int8, bias, mult, shift string, out []int8) {
	k := p.accumDepth
	n := p.outDepth
	for b := 0; b < p.batches; b++ {
		x := in[b*k : b*k+k]
		o := out[b*n : b*n+n]
		for c := range o {
			acc := fcDotI8(x, w[c*k:c*k+k]) + ld32(bias, c)
			acc = mulByQuantMul(acc, ld32(mult, c), int(ld32(shift, c)))
			o[c] = int8(clampI32(acc+p.outOffset, p.actMin, p.actMax))
		}
	}
}

// fcInt16 is the 16x8 fully connected layer with a 64-bit accumulator: bias
// holds one int64 per output channel with the input offset folded in.
func fcInt16(p *fcParams, in []int16, w []int8, bias, mult, shift string, out []int16) {
	k := p.accumDepth
	n := p.outDepth
	for b := 0; b < p.batches; b++ {
		x := in[b*k : b*k+k]
		o := out[b*n : b*n+n]
		for c := range o {
			acc := fcDotI16(x, w[c*k:c*k+k]) + ld64(bias, c)
			v := mulByQuantMul64(acc, ld32(mult, c), int(ld32(shift, c)))
			o[c] = int16(clampI32(v+p.outOffset, p.actMin, p.actMax))
		}
	}
}

// fcInt16Acc32 is the 16x8 fully connected layer for models whose bias (or
// declared quantized bias type) is int32: TFLite Micro then accumulates in
// 32 bits and rescales with the 32-bit multiplier. bias holds one int32 per
// output channel with the input offset folded in.
func fcInt16Acc32(p *fcParams, in []int16, w []int8, bias, mult, shift string, out []int16) {
	k := p.accumDepth
	n := p.outDepth
	for b := 0; b < p.batches; b++ {
		x := in[b*k : b*k+k]
		o := out[b*n : b*n+n]
		for c := range o {
			acc := fcDotI16Acc32(x, w[c*k:c*k+k]) + ld32(bias, c)
			acc = mulByQuantMul(acc, ld32(mult, c), int(ld32(shift, c)))
			o[c] = int16(clampI32(acc+p.outOffset, p.actMin, p.actMax))
		}
	}
}

// fcF32 is the float fully connected layer. Weights and bias are constant
// little-endian float32 strings; bias is "" when the operator has none. The
// products are summed in input order, then the bias is added, as in the
// reference, so results match it to the last bit.
func fcF32(p *fcParams, in []float32, w, bias string, out []float32) {
	k := p.accumDepth
	n := p.outDepth
	for b := 0; b < p.batches; b++ {
		x := in[b*k : b*k+k]
		o := out[b*n : b*n+n]
		for c := range o {
			row := c * k
			var total float32
			for d, xv := range x {
				total += float32(xv * ldf32(w, row+d))
			}
			var bv float32
			if len(bias) != 0 {
				bv = ldf32(bias, c)
			}
			o[c] = clampF32(total+bv, p.fActMin, p.fActMax)
		}
	}
}
