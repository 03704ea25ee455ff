package kernels

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestNoLocalMovedToHeap: no kernel has a local variable the compiler
// moves to the heap (an allocation per call, which Invoke must never
// make): a local whose address reaches a call through a func value, say.
// gc's escape analysis (-gcflags=-m) reports each such variable; the
// generated packages' AllocsPerRun tests catch it only for the kernels
// their models call.
func TestNoLocalMovedToHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the package with escape analysis output")
	}
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		// The 32-bit runs are under qemu-user, where running the go
		// command crashes; the host's run checks the arm build.
		t.Skip("runs the go command: on the 64-bit host only")
	}
	for _, goarch := range []string{"amd64", "arm"} {
		cmd := exec.Command("go", "build", "-gcflags=-m", "-o", "/dev/null", ".")
		cmd.Env = append(cmd.Environ(), "GOARCH="+goarch)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("GOARCH=%s go build -gcflags=-m: %v\n%s", goarch, err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Contains(line, "moved to heap") && !strings.Contains(line, "_test.go") {
				t.Errorf("GOARCH=%s: %s", goarch, line)
			}
		}
	}
}
