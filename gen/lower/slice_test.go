package lower

import (
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// stridedSliceTFLM holds every case of TFLM's strided_slice_test.cc (data
// copied from the test; the input is truncated or zero-extended to the
// input shape, as the C++ arrays are read only that far).
var stridedSliceTFLM = []struct {
	name                 string
	dt                   model.DType
	in                   []int
	begin, end, strides  []int32
	masks                [5]int32 // begin, end, ellipsis, new_axis, shrink_axis
	offset               bool
	out                  []int
	input, golden        []float64
	prepareErr, noGolden bool
}{
	{"UnsupportedInputSize", model.Float32, []int{2, 2, 2, 2, 2}, []int32{0}, []int32{0}, []int32{0}, [5]int32{0, 0, 0, 0, 0}, false, []int{}, []float64{0.0}, []float64{0.0}, true, false},
	{"In1D", model.Float32, []int{4}, []int32{1}, []int32{3}, []int32{1}, [5]int32{0, 0, 0, 0, 0}, false, []int{2}, []float64{1, 2, 3, 4}, []float64{2, 3}, false, false},
	{"In1D_EmptyOutput", model.Float32, []int{4}, []int32{10}, []int32{3}, []int32{1}, [5]int32{0, 0, 0, 0, 0}, false, []int{0}, []float64{1, 2, 3, 4}, []float64{0.0}, false, false},
	{"In1D_NegativeBegin", model.Float32, []int{4}, []int32{-3}, []int32{3}, []int32{1}, [5]int32{0, 0, 0, 0, 0}, false, []int{2}, []float64{1, 2, 3, 4}, []float64{2, 3}, false, false},
	{"In1D_OutOfRangeBegin", model.Float32, []int{4}, []int32{-5}, []int32{3}, []int32{1}, [5]int32{0, 0, 0, 0, 0}, false, []int{3}, []float64{1, 2, 3, 4}, []float64{1, 2, 3}, false, false},
	{"In1D_NegativeEnd", model.Float32, []int{4}, []int32{1}, []int32{-2}, []int32{1}, [5]int32{0, 0, 0, 0, 0}, false, []int{1}, []float64{1, 2, 3, 4}, []float64{2}, false, false},
	{"In1D_OutOfRangeEnd", model.Float32, []int{4}, []int32{-3}, []int32{5}, []int32{1}, [5]int32{0, 0, 0, 0, 0}, false, []int{3}, []float64{1, 2, 3, 4}, []float64{2, 3, 4}, false, false},
	{"In1D_BeginMask", model.Float32, []int{4}, []int32{1}, []int32{3}, []int32{1}, [5]int32{1, 0, 0, 0, 0}, false, []int{3}, []float64{1, 2, 3, 4}, []float64{1, 2, 3}, false, false},
	{"In1D_NegativeBeginNegativeStride", model.Float32, []int{4}, []int32{-2}, []int32{-3}, []int32{-1}, [5]int32{0, 0, 0, 0, 0}, false, []int{1}, []float64{1, 2, 3, 4}, []float64{3}, false, false},
	{"In1D_OutOfRangeBeginNegativeStride", model.Float32, []int{4}, []int32{5}, []int32{2}, []int32{-1}, [5]int32{0, 0, 0, 0, 0}, false, []int{1}, []float64{1, 2, 3, 4}, []float64{4}, false, false},
	{"In1D_NegativeEndNegativeStride", model.Float32, []int{4}, []int32{2}, []int32{-4}, []int32{-1}, [5]int32{0, 0, 0, 0, 0}, false, []int{2}, []float64{1, 2, 3, 4}, []float64{3, 2}, false, false},
	{"In1D_OutOfRangeEndNegativeStride", model.Float32, []int{4}, []int32{-3}, []int32{-5}, []int32{-1}, [5]int32{0, 0, 0, 0, 0}, false, []int{2}, []float64{1, 2, 3, 4}, []float64{2, 1}, false, false},
	{"In1D_EndMask", model.Float32, []int{4}, []int32{1}, []int32{3}, []int32{1}, [5]int32{0, 1, 0, 0, 0}, false, []int{3}, []float64{1, 2, 3, 4}, []float64{2, 3, 4}, false, false},
	{"In1D_NegStride", model.Float32, []int{3}, []int32{-1}, []int32{-4}, []int32{-1}, [5]int32{0, 0, 0, 0, 0}, false, []int{3}, []float64{1, 2, 3}, []float64{3, 2, 1}, false, false},
	{"In1D_EvenLenStride2", model.Float32, []int{2}, []int32{0}, []int32{4}, []int32{2}, [5]int32{0, 0, 0, 0, 0}, false, []int{1}, []float64{1, 2, 3, 4}, []float64{1}, false, false},
	{"In1D_OddLenStride2", model.Float32, []int{3}, []int32{0}, []int32{3}, []int32{2}, [5]int32{0, 0, 0, 0, 0}, false, []int{2}, []float64{1, 2, 3, 4}, []float64{1, 3}, false, false},
	{"In2D_Identity", model.Float32, []int{2, 3}, []int32{0, 0}, []int32{2, 3}, []int32{1, 1}, [5]int32{0, 0, 0, 0, 0}, false, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6}, []float64{1, 2, 3, 4, 5, 6}, false, false},
	{"In2D", model.Float32, []int{2, 3}, []int32{1, 0}, []int32{2, 2}, []int32{1, 1}, [5]int32{0, 0, 0, 0, 0}, false, []int{1, 2}, []float64{1, 2, 3, 4, 5, 6}, []float64{4, 5}, false, false},
	{"In2D_Stride2", model.Float32, []int{2, 3}, []int32{0, 0}, []int32{2, 3}, []int32{2, 2}, [5]int32{0, 0, 0, 0, 0}, false, []int{1, 2}, []float64{1, 2, 3, 4, 5, 6}, []float64{1, 3}, false, false},
	{"In2D_NegStride", model.Float32, []int{2, 3}, []int32{1, -1}, []int32{2, -4}, []int32{2, -1}, [5]int32{0, 0, 0, 0, 0}, false, []int{1, 3}, []float64{1, 2, 3, 4, 5, 6}, []float64{6, 5, 4}, false, false},
	{"In2D_BeginMask", model.Float32, []int{2, 3}, []int32{1, 0}, []int32{2, 2}, []int32{1, 1}, [5]int32{1, 0, 0, 0, 0}, false, []int{2, 2}, []float64{1, 2, 3, 4, 5, 6}, []float64{1, 2, 4, 5}, false, false},
	{"In2D_EndMask", model.Float32, []int{2, 3}, []int32{1, 0}, []int32{2, 2}, []int32{1, 1}, [5]int32{0, 2, 0, 0, 0}, false, []int{1, 3}, []float64{1, 2, 3, 4, 5, 6}, []float64{4, 5, 6}, false, false},
	{"In2D_NegStrideBeginMask", model.Float32, []int{2, 3}, []int32{1, -2}, []int32{2, -4}, []int32{1, -1}, [5]int32{2, 0, 0, 0, 0}, false, []int{1, 3}, []float64{1, 2, 3, 4, 5, 6}, []float64{6, 5, 4}, false, false},
	{"In2D_NegStrideEndMask", model.Float32, []int{2, 3}, []int32{1, -2}, []int32{2, -3}, []int32{1, -1}, [5]int32{0, 2, 0, 0, 0}, false, []int{1, 2}, []float64{1, 2, 3, 4, 5, 6}, []float64{5, 4}, false, false},
	{"In3D_Identity", model.Float32, []int{2, 3, 2}, []int32{0, 0, 0}, []int32{2, 3, 2}, []int32{1, 1, 1}, [5]int32{0, 0, 0, 0, 0}, false, []int{2, 3, 2}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, false, false},
	{"In3D_NegStride", model.Float32, []int{2, 3, 2}, []int32{0, 0, 0}, []int32{2, 3, 2}, []int32{1, 1, 1}, [5]int32{0, 0, 0, 0, 0}, false, []int{2, 3, 2}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, false, false},
	{"In3D_Strided2", model.Float32, []int{2, 3, 2}, []int32{0, 0, 0}, []int32{2, 3, 2}, []int32{2, 2, 2}, [5]int32{0, 0, 0, 0, 0}, false, []int{1, 2, 1}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, []float64{1, 5}, false, false},
	{"In1D_ShrinkAxisMask1", model.Float32, []int{2, 3, 2}, []int32{0, 0, 0}, []int32{2, 3, 2}, []int32{1, 1, 1}, [5]int32{0, 0, 0, 0, 0}, false, []int{2, 3, 2}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, false, false},
	{"In1D_ShrinkAxisMask1_NegativeSlice", model.Float32, []int{4}, []int32{-1}, []int32{0}, []int32{1}, [5]int32{0, 0, 0, 0, 1}, false, []int{}, []float64{0, 1, 2, 3}, []float64{3}, false, false},
	{"In2D_ShrinkAxis3_NegativeSlice", model.Float32, []int{4, 1}, []int32{-2, -1}, []int32{-1, 0}, []int32{1, 1}, [5]int32{0, 0, 0, 0, 3}, false, []int{}, []float64{0, 1, 2, 3}, []float64{2}, false, false},
	{"In2D_ShrinkAxis2_BeginEndAxis1_NegativeSlice", model.Float32, []int{4, 1}, []int32{0, -1}, []int32{0, 0}, []int32{1, 1}, [5]int32{1, 1, 0, 0, 2}, false, []int{4}, []float64{0, 1, 2, 3}, []float64{0, 1, 2, 3}, false, false},
	{"In1D_BeginMaskShrinkAxisMask1", model.Float32, []int{4}, []int32{1}, []int32{1}, []int32{1}, [5]int32{1, 0, 0, 0, 1}, false, []int{}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, []float64{1}, false, false},
	{"In2D_ShrinkAxisMask1", model.Float32, []int{2, 3}, []int32{0, 0}, []int32{1, 3}, []int32{1, 1}, [5]int32{0, 0, 0, 0, 1}, false, []int{3}, []float64{1, 2, 3, 4, 5, 6}, []float64{1, 2, 3}, false, false},
	{"In2D_ShrinkAxisMask2", model.Float32, []int{2, 3}, []int32{0, 0}, []int32{2, 1}, []int32{1, 1}, [5]int32{0, 0, 0, 0, 2}, false, []int{2}, []float64{1, 2, 3, 4, 5, 6}, []float64{1, 4}, false, false},
	{"In2D_ShrinkAxisMask3", model.Float32, []int{2, 3}, []int32{0, 0}, []int32{1, 1}, []int32{1, 1}, [5]int32{0, 0, 0, 0, 3}, false, []int{}, []float64{1, 2, 3, 4, 5, 6}, []float64{1}, false, false},
	{"In3D_IdentityShrinkAxis1", model.Float32, []int{2, 3, 2}, []int32{0, 0, 0}, []int32{1, 3, 2}, []int32{1, 1, 1}, [5]int32{0, 0, 0, 0, 1}, false, []int{3, 2}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, []float64{1, 2, 3, 4, 5, 6}, false, false},
	{"In3D_IdentityShrinkAxis2", model.Float32, []int{2, 3, 2}, []int32{0, 0, 0}, []int32{2, 1, 2}, []int32{1, 1, 1}, [5]int32{0, 0, 0, 0, 2}, false, []int{2, 2}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, []float64{1, 2, 7, 8}, false, false},
	{"In3D_IdentityShrinkAxis3", model.Float32, []int{2, 3, 2}, []int32{0, 0, 0}, []int32{1, 1, 2}, []int32{1, 1, 1}, [5]int32{0, 0, 0, 0, 3}, false, []int{2}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, []float64{1, 2}, false, false},
	{"In3D_IdentityShrinkAxis4", model.Float32, []int{2, 3, 2}, []int32{0, 0, 0}, []int32{2, 3, 2}, []int32{1, 1, 1}, [5]int32{0, 0, 0, 0, 4}, false, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, []float64{1, 3, 5, 7, 9, 11}, false, false},
	{"In3D_IdentityShrinkAxis5", model.Float32, []int{2, 3, 2}, []int32{0, 0, 0}, []int32{1, 3, 1}, []int32{1, 1, 1}, [5]int32{0, 0, 0, 0, 5}, false, []int{3}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, []float64{1, 3, 5}, false, false},
	{"In3D_IdentityShrinkAxis6", model.Float32, []int{2, 3, 2}, []int32{0, 0, 0}, []int32{2, 1, 1}, []int32{1, 1, 1}, [5]int32{0, 0, 0, 0, 6}, false, []int{2}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, []float64{1, 7}, false, false},
	{"In3D_IdentityShrinkAxis7", model.Float32, []int{2, 3, 2}, []int32{0, 0, 0}, []int32{1, 1, 1}, []int32{1, 1, 1}, [5]int32{0, 0, 0, 0, 7}, false, []int{}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, []float64{1}, false, false},
	{"RunTwice", model.Float32, []int{2, 3}, []int32{1, 0}, []int32{2, 2}, []int32{1, 1}, [5]int32{1, 0, 0, 0, 0}, false, []int{2, 2}, []float64{1, 2, 3, 4, 5, 6}, []float64{1, 2, 4, 5}, false, false},
	{"In3D_IdentityShrinkAxis1int8", model.Int8, []int{2, 3, 2}, []int32{0, 0, 0}, []int32{1, 3, 2}, []int32{1, 1, 1}, [5]int32{0, 0, 0, 0, 1}, false, []int{3, 2}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, []float64{1, 2, 3, 4, 5, 6}, false, false},
	{"In3D_IdentityShrinkAxis1int16", model.Int16, []int{2, 3, 2}, []int32{0, 0, 0}, []int32{1, 3, 2}, []int32{1, 1, 1}, [5]int32{0, 0, 0, 0, 1}, false, []int{3, 2}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, []float64{1, 2, 3, 4, 5, 6}, false, false},
	{"In3D_IdentityShrinkAxis1int32", model.Int32, []int{2, 3, 2}, []int32{0, 0, 0}, []int32{1, 3, 2}, []int32{1, 1, 1}, [5]int32{0, 0, 0, 0, 1}, false, []int{3, 2}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, []float64{1, 2, 3, 4, 5, 6}, false, false},
	{"In3D_Strided2int32", model.Int32, []int{2, 3, 2}, []int32{0, 0, 0}, []int32{2, 3, 2}, []int32{2, 2, 2}, [5]int32{0, 0, 0, 0, 0}, false, []int{1, 2, 1}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, []float64{1, 5}, false, false},
	{"In3D_Strided2bool", model.Bool, []int{2, 3, 2}, []int32{0, 0, 0}, []int32{2, 3, 2}, []int32{2, 2, 2}, [5]int32{0, 0, 0, 0, 0}, false, []int{1, 2, 1}, []float64{1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}, []float64{1, 1}, false, false},
	{"MinusThreeMinusFourMinusOne", model.Float32, []int{4}, []int32{-3}, []int32{-4}, []int32{-1}, [5]int32{0, 0, 0, 0, 0}, false, []int{1}, []float64{1, 2, 3, 4}, []float64{2}, false, false},
	{"MinusFourMinusThreeOne", model.Float32, []int{4}, []int32{-4}, []int32{-3}, []int32{1}, [5]int32{0, 0, 0, 0, 0}, false, []int{1}, []float64{1, 2, 3, 4}, []float64{1}, false, false},
	{"In3D_BackwardSmallBeginEndMask", model.Float32, []int{1}, []int32{1}, []int32{0}, []int32{1}, [5]int32{0, 1, 0, 0, 0}, false, []int{0}, []float64{1, 2}, []float64{}, false, false},
	{"OneOneOne", model.Float32, []int{1}, []int32{1}, []int32{1}, []int32{1}, [5]int32{0, 0, 0, 0, 0}, false, []int{0}, []float64{1, 2}, []float64{}, false, false},
	{"StrideOutOfBounds", model.Float32, []int{1}, []int32{1}, []int32{4}, []int32{7}, [5]int32{0, 0, 0, 0, 1}, false, []int{}, []float64{0.0}, []float64{1}, false, true},
	{"OutOfBounds", model.Float32, []int{1}, []int32{1}, []int32{2}, []int32{1}, [5]int32{0, 0, 0, 0, 1}, false, []int{}, []float64{0.0}, []float64{0.0}, false, true},
}

// TestStridedSliceTFLM runs every case of TFLM's strided_slice_test.cc.
// Cases TFLM rejects in Prepare must fail generation. StrideOutOfBounds and
// OutOfBounds, which TFLM runs without checking the output (its kernel
// writes nothing into a one-element output), are rejected here.
func TestStridedSliceTFLM(t *testing.T) {
	var cases []shapeCase
	for _, c := range stridedSliceTFLM {
		nIn, nOut := 1, 1
		for _, d := range c.in {
			nIn *= d
		}
		for _, d := range c.out {
			nOut *= d
		}
		input := make([]float64, nIn)
		copy(input, c.input)
		golden := make([]float64, nOut)
		copy(golden, c.golden)
		q := shapeQ(c.dt)
		opts := shapeOpts(model.UnionStridedSliceOptions, builder.Int(model.StridedSliceOptionsBeginMask, int(c.masks[0])), builder.Int(model.StridedSliceOptionsEndMask, int(c.masks[1])),
			builder.Int(model.StridedSliceOptionsEllipsisMask, int(c.masks[2])), builder.Int(model.StridedSliceOptionsNewAxisMask, int(c.masks[3])), builder.Int(model.StridedSliceOptionsShrinkAxisMask, int(c.masks[4])), builder.Bool(model.StridedSliceOptionsOffset, c.offset))
		vec := func(v []int32) shapeT { return shapeT{dt: model.Int32, shape: []int{len(v)}, data: shapeI32(v...)} }
		sc := shapeCase{name: c.name,
			model: shapeModel(model.OpStridedSlice, opts,
				[]shapeT{{dt: c.dt, shape: c.in, q: q}, vec(c.begin), vec(c.end), vec(c.strides)},
				[]shapeT{{dt: c.dt, shape: c.out, q: q}}),
			inputs: [][]byte{shapeVals(c.dt, input)}, want: [][]byte{shapeVals(c.dt, golden)}}
		switch {
		case c.prepareErr:
			sc.wantErr = "STRIDED_SLICE"
		case c.noGolden:
			sc.wantErr = "slice takes 0 elements"
		}
		cases = append(cases, sc)
	}
	shapeRun(t, cases)
}

// TestSliceTFLM ports slice_test.cc.
func TestSliceTFLM(t *testing.T) {
	slice := func(name string, dt model.DType, in []int, begin, size []int32, idx64 bool, out []int, input, golden []float64) shapeCase {
		bt := shapeT{dt: model.Int32, shape: []int{len(begin)}, data: shapeI32(begin...)}
		st := shapeT{dt: model.Int32, shape: []int{len(size)}, data: shapeI32(size...)}
		if idx64 {
			b64, s64 := make([]float64, len(begin)), make([]float64, len(size))
			for i := range begin {
				b64[i], s64[i] = float64(begin[i]), float64(size[i])
			}
			bt = shapeT{dt: model.Int64, shape: []int{len(begin)}, data: shapeVals(model.Int64, b64)}
			st = shapeT{dt: model.Int64, shape: []int{len(size)}, data: shapeVals(model.Int64, s64)}
		}
		return shapeCase{name: name,
			model:  shapeModel(model.OpSlice, shapeOpts(shapeOptSlice), []shapeT{{dt: dt, shape: in, q: shapeQ(dt)}, bt, st}, []shapeT{{dt: dt, shape: out, q: shapeQ(dt)}}),
			inputs: [][]byte{shapeVals(dt, input)}, want: [][]byte{shapeVals(dt, golden)}}
	}
	ints := []float64{1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6}
	cases := []shapeCase{
		slice("In1D", model.Float32, []int{4}, []int32{1}, []int32{2}, false, []int{2}, []float64{1, 2, 3, 4}, []float64{2, 3}),
		slice("In2D", model.Float32, []int{2, 3}, []int32{1, 0}, []int32{1, 2}, false, []int{1, 2}, shapeSeq(6), []float64{4, 5}),
		slice("In3D", model.Float32, []int{2, 3, 2}, []int32{0, 0, 0}, []int32{2, 3, 2}, false, []int{2, 3, 2}, shapeSeq(12), shapeSeq(12)),
		slice("In5D", model.Float32, []int{5, 1, 1, 1, 1}, []int32{1, 0, 0, 0, 0}, []int32{3, 1, 1, 1, 1}, false, []int{3, 1, 1, 1, 1}, shapeSeq(5), []float64{2, 3, 4}),
		slice("InputFloat", model.Float32, []int{4, 1, 1, 1}, []int32{1, 0, 0, 0}, []int32{3, 1, 1, 1}, false, []int{3, 1, 1, 1}, shapeSeq(4), []float64{2, 3, 4}),
		slice("IndexInt64", model.Float32, []int{4, 1, 1, 1}, []int32{1, 0, 0, 0}, []int32{3, 1, 1, 1}, true, []int{3, 1, 1, 1}, shapeSeq(4), []float64{2, 3, 4}),
		slice("InputInteger1", model.Int32, []int{3, 2, 3, 1}, []int32{1, 0, 0, 0}, []int32{1, 1, 3, 1}, false, []int{1, 1, 3, 1}, ints, []float64{3, 3, 3}),
		slice("InputInteger2", model.Int32, []int{3, 2, 3, 1}, []int32{1, 0, 0, 0}, []int32{1, 2, 3, 1}, false, []int{1, 2, 3, 1}, ints, []float64{3, 3, 3, 4, 4, 4}),
		slice("InputInteger3", model.Int32, []int{3, 2, 3, 1}, []int32{1, 0, 0, 0}, []int32{2, 1, 3, 1}, false, []int{2, 1, 3, 1}, ints, []float64{3, 3, 3, 5, 5, 5}),
		slice("SizeMinus1", model.Int32, []int{3, 2, 3, 1}, []int32{1, 0, 0, 0}, []int32{2, 1, -1, 1}, false, []int{2, 1, 3, 1}, ints, []float64{3, 3, 3, 5, 5, 5}),
		slice("BeginNonZeroSizeMinus1Axis1", model.Int32, []int{3, 3, 2, 1}, []int32{1, 1, 0, 0}, []int32{2, -1, 1, 1}, false, []int{2, 2, 1, 1},
			[]float64{1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9}, []float64{5, 6, 8, 9}),
		slice("BeginNonZeroSizeMinus1Axis2", model.Int32, []int{3, 2, 3, 1}, []int32{1, 0, 1, 0}, []int32{2, 1, -1, 1}, false, []int{2, 1, 2, 1}, ints, []float64{3, 3, 5, 5}),
		slice("BeginNonZeroSizeMinus1Axis3", model.Int32, []int{3, 1, 2, 3}, []int32{1, 0, 0, 1}, []int32{2, 1, 1, -1}, false, []int{2, 1, 1, 2}, ints, []float64{3, 3, 5, 5}),
		slice("SliceInt8", model.Int8, []int{3, 2, 3, 1}, []int32{1, 0, 0, 0}, []int32{2, 1, -1, 1}, false, []int{2, 1, 3, 1}, ints, []float64{3, 3, 3, 5, 5, 5}),
		slice("SliceInt16", model.Int16, []int{3, 2, 3, 1}, []int32{1, 0, 0, 0}, []int32{2, 1, -1, 1}, false, []int{2, 1, 3, 1}, ints, []float64{3, 3, 3, 5, 5, 5}),
		slice("SliceBool", model.Bool, []int{3, 2, 3, 1}, []int32{1, 0, 0, 0}, []int32{2, 1, -1, 1}, false, []int{2, 1, 3, 1},
			[]float64{0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0}, []float64{1, 0, 1, 0, 0, 1}),
	}
	bad := slice("OutOfRange", model.Float32, []int{4}, []int32{3}, []int32{2}, false, []int{2}, shapeSeq(4), nil)
	bad.wantErr = "outside"
	cases = append(cases, bad)
	shapeRun(t, cases)
}

// transposeNaive permutes a row-major array of the given shape: output
// index (i_0..i_n) reads input index (j_perm[0]=i_0, ...), the definition
// TFLM's transpose_test.cc RunTestPermutation uses.
func transposeNaive(shape []int, perm []int, in []float64) (out []float64, outShape []int) {
	n := len(shape)
	for _, p := range perm {
		outShape = append(outShape, shape[p])
	}
	inStride := make([]int, n)
	s := 1
	for i := n - 1; i >= 0; i-- {
		inStride[i] = s
		s *= shape[i]
	}
	idx := make([]int, n)
	for k := 0; k < len(in); k++ {
		src := 0
		for i := range idx {
			src += idx[i] * inStride[perm[i]]
		}
		out = append(out, in[src])
		for i := n - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < outShape[i] {
				break
			}
			idx[i] = 0
		}
	}
	return out, outShape
}

// TestTransposeTFLM ports transpose_test.cc: its explicit goldens are
// checked against transposeNaive, which then gives the expected output of
// every case (as RunTestPermutation does in the C++ test).
func TestTransposeTFLM(t *testing.T) {
	seq0 := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(i)
		}
		return v
	}
	explicit := []struct {
		shape, perm []int
		golden      []float64
	}{
		{[]int{3, 2}, []int{1, 0}, []float64{0, 2, 4, 1, 3, 5}},                           // 2DPerm1
		{[]int{1, 2, 3, 1}, []int{2, 1, 3, 0}, []float64{0, 3, 1, 4, 2, 5}},               // SimpleTestWithReorder
		{[]int{2, 2, 3}, []int{0, 2, 1}, []float64{0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11}}, // 3DFlatten
	}
	for _, e := range explicit {
		got, _ := transposeNaive(e.shape, e.perm, seq0(len(e.golden)))
		for i := range got {
			if got[i] != e.golden[i] {
				t.Fatalf("transposeNaive(%v, %v) = %v, want %v", e.shape, e.perm, got, e.golden)
			}
		}
	}
	cases := []struct {
		name        string
		dt          model.DType
		shape, perm []int
	}{
		{"1D", model.Int8, []int{3}, []int{0}},
		{"1DInt16", model.Int16, []int{3}, []int{0}},
		{"2DPerm1", model.Int8, []int{3, 2}, []int{1, 0}},
		{"2DPerm1Int16", model.Int16, []int{3, 2}, []int{1, 0}},
		{"2D4x4KernelLeftOverRightSide", model.Int8, []int{4, 6}, []int{1, 0}},
		{"2D4x4KernelLeftOverBottomSide", model.Int16, []int{6, 4}, []int{1, 0}},
		{"3D", model.Int8, []int{2, 3, 4}, []int{2, 0, 1}},
		{"3DInt16", model.Int16, []int{2, 3, 4}, []int{2, 0, 1}},
		{"1DNotShrinked", model.Float32, []int{1}, []int{0}},
		{"2DShrinkedOneTime", model.Float32, []int{2, 1}, []int{1, 0}},
		{"2DShrinkedTwoTimes", model.Float32, []int{1, 1}, []int{1, 0}},
		{"3DShrinkedOneTime", model.Float32, []int{2, 1, 3}, []int{0, 2, 1}},
		{"3DShrinkedTwoTimes", model.Float32, []int{1, 1, 3}, []int{1, 2, 0}},
		{"3DShrinkedAll", model.Float32, []int{1, 1, 1}, []int{1, 2, 0}},
		{"4DShrinkedOneTimes", model.Float32, []int{2, 2, 3, 1}, []int{3, 0, 1, 2}},
		{"4DShrinkedTwoTimes", model.Float32, []int{2, 1, 3, 1}, []int{0, 3, 1, 2}},
		{"4DShrinkedThreeTimes", model.Float32, []int{2, 1, 1, 1}, []int{3, 2, 1, 0}},
		{"4DShrinkedFourTimes", model.Float32, []int{1, 1, 1, 1}, []int{2, 3, 1, 0}},
		{"3DFlatten", model.Float32, []int{2, 2, 3}, []int{0, 2, 1}},
		{"4DFlatten", model.Float32, []int{2, 2, 2, 2}, []int{0, 1, 3, 2}},
		{"4DFlattenTwo", model.Float32, []int{2, 2, 2, 2}, []int{0, 2, 3, 1}},
		{"3DDividedIntoTwo2DsOne", model.Float32, []int{2, 3, 4}, []int{1, 2, 0}},
		{"3DDividedIntoTwo2DsTwo", model.Float32, []int{2, 3, 4}, []int{2, 0, 1}},
		{"4DDividedIntoTwo2DsOne", model.Float32, []int{2, 3, 4, 2}, []int{1, 2, 3, 0}},
		{"4DDividedIntoTwo2DsTwo", model.Float32, []int{2, 3, 4, 2}, []int{2, 3, 0, 1}},
		{"4DDividedIntoTwo2DsThree", model.Float32, []int{2, 3, 4, 2}, []int{3, 0, 1, 2}},
		{"5DDividedIntoTwo2DsOne", model.Float32, []int{2, 3, 2, 2, 2}, []int{1, 4, 2, 3, 0}},
		{"5DDividedIntoTwo2DsTwo", model.Float32, []int{2, 3, 2, 2, 2}, []int{2, 3, 0, 4, 1}},
		{"5DDividedIntoTwo2DsThree", model.Float32, []int{2, 3, 2, 2, 2}, []int{3, 0, 4, 1, 2}},
		{"SimpleTestNoReorder", model.Float32, []int{1, 2, 3, 1}, []int{0, 1, 2, 3}},
		{"SimpleTestWithReorder", model.Float32, []int{1, 2, 3, 1}, []int{2, 1, 3, 0}},
		{"ComplexTestWithReorder", model.Float32, []int{2, 3, 4, 5}, []int{2, 0, 1, 3}},
		{"Complex5DTestWithReorder", model.Float32, []int{2, 3, 2, 2, 5}, []int{2, 0, 1, 4, 3}},
		{"Complex5DInt8", model.Int8, []int{2, 3, 2, 2, 5}, []int{4, 3, 2, 1, 0}},
		{"Complex5DInt16", model.Int16, []int{3, 2, 2, 5, 2}, []int{1, 3, 0, 4, 2}},
	}
	var sc []shapeCase
	for _, c := range cases {
		n := 1
		for _, d := range c.shape {
			n *= d
		}
		in := seq0(n)
		want, outShape := transposeNaive(c.shape, c.perm, in)
		perm := make([]int32, len(c.perm))
		for i, p := range c.perm {
			perm[i] = int32(p)
		}
		sc = append(sc, shapeCase{name: c.name,
			model: shapeModel(model.OpTranspose, shapeOpts(shapeOptTranspose),
				[]shapeT{{dt: c.dt, shape: c.shape, q: shapeQ(c.dt)}, {dt: model.Int32, shape: []int{len(perm)}, data: shapeI32(perm...)}},
				[]shapeT{{dt: c.dt, shape: outShape, q: shapeQ(c.dt)}}),
			inputs: [][]byte{shapeVals(c.dt, in)}, want: [][]byte{shapeVals(c.dt, want)}})
	}
	bad := shapeModel(model.OpTranspose, shapeOpts(shapeOptTranspose),
		[]shapeT{{dt: model.Float32, shape: []int{2, 3}}, {dt: model.Int32, shape: []int{2}, data: shapeI32(1, 1)}},
		[]shapeT{{dt: model.Float32, shape: []int{3, 3}}})
	sc = append(sc, shapeCase{name: "NotAPermutation", model: bad, wantErr: "not a permutation"})
	shapeRun(t, sc)
}

// TestStridedSliceSeanet runs TFLM's int16 seanet STRIDED_SLICE vectors end
// to end.
func TestStridedSliceSeanet(t *testing.T) { shapeSeanet(t, "strided_slice") }
