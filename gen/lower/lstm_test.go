package lower

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// lstmLoadModel parses one of the shared reference models.
func lstmLoadModel(t *testing.T, shared, name string) *model.Graph {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(shared, "models", name+".tflite"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := model.Parse(name+".tflite", data)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// lstmSingleOpGraph returns a graph holding only operator k of g, with the
// operator's input as graph input and its output, output state and cell
// state as graph outputs.
func lstmSingleOpGraph(g *model.Graph, k int) *model.Graph {
	op := *g.Ops[k]
	op.Index = 0
	sub := *g
	sub.Ops = []*model.Op{&op}
	sub.Inputs = []int{op.Inputs[0]}
	sub.Outputs = []int{op.Outputs[0], op.Inputs[18], op.Inputs[19]}
	return &sub
}

// TestLSTMReferenceTensors runs each UNIDIRECTIONAL_SEQUENCE_LSTM operator
// of the shared models alone: the graph is cut down to that operator, then
// lowered (parameters from lowerLSTM; the fast and the lean variant),
// planned, emitted, built and run on
// the operator's input as TFLM saw it (ref/tensors, one xorshift Invoke from
// reset state). Its output must equal TFLM's bytes (float32 within 1e-5
// relative).
func TestLSTMReferenceTensors(t *testing.T) {
	shared := e2e.SharedDir(t)
	// Files in ref/tensors/<model>/: the operator's input, then its
	// output, final output state and final cell state.
	cases := []struct {
		model string
		op    int
		in    string
		outs  [3]string
	}{
		{"trained_lstm_int8", 0, "t0.bin", [3]string{"t23.bin", "t16.bin", "t17.bin"}},
		{"trained_lstm", 0, "t0.bin", [3]string{"t18.bin", "t2.bin", "t17.bin"}},
		{"dtln_noise_suppression", 0, "t0.bin", [3]string{"t34.bin", "t27.bin", "t28.bin"}},
		{"dtln_noise_suppression", 1, "t34.bin", [3]string{"t42.bin", "t35.bin", "t36.bin"}},
	}
	var pkgs []e2e.Package
	var jobs []e2e.Job
	var outs [][]*model.Tensor
	var wants [][][]byte
	type variant struct {
		model string
		op    int
		lean  bool
	}
	var variants []variant
	for _, tc0 := range cases {
		for _, lean := range []bool{false, true} {
			tc := tc0
			variants = append(variants, variant{tc.model, tc.op, lean})
			g := lstmSingleOpGraph(lstmLoadModel(t, shared, tc.model), tc.op)
			pkg := e2e.PackageName(tc.model) + "_op" + string(rune('0'+tc.op))
			if lean {
				pkg += "_lean"
			}
			res, err := testLean(g, []bool{lean}, difftest.EmitOptions{Package: pkg})
			if err != nil {
				t.Fatalf("%s op %d: %v", tc.model, tc.op, err)
			}
			if n := len(res.Program.Ops[0].Calls); n != 1 {
				t.Fatalf("%s op %d: %d kernel calls, want 1", tc.model, tc.op, n)
			}
			files := res.Files
			dir := filepath.Join(shared, "ref", "tensors", tc.model)
			in, err := os.ReadFile(filepath.Join(dir, tc.in))
			if err != nil {
				t.Fatal(err)
			}
			var want [][]byte
			var ts []*model.Tensor
			for k, f := range tc.outs {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, b)
				ts = append(ts, g.Tensors[g.Outputs[k]])
			}
			pkgs = append(pkgs, e2e.Package{Name: pkg, Files: files})
			jobs = append(jobs, e2e.Job{Package: pkg, Inputs: [][]byte{in}, Invokes: 1})
			outs = append(outs, ts)
			wants = append(wants, want)
		}
	}
	// Natively, and as 32-bit ARM under qemu when it is installed (int is
	// 32 bits there).
	targets := []struct {
		name   string
		env    []string
		runner []string
	}{{name: "native"}}
	if q, err := exec.LookPath("qemu-arm-static"); err == nil {
		targets = append(targets, struct {
			name   string
			env    []string
			runner []string
		}{"arm", []string{"GOARCH=arm", "GOARM=7"}, []string{q}})
	}
	what := [3]string{"output", "output state", "cell state"}
	for _, tg := range targets {
		mod, err := e2e.Build(t.TempDir(), pkgs, tg.env...)
		if err != nil {
			t.Fatal(err)
		}
		res, err := mod.Run(jobs, tg.runner...)
		if err != nil {
			t.Fatal(err)
		}
		for i, tc := range variants {
			name := fmt.Sprintf("%s op %d (lean %v)", tc.model, tc.op, tc.lean)
			for k := range what {
				ok, msg := e2e.OutputsMatch(outs[i][k], res[i].Outputs[0][k], wants[i][k])
				if !ok {
					t.Errorf("%s: %s %s: %s", tg.name, name, what[k], msg)
				} else {
					t.Logf("%s: %s %s: matches TFLM %s", tg.name, name, what[k], msg)
				}
			}
		}
	}
}

// TestLSTMLoweringRejects checks that variants TFLM's kernel does not
// support are refused with an error naming the problem.
func TestLSTMLoweringRejects(t *testing.T) {
	shared := e2e.SharedDir(t)
	cases := []struct {
		name  string
		edit  func(g *model.Graph, op *model.Op)
		error string
	}{
		{"CIFG (no input gate weights)", func(g *model.Graph, op *model.Op) { op.Inputs[1] = -1 }, "no CIFG"},
		{"peephole", func(g *model.Graph, op *model.Op) { op.Inputs[10] = op.Inputs[12] }, "peephole"},
		{"projection", func(g *model.Graph, op *model.Op) { op.Inputs[16] = op.Inputs[5] }, "projection"},
		{"layer norm", func(g *model.Graph, op *model.Op) { op.Inputs[21] = op.Inputs[12] }, "layer normalization"},
		{"23 inputs", func(g *model.Graph, op *model.Op) { op.Inputs = op.Inputs[:23] }, "want 24"},
		{"state not variable", func(g *model.Graph, op *model.Op) {
			h := *g.Tensors[op.Inputs[18]]
			h.IsVariable = false
			g.Tensors[op.Inputs[18]] = &h
		}, "variable"},
		{"per-channel weights", func(g *model.Graph, op *model.Op) {
			w := *g.Tensors[op.Inputs[2]]
			q := *w.Quant
			q.Scale = []float32{q.Scale[0], q.Scale[0]}
			q.ZeroPoint = []int64{0, 0}
			w.Quant = &q
			g.Tensors[op.Inputs[2]] = &w
		}, "per-tensor"},
		{"asymmetric weights", func(g *model.Graph, op *model.Op) {
			w := *g.Tensors[op.Inputs[6]]
			q := *w.Quant
			q.ZeroPoint = []int64{3}
			w.Quant = &q
			g.Tensors[op.Inputs[6]] = &w
		}, "symmetric"},
		{"int32 cell state", func(g *model.Graph, op *model.Op) {
			c := *g.Tensors[op.Inputs[19]]
			c.Type = model.Int32
			g.Tensors[op.Inputs[19]] = &c
		}, "cell state"},
		{"wrong recurrent shape", func(g *model.Graph, op *model.Op) {
			op.Inputs[6] = op.Inputs[2]
		}, "recurrent weights"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := lstmLoadModel(t, shared, "trained_lstm_int8")
			tens := append([]*model.Tensor(nil), g.Tensors...)
			g.Tensors = tens
			op := *g.Ops[0]
			op.Inputs = append([]int(nil), op.Inputs...)
			tc.edit(g, &op)
			err := lowerLSTM(&opCtx{G: g, Op: &op})
			if err == nil {
				t.Fatalf("lowering succeeded, want an error containing %q", tc.error)
			}
			if !strings.Contains(err.Error(), tc.error) {
				t.Fatalf("error %q, want it to contain %q", err, tc.error)
			}
		})
	}
}
