package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// refModel is the part of a ../shared/ref/<model>.json file the tests use.
type refModel struct {
	Model string   `json:"model"`
	Ops   []string `json:"ops"`
	TFLM  struct {
		ArenaUsed  int `json:"arena_used_bytes"`
		LowerBound int `json:"liveness_lower_bound_bytes"`
		InvokeNs   int `json:"invoke_ns_median"`
		Planner    struct {
			Head int `json:"head_bytes"`
		} `json:"planner"`
	} `json:"tflm"`
	Cases map[string]struct {
		Status string `json:"invoke_status"`
	} `json:"cases"`
}

// loadRefs reads every reference JSON; names are the model names, sorted.
func loadRefs(t *testing.T, shared string) (refs map[string]*refModel, names []string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(shared, "ref", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no reference JSON in %s/ref: %v", shared, err)
	}
	out := map[string]*refModel{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r := &refModel{}
		if err := json.Unmarshal(b, r); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		n := strings.TrimSuffix(filepath.Base(f), ".json")
		out[n] = r
		names = append(names, n)
	}
	sort.Strings(names)
	return out, names
}

// TestReference generates every model in ../shared/ref, by default and,
// where the kernels differ, with -speed, runs it on both input patterns
// (natively and, unless -short, as 32-bit ARM and 386 under qemu) and
// compares each output with TFLite Micro's bytes.
func TestReference(t *testing.T) {
	shared := e2e.SharedDir(t)
	refs, names := loadRefs(t, shared)
	// Every model is built as the generator's default and, where that
	// differs, with -speed (every fast kernel variant).
	type built struct {
		model string
		g     *model.Graph
		res   *Result
	}
	gens := map[string]built{} // by variant: model name, or "name -speed"
	var variants []string
	var pkgs []e2e.Package
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(shared, "models", n+".tflite"))
		if err != nil {
			t.Errorf("%s: %v", n, err)
			continue
		}
		g, _ := model.Parse(n, data)
		pkg := e2e.PackageName(n)
		res, err := Generate(n+".tflite", data, Options{Package: pkg})
		if err != nil {
			t.Errorf("%s: generate: %v", n, err)
			continue
		}
		gens[n] = built{n, g, res}
		variants = append(variants, n)
		pkgs = append(pkgs, e2e.Package{Name: pkg, Files: res.Files})
		fast, err := Generate(n+".tflite", data, Options{Package: pkg + "_speed", Speed: true})
		if err != nil {
			t.Errorf("%s -speed: generate: %v", n, err)
			continue
		}
		// The same kernels and plan (model.go equal but for the package
		// name) add nothing to test.
		if bytes.Equal(res.Files["model.go"], bytes.ReplaceAll(fast.Files["model.go"], []byte(pkg+"_speed"), []byte(pkg))) {
			continue
		}
		gens[n+" -speed"] = built{n, g, fast}
		variants = append(variants, n+" -speed")
		pkgs = append(pkgs, e2e.Package{Name: pkg + "_speed", Files: fast.Files})
	}
	if len(pkgs) == 0 {
		t.Fatal("no model generated")
	}
	var jobs []e2e.Job
	type jobKey struct{ variant, pattern string }
	var keys []jobKey
	for i, v := range variants {
		b := gens[v]
		for _, pat := range []string{"ramp", "xorshift"} {
			j := e2e.Job{Package: pkgs[i].Name, Invokes: 1}
			for k := range b.g.Inputs {
				in, err := os.ReadFile(filepath.Join(shared, "ref", fmt.Sprintf("%s.%s.in%d.bin", b.model, pat, k)))
				if err != nil {
					t.Fatal(err)
				}
				j.Inputs = append(j.Inputs, in)
			}
			jobs = append(jobs, j)
			keys = append(keys, jobKey{v, pat})
		}
	}
	exact := map[string]map[string]int{}
	targets := refTargets()
	for _, tg := range targets {
		mod, err := e2e.Build(t.TempDir(), pkgs, tg.env...)
		if err != nil {
			t.Fatalf("%s: %v", tg.name, err)
		}
		results, err := mod.Run(jobs, tg.runner...)
		if err != nil {
			t.Fatalf("%s: %v", tg.name, err)
		}
		exact[tg.name] = map[string]int{}
		for i, r := range results {
			k := keys[i]
			b := gens[k.variant]
			ok := true
			for o, ti := range b.g.Outputs {
				want, err := os.ReadFile(filepath.Join(shared, "ref", fmt.Sprintf("%s.%s.out%d.bin", b.model, k.pattern, o)))
				if err != nil {
					t.Fatal(err)
				}
				match, msg := e2e.OutputsMatch(b.g.Tensors[ti], r.Outputs[0][o], want)
				if !match {
					ok = false
					t.Errorf("%s: %s %s output %d: %s", tg.name, k.variant, k.pattern, o, msg)
				} else if msg != "" && tg.name == "native" {
					t.Logf("%s %s output %d: %s", k.variant, k.pattern, o, msg)
				}
			}
			if ok {
				exact[tg.name][k.variant]++
			}
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n%-28s %-60s %9s %10s %10s %8s", "model", "ops", "ArenaSize", "TFLM arena", "TFLM head", "bound")
	for _, tg := range targets {
		fmt.Fprintf(&sb, " %8s", tg.name)
	}
	sb.WriteString("\n")
	for _, v := range variants {
		b := gens[v]
		r := refs[b.model]
		ops := strings.Join(uniq(r.Ops), ",")
		fmt.Fprintf(&sb, "%-28s %-60s %9d %10d %10d %8d", v, ops, b.res.Layout.Plan.Size, r.TFLM.ArenaUsed, r.TFLM.Planner.Head, r.TFLM.LowerBound)
		for _, tg := range targets {
			fmt.Fprintf(&sb, " %6d/2", exact[tg.name][v])
		}
		sb.WriteString("\n")
	}
	t.Log(sb.String())
}

// refTarget is an architecture the reference test runs generated code on.
type refTarget struct {
	name   string
	env    []string // for go build
	runner []string // command prefix to run the driver
}

// refTargets is the host plus 32-bit ARM and 386 under qemu-user when it is
// installed (.ci/run installs it). Async preemption is off for 386 because
// its signals crash Go binaries under qemu-i386, and so are the garbage
// collector and all but one P: a collection's stop of the world crashed the
// runtime under qemu-i386 once ("wirep: already in go", "stopm holding
// locks"), and the kernels' arithmetic, which the test is for, does not
// depend on either.
func refTargets() []refTarget {
	ts := []refTarget{{name: "native"}}
	if testing.Short() {
		return ts
	}
	if _, err := exec.LookPath("qemu-arm-static"); err == nil {
		ts = append(ts, refTarget{"arm", []string{"GOOS=linux", "GOARCH=arm", "GOARM=7"}, []string{"qemu-arm-static"}})
	}
	if _, err := exec.LookPath("qemu-i386-static"); err == nil {
		ts = append(ts, refTarget{"386", []string{"GOOS=linux", "GOARCH=386"}, []string{"env", "GODEBUG=asyncpreemptoff=1", "GOGC=off", "GOMAXPROCS=1", "qemu-i386-static"}})
	}
	return ts
}

func uniq(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}
