package kernelsig

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"
)

// planExports lists the exported top-level names of a Go file.
func planExports(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.IsExported() {
				names[d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							names[n.Name] = true
						}
					}
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						names[s.Name.Name] = true
					}
				}
			}
		}
	}
	return names
}

// TestPlanCovered: every name kernels/plan.go exports (the generator's
// planning API of the kernels) has its counterpart here, so that the
// generator never needs to import package kernels for it.
func TestPlanCovered(t *testing.T) {
	kp := planExports(t, filepath.Join("..", "..", "kernels", "plan.go"))
	mine := planExports(t, "plan.go")
	if len(kp) < 20 {
		t.Fatalf("kernels/plan.go exports %d names: not the file this test expects", len(kp))
	}
	// Names table.go takes for kernel functions and structs.
	renamed := map[string]string{"ConvPWScratch": "ScratchConvPW", "ConvGatherScratch": "ScratchConvGather",
		"ConvDSPScratch": "ScratchConvDSP", "ConvDSPWScratch": "ScratchConvDSPW", "DWGeom": "DWGeometry", "Dw3x3BlockWidth": "BlockWidthDw3x3"}
	for n := range kp {
		if r, ok := renamed[n]; ok {
			n = r
		}
		if !mine[n] {
			t.Errorf("kernels/plan.go exports %s, which gen/kernelsig/plan.go does not", n)
		}
	}
}
