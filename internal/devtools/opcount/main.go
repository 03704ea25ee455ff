// Command opcount attributes a generated package's instructions per Invoke
// to its operators on 32-bit ARM, through the package's InvokeTraced hook.
//
//	go run ./internal/devtools/opcount [tflm-gen flags] MODEL.tflite
//
// It generates the package, builds a driver for GOARCH=arm GOARM=7 that
// calls a marker function after every operator of one steady-state
// InvokeTraced (the third; inputs are zero), and runs it under qemu-arm with
// the instruction-counting plugin of shared/arm (insncount.c, built with gcc
// into a temporary directory). Each window between two marker calls is one
// operator, including a few instructions of the call into after. It prints
// one line per operator: index, type, instructions, share, MACs and
// instructions per MAC. Needs qemu-arm from Debian's qemu-user (not
// qemu-user-static: no plugins) and gcc, like shared/arm/count.
package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

const driver = `package main

import (
	"runtime"

	m "opcount/m"
)

func init() { runtime.LockOSThread() }

//go:noinline
func marker() {}

var model m.Model

func main() {
	after := func(int) { marker() }
	model.InvokeTraced(func(int) {})
	model.InvokeTraced(func(int) {})
	marker()
	model.InvokeTraced(after)
	for op := 0; op < m.NumOps; op++ {
		println(op, m.OpName(op), m.OpMACs(op))
	}
}
`

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "opcount:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: opcount [tflm-gen flags] MODEL.tflite")
	}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	args = append([]string(nil), args...)
	for i, a := range args {
		// tflm-gen runs in the module root: model paths become absolute.
		if strings.HasSuffix(a, ".tflite") {
			if args[i], err = filepath.Abs(a); err != nil {
				return err
			}
		}
	}
	shared := os.Getenv("TFLM_SHARED")
	if shared == "" {
		shared = filepath.Join(root, "..", "shared")
	}
	dir, err := os.MkdirTemp("", "opcount")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	gen := exec.Command("go", append([]string{"run", "./cmd/tflm-gen", "-o", filepath.Join(dir, "m"), "-pkg", "m"}, args...)...)
	gen.Dir, gen.Stderr = root, os.Stderr
	if err := gen.Run(); err != nil {
		return fmt.Errorf("tflm-gen: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module opcount\n\ngo 1.26\n"), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(driver), 0o644); err != nil {
		return err
	}
	bin := filepath.Join(dir, "prog")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir, build.Stderr = dir, os.Stderr
	build.Env = append(os.Environ(), "GOARCH=arm", "GOARM=7", "GOWORK=off")
	if err := build.Run(); err != nil {
		return fmt.Errorf("building the driver: %w", err)
	}
	nm, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		return fmt.Errorf("go tool nm: %w", err)
	}
	mm := regexp.MustCompile(`(?m)^\s*([0-9a-f]+) T main\.marker$`).FindSubmatch(nm)
	if mm == nil {
		return fmt.Errorf("no main.marker symbol in the driver")
	}
	plugin := filepath.Join(dir, "insncount.so")
	cc := exec.Command("gcc", "-O2", "-shared", "-fPIC", "-o", plugin, filepath.Join(shared, "arm", "insncount.c"))
	cc.Stderr = os.Stderr
	if err := cc.Run(); err != nil {
		return fmt.Errorf("building the counting plugin (gcc, qemu-user's plugin header): %w", err)
	}
	counts := filepath.Join(dir, "windows.txt")
	q := exec.Command("qemu-arm", "-plugin", fmt.Sprintf("%s,marker=0x%s,out=%s", plugin, mm[1], counts), bin)
	q.Env = append(os.Environ(), "GOGC=off", "GODEBUG=asyncpreemptoff=1")
	out, err := q.CombinedOutput()
	if err != nil {
		return fmt.Errorf("qemu-arm: %w\n%s", err, out)
	}
	type opInfo struct {
		name string
		macs int64
	}
	var ops []opInfo
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		if len(f) != 3 {
			continue
		}
		macs, _ := strconv.ParseInt(f[2], 10, 64)
		ops = append(ops, opInfo{f[1], macs})
	}
	w, err := os.Open(counts)
	if err != nil {
		return err
	}
	defer w.Close()
	var insns []int64
	sc := bufio.NewScanner(w)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 6 && f[0] == "window" && f[4] == "insns" {
			n, _ := strconv.ParseInt(f[5], 10, 64)
			insns = append(insns, n)
		}
	}
	if len(insns) < len(ops) {
		return fmt.Errorf("%d counted windows for %d operators", len(insns), len(ops))
	}
	var total int64
	for _, n := range insns[:len(ops)] {
		total += n
	}
	fmt.Printf("# %s: instructions per operator of one steady-state InvokeTraced, GOARCH=arm GOARM=7 under qemu-arm\n", strings.Join(args, " "))
	fmt.Printf("%4s  %-30s %12s %6s %12s %9s\n", "op", "type", "instructions", "share", "MACs", "insn/MAC")
	for i, op := range ops {
		perMAC := "-"
		if op.macs > 0 {
			perMAC = fmt.Sprintf("%.2f", float64(insns[i])/float64(op.macs))
		}
		fmt.Printf("%4d  %-30s %12d %5.1f%% %12d %9s\n", i, op.name, insns[i], 100*float64(insns[i])/float64(max(total, 1)), op.macs, perMAC)
	}
	fmt.Printf("%4s  %-30s %12d\n", "", "total", total)
	return nil
}

// moduleRoot finds the directory of go.mod from the working directory up.
func moduleRoot() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("not inside the tflm-gen module")
		}
		d = filepath.Dir(d)
	}
}
