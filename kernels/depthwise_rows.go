package kernels

// Int8 DEPTHWISE_CONV_2D with depth multiplier 1, chosen at generation time:
// out[oy][ox][c] = requant(sum_taps x*w[tap][c] + folded bias[c]).
//
// Each input row the window needs is transposed once into a scratch slot,
// channel-major, with three horizontally adjacent output pixels packed into
// 21-bit lanes of an int64 (see conv_pw.go): slot[c][t][fx] holds the input
// values tap column fx reads for output pixels 3t, 3t+1 and 3t+2. One
// 64-bit multiply by the tap's weight then gives three products, and the
// inner loop reads consecutive int64 values. Taps in the padding read the
// input zero point, which the folded bias (conv_rq.go) cancels, so borders
// need no separate path. Slots are kept in a ring indexed by input row, so
// a row shared by neighbouring output rows is transposed once.

// dwRowsParams describes a depthwise convolution with depth multiplier 1.
type dwRowsParams struct {
	batches              int
	inH, inW, chans      int
	filterH, filterW     int // at most dwRowsMaxRows rows, 63 taps
	outH, outW           int
	strideH, strideW     int
	dilationH, dilationW int
	padH, padW           int   // padding before the first row / column
	inZP                 int64 // input zero point, read for padded taps
	outOffset            int32 // output zero point
	actMin, actMax       int32 // quantized activation bounds
}

// dwRowsMaxRows bounds filterH (the ring of row slots is a local array).
const dwRowsMaxRows = 16

// dwRowsInt8 runs the depthwise convolution. wt holds the weights
// re-laid-out channel-major, [chans][filterH][filterW]; rq holds convRQLen
// records per channel, decoded into rqs (chans*convRQLen int32 of scratch);
// slots is filterH*chans*T*filterW int64 of scratch, T = ceil(outW/3).
func dwRowsInt8(p *dwRowsParams, in []int8, wt, rq string, rqs []int32, slots []int64, out []int8) {
	convRQLoad(rq, rqs)
	C, fH, fW := p.chans, p.filterH, p.filterW
	T := (p.outW + 2) / 3
	slotLen := C * T * fW
	w := constI8(wt)
	w = w[:C*fH*fW]
	img := p.inH * p.inW * C
	var tag [dwRowsMaxRows]int
	var rows [dwRowsMaxRows][]int64
	for b := 0; b < p.batches; b++ {
		x := in[b*img : b*img+img]
		for i := range tag {
			tag[i] = -1 << 30
		}
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			for fy := 0; fy < fH; fy++ {
				iy := iy0 + fy*p.dilationH
				s := iy % fH
				if s < 0 {
					s += fH
				}
				slot := slots[s*slotLen : s*slotLen+slotLen]
				if tag[s] != iy {
					dwRowsBuild(p, x, iy, T, slot)
					tag[s] = iy
				}
				rows[fy] = slot
			}
			o := out[(b*p.outH+oy)*p.outW*C : (b*p.outH+oy+1)*p.outW*C]
			if fH == 3 && fW == 3 {
				dwRows3x3(rows[0], rows[1], rows[2], w, T, rqs, o, p)
			} else {
				dwRowsAny(rows[:fH], w, T, rqs, o, p)
			}
		}
	}
}

// dwRowsBuild fills slot with input row iy (the zero point when the row is
// in the padding), transposed and lane-packed.
func dwRowsBuild(p *dwRowsParams, x []int8, iy, T int, slot []int64) {
	C, fW := p.chans, p.filterW
	zp := p.inZP
	if iy < 0 || iy >= p.inH {
		v := zp + zp<<21 + zp<<42
		for i := range slot {
			slot[i] = v
		}
		return
	}
	row := x[iy*p.inW*C : (iy+1)*p.inW*C]
	step := T * fW
	for t := 0; t < T; t++ {
		for fx := 0; fx < fW; fx++ {
			dst := slot[t*fW+fx:]
			for lane := 0; lane < 3; lane++ {
				sh := uint(21 * lane)
				ix := (3*t+lane)*p.strideW - p.padW + fx*p.dilationW
				if ix < 0 || ix >= p.inW {
					v := zp << sh
					for c := 0; c < C; c++ {
						if lane == 0 {
							dst[c*step] = v
						} else {
							dst[c*step] += v
						}
					}
					continue
				}
				src := row[ix*C : ix*C+C]
				if lane == 0 {
					for c, v := range src {
						dst[c*step] = int64(v)
					}
				} else {
					for c, v := range src {
						dst[c*step] += int64(v) << sh
					}
				}
			}
		}
	}
}

// dwRows3x3 computes one output row of a 3x3 depthwise convolution from the
// slots of its three input rows.
func dwRows3x3(r0, r1, r2 []int64, w []int8, T int, rqs []int32, out []int8, p *dwRowsParams) {
	C, W := p.chans, p.outW
	zo, lo, hi := p.outOffset, p.actMin, p.actMax
	n := 3 * T
	for c := 0; c < C; c++ {
		wc := (*[9]int8)(w[9*c:])
		w0, w1, w2 := int64(wc[0]), int64(wc[1]), int64(wc[2])
		w3, w4, w5 := int64(wc[3]), int64(wc[4]), int64(wc[5])
		w6, w7, w8 := int64(wc[6]), int64(wc[7]), int64(wc[8])
		a0, a1, a2 := r0[c*n:c*n+n], r1[c*n:c*n+n], r2[c*n:c*n+n]
		rc := rqs[c*convRQLen : c*convRQLen+convRQLen]
		mult, left, right := int64(rc[1]), uint32(rc[2])&31, uint32(rc[3])&31
		half, neg, bias := int64(rc[4]), int64(rc[5]), rc[0]
		o := out[c:]
		for t := 0; t < T; t++ {
			q0, q1, q2 := (*[3]int64)(a0[3*t:]), (*[3]int64)(a1[3*t:]), (*[3]int64)(a2[3*t:])
			s := q0[0]*w0 + q0[1]*w1 + q0[2]*w2 +
				q1[0]*w3 + q1[1]*w4 + q1[2]*w5 +
				q2[0]*w6 + q2[1]*w7 + q2[2]*w8
			for lane := 0; lane < 3; lane++ {
				v := s << 43 >> 43
				s = (s - v) >> 21
				ox := 3*t + lane
				if ox >= W {
					break
				}
				h := (int64((int32(v)+bias)<<left)*mult + 1<<30) >> 31
				h += half + (h>>63)&neg
				o[ox*C] = int8(max(min(int32(h>>right)+zo, hi), lo))
			}
		}
	}
}

// dwRowsAny computes one output row of a depthwise convolution of any
// filter size from the slots of its filterH input rows.
func dwRowsAny(rows [][]int64, w []int8, T int, rqs []int32, out []int8, p *dwRowsParams) {
	C, W, fW := p.chans, p.outW, p.filterW
	taps := len(rows) * fW
	zo, lo, hi := p.outOffset, p.actMin, p.actMax
	n := fW * T
	for c := 0; c < C; c++ {
		wc := w[taps*c : taps*c+taps]
		rc := rqs[c*convRQLen : c*convRQLen+convRQLen]
		mult, left, right := int64(rc[1]), uint32(rc[2])&31, uint32(rc[3])&31
		half, neg, bias := int64(rc[4]), int64(rc[5]), rc[0]
		o := out[c:]
		for t := 0; t < T; t++ {
			var s int64
			for fy, r := range rows {
				q := r[c*n+t*fW : c*n+t*fW+fW]
				wr := wc[fy*fW : fy*fW+fW]
				wr = wr[:len(q)]
				for i, v := range q {
					s += v * int64(wr[i])
				}
			}
			for lane := 0; lane < 3; lane++ {
				v := s << 43 >> 43
				s = (s - v) >> 21
				ox := 3*t + lane
				if ox >= W {
					break
				}
				h := (int64((int32(v)+bias)<<left)*mult + 1<<30) >> 31
				h += half + (h>>63)&neg
				o[ox*C] = int8(max(min(int32(h>>right)+zo, hi), lo))
			}
		}
	}
}
