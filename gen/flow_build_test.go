package gen

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/run"
	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// flowModels are models with resource variables and control flow (CALL_ONCE,
// IF, WHILE).
func flowModels() map[string][]byte {
	handle := func(m *builder.Model, name string) int {
		h := m.Tensor(name+"/handle", model.Resource, []int{}, nil)
		o := builder.Options{Type: model.UnionVarHandleOptions}.String(model.VarHandleOptionsSharedName, name)
		m.Op(model.OpVarHandle, nil, []int{h}, &o)
		return h
	}
	whileOpts := func(cond, body int) *builder.Options {
		return &builder.Options{Type: model.UnionWhileOptions, Fields: []builder.Field{
			builder.Int(model.WhileOptionsCondSubgraphIndex, cond), builder.Int(model.WhileOptionsBodySubgraphIndex, body)}}
	}
	ifOpts := func(then, els int) *builder.Options {
		return &builder.Options{Type: model.UnionIfOptions, Fields: []builder.Field{
			builder.Int(model.IfOptionsThenSubgraphIndex, then), builder.Int(model.IfOptionsElseSubgraphIndex, els)}}
	}
	out := map[string][]byte{}
	{
		m := builder.New("delay int8")
		q := builder.PerTensor(0.5, -3)
		x := m.Tensor("x", model.Int8, []int{5}, q)
		y := m.Tensor("y", model.Int8, []int{5}, q)
		h := handle(m, "state")
		m.Op(model.OpReadVariable, []int{h}, []int{y}, nil)
		m.Op(model.OpAssignVariable, []int{h, x}, nil, nil)
		m.IO([]int{x}, []int{y})
		out["flow_delay"] = m.Bytes()
	}
	{
		m := builder.New("call once")
		x := m.Tensor("x", model.Int8, []int{3}, nil)
		y := m.Tensor("y", model.Int8, []int{3}, nil)
		m.Op(model.OpCallOnce, nil, nil, &builder.Options{Type: model.UnionCallOnceOptions, Fields: []builder.Field{builder.Int(model.CallOnceOptionsInitSubgraphIndex, 1)}})
		h := handle(m, "v")
		m.Op(model.OpReadVariable, []int{h}, []int{y}, nil)
		m.Op(model.OpAssignVariable, []int{h, x}, nil, nil)
		m.IO([]int{x}, []int{y})
		s := m.Subgraph()
		s.Op(model.OpAssignVariable, []int{handle(s, "v"), s.ConstI8("init", []int{3}, nil, []int8{7, -8, 9})}, nil, nil)
		out["flow_call_once"] = m.Bytes()
	}
	{
		m := builder.New("while")
		x := m.Tensor("x", model.Float32, []int{4}, nil)
		i := m.Tensor("i", model.Int32, []int{1}, nil)
		xo := m.Tensor("x_out", model.Float32, []int{4}, nil)
		io := m.Tensor("i_out", model.Int32, []int{1}, nil)
		m.Op(model.OpWhile, []int{x, i}, []int{xo, io}, whileOpts(1, 2))
		m.IO([]int{x, i}, []int{xo, io})
		c := m.Subgraph()
		cx := c.Tensor("x", model.Float32, []int{4}, nil)
		ci := c.Tensor("i", model.Int32, []int{1}, nil)
		ok := c.Tensor("ok", model.Bool, []int{1}, nil)
		c.Op(model.OpLess, []int{ci, c.ConstI32("limit", []int{1}, nil, []int32{3})}, []int{ok}, nil)
		c.IO([]int{cx, ci}, []int{ok})
		b := m.Subgraph()
		bx := b.Tensor("x", model.Float32, []int{4}, nil)
		bi := b.Tensor("i", model.Int32, []int{1}, nil)
		bx2 := b.Tensor("x2", model.Float32, []int{4}, nil)
		bi2 := b.Tensor("i2", model.Int32, []int{1}, nil)
		// An IF inside the body: x2 = i odd ? x+x : x*x.
		odd := b.Tensor("odd", model.Bool, []int{1}, nil)
		b.Op(model.OpLess, []int{bi, b.ConstI32("two", []int{1}, nil, []int32{2})}, []int{odd}, nil)
		b.Op(model.OpIf, []int{odd, bx}, []int{bx2}, ifOpts(3, 4))
		b.Op(model.OpAdd, []int{bi, b.ConstI32("one", []int{1}, nil, []int32{1})}, []int{bi2}, nil)
		b.IO([]int{bx, bi}, []int{bx2, bi2})
		for _, code := range []model.OpCode{model.OpAdd, model.OpMul} {
			s := m.Subgraph()
			in := s.Tensor("in", model.Float32, []int{4}, nil)
			o := s.Tensor("out", model.Float32, []int{4}, nil)
			s.Op(code, []int{in, in}, []int{o}, nil)
			s.IO([]int{in}, []int{o})
		}
		out["flow_while_if"] = m.Bytes()
	}
	return out
}

// TestFlowBuild generates, builds and runs the control flow and resource
// variable models for three Invokes (state carries over) and compares every
// output with the in-process run.
func TestFlowBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds generated packages")
	}
	inputs := map[string][][]byte{
		"flow_delay":     {{1, 2, 3, 0x80, 0x7f}},
		"flow_call_once": {{4, 5, 6}},
		"flow_while_if":  {{0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, 0, 0, 0x40, 0x40, 0, 0, 0x80, 0xbf}, {0xff, 0xff, 0xff, 0xff}},
	}
	var pkgs []e2e.Package
	var jobs []e2e.Job
	var want [][][]byte
	names := []string{"flow_delay", "flow_call_once", "flow_while_if"}
	ms := flowModels()
	for _, name := range names {
		res, err := Generate(name+".tflite", ms[name], Options{Package: name, NoTests: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		pkgs = append(pkgs, e2e.Package{Name: name, Files: res.Files})
		jobs = append(jobs, e2e.Job{Package: name, Inputs: inputs[name], Invokes: 3})
		m, err := run.New(res.Program, res.Layout)
		if err != nil {
			t.Fatal(err)
		}
		var w [][]byte
		for inv := 0; inv < 3; inv++ {
			for k, in := range inputs[name] {
				copy(m.Input(k), in)
			}
			m.Invoke()
			for k := range res.Program.Graph.Outputs {
				w = append(w, append([]byte(nil), m.Output(k)...))
			}
		}
		want = append(want, w)
	}
	mod, err := e2e.Build(t.TempDir(), pkgs)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		checkTinyGo(t, filepath.Join(mod.Dir, p.Name))
	}
	results, err := mod.Run(jobs)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range results {
		var got [][]byte
		for _, inv := range r.Outputs {
			got = append(got, inv...)
		}
		if len(got) != len(want[i]) {
			t.Fatalf("%s: %d outputs, want %d", names[i], len(got), len(want[i]))
		}
		for k := range got {
			if !bytes.Equal(got[k], want[i][k]) {
				t.Errorf("%s: output %d: built %v, in-process %v", names[i], k, got[k], want[i][k])
			}
		}
		t.Logf("%s: %v", names[i], got)
	}
}
