package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestOpcount profiles the tiny_conv_int8 fixture: one line per operator
// and a positive total. It needs qemu-arm with plugin support and gcc.
func TestOpcount(t *testing.T) {
	for _, tool := range []string{"qemu-arm", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (apt-get install qemu-user gcc)", tool)
		}
	}
	if testing.Short() {
		t.Skip("builds and emulates a package")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	err = run([]string{"../../../testdata/tiny_conv_int8.tflite"})
	w.Close()
	os.Stdout = stdout
	var out bytes.Buffer
	io.Copy(&out, r)
	if err != nil {
		if strings.Contains(err.Error(), "plugin") {
			t.Skipf("no counting plugin: %v", err)
		}
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	// Header, column names, 7 operators, total.
	if len(lines) != 10 || !strings.Contains(lines[2], "CONV_2D") || !strings.Contains(lines[9], "total") {
		t.Fatalf("unexpected output:\n%s", out.String())
	}
	t.Logf("\n%s", out.String())
}
