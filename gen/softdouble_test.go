package gen

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"
	"github.com/tflm-gen/tflm-gen/internal/devtools/tinygo"
)

// TestTinyGoNoSoftDouble builds the package of every model in
// ../shared/models and in testdata/ (default flags; float models also with
// -speed) and every committed package in generated_examples/ with TinyGo
// for its Cortex-M4 target (soft float), with a driver that calls only
// Reset and Invoke, and fails when the firmware links a double-precision
// software routine (__aeabi_dadd, __muldf3, __extendsfdf2, libm's exp,
// ...): float32 kernels compute in float32 and integer arithmetic, as TFLM
// computes these operators in float32. It names the functions that call
// such a routine. Skipped when TinyGo is not installed.
func TestTinyGoNoSoftDouble(t *testing.T) {
	tl, err := tinygo.Find()
	if errors.Is(err, tinygo.ErrNoTinyGo) {
		t.Skipf("%v: the firmware cannot be built", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	type pkg struct {
		name  string
		files func() (map[string][]byte, error)
	}
	var pkgs []pkg
	gen := func(path string, speed bool) func() (map[string][]byte, error) {
		return func() (map[string][]byte, error) {
			data, err := os.ReadFile(path)
			if err != nil {
				return nil, err
			}
			res, err := Generate(filepath.Base(path), data, Options{Package: "m", Speed: speed})
			if err != nil {
				return nil, err
			}
			return res.Files, nil
		}
	}
	shared, err := filepath.Glob(filepath.Join(e2e.SharedDir(t), "models", "*.tflite"))
	if err != nil {
		t.Fatal(err)
	}
	fixtures, err := filepath.Glob(filepath.Join("..", "testdata", "*.tflite"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range append(shared, fixtures...) {
		name := strings.TrimSuffix(filepath.Base(path), ".tflite")
		if strings.HasPrefix(path, "..") {
			name = "testdata/" + name
		}
		pkgs = append(pkgs, pkg{name, gen(path, false)}, pkg{name + " -speed", gen(path, true)})
	}
	examples, err := os.ReadDir(filepath.Join("..", "generated_examples"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range examples {
		dir := filepath.Join("..", "generated_examples", e.Name())
		if _, err := os.Stat(filepath.Join(dir, "model.go")); err != nil {
			continue // demo/: a program, not a generated package
		}
		pkgs = append(pkgs, pkg{"generated_examples/" + e.Name(), func() (map[string][]byte, error) {
			files := map[string][]byte{}
			ents, err := os.ReadDir(dir)
			if err != nil {
				return nil, err
			}
			for _, f := range ents {
				if files[f.Name()], err = os.ReadFile(filepath.Join(dir, f.Name())); err != nil {
					return nil, err
				}
			}
			return files, nil
		}})
	}
	for _, p := range pkgs {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			files, err := p.files()
			if err != nil {
				t.Skipf("generation failed, nothing to build: %v", err)
			}
			// -speed changes only the kernels of models with float32
			// tensors here: the others are covered by their default build.
			if strings.HasSuffix(p.name, " -speed") && !strings.Contains(string(files["model.go"]), "float32") {
				t.Skip("no float32 tensor")
			}
			elf, err := tl.Build(t.TempDir(), files)
			if err != nil {
				t.Fatal(err)
			}
			routines, calls, err := tl.SoftDouble(elf)
			if err != nil {
				t.Fatal(err)
			}
			if len(routines) > 0 {
				var who []string
				for _, c := range calls {
					who = append(who, fmt.Sprint(c))
				}
				t.Errorf("the firmware links double-precision routines %v, called by %s", routines, strings.Join(who, ", "))
			}
		})
	}
}
