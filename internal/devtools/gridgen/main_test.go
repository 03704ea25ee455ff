package main

import (
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite kernels/conv_pw_grid.go")

// TestGridCurrent checks that kernels/conv_pw_grid.go is what gridgen
// writes.
func TestGridCurrent(t *testing.T) {
	const path = "../../../kernels/conv_pw_grid.go"
	want := source()
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("%s is stale: run go test ./internal/devtools/gridgen -update", path)
	}
}
