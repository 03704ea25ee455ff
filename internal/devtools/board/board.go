// Package board builds generated packages with TinyGo for the Cortex-M4 and
// runs them on QEMU's mps2-an386 board (the ../shared/tinygo install), for
// tests and tools that need the board itself: the stack Invoke uses, the
// code TinyGo emits. Everything skips, or reports ErrNoTinyGo, when TinyGo
// or qemu-system-arm is not installed.
package board

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ErrNoTinyGo is returned when TinyGo, qemu-system-arm or llvm-objdump is
// not installed.
var ErrNoTinyGo = errors.New("TinyGo for the board is not installed (../shared/tinygo/install)")

// Tools are the programs this package runs.
type Tools struct {
	TinyGo, QEMU, Objdump string
}

// Find locates TinyGo ($TINYGO, PATH, /opt/tinygo/bin/tinygo),
// qemu-system-arm and llvm-objdump (llvm-objdump-19 first: the LLVM TinyGo
// is linked against).
func Find() (*Tools, error) {
	var t Tools
	if p := os.Getenv("TINYGO"); p != "" {
		t.TinyGo = p
	} else if p, err := exec.LookPath("tinygo"); err == nil {
		t.TinyGo = p
	} else if _, err := os.Stat("/opt/tinygo/bin/tinygo"); err == nil {
		t.TinyGo = "/opt/tinygo/bin/tinygo"
	}
	t.QEMU, _ = exec.LookPath("qemu-system-arm")
	for _, n := range []string{"llvm-objdump-19", "llvm-objdump"} {
		if p, err := exec.LookPath(n); err == nil {
			t.Objdump = p
			break
		}
	}
	if t.TinyGo == "" || t.QEMU == "" || t.Objdump == "" {
		return nil, fmt.Errorf("%w: tinygo %q, qemu-system-arm %q, llvm-objdump %q", ErrNoTinyGo, t.TinyGo, t.QEMU, t.Objdump)
	}
	return &t, nil
}

// Require is Find for tests: it skips t when a tool is missing, unless
// $TFLM_REQUIRE_TINYGO is set (CI sets it, so that a broken install fails
// instead of skipping).
func Require(t testing.TB) *Tools {
	t.Helper()
	tools, err := Find()
	if err != nil {
		if os.Getenv("TFLM_REQUIRE_TINYGO") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return tools
}

// Module writes a scratch module in dir for TinyGo (whose Go is 1.25, older
// than the project's): go.mod, the package's non-test .go files in p/
// (imported as tg/p), main.go and any further files given by name.
func Module(dir, pkgDir string, files map[string]string) error {
	if err := os.MkdirAll(filepath.Join(dir, "p"), 0o755); err != nil {
		return err
	}
	srcs, err := filepath.Glob(filepath.Join(pkgDir, "*.go"))
	if err != nil {
		return err
	}
	n := 0
	for _, s := range srcs {
		if strings.HasSuffix(s, "_test.go") {
			continue
		}
		b, err := os.ReadFile(s)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "p", filepath.Base(s)), b, 0o644); err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("%s: no Go files", pkgDir)
	}
	files["go.mod"] = "module tg\n\ngo 1.25\n"
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Build runs `tinygo build` of the module in dir with the given flags and
// returns the ELF's path and the heap allocations TinyGo reports in the
// package under test (tg/p: "file.go:line: reason").
func (t *Tools) Build(dir string, flags ...string) (elf string, allocs []string, err error) {
	elf = filepath.Join(dir, "out.elf")
	args := append([]string{"build", "-o", elf, "-print-allocs=tg/p"}, flags...)
	args = append(args, ".")
	cmd := exec.Command(t.TinyGo, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", nil, fmt.Errorf("tinygo %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	pdir := filepath.Join(dir, "p") + string(filepath.Separator)
	for _, l := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(l, pdir); ok && strings.Contains(l, "object allocated on the heap") {
			allocs = append(allocs, rest)
		}
	}
	return elf, allocs, nil
}

// Run runs an ELF built for a cortex-m4-qemu target on mps2-an386 and
// returns what it wrote through semihosting (and whatever qemu printed).
func (t *Tools) Run(elf string, timeout time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, t.QEMU, "-machine", "mps2-an386", "-semihosting", "-nographic", "-kernel", elf)
	// Semihosting output goes to qemu's stderr when stdout is not a
	// terminal: both are the program's output.
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.Bytes(), fmt.Errorf("qemu-system-arm %s: %v: %s", elf, err, strings.TrimSpace(out.String()))
	}
	return out.Bytes(), nil
}

// Test runs `tinygo test` of the package in pkgDir (its generated tests
// included) on the emulated Cortex-M3 board (cortex-m-qemu, where test
// output reaches the console; with the nodsp tag, as on any core without
// the DSP extension), in scratch directory dir, and returns its output.
func (t *Tools) Test(dir, pkgDir string) ([]byte, error) {
	if err := os.MkdirAll(filepath.Join(dir, "p"), 0o755); err != nil {
		return nil, err
	}
	srcs, err := filepath.Glob(filepath.Join(pkgDir, "*.go"))
	if err != nil {
		return nil, err
	}
	for _, s := range srcs {
		b, err := os.ReadFile(s)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, "p", filepath.Base(s)), b, 0o644); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module tg\n\ngo 1.25\n"), 0o644); err != nil {
		return nil, err
	}
	// cortex-m-qemu is a Cortex-M3, without the DSP extension: the
	// packages' Cortex-M variant (kernels/dsp_arm.go) is for the M4/M7, and
	// the nodsp tag leaves it out.
	cmd := exec.Command(t.TinyGo, "test", "-v", "-target=cortex-m-qemu", "-tags=nodsp", "./p")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("tinygo test %s: %v\n%s", pkgDir, err, out)
	}
	return out, nil
}
