package kernels

import (
	"math"
	"math/bits"
	"unsafe"
)

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
	bias4      bool // fcOctInt8PT: bias holds four copies, one word-aligned (strAligned4)
}

// Packed int8 weights. The int8 kernels take their weight matrix
// [outDepth, accumDepth] re-laid-out at generation time (gen/lower_fc.go,
// fcPackI8) so that one pass over an input row serves four output channels
// with a single weight stream:
//
//   - channels are grouped in blocks of 4, the last block padded with zero
//     rows whose results are dropped;
//   - a block stores its weights four inputs at a time, [k/4][4][4]
//     (channel r's weights for inputs 4i..4i+3 side by side), followed by
//     [k%4][4] for the remaining inputs;
//   - every weight is stored as the byte w+128, so the loads need no sign
//     extension. The kernels subtract 128*sum(x) once per input row.

// fcSumI8 returns the sum of x (exact: len(x) < 2^24). Eight values at a
// time are biased to unsigned bytes (x+128) and added in four 16-bit lanes
// of a uint64, which cannot overflow within 128 steps.
func fcSumI8(x []int8) int32 {
	if bits.UintSize == 32 {
		// 32-bit cores: one load and one add per value (the 64-bit lanes
		// below cost more there), out of line, so that the caller's
		// registers do not spill into its loop.
		return sumI8(x)
	}
	n := len(x) / 8
	var s uint32 // sum of x+128
	if n > 0 {
		x8 := unsafe.Slice((*[8]uint8)(unsafe.Pointer(unsafe.SliceData(x))), n)
		for len(x8) > 0 {
			m := min(len(x8), 128)
			var acc uint64
			for i := range x8[:m] {
				v := le64(&x8[i]) ^ 0x8080808080808080
				acc += v&0x00FF00FF00FF00FF + v>>8&0x00FF00FF00FF00FF
			}
			s += uint32(acc&0xFFFF + acc>>16&0xFFFF + acc>>32&0xFFFF + acc>>48)
			x8 = x8[m:]
		}
	}
	for _, v := range x[8*n:] {
		s += uint32(int32(v) + 128)
	}
	return int32(s) - 128*int32(len(x))
}

// fcChunk is how many channels the int8 kernels compute per pass over the
// input row (a multiple of 4): their raw sums go to a stack array, then
// are finished together.
const fcChunk = 32

// fcDots stores in acc the dot products of x with len(acc)/4 consecutive
// packed 4-channel blocks of w (layout above), wrapping in int32. The input
// and the weights are viewed as arrays of 4 and 16 bytes, so the inner loop
// needs no bounds checks.
func fcDots(x []int8, w string, acc []int32) {
	k := len(x)
	n := k / 4
	x4 := unsafe.Slice((*[4]int8)(unsafe.Pointer(unsafe.SliceData(x))), n)
	xt := x[4*n:]
	for len(acc) >= 4 && len(w) >= 4*k {
		var a0, a1, a2, a3 int32
		if n > 0 {
			w16 := unsafe.Slice((*[16]uint8)(unsafe.Pointer(unsafe.StringData(w))), n)
			for i := range x4 {
				xx, q := &x4[i], &w16[i]
				x0, x1, x2, x3 := int32(xx[0]), int32(xx[1]), int32(xx[2]), int32(xx[3])
				a0 += x0*int32(q[0]) + x1*int32(q[1]) + x2*int32(q[2]) + x3*int32(q[3])
				a1 += x0*int32(q[4]) + x1*int32(q[5]) + x2*int32(q[6]) + x3*int32(q[7])
				a2 += x0*int32(q[8]) + x1*int32(q[9]) + x2*int32(q[10]) + x3*int32(q[11])
				a3 += x0*int32(q[12]) + x1*int32(q[13]) + x2*int32(q[14]) + x3*int32(q[15])
			}
		}
		wt := w[16*n : 4*k]
		for i, v := range xt {
			q := wt[4*i : 4*i+4]
			u := int32(v)
			a0 += u * int32(q[0])
			a1 += u * int32(q[1])
			a2 += u * int32(q[2])
			a3 += u * int32(q[3])
		}
		acc[0], acc[1], acc[2], acc[3] = a0, a1, a2, a3
		acc, w = acc[4:], w[4*k:]
	}
}

// fcInt8 is the int8 fully connected layer with int8 weights (per-tensor or
// per-channel), packed as described above. rq holds one fcRQRecordLen-byte
// record per output channel: the bias with the input offset folded in and
// the channel's requantization.
func fcInt8(p *fcParams, in []int8, w, rq string, out []int8) {
	k, n := p.accumDepth, p.outDepth
	var acc [fcChunk]int32
	for b := 0; b < p.batches; b++ {
		x := in[b*k : b*k+k]
		o := out[b*n : b*n+n]
		corr := -128 * fcSumI8(x)
		for c := 0; c < n; c += fcChunk {
			m := min(fcChunk, n-c)
			mb := (m + 3) &^ 3
			fcDots(x, w[c*k:(c+mb)*k], acc[:mb])
			fcOutPC(p, acc[:m], corr, rq[fcRQRecordLen*c:], o[c:c+m])
		}
	}
}

// fcOutPC finishes a chunk of channels from their raw dot products acc: adds corr and the folded bias of the channel's record in rq,
// requantizes, adds the output zero point and clamps.
func fcOutPC(p *fcParams, acc []int32, corr int32, rq string, o []int8) {
	o = o[:len(acc)]
	rq = rq[:fcRQRecordLen*len(acc)]
	zp, lo, hi := p.outOffset, p.actMin, p.actMax
	for r, v := range acc {
		t := rq[fcRQRecordLen*r : fcRQRecordLen*r+fcRQRecordLen]
		q := fcMakeRQ(
			int32(uint32(t[4])|uint32(t[5])<<8|uint32(t[6])<<16|uint32(t[7])<<24),
			int32(uint32(t[8])|uint32(t[9])<<8|uint32(t[10])<<16|uint32(t[11])<<24),
			t[12], t[13])
		bias := int32(uint32(t[0]) | uint32(t[1])<<8 | uint32(t[2])<<16 | uint32(t[3])<<24)
		o[r] = int8(min(max(fcRescale(v+corr+bias, q)+zp, lo), hi))
	}
}

// fcInt8PT is fcInt8 for per-tensor quantized weights: one requantization
// for all channels (in p), and bias holds one int32 per output channel with
// the input offset folded in.
func fcInt8PT(p *fcParams, in []int8, w, bias string, out []int8) {
	k, n := p.accumDepth, p.outDepth
	var acc [fcChunk]int32
	for b := 0; b < p.batches; b++ {
		x := in[b*k : b*k+k]
		o := out[b*n : b*n+n]
		corr := -128 * fcSumI8(x)
		for c := 0; c < n; c += fcChunk {
			m := min(fcChunk, n-c)
			mb := (m + 3) &^ 3
			fcDots(x, w[c*k:(c+mb)*k], acc[:mb])
			fcOutPT(p, acc[:m], corr, bias[4*c:], o[c:c+m])
		}
	}
}

// fcOutPT is fcOutPC with p's per-tensor requantization and bias holding
// one int32 per channel.
func fcOutPT(p *fcParams, acc []int32, corr int32, bias string, o []int8) {
	o = o[:len(acc)]
	bias = bias[:4*len(acc)]
	q := fcMakeRQ(p.mult, p.half, p.lsh, p.rsh)
	zp, lo, hi := p.outOffset, p.actMin, p.actMax
	for r, v := range acc {
		t := bias[4*r : 4*r+4]
		v += corr + int32(uint32(t[0])|uint32(t[1])<<8|uint32(t[2])<<16|uint32(t[3])<<24)
		o[r] = int8(min(max(fcRescale(v, q)+zp, lo), hi))
	}
}

// fcDotI16 returns the 64-bit dot product of int16 activations and int8
// weights. A product is at most 2^22 in magnitude, so blocks of 256 are
// summed in int32 (cheap on 32-bit targets) and only block sums are
// widened; the result equals a plain 64-bit sum. Not inlined: inlined
// into fcInt16's loops, gc's A32 code kept the block sum and the index on
// the stack (16 instructions a multiply-accumulate, 8 on its own).
//
//go:noinline
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

// fcF32 is the float fully connected layer. The weights are packed at
// generation time (gen/lower_fc.go, fcPackF32) in blocks of four channels,
// [k][4] little-endian float32 values per block, the last block padded with
// zero rows; bias holds one float32 per channel, or is "" when the
// operator has none. Each channel's products are summed in input order and
// the bias is added last, as in the reference, so results match it to the
// last bit; the four channels of a block are independent sums.
//
// The weight string's alignment is looked at once per call (see
// f32StrOff): word-aligned (or on a target that loads unaligned floats) it
// is viewed as float32 (f32ViewRow); on 32-bit targets otherwise the aligned
// words that cover it are read once and every float is shifted together
// from two neighbours, the carry running from block to block (f32FunnelRow);
// elsewhere the bytes are decoded (which 64-bit compilers merge into word
// loads). A last block of one channel computes only that channel. For
// layers of fcSoftMinDepth and deeper the generator calls fcF32S, for small
// ones on the soft-float board fcF32Small. Where words load from any
// address (f32WordLoads: gc for ARMv6 and later on Linux), a misaligned
// weight or bias string is read a word at a time from its own address
// (f32WordRow) instead of through the funnel.
func fcF32(p *fcParams, in []float32, w, bias string, out []float32) {
	k, n, nbat := p.accumDepth, p.outDepth, p.batches
	if k <= 0 || n <= 0 || nbat <= 0 {
		return
	}
	words := f32WordLoads && (f32StrOff(w) != 0 || len(bias) != 0 && f32StrOff(bias) != 0)
	nb := (n + 3) / 4
	w = w[:16*k*nb]
	in, out = in[:k*nbat], out[:n*nbat]
	// Without a bias, pb walks beside the outputs, never read (a pointer
	// near nil on the stack would stop gc's stack copying).
	pb := unsafe.Pointer(unsafe.SliceData(out))
	var c, e, sl, sr, mode uint32
	if len(bias) != 0 {
		bias = bias[:4*n]
		pb, mode = unsafe.Pointer(unsafe.StringData(bias)), 1
		if off := f32StrOff(bias); off != 0 && !f32Unaligned && !words {
			if !f32Funnel {
				fcF32B(p, in, w, bias, out)
				return
			}
			c, e = f32Ends(bias, off)
			sl, sr = 8*off, 32-8*off
			pb, mode = unsafe.Add(pb, 4-off), 2
		}
	}
	pw := unsafe.Pointer(unsafe.StringData(w))
	var t *[3]uint32
	var wc, we, wsl, wsr uint32
	off := f32StrOff(w)
	view := off == 0 || f32Unaligned
	if !view && !words {
		if !f32Funnel {
			fcF32B(p, in, w, bias, out)
			return
		}
		// len(w)/4-1 words lie inside w: k*nb-1 whole groups from pw on
		// and three more (t).
		wc, we = f32Ends(w, off)
		wsl, wsr = 8*off, 32-8*off
		pw = unsafe.Add(pw, 4-off)
		t = (*[3]uint32)(unsafe.Add(pw, len(w)-16))
	}
	// The loops' ends (see f32FunnelRow), never before x: the last
	// element, the first of the last pair, of the pair before the last two.
	x := unsafe.Pointer(unsafe.SliceData(in))
	q2, q3 := k/2-1, (k-1)/2-1
	if q3 < 0 {
		q2, q3 = max(q2, 0), 0
	}
	// (Every field stored in one block, with no load between: gc drops
	// the struct's zeroing.)
	lo, hi := p.fActMin, p.fActMax
	var ac f32Act
	ac.x, ac.xl, ac.x2, ac.x3 = x, unsafe.Add(x, 4*(k-1)), unsafe.Add(x, 8*q2), unsafe.Add(x, 8*q3)
	ac.o, ac.pw, ac.pb, ac.t = unsafe.Pointer(unsafe.SliceData(out)), pw, pb, t
	ac.k, ac.nb, ac.m = k, nb, n-4*(nb-1)
	ac.wc, ac.we, ac.wsl, ac.wsr = wc, we, wsl, wsr
	ac.c, ac.e, ac.sl, ac.sr, ac.mode = c, e, sl, sr, mode
	ac.lo, ac.hi = lo, hi
	for {
		switch {
		case words:
			f32WordRow(&ac)
		case view:
			f32ViewRow(&ac)
		default:
			f32FunnelRow(&ac)
		}
		nbat--
		if nbat == 0 {
			return
		}
		ac.x = unsafe.Add(ac.x, 4*k)
		ac.xl = unsafe.Add(ac.xl, 4*k)
		ac.x2 = unsafe.Add(ac.x2, 4*k)
		ac.x3 = unsafe.Add(ac.x3, 4*k)
		ac.o = unsafe.Add(ac.o, 4*n)
	}
}

// fcActF32 adds the bias (one float32 per element of o, or "") to o and
// clamps it to [lo, hi]. A misaligned bias is read through the funnel on
// 32-bit targets (see f32Words), one aligned word per channel.
func fcActF32(o []float32, bias string, lo, hi float32) {
	if len(o) == 0 {
		return
	}
	if len(bias) == 0 {
		for i, v := range o {
			o[i] = v
			if v < lo {
				o[i] = lo
			} else if v > hi {
				o[i] = hi
			}
		}
		return
	}
	bias = bias[:4*len(o)]
	off := f32StrOff(bias)
	switch {
	case off == 0 || f32Unaligned:
		// Pointers walk o and bias; the clamp stores the bound over the
		// sum (through clampF32 or with a float phi, gc for ARM moves and
		// reloads the bounds on every element).
		pb := unsafe.Pointer(unsafe.StringData(bias))
		po := unsafe.Pointer(unsafe.SliceData(o))
		ol := unsafe.Add(po, 4*(len(o)-1)) // the last element
		for {
			v := *(*float32)(po) + *(*float32)(pb)
			*(*float32)(po) = v
			if v < lo {
				*(*float32)(po) = lo
			} else if v > hi {
				*(*float32)(po) = hi
			}
			if po == ol {
				break
			}
			po = unsafe.Add(po, 4)
			pb = unsafe.Add(pb, 4)
		}
	case f32Funnel:
		// Pointers walk o and the aligned words inside bias (one fewer
		// than o's elements: the last element's bias ends with e); the
		// clamp as above.
		c, e := f32Ends(bias, off)
		sl, sr := (8*off)&31, (32-8*off)&31
		pb := unsafe.Add(unsafe.Pointer(unsafe.StringData(bias)), 4-off)
		po := unsafe.Pointer(unsafe.SliceData(o))
		ol := unsafe.Add(po, 4*(len(o)-1)) // the last element
		for po != ol {
			r := *(*uint32)(pb)
			v := *(*float32)(po) + math.Float32frombits(c|r<<sr)
			*(*float32)(po) = v
			if v < lo {
				*(*float32)(po) = lo
			} else if v > hi {
				*(*float32)(po) = hi
			}
			c = r >> sl
			po = unsafe.Add(po, 4)
			pb = unsafe.Add(pb, 4) // (at most to the last word's bytes)
		}
		*(*float32)(ol) = clampF32(*(*float32)(ol)+math.Float32frombits(c|e<<sr), lo, hi)
	default:
		for i, v := range o {
			o[i] = clampF32(v+ldf32(bias, i), lo, hi)
		}
	}
}

// fcSmallWeights is the most weights (outputs times inputs) of a float
// layer the generator gives fcF32Small on the soft-float board.
const fcSmallWeights = 1024

// fcF32Small is fcF32 for small layers (fcSmallWeights weights or fewer,
// chosen by the generator for the soft-float board): the same packed
// weights, the same sums in the same order, the bias added last and the
// same clamp, one channel at a time with each weight decoded from its
// bytes (one word load on the Cortex-M, at any alignment). Where float32 is
// emulated the arithmetic dominates the loads, and the code is a fraction
// of fcF32's (its unrolled rows read aligned and misaligned weights
// differently).
func fcF32Small(p *fcParams, in []float32, w, bias string, out []float32) {
	k, n := p.accumDepth, p.outDepth
	if k <= 0 || n <= 0 || p.batches <= 0 {
		return
	}
	w = w[:16*k*((n+3)/4)]
	lo, hi := p.fActMin, p.fActMax
	for b := 0; b < p.batches; b++ {
		x := in[b*k : b*k+k]
		o := out[b*n : b*n+n]
		for c := range o {
			// Weight (c, i) is the float at 16*k*(c/4) + 4*(c%4) + 16*i
			// bytes: its block's row i, lane c%4 (inside w, sliced above).
			pw := unsafe.Add(unsafe.Pointer(unsafe.StringData(w)), 16*k*(c/4)+4*(c%4))
			var a float32
			for _, v := range x {
				q := (*[4]byte)(pw)
				a += float32(v * math.Float32frombits(uint32(q[0])|uint32(q[1])<<8|uint32(q[2])<<16|uint32(q[3])<<24))
				pw = unsafe.Add(pw, 16)
			}
			if len(bias) != 0 {
				a += ldf32(bias, c)
			}
			o[c] = clampF32(a, lo, hi)
		}
	}
}

// fcF32B is fcF32 decoding the weights' bytes (64-bit targets that do not
// load unaligned floats, where the compiler merges the loads).
func fcF32B(p *fcParams, in []float32, w, bias string, out []float32) {
	k, n := p.accumDepth, p.outDepth
	lo, hi := p.fActMin, p.fActMax
	for b := 0; b < p.batches; b++ {
		x := in[b*k : b*k+k]
		o := out[b*n : b*n+n]
		for ch := 0; ch < n; ch += 4 {
			a0, a1, a2, a3 := f32DotStr4(x, w[16*k*(ch/4):16*k*(ch/4+1)])
			f32Store4(o[ch:], a0, a1, a2, a3)
		}
		fcActF32(o, bias, lo, hi)
	}
}
