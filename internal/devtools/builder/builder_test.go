package builder

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/model"
)

var update = flag.Bool("update", false, "rewrite testdata/*.tflite from the builder")

// TestExamples checks that every example model parses and validates, is
// built deterministically, and equals the copy committed in testdata/
// (refreshed with -update).
func TestExamples(t *testing.T) {
	for _, ex := range Examples() {
		t.Run(ex.Name, func(t *testing.T) {
			data := ex.Build()
			if !bytes.Equal(data, ex.Build()) {
				t.Fatal("two builds differ")
			}
			g, err := model.Parse(ex.Name+".tflite", data)
			if err != nil {
				t.Fatalf("built model does not parse: %v", err)
			}
			if len(g.Ops) == 0 || len(g.Inputs) != 1 || len(g.Outputs) != 1 {
				t.Fatalf("unexpected graph: %d ops, inputs %v, outputs %v", len(g.Ops), g.Inputs, g.Outputs)
			}
			path := filepath.Join("..", "..", "..", "testdata", ex.Name+".tflite")
			if *update {
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			committed, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/devtools/builder -update)", err)
			}
			if !bytes.Equal(committed, data) {
				t.Errorf("%s differs from the builder's output; run go test ./internal/devtools/builder -update", path)
			}
		})
	}
}

// TestRoundTrip checks that what the builder writes is what the reader reads.
func TestRoundTrip(t *testing.T) {
	m := New("rt")
	in := m.Tensor("in", model.Int8, []int{1, 4}, PerTensor(0.5, -3))
	w := m.ConstI8("w", []int{2, 4}, &Quant{Scale: []float32{0.25, 0.125}, ZeroPoint: []int64{0, 0}}, []int8{1, -2, 3, -4, 5, -6, 7, -8})
	st := m.Variable("state", model.Int16, []int{1, 2}, nil)
	out := m.Tensor("out", model.Int8, []int{1, 2}, PerTensor(1, 7))
	m.Op(model.OpFullyConnected, []int{in, w, -1, st}, []int{out}, &Options{Type: model.UnionFullyConnectedOptions,
		Fields: []Field{Byte(model.FullyConnectedOptionsFusedActivationFunction, 3), Bool(model.FullyConnectedOptionsKeepNumDims, true)}})
	m.IO([]int{in}, []int{out})
	g, err := model.Parse("rt.tflite", m.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	tw := g.Tensors[w]
	if tw.Type != model.Int8 || len(tw.Data) != 8 || int8(tw.Data[7]) != -8 || tw.Quant.Scale[1] != 0.125 || tw.Quant.Axis != 0 {
		t.Errorf("weights tensor read back wrong: %+v %+v", tw, tw.Quant)
	}
	if g.Tensors[in].Quant.ZeroPoint[0] != -3 || !g.Tensors[st].IsVariable || g.Tensors[out].Name != "out" {
		t.Errorf("tensors read back wrong")
	}
	op := g.Ops[0]
	o := op.Options()
	fc := o.FullyConnected()
	if op.Code != model.OpFullyConnected || op.Inputs[2] != -1 || o.Type() != model.UnionFullyConnectedOptions || fc.FusedActivationFunction != 3 || !fc.KeepNumDims || o.Err() != nil {
		t.Errorf("operator read back wrong: %+v", op)
	}
}
