package lower

import (
	"path/filepath"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// TestKernelChoicesExplained: in the fixtures, the reference models and
// the grid's layers,
// every int8 convolution, depthwise convolution, fully connected layer and
// pool says why it calls each of its kernels (Because), the lean and the
// fast forms alike, for the DSP build and the build for gc.
func TestKernelChoicesExplained(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "*.tflite"))
	more, _ := filepath.Glob(filepath.Join(e2e.SharedDir(t), "models", "*.tflite"))
	grid, _ := filepath.Glob(filepath.Join(e2e.SharedDir(t), "grid", "models", "*.tflite"))
	more = append(more, grid...)
	explained := map[model.OpCode]bool{model.OpConv2D: true, model.OpDepthwiseConv2D: true, model.OpFullyConnected: true,
		model.OpAveragePool2D: true, model.OpMaxPool2D: true}
	calls := 0
	for _, f := range append(files, more...) {
		g := e2e.ParseModel(t, f)
		for _, k := range []Kernels{{}, {GC: true}} {
			for _, lean := range []bool{false, true} {
				flags := make([]bool, len(g.Ops))
				for i := range flags {
					flags[i] = lean
				}
				frags, err := Lower(g, flags, k)
				if err != nil {
					t.Fatal(err)
				}
				p, err := Assemble(g, frags, Options{})
				if err != nil {
					t.Fatal(err)
				}
				for _, op := range p.Ops {
					in := g.Input(g.Ops[op.Index], 0)
					if !explained[op.Code] || in == nil || in.Type != model.Int8 {
						continue
					}
					for _, c := range op.Calls {
						calls++
						if op.Why[c.Fn] == "" {
							t.Errorf("%s (gc %v, lean %v): operator %d (%s) calls %s without saying why", g.Name, k.GC, lean, op.Index, op.Code, c.Fn)
						}
					}
				}
			}
		}
	}
	t.Logf("%d kernel calls explained", calls)
	if calls == 0 {
		t.Fatal("no int8 convolution, fully connected layer or pool")
	}
}
