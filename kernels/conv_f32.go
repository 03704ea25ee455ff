package kernels

import (
	"runtime"
	"unsafe"
)

// convF32Copy selects convF32W in the build for gc, whose hardware float
// loads need word-aligned operands: the weight string (packed at byte
// granularity in read-only data) is decoded once per output channel
// instead of once per product. TinyGo's soft float on the board keeps
// convF32's loop (its arithmetic, not the loads, is the cost there).
const convF32Copy = runtime.Compiler == "gc"

// convF32MaxK is the longest filter (filterH*filterW*filterC values) that
// convF32W copies into its stack array.
const convF32MaxK = 1024

// convF32W is convF32 output channel by output channel: the channel's
// weights decoded into a stack array of float32, then every pixel's sum
// over the taps inside the image, in the reference's order (products
// rounded to float32, summed by filter row, column and input channel, the
// bias added last, then the clamp). The same arguments; filters of at
// most convF32MaxK values.
func convF32W(p *convParams, in []float32, filter, bias string, out []float32) {
	inRow := p.inW * p.inC
	inImg := p.inH * inRow
	cin := p.filterC
	fRow := p.filterW * cin
	fSize := p.filterH * fRow
	P := p.outH * p.outW
	out = out[:p.batches*P*p.outC]
	var wb [convF32MaxK]float32
	w := wb[:fSize]
	// The output rows and columns whose windows lie inside the image:
	// one convF32Win call a pixel there (ungrouped, undilated rows).
	oy0, oy1 := convRowsInside(p.padH, p.strideH, p.inH, (p.filterH-1)*p.dilationH+1, p.outH)
	ox0, ox1 := convRowsInside(p.padW, p.strideW, p.inW, p.filterW, p.outW)
	if p.dilationW != 1 || cin != p.inC {
		ox0, ox1 = 1, 0
	}
	last := (p.filterH-1)*p.dilationH*inRow + fRow - 1 // a window's last value
	for oc := 0; oc < p.outC; oc++ {
		for i := range w {
			w[i] = ldf32(filter, oc*fSize+i)
		}
		cbase := oc / p.groupOutC * cin
		bv := float32(0)
		if len(bias) != 0 {
			bv = ldf32(bias, oc)
		}
		for b := 0; b < p.batches; b++ {
			img := in[b*inImg : (b+1)*inImg]
			o := b*P*p.outC + oc
			for oy := 0; oy < p.outH; oy++ {
				iy0 := oy*p.strideH - p.padH
				fy0, fy1 := convTaps(iy0, p.dilationH, p.filterH, p.inH)
				inside := oy >= oy0 && oy <= oy1
				for ox := 0; ox < p.outW; ox++ {
					ix0 := ox*p.strideW - p.padW
					if inside && ox >= ox0 && ox <= ox1 {
						base := iy0*inRow + ix0*cin
						_ = img[base+last]
						out[o] = clampF32(convF32Win(unsafe.Pointer(&img[base]), unsafe.Pointer(&w[0]), p.filterH, fRow, p.dilationH*inRow)+bv, p.fActMin, p.fActMax)
						o += p.outC
						continue
					}
					fx0, fx1 := convTaps(ix0, p.dilationW, p.filterW, p.inW)
					total := float32(0)
					for fy := fy0; fy < fy1; fy++ {
						rowIn := (iy0+fy*p.dilationH)*inRow + cbase
						rowF := fy * fRow
						if run := (fx1 - fx0) * cin; p.dilationW == 1 && cin == p.inC && run > 0 {
							// The row's taps inside the image: one run of
							// input values and one of weights.
							x := img[rowIn+(ix0+fx0)*cin : rowIn+(ix0+fx0)*cin+run]
							wr := w[rowF+fx0*cin : rowF+fx0*cin+run]
							total = convF32Dot(unsafe.Pointer(&x[0]), unsafe.Pointer(&wr[0]), run, total)
							continue
						}
						for fx := fx0; fx < fx1 && cin > 0; fx++ {
							x := img[rowIn+(ix0+fx*p.dilationW)*p.inC:]
							x = x[:cin]
							wr := w[rowF+fx*cin:]
							wr = wr[:cin]
							total = convF32Dot(unsafe.Pointer(&x[0]), unsafe.Pointer(&wr[0]), cin, total)
						}
					}
					out[o] = clampF32(total+bv, p.fActMin, p.fActMax)
					o += p.outC
				}
			}
		}
	}
}

// convF32Win returns the sum, from zero, of the products of a window of
// rows runs of run float32 values at x, xs values apart, with as many
// weights at w, in order (convF32Dot a row).
func convF32Win(x, w unsafe.Pointer, rows, run, xs int) float32 {
	var t float32
	for {
		t = convF32Dot(x, w, run, t)
		if rows--; rows == 0 {
			return t
		}
		x, w = unsafe.Add(x, 4*xs), unsafe.Add(w, 4*run)
	}
}

// convF32Dot returns t plus the n > 0 products of the float32 values at x
// and w, each rounded to float32 and added in order: four a step, the
// pointers walked by unsafe.Add (gc for ARM has no indexed float load),
// never past the last value.
func convF32Dot(x, w unsafe.Pointer, n int, t float32) float32 {
	for n >= 4 {
		t += float32(*(*float32)(x) * *(*float32)(w))
		t += float32(*(*float32)(unsafe.Add(x, 4)) * *(*float32)(unsafe.Add(w, 4)))
		t += float32(*(*float32)(unsafe.Add(x, 8)) * *(*float32)(unsafe.Add(w, 8)))
		t += float32(*(*float32)(unsafe.Add(x, 12)) * *(*float32)(unsafe.Add(w, 12)))
		if n -= 4; n == 0 {
			return t
		}
		x, w = unsafe.Add(x, 16), unsafe.Add(w, 16)
	}
	for {
		t += float32(*(*float32)(x) * *(*float32)(w))
		if n--; n == 0 {
			return t
		}
		x, w = unsafe.Add(x, 4), unsafe.Add(w, 4)
	}
}
