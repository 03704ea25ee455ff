package kernels

import "unsafe"

// convDSPParams describes an ungrouped int8 convolution for convDSP and
// convDSPW (NHWC input, OHWI weights).
type convDSPParams struct {
	batches              int
	inH, inW, inC        int
	filterH, filterW     int
	outH, outW, outC     int
	strideH, strideW     int
	dilationH, dilationW int
	padH, padW           int   // padding before the first row / column
	inZP                 int32 // input zero point, the value of a padded tap
	span, hi             int32 // actMax - actMin, actMax
}

// convDSPScratch is convDSP's scratch in int32 words for windows of K
// values: the loops' argument block, then the two output pixels' windows
// (K rounded up to a multiple of four bytes each).
func convDSPScratch(K int) int { return dspPWArgsWords + 2*((K+3)/4) }

// convDSPWScratch is convDSPW's: convDSP's, then the pair of windows
// widened (dspWiden2).
func convDSPWScratch(K int) int { return convDSPScratch(K) + dspWidenWords(4*((K+3)/4)) }

// convDSP is the int8 convolution as two output pixels by two output
// channels tiles: the windows of two consecutive output pixels (raster
// order, the last one paired with itself when the count is odd) are
// gathered into scratch in filter order (taps row by row, then input
// channels; the input zero point for taps in the padding, which the folded
// bias cancels), then dspPWPairs multiplies them with every channel pair
// and requantizes with the generator's records (dspPlanRecords). wt holds
// the weights in dspPackPairs' layout for K = filterH*filterW*inC, rec a
// record per output channel, scr convDSPScratch(K) words.
func convDSP(p *convDSPParams, in []int8, wt, rec string, scr []int32, out []int8) {
	convDSPRun(p, in, wt, rec, scr[:convDSPScratch(p.filterH*p.filterW*p.inC)], out, false)
}

// convDSPW is convDSP with each pair of windows widened first (dspWiden2)
// and multiplied by dspPWPairsW: scr holds convDSPWScratch(K) words.
func convDSPW(p *convDSPParams, in []int8, wt, rec string, scr []int32, out []int8) {
	convDSPRun(p, in, wt, rec, scr[:convDSPWScratch(p.filterH*p.filterW*p.inC)], out, true)
}

// convDSPRun is convDSP (wide false) and convDSPW (wide true).
func convDSPRun(p *convDSPParams, in []int8, wt, rec string, scr []int32, out []int8, wide bool) {
	K, N := p.filterH*p.filterW*p.inC, p.outC
	P := p.batches * p.outH * p.outW
	if P <= 0 || N <= 0 || K <= 0 {
		return
	}
	k4 := (K + 3) / 4
	in = in[:p.batches*p.inH*p.inW*p.inC]
	out, wt, rec = out[:P*N], wt[:(N+1)/2*8*k4], rec[:dspRecBytes*N]
	g := (*dspPWArgs)(unsafe.Pointer(unsafe.SliceData(scr)))
	wins := unsafe.Slice((*int8)(unsafe.Pointer(&scr[dspPWArgsWords])), 8*k4)
	wa, wb := wins[:4*k4:4*k4], wins[4*k4:]
	span, hi := p.span, p.hi
	pw, pr := unsafe.Pointer(unsafe.StringData(wt)), unsafe.Pointer(unsafe.StringData(rec))
	for p0 := 0; p0 < P; p0 += 2 {
		dspClear(unsafe.Pointer(g), dspPWArgsWords)
		convDSPWindow(p, in, p0, wa[:K])
		oa, ob := out[p0*N:p0*N+N], out[p0*N:p0*N+N]
		xb := uint32(4 * k4)
		if p0+1 < P {
			convDSPWindow(p, in, p0+1, wb[:K])
			ob = out[p0*N+N : p0*N+2*N]
		} else {
			xb = 0
		}
		xa := unsafe.Pointer(&wa[0])
		g.x, g.n, g.xb = xa, uint32(k4), xb
		if wide {
			g.wx = unsafe.Pointer(&scr[dspPWArgsWords+2*k4])
			dspWiden2(g)
		}
		if N >= 2 {
			g.w, g.rec = pw, pr
			g.oa, g.ob = unsafe.Pointer(&oa[0]), unsafe.Pointer(&ob[0])
			g.pairs, g.span, g.lo = uint32(N/2), span, hi-span
			if wide {
				dspPWPairsW(g)
			} else {
				dspPWPairs(g)
			}
		}
		if N%2 != 0 {
			dspPWLast(g, xa, xb, pw, pr, k4, N, span, hi, oa, ob)
		}
	}
}

// convDSPWindow writes the window of output pixel pix (batch, row, column
// in raster order) into dst in filter order: taps row by row, each tap's
// inC input channels, p.inZP for taps in the padding.
func convDSPWindow(p *convDSPParams, in []int8, pix int, dst []int8) {
	C, fW := p.inC, p.filterW
	ox := pix % p.outW
	oy := pix / p.outW % p.outH
	b := pix / (p.outW * p.outH)
	iy0, ix0 := oy*p.strideH-p.padH, ox*p.strideW-p.padW
	zp := int8(p.inZP)
	img := in[b*p.inH*p.inW*C : (b+1)*p.inH*p.inW*C]
	k := 0
	for fy := 0; fy < p.filterH; fy++ {
		iy := iy0 + fy*p.dilationH
		if iy < 0 || iy >= p.inH {
			seg := dst[k : k+fW*C]
			for i := range seg {
				seg[i] = zp
			}
			k += fW * C
			continue
		}
		row := img[iy*p.inW*C : (iy+1)*p.inW*C]
		if p.dilationW == 1 && ix0 >= 0 && ix0+fW <= p.inW {
			// The window row inside the image: one segment.
			convDSPCopy(dst[k:k+fW*C], row[ix0*C:(ix0+fW)*C])
			k += fW * C
			continue
		}
		for fx := 0; fx < fW; fx++ {
			ix := ix0 + fx*p.dilationW
			seg := dst[k : k+C]
			k += C
			if ix < 0 || ix >= p.inW {
				for i := range seg {
					seg[i] = zp
				}
				continue
			}
			convDSPCopy(seg, row[ix*C:ix*C+C])
		}
	}
}

// convDSPCopy copies a window segment: short ones a byte at a time,
// longer ones with dspCopy.
func convDSPCopy(dst, src []int8) {
	src = src[:len(dst)]
	if len(dst) < 16 {
		for i := range dst {
			dst[i] = src[i]
		}
		return
	}
	dspCopy(unsafe.Pointer(&dst[0]), unsafe.Pointer(&src[0]), len(dst))
}
