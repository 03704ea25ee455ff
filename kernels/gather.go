package kernels

// GATHER, GATHER_ND and EMBEDDING_LOOKUP copy rows of their first input
// chosen by an int32 index input. The indices are run-time data and may be
// out of range even in a valid model: TFLite Micro does not check them (it
// reads outside its tensor, or fails the Invoke), but these kernels cannot
// fail and never read or write outside their tensors. Every index is
// clamped into the dimension it indexes: a negative index reads row 0, an
// index at or past the dimension's size reads its last row. In-range
// indices give exactly TFLM's result. The copies are by bytes, so one
// kernel serves every element type.

// gatherParams describes a GATHER: the input is batches x outer x axis rows
// of row bytes, the indices batches x coords values (one list per batch),
// and the output batches x outer x coords rows. EMBEDDING_LOOKUP is the
// case batches = outer = 1.
type gatherParams struct {
	batches, outer, coords int
	axis                   int
	row                    int
}

// gatherIndex clamps index v into [0, n).
func gatherIndex(v int32, n int) int {
	if v < 0 {
		return 0
	}
	if int(v) >= n {
		return n - 1
	}
	return int(v)
}

// gather is GATHER (and plain EMBEDDING_LOOKUP) with run-time indices.
// Out-of-range indices are clamped into [0, axis): a negative index reads
// row 0, one at or past the end the last row, so Invoke never reads
// outside the input whatever the index data (TFLite Micro does not check
// them); in-range indices give TFLM's result.
func gather(p *gatherParams, dst, src []byte, idx []int32) {
	row := p.row
	idx = idx[:p.batches*p.coords]
	d := 0
	for b := 0; b < p.batches; b++ {
		ids := idx[b*p.coords : (b+1)*p.coords]
		for o := 0; o < p.outer; o++ {
			block := ((b*p.outer + o) * p.axis) * row
			for _, v := range ids {
				s := block + gatherIndex(v, p.axis)*row
				copy(dst[d:d+row], src[s:s+row])
				d += row
			}
		}
	}
}

// gatherConstIdx is gather with constant indices (little-endian int32 in
// read-only data), clamped like gather's.
func gatherConstIdx(p *gatherParams, dst, src []byte, idx string) {
	row := p.row
	d := 0
	for b := 0; b < p.batches; b++ {
		for o := 0; o < p.outer; o++ {
			block := ((b*p.outer + o) * p.axis) * row
			for k := 0; k < p.coords; k++ {
				s := block + gatherIndex(ld32(idx, b*p.coords+k), p.axis)*row
				copy(dst[d:d+row], src[s:s+row])
				d += row
			}
		}
	}
}

// embeddingHybrid is EMBEDDING_LOOKUP of an int8 table into float32: each
// chosen row of cols values is dequantized as float32(v) * scale (TFLM
// requires zero point 0), rows indexed by idx. Out-of-range ids are clamped
// into [0, rows) (negative to row 0, too large to the last row), where
// TFLite Micro fails the Invoke.
func embeddingHybrid(p *gatherParams, scale float32, out []float32, table []int8, idx []int32) {
	cols := p.row
	idx = idx[:p.coords]
	for k, v := range idx {
		s := gatherIndex(v, p.axis) * cols
		src := table[s : s+cols]
		dst := out[k*cols : k*cols+cols]
		for c, x := range src {
			dst[c] = float32(x) * scale
		}
	}
}

// embeddingHybridConstIdx is embeddingHybrid with constant indices, clamped
// alike.
func embeddingHybridConstIdx(p *gatherParams, scale float32, out []float32, table []int8, idx string) {
	cols := p.row
	for k := 0; k < p.coords; k++ {
		s := gatherIndex(ld32(idx, k), p.axis) * cols
		src := table[s : s+cols]
		dst := out[k*cols : k*cols+cols]
		for c, x := range src {
			dst[c] = float32(x) * scale
		}
	}
}

// gatherNdParams describes a GATHER_ND: slices index tuples of nd values
// (nd <= 5, as in TFLM) each select slice bytes of the input, which start
// at the sum over j of index j, clamped into [0, dimJ), times strideJ
// (bytes). Unused dimensions have size 1 and stride 0.
type gatherNdParams struct {
	slices, nd, slice            int
	dim0, dim1, dim2, dim3, dim4 int
	stride0, stride1, stride2    int
	stride3, stride4             int
}

// gatherNdStart is the byte offset of the slice one index tuple selects.
func gatherNdStart(p *gatherNdParams, t0, t1, t2, t3, t4 int32) int {
	return gatherIndex(t0, p.dim0)*p.stride0 + gatherIndex(t1, p.dim1)*p.stride1 +
		gatherIndex(t2, p.dim2)*p.stride2 + gatherIndex(t3, p.dim3)*p.stride3 +
		gatherIndex(t4, p.dim4)*p.stride4
}

// gatherNd is GATHER_ND with run-time indices. Each index of a tuple is
// clamped into the dimension it indexes (negative to 0, too large to the
// last), so Invoke never reads outside the input. TFLite Micro checks only
// the flat position (failing the Invoke when it is outside the tensor), so
// an index outside its dimension whose flat position stays inside reads a
// different element in TFLM; in-range indices give TFLM's result.
func gatherNd(p *gatherNdParams, dst, src []byte, idx []int32) {
	var t [5]int32
	n := p.slice
	for i := 0; i < p.slices; i++ {
		tuple := idx[i*p.nd : (i+1)*p.nd]
		for j := range t {
			t[j] = 0
		}
		copy(t[:], tuple)
		s := gatherNdStart(p, t[0], t[1], t[2], t[3], t[4])
		copy(dst[i*n:i*n+n], src[s:s+n])
	}
}

// gatherNdConstIdx is gatherNd with constant indices, clamped alike.
func gatherNdConstIdx(p *gatherNdParams, dst, src []byte, idx string) {
	var t [5]int32
	n := p.slice
	for i := 0; i < p.slices; i++ {
		for j := range t {
			t[j] = 0
			if j < p.nd {
				t[j] = ld32(idx, i*p.nd+j)
			}
		}
		s := gatherNdStart(p, t[0], t[1], t[2], t[3], t[4])
		copy(dst[i*n:i*n+n], src[s:s+n])
	}
}
