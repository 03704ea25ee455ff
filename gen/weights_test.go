package gen

import (
	"bytes"
	"go/ast"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"math/rand/v2"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// TestLargeConstantInParts: a constant tensor over 1.5 MB is written as a
// sum of parts (one "+" chain of 2.4 MB would exceed go/parser's nesting
// limit), and the constant's value, as go/types evaluates it, is exactly
// the tensor's bytes.
func TestLargeConstantInParts(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks a 10 MB file")
	}
	const rows, cols = 700, 1024 // 2,867,200 bytes of float32 weights
	r := rand.New(rand.NewPCG(1, 2))
	w := make([]float32, rows*cols)
	for i := range w {
		w[i] = float32(r.NormFloat64())
	}
	m := builder.New("large")
	x := m.Tensor("x", model.Float32, []int{1, cols}, nil)
	wt := m.ConstF32("w", []int{rows, cols}, w)
	y := m.Tensor("y", model.Float32, []int{1, rows}, nil)
	m.Op(model.OpFullyConnected, []int{x, wt, -1}, []int{y}, nil)
	m.IO([]int{x}, []int{y})
	data := m.Bytes()
	res, err := Generate("large.tflite", data, Options{Package: "large"})
	if err != nil {
		t.Fatal(err)
	}
	// The weights as the lowering laid them out (or as stored).
	want := res.Program.Graph.Tensors[wt].Data
	for _, c := range res.Program.Consts {
		if len(c.Data) == len(want) {
			want = c.Data
		}
	}
	src := res.Files["weights.go"]
	if !bytes.Contains(src, []byte("Part1 =")) {
		t.Fatal("weights.go has no parts")
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "weights.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := (&types.Config{Importer: importer.Default()}).Check("large", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, name := range pkg.Scope().Names() {
		c, ok := pkg.Scope().Lookup(name).(*types.Const)
		if !ok || len(constant.StringVal(c.Val())) != len(want) {
			continue
		}
		found = true
		if constant.StringVal(c.Val()) != string(want) {
			t.Errorf("%s differs from the tensor's bytes", name)
		}
	}
	if !found {
		t.Errorf("no constant of %d bytes", len(want))
	}
}
