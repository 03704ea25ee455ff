// Command stacktable measures, on the board, the stack that every kernel
// the generator calls takes under TinyGo for the Cortex-M4, and writes the
// table the generator states Invoke's stack from
// (gen/kernelsig/stack.go). It generates the packages of a corpus of models
// (../shared/models with default flags and -speed, the fixtures in
// testdata/, the single-layer models of ../shared/grid), builds each with
// TinyGo (internal/devtools/board), and records for every kernel function
// the deepest stack a call of it reaches in any of them (the function's
// frame and its callees', from the disassembly). Needs TinyGo
// (../shared/tinygo/install) and ../shared.
//
// Every package is also checked: no heap allocation under TinyGo, no
// double-precision software routine in the firmware, a stack the static
// analysis can bound, and (with -check) a measured stack within
// the one the generator states (emit.StackOf) with the committed table.
//
//	go run ./internal/devtools/stacktable            # rewrite gen/kernelsig/stack.go
//	go run ./internal/devtools/stacktable -check     # CI: fail if it is stale or a check fails
//	go run ./internal/devtools/stacktable -v         # also print each package's figures
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/tflm-gen/tflm-gen/gen"
	"github.com/tflm-gen/tflm-gen/gen/emit"
	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/devtools/board"
)

const out = "gen/kernelsig/stack.go"

func main() {
	check := flag.Bool("check", false, "fail if "+out+" differs from a fresh measurement")
	verbose := flag.Bool("v", false, "print each package's measured and stated stack")
	shared := flag.String("shared", "../shared", "the reference data directory")
	grid := flag.Bool("grid", true, "include ../shared/grid's models (without them the table is incomplete: use only to look)")
	flag.Parse()
	if err := run(*shared, *grid, *check, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "stacktable:", err)
		os.Exit(1)
	}
}

// job is one package of the corpus.
type job struct {
	name  string
	model string
	opt   gen.Options
}

func corpus(shared string, grid bool) ([]job, error) {
	var jobs []job
	add := func(pattern string, flagSets ...bool) error {
		ms, err := filepath.Glob(pattern)
		if err != nil {
			return err
		}
		for _, m := range ms {
			n := strings.TrimSuffix(filepath.Base(m), ".tflite")
			for _, speed := range flagSets {
				j := job{name: n, model: m, opt: gen.Options{Package: "p", Speed: speed}}
				if speed {
					j.name += " -speed"
				}
				jobs = append(jobs, j)
			}
		}
		return nil
	}
	if err := add(filepath.Join(shared, "models", "*.tflite"), false, true); err != nil {
		return nil, err
	}
	if err := add(filepath.Join("testdata", "*.tflite"), false); err != nil {
		return nil, err
	}
	if grid {
		if err := add(filepath.Join(shared, "grid", "models", "*.tflite"), false); err != nil {
			return nil, err
		}
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("no models under %s", shared)
	}
	return jobs, nil
}

func run(shared string, grid, check, verbose bool) error {
	tools, err := board.Find()
	if err != nil {
		return err
	}
	jobs, err := corpus(shared, grid)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "stacktable")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	kernels := map[string]bool{}
	for _, f := range kernelsig.Funcs() {
		kernels[string(f)] = true
	}
	var mu sync.Mutex
	deepest := map[string]int{}
	var failed []string
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.NumCPU(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				j := jobs[i]
				depths, line, err := measure(tools, filepath.Join(tmp, fmt.Sprint(i)), j, kernels, check)
				mu.Lock()
				if err != nil {
					failed = append(failed, fmt.Sprintf("%s: %v", j.name, err))
				}
				for k, d := range depths {
					deepest[k] = max(deepest[k], d)
				}
				if verbose && line != "" {
					fmt.Println(line)
				}
				mu.Unlock()
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	sort.Strings(failed)
	src, err := render(deepest, len(jobs))
	if err != nil {
		return err
	}
	if check {
		old, err := os.ReadFile(out)
		if err != nil {
			return err
		}
		if !bytes.Equal(old, src) {
			failed = append(failed, out+" is stale: run go run ./internal/devtools/stacktable")
		}
	} else if err := os.WriteFile(out, src, 0o644); err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d problems:\n%s", len(failed), strings.Join(failed, "\n"))
	}
	return nil
}

// measure generates one package, measures it on the board and returns the
// stack depth of every kernel function it calls.
func measure(tools *board.Tools, dir string, j job, kernels map[string]bool, checkStated bool) (map[string]int, string, error) {
	data, err := os.ReadFile(j.model)
	if err != nil {
		return nil, "", err
	}
	res, err := gen.Generate(filepath.Base(j.model), data, j.opt)
	if err != nil {
		return nil, "", nil // not generated: nothing to measure (the tests cover refusals)
	}
	pkg := filepath.Join(dir, "pkg")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		return nil, "", err
	}
	for name, b := range res.Files {
		if err := os.WriteFile(filepath.Join(pkg, name), b, 0o644); err != nil {
			return nil, "", err
		}
	}
	u, fr, err := tools.MeasureStackFrames(filepath.Join(dir, "board"), pkg)
	if err != nil {
		return nil, "", err
	}
	depths := map[string]int{}
	for fn := range fr.Self {
		k, ok := strings.CutPrefix(fn, "tg/p.")
		if !ok || !kernels[k] {
			continue
		}
		d, err := fr.Depth(fn)
		if err != nil {
			return nil, "", err
		}
		depths[k] = d
	}
	if u.StaticErr != nil {
		return nil, "", fmt.Errorf("static stack analysis: %w", u.StaticErr)
	}
	stated := emit.StackOf(res.Program).Bytes
	line := fmt.Sprintf("%-60s invoke %6d reset %5d static %6d stated %6d", j.name, u.Invoke, u.Reset, u.Static, stated)
	var problems []string
	if len(u.Allocs) > 0 {
		problems = append(problems, "heap allocations under TinyGo: "+strings.Join(u.Allocs, "; "))
	}
	if routines, calls := fr.SoftDouble(); len(routines) > 0 {
		problems = append(problems, fmt.Sprintf("double-precision routines %v, called by %s", routines, strings.Join(calls, ", ")))
	}
	if u.Static < u.Invoke {
		problems = append(problems, fmt.Sprintf("static bound %d below the measured %d: the analysis misses a frame", u.Static, u.Invoke))
	}
	if checkStated && max(u.Invoke, u.Reset, u.Static) > stated {
		problems = append(problems, fmt.Sprintf("stack (measured Invoke %d, Reset %d, static bound %d bytes) exceeds the stated %d", u.Invoke, u.Reset, u.Static, stated))
	}
	if len(problems) > 0 {
		err = errors.New(strings.Join(problems, "; "))
	}
	if os.Getenv("STACKTABLE_OPS") != "" {
		for fn, self := range fr.Self {
			if strings.HasPrefix(fn, "tg/p.op") || fn == "tg/p.(*Model).Invoke" {
				line += fmt.Sprintf("\n\t%s %s self %d", j.name, fn, self)
			}
		}
	}
	return depths, line, err
}

func render(deepest map[string]int, n int) ([]byte, error) {
	names := make([]string, 0, len(deepest))
	for k := range deepest {
		names = append(names, k)
	}
	sort.Strings(names)
	var b bytes.Buffer
	fmt.Fprintf(&b, `// Code generated by go run ./internal/devtools/stacktable. DO NOT EDIT.

package kernelsig

// stackBytes is the deepest stack, in bytes, that a call of each kernel
// function reached (its frame and its callees') in the TinyGo 0.40 builds
// for the Cortex-M4 (-opt=z) of %d generated packages.
var stackBytes = map[Func]int{
`, n)
	for _, k := range names {
		fmt.Fprintf(&b, "\t%q: %d,\n", k, deepest[k])
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}
