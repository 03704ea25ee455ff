package gen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tflm-gen/tflm-gen/internal/devtools/board"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/planner"
)

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
		decls, bind := "var m0 p.Model\n", ""
		if opt.Bind {
			var args []string
			for _, p := range res.Layout.Pools {
				if len(p.Members) > 0 && p.IO == "" {
					n := strings.ToUpper(p.Name)
					// As a firmware puts a pool in its memory: a section
					// of its own (here one the board's linker script
					// gathers with .bss), aligned so that no slack is used.
					decls += fmt.Sprintf("//go:section .bss.tflm_%s\n//go:align 16\nvar mem%s p.%sMemory\n", p.Name, n, n)
					args = append(args, "&mem"+n)
				}
			}
			bind = "m0.Bind(" + strings.Join(args, ", ") + ")"
		}
		var g *model.Graph
		if opt.ExternalIO {
			g = res.Program.Graph // the inputs and outputs where the application has them
		}
		var d strings.Builder
		d.WriteString(decls)
		block := driverBlock(&d, 0, "p.", "", g, "out")
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
		if err := board.Module(mod, pkgDir, map[string]string{"main.go": fmt.Sprintf(multiMain, "\tp \"tg/p\"\n", d.String(), bind, block), "say_board.go": sayBoard}); err != nil {
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
		if strings.Count(string(out), "out ") != 3 { // multiMain: say("out", h) after each Invoke
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
