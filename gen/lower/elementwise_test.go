package lower

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// Tests of the elementwise, quantize and activation lowerings: broadcast
// plans, errors, and generated packages run end to end on TFLM's int16
// seanet vectors and on small fixture models with constant operands.

// ewgShared returns the shared reference directory or skips the test.
func ewgShared(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("TFLM_SHARED")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared")
	}
	if _, err := os.Stat(filepath.Join(dir, "vectors", "seanet")); err != nil {
		t.Skipf("seanet vectors not found under %s (set TFLM_SHARED): %v", dir, err)
	}
	return dir
}

func TestElementwiseBcastPlan(t *testing.T) {
	ones := [5]int{1, 1, 1, 1, 1}
	cases := []struct {
		s1, s2, so []int
		want       ewPlan
		err        string
	}{
		{s1: []int{2, 3}, s2: []int{2, 3}, so: []int{2, 3},
			want: ewPlan{Inner: 6, AInner: 1, BInner: 1, N: ones}},
		{s1: []int{6}, s2: []int{}, so: []int{6},
			want: ewPlan{Inner: 6, AInner: 1, N: ones}},
		{s1: []int{}, s2: []int{}, so: []int{},
			want: ewPlan{Inner: 1, N: ones}},
		{s1: []int{1, 1}, s2: []int{1}, so: []int{1, 1},
			want: ewPlan{Inner: 1, AInner: 1, BInner: 1, N: ones}},
		{s1: []int{2, 3, 1, 2}, s2: []int{1, 1, 3, 2}, so: []int{2, 3, 3, 2},
			want: ewPlan{Inner: 2, AInner: 1, BInner: 1, N: [5]int{3, 6, 1, 1, 1}, A: [5]int{0, 2}, B: [5]int{2, 0}}},
		{s1: []int{4, 1}, s2: []int{1, 5}, so: []int{4, 5},
			want: ewPlan{Inner: 5, BInner: 1, N: [5]int{4, 1, 1, 1, 1}, A: [5]int{1}}},
		{s1: []int{1, 2, 12, 64}, s2: []int{64}, so: []int{1, 2, 12, 64},
			want: ewPlan{Inner: 64, AInner: 1, BInner: 1, N: [5]int{24, 1, 1, 1, 1}, A: [5]int{64}}},
		{s1: []int{2, 0, 3}, s2: []int{3}, so: []int{2, 0, 3},
			want: ewPlan{Inner: 1, N: ones, Empty: true}},
		{s1: []int{2, 3}, s2: []int{3, 2}, so: []int{2, 3}, err: "do not broadcast"},
		{s1: []int{2, 3}, s2: []int{3}, so: []int{2, 4}, err: "not the broadcast"},
		{s1: []int{2, 1, 2, 1, 2, 1, 2}, s2: []int{1, 2, 1, 2, 1, 2, 1}, so: []int{2, 2, 2, 2, 2, 2, 2}, err: "at most 6"},
	}
	for _, c := range cases {
		got, err := ewBcastPlan(c.s1, c.s2, c.so)
		name := fmt.Sprintf("%v+%v->%v", c.s1, c.s2, c.so)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: plan %+v, want %+v", name, got, c.want)
		}
	}
}

// ewgUnary builds a one-operator model in -> op -> out.
func ewgUnary(code model.OpCode, dt model.DType, shape []int, qi, qo *builder.Quant, opts *builder.Options) []byte {
	m := builder.New("test")
	in := m.Tensor("in", dt, shape, qi)
	out := m.Tensor("out", dt, shape, qo)
	m.Op(code, []int{in}, []int{out}, opts)
	m.IO([]int{in}, []int{out})
	return m.Bytes()
}

// ewgBinary builds a one-operator model a, b -> op -> out; b is a constant
// when bdata is not nil.
func ewgBinary(code model.OpCode, dt, bt model.DType, sa, sb, so []int, qa, qb, qo *builder.Quant, bdata []byte, opts *builder.Options) []byte {
	m := builder.New("test")
	a := m.Tensor("a", dt, sa, qa)
	var b int
	if bdata != nil {
		b = m.Const("b", bt, sb, qb, bdata)
	} else {
		b = m.Tensor("b", bt, sb, qb)
	}
	out := m.Tensor("out", dt, so, qo)
	m.Op(code, []int{a, b}, []int{out}, opts)
	if bdata != nil {
		m.IO([]int{a}, []int{out})
	} else {
		m.IO([]int{a, b}, []int{out})
	}
	return m.Bytes()
}

// ewgLower parses a model and lowers its first operator.
func ewgLower(t *testing.T, data []byte) (*opCtx, error) {
	t.Helper()
	g, err := model.Parse("test.tflite", data)
	if err != nil {
		t.Fatal(err)
	}
	op := g.Ops[0]
	l, ok := lowerings[op.Code]
	if !ok {
		t.Fatalf("no lowering for %s", op.Code)
	}
	c := &opCtx{G: g, Op: op}
	return c, l.lower(c)
}

func TestElementwiseLoweringErrors(t *testing.T) {
	q := builder.PerTensor
	add := func(act int) *builder.Options {
		return &builder.Options{Type: model.UnionAddOptions, Fields: []builder.Field{builder.Byte(model.AddOptionsFusedActivationFunction, act)}}
	}
	s4 := []int{1, 4}
	cases := []struct {
		name, want string
		data       []byte
	}{
		{"ADD fused TANH", "fused activation TANH",
			ewgBinary(model.OpAdd, model.Int8, model.Int8, s4, s4, s4, q(0.1, 0), q(0.1, 0), q(0.1, 0), nil, add(4))},
		{"ADD mixed types", "differ",
			ewgBinary(model.OpAdd, model.Int8, model.Int16, s4, s4, s4, q(0.1, 0), q(0.1, 0), q(0.1, 0), nil, add(0))},
		{"ADD shapes", "do not broadcast",
			ewgBinary(model.OpAdd, model.Float32, model.Float32, []int{2, 3}, []int{3, 2}, []int{2, 3}, nil, nil, nil, nil, add(0))},
		{"ADD output rescale above one", "not in (0, 1)",
			ewgBinary(model.OpAdd, model.Int8, model.Int8, s4, s4, s4, q(1, 0), q(1, 0), q(1e-7, 0), nil, add(0))},
		{"ADD unquantized int8", "not quantized",
			ewgBinary(model.OpAdd, model.Int8, model.Int8, s4, s4, s4, nil, q(1, 0), q(1, 0), nil, add(0))},
		{"ADD quantized int32", "quantized int32",
			ewgBinary(model.OpAdd, model.Int32, model.Int32, s4, s4, s4, q(1, 0), nil, nil, nil, add(0))},
		{"ADD int16 zero point out of range", "outside the int16 range",
			ewgBinary(model.OpAdd, model.Int16, model.Int16, s4, s4, s4, q(1, 40000), q(1, 0), q(1, 0), nil, add(0))},
		{"ADD wrong options", "builtin options",
			ewgBinary(model.OpAdd, model.Float32, model.Float32, s4, s4, s4, nil, nil, nil, nil,
				&builder.Options{Type: model.UnionMulOptions})},
		{"MUL int16 zero point", "zero points 0",
			ewgBinary(model.OpMul, model.Int16, model.Int16, s4, s4, s4, q(0.1, 1), q(0.1, 0), q(0.1, 0), nil,
				&builder.Options{Type: model.UnionMulOptions})},
		{"MAXIMUM bool", "not supported",
			ewgBinary(model.OpMaximum, model.Bool, model.Bool, s4, s4, s4, nil, nil, nil, nil, nil)},
		{"QUANTIZE float to uint8", "float32 to uint8",
			func() []byte {
				m := builder.New("test")
				in := m.Tensor("in", model.Float32, s4, nil)
				out := m.Tensor("out", model.Uint8, s4, q(0.1, 128))
				m.Op(model.OpQuantize, []int{in}, []int{out}, nil)
				m.IO([]int{in}, []int{out})
				return m.Bytes()
			}()},
		{"QUANTIZE uint8 to int16", "uint8 to int16",
			func() []byte {
				m := builder.New("test")
				in := m.Tensor("in", model.Uint8, s4, q(0.1, 128))
				out := m.Tensor("out", model.Int16, s4, q(0.1, 0))
				m.Op(model.OpQuantize, []int{in}, []int{out}, nil)
				m.IO([]int{in}, []int{out})
				return m.Bytes()
			}()},
		{"DEQUANTIZE per-channel", "per-channel",
			func() []byte {
				m := builder.New("test")
				in := m.Tensor("in", model.Int8, []int{2, 2}, &builder.Quant{Scale: []float32{0.1, 0.2}, ZeroPoint: []int64{0, 0}})
				out := m.Tensor("out", model.Float32, []int{2, 2}, nil)
				m.Op(model.OpDequantize, []int{in}, []int{out}, nil)
				m.IO([]int{in}, []int{out})
				return m.Bytes()
			}()},
		{"LOGISTIC int8 output zero point", "want -128",
			ewgUnary(model.OpLogistic, model.Int8, s4, q(0.1, 0), q(1.0/256, 0), nil)},
		{"LOGISTIC int16 output scale", "not 2^-15",
			ewgUnary(model.OpLogistic, model.Int16, s4, q(1.0/4096, 0), q(1.0/256, 0), nil)},
		{"TANH int16 zero point", "zero points 0",
			ewgUnary(model.OpTanh, model.Int16, s4, q(1.0/4096, 3), q(1.0/32768, 0), nil)},
		{"RELU int16 zero point", "zero points 0",
			ewgUnary(model.OpRelu, model.Int16, s4, q(0.5, 1), q(0.5, 0), nil)},
		{"HARD_SWISH int16", "not supported",
			ewgUnary(model.OpHardSwish, model.Int16, s4, q(0.5, 0), q(0.5, 0), nil)},
		{"HARD_SWISH output rescale above one", "larger than 1",
			ewgUnary(model.OpHardSwish, model.Int8, s4, q(10, 0), q(0.001, 0), nil)},
		{"PRELU int16 with int16 alpha", "want int8",
			ewgBinary(model.OpPrelu, model.Int16, model.Int16, s4, s4, s4, q(0.1, 0), q(0.1, 0), q(0.1, 0), nil, nil)},
	}
	for _, c := range cases {
		// The model reader may already reject a model (zero points out of
		// the type's range); then its error must name the problem.
		if _, perr := model.Parse("test.tflite", c.data); perr != nil {
			if !strings.Contains(perr.Error(), c.want) {
				t.Errorf("%s: model rejected with %v, want an error containing %q", c.name, perr, c.want)
			}
			continue
		}
		_, err := ewgLower(t, c.data)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "operator 0 (") {
			t.Errorf("%s: error %v, want one naming operator 0 and containing %q", c.name, err, c.want)
		}
	}
}

// TestElementwiseConstOperandCalls checks how constant operands are passed:
// a wide constant is decoded into a scratch buffer by a call emitted before
// the operator's, a one-byte constant is viewed directly.
func TestElementwiseConstOperandCalls(t *testing.T) {
	q := builder.PerTensor
	sub := &builder.Options{Type: model.UnionSubOptions}
	c, err := ewgLower(t, ewgBinary(model.OpSub, model.Int16, model.Int16, []int{2, 4}, []int{4}, []int{2, 4},
		q(0.01, 0), q(0.02, 0), q(0.03, 0), make([]byte, 8), sub))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.calls) != 2 || c.calls[0].Fn != kernelsig.EwLoadI16 || c.calls[1].Fn != kernelsig.SubInt16 || len(c.scratch) != 1 || c.scratch[0].bytes != 8 {
		t.Fatalf("int16 constant: calls %+v, scratch %d", c.calls, len(c.scratch))
	}
	if c.calls[0].Args[1] != c.calls[1].Args[3] {
		t.Errorf("the decoded constant is not the operand passed to subInt16")
	}
	c, err = ewgLower(t, ewgBinary(model.OpAdd, model.Int8, model.Int8, []int{2, 4}, []int{4}, []int{2, 4},
		q(0.01, 0), q(0.02, 0), q(0.03, 0), make([]byte, 4), &builder.Options{Type: model.UnionAddOptions}))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.calls) != 1 || c.calls[0].Fn != kernelsig.AddInt8Tab || len(c.scratch) != 0 {
		t.Fatalf("int8 constant: calls %+v, scratch %d", c.calls, len(c.scratch))
	}
}

// ewgEncode encodes integers as little-endian values of type dt.
func ewgEncode(t *testing.T, v []int64, dt model.DType) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, x := range v {
		switch dt {
		case model.Int8, model.Uint8:
			b.WriteByte(byte(x))
		case model.Int16:
			binary.Write(&b, binary.LittleEndian, int16(x))
		case model.Int32:
			binary.Write(&b, binary.LittleEndian, int32(x))
		default:
			t.Fatalf("encode %s", dt)
		}
	}
	return b.Bytes()
}

// ewgCSV reads a one-line comma-separated list of integers.
func ewgCSV(t *testing.T, path string) []int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for _, f := range strings.Split(strings.TrimSpace(string(b)), ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	return out
}

// ewgRand returns n deterministic pseudo-random values in [lo, hi].
func ewgRand(seed uint32, n int, lo, hi int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		seed ^= seed << 13
		seed ^= seed >> 17
		seed ^= seed << 5
		out[i] = lo + int64(seed%uint32(hi-lo+1))
	}
	return out
}

// ewgF32Bytes encodes float32 values.
func ewgF32Bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// TestElementwiseSeanetGenerated generates a package for every model of the
// seanet add, sub, leaky_relu and quantize directories, runs it on the
// model's input vectors and requires TFLM's output bit for bit (the
// *_tflm_int16.csv file where the shipped golden differs from TFLM). It
// also runs fixture models whose second operand is a constant and requires
// the same output as with that operand fed as an input (and, for the
// constant version of sub0, TFLM's output).
func TestElementwiseSeanetGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs generated packages")
	}
	shared := ewgShared(t)
	root := filepath.Join(shared, "vectors", "seanet")
	type check struct {
		group, name string
		want        []byte // expected output bytes, or nil: equal to job pair
		pair        int    // index of the job whose output must be equal
	}
	var pkgs []e2e.Package
	var jobs []e2e.Job
	var checks []check
	add := func(group, name string, data []byte, inputs [][]byte, want []byte, pair int) {
		pkg := "ew_" + strings.ReplaceAll(name, "-", "_")
		res, err := testGenerate(name+".tflite", data, difftest.EmitOptions{Package: pkg})
		if err != nil {
			t.Fatalf("%s: generate: %v", name, err)
		}
		pkgs = append(pkgs, e2e.Package{Name: pkg, Files: res.Files})
		jobs = append(jobs, e2e.Job{Package: pkg, Inputs: inputs, Invokes: 1})
		checks = append(checks, check{group, name, want, pair})
	}
	groups := []string{"add", "sub", "leaky_relu", "quantize"}
	for _, dir := range groups {
		files, _ := filepath.Glob(filepath.Join(root, dir, "*.tflite"))
		sort.Strings(files)
		for _, f := range files {
			name := strings.TrimSuffix(filepath.Base(f), ".tflite")
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			g, err := model.Parse(name, data)
			if err != nil {
				t.Fatal(err)
			}
			var inputs [][]byte
			for k, idx := range g.Inputs {
				m, _ := filepath.Glob(filepath.Join(root, dir, fmt.Sprintf("%s_input%d_*.csv", name, k)))
				if len(m) != 1 {
					t.Fatalf("%s: input %d: files %v", name, k, m)
				}
				inputs = append(inputs, ewgEncode(t, ewgCSV(t, m[0]), g.Tensors[idx].Type))
			}
			ref, _ := filepath.Glob(filepath.Join(root, dir, name+"_tflm_*.csv"))
			if len(ref) == 0 {
				ref, _ = filepath.Glob(filepath.Join(root, dir, name+"_golden_*.csv"))
			}
			if len(ref) != 1 {
				t.Fatalf("%s: reference files %v", name, ref)
			}
			add(dir, name, data, inputs, ewgEncode(t, ewgCSV(t, ref[0]), g.Tensors[g.Outputs[0]].Type), -1)
		}
	}

	// sub0 with its second input stored as a constant.
	{
		data, err := os.ReadFile(filepath.Join(root, "sub", "sub0.tflite"))
		if err != nil {
			t.Fatal(err)
		}
		g, err := model.Parse("sub0", data)
		if err != nil {
			t.Fatal(err)
		}
		op := g.Ops[0]
		a, b, o := g.Input(op, 0), g.Input(op, 1), g.Output(op, 0)
		qt := func(x *model.Tensor) *builder.Quant { return builder.PerTensor(x.Quant.Scale[0], x.Quant.ZeroPoint[0]) }
		in0 := ewgEncode(t, ewgCSV(t, filepath.Join(root, "sub", "sub0_input0_int16.csv")), model.Int16)
		in1 := ewgEncode(t, ewgCSV(t, filepath.Join(root, "sub", "sub0_input1_int16.csv")), model.Int16)
		want := ewgEncode(t, ewgCSV(t, filepath.Join(root, "sub", "sub0_tflm_int16.csv")), model.Int16)
		m := ewgBinary(model.OpSub, model.Int16, model.Int16, a.Shape, b.Shape, o.Shape, qt(a), qt(b), qt(o), in1,
			&builder.Options{Type: model.UnionSubOptions})
		add("const", "sub0_const", m, [][]byte{in0}, want, -1)
	}

	// Constant operands of other types: the constant and the input version
	// of the same operator must agree.
	q := builder.PerTensor
	pairs := []struct {
		name       string
		code       model.OpCode
		dt, bt     model.DType
		sa, sb, so []int
		qa, qb, qo *builder.Quant
		a, b       []byte
		opts       *builder.Options
	}{
		{"add_i8", model.OpAdd, model.Int8, model.Int8, []int{2, 3, 4}, []int{3, 1}, []int{2, 3, 4},
			q(0.05, -3), q(0.02, 7), q(0.07, 2),
			ewgEncode(t, ewgRand(1, 24, -128, 127), model.Int8), ewgEncode(t, ewgRand(2, 3, -128, 127), model.Int8),
			&builder.Options{Type: model.UnionAddOptions, Fields: []builder.Field{builder.Byte(model.AddOptionsFusedActivationFunction, 1)}}},
		{"mul_i16", model.OpMul, model.Int16, model.Int16, []int{4, 5}, []int{5}, []int{4, 5},
			q(0.001, 0), q(0.002, 0), q(0.0005, 0),
			ewgEncode(t, ewgRand(3, 20, -32768, 32767), model.Int16), ewgEncode(t, ewgRand(4, 5, -32768, 32767), model.Int16),
			&builder.Options{Type: model.UnionMulOptions}},
		{"max_i32", model.OpMaximum, model.Int32, model.Int32, []int{3, 4}, []int{1, 4}, []int{3, 4},
			nil, nil, nil,
			ewgEncode(t, ewgRand(5, 12, -1000, 1000), model.Int32), ewgEncode(t, ewgRand(6, 4, -1000, 1000), model.Int32), nil},
		{"prelu_f32", model.OpPrelu, model.Float32, model.Float32, []int{2, 2, 3}, []int{1, 1, 3}, []int{2, 2, 3},
			nil, nil, nil,
			ewgF32Bytes([]float32{0, 1, -1, 2, -2, 3, -3, 0.5, -0.5, 4, -4, -0.25}), ewgF32Bytes([]float32{0.25, -1, 2}), nil},
		{"sub_f32", model.OpSub, model.Float32, model.Float32, []int{2, 3}, []int{3}, []int{2, 3},
			nil, nil, nil,
			ewgF32Bytes([]float32{1, 2, 3, 4, 5, 6}), ewgF32Bytes([]float32{0.5, -1, 10}),
			&builder.Options{Type: model.UnionSubOptions, Fields: []builder.Field{builder.Byte(model.SubOptionsFusedActivationFunction, 3)}}},
	}
	for _, p := range pairs {
		add("const", p.name+"_in", ewgBinary(p.code, p.dt, p.bt, p.sa, p.sb, p.so, p.qa, p.qb, p.qo, nil, p.opts),
			[][]byte{p.a, p.b}, nil, -1)
		add("const", p.name+"_const", ewgBinary(p.code, p.dt, p.bt, p.sa, p.sb, p.so, p.qa, p.qb, p.qo, p.b, p.opts),
			[][]byte{p.a}, nil, len(jobs)-1)
	}

	mod, err := e2e.Build(t.TempDir(), pkgs)
	if err != nil {
		t.Fatal(err)
	}
	results, err := mod.Run(jobs)
	if err != nil {
		t.Fatal(err)
	}
	pass, total := map[string]int{}, map[string]int{}
	for i, c := range checks {
		got := results[i].Outputs[0][0]
		want := c.want
		if c.pair >= 0 {
			want = results[c.pair].Outputs[0][0]
		}
		if c.want == nil && c.pair < 0 {
			continue // the input version of a pair
		}
		total[c.group]++
		if bytes.Equal(got, want) {
			pass[c.group]++
			continue
		}
		diff := 0
		for k := range min(len(got), len(want)) {
			if got[k] != want[k] {
				diff++
			}
		}
		t.Errorf("%s/%s: %d of %d output bytes differ (lengths %d, %d)", c.group, c.name, diff, len(want), len(got), len(want))
	}
	for _, g := range append(groups, "const") {
		t.Logf("%s: %d of %d generated packages exact", g, pass[g], total[g])
	}
}
