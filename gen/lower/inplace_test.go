package lower

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// randomElementwise builds a random int8 graph of elementwise operators
// (some in-place candidates, some broadcasting or reading a tensor again
// later) over [1 4 4 3] tensors.
func randomElementwise(r *rand.Rand) []byte {
	m := builder.New("random elementwise")
	shape := []int{1, 4, 4, 3}
	q := func() *builder.Quant { return builder.PerTensor(0.02+0.01*float32(r.IntN(4)), int64(r.IntN(20)-10)) }
	in0 := m.Tensor("in0", model.Int8, shape, q())
	in1 := m.Tensor("in1", model.Int8, shape, q())
	live := []int{in0, in1}
	n := 3 + r.IntN(6)
	for k := 0; k < n; k++ {
		a := live[r.IntN(len(live))]
		out := m.Tensor(fmt.Sprintf("t%d", k), model.Int8, shape, q())
		switch r.IntN(5) {
		case 0, 1:
			b := live[r.IntN(len(live))]
			code := []model.OpCode{model.OpAdd, model.OpSub, model.OpMul}[r.IntN(3)]
			opt := uint8(11)
			if code == model.OpSub {
				opt = 28
			} else if code == model.OpMul {
				opt = 21
			}
			m.Op(code, []int{a, b}, []int{out}, &builder.Options{Type: opt})
		case 2:
			// Broadcast a [1 1 1 3] constant: not an in-place candidate
			// for the constant, but the full-shape input may be.
			c := m.ConstI8(fmt.Sprintf("c%d", k), []int{1, 1, 1, 3}, q(), []int8{int8(r.IntN(200) - 100), 5, -7})
			m.Op(model.OpAdd, []int{a, c}, []int{out}, &builder.Options{Type: model.UnionAddOptions})
		case 3:
			m.Op(model.OpRelu, []int{a}, []int{out}, nil)
		case 4:
			outL := m.Tensor(fmt.Sprintf("t%dl", k), model.Int8, shape, builder.PerTensor(1.0/256, -128))
			m.Op(model.OpLogistic, []int{a}, []int{outL}, nil)
			out = outL
		}
		live = append(live, out)
	}
	// Sum a few tensors so that several stay live across operators.
	sum := live[len(live)-1]
	for k := 0; k < 2; k++ {
		o := m.Tensor(fmt.Sprintf("sum%d", k), model.Int8, shape, q())
		m.Op(model.OpAdd, []int{sum, live[r.IntN(len(live))]}, []int{o}, &builder.Options{Type: model.UnionAddOptions})
		sum = o
	}
	m.IO([]int{in0, in1}, []int{sum})
	return m.Bytes()
}

// checkSharing verifies the plan's sharing on a graph: tensors that share
// a buffer are linked by a view or in-place operator and are live together
// only at that operator, which must be an in-place-capable operator reading
// one and writing the other with equal shapes.
func checkSharing(t *testing.T, p *program.Program) {
	t.Helper()
	g := p.Graph
	life := g.Lifetimes()
	for b, buf := range p.Buffers {
		ts := buf.Tensors
		if len(ts) < 2 {
			continue
		}
		sorted := append([]int(nil), ts...)
		sort.Slice(sorted, func(i, j int) bool { return life[sorted[i]][0] < life[sorted[j]][0] })
		for k := 1; k < len(sorted); k++ {
			x, y := sorted[k-1], sorted[k]
			if life[x][1] != life[y][0] {
				t.Errorf("buffer %d: tensors %d %v and %d %v share memory but are not handed over at one operator", b, x, life[x], y, life[y])
				continue
			}
			op := g.Ops[life[y][0]]
			reads, writes := false, false
			for _, i := range op.Inputs {
				reads = reads || i == x
			}
			for _, o := range op.Outputs {
				writes = writes || o == y
			}
			if !reads || !writes {
				t.Errorf("buffer %d: operator %d does not read t%d and write t%d", b, op.Index, x, y)
			}
			if lowerings[op.Code].mem != elementwise && op.Code != model.OpReshape && op.Code != model.OpSqueeze && op.Code != model.OpExpandDims {
				t.Errorf("buffer %d: %s shares t%d and t%d but cannot run in place", b, op.Describe(), x, y)
			}
			if g.Tensors[x].Bytes() != g.Tensors[y].Bytes() {
				t.Errorf("buffer %d: t%d and t%d differ in size", b, x, y)
			}
		}
	}
}

// TestInPlaceRandomGraphs plans random elementwise graphs, checks every
// shared buffer is a legal hand-over, and runs each model with and without
// sharing: the outputs must be identical.
func TestInPlaceRandomGraphs(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var pkgs []e2e.Package
	var jobs []e2e.Job
	pairs := 0
	for i := 0; i < 12; i++ {
		data := randomElementwise(r)
		for _, share := range []bool{true, false} {
			name := fmt.Sprintf("g%d_%v", i, share)
			res, err := testGenerate(name+".tflite", data, difftest.EmitOptions{Package: name, NoShare: !share, NoTests: true})
			if err != nil {
				t.Fatalf("graph %d: %v", i, err)
			}
			checkSharing(t, res.Program)
			if share {
				pairs += len(res.Program.InPlace)
			} else if len(res.Program.InPlace) != 0 {
				t.Errorf("graph %d: in-place pairs with NoShare", i)
			}
			pkgs = append(pkgs, e2e.Package{Name: name, Files: res.Files})
			in := make([][]byte, 2)
			for k := range in {
				in[k] = make([]byte, 48)
				for j := range in[k] {
					in[k][j] = byte(r.Uint32())
				}
			}
			if !share {
				in = jobs[len(jobs)-1].Inputs
			}
			jobs = append(jobs, e2e.Job{Package: name, Inputs: in, Invokes: 1})
		}
	}
	if pairs == 0 {
		t.Fatal("no in-place pair formed: the test exercises nothing")
	}
	if testing.Short() {
		t.Skip("skipping the build of the generated packages with -short")
	}
	mod, err := e2e.Build(t.TempDir(), pkgs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := mod.Run(jobs)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(res); i += 2 {
		if !bytes.Equal(res[i].Outputs[0][0], res[i+1].Outputs[0][0]) {
			t.Errorf("graph %d: output with in-place operators differs from output without", i/2)
		}
	}
	t.Logf("%d graphs, %d in-place pairs, outputs identical with and without sharing", len(res)/2, pairs)
}
