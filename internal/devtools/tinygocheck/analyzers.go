package tinygocheck

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"
)

// AllowedImports are the only packages generated code may import, besides
// runtime for its build constants (RuntimeConsts).
var AllowedImports = []string{"math", "math/bits", "unsafe"}

// RuntimeConsts are the names generated code may use from package runtime:
// constants fixed at build time (gc and TinyGo both define them), which
// let a kernel pick a code path per target without a runtime call.
var RuntimeConsts = []string{"Compiler", "GOARCH", "GOOS"}

// Imports reports imports outside AllowedImports, and uses of package
// runtime other than RuntimeConsts.
var Imports = &analysis.Analyzer{
	Name: "tinygoimports",
	Doc:  "report imports other than unsafe, math and math/bits in generated code (runtime only for its build constants)",
	Run:  runImports,
}

func runImports(pass *analysis.Pass) (any, error) {
	for _, f := range pass.Files {
		for _, spec := range f.Imports {
			path, err := strconv.Unquote(spec.Path.Value)
			if err != nil || path == "runtime" {
				continue
			}
			allowed := false
			for _, a := range AllowedImports {
				allowed = allowed || path == a
			}
			if !allowed {
				pass.Reportf(spec.Pos(), "import %q is not allowed: generated code may import only %v (and runtime for %v)", path, AllowedImports, RuntimeConsts)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			pkg, ok := pass.TypesInfo.Uses[id].(*types.PkgName)
			if !ok || pkg.Imported().Path() != "runtime" {
				return true
			}
			for _, c := range RuntimeConsts {
				if sel.Sel.Name == c {
					return true
				}
			}
			pass.Reportf(sel.Pos(), "runtime.%s is not allowed: generated code may use only runtime's build constants %v", sel.Sel.Name, RuntimeConsts)
			return true
		})
	}
	return nil, nil
}

// Globals reports package-level variables.
var Globals = &analysis.Analyzer{
	Name: "tinygoglobals",
	Doc:  "report package-level variables: generated code may declare only constants, types and functions, so weights are read-only data and Models share no state",
	Run:  runGlobals,
}

func runGlobals(pass *analysis.Pass) (any, error) {
	for _, f := range pass.Files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, s := range gd.Specs {
				for _, n := range s.(*ast.ValueSpec).Names {
					pass.Reportf(n.Pos(), "package-level variable %s: generated code may declare only constants, types and functions (make read-only data a string constant)", n.Name)
				}
			}
		}
	}
	return nil, nil
}

// Roots are the methods of type Model (or of each model type of a package
// running several models) where the Invoke path starts.
var Roots = []string{"Invoke", "Reset"}

// Path is the result of InvokePath: the functions and methods of the
// package reachable from the Roots by static calls.
type Path struct {
	// Funcs are the declarations on the path, in source order.
	Funcs []*ast.FuncDecl
}

// FuncAt returns the declaration on the path whose source covers pos, or
// nil.
func (p *Path) FuncAt(fset *token.FileSet, pos token.Position) *ast.FuncDecl {
	for _, fd := range p.Funcs {
		from, to := fset.Position(fd.Pos()), fset.Position(fd.End())
		if from.Filename == pos.Filename && posLE(from, pos) && posLE(pos, to) {
			return fd
		}
	}
	return nil
}

func posLE(a, b token.Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Column <= b.Column
}

// InvokePath computes the Invoke path (its result is a *Path) and reports
// every construct on it that TinyGo does not support or that allocates.
var InvokePath = &analysis.Analyzer{
	Name: "tinygoinvoke",
	Doc: "report goroutines, maps, interfaces, closures, defer, panic, recover, channels, " +
		"run-time string building, append/make/new and calls through function values in " +
		"Model.Invoke, Model.Reset and every function they call",
	Run:        runInvokePath,
	ResultType: reflect.TypeOf((*Path)(nil)),
}

// Diagnostic categories; a line gets one report per category.
const (
	catMap       = "map"
	catInterface = "interface"
	catChan      = "chan"
	catFuncValue = "funcvalue"
)

func runInvokePath(pass *analysis.Pass) (any, error) {
	info := pass.TypesInfo
	decls := map[*types.Func]*ast.FuncDecl{}
	for _, f := range pass.Files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				if fn, ok := info.Defs[fd.Name].(*types.Func); ok {
					decls[fn] = fd
				}
			}
		}
	}
	var queue []*types.Func
	onPath := map[*types.Func]bool{}
	add := func(fn *types.Func) {
		fn = fn.Origin()
		if fn.Pkg() != pass.Pkg || onPath[fn] {
			return
		}
		if _, ok := decls[fn]; ok {
			onPath[fn] = true
			queue = append(queue, fn)
		}
	}
	// The model types: Model, or in a package running several models
	// every type with an Invoke method (PersonDetect, MicroSpeech, ...).
	scope := pass.Pkg.Scope()
	var models []*types.TypeName
	if model, ok := scope.Lookup("Model").(*types.TypeName); ok {
		models = append(models, model)
	} else {
		for _, name := range scope.Names() {
			if tn, ok := scope.Lookup(name).(*types.TypeName); ok && tn.Exported() {
				if obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(tn.Type()), true, pass.Pkg, "Invoke"); obj != nil {
					models = append(models, tn)
				}
			}
		}
	}
	hasInvoke := false
	for _, model := range models {
		for _, name := range Roots {
			obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(model.Type()), true, pass.Pkg, name)
			if fn, ok := obj.(*types.Func); ok {
				hasInvoke = hasInvoke || name == "Invoke"
				add(fn)
			}
		}
	}
	if !hasInvoke && len(pass.Files) > 0 {
		pass.Reportf(pass.Files[0].Package, "no method Model.Invoke: a generated package must define it (the Invoke path starts there)")
	}
	for len(queue) > 0 {
		fn := queue[0]
		queue = queue[1:]
		checkOnPath(pass, decls[fn], add)
	}
	path := &Path{}
	for fn := range onPath {
		path.Funcs = append(path.Funcs, decls[fn])
	}
	sort.Slice(path.Funcs, func(i, j int) bool { return path.Funcs[i].Pos() < path.Funcs[j].Pos() })
	return path, nil
}

// checkOnPath reports forbidden constructs in fd, which is on the Invoke
// path, and passes every function of the package it uses to add.
func checkOnPath(pass *analysis.Pass, fd *ast.FuncDecl, add func(*types.Func)) {
	info := pass.TypesInfo
	where := " on the Invoke path (in " + funcName(fd) + ")"
	report := func(n ast.Node, cat, format string, args ...any) {
		for i, a := range args {
			if t, ok := a.(types.Type); ok {
				args[i] = types.TypeString(t, types.RelativeTo(pass.Pkg))
			}
		}
		pass.Report(analysis.Diagnostic{Pos: n.Pos(), End: n.End(), Category: cat, Message: fmt.Sprintf(format, args...) + where})
	}

	// Identifiers called directly; any other use of a function is a
	// function value.
	callees := map[*ast.Ident]bool{}
	ast.Inspect(fd, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if id := calleeIdent(call.Fun); id != nil {
				callees[id] = true
			}
		}
		return true
	})

	visit := func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FieldList:
			if n == fd.Type.TypeParams {
				return false // constraints are interfaces by definition
			}
		case *ast.GoStmt:
			report(n, "", "go statement")
		case *ast.DeferStmt:
			report(n, "", "defer statement")
		case *ast.SelectStmt:
			report(n, catChan, "select statement")
		case *ast.SendStmt:
			report(n, catChan, "channel send")
		case *ast.ChanType:
			report(n, catChan, "channel type")
		case *ast.MapType:
			report(n, catMap, "map type")
		case *ast.InterfaceType:
			report(n, catInterface, "interface type")
		case *ast.TypeAssertExpr:
			report(n, catInterface, "type assertion")
		case *ast.TypeSwitchStmt:
			report(n, catInterface, "type switch")
		case *ast.FuncLit:
			report(n, "", "closure (function literal)")
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				report(n, catChan, "channel receive")
			}
		case *ast.RangeStmt:
			if tv, ok := info.Types[n.X]; ok {
				if _, ok := tv.Type.Underlying().(*types.Signature); ok {
					report(n, "", "range over a function (iterator)")
				}
			}
		case *ast.BinaryExpr:
			if tv, ok := info.Types[n]; ok && n.Op == token.ADD && isString(tv.Type) && tv.Value == nil {
				report(n, "", "string concatenation at run time")
			}
		case *ast.AssignStmt:
			if n.Tok == token.ADD_ASSIGN && len(n.Lhs) == 1 {
				if tv, ok := info.Types[n.Lhs[0]]; ok && isString(tv.Type) {
					report(n, "", "string concatenation at run time")
				}
			}
		case *ast.CompositeLit:
			if tv, ok := info.Types[n]; ok {
				if st, ok := tv.Type.Underlying().(*types.Struct); ok {
					for i, el := range n.Elts {
						var f *types.Var
						if kv, ok := el.(*ast.KeyValueExpr); ok {
							if id, ok := kv.Key.(*ast.Ident); ok {
								f, _ = info.Uses[id].(*types.Var)
							}
							el = kv.Value
						} else if i < st.NumFields() {
							f = st.Field(i)
						}
						if f != nil {
							checkIfaceConv(info, el, f.Type(), report)
						}
					}
				}
			}
		case *ast.CallExpr:
			checkCall(pass, n, add, report)
		case *ast.Ident:
			if obj, ok := info.Defs[n].(*types.Var); ok {
				checkType(n, obj.Type(), report)
			}
			if fn, ok := info.Uses[n].(*types.Func); ok {
				if !callees[n] {
					report(n, catFuncValue, "function value %s (calls through function values are not allowed)", fn.Name())
				}
				add(fn)
			}
		}
		if e, ok := n.(ast.Expr); ok {
			// Uses of local variables are not reported again: their
			// declaration is.
			v, local := info.Uses[asIdent(e)].(*types.Var)
			local = local && !v.IsField() && v.Parent() != pass.Pkg.Scope()
			if tv, ok := info.Types[e]; ok && !tv.IsBuiltin() && !local {
				checkType(e, tv.Type, report)
			}
		}
		return true
	}
	ast.Inspect(fd, visit)
}

// checkType reports an expression or variable of map, interface or channel
// type.
func checkType(n ast.Node, t types.Type, report func(ast.Node, string, string, ...any)) {
	if t == nil {
		return
	}
	switch {
	case isInterface(t):
		report(n, catInterface, "interface value (type %v)", t)
	case isMap(t):
		report(n, catMap, "map (type %v)", t)
	case isChan(t):
		report(n, catChan, "channel (type %v)", t)
	}
}

// asIdent returns e as an identifier, or nil.
func asIdent(e ast.Expr) *ast.Ident {
	id, _ := e.(*ast.Ident)
	return id
}

// checkCall reports forbidden builtins, allocating conversions, calls that
// are not static and implicit conversions to interfaces; static callees in
// the package are passed to add.
func checkCall(pass *analysis.Pass, call *ast.CallExpr, add func(*types.Func), report func(ast.Node, string, string, ...any)) {
	info := pass.TypesInfo
	ftv, ok := info.Types[call.Fun]
	if !ok {
		return
	}
	if ftv.IsType() { // conversion T(x)
		if len(call.Args) != 1 {
			return
		}
		to := ftv.Type
		atv := info.Types[call.Args[0]]
		switch {
		case atv.Type == nil:
		case isString(to) && isByteOrRuneSlice(atv.Type):
			report(call, "", "conversion %s to string allocates", atv.Type)
		case isString(to) && isInteger(atv.Type) && atv.Value == nil:
			report(call, "", "conversion of an integer to string allocates")
		case isByteOrRuneSlice(to) && isString(atv.Type):
			report(call, "", "conversion of a string to %s allocates", to)
		default:
			checkIfaceConv(info, call.Args[0], to, report)
		}
		return
	}
	if ftv.IsBuiltin() {
		id := calleeIdent(call.Fun)
		b, _ := info.Uses[id].(*types.Builtin)
		if b == nil {
			return
		}
		switch b.Name() {
		case "append", "make", "new":
			report(call, "", "%s allocates", b.Name())
		case "panic", "recover", "print", "println":
			report(call, "", "%s call", b.Name())
		case "close":
			report(call, catChan, "channel close")
		case "delete":
			report(call, catMap, "map delete")
		}
		return
	}
	if fn := typeutil.StaticCallee(info, call); fn != nil {
		add(fn)
	} else if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && info.Selections[sel] != nil && isInterfaceOrTypeParam(info.Selections[sel].Recv()) {
		report(call, catInterface, "method call on an interface or type-parameter value")
	} else {
		report(call, catFuncValue, "call through a function value")
	}
	sig, ok := ftv.Type.Underlying().(*types.Signature)
	if !ok {
		return
	}
	params := sig.Params()
	for i, arg := range call.Args {
		var pt types.Type
		switch {
		case sig.Variadic() && i >= params.Len()-1:
			pt = params.At(params.Len() - 1).Type()
			if !call.Ellipsis.IsValid() {
				pt = pt.Underlying().(*types.Slice).Elem()
			}
		case i < params.Len():
			pt = params.At(i).Type()
		default:
			continue
		}
		checkIfaceConv(info, arg, pt, report)
	}
}

// checkIfaceConv reports the conversion of a non-interface value e to the
// interface type to.
func checkIfaceConv(info *types.Info, e ast.Expr, to types.Type, report func(ast.Node, string, string, ...any)) {
	tv, ok := info.Types[e]
	if ok && tv.Type != nil && isInterface(to) && !isInterface(tv.Type) && !tv.IsNil() {
		report(e, catInterface, "conversion of %s to interface %s", tv.Type, to)
	}
}

// Panics reports panics with a non-constant argument off the Invoke path
// (on it, every panic is reported by InvokePath).
var Panics = &analysis.Analyzer{
	Name:     "tinygopanics",
	Doc:      "report panics whose argument is not a constant: the Input/Output accessors may panic, but only with a constant message",
	Run:      runPanics,
	Requires: []*analysis.Analyzer{InvokePath},
}

func runPanics(pass *analysis.Pass) (any, error) {
	path := pass.ResultOf[InvokePath].(*Path)
	on := map[*ast.FuncDecl]bool{}
	for _, fd := range path.Funcs {
		on[fd] = true
	}
	for _, f := range pass.Files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && on[fd] {
				continue
			}
			ast.Inspect(d, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) != 1 {
					return true
				}
				if b, ok := pass.TypesInfo.Uses[calleeIdent(call.Fun)].(*types.Builtin); ok && b.Name() == "panic" {
					if tv := pass.TypesInfo.Types[call.Args[0]]; tv.Value == nil {
						pass.Reportf(call.Pos(), "panic with a non-constant value: use a constant message")
					}
				}
				return true
			})
		}
	}
	return nil, nil
}

// funcName names fd as "f" or "(*T).m".
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	recv := types.ExprString(fd.Recv.List[0].Type)
	if strings.HasPrefix(recv, "*") {
		recv = "(" + recv + ")"
	}
	return recv + "." + fd.Name.Name
}

// calleeIdent returns the identifier naming the function called by fun
// (f, pkg.f, x.m, f[T]), or nil.
func calleeIdent(fun ast.Expr) *ast.Ident {
	fun = ast.Unparen(fun)
	switch f := fun.(type) {
	case *ast.IndexExpr:
		fun = ast.Unparen(f.X)
	case *ast.IndexListExpr:
		fun = ast.Unparen(f.X)
	}
	switch f := fun.(type) {
	case *ast.Ident:
		return f
	case *ast.SelectorExpr:
		return f.Sel
	}
	return nil
}

func isInterface(t types.Type) bool {
	t = types.Unalias(t)
	if _, ok := t.(*types.TypeParam); ok {
		return false
	}
	_, ok := t.Underlying().(*types.Interface)
	return ok
}

func isInterfaceOrTypeParam(t types.Type) bool {
	_, ok := types.Unalias(t).(*types.TypeParam)
	return ok || isInterface(t)
}

func isMap(t types.Type) bool {
	_, ok := t.Underlying().(*types.Map)
	return ok
}

func isChan(t types.Type) bool {
	_, ok := t.Underlying().(*types.Chan)
	return ok
}

func isString(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}

func isInteger(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0
}

func isByteOrRuneSlice(t types.Type) bool {
	s, ok := t.Underlying().(*types.Slice)
	if !ok {
		return false
	}
	b, ok := s.Elem().Underlying().(*types.Basic)
	return ok && (b.Kind() == types.Byte || b.Kind() == types.Rune)
}
