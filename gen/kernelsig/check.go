// Package kernelsig names the kernels of package kernels with typed
// constants and checks calls against their real signatures.
//
// table.go is generated from the kernel sources with go/types (run
// `go test ./gen/kernelsig -update` after changing a kernel signature); the
// test TestTableCurrent fails while it is stale, so a renamed kernel, parameter
// or field breaks the build of every Func or Struct constant that names it,
// and Check reports any call whose arguments no longer fit.
package kernelsig

import (
	"fmt"
	"strings"
)

// ValueKind says how the emitter renders a call argument.
type ValueKind int

const (
	// Typed is a value of exactly Go type Value.Type (written relative to
	// package kernels, as in Param.Type): an arena view "[]int8", a
	// constant "string", a typed variable.
	Typed ValueKind = iota
	// UntypedInt is an integer literal: assignable to any integer or
	// floating-point type.
	UntypedInt
	// UntypedFloat is a floating-point literal: assignable to float32 or
	// float64.
	UntypedFloat
	// UntypedBool is true or false: assignable to bool.
	UntypedBool
	// StructPtr is &Struct{Fields...}: assignable to a *Struct parameter or
	// field.
	StructPtr
)

// Value is one argument of an emitted kernel call, or one field value of a
// StructPtr argument.
type Value struct {
	Kind   ValueKind
	Type   string  // Typed: the Go type
	Struct Struct  // StructPtr: the struct type
	Fields []Field // StructPtr: the fields set, each at most once
}

// Field is one keyed element of a StructPtr composite literal.
type Field struct {
	Name  string
	Value Value
}

// Check reports whether a call of f with args would compile: f is a kernel
// function, the argument count fits (variadic aware) and each argument is
// assignable to its parameter, struct literals field by field.
func Check(f Func, args []Value) error {
	return checker{Func.Params, Struct.Fields, underlying}.call(f, args)
}

// checker holds the signature lookups, so that tests can check against a
// table of their own.
type checker struct {
	params func(Func) ([]Param, bool)
	fields func(Struct) ([]Param, bool)
	under  func(string) string // named kernel type -> its underlying type
}

func (c checker) call(f Func, args []Value) error {
	ps, ok := c.params(f)
	if !ok {
		return fmt.Errorf("kernelsig: no kernel function %q", string(f))
	}
	variadic := len(ps) > 0 && strings.HasPrefix(ps[len(ps)-1].Type, "...")
	switch {
	case variadic && len(args) < len(ps)-1:
		return fmt.Errorf("kernelsig: %s: %d arguments, want at least %d", f, len(args), len(ps)-1)
	case !variadic && len(args) != len(ps):
		return fmt.Errorf("kernelsig: %s: %d arguments, want %d", f, len(args), len(ps))
	}
	for i, a := range args {
		p := ps[min(i, len(ps)-1)]
		typ := p.Type
		if variadic && i >= len(ps)-1 {
			typ = strings.TrimPrefix(typ, "...")
		}
		if err := c.value(a, typ); err != nil {
			return fmt.Errorf("kernelsig: %s: parameter %s (argument %d): %w", f, p.Name, i+1, err)
		}
	}
	return nil
}

// value checks that v is assignable to a variable of type want.
func (c checker) value(v Value, want string) error {
	mismatch := func(have string) error {
		return fmt.Errorf("have %s, want %s", have, want)
	}
	u := c.under(want)
	switch v.Kind {
	case Typed:
		if canon(v.Type) != canon(want) {
			return mismatch(v.Type)
		}
	case UntypedInt:
		if !isInteger(u) && !isFloat(u) {
			return mismatch("untyped int constant")
		}
	case UntypedFloat:
		if !isFloat(u) {
			return mismatch("untyped float constant")
		}
	case UntypedBool:
		if u != "bool" {
			return mismatch("untyped bool constant")
		}
	case StructPtr:
		fs, ok := c.fields(v.Struct)
		if !ok {
			return mismatch(fmt.Sprintf("*%s (no such kernel struct)", v.Struct))
		}
		if want != "*"+string(v.Struct) {
			return mismatch("*" + string(v.Struct))
		}
		seen := map[string]bool{}
		for _, f := range v.Fields {
			if seen[f.Name] {
				return fmt.Errorf("field %s of %s set twice", f.Name, v.Struct)
			}
			seen[f.Name] = true
			var typ string
			for _, p := range fs {
				if p.Name == f.Name {
					typ = p.Type
					break
				}
			}
			if typ == "" {
				return fmt.Errorf("%s has no field %q", v.Struct, f.Name)
			}
			if err := c.value(f.Value, typ); err != nil {
				return fmt.Errorf("field %s of %s: %w", f.Name, v.Struct, err)
			}
		}
	default:
		return fmt.Errorf("invalid value kind %d", v.Kind)
	}
	return nil
}

func isInteger(t string) bool {
	switch t {
	case "int", "int8", "int16", "int32", "int64",
		"uint", "uint8", "uint16", "uint32", "uint64", "uintptr", "byte", "rune":
		return true
	}
	return false
}

func isFloat(t string) bool { return t == "float32" || t == "float64" }

// canon spells a type string with byte and rune replaced by uint8 and int32,
// the types they alias, so that identical types compare equal as strings.
func canon(t string) string {
	if !strings.Contains(t, "byte") && !strings.Contains(t, "rune") {
		return t
	}
	var b strings.Builder
	isID := func(c byte) bool {
		return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	for i := 0; i < len(t); {
		if !isID(t[i]) {
			b.WriteByte(t[i])
			i++
			continue
		}
		j := i
		for j < len(t) && isID(t[j]) {
			j++
		}
		switch id := t[i:j]; id {
		case "byte":
			b.WriteString("uint8")
		case "rune":
			b.WriteString("int32")
		default:
			b.WriteString(id)
		}
		i = j
	}
	return b.String()
}

// StackBytes returns the deepest stack a call of f reached in the TinyGo
// builds for the Cortex-M4 that internal/devtools/stacktable measured (its
// frame and its callees'), ok false when no measured package called f.
func StackBytes(f Func) (n int, ok bool) {
	n, ok = stackBytes[f]
	return n, ok
}
