package kernels

import (
	"bytes"
	"testing"
)

// moveTestParams builds moveParams the plain way, without the generator's
// dimension merging: up to five dimensions, right-aligned, one element per
// run. count, srcStride and dstStride are in elements.
func moveTestParams(esz int, count, srcStride, dstStride []int, srcOff, dstOff int) moveParams {
	var n, s, d [5]int
	for i := range n {
		n[i] = 1
	}
	off := 5 - len(count)
	for i := range count {
		n[off+i], s[off+i], d[off+i] = count[i], srcStride[i]*esz, dstStride[i]*esz
	}
	return moveParams{run: esz,
		n0: n[0], n1: n[1], n2: n[2], n3: n[3], n4: n[4],
		s0: s[0], s1: s[1], s2: s[2], s3: s[3], s4: s[4],
		d0: d[0], d1: d[1], d2: d[2], d3: d[3], d4: d[4],
		src: srcOff * esz, dst: dstOff * esz}
}

// moveTestStrides returns row-major element strides.
func moveTestStrides(shape []int) []int {
	st := make([]int, len(shape))
	n := 1
	for i := len(shape) - 1; i >= 0; i-- {
		st[i] = n
		n *= shape[i]
	}
	return st
}

// moveTestBytes encodes small integers as little-endian elements of esz
// bytes (the high bytes carry a marker so misplaced bytes show).
func moveTestBytes(esz int, v []int) []byte {
	b := make([]byte, 0, len(v)*esz)
	for _, x := range v {
		b = append(b, byte(x))
		for k := 1; k < esz; k++ {
			b = append(b, byte(0xA0+k))
		}
	}
	return b
}

// Slices from tensorflow/lite/micro/kernels/slice_test.cc and strided
// slices from strided_slice_test.cc, with the start, count and step per
// dimension that TFLM's reference kernels iterate.
func TestMoveStridedSliceTFLM(t *testing.T) {
	ints := []int{1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6}
	tests := []struct {
		name  string
		shape []int
		start []int
		count []int
		step  []int
		in    []int
		want  []int
	}{
		{"SliceIn1D", []int{4}, []int{1}, []int{2}, []int{1}, []int{1, 2, 3, 4}, []int{2, 3}},
		{"SliceIn2D", []int{2, 3}, []int{1, 0}, []int{1, 2}, []int{1, 1}, []int{1, 2, 3, 4, 5, 6}, []int{4, 5}},
		{"SliceIn5D", []int{5, 1, 1, 1, 1}, []int{1, 0, 0, 0, 0}, []int{3, 1, 1, 1, 1}, []int{1, 1, 1, 1, 1}, []int{1, 2, 3, 4, 5}, []int{2, 3, 4}},
		{"SliceInputInteger2", []int{3, 2, 3, 1}, []int{1, 0, 0, 0}, []int{1, 2, 3, 1}, []int{1, 1, 1, 1}, ints, []int{3, 3, 3, 4, 4, 4}},
		{"SliceSizeMinus1", []int{3, 2, 3, 1}, []int{1, 0, 0, 0}, []int{2, 1, 3, 1}, []int{1, 1, 1, 1}, ints, []int{3, 3, 3, 5, 5, 5}},
		{"SliceBeginNonZeroSizeMinus1Axis1", []int{3, 3, 2, 1}, []int{1, 1, 0, 0}, []int{2, 2, 1, 1}, []int{1, 1, 1, 1},
			[]int{1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9}, []int{5, 6, 8, 9}},
		{"SliceBeginNonZeroSizeMinus1Axis3", []int{3, 1, 2, 3}, []int{1, 0, 0, 1}, []int{2, 1, 1, 2}, []int{1, 1, 1, 1}, ints, []int{3, 3, 5, 5}},
		// In1D_NegStride: begin -1, end -4, stride -1.
		{"StridedIn1D_NegStride", []int{3}, []int{2}, []int{3}, []int{-1}, []int{1, 2, 3}, []int{3, 2, 1}},
		// In1D_OddLenStride2.
		{"StridedIn1D_OddLenStride2", []int{3}, []int{0}, []int{2}, []int{2}, []int{1, 2, 3}, []int{1, 3}},
		// In2D_NegStride: begin {1,-1}, end {2,-4}, strides {2,-1}.
		{"StridedIn2D_NegStride", []int{2, 3}, []int{1, 2}, []int{1, 3}, []int{2, -1}, []int{1, 2, 3, 4, 5, 6}, []int{6, 5, 4}},
		// In3D_Strided2.
		{"StridedIn3D_Strided2", []int{2, 3, 2}, []int{0, 0, 0}, []int{1, 2, 1}, []int{2, 2, 2}, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, []int{1, 5}},
		// In3D_IdentityShrinkAxis4 (shrink the last axis at 0).
		{"StridedIn3D_IdentityShrinkAxis4", []int{2, 3, 2}, []int{0, 0, 0}, []int{2, 3, 1}, []int{1, 1, 1}, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, []int{1, 3, 5, 7, 9, 11}},
		// Every axis reversed.
		{"StridedReverse4D", []int{2, 1, 2, 2}, []int{1, 0, 1, 1}, []int{2, 1, 2, 2}, []int{-1, -1, -1, -1}, []int{1, 2, 3, 4, 5, 6, 7, 8}, []int{8, 7, 6, 5, 4, 3, 2, 1}},
	}
	for _, tc := range tests {
		for _, esz := range []int{1, 2, 4, 8, 3} {
			st := moveTestStrides(tc.shape)
			src := make([]int, len(st))
			off := 0
			for i := range st {
				off += tc.start[i] * st[i]
				src[i] = tc.step[i] * st[i]
			}
			p := moveTestParams(esz, tc.count, src, moveTestStrides(tc.count), off, 0)
			in := moveTestBytes(esz, tc.in)
			want := moveTestBytes(esz, tc.want)
			got := make([]byte, len(want))
			moveStrided(&p, got, in)
			if !bytes.Equal(got, want) {
				t.Errorf("%s esz %d: got % x, want % x", tc.name, esz, got, want)
			}
			got2 := make([]byte, len(want))
			moveStridedConst(&p, got2, string(in))
			if !bytes.Equal(got2, want) {
				t.Errorf("%s esz %d const: got % x, want % x", tc.name, esz, got2, want)
			}
		}
	}
}

// Transposes from tensorflow/lite/micro/kernels/transpose_test.cc: output
// dimension i walks input dimension perm[i].
func TestMoveStridedTransposeTFLM(t *testing.T) {
	seq := func(n int) []int {
		v := make([]int, n)
		for i := range v {
			v[i] = i
		}
		return v
	}
	tests := []struct {
		name  string
		shape []int
		perm  []int
		want  []int
	}{
		{"2DPerm1", []int{3, 2}, []int{1, 0}, []int{0, 2, 4, 1, 3, 5}},
		{"2D4x4KernelLeftOverRightSide", []int{4, 6}, []int{1, 0},
			[]int{0, 6, 12, 18, 1, 7, 13, 19, 2, 8, 14, 20, 3, 9, 15, 21, 4, 10, 16, 22, 5, 11, 17, 23}},
		{"3D", []int{2, 3, 4}, []int{2, 0, 1},
			[]int{0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21, 2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23}},
		{"3DFlatten", []int{2, 2, 3}, []int{0, 2, 1}, []int{0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11}},
		{"4DFlatten", []int{2, 2, 2, 2}, []int{0, 1, 3, 2}, []int{0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15}},
		{"4DFlattenTwo", []int{2, 2, 2, 2}, []int{0, 2, 3, 1}, []int{0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15}},
		{"SimpleTestWithReorder", []int{1, 2, 3, 1}, []int{2, 1, 3, 0}, []int{0, 3, 1, 4, 2, 5}},
		{"Complex5DTestWithReorder", []int{2, 3, 2, 2, 5}, []int{2, 0, 1, 4, 3}, []int{
			0, 5, 1, 6, 2, 7, 3, 8, 4, 9, 20, 25, 21, 26, 22,
			27, 23, 28, 24, 29, 40, 45, 41, 46, 42, 47, 43, 48, 44, 49,
			60, 65, 61, 66, 62, 67, 63, 68, 64, 69, 80, 85, 81, 86, 82,
			87, 83, 88, 84, 89, 100, 105, 101, 106, 102, 107, 103, 108, 104, 109,
			10, 15, 11, 16, 12, 17, 13, 18, 14, 19, 30, 35, 31, 36, 32,
			37, 33, 38, 34, 39, 50, 55, 51, 56, 52, 57, 53, 58, 54, 59,
			70, 75, 71, 76, 72, 77, 73, 78, 74, 79, 90, 95, 91, 96, 92,
			97, 93, 98, 94, 99, 110, 115, 111, 116, 112, 117, 113, 118, 114, 119}},
	}
	for _, tc := range tests {
		for _, esz := range []int{1, 2, 4} {
			inSt := moveTestStrides(tc.shape)
			var out, src []int
			for _, p := range tc.perm {
				out = append(out, tc.shape[p])
				src = append(src, inSt[p])
			}
			p := moveTestParams(esz, out, src, moveTestStrides(out), 0, 0)
			in := moveTestBytes(esz, seq(len(tc.want)))
			want := moveTestBytes(esz, tc.want)
			got := make([]byte, len(want))
			moveStrided(&p, got, in)
			if !bytes.Equal(got, want) {
				t.Errorf("%s esz %d: got % x, want % x", tc.name, esz, got, want)
			}
		}
	}
}

// Concatenation, pack, unpack and split are one strided copy per input or
// output: cases from concatenation_test.cc, pack_test.cc, unpack_test.cc
// and split_test.cc, written as (outer, chunk) copies.
func TestMoveStridedConcatPackSplitTFLM(t *testing.T) {
	type part struct {
		in             []int
		outer, chunk   int
		srcRow, dstRow int
		srcOff, dstOff int
	}
	tests := []struct {
		name  string
		parts []part
		n     int
		want  []int
	}{
		// ConcatenationTest ThreeDimensionalTwoInputsDifferentShapes: axis 1
		// of {2,1,2} and {2,3,2} into {2,4,2}.
		{"ConcatDifferentShapes", []part{
			{[]int{1, 3, 4, 7}, 2, 2, 2, 8, 0, 0},
			{[]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 2, 6, 6, 8, 0, 2},
		}, 16, []int{1, 3, 1, 2, 3, 4, 5, 6, 4, 7, 7, 8, 9, 10, 11, 12}},
		// ConcatenationTest TwoInputsQuantizedInt8: axis 2 of {2,1,2} twice.
		{"ConcatQuantizedInt8", []part{
			{[]int{1, 2, 3, 4}, 2, 2, 2, 4, 0, 0},
			{[]int{5, 6, 7, 8}, 2, 2, 2, 4, 0, 2},
		}, 8, []int{1, 2, 5, 6, 3, 4, 7, 8}},
		// PackTest PackFloatThreeInputs: axis 0 of three {2}.
		{"PackThreeInputs", []part{
			{[]int{1, 4}, 1, 2, 2, 6, 0, 0},
			{[]int{2, 5}, 1, 2, 2, 6, 0, 2},
			{[]int{3, 6}, 1, 2, 2, 6, 0, 4},
		}, 6, []int{1, 4, 2, 5, 3, 6}},
		// PackTest PackFloatThreeInputsDifferentAxis: axis 1.
		{"PackDifferentAxis", []part{
			{[]int{1, 4}, 2, 1, 1, 3, 0, 0},
			{[]int{2, 5}, 2, 1, 1, 3, 0, 1},
			{[]int{3, 6}, 2, 1, 1, 3, 0, 2},
		}, 6, []int{1, 2, 3, 4, 5, 6}},
		// SplitTest TwoSplitFourDimensionalAxisThree, second output.
		{"SplitAxisThree", []part{
			{[]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, 8, 1, 2, 1, 1, 0},
		}, 8, []int{2, 4, 6, 8, 10, 12, 14, 16}},
		// UnpackTest UnpackFloatThreeOutputs, third output (axis 0 of {3,2}).
		{"UnpackThird", []part{
			{[]int{1, 2, 3, 4, 5, 6}, 1, 2, 6, 2, 4, 0},
		}, 2, []int{5, 6}},
	}
	for _, tc := range tests {
		for _, esz := range []int{1, 2, 4} {
			got := make([]byte, tc.n*esz)
			for _, p := range tc.parts {
				mp := moveTestParams(esz, []int{p.outer, p.chunk}, []int{p.srcRow, 1}, []int{p.dstRow, 1}, p.srcOff, p.dstOff)
				moveStrided(&mp, got, moveTestBytes(esz, p.in))
			}
			if want := moveTestBytes(esz, tc.want); !bytes.Equal(got, want) {
				t.Errorf("%s esz %d: got % x, want % x", tc.name, esz, got, want)
			}
		}
	}
}

// Merged runs (the generator folds contiguous dimensions into one run of
// several elements) give the same bytes as element-wise copies, for run
// lengths that take every path of moveRow.
func TestMoveStridedRuns(t *testing.T) {
	in := make([]byte, 96)
	for i := range in {
		in[i] = byte(i*7 + 1)
	}
	for _, run := range []int{1, 2, 3, 4, 5, 8, 12} {
		// Runs of run bytes taken every 2*run bytes, written densely.
		rows := len(in) / (2 * run)
		p := moveParams{run: run, n0: 1, n1: 1, n2: 1, n3: 1, n4: rows, s4: 2 * run, d4: run}
		got := make([]byte, rows*run)
		moveStrided(&p, got, in)
		var want []byte
		for r := 0; r < rows; r++ {
			want = append(want, in[2*run*r:2*run*r+run]...)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("run %d: got % x, want % x", run, got, want)
		}
	}
}

// A copy with zero counts touches nothing.
func TestMoveStridedEmpty(t *testing.T) {
	p := moveParams{run: 4, n0: 1, n1: 0, n2: 1, n3: 1, n4: 1}
	dst := []byte{9, 9, 9, 9}
	moveStrided(&p, dst, nil)
	if !bytes.Equal(dst, []byte{9, 9, 9, 9}) {
		t.Errorf("dst changed: % x", dst)
	}
}
