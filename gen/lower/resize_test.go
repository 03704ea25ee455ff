package lower

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/devtools/oracle"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// randResize is a random RESIZE_NEAREST_NEIGHBOR or RESIZE_BILINEAR case:
// up- and downscaling (one case in four by large and odd ratios) and both
// options.
func randResize(r *rand.Rand, code model.OpCode, dt model.DType, bothOptions bool) diffCase {
	b, h, w, d := 1+r.IntN(2), 1+r.IntN(7), 1+r.IntN(7), 1+r.IntN(4)
	oh, ow := 1+r.IntN(12), 1+r.IntN(12)
	if r.IntN(4) == 0 {
		// Large and odd ratios, one channel: the index and weight tables
		// get most of the test.
		b, d = 1, 1
		h, w = 1+r.IntN(40), 1+r.IntN(40)
		oh, ow = 1+r.IntN(90), 1+r.IntN(90)
	}
	align, half := r.IntN(2) == 0, r.IntN(2) == 0
	if align && half && (!bothOptions || r.IntN(4) > 0) {
		half = false // both true (which RESIZE_BILINEAR refuses) in 1 case of 16
	}
	m := builder.New("resize differential case")
	q := difftest.RandQuant(r, dt)
	vals := difftest.RandVals(r, dt, b*h*w*d)
	c := diffCase{outDT: dt, desc: fmt.Sprintf("%s %s [%d %d %d %d] -> %dx%d align %v half %v", code, dt, b, h, w, d, oh, ow, align, half)}
	// A constant input would leave the model without graph inputs, which
	// the oracle's CSV mode needs; constant inputs are covered by the
	// GATHER tests (same byte-level copies).
	in := m.Tensor("in", dt, []int{b, h, w, d}, q)
	c.inputs = []difftest.Vals{vals}
	size := m.ConstI32("size", []int{2}, nil, []int32{int32(oh), int32(ow)})
	out := m.Tensor("out", dt, []int{b, oh, ow, d}, q)
	opts := &builder.Options{Type: model.UnionResizeNearestNeighborOptions, Fields: []builder.Field{
		builder.Bool(model.ResizeNearestNeighborOptionsAlignCorners, align), builder.Bool(model.ResizeNearestNeighborOptionsHalfPixelCenters, half)}}
	if code == model.OpResizeBilinear {
		opts = &builder.Options{Type: model.UnionResizeBilinearOptions, Fields: []builder.Field{
			builder.Bool(model.ResizeBilinearOptionsAlignCorners, align), builder.Bool(model.ResizeBilinearOptionsHalfPixelCenters, half)}}
	}
	m.Op(code, []int{in, size}, []int{out}, opts)
	m.IO([]int{in}, []int{out})
	c.model = m.Bytes()
	return c
}

// TestResizeMatchesTFLM: random resizes of every type TFLM runs, through
// TFLM and in-process, compared bit for bit. RESIZE_BILINEAR cases include
// align_corners with half_pixel_centers, which both refuse.
func TestResizeMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	for _, tc := range []struct {
		code model.OpCode
		dt   model.DType
	}{
		{model.OpResizeNearestNeighbor, model.Float32},
		{model.OpResizeNearestNeighbor, model.Int8},
		{model.OpResizeNearestNeighbor, model.Int16},
		{model.OpResizeBilinear, model.Float32},
		{model.OpResizeBilinear, model.Int8},
	} {
		t.Run(fmt.Sprintf("%s_%s", tc.code, tc.dt), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(tc.code), uint64(tc.dt)))
			gen := func(r *rand.Rand) diffCase { return randResize(r, tc.code, tc.dt, true) }
			runDiffCases(t, o, diffN{20, 200}, r, gen, nil)
		})
	}
}

// TestResizeRefusedAsTFLM: types TFLM's kernels reject (int16 bilinear
// fails in TFLM's Eval), and the half-pixel/align-corners conflict.
func TestResizeRefusedAsTFLM(t *testing.T) {
	o := oracle.New(t)
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		code model.OpCode
		dt   model.DType
		want string
	}{
		{model.OpResizeBilinear, model.Int16, "not supported"},
		{model.OpResizeBilinear, model.Int32, "not supported"},
		{model.OpResizeNearestNeighbor, model.Int32, "not supported"},
	} {
		checkRefusedAsTFLM(t, o, randResize(r, tc.code, tc.dt, false), tc.code, tc.want)
	}
	for {
		c := randResize(r, model.OpResizeBilinear, model.Int8, true)
		if strings.Contains(c.desc, "align true half true") {
			checkRefusedAsTFLM(t, o, c, model.OpResizeBilinear, "half_pixel_centers")
			break
		}
	}
}

// TestResizeBilinearOutsideInputRefused: for extreme upscales TFLM's fixed
// point puts the lower neighbour of the last rows past the input (1 row to
// 2000 with half-pixel centres: row 1999 samples input row 1), so TFLM
// reads outside its tensor; the lowering refuses the model.
func TestResizeBilinearOutsideInputRefused(t *testing.T) {
	m := builder.New("resize outside input")
	in := m.Tensor("in", model.Int8, []int{1, 1, 1, 1}, nil)
	size := m.ConstI32("size", []int{2}, nil, []int32{2000, 1})
	out := m.Tensor("out", model.Int8, []int{1, 2000, 1, 1}, nil)
	m.Op(model.OpResizeBilinear, []int{in, size}, []int{out}, &builder.Options{Type: model.UnionResizeBilinearOptions,
		Fields: []builder.Field{builder.Bool(model.ResizeBilinearOptionsHalfPixelCenters, true)}})
	m.IO([]int{in}, []int{out})
	_, err := inProcess(m.Bytes(), []byte{7})
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "outside its input") {
		t.Errorf("error %v, want a refusal saying TFLM would read outside its input", err)
	}
}
