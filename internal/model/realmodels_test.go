package model

import (
	"os"
	"path/filepath"
	"testing"
)

// realModels lists the project's fixture models and, when present, the
// shared real-world models and single-operator test vectors.
func realModels(t testing.TB) []string {
	var files []string
	for _, pat := range []string{
		"../../testdata/*.tflite",
		"../../../shared/models/*.tflite",
		"../../../shared/vectors/*/*/*.tflite",
	} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	return files
}

// TestRealModelsParse checks that the validation accepts every real model
// the project knows, and that the graphs satisfy the invariants.
func TestRealModelsParse(t *testing.T) {
	files := realModels(t)
	t.Logf("%d models", len(files))
	if len(files) < 3 {
		t.Fatalf("found only %d models", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		g, err := Parse(f, data)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if err := checkInvariants(g); err != nil {
			t.Errorf("%s: invariant: %v", f, err)
		}
	}
}
