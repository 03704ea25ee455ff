package run_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen"
	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/gen/run"
	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/planner"
)

func f32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func putF32s(b []byte, v []float32) {
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
}

// TestFullyConnectedFloat runs a float FULLY_CONNECTED whose result is
// exact in float32 and checks it value by value.
func TestFullyConnectedFloat(t *testing.T) {
	b := builder.New("run test: fc")
	x := b.Tensor("x", model.Float32, []int{1, 3}, nil)
	w := b.ConstF32("w", []int{2, 3}, []float32{1, 2, 3, -1, 0.5, 2})
	bias := b.ConstF32("b", []int{2}, []float32{0.25, -1})
	y := b.Tensor("y", model.Float32, []int{1, 2}, nil)
	b.Op(model.OpFullyConnected, []int{x, w, bias}, []int{y}, &builder.Options{Type: model.UnionFullyConnectedOptions, Fields: []builder.Field{builder.Byte(model.FullyConnectedOptionsFusedActivationFunction, 0)}})
	b.IO([]int{x}, []int{y})
	p, l, err := gen.Lower("fc.tflite", b.Bytes(), gen.Options{Package: "fc"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := run.New(p, l)
	if err != nil {
		t.Fatal(err)
	}
	putF32s(m.Input(0), []float32{1, -2, 4})
	m.Invoke()
	got, want := f32s(m.Output(0)), []float32{9.25, 5}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("y = %v, want %v", got, want)
	}
}

// TestExamples runs the project's fixture models in-process: two Machines
// of one program agree, and a second Invoke of these stateless models on
// the same inputs repeats the first.
func TestExamples(t *testing.T) {
	for _, ex := range builder.Examples() {
		t.Run(ex.Name, func(t *testing.T) {
			p, l, err := gen.Lower(ex.Name+".tflite", ex.Build(), gen.Options{Package: ex.Name, Recompute: ex.Recompute})
			if err != nil {
				t.Fatal(err)
			}
			m1, err := run.New(p, l)
			if err != nil {
				t.Fatal(err)
			}
			m2, err := run.New(p, l)
			if err != nil {
				t.Fatal(err)
			}
			seed := uint32(7)
			var inputs [][]byte
			for i := range p.Graph.Inputs {
				in := m1.Input(i)
				if p.Graph.Tensors[p.Graph.Inputs[i]].Type == model.Float32 {
					v := make([]float32, len(in)/4)
					for k := range v {
						seed = seed*1664525 + 1013904223
						v[k] = float32(int32(seed>>8)%2000) / 1000
					}
					putF32s(in, v)
				} else {
					for k := range in {
						seed = seed*1664525 + 1013904223
						in[k] = byte(seed >> 24)
					}
				}
				copy(m2.Input(i), in)
				inputs = append(inputs, append([]byte(nil), in...))
			}
			m1.Invoke()
			m2.Invoke()
			var first [][]byte
			for o := range p.Graph.Outputs {
				if !bytes.Equal(m1.Output(o), m2.Output(o)) {
					t.Errorf("output %d differs between two machines", o)
				}
				if allZero(m1.Output(o)) {
					t.Errorf("output %d is all zero", o)
				}
				first = append(first, append([]byte(nil), m1.Output(o)...))
			}
			// The planner reuses input memory once an input is dead, so the
			// inputs are written again, as before any Invoke.
			for i, in := range inputs {
				copy(m1.Input(i), in)
			}
			m1.Invoke()
			for o := range p.Graph.Outputs {
				if !bytes.Equal(m1.Output(o), first[o]) {
					t.Errorf("output %d changed on the second Invoke of a stateless model", o)
				}
			}
		})
	}
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// stateProgram is a hand-made program with persistent state: out =
// max(in, state), then state = 9. The state starts at fill.
func stateProgram(fill int, calls ...program.Call) (*program.Program, *layout.Layout) {
	g := &model.Graph{
		Name: "state",
		Tensors: []*model.Tensor{
			{Index: 0, Name: "in", Type: model.Int8, Shape: []int{4}},
			{Index: 1, Name: "out", Type: model.Int8, Shape: []int{4}},
		},
		Inputs:  []int{0},
		Outputs: []int{1},
	}
	bc := program.Struct{Type: "ewBcast", Fields: []program.Field{
		{Name: "inner", Value: program.Lit{Value: 4}},
		{Name: "aInner", Value: program.Lit{Value: 1}},
		{Name: "bInner", Value: program.Lit{Value: 1}},
		{Name: "n1", Value: program.Lit{Value: 1}},
		{Name: "n2", Value: program.Lit{Value: 1}},
		{Name: "n3", Value: program.Lit{Value: 1}},
		{Name: "n4", Value: program.Lit{Value: 1}},
		{Name: "n5", Value: program.Lit{Value: 1}},
	}}
	if len(calls) == 0 {
		calls = []program.Call{
			{Fn: "maximumInt8", Args: []program.Arg{bc,
				program.View{Buf: 0, Type: model.Int8, N: 4},
				program.View{Buf: 2, Type: model.Int8, N: 4},
				program.View{Buf: 1, Type: model.Int8, N: 4}}},
			{Fn: "copyConst", Args: []program.Arg{
				program.View{Buf: 2, Type: model.Int8, N: 4, Raw: true},
				program.ConstTable{Index: 0}}},
		}
	}
	p := &program.Program{
		Graph: g,
		Ops:   []program.Op{{Index: 0, Code: model.OpMaximum, Calls: calls}},
		Buffers: []program.Buffer{
			{Buffer: planner.Buffer{Name: "in", Size: 4, First: 0, Last: 0}, Tensors: []int{0}, Reset: -1, Op: -1},
			{Buffer: planner.Buffer{Name: "out", Size: 4, First: 0, Last: 0}, Tensors: []int{1}, Reset: -1, Op: -1},
			{Buffer: planner.Buffer{Name: "state", Size: 4, First: 0, Last: 0, Kind: planner.Persistent}, Reset: fill, Op: 0},
		},
		Consts:    []program.Const{{Hint: "Nine", Op: 0, Data: []byte{9, 9, 9, 9}}},
		TensorBuf: map[int]program.BufID{0: 0, 1: 1},
	}
	l := &layout.Layout{Plan: &planner.Plan{Offsets: []int{0, 16, 32}, Size: 48}, Align: 16}
	return p, l
}

// TestResetAndState checks that the first Invoke applies a non-zero initial
// state, that state carries over between Invokes and that Reset restores it.
func TestResetAndState(t *testing.T) {
	for _, fill := range []int{0, 7} {
		p, l := stateProgram(fill)
		m, err := run.New(p, l)
		if err != nil {
			t.Fatal(err)
		}
		copy(m.Input(0), []byte{1, 0xf0, 8, 12}) // 1, -16, 8, 12
		f := byte(fill)
		step := func(what string, want ...byte) {
			t.Helper()
			m.Invoke()
			if got := m.Output(0); !bytes.Equal(got, want) {
				t.Errorf("fill %d, %s: out = %v, want %v", fill, what, got, want)
			}
		}
		step("first Invoke", max(1, f), f, 8, 12)
		step("second Invoke", 9, 9, 9, 12)
		m.Reset()
		step("after Reset", max(1, f), f, 8, 12)
	}
}

// TestNewErrors checks that calls which would not compile in the generated
// code are refused by New, naming the operator and the kernel.
func TestNewErrors(t *testing.T) {
	view := func(dt model.DType) program.View { return program.View{Buf: 0, Type: dt, N: 4} }
	cases := []struct {
		name string
		call program.Call
		want string
	}{
		{"unknown kernel", program.Call{Fn: "noSuchKernel"}, "noSuchKernel"},
		{"helper with results", program.Call{Fn: "clampI32", Args: []program.Arg{program.Lit{Value: 1}, program.Lit{Value: 0}, program.Lit{Value: 2}}}, "results"},
		{"wrong count", program.Call{Fn: "copyConst", Args: []program.Arg{view(model.Uint8)}}, "arguments"},
		{"wrong view type", program.Call{Fn: "copyConst", Args: []program.Arg{view(model.Int16), program.ConstTable{Index: 0}}}, "[]int16"},
		{"unknown struct", program.Call{Fn: "maximumInt8", Args: []program.Arg{program.Struct{Type: "noParams"}, view(model.Int8), view(model.Int8), view(model.Int8)}}, "noParams"},
		{"unknown field", program.Call{Fn: "maximumInt8", Args: []program.Arg{program.Struct{Type: "ewBcast", Fields: []program.Field{{Name: "bogus", Value: program.Lit{Value: 1}}}}, view(model.Int8), view(model.Int8), view(model.Int8)}}, "bogus"},
		{"float for int", program.Call{Fn: "maximumInt8", Args: []program.Arg{program.Struct{Type: "ewBcast", Fields: []program.Field{{Name: "inner", Value: program.Lit{Value: float32(1.5)}}}}, view(model.Int8), view(model.Int8), view(model.Int8)}}, "inner"},
		{"view outside arena", program.Call{Fn: "copyConst", Args: []program.Arg{program.View{Buf: 2, Type: model.Int32, N: 8, Raw: true}, program.ConstTable{Index: 0}}}, "outside"},
		{"missing table", program.Call{Fn: "copyConst", Args: []program.Arg{view(model.Uint8), program.ConstTable{Index: 3}}}, "table 3"},
	}
	for _, c := range cases {
		p, l := stateProgram(0, c.call)
		_, err := run.New(p, l)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, "operator 0") || !strings.Contains(msg, c.call.Fn) || !strings.Contains(msg, c.want) {
			t.Errorf("%s: error %q does not name operator 0, kernel %s and %q", c.name, msg, c.call.Fn, c.want)
		}
	}
}
