package kernelsig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeChecker checks against a small table of its own, which stays put when
// the kernels change.
var fakeChecker = checker{
	params: func(f Func) ([]Param, bool) {
		switch f {
		case "k":
			return []Param{{"p", "*pS"}, {"in", "[]int8"}, {"w", "string"}, {"zp", "int32"},
				{"scale", "float32"}, {"neg", "bool"}, {"buf", "[]byte"}, {"acc", "myInts"}}, true
		case "v":
			return []Param{{"n", "int"}, {"xs", "...int16"}}, true
		}
		return nil, false
	},
	fields: func(s Struct) ([]Param, bool) {
		switch s {
		case "pS":
			return []Param{{"n", "int"}, {"zp", "int32"}, {"scale", "float32"},
				{"min", "bool"}, {"q", "*qS"}, {"rq", "qS"}}, true
		case "qS":
			return []Param{{"mult", "int32"}, {"sh", "uint8"}}, true
		}
		return nil, false
	},
	under: func(t string) string {
		if t == "myInts" {
			return "int64"
		}
		return t
	},
}

func typed(t string) Value { return Value{Kind: Typed, Type: t} }
func field(n string, v Value) Field {
	return Field{Name: n, Value: v}
}

var (
	uInt   = Value{Kind: UntypedInt}
	uFloat = Value{Kind: UntypedFloat}
	uBool  = Value{Kind: UntypedBool}
)

func ptr(s Struct, fs ...Field) Value { return Value{Kind: StructPtr, Struct: s, Fields: fs} }

// goodK returns a valid argument list for the fake kernel k with p replaced.
func goodK(p Value) []Value {
	return []Value{p, typed("[]int8"), typed("string"), uInt, uFloat, uBool, typed("[]uint8"), uInt}
}

func TestCheck(t *testing.T) {
	p := ptr("pS", field("n", uInt), field("zp", uInt), field("scale", uInt), field("min", uBool))
	for _, c := range []struct {
		name string
		f    Func
		args []Value
		err  string // substring of the error; "" for none
	}{
		{"good", "k", goodK(p), ""},
		{"good, fields omitted", "k", goodK(ptr("pS")), ""},
		{"typed scalars", "k", []Value{p, typed("[]int8"), typed("string"), typed("int32"),
			typed("float32"), typed("bool"), typed("[]byte"), typed("myInts")}, ""},
		{"byte is uint8", "k", goodK(ptr("pS", field("q", ptr("qS", field("sh", typed("byte")))))), ""},
		{"unknown kernel", "nope", nil, `no kernel function "nope"`},
		{"too few", "k", goodK(p)[:7], "k: 7 arguments, want 8"},
		{"too many", "k", append(goodK(p), uInt), "k: 9 arguments, want 8"},
		{"wrong type", "k", []Value{p, typed("[]int16"), typed("string"), uInt, uFloat, uBool, typed("[]byte"), uInt},
			"k: parameter in (argument 2): have []int16, want []int8"},
		{"typed int32 into float32", "k", []Value{p, typed("[]int8"), typed("string"), uInt, typed("int32"), uBool, typed("[]byte"), uInt},
			"parameter scale (argument 5): have int32, want float32"},
		{"untyped float into int32", "k", []Value{p, typed("[]int8"), typed("string"), uFloat, uFloat, uBool, typed("[]byte"), uInt},
			"parameter zp (argument 4): have untyped float constant, want int32"},
		{"untyped int into bool", "k", []Value{p, typed("[]int8"), typed("string"), uInt, uFloat, uInt, typed("[]byte"), uInt},
			"parameter neg (argument 6): have untyped int constant, want bool"},
		{"untyped bool into string", "k", []Value{p, typed("[]int8"), uBool, uInt, uFloat, uBool, typed("[]byte"), uInt},
			"parameter w (argument 3): have untyped bool constant, want string"},
		{"untyped float into named int", "k", []Value{p, typed("[]int8"), typed("string"), uInt, uFloat, uBool, typed("[]byte"), uFloat},
			"parameter acc (argument 8): have untyped float constant, want myInts"},
		{"struct into slice", "k", []Value{p, p, typed("string"), uInt, uFloat, uBool, typed("[]byte"), uInt},
			"parameter in (argument 2): have *pS, want []int8"},
		{"wrong struct", "k", goodK(ptr("qS")), "parameter p (argument 1): have *qS, want *pS"},
		{"unknown struct", "k", goodK(ptr("zS")), "have *zS (no such kernel struct), want *pS"},
		{"unknown field", "k", goodK(ptr("pS", field("pixels", uInt))), `parameter p (argument 1): pS has no field "pixels"`},
		{"duplicate field", "k", goodK(ptr("pS", field("n", uInt), field("n", uInt))), "field n of pS set twice"},
		{"untyped float into int32 field", "k", goodK(ptr("pS", field("zp", uFloat))),
			"parameter p (argument 1): field zp of pS: have untyped float constant, want int32"},
		{"nested struct", "k", goodK(ptr("pS", field("q", ptr("qS", field("mult", uInt), field("sh", uInt))))), ""},
		{"nested struct, bad field", "k", goodK(ptr("pS", field("q", ptr("qS", field("sh", uFloat))))),
			"field q of pS: field sh of qS: have untyped float constant, want uint8"},
		{"nested struct, unknown field", "k", goodK(ptr("pS", field("q", ptr("qS", field("shift", uInt))))),
			`field q of pS: qS has no field "shift"`},
		{"pointer into struct-valued field", "k", goodK(ptr("pS", field("rq", ptr("qS")))),
			"field rq of pS: have *qS, want qS"},
		{"variadic, none", "v", []Value{uInt}, ""},
		{"variadic, some", "v", []Value{uInt, uInt, typed("int16")}, ""},
		{"variadic, too few", "v", nil, "v: 0 arguments, want at least 1"},
		{"variadic, wrong type", "v", []Value{uInt, uInt, typed("int32")}, "parameter xs (argument 3): have int32, want int16"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := fakeChecker.call(c.f, c.args)
			switch {
			case c.err == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case c.err != "" && err == nil:
				t.Fatalf("no error, want %q", c.err)
			case c.err != "" && !strings.Contains(err.Error(), c.err):
				t.Fatalf("error %q, want it to contain %q", err, c.err)
			}
		})
	}
}

// TestRealTable checks the generated table against itself: every kernel
// accepts its own parameter types, every struct literal with all its fields
// typed as declared passes, and the lookups of names that are not kernels
// fail.
func TestRealTable(t *testing.T) {
	fs := Funcs()
	if len(fs) == 0 || len(Structs()) == 0 {
		t.Fatal("empty table")
	}
	for i, f := range fs {
		if i > 0 && fs[i-1] >= f {
			t.Errorf("Funcs not sorted: %s before %s", fs[i-1], f)
		}
		ps, ok := f.Params()
		if !ok {
			t.Fatalf("%s: no params", f)
		}
		if f.Results() < 0 {
			t.Errorf("%s: Results %d", f, f.Results())
		}
		var args []Value
		for _, p := range ps {
			args = append(args, typed(strings.TrimPrefix(p.Type, "...")))
		}
		if err := Check(f, args); err != nil {
			t.Errorf("own parameter types: %v", err)
		}
	}
	for _, s := range Structs() {
		fields, ok := s.Fields()
		if !ok {
			t.Fatalf("%s: no fields", s)
		}
		v := ptr(s)
		for _, f := range fields {
			v.Fields = append(v.Fields, field(f.Name, typed(f.Type)))
		}
		if err := (checker{
			params: func(Func) ([]Param, bool) { return []Param{{"p", "*" + string(s)}}, true },
			fields: Struct.Fields,
			under:  underlying,
		}).call("f", []Value{v}); err != nil {
			t.Errorf("own field types: %v", err)
		}
	}
	if _, ok := Func("noSuchKernel").Params(); ok {
		t.Error("Params of an unknown kernel")
	}
	if Func("noSuchKernel").Results() != -1 {
		t.Error("Results of an unknown kernel")
	}
	if _, ok := Struct("noSuchParams").Fields(); ok {
		t.Error("Fields of an unknown struct")
	}
	if err := Check("noSuchKernel", nil); err == nil {
		t.Error("Check of an unknown kernel")
	}
}

// TestNameCollision checks that generation refuses two kernels whose
// constants would be spelled alike, and a kernel named like a declaration
// of this package.
func TestNameCollision(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"func abc() {}\ntype Abc struct{}\n", "constant Abc for kernel struct Abc collides with kernel function abc"},
		{"func check() {}\n", "constant Check for kernel function check collides with the name Check of kernelsig"},
		{"type fooP struct{}\nfunc fooP2() {}\ntype param struct{}\n", "constant Param for kernel struct param collides"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "k.go"), []byte("package kernels\n\n"+c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := generate(dir)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.src, err, c.want)
		}
	}
}

// TestExportedNotKernels checks that exported functions of the kernels
// package (the generator's planning helpers) are left out of the table and
// the dispatch.
func TestExportedNotKernels(t *testing.T) {
	dir := t.TempDir()
	src := "package kernels\n\nfunc PlanX(a []int32) { kx(a) }\n\nfunc kx(a []int32) { a[0] = 1 }\n"
	if err := os.WriteFile(filepath.Join(dir, "k.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	table, dispatch, err := generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"table": table, "dispatch": dispatch} {
		if strings.Contains(string(b), "PlanX") {
			t.Errorf("%s lists the exported PlanX", name)
		}
		if !strings.Contains(string(b), `"kx"`) {
			t.Errorf("%s does not list the kernel kx", name)
		}
	}
}
