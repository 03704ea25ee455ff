package kernels

// Int8 DEPTHWISE_CONV_2D with depth multiplier 1, chosen at generation time:
// out[oy][ox][c] = requant(sum_taps x*w[tap][c] + folded bias[c]).
//
// Each input row the window needs is copied once into a scratch slot with
// three horizontally adjacent output pixels packed into 21-bit lanes of an
// int64 (see conv_pw.go): slot[t][c][fx] holds the input values tap column
// fx reads for output pixels 3t, 3t+1 and 3t+2 of channel c. One 64-bit
// multiply by the tap's weight then gives three products, and the inner
// loop reads consecutive int64 values. Taps in the padding read the
// input zero point, which the folded bias (conv_rq.go) cancels, so borders
// need no separate path. Slots are kept in a ring indexed by input row, so
// a row shared by neighbouring output rows is packed once.

// dwRowsParams describes a depthwise convolution with depth multiplier 1.
type dwRowsParams struct {
	batches              int
	inH, inW, chans      int
	filterH, filterW     int // at most dwRowsMaxRows rows, dwRowsMaxTaps taps
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

// dwRowsMaxTaps bounds filterH*filterW: the products of a window that a
// 21-bit lane of the packed sums always holds.
const dwRowsMaxTaps = 63

// dwRowsInt8 runs the depthwise convolution. wt holds the weights
// re-laid-out channel-major, [chans][filterH][filterW], as uint8 w+128 for
// 3x3 filters (loaded with one instruction) and int8 otherwise; rq holds
// the requantization triples (conv_rq.go), expanded into rqs
// (chans*convRQLen int64 of scratch);
// slots is filterH*T*chans*filterW int64 of scratch, T = ceil(outW/3), and
// zrow chans int8 of scratch.
func dwRowsInt8(p *dwRowsParams, in []int8, wt, rq string, rqs []int64, slots []int64, zrow, out []int8) {
	convRQLoad(rq, rqs)
	for i := range zrow {
		zrow[i] = int8(p.inZP)
	}
	C, fH, fW := p.chans, p.filterH, p.filterW
	T := (p.outW + 2) / 3
	slotLen := C * T * fW
	w := constI8(wt)
	w = w[:C*fH*fW]
	wu := constU8(wt)
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
				// Consecutive rows (no dilation) get distinct slots modulo
				// fH; dilated windows use one slot per filter row.
				s := fy
				if p.dilationH == 1 {
					if s = iy % fH; s < 0 {
						s += fH
					}
				}
				slot := slots[s*slotLen : s*slotLen+slotLen]
				if tag[s] != iy {
					dwRowsBuild(p, x, zrow, iy, T, slot)
					tag[s] = iy
				}
				rows[fy] = slot
			}
			o := out[(b*p.outH+oy)*p.outW*C : (b*p.outH+oy+1)*p.outW*C]
			for t := 0; t < T; t++ {
				n := min(3, p.outW-3*t)
				ot := o[3*t*C : (3*t+n)*C]
				if fH == 3 && fW == 3 {
					r0, r1, r2 := rows[0], rows[1], rows[2]
					dwRows3x3(r0[t*C*3:(t+1)*C*3], r1[t*C*3:(t+1)*C*3], r2[t*C*3:(t+1)*C*3], wu, rqs, ot, p)
				} else {
					dwRowsAny(rows[:fH], t, w, rqs, ot, p)
				}
			}
		}
	}
}

// dwRowsBuild fills slot with input row iy (the zero point when the row is
// in the padding), lane-packed. zrow is chans int8 values of the input
// zero point.
func dwRowsBuild(p *dwRowsParams, x, zrow []int8, iy, T int, slot []int64) {
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
	zrow = zrow[:C]
	for t := 0; t < T; t++ {
		for fx := 0; fx < fW; fx++ {
			ix := 3*t*p.strideW - p.padW + fx*p.dilationW
			a := dwRowsSrc(row, zrow, ix, p.inW)
			b := dwRowsSrc(row, zrow, ix+p.strideW, p.inW)
			c := dwRowsSrc(row, zrow, ix+2*p.strideW, p.inW)
			b, c = b[:len(a)], c[:len(a)]
			j := t*C*fW + fx
			for ch, av := range a {
				slot[j] = int64(av) + int64(b[ch])<<21 + int64(c[ch])<<42
				j += fW
			}
		}
	}
}

// dwRowsSrc returns the channels of column ix of row (zrow when ix is in
// the padding).
func dwRowsSrc(row, zrow []int8, ix, w int) []int8 {
	if ix < 0 || ix >= w {
		return zrow
	}
	c := len(zrow)
	return row[ix*c : ix*c+c]
}

// dwRows3x3 computes the output pixel triple out (n = len(out)/chans of
// its pixels exist) of a 3x3 depthwise convolution from the triple's part
// of the slots of its three input rows ([chans][3] each). w holds the
// weights offset by 128 (uint8, [chans][9]); the offset is taken back as
// 128 times the sum of the nine packed inputs.
//
//go:noinline
func dwRows3x3(r0, r1, r2 []int64, w []uint8, rqs []int64, out []int8, p *dwRowsParams) {
	C := p.chans
	n := len(out) / C
	zo, lo, hi := p.outOffset, p.actMin, p.actMax
	r0, r1, r2 = r0[:3*C], r1[:3*C], r2[:3*C]
	w = w[:9*C]
	rqs = rqs[:convRQLen*C]
	for c := 0; c < C; c++ {
		q0 := r0[3*c : 3*c+3 : 3*c+3]
		q1 := r1[3*c : 3*c+3 : 3*c+3]
		q2 := r2[3*c : 3*c+3 : 3*c+3]
		wc := w[9*c : 9*c+9 : 9*c+9]
		a0, a1, a2, a3, a4, a5, a6, a7, a8 := q0[0], q0[1], q0[2], q1[0], q1[1], q1[2], q2[0], q2[1], q2[2]
		s := a0*int64(wc[0]) + a1*int64(wc[1]) + a2*int64(wc[2]) +
			a3*int64(wc[3]) + a4*int64(wc[4]) + a5*int64(wc[5]) +
			a6*int64(wc[6]) + a7*int64(wc[7]) + a8*int64(wc[8])
		s -= (a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8) << 7
		r := rqs[convRQLen*c : convRQLen*c+convRQLen : convRQLen*c+convRQLen]
		b, mult, left, total := int32(r[0]), r[1], uint64(r[2])&31, uint64(r[3])&63
		add, neg := r[4], r[5]
		for i := 0; i < n; i++ {
			v := s << 43 >> 43
			s = (s - v) >> 21
			x := int64((int32(v)+b)<<left) * mult
			y := int32((x + add - (x+1<<30)>>63&neg) >> total)
			out[i*C+c] = int8(max(min(y+zo, hi), lo))
		}
	}
}

// dwRowsAny computes the output pixel triple t, out (n = len(out)/chans of
// its pixels exist), of a depthwise convolution of any filter size from the
// slots of its filterH input rows.
func dwRowsAny(rows [][]int64, t int, w []int8, rqs []int64, out []int8, p *dwRowsParams) {
	C, fW := p.chans, p.filterW
	n := len(out) / C
	taps := len(rows) * fW
	zo, lo, hi := p.outOffset, p.actMin, p.actMax
	for c := 0; c < C; c++ {
		wc := w[taps*c : taps*c+taps]
		var s int64
		for fy, r := range rows {
			q := r[(t*C+c)*fW : (t*C+c+1)*fW]
			wr := wc[fy*fW : fy*fW+fW]
			wr = wr[:len(q)]
			for i, v := range q {
				s += v * int64(wr[i])
			}
		}
		r := rqs[convRQLen*c : convRQLen*c+convRQLen]
		b, mult, left, total := int32(r[0]), r[1], uint64(r[2])&31, uint64(r[3])&63
		add, neg := r[4], r[5]
		for i := 0; i < n; i++ {
			v := s << 43 >> 43
			s = (s - v) >> 21
			x := int64((int32(v)+b)<<left) * mult
			y := int32((x + add - (x+1<<30)>>63&neg) >> total)
			out[i*C+c] = int8(max(min(y+zo, hi), lo))
		}
	}
}
