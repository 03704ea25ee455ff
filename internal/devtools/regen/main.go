// Command regen regenerates every committed file that is derived from the
// repository's own sources, in dependency order. `go generate ./...` runs
// it (generate.go at the repository root), before any other package's
// directives:
//
//	go run ./internal/devtools/regen [-n]
//
// Each step is the test that checks a derived file, run with -update (which
// rewrites the file instead of failing on drift), so the code that writes a
// file and the test that checks it stay one:
//
//  1. internal/model/options_gen.go (internal/devtools/optgen: the typed
//     builtin options readers, from internal/model/options.fbs): the
//     model reader, the lowerings and the fixture builder build against
//     it;
//  2. kernels/conv_pw_grid.go (internal/devtools/gridgen): a kernel source,
//     so it comes before the signatures read from the kernel sources;
//  3. gen/kernelsig/table.go and kernels/dispatch.go (the kernel signatures):
//     the generator and the in-process runner build against them;
//  4. testdata/*.tflite (internal/devtools/builder: the fixture models);
//  5. testdata/broken/*.golden (internal/model: the reader's messages on
//     truncated and zeroed models);
//  6. generated_examples/ (gen: the fixtures' packages), as it is
//     generated from the fixtures with the kernels and signatures above;
//  7. BENCH.md's memory section (internal/devtools/memtable: plans of the
//     reference models and fixtures for several boards), last.
//
// Not here: gen/kernelsig/stack.go (go run ./internal/devtools/stacktable:
// TinyGo builds of every model, minutes; stacktable -check in CI), BENCH.md
// (go run ./internal/devtools/benchdoc: measurements; it keeps the memory
// section) and
// internal/model/opcodes.go (from the TensorFlow Lite schema, outside the
// repository).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// step is one regeneration: go test Pkg -run ^(Tests)$ -count=1 -update.
type step struct {
	Pkg    string // relative to the repository root, "./..."
	Tests  string // the test functions, "|"-separated
	Writes string // what it rewrites
}

// steps are the regenerations in the order they run.
var steps = []step{
	{"./internal/devtools/optgen", "TestOptionsCurrent", "internal/model/options_gen.go"},
	{"./internal/devtools/gridgen", "TestGridCurrent", "kernels/conv_pw_grid.go"},
	{"./gen/kernelsig", "TestTableCurrent", "gen/kernelsig/table.go, kernels/dispatch.go"},
	{"./internal/devtools/builder", "TestExamples", "testdata/*.tflite"},
	{"./internal/model", "TestTruncated|TestZeroedTail", "testdata/broken/*.golden"},
	{"./gen", "TestGeneratedExamples|TestGeneratedMultiExample", "generated_examples/"},
	{"./internal/devtools/memtable", "TestBenchSectionCurrent", "BENCH.md (memory section)"},
}

// args is the go command line of a step.
func (s step) args() []string {
	return []string{"test", s.Pkg, "-run", "^(" + s.Tests + ")$", "-count=1", "-update"}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("regen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dry := fs.Bool("n", false, "print the commands without running them")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "regen: unexpected arguments %q\n", fs.Args())
		return 2
	}
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(stderr, "regen:", err)
		return 1
	}
	for i, s := range steps {
		fmt.Fprintf(stdout, "regen %d/%d: %s: go %s\n", i+1, len(steps), s.Writes, strings.Join(s.args(), " "))
		if *dry {
			continue
		}
		cmd := exec.Command("go", s.args()...)
		cmd.Dir = root
		cmd.Stdout, cmd.Stderr = stdout, stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(stderr, "regen: %s: %v\n", s.Writes, err)
			return 1
		}
	}
	return 0
}

// moduleRoot is the directory of the main module's go.mod.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("not in a module (run it from the repository)")
	}
	return filepath.Dir(gomod), nil
}
