package emit

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/tflm-gen/tflm-gen/kernels"
)

// kernelDecl is one top-level declaration of package kernels: a function, a
// type with its methods, or a const/var group.
type kernelDecl struct {
	file    string
	order   int      // position in the file
	names   []string // names it declares
	src     []byte   // its source, doc comment included
	refs    []string // identifiers it uses, sorted
	imports []string // import paths it uses
}

// kernelSource is the parsed kernel package.
type kernelSource struct {
	decls []*kernelDecl
	owner map[string]*kernelDecl // declared name -> declaration (the host build's)
	// twins are the declarations of the same names in files that the
	// host build excludes (a target's variant, e.g. dsp_arm.go for
	// TinyGo on Cortex-M): they travel with the declaration they twin.
	twins map[*kernelDecl][]*kernelDecl
	// constraint is the //go:build line of each file that has one.
	constraint map[string]string
	// methods are the methods of each type, by the type's name: a method
	// travels with its type when some kept declaration, or the generated
	// code, names it.
	methods map[string][]*kernelDecl
}

// kernelSources is loadKernels run once per process: the embedded sources
// never change, and parsing them took most of a small model's generation
// time. The result is read only.
var kernelSources = sync.OnceValues(loadKernels)

// loadKernels parses the kernel sources embedded in package kernels.
func loadKernels() (*kernelSource, error) {
	names, err := fs.Glob(kernels.Sources, "*.go")
	if err != nil {
		return nil, err
	}
	ks := &kernelSource{owner: map[string]*kernelDecl{}, twins: map[*kernelDecl][]*kernelDecl{}, constraint: map[string]string{},
		methods: map[string][]*kernelDecl{}}
	type pending struct {
		d    *kernelDecl
		node ast.Node
	}
	var all []pending
	fset := token.NewFileSet()
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") || n == "embed.go" || n == "doc.go" {
			continue
		}
		src, err := fs.ReadFile(kernels.Sources, n)
		if err != nil {
			return nil, err
		}
		af, err := parser.ParseFile(fset, n, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("kernel source %s: %w", n, err)
		}
		if c := buildConstraint(af); c != "" {
			ks.constraint[n] = c
		}
		imports := map[string]string{} // local name -> path
		for _, im := range af.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			local := p[strings.LastIndex(p, "/")+1:]
			if im.Name != nil {
				local = im.Name.Name
			}
			imports[local] = p
		}
		tf := fset.File(af.Pos())
		text := func(from, to token.Pos) []byte { return src[tf.Offset(from):tf.Offset(to)] }
		for i, d := range af.Decls {
			kd := &kernelDecl{file: n, order: i}
			start := d.Pos()
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Doc != nil {
					start = d.Doc.Pos()
				}
				if d.Recv != nil {
					// A method travels with its receiver type
					// (ks.methods) when it is named.
					kd.names = []string{"." + d.Name.Name}
				} else {
					kd.names = []string{d.Name.Name}
				}
			case *ast.GenDecl:
				if d.Tok == token.IMPORT {
					continue
				}
				if d.Doc != nil {
					start = d.Doc.Pos()
				}
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						kd.names = append(kd.names, s.Name.Name)
					case *ast.ValueSpec:
						for _, id := range s.Names {
							kd.names = append(kd.names, id.Name)
						}
					}
				}
			}
			kd.src = dropStyleDirectives(text(start, d.End()))
			refs := map[string]bool{}
			usedImports := map[string]bool{}
			ast.Inspect(d, func(x ast.Node) bool {
				switch x := x.(type) {
				case *ast.SelectorExpr:
					if id, ok := x.X.(*ast.Ident); ok {
						if p, ok := imports[id.Name]; ok {
							usedImports[p] = true
						}
					}
				case *ast.Ident:
					refs[x.Name] = true
				}
				return true
			})
			for r := range refs {
				kd.refs = append(kd.refs, r)
			}
			sort.Strings(kd.refs)
			for p := range usedImports {
				kd.imports = append(kd.imports, p)
			}
			sort.Strings(kd.imports)
			all = append(all, pending{kd, d})
			ks.decls = append(ks.decls, kd)
		}
	}
	// The host build's declarations own the names; a variant file's
	// declaration of a name is its twin.
	hostBuild := func(file string) bool {
		c := ks.constraint[file]
		if c == "" {
			return true
		}
		x, err := constraint.Parse(c)
		return err == nil && x.Eval(func(tag string) bool { return tag == "gc" || tag == runtime.GOOS || tag == runtime.GOARCH })
	}
	for _, p := range all {
		if !hostBuild(p.d.file) {
			continue
		}
		for _, n := range p.d.names {
			if prev, dup := ks.owner[n]; dup && !strings.HasPrefix(n, ".") {
				return nil, fmt.Errorf("kernel sources: %s declared in %s and %s", n, prev.file, p.d.file)
			}
			ks.owner[n] = p.d
		}
	}
	for _, p := range all {
		if hostBuild(p.d.file) {
			continue
		}
		for _, n := range p.d.names {
			if o, ok := ks.owner[n]; ok {
				ks.twins[o] = append(ks.twins[o], p.d)
				continue
			}
			// Declared in the variant file only (a helper of its
			// twins): owned there.
			ks.owner[n] = p.d
		}
	}
	// A type's methods, the host build's, travel with it when named.
	for _, p := range all {
		if fd, ok := p.node.(*ast.FuncDecl); ok && fd.Recv != nil && hostBuild(p.d.file) {
			rt := fd.Recv.List[0].Type
			if st, ok := rt.(*ast.StarExpr); ok {
				rt = st.X
			}
			if id, ok := rt.(*ast.Ident); ok {
				ks.methods[id.Name] = append(ks.methods[id.Name], p.d)
			}
		}
	}
	return ks, nil
}

// identsOf returns the identifiers Go sources use (every source must
// parse): the kernel methods the generated code calls are among them.
func identsOf(srcs ...[]byte) (map[string]bool, error) {
	out := map[string]bool{}
	fset := token.NewFileSet()
	for _, src := range srcs {
		f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("internal error: generated source does not parse: %w", err)
		}
		ast.Inspect(f, func(x ast.Node) bool {
			if id, ok := x.(*ast.Ident); ok {
				out[id.Name] = true
			}
			return true
		})
	}
	return out, nil
}

// dropStyleDirectives removes the staticcheck directives that silence
// only simplification and style checks (S1xxx, ST1xxx) from a kernel
// declaration. staticcheck does not run those checks on generated files,
// so in a generated package such a directive matches nothing and is itself
// reported as unused.
func dropStyleDirectives(src []byte) []byte {
	lines := bytes.SplitAfter(src, []byte("\n"))
	out := make([]byte, 0, len(src))
	for _, l := range lines {
		if f := strings.Fields(string(l)); len(f) >= 2 && f[0] == "//lint:ignore" && styleChecks(f[1]) {
			continue
		}
		out = append(out, l...)
	}
	return out
}

// styleChecks reports whether every check in a directive's comma-separated
// list is a simplification or style check.
func styleChecks(list string) bool {
	for _, c := range strings.Split(list, ",") {
		if !strings.HasPrefix(c, "S1") && !strings.HasPrefix(c, "ST1") {
			return false
		}
	}
	return true
}

// The copied kernel code goes into files of fixed names, all of them in
// every package whatever the model: kernelsFile holds the declarations of
// the kernel sources without a build constraint, and each build constraint
// of the kernel sources has one file of its own (variantFiles), holding the
// declarations of the files with that constraint, or only its package
// clause. A model change then never adds or removes a file: go generate,
// which lists a package's files before running the generators, never meets
// a file that a run of tflm-gen removed, and a diff stays in the files
// whose code changed.
const kernelsFile = "kernels.go"

// variantFiles names the generated file of each build constraint line of
// the kernel sources (TestVariantFilesCoverKernelSources checks that every
// constrained kernel source has one): the Thumb-2 DSP loops for TinyGo on
// a Cortex-M4/M7 (kernels/dsp_arm.go) and their Go twins for every other
// build (kernels/dsp_go.go); gc for ARMv6 and later on Linux, which loads
// words from any address (kernels/f32words_armv6.go), and every other
// build.
var variantFiles = map[string]string{
	"//go:build tinygo && cortexm && !nodsp":  "kernels_cortexm.go",
	"//go:build !tinygo || !cortexm || nodsp": "kernels_other.go",
	"//go:build !tinygo && linux && arm.6":    "kernels_armv6.go",
	"//go:build tinygo || !linux || !arm.6":   "kernels_notarmv6.go",
}

// KernelFileNames lists the files of copied kernel code every generated
// package has, sorted.
func KernelFileNames() []string {
	names := []string{kernelsFile}
	for _, n := range variantFiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// kernelFiles returns the kernel code a model needs: the declarations named
// in need and everything they use, nothing else, in the files of
// KernelFileNames (each of them, even when it holds no declaration).
// Declarations keep their order and comments, grouped by the kernel source
// file they come from (a "// kernels/<file>" line before each group); the
// package clause becomes pkg and each file starts with the generated-code
// header hdr. The functions in called, which the generated code calls, are
// marked //go:noinline: each then keeps a frame of its own, whose stack use
// is the kernel's whatever the model (the generator's stack figure adds
// them up).
func kernelFiles(need []string, uses map[string]bool, called map[string]bool, pkg, hdr string) (map[string][]byte, error) {
	ks, err := kernelSources()
	if err != nil {
		return nil, err
	}
	keep := map[*kernelDecl]bool{}
	var queue []*kernelDecl
	add := func(d *kernelDecl) {
		if !keep[d] {
			keep[d] = true
			queue = append(queue, d)
		}
	}
	for _, n := range need {
		d, ok := ks.owner[n]
		if !ok {
			return nil, fmt.Errorf("internal error: no kernel declares %q", n)
		}
		add(d)
	}
	// named holds the identifiers the generated code and the kept
	// declarations use: a kept type's method is kept when it is named.
	named := maps.Clone(uses)
	if named == nil {
		named = map[string]bool{}
	}
	for len(queue) > 0 {
		for len(queue) > 0 {
			d := queue[0]
			queue = queue[1:]
			for _, t := range ks.twins[d] {
				add(t)
			}
			for _, r := range d.refs {
				named[r] = true
				if o, ok := ks.owner[r]; ok {
					add(o)
				}
			}
		}
		for typ, ms := range ks.methods {
			if td, ok := ks.owner[typ]; !ok || !keep[td] {
				continue
			}
			for _, m := range ms {
				if named[strings.TrimPrefix(m.names[0], ".")] {
					add(m)
				}
			}
		}
	}
	// Output file -> its declarations; every file is written.
	byOut := map[string][]*kernelDecl{kernelsFile: nil}
	constraintOf := map[string]string{kernelsFile: ""}
	for c, n := range variantFiles {
		byOut[n], constraintOf[n] = nil, c
	}
	for d := range keep {
		out, err := ks.outFile(d.file)
		if err != nil {
			return nil, err
		}
		byOut[out] = append(byOut[out], d)
	}
	out := map[string][]byte{}
	for name, ds := range byOut {
		sort.Slice(ds, func(i, j int) bool {
			if ds[i].file != ds[j].file {
				return ds[i].file < ds[j].file
			}
			return ds[i].order < ds[j].order
		})
		// import paths, by the name the code uses (the last element).
		imports := map[string]string{}
		for _, d := range ds {
			for _, p := range d.imports {
				local := p[strings.LastIndex(p, "/")+1:]
				if q, dup := imports[local]; dup && q != p {
					return nil, fmt.Errorf("internal error: kernel sources import %q and %q, both as %s, into %s", q, p, local, name)
				}
				imports[local] = p
			}
		}
		var b bytes.Buffer
		for _, l := range strings.Split(hdr, "\n") {
			b.WriteString("// " + l + "\n")
		}
		if c := constraintOf[name]; c != "" {
			b.WriteString("\n" + c + "\n")
		}
		b.WriteString("\npackage " + pkg + "\n")
		if len(imports) > 0 {
			var paths []string
			for _, p := range imports {
				paths = append(paths, strconv.Quote(p))
			}
			sort.Strings(paths)
			b.WriteString("\nimport (\n\t" + strings.Join(paths, "\n\t") + "\n)\n")
		}
		for i, d := range ds {
			if i == 0 || d.file != ds[i-1].file {
				// A line of its own, apart from any doc comment.
				b.WriteString("\n// Copied from kernels/" + d.file + ".\n")
			}
			b.WriteString("\n")
			if len(d.names) == 1 && called[d.names[0]] {
				b.Write(noinline(d.src))
			} else {
				b.Write(d.src)
			}
			b.WriteString("\n")
		}
		if out[name], err = formatSource(name, b.Bytes()); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// outFile returns the generated file that takes the declarations of kernel
// source file: kernelsFile, or the variant file of its build constraint.
func (ks *kernelSource) outFile(file string) (string, error) {
	c := ks.constraint[file]
	if c == "" {
		return kernelsFile, nil
	}
	if n, ok := variantFiles[c]; ok {
		return n, nil
	}
	return "", fmt.Errorf("internal error: kernel source %s has the build constraint %q, which has no generated file (gen/emit/kernelsrc.go, variantFiles)", file, c)
}

// buildConstraint returns a file's //go:build line, "" when it has none.
func buildConstraint(f *ast.File) string {
	for _, cg := range f.Comments {
		if cg.Pos() > f.Package {
			break
		}
		for _, c := range cg.List {
			if constraint.IsGoBuild(c.Text) {
				return c.Text
			}
		}
	}
	return ""
}

// noinline adds a //go:noinline directive to a function declaration's
// source (its doc comment kept), unless it has one.
func noinline(src []byte) []byte {
	if bytes.Contains(src, []byte("//go:noinline\n")) {
		return src
	}
	i := bytes.Index(src, []byte("\nfunc "))
	if bytes.HasPrefix(src, []byte("func ")) {
		i = -1
	} else if i < 0 {
		return src // not a function
	}
	out := append([]byte(nil), src[:i+1]...)
	if i >= 0 {
		out = append(out, "//\n"...)
	}
	out = append(out, "//go:noinline\n"...)
	return append(out, src[i+1:]...)
}
