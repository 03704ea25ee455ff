package memtable

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite BENCH.md's memory section")

// TestBenchSectionCurrent checks that BENCH.md's memory section is what
// Section renders from the models (-update rewrites it; go generate ./...
// does).
func TestBenchSectionCurrent(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	shared := os.Getenv("TFLM_SHARED")
	if shared == "" {
		shared = filepath.Join(root, "..", "shared")
	}
	if _, err := os.Stat(filepath.Join(shared, "models")); err != nil {
		t.Skipf("../shared/models absent (%v): the section covers the reference models", err)
	}
	sec, err := Section(root, shared)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "BENCH.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := Splice(doc, sec)
	if bytes.Equal(doc, want) {
		return
	}
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("BENCH.md's memory section is out of date: run go generate ./...")
}

// TestSplice: a section is appended once, then replaced in place.
func TestSplice(t *testing.T) {
	doc := []byte("# B\n\ntext\n")
	one := Splice(doc, Begin+"\nA\n"+End+"\n")
	two := Splice(append(one, "after\n"...), Begin+"\nB\n"+End+"\n")
	if got, want := string(two), "# B\n\ntext\n\n"+Begin+"\nB\n"+End+"\nafter\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if strings.Count(string(two), Begin) != 1 {
		t.Errorf("two sections: %q", two)
	}
}
