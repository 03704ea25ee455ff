package gen

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"
	"github.com/tflm-gen/tflm-gen/internal/devtools/oracle"

	"github.com/tflm-gen/tflm-gen/internal/model"
)

// offlineModels lists the fixture models and, when present, the reference
// models.
func offlineModels(t *testing.T) map[string]string {
	out := map[string]string{}
	fix, _ := filepath.Glob(filepath.Join("..", "testdata", "*.tflite"))
	for _, f := range fix {
		out[filepath.Base(f)] = f
	}
	if fileExists(filepath.Join("..", "..", "shared", "models")) || os.Getenv("TFLM_SHARED") != "" {
		refs, _ := filepath.Glob(filepath.Join(e2e.SharedDir(t), "models", "*.tflite"))
		for _, f := range refs {
			out[filepath.Base(f)] = f
		}
	}
	return out
}

var headerLines = regexp.MustCompile(`(?m)^(// Model: |// SHA-256: |# Memory layout of |  "sha256": ).*$`)

// TestEmitOffline checks -emit-offline: the output parses, its
// OfflineMemoryAllocation metadata decodes to exactly our plan, the plan
// never overlaps tensors live at the same time, the graph is otherwise
// unchanged, and generating Go from the output gives the same package.
func TestEmitOffline(t *testing.T) {
	for name, path := range offlineModels(t) {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			out, err := EmitOffline(name, data, Options{Package: "p"})
			if err != nil {
				t.Fatal(err)
			}
			g0, err := model.Parse(name, data)
			if err != nil {
				t.Fatal(err)
			}
			g1, err := model.Parse(name, out)
			if err != nil {
				t.Fatalf("output does not parse: %v", err)
			}
			meta, ok := g1.Metadata[OfflineMetadataName]
			if !ok {
				t.Fatal("no OfflineMemoryAllocation metadata")
			}
			want, plan, err := offlinePlan(g0, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(meta) != 4*(3+len(g0.Tensors)) {
				t.Fatalf("metadata is %d bytes, want %d", len(meta), 4*(3+len(g0.Tensors)))
			}
			if n := binary.LittleEndian.Uint32(meta[8:]); int(n) != len(g0.Tensors) {
				t.Fatalf("metadata counts %d offsets, model has %d tensors", n, len(g0.Tensors))
			}
			for i := range want {
				got := int32(binary.LittleEndian.Uint32(meta[12+4*i:]))
				if got != want[i] {
					t.Fatalf("tensor %d: offset %d in metadata, plan has %d", i, got, want[i])
				}
				tt := g0.Tensors[i]
				if (got < 0) != (tt.IsConst() || tt.IsVariable || !used(g0, i)) {
					t.Errorf("tensor %d (%s): offset %d", i, tt.Describe(), got)
				}
			}
			// No two tensors live at the same time may overlap.
			life := g0.Lifetimes()
			for i := range want {
				for j := i + 1; j < len(want); j++ {
					a, b := want[i], want[j]
					if a < 0 || b < 0 {
						continue
					}
					li, lj := life[i], life[j]
					if li[0] <= lj[1] && lj[0] <= li[1] &&
						int(a) < int(b)+g0.Tensors[j].Bytes() && int(b) < int(a)+g0.Tensors[i].Bytes() {
						t.Fatalf("tensors %d and %d are live together and overlap", i, j)
					}
				}
			}
			t.Logf("offline plan %d bytes (%s)", plan.Size, plan.CertText())
			// Everything else unchanged.
			delete(g1.Metadata, OfflineMetadataName)
			if !reflect.DeepEqual(g0.Tensors, g1.Tensors) || !reflect.DeepEqual(g0.Metadata, g1.Metadata) ||
				!reflect.DeepEqual(g0.Inputs, g1.Inputs) || !reflect.DeepEqual(g0.Outputs, g1.Outputs) ||
				g0.Description != g1.Description || len(g0.Ops) != len(g1.Ops) {
				t.Error("graph differs apart from the metadata")
			}
			for i, op := range g0.Ops {
				o := g1.Ops[i]
				if op.Code != o.Code || op.Version != o.Version || !reflect.DeepEqual(op.Inputs, o.Inputs) ||
					!reflect.DeepEqual(op.Outputs, o.Outputs) || op.Options().Type() != o.Options().Type() {
					t.Errorf("operator %d differs", i)
				}
			}
			// Same package from either file, but for the header lines.
			r0, err0 := Generate(name, data, Options{Package: "p"})
			r1, err1 := Generate(name, out, Options{Package: "p"})
			if (err0 == nil) != (err1 == nil) {
				t.Fatalf("generation errors differ: %v / %v", err0, err1)
			}
			if err0 != nil {
				return
			}
			for n, b := range r0.Files {
				if !bytes.Equal(headerLines.ReplaceAll(b, nil), headerLines.ReplaceAll(r1.Files[n], nil)) {
					t.Errorf("%s differs when generated from the -emit-offline output", n)
				}
			}
			// Emitting again replaces the entry rather than adding one.
			again, err := EmitOffline(name, out, Options{Package: "p"})
			if err != nil {
				t.Fatal(err)
			}
			g2, err := model.Parse(name, again)
			if err != nil || len(g2.Metadata) != len(g1.Metadata)+1 {
				t.Errorf("re-emitting: %v, %d metadata entries", err, len(g2.Metadata))
			}
		})
	}
}

func used(g *model.Graph, t int) bool {
	for _, x := range append(append([]int{}, g.Inputs...), g.Outputs...) {
		if x == t {
			return true
		}
	}
	for _, op := range g.Ops {
		for _, x := range append(append([]int{}, op.Inputs...), op.Outputs...) {
			if x == t {
				return true
			}
		}
	}
	return false
}

// TestEmitOfflineInTFLM runs every reference model in TFLite Micro as it
// is and with the exported offline plan: TFLM must compute the same
// outputs, and its arena must not grow (the export reserves the scratch
// TFLM's kernels request, lower.TFLMScratch). It logs both arenas.
func TestEmitOfflineInTFLM(t *testing.T) {
	o := oracle.New(t)
	files, _ := filepath.Glob(filepath.Join(e2e.SharedDir(t), "models", "*.tflite"))
	if len(files) == 0 {
		t.Skip("no models in shared/models")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			off, err := EmitOffline(f, data, Options{})
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			base, want, err := o.Patterns(data)
			oracle.SkipIfNotRecorded(t, err, filepath.Base(f))
			if err != nil {
				t.Fatalf("%s: TFLM: %v", f, err)
			}
			used, got, err := o.Patterns(off)
			oracle.SkipIfNotRecorded(t, err, filepath.Base(f)+" with the offline plan")
			if err != nil {
				t.Fatalf("%s with the offline plan: TFLM: %v", f, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: TFLM's outputs change with the offline plan", filepath.Base(f))
			}
			t.Logf("%-32s TFLM arena %6d bytes, with the exported plan %6d", filepath.Base(f), base, used)
			if used > base {
				t.Errorf("%s: the exported plan makes TFLM's arena %d bytes, %d more than its own plan's %d", filepath.Base(f), used, used-base, base)
			}
		})
	}
}
