package kernels

import "unsafe"

// Int8 DEPTHWISE_CONV_2D with a 3x3 filter, no dilation and horizontal
// stride 1 or 2, without scratch memory, for 32-bit cores. With depth
// multiplier 1, six (or four, or three) horizontally adjacent output pixels
// of a channel are computed together (dw3x3Hex1 ... dw3x3Tri2), row by
// filter row, each product one int32 multiply-add (MLA on ARM): the three
// weights of a filter row are loaded once per block and each input value
// once per block. One input channel with a depth multiplier above 1 runs
// dw3x3Mult. Sums are requantized by dwRQFast (one 32x32->64 multiply) and
// clamped without branches (dwClamp) where the requantization allows it,
// else by convRQ32.
//
// Taps in the padding read zrow, a constant row of the input zero point;
// the folded bias (conv_rq.go, bias - zp*sum of the channel's weights)
// cancels them, so every sum is TFLM's int32 accumulator, wrapping alike.

// dw3x3Params describes a 3x3 depthwise convolution without dilation:
// depth multiplier 1, or one input channel.
type dw3x3Params struct {
	batches          int
	inH, inW, chans  int // chans: input channels
	mult             int // depth multiplier (0 means 1)
	outH, outW       int
	strideH, strideW int   // strideW is 1 or 2
	padH, padW       int   // padding before the first row / column
	outOffset        int32 // output zero point
	actMin, actMax   int32 // quantized activation bounds
}

// dw3x3BiasMax bounds the folded biases that dwRQFast takes: |acc + bias|
// < 2^29 with |acc| <= 9*128*128.
const dw3x3BiasMax = 1<<29 - 147456

// dw3x3Seg bounds the output pixels of a segment of dw3x3Mult (a multiple
// of its blocks of six).
const dw3x3Seg = 36

// dw3x3Int8 runs the convolution. w holds the weights by output channel,
// the nine taps of channel k (row by row) at 9k; zrow is chans bytes of the
// input zero point; rq holds the requantization triples (conv_rq.go) with
// the bias folded for input offset -zp; scr is dw3x3Scratch words of
// scratch for dw3x3ChainInt8. With a depth multiplier above 1 (one input
// channel) it runs dw3x3Mult.
func dw3x3Int8(p *dw3x3Params, in []int8, w, zrow, rq string, scr []int32, out []int8) {
	if p.mult > 1 {
		dw3x3Mult(p, in, w, zrow, rq, out)
		return
	}
	C := p.chans
	w9 := unsafe.Slice((*[9]int8)(unsafe.Pointer(unsafe.StringData(w))), len(w)/9)
	w9 = w9[:C]
	z := constI8(zrow)
	z = z[:C]
	rq = rq[:12*C]
	if dw3x3ChainInt8(p, in, w9, z, rq, scr, out) {
		return
	}
	img := p.inH * p.inW * C
	bw := dw3x3BlockWidth(p.outW)
	nc := (bw-1)*p.strideW + 3 // input columns of a block
	// One array per window row: each stays within TinyGo's stack limit.
	var c0, c1, c2 dw3x3Col
	for b := 0; b < p.batches; b++ {
		x := in[b*img : b*img+img]
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			o := out[(b*p.outH+oy)*p.outW*C : (b*p.outH+oy+1)*p.outW*C]
			for ox := 0; ox < p.outW; ox += bw {
				ix0 := ox*p.strideW - p.padW
				dw3x3Fill(&c0, x, z, iy0, ix0, nc, p)
				dw3x3Fill(&c1, x, z, iy0+1, ix0, nc, p)
				dw3x3Fill(&c2, x, z, iy0+2, ix0, nc, p)
				n := min(bw, p.outW-ox)
				switch {
				case n <= 3 && p.strideW == 1:
					// A row's last block of three or fewer pixels.
					dw3x3Tri1(&c0, &c1, &c2, w9, rq, p, n, o[ox*C:])
				case n <= 3:
					dw3x3Tri2(&c0, &c1, &c2, w9, rq, p, n, o[ox*C:])
				case bw == 6 && p.strideW == 1:
					dw3x3Hex1(&c0, &c1, &c2, w9, rq, p, n, o[ox*C:])
				case bw == 6:
					dw3x3Hex2(&c0, &c1, &c2, w9, rq, p, n, o[ox*C:])
				case bw == 4 && p.strideW == 1:
					dw3x3Quad1(&c0, &c1, &c2, w9, rq, p, n, o[ox*C:])
				case bw == 4:
					dw3x3Quad2(&c0, &c1, &c2, w9, rq, p, n, o[ox*C:])
				case p.strideW == 1:
					dw3x3Tri1(&c0, &c1, &c2, w9, rq, p, n, o[ox*C:])
				default:
					dw3x3Tri2(&c0, &c1, &c2, w9, rq, p, n, o[ox*C:])
				}
			}
		}
	}
}

// dw3x3BlockWidth is the block width of dw3x3Int8 for rows of outW
// pixels: six when that divides the row, else four, or three where that
// leaves no pixel slot idle and four would.
func dw3x3BlockWidth(outW int) int {
	switch {
	case outW%6 == 0:
		return 6
	case outW%4 != 0 && outW%3 == 0:
		return 3
	}
	return 4
}

// dw3x3Col holds, for the block kernels, the channels of each input
// column of a block in one window row (at most 13 columns: six pixels,
// stride 2).
type dw3x3Col [13][]int8

// dw3x3Fill points the first nc columns of c at the input columns ix0...
// of row iy of x, or at the zero point z for columns or a row in the
// padding.
func dw3x3Fill(c *dw3x3Col, x, z []int8, iy, ix0, nc int, p *dw3x3Params) {
	C := p.chans
	cr := c[:nc]
	if iy < 0 || iy >= p.inH {
		for k := range cr {
			cr[k] = z
		}
		return
	}
	q := (iy*p.inW + ix0) * C
	if ix0 >= 0 && ix0+nc <= p.inW {
		// All inside: consecutive columns.
		for k := range cr {
			cr[k] = x[q : q+C : q+C]
			q += C
		}
		return
	}
	for k := range cr {
		if ix := ix0 + k; ix >= 0 && ix < p.inW {
			cr[k] = x[q : q+C : q+C]
		} else {
			cr[k] = z
		}
		q += C
	}
}

// dw3x3FastN is the bound of uint32(-sh-1) below which shifts sh take
// dwRQFast (-21..-1, when dwRQFast can add zo).
func dw3x3FastN(zo int32) uint32 {
	if zo >= -128 && zo <= 128 {
		return 21
	}
	return 0
}

// dw3x3Hex1 computes six output pixels (the first n of them are stored)
// of every channel with horizontal stride 1: c0, c1 and c2 hold, for window rows 0-2, at [k] the
// channels of window row fy, input column k of the 8 the pixels read;
// out starts at the first pixel's first channel.
//
//go:noinline
func dw3x3Hex1(c0, c1, c2 *dw3x3Col, w [][9]int8, rq string, p *dw3x3Params, n int, out []int8) {
	C := len(w)
	zo, lo, hi := p.outOffset, p.actMin, p.actMax
	fastN := dw3x3FastN(zo)
	rq = rq[:12*C]
	// ok is pixel k of the block (pixels past n alias pixel n-1).
	o0 := out[:C]
	o1 := out[min(1, n-1)*C:][:C]
	o2 := out[min(2, n-1)*C:][:C]
	o3 := out[min(3, n-1)*C:][:C]
	o4 := out[min(4, n-1)*C:][:C]
	o5 := out[min(5, n-1)*C:][:C]
	x00 := c0[0][:C]
	x01 := c0[1][:C]
	x02 := c0[2][:C]
	x03 := c0[3][:C]
	x04 := c0[4][:C]
	x05 := c0[5][:C]
	x06 := c0[6][:C]
	x07 := c0[7][:C]
	x10 := c1[0][:C]
	x11 := c1[1][:C]
	x12 := c1[2][:C]
	x13 := c1[3][:C]
	x14 := c1[4][:C]
	x15 := c1[5][:C]
	x16 := c1[6][:C]
	x17 := c1[7][:C]
	x20 := c2[0][:C]
	x21 := c2[1][:C]
	x22 := c2[2][:C]
	x23 := c2[3][:C]
	x24 := c2[4][:C]
	x25 := c2[5][:C]
	x26 := c2[6][:C]
	x27 := c2[7][:C]
	for c := range w {
		wc := &w[c]
		var a0, a1, a2, a3, a4, a5, x, u0, u1, u2 int32
		u0, u1, u2 = int32(wc[0]), int32(wc[1]), int32(wc[2])
		a0 = int32(x00[c]) * u0
		x = int32(x01[c])
		a0 += x * u1
		a1 = x * u0
		x = int32(x02[c])
		a0 += x * u2
		a1 += x * u1
		a2 = x * u0
		x = int32(x03[c])
		a1 += x * u2
		a2 += x * u1
		a3 = x * u0
		x = int32(x04[c])
		a2 += x * u2
		a3 += x * u1
		a4 = x * u0
		x = int32(x05[c])
		a3 += x * u2
		a4 += x * u1
		a5 = x * u0
		x = int32(x06[c])
		a4 += x * u2
		a5 += x * u1
		a5 += int32(x07[c]) * u2
		u0, u1, u2 = int32(wc[3]), int32(wc[4]), int32(wc[5])
		a0 += int32(x10[c]) * u0
		x = int32(x11[c])
		a0 += x * u1
		a1 += x * u0
		x = int32(x12[c])
		a0 += x * u2
		a1 += x * u1
		a2 += x * u0
		x = int32(x13[c])
		a1 += x * u2
		a2 += x * u1
		a3 += x * u0
		x = int32(x14[c])
		a2 += x * u2
		a3 += x * u1
		a4 += x * u0
		x = int32(x15[c])
		a3 += x * u2
		a4 += x * u1
		a5 += x * u0
		x = int32(x16[c])
		a4 += x * u2
		a5 += x * u1
		a5 += int32(x17[c]) * u2
		u0, u1, u2 = int32(wc[6]), int32(wc[7]), int32(wc[8])
		a0 += int32(x20[c]) * u0
		x = int32(x21[c])
		a0 += x * u1
		a1 += x * u0
		x = int32(x22[c])
		a0 += x * u2
		a1 += x * u1
		a2 += x * u0
		x = int32(x23[c])
		a1 += x * u2
		a2 += x * u1
		a3 += x * u0
		x = int32(x24[c])
		a2 += x * u2
		a3 += x * u1
		a4 += x * u0
		x = int32(x25[c])
		a3 += x * u2
		a4 += x * u1
		a5 += x * u0
		x = int32(x26[c])
		a4 += x * u2
		a5 += x * u1
		a5 += int32(x27[c]) * u2
		r := rq[12*c : 12*c+12]
		bias := int32(uint32(r[0]) | uint32(r[1])<<8 | uint32(r[2])<<16 | uint32(r[3])<<24)
		mult2 := (uint32(r[4]) | uint32(r[5])<<8 | uint32(r[6])<<16 | uint32(r[7])<<24) << 1
		sh := int32(int8(r[8])) // the exponent is within [-31, 31]
		if uint32(-sh-1) < fastN && uint32(bias+dw3x3BiasMax) < 2*dw3x3BiasMax {
			// dwRQFast, zo in k.
			rr := uint32(-sh) & 31
			m := mult2 >> 1
			k := 1 + int32(1)<<rr + zo<<((rr+1)&31)
			mm := -int32(m) - 2
			s := (rr + 1) & 31
			a0 = dwClamp(dwRQFast(a0+bias, m, k, mm, s), lo, hi)
			a1 = dwClamp(dwRQFast(a1+bias, m, k, mm, s), lo, hi)
			a2 = dwClamp(dwRQFast(a2+bias, m, k, mm, s), lo, hi)
			a3 = dwClamp(dwRQFast(a3+bias, m, k, mm, s), lo, hi)
			a4 = dwClamp(dwRQFast(a4+bias, m, k, mm, s), lo, hi)
			a5 = dwClamp(dwRQFast(a5+bias, m, k, mm, s), lo, hi)
		} else {
			left, right := uint32(max(sh, 0))&31, uint32(max(-sh, 0))&31
			mask := uint32(1)<<right - 1
			half := mask - mask>>1 // 2^(r-1), 0 when r = 0
			neg := -min(right, 1)  // all ones when r > 0
			a0 = max(min(convRQ32(a0, bias, left, mult2, right, mask, half, neg)+zo, hi), lo)
			a1 = max(min(convRQ32(a1, bias, left, mult2, right, mask, half, neg)+zo, hi), lo)
			a2 = max(min(convRQ32(a2, bias, left, mult2, right, mask, half, neg)+zo, hi), lo)
			a3 = max(min(convRQ32(a3, bias, left, mult2, right, mask, half, neg)+zo, hi), lo)
			a4 = max(min(convRQ32(a4, bias, left, mult2, right, mask, half, neg)+zo, hi), lo)
			a5 = max(min(convRQ32(a5, bias, left, mult2, right, mask, half, neg)+zo, hi), lo)
		}
		// Descending: a pixel past n aliases pixel n-1, stored last.
		o5[c] = int8(a5)
		o4[c] = int8(a4)
		o3[c] = int8(a3)
		o2[c] = int8(a2)
		o1[c] = int8(a1)
		o0[c] = int8(a0)
	}
}

// dw3x3Hex2 computes six output pixels (the first n of them are stored)
// of every channel with horizontal stride 2: c0, c1 and c2 hold, for window rows 0-2, at [k] the
// channels of window row fy, input column k of the 13 the pixels read;
// out starts at the first pixel's first channel.
//
//go:noinline
func dw3x3Hex2(c0, c1, c2 *dw3x3Col, w [][9]int8, rq string, p *dw3x3Params, n int, out []int8) {
	C := len(w)
	zo, lo, hi := p.outOffset, p.actMin, p.actMax
	fastN := dw3x3FastN(zo)
	rq = rq[:12*C]
	// ok is pixel k of the block (pixels past n alias pixel n-1).
	o0 := out[:C]
	o1 := out[min(1, n-1)*C:][:C]
	o2 := out[min(2, n-1)*C:][:C]
	o3 := out[min(3, n-1)*C:][:C]
	o4 := out[min(4, n-1)*C:][:C]
	o5 := out[min(5, n-1)*C:][:C]
	x00 := c0[0][:C]
	x01 := c0[1][:C]
	x02 := c0[2][:C]
	x03 := c0[3][:C]
	x04 := c0[4][:C]
	x05 := c0[5][:C]
	x06 := c0[6][:C]
	x07 := c0[7][:C]
	x08 := c0[8][:C]
	x09 := c0[9][:C]
	x0a := c0[10][:C]
	x0b := c0[11][:C]
	x0c := c0[12][:C]
	x10 := c1[0][:C]
	x11 := c1[1][:C]
	x12 := c1[2][:C]
	x13 := c1[3][:C]
	x14 := c1[4][:C]
	x15 := c1[5][:C]
	x16 := c1[6][:C]
	x17 := c1[7][:C]
	x18 := c1[8][:C]
	x19 := c1[9][:C]
	x1a := c1[10][:C]
	x1b := c1[11][:C]
	x1c := c1[12][:C]
	x20 := c2[0][:C]
	x21 := c2[1][:C]
	x22 := c2[2][:C]
	x23 := c2[3][:C]
	x24 := c2[4][:C]
	x25 := c2[5][:C]
	x26 := c2[6][:C]
	x27 := c2[7][:C]
	x28 := c2[8][:C]
	x29 := c2[9][:C]
	x2a := c2[10][:C]
	x2b := c2[11][:C]
	x2c := c2[12][:C]
	for c := range w {
		wc := &w[c]
		var a0, a1, a2, a3, a4, a5, x, u0, u1, u2 int32
		u0, u1, u2 = int32(wc[0]), int32(wc[1]), int32(wc[2])
		a0 = int32(x00[c]) * u0
		a0 += int32(x01[c]) * u1
		x = int32(x02[c])
		a0 += x * u2
		a1 = x * u0
		a1 += int32(x03[c]) * u1
		x = int32(x04[c])
		a1 += x * u2
		a2 = x * u0
		a2 += int32(x05[c]) * u1
		x = int32(x06[c])
		a2 += x * u2
		a3 = x * u0
		a3 += int32(x07[c]) * u1
		x = int32(x08[c])
		a3 += x * u2
		a4 = x * u0
		a4 += int32(x09[c]) * u1
		x = int32(x0a[c])
		a4 += x * u2
		a5 = x * u0
		a5 += int32(x0b[c]) * u1
		a5 += int32(x0c[c]) * u2
		u0, u1, u2 = int32(wc[3]), int32(wc[4]), int32(wc[5])
		a0 += int32(x10[c]) * u0
		a0 += int32(x11[c]) * u1
		x = int32(x12[c])
		a0 += x * u2
		a1 += x * u0
		a1 += int32(x13[c]) * u1
		x = int32(x14[c])
		a1 += x * u2
		a2 += x * u0
		a2 += int32(x15[c]) * u1
		x = int32(x16[c])
		a2 += x * u2
		a3 += x * u0
		a3 += int32(x17[c]) * u1
		x = int32(x18[c])
		a3 += x * u2
		a4 += x * u0
		a4 += int32(x19[c]) * u1
		x = int32(x1a[c])
		a4 += x * u2
		a5 += x * u0
		a5 += int32(x1b[c]) * u1
		a5 += int32(x1c[c]) * u2
		u0, u1, u2 = int32(wc[6]), int32(wc[7]), int32(wc[8])
		a0 += int32(x20[c]) * u0
		a0 += int32(x21[c]) * u1
		x = int32(x22[c])
		a0 += x * u2
		a1 += x * u0
		a1 += int32(x23[c]) * u1
		x = int32(x24[c])
		a1 += x * u2
		a2 += x * u0
		a2 += int32(x25[c]) * u1
		x = int32(x26[c])
		a2 += x * u2
		a3 += x * u0
		a3 += int32(x27[c]) * u1
		x = int32(x28[c])
		a3 += x * u2
		a4 += x * u0
		a4 += int32(x29[c]) * u1
		x = int32(x2a[c])
		a4 += x * u2
		a5 += x * u0
		a5 += int32(x2b[c]) * u1
		a5 += int32(x2c[c]) * u2
		r := rq[12*c : 12*c+12]
		bias := int32(uint32(r[0]) | uint32(r[1])<<8 | uint32(r[2])<<16 | uint32(r[3])<<24)
		mult2 := (uint32(r[4]) | uint32(r[5])<<8 | uint32(r[6])<<16 | uint32(r[7])<<24) << 1
		sh := int32(int8(r[8])) // the exponent is within [-31, 31]
		if uint32(-sh-1) < fastN && uint32(bias+dw3x3BiasMax) < 2*dw3x3BiasMax {
			// dwRQFast, zo in k.
			rr := uint32(-sh) & 31
			m := mult2 >> 1
			k := 1 + int32(1)<<rr + zo<<((rr+1)&31)
			mm := -int32(m) - 2
			s := (rr + 1) & 31
			a0 = dwClamp(dwRQFast(a0+bias, m, k, mm, s), lo, hi)
			a1 = dwClamp(dwRQFast(a1+bias, m, k, mm, s), lo, hi)
			a2 = dwClamp(dwRQFast(a2+bias, m, k, mm, s), lo, hi)
			a3 = dwClamp(dwRQFast(a3+bias, m, k, mm, s), lo, hi)
			a4 = dwClamp(dwRQFast(a4+bias, m, k, mm, s), lo, hi)
			a5 = dwClamp(dwRQFast(a5+bias, m, k, mm, s), lo, hi)
		} else {
			left, right := uint32(max(sh, 0))&31, uint32(max(-sh, 0))&31
			mask := uint32(1)<<right - 1
			half := mask - mask>>1 // 2^(r-1), 0 when r = 0
			neg := -min(right, 1)  // all ones when r > 0
			a0 = max(min(convRQ32(a0, bias, left, mult2, right, mask, half, neg)+zo, hi), lo)
			a1 = max(min(convRQ32(a1, bias, left, mult2, right, mask, half, neg)+zo, hi), lo)
			a2 = max(min(convRQ32(a2, bias, left, mult2, right, mask, half, neg)+zo, hi), lo)
			a3 = max(min(convRQ32(a3, bias, left, mult2, right, mask, half, neg)+zo, hi), lo)
			a4 = max(min(convRQ32(a4, bias, left, mult2, right, mask, half, neg)+zo, hi), lo)
			a5 = max(min(convRQ32(a5, bias, left, mult2, right, mask, half, neg)+zo, hi), lo)
		}
		// Descending: a pixel past n aliases pixel n-1, stored last.
		o5[c] = int8(a5)
		o4[c] = int8(a4)
		o3[c] = int8(a3)
		o2[c] = int8(a2)
		o1[c] = int8(a1)
		o0[c] = int8(a0)
	}
}

// dw3x3Quad1 computes four output pixels (the first n of them are stored)
// of every channel with horizontal stride 1: c0, c1 and c2 hold, for window rows 0-2, at [k] the
// channels of window row fy, input column k of the 6 the pixels read;
// out starts at the first pixel's first channel.
//
//go:noinline
func dw3x3Quad1(c0, c1, c2 *dw3x3Col, w [][9]int8, rq string, p *dw3x3Params, n int, out []int8) {
	C := len(w)
	zo, lo, hi := p.outOffset, p.actMin, p.actMax
	fastN := dw3x3FastN(zo)
	rq = rq[:12*C]
	// ok is pixel k of the block (pixels past n alias pixel n-1).
	o0 := out[:C]
	o1 := out[min(1, n-1)*C:][:C]
	o2 := out[min(2, n-1)*C:][:C]
	o3 := out[min(3, n-1)*C:][:C]
	x00 := c0[0][:C]
	x01 := c0[1][:C]
	x02 := c0[2][:C]
	x03 := c0[3][:C]
	x04 := c0[4][:C]
	x05 := c0[5][:C]
	x10 := c1[0][:C]
	x11 := c1[1][:C]
	x12 := c1[2][:C]
	x13 := c1[3][:C]
	x14 := c1[4][:C]
	x15 := c1[5][:C]
	x20 := c2[0][:C]
	x21 := c2[1][:C]
	x22 := c2[2][:C]
	x23 := c2[3][:C]
	x24 := c2[4][:C]
	x25 := c2[5][:C]
	for c := range w {
		wc := &w[c]
		var a0, a1, a2, a3, x, u0, u1, u2 int32
		u0, u1, u2 = int32(wc[0]), int32(wc[1]), int32(wc[2])
		a0 = int32(x00[c]) * u0
		x = int32(x01[c])
		a0 += x * u1
		a1 = x * u0
		x = int32(x02[c])
		a0 += x * u2
		a1 += x * u1
		a2 = x * u0
		x = int32(x03[c])
		a1 += x * u2
		a2 += x * u1
		a3 = x * u0
		x = int32(x04[c])
		a2 += x * u2
		a3 += x * u1
		a3 += int32(x05[c]) * u2
		u0, u1, u2 = int32(wc[3]), int32(wc[4]), int32(wc[5])
		a0 += int32(x10[c]) * u0
		x = int32(x11[c])
		a0 += x * u1
		a1 += x * u0
		x = int32(x12[c])
		a0 += x * u2
		a1 += x * u1
		a2 += x * u0
		x = int32(x13[c])
		a1 += x * u2
		a2 += x * u1
		a3 += x * u0
		x = int32(x14[c])
		a2 += x * u2
		a3 += x * u1
		a3 += int32(x15[c]) * u2
		u0, u1, u2 = int32(wc[6]), int32(wc[7]), int32(wc[8])
		a0 += int32(x20[c]) * u0
		x = int32(x21[c])
		a0 += x * u1
		a1 += x * u0
		x = int32(x22[c])
		a0 += x * u2
		a1 += x * u1
		a2 += x * u0
		x = int32(x23[c])
		a1 += x * u2
		a2 += x * u1
		a3 += x * u0
		x = int32(x24[c])
		a2 += x * u2
		a3 += x * u1
		a3 += int32(x25[c]) * u2
		r := rq[12*c : 12*c+12]
		bias := int32(uint32(r[0]) | uint32(r[1])<<8 | uint32(r[2])<<16 | uint32(r[3])<<24)
		mult2 := (uint32(r[4]) | uint32(r[5])<<8 | uint32(r[6])<<16 | uint32(r[7])<<24) << 1
		sh := int32(int8(r[8])) // the exponent is within [-31, 31]
		if uint32(-sh-1) < fastN && uint32(bias+dw3x3BiasMax) < 2*dw3x3BiasMax {
			// dwRQFast, zo in k.
			rr := uint32(-sh) & 31
			m := mult2 >> 1
			k := 1 + int32(1)<<rr + zo<<((rr+1)&31)
			mm := -int32(m) - 2
			s := (rr + 1) & 31
			a0 = dwClamp(dwRQFast(a0+bias, m, k, mm, s), lo, hi)
			a1 = dwClamp(dwRQFast(a1+bias, m, k, mm, s), lo, hi)
			a2 = dwClamp(dwRQFast(a2+bias, m, k, mm, s), lo, hi)
			a3 = dwClamp(dwRQFast(a3+bias, m, k, mm, s), lo, hi)
		} else {
			left, right := uint32(max(sh, 0))&31, uint32(max(-sh, 0))&31
			mask := uint32(1)<<right - 1
			half := mask - mask>>1 // 2^(r-1), 0 when r = 0
			neg := -min(right, 1)  // all ones when r > 0
			a0 = max(min(convRQ32(a0, bias, left, mult2, right, mask, half, neg)+zo, hi), lo)
			a1 = max(min(convRQ32(a1, bias, left, mult2, right, mask, half, neg)+zo, hi), lo)
			a2 = max(min(convRQ32(a2, bias, left, mult2, right, mask, half, neg)+zo, hi), lo)
			a3 = max(min(convRQ32(a3, bias, left, mult2, right, mask, half, neg)+zo, hi), lo)
		}
		// Descending: a pixel past n aliases pixel n-1, stored last.
		o3[c] = int8(a3)
		o2[c] = int8(a2)
		o1[c] = int8(a1)
		o0[c] = int8(a0)
	}
}

// dw3x3Quad2 computes four output pixels (the first n of them are stored)
// of every channel with horizontal stride 2: c0, c1 and c2 hold, for window rows 0-2, at [k] the
// channels of window row fy, input column k of the 9 the pixels read;
// out starts at the first pixel's first channel.
//
//go:noinline
func dw3x3Quad2(c0, c1, c2 *dw3x3Col, w [][9]int8, rq string, p *dw3x3Params, n int, out []int8) {
	C := len(w)
	zo, lo, hi := p.outOffset, p.actMin, p.actMax
	fastN := dw3x3FastN(zo)
	rq = rq[:12*C]
	// ok is pixel k of the block (pixels past n alias pixel n-1).
	o0 := out[:C]
	o1 := out[min(1, n-1)*C:][:C]
	o2 := out[min(2, n-1)*C:][:C]
	o3 := out[min(3, n-1)*C:][:C]
	x00 := c0[0][:C]
	x01 := c0[1][:C]
	x02 := c0[2][:C]
	x03 := c0[3][:C]
	x04 := c0[4][:C]
	x05 := c0[5][:C]
	x06 := c0[6][:C]
	x07 := c0[7][:C]
	x08 := c0[8][:C]
	x10 := c1[0][:C]
	x11 := c1[1][:C]
	x12 := c1[2][:C]
	x13 := c1[3][:C]
	x14 := c1[4][:C]
	x15 := c1[5][:C]
	x16 := c1[6][:C]
	x17 := c1[7][:C]
	x18 := c1[8][:C]
	x20 := c2[0][:C]
	x21 := c2[1][:C]
	x22 := c2[2][:C]
	x23 := c2[3][:C]
	x24 := c2[4][:C]
	x25 := c2[5][:C]
	x26 := c2[6][:C]
	x27 := c2[7][:C]
	x28 := c2[8][:C]
	for c := range w {
		wc := &w[c]
		var a0, a1, a2, a3, x, u0, u1, u2 int32
		u0, u1, u2 = int32(wc[0]), int32(wc[1]), int32(wc[2])
		a0 = int32(x00[c]) * u0
		a0 += int32(x01[c]) * u1
		x = int32(x02[c])
		a0 += x * u2
		a1 = x * u0
		a1 += int32(x03[c]) * u1
		x = int32(x04[c])
		a1 += x * u2
		a2 = x * u0
		a2 += int32(x05[c]) * u1
		x = int32(x06[c])
		a2 += x * u2
		a3 = x * u0
		a3 += int32(x07[c]) * u1
		a3 += int32(x08[c]) * u2
		u0, u1, u2 = int32(wc[3]), int32(wc[4]), int32(wc[5])
		a0 += int32(x10[c]) * u0
		a0 += int32(x11[c]) * u1
		x = int32(x12[c])
		a0 += x * u2
		a1 += x * u0
		a1 += int32(x13[c]) * u1
		x = int32(x14[c])
		a1 += x * u2
		a2 += x * u0
		a2 += int32(x15[c]) * u1
		x = int32(x16[c])
		a2 += x * u2
		a3 += x * u0
		a3 += int32(x17[c]) * u1
		a3 += int32(x18[c]) * u2
		u0, u1, u2 = int32(wc[6]), int32(wc[7]), int32(wc[8])
		a0 += int32(x20[c]) * u0
		a0 += int32(x21[c]) * u1
		x = int32(x22[c])
		a0 += x * u2
		a1 += x * u0
		a1 += int32(x23[c]) * u1
		x = int32(x24[c])
		a1 += x * u2
		a2 += x * u0
		a2 += int32(x25[c]) * u1
		x = int32(x26[c])
		a2 += x * u2
		a3 += x * u0
		a3 += int32(x27[c]) * u1
		a3 += int32(x28[c]) * u2
		r := rq[12*c : 12*c+12]
		bias := int32(uint32(r[0]) | uint32(r[1])<<8 | uint32(r[2])<<16 | uint32(r[3])<<24)
		mult2 := (uint32(r[4]) | uint32(r[5])<<8 | uint32(r[6])<<16 | uint32(r[7])<<24) << 1
		sh := int32(int8(r[8])) // the exponent is within [-31, 31]
		if uint32(-sh-1) < fastN && uint32(bias+dw3x3BiasMax) < 2*dw3x3BiasMax {
			// dwRQFast, zo in k.
			rr := uint32(-sh) & 31
			m := mult2 >> 1
			k := 1 + int32(1)<<rr + zo<<((rr+1)&31)
			mm := -int32(m) - 2
			s := (rr + 1) & 31
			a0 = dwClamp(dwRQFast(a0+bias, m, k, mm, s), lo, hi)
			a1 = dwClamp(dwRQFast(a1+bias, m, k, mm, s), lo, hi)
			a2 = dwClamp(dwRQFast(a2+bias, m, k, mm, s), lo, hi)
			a3 = dwClamp(dwRQFast(a3+bias, m, k, mm, s), lo, hi)
		} else {
			left, right := uint32(max(sh, 0))&31, uint32(max(-sh, 0))&31
			mask := uint32(1)<<right - 1
			half := mask - mask>>1 // 2^(r-1), 0 when r = 0
			neg := -min(right, 1)  // all ones when r > 0
			a0 = max(min(convRQ32(a0, bias, left, mult2, right, mask, half, neg)+zo, hi), lo)
			a1 = max(min(convRQ32(a1, bias, left, mult2, right, mask, half, neg)+zo, hi), lo)
			a2 = max(min(convRQ32(a2, bias, left, mult2, right, mask, half, neg)+zo, hi), lo)
			a3 = max(min(convRQ32(a3, bias, left, mult2, right, mask, half, neg)+zo, hi), lo)
		}
		// Descending: a pixel past n aliases pixel n-1, stored last.
		o3[c] = int8(a3)
		o2[c] = int8(a2)
		o1[c] = int8(a1)
		o0[c] = int8(a0)
	}
}

// dw3x3Tri1 computes three output pixels (the first n of them are stored)
// of every channel with horizontal stride 1: c0, c1 and c2 hold, for window rows 0-2, at [k] the
// channels of window row fy, input column k of the 5 the pixels read;
// out starts at the first pixel's first channel.
//
//go:noinline
func dw3x3Tri1(c0, c1, c2 *dw3x3Col, w [][9]int8, rq string, p *dw3x3Params, n int, out []int8) {
	C := len(w)
	zo, lo, hi := p.outOffset, p.actMin, p.actMax
	fastN := dw3x3FastN(zo)
	rq = rq[:12*C]
	// ok is pixel k of the block (pixels past n alias pixel n-1).
	o0 := out[:C]
	o1 := out[min(1, n-1)*C:][:C]
	o2 := out[min(2, n-1)*C:][:C]
	x00 := c0[0][:C]
	x01 := c0[1][:C]
	x02 := c0[2][:C]
	x03 := c0[3][:C]
	x04 := c0[4][:C]
	x10 := c1[0][:C]
	x11 := c1[1][:C]
	x12 := c1[2][:C]
	x13 := c1[3][:C]
	x14 := c1[4][:C]
	x20 := c2[0][:C]
	x21 := c2[1][:C]
	x22 := c2[2][:C]
	x23 := c2[3][:C]
	x24 := c2[4][:C]
	for c := range w {
		wc := &w[c]
		var a0, a1, a2, x, u0, u1, u2 int32
		u0, u1, u2 = int32(wc[0]), int32(wc[1]), int32(wc[2])
		a0 = int32(x00[c]) * u0
		x = int32(x01[c])
		a0 += x * u1
		a1 = x * u0
		x = int32(x02[c])
		a0 += x * u2
		a1 += x * u1
		a2 = x * u0
		x = int32(x03[c])
		a1 += x * u2
		a2 += x * u1
		a2 += int32(x04[c]) * u2
		u0, u1, u2 = int32(wc[3]), int32(wc[4]), int32(wc[5])
		a0 += int32(x10[c]) * u0
		x = int32(x11[c])
		a0 += x * u1
		a1 += x * u0
		x = int32(x12[c])
		a0 += x * u2
		a1 += x * u1
		a2 += x * u0
		x = int32(x13[c])
		a1 += x * u2
		a2 += x * u1
		a2 += int32(x14[c]) * u2
		u0, u1, u2 = int32(wc[6]), int32(wc[7]), int32(wc[8])
		a0 += int32(x20[c]) * u0
		x = int32(x21[c])
		a0 += x * u1
		a1 += x * u0
		x = int32(x22[c])
		a0 += x * u2
		a1 += x * u1
		a2 += x * u0
		x = int32(x23[c])
		a1 += x * u2
		a2 += x * u1
		a2 += int32(x24[c]) * u2
		r := rq[12*c : 12*c+12]
		bias := int32(uint32(r[0]) | uint32(r[1])<<8 | uint32(r[2])<<16 | uint32(r[3])<<24)
		mult2 := (uint32(r[4]) | uint32(r[5])<<8 | uint32(r[6])<<16 | uint32(r[7])<<24) << 1
		sh := int32(int8(r[8])) // the exponent is within [-31, 31]
		if uint32(-sh-1) < fastN && uint32(bias+dw3x3BiasMax) < 2*dw3x3BiasMax {
			// dwRQFast, zo in k.
			rr := uint32(-sh) & 31
			m := mult2 >> 1
			k := 1 + int32(1)<<rr + zo<<((rr+1)&31)
			mm := -int32(m) - 2
			s := (rr + 1) & 31
			a0 = dwClamp(dwRQFast(a0+bias, m, k, mm, s), lo, hi)
			a1 = dwClamp(dwRQFast(a1+bias, m, k, mm, s), lo, hi)
			a2 = dwClamp(dwRQFast(a2+bias, m, k, mm, s), lo, hi)
		} else {
			left, right := uint32(max(sh, 0))&31, uint32(max(-sh, 0))&31
			mask := uint32(1)<<right - 1
			half := mask - mask>>1 // 2^(r-1), 0 when r = 0
			neg := -min(right, 1)  // all ones when r > 0
			a0 = max(min(convRQ32(a0, bias, left, mult2, right, mask, half, neg)+zo, hi), lo)
			a1 = max(min(convRQ32(a1, bias, left, mult2, right, mask, half, neg)+zo, hi), lo)
			a2 = max(min(convRQ32(a2, bias, left, mult2, right, mask, half, neg)+zo, hi), lo)
		}
		// Descending: a pixel past n aliases pixel n-1, stored last.
		o2[c] = int8(a2)
		o1[c] = int8(a1)
		o0[c] = int8(a0)
	}
}

// dw3x3Tri2 computes three output pixels (the first n of them are stored)
// of every channel with horizontal stride 2: c0, c1 and c2 hold, for window rows 0-2, at [k] the
// channels of window row fy, input column k of the 7 the pixels read;
// out starts at the first pixel's first channel.
//
//go:noinline
func dw3x3Tri2(c0, c1, c2 *dw3x3Col, w [][9]int8, rq string, p *dw3x3Params, n int, out []int8) {
	C := len(w)
	zo, lo, hi := p.outOffset, p.actMin, p.actMax
	fastN := dw3x3FastN(zo)
	rq = rq[:12*C]
	// ok is pixel k of the block (pixels past n alias pixel n-1).
	o0 := out[:C]
	o1 := out[min(1, n-1)*C:][:C]
	o2 := out[min(2, n-1)*C:][:C]
	x00 := c0[0][:C]
	x01 := c0[1][:C]
	x02 := c0[2][:C]
	x03 := c0[3][:C]
	x04 := c0[4][:C]
	x05 := c0[5][:C]
	x06 := c0[6][:C]
	x10 := c1[0][:C]
	x11 := c1[1][:C]
	x12 := c1[2][:C]
	x13 := c1[3][:C]
	x14 := c1[4][:C]
	x15 := c1[5][:C]
	x16 := c1[6][:C]
	x20 := c2[0][:C]
	x21 := c2[1][:C]
	x22 := c2[2][:C]
	x23 := c2[3][:C]
	x24 := c2[4][:C]
	x25 := c2[5][:C]
	x26 := c2[6][:C]
	for c := range w {
		wc := &w[c]
		var a0, a1, a2, x, u0, u1, u2 int32
		u0, u1, u2 = int32(wc[0]), int32(wc[1]), int32(wc[2])
		a0 = int32(x00[c]) * u0
		a0 += int32(x01[c]) * u1
		x = int32(x02[c])
		a0 += x * u2
		a1 = x * u0
		a1 += int32(x03[c]) * u1
		x = int32(x04[c])
		a1 += x * u2
		a2 = x * u0
		a2 += int32(x05[c]) * u1
		a2 += int32(x06[c]) * u2
		u0, u1, u2 = int32(wc[3]), int32(wc[4]), int32(wc[5])
		a0 += int32(x10[c]) * u0
		a0 += int32(x11[c]) * u1
		x = int32(x12[c])
		a0 += x * u2
		a1 += x * u0
		a1 += int32(x13[c]) * u1
		x = int32(x14[c])
		a1 += x * u2
		a2 += x * u0
		a2 += int32(x15[c]) * u1
		a2 += int32(x16[c]) * u2
		u0, u1, u2 = int32(wc[6]), int32(wc[7]), int32(wc[8])
		a0 += int32(x20[c]) * u0
		a0 += int32(x21[c]) * u1
		x = int32(x22[c])
		a0 += x * u2
		a1 += x * u0
		a1 += int32(x23[c]) * u1
		x = int32(x24[c])
		a1 += x * u2
		a2 += x * u0
		a2 += int32(x25[c]) * u1
		a2 += int32(x26[c]) * u2
		r := rq[12*c : 12*c+12]
		bias := int32(uint32(r[0]) | uint32(r[1])<<8 | uint32(r[2])<<16 | uint32(r[3])<<24)
		mult2 := (uint32(r[4]) | uint32(r[5])<<8 | uint32(r[6])<<16 | uint32(r[7])<<24) << 1
		sh := int32(int8(r[8])) // the exponent is within [-31, 31]
		if uint32(-sh-1) < fastN && uint32(bias+dw3x3BiasMax) < 2*dw3x3BiasMax {
			// dwRQFast, zo in k.
			rr := uint32(-sh) & 31
			m := mult2 >> 1
			k := 1 + int32(1)<<rr + zo<<((rr+1)&31)
			mm := -int32(m) - 2
			s := (rr + 1) & 31
			a0 = dwClamp(dwRQFast(a0+bias, m, k, mm, s), lo, hi)
			a1 = dwClamp(dwRQFast(a1+bias, m, k, mm, s), lo, hi)
			a2 = dwClamp(dwRQFast(a2+bias, m, k, mm, s), lo, hi)
		} else {
			left, right := uint32(max(sh, 0))&31, uint32(max(-sh, 0))&31
			mask := uint32(1)<<right - 1
			half := mask - mask>>1 // 2^(r-1), 0 when r = 0
			neg := -min(right, 1)  // all ones when r > 0
			a0 = max(min(convRQ32(a0, bias, left, mult2, right, mask, half, neg)+zo, hi), lo)
			a1 = max(min(convRQ32(a1, bias, left, mult2, right, mask, half, neg)+zo, hi), lo)
			a2 = max(min(convRQ32(a2, bias, left, mult2, right, mask, half, neg)+zo, hi), lo)
		}
		// Descending: a pixel past n aliases pixel n-1, stored last.
		o2[c] = int8(a2)
		o1[c] = int8(a1)
		o0[c] = int8(a0)
	}
}

// dw3x3Mult is dw3x3Int8 for one input channel and a depth multiplier
// above 1: a row is computed in segments of up to dw3x3Seg pixels; the
// segment's window values are copied into a local array, column by column
// (the three taps of a column adjacent), so that the output channels read
// every tap of a block of six pixels at a constant offset from one
// pointer. All of a segment's input is read before any of its outputs is
// written.
func dw3x3Mult(p *dw3x3Params, in []int8, w, zrow, rq string, out []int8) {
	C := p.chans
	D := max(p.mult, 1)
	N := C * D
	if N == 0 || p.outW <= 0 || p.outH <= 0 {
		return
	}
	w9 := unsafe.Slice((*[9]int8)(unsafe.Pointer(unsafe.StringData(w))), len(w)/9)
	w9 = w9[:N]
	rq = rq[:12*N]
	zp := int8(zrow[0])
	sW := p.strideW
	inW, W := p.inW, p.outW
	rs := inW * C
	img := p.inH * rs
	var buf [2*dw3x3Seg + 1][3]int8
	var q [1]dwRec
	for b := 0; b < p.batches; b++ {
		x := in[b*img : b*img+img]
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			var r0, r1, r2 []int8
			all := true
			if iy := iy0; iy >= 0 && iy < p.inH {
				r0 = x[iy*rs : iy*rs+rs]
			} else {
				all = false
			}
			if iy := iy0 + 1; iy >= 0 && iy < p.inH {
				r1 = x[iy*rs : iy*rs+rs]
			} else {
				all = false
			}
			if iy := iy0 + 2; iy >= 0 && iy < p.inH {
				r2 = x[iy*rs : iy*rs+rs]
			} else {
				all = false
			}
			o := out[(b*p.outH+oy)*W*N : (b*p.outH+oy+1)*W*N]
			for s0 := 0; s0 < W; s0 += dw3x3Seg {
				n := min(dw3x3Seg, W-s0)
				ng := ((n+5)/6*6-1)*sW + 3 // columns the blocks read
				g := buf[:ng]
				ix0 := s0*sW - p.padW
				jl := min(max(-ix0, 0), ng)
				jh := max(min(inW-ix0, ng), jl)
				// The padding's columns take the zero point (all of them
				// when a window row is outside the image: dw3x3Rows skips
				// such rows); dw3x3Gather3 fills the rest.
				pad := g
				if all {
					pad = g[:jl]
					for j := range g[jh:] {
						g[jh+j] = [3]int8{zp, zp, zp}
					}
				}
				for j := range pad {
					pad[j] = [3]int8{zp, zp, zp}
				}
				gv := g[jl:jh]
				cnt := (len(gv)-1)*C + 1 // values of a row from the first to the last column
				q0 := (ix0 + jl) * C
				os := o[s0*N:]
				for c := 0; c < C; c++ {
					if len(gv) > 0 {
						if all {
							dw3x3Gather3(gv, r0[q0+c:q0+c+cnt], r1[q0+c:q0+c+cnt], r2[q0+c:q0+c+cnt], C)
						} else {
							dw3x3Rows(gv, r0, r1, r2, q0+c, cnt, C)
						}
					}
					for j := 0; j < D; j++ {
						k := c*D + j
						dwRecDecode(rq[12*k:12*k+12], p.outOffset, dw3x3BiasMax, q[:])
						switch {
						case !q[0].fast:
							dw3x3SegSlow(g, n, sW, &w9[k], &q[0], p, os[k:], N)
						case sW == 1:
							dw3x3Seg1(g, n, &w9[k], &q[0], p, os[k:], N)
						default:
							dw3x3Seg2(g, n, &w9[k], &q[0], p, os[k:], N)
						}
					}
				}
			}
		}
	}
}

// dw3x3Gather3 copies every C-th value of a0, a1 and a2 (the same length)
// into the columns of g.
//
//go:noinline
func dw3x3Gather3(g [][3]int8, a0, a1, a2 []int8, C int) {
	a1, a2 = a1[:len(a0)], a2[:len(a0)]
	i := 0
	for k := range g {
		if i >= len(a0) {
			break
		}
		e := &g[k]
		e[0], e[1], e[2] = a0[i], a1[i], a2[i]
		i += C
	}
}

// dw3x3Rows copies the window rows that lie inside the image (r0, r1, r2;
// nil for a row in the padding) into g: cnt values from offset q, every
// C-th.
func dw3x3Rows(g [][3]int8, r0, r1, r2 []int8, q, cnt, C int) {
	for fy, r := range [3][]int8{r0, r1, r2} {
		if r == nil {
			continue
		}
		a := r[q : q+cnt]
		i := 0
		for k := range g {
			if i >= len(a) {
				break
			}
			g[k][fy] = a[i]
			i += C
		}
	}
}

// dwRQFast is TFLM's MultiplyByQuantizedMultiplier(v, m, -r) plus the
// output zero point zo, for 1 <= r <= 21, |v| < 2^29, 0 <= m < 2^31 and
// |zo| <= 128, with k = 1 + 2^r + zo*2^(r+1) and sh = r+1. The doubling
// high multiply rounds to h = floor((X + 2^30)/2^31) for X = v*m (the
// nudge 1-2^30 and truncation of negative products give the same), which
// is floor((H+1)/2) with H = floor(4X/2^32), the high word of the 64-bit
// product (v<<2)*m. The rounding divide by 2^r (half away from zero) is
// floor((h + 2^(r-1) - [h<0])/2^r); the two floors merge into
// floor((H + 1 + 2^r - 2[h<0])/2^(r+1)), and [v<0] may replace [h<0]: v < 0
// with h = 0 means H = -1, where both give 0.
func dwRQFast(v int32, m uint32, k, mm int32, sh uint32) int32 {
	// The signed high word is the unsigned one less m when v < 0; with
	// mm = -m-2 the corrections merge into mm&(v>>31).
	h := int32(uint32((uint64(uint32(v<<2)) * uint64(m)) >> 32))
	return (h + k + mm&(v>>31)) >> (sh & 31)
}

// dwClamp is max(min(v, hi), lo) without branches, for |v| < 2^30.
func dwClamp(v, lo, hi int32) int32 {
	d := v - hi
	v -= d &^ (d >> 31)
	d = v - lo
	return v - d&(d>>31)
}

// dw3x3Seg1 computes n output pixels of one output channel with
// horizontal stride 1, in blocks of six, from g (column j's three taps at
// g[j]; g covers whole blocks), weights wc and requantization q (fast);
// out[step*i] is pixel i.
//
//go:noinline
func dw3x3Seg1(g [][3]int8, n int, wc *[9]int8, q *dwRec, p *dw3x3Params, out []int8, step int) {
	lo, hi := p.actMin, p.actMax
	bias, m, k, mm, sh := q.bias, q.m, q.k, q.mm, uint32(q.sh)
	for i := 0; i < n; i += 6 {
		v := g[i : i+8 : i+8] // not (*[8][3]int8)(...): that conversion escapes buf under TinyGo
		var a0, a1, a2, a3, a4, a5, x, u0, u1, u2 int32
		u0, u1, u2 = int32(wc[0]), int32(wc[1]), int32(wc[2])
		a0 = int32(v[0][0])*u0 + bias
		x = int32(v[1][0])
		a0 += x * u1
		a1 = x*u0 + bias
		x = int32(v[2][0])
		a0 += x * u2
		a1 += x * u1
		a2 = x*u0 + bias
		x = int32(v[3][0])
		a1 += x * u2
		a2 += x * u1
		a3 = x*u0 + bias
		x = int32(v[4][0])
		a2 += x * u2
		a3 += x * u1
		a4 = x*u0 + bias
		x = int32(v[5][0])
		a3 += x * u2
		a4 += x * u1
		a5 = x*u0 + bias
		x = int32(v[6][0])
		a4 += x * u2
		a5 += x * u1
		a5 += int32(v[7][0]) * u2
		u0, u1, u2 = int32(wc[3]), int32(wc[4]), int32(wc[5])
		a0 += int32(v[0][1]) * u0
		x = int32(v[1][1])
		a0 += x * u1
		a1 += x * u0
		x = int32(v[2][1])
		a0 += x * u2
		a1 += x * u1
		a2 += x * u0
		x = int32(v[3][1])
		a1 += x * u2
		a2 += x * u1
		a3 += x * u0
		x = int32(v[4][1])
		a2 += x * u2
		a3 += x * u1
		a4 += x * u0
		x = int32(v[5][1])
		a3 += x * u2
		a4 += x * u1
		a5 += x * u0
		x = int32(v[6][1])
		a4 += x * u2
		a5 += x * u1
		a5 += int32(v[7][1]) * u2
		u0, u1, u2 = int32(wc[6]), int32(wc[7]), int32(wc[8])
		a0 += int32(v[0][2]) * u0
		x = int32(v[1][2])
		a0 += x * u1
		a1 += x * u0
		x = int32(v[2][2])
		a0 += x * u2
		a1 += x * u1
		a2 += x * u0
		x = int32(v[3][2])
		a1 += x * u2
		a2 += x * u1
		a3 += x * u0
		x = int32(v[4][2])
		a2 += x * u2
		a3 += x * u1
		a4 += x * u0
		x = int32(v[5][2])
		a3 += x * u2
		a4 += x * u1
		a5 += x * u0
		x = int32(v[6][2])
		a4 += x * u2
		a5 += x * u1
		a5 += int32(v[7][2]) * u2
		a0 = dwClamp(dwRQFast(a0, m, k, mm, sh), lo, hi)
		a1 = dwClamp(dwRQFast(a1, m, k, mm, sh), lo, hi)
		a2 = dwClamp(dwRQFast(a2, m, k, mm, sh), lo, hi)
		a3 = dwClamp(dwRQFast(a3, m, k, mm, sh), lo, hi)
		a4 = dwClamp(dwRQFast(a4, m, k, mm, sh), lo, hi)
		a5 = dwClamp(dwRQFast(a5, m, k, mm, sh), lo, hi)
		if n-i >= 6 {
			j := i * step
			out[j+5*step] = int8(a5)
			out[j+4*step] = int8(a4)
			out[j+3*step] = int8(a3)
			out[j+2*step] = int8(a2)
			out[j+step] = int8(a1)
			out[j] = int8(a0)
			continue
		}
		o := out[i*step:]
		o[0] = int8(a0)
		if n-i > 1 {
			o[step] = int8(a1)
		}
		if n-i > 2 {
			o[2*step] = int8(a2)
		}
		if n-i > 3 {
			o[3*step] = int8(a3)
		}
		if n-i > 4 {
			o[4*step] = int8(a4)
		}
		if n-i > 5 {
			o[5*step] = int8(a5)
		}
	}
}

// dw3x3Seg2 is dw3x3Seg1 with horizontal stride 2.
//
//go:noinline
func dw3x3Seg2(g [][3]int8, n int, wc *[9]int8, q *dwRec, p *dw3x3Params, out []int8, step int) {
	lo, hi := p.actMin, p.actMax
	bias, m, k, mm, sh := q.bias, q.m, q.k, q.mm, uint32(q.sh)
	for i := 0; i < n; i += 6 {
		v := g[2*i : 2*i+13 : 2*i+13] // as in dw3x3Seg1
		var a0, a1, a2, a3, a4, a5, x, u0, u1, u2 int32
		u0, u1, u2 = int32(wc[0]), int32(wc[1]), int32(wc[2])
		a0 = int32(v[0][0])*u0 + bias
		a0 += int32(v[1][0]) * u1
		x = int32(v[2][0])
		a0 += x * u2
		a1 = x*u0 + bias
		a1 += int32(v[3][0]) * u1
		x = int32(v[4][0])
		a1 += x * u2
		a2 = x*u0 + bias
		a2 += int32(v[5][0]) * u1
		x = int32(v[6][0])
		a2 += x * u2
		a3 = x*u0 + bias
		a3 += int32(v[7][0]) * u1
		x = int32(v[8][0])
		a3 += x * u2
		a4 = x*u0 + bias
		a4 += int32(v[9][0]) * u1
		x = int32(v[10][0])
		a4 += x * u2
		a5 = x*u0 + bias
		a5 += int32(v[11][0]) * u1
		a5 += int32(v[12][0]) * u2
		u0, u1, u2 = int32(wc[3]), int32(wc[4]), int32(wc[5])
		a0 += int32(v[0][1]) * u0
		a0 += int32(v[1][1]) * u1
		x = int32(v[2][1])
		a0 += x * u2
		a1 += x * u0
		a1 += int32(v[3][1]) * u1
		x = int32(v[4][1])
		a1 += x * u2
		a2 += x * u0
		a2 += int32(v[5][1]) * u1
		x = int32(v[6][1])
		a2 += x * u2
		a3 += x * u0
		a3 += int32(v[7][1]) * u1
		x = int32(v[8][1])
		a3 += x * u2
		a4 += x * u0
		a4 += int32(v[9][1]) * u1
		x = int32(v[10][1])
		a4 += x * u2
		a5 += x * u0
		a5 += int32(v[11][1]) * u1
		a5 += int32(v[12][1]) * u2
		u0, u1, u2 = int32(wc[6]), int32(wc[7]), int32(wc[8])
		a0 += int32(v[0][2]) * u0
		a0 += int32(v[1][2]) * u1
		x = int32(v[2][2])
		a0 += x * u2
		a1 += x * u0
		a1 += int32(v[3][2]) * u1
		x = int32(v[4][2])
		a1 += x * u2
		a2 += x * u0
		a2 += int32(v[5][2]) * u1
		x = int32(v[6][2])
		a2 += x * u2
		a3 += x * u0
		a3 += int32(v[7][2]) * u1
		x = int32(v[8][2])
		a3 += x * u2
		a4 += x * u0
		a4 += int32(v[9][2]) * u1
		x = int32(v[10][2])
		a4 += x * u2
		a5 += x * u0
		a5 += int32(v[11][2]) * u1
		a5 += int32(v[12][2]) * u2
		a0 = dwClamp(dwRQFast(a0, m, k, mm, sh), lo, hi)
		a1 = dwClamp(dwRQFast(a1, m, k, mm, sh), lo, hi)
		a2 = dwClamp(dwRQFast(a2, m, k, mm, sh), lo, hi)
		a3 = dwClamp(dwRQFast(a3, m, k, mm, sh), lo, hi)
		a4 = dwClamp(dwRQFast(a4, m, k, mm, sh), lo, hi)
		a5 = dwClamp(dwRQFast(a5, m, k, mm, sh), lo, hi)
		if n-i >= 6 {
			j := i * step
			out[j+5*step] = int8(a5)
			out[j+4*step] = int8(a4)
			out[j+3*step] = int8(a3)
			out[j+2*step] = int8(a2)
			out[j+step] = int8(a1)
			out[j] = int8(a0)
			continue
		}
		o := out[i*step:]
		o[0] = int8(a0)
		if n-i > 1 {
			o[step] = int8(a1)
		}
		if n-i > 2 {
			o[2*step] = int8(a2)
		}
		if n-i > 3 {
			o[3*step] = int8(a3)
		}
		if n-i > 4 {
			o[4*step] = int8(a4)
		}
		if n-i > 5 {
			o[5*step] = int8(a5)
		}
	}
}

// dw3x3SegSlow is dw3x3Seg1 and dw3x3Seg2 (stride sW) for requantizations
// that dwRQFast does not take.
func dw3x3SegSlow(g [][3]int8, n, sW int, wc *[9]int8, q *dwRec, p *dw3x3Params, out []int8, step int) {
	for i := 0; i < n; i++ {
		a := int32(0)
		v := g[i*sW : i*sW+3]
		for fy := 0; fy < 3; fy++ {
			for fx := 0; fx < 3; fx++ {
				a += int32(v[fx][fy]) * int32(wc[3*fy+fx])
			}
		}
		out[i*step] = int8(q.slow(a, p.outOffset, p.actMin, p.actMax))
	}
}
