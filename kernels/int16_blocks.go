package kernels

import (
	"encoding/binary"
	"unsafe"
)

// The 16x8 convolution and fully connected layer with a 64-bit accumulator,
// for cores without the DSP loop's records (gc builds, and layers whose
// requantization the records do not take). The weights are packed at
// generation time in blocks of four output channels: per block, per input
// value (the window's taps in [fy][fx][c] order for a convolution), the
// four channels' int8 weights side by side; the last block is padded with
// zero channels. Each input value is loaded once for four channels, with no
// 64-bit arithmetic in the loop.

// dot4I16 adds to s the dot products of rows runs of n input values, the
// runs xStride values apart in x, with the four channels of w, laid out
// [i][4] (w[4*i+c] is channel c's weight for the run's value i) with the
// runs wStride bytes apart. A product is at most 2^22 in magnitude, so
// runs of 256 products are summed in int32 (dot4Run) and only their sums
// are widened: the result equals a plain 64-bit sum. A convolution calls
// it once per block of channels and output pixel, for every window row at
// once.
func dot4I16(x []int16, rows, n, xStride int, w string, wStride int, s *[4]int64) {
	if rows <= 0 || n <= 0 {
		return
	}
	// One bounds check a call; dot4Run reads through unsafe.Add.
	_ = x[(rows-1)*xStride+n-1]
	_ = w[(rows-1)*wStride+4*n-1]
	px, pw := unsafe.Pointer(unsafe.SliceData(x)), unsafe.Pointer(unsafe.StringData(w))
	var a [4]int32
	sum := 0 // products in a
	for r := range rows {
		xo, wo := 2*r*xStride, r*wStride // byte offsets of the run
		for left := n; left > 0; {
			m := min(left, 256)
			if sum+m > 256 {
				s[0], s[1], s[2], s[3] = s[0]+int64(a[0]), s[1]+int64(a[1]), s[2]+int64(a[2]), s[3]+int64(a[3])
				a, sum = [4]int32{}, 0
			}
			dot4Run(unsafe.Add(px, xo), unsafe.Add(pw, wo), m, &a)
			sum, left = sum+m, left-m
			xo, wo = xo+2*m, wo+4*m
		}
	}
	s[0], s[1], s[2], s[3] = s[0]+int64(a[0]), s[1]+int64(a[1]), s[2]+int64(a[2]), s[3]+int64(a[3])
}

// dot4Run adds to a the dot products of the m (> 0) int16 values at x with
// the four channels' int8 weights at w ([m][4]), two values a step,
// wrapping in int32 (dot4I16 keeps m at most 256 a sum). Not inlined: with few
// values live, gc keeps the sums, the pointers and the index in registers.
//
//go:noinline
func dot4Run(x, w unsafe.Pointer, m int, a *[4]int32) {
	a0, a1, a2, a3 := a[0], a[1], a[2], a[3]
	if m%2 != 0 {
		u := int32(*(*int16)(x))
		q := (*[4]int8)(w)
		a0 += u * int32(q[0])
		a1 += u * int32(q[1])
		a2 += u * int32(q[2])
		a3 += u * int32(q[3])
		if m == 1 {
			a[0], a[1], a[2], a[3] = a0, a1, a2, a3
			return
		}
		x, w = unsafe.Add(x, 2), unsafe.Add(w, 4)
	}
	// The pointers step only when another pair follows: they never point
	// past the run.
	for h := m / 2; ; {
		p, q := (*[2]int16)(x), (*[8]int8)(w)
		u, v := int32(p[0]), int32(p[1])
		// One multiply-accumulate a statement: gc then emits MLA for
		// each (u*a + v*b is a MUL, an MLA and an ADD).
		a0 += u * int32(q[0])
		a1 += u * int32(q[1])
		a2 += u * int32(q[2])
		a3 += u * int32(q[3])
		a0 += v * int32(q[4])
		a1 += v * int32(q[5])
		a2 += v * int32(q[6])
		a3 += v * int32(q[7])
		if h--; h == 0 {
			break
		}
		x, w = unsafe.Add(x, 4), unsafe.Add(w, 8)
	}
	a[0], a[1], a[2], a[3] = a0, a1, a2, a3
}

// int16RecLen is the bytes of a channel's record for the 16x8 block
// kernels: its int64 bias (the input offset folded in), then TFLite
// Micro's 64-bit rescaling planned (mulByQuantMul64): the multiplier
// reduced to 16 bits and the right shift, int32 each, little-endian.
const int16RecLen = 16

// finish4I16 requantizes the sums of channels c.. (at most four, and no more
// than len(out)) with their records as TFLite Micro's 16x8 kernels do
// (mulByQuantMul64: the low 32 bits of (sum*reduced + 2^(total-1)) >>
// total), adds the output offset and clamps. The shift is done on the two
// 32-bit halves: a 64-bit shift by a variable amount is a long sequence
// on a 32-bit core.
func finish4I16(s *[4]int64, c int, rec string, offset, lo, hi int32, out []int16) {
	for j := range min(4, len(out)) {
		t := rec[int16RecLen*(c+j) : int16RecLen*(c+j)+int16RecLen]
		acc := s[j] + int64(uint64(uint32(ld32(t, 0)))|uint64(uint32(ld32(t, 1)))<<32)
		total := uint32(ld32(t, 3))
		x := uint64(acc*int64(ld32(t, 2))) + uint64(1)<<(total-1)
		xl, xh := uint32(x), uint32(x>>32)
		var v int32
		if total < 32 {
			v = int32(xl>>total | xh<<(32-total))
		} else {
			v = int32(xh) >> (total - 32)
		}
		out[j] = int16(clampI32(v+offset, lo, hi))
	}
}

// int16BlocksPlan returns the records (int16RecLen bytes a channel) of
// channels with int64 biases (nil: none) and TFLite Micro multipliers and
// exponents (exponent < 8), and the weights rows (one per channel, all of
// one length) packed in blocks of four channels, [k][4] int8 a block, the
// last block padded with zero channels.
func int16BlocksPlan(rows [][]int8, bias []int64, mult, shift []int32) (wt, rec []byte) {
	for j := range mult {
		var b int64
		if bias != nil {
			b = bias[j]
		}
		reduced := int32(0x7FFF)
		if mult[j] < 0x7FFF0000 {
			reduced = (mult[j] + 1<<15) >> 16
		}
		rec = binary.LittleEndian.AppendUint64(rec, uint64(b))
		rec = binary.LittleEndian.AppendUint32(rec, uint32(reduced))
		rec = binary.LittleEndian.AppendUint32(rec, uint32(15-shift[j]))
	}
	if len(rows) == 0 {
		return nil, rec
	}
	k := len(rows[0])
	wt = make([]byte, 4*k*((len(rows)+3)/4))
	for ch, r := range rows {
		blk := wt[ch/4*4*k:]
		for i, v := range r {
			blk[4*i+ch%4] = byte(v)
		}
	}
	return wt, rec
}

// fcInt16Blocks is fcInt16 on weights packed in blocks of four channels
// ([k][4] int8 a block): each channel's bias with the input offset folded
// in, and its requantization: one int16RecLen record a
// channel in rec.
func fcInt16Blocks(p *fcParams, in []int16, w, rec string, out []int16) {
	k, n := p.accumDepth, p.outDepth
	for b := 0; b < p.batches; b++ {
		x := in[b*k : b*k+k]
		o := out[b*n : b*n+n]
		for c := 0; c < n; c += 4 {
			var s [4]int64
			dot4I16(x, 1, k, 0, w[c*k:c*k+4*k], 0, &s)
			finish4I16(&s, c, rec, p.outOffset, p.actMin, p.actMax, o[c:])
		}
	}
}

// convInt16Blocks is convInt16 for an ungrouped convolution on weights
// packed in blocks of four output channels ([fy][fx][c][4] int8 a block)
// and one int16RecLen record a channel in rec. Without horizontal dilation
// the window rows the image covers are runs of values: one dot4I16 call a
// block of channels and output pixel; padding taps are skipped (the input
// offset is 0).
func convInt16Blocks(p *convParams, in []int16, w, rec string, out []int16) {
	cin := p.inC
	inRow := p.inW * cin
	inImg := p.inH * inRow
	fRow := p.filterW * cin
	kb := 4 * p.filterH * fRow
	o := 0
	for b := 0; b < p.batches; b++ {
		img := in[b*inImg : (b+1)*inImg]
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			fy0, fy1 := convTaps(iy0, p.dilationH, p.filterH, p.inH)
			for ox := 0; ox < p.outW; ox++ {
				ix0 := ox*p.strideW - p.padW
				fx0, fx1 := convTaps(ix0, p.dilationW, p.filterW, p.inW)
				for c := 0; c < p.outC; c += 4 {
					wb := w[c/4*kb : c/4*kb+kb]
					var s [4]int64
					if fy1 <= fy0 || fx1 <= fx0 {
						// The window is all padding: the sums stay 0.
					} else if p.dilationW == 1 {
						// Every window row at once: its taps fx0..fx1-1
						// are one run of values.
						at := (iy0+fy0*p.dilationH)*inRow + (ix0+fx0)*cin
						dot4I16(img[at:], fy1-fy0, (fx1-fx0)*cin, p.dilationH*inRow, wb[4*(fy0*fRow+fx0*cin):], 4*fRow, &s)
					} else {
						for fy := fy0; fy < fy1; fy++ {
							rowIn := (iy0 + fy*p.dilationH) * inRow
							for fx := fx0; fx < fx1; fx++ {
								dot4I16(img[rowIn+(ix0+fx*p.dilationW)*cin:], 1, cin, 0, wb[4*(fy*fRow+fx*cin):], 0, &s)
							}
						}
					}
					m := min(4, p.outC-c)
					finish4I16(&s, c, rec, 0, p.actMin, p.actMax, out[o:o+m])
					o += m
				}
			}
		}
	}
}
