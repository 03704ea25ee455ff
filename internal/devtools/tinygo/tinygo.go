// Package tinygo builds generated packages with TinyGo for a
// microcontroller target and inspects the firmware: which software
// double-precision routines it links, and which functions call them.
//
// The TinyGo of ../shared/tinygo (its install script) is used: $TINYGO,
// else tinygo in PATH, else /opt/tinygo/bin/tinygo. A package is built in
// a scratch module whose go.mod says go 1.25 (TinyGo 0.40 refuses the
// project's 1.26), with a driver that calls only Reset and Invoke.
// TinyGo links with garbage collection of sections, so a routine present
// in the firmware is reachable from the driver, that is from Reset or
// Invoke (TinyGo's runtime itself links no double-precision routine:
// TestRuntimeClean).
package tinygo

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Target is the TinyGo target the firmware is built for: the Cortex-M4
// board of ../shared/tinygo (soft float).
const Target = "cortex-m4-qemu"

// ErrNoTinyGo is returned (wrapped) when TinyGo or LLVM's objdump cannot
// be found.
var ErrNoTinyGo = errors.New("TinyGo not installed (../shared/tinygo/install; or set $TINYGO)")

// Tools locates tinygo and llvm-objdump.
type Tools struct {
	TinyGo  string // the tinygo command
	Objdump string // llvm-objdump of the LLVM TinyGo is linked against
}

// Find returns the tools, or an error wrapping ErrNoTinyGo.
func Find() (*Tools, error) {
	var tg string
	if p := os.Getenv("TINYGO"); p != "" {
		tg = p
	} else if p, err := exec.LookPath("tinygo"); err == nil {
		tg = p
	} else if _, err := os.Stat("/opt/tinygo/bin/tinygo"); err == nil {
		tg = "/opt/tinygo/bin/tinygo"
	} else {
		return nil, ErrNoTinyGo
	}
	for _, name := range []string{"llvm-objdump-19", "llvm-objdump"} {
		if p, err := exec.LookPath(name); err == nil {
			return &Tools{TinyGo: tg, Objdump: p}, nil
		}
	}
	return nil, fmt.Errorf("%w: llvm-objdump-19 not found", ErrNoTinyGo)
}

// driver is the program that calls the package, imported as tgdrv/m.
const driver = `package main

import m "tgdrv/m"

var model m.Model

func main() {
	model.Reset()
	model.Invoke()
}
`

// Build builds the generated package whose files are files (test files
// are left out) for Target, with the extra tinygo build flags, in a
// scratch directory under dir; it returns the firmware's path.
func (tl *Tools) Build(dir string, files map[string][]byte, flags ...string) (string, error) {
	if err := os.MkdirAll(filepath.Join(dir, "m"), 0o755); err != nil {
		return "", err
	}
	for name, b := range files {
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, "m", name), b, 0o644); err != nil {
			return "", err
		}
	}
	for name, b := range map[string]string{"go.mod": "module tgdrv\n\ngo 1.25\n", "main.go": driver} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b), 0o644); err != nil {
			return "", err
		}
	}
	elf := filepath.Join(dir, "fw.elf")
	args := append([]string{"build", "-target=" + Target}, flags...)
	cmd := exec.Command(tl.TinyGo, append(args, "-o", elf, ".")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("tinygo build: %v\n%s", err, out)
	}
	return elf, nil
}

// softDouble matches the names of double-precision software routines:
// compiler-rt's and libgcc's arithmetic, comparisons and conversions
// (__aeabi_dadd, __muldf3, __extendsfdf2, __fixdfsi, __floatsidf, ...) and
// C's double libm functions (exp, log, sqrt, floor, ...).
var softDouble = regexp.MustCompile(`^(__aeabi_(d[a-z0-9]+|[a-z0-9]+2d)|__[a-z]+df[0-9]|__(extendsf|truncdf|fix(uns)?df|float(un)?[sdt]idf)[a-z0-9]*|` +
	`(exp|exp2|expm1|log|log2|log10|log1p|pow|sqrt|cbrt|sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|fmod|remainder|floor|ceil|trunc|round|rint|nearbyint|ldexp|frexp|modf|hypot|erf|erfc)l?)$`)

// IsSoftDouble reports whether a symbol name is a double-precision software
// routine.
func IsSoftDouble(name string) bool { return softDouble.MatchString(name) }

// Call is a call from a function to a double-precision routine.
type Call struct {
	Caller, Callee string
}

func (c Call) String() string { return c.Caller + " -> " + c.Callee }

// SoftDouble disassembles the firmware elf and returns the double-precision
// routines it contains (sorted) and the calls to them from other functions
// (the routines' calls among themselves left out), sorted.
func (tl *Tools) SoftDouble(elf string) (routines []string, calls []Call, err error) {
	out, err := exec.Command(tl.Objdump, "-d", "--no-show-raw-insn", elf).Output()
	if err != nil {
		return nil, nil, fmt.Errorf("%s -d %s: %v", tl.Objdump, elf, err)
	}
	return softDoubleIn(out)
}

// funcLine is a function's first line in llvm-objdump -d output,
// "00001234 <name>:"; callLine a direct call or branch to a symbol,
// "... bl 0x1234 <name>" (b, b.w, bl, blx, conditional forms, with an
// optional +offset that marks a branch inside the function).
var (
	funcLine = regexp.MustCompile(`^[0-9a-f]+ <(.+)>:$`)
	callLine = regexp.MustCompile(`\s(b|bl|blx|b\.w|b[a-z]{2}(\.w)?)\s+(0x)?[0-9a-f]+ <([^>+]+)>`)
)

// softDoubleIn is SoftDouble on objdump's output.
func softDoubleIn(dis []byte) (routines []string, calls []Call, err error) {
	seen := map[string]bool{}
	called := map[Call]bool{}
	fn := ""
	sc := bufio.NewScanner(bytes.NewReader(dis))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := funcLine.FindStringSubmatch(line); m != nil {
			fn = m[1]
			if IsSoftDouble(fn) {
				seen[fn] = true
			}
			continue
		}
		if m := callLine.FindStringSubmatch(line); m != nil && fn != "" && IsSoftDouble(m[4]) && !IsSoftDouble(fn) {
			called[Call{fn, m[4]}] = true
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	for r := range seen {
		routines = append(routines, r)
	}
	for c := range called {
		calls = append(calls, c)
	}
	sort.Strings(routines)
	sort.Slice(calls, func(i, j int) bool {
		if calls[i].Caller != calls[j].Caller {
			return calls[i].Caller < calls[j].Caller
		}
		return calls[i].Callee < calls[j].Callee
	})
	return routines, calls, nil
}
