package kernels

import "unsafe"

// The 16x8 convolution (int16 activations, int8 weights, 64-bit
// accumulator) on the DSP extension: every output pixel is a row of the
// fully connected loop dspFC16Row (fc_dsp.go) over the pixel's window, all
// output channels four at a time. convDSPInt16 gathers the window (zeros
// where it leaves the image) into a scratch row; convDSPInt16PW, for 1x1
// filters without padding, reads the pixel's channels where they are.
// Weight rows are the filter's [outC][fH][fW][inC] rows padded with zero
// columns to a multiple of four (K4), in dspFC16Pack's layout; rec is
// dspFC16Plan's record string for rows of K4 columns. Both read their
// geometry from p at every call, so that they run bands of rows.

// convDSPInt16 is the 16x8 convolution through dspFC16Row from a window
// gathered into scr (K4 int16 values, K4 the window's fH*fW*inC rounded up
// to a multiple of four). Ungrouped: filterC is inC.
func convDSPInt16(p *convParams, in []int16, wt, rec string, scr []int16, out []int16) {
	C, fW := p.inC, p.filterW
	K := p.filterH * fW * C
	K4 := (K + 3) &^ 3
	N := p.outC
	if K <= 0 || N <= 0 || p.filterC != C {
		return
	}
	inRow := p.inW * C
	inImg := p.inH * inRow
	in, out = in[:p.batches*inImg], out[:p.batches*p.outH*p.outW*N]
	wt, rec, scr = wt[:N*K4], rec[:dspFC16Hdr+dspRec16Bytes*N], scr[:K4]
	clear(scr[K:])
	pw, pr, x := unsafe.Pointer(unsafe.StringData(wt)), unsafe.Pointer(unsafe.StringData(rec)), unsafe.Pointer(&scr[0])
	o := 0
	for b := 0; b < p.batches; b++ {
		img := in[b*inImg : (b+1)*inImg]
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			for ox := 0; ox < p.outW; ox++ {
				ix0 := ox*p.strideW - p.padW
				fx0, fx1 := convTaps(ix0, p.dilationW, fW, p.inW)
				if fx0 == 0 && fx1 == fW && p.dilationW == 1 && iy0 >= 0 && iy0+(p.filterH-1)*p.dilationH < p.inH {
					// The whole window: its rows in one call.
					dspGather16(x, unsafe.Pointer(&img[iy0*inRow+ix0*C]), uint32(2*p.dilationH*inRow), uint32(2*fW*C)|uint32(p.filterH)<<16)
				} else {
					convDSP16Edge(p, img, scr, iy0, ix0, fx0, fx1)
				}
				dspFC16Row(x, pw, pr, unsafe.Pointer(&out[o]))
				o += N
			}
		}
	}
}

// convDSP16Edge gathers the window at (iy0, ix0) of a pixel whose window
// leaves the image (or is dilated along the width) into scr: the taps
// [fx0, fx1) of each row inside the image, zeros elsewhere.
func convDSP16Edge(p *convParams, img, scr []int16, iy0, ix0, fx0, fx1 int) {
	C, fW := p.inC, p.filterW
	inRow := p.inW * C
	for fy := 0; fy < p.filterH; fy++ {
		iy := iy0 + fy*p.dilationH
		row := scr[fy*fW*C : (fy+1)*fW*C]
		if iy < 0 || iy >= p.inH || fx0 >= fx1 {
			clear(row)
			continue
		}
		if fx0 > 0 {
			clear(row[:fx0*C])
		}
		if fx1 < fW {
			clear(row[fx1*C:])
		}
		src := img[iy*inRow : (iy+1)*inRow]
		if p.dilationW == 1 {
			a := (ix0 + fx0) * C
			_ = src[a+(fx1-fx0)*C-1]
			dspGather16(unsafe.Pointer(&row[fx0*C]), unsafe.Pointer(&src[a]), 0, uint32(2*(fx1-fx0)*C)|1<<16)
			continue
		}
		for fx := fx0; fx < fx1; fx++ {
			a := (ix0 + fx*p.dilationW) * C
			_ = src[a+C-1]
			dspGather16(unsafe.Pointer(&row[fx*C]), unsafe.Pointer(&src[a]), 0, uint32(2*C)|1<<16)
		}
	}
}

// dspGather16Ref is dspGather16 in Go: spec>>16 rows of spec&0xffff bytes
// (a multiple of two), the rows stride bytes apart from s, copied one
// after the other to d.
func dspGather16Ref(d, s unsafe.Pointer, stride, spec uint32) {
	n := int(spec & 0xffff)
	for r := 0; r < int(spec>>16); r++ {
		copy(unsafe.Slice((*byte)(unsafe.Add(d, r*n)), n), unsafe.Slice((*byte)(unsafe.Add(s, r*int(stride))), n))
	}
}

// convDSPInt16PW is the 16x8 convolution with a 1x1 filter, no padding and
// inC a multiple of four through dspFC16Row, each output pixel's input
// channels read in place (any stride).
func convDSPInt16PW(p *convParams, in []int16, wt, rec string, out []int16) {
	C, N := p.inC, p.outC
	if C < 4 || C%4 != 0 || N <= 0 || p.filterC != C {
		return
	}
	inImg := p.inH * p.inW * C
	in, out = in[:p.batches*inImg], out[:p.batches*p.outH*p.outW*N]
	wt, rec = wt[:N*C], rec[:dspFC16Hdr+dspRec16Bytes*N]
	pw, pr := unsafe.Pointer(unsafe.StringData(wt)), unsafe.Pointer(unsafe.StringData(rec))
	o := 0
	for b := 0; b < p.batches; b++ {
		for oy := 0; oy < p.outH; oy++ {
			r := b*inImg + oy*p.strideH*p.inW*C
			for ox := 0; ox < p.outW; ox++ {
				dspFC16Row(unsafe.Pointer(&in[r+ox*p.strideW*C]), pw, pr, unsafe.Pointer(&out[o]))
				o += N
			}
		}
	}
}
