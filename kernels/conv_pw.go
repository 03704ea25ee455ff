package kernels

// Int8 CONV_2D as a matrix multiply, chosen at generation time for
// ungrouped convolutions (and depthwise convolutions of one input channel):
// out[p][oc] = requant(sum_k x[p][k]*w[oc][k] + folded bias[oc]), where
// row p of x is output pixel p's window (all taps and input channels, in
// filter order). convPWInt8 takes the rows straight from the input (1x1
// filter, stride 1: pixel p's window is input pixel p); convWinInt8
// gathers them, writing the input zero point for taps in the padding: such
// a tap then adds zp*w, which the folded bias's inOffset*w cancels, exactly
// as the reference skips it.
//
// Three pixels are multiplied at once: their row values are packed into one
// int64 as 21-bit lanes (a + b<<21 + c<<42) in a scratch row, so one 64-bit
// multiply by a weight yields three products in separate lanes. Weights are
// stored offset by 128 as uint8 (u = w + 128), which the compiler loads with
// one indexed instruction; sum(x*w) = sum(x*u) - 128*sum(x), the second
// term being split from the packed row sums once per three pixels. A lane
// holds a signed sum of at most convPWChunk products of magnitude <= 32640,
// which stays inside (-2^20, 2^20), so the lanes are split exactly after
// every chunk of that many columns and added up in int32. Sums of a whole
// row then wrap like the reference's int32 accumulator.

// Columns a lane sums between splits: products (<= 32640), and plain
// inputs (<= 128) for the offset correction.
const (
	convPWChunk    = 32
	convPWSumChunk = 8191
)

// convPWParams describes a pointwise convolution.
type convPWParams struct {
	pixels         int   // batches * height * width
	inC, outC      int   // input and output channels
	outOffset      int32 // output zero point
	actMin, actMax int32 // quantized activation bounds
}

// convPWInt8 runs the pointwise convolution. wt holds the weights as rows
// [outC rounded up to a multiple of 4][inC] of uint8 w+128 (rows of 128 pad
// the last block); rq holds the requantization triples (conv_rq.go),
// expanded into rqs (outC*convRQLen int64 of scratch); xp is inC int64 of
// scratch.
func convPWInt8(p *convPWParams, in []int8, wt, rq string, rqs []int64, xp []int64, out []int8) {
	convRQLoad(rq, rqs)
	K, N, P := p.inC, p.outC, p.pixels
	w := constU8(wt)
	xp = xp[:K]
	in = in[:P*K]
	out = out[:P*N]
	for px := 0; px < P; px += 3 {
		n := min(3, P-px)
		convPWPack3(in[px*K:(px+n)*K], xp)
		convPWRows(xp, w, n, N, rqs, out[px*N:], p.outOffset, p.actMin, p.actMax)
	}
}

// convWinParams describes a convolution run through gathered windows.
type convWinParams struct {
	batches              int
	inH, inW, inC        int
	filterH, filterW     int
	outH, outW, outC     int
	strideH, strideW     int
	dilationH, dilationW int
	padH, padW           int   // padding before the first row / column
	inZP                 int64 // input zero point, written for padded taps
	outOffset            int32 // output zero point
	actMin, actMax       int32 // quantized activation bounds
}

// convWinInt8 runs a convolution whose filter is [outC][filterH][filterW]
// [inC], stored like convPWInt8's as uint8 rows of K = filterH*filterW*inC.
// Pixels are taken in triples along each output row. xp is K int64 of
// scratch.
func convWinInt8(p *convWinParams, in []int8, wt, rq string, rqs []int64, xp []int64, out []int8) {
	convRQLoad(rq, rqs)
	K := p.filterH * p.filterW * p.inC
	N := p.outC
	w := constU8(wt)
	xp = xp[:K]
	img := p.inH * p.inW * p.inC
	for b := 0; b < p.batches; b++ {
		x := in[b*img : b*img+img]
		for oy := 0; oy < p.outH; oy++ {
			o := out[(b*p.outH+oy)*p.outW*N : (b*p.outH+oy+1)*p.outW*N]
			for ox := 0; ox < p.outW; ox += 3 {
				n := min(3, p.outW-ox)
				convWinGather(p, x, oy, ox, n, xp)
				convPWRows(xp, w, n, N, rqs, o[ox*N:], p.outOffset, p.actMin, p.actMax)
			}
		}
	}
}

// convWinGather packs the windows of the n output pixels (oy, ox..ox+n-1)
// into the lanes of xp, the input zero point standing in for padding.
func convWinGather(p *convWinParams, x []int8, oy, ox, n int, xp []int64) {
	cin, fW := p.inC, p.filterW
	seg := fW * cin
	iy0 := oy*p.strideH - p.padH
	ix0 := ox*p.strideW - p.padW
	span := (fW - 1) * p.dilationW
	// Windows of all three pixels inside the row, taps contiguous: one pass.
	joint := n == 3 && p.dilationW == 1 && ix0 >= 0 && ix0+2*p.strideW+span < p.inW
	zp := p.inZP
	for fy := 0; fy < p.filterH; fy++ {
		dst := xp[fy*seg : fy*seg+seg]
		iy := iy0 + fy*p.dilationH
		if iy < 0 || iy >= p.inH {
			v := zp
			if n > 1 {
				v += zp << 21
			}
			if n > 2 {
				v += zp << 42
			}
			for i := range dst {
				dst[i] = v
			}
			continue
		}
		row := x[iy*p.inW*cin : (iy+1)*p.inW*cin]
		if joint {
			a := row[ix0*cin : ix0*cin+seg]
			b := row[(ix0+p.strideW)*cin : (ix0+p.strideW)*cin+seg]
			c := row[(ix0+2*p.strideW)*cin : (ix0+2*p.strideW)*cin+seg]
			b, c = b[:len(a)], c[:len(a)]
			dst = dst[:len(a)]
			for i, av := range a {
				dst[i] = int64(av) + int64(b[i])<<21 + int64(c[i])<<42
			}
			continue
		}
		for lane := 0; lane < n; lane++ {
			convWinLane(p, row, ix0+lane*p.strideW, dst, uint(21*lane))
		}
	}
}

// convWinLane packs one window row (taps starting at input column ix0 of
// row) into lane shift/21 of dst; lane 0 overwrites dst.
func convWinLane(p *convWinParams, row []int8, ix0 int, dst []int64, shift uint) {
	cin, fW := p.inC, p.filterW
	if p.dilationW == 1 {
		// Taps [lo, hi) are inside the row, the others in the padding.
		lo := min(max(-ix0, 0), fW)
		hi := max(min(p.inW-ix0, fW), lo)
		convWinPad(dst[:lo*cin], p.inZP<<shift, shift == 0)
		convWinPad(dst[hi*cin:], p.inZP<<shift, shift == 0)
		src := row[(ix0+lo)*cin : (ix0+hi)*cin]
		d := dst[lo*cin : hi*cin]
		d = d[:len(src)]
		if shift == 0 {
			for i, v := range src {
				d[i] = int64(v)
			}
		} else {
			for i, v := range src {
				d[i] += int64(v) << shift
			}
		}
		return
	}
	for fx := 0; fx < fW; fx++ {
		ix := ix0 + fx*p.dilationW
		d := dst[fx*cin : fx*cin+cin]
		if ix < 0 || ix >= p.inW {
			convWinPad(d, p.inZP<<shift, shift == 0)
			continue
		}
		src := row[ix*cin : ix*cin+cin]
		src = src[:len(d)]
		if shift == 0 {
			for i, v := range src {
				d[i] = int64(v)
			}
		} else {
			for i, v := range src {
				d[i] += int64(v) << shift
			}
		}
	}
}

// convWinPad writes (first) or adds v to every element of d.
func convWinPad(d []int64, v int64, first bool) {
	if first {
		for i := range d {
			d[i] = v
		}
		return
	}
	for i := range d {
		d[i] += v
	}
}

// convPWRows multiplies the n (1 to 3) lane-packed rows xp by every block of
// four output channels of w (uint8 rows of len(xp), offset by 128) and
// stores the rescaled results for the n pixels, whose outputs are N apart
// in out.
func convPWRows(xp []int64, w []uint8, n, N int, rqs []int64, out []int8, zo, lo, hi int32) {
	K := len(xp)
	// -128 * sum(x) for each pixel, from the lanes of the packed row sums
	// (split every convPWSumChunk columns, before a lane can overflow).
	var corr [3]int32
	for k0 := 0; k0 < K; k0 += convPWSumChunk {
		var sum int64
		for _, v := range xp[k0:min(k0+convPWSumChunk, K)] {
			sum += v
		}
		convPWSplit(sum, &corr)
	}
	for i := range corr {
		corr[i] *= -128
	}
	var v [4][3]int32
	for ob := 0; 4*ob < N; ob++ {
		w0 := w[4*ob*K : 4*ob*K+K]
		w1 := w[4*ob*K+K : 4*ob*K+2*K]
		w2 := w[4*ob*K+2*K : 4*ob*K+3*K]
		w3 := w[4*ob*K+3*K : 4*ob*K+4*K]
		v = [4][3]int32{corr, corr, corr, corr}
		for k0 := 0; k0 < K; k0 += convPWChunk {
			k1 := min(k0+convPWChunk, K)
			s0, s1, s2, s3 := convPWDot4(xp[k0:k1], w0[k0:k1], w1[k0:k1], w2[k0:k1], w3[k0:k1])
			convPWSplit(s0, &v[0])
			convPWSplit(s1, &v[1])
			convPWSplit(s2, &v[2])
			convPWSplit(s3, &v[3])
		}
		convPWStore(&v, n, min(4, N-4*ob), rqs[4*ob*convRQLen:], out[4*ob:], N, zo, lo, hi)
	}
}

// convPWStore rescales the sums v[j][i] of output channel j (record j of
// rqs) and pixel i, for n pixels and m channels, and stores them at
// out[i*N+j].
//
//go:noinline
func convPWStore(v *[4][3]int32, n, m int, rqs []int64, out []int8, N int, zo, lo, hi int32) {
	for j := 0; j < m; j++ {
		r := rqs[j*convRQLen : j*convRQLen+convRQLen]
		b, mult, left, total := int32(r[0]), r[1], uint64(r[2])&31, uint64(r[3])&63
		add, neg := r[4], r[5]
		vj := &v[j&3]
		if n == 3 {
			o := out[j : j+2*N+1]
			x0 := int64((vj[0]+b)<<left) * mult
			x1 := int64((vj[1]+b)<<left) * mult
			x2 := int64((vj[2]+b)<<left) * mult
			y0 := int32((x0 + add - (x0+1<<30)>>63&neg) >> total)
			y1 := int32((x1 + add - (x1+1<<30)>>63&neg) >> total)
			y2 := int32((x2 + add - (x2+1<<30)>>63&neg) >> total)
			o[0] = int8(max(min(y0+zo, hi), lo))
			o[N] = int8(max(min(y1+zo, hi), lo))
			o[2*N] = int8(max(min(y2+zo, hi), lo))
			continue
		}
		for i := 0; i < n; i++ {
			x := int64((vj[i%3]+b)<<left) * mult
			y := int32((x + add - (x+1<<30)>>63&neg) >> total)
			out[i*N+j] = int8(max(min(y+zo, hi), lo))
		}
	}
}

// convPWPack3 packs up to three pixels of x (len(x)/len(xp) of them, each
// len(xp) channels) into 21-bit lanes of xp; missing pixels are zero.
func convPWPack3(x []int8, xp []int64) {
	K := len(xp)
	switch len(x) / K {
	case 3:
		a, b, c := x[:K], x[K:2*K], x[2*K:3*K]
		b, c = b[:len(a)], c[:len(a)]
		xp = xp[:len(a)]
		for k, av := range a {
			xp[k] = int64(av) + int64(b[k])<<21 + int64(c[k])<<42
		}
	case 2:
		a, b := x[:K], x[K:2*K]
		b = b[:len(a)]
		xp = xp[:len(a)]
		for k, av := range a {
			xp[k] = int64(av) + int64(b[k])<<21
		}
	default:
		a := x[:K]
		xp = xp[:len(a)]
		for k, av := range a {
			xp[k] = int64(av)
		}
	}
}

// convPWSplit adds the three 21-bit lanes of s to v.
func convPWSplit(s int64, v *[3]int32) {
	a := s << 43 >> 43
	s = (s - a) >> 21
	b := s << 43 >> 43
	c := (s - b) >> 21
	v[0] += int32(a)
	v[1] += int32(b)
	v[2] += int32(c)
}

// convPWDot4 returns the lane-packed dot products of xp with four uint8
// weight rows of the same length.
//
//go:noinline
func convPWDot4(xp []int64, w0, w1, w2, w3 []uint8) (s0, s1, s2, s3 int64) {
	n := len(xp)
	w0, w1, w2, w3 = w0[:n], w1[:n], w2[:n], w3[:n]
	for k, xv := range xp {
		s0 += xv * int64(w0[k])
		s1 += xv * int64(w1[k])
		s2 += xv * int64(w2[k])
		s3 += xv * int64(w3[k])
	}
	return
}
