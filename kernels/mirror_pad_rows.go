package kernels

// MIRROR_PAD over height and width of an NHWC image of batch 1, row by
// row, so that fused row streaming can run it on bands of output rows like
// the convolutions it feeds (style transfer and super-resolution networks
// pad this way before each VALID convolution). A band of output rows
// reads the input rows they reflect.

// mirrorPadRowsParams describes outH output rows from row0 on (rows of
// the whole output) over src, which holds inH input rows from row in0 on
// (rows of the whole input). The whole input has imgH rows of inW pixels
// of pix bytes; the output has top rows and left columns of padding
// before it, right columns after it. offset is 1 for REFLECT (the edge
// row or column is not repeated), 0 for SYMMETRIC (it is).
type mirrorPadRowsParams struct {
	inH, outH, row0, in0 int
	imgH, top, offset    int
	inW, left, right     int
	pix                  int
}

// mirrorIndex is the input index that output index y mirrors, for an
// input of n elements with l of padding before it: TFLite Micro's
// mirror_pad.cc. Past the mirrored range of the right padding (padding
// larger than TFLite allows) it stays at index 0, as TFLM's arithmetic
// does.
func mirrorIndex(y, n, l, offset int) int {
	if y < l {
		return l + offset - 1 - y
	}
	if y < l+n {
		return y - l
	}
	a := n - 1 - offset
	return a - min(y-l-n, a)
}

// mirrorPadRows writes p.outH mirror-padded rows of src into dst.
func mirrorPadRows(p *mirrorPadRowsParams, dst, src []byte) {
	pix := p.pix
	rowIn := p.inW * pix
	w := (p.left + p.inW + p.right) * pix
	dst = dst[:p.outH*w]
	src = src[:p.inH*rowIn]
	for y := 0; y < p.outH; y++ {
		d := dst[y*w : y*w+w]
		r := mirrorIndex(p.row0+y, p.imgH, p.top, p.offset) - p.in0
		s := src[r*rowIn : r*rowIn+rowIn]
		for x := 0; x < p.left; x++ {
			j := mirrorIndex(x, p.inW, p.left, p.offset) * pix
			copy(d[x*pix:x*pix+pix], s[j:j+pix])
		}
		copy(d[p.left*pix:p.left*pix+rowIn], s)
		for x := p.left + p.inW; x < p.left+p.inW+p.right; x++ {
			j := mirrorIndex(x, p.inW, p.left, p.offset) * pix
			copy(d[x*pix:x*pix+pix], s[j:j+pix])
		}
	}
}
