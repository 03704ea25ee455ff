package kernels

import "unsafe"

// Int8 DEPTHWISE_CONV_2D with depth multiplier 1 and a 3x3 filter (no
// dilation, horizontal stride 1 or 2) without scratch memory: the variant
// for layers where dwRowsInt8's row slots would enlarge the arena.
//
// As in dwRowsInt8, three horizontally adjacent output pixels of a channel
// share each 64-bit multiply: the three input values a tap reads for them
// are packed into 21-bit lanes, pixel j in bits 21j.., and multiplied by
// the tap's weight. Here the packing is done straight from the input, for
// each output triple, dwLeanBlock channels at a time. Inputs are packed as
// u = x+128 (0..255, the byte with its top bit flipped), so a lane is a sum
// of nine products of magnitude at most 255*128 (below 2^20) and stays
// exact. The 2*strideW+3 input columns of a window row are loaded once and
// shared by the three taps that read them. Taps in the padding read zrow, a
// constant row of the input zero point; the bias in rq is folded
// accordingly (bias - (zero point+128)*sum of the channel's weights), which
// makes every sum TFLM's int32 accumulator.

// dwLeanParams describes a 3x3 depthwise convolution with depth multiplier
// 1 and no dilation.
type dwLeanParams struct {
	batches          int
	inH, inW, chans  int
	outH, outW       int
	strideH, strideW int   // strideW is 1 or 2
	padH, padW       int   // padding before the first row / column
	outOffset        int32 // output zero point
	actMin, actMax   int32 // quantized activation bounds
}

// dwLeanBlock is the number of channels dwLeanInt8 accumulates at once.
const dwLeanBlock = 16

// dwLeanFlip flips the top bit of each of three packed bytes: x -> x+128.
const dwLeanFlip = 0x80<<42 | 0x80<<21 | 0x80

// dwLeanInt8 runs the convolution. w holds the filter row by row, each
// row channel-major ([3][chans][3]), as uint8 w+128 (loaded with one
// instruction; the offset is taken back as 128 times the packed inputs),
// zrow chans bytes of the input zero point, rq one
// fcRQRecordLen-byte record per channel (folded bias and requantization,
// see fc_rq.go).
func dwLeanInt8(p *dwLeanParams, in []int8, w, zrow, rq string, out []int8) {
	C := p.chans
	wv := unsafe.Slice((*[3]uint8)(unsafe.Pointer(unsafe.StringData(w))), len(w)/3)
	wv = wv[:3*C]
	z := constU8(zrow)
	z = z[:C]
	rq = rq[:fcRQRecordLen*C]
	img := p.inH * p.inW * C
	xu := unsafe.Slice((*uint8)(unsafe.Pointer(unsafe.SliceData(in))), len(in))
	T := (p.outW + 2) / 3
	nc := 2*p.strideW + 3
	var acc [dwLeanBlock]int64
	var cols [7][]uint8
	for b := 0; b < p.batches; b++ {
		x := xu[b*img : b*img+img]
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			o := out[(b*p.outH+oy)*p.outW*C : (b*p.outH+oy+1)*p.outW*C]
			for t := 0; t < T; t++ {
				ix0 := 3*t*p.strideW - p.padW
				n := min(3, p.outW-3*t)
				ot := o[3*t*C : (3*t+n)*C]
				for c0 := 0; c0 < C; c0 += dwLeanBlock {
					m := min(dwLeanBlock, C-c0)
					a := acc[:m]
					clear(a)
					for fy := 0; fy < 3; fy++ {
						iy := iy0 + fy
						for k := 0; k < nc; k++ {
							ix := ix0 + k
							if iy >= 0 && iy < p.inH && ix >= 0 && ix < p.inW {
								q := (iy*p.inW+ix)*C + c0
								cols[k] = x[q : q+m]
							} else {
								cols[k] = z[c0 : c0+m]
							}
						}
						wr := wv[fy*C+c0 : fy*C+c0+m]
						if p.strideW == 1 {
							dwLeanRow(a, cols[0], cols[1], cols[2], cols[3], cols[4], wr)
						} else {
							dwLeanRow2(a, &cols, wr)
						}
					}
					dwLeanStore(a, n, rq[fcRQRecordLen*c0:], p, ot[c0:])
				}
			}
		}
	}
}

// dwLeanRow adds to the lane sums a of a block of channels one filter row
// with horizontal stride 1: x0..x4 are the block's values in the row's five
// window columns, w the three taps' weights of each channel.
//
//go:noinline
func dwLeanRow(a []int64, x0, x1, x2, x3, x4 []uint8, w [][3]uint8) {
	x0, x1, x2, x3, x4 = x0[:len(a)], x1[:len(a)], x2[:len(a)], x3[:len(a)], x4[:len(a)]
	w = w[:len(a)]
	for c := range a {
		v0 := (int64(x0[c]) | int64(x1[c])<<21 | int64(x2[c])<<42) ^ dwLeanFlip
		v1 := v0>>21 | (int64(x3[c])^0x80)<<42
		v2 := v1>>21 | (int64(x4[c])^0x80)<<42
		wc := &w[c]
		a[c] += v0*int64(wc[0]) + v1*int64(wc[1]) + v2*int64(wc[2]) - (v0+v1+v2)<<7
	}
}

// dwLeanRow2 is dwLeanRow for horizontal stride 2: the row has seven window
// columns.
//
//go:noinline
func dwLeanRow2(a []int64, x *[7][]uint8, w [][3]uint8) {
	x0, x1, x2, x3 := x[0][:len(a)], x[1][:len(a)], x[2][:len(a)], x[3][:len(a)]
	x4, x5, x6 := x[4][:len(a)], x[5][:len(a)], x[6][:len(a)]
	w = w[:len(a)]
	for c := range a {
		v0 := (int64(x0[c]) | int64(x2[c])<<21 | int64(x4[c])<<42) ^ dwLeanFlip
		v1 := (int64(x1[c]) | int64(x3[c])<<21 | int64(x5[c])<<42) ^ dwLeanFlip
		v2 := v0>>21 | (int64(x6[c])^0x80)<<42
		wc := &w[c]
		a[c] += v0*int64(wc[0]) + v1*int64(wc[1]) + v2*int64(wc[2]) - (v0+v1+v2)<<7
	}
}

// dwLeanStore splits the lane sums a of a block of channels, adds each
// channel's folded bias (its record in rq), requantizes, clamps and writes
// the first n pixels of the triple (out starts at the block's first
// channel, pixels chans apart).
func dwLeanStore(a []int64, n int, rq string, p *dwLeanParams, out []int8) {
	C := p.chans
	zo, lo, hi := p.outOffset, p.actMin, p.actMax
	rq = rq[:fcRQRecordLen*len(a)]
	for c, s := range a {
		t := rq[fcRQRecordLen*c : fcRQRecordLen*c+fcRQRecordLen]
		q := fcMakeRQ(ld32(t, 1), ld32(t, 2), t[12], t[13])
		bias := ld32(t, 0)
		v0 := s << 43 >> 43
		s = (s - v0) >> 21
		v1 := s << 43 >> 43
		v2 := (s - v1) >> 21
		r0 := int8(min(max(fcRescale(int32(v0)+bias, q)+zo, lo), hi))
		r1 := int8(min(max(fcRescale(int32(v1)+bias, q)+zo, lo), hi))
		r2 := int8(min(max(fcRescale(int32(v2)+bias, q)+zo, lo), hi))
		switch n {
		case 3:
			o := out[c : c+2*C+1]
			o[0], o[C], o[2*C] = r0, r1, r2
		case 2:
			o := out[c : c+C+1]
			o[0], o[C] = r0, r1
		default:
			out[c] = r0
		}
	}
}
