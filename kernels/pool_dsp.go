package kernels

import "unsafe"

// int8 AVERAGE_POOL_2D and MAX_POOL_2D on the DSP extension's SIMD
// instructions, four channels in a word (depth a multiple of four). A call
// of the assembly (dspMaxPool, dspAvgPool) runs a run of output pixels of
// one output row whose windows have the same shape (rows by cols taps):
// the interior pixels of the row in one call, each edge pixel in its own.
// Max pooling keeps a word's four maxima with SSUB8 + SEL (three
// instructions per word and tap, no branch); average pooling sums the
// bytes of a word into two words of 16-bit lanes with two SXTAB16 (exact
// for windows of up to 256 taps: |sum| <= 128*256), then divides each sum
// by the window's n = rows*cols with one UMULL by a reciprocal (poolRecip's
// method: floor(2^31/n) + 1, exact for sums below 2^31/n^2 and more) and
// rounds half away from zero as the reference does. Both clamp a word's
// four results with SSUB8 + SEL. The layer's constants (channel words,
// strides, clamp bytes) are a record the generator writes (dspPoolPlan).

// dspPoolRecBytes is the size of a pooling record: little-endian int32
// words depth/4, the input row in bytes (inW*depth), the tap step (depth),
// the pixel step (strideW*depth), then actMin's byte four times and
// actMax's byte four times.
const dspPoolRecBytes = 24

// dspPoolPlan returns the pooling record of an int8 layer, ok false when
// the DSP kernels do not take it: a depth that is not a multiple of four,
// a window wider or taller than 255 taps or an output row of 65536 pixels
// or more (the run's fields), for averages a window of more than 256 taps
// (the 16-bit lanes).
func dspPoolPlan(avg bool, depth, inW, outW, strideW, filterH, filterW int, lo, hi int32) ([]byte, bool) {
	if depth < 4 || depth%4 != 0 || filterH < 1 || filterW < 1 || filterH > 255 || filterW > 255 || outW >= 1<<16 ||
		avg && filterH*filterW > 256 || lo > hi || lo < -128 || hi > 127 {
		return nil, false
	}
	out := make([]byte, 0, dspPoolRecBytes)
	for _, v := range []int{depth / 4, inW * depth, depth, strideW * depth} {
		out = append(out, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	}
	out = append(out, byte(lo), byte(lo), byte(lo), byte(lo), byte(hi), byte(hi), byte(hi), byte(hi))
	return out, true
}

// poolInterior returns the output columns [a, e) whose windows lie inside
// the input's width; a = -1 when there are none.
func poolInterior(p *poolParams) (a, e int) {
	a = (p.padW + p.strideW - 1) / p.strideW
	e = min((p.inW-p.filterW+p.padW)/p.strideW+1, p.outW)
	if p.inW < p.filterW || e <= a {
		return -1, -1
	}
	return a, e
}

// maxPoolDSPInt8 is the int8 max pooling through dspMaxPool; k is the
// layer's record (dspPoolPlan).
func maxPoolDSPInt8(p *poolParams, k string, in, out []int8) {
	d := p.depth
	row := p.inW * d
	img := p.inH * row
	in, out = in[:p.batches*img], out[:p.batches*p.outH*p.outW*d]
	pk := unsafe.Pointer(unsafe.StringData(k[:dspPoolRecBytes]))
	a, e := poolInterior(p)
	o := 0
	for b := 0; b < p.batches; b++ {
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			fy0, fy1 := poolWindow(iy0, p.filterH, p.inH)
			r0, rows := b*img+(iy0+fy0)*row, uint32(fy1-fy0)<<16
			for ox := 0; ox < p.outW; {
				n := 1
				if ox == a {
					n = e - a
				}
				ix0 := ox*p.strideW - p.padW
				fx0, fx1 := poolWindow(ix0, p.filterW, p.inW)
				dspMaxPool(unsafe.Pointer(&in[r0+(ix0+fx0)*d]), unsafe.Pointer(&out[o]), uint32(n)|rows|uint32(fx1-fx0)<<24, pk)
				o += n * d
				ox += n
			}
		}
	}
}

// avgPoolDSPInt8 is the int8 average pooling through dspAvgPool; k is the
// layer's record (dspPoolPlan).
func avgPoolDSPInt8(p *poolParams, k string, in, out []int8) {
	d := p.depth
	row := p.inW * d
	img := p.inH * row
	in, out = in[:p.batches*img], out[:p.batches*p.outH*p.outW*d]
	pk := unsafe.Pointer(unsafe.StringData(k[:dspPoolRecBytes]))
	a, e := poolInterior(p)
	o := 0
	for b := 0; b < p.batches; b++ {
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			fy0, fy1 := poolWindow(iy0, p.filterH, p.inH)
			r0, rows := b*img+(iy0+fy0)*row, uint32(fy1-fy0)<<16
			for ox := 0; ox < p.outW; {
				n := 1
				if ox == a {
					n = e - a
				}
				ix0 := ox*p.strideW - p.padW
				fx0, fx1 := poolWindow(ix0, p.filterW, p.inW)
				dspAvgPool(unsafe.Pointer(&in[r0+(ix0+fx0)*d]), unsafe.Pointer(&out[o]), uint32(n)|rows|uint32(fx1-fx0)<<24, pk)
				o += n * d
				ox += n
			}
		}
	}
}

// dspPoolArgs decodes a run's spec and record: pixels, window rows and
// columns, the record's words.
func dspPoolArgs(spec uint32, k unsafe.Pointer) (npix, rows, cols, words, rowStep, tap, pix int, lo, hi int8) {
	r := (*[dspPoolRecBytes]byte)(k)
	words, rowStep = int(le32((*[4]byte)(r[0:4]))), int(le32((*[4]byte)(r[4:8])))
	tap, pix = int(le32((*[4]byte)(r[8:12]))), int(le32((*[4]byte)(r[12:16])))
	return int(spec & 0xffff), int(spec >> 16 & 0xff), int(spec >> 24), words, rowStep, tap, pix, int8(r[16]), int8(r[20])
}

// dspMaxPoolRef is dspMaxPool in Go: for npix pixels (spec's low 16
// bits), the first tap of pixel i at x + i*pix bytes, the maxima over
// rows by cols taps (spec's bits 16-23 and 24-31) of each of 4*words
// channels, clamped, stored at o one pixel after the other.
func dspMaxPoolRef(x, o unsafe.Pointer, spec uint32, k unsafe.Pointer) {
	npix, rows, cols, words, rowStep, tap, pix, lo, hi := dspPoolArgs(spec, k)
	d := 4 * words
	out := unsafe.Slice((*int8)(o), npix*d)
	for i := 0; i < npix; i++ {
		for c := 0; c < d; c++ {
			m := int8(-128)
			for y := 0; y < rows; y++ {
				for xx := 0; xx < cols; xx++ {
					m = max(m, *(*int8)(unsafe.Add(x, i*pix+y*rowStep+xx*tap+c)))
				}
			}
			out[i*d+c] = min(max(m, lo), hi)
		}
	}
}

// dspAvgPoolRef is dspAvgPool in Go: dspMaxPoolRef's windows, each
// channel's sum divided by rows*cols and rounded half away from zero
// (poolAvgRound), clamped.
func dspAvgPoolRef(x, o unsafe.Pointer, spec uint32, k unsafe.Pointer) {
	npix, rows, cols, words, rowStep, tap, pix, lo, hi := dspPoolArgs(spec, k)
	d := 4 * words
	out := unsafe.Slice((*int8)(o), npix*d)
	n := int32(rows * cols)
	for i := 0; i < npix; i++ {
		for c := 0; c < d; c++ {
			var s int32
			for y := 0; y < rows; y++ {
				for xx := 0; xx < cols; xx++ {
					s += int32(*(*int8)(unsafe.Add(x, i*pix+y*rowStep+xx*tap+c)))
				}
			}
			out[i*d+c] = int8(clampI32(poolAvgRound(s, n), int32(lo), int32(hi)))
		}
	}
}
