package gen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tflm-gen/tflm-gen/internal/devtools/board"
	"github.com/tflm-gen/tflm-gen/planner"
)

// bindMain is the board driver of TestBindOnBoard: it binds the Model to
// package-level memory (as a firmware would, to put it in a linker section)
// when the package has Bind, fills the inputs with a pattern, invokes three
// times and prints an FNV-1a hash of every output after each Invoke.
const bindMain = `package main

import (
	"device/arm"
	"unsafe"

	p "tg/p"
)

var m p.Model
%s
var line [64]byte

func say(v uint32) {
	n := copy(line[:], "out ")
	for s := 28; s >= 0; s -= 4 {
		line[n] = "0123456789abcdef"[v>>uint(s)&15]
		n++
	}
	line[n], line[n+1] = '\n', 0
	arm.SemihostingCall(arm.SemihostingWrite0, uintptr(unsafe.Pointer(&line[0])))
}

func pattern(in []byte, i, k int) {
	for j := range in {
		in[j] = byte((uint32(j)*2654435761 + uint32(k)*40503 + uint32(i)*97) >> 24)
	}
}

func hash(h uint32, out []byte) uint32 {
	for _, b := range out {
		h = (h ^ uint32(b)) * 16777619
	}
	return h
}

func main() {
	%s
	for k := 0; k < 3; k++ {
		%s
		h := uint32(2166136261)
		%s
		say(h)
	}
}
`

// TestBindOnBoard builds a model's package four ways for the Cortex-M4 —
// default, with two pools, with two pools bound to application memory
// (-bind), and so with the inputs and outputs in the application's arrays
// too (-io external) — runs each on the emulated board for three Invokes and checks
// that TinyGo puts nothing on the heap and all four give the same
// outputs.
func TestBindOnBoard(t *testing.T) {
	tools := board.Require(t)
	path := filepath.Join("..", "testdata", "mobilenet_int8.tflite")
	if shared := sharedModels(); shared != "" {
		path = filepath.Join(shared, "dtln_noise_suppression.tflite") // persistent state (LSTM)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	base, err := Generate(filepath.Base(path), data, Options{Package: "p", NoTests: true})
	if err != nil {
		t.Fatal(err)
	}
	a := base.Layout.Plan.Size
	pools := []planner.Pool{{Name: "dtcm", Size: a / 3, Cost: 1}, {Name: "sram", Size: 2 * a, Cost: 3}}
	var outs []string
	for _, opt := range []Options{{}, {Pools: pools}, {Pools: pools, Bind: true}, {Pools: pools, Bind: true, ExternalIO: true}} {
		opt.Package, opt.NoTests = "p", true
		res, err := Generate(filepath.Base(path), data, opt)
		if err != nil {
			t.Fatal(err)
		}
		vars, bind := "", ""
		if opt.Bind {
			var args []string
			for _, p := range res.Layout.Pools {
				if len(p.Members) > 0 && p.IO == "" {
					n := strings.ToUpper(p.Name)
					// As a firmware puts a pool in its memory: a section
					// of its own (here one the board's linker script
					// gathers with .bss), aligned so that no slack is used.
					vars += fmt.Sprintf("//go:section .bss.tflm_%s\n//go:align 16\nvar mem%s p.%sMemory\n", p.Name, n, n)
					args = append(args, "&mem"+n)
				}
			}
			bind = "m.Bind(" + strings.Join(args, ", ") + ")"
		}
		invoke := "for i := 0; i < p.NumInputs; i++ {\n\t\t\tpattern(m.Input(i), i, k)\n\t\t}\n\t\tm.Invoke()"
		outputs := "for i := 0; i < p.NumOutputs; i++ {\n\t\t\th = hash(h, m.Output(i))\n\t\t}"
		if opt.ExternalIO {
			// The inputs and outputs where the application has them.
			var args []string
			invoke, outputs = "", ""
			for k := range res.Program.Graph.Inputs {
				vars += fmt.Sprintf("var in%d p.Input%d\n", k, k)
				invoke += fmt.Sprintf("pattern(in%d.Bytes(), %d, k)\n\t\t", k, k)
				args = append(args, fmt.Sprintf("&in%d", k))
			}
			for k := range res.Program.Graph.Outputs {
				vars += fmt.Sprintf("var out%d p.Output%d\n", k, k)
				outputs += fmt.Sprintf("h = hash(h, out%d.Bytes())\n\t\t", k)
				args = append(args, fmt.Sprintf("&out%d", k))
			}
			invoke += "m.Invoke(" + strings.Join(args, ", ") + ")"
		}
		dir := t.TempDir()
		pkgDir := filepath.Join(dir, "gen")
		if err := os.MkdirAll(pkgDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for n, b := range res.Files {
			if err := os.WriteFile(filepath.Join(pkgDir, n), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		mod := filepath.Join(dir, "mod")
		if err := board.Module(mod, pkgDir, map[string]string{"main.go": fmt.Sprintf(bindMain, vars, bind, invoke, outputs)}); err != nil {
			t.Fatal(err)
		}
		elf, allocs, err := tools.Build(mod, "-target=cortex-m4-qemu")
		if err != nil {
			t.Fatal(err)
		}
		if len(allocs) > 0 {
			t.Errorf("pools %v bind %v: heap allocations: %v", opt.Pools != nil, opt.Bind, allocs)
		}
		out, err := tools.Run(elf, 2*time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Count(string(out), "out ") != 3 {
			t.Fatalf("pools %v bind %v: board output %q, want three hashes", opt.Pools != nil, opt.Bind, out)
		}
		outs = append(outs, string(out))
	}
	t.Logf("board outputs: %q", outs)
	for i, o := range outs[1:] {
		if o != outs[0] {
			t.Errorf("outputs on the board differ: default %q, variant %d %q", outs[0], i+1, o)
		}
	}
}
