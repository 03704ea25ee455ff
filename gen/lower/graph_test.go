package lower

import (
	"errors"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// chainGraph is a float32 graph x -> op0 -> a -> op1 -> b -> op2 -> c.
func chainGraph(t *testing.T, codes [3]model.OpCode) *model.Graph {
	t.Helper()
	m := builder.New("chain")
	var ts [4]int
	for i, n := range []string{"x", "a", "b", "c"} {
		ts[i] = m.Tensor(n, model.Float32, []int{1, 4}, nil)
	}
	for i, c := range codes {
		m.Op(c, []int{ts[i]}, []int{ts[i+1]}, nil)
	}
	m.IO([]int{ts[0]}, []int{ts[3]})
	g, err := model.Parse("chain.tflite", m.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestLoweringPanicIsAnError: a lowering that panics on some input (a bug)
// is reported as an internal error naming the operator, not a crash.
func TestLoweringPanicIsAnError(t *testing.T) {
	code := model.OpHashtableLookup
	if _, taken := lowerings[code]; taken {
		t.Skipf("%s has a lowering now; pick another code", code)
	}
	lowerings[code] = registration{lower: func(c *opCtx) error { panic("index out of range [3] with length 3") }}
	defer delete(lowerings, code)
	g := chainGraph(t, [3]model.OpCode{model.OpRelu, code, model.OpRelu})
	_, err := Lower(g, make([]bool, 3), Kernels{})
	want := `unsupported model feature: 1 problem(s): internal error lowering operator 1 (HASHTABLE_LOOKUP): index out of range [3] with length 3`
	if err == nil || err.Error() != want || !errors.Is(err, ErrUnsupported) {
		t.Fatalf("error\n got: %v\nwant: %s", err, want)
	}
}

// TestAssembleBuffers checks the buffers of a three-operator chain: one per
// tensor (ReLU of float32 runs in place, so a, b and c share x's buffer
// unless NoShare), lifetimes from first to last use.
func TestAssembleBuffers(t *testing.T) {
	g := chainGraph(t, [3]model.OpCode{model.OpRelu, model.OpRelu, model.OpRelu})
	frags, err := Lower(g, make([]bool, 3), Kernels{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		opt   Options
		want  [][]int // tensors per buffer
		lives [][2]int
	}{
		{"shared", Options{}, [][]int{{0, 1, 2, 3}}, [][2]int{{0, 2}}},
		{"noshare", Options{NoShare: true}, [][]int{{0}, {1}, {2}, {3}}, [][2]int{{0, 0}, {0, 1}, {1, 2}, {2, 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Assemble(g, frags, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Buffers) != len(tc.want) {
				t.Fatalf("%d buffers, want %d", len(p.Buffers), len(tc.want))
			}
			for i, b := range p.Buffers {
				if len(b.Tensors) != len(tc.want[i]) {
					t.Errorf("buffer %d holds %v, want %v", i, b.Tensors, tc.want[i])
					continue
				}
				for k, x := range b.Tensors {
					if x != tc.want[i][k] {
						t.Errorf("buffer %d holds %v, want %v", i, b.Tensors, tc.want[i])
					}
				}
				if b.First != tc.lives[i][0] || b.Last != tc.lives[i][1] || b.Size != 16 {
					t.Errorf("buffer %d: ops %d-%d, %d bytes; want ops %v, 16 bytes", i, b.First, b.Last, b.Size, tc.lives[i])
				}
			}
			for _, op := range p.Ops {
				if len(op.Calls) != 1 {
					t.Errorf("op %d: %d calls", op.Index, len(op.Calls))
				}
			}
		})
	}
}
