package kernels

import "unsafe"

// convLeanInt8 is the scratch-free fast int8 convolution, for ungrouped
// convolutions (and depthwise convolutions of one input channel, which are
// convolutions with one input channel) where the planner has no room for
// the scratch rows of convPWInt8 and convWinInt8. Like convInt8 it skips the
// taps in the padding and computes, per output channel, the reference's
// int32 sum of w*(x - zp) over the taps inside the image.
//
// Eight output channels are computed at once, two per 64-bit multiply, in
// registers, one filter row (or, with dilation, one tap) per call of
// convLean8. Weights are stored offset by 128, u = w+128 in [0, 255], and
// paired: for each block of eight output channels and each index k of the
// filter order (taps, then input channels), four little-endian int64
// u(2j) + u(2j+1)<<32 (channels past outC have u = 128, a zero weight).
// With v = x - zp in [-255, 255], v*(u0 + u1<<32) = v*u0 + (v*u1)<<32, and
//
//	sum(w*v) = sum(u*v) - 128*sum(v)
//
// where sum(v) is shared by the block. The generator uses this kernel only
// when K*255*255 < 2^31, so each lane's sum of u*v is an exact int32: the
// low lane is the int64's low 32 bits and the high lane what remains,
// shifted down. Inputs are read as uint8, which gc loads with indexed
// addressing, and their top bit flipped: x+128.
func convLeanInt8(p *convParams, in []int8, wt string, bias, mult, shift string, out []int8) {
	inRow := p.inW * p.inC
	inImg := p.inH * inRow
	K := p.filterH * p.filterW * p.inC
	w := constU8(wt)
	x := unsafe.Slice((*uint8)(unsafe.Pointer(unsafe.SliceData(in))), len(in))
	off := int64(p.inOffset) - 128
	o := 0
	for b := 0; b < p.batches; b++ {
		img := x[b*inImg : (b+1)*inImg]
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			fy0, fy1 := convTaps(iy0, p.dilationH, p.filterH, p.inH)
			for ox := 0; ox < p.outW; ox++ {
				ix0 := ox*p.strideW - p.padW
				fx0, fx1 := convTaps(ix0, p.dilationW, p.filterW, p.inW)
				for c0 := 0; c0 < p.outC; c0 += 8 {
					blk := w[4*c0*K : 4*(c0+8)*K]
					var s [4]int64
					var sv int64
					for fy := fy0; fy < fy1 && fx1 > fx0; fy++ {
						rowIn := (iy0 + fy*p.dilationH) * inRow
						k0 := fy * p.filterW * p.inC
						if p.dilationW == 1 {
							// The row's taps are contiguous in the input
							// and in the filter.
							seg := img[rowIn+(ix0+fx0)*p.inC : rowIn+(ix0+fx1)*p.inC]
							a0, a1, a2, a3, v := convLean8(seg, blk[32*(k0+fx0*p.inC):], off)
							s[0], s[1], s[2], s[3], sv = s[0]+a0, s[1]+a1, s[2]+a2, s[3]+a3, sv+v
							continue
						}
						for fx := fx0; fx < fx1; fx++ {
							px := rowIn + (ix0+fx*p.dilationW)*p.inC
							a0, a1, a2, a3, v := convLean8(img[px:px+p.inC], blk[32*(k0+fx*p.inC):], off)
							s[0], s[1], s[2], s[3], sv = s[0]+a0, s[1]+a1, s[2]+a2, s[3]+a3, sv+v
						}
					}
					convLeanStore(p, &s, int32(128*sv), c0, bias, mult, shift, out[o:o+p.outC])
				}
				o += p.outC
			}
		}
	}
}

// convLean8 returns, for the four pairs of weight lanes of w (32 bytes per
// element of x), the sums of v*pair, and the sum of v, where v = (x[i] with
// its top bit flipped) + off. It is kept out of line: inlined into
// convLeanInt8's loops, its sums would not all stay in registers.
//
//go:noinline
func convLean8(x []uint8, w []uint8, off int64) (p0, p1, p2, p3, sv int64) {
	wq := unsafe.Slice((*[32]byte)(unsafe.Pointer(unsafe.SliceData(w))), len(w)/32)
	wq = wq[:len(x)]
	for i, xb := range x {
		v := int64(xb^0x80) + off
		q := &wq[i]
		sv += v
		p0 += v * int64(le64((*[8]byte)(q[0:8])))
		p1 += v * int64(le64((*[8]byte)(q[8:16])))
		p2 += v * int64(le64((*[8]byte)(q[16:24])))
		p3 += v * int64(le64((*[8]byte)(q[24:32])))
	}
	return
}

// convLeanStore splits the block's paired sums into the eight channel sums,
// subtracts corr (128*sum(v)) and finishes the channels c0.. that exist
// with dwFinish.
func convLeanStore(p *convParams, s *[4]int64, corr int32, c0 int, bias, mult, shift string, out []int8) {
	var a [8]int32
	for j, pair := range s {
		lo := int32(pair)
		a[2*j], a[2*j+1] = lo-corr, int32((pair-int64(lo))>>32)-corr
	}
	dwFinish(a[:min(8, len(out)-c0)], c0, bias, mult, shift, p.outOffset, p.actMin, p.actMax, out)
}
