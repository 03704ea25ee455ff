package emit

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"maps"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/dave/jennifer/jen"

	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/gen/report"
	"github.com/tflm-gen/tflm-gen/planner"
)

// Unit is one model of a package that runs several models (MultiFiles).
type Unit struct {
	// Type is the model's exported type ("PersonDetect"), File the stem of
	// its files ("person_detect").
	Type, File string
	P          *program.Program
	// Lay places the model's buffers in the joint arena.
	Lay *layout.Layout
	// Alone is the arena the model needs on its own.
	Alone int
}

// MultiFiles renders a package in which several models run, one at a
// time, in one arena the application provides: per model <file>_model.go
// (its type, Model renamed, with Bind), <file>_weights.go,
// <file>_model_test.go and
// layout_<file>.txt and report_<file>.json; the kernels every model calls,
// once; arena.go with the package documentation, ArenaSize and Memory;
// layout.txt, the joint plan; and arena_test.go, which runs the models
// interleaved in one Memory against each alone.
func MultiFiles(units []Unit, joint *layout.Joint, opt Options) (map[string][]byte, error) {
	files := map[string][]byte{}
	needSet, called, uses := map[string]bool{}, map[string]bool{}, map[string]bool{}
	opt.Bind = true
	stack := 0
	for _, u := range units {
		e := &emitter{g: u.P.Graph, p: u.P, lay: u.Lay, opt: opt, nm: makeNames(u.P), stack: StackOf(u.P), inMulti: true}
		e.mems = memories(u.Lay)
		stack = max(stack, e.stack.Bytes)
		src := map[string][]byte{}
		var err error
		if src[u.File+"_model.go"], err = e.modelFile(); err != nil {
			return nil, fmt.Errorf("%s: %w", u.P.Graph.Name, err)
		}
		if src[u.File+"_weights.go"], err = e.weightsFile(); err != nil {
			return nil, fmt.Errorf("%s: %w", u.P.Graph.Name, err)
		}
		if !opt.NoTests {
			if src[u.File+"_model_test.go"], err = e.testFile(u.P.MACs()); err != nil {
				return nil, fmt.Errorf("%s: %w", u.P.Graph.Name, err)
			}
		}
		if err := renameModel(src, u.Type); err != nil {
			return nil, fmt.Errorf("%s: %w", u.P.Graph.Name, err)
		}
		for n, b := range src {
			files[n] = b
		}
		ids, err := identsOf(src[u.File+"_model.go"])
		if err != nil {
			return nil, err
		}
		maps.Copy(uses, ids)
		need, c := e.kernelNames()
		for _, n := range need {
			needSet[n] = true
		}
		for n := range c {
			called[n] = true
		}
		consts := ConstBytes(u.P)
		if files["layout_"+u.File+".txt"], err = report.Text(u.P, u.Lay, consts, &e.stack); err != nil {
			return nil, err
		}
		if files["report_"+u.File+".json"], err = report.Make(u.P, u.Lay, consts, &e.stack, opt.Version).JSON(); err != nil {
			return nil, err
		}
	}
	need := make([]string, 0, len(needSet))
	for n := range needSet {
		need = append(need, n)
	}
	sort.Strings(need)
	kfiles, err := kernelFiles(need, uses, called, opt.Package, generatedLine)
	if err != nil {
		return nil, err
	}
	for n, b := range kfiles {
		files[n] = b
	}
	// The memories every model binds: the arena, or the pools (each
	// model's emitter lists them alike: every pool of the joint layout).
	e0 := &emitter{lay: units[0].Lay}
	e0.mems = memories(units[0].Lay)
	mems := e0.arenaMems()
	extIO := e0.extIO()
	if files["arena.go"], err = arenaFile(units, joint, mems, stack, opt); err != nil {
		return nil, err
	}
	if !opt.NoTests {
		if files["arena_test.go"], err = arenaTestFile(units, mems, extIO, opt); err != nil {
			return nil, err
		}
	}
	files["layout.txt"] = jointText(units, joint, stack)
	return files, nil
}

// renameModel gives the top-level identifiers of one model's files a name
// of the model's own: Model becomes typ, an exported X becomes typ+X
// (NumInputs -> PersonDetectNumInputs, TestInvoke -> TestPersonDetectInvoke),
// an unexported x becomes typ's lower-case form + X (op0 ->
// personDetectOp0), so that several models live in one package. Comments
// follow (a doc comment starts with its declaration's name). ArenaSize and
// Memory, the package's, keep their names.
func renameModel(src map[string][]byte, typ string) error {
	lower := strings.ToLower(typ[:1]) + typ[1:]
	// Names declared in the model's code apply to every file; those of
	// its tests to the tests only (a comment of model.go saying "inputs
	// and outputs" is no call of the tests' outputs).
	code, tests := map[string]string{}, map[string]string{}
	fset := token.NewFileSet()
	for n, b := range src {
		f, err := parser.ParseFile(fset, n, b, parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("internal error: %s: %w", n, err)
		}
		names := code
		if strings.HasSuffix(n, "_test.go") {
			names = tests
		}
		add := func(id *ast.Ident) {
			switch name := id.Name; {
			case name == "_" || name == "ArenaSize" || name == "Memory":
			case name == "Model":
				names[name] = typ
			case strings.HasPrefix(name, "Test") || strings.HasPrefix(name, "Benchmark"):
				p := "Test"
				if strings.HasPrefix(name, "Benchmark") {
					p = "Benchmark"
				}
				names[name] = p + typ + name[len(p):]
			case unicode.IsUpper(rune(name[0])):
				names[name] = typ + name
			default:
				names[name] = lower + strings.ToUpper(name[:1]) + name[1:]
			}
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					add(d.Name)
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.ValueSpec:
						for _, id := range sp.Names {
							add(id)
						}
					case *ast.TypeSpec:
						add(sp.Name)
					}
				}
			}
		}
	}
	for k, v := range code {
		tests[k] = v
	}
	for n, b := range src {
		names := code
		if strings.HasSuffix(n, "_test.go") {
			names = tests
		}
		out := renameIdents(b, names)
		if !strings.HasSuffix(n, "_weights.go") {
			// Longer names move the columns gofmt aligns (the weights
			// file has none, and go/printer is slow on its long strings).
			var err error
			if out, err = format.Source(out); err != nil {
				return fmt.Errorf("internal error: %s after renaming: %w", n, err)
			}
		}
		src[n] = out
	}
	return nil
}

// renameIdents replaces every whole word of src that names holds, except
// in the header lines (// Code generated ..., // Model: ..., // SHA-256:
// ...), which keep their form.
func renameIdents(src []byte, names map[string]string) []byte {
	if len(names) == 0 {
		return src
	}
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, regexp.QuoteMeta(k))
	}
	sort.Strings(keys)
	re := regexp.MustCompile(`\b(` + strings.Join(keys, "|") + `)\b`)
	lines := bytes.SplitAfter(src, []byte("\n"))
	for i, l := range lines {
		if bytes.HasPrefix(l, []byte("// Model: ")) || bytes.HasPrefix(l, []byte("// SHA-256: ")) || bytes.HasPrefix(l, []byte("// Code generated ")) {
			continue
		}
		lines[i] = re.ReplaceAllFunc(l, func(m []byte) []byte { return []byte(names[string(m)]) })
	}
	return bytes.Join(lines, nil)
}

// arenaFile renders arena.go: the package documentation, ArenaSize and
// Memory, which every model's Bind takes.
func arenaFile(units []Unit, joint *layout.Joint, mems []memory, stack int, opt Options) ([]byte, error) {
	f := jen.NewFile(opt.Package)
	var hdr []string
	var list []string
	alone := 0
	for _, u := range units {
		hdr = append(hdr, fmt.Sprintf("Model: %s\nSHA-256: %s", commentText(u.P.Graph.Name), u.P.Graph.SHA256))
		list = append(list, fmt.Sprintf("%s (%s)", u.Type, commentText(u.P.Graph.Name)))
		alone += u.Alone
	}
	h := generatedLine + "\n" + strings.Join(hdr, "\n")
	if opt.Version != "" {
		h += "\ntflm-gen version: " + opt.Version
	}
	headerComment(f, h)
	packageComment(f, fmt.Sprintf("Package %s runs %d TensorFlow Lite models, compiled ahead of time by\n"+
		"tflm-gen, one at a time in one arena: %s.\n\n"+
		"Each model is a type of its own, working in memory the application\n"+
		"provides (%s): bind every model to the same memory (Bind). Their\n"+
		"activation and scratch buffers share its bytes, planned together at\n"+
		"generation time: a model uses them only during its own Invoke. Each model's\n"+
		"persistent state has bytes no other model touches, so it carries over while\n"+
		"the others run. %s\n"+
		"Models must not run at the same time.", opt.Package, len(units), strings.Join(list, ", "), typeList(mems), ioText(joint)))
	comment(f, fmt.Sprintf("ArenaSize is the working memory of all the models together in bytes, planned\n"+
		"as one: the plan is %s. Alone the models would need %d bytes\n"+
		"(each model's arena, together); layout.txt has the joint plan.\n\n"+
		"RAM: ArenaSize + stack %d bytes (TinyGo 0.40, cortex-m4, -opt=z): a call of\n"+
		"Invoke or Reset of any of the models takes at most %d bytes of stack below\n"+
		"its caller's.", joint.Plan.CertText(), alone, stack, stack))
	align := joint.Layouts[0].Align
	if len(mems) == 1 && mems[0].name == "" {
		f.Const().Id("ArenaSize").Op("=").Lit(joint.Layouts[0].ArenaSize())
	} else {
		poolSizeConsts(f, mems, joint.Layouts[0].Pools, func(layout.Pool) string { return "" })
	}
	memoryTypes(f, mems, align, func(m memory) string {
		what := "ArenaSize bytes"
		if m.name != "" {
			what = fmt.Sprintf("pool %q, %s bytes", m.name, m.size)
		}
		return fmt.Sprintf("%s is memory the application provides for every model's Bind:\n"+
			"%s and up to %d more, as the models align it to %d bytes. Put it where\n"+
			"the firmware wants it (a linker section: see the README).", m.typ, what, align-1, align)
	})
	return render("arena.go", f)
}

// typeList names the memory types of a package running several models.
func typeList(mems []memory) string {
	var out []string
	for _, m := range mems {
		out = append(out, m.typ)
	}
	return strings.Join(out, ", ")
}

// ioText says where a package's models have their inputs and outputs.
func ioText(joint *layout.Joint) string {
	for _, p := range joint.Layouts[0].Pools {
		if p.IO != "" {
			return "A model's inputs and outputs are arrays\n" +
				"the application owns and passes to its Invoke (-io external)."
		}
	}
	return "A model's inputs and outputs are views into the\n" +
		"arena: write its inputs just before its Invoke, and read its outputs before\n" +
		"another model's Invoke."
}

// arenaTestFile renders arena_test.go: the models bound to one Memory run
// interleaved (each one's two Invokes around the others') and must give
// what each gives alone.
func arenaTestFile(units []Unit, mems []memory, extIO bool, opt Options) ([]byte, error) {
	f := jen.NewFile(opt.Package)
	headerComment(f, generatedLine)
	lower := func(u Unit) string { return strings.ToLower(u.Type[:1]) + u.Type[1:] }
	var body, binds []jen.Code
	for k, m := range mems {
		body = append(body, jen.Id(fmt.Sprintf("mem%d", k)).Op(":=").New(jen.Id(m.typ)))
		binds = append(binds, jen.Id(fmt.Sprintf("mem%d", k)))
	}
	for k, u := range units {
		l := lower(u)
		typ := u.Type
		if extIO {
			typ = l + "TestModel" // the model with its inputs and outputs
		}
		body = append(body,
			jen.Id(fmt.Sprintf("want%d", k)).Op(":=").Id(l+"Run").Call(jen.Id(l+"NewModel").Call(), jen.Lit(k+1)),
			jen.Var().Id(fmt.Sprintf("m%d", k)).Id(typ),
			jen.Id(fmt.Sprintf("m%d", k)).Dot("Bind").Call(binds...),
			jen.Id(fmt.Sprintf("m%d", k)).Dot("Reset").Call(),
			jen.Var().Id(fmt.Sprintf("got%d", k)).Index().Byte(),
		)
	}
	for round := 0; round < 2; round++ {
		for k, u := range units {
			l, m := lower(u), fmt.Sprintf("m%d", k)
			body = append(body,
				jen.Id(l+"FillInputs").Call(jen.Op("&").Id(m), jen.Lit(k+1)),
				jen.Id(m).Dot("Invoke").Call(),
				jen.Id(fmt.Sprintf("got%d", k)).Op("=").Append(jen.Id(fmt.Sprintf("got%d", k)), jen.Id(l+"Outputs").Call(jen.Op("&").Id(m)).Op("...")),
			)
		}
	}
	for k, u := range units {
		body = append(body, jen.If(jen.Op("!").Qual("bytes", "Equal").Call(jen.Id(fmt.Sprintf("got%d", k)), jen.Id(fmt.Sprintf("want%d", k)))).Block(
			jen.Id("t").Dot("Errorf").Call(jen.Lit(fmt.Sprintf("%s: outputs with the other models run in between differ from its outputs alone", u.Type)))))
	}
	comment(f, "TestModelsShareTheArena binds every model to one Memory, runs them\ninterleaved (two Invokes each, the others' between them: a model's state\nmust survive them) and checks each gives what it gives alone.")
	f.Func().Id("TestModelsShareTheArena").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(body...)
	return render("arena_test.go", f)
}

// jointText renders layout.txt of a package running several models: the
// joint plan, each model's arena alone and its own layout file.
func jointText(units []Unit, joint *layout.Joint, stack int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Memory layout of %d models sharing one arena (one runs at a time)\n# Generated by tflm-gen. DO NOT EDIT.\n\n", len(units))
	alone := 0
	for _, u := range units {
		alone += u.Alone
	}
	p := joint.Plan
	fmt.Fprintf(&b, "arena        %d bytes, planned for all the models together\n", joint.Layouts[0].ArenaSize())
	fmt.Fprintf(&b, "lower bound  %d bytes (largest total of buffers live at one step of any model, each model's persistent state counted at every step)\n", p.LowerBound)
	fmt.Fprintf(&b, "plan         %s, by %s\n", p.CertText(), p.Method)
	fmt.Fprintf(&b, "alone        %d bytes: each model's own arena, together (%d saved by sharing)\n", alone, alone-p.Size)
	fmt.Fprintf(&b, "RAM          %d bytes: ArenaSize + stack %d (TinyGo 0.40, cortex-m4, -opt=z)\n", joint.Layouts[0].ArenaSize()+stack, stack)
	if l := joint.Memories; l != nil {
		named := false
		for _, pool := range l.Pools {
			switch {
			case pool.IO != "":
			case pool.Name == "":
				fmt.Fprintf(&b, "memory       arena %d bytes (each model's inputs and outputs in the application's arrays: -io external)\n", pool.Plan.Size)
			default:
				named = true
				fmt.Fprintf(&b, "pool         %s: %d of %d bytes, cost %d, %d buffers, %d bytes accessed per round of Invokes\n", pool.Name, pool.Plan.Size, pool.Size, pool.Cost, len(pool.Members), pool.Access)
			}
		}
		if named {
			fmt.Fprintf(&b, "access cost  %d for one Invoke of each model (all in the cheapest pool %d, all in the dearest %d; no assignment within the capacities costs less than %d)\n", l.Cost, l.FastCost, l.SlowCost, l.Bound)
		}
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "%-24s %-40s %10s %10s %10s  %s\n", "model", "file", "alone", "persistent", "steps", "layout")
	for k, u := range units {
		steps := len(u.P.Ops)
		fmt.Fprintf(&b, "%-24s %-40s %10d %10d %4d-%-5d  layout_%s.txt\n", u.Type, u.P.Graph.Name, u.Alone, u.P.Bytes(planner.Persistent), joint.Step[k], joint.Step[k]+steps-1, u.File)
	}
	return b.Bytes()
}
