package gen

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestOnlyUsedKernels generates mlp_float (three operator types:
// FULLY_CONNECTED, ADD, SOFTMAX) and checks that every copied kernel file
// is needed: each declares something another file of the package uses, and
// no kernel of an operator type the model lacks is present.
func TestOnlyUsedKernels(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "mlp_float.tflite"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Generate("mlp_float.tflite", data, Options{Package: "m", NoTests: true})
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	decls := map[string][]string{} // file -> top-level names
	refs := map[string]map[string]bool{}
	var names []string
	for n, src := range res.Files {
		if !strings.HasSuffix(n, ".go") {
			continue
		}
		names = append(names, n)
		f, err := parser.ParseFile(fset, n, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		refs[n] = map[string]bool{}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					decls[n] = append(decls[n], d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						decls[n] = append(decls[n], s.Name.Name)
					case *ast.ValueSpec:
						for _, id := range s.Names {
							decls[n] = append(decls[n], id.Name)
						}
					}
				}
			}
		}
		ast.Inspect(f, func(x ast.Node) bool {
			if id, ok := x.(*ast.Ident); ok {
				refs[n][id.Name] = true
			}
			return true
		})
	}
	sort.Strings(names)
	for _, n := range names {
		if !strings.HasPrefix(n, "kernel_") {
			continue
		}
		used := false
		for _, d := range decls[n] {
			for _, other := range names {
				if other != n && refs[other][d] {
					used = true
				}
			}
		}
		if !used {
			t.Errorf("%s is copied but nothing else in the package uses it", n)
		}
		for _, foreign := range []string{"conv", "depthwise", "lstm", "svdf", "pooling", "pad", "slice", "mean", "quantize", "activations", "argmax"} {
			if strings.HasPrefix(n, "kernel_"+foreign) {
				t.Errorf("%s copied into a model with no such operator", n)
			}
		}
	}
	t.Logf("files: %v", names)
}
