package lower

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/devtools/oracle"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

func ifOpts(then, els int) *builder.Options {
	return &builder.Options{Type: model.UnionIfOptions, Fields: []builder.Field{builder.Int(model.IfOptionsThenSubgraphIndex, then), builder.Int(model.IfOptionsElseSubgraphIndex, els)}}
}

func whileOpts(cond, body int) *builder.Options {
	return &builder.Options{Type: model.UnionWhileOptions, Fields: []builder.Field{builder.Int(model.WhileOptionsCondSubgraphIndex, cond), builder.Int(model.WhileOptionsBodySubgraphIndex, body)}}
}

func callOnceOpts(init int) *builder.Options {
	return &builder.Options{Type: model.UnionCallOnceOptions, Fields: []builder.Field{builder.Int(model.CallOnceOptionsInitSubgraphIndex, init)}}
}

// binarySub adds a subgraph out = in OP in (ADD or MUL) of float32[n].
func binarySub(m *builder.Model, code model.OpCode, n int) {
	s := m.Subgraph()
	in := s.Tensor("in", model.Float32, []int{n}, nil)
	out := s.Tensor("out", model.Float32, []int{n}, nil)
	s.Op(code, []int{in, in}, []int{out}, nil)
	s.IO([]int{in}, []int{out})
}

// TestCallOnceMatchesTFLM: CALL_ONCE's init subgraph runs (here computing
// into a tensor nothing reads, as a model without resource variables can
// only do: TFLM's oracle has no resource store) and subgraph 0 gives TFLM's
// result.
func TestCallOnceMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	t.Run("CALL_ONCE_float32", func(t *testing.T) {
		runDiffCases(t, o, diffN{5, 20}, rand.New(rand.NewPCG(1, 29)), func(r *rand.Rand) diffCase {
			n := 1 + r.IntN(8)
			m := builder.New("call once")
			x := m.Tensor("x", model.Float32, []int{n}, nil)
			y := m.Tensor("y", model.Float32, []int{n}, nil)
			m.Op(model.OpCallOnce, nil, nil, callOnceOpts(1))
			m.Op(model.OpAbs, []int{x}, []int{y}, nil)
			m.IO([]int{x}, []int{y})
			s := m.Subgraph()
			c := s.ConstF32("c", []int{n}, difftest.RandVals(r, model.Float32, n).Flts)
			z := s.Tensor("z", model.Float32, []int{n}, nil)
			s.Op(model.OpAdd, []int{c, c}, []int{z}, nil)
			return diffCase{desc: "call once", model: m.Bytes(), inputs: []difftest.Vals{difftest.RandVals(r, model.Float32, n)}, outDT: model.Float32}
		}, nil)
	})
}

// TestCallOnceInitializesVariable: the usual converted model, subgraph 0 =
// CALL_ONCE + VAR_HANDLE + READ_VARIABLE + ASSIGN_VARIABLE and subgraph 1 =
// VAR_HANDLE + ASSIGN_VARIABLE(constant). The first Invoke reads the
// initial value, later ones the previous input; Reset starts over (unlike
// TFLM's Reset, which does not rerun CALL_ONCE: flow.go).
func TestCallOnceInitializesVariable(t *testing.T) {
	m := builder.New("call once variable")
	x := m.Tensor("x", model.Float32, []int{3}, nil)
	y := m.Tensor("y", model.Float32, []int{3}, nil)
	m.Op(model.OpCallOnce, nil, nil, callOnceOpts(1))
	h := varHandle(m, "v")
	m.Op(model.OpReadVariable, []int{h}, []int{y}, nil)
	m.Op(model.OpAssignVariable, []int{h, x}, nil, nil)
	m.IO([]int{x}, []int{y})
	s := m.Subgraph()
	init := difftest.Vals{DT: model.Float32, Flts: []float32{1.5, -2, 7}}
	s.Op(model.OpAssignVariable, []int{varHandle(s, "v"), s.ConstF32("init", []int{3}, init.Flts)}, nil, nil)
	mc, err := machine(m.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 3))
	prev := init.Raw()
	for i := 0; i < 5; i++ {
		if i == 3 {
			mc.Reset()
			prev = init.Raw()
		}
		in := difftest.RandVals(r, model.Float32, 3).Raw()
		copy(mc.Input(0), in)
		mc.Invoke()
		if got := mc.Output(0); !bytes.Equal(got, prev) {
			t.Fatalf("invoke %d: got %v, want %v", i, got, prev)
		}
		prev = in
	}
}

// ifModel: IF(cond, x) with then = x+x, else = x*x.
func ifModel(n int) []byte {
	m := builder.New("if")
	cond := m.Tensor("cond", model.Bool, []int{1}, nil)
	x := m.Tensor("x", model.Float32, []int{n}, nil)
	y := m.Tensor("y", model.Float32, []int{n}, nil)
	m.Op(model.OpIf, []int{cond, x}, []int{y}, ifOpts(1, 2))
	m.IO([]int{x, cond}, []int{y})
	binarySub(m, model.OpAdd, n)
	binarySub(m, model.OpMul, n)
	return m.Bytes()
}

func TestIfMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	t.Run("IF_float32", func(t *testing.T) {
		runDiffCases(t, o, diffN{20, 200}, rand.New(rand.NewPCG(2, 31)), func(r *rand.Rand) diffCase {
			n := 1 + r.IntN(16)
			cond := difftest.Vals{DT: model.Bool, Ints: []int64{int64(r.IntN(2))}}
			return diffCase{desc: "if", model: ifModel(n), inputs: []difftest.Vals{difftest.RandVals(r, model.Float32, n), cond}, outDT: model.Float32}
		}, nil)
	})
}

// whileModel: WHILE(x, i) with cond i < limit and body (x+x, i+1).
func whileModel(n int, limit int32) []byte {
	m := builder.New("while")
	x := m.Tensor("x", model.Float32, []int{n}, nil)
	i := m.Tensor("i", model.Int32, []int{1}, nil)
	xo := m.Tensor("x_out", model.Float32, []int{n}, nil)
	io := m.Tensor("i_out", model.Int32, []int{1}, nil)
	m.Op(model.OpWhile, []int{x, i}, []int{xo, io}, whileOpts(1, 2))
	m.IO([]int{x, i}, []int{xo, io})
	c := m.Subgraph()
	cx := c.Tensor("x", model.Float32, []int{n}, nil)
	ci := c.Tensor("i", model.Int32, []int{1}, nil)
	lim := c.ConstI32("limit", []int{1}, nil, []int32{limit})
	ok := c.Tensor("ok", model.Bool, []int{1}, nil)
	c.Op(model.OpLess, []int{ci, lim}, []int{ok}, nil)
	c.IO([]int{cx, ci}, []int{ok})
	b := m.Subgraph()
	bx := b.Tensor("x", model.Float32, []int{n}, nil)
	bi := b.Tensor("i", model.Int32, []int{1}, nil)
	one := b.ConstI32("one", []int{1}, nil, []int32{1})
	bx2 := b.Tensor("x2", model.Float32, []int{n}, nil)
	bi2 := b.Tensor("i2", model.Int32, []int{1}, nil)
	b.Op(model.OpAdd, []int{bx, bx}, []int{bx2}, nil)
	b.Op(model.OpAdd, []int{bi, one}, []int{bi2}, nil)
	b.IO([]int{bx, bi}, []int{bx2, bi2})
	return m.Bytes()
}

func TestWhileMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	t.Run("WHILE_float32", func(t *testing.T) {
		runDiffCases(t, o, diffN{20, 200}, rand.New(rand.NewPCG(4, 37)), func(r *rand.Rand) diffCase {
			n := 1 + r.IntN(16)
			i := difftest.Vals{DT: model.Int32, Ints: []int64{int64(r.IntN(10) - 3)}}
			return diffCase{desc: "while", model: whileModel(n, int32(r.IntN(8))), inputs: []difftest.Vals{difftest.RandVals(r, model.Float32, n), i}, outDT: model.Float32}
		}, nil)
	})
}

// TestControlFlowRefused: malformed control flow is refused, naming the
// operator (subgraph index out of range, recursion, caller and subgraph
// tensors that do not match).
func TestControlFlowRefused(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		mk         func() []byte
	}{
		{"index out of range", "calls subgraph 3", func() []byte {
			m := builder.New("if")
			cond := m.Tensor("cond", model.Bool, []int{1}, nil)
			x := m.Tensor("x", model.Float32, []int{2}, nil)
			y := m.Tensor("y", model.Float32, []int{2}, nil)
			m.Op(model.OpIf, []int{cond, x}, []int{y}, ifOpts(1, 3))
			m.IO([]int{x, cond}, []int{y})
			binarySub(m, model.OpAdd, 2)
			return m.Bytes()
		}},
		{"recursion", "recursively", func() []byte {
			m := builder.New("if")
			cond := m.Tensor("cond", model.Bool, []int{1}, nil)
			x := m.Tensor("x", model.Float32, []int{2}, nil)
			y := m.Tensor("y", model.Float32, []int{2}, nil)
			m.Op(model.OpIf, []int{cond, x}, []int{y}, ifOpts(1, 1))
			m.IO([]int{x, cond}, []int{y})
			s := m.Subgraph()
			sc := s.Tensor("cond", model.Bool, []int{1}, nil)
			sx := s.Tensor("x", model.Float32, []int{2}, nil)
			sy := s.Tensor("y", model.Float32, []int{2}, nil)
			s.Op(model.OpIf, []int{sc, sx}, []int{sy}, ifOpts(1, 1))
			s.IO([]int{sc, sx}, []int{sy})
			return m.Bytes()
		}},
		// Issue 26: recursion that does not pass through subgraph 0 once
		// overflowed the lowering's stack; a call tree doubling per level
		// was inlined into 2^depth copies.
		{"mutual recursion 1 -> 2 -> 1", "subgraph 2: operator 0 (CALL_ONCE): calls subgraph 1 recursively (call cycle 1 -> 2 -> 1)", builder.MutualCallOnce},
		{"call tree past MaxInlinedOps", "operator 0 (CALL_ONCE): runs 8189 operators of called subgraphs", func() []byte { return builder.CallOnceTree(12) }},
		{"call tree of 40 levels", "operator 0 (CALL_ONCE): runs 2199023255549 operators of called subgraphs", func() []byte { return builder.CallOnceTree(40) }},
		{"shape mismatch", "does not match", func() []byte {
			m := builder.New("if")
			cond := m.Tensor("cond", model.Bool, []int{1}, nil)
			x := m.Tensor("x", model.Float32, []int{2}, nil)
			y := m.Tensor("y", model.Float32, []int{2}, nil)
			m.Op(model.OpIf, []int{cond, x}, []int{y}, ifOpts(1, 2))
			m.IO([]int{x, cond}, []int{y})
			binarySub(m, model.OpAdd, 2)
			binarySub(m, model.OpAdd, 3)
			return m.Bytes()
		}},
		{"type mismatch", "does not match", func() []byte {
			m := builder.New("if")
			cond := m.Tensor("cond", model.Bool, []int{1}, nil)
			x := m.Tensor("x", model.Int32, []int{2}, nil)
			y := m.Tensor("y", model.Float32, []int{2}, nil)
			m.Op(model.OpIf, []int{cond, x}, []int{y}, ifOpts(1, 1))
			m.IO([]int{x, cond}, []int{y})
			binarySub(m, model.OpAdd, 2)
			return m.Bytes()
		}},
		{"count mismatch", "tensors for", func() []byte {
			m := builder.New("while")
			x := m.Tensor("x", model.Float32, []int{2}, nil)
			y := m.Tensor("y", model.Float32, []int{2}, nil)
			m.Op(model.OpWhile, []int{x}, []int{y}, whileOpts(1, 2))
			m.IO([]int{x}, []int{y})
			c := m.Subgraph()
			cx := c.Tensor("x", model.Float32, []int{2}, nil)
			ci := c.Tensor("i", model.Float32, []int{2}, nil)
			ok := c.Tensor("ok", model.Bool, []int{2}, nil)
			c.Op(model.OpLess, []int{cx, ci}, []int{ok}, nil)
			c.IO([]int{cx, ci}, []int{ok})
			binarySub(m, model.OpAdd, 2)
			return m.Bytes()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := inProcess(tc.mk(), make([]byte, 8), []byte{1})
			if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want an unsupported-model error saying %q", err, tc.want)
			}
		})
	}
}
