package lower

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// TestMirrorPadRowsMatchesMoves: a MIRROR_PAD over the height and width
// of a batch-1 image runs as mirrorPadRows, row by row, and writes what
// the strided copies write, which TestReshuffleMatchesTFLM checks against
// TFLM: int8 and float32, REFLECT and SYMMETRIC, paddings from none to the
// most TFLite allows, and right and bottom paddings past it (TFLM repeats
// element 0 there).
func TestMirrorPadRowsMatchesMoves(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 7))
	for i := range 400 {
		dt := []model.DType{model.Int8, model.Float32}[i%2]
		h, w, ch := 1+r.IntN(7), 1+r.IntN(7), 1+r.IntN(5)
		mode := r.IntN(2)
		offset := 1 - mode
		pad := func(n int) (int, int) {
			if n-offset < 0 {
				return 0, 0
			}
			l, rt := r.IntN(n-offset+1), r.IntN(n-offset+1)
			if r.IntN(6) == 0 {
				rt = n + r.IntN(3)
			}
			return l, rt
		}
		top, bottom := pad(h)
		left, right := pad(w)
		desc := fmt.Sprintf("%s 1x%dx%dx%d mode %d paddings (%d, %d) (%d, %d)", dt, h, w, ch, mode, top, bottom, left, right)
		c := diffCase{}
		m := builder.New("mirror_pad rows case")
		ti, q := reshuffleIn(r, m, &c, dt, []int{1, h, w, ch})
		tp := i32Vals([]int64{0, 0, int64(top), int64(bottom), int64(left), int64(right), 0, 0}).ConstTensor(m, "paddings", []int{4, 2}, nil)
		to := m.Tensor("out", dt, []int{1, h + top + bottom, w + left + right, ch}, q)
		m.Op(model.OpMirrorPad, []int{ti, tp}, []int{to}, &builder.Options{Type: model.UnionMirrorPadOptions, Fields: []builder.Field{builder.Byte(model.MirrorPadOptionsMode, mode)}})
		m.IO([]int{ti}, []int{to})
		data := m.Bytes()
		got, path, err := inProcessPath(data, c.inputs[0].Raw())
		if err != nil {
			t.Fatalf("%s: %v", desc, err)
		}
		if !slices.Contains(path, "mirrorPadRows") {
			t.Fatalf("%s: path %v, not mirrorPadRows", desc, path)
		}
		mirrorRows = false
		want, path, err := inProcessPath(data, c.inputs[0].Raw())
		mirrorRows = true
		if err != nil {
			t.Fatalf("%s: strided copies: %v", desc, err)
		}
		if slices.Contains(path, "mirrorPadRows") {
			t.Fatalf("%s: path %v with the row kernel off", desc, path)
		}
		if !slices.Equal(got[0], want[0]) {
			t.Fatalf("%s: mirrorPadRows and the strided copies differ", desc)
		}
	}
}
