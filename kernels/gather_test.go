package kernels

import (
	"encoding/binary"
	"math"
	"testing"
)

func testF32Bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func testI8Bytes(v []int8) []byte {
	b := make([]byte, len(v))
	for i, x := range v {
		b[i] = byte(x)
	}
	return b
}

// testGatherParams is what the generator computes for GATHER (gather.cc's
// batch, outer, coord and inner sizes).
func testGatherParams(in, coords []int, axis, batchDims, esz int) *gatherParams {
	p := &gatherParams{batches: 1, outer: 1, coords: 1, axis: in[axis], row: esz}
	for i := 0; i < batchDims; i++ {
		p.batches *= in[i]
	}
	for i := batchDims; i < axis; i++ {
		p.outer *= in[i]
	}
	for i := axis + 1; i < len(in); i++ {
		p.row *= in[i]
	}
	for i := batchDims; i < len(coords); i++ {
		p.coords *= coords[i]
	}
	return p
}

func seq60() []float32 {
	v := make([]float32, 60)
	for i := range v {
		v[i] = float32(i)
	}
	return v
}

func TestGatherTFLMCases(t *testing.T) {
	// gather_test.cc (float32 cases as float32, int8 cases as int8).
	for _, tc := range []struct {
		name            string
		in, coords      []int
		axis, batchDims int
		pos             []int32
		data, want      []float32
		int8            bool
	}{
		{"Shuffle", []int{2, 2}, []int{2}, 0, 0, []int32{1, 0}, []float32{-2, 0.2, 0.7, 0.8}, []float32{0.7, 0.8, -2, 0.2}, false},
		{"Test0DIndex", []int{2, 2}, []int{}, 0, 0, []int32{1}, []float32{-2, 0.2, 0.7, 0.8}, []float32{0.7, 0.8}, false},
		{"Test0DIndexWith0DResult", []int{3}, []int{}, 0, 0, []int32{1}, []float32{1, 2, 3}, []float32{2}, false},
		{"Test2DIndexWith2DResult", []int{3}, []int{1, 2}, 0, 0, []int32{1, 0}, []float32{1, 2, 3}, []float32{2, 1}, false},
		{"Duplicate", []int{1, 2, 2}, []int{2}, 0, 0, []int32{0, 0}, []float32{-2, 0.2, 0.7, 0.8}, []float32{-2, 0.2, 0.7, 0.8, -2, 0.2, 0.7, 0.8}, false},
		{"Slice", []int{4, 1}, []int{2}, 0, 0, []int32{1, 3}, []float32{-2, 0.2, 0.7, 0.8}, []float32{0.2, 0.8}, false},
		{"Axis1", []int{1, 2, 3}, []int{2}, 1, 0, []int32{1, 0}, []float32{1, 2, 3, 4, 5, 6}, []float32{4, 5, 6, 1, 2, 3}, false},
		{"Axis1_0DIndex", []int{1, 3, 2}, []int{}, 1, 0, []int32{1}, []float32{1, 2, 3, 4, 5, 6}, []float32{3, 4}, false},
		{"BatchDims2", []int{2, 2, 3, 5}, []int{2, 2, 2}, 2, 2, []int32{1, 0, 0, 1, 1, 0, 0, 1}, seq60(),
			[]float32{5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
				35, 36, 37, 38, 39, 30, 31, 32, 33, 34, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54}, false},
		{"BatchDims1", []int{2, 2, 3, 5}, []int{2, 2, 2}, 2, 1, []int32{1, 0, 0, 1, 1, 0, 0, 1}, seq60(),
			[]float32{5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 5,
				6, 7, 8, 9, 20, 21, 22, 23, 24, 15, 16, 17, 18, 19, 15, 16,
				17, 18, 19, 20, 21, 22, 23, 24, 35, 36, 37, 38, 39, 30, 31, 32,
				33, 34, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 50, 51, 52, 53,
				54, 45, 46, 47, 48, 49, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54}, true},
		{"BatchDimsEqualIndexDims", []int{2, 2, 2, 5}, []int{2, 2, 2}, 3, 3, []int32{1, 0, 0, 1, 1, 0, 0, 1}, seq60()[:40],
			[]float32{1, 5, 10, 16, 21, 25, 30, 36}, true},
	} {
		esz := 4
		if tc.int8 {
			esz = 1
		}
		p := testGatherParams(tc.in, tc.coords, tc.axis, tc.batchDims, esz)
		var src []byte
		if tc.int8 {
			v := make([]int8, len(tc.data))
			for i, x := range tc.data {
				v[i] = int8(x)
			}
			src = testI8Bytes(v)
		} else {
			src = testF32Bytes(tc.data)
		}
		check := func(kind string, dst []byte) {
			for i, w := range tc.want {
				var g float32
				if tc.int8 {
					g = float32(int8(dst[i]))
				} else {
					g = math.Float32frombits(binary.LittleEndian.Uint32(dst[4*i:]))
				}
				if g != w {
					t.Errorf("%s (%s): element %d = %v, want %v", tc.name, kind, i, g, w)
				}
			}
		}
		dst := make([]byte, esz*len(tc.want))
		gather(p, dst, src, tc.pos)
		check("run-time indices", dst)
		dst = make([]byte, esz*len(tc.want))
		gatherConstIdx(p, dst, src, testI32s(tc.pos))
		check("constant indices", dst)
	}
}

var rank3 = []float32{1.1, -1.2, 1.3, -2.1, 2.2, 2.3, 3.1, 3.2, -3.3, -4.1, -4.2, 4.3, 5.1, -5.2, 5.3, 6.1, -6.2, 6.3}

// testGatherNdParams is what the generator computes for GATHER_ND.
func testGatherNdParams(params, indices []int, esz int) *gatherNdParams {
	nd := indices[len(indices)-1]
	p := &gatherNdParams{slices: 1, nd: nd, slice: esz}
	for _, d := range indices[:len(indices)-1] {
		p.slices *= d
	}
	for _, d := range params[nd:] {
		p.slice *= d
	}
	dims := []*int{&p.dim0, &p.dim1, &p.dim2, &p.dim3, &p.dim4}
	strides := []*int{&p.stride0, &p.stride1, &p.stride2, &p.stride3, &p.stride4}
	for j := range dims {
		*dims[j] = 1
	}
	for j := 0; j < nd; j++ {
		*dims[j] = params[j]
		s := esz
		for _, d := range params[j+1:] {
			s *= d
		}
		*strides[j] = s
	}
	return p
}

func TestGatherNdTFLMCases(t *testing.T) {
	// gather_nd_test.cc.
	m := []float32{1.1, 1.2, 2.1, 2.2}
	for _, tc := range []struct {
		name            string
		params, indices []int
		idx             []int32
		data, want      []float32
	}{
		{"ElementIndexingIntoMatrix", []int{2, 2}, []int{2, 2}, []int32{0, 0, 1, 1}, m, []float32{1.1, 2.2}},
		{"SliceIndexingIntoMatrix", []int{2, 2}, []int{2, 1}, []int32{1, 0}, m, []float32{2.1, 2.2, 1.1, 1.2}},
		{"BatchedIndexingIntoMatrix1", []int{2, 2}, []int{2, 1, 1}, []int32{1, 0}, m, []float32{2.1, 2.2, 1.1, 1.2}},
		{"BatchedIndexingIntoMatrix2", []int{2, 2}, []int{2, 1, 2}, []int32{0, 0, 1, 1}, m, []float32{1.1, 2.2}},
		{"DuplicateIndexingIntoMatrix", []int{2, 2}, []int{2, 2}, []int32{0, 0, 0, 0}, m, []float32{1.1, 1.1}},
		{"ElementIndexingIntoRank3Tensor", []int{3, 2, 3}, []int{1, 2, 3}, []int32{0, 0, 1, 1, 1, 0}, rank3, []float32{-1.2, -4.1}},
		{"SliceIndexingIntoRank3Tensor", []int{3, 2, 3}, []int{2, 1}, []int32{0, 2}, rank3,
			[]float32{1.1, -1.2, 1.3, -2.1, 2.2, 2.3, 5.1, -5.2, 5.3, 6.1, -6.2, 6.3}},
		{"BatchedIndexingIntoRank3Tensor2", []int{3, 2, 3}, []int{3, 1, 1}, []int32{1, 2, 0}, rank3,
			[]float32{3.1, 3.2, -3.3, -4.1, -4.2, 4.3, 5.1, -5.2, 5.3, 6.1, -6.2, 6.3, 1.1, -1.2, 1.3, -2.1, 2.2, 2.3}},
		{"BatchedIndexingIntoRank3Tensor3", []int{3, 2, 3}, []int{2, 2, 2}, []int32{0, 1, 1, 0, 0, 0, 2, 1}, rank3,
			[]float32{-2.1, 2.2, 2.3, 3.1, 3.2, -3.3, 1.1, -1.2, 1.3, 6.1, -6.2, 6.3}},
		{"BatchedIndexingIntoRank3Tensor4", []int{3, 2, 3}, []int{2, 2, 3}, []int32{0, 0, 1, 1, 0, 1, 1, 1, 2, 2, 1, 2}, rank3,
			[]float32{-1.2, 3.2, 4.3, 6.3}},
	} {
		p := testGatherNdParams(tc.params, tc.indices, 4)
		src := testF32Bytes(tc.data)
		for k := 0; k < 2; k++ {
			dst := make([]byte, 4*len(tc.want))
			if k == 0 {
				gatherNd(p, dst, src, tc.idx)
			} else {
				gatherNdConstIdx(p, dst, src, testI32s(tc.idx))
			}
			for i, w := range tc.want {
				if g := math.Float32frombits(binary.LittleEndian.Uint32(dst[4*i:])); g != w {
					t.Errorf("%s (variant %d): element %d = %v, want %v", tc.name, k, i, g, w)
				}
			}
		}
	}
}

func TestEmbeddingLookupTFLMCases(t *testing.T) {
	// embedding_lookup_test.cc: EmbeddingLookupOpTestSimpleInt8 and
	// EmbeddingLookupOpTestSimpleFloat (a plain row copy), and
	// HybridEmbeddingLookupHybridOpTestSimple2DTestInt8 (int8 table, float
	// output; the test quantizes symmetrically over the data's range and
	// accepts one quantization step).
	table := []int8{0, 1, 2, 3, 10, 11, 12, 13, 100, 101, 102, 103, 110, 111, 112, 113, -56, -55, -54, -53, -46, -45, -44, -43}
	p := &gatherParams{batches: 1, outer: 1, coords: 3, axis: 3, row: 8}
	dst := make([]byte, 24)
	gather(p, dst, testI8Bytes(table), []int32{1, 0, 2})
	for i, w := range append(append(append([]int8{}, table[8:16]...), table[:8]...), table[16:]...) {
		if int8(dst[i]) != w {
			t.Errorf("SimpleInt8: element %d = %d, want %d", i, int8(dst[i]), w)
		}
	}
	f := []float32{0.00, 0.01, 0.02, 0.03, 0.10, 0.11, 0.12, 0.13, 1.00, 1.01, 1.02, 1.03, 1.10, 1.11, 1.12, 1.13, 2.00, 2.01, 2.02, 2.03, 2.10, 2.11, 2.12, 2.13}
	dst = make([]byte, 96)
	pf := &gatherParams{batches: 1, outer: 1, coords: 3, axis: 3, row: 32}
	gather(pf, dst, testF32Bytes(f), []int32{1, 0, 2})
	for i, w := range append(append(append([]float32{}, f[8:16]...), f[:8]...), f[16:]...) {
		if g := math.Float32frombits(binary.LittleEndian.Uint32(dst[4*i:])); g != w {
			t.Errorf("SimpleFloat: element %d = %v, want %v", i, g, w)
		}
	}
	h := append([]float32{}, f...)
	h[9] = -1.01
	scale := float32(2.13) / 127
	q := make([]int8, len(h))
	for i, v := range h {
		q[i] = int8(math.Round(float64(v / scale)))
	}
	ph := &gatherParams{batches: 1, outer: 1, coords: 3, axis: 3, row: 8}
	for k := 0; k < 2; k++ {
		out := make([]float32, 24)
		if k == 0 {
			embeddingHybrid(ph, scale, out, q, []int32{1, 0, 2})
		} else {
			embeddingHybridConstIdx(ph, scale, out, q, testI32s([]int32{1, 0, 2}))
		}
		for i, w := range append(append(append([]float32{}, h[8:16]...), h[:8]...), h[16:]...) {
			if math.Abs(float64(out[i]-w)) > float64(scale) {
				t.Errorf("Hybrid2D (variant %d): element %d = %v, want %v", k, i, out[i], w)
			}
		}
	}
}

// TestGatherOutOfRange: run-time indices outside their dimension are
// clamped into it (negative to 0, too large to the last row), int32
// extremes included, and nothing outside the tensors is touched (the
// slices are exactly the tensors' sizes, so an access outside would panic).
func TestGatherOutOfRange(t *testing.T) {
	src := testI8Bytes([]int8{10, 11, 20, 21, 30, 31}) // 3 rows of 2
	p := &gatherParams{batches: 1, outer: 1, coords: 6, axis: 3, row: 2}
	idx := []int32{-1, 3, math.MinInt32, math.MaxInt32, 1, 7}
	want := []int8{10, 11, 30, 31, 10, 11, 30, 31, 20, 21, 30, 31}
	for k := 0; k < 2; k++ {
		dst := make([]byte, 12)
		if k == 0 {
			gather(p, dst, src, idx)
		} else {
			gatherConstIdx(p, dst, src, testI32s(idx))
		}
		for i, w := range want {
			if int8(dst[i]) != w {
				t.Errorf("gather variant %d: element %d = %d, want %d", k, i, int8(dst[i]), w)
			}
		}
	}
	// Batched GATHER clamps into the axis, never into another batch's rows.
	pb := &gatherParams{batches: 2, outer: 1, coords: 1, axis: 3, row: 1}
	dst := make([]byte, 2)
	gather(pb, dst, []byte{1, 2, 3, 4, 5, 6}, []int32{5, -5})
	if dst[0] != 3 || dst[1] != 4 {
		t.Errorf("batched gather: got %v, want [3 4]", dst)
	}

	out := make([]float32, 4)
	embeddingHybrid(&gatherParams{batches: 1, outer: 1, coords: 2, axis: 3, row: 2}, 0.5, out, []int8{2, 4, 6, 8, 10, 12}, []int32{math.MaxInt32, -7})
	if out[0] != 5 || out[1] != 6 || out[2] != 1 || out[3] != 2 {
		t.Errorf("hybrid embedding lookup: got %v, want [5 6 1 2]", out)
	}

	// GATHER_ND on a [3, 2] float input with 2-tuples: each index is
	// clamped into its own dimension (TFLM would read (1, 1) for (0, 3),
	// which lies inside the flat tensor; here column 3 becomes column 1 of
	// row 0).
	pn := testGatherNdParams([]int{3, 2}, []int{4, 2}, 4)
	srcF := testF32Bytes([]float32{0, 1, 10, 11, 20, 21})
	idxN := []int32{0, 3, -1, -1, 9, 0, math.MinInt32, math.MaxInt32}
	wantN := []float32{1, 0, 20, 1}
	for k := 0; k < 2; k++ {
		dst := make([]byte, 16)
		if k == 0 {
			gatherNd(pn, dst, srcF, idxN)
		} else {
			gatherNdConstIdx(pn, dst, srcF, testI32s(idxN))
		}
		for i, w := range wantN {
			if g := math.Float32frombits(binary.LittleEndian.Uint32(dst[4*i:])); g != w {
				t.Errorf("gather_nd variant %d: element %d = %v, want %v", k, i, g, w)
			}
		}
	}
}

func TestGatherAllocatesNothing(t *testing.T) {
	src := make([]byte, 64)
	dst := make([]byte, 16)
	idx := []int32{3, 1, 0, 2}
	p := &gatherParams{batches: 1, outer: 1, coords: 4, axis: 4, row: 4}
	pn := testGatherNdParams([]int{4, 4}, []int{4, 2}, 4)
	if n := testing.AllocsPerRun(10, func() {
		gather(p, dst, src, idx)
		gatherNd(pn, dst, src, []int32{0, 1, 2, 3, 3, 3, 1, 0})
	}); n != 0 {
		t.Errorf("%v allocations per run", n)
	}
}
