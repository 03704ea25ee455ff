package lower

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/builder"
	"github.com/tflm-gen/tflm-gen/internal/e2e"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// TestTablesMatchKernels checks the generation-time tables of the int8
// LOGISTIC, TANH (lutInt8) and ADD, SUB (addInt8Tab, subInt8Tab) kernels
// against the kernels that compute the same outputs at run time (the lean
// lowerings): each one-operator model is generated both ways and run on
// every int8 input (every pair of inputs for ADD and SUB); the outputs must
// be identical.
func TestTablesMatchKernels(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs generated packages")
	}
	q := builder.PerTensor
	type tc struct {
		name string
		data []byte
		fast string // kernel the default lowering must emit
	}
	var cases []tc
	// LOGISTIC: output scale 1/256, zero point -128; TANH: 1/128, 0.
	for i, in := range []struct {
		scale float32
		zp    int64
	}{{0.1, 0}, {0.0685, -128}, {0.02, 127}, {1.0 / 16, 3}, {0.5, -7}, {0.0037, 40}, {2.1, 0}} {
		cases = append(cases,
			tc{fmt.Sprintf("logistic%d", i), ewgUnary(model.OpLogistic, model.Int8, []int{256}, q(in.scale, in.zp), q(1.0/256, -128), nil), "lutInt8"},
			tc{fmt.Sprintf("tanh%d", i), ewgUnary(model.OpTanh, model.Int8, []int{256}, q(in.scale, in.zp), q(1.0/128, 0), nil), "lutInt8"})
	}
	for i, s := range []struct {
		s1, s2, so float32
		z1, z2, zo int64
		act        int
	}{
		{0.05, 0.05, 0.1, 0, 0, 0, 0},
		{0.0123, 0.0457, 0.03, -128, 127, 5, 0},
		{0.5, 0.01, 0.4, 3, -9, -128, 1},
		{0.002, 0.0021, 0.0039, 17, -20, 100, 3},
	} {
		for _, op := range []struct {
			code model.OpCode
			typ  int
			fn   string
		}{{model.OpAdd, ewAddOptionsType, "addInt8Tab"}, {model.OpSub, ewSubOptionsType, "subInt8Tab"}} {
			opts := &builder.Options{Type: uint8(op.typ), Fields: []builder.Field{builder.Byte(0, s.act)}}
			data := ewgBinary(op.code, model.Int8, model.Int8, []int{256, 256}, []int{256, 256}, []int{256, 256},
				q(s.s1, s.z1), q(s.s2, s.z2), q(s.so, s.zo), nil, opts)
			cases = append(cases, tc{fmt.Sprintf("%s%d", op.fn[:3], i), data, op.fn})
			// Broadcast rows: b is one row repeated.
			data = ewgBinary(op.code, model.Int8, model.Int8, []int{256, 256}, []int{1, 256}, []int{256, 256},
				q(s.s1, s.z1), q(s.s2, s.z2), q(s.so, s.zo), nil, opts)
			cases = append(cases, tc{fmt.Sprintf("%s%dbc", op.fn[:3], i), data, op.fn})
		}
	}
	var pkgs []e2e.Package
	var jobs []e2e.Job
	for _, c := range cases {
		g, err := model.Parse(c.name, c.data)
		if err != nil {
			t.Fatal(err)
		}
		var inputs [][]byte
		for k, idx := range g.Inputs {
			n := g.Tensors[idx].NumElements()
			b := make([]byte, n)
			for i := range b {
				if k == 0 {
					b[i] = byte(i) // every value; every pair with input 1
				} else {
					b[i] = byte(i / 256)
				}
			}
			inputs = append(inputs, b)
		}
		for v, lean := range []bool{false, true} {
			pkg := fmt.Sprintf("%s_v%d", c.name, v)
			res, err := testLean(g, []bool{lean}, testOptions{Package: pkg})
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			fn := res.Program.Ops[0].Calls[0].Fn
			if (fn == c.fast) == lean {
				t.Fatalf("%s: lean=%v lowering emits %s", c.name, lean, fn)
			}
			pkgs = append(pkgs, e2e.Package{Name: pkg, Files: res.Files})
			jobs = append(jobs, e2e.Job{Package: pkg, Inputs: inputs, Invokes: 1})
		}
	}
	mod, err := e2e.Build(t.TempDir(), pkgs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := mod.Run(jobs)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		fast, lean := res[2*i].Outputs[0][0], res[2*i+1].Outputs[0][0]
		if !bytes.Equal(fast, lean) {
			for k := range fast {
				if fast[k] != lean[k] {
					t.Errorf("%s: output %d is %d with the table, %d without", c.name, k, int8(fast[k]), int8(lean[k]))
					break
				}
			}
		}
	}
}
