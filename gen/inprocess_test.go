package gen

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/run"
	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// inProcessInvokes is how many Invokes each case runs: the second shows
// that state (LSTM, SVDF) carries over alike in both.
const inProcessInvokes = 2

// TestInProcessMatchesBuiltPackage runs every reference model and the
// testdata fixtures, by default and with -speed, in-process (package
// gen/run) on both input patterns, and checks the outputs of every Invoke
// byte for byte against the generated package built and run through e2e,
// and the first Invoke against TFLite Micro's reference outputs where there
// are any. Without this agreement, in-process differential tests would not
// speak for the generated code.
func TestInProcessMatchesBuiltPackage(t *testing.T) {
	type source struct {
		name string // model name (file base name without .tflite)
		data []byte
		ref  bool // inputs and TFLM outputs in shared/ref
	}
	var sources []source
	fixtures, err := filepath.Glob(filepath.Join("..", "testdata", "*.tflite"))
	if err != nil || len(fixtures) == 0 {
		t.Fatalf("no fixtures in testdata: %v", err)
	}
	for _, f := range fixtures {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, source{strings.TrimSuffix(filepath.Base(f), ".tflite"), data, false})
	}
	// Without shared/ the fixtures still run: SharedDir skips only this
	// subtest.
	shared := ""
	t.Run("shared", func(t *testing.T) { shared = e2e.SharedDir(t) })
	if shared != "" {
		models, err := filepath.Glob(filepath.Join(shared, "models", "*.tflite"))
		if err != nil || len(models) == 0 {
			t.Fatalf("no models in %s/models: %v", shared, err)
		}
		for _, f := range models {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			n := strings.TrimSuffix(filepath.Base(f), ".tflite")
			_, err = os.Stat(filepath.Join(shared, "ref", n+".ramp.in0.bin"))
			sources = append(sources, source{n, data, err == nil})
		}
	} else {
		t.Log("reference models absent: fixtures only")
	}
	sort.Slice(sources, func(i, j int) bool { return sources[i].name < sources[j].name })

	// One case is a variant (default or -speed) of a model on one input
	// pattern. A -speed variant whose model.go equals the default's (but
	// for the package name) runs the default's built package.
	type variant struct {
		label string // "model" or "model -speed"
		src   source
		g     *model.Graph
		res   *Result
		pkg   string // package the driver runs
	}
	var variants []variant
	var pkgs []e2e.Package
	for _, s := range sources {
		pkg := e2e.PackageName(s.name)
		def, err := Generate(s.name+".tflite", s.data, Options{Package: pkg, NoTests: true})
		if err != nil {
			t.Errorf("%s: generate: %v", s.name, err)
			continue
		}
		variants = append(variants, variant{s.name, s, def.Program.Graph, def, pkg})
		pkgs = append(pkgs, e2e.Package{Name: pkg, Files: def.Files})
		fast, err := Generate(s.name+".tflite", s.data, Options{Package: pkg + "_speed", Speed: true, NoTests: true})
		if err != nil {
			t.Errorf("%s -speed: generate: %v", s.name, err)
			continue
		}
		fastPkg := pkg
		if !bytes.Equal(def.Files["model.go"], bytes.ReplaceAll(fast.Files["model.go"], []byte(pkg+"_speed"), []byte(pkg))) {
			fastPkg = pkg + "_speed"
			pkgs = append(pkgs, e2e.Package{Name: fastPkg, Files: fast.Files})
		}
		variants = append(variants, variant{s.name + " -speed", s, fast.Program.Graph, fast, fastPkg})
	}
	if len(variants) == 0 {
		t.Fatal("no model generated")
	}

	type tcase struct {
		v       *variant
		pattern string
		inputs  [][]byte
		got     [][][]byte // in-process outputs per Invoke
	}
	var cases []*tcase
	var jobs []e2e.Job
	for i := range variants {
		v := &variants[i]
		for _, pat := range []string{"ramp", "xorshift"} {
			c := &tcase{v: v, pattern: pat}
			for k, ti := range v.g.Inputs {
				var in []byte
				if v.src.ref {
					in, err = os.ReadFile(filepath.Join(shared, "ref", fmt.Sprintf("%s.%s.in%d.bin", v.src.name, pat, k)))
					if err != nil {
						t.Fatal(err)
					}
				} else {
					in = patternInput(v.g.Tensors[ti], pat, k)
				}
				c.inputs = append(c.inputs, in)
			}
			m, err := run.New(v.res.Program, v.res.Layout)
			if err != nil {
				t.Errorf("%s: %v", v.label, err)
				continue
			}
			for range inProcessInvokes {
				// The inputs again before every Invoke, as the API asks
				// (an Invoke may reuse their memory, and what it leaves
				// there is no defined value).
				for k, in := range c.inputs {
					if n := copy(m.Input(k), in); n != len(in) || n != len(m.Input(k)) {
						t.Fatalf("%s %s input %d: %d bytes for a %d-byte tensor", v.label, pat, k, len(in), len(m.Input(k)))
					}
				}
				m.Invoke()
				var outs [][]byte
				for o := range v.g.Outputs {
					outs = append(outs, append([]byte(nil), m.Output(o)...))
				}
				c.got = append(c.got, outs)
			}
			cases = append(cases, c)
			jobs = append(jobs, e2e.Job{Package: v.pkg, Inputs: c.inputs, Invokes: inProcessInvokes})
		}
	}

	mod, err := e2e.Build(t.TempDir(), pkgs)
	if err != nil {
		t.Fatal(err)
	}
	results, err := mod.Run(jobs)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != len(cases) {
		t.Fatalf("%d results for %d jobs", len(results), len(cases))
	}
	agree, tflm, tflmCases := 0, 0, 0
	for i, c := range cases {
		v, r := c.v, results[i]
		ok := len(r.Outputs) == inProcessInvokes
		if !ok {
			t.Errorf("%s %s: built package ran %d Invokes, want %d", v.label, c.pattern, len(r.Outputs), inProcessInvokes)
		}
		for k := 0; ok && k < inProcessInvokes; k++ {
			for o := range v.g.Outputs {
				if !bytes.Equal(c.got[k][o], r.Outputs[k][o]) {
					ok = false
					t.Errorf("%s %s Invoke %d output %d: in-process and built package differ: %s", v.label, c.pattern, k+1, o, firstByteDiff(c.got[k][o], r.Outputs[k][o]))
				}
			}
		}
		if ok {
			agree++
		}
		if !v.src.ref {
			continue
		}
		tflmCases++
		match := true
		for o, ti := range v.g.Outputs {
			want, err := os.ReadFile(filepath.Join(shared, "ref", fmt.Sprintf("%s.%s.out%d.bin", v.src.name, c.pattern, o)))
			if err != nil {
				t.Fatal(err)
			}
			if m, msg := e2e.OutputsMatch(v.g.Tensors[ti], c.got[0][o], want); !m {
				match = false
				t.Errorf("%s %s output %d: in-process run differs from TFLM: %s", v.label, c.pattern, o, msg)
			}
		}
		if match {
			tflm++
		}
	}
	t.Logf("%d variants (%d packages built) of %d models, %d cases x %d Invokes: in-process = built package in %d/%d; in-process = TFLM (first Invoke) in %d/%d",
		len(variants), len(pkgs), len(sources), len(cases), inProcessInvokes, agree, len(cases), tflm, tflmCases)
}

// patternInput is a deterministic input for a model without reference
// data: a ramp or an xorshift sequence over the tensor's element type, as
// values (float inputs in [-1, 1), integers over the type's range).
func patternInput(t *model.Tensor, pattern string, k int) []byte {
	n := t.NumElements()
	out := make([]byte, t.Bytes())
	x := uint32(0x9e3779b9) ^ uint32(k+1)*0x85ebca6b
	next := func(i int) uint32 {
		if pattern == "ramp" {
			return uint32(i*7 + k*13)
		}
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		return x
	}
	for i := range n {
		r := next(i)
		switch t.Type {
		case model.Float32:
			f := float32(int32(r%2048)-1024) / 1024
			binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(f))
		default:
			sz := t.Type.Size()
			for b := range sz {
				out[i*sz+b] = byte(r >> (8 * b))
			}
		}
	}
	return out
}

// firstByteDiff describes where two byte slices first differ.
func firstByteDiff(a, b []byte) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d bytes, built %d", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			return fmt.Sprintf("byte %d is %d, built %d", i, a[i], b[i])
		}
	}
	return "equal"
}

// TestInProcessStateful runs the stateful reference models in-process for
// the ten Invokes of shared/ref/stateful (new inputs before each Invoke, no
// Reset in between), by default and with -speed, and compares every
// Invoke's outputs with TFLite Micro's: the carried state (LSTM cell and
// hidden state, SVDF activations) must evolve as in TFLM. No package is
// built, which is what in-process running is for.
func TestInProcessStateful(t *testing.T) {
	shared := e2e.SharedDir(t)
	dir := filepath.Join(shared, "ref", "stateful")
	jsons, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(jsons) == 0 {
		t.Skipf("no multi-Invoke references in %s: %v", dir, err)
	}
	const invokes = 10
	matched, total := 0, 0
	for _, j := range jsons {
		name := strings.TrimSuffix(filepath.Base(j), ".json")
		data, err := os.ReadFile(filepath.Join(shared, "models", name+".tflite"))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for _, speed := range []bool{false, true} {
			label := name
			if speed {
				label += " -speed"
			}
			p, l, err := Lower(name+".tflite", data, Options{Package: "m", Speed: speed})
			if err != nil {
				t.Errorf("%s: %v", label, err)
				continue
			}
			for _, pat := range []string{"ramp", "xorshift"} {
				m, err := run.New(p, l)
				if err != nil {
					t.Fatalf("%s: %v", label, err)
				}
				ok := true
				for i := range invokes {
					for k := range p.Graph.Inputs {
						in, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%s.%s.inv%d.in%d.bin", name, pat, i, k)))
						if err != nil {
							t.Fatal(err)
						}
						if n := copy(m.Input(k), in); n != len(in) || n != len(m.Input(k)) {
							t.Fatalf("%s %s Invoke %d input %d: %d bytes for a %d-byte tensor", label, pat, i, k, len(in), len(m.Input(k)))
						}
					}
					m.Invoke()
					for o, ti := range p.Graph.Outputs {
						want, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%s.%s.inv%d.out%d.bin", name, pat, i, o)))
						if err != nil {
							t.Fatal(err)
						}
						if match, msg := e2e.OutputsMatch(p.Graph.Tensors[ti], m.Output(o), want); !match {
							ok = false
							t.Errorf("%s %s Invoke %d output %d: %s", label, pat, i, o, msg)
						}
					}
				}
				total++
				if ok {
					matched++
				}
			}
		}
	}
	t.Logf("%d/%d model variants x patterns match TFLM on all %d Invokes", matched, total, invokes)
}
