package lower

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// TestDynamicUpdateSliceInPlace: a DYNAMIC_UPDATE_SLICE whose operand is a
// PAD's output (or an in-place DYNAMIC_UPDATE_SLICE's) read by nothing
// else writes its update over it, in the operand's buffer, and gives the
// output of the copying form, which TestReshuffleMatchesTFLM checks
// against TFLM (the same graph with the operand also a graph output, so
// that it must stay).
func TestDynamicUpdateSliceInPlace(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 151))
	for i := range 100 {
		dt := []model.DType{model.Int8, model.Float32, model.Int16}[i%3]
		h, w, ch := 1+r.IntN(5), 2+r.IntN(6), 1+r.IntN(4)
		right := 1 + r.IntN(w-1)
		steps := 1 + r.IntN(3)
		build := func(keep bool) ([]byte, []byte, []byte) {
			m := builder.New("dus in place case")
			q := difftest.RandQuant(rand.New(rand.NewPCG(uint64(i), 1)), dt)
			c := diffCase{}
			x, _ := reshuffleIn(rand.New(rand.NewPCG(uint64(i), 2)), m, &c, dt, []int{1, h, w - right, ch})
			u, _ := reshuffleIn(rand.New(rand.NewPCG(uint64(i), 3)), m, &c, dt, []int{1, h, right, ch})
			pads := i32Vals([]int64{0, 0, 0, 0, 0, int64(right), 0, 0}).ConstTensor(m, "pads", []int{4, 2}, nil)
			p := m.Tensor("padded", dt, []int{1, h, w, ch}, q)
			m.Op(model.OpPad, []int{x, pads}, []int{p}, nil)
			y := p
			for k := range steps {
				start := i32Vals([]int64{0, 0, int64(w - right - k%2), 0}).ConstTensor(m, fmt.Sprint("start", k), []int{4}, nil)
				z := m.Tensor(fmt.Sprint("out", k), dt, []int{1, h, w, ch}, q)
				m.Op(model.OpDynamicUpdateSlice, []int{y, u, start}, []int{z}, nil)
				y = z
			}
			outs := []int{y}
			if keep {
				outs = append(outs, p)
			}
			m.IO([]int{x, u}, outs)
			return m.Bytes(), c.inputs[0].Raw(), c.inputs[1].Raw()
		}
		data, x, u := build(false)
		got, p, err := difftest.InProcessProgram(testProgram, data, x, u)
		if err != nil {
			t.Fatal(err)
		}
		padded := slices.IndexFunc(p.Graph.Tensors, func(t *model.Tensor) bool { return t.Name == "padded" })
		if p.TensorBuf[p.Graph.Outputs[0]] != p.TensorBuf[padded] {
			t.Fatalf("case %d: the updates are not written over the PAD's output", i)
		}
		kept, _, _ := build(true)
		want, q, err := difftest.InProcessProgram(testProgram, kept, x, u)
		if err != nil {
			t.Fatal(err)
		}
		if q.TensorBuf[q.Graph.Outputs[0]] == q.TensorBuf[padded] {
			t.Fatalf("case %d: the update is written over a graph output", i)
		}
		if !slices.Equal(got[0], want[0]) {
			t.Fatalf("case %d (%s 1x%dx%dx%d, %d updates): in place and copying forms differ", i, dt, h, w, ch, steps)
		}
	}
}
