package main

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite internal/model/options_gen.go")

// TestOptionsCurrent checks that internal/model/options_gen.go is what
// optgen writes from options.fbs.
func TestOptionsCurrent(t *testing.T) {
	const dir = "../../model"
	const path = dir + "/options_gen.go"
	want, err := generateDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("%s is stale: run go test ./internal/devtools/optgen -update", path)
	}
}

// TestSchemaErrors: options.fbs is parsed strictly; each case breaks one
// rule of its header.
func TestSchemaErrors(t *testing.T) {
	const union = "union BuiltinOptions {\n  AOptions = 1,  // ADD\n}\n"
	for _, c := range []struct{ name, text, want string }{
		{"no union", "table AOptions {\n  x:int;\n}\n", "no union BuiltinOptions"},
		{"table outside the union", union + "table BOptions {\n  x:int;\n}\n", "no member of union"},
		{"unknown type", union + "table AOptions {\n  x:long;\n}\n", "unknown type long"},
		{"bad default", union + "table AOptions {\n  x:bool = 2;\n}\n", "not a bool"},
		{"vector default", union + "table AOptions {\n  x:[int] = 1;\n}\n", "has no default"},
		{"field twice", union + "table AOptions {\n  x:int;\n  x:int;\n}\n", "appears twice"},
		{"union number twice", "union BuiltinOptions {\n  AOptions = 1,  // ADD\n  BOptions = 1,  // MUL\n}\n", "already AOptions'"},
		{"operator twice", "union BuiltinOptions {\n  AOptions = 1,  // ADD\n  BOptions = 2,  // ADD\n}\n", "already carries"},
		{"member without operators", "union BuiltinOptions {\n  AOptions = 1,\n}\n", "want a union member"},
		{"unclosed", union + "table AOptions {\n  x:int;\n", "ends inside a block"},
		{"stray line", union + "struct S {\n}\n", "want a comment"},
	} {
		_, err := parseSchema("t.fbs", c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}
