package gen

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/emit"
	"github.com/tflm-gen/tflm-gen/internal/devtools/board"
	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"
)

// TestOnTheBoard builds the package of every model in ../shared/models and
// every fixture (default flags, and -speed for models with float32
// tensors, whose -speed kernels differ) and every package in
// generated_examples/ with TinyGo for the Cortex-M4, runs it on the
// emulated board with the stack painted, and checks:
//   - TinyGo puts nothing of the package on the heap;
//   - the firmware links no double-precision software routine (float32
//     kernels compute in float32 and integers, as TFLM; TinyGo links with
//     section garbage collection, so a routine present is reachable from
//     Invoke or Reset), naming the callers otherwise;
//   - the stack layout.txt states (emit.StackOf) bounds both the painted
//     measurement and the worst-case depth of the ELF's call graph, and is
//     not far above them.
//
// (internal/devtools/stacktable -check, which CI runs, does the same for
// ../shared/grid's models too.)
func TestOnTheBoard(t *testing.T) {
	tools := board.Require(t)
	type pkg struct {
		name  string
		files func() (map[string][]byte, *Result, error)
	}
	var pkgs []pkg
	generate := func(path string, speed bool) func() (map[string][]byte, *Result, error) {
		return func() (map[string][]byte, *Result, error) {
			data, err := os.ReadFile(path)
			if err != nil {
				return nil, nil, err
			}
			res, err := Generate(filepath.Base(path), data, Options{Package: "p", Speed: speed})
			if err != nil {
				return nil, nil, err
			}
			return res.Files, res, nil
		}
	}
	models, _ := filepath.Glob(filepath.Join(e2e.SharedDir(t), "models", "*.tflite"))
	fixtures, _ := filepath.Glob(filepath.Join("..", "testdata", "*.tflite"))
	for _, path := range append(models, fixtures...) {
		name := strings.TrimSuffix(filepath.Base(path), ".tflite")
		pkgs = append(pkgs, pkg{name, generate(path, false)}, pkg{name + " -speed", generate(path, true)})
	}
	examples, _ := filepath.Glob(filepath.Join("..", "generated_examples", "*", "model.go"))
	for _, m := range examples {
		dir := filepath.Dir(m)
		pkgs = append(pkgs, pkg{"generated_examples/" + filepath.Base(dir), func() (map[string][]byte, *Result, error) {
			files := map[string][]byte{}
			names, err := filepath.Glob(filepath.Join(dir, "*.go"))
			if err != nil {
				return nil, nil, err
			}
			for _, n := range names {
				if files[filepath.Base(n)], err = os.ReadFile(n); err != nil {
					return nil, nil, err
				}
			}
			return files, nil, nil
		}})
	}
	// Every package generated first, to pick those the default mode runs
	// (coverKernels).
	type generated struct {
		files map[string][]byte
		res   *Result
		err   error
	}
	gens := make([]generated, len(pkgs))
	kernels := make([][]string, len(pkgs))
	for i, p := range pkgs {
		g := &gens[i]
		g.files, g.res, g.err = p.files()
		// -speed changes only float kernels' code on the board's checks.
		if g.err == nil && !(strings.HasSuffix(p.name, " -speed") && !strings.Contains(string(g.files["model.go"]), "float32")) {
			kernels[i] = kernelFuncs(g.files)
		}
	}
	run := coverKernels(kernels)
	if !*runLong {
		var names []string
		for i, p := range pkgs {
			if run[i] {
				names = append(names, p.name)
			}
		}
		t.Logf("default mode: %d packages, which cover every kernel (go test -long runs all): %s", len(names), strings.Join(names, ", "))
	}
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for i, p := range pkgs {
		files, res, err := gens[i].files, gens[i].res, gens[i].err
		if err != nil {
			t.Errorf("%s: %v", p.name, err)
			continue
		}
		if kernels[i] == nil || !run[i] {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			dir := t.TempDir()
			pkgDir := filepath.Join(dir, "pkg")
			if err := os.Mkdir(pkgDir, 0o755); err != nil {
				t.Error(err)
				return
			}
			for f, b := range files {
				if err := os.WriteFile(filepath.Join(pkgDir, f), b, 0o644); err != nil {
					t.Error(err)
					return
				}
			}
			u, fr, err := tools.MeasureStackFrames(filepath.Join(dir, "board"), pkgDir)
			if err != nil {
				t.Errorf("%s: %v", p.name, err)
				return
			}
			if len(u.Allocs) > 0 {
				t.Errorf("%s: heap allocations under TinyGo: %s", p.name, strings.Join(u.Allocs, "; "))
			}
			if routines, calls := fr.SoftDouble(); len(routines) > 0 {
				t.Errorf("%s: the firmware links double-precision routines %v, called by %s", p.name, routines, strings.Join(calls, ", "))
			}
			if u.StaticErr != nil {
				t.Errorf("%s: static analysis: %v", p.name, u.StaticErr)
				return
			}
			if u.Static < u.Invoke {
				t.Errorf("%s: static bound %d below the measured %d: the analysis misses a frame", p.name, u.Static, u.Invoke)
			}
			if res == nil {
				return // a committed package: its statement is checked through its model
			}
			stated := emit.StackOf(res.Program).Bytes
			t.Logf("%-32s stack: stated %5d, measured Invoke %5d, Reset %4d, static bound %5d", p.name, stated, u.Invoke, u.Reset, u.Static)
			if worst := max(u.Invoke, u.Reset, u.Static); worst > stated || stated > worst+worst/3+160 {
				t.Errorf("%s: stated stack %d bytes, worst case %d: the statement must bound it, within a third plus 160 bytes", p.name, stated, worst)
			}
		}()
	}
	wg.Wait()
}

// boardTestArena is the largest ArenaSize whose generated tests fit in
// the RAM of TinyGo's cortex-m-qemu (64 KB: TestModelsAreIndependent
// holds up to four Models, each with its arena).
const boardTestArena = 12 << 10

// arenaSize reads the ArenaSize constant of the generated package in dir.
func arenaSize(t *testing.T, dir string) int {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(dir, "model.go"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^const ArenaSize = ([0-9]+)$`).FindSubmatch(src)
	if m == nil {
		return 0 // several pools: no single constant
	}
	n, err := strconv.Atoi(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestGeneratedTestsPassUnderTinyGo runs the generated tests of every
// package in generated_examples/ with `tinygo test` on the emulated board:
// they build under TinyGo and pass there (no allocation in Invoke, two
// Models independent, InvokeTraced, index panics), but for packages whose
// four Models do not fit in its RAM.
func TestGeneratedTestsPassUnderTinyGo(t *testing.T) {
	tools := board.Require(t)
	dirs, _ := filepath.Glob(filepath.Join("..", "generated_examples", "*", "generated_test.go"))
	if len(dirs) == 0 {
		t.Fatal("no generated package in generated_examples/")
	}
	var kernels [][]string
	for _, f := range dirs {
		files := map[string][]byte{}
		names, _ := filepath.Glob(filepath.Join(filepath.Dir(f), "kernels*.go"))
		for _, n := range names {
			b, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			files[filepath.Base(n)] = b
		}
		if arenaSize(t, filepath.Dir(f)) > boardTestArena {
			files = nil // skipped below: the others cover what they can
		}
		kernels = append(kernels, kernelFuncs(files))
	}
	run := coverKernels(kernels)
	for i, f := range dirs {
		dir := filepath.Dir(f)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			if n := arenaSize(t, dir); n > boardTestArena {
				t.Skipf("ArenaSize %d: the generated tests hold up to four Models at once, more than cortex-m-qemu's 64 KB of RAM (out of memory); CI's board step (../shared/tinygo/check) runs the package on mps2-an386, 4 MB", n)
			}
			if !run[i] {
				t.Skip("default mode: the other packages declare every kernel this one does (go test -long runs it)")
			}
			t.Parallel() // two tinygo runs at a time (-parallel)
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
