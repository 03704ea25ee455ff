package gen

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"
	"github.com/tflm-gen/tflm-gen/planner"
)

// poolConfigs are the multi-pool and Bind variants TestPoolsBitExact
// generates for a model whose default arena is a bytes: a fast pool too
// small for the peak (so that buffers are split), three pools, Bind with
// and without pools, and one pool of exactly the default arena.
func poolConfigs(a int) []struct {
	name string
	opt  Options
} {
	two := []planner.Pool{{Name: "fast", Size: a / 3, Cost: 1}, {Name: "slow", Size: 2 * a, Cost: 4}}
	three := []planner.Pool{{Name: "dtcm", Size: a / 8, Cost: 1}, {Name: "sram", Size: a / 3, Cost: 3}, {Name: "psram", Size: 4 * a, Cost: 12}}
	return []struct {
		name string
		opt  Options
	}{
		{"pools2", Options{Pools: two}},
		{"pools3", Options{Pools: three}},
		{"bind", Options{Bind: true}},
		{"pools2bind", Options{Pools: two, Bind: true}},
		{"onepool", Options{Pools: []planner.Pool{{Name: "ram", Size: a, Cost: 1}}}},
		{"io", Options{ExternalIO: true}},
		{"iopools3bind", Options{Pools: three, Bind: true, ExternalIO: true}},
	}
}

// TestPoolsBitExact generates each fixture model (and, with ../shared,
// three reference models, one with persistent state) in every poolConfigs
// variant, builds all the packages and runs them on the same random inputs
// for three Invokes: every variant's outputs must equal the default
// package's byte for byte. It checks the plans too: every pool within its
// capacity, the cost between its bound and all-in-the-dearest-pool, one
// pool the default plan exactly.
func TestPoolsBitExact(t *testing.T) {
	if testing.Short() {
		t.Skip("builds generated packages")
	}
	paths, _ := filepath.Glob(filepath.Join("..", "testdata", "*.tflite"))
	if shared := sharedModels(); shared != "" {
		for _, m := range []string{"person_detect", "keyword_scrambled", "dtln_noise_suppression"} {
			paths = append(paths, filepath.Join(shared, m+".tflite"))
		}
	} else {
		t.Log("../shared/models absent: the fixtures only")
	}
	var pkgs []e2e.Package
	var jobs []e2e.Job
	var want []string // per job: the package its outputs must equal
	rng := rand.New(rand.NewPCG(1, 2))
	for k, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("m%d", k)
		base, err := Generate(filepath.Base(path), data, Options{Package: name, NoTests: true})
		if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, e2e.Package{Name: name, Files: base.Files})
		var inputs [][]byte
		for _, ti := range base.Program.Graph.Inputs {
			in := make([]byte, base.Program.Graph.Tensors[ti].Bytes())
			for i := range in {
				in[i] = byte(rng.Uint32())
			}
			inputs = append(inputs, in)
		}
		jobs = append(jobs, e2e.Job{Package: name, Inputs: inputs, Invokes: 3})
		want = append(want, "")
		arena := base.Layout.Plan.Size
		for _, c := range poolConfigs(arena) {
			opt := c.opt
			opt.Package, opt.NoTests = name+c.name, c.name != "pools2bind" && c.name != "iopools3bind"
			res, err := Generate(filepath.Base(path), data, opt)
			if err != nil {
				t.Fatalf("%s %s: %v", path, c.name, err)
			}
			checkPools(t, path+" "+c.name, res, base)
			pkg := e2e.Package{Name: opt.Package, Files: res.Files, IO: opt.ExternalIO}
			if opt.ExternalIO {
				for k := range res.Program.Graph.Inputs {
					pkg.In = append(pkg.In, k)
				}
				for k := range res.Program.Graph.Outputs {
					pkg.Out = append(pkg.Out, k)
				}
			}
			if opt.Bind {
				pkg.Bind = []string{"Memory"}
				if opt.Pools != nil {
					pkg.Bind = nil
					for _, p := range res.Layout.Pools {
						if len(p.Members) > 0 && p.IO == "" {
							pkg.Bind = append(pkg.Bind, strings.ToUpper(p.Name)+"Memory")
						}
					}
				}
			}
			pkgs = append(pkgs, pkg)
			jobs = append(jobs, e2e.Job{Package: opt.Package, Inputs: inputs, Invokes: 3})
			want = append(want, name)
		}
	}
	mod, err := e2e.Build(t.TempDir(), pkgs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := mod.Run(jobs)
	if err != nil {
		t.Fatal(err)
	}
	byPkg := map[string]e2e.Result{}
	for i, j := range jobs {
		byPkg[j.Package] = res[i]
	}
	for i, j := range jobs {
		if want[i] == "" {
			continue
		}
		got, exp := res[i].Outputs, byPkg[want[i]].Outputs
		if !slices.EqualFunc(got, exp, func(a, b [][]byte) bool { return slices.EqualFunc(a, b, bytes.Equal) }) {
			t.Errorf("%s: outputs differ from %s's (%s)", j.Package, want[i], paths[indexOf(want[i])])
		}
	}
	// The generated tests of the Bind packages (allocation-free Invoke,
	// independent Models) pass, and every package's Invoke path keeps to
	// what TinyGo supports without allocating.
	goTest(t, mod.Dir, "./...")
	for _, p := range pkgs {
		checkTinyGo(t, filepath.Join(mod.Dir, p.Name))
	}
}

// indexOf returns k for package name "m<k>".
func indexOf(name string) int {
	var k int
	fmt.Sscanf(name, "m%d", &k)
	return k
}

// sharedModels is ../shared/models, "" when absent.
func sharedModels() string {
	dir := os.Getenv("TFLM_SHARED")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared")
	}
	dir = filepath.Join(dir, "models")
	if _, err := os.Stat(dir); err != nil {
		return ""
	}
	return dir
}

// checkPools checks a multi-pool plan: each pool within its capacity, every
// buffer in one pool, the cost between its bound and the all-dearest cost,
// and one pool exactly the default plan.
func checkPools(t *testing.T, what string, res, base *Result) {
	t.Helper()
	l := res.Layout
	ext := 0
	for _, p := range l.Pools {
		if p.IO != "" {
			ext += p.Plan.Size
		}
	}
	if ext > 0 && l.Pools[0].Name == "" {
		// -io external, one arena: it never grows. It may shrink by more
		// than the inputs and outputs took: the schedule is chosen for the
		// arena without them (fusion where they no longer set the peak).
		if a, d := l.ArenaSize(), base.Layout.Plan.Size; a > d {
			t.Errorf("%s: arena %d, default %d, external inputs and outputs %d bytes", what, a, d, ext)
		}
		t.Logf("%s: arena %d (default %d), inputs and outputs outside it %d bytes", what, l.ArenaSize(), base.Layout.Plan.Size, ext)
		return
	}
	if l.Pools == nil {
		if res.Layout.Plan.Size != base.Layout.Plan.Size {
			t.Errorf("%s: arena %d, default %d", what, res.Layout.Plan.Size, base.Layout.Plan.Size)
		}
		return
	}
	seen := make([]int, len(res.Program.Buffers))
	for i, p := range l.Pools {
		if p.Plan.Size > p.Size && p.IO == "" {
			t.Errorf("%s: pool %s: plan %d bytes over its capacity %d", what, p.Name, p.Plan.Size, p.Size)
		}
		for _, b := range p.Members {
			seen[b]++
			if l.PoolOf[b] != i {
				t.Errorf("%s: buffer %d listed in pool %s, PoolOf %d", what, b, p.Name, l.PoolOf[b])
			}
		}
	}
	for b, n := range seen {
		if n != 1 {
			t.Errorf("%s: buffer %d in %d pools", what, b, n)
		}
	}
	if ext == 0 && !(l.FastCost <= l.Bound && l.Bound <= l.Cost && l.Cost <= l.SlowCost) {
		t.Errorf("%s: costs: all cheapest %d, bound %d, cost %d, all dearest %d: want them in this order", what, l.FastCost, l.Bound, l.Cost, l.SlowCost)
	}
	if len(l.Pools) == 1 && !slices.Equal(l.Plan.Offsets, base.Layout.Plan.Offsets) {
		t.Errorf("%s: one pool: offsets %v, want the default plan's %v", what, l.Plan.Offsets, base.Layout.Plan.Offsets)
	}
	t.Logf("%s: arena %d (default %d): cost %d, bound %d, all cheapest %d, all dearest %d", what, l.Plan.Size, base.Layout.Plan.Size, l.Cost, l.Bound, l.FastCost, l.SlowCost)
}

// goTest runs go test on packages of the module in dir.
func goTest(t *testing.T, dir string, pkgs ...string) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"test"}, pkgs...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test %v: %v\n%s", pkgs, err, out)
	}
}
