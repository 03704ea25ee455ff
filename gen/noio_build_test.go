package gen

import (
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"
)

// TestGraphWithoutInputsOrOutputs: a graph without inputs, or without
// outputs, runs in TFLite Micro; its package compiles (with its generated
// tests, which pass) and runs: issue 26 found `declared and not used: a`.
func TestGraphWithoutInputsOrOutputs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds generated packages")
	}
	f32 := func(v ...float32) []byte {
		b := make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
		}
		return b
	}
	for _, tc := range []struct {
		name   string
		data   []byte
		inputs [][]byte
		want   [][]byte // outputs after each of two Invokes
	}{
		{"noinputs", builder.NoInputs(), nil, [][]byte{f32(1, 2, 3, 4), f32(1, 2, 3, 4)}},
		{"nooutputs", builder.NoOutputs(), [][]byte{f32(1, -2, 3, -4)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Generate(tc.name+".tflite", tc.data, Options{Package: tc.name})
			if err != nil {
				t.Fatal(err)
			}
			mod, err := e2e.Build(t.TempDir(), []e2e.Package{{Name: tc.name, Files: res.Files}})
			if err != nil {
				t.Fatal(err)
			}
			checkTinyGo(t, filepath.Join(mod.Dir, tc.name))
			for _, args := range [][]string{{"vet", "./" + tc.name}, {"test", "./" + tc.name}} {
				cmd := exec.Command("go", args...)
				cmd.Dir = mod.Dir
				cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("go %v: %v\n%s", args, err, out)
				}
			}
			r, err := mod.Run([]e2e.Job{{Package: tc.name, Inputs: tc.inputs, Invokes: 2}})
			if err != nil {
				t.Fatal(err)
			}
			var got [][]byte
			for _, inv := range r[0].Outputs {
				got = append(got, inv...)
			}
			if !slices.EqualFunc(got, tc.want, slices.Equal) {
				t.Errorf("outputs %v, want %v", got, tc.want)
			}
		})
	}
}
