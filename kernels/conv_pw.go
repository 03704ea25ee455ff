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
// multiply by a weight yields three products in separate lanes. A lane
// holds a signed sum of at most 64 products of magnitude <= 16256 (or 63
// products when a weight is -128), which stays inside (-2^20, 2^20), so the
// lanes are split exactly after every chunk of that many columns and added
// up in int32. Sums of a whole row then wrap like the reference's int32
// accumulator.

// convPWParams describes a pointwise convolution.
type convPWParams struct {
	pixels         int   // batches * height * width
	inC, outC      int   // input and output channels
	chunk          int   // columns per lane split (64, or 63)
	outOffset      int32 // output zero point
	actMin, actMax int32 // quantized activation bounds
}

// convPWInt8 runs the pointwise convolution. wt holds the weights
// re-laid-out in blocks of four output channels, [outC/4 rounded up][inC][4]
// (zero weights pad the last block); rq holds convRQLen records per output
// channel, decoded into rqs (outC*convRQLen int32 of scratch); xp is inC
// int64 of scratch.
func convPWInt8(p *convPWParams, in []int8, wt, rq string, rqs []int32, xp []int64, out []int8) {
	convRQLoad(rq, rqs)
	K, N, P := p.inC, p.outC, p.pixels
	w := constI8(wt)
	xp = xp[:K]
	in = in[:P*K]
	out = out[:P*N]
	for px := 0; px < P; px += 3 {
		n := min(3, P-px)
		convPWPack3(in[px*K:(px+n)*K], xp)
		convPWRows(xp, w, n, N, p.chunk, rqs, out[px*N:], p.outOffset, p.actMin, p.actMax)
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
	chunk                int   // columns per lane split (64, or 63)
	inZP                 int64 // input zero point, written for padded taps
	outOffset            int32 // output zero point
	actMin, actMax       int32 // quantized activation bounds
}

// convWinInt8 runs a convolution whose filter is [outC][filterH][filterW]
// [inC], re-laid-out like convPWInt8's as [outC/4 rounded up][K][4] with
// K = filterH*filterW*inC. xp is K int64 of scratch.
func convWinInt8(p *convWinParams, in []int8, wt, rq string, rqs []int32, xp []int64, out []int8) {
	convRQLoad(rq, rqs)
	K := p.filterH * p.filterW * p.inC
	N := p.outC
	w := constI8(wt)
	xp = xp[:K]
	pix := p.outH * p.outW
	img := p.inH * p.inW * p.inC
	for b := 0; b < p.batches; b++ {
		x := in[b*img : b*img+img]
		o := out[b*pix*N : (b+1)*pix*N]
		for px := 0; px < pix; px += 3 {
			n := min(3, pix-px)
			for i := 0; i < n; i++ {
				convWinGather(p, x, (px+i)/p.outW, (px+i)%p.outW, xp, uint(21*i))
			}
			convPWRows(xp, w, n, N, p.chunk, rqs, o[px*N:], p.outOffset, p.actMin, p.actMax)
		}
	}
}

// convWinGather adds the window of output pixel (oy, ox) into lane shift/21
// of xp (lane 0 overwrites), the input zero point standing in for padding.
func convWinGather(p *convWinParams, x []int8, oy, ox int, xp []int64, shift uint) {
	cin := p.inC
	iy0 := oy*p.strideH - p.padH
	ix0 := ox*p.strideW - p.padW
	pad := p.inZP << shift
	k := 0
	for fy := 0; fy < p.filterH; fy++ {
		iy := iy0 + fy*p.dilationH
		for fx := 0; fx < p.filterW; fx++ {
			ix := ix0 + fx*p.dilationW
			dst := xp[k : k+cin]
			k += cin
			if iy < 0 || iy >= p.inH || ix < 0 || ix >= p.inW {
				for i := range dst {
					if shift == 0 {
						dst[i] = pad
					} else {
						dst[i] += pad
					}
				}
				continue
			}
			src := x[(iy*p.inW+ix)*cin:]
			src = src[:len(dst)]
			if shift == 0 {
				for i, v := range src {
					dst[i] = int64(v)
				}
			} else {
				for i, v := range src {
					dst[i] += int64(v) << shift
				}
			}
		}
	}
}

// convPWRows multiplies the n (1 to 3) lane-packed rows xp by every block of
// four output channels of w ([blocks][len(xp)][4]) and stores the rescaled
// results for the n pixels, whose outputs are N apart in out.
func convPWRows(xp []int64, w []int8, n, N, chunk int, rqs []int32, out []int8, zo, lo, hi int32) {
	K := len(xp)
	var v [3][4]int32
	for ob := 0; 4*ob < N; ob++ {
		wb := w[ob*4*K : ob*4*K+4*K]
		v = [3][4]int32{}
		for k0 := 0; k0 < K; k0 += chunk {
			k1 := min(k0+chunk, K)
			s0, s1, s2, s3 := convPWDot4(xp[k0:k1], wb[4*k0:4*k1])
			convPWSplit(s0, &v, 0)
			convPWSplit(s1, &v, 1)
			convPWSplit(s2, &v, 2)
			convPWSplit(s3, &v, 3)
		}
		m := min(4, N-4*ob)
		r := rqs[4*ob*convRQLen:]
		for j := 0; j < m; j++ {
			rj := r[j*convRQLen : j*convRQLen+convRQLen]
			mult, left, right := int64(rj[1]), uint32(rj[2])&31, uint32(rj[3])&31
			half, neg, b := int64(rj[4]), int64(rj[5]), rj[0]
			for i := 0; i < n; i++ {
				h := (int64((v[i][j&3]+b)<<left)*mult + 1<<30) >> 31
				h += half + (h>>63)&neg
				out[i*N+4*ob+j] = int8(max(min(int32(h>>right)+zo, hi), lo))
			}
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

// convPWSplit adds the three 21-bit lanes of s to column j of v.
func convPWSplit(s int64, v *[3][4]int32, j int) {
	a := s << 43 >> 43
	s = (s - a) >> 21
	b := s << 43 >> 43
	c := (s - b) >> 21
	v[0][j&3] += int32(a)
	v[1][j&3] += int32(b)
	v[2][j&3] += int32(c)
}

// convPWDot4 returns the lane-packed dot products of xp with four
// interleaved weight rows w ([len(xp)][4]).
//
//go:noinline
func convPWDot4(xp []int64, w []int8) (s0, s1, s2, s3 int64) {
	w = w[:4*len(xp)]
	for i, xv := range xp {
		q := (*[4]int8)(w[4*i:])
		s0 += xv * int64(q[0])
		s1 += xv * int64(q[1])
		s2 += xv * int64(q[2])
		s3 += xv * int64(q[3])
	}
	return
}
