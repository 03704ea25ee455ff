package kernels

import "unsafe"

// convRowsTriInt8 is convRowsInt8 three pixels at a time (the generator's
// choice in the build for gc) on 32-bit cores (64-bit ones, whose
// registers hold the pairs' sums and more, keep convRowsInt8's pairs).
// Its weights are convRowsInt8's with each channel pair's window padded
// with zero weights to Kp, a multiple of 32 values, at most convRowsTriK.
// For an even number of output channels and enough pixels whose windows
// lie inside the image (a multiple of three, or at least convRowsTriMin),
// each block of up to convRowsTriBlk channels whose requantizations
// convPWQ computes exactly goes to convRowsTri for those pixels and to
// convRowsInt8's pairs for the others (the edges), or to convRowsTri
// alone where no window reaches past the top or left edge; other blocks
// and layers go to convRowsInt8's pairs.
//
// convRowsInt8's pairs take one multiply-add and two byte loads for two
// products (two pixels by two channels), and a window row of few values
// costs them its loop's steps. convRowsTri gathers the windows of three
// pixels into a stack array, 32 values of each a step (convPWTriRows'
// layout), zeros after the window's K values; then convRowsTriTile loads
// two weights and three values for six products, with the six sums, two
// pointers and a count in gc's registers. The gather costs about a load
// and a store a word (inC a multiple of 32, the input word-aligned), or a
// copy a window row, once for each block of channels.
func convRowsTriInt8(p *convRowsParams, in []int8, wt, rq string, out []int8) {
	C, N := p.inC, p.outC
	K := p.filterH * p.filterW * C
	Kp := (K + 31) &^ 31
	oy0, oy1 := convRowsInside(p.padH, p.strideH, p.inH, p.filterH, p.outH)
	ox0, ox1 := convRowsInside(p.padW, p.strideW, p.inW, p.filterW, p.outW)
	n := max(oy1-oy0+1, 0) * max(ox1-ox0+1, 0)
	// Where no window reaches past the top or left edge (VALID, or SAME
	// with stride 2 on an even size: padding after the image only), every
	// pixel goes three at a time, the zero point gathered for the taps in
	// the padding: measured on the grid's shapes, that beats the pairs'
	// edge paths, which windows cut at the top and left too take cheaply.
	all := p.padH == 0 && p.padW == 0
	if all {
		n = p.outH * p.outW
	}
	if convPW64 || K <= 0 || Kp > convRowsTriK || N%2 != 0 || len(in) == 0 || p.batches <= 0 ||
		n <= 0 || (n%3 != 0 && n < convRowsTriMin) {
		convRowsPairs(p, in, wt, rq, out, 0, N, false, Kp)
		return
	}
	w2 := unsafe.Slice((*[2]int8)(unsafe.Pointer(unsafe.StringData(wt))), len(wt)/2)
	w2 = w2[:N/2*Kp]
	for ob := 0; ob < N; ob += convRowsTriBlk {
		hi := min(ob+convRowsTriBlk, N)
		tri := convRowsTri(p, in, w2[ob/2*Kp:hi/2*Kp], rq, ob, hi-ob, all, out)
		if !tri || !all {
			convRowsPairs(p, in, wt, rq, out, ob, hi, tri, Kp)
		}
	}
}

// convRowsTriBlk is how many output channels convRowsTri computes a call.
const convRowsTriBlk = 32

// convRowsTriK is the longest window, padded, that convRowsTriInt8
// gathers (3x3 of 64 channels).
const convRowsTriK = 576

// convRowsTriMin is the fewest inside pixels convRowsTriInt8 takes three
// at a time when their number is not a multiple of three (convRowsTri
// then computes one or two of them twice).
const convRowsTriMin = 24

// convRowsInterior returns the first and last output rows (or columns) of
// a dimension whose windows lie inside the input: padding pad before the
// first, stride s, input size in, filter size f and output size out (lo >
// hi when none do).
func convRowsInterior(pad, s, in, f, out int) (lo, hi int) {
	return (pad + s - 1) / s, min((in-f+pad)/s, out-1)
}

// convRowsInside is convRowsInterior where the window may pass the
// input's end with no padding before it (in-f+pad < 0: a negative
// quotient would round up to 0): then no row is inside. (convRowsPair's
// hot loop keeps convRowsInterior, which it reaches only after
// convRowsTri found inside rows.)
func convRowsInside(pad, s, in, f, out int) (lo, hi int) {
	if in-f+pad < 0 {
		return 1, 0
	}
	return convRowsInterior(pad, s, in, f, out)
}

// convRowsTri computes output channels ob..ob+nb-1 (nb even, at most
// convRowsTriBlk; w their weights, from channel pair ob/2 on, windows
// padded to a multiple of 32) of the pixels whose windows lie inside the
// image, or with all of every pixel, three at a time in raster order (a
// last group of one or two pixels computed as three, its last pixel
// repeated). It reports false, having written nothing, when convPWQ is
// not exact for every one of the channels. Its caller has checked the
// layer (convRowsTriInt8).
//
//go:noinline
func convRowsTri(p *convRowsParams, in []int8, w [][2]int8, rq string, ob, nb int, all bool, out []int8) bool {
	C, N := p.inC, p.outC
	L := p.filterW * C
	K := p.filterH * L
	Kp := (K + 31) &^ 31
	var recs [convRowsTriBlk]convPWCh
	if nb <= 0 || nb > convRowsTriBlk || nb%2 != 0 || ob+nb > N || Kp > convRowsTriK ||
		!convPWChDecode(rq[12*ob:12*(ob+nb)], K, p.outOffset, p.actMin, recs[:nb]) {
		return false
	}
	oy0, oy1 := convRowsInside(p.padH, p.strideH, p.inH, p.filterH, p.outH)
	ox0, ox1 := convRowsInside(p.padW, p.strideW, p.inW, p.filterW, p.outW)
	if all {
		oy0, oy1, ox0, ox1 = 0, p.outH-1, 0, p.outW-1
	}
	W := ox1 - ox0 + 1
	if oy1 < oy0 || W <= 0 {
		return true
	}
	n := (oy1 - oy0 + 1) * W // the pixels, row by row
	rs := p.inW * C
	img := p.inH * rs
	P := p.outH * p.outW
	in = in[:p.batches*img]
	out = out[:p.batches*P*N]
	w = w[:nb/2*Kp]
	// Word copies where every window row starts at a word (and so, unless
	// all, the window of pixel (oy1, ox1) ends inside each image); the
	// outputs of channels ob..ob+nb-1 of that pixel lie inside out.
	words := C%32 == 0 && uintptr(unsafe.Pointer(&in[0]))&3 == 0
	if words && !all {
		_ = in[(p.batches-1)*img+(oy1*p.strideH-p.padH+p.filterH-1)*rs+(ox1*p.strideW-p.padW)*C+L-1]
	}
	_ = out[((p.batches-1)*P+oy1*p.outW+ox1)*N+ob+nb-1]
	zp := uint32(uint8(int8(p.inZP))) * 0x01010101
	// The windows, their values K..Kp-1 zero (never written).
	var tri [3 * convRowsTriK / 4]uint32 // word-aligned
	var g convPWRunArgs
	g.nb, g.K8, g.span, g.hi = nb, Kp/8, p.actMax-p.actMin, p.actMax
	g.pwt, g.tp = unsafe.Pointer(&w[0]), unsafe.Pointer(&recs[0])
	var px [3]int // the three pixels' offsets in the image (output)
	for b := 0; b < p.batches; b++ {
		x := in[b*img : b*img+img]
		g.pout = unsafe.Pointer(&out[b*P*N+ob])
		for i := 0; i < n; i += 3 {
			for q := range px {
				k := min(i+q, n-1)
				oy, ox := oy0+k/W, ox0+k%W
				px[q] = oy*p.outW + ox
				dst := unsafe.Add(unsafe.Pointer(&tri), 32*q)
				iy0, ix0 := oy*p.strideH-p.padH, ox*p.strideW-p.padW
				switch {
				case !words:
					convRowsTriBytes(p, x, iy0, ix0, (*[3 * convRowsTriK]int8)(unsafe.Pointer(&tri)), q)
				case all:
					convRowsTriWin(p, x, iy0, ix0, dst, zp)
				default:
					src := unsafe.Add(unsafe.Pointer(&x[0]), iy0*rs+ix0*C)
					for fy := 0; fy < p.filterH; fy++ {
						convPWTriRows3(unsafe.Add(src, fy*rs), unsafe.Add(dst, 3*fy*L), L)
					}
				}
			}
			g.oa, g.ob, g.oc = px[0]*N, px[1]*N, px[2]*N
			convRowsTriTile(&g, unsafe.Pointer(&tri))
		}
	}
	return true
}

// convRowsTriBytes is convRowsTriWin for any inC and input alignment:
// the window of the pixel whose taps start at input row iy0 and column
// ix0 into pixel q's place in tri (value k at 3*(k-k%32) + 32*q + k%32),
// the input zero point for taps in the padding, a run of values at a
// time.
func convRowsTriBytes(p *convRowsParams, x []int8, iy0, ix0 int, tri *[3 * convRowsTriK]int8, q int) {
	C := p.inC
	L := p.filterW * C
	rs := p.inW * C
	zp := int8(p.inZP)
	k := 0 // the window's next value
	// put writes the n values of src (nil: zp) as values k.. of the window.
	put := func(src []int8, n int) {
		for n > 0 {
			m := min(n, 32-k%32)
			d := tri[3*(k-k%32)+32*q+k%32:][:m]
			if src == nil {
				for j := range d {
					d[j] = zp
				}
			} else {
				copy(d, src[:m])
				src = src[m:]
			}
			k, n = k+m, n-m
		}
	}
	for fy := 0; fy < p.filterH; fy++ {
		iy := iy0 + fy
		switch {
		case iy < 0 || iy >= p.inH:
			put(nil, L)
		case ix0 >= 0 && ix0+p.filterW <= p.inW:
			put(x[iy*rs+ix0*C:][:L], L)
		default:
			for fx := 0; fx < p.filterW; fx++ {
				if ix := ix0 + fx; ix < 0 || ix >= p.inW {
					put(nil, C)
				} else {
					put(x[iy*rs+ix*C:][:C], C)
				}
			}
		}
	}
}

// convRowsTriWin writes the window of the pixel whose taps start at input
// row iy0 and column ix0 (filter order, inC a multiple of 32, the input
// word-aligned) to dst as convPWTriRows3 does, zp (the input zero point in
// each byte) for taps in the padding.
func convRowsTriWin(p *convRowsParams, x []int8, iy0, ix0 int, dst unsafe.Pointer, zp uint32) {
	C := p.inC
	L := p.filterW * C
	rs := p.inW * C
	for fy := 0; fy < p.filterH; fy++ {
		d := unsafe.Add(dst, 3*fy*L)
		iy := iy0 + fy
		switch {
		case iy < 0 || iy >= p.inH:
			convRowsTriFill(d, L, zp)
		case ix0 >= 0 && ix0+p.filterW <= p.inW:
			_ = x[iy*rs+ix0*C+L-1]
			convPWTriRows3(unsafe.Pointer(&x[iy*rs+ix0*C]), d, L)
		default:
			for fx := 0; fx < p.filterW; fx++ {
				if ix := ix0 + fx; ix < 0 || ix >= p.inW {
					convRowsTriFill(unsafe.Add(d, 3*fx*C), C, zp)
				} else {
					_ = x[iy*rs+ix*C+C-1]
					convPWTriRows3(unsafe.Pointer(&x[iy*rs+ix*C]), unsafe.Add(d, 3*fx*C), C)
				}
			}
		}
	}
}

// convRowsTriFill is convPWTriRows3 writing n bytes of the word z.
func convRowsTriFill(dst unsafe.Pointer, n int, z uint32) {
	for c := 0; c < n; c += 32 {
		d := (*[8]uint32)(unsafe.Add(dst, 3*c))
		d[0], d[1], d[2], d[3] = z, z, z, z
		d[4], d[5], d[6], d[7] = z, z, z, z
	}
}

// convPWTriRows3 copies n values (a multiple of 32) from src to the first
// 32 bytes of every 96 from dst on: a window row of one of three pixels
// into convPWTriRows' layout for 32 columns a step. src and dst hold
// words at multiples of four.
func convPWTriRows3(src, dst unsafe.Pointer, n int) {
	for c := 0; c < n; c += 32 {
		s := (*[8]uint32)(unsafe.Add(src, c))
		d := (*[8]uint32)(unsafe.Add(dst, 3*c))
		d[0], d[1], d[2], d[3] = s[0], s[1], s[2], s[3]
		d[4], d[5], d[6], d[7] = s[4], s[5], s[6], s[7]
	}
}
