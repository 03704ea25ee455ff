package gen

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/run"
	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"
	"github.com/tflm-gen/tflm-gen/internal/devtools/oracle"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// opsBuildCase is one single-operator model for TestResizeGatherShapeBuild.
type opsBuildCase struct {
	name   string
	model  []byte
	inputs [][]string // values for TFLM (CSV)
	raw    [][]byte   // the same, as tensor bytes
	// bad holds inputs with out-of-range indices (nil: none); the built
	// package must give the in-process result (indices clamped).
	bad [][]byte
}

func opsI32(v ...int32) ([]string, []byte) {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	return oracle.Ints(v), b
}

func opsI8(n int, seed int) ([]string, []byte) {
	v := make([]int8, n)
	for i := range v {
		v[i] = int8((i*37 + seed*11) % 256)
	}
	b := make([]byte, n)
	for i, x := range v {
		b[i] = byte(x)
	}
	return oracle.Ints(v), b
}

func opsF32(n int) ([]string, []byte) {
	v := make([]float32, n)
	var b []byte
	for i := range v {
		v[i] = float32(i)*0.37 - 3.1
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v[i]))
	}
	return oracle.Floats(v), b
}

// opsBuildCases are one model per operator of resize.go, gather.go and
// shapeof.go, using constant tables and indices where the kernels have a
// read-only-data path.
func opsBuildCases() []opsBuildCase {
	var cases []opsBuildCase
	add := func(name string, m *builder.Model, inputs [][]string, raw [][]byte, bad [][]byte) {
		cases = append(cases, opsBuildCase{name, m.Bytes(), inputs, raw, bad})
	}
	{
		m := builder.New("resize nearest")
		in := m.Tensor("in", model.Int8, []int{1, 3, 4, 2}, builder.PerTensor(0.5, -128))
		size := m.ConstI32("size", []int{2}, nil, []int32{5, 7})
		out := m.Tensor("out", model.Int8, []int{1, 5, 7, 2}, builder.PerTensor(0.5, -128))
		m.Op(model.OpResizeNearestNeighbor, []int{in, size}, []int{out}, &builder.Options{Type: model.UnionResizeNearestNeighborOptions, Fields: []builder.Field{builder.Bool(model.ResizeNearestNeighborOptionsHalfPixelCenters, true)}})
		m.IO([]int{in}, []int{out})
		s, b := opsI8(24, 1)
		add("resize_nearest", m, [][]string{s}, [][]byte{b}, nil)
	}
	{
		m := builder.New("resize bilinear")
		in := m.Tensor("in", model.Float32, []int{2, 3, 2, 3}, nil)
		size := m.ConstI32("size", []int{2}, nil, []int32{4, 5})
		out := m.Tensor("out", model.Float32, []int{2, 4, 5, 3}, nil)
		m.Op(model.OpResizeBilinear, []int{in, size}, []int{out}, &builder.Options{Type: model.UnionResizeBilinearOptions, Fields: []builder.Field{builder.Bool(model.ResizeBilinearOptionsAlignCorners, true)}})
		m.IO([]int{in}, []int{out})
		s, b := opsF32(36)
		add("resize_bilinear", m, [][]string{s}, [][]byte{b}, nil)
	}
	{
		m := builder.New("gather")
		_, tb := opsI8(2*4*3, 2)
		params := m.Const("params", model.Int8, []int{2, 4, 3}, builder.PerTensor(0.1, 5), tb)
		pos := m.Tensor("pos", model.Int32, []int{2, 3}, nil)
		out := m.Tensor("out", model.Int8, []int{2, 3, 3}, builder.PerTensor(0.1, 5))
		m.Op(model.OpGather, []int{params, pos}, []int{out}, &builder.Options{Type: model.UnionGatherOptions, Fields: []builder.Field{builder.Int(model.GatherOptionsAxis, 1), builder.Int(model.GatherOptionsBatchDims, 1)}})
		m.IO([]int{pos}, []int{out})
		s, b := opsI32(3, 0, 2, 1, 1, 0)
		_, bad := opsI32(-1, 4, math.MaxInt32, math.MinInt32, 7, 0)
		add("gather", m, [][]string{s}, [][]byte{b}, [][]byte{bad})
	}
	{
		m := builder.New("gather_nd")
		params := m.Tensor("params", model.Float32, []int{3, 2, 4}, nil)
		idx := m.ConstI32("idx", []int{3, 2}, nil, []int32{2, 1, 0, 0, 1, 1})
		out := m.Tensor("out", model.Float32, []int{3, 4}, nil)
		m.Op(model.OpGatherNd, []int{params, idx}, []int{out}, nil)
		m.IO([]int{params}, []int{out})
		s, b := opsF32(24)
		add("gather_nd", m, [][]string{s}, [][]byte{b}, nil)
	}
	{
		m := builder.New("gather_nd run-time indices")
		params := m.Tensor("params", model.Int8, []int{3, 4}, nil)
		idx := m.Tensor("idx", model.Int32, []int{2, 2}, nil)
		out := m.Tensor("out", model.Int8, []int{2}, nil)
		m.Op(model.OpGatherNd, []int{params, idx}, []int{out}, nil)
		m.IO([]int{params, idx}, []int{out})
		s, b := opsI8(12, 3)
		si, bi := opsI32(2, 3, 0, 1)
		_, bad := opsI32(5, -2, math.MinInt32, 9)
		add("gather_nd_runtime", m, [][]string{s, si}, [][]byte{b, bi}, [][]byte{b, bad})
	}
	{
		m := builder.New("embedding lookup")
		ids := m.Tensor("ids", model.Int32, []int{4}, nil)
		_, tb := opsI8(5*6, 4)
		table := m.Const("table", model.Int8, []int{5, 6}, builder.PerTensor(0.03125, 0), tb)
		out := m.Tensor("out", model.Float32, []int{4, 6}, nil)
		m.Op(model.OpEmbeddingLookup, []int{ids, table}, []int{out}, nil)
		m.IO([]int{ids}, []int{out})
		s, b := opsI32(4, 0, 2, 2)
		_, bad := opsI32(5, -1, math.MaxInt32, 3)
		add("embedding_lookup", m, [][]string{s}, [][]byte{b}, [][]byte{bad})
	}
	{
		m := builder.New("shape")
		in := m.Tensor("in", model.Int8, []int{2, 3, 5}, builder.PerTensor(1, 0))
		out := m.Tensor("out", model.Int32, []int{3}, nil)
		m.Op(model.OpShape, []int{in}, []int{out}, nil)
		m.IO([]int{in}, []int{out})
		s, b := opsI8(30, 5)
		add("shape", m, [][]string{s}, [][]byte{b}, nil)
	}
	return cases
}

// opsMatchTFLM compares output bytes of type dt with TFLM's printed
// values: integers exactly, float32 by bits.
func opsMatchTFLM(dt model.DType, b []byte, tflm []string) error {
	if dt == model.Float32 {
		w, err := oracle.ParseFloats(tflm)
		if err != nil {
			return err
		}
		if 4*len(w) != len(b) {
			return fmt.Errorf("%d values, TFLM %d", len(b)/4, len(w))
		}
		for i, x := range w {
			if g := binary.LittleEndian.Uint32(b[4*i:]); g != math.Float32bits(x) {
				return fmt.Errorf("element %d: %v, TFLM %v", i, math.Float32frombits(g), x)
			}
		}
		return nil
	}
	w, err := oracle.ParseInts(tflm)
	if err != nil {
		return err
	}
	size := dt.Size()
	if size*len(w) != len(b) {
		return fmt.Errorf("%d values, TFLM %d", len(b)/size, len(w))
	}
	for i, x := range w {
		g := int64(int8(b[i]))
		if dt == model.Int32 {
			g = int64(int32(binary.LittleEndian.Uint32(b[4*i:])))
		}
		if g != x {
			return fmt.Errorf("element %d: %d, TFLM %d", i, g, x)
		}
	}
	return nil
}

// TestResizeGatherShapeBuild generates one package per operator of
// resize.go, gather.go and shapeof.go, builds them all with one go build,
// runs them, and compares with TFLM and with the in-process run; the
// gather-family packages also run out-of-range indices, which must give
// the in-process (clamped) result without faulting. Each package passes the
// TinyGo-subset checker.
func TestResizeGatherShapeBuild(t *testing.T) {
	o := oracle.New(t)
	cases := opsBuildCases()
	var pkgs []e2e.Package
	var jobs []e2e.Job
	type ref struct {
		c      opsBuildCase
		g      *model.Graph
		want   []byte   // in-process output
		tflm   []string // nil: no TFLM reference for the case (skipped)
		badRef bool
	}
	var refs []ref
	for _, c := range cases {
		pkg := "ops_" + c.name
		res, err := Generate(c.name+".tflite", c.model, Options{Package: pkg, NoTests: true})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		pkgs = append(pkgs, e2e.Package{Name: pkg, Files: res.Files})
		tflm, err := o.Run(c.model, c.inputs...)
		if errors.Is(err, oracle.ErrNotRecorded) {
			t.Logf("%s: comparison with TFLM skipped: %v", c.name, err)
			tflm = [][]string{nil}
		} else if err != nil {
			t.Fatalf("%s: oracle: %v", c.name, err)
		}
		runOnce := func(inputs [][]byte) []byte {
			m, err := run.New(res.Program, res.Layout)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			for k, in := range inputs {
				copy(m.Input(k), in)
			}
			m.Invoke()
			return append([]byte(nil), m.Output(0)...)
		}
		g := res.Program.Graph
		refs = append(refs, ref{c: c, g: g, want: runOnce(c.raw), tflm: tflm[0]})
		jobs = append(jobs, e2e.Job{Package: pkg, Inputs: c.raw, Invokes: 1})
		if c.bad != nil {
			refs = append(refs, ref{c: c, g: g, want: runOnce(c.bad), badRef: true})
			jobs = append(jobs, e2e.Job{Package: pkg, Inputs: c.bad, Invokes: 1})
		}
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
	withTFLM := 0
	for i, r := range results {
		ref := refs[i]
		got := r.Outputs[0][0]
		if !bytes.Equal(got, ref.want) {
			t.Errorf("%s (out-of-range indices %v): built package and in-process run differ", ref.c.name, ref.badRef)
		}
		if ref.badRef || ref.tflm == nil {
			continue
		}
		dt := ref.g.Tensors[ref.g.Outputs[0]].Type
		if err := opsMatchTFLM(dt, got, ref.tflm); err != nil {
			t.Errorf("%s: built package against TFLM: %v", ref.c.name, err)
		}
		withTFLM++
	}
	t.Logf("%d packages built, %d runs compared, %d of them with TFLM", len(pkgs), len(results), withTFLM)
	if withTFLM == 0 {
		t.Skip("no case compared with TFLM: none has a recorded TFLM result")
	}
}
