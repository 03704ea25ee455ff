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
// the float bounds and vice versa; mult, lsh, rsh and half are the
// per-tensor requantization (fcRQ) of fcInt8PT.
type fcParams struct {
	batches    int // rows of input and output
	outDepth   int // output channels (weight rows)
	accumDepth int // input channels (weight columns)
	outOffset  int32
	actMin     int32
	actMax     int32
	fActMin    float32
	fActMax    float32
	mult       int32
	lsh, rsh   uint8
	half       int32
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

// fcDot4I8 returns the int32 (wrapping) dot products of x with four weight
// rows of the same length, sharing each input load. (Too large to be
// inlined, which keeps the accumulators in registers.)
func fcDot4I8(x, w0, w1, w2, w3 []int8) (a0, a1, a2, a3 int32) {
	n := len(x)
	w0, w1, w2, w3 = w0[:n], w1[:n], w2[:n], w3[:n]
	i := 0
	for ; i+2 <= n; i += 2 {
		u, v := int32(x[i]), int32(x[i+1])
		a0 += u*int32(w0[i]) + v*int32(w0[i+1])
		a1 += u*int32(w1[i]) + v*int32(w1[i+1])
		a2 += u*int32(w2[i]) + v*int32(w2[i+1])
		a3 += u*int32(w3[i]) + v*int32(w3[i+1])
	}
	if i < n {
		u := int32(x[i])
		a0 += u * int32(w0[i])
		a1 += u * int32(w1[i])
		a2 += u * int32(w2[i])
		a3 += u * int32(w3[i])
	}
	return a0, a1, a2, a3
}

// fcOutI8 finishes output channel c: adds the folded bias of record c of
// rq, requantizes, adds the output zero point and clamps.
func fcOutI8(p *fcParams, acc int32, rq string, c int) int8 {
	bias, q := fcRecord(rq, c)
	v := fcRescale(acc+bias, q) + p.outOffset
	return int8(min(max(v, p.actMin), p.actMax))
}

// fcInt8 is the int8 fully connected layer with int8 weights (per-tensor or
// per-channel). rq holds one fcRecord per output channel: the bias with the
// input offset folded in and the channel's requantization. Four output
// channels are computed per pass over the input row.
func fcInt8(p *fcParams, in, w []int8, rq string, out []int8) {
	k := p.accumDepth
	n := p.outDepth
	for b := 0; b < p.batches; b++ {
		x := in[b*k : b*k+k]
		o := out[b*n : b*n+n]
		c := 0
		for ; c+4 <= len(o); c += 4 {
			ws := w[c*k : c*k+4*k]
			a0, a1, a2, a3 := fcDot4I8(x, ws[:k], ws[k:2*k], ws[2*k:3*k], ws[3*k:])
			o[c] = fcOutI8(p, a0, rq, c)
			o[c+1] = fcOutI8(p, a1, rq, c+1)
			o[c+2] = fcOutI8(p, a2, rq, c+2)
			o[c+3] = fcOutI8(p, a3, rq, c+3)
		}
		for ; c < len(o); c++ {
			o[c] = fcOutI8(p, fcDotI8(x, w[c*k:c*k+k]), rq, c)
		}
	}
}

// fcInt8PT is fcInt8 for per-tensor quantized weights: one requantization
// for all channels (in p), and bias holds one int32 per output channel with
// the input offset folded in.
func fcInt8PT(p *fcParams, in, w []int8, bias string, out []int8) {
	k := p.accumDepth
	n := p.outDepth
	q := fcRQ{mult: p.mult, lsh: p.lsh, rsh: p.rsh, half: p.half}
	zp, lo, hi := p.outOffset, p.actMin, p.actMax
	bias = bias[:4*n]
	for b := 0; b < p.batches; b++ {
		x := in[b*k : b*k+k]
		o := out[b*n : b*n+n]
		c := 0
		for ; c+4 <= len(o); c += 4 {
			ws := w[c*k : c*k+4*k]
			a0, a1, a2, a3 := fcDot4I8(x, ws[:k], ws[k:2*k], ws[2*k:3*k], ws[3*k:])
			oo := o[c : c+4 : c+4]
			oo[0] = int8(min(max(fcRescale(a0+ld32(bias, c), q)+zp, lo), hi))
			oo[1] = int8(min(max(fcRescale(a1+ld32(bias, c+1), q)+zp, lo), hi))
			oo[2] = int8(min(max(fcRescale(a2+ld32(bias, c+2), q)+zp, lo), hi))
			oo[3] = int8(min(max(fcRescale(a3+ld32(bias, c+3), q)+zp, lo), hi))
		}
		for ; c < len(o); c++ {
			acc := fcDotI8(x, w[c*k:c*k+k]) + ld32(bias, c)
			o[c] = int8(min(max(fcRescale(acc, q)+zp, lo), hi))
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
