package gen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"

	"github.com/tflm-gen/tflm-gen/internal/devtools/tinygocheck"
)

// checkTinyGo runs the TinyGo-subset checker on a generated package and
// reports every problem as a test error.
func checkTinyGo(t *testing.T, dir string) {
	t.Helper()
	probs, err := tinygocheck.Check(dir)
	for _, p := range probs {
		t.Errorf("%s", p)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestTinyGoExamples checks every committed package in generated_examples/
// with internal/devtools/tinygocheck (imports, no package variables, nothing on the
// Invoke path that TinyGo lacks or that allocates, escape analysis).
func TestTinyGoExamples(t *testing.T) {
	root := filepath.Join("..", "generated_examples")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		// demo/ is a program using the examples, not generated code.
		if !e.IsDir() || e.Name() == "demo" {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "model.go")); err != nil {
			if _, err := os.Stat(filepath.Join(dir, "arena.go")); err != nil {
				continue // not a generated package (arena.go: one running several models)
			}
		}
		n++
		t.Run(e.Name(), func(t *testing.T) {
			t.Parallel()
			checkTinyGo(t, dir)
		})
	}
	if n == 0 {
		t.Fatalf("no generated package found in %s", root)
	}
}

// TestTinyGoSharedModels generates a package for every model in
// ../shared/models into a throwaway module and checks it.
func TestTinyGoSharedModels(t *testing.T) {
	models, err := filepath.Glob(filepath.Join(e2e.SharedDir(t), "models", "*.tflite"))
	if err != nil {
		t.Fatal(err)
	}
	if len(models) == 0 {
		t.Skip("no models in the shared directory")
	}
	for _, path := range models {
		name := strings.TrimSuffix(filepath.Base(path), ".tflite")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			pkg := e2e.PackageName(name)
			res, err := Generate(filepath.Base(path), data, Options{Package: pkg})
			if err != nil {
				// Not a TinyGo question; TestReference covers generation.
				t.Skipf("generation failed, nothing to check: %v", err)
			}
			mod := t.TempDir()
			if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module tinygomod\n\ngo 1.26\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(mod, pkg)
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for n, b := range res.Files {
				if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			checkTinyGo(t, dir)
		})
	}
}
