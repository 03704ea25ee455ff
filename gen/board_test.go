package gen

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/emit"
	"github.com/tflm-gen/tflm-gen/internal/devtools/board"
	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"
)

// TestStatedStackBoundsMeasured builds the package of every model in
// ../shared/models and of every fixture with TinyGo for the Cortex-M4,
// runs it on the emulated board with the stack painted, and checks the
// stack layout.txt states (emit.StackOf) against that fresh measurement
// and against the worst-case depth of the ELF's call graph: never below
// either, and not far above. It also checks that TinyGo puts
// nothing of the package on the heap. (internal/devtools/stacktable -check,
// which CI runs, does the same for ../shared/grid's models too.)
func TestStatedStackBoundsMeasured(t *testing.T) {
	tools := board.Require(t)
	models, _ := filepath.Glob(filepath.Join(e2e.SharedDir(t), "models", "*.tflite"))
	fixtures, _ := filepath.Glob(filepath.Join("..", "testdata", "*.tflite"))
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for _, path := range append(models, fixtures...) {
		name := strings.TrimSuffix(filepath.Base(path), ".tflite")
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			data, err := os.ReadFile(path)
			if err != nil {
				t.Error(err)
				return
			}
			res, err := Generate(filepath.Base(path), data, Options{Package: "p"})
			if err != nil {
				t.Errorf("%s: %v", name, err)
				return
			}
			dir := t.TempDir()
			pkg := filepath.Join(dir, "pkg")
			if err := os.Mkdir(pkg, 0o755); err != nil {
				t.Error(err)
				return
			}
			for f, b := range res.Files {
				if err := os.WriteFile(filepath.Join(pkg, f), b, 0o644); err != nil {
					t.Error(err)
					return
				}
			}
			u, err := tools.MeasureStack(filepath.Join(dir, "board"), pkg)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				return
			}
			stated := emit.StackOf(res.Program).Bytes
			t.Logf("%-26s stack: stated %5d, measured Invoke %5d, Reset %4d, static bound %5d", name, stated, u.Invoke, u.Reset, u.Static)
			if len(u.Allocs) > 0 {
				t.Errorf("%s: heap allocations under TinyGo: %s", name, strings.Join(u.Allocs, "; "))
			}
			if u.StaticErr != nil {
				t.Errorf("%s: static analysis: %v", name, u.StaticErr)
			}
			// The static bound covers every path, the painted measurement the
			// one the ramp input takes; each checks the other (static >=
			// measured), and the statement must cover both without being far
			// above the worst case.
			if u.Static < u.Invoke {
				t.Errorf("%s: static bound %d below the measured %d: the analysis misses a frame", name, u.Static, u.Invoke)
			}
			if worst := max(u.Invoke, u.Reset, u.Static); worst > stated || stated > worst+worst/3+160 {
				t.Errorf("%s: stated stack %d bytes, worst case %d: the statement must bound it, within a third plus 160 bytes", name, stated, worst)
			}
		}()
	}
	wg.Wait()
}

// TestGeneratedTestsPassUnderTinyGo runs the generated tests of every
// package in generated_examples/ with `tinygo test` on the emulated board:
// they build under TinyGo and pass there (no allocation in Invoke, two
// Models independent, InvokeTraced, index panics).
func TestGeneratedTestsPassUnderTinyGo(t *testing.T) {
	tools := board.Require(t)
	dirs, _ := filepath.Glob(filepath.Join("..", "generated_examples", "*", "generated_test.go"))
	if len(dirs) == 0 {
		t.Fatal("no generated package in generated_examples/")
	}
	for _, f := range dirs {
		dir := filepath.Dir(f)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			out, err := tools.Test(t.TempDir(), dir)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), "--- PASS: TestInvokeDoesNotAllocate") || !strings.Contains(string(out), "PASS") {
				t.Fatalf("tinygo test ran no Invoke test:\n%s", out)
			}
		})
	}
}
