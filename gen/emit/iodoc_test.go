package emit

import (
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/planner"
)

// TestIODoc: the package documentation says that Invoke may overwrite the
// inputs, and what this plan does: which inputs it overwrites (a buffer
// over their bytes, or an operator writing in place) and which outputs
// share memory with an input (issue 26, item 14).
func TestIODoc(t *testing.T) {
	type buf struct {
		size, first, last, off int
		tensors                []int
	}
	for _, tc := range []struct {
		name      string
		inputs    []int // tensors
		outputs   []int
		bufs      []buf
		inPlace   []program.InPlace
		want, not []string
	}{
		{name: "input kept", inputs: []int{0}, outputs: []int{1},
			bufs: []buf{{16, 0, 0, 0, []int{0}}, {16, 0, 1, 16, []int{1}}},
			want: []string{"Invoke may\noverwrite the inputs", "This plan happens to leave them unchanged."}, not: []string{"shares memory"}},
		{name: "input reused", inputs: []int{0}, outputs: []int{2},
			bufs: []buf{{16, 0, 0, 0, []int{0}}, {16, 0, 1, 16, []int{1}}, {8, 1, 1, 8, []int{2}}},
			want: []string{"This plan overwrites every input.", "Output 0 shares memory with an input: read the outputs before writing the\nnext inputs."}},
		{name: "second of two inputs reused", inputs: []int{0, 1}, outputs: []int{3},
			bufs: []buf{{16, 0, 2, 0, []int{0}}, {16, 0, 0, 16, []int{1}}, {16, 0, 1, 32, []int{2}}, {16, 1, 2, 16, []int{3}}},
			want: []string{"This plan overwrites input 1.", "Output 0 shares memory"}},
		{name: "in place", inputs: []int{0}, outputs: []int{1},
			bufs:    []buf{{16, 0, 0, 0, []int{0, 1}}},
			inPlace: []program.InPlace{{Op: 0, In: 0, Out: 1}},
			want:    []string{"This plan overwrites every input.", "Output 0 shares memory"}},
		{name: "zero-size buffer shares nothing", inputs: []int{0}, outputs: []int{1},
			bufs: []buf{{16, 0, 0, 0, []int{0}}, {0, 1, 1, 0, []int{1}}},
			want: []string{"happens to leave them unchanged"}, not: []string{"shares memory"}},
		{name: "no inputs", outputs: []int{0},
			bufs: []buf{{4, 0, 0, 0, []int{0}}},
			want: []string{"The graph has no inputs"}, not: []string{"overwrite"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &model.Graph{Inputs: tc.inputs, Outputs: tc.outputs}
			p := &program.Program{Graph: g, TensorBuf: map[int]program.BufID{}, InPlace: tc.inPlace}
			var offs []int
			for i, b := range tc.bufs {
				p.Buffers = append(p.Buffers, program.Buffer{Buffer: planner.Buffer{Size: b.size, First: b.first, Last: b.last}, Tensors: b.tensors, Reset: -1, Op: -1})
				offs = append(offs, b.off)
				for _, ti := range b.tensors {
					p.TensorBuf[ti] = program.BufID(i)
				}
			}
			e := &emitter{g: g, p: p, lay: &layout.Layout{Plan: &planner.Plan{Offsets: offs}}}
			doc := e.ioDoc()
			for _, w := range tc.want {
				if !strings.Contains(doc, w) {
					t.Errorf("doc lacks %q:\n%s", w, doc)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(doc, w) {
					t.Errorf("doc has %q:\n%s", w, doc)
				}
			}
		})
	}
}
