package emit

import (
	"fmt"
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/tflm-gen/tflm-gen/internal/model"
)

// testFile emits generated_test.go for the generated package: Invoke must not
// allocate, two Models must be independent (also under -race), Reset must
// restore the initial state, and BenchmarkInvoke measures one Invoke.
func (e *emitter) testFile(macs int64) ([]byte, error) {
	g := e.g
	f := jen.NewFile(e.opt.Package)
	headerComment(f, generatedLine)

	if e.extIO() {
		e.testModelDecl(f)
	}
	if e.opt.Bind {
		// func newModel() *Model { m := new(Model); m.Bind(new(Memory)); return m }
		var args []jen.Code
		for _, m := range e.arenaMems() {
			args = append(args, jen.New(jen.Id(m.typ)))
		}
		comment(f, "newModel returns a Model bound to memory of its own.")
		f.Func().Id("newModel").Params().Op("*").Id(e.testModel()).Block(
			jen.Id("m").Op(":=").New(jen.Id(e.testModel())),
			jen.Id("m").Dot("Bind").Call(args...),
			jen.Return(jen.Id("m")),
		)
	}

	// func fillInputs(m *Model, seed uint32) { ... }
	var fill []jen.Code
	fill = append(fill, jen.Id("s").Op(":=").Lit(uint32(0x9E3779B9)).Op("+").Id("seed"))
	for k, ti := range g.Inputs {
		t := g.Tensors[ti]
		var val jen.Code
		switch t.Type {
		case model.Int8:
			val = jen.Int8().Parens(jen.Id("s"))
		case model.Uint8, model.Bool:
			val = jen.Uint8().Parens(jen.Id("s"))
		case model.Int16:
			val = jen.Int16().Parens(jen.Id("s"))
		case model.Int32:
			val = jen.Int32().Parens(jen.Int8().Parens(jen.Id("s")))
		case model.Int64:
			val = jen.Int64().Parens(jen.Int8().Parens(jen.Id("s")))
		case model.Float32:
			val = jen.Float32().Parens(jen.Int8().Parens(jen.Id("s"))).Op("/").Lit(32)
		default:
			return nil, fmt.Errorf("internal error: no test input fill for %s", t.Describe())
		}
		in := jen.Id("m").Dot("Input" + typeSuffix(t.Type)).Call(jen.Lit(k))
		if e.extIO() {
			in = jen.Id("m").Dot(fmt.Sprintf("in%d", k)).Dot("Data").Index(jen.Op(":"))
		}
		fill = append(fill, jen.For(jen.Id("i").Op(":=").Range().Add(in)).Block(
			jen.Id("s").Op("^=").Id("s").Op("<<").Lit(13),
			jen.Id("s").Op("^=").Id("s").Op(">>").Lit(17),
			jen.Id("s").Op("^=").Id("s").Op("<<").Lit(5),
			in.Clone().Index(jen.Id("i")).Op("=").Add(val),
		))
	}
	if len(g.Inputs) == 0 {
		fill = nil // a graph without inputs: nothing to fill
	}
	comment(f, "fillInputs writes a deterministic xorshift pattern into every input.")
	f.Func().Id("fillInputs").Params(jen.Id("m").Op("*").Id(e.testModel()), jen.Id("seed").Uint32()).Block(fill...)

	// func outputs(m *Model) []byte
	comment(f, "outputs copies every output's bytes.")
	f.Func().Id("outputs").Params(jen.Id("m").Op("*").Id(e.testModel())).Index().Byte().Block(
		jen.Var().Id("out").Index().Byte(),
		jen.For(jen.Id("i").Op(":=").Lit(0), jen.Id("i").Op("<").Id("NumOutputs"), jen.Id("i").Op("++")).Block(
			jen.Id("out").Op("=").Append(jen.Id("out"), jen.Id("m").Dot("Output").Call(jen.Id("i")).Op("..."))),
		jen.Return(jen.Id("out")),
	)

	comment(f, "run resets m, then invokes it twice on the pattern of seed (state carries\nover between the two, as in TensorFlow Lite Micro) and returns both outputs.")
	f.Func().Id("run").Params(jen.Id("m").Op("*").Id(e.testModel()), jen.Id("seed").Uint32()).Index().Byte().Block(
		jen.Id("m").Dot("Reset").Call(),
		jen.Id("fillInputs").Call(jen.Id("m"), jen.Id("seed")),
		jen.Id("m").Dot("Invoke").Call(),
		jen.Id("first").Op(":=").Id("outputs").Call(jen.Id("m")),
		jen.Id("fillInputs").Call(jen.Id("m"), jen.Id("seed")),
		jen.Id("m").Dot("Invoke").Call(),
		jen.Return(jen.Append(jen.Id("first"), jen.Id("outputs").Call(jen.Id("m")).Op("..."))),
	)

	comment(f, "TestInvokeDoesNotAllocate checks that Invoke makes no heap allocation.")
	f.Func().Id("TestInvokeDoesNotAllocate").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.Id("m").Op(":=").Add(e.newModel()),
		jen.Id("fillInputs").Call(jen.Id("m"), jen.Lit(1)),
		jen.If(jen.Id("n").Op(":=").Qual("testing", "AllocsPerRun").Call(jen.Lit(5), jen.Id("m").Dot("Invoke")), jen.Id("n").Op("!=").Lit(0)).Block(
			jen.Id("t").Dot("Fatalf").Call(jen.Lit("Invoke allocates %v times per run"), jen.Id("n"))),
	)

	comment(f, "TestModelsAreIndependent runs two Models at the same time (run it with\n-race) and checks each gives what one Model alone gives; a fresh Model and a\nReset one must agree.")
	f.Func().Id("TestModelsAreIndependent").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.Id("want").Op(":=").Index(jen.Lit(2)).Index().Byte().Values(
			jen.Id("run").Call(e.newModel(), jen.Lit(1)),
			jen.Id("run").Call(e.newModel(), jen.Lit(2)),
		),
		jen.Var().Id("got").Index(jen.Lit(2)).Index().Byte(),
		jen.Var().Id("wg").Qual("sync", "WaitGroup"),
		// wg.Add and Done, not wg.Go: the tests build under TinyGo too.
		jen.For(jen.Id("k").Op(":=").Range().Id("got")).Block(
			jen.Id("wg").Dot("Add").Call(jen.Lit(1)),
			jen.Go().Func().Params().Block(
				jen.Defer().Id("wg").Dot("Done").Call(),
				jen.Id("m").Op(":=").Add(e.newModel()),
				jen.Id("run").Call(jen.Id("m"), jen.Uint32().Parens(jen.Id("k").Op("+").Lit(1))),
				jen.Id("got").Index(jen.Id("k")).Op("=").Id("run").Call(jen.Id("m"), jen.Uint32().Parens(jen.Id("k").Op("+").Lit(1))),
			).Call(),
		),
		jen.Id("wg").Dot("Wait").Call(),
		jen.For(jen.Id("k").Op(":=").Range().Id("got")).Block(
			jen.If(jen.Op("!").Qual("bytes", "Equal").Call(jen.Id("got").Index(jen.Id("k")), jen.Id("want").Index(jen.Id("k")))).Block(
				jen.Id("t").Dot("Errorf").Call(jen.Lit("model %d: concurrent or reset run differs from a fresh one"), jen.Id("k"))),
		),
	)

	comment(f, "TestInvokeTraced checks that InvokeTraced computes what Invoke does, calls\nafter once per operator in order, and allocates nothing itself.")
	f.Func().Id("TestInvokeTraced").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.Id("want").Op(":=").Id("run").Call(e.newModel(), jen.Lit(3)),
		jen.Id("m").Op(":=").Add(e.newModel()),
		jen.Var().Id("ops").Index().Int(),
		jen.Id("record").Op(":=").Func().Params(jen.Id("op").Int()).Block(jen.Id("ops").Op("=").Append(jen.Id("ops"), jen.Id("op"))),
		jen.Id("fillInputs").Call(jen.Id("m"), jen.Lit(3)),
		jen.Id("m").Dot("InvokeTraced").Call(jen.Id("record")),
		jen.Id("got").Op(":=").Id("outputs").Call(jen.Id("m")),
		jen.Id("fillInputs").Call(jen.Id("m"), jen.Lit(3)),
		jen.Id("m").Dot("InvokeTraced").Call(jen.Id("record")),
		jen.Id("got").Op("=").Append(jen.Id("got"), jen.Id("outputs").Call(jen.Id("m")).Op("...")),
		jen.If(jen.Op("!").Qual("bytes", "Equal").Call(jen.Id("got"), jen.Id("want"))).Block(
			jen.Id("t").Dot("Errorf").Call(jen.Lit("InvokeTraced and Invoke give different outputs"))),
		jen.If(jen.Len(jen.Id("ops")).Op("!=").Lit(2).Op("*").Id("NumOps")).Block(
			jen.Id("t").Dot("Fatalf").Call(jen.Lit("after called %d times in two runs, want %d"), jen.Len(jen.Id("ops")), jen.Lit(2).Op("*").Id("NumOps"))),
		jen.For(jen.List(jen.Id("i"), jen.Id("op")).Op(":=").Range().Id("ops")).Block(
			jen.If(jen.Id("op").Op("!=").Id("i").Op("%").Id("NumOps").Op("||").Id("OpName").Call(jen.Id("op")).Op("==").Lit("")).Block(
				jen.Id("t").Dot("Fatalf").Call(jen.Lit("call %d: after(%d)"), jen.Id("i"), jen.Id("op")))),
		jen.Id("nop").Op(":=").Func().Params(jen.Id("op").Int()).Block(),
		jen.If(jen.Id("n").Op(":=").Qual("testing", "AllocsPerRun").Call(jen.Lit(3), jen.Func().Params().Block(jen.Id("m").Dot("InvokeTraced").Call(jen.Id("nop")))), jen.Id("n").Op("!=").Lit(0)).Block(
			jen.Id("t").Dot("Fatalf").Call(jen.Lit("InvokeTraced allocates %v times per run"), jen.Id("n"))),
	)

	e.opTablesTest(f, macs)
	e.alignmentTest(f)
	if !e.extIO() {
		e.typedViewsTest(f)
		e.indexTest(f)
	}

	// (No b.ReportMetric or b.Elapsed: TinyGo's testing lacks them.)
	comment(f, fmt.Sprintf("BenchmarkInvoke measures one Invoke; the model performs %d multiply-accumulates.", macs))
	f.Func().Id("BenchmarkInvoke").Params(jen.Id("b").Op("*").Qual("testing", "B")).Block(
		jen.Id("m").Op(":=").Add(e.newModel()),
		jen.Id("fillInputs").Call(jen.Id("m"), jen.Lit(1)),
		jen.Id("b").Dot("ReportAllocs").Call(),
		jen.For(jen.Id("b").Dot("Loop").Call()).Block(jen.Id("m").Dot("Invoke").Call()),
	)
	return render("generated_test.go", f)
}

// opTablesTest emits TestOpTables: OpName names every operator, OpMACs adds
// up to the model's multiply-accumulates, and both answer indices outside
// 0..NumOps-1 with "" and 0.
func (e *emitter) opTablesTest(f *jen.File, macs int64) {
	comment(f, fmt.Sprintf("TestOpTables checks that OpName names every operator, that OpMACs adds up\nto the model's %d multiply-accumulates, and that both answer an index\noutside 0..NumOps-1 with \"\" and 0.", macs))
	f.Func().Id("TestOpTables").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.Var().Id("total").Int64(),
		jen.For(jen.Id("op").Op(":=").Lit(0), jen.Id("op").Op("<").Id("NumOps"), jen.Id("op").Op("++")).Block(
			jen.If(jen.Id("OpName").Call(jen.Id("op")).Op("==").Lit("")).Block(
				jen.Id("t").Dot("Errorf").Call(jen.Lit("OpName(%d) is empty"), jen.Id("op"))),
			jen.Id("total").Op("+=").Id("OpMACs").Call(jen.Id("op")),
		),
		jen.If(jen.Id("total").Op("!=").Id(strconv.FormatInt(macs, 10))).Block(
			jen.Id("t").Dot("Errorf").Call(jen.Lit(fmt.Sprintf("OpMACs adds up to %%d, want %d", macs)), jen.Id("total"))),
		jen.For(jen.Id("_").Op(",").Id("op").Op(":=").Range().Index().Int().Values(jen.Lit(-1), jen.Id("NumOps"))).Block(
			jen.If(jen.Id("OpName").Call(jen.Id("op")).Op("!=").Lit("").Op("||").Id("OpMACs").Call(jen.Id("op")).Op("!=").Lit(0)).Block(
				jen.Id("t").Dot("Errorf").Call(jen.Lit("operator %d out of range: OpName %q, OpMACs %d"), jen.Id("op"), jen.Id("OpName").Call(jen.Id("op")), jen.Id("OpMACs").Call(jen.Id("op"))))),
	)
}

// alignmentTest emits TestConstantsAtAnyAlignment: every operator function
// that names read-only constants (shiftUnits) runs again, from the arena
// its operators start from, on copies of its constants that start 0 to 3
// bytes past a word boundary, and must leave the arena as the package's
// own run does. A board's linker may place a string constant at any
// address; kernels read constants through word views where aligned and
// otherwise by bytes or through shifted words.
func (e *emitter) alignmentTest(f *jen.File) {
	if len(e.shiftUnits) == 0 {
		return
	}
	param := e.mems[0].param
	comment(f, "shifted returns a copy of s whose bytes start k bytes past a word\nboundary (0 <= k < 4).")
	f.Func().Id("shifted").Params(jen.Id("s").String(), jen.Id("k").Int()).String().Block(
		jen.Id("b").Op(":=").Make(jen.Index().Byte(), jen.Len(jen.Id("s")).Op("+").Lit(8)),
		jen.Id("o").Op(":=").Parens(jen.Id("k").Op("-").Int().Parens(jen.Uintptr().Parens(jen.Qual("unsafe", "Pointer").Call(jen.Op("&").Id("b").Index(jen.Lit(0)))).Op("%").Lit(4)).Op("+").Lit(4)).Op("%").Lit(4),
		jen.Copy(jen.Id("b").Index(jen.Id("o").Op(":")), jen.Id("s")),
		jen.Return(jen.Qual("unsafe", "String").Call(jen.Op("&").Id("b").Index(jen.Id("o")), jen.Len(jen.Id("s")))),
	)
	var units []jen.Code
	for _, u := range e.shiftUnits {
		name := u.name + "Shifted"
		comment(f, fmt.Sprintf("%s is %s reading its constants through sh (shifted copies).", name, u.name))
		f.Func().Id(name).Params(jen.Id(param).Id("arena"), jen.Id("sh").Func().Params(jen.String()).String()).Block(u.code...)
		var skip []jen.Code
		for _, r := range u.scratch {
			skip = append(skip, jen.Values(jen.Lit(r[0]), jen.Lit(r[1])))
		}
		units = append(units, jen.Values(jen.Lit(u.name), jen.Lit(u.first), jen.Lit(u.last), jen.Id(name), jen.Index().Index(jen.Lit(2)).Int().Values(skip...)))
	}
	comment(f, "TestConstantsAtAnyAlignment runs every operator that reads read-only\n"+
		"constants again, from the arena its operators start from, on copies of\n"+
		"its constants 0 to 3 bytes past a word boundary: a board's linker places\n"+
		"string constants at any address, and the kernels read them through word\n"+
		"views where aligned and by bytes or shifted words elsewhere. The arena\n"+
		"must end as in the package's own run but for the operators' scratch, dead\n"+
		"after them. Every buffer is made once and each constant copied once per\n"+
		"offset, so that the test stays small on a board's heap.")
	f.Func().Id("TestConstantsAtAnyAlignment").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.List(jen.Id("m"), jen.Id("r")).Op(":=").List(e.newModel(), e.newModel()),
		jen.List(jen.Id("a"), jen.Id("ra")).Op(":=").List(jen.Id("m").Dot("arena").Call(), jen.Id("r").Dot("arena").Call()),
		jen.List(jen.Id("before"), jen.Id("want")).Op(":=").List(jen.Make(jen.Index().Byte(), jen.Len(jen.Id("a"))), jen.Make(jen.Index().Byte(), jen.Len(jen.Id("a")))),
		jen.For(jen.List(jen.Id("_"), jen.Id("u")).Op(":=").Range().Index().Struct(
			jen.Id("name").String(),
			jen.List(jen.Id("first"), jen.Id("last")).Int(),
			jen.Id("run").Func().Params(jen.Id("arena"), jen.Func().Params(jen.String()).String()),
			jen.Id("scratch").Index().Index(jen.Lit(2)).Int(),
		).Values(units...)).Block(
			jen.Id("m").Dot("Reset").Call(),
			jen.Id("fillInputs").Call(jen.Id("m"), jen.Lit(5)),
			jen.Copy(jen.Id("before"), jen.Id("a")),
			jen.Id("m").Dot("InvokeTraced").Call(jen.Func().Params(jen.Id("op").Int()).Block(
				jen.If(jen.Id("op").Op("==").Id("u").Dot("first").Op("-").Lit(1)).Block(jen.Copy(jen.Id("before"), jen.Id("a"))),
				jen.If(jen.Id("op").Op("==").Id("u").Dot("last")).Block(jen.Copy(jen.Id("want"), jen.Id("a"))),
			)),
			jen.For(jen.Id("k").Op(":=").Lit(0), jen.Id("k").Op("<").Lit(4), jen.Id("k").Op("++")).Block(
				jen.Id("copies").Op(":=").Map(jen.Op("*").Byte()).String().Values(),
				jen.Id("sh").Op(":=").Func().Params(jen.Id("s").String()).String().Block(
					jen.List(jen.Id("c"), jen.Id("ok")).Op(":=").Id("copies").Index(jen.Qual("unsafe", "StringData").Call(jen.Id("s"))),
					jen.If(jen.Op("!").Id("ok")).Block(
						jen.Id("c").Op("=").Id("shifted").Call(jen.Id("s"), jen.Id("k")),
						jen.Id("copies").Index(jen.Qual("unsafe", "StringData").Call(jen.Id("s"))).Op("=").Id("c"),
					),
					jen.Return(jen.Id("c")),
				),
				jen.Copy(jen.Id("ra"), jen.Id("before")),
				jen.Id("u").Dot("run").Call(jen.Id("ra"), jen.Id("sh")),
				jen.For(jen.List(jen.Id("_"), jen.Id("s")).Op(":=").Range().Id("u").Dot("scratch")).Block(
					jen.Copy(jen.Id("ra").Index(jen.Id("s").Index(jen.Lit(0)).Op(":").Id("s").Index(jen.Lit(1))), jen.Id("want").Index(jen.Id("s").Index(jen.Lit(0)).Op(":").Id("s").Index(jen.Lit(1))))),
				jen.If(jen.Op("!").Qual("bytes", "Equal").Call(jen.Id("ra"), jen.Id("want"))).Block(
					jen.Id("t").Dot("Errorf").Call(jen.Lit("%s with its constants %d bytes past a word boundary: the arena differs from the package's own run"), jen.Id("u").Dot("name"), jen.Id("k"))),
			),
		),
	)
}

// typedView is a typed accessor of the generated Model: InputInt8(k) for
// graph input k of type int8.
type typedView struct {
	kind string // "Input" or "Output"
	k    int
	dt   model.DType
}

// typedViews lists the model's typed accessors, inputs first.
func (e *emitter) typedViews() []typedView {
	var vs []typedView
	for _, io := range []struct {
		kind string
		idx  []int
	}{{"Input", e.g.Inputs}, {"Output", e.g.Outputs}} {
		for k, ti := range io.idx {
			if dt := e.g.Tensors[ti].Type; typeSuffix(dt) != "" {
				vs = append(vs, typedView{io.kind, k, dt})
			}
		}
	}
	return vs
}

// typedViewsTest emits TestTypedViews: after an Invoke, each typed input and
// output view holds the little-endian values of the raw view's bytes.
func (e *emitter) typedViewsTest(f *jen.File) {
	vs := e.typedViews()
	if len(vs) == 0 {
		return
	}
	var checks []jen.Code
	for _, v := range vs {
		name := fmt.Sprintf("%s%s(%d)", v.kind, typeSuffix(v.dt), v.k)
		typed := jen.Id("m").Dot(v.kind + typeSuffix(v.dt)).Call(jen.Lit(v.k))
		checks = append(checks, jen.Id("same").Call(jen.Lit(name), jen.Id("m").Dot(v.kind).Call(jen.Lit(v.k)), typed))
	}
	comment(f, "TestTypedViews checks that, after an Invoke, every typed input and output\nview holds the little-endian values of its raw bytes.")
	body := []jen.Code{
		jen.Id("m").Op(":=").Add(e.newModel()),
		jen.Id("fillInputs").Call(jen.Id("m"), jen.Lit(4)),
		jen.Id("m").Dot("Invoke").Call(),
		jen.Id("same").Op(":=").Func().Params(jen.Id("name").String(), jen.Id("raw").Index().Byte(), jen.Id("typed").Any()).Block(
			jen.List(jen.Id("b"), jen.Id("err")).Op(":=").Qual("encoding/binary", "Append").Call(jen.Nil(), jen.Qual("encoding/binary", "LittleEndian"), jen.Id("typed")),
			jen.If(jen.Id("err").Op("!=").Nil()).Block(jen.Id("t").Dot("Fatalf").Call(jen.Lit("%s: %v"), jen.Id("name"), jen.Id("err"))),
			jen.If(jen.Op("!").Qual("bytes", "Equal").Call(jen.Id("raw"), jen.Id("b"))).Block(
				jen.Id("t").Dot("Errorf").Call(jen.Lit("%s differs from its raw bytes"), jen.Id("name")))),
	}
	body = append(body, checks...)
	f.Func().Id("TestTypedViews").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(body...)
}

// indexTest emits TestIndexOutOfRangePanics.
func (e *emitter) indexTest(f *jen.File) {
	bad := jen.Dict{
		jen.Lit("Input"):  jen.Func().Params().Block(jen.Id("m").Dot("Input").Call(jen.Id("NumInputs"))),
		jen.Lit("Output"): jen.Func().Params().Block(jen.Id("m").Dot("Output").Call(jen.Lit(-1))),
	}
	seen := map[string]bool{}
	for _, v := range e.typedViews() {
		name := v.kind + typeSuffix(v.dt)
		if seen[name] {
			continue
		}
		seen[name] = true
		i := jen.Lit(-1)
		if v.kind == "Input" {
			i = jen.Id("NumInputs")
		}
		bad[jen.Lit(name)] = jen.Func().Params().Block(jen.Id("m").Dot(name).Call(i))
	}
	comment(f, "TestIndexOutOfRangePanics checks that a bad input or output index panics\nwith a message instead of touching memory.")
	f.Func().Id("TestIndexOutOfRangePanics").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.Var().Id("m").Id("Model"),
		jen.For(jen.List(jen.Id("name"), jen.Id("f")).Op(":=").Range().Map(jen.String()).Func().Params().Values(bad)).Block(
			jen.Func().Params().Block(
				jen.Defer().Func().Params().Block(
					jen.If(jen.Id("r").Op(":=").Recover(), jen.Id("r").Op("==").Nil()).Block(
						jen.Id("t").Dot("Errorf").Call(jen.Lit("%s with a bad index did not panic"), jen.Id("name")))).Call(),
				jen.Id("f").Call(),
			).Call(),
		),
	)

}

// newModel renders a new Model in the generated tests: new(Model), or
// newModel() (bound to memory of its own) with Bind.
func (e *emitter) newModel() *jen.Statement {
	if e.opt.Bind {
		return jen.Id("newModel").Call()
	}
	return jen.New(jen.Id(e.testModel()))
}

// testModel is the type the generated tests run: Model, or with -io
// external testModel, a Model with its inputs and outputs.
func (e *emitter) testModel() string {
	if e.extIO() {
		return "testModel"
	}
	return "Model"
}

// testModelDecl emits testModel (-io external): Model with an array for
// every input and output, and Invoke, InvokeTraced and Output over them.
func (e *emitter) testModelDecl(f *jen.File) {
	g := e.g
	fields := []jen.Code{jen.Id("Model")}
	var args []jen.Code
	var outs []jen.Code
	for k := range g.Inputs {
		fields = append(fields, jen.Id(fmt.Sprintf("in%d", k)).Id(fmt.Sprintf("Input%d", k)))
		args = append(args, jen.Op("&").Id("m").Dot(fmt.Sprintf("in%d", k)))
	}
	for k := range g.Outputs {
		fields = append(fields, jen.Id(fmt.Sprintf("out%d", k)).Id(fmt.Sprintf("Output%d", k)))
		args = append(args, jen.Op("&").Id("m").Dot(fmt.Sprintf("out%d", k)))
		outs = append(outs, jen.Case(jen.Lit(k)).Block(jen.Return(jen.Id("m").Dot(fmt.Sprintf("out%d", k)).Dot("Bytes").Call())))
	}
	comment(f, "testModel is a Model with its inputs and outputs (-io external).")
	f.Type().Id("testModel").Struct(fields...)
	f.Func().Params(jen.Id("m").Op("*").Id("testModel")).Id("Invoke").Params().Block(
		jen.Id("m").Dot("Model").Dot("Invoke").Call(args...))
	f.Func().Params(jen.Id("m").Op("*").Id("testModel")).Id("InvokeTraced").Params(jen.Id("after").Func().Params(jen.Id("op").Int())).Block(
		jen.Id("m").Dot("Model").Dot("InvokeTraced").Call(append(args, jen.Id("after"))...))
	f.Func().Params(jen.Id("m").Op("*").Id("testModel")).Id("Output").Params(jen.Id("i").Int()).Index().Byte().Block(
		jen.Switch(jen.Id("i")).Block(outs...),
		jen.Panic(jen.Lit("output index out of range")))
}
