package kernels

import "unsafe"

// convDilTri is convDilInt8Raster three pixels at a time, for 32-bit cores
// (gc's A32 code; 64-bit ones keep the pixel at a time): an even number of
// output channels, at most convDilRasterMax, windows of at most
// convRowsTriK values, and requantizations convPWQ computes exactly (chs,
// decoded by the caller). It gathers the windows of three pixels (raster
// order, a last group of one or two pixels completed by repeating its last
// one) into a stack array, s values of each pixel a step (32 where inC is
// a multiple of 32, else 8), the input zero point for the taps in the
// padding (which the folded bias cancels); convRowsTriTile or
// convRowsTriTile8 then computes every output channel of the three pixels
// into a stack buffer, copied to out only then. Reads only move earlier
// and writes later than convDilInt8Raster's, so an output written over
// the input at the distance convDilInt8Raster allows stays correct. The
// weights are convDilInt8's: a column's two weights side by side, each
// channel pair's window K values long.
func convDilTri(p *convDilParams, in []int8, w2 [][2]int8, chs *[convDilRasterMax]convPWCh, out []int8) {
	C, N := p.inC, p.outC
	K := p.filterH * p.filterW * C
	s := 8
	if C%32 == 0 {
		s = 32
	}
	P := p.outH * p.outW
	img := p.inH * p.inW * C
	in = in[:p.batches*img]
	out = out[:p.batches*P*N]
	w2 = w2[:N/2*K]
	words := uintptr(unsafe.Pointer(&in[0]))&3 == 0
	zp := uint32(uint8(int8(p.inZP))) * 0x01010101
	var tri [3 * convRowsTriK / 4]uint32 // word-aligned
	var px [3 * convDilRasterMax]int8    // the three pixels' outputs
	var g convPWRunArgs
	g.nb, g.K8, g.span, g.hi = N, K/8, p.actMax-p.actMin, p.actMax
	g.pwt, g.tp = unsafe.Pointer(&w2[0]), unsafe.Pointer(&chs[0])
	g.pout, g.oa, g.ob, g.oc = unsafe.Pointer(&px), 0, N, 2*N
	o := 0
	for b := 0; b < p.batches; b++ {
		x := in[b*img : b*img+img]
		oy, ox := 0, 0 // the next pixel
		for i := 0; i < P; i += 3 {
			for q := 0; q < 3; q++ {
				convDilTriWin(p, x, oy*p.strideH-p.padH, ox*p.strideW-p.padW, unsafe.Add(unsafe.Pointer(&tri), s*q), s, words, zp)
				if i+q < P-1 {
					if ox++; ox == p.outW {
						oy, ox = oy+1, 0
					}
				}
			}
			if s == 32 {
				convRowsTriTile(&g, unsafe.Pointer(&tri))
			} else {
				convRowsTriTile8(&g, unsafe.Pointer(&tri))
			}
			n := min(3, P-i) * N
			copy(out[o:o+n], px[:n])
			o += n
		}
	}
}

// convDilTriWin writes the window of the pixel whose first tap is at input
// row iy0 and column ix0 of the image x to dst in convDilTri's layout
// (value k at 3*(k-k%s) + k%s from dst, s being 8 or 32 and inC a
// multiple of s), the bytes of the word zp for taps in the padding; with
// words, x starts at a multiple of four.
func convDilTriWin(p *convDilParams, x []int8, iy0, ix0 int, dst unsafe.Pointer, s int, words bool, zp uint32) {
	C := p.inC
	rs := p.inW * C
	for fy := 0; fy < p.filterH; fy++ {
		iy := iy0 + fy*p.dilationH
		inside := iy >= 0 && iy < p.inH
		for fx := 0; fx < p.filterW; fx++ {
			d := unsafe.Add(dst, 3*(fy*p.filterW+fx)*C)
			ix := ix0 + fx*p.dilationW
			if !inside || ix < 0 || ix >= p.inW {
				for c := 0; c < C; c += s {
					w := unsafe.Add(d, 3*c)
					for j := 0; j < s; j += 4 {
						*(*uint32)(unsafe.Add(w, j)) = zp
					}
				}
				continue
			}
			src := x[iy*rs+ix*C : iy*rs+ix*C+C]
			switch {
			case !words:
				for c := 0; c < C; c += s {
					copy(unsafe.Slice((*int8)(unsafe.Add(d, 3*c)), s), src[c:c+s])
				}
			case s == 32:
				convPWTriRows3(unsafe.Pointer(&src[0]), d, C)
			default:
				for c := 0; c < C; c += 8 {
					v := (*[2]uint32)(unsafe.Pointer(&src[c]))
					w := (*[2]uint32)(unsafe.Add(d, 3*c))
					w[0], w[1] = v[0], v[1]
				}
			}
		}
	}
}
