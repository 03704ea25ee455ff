package builder

import (
	"fmt"

	"github.com/tflm-gen/tflm-gen/internal/model"
)

// Hostile models: small, well-formed files built to make a generator do
// unbounded work (issue 26). Each is a family with a size parameter, so
// tests can build them small and measurements large.

// callOnce is CALL_ONCE's builtin options: init_subgraph_index sub.
func callOnce(sub int) *Options {
	return &Options{Type: model.UnionCallOnceOptions, Fields: []Field{Int(model.CallOnceOptionsInitSubgraphIndex, sub)}}
}

// absMain makes subgraph 0 of m read x and write ABS(x), with extra
// operators before it.
func absMain(m *Model, n int) {
	x := m.Tensor("x", model.Float32, []int{n}, nil)
	y := m.Tensor("y", model.Float32, []int{n}, nil)
	m.Op(model.OpAbs, []int{x}, []int{y}, nil)
	m.IO([]int{x}, []int{y})
}

// constAddSub adds a subgraph that computes c + c into a tensor of its own,
// after the operators more adds to it.
func constAddSub(m *Model, more func(s *Model)) {
	s := m.Subgraph()
	if more != nil {
		more(s)
	}
	c := s.ConstF32("c", []int{4}, []float32{1, 2, 3, 4})
	z := s.Tensor("z", model.Float32, []int{4}, nil)
	s.Op(model.OpAdd, []int{c, c}, []int{z}, &Options{Type: model.UnionAddOptions})
}

// MutualCallOnce: subgraph 0 calls subgraph 1 through CALL_ONCE, which
// calls subgraph 2, which calls subgraph 1 again (recursion not through
// subgraph 0).
func MutualCallOnce() []byte {
	m := New("mutual CALL_ONCE recursion")
	m.Op(model.OpCallOnce, nil, nil, callOnce(1))
	absMain(m, 4)
	constAddSub(m, func(s *Model) { s.Op(model.OpCallOnce, nil, nil, callOnce(2)) })
	constAddSub(m, func(s *Model) { s.Op(model.OpCallOnce, nil, nil, callOnce(1)) })
	return m.Bytes()
}

// CallOnceTree: subgraph k (1 <= k < depth) calls subgraph k+1 twice
// through CALL_ONCE, so that inlining every call site copies the last
// subgraph 2^(depth-1) times.
func CallOnceTree(depth int) []byte {
	m := New(fmt.Sprintf("CALL_ONCE tree of depth %d", depth))
	m.Op(model.OpCallOnce, nil, nil, callOnce(1))
	absMain(m, 4)
	for k := 1; k <= depth; k++ {
		constAddSub(m, func(s *Model) {
			if k < depth {
				s.Op(model.OpCallOnce, nil, nil, callOnce(k+1))
				s.Op(model.OpCallOnce, nil, nil, callOnce(k+1))
			}
		})
	}
	return m.Bytes()
}

// FanOut: one input read by n ABS operators whose outputs are all graph
// outputs, so all n stay live to the end.
func FanOut(n int) []byte {
	m := New(fmt.Sprintf("fan-out of %d", n))
	x := m.Tensor("x", model.Float32, []int{4}, nil)
	outs := make([]int, n)
	for i := range outs {
		outs[i] = m.Tensor(fmt.Sprintf("y%d", i), model.Float32, []int{4}, nil)
		m.Op(model.OpAbs, []int{x}, []int{outs[i]}, nil)
	}
	m.IO([]int{x}, outs)
	return m.Bytes()
}

// Chain: n ABS operators one after the other.
func Chain(n int) []byte {
	m := New(fmt.Sprintf("chain of %d", n))
	prev := m.Tensor("x", model.Float32, []int{4}, nil)
	in := prev
	for i := range n {
		t := m.Tensor(fmt.Sprintf("t%d", i), model.Float32, []int{4}, nil)
		m.Op(model.OpAbs, []int{prev}, []int{t}, nil)
		prev = t
	}
	m.IO([]int{in}, []int{prev})
	return m.Bytes()
}

// NoInputs: a graph without inputs, ABS of a constant as its output.
func NoInputs() []byte {
	m := New("no graph inputs")
	c := m.ConstF32("c", []int{4}, []float32{-1, 2, -3, 4})
	y := m.Tensor("y", model.Float32, []int{4}, nil)
	m.Op(model.OpAbs, []int{c}, []int{y}, nil)
	m.IO(nil, []int{y})
	return m.Bytes()
}

// NoOutputs: a graph without outputs, whose one operator stores its input
// into a resource variable.
func NoOutputs() []byte {
	m := New("no graph outputs")
	x := m.Tensor("x", model.Float32, []int{4}, nil)
	h := m.Tensor("h", model.Resource, []int{}, nil)
	o := Options{Type: model.UnionVarHandleOptions}.String(model.VarHandleOptionsSharedName, "v")
	m.Op(model.OpVarHandle, nil, []int{h}, &o)
	m.Op(model.OpAssignVariable, []int{h, x}, nil, nil)
	m.IO([]int{x}, nil)
	return m.Bytes()
}

// ConvChain: n int8 3x3 convolutions (SAME padding, 8x8x2) one after the
// other, all reading the same weights: the operators the overlapped-pair
// and fusion choices consider.
func ConvChain(n int) []byte {
	r := rng(0xbad)
	m := New(fmt.Sprintf("convolution chain of %d", n))
	q := PerTensor(0.05, -3)
	wq := &Quant{Axis: 0, Scale: []float32{0.01, 0.02}, ZeroPoint: []int64{0, 0}}
	bq := &Quant{Axis: 0, Scale: []float32{0.0005, 0.001}, ZeroPoint: []int64{0, 0}}
	w := m.ConstI8("w", []int{2, 3, 3, 2}, wq, r.int8s(36))
	b := m.ConstI32("b", []int{2}, bq, r.int32s(2, 100))
	prev := m.Tensor("x", model.Int8, []int{1, 8, 8, 2}, q)
	in := prev
	for i := range n {
		t := m.Tensor(fmt.Sprintf("t%d", i), model.Int8, []int{1, 8, 8, 2}, q)
		m.Op(model.OpConv2D, []int{prev, w, b}, []int{t},
			conv2DOpts(padSame, 1, actRelu))
		prev = t
	}
	m.IO([]int{in}, []int{prev})
	return m.Bytes()
}
