package kernels

import "unsafe"

// Int8 DEPTHWISE_CONV_2D with depth multiplier 1, a 3x3 filter, no
// dilation and horizontal stride 1 or 2, without scratch memory, for
// 32-bit cores: four (or three) horizontally adjacent output pixels of a
// channel are computed together, each product one int32 multiply-add (MLA
// on ARM), so the weights of a channel and its requantization are loaded
// once per block and, with stride 1, each input value once per block
// instead of up to three times.
//
// Taps in the padding read zrow, a constant row of the input zero point;
// the folded bias (conv_rq.go, bias - zp*sum of the channel's weights)
// cancels them, so every sum is TFLM's int32 accumulator, wrapping alike.

// dw3x3Params describes a 3x3 depthwise convolution with depth multiplier
// 1 and no dilation.
type dw3x3Params struct {
	batches          int
	inH, inW, chans  int
	outH, outW       int
	strideH, strideW int   // strideW is 1 or 2
	padH, padW       int   // padding before the first row / column
	outOffset        int32 // output zero point
	actMin, actMax   int32 // quantized activation bounds
}

// dw3x3Int8 runs the convolution. w holds the weights channel-major, the
// nine taps of channel c (row by row) at 9c; zrow is chans bytes of the
// input zero point; rq holds the requantization triples (conv_rq.go) with
// the bias folded for input offset -zp.
func dw3x3Int8(p *dw3x3Params, in []int8, w, zrow, rq string, out []int8) {
	C := p.chans
	w9 := unsafe.Slice((*[9]int8)(unsafe.Pointer(unsafe.StringData(w))), len(w)/9)
	w9 = w9[:C]
	z := constI8(zrow)
	z = z[:C]
	rq = rq[:12*C]
	img := p.inH * p.inW * C
	// Blocks of four output pixels, or of three where that leaves no
	// pixel slot idle and four would.
	bw := 4
	if p.outW%4 != 0 && p.outW%3 == 0 {
		bw = 3
	}
	nc := (bw-1)*p.strideW + 3 // input columns of a block
	var cols [3][9][]int8
	for b := 0; b < p.batches; b++ {
		x := in[b*img : b*img+img]
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			o := out[(b*p.outH+oy)*p.outW*C : (b*p.outH+oy+1)*p.outW*C]
			for ox := 0; ox < p.outW; ox += bw {
				ix0 := ox*p.strideW - p.padW
				if iy0 >= 0 && iy0+3 <= p.inH && ix0 >= 0 && ix0+nc <= p.inW {
					// All inside: consecutive columns of three rows.
					for fy := range cols {
						row := x[((iy0+fy)*p.inW+ix0)*C : ((iy0+fy)*p.inW+ix0+nc)*C]
						cr := cols[fy][:nc]
						for k := range cr {
							cr[k] = row[k*C : k*C+C : k*C+C]
						}
					}
				} else {
					for fy := range cols {
						iy := iy0 + fy
						for k := 0; k < nc; k++ {
							ix := ix0 + k
							if iy >= 0 && iy < p.inH && ix >= 0 && ix < p.inW {
								q := (iy*p.inW + ix) * C
								cols[fy][k] = x[q : q+C]
							} else {
								cols[fy][k] = z
							}
						}
					}
				}
				n := min(bw, p.outW-ox)
				switch {
				case bw == 4 && p.strideW == 1:
					dw3x3Quad1(&cols, w9, rq, p, n, o[ox*C:])
				case bw == 4:
					dw3x3Quad2(&cols, w9, rq, p, n, o[ox*C:])
				case p.strideW == 1:
					dw3x3Tri1(&cols, w9, rq, p, n, o[ox*C:])
				default:
					dw3x3Tri2(&cols, w9, rq, p, n, o[ox*C:])
				}
			}
		}
	}
}

// dw3x3Quad1 computes four output pixels (the first n of them are stored)
// of every channel with horizontal stride 1: cols[fy][k] holds the
// channels of window row fy, input column k of the 6 the pixels read;
// out starts at the first pixel's first channel.
//
//go:noinline
func dw3x3Quad1(cols *[3][9][]int8, w [][9]int8, rq string, p *dw3x3Params, n int, out []int8) {
	C := len(w)
	zo, lo, hi := p.outOffset, p.actMin, p.actMax
	// Shifts sh with uint32(-sh-2) < fastN (-23..-2, when convRQR can
	// add zo) take convRQR.
	fastN := uint32(0)
	if zo >= -128 && zo <= 128 {
		fastN = 22
	}
	rq = rq[:12*C]
	x00 := cols[0][0][:C]
	x01 := cols[0][1][:C]
	x02 := cols[0][2][:C]
	x03 := cols[0][3][:C]
	x04 := cols[0][4][:C]
	x05 := cols[0][5][:C]
	x10 := cols[1][0][:C]
	x11 := cols[1][1][:C]
	x12 := cols[1][2][:C]
	x13 := cols[1][3][:C]
	x14 := cols[1][4][:C]
	x15 := cols[1][5][:C]
	x20 := cols[2][0][:C]
	x21 := cols[2][1][:C]
	x22 := cols[2][2][:C]
	x23 := cols[2][3][:C]
	x24 := cols[2][4][:C]
	x25 := cols[2][5][:C]
	for c := range w {
		wc := &w[c]
		var a0, a1, a2, a3 int32
		u := int32(wc[0])
		a0 += int32(x00[c]) * u
		a1 += int32(x01[c]) * u
		a2 += int32(x02[c]) * u
		a3 += int32(x03[c]) * u
		u = int32(wc[1])
		a0 += int32(x01[c]) * u
		a1 += int32(x02[c]) * u
		a2 += int32(x03[c]) * u
		a3 += int32(x04[c]) * u
		u = int32(wc[2])
		a0 += int32(x02[c]) * u
		a1 += int32(x03[c]) * u
		a2 += int32(x04[c]) * u
		a3 += int32(x05[c]) * u
		u = int32(wc[3])
		a0 += int32(x10[c]) * u
		a1 += int32(x11[c]) * u
		a2 += int32(x12[c]) * u
		a3 += int32(x13[c]) * u
		u = int32(wc[4])
		a0 += int32(x11[c]) * u
		a1 += int32(x12[c]) * u
		a2 += int32(x13[c]) * u
		a3 += int32(x14[c]) * u
		u = int32(wc[5])
		a0 += int32(x12[c]) * u
		a1 += int32(x13[c]) * u
		a2 += int32(x14[c]) * u
		a3 += int32(x15[c]) * u
		u = int32(wc[6])
		a0 += int32(x20[c]) * u
		a1 += int32(x21[c]) * u
		a2 += int32(x22[c]) * u
		a3 += int32(x23[c]) * u
		u = int32(wc[7])
		a0 += int32(x21[c]) * u
		a1 += int32(x22[c]) * u
		a2 += int32(x23[c]) * u
		a3 += int32(x24[c]) * u
		u = int32(wc[8])
		a0 += int32(x22[c]) * u
		a1 += int32(x23[c]) * u
		a2 += int32(x24[c]) * u
		a3 += int32(x25[c]) * u
		r := rq[12*c : 12*c+12]
		bias := int32(uint32(r[0]) | uint32(r[1])<<8 | uint32(r[2])<<16 | uint32(r[3])<<24)
		mult2 := (uint32(r[4]) | uint32(r[5])<<8 | uint32(r[6])<<16 | uint32(r[7])<<24) << 1
		sh := int32(int8(r[8])) // the exponent is within [-31, 31]
		o := out[c:]
		if uint32(-sh-2) < fastN {
			// convRQR with zo added in the high word (convPWPair8).
			m, rm1 := mult2>>1, uint32(-sh-1)&31
			kh := uint32(1)<<(rm1-1&31) + uint32(zo)<<rm1
			o[0] = int8(max(min(convRQR(a0+bias, m, kh, rm1), hi), lo))
			if n > 1 {
				o[C] = int8(max(min(convRQR(a1+bias, m, kh, rm1), hi), lo))
				if n > 2 {
					o[2*C] = int8(max(min(convRQR(a2+bias, m, kh, rm1), hi), lo))
					if n > 3 {
						o[3*C] = int8(max(min(convRQR(a3+bias, m, kh, rm1), hi), lo))
					}
				}
			}
			continue
		}
		left, right := uint32(max(sh, 0))&31, uint32(max(-sh, 0))&31
		mask := uint32(1)<<right - 1
		half := mask - mask>>1 // 2^(r-1), 0 when r = 0
		neg := -min(right, 1)  // all ones when r > 0
		o[0] = int8(max(min(convRQ32(a0, bias, left, mult2, right, mask, half, neg)+zo, hi), lo))
		if n > 1 {
			o[C] = int8(max(min(convRQ32(a1, bias, left, mult2, right, mask, half, neg)+zo, hi), lo))
			if n > 2 {
				o[2*C] = int8(max(min(convRQ32(a2, bias, left, mult2, right, mask, half, neg)+zo, hi), lo))
				if n > 3 {
					o[3*C] = int8(max(min(convRQ32(a3, bias, left, mult2, right, mask, half, neg)+zo, hi), lo))
				}
			}
		}
	}
}

// dw3x3Quad2 computes four output pixels (the first n of them are stored)
// of every channel with horizontal stride 2: cols[fy][k] holds the
// channels of window row fy, input column k of the 9 the pixels read;
// out starts at the first pixel's first channel.
//
//go:noinline
func dw3x3Quad2(cols *[3][9][]int8, w [][9]int8, rq string, p *dw3x3Params, n int, out []int8) {
	C := len(w)
	zo, lo, hi := p.outOffset, p.actMin, p.actMax
	// Shifts sh with uint32(-sh-2) < fastN (-23..-2, when convRQR can
	// add zo) take convRQR.
	fastN := uint32(0)
	if zo >= -128 && zo <= 128 {
		fastN = 22
	}
	rq = rq[:12*C]
	x00 := cols[0][0][:C]
	x01 := cols[0][1][:C]
	x02 := cols[0][2][:C]
	x03 := cols[0][3][:C]
	x04 := cols[0][4][:C]
	x05 := cols[0][5][:C]
	x06 := cols[0][6][:C]
	x07 := cols[0][7][:C]
	x08 := cols[0][8][:C]
	x10 := cols[1][0][:C]
	x11 := cols[1][1][:C]
	x12 := cols[1][2][:C]
	x13 := cols[1][3][:C]
	x14 := cols[1][4][:C]
	x15 := cols[1][5][:C]
	x16 := cols[1][6][:C]
	x17 := cols[1][7][:C]
	x18 := cols[1][8][:C]
	x20 := cols[2][0][:C]
	x21 := cols[2][1][:C]
	x22 := cols[2][2][:C]
	x23 := cols[2][3][:C]
	x24 := cols[2][4][:C]
	x25 := cols[2][5][:C]
	x26 := cols[2][6][:C]
	x27 := cols[2][7][:C]
	x28 := cols[2][8][:C]
	for c := range w {
		wc := &w[c]
		var a0, a1, a2, a3 int32
		u := int32(wc[0])
		a0 += int32(x00[c]) * u
		a1 += int32(x02[c]) * u
		a2 += int32(x04[c]) * u
		a3 += int32(x06[c]) * u
		u = int32(wc[1])
		a0 += int32(x01[c]) * u
		a1 += int32(x03[c]) * u
		a2 += int32(x05[c]) * u
		a3 += int32(x07[c]) * u
		u = int32(wc[2])
		a0 += int32(x02[c]) * u
		a1 += int32(x04[c]) * u
		a2 += int32(x06[c]) * u
		a3 += int32(x08[c]) * u
		u = int32(wc[3])
		a0 += int32(x10[c]) * u
		a1 += int32(x12[c]) * u
		a2 += int32(x14[c]) * u
		a3 += int32(x16[c]) * u
		u = int32(wc[4])
		a0 += int32(x11[c]) * u
		a1 += int32(x13[c]) * u
		a2 += int32(x15[c]) * u
		a3 += int32(x17[c]) * u
		u = int32(wc[5])
		a0 += int32(x12[c]) * u
		a1 += int32(x14[c]) * u
		a2 += int32(x16[c]) * u
		a3 += int32(x18[c]) * u
		u = int32(wc[6])
		a0 += int32(x20[c]) * u
		a1 += int32(x22[c]) * u
		a2 += int32(x24[c]) * u
		a3 += int32(x26[c]) * u
		u = int32(wc[7])
		a0 += int32(x21[c]) * u
		a1 += int32(x23[c]) * u
		a2 += int32(x25[c]) * u
		a3 += int32(x27[c]) * u
		u = int32(wc[8])
		a0 += int32(x22[c]) * u
		a1 += int32(x24[c]) * u
		a2 += int32(x26[c]) * u
		a3 += int32(x28[c]) * u
		r := rq[12*c : 12*c+12]
		bias := int32(uint32(r[0]) | uint32(r[1])<<8 | uint32(r[2])<<16 | uint32(r[3])<<24)
		mult2 := (uint32(r[4]) | uint32(r[5])<<8 | uint32(r[6])<<16 | uint32(r[7])<<24) << 1
		sh := int32(int8(r[8])) // the exponent is within [-31, 31]
		o := out[c:]
		if uint32(-sh-2) < fastN {
			// convRQR with zo added in the high word (convPWPair8).
			m, rm1 := mult2>>1, uint32(-sh-1)&31
			kh := uint32(1)<<(rm1-1&31) + uint32(zo)<<rm1
			o[0] = int8(max(min(convRQR(a0+bias, m, kh, rm1), hi), lo))
			if n > 1 {
				o[C] = int8(max(min(convRQR(a1+bias, m, kh, rm1), hi), lo))
				if n > 2 {
					o[2*C] = int8(max(min(convRQR(a2+bias, m, kh, rm1), hi), lo))
					if n > 3 {
						o[3*C] = int8(max(min(convRQR(a3+bias, m, kh, rm1), hi), lo))
					}
				}
			}
			continue
		}
		left, right := uint32(max(sh, 0))&31, uint32(max(-sh, 0))&31
		mask := uint32(1)<<right - 1
		half := mask - mask>>1 // 2^(r-1), 0 when r = 0
		neg := -min(right, 1)  // all ones when r > 0
		o[0] = int8(max(min(convRQ32(a0, bias, left, mult2, right, mask, half, neg)+zo, hi), lo))
		if n > 1 {
			o[C] = int8(max(min(convRQ32(a1, bias, left, mult2, right, mask, half, neg)+zo, hi), lo))
			if n > 2 {
				o[2*C] = int8(max(min(convRQ32(a2, bias, left, mult2, right, mask, half, neg)+zo, hi), lo))
				if n > 3 {
					o[3*C] = int8(max(min(convRQ32(a3, bias, left, mult2, right, mask, half, neg)+zo, hi), lo))
				}
			}
		}
	}
}

// dw3x3Tri1 computes three output pixels (the first n of them are stored)
// of every channel with horizontal stride 1: cols[fy][k] holds the
// channels of window row fy, input column k of the 5 the pixels read;
// out starts at the first pixel's first channel.
//
//go:noinline
func dw3x3Tri1(cols *[3][9][]int8, w [][9]int8, rq string, p *dw3x3Params, n int, out []int8) {
	C := len(w)
	zo, lo, hi := p.outOffset, p.actMin, p.actMax
	// Shifts sh with uint32(-sh-2) < fastN (-23..-2, when convRQR can
	// add zo) take convRQR.
	fastN := uint32(0)
	if zo >= -128 && zo <= 128 {
		fastN = 22
	}
	rq = rq[:12*C]
	x00 := cols[0][0][:C]
	x01 := cols[0][1][:C]
	x02 := cols[0][2][:C]
	x03 := cols[0][3][:C]
	x04 := cols[0][4][:C]
	x10 := cols[1][0][:C]
	x11 := cols[1][1][:C]
	x12 := cols[1][2][:C]
	x13 := cols[1][3][:C]
	x14 := cols[1][4][:C]
	x20 := cols[2][0][:C]
	x21 := cols[2][1][:C]
	x22 := cols[2][2][:C]
	x23 := cols[2][3][:C]
	x24 := cols[2][4][:C]
	for c := range w {
		wc := &w[c]
		var a0, a1, a2 int32
		u := int32(wc[0])
		a0 += int32(x00[c]) * u
		a1 += int32(x01[c]) * u
		a2 += int32(x02[c]) * u
		u = int32(wc[1])
		a0 += int32(x01[c]) * u
		a1 += int32(x02[c]) * u
		a2 += int32(x03[c]) * u
		u = int32(wc[2])
		a0 += int32(x02[c]) * u
		a1 += int32(x03[c]) * u
		a2 += int32(x04[c]) * u
		u = int32(wc[3])
		a0 += int32(x10[c]) * u
		a1 += int32(x11[c]) * u
		a2 += int32(x12[c]) * u
		u = int32(wc[4])
		a0 += int32(x11[c]) * u
		a1 += int32(x12[c]) * u
		a2 += int32(x13[c]) * u
		u = int32(wc[5])
		a0 += int32(x12[c]) * u
		a1 += int32(x13[c]) * u
		a2 += int32(x14[c]) * u
		u = int32(wc[6])
		a0 += int32(x20[c]) * u
		a1 += int32(x21[c]) * u
		a2 += int32(x22[c]) * u
		u = int32(wc[7])
		a0 += int32(x21[c]) * u
		a1 += int32(x22[c]) * u
		a2 += int32(x23[c]) * u
		u = int32(wc[8])
		a0 += int32(x22[c]) * u
		a1 += int32(x23[c]) * u
		a2 += int32(x24[c]) * u
		r := rq[12*c : 12*c+12]
		bias := int32(uint32(r[0]) | uint32(r[1])<<8 | uint32(r[2])<<16 | uint32(r[3])<<24)
		mult2 := (uint32(r[4]) | uint32(r[5])<<8 | uint32(r[6])<<16 | uint32(r[7])<<24) << 1
		sh := int32(int8(r[8])) // the exponent is within [-31, 31]
		o := out[c:]
		if uint32(-sh-2) < fastN {
			// convRQR with zo added in the high word (convPWPair8).
			m, rm1 := mult2>>1, uint32(-sh-1)&31
			kh := uint32(1)<<(rm1-1&31) + uint32(zo)<<rm1
			o[0] = int8(max(min(convRQR(a0+bias, m, kh, rm1), hi), lo))
			if n > 1 {
				o[C] = int8(max(min(convRQR(a1+bias, m, kh, rm1), hi), lo))
				if n > 2 {
					o[2*C] = int8(max(min(convRQR(a2+bias, m, kh, rm1), hi), lo))
				}
			}
			continue
		}
		left, right := uint32(max(sh, 0))&31, uint32(max(-sh, 0))&31
		mask := uint32(1)<<right - 1
		half := mask - mask>>1 // 2^(r-1), 0 when r = 0
		neg := -min(right, 1)  // all ones when r > 0
		o[0] = int8(max(min(convRQ32(a0, bias, left, mult2, right, mask, half, neg)+zo, hi), lo))
		if n > 1 {
			o[C] = int8(max(min(convRQ32(a1, bias, left, mult2, right, mask, half, neg)+zo, hi), lo))
			if n > 2 {
				o[2*C] = int8(max(min(convRQ32(a2, bias, left, mult2, right, mask, half, neg)+zo, hi), lo))
			}
		}
	}
}

// dw3x3Tri2 computes three output pixels (the first n of them are stored)
// of every channel with horizontal stride 2: cols[fy][k] holds the
// channels of window row fy, input column k of the 7 the pixels read;
// out starts at the first pixel's first channel.
//
//go:noinline
func dw3x3Tri2(cols *[3][9][]int8, w [][9]int8, rq string, p *dw3x3Params, n int, out []int8) {
	C := len(w)
	zo, lo, hi := p.outOffset, p.actMin, p.actMax
	// Shifts sh with uint32(-sh-2) < fastN (-23..-2, when convRQR can
	// add zo) take convRQR.
	fastN := uint32(0)
	if zo >= -128 && zo <= 128 {
		fastN = 22
	}
	rq = rq[:12*C]
	x00 := cols[0][0][:C]
	x01 := cols[0][1][:C]
	x02 := cols[0][2][:C]
	x03 := cols[0][3][:C]
	x04 := cols[0][4][:C]
	x05 := cols[0][5][:C]
	x06 := cols[0][6][:C]
	x10 := cols[1][0][:C]
	x11 := cols[1][1][:C]
	x12 := cols[1][2][:C]
	x13 := cols[1][3][:C]
	x14 := cols[1][4][:C]
	x15 := cols[1][5][:C]
	x16 := cols[1][6][:C]
	x20 := cols[2][0][:C]
	x21 := cols[2][1][:C]
	x22 := cols[2][2][:C]
	x23 := cols[2][3][:C]
	x24 := cols[2][4][:C]
	x25 := cols[2][5][:C]
	x26 := cols[2][6][:C]
	for c := range w {
		wc := &w[c]
		var a0, a1, a2 int32
		u := int32(wc[0])
		a0 += int32(x00[c]) * u
		a1 += int32(x02[c]) * u
		a2 += int32(x04[c]) * u
		u = int32(wc[1])
		a0 += int32(x01[c]) * u
		a1 += int32(x03[c]) * u
		a2 += int32(x05[c]) * u
		u = int32(wc[2])
		a0 += int32(x02[c]) * u
		a1 += int32(x04[c]) * u
		a2 += int32(x06[c]) * u
		u = int32(wc[3])
		a0 += int32(x10[c]) * u
		a1 += int32(x12[c]) * u
		a2 += int32(x14[c]) * u
		u = int32(wc[4])
		a0 += int32(x11[c]) * u
		a1 += int32(x13[c]) * u
		a2 += int32(x15[c]) * u
		u = int32(wc[5])
		a0 += int32(x12[c]) * u
		a1 += int32(x14[c]) * u
		a2 += int32(x16[c]) * u
		u = int32(wc[6])
		a0 += int32(x20[c]) * u
		a1 += int32(x22[c]) * u
		a2 += int32(x24[c]) * u
		u = int32(wc[7])
		a0 += int32(x21[c]) * u
		a1 += int32(x23[c]) * u
		a2 += int32(x25[c]) * u
		u = int32(wc[8])
		a0 += int32(x22[c]) * u
		a1 += int32(x24[c]) * u
		a2 += int32(x26[c]) * u
		r := rq[12*c : 12*c+12]
		bias := int32(uint32(r[0]) | uint32(r[1])<<8 | uint32(r[2])<<16 | uint32(r[3])<<24)
		mult2 := (uint32(r[4]) | uint32(r[5])<<8 | uint32(r[6])<<16 | uint32(r[7])<<24) << 1
		sh := int32(int8(r[8])) // the exponent is within [-31, 31]
		o := out[c:]
		if uint32(-sh-2) < fastN {
			// convRQR with zo added in the high word (convPWPair8).
			m, rm1 := mult2>>1, uint32(-sh-1)&31
			kh := uint32(1)<<(rm1-1&31) + uint32(zo)<<rm1
			o[0] = int8(max(min(convRQR(a0+bias, m, kh, rm1), hi), lo))
			if n > 1 {
				o[C] = int8(max(min(convRQR(a1+bias, m, kh, rm1), hi), lo))
				if n > 2 {
					o[2*C] = int8(max(min(convRQR(a2+bias, m, kh, rm1), hi), lo))
				}
			}
			continue
		}
		left, right := uint32(max(sh, 0))&31, uint32(max(-sh, 0))&31
		mask := uint32(1)<<right - 1
		half := mask - mask>>1 // 2^(r-1), 0 when r = 0
		neg := -min(right, 1)  // all ones when r > 0
		o[0] = int8(max(min(convRQ32(a0, bias, left, mult2, right, mask, half, neg)+zo, hi), lo))
		if n > 1 {
			o[C] = int8(max(min(convRQ32(a1, bias, left, mult2, right, mask, half, neg)+zo, hi), lo))
			if n > 2 {
				o[2*C] = int8(max(min(convRQ32(a2, bias, left, mult2, right, mask, half, neg)+zo, hi), lo))
			}
		}
	}
}
