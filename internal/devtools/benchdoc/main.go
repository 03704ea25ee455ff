// Command benchdoc measures Invoke of the packages generated from every
// reference model (../shared/ref) and example (testdata/) and writes the
// comparison with TensorFlow Lite Micro to BENCH.md.
//
//	go run ./internal/devtools/benchdoc [-shared ../shared] [-o BENCH.md] [-count 5]
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"text/template"

	"github.com/tflm-gen/tflm-gen/gen"
	"github.com/tflm-gen/tflm-gen/gen/lower"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/templates"
)

type row struct {
	Model, MACs, Arena, Ns, TFLM, Ratio, MACPerNs, Allocs, Target string
	SpeedArena, SpeedNs, SpeedRatio                               string
}

// irRow is one line of the instruction-count table.
type irRow struct {
	Model, Ir, TFLMIr, Ratio, PerMAC, SpeedIr, SpeedRatio string
}

func main() {
	shared := flag.String("shared", "../shared", "reference data directory")
	out := flag.String("o", "BENCH.md", "output file")
	count := flag.Int("count", 5, "benchmark runs per package (the median is reported)")
	benchtime := flag.String("benchtime", "1s", "go test -benchtime")
	tflmBench := flag.String("tflm-bench", "", "tflm_bench binary (internal/devtools/benchdoc/tflm/build.sh): also time TFLM on this machine")
	flag.Parse()
	if err := run(*shared, *out, *count, *benchtime, *tflmBench); err != nil {
		fmt.Fprintln(os.Stderr, "benchdoc:", err)
		os.Exit(1)
	}
}

type entry struct {
	name, pkg string
	macs      int64
	tflmNs    int64    // 0 when there is no reference
	tflmIr    int64    // TFLM's instructions per Invoke (callgrind), 0 if unknown
	inputs    []string // the reference "ramp" input files, one per model input
	model     string   // the .tflite file
	want      string   // TFLM's output 0 for the ramp input, "" if none
	arena     int
	speed     *entry // the -speed build, when its arena differs
}

func run(shared, out string, count int, benchtime, tflmBench string) error {
	tmp, err := os.MkdirTemp("", "benchdoc")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var entries []entry
	write := func(pkg string, files map[string][]byte) error {
		dir := filepath.Join(tmp, pkg)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		for n, b := range files {
			if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
				return err
			}
		}
		return nil
	}
	add := func(name, path string, tflm, tflmIr int64, inputs []string, want string) error {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		pkg := strings.NewReplacer("-", "_", ".", "_").Replace(name)
		res, err := gen.Generate(filepath.Base(path), data, gen.Options{Package: pkg})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		g, err := model.Parse(path, data)
		if err != nil {
			return err
		}
		if err := write(pkg, res.Files); err != nil {
			return err
		}
		e := entry{name: name, pkg: pkg, macs: lower.MACs(g), tflmNs: tflm, tflmIr: tflmIr, inputs: inputs,
			model: path, want: want, arena: res.Layout.Plan.Size}
		fast, err := gen.Generate(filepath.Base(path), data, gen.Options{Package: pkg + "_speed", Speed: true})
		if err != nil {
			return fmt.Errorf("%s -speed: %w", name, err)
		}
		if fast.Layout.Plan.Size != e.arena {
			if err := write(pkg+"_speed", fast.Files); err != nil {
				return err
			}
			e.speed = &entry{pkg: pkg + "_speed", arena: fast.Layout.Plan.Size}
		}
		entries = append(entries, e)
		return nil
	}
	tflmHost := "unknown host"
	refs, _ := filepath.Glob(filepath.Join(shared, "ref", "*.json"))
	for _, r := range refs {
		var ref struct {
			TFLM struct {
				Ns    int64 `json:"invoke_ns_median"`
				Ir    int64 `json:"invoke_instructions_callgrind"`
				Build struct {
					Host string `json:"host"`
				} `json:"build"`
			} `json:"tflm"`
		}
		b, err := os.ReadFile(r)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &ref); err != nil {
			return fmt.Errorf("%s: %w", r, err)
		}
		if ref.TFLM.Build.Host != "" {
			tflmHost = ref.TFLM.Build.Host
		}
		name := strings.TrimSuffix(filepath.Base(r), ".json")
		inputs, _ := filepath.Glob(filepath.Join(shared, "ref", name+".ramp.in*.bin"))
		sort.Strings(inputs)
		if err := add(name, filepath.Join(shared, "models", name+".tflite"), ref.TFLM.Ns, ref.TFLM.Ir, inputs,
			filepath.Join(shared, "ref", name+".ramp.out0.bin")); err != nil {
			return err
		}
	}
	examples, _ := filepath.Glob("testdata/*.tflite")
	for _, e := range examples {
		if err := add(strings.TrimSuffix(filepath.Base(e), ".tflite"), e, 0, 0, nil, ""); err != nil {
			return err
		}
	}
	if len(entries) == 0 {
		return fmt.Errorf("no models found (run from the repository root; -shared points at the reference data)")
	}
	if err := os.WriteFile(filepath.Join(tmp, "go.mod"), []byte("module benchmod\n\ngo 1.26\n"), 0o644); err != nil {
		return err
	}
	// -p 1: one benchmark binary at a time, so packages do not compete.
	// The runs go round all packages count times rather than repeating one
	// package count times in a row, so that a burst of load from elsewhere
	// on a shared machine spreads over the packages instead of spoiling
	// every run of one of them.
	ns := map[string][]float64{}
	allocs := map[string]string{}
	tflmHere := map[string][]float64{} // TFLM's median per round, by model
	for round := 0; round < count; round++ {
		cmd := exec.Command("go", "test", "-p", "1", "-run", "^$", "-bench", "^BenchmarkInvoke$", "-benchmem",
			"-count", "1", "-benchtime", benchtime, "./...")
		cmd.Dir = tmp
		cmd.Env = append(os.Environ(), "GOWORK=off")
		cmd.Stderr = os.Stderr
		raw, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("go test -bench: %v\n%s", err, raw)
		}
		n, a := parseBench(raw)
		for k, v := range n {
			ns[k] = append(ns[k], v...)
		}
		// TFLM on this machine in the same rounds, so that both see the
		// same load.
		if tflmBench != "" {
			for _, e := range entries {
				if !e.hasTFLMRun() {
					continue
				}
				t, err := runTFLM(tflmBench, e)
				if err != nil {
					return err
				}
				tflmHere[e.name] = append(tflmHere[e.name], t)
			}
		}
		for k, v := range a {
			// The largest count of any round.
			if old, ok := allocs[k]; !ok || atoi(v) > atoi(old) {
				allocs[k] = v
			}
		}
	}
	var rows []row
	sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
	median := func(pkg string) (float64, error) {
		v := ns["benchmod/"+pkg]
		if len(v) == 0 {
			return 0, fmt.Errorf("no benchmark result for %s", pkg)
		}
		sort.Float64s(v)
		return v[len(v)/2], nil
	}
	for _, e := range entries {
		med, err := median(e.pkg)
		if err != nil {
			return err
		}
		r := row{Model: e.name, MACs: strconv.FormatInt(e.macs, 10), Arena: strconv.Itoa(e.arena), Ns: fmt.Sprintf("%.0f", med),
			TFLM: "-", Ratio: "-", MACPerNs: fmt.Sprintf("%.3f", float64(e.macs)/med),
			Allocs: allocs["benchmod/"+e.pkg], Target: "-", SpeedArena: "same", SpeedNs: "-", SpeedRatio: "-"}
		best := med
		if e.speed != nil {
			sm, err := median(e.speed.pkg)
			if err != nil {
				return err
			}
			r.SpeedArena, r.SpeedNs = strconv.Itoa(e.speed.arena), fmt.Sprintf("%.0f", sm)
			best = min(best, sm)
			if e.tflmNs > 0 {
				r.SpeedRatio = fmt.Sprintf("%.2f", float64(e.tflmNs)/sm)
			}
		}
		if e.tflmNs > 0 {
			r.TFLM = strconv.FormatInt(e.tflmNs, 10)
			r.Ratio = fmt.Sprintf("%.2f", float64(e.tflmNs)/med)
			r.Target = target(e.macs, float64(e.tflmNs), med, best)
		}
		rows = append(rows, r)
	}
	irRows, irNote, err := instructionCounts(tmp, entries)
	if err != nil {
		return err
	}
	hereRows, hereNote, err := sameMachine(tflmBench != "", entries, tflmHere, median)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	data := map[string]any{
		"GoVersion": runtime.Version(), "GOOS": runtime.GOOS, "GOARCH": runtime.GOARCH,
		"CPU": cpuName(), "Count": count, "Rows": rows, "IrRows": irRows, "IrNote": irNote,
		"TFLMHost": tflmHost, "HereRows": hereRows, "HereNote": hereNote,
	}
	if err := template.Must(template.ParseFS(templates.Files, "bench.md.tmpl")).Execute(&buf, data); err != nil {
		return err
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Print(buf.String())
	return nil
}

// target is the issue-6 verdict for a model: ratio >= 2 for models above
// 100k multiply-accumulates, by default or only with -speed (best is the
// faster of the two builds' times).
func target(macs int64, tflmNs, ns, best float64) string {
	switch {
	case macs <= 100_000:
		return "-"
	case tflmNs/ns >= 2:
		return "met"
	case tflmNs/best >= 2:
		return "met with -speed"
	}
	return "**missed**"
}

// hereRow is one line of the same-machine table.
type hereRow struct {
	Model, TFLM, Ns, Ratio, SpeedNs, SpeedRatio, Target string
}

// hasTFLMRun reports whether TFLM can be timed on e: a reference model
// with its ramp input and output.
func (e entry) hasTFLMRun() bool {
	return e.tflmNs > 0 && len(e.inputs) > 0 && e.want != ""
}

// runTFLM runs the tflm_bench binary (internal/devtools/benchdoc/tflm) on e's model
// and ramp input; it checks the output against the reference's and returns
// the median Invoke time in ns.
func runTFLM(bench string, e entry) (float64, error) {
	args := append(append([]string{e.model}, e.inputs...), "--", e.want)
	out, err := exec.Command(bench, args...).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("%s: %s: %v\n%s", e.name, bench, err, out)
	}
	var med, lo int64
	if _, err := fmt.Sscanf(string(out), "median %d ns, min %d ns", &med, &lo); err != nil {
		return 0, fmt.Errorf("%s: %s printed %q", e.name, bench, out)
	}
	return float64(med), nil
}

// sameMachine compares TFLM's times on this machine (the median over the
// rounds of each round's median, by model) with tflm-gen's. When TFLM was
// not timed the table is left out and the note says how to get it.
func sameMachine(timed bool, entries []entry, tflm map[string][]float64, median func(string) (float64, error)) ([]hereRow, string, error) {
	if !timed {
		return nil, "Not measured in this run: build TFLM with `internal/devtools/benchdoc/tflm/build.sh` and pass the binary as `-tflm-bench`.", nil
	}
	var rows []hereRow
	for _, e := range entries {
		v := tflm[e.name]
		if !e.hasTFLMRun() || len(v) == 0 {
			continue
		}
		sort.Float64s(v)
		t := v[len(v)/2]
		med, err := median(e.pkg)
		if err != nil {
			return nil, "", err
		}
		r := hereRow{Model: e.name, TFLM: fmt.Sprintf("%.0f", t), Ns: fmt.Sprintf("%.0f", med),
			Ratio: fmt.Sprintf("%.2f", t/med), SpeedNs: "-", SpeedRatio: "-"}
		best := med
		if e.speed != nil {
			sm, err := median(e.speed.pkg)
			if err != nil {
				return nil, "", err
			}
			best = min(best, sm)
			r.SpeedNs, r.SpeedRatio = fmt.Sprintf("%.0f", sm), fmt.Sprintf("%.2f", t/sm)
		}
		r.Target = target(e.macs, t, med, best)
		rows = append(rows, r)
	}
	return rows, "", nil
}

// instructionCounts counts the instructions one Invoke executes, with
// valgrind's callgrind, for every reference model that has TFLM's count:
// the same measurement as the reference (one Invoke of a fresh model on the
// "ramp" input, callees included). Unlike wall time it does not depend on
// the load of the machine. Without valgrind the table is left out, and the
// returned note says why.
func instructionCounts(tmp string, entries []entry) ([]irRow, string, error) {
	if _, err := exec.LookPath("valgrind"); err != nil {
		return nil, "valgrind is not installed here, so instruction counts were not measured.", nil
	}
	var rows []irRow
	for _, e := range entries {
		if e.tflmIr == 0 || len(e.inputs) == 0 {
			continue
		}
		ir, err := invokeInstructions(tmp, e.pkg, e.inputs)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", e.name, err)
		}
		r := irRow{Model: e.name, Ir: strconv.FormatInt(ir, 10), TFLMIr: strconv.FormatInt(e.tflmIr, 10),
			Ratio: fmt.Sprintf("%.2f", float64(e.tflmIr)/float64(ir)), PerMAC: "-", SpeedIr: "-", SpeedRatio: "-"}
		if e.macs > 0 {
			r.PerMAC = fmt.Sprintf("%.2f", float64(ir)/float64(e.macs))
		}
		if e.speed != nil {
			sir, err := invokeInstructions(tmp, e.speed.pkg, e.inputs)
			if err != nil {
				return nil, "", fmt.Errorf("%s -speed: %w", e.name, err)
			}
			r.SpeedIr, r.SpeedRatio = strconv.FormatInt(sir, 10), fmt.Sprintf("%.2f", float64(e.tflmIr)/float64(sir))
		}
		rows = append(rows, r)
	}
	return rows, "", nil
}

// invokeInstructions builds a program that loads inputs into a fresh Model
// of package pkg and invokes it once, runs it under callgrind with
// collection on only inside Invoke, and returns the instruction count.
func invokeInstructions(tmp, pkg string, inputs []string) (int64, error) {
	dir := filepath.Join(tmp, "callgrind", pkg)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	src := `package main

import (
	"fmt"
	"os"

	m "benchmod/` + pkg + `"
)

// growStack makes the goroutine stack large (512 KiB, in frames small
// enough to stay on the stack) before Invoke runs: a stack copy inside
// Invoke would confuse callgrind's call tracking.
//
//go:noinline
func growStack(n int) byte {
	var buf [64 << 10]byte
	buf[n] = byte(n)
	if n > 0 {
		return growStack(n-1) + buf[3*n]
	}
	return buf[0]
}

func main() {
	growStack(8)
	md := new(m.Model)
	md.Reset()
	for i, f := range os.Args[1:] {
		b, err := os.ReadFile(f)
		if err != nil {
			panic(err)
		}
		if len(b) != len(md.Input(i)) {
			panic(fmt.Sprintf("%s: %d bytes, input %d has %d", f, len(b), i, len(md.Input(i))))
		}
		copy(md.Input(i), b)
	}
	md.Invoke()
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		return 0, err
	}
	bin := filepath.Join(dir, "run")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("go build: %v\n%s", err, out)
	}
	prof := filepath.Join(dir, "callgrind.out")
	vg := exec.Command("valgrind", append([]string{"--tool=callgrind", "--callgrind-out-file=" + prof,
		"--toggle-collect=benchmod/" + pkg + ".(*Model).Invoke", bin}, inputs...)...)
	// No garbage collection (it would shrink the stack again) and no
	// preemption signals while the program runs.
	vg.Env = append(os.Environ(), "GOGC=off", "GODEBUG=asyncpreemptoff=1")
	if out, err := vg.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("valgrind: %v\n%s", err, out)
	}
	b, err := os.ReadFile(prof)
	if err != nil {
		return 0, err
	}
	return callgrindTotal(b)
}

// callgrindTotal returns the instruction count of a callgrind profile
// collected inside Invoke only.
func callgrindTotal(b []byte) (int64, error) {
	// The scheduler's cooperative preemption (every 10 ms, so a handful of
	// times at valgrind's speed) costs a few thousand instructions each; a
	// stack copy would make the count wrong.
	if bytes.Contains(b, []byte("runtime.copystack")) {
		return 0, fmt.Errorf("the goroutine stack was copied inside Invoke; the count would be wrong")
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "totals: "); ok {
			n, err := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			if err != nil || n == 0 {
				return 0, fmt.Errorf("callgrind counted %q instructions in Invoke (was it inlined?)", v)
			}
			return n, nil
		}
	}
	return 0, fmt.Errorf("no totals line in the callgrind profile")
}

var benchLine = regexp.MustCompile(`^BenchmarkInvoke(-\d+)?\s+\d+\s+([\d.]+) ns/op.*?(\d+) allocs/op`)

// parseBench collects ns/op per package from go test -bench output.
func parseBench(out []byte) (map[string][]float64, map[string]string) {
	ns := map[string][]float64{}
	allocs := map[string]string{}
	pkg := ""
	for _, l := range strings.Split(string(out), "\n") {
		if p, ok := strings.CutPrefix(l, "pkg: "); ok {
			pkg = strings.TrimSpace(p)
			continue
		}
		if m := benchLine.FindStringSubmatch(l); m != nil {
			v, _ := strconv.ParseFloat(m[2], 64)
			ns[pkg] = append(ns[pkg], v)
			allocs[pkg] = m[3]
		}
	}
	return ns, allocs
}

// atoi is strconv.Atoi for the digits parseBench matched.
func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func cpuName() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "model name"); ok {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
		}
	}
	return "unknown CPU"
}
