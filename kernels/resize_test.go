package kernels

import (
	"encoding/binary"
	"math"
	"testing"
)

// The tables below are built here the way TFLM's reference kernels choose
// rows and weights (resize_nearest_neighbor.h, resize_bilinear.h), so the
// kernels are checked on TFLM's own test cases without the generator.

func testI32s(v []int32) string {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return string(b)
}

// testNearestIndex is GetNearestNeighbor.
func testNearestIndex(v, in, out int, align, half bool) int {
	scale := float32(in) / float32(out)
	if align && out > 1 {
		scale = float32(in-1) / float32(out-1)
	}
	off := float32(0)
	if half {
		off = 0.5
	}
	x := float32((float32(v) + off) * scale)
	var r int
	if align {
		r = int(math.Round(float64(x)))
	} else {
		r = int(math.Floor(float64(x)))
	}
	r = min(r, in-1)
	if half {
		r = max(r, 0)
	}
	return r
}

// testNearestTables returns ys and xs for an NHWC input of h x w pixels of
// esz-byte elements and depth channels.
func testNearestTables(h, w, depth, esz, oh, ow int, align, half bool) (string, string) {
	var ys, xs []int32
	for y := 0; y < oh; y++ {
		ys = append(ys, int32(testNearestIndex(y, h, oh, align, half)*w*depth*esz))
	}
	for x := 0; x < ow; x++ {
		xs = append(xs, int32(testNearestIndex(x, w, ow, align, half)*depth*esz))
	}
	return testI32s(ys), testI32s(xs)
}

func TestResizeNearestTFLMCases(t *testing.T) {
	// resize_nearest_neighbor_test.cc, int16 variants (the kernel copies
	// bytes, so int8 and float32 differ only in the element size).
	for _, tc := range []struct {
		name       string
		b, h, w, d int
		oh, ow     int
		in, want   []int16
	}{
		{"HorizontalResize", 1, 1, 2, 1, 1, 3, []int16{-3, 6}, []int16{-3, -3, 6}},
		{"VerticalResize", 1, 2, 1, 1, 3, 1, []int16{3, -9}, []int16{3, 3, -9}},
		{"TwoDimensionalResize", 1, 2, 2, 1, 3, 3, []int16{3, -6, 9, 12}, []int16{3, 3, -6, 3, 3, -6, 9, 9, 12}},
		{"TwoDimensionalResizeWithTwoBatches", 2, 2, 2, 1, 3, 3,
			[]int16{3, 6, 9, -12, -4, 10, 10, 16},
			[]int16{3, 3, 6, 3, 3, 6, 9, 9, -12, -4, -4, 10, -4, -4, 10, 10, 10, 16}},
		{"ThreeDimensionalResize", 1, 2, 2, 2, 3, 3,
			[]int16{3, 4, -6, 10, 10, 12, -14, 16},
			[]int16{3, 4, 3, 4, -6, 10, 3, 4, 3, 4, -6, 10, 10, 12, 10, 12, -14, 16}},
	} {
		ys, xs := testNearestTables(tc.h, tc.w, tc.d, 2, tc.oh, tc.ow, false, false)
		p := &resizeNearestParams{batches: tc.b, outH: tc.oh, outW: tc.ow, run: 2 * tc.d, inBatch: 2 * tc.h * tc.w * tc.d}
		src := make([]byte, 2*len(tc.in))
		for i, v := range tc.in {
			binary.LittleEndian.PutUint16(src[2*i:], uint16(v))
		}
		dst := make([]byte, 2*len(tc.want))
		resizeNearest(p, ys, xs, dst, src)
		for i, w := range tc.want {
			if g := int16(binary.LittleEndian.Uint16(dst[2*i:])); g != w {
				t.Errorf("%s: element %d = %d, want %d", tc.name, i, g, w)
			}
		}
	}
	// HorizontalResize, float32: bits moved unchanged.
	ys, xs := testNearestTables(1, 2, 1, 4, 1, 3, false, false)
	src := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, math.Float32bits(3)), math.Float32bits(6))
	dst := make([]byte, 12)
	resizeNearest(&resizeNearestParams{batches: 1, outH: 1, outW: 3, run: 4, inBatch: 8}, ys, xs, dst, src)
	for i, w := range []float32{3, 3, 6} {
		if g := math.Float32frombits(binary.LittleEndian.Uint32(dst[4*i:])); g != w {
			t.Errorf("float HorizontalResize: element %d = %v, want %v", i, g, w)
		}
	}
}

// testBilinearTables returns ys and xs for resizeBilinearInt8 (float false)
// or resizeBilinearF32, following ComputeInterpolationValuesInteger and
// ComputeInterpolationValues.
func testBilinearTables(h, w, depth, oh, ow int, align, half, float bool) (string, string) {
	axis := func(in, out, stride int) string {
		var v []int32
		if float {
			scale := float32(in) / float32(out)
			if align && out > 1 {
				scale = float32(in-1) / float32(out-1)
			}
			for i := 0; i < out; i++ {
				s := float32(float32(i) * scale)
				if half {
					s = float32((float32(i)+0.5)*scale) - 0.5
				}
				lo := max(int(math.Floor(float64(s))), 0)
				hi := min(int(math.Ceil(float64(s))), in-1)
				d := s - float32(lo)
				v = append(v, int32(lo*stride), int32(hi*stride), int32(math.Float32bits(1-d)), int32(math.Float32bits(d)))
			}
			return testI32s(v)
		}
		scale := (1024*in + out/2) / out
		if align && out > 1 {
			scale = (1024*(in-1) + (out-1)/2) / (out - 1)
		}
		for i := 0; i < out; i++ {
			s := i * scale
			if half {
				s = i*scale + scale/2 - 512
			}
			lo := max(s/1024, 0)
			hi := min((s+1023)/1024, in-1)
			d := s - 1024*lo
			v = append(v, int32(lo*stride), int32(hi*stride), int32(1024-d), int32(d))
		}
		return testI32s(v)
	}
	return axis(h, oh, w*depth), axis(w, ow, depth)
}

func TestResizeBilinearTFLMCases(t *testing.T) {
	// resize_bilinear_test.cc (align_corners and half_pixel_centers false),
	// with its tolerances: 1 for int8 (its goldens are the real-valued
	// interpolation, not the kernel's fixed-point result), 1e-5 for float32.
	// The exact results are checked against TFLM itself by the differential
	// test in gen/lower.
	for _, tc := range []struct {
		name       string
		b, h, w, d int
		oh, ow     int
		in, want   []float32 // int8 cases hold integers
		int8       bool
	}{
		{"HorizontalResize", 1, 1, 2, 1, 1, 3, []float32{3, 6}, []float32{3, 5, 6}, false},
		{"HorizontalResizeInt8", 1, 1, 2, 1, 1, 3, []float32{3, 6}, []float32{3, 5, 6}, true},
		{"VerticalResize", 1, 2, 1, 1, 3, 1, []float32{3, 9}, []float32{3, 7, 9}, false},
		{"VerticalResizeInt8", 1, 2, 1, 1, 3, 1, []float32{3, 9}, []float32{3, 7, 9}, true},
		{"TwoDimensionalResize", 1, 2, 2, 1, 3, 3, []float32{3, 6, 9, 12}, []float32{3, 5, 6, 7, 9, 10, 9, 11, 12}, false},
		{"TwoDimensionalResizeInt8", 1, 2, 2, 1, 3, 3, []float32{3, 6, 9, 12}, []float32{3, 5, 6, 7, 9, 10, 9, 11, 12}, true},
		{"TwoDimensionalResizeWithTwoBatches", 2, 2, 2, 1, 3, 3,
			[]float32{3, 6, 9, 12, 4, 10, 10, 16},
			[]float32{3, 5, 6, 7, 9, 10, 9, 11, 12, 4, 8, 10, 8, 12, 14, 10, 14, 16}, false},
		{"TwoDimensionalResizeWithTwoBatchesInt8", 2, 2, 2, 1, 3, 3,
			[]float32{3, 6, 9, 12, 4, 10, 12, 16},
			[]float32{3, 5, 6, 7, 9, 10, 9, 11, 12, 4, 8, 10, 9, 12, 13, 12, 14, 16}, true},
		{"ThreeDimensionalResize", 1, 2, 2, 2, 3, 3,
			[]float32{3, 4, 6, 10, 9, 10, 12, 16},
			[]float32{3, 4, 5, 8, 6, 10, 7, 8, 9, 12, 10, 14, 9, 10, 11, 14, 12, 16}, false},
		{"ThreeDimensionalResizeInt8", 1, 2, 2, 2, 3, 3,
			[]float32{3, 4, 6, 10, 10, 12, 14, 16},
			[]float32{3, 4, 5, 8, 6, 10, 7, 9, 10, 12, 11, 13, 10, 12, 12, 14, 14, 16}, true},
	} {
		ys, xs := testBilinearTables(tc.h, tc.w, tc.d, tc.oh, tc.ow, false, false, !tc.int8)
		p := &resizeBilinearParams{batches: tc.b, outH: tc.oh, outW: tc.ow, depth: tc.d, inBatch: tc.h * tc.w * tc.d}
		if tc.int8 {
			in := make([]int8, len(tc.in))
			for i, v := range tc.in {
				in[i] = int8(v)
			}
			out := make([]int8, len(tc.want))
			resizeBilinearInt8(p, ys, xs, in, out)
			for i, w := range tc.want {
				if math.Abs(float64(out[i])-float64(w)) > 1 {
					t.Errorf("%s: element %d = %d, want %v", tc.name, i, out[i], w)
				}
			}
			continue
		}
		out := make([]float32, len(tc.want))
		resizeBilinearF32(p, ys, xs, tc.in, out)
		for i, w := range tc.want {
			if math.Abs(float64(out[i]-w)) > 1e-5 {
				t.Errorf("%s: element %d = %v, want %v", tc.name, i, out[i], w)
			}
		}
	}
}

// TestResizeBilinearEdges: the rounding offset turns -0 into +0 in float32;
// half-pixel centres give the first row a negative weight, on a pair of
// neighbours that are both input row 0.
func TestResizeBilinearEdges(t *testing.T) {
	ys, xs := testBilinearTables(1, 1, 1, 1, 1, false, false, true)
	p := &resizeBilinearParams{batches: 1, outH: 1, outW: 1, depth: 1, inBatch: 1}
	out := []float32{1}
	resizeBilinearF32(p, ys, xs, []float32{float32(math.Copysign(0, -1))}, out)
	if math.Float32bits(out[0]) != 0 {
		t.Errorf("-0 input: got bits %#x, want +0", math.Float32bits(out[0]))
	}
	// 2x1 -> 5x1 with half-pixel centres: the first output row lies above
	// the first input row (upper weight negative).
	ys, xs = testBilinearTables(2, 1, 1, 5, 1, false, true, false)
	if w := int32(binary.LittleEndian.Uint32([]byte(ys[12:]))); w >= 0 {
		t.Fatalf("first row weight %d, want negative", w)
	}
	p = &resizeBilinearParams{batches: 1, outH: 5, outW: 1, depth: 1, inBatch: 2}
	o8 := make([]int8, 5)
	resizeBilinearInt8(p, ys, xs, []int8{127, -128}, o8)
	// Row 0: scaled -307 (scale 410): weights 1331 and -307 in 1/1024, both
	// on input row 0 (the upper bound rounds to row 0 too), so the value is
	// row 0's.
	if o8[0] != 127 {
		t.Errorf("first half-pixel row: got %d, want 127", o8[0])
	}
}
