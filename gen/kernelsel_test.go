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

	"github.com/tflm-gen/tflm-gen/gen/emit"
)

// TestOnlyUsedKernels generates mlp_float (three operator types:
// FULLY_CONNECTED, ADD, SOFTMAX) and checks that every copied kernel
// declaration is needed: each is used by another declaration of the
// package, and no kernel source of an operator type the model lacks is
// copied (the kernel files mark each source's declarations with a
// "// Copied from kernels/<file>." line).
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
	type decl struct {
		file  string
		names []string
		refs  map[string]bool
	}
	var decls []decl
	kernelFile := map[string]bool{}
	for _, n := range emit.KernelFileNames() {
		kernelFile[n] = true
	}
	var names []string
	for n := range res.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !strings.HasSuffix(n, ".go") {
			continue
		}
		src := res.Files[n]
		f, err := parser.ParseFile(fset, n, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			dd := decl{file: n, refs: map[string]bool{}}
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					dd.names = append(dd.names, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						dd.names = append(dd.names, s.Name.Name)
					case *ast.ValueSpec:
						for _, id := range s.Names {
							dd.names = append(dd.names, id.Name)
						}
					}
				}
			}
			ast.Inspect(d, func(x ast.Node) bool {
				if id, ok := x.(*ast.Ident); ok {
					dd.refs[id.Name] = true
				}
				return true
			})
			decls = append(decls, dd)
		}
		if !kernelFile[n] {
			continue
		}
		for _, foreign := range []string{"conv", "depthwise", "lstm", "svdf", "pooling", "pad", "slice", "mean", "quantize", "activations", "argmax", "dsp"} {
			if strings.Contains(string(src), "// Copied from kernels/"+foreign) {
				t.Errorf("%s: kernels/%s* copied into a model with no such operator", n, foreign)
			}
		}
	}
	for i, d := range decls {
		if !kernelFile[d.file] || len(d.names) == 0 {
			continue
		}
		used := false
		for j, o := range decls {
			for _, name := range d.names {
				used = used || j != i && o.refs[name]
			}
		}
		if !used {
			t.Errorf("%s: %v is copied but nothing else in the package uses it", d.file, d.names)
		}
	}
	t.Logf("files: %v", names)
}
