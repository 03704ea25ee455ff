package gen

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"sort"
	"strings"

	"github.com/tflm-gen/tflm-gen/kernels"
)

// kernelFile is one source file of package kernels.
type kernelFile struct {
	name  string
	src   []byte
	decls []string        // top-level names declared in the file
	refs  map[string]bool // identifiers used in the file
}

// loadKernels parses the kernel sources embedded in package kernels.
func loadKernels() ([]*kernelFile, error) {
	names, err := fs.Glob(kernels.Sources, "*.go")
	if err != nil {
		return nil, err
	}
	var out []*kernelFile
	fset := token.NewFileSet()
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") || n == "embed.go" || n == "doc.go" {
			continue
		}
		src, err := fs.ReadFile(kernels.Sources, n)
		if err != nil {
			return nil, err
		}
		af, err := parser.ParseFile(fset, n, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("kernel source %s: %w", n, err)
		}
		kf := &kernelFile{name: n, src: src, refs: map[string]bool{}}
		for _, d := range af.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					kf.decls = append(kf.decls, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						kf.decls = append(kf.decls, s.Name.Name)
					case *ast.ValueSpec:
						for _, id := range s.Names {
							kf.decls = append(kf.decls, id.Name)
						}
					}
				}
			}
		}
		ast.Inspect(af, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				kf.refs[id.Name] = true
			}
			return true
		})
		out = append(out, kf)
	}
	return out, nil
}

// kernelFiles returns the kernel files that declare the given names and
// every file they depend on, with the package clause set to pkg and the
// generated-code header prepended. Files are named kernel_<name>.go.
func kernelFiles(need []string, pkg, hdr string) (map[string][]byte, error) {
	files, err := loadKernels()
	if err != nil {
		return nil, err
	}
	owner := map[string]*kernelFile{}
	for _, f := range files {
		for _, d := range f.decls {
			owner[d] = f
		}
	}
	chosen := map[*kernelFile]bool{}
	var queue []*kernelFile
	for _, n := range need {
		f, ok := owner[n]
		if !ok {
			return nil, fmt.Errorf("internal error: no kernel declares %q", n)
		}
		if !chosen[f] {
			chosen[f] = true
			queue = append(queue, f)
		}
	}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		refs := make([]string, 0, len(f.refs))
		for r := range f.refs {
			refs = append(refs, r)
		}
		sort.Strings(refs)
		for _, r := range refs {
			if g, ok := owner[r]; ok && !chosen[g] {
				chosen[g] = true
				queue = append(queue, g)
			}
		}
	}
	out := map[string][]byte{}
	for f := range chosen {
		src, err := retarget(f.src, pkg, hdr)
		if err != nil {
			return nil, fmt.Errorf("kernel source %s: %w", f.name, err)
		}
		name := "kernel_" + f.name
		if out[name], err = formatSource(name, src); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// retarget replaces the package clause (and anything before it) with the
// header comment and "package pkg".
func retarget(src []byte, pkg, hdr string) ([]byte, error) {
	const clause = "\npackage kernels\n"
	i := bytes.Index(append([]byte("\n"), src...), []byte(clause))
	if i < 0 {
		return nil, fmt.Errorf("no %q clause", strings.TrimSpace(clause))
	}
	rest := src[i+len(clause)-1:]
	var b bytes.Buffer
	for _, l := range strings.Split(hdr, "\n") {
		b.WriteString("// " + l + "\n")
	}
	b.WriteString("\npackage " + pkg + "\n")
	b.Write(rest)
	return b.Bytes(), nil
}
