package gen

import (
	"flag"
	"regexp"
	"sort"
	"strings"
)

// The board tests (board_test.go: TinyGo builds run on the emulated
// Cortex-M) run in one of two modes. By default (go test ./...) they build
// and run a subset of their packages: those that together declare every
// kernel function any of their packages declares (coverKernels), so that
// every kernel is built by TinyGo and run on the board. With -long (go
// test ./gen -long, which .ci/run runs) they build and run every package.
var runLong = flag.Bool("long", false, "build and run every package in the board tests (default: packages that together cover every kernel)")

// kernelFunc matches a top-level function declaration.
var kernelFunc = regexp.MustCompile(`(?m)^func (\w+)`)

// kernelFuncs lists the functions declared in a generated package's kernel
// files (kernels.go and its variants).
func kernelFuncs(files map[string][]byte) []string {
	var fns []string
	for name, src := range files {
		if !strings.HasPrefix(name, "kernels") || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		for _, m := range kernelFunc.FindAllSubmatch(src, -1) {
			fns = append(fns, name+":"+string(m[1]))
		}
	}
	sort.Strings(fns)
	return fns
}

// coverKernels reports which packages, given the kernel functions of each
// (kernelFuncs), run in the default mode: greedily, the package declaring
// the most functions no package picked so far declares (the earliest on a
// tie), until every function is declared by a picked package. With -long
// every package runs.
func coverKernels(kernels [][]string) []bool {
	run := make([]bool, len(kernels))
	if *runLong {
		for i := range run {
			run[i] = true
		}
		return run
	}
	covered := map[string]bool{}
	for {
		best, bestNew := -1, 0
		for i, fns := range kernels {
			if run[i] {
				continue
			}
			n := 0
			for _, f := range fns {
				if !covered[f] {
					n++
				}
			}
			if n > bestNew {
				best, bestNew = i, n
			}
		}
		if best < 0 {
			return run
		}
		run[best] = true
		for _, f := range kernels[best] {
			covered[f] = true
		}
	}
}
