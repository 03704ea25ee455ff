package kernels

// PAD and PADV2: the output is walked in order like TensorFlow Lite Micro's
// reference Pad, but whole padded blocks are filled at once and the input
// is copied row by row. The generator extends the shapes to five dimensions
// and merges dimensions that carry no padding.

// padParams describes a constant pad of up to five dimensions. The four
// outer output dimensions have counts n0..n3; index k of dimension j holds
// input data when lo_j <= k < hi_j and padding otherwise, and spans block_j
// bytes of output. One output row of the innermost dimension is rowLeft
// bytes of padding, rowIn bytes of input, rowRight bytes of padding. value
// holds the padding element's bytes, little-endian, in its low esz bytes.
type padParams struct {
	esz                            int
	value                          int64
	n0, n1, n2, n3                 int
	lo0, lo1, lo2, lo3             int
	hi0, hi1, hi2, hi3             int
	block0, block1, block2, block3 int
	rowLeft, rowIn, rowRight       int
}

// padBytes writes src padded as described by p into dst.
func padBytes(p *padParams, dst, src []byte) {
	o, i := 0, 0
	for a := 0; a < p.n0; a++ {
		if a < p.lo0 || a >= p.hi0 {
			padFill(dst[o:o+p.block0], p.value, p.esz)
			o += p.block0
			continue
		}
		for b := 0; b < p.n1; b++ {
			if b < p.lo1 || b >= p.hi1 {
				padFill(dst[o:o+p.block1], p.value, p.esz)
				o += p.block1
				continue
			}
			for c := 0; c < p.n2; c++ {
				if c < p.lo2 || c >= p.hi2 {
					padFill(dst[o:o+p.block2], p.value, p.esz)
					o += p.block2
					continue
				}
				for e := 0; e < p.n3; e++ {
					if e < p.lo3 || e >= p.hi3 {
						padFill(dst[o:o+p.block3], p.value, p.esz)
						o += p.block3
						continue
					}
					padFill(dst[o:o+p.rowLeft], p.value, p.esz)
					o += p.rowLeft
					copy(dst[o:o+p.rowIn], src[i:i+p.rowIn])
					o += p.rowIn
					i += p.rowIn
					padFill(dst[o:o+p.rowRight], p.value, p.esz)
					o += p.rowRight
				}
			}
		}
	}
}

// padBytesConst is padBytes for an input held in read-only data.
func padBytesConst(p *padParams, dst []byte, src string) {
	padBytes(p, dst, constU8(src))
}

// padFill fills dst, a whole number of esz-byte elements, with the element
// whose little-endian bytes are the low esz bytes of v.
func padFill(dst []byte, v int64, esz int) {
	if len(dst) == 0 {
		return
	}
	for k := 0; k < esz; k++ {
		dst[k] = byte(v >> (8 * uint(k)))
	}
	for n := esz; n < len(dst); n *= 2 {
		copy(dst[n:], dst[:n])
	}
}
