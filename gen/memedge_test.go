package gen

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/planner"
)

// TestMemoryOptionsEdgeCases generates graphs at the edges — without
// inputs, without outputs, with called subgraphs, long chains, a tensor
// read by fifty operators — with pools, -io external and -bind, alone and
// two to a package, and checks that every package compiles, vets, keeps to
// what TinyGo supports and passes its generated tests.
func TestMemoryOptionsEdgeCases(t *testing.T) {
	if testing.Short() {
		t.Skip("builds generated packages")
	}
	pools := []planner.Pool{{Name: "a", Size: 64, Cost: 1}, {Name: "b", Size: 1 << 20, Cost: 4}}
	models := []struct {
		name string
		data []byte
	}{
		{"noinputs", builder.NoInputs()}, {"nooutputs", builder.NoOutputs()}, {"tree", builder.CallOnceTree(3)},
		{"chain", builder.Chain(50)}, {"fan", builder.FanOut(50)},
	}
	opts := []Options{{Pools: pools}, {ExternalIO: true}, {Pools: pools, ExternalIO: true, Bind: true}, {Bind: true}}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module edge\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(name string, files map[string][]byte) {
		d := filepath.Join(dir, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for n, b := range files {
			if err := os.WriteFile(filepath.Join(d, n), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var dirs []string
	for _, m := range models {
		for k, o := range opts {
			o.Package = fmt.Sprintf("%s%d", m.name, k)
			res, err := Generate(m.name+".tflite", m.data, o)
			if err != nil {
				t.Fatalf("%s: %v", o.Package, err)
			}
			write(o.Package, res.Files)
			dirs = append(dirs, o.Package)
		}
		for k, o := range opts[:3] {
			o.Package = fmt.Sprintf("multi%s%d", m.name, k)
			res, err := GenerateMulti([]ModelFile{{m.name + ".tflite", m.data}, {"other_" + m.name + ".tflite", m.data}}, o)
			if err != nil {
				t.Fatalf("%s: %v", o.Package, err)
			}
			write(o.Package, res.Files)
			dirs = append(dirs, o.Package)
		}
	}
	for _, args := range [][]string{{"vet", "./..."}, {"test", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %v: %v\n%s", args, err, out)
		}
	}
	for _, d := range dirs {
		checkTinyGo(t, filepath.Join(dir, d))
	}
}
