//go:build unix

package gen

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/planner"
)

// cpuTime is the user plus system CPU time of this process so far: unlike
// wall-clock time, it does not grow when other processes load the machine.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestGenerationTime generates every model the project knows (the
// reference models, TFLM's operator vectors, the example fixtures), default
// and -speed, one after another, and fails when one takes a second of CPU
// time or more (the planner's budget counts steps, so the work is bounded
// whatever the machine). It logs the slowest.
func TestGenerationTime(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 140 models")
	}
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "*.tflite"))
	shared := e2e.SharedDir(t)
	more, _ := filepath.Glob(filepath.Join(shared, "models", "*.tflite"))
	files = append(files, more...)
	filepath.WalkDir(filepath.Join(shared, "vectors"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(path) == ".tflite" {
			files = append(files, path)
		}
		return nil
	})
	type timing struct {
		name     string
		cpu, all time.Duration
	}
	var times []timing
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, speed := range []bool{false, true} {
			c0, w0 := cpuTime(t), time.Now()
			if _, err := Generate(f, data, Options{Package: "m", Speed: speed}); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			name := filepath.Base(f)
			if speed {
				name += " -speed"
			}
			times = append(times, timing{name, cpuTime(t) - c0, time.Since(w0)})
		}
	}
	sort.Slice(times, func(a, b int) bool { return times[a].cpu > times[b].cpu })
	for _, tm := range times[:min(5, len(times))] {
		t.Logf("%-40s %6.1f ms CPU, %6.1f ms wall", tm.name, tm.cpu.Seconds()*1e3, tm.all.Seconds()*1e3)
	}
	t.Logf("%d generations; slowest %s: %.1f ms CPU", len(times), times[0].name, times[0].cpu.Seconds()*1e3)
	for _, tm := range times {
		if tm.cpu >= time.Second {
			t.Errorf("%s: %v of CPU time, want under 1 s", tm.name, tm.cpu)
		}
	}
}

// branchyModel is a float32 model of n operators in which every operator
// reads the previous tensor and often one from up to 20 operators back
// (CONCATENATION of the two, then FULLY_CONNECTED to a random width), like
// the skip connections of keyword-spotting and landmark networks: a
// planning problem on which the heuristics miss the lower bound, so the
// exact search runs until its budget ends.
func branchyModel(r *rand.Rand, n int) []byte {
	m := builder.New("branchy")
	width := func() int { return 4 * (1 + r.IntN(16)) * (1 + r.IntN(3)) }
	d := width()
	in := m.Tensor("in", model.Float32, []int{1, d}, nil)
	ts, ds := []int{in}, []int{d}
	x := in
	for len(ts) < n {
		k := len(ts)
		xd := ds[k-1]
		if r.IntN(3) == 0 {
			j := max(0, k-2-r.IntN(20))
			cd := xd + ds[j]
			c := m.Tensor(fmt.Sprint("cat", k), model.Float32, []int{1, cd}, nil)
			m.Op(model.OpConcatenation, []int{x, ts[j]}, []int{c}, &builder.Options{Type: model.UnionConcatenationOptions, Fields: []builder.Field{builder.Int(model.ConcatenationOptionsAxis, 1)}})
			x, xd = c, cd
		}
		od := width()
		w := m.ConstF32(fmt.Sprint("w", k), []int{od, xd}, make([]float32, od*xd))
		y := m.Tensor(fmt.Sprint("fc", k), model.Float32, []int{1, od}, nil)
		m.Op(model.OpFullyConnected, []int{x, w, -1}, []int{y}, nil)
		ts, ds, x = append(ts, y), append(ds, od), y
	}
	m.IO([]int{in}, []int{x})
	return m.Bytes()
}

// TestGenerationTimeBranchy: models of about 200 buffers whose plans need
// the exact search generate in under a second of CPU time each: the search
// budget is shared by all plans of a generation, a step is cheap, and the
// plan says when the budget ended before the bound was proven.
func TestGenerationTimeBranchy(t *testing.T) {
	searched := 0
	for seed := uint64(0); seed < 6; seed++ {
		data := branchyModel(rand.New(rand.NewPCG(seed, 9)), 150)
		c0 := cpuTime(t)
		res, err := Generate("branchy.tflite", data, Options{Package: "m"})
		if err != nil {
			t.Fatal(err)
		}
		cpu := cpuTime(t) - c0
		p := res.Layout.Plan
		t.Logf("seed %d: %d bytes, %d buffers, %d operators: %.0f ms CPU; arena %d, bound %d, %s, %d search steps",
			seed, len(data), len(res.Program.Buffers), len(res.Program.Ops), cpu.Seconds()*1e3, p.Size, p.LowerBound, p.CertText(), p.Steps)
		if cpu >= time.Second {
			t.Errorf("seed %d: %v of CPU time, want under 1 s", seed, cpu)
		}
		if p.Steps > 0 {
			searched++
		}
		if p.Cert == planner.BestFound && !strings.Contains(string(res.Files["layout.txt"]), "search budget ran out") {
			t.Errorf("seed %d: layout.txt does not say the budget ran out", seed)
		}
	}
	if searched == 0 {
		t.Error("no model needed the exact search")
	}
}
