package kernels

// PAD over height and width of an NHWC image of batch 1, row by row, so
// that fused row streaming can run it on bands of output rows (a band of
// padded rows needs only the input rows it covers) like the convolutions
// it feeds.

// padRowsParams describes outH output rows: output row y is input row
// y-padH when 0 <= y-padH < inH (rowLeft padding elements, the input
// row's rowIn elements, rowRight padding elements), else a row of padding.
// value is the padding element.
type padRowsParams struct {
	inH, outH, padH          int
	rowLeft, rowIn, rowRight int
	value                    int32
}

// padRowsInt8 writes p.outH padded rows of src into dst.
func padRowsInt8(p *padRowsParams, dst, src []int8) {
	w := p.rowLeft + p.rowIn + p.rowRight
	v := int8(p.value)
	dst = dst[:p.outH*w]
	for y := 0; y < p.outH; y++ {
		d := dst[y*w : y*w+w]
		r := y - p.padH
		if r < 0 || r >= p.inH {
			for i := range d {
				d[i] = v
			}
			continue
		}
		for i := range d[:p.rowLeft] {
			d[i] = v
		}
		copy(d[p.rowLeft:p.rowLeft+p.rowIn], src[r*p.rowIn:r*p.rowIn+p.rowIn])
		for i := p.rowLeft + p.rowIn; i < w; i++ {
			d[i] = v
		}
	}
}

// padRowsInt16 is padRowsInt8 for int16 elements.
func padRowsInt16(p *padRowsParams, dst, src []int16) {
	w := p.rowLeft + p.rowIn + p.rowRight
	v := int16(p.value)
	dst = dst[:p.outH*w]
	for y := 0; y < p.outH; y++ {
		d := dst[y*w : y*w+w]
		r := y - p.padH
		if r < 0 || r >= p.inH {
			for i := range d {
				d[i] = v
			}
			continue
		}
		for i := range d[:p.rowLeft] {
			d[i] = v
		}
		copy(d[p.rowLeft:p.rowLeft+p.rowIn], src[r*p.rowIn:r*p.rowIn+p.rowIn])
		for i := p.rowLeft + p.rowIn; i < w; i++ {
			d[i] = v
		}
	}
}
