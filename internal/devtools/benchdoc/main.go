// Command benchdoc measures Invoke of the packages generated from every
// reference model (../shared/ref) and example (testdata/) and writes the
// comparison with TensorFlow Lite Micro to BENCH.md: wall time on this
// machine, and instructions per Invoke on x86-64 and 32-bit ARM counted
// under qemu by ../shared/arm/count (with TFLM and TFLM + CMSIS-NN on ARM).
//
//	go run ./internal/devtools/benchdoc [-shared ../shared] [-o BENCH.md] [-count 5]
//	        [-timing=false] [-arm=false] [-amd64=false] [-board=false] [-grid=false] [-models a,b]
//
// Run it from the repository root.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/tflm-gen/tflm-gen/gen"
	"github.com/tflm-gen/tflm-gen/gen/emit"
	"github.com/tflm-gen/tflm-gen/gen/lower"
	"github.com/tflm-gen/tflm-gen/gen/report"
	"github.com/tflm-gen/tflm-gen/internal/devtools/board"
	"github.com/tflm-gen/tflm-gen/internal/devtools/memtable"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/templates"
)

type row struct {
	Model, MACs, Arena, Ns, TFLM, Ratio, MACPerNs, Allocs, Target string
	SpeedArena, SpeedNs, SpeedRatio                               string
}

// irRow is one line of the x86-64 instruction-count table.
type irRow struct {
	Model, Ir, TFLMIr, Ratio, PerMAC, SpeedIr, SpeedRatio string
}

// options are the command's flags.
type options struct {
	shared, out        string
	count              int
	benchtime          string
	timing, arm, amd64 bool
	board, grid        bool
	countTool          string
	models             []string // nil: all
}

func main() {
	var o options
	var models string
	flag.StringVar(&o.shared, "shared", "../shared", "reference data directory")
	flag.StringVar(&o.out, "o", "BENCH.md", "output file")
	flag.IntVar(&o.count, "count", 5, "benchmark runs per package (the median is reported)")
	flag.StringVar(&o.benchtime, "benchtime", "1s", "go test -benchtime")
	flag.BoolVar(&o.timing, "timing", true, "run the timing rounds (false: only the instruction counts)")
	flag.BoolVar(&o.arm, "arm", true, "count instructions on 32-bit ARM with TFLM and CMSIS-NN (needs -count-tool and qemu-arm; without them the section says so)")
	flag.BoolVar(&o.grid, "grid", true, "count every model of ../shared/grid under TinyGo and gc (about 25 minutes; needs the board tools and qemu-arm)")
	flag.BoolVar(&o.board, "board", true, "count instructions and measure flash under TinyGo for the Cortex-M4 (needs ../shared/tinygo/install; without it the section says so)")
	flag.BoolVar(&o.amd64, "amd64", true, "count instructions on x86-64 (needs -count-tool and qemu-x86_64; without them the section says so)")
	flag.StringVar(&o.countTool, "count-tool", "", "shared/arm/count (default: SHARED/arm/count)")
	flag.StringVar(&models, "models", "", "comma-separated model names to include (default: all)")
	flag.Parse()
	if o.countTool == "" {
		o.countTool = filepath.Join(o.shared, "arm", "count")
	}
	if models != "" {
		o.models = strings.Split(models, ",")
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "benchdoc:", err)
		os.Exit(1)
	}
}

type entry struct {
	name, pkg string
	macs      int64
	tflmNs    int64  // 0 when there is no reference
	tflmIr    int64  // TFLM's x86-64 instructions per Invoke (callgrind), 0 if unknown
	model     string // the .tflite file
	arena     int
	stack     int    // the stated stack of Invoke on the board (emit.StackOf)
	speed     *entry // the -speed build, when its arena differs
	speedCode bool   // -speed generates different code from the default
	ref       bool   // a reference model (shared/ref)
	float     bool   // a float model: a graph input is float32
	consts    *report.ConstBytes
}

func run(o options) error {
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
	found := map[string]bool{}
	want := func(name string) bool {
		found[name] = true
		return o.models == nil || slices.Contains(o.models, name)
	}
	add := func(name, path string, tflm, tflmIr int64) error {
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
		e := entry{name: name, pkg: pkg, macs: lower.MACs(g), tflmNs: tflm, tflmIr: tflmIr,
			model: path, arena: res.Layout.Plan.Size, consts: emit.ConstBytes(res.Program),
			stack: emit.StackOf(res.Program).Bytes}
		for _, i := range g.Inputs {
			e.float = e.float || g.Tensors[i].Type == model.Float32
		}
		fast, err := gen.Generate(filepath.Base(path), data, gen.Options{Package: pkg + "_speed", Speed: true})
		if err != nil {
			return fmt.Errorf("%s -speed: %w", name, err)
		}
		e.speedCode = !sameCode(res.Files, fast.Files, pkg, pkg+"_speed")
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
	refs, _ := filepath.Glob(filepath.Join(o.shared, "ref", "*.json"))
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
		if !want(name) {
			continue
		}
		if err := add(name, filepath.Join(o.shared, "models", name+".tflite"), ref.TFLM.Ns, ref.TFLM.Ir); err != nil {
			return err
		}
		entries[len(entries)-1].ref = true
	}
	examples, _ := filepath.Glob("testdata/*.tflite")
	for _, e := range examples {
		name := strings.TrimSuffix(filepath.Base(e), ".tflite")
		if !want(name) {
			continue
		}
		if err := add(name, e, 0, 0); err != nil {
			return err
		}
	}
	for _, m := range o.models {
		if !found[m] {
			return fmt.Errorf("-models: no model %q in %s/ref or testdata", m, o.shared)
		}
	}
	if len(entries) == 0 {
		return fmt.Errorf("no models found (run from the repository root; -shared points at the reference data)")
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
	// The instruction counts first: they do not depend on the load, and a
	// failing count ends the run before the long timing rounds.
	cnt := counter{tool: o.countTool}
	irRows, irBad, irNote := []irRow(nil), []string(nil), "Not measured in this run (`-amd64=false`)."
	if o.amd64 {
		var ok bool
		if ok, irNote = countAvailable(o.countTool, "qemu-x86_64"); ok {
			if irRows, irBad, err = instructionCounts(cnt, entries); err != nil {
				return err
			}
		}
	}
	armRows, armNote := []armRow(nil), "Not measured in this run (`-arm=false`)."
	if o.arm {
		var ok bool
		if ok, armNote = countAvailable(o.countTool, "qemu-arm"); ok {
			if armRows, err = armCounts(cnt, entries); err != nil {
				return err
			}
		}
	}
	boardRows, boardNote := []boardRow(nil), "Not measured in this run (`-board=false`)."
	if o.board {
		if _, err := os.Stat(filepath.Join(o.shared, "tinygo", "count")); err != nil {
			boardNote = "`" + filepath.Join(o.shared, "tinygo", "count") + "` is not here, so this was not measured in this run."
		} else if boardRows, err = boardCounts(o, tmp, entries, armRows); err != nil {
			if !errors.Is(err, board.ErrNoTinyGo) {
				return err
			}
			boardNote = "TinyGo is not installed here (`../shared/tinygo/install`), so this was not measured in this run."
		} else {
			boardNote = ""
		}
	}
	gridRows, gridFams, gridNote := []gridRow(nil), []gridFamily(nil), "Not measured in this run (`-grid=false`)."
	if o.grid {
		if _, err := board.Find(); err != nil {
			gridNote = "TinyGo is not installed here (`../shared/tinygo/install`), so this was not measured in this run."
		} else if ok, note := countAvailable(o.countTool, "qemu-arm"); !ok {
			gridNote = note
		} else if gridRows, gridFams, err = gridCounts(o, tmp); err != nil {
			return err
		} else {
			gridNote = ""
		}
	}
	rows, err := timings(o, tmp, entries)
	if err != nil {
		return err
	}
	timingNote := ""
	if !o.timing {
		timingNote = "Not measured in this run (`-timing=false`)."
	}
	var buf bytes.Buffer
	data := map[string]any{
		"GoVersion": runtime.Version(), "GOOS": runtime.GOOS, "GOARCH": runtime.GOARCH,
		"CPU": cpuName(), "Count": o.count, "Rows": rows, "TimingNote": timingNote,
		"IrRows": irRows, "IrNote": irNote, "IrBad": irBad, "ArmRows": armRows, "ArmNote": armNote,
		"TFLMHost":  tflmHost,
		"BoardRows": boardRows, "BoardNote": boardNote,
		"GridRows": gridRows, "GridFamilies": gridFams, "GridNote": gridNote,
	}
	if err := template.Must(template.ParseFS(templates.Files, "bench.md.tmpl")).Execute(&buf, data); err != nil {
		return err
	}
	// The memory section (go generate ./... keeps it current) follows.
	sec, err := memtable.Section(".", o.shared)
	if err != nil {
		return err
	}
	doc := memtable.Splice(buf.Bytes(), sec)
	if err := os.WriteFile(o.out, doc, 0o644); err != nil {
		return err
	}
	fmt.Print(string(doc))
	return nil
}

// sameCode reports whether two generated packages are the same but for
// their package names.
func sameCode(a, b map[string][]byte, pa, pb string) bool {
	if len(a) != len(b) {
		return false
	}
	for n, fa := range a {
		fb, ok := b[n]
		if !ok || !bytes.Equal(fa, bytes.ReplaceAll(fb, []byte(pb), []byte(pa))) {
			return false
		}
	}
	return true
}

// timings runs the timing rounds (none with -timing=false) and returns the
// main table's rows.
func timings(o options, tmp string, entries []entry) ([]row, error) {
	if !o.timing {
		return nil, nil
	}
	count, benchtime := o.count, o.benchtime
	if err := os.WriteFile(filepath.Join(tmp, "go.mod"), []byte("module benchmod\n\ngo 1.26\n"), 0o644); err != nil {
		return nil, err
	}
	// -p 1: one benchmark binary at a time, so packages do not compete.
	// The runs go round all packages count times rather than repeating one
	// package count times in a row, so that a burst of load from elsewhere
	// on a shared machine spreads over the packages instead of spoiling
	// every run of one of them.
	ns := map[string][]float64{}
	allocs := map[string]string{}
	for round := 0; round < count; round++ {
		cmd := exec.Command("go", "test", "-p", "1", "-run", "^$", "-bench", "^BenchmarkInvoke$", "-benchmem",
			"-count", "1", "-benchtime", benchtime, "./...")
		cmd.Dir = tmp
		cmd.Env = append(os.Environ(), "GOWORK=off")
		cmd.Stderr = os.Stderr
		raw, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("go test -bench: %v\n%s", err, raw)
		}
		n, a := parseBench(raw)
		for k, v := range n {
			ns[k] = append(ns[k], v...)
		}
		for k, v := range a {
			// The largest count of any round.
			if old, ok := allocs[k]; !ok || atoi(v) > atoi(old) {
				allocs[k] = v
			}
		}
	}
	var rows []row
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
			return nil, err
		}
		r := row{Model: e.name, MACs: strconv.FormatInt(e.macs, 10), Arena: strconv.Itoa(e.arena), Ns: fmt.Sprintf("%.0f", med),
			TFLM: "-", Ratio: "-", MACPerNs: fmt.Sprintf("%.3f", float64(e.macs)/med),
			Allocs: allocs["benchmod/"+e.pkg], Target: "-", SpeedArena: "same", SpeedNs: "-", SpeedRatio: "-"}
		best := med
		if e.speed != nil {
			sm, err := median(e.speed.pkg)
			if err != nil {
				return nil, err
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
	return rows, nil
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

// countOut is what one run of shared/arm/count printed.
type countOut struct {
	ir, ref, cmsis int64    // tflm-gen's (or, with --tflm-only, TFLM ref's), TFLM ref's, CMSIS-NN's; 0 when not printed
	outs           []outCmp // one per output, in order
}

// outCmp is one output line of count: the output's SHA-256 prefix and its
// comparisons ("vs tflm_ref: equal" ...), by what it was compared with.
type outCmp struct {
	name, sha string
	vs        map[string]string // "tflm_ref", "tflm_cmsis", "shared/ref" -> "equal" or "differ ..."
}

var countOutLine = regexp.MustCompile(`^(out\d+): \d+ bytes, sha256 ([0-9a-f]+)`)

// parseCount reads count's output (shared/arm/README.md, "Output").
func parseCount(b []byte) (countOut, error) {
	var c countOut
	num := func(l, prefix string) (int64, bool) {
		v, ok := strings.CutPrefix(l, prefix)
		if !ok {
			return 0, false
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			return 0, false
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		return n, err == nil
	}
	seen := false
	for _, l := range strings.Split(string(b), "\n") {
		if n, ok := num(l, "instructions/invoke "); ok && !seen {
			c.ir, seen = n, true
		} else if n, ok := num(l, "tflm_ref instructions/invoke "); ok {
			c.ref = n
		} else if n, ok := num(l, "tflm_cmsis instructions/invoke "); ok {
			c.cmsis = n
		} else if m := countOutLine.FindStringSubmatch(l); m != nil {
			o := outCmp{name: m[1], sha: m[2], vs: map[string]string{}}
			for _, part := range strings.Split(l, "; ") {
				if k, v, ok := strings.Cut(part, ": "); ok {
					if k, ok := strings.CutPrefix(k, "vs "); ok {
						o.vs[k] = v
					}
				}
			}
			c.outs = append(c.outs, o)
		}
	}
	if !seen || c.ir <= 0 {
		return c, fmt.Errorf("no instructions/invoke line in count's output")
	}
	return c, nil
}

// mismatches lists the outputs of c that are not "equal" to what with
// (one of count's comparisons), or that were not compared with it.
func (c countOut) mismatches(with string) []string {
	var bad []string
	for _, o := range c.outs {
		switch v, ok := o.vs[with]; {
		case !ok:
			bad = append(bad, o.name+" not compared with "+with)
		case v != "equal":
			bad = append(bad, o.name+" "+v)
		}
	}
	if len(c.outs) == 0 {
		bad = append(bad, "no outputs printed")
	}
	return bad
}

// sameOutputs lists the outputs of b whose SHA-256 differs from a's (for
// the -speed build, which count runs without TFLM: its outputs must be the
// default build's, which were compared with TFLM).
func sameOutputs(a, b countOut) []string {
	var bad []string
	if len(a.outs) != len(b.outs) {
		return []string{fmt.Sprintf("%d outputs, the default build has %d", len(b.outs), len(a.outs))}
	}
	for i := range a.outs {
		if a.outs[i].sha != b.outs[i].sha {
			bad = append(bad, b.outs[i].name+" differs from the default build's")
		}
	}
	return bad
}

// counter runs shared/arm/count from the repository root.
type counter struct {
	tool string
}

func (c counter) run(args ...string) (countOut, error) {
	start := time.Now()
	cmd := exec.Command(c.tool, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	fmt.Fprintf(os.Stderr, "benchdoc: count %s: %.0fs\n", strings.Join(args, " "), time.Since(start).Seconds())
	if err != nil {
		return countOut{}, fmt.Errorf("count %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.Bytes())
	}
	r, err := parseCount(out)
	if err != nil {
		return r, fmt.Errorf("count %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return r, nil
}

// countAvailable reports whether shared/arm/count and the emulator it runs
// are here; when not, the note says what is missing.
func countAvailable(tool, qemu string) (bool, string) {
	if _, err := os.Stat(tool); err != nil {
		return false, fmt.Sprintf("`%s` is not here, so this was not measured in this run.", tool)
	}
	if _, err := exec.LookPath(qemu); err != nil {
		return false, fmt.Sprintf("%s is not installed here (`apt-get install qemu-user`), so this was not measured in this run.", qemu)
	}
	return true, ""
}

// instructionCounts counts the instructions of tflm-gen's steady-state
// Invoke on x86-64 with `count -amd64` (qemu-x86_64) of the packages
// generated with -compiler gc (a host's build), default and -speed where
// -speed generates different code, for every reference model with
// TFLM's callgrind count, which it is compared with. Outputs that differ
// from shared/ref's are listed in the returned mismatch lines.
func instructionCounts(c counter, entries []entry) ([]irRow, []string, error) {
	var rows []irRow
	var bad []string
	for _, e := range entries {
		if e.tflmIr == 0 {
			continue
		}
		d, err := c.run("-amd64", e.model, "-compiler", "gc")
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", e.name, err)
		}
		for _, m := range d.mismatches("shared/ref") {
			bad = append(bad, e.name+": "+m)
		}
		r := irRow{Model: e.name, Ir: strconv.FormatInt(d.ir, 10), TFLMIr: strconv.FormatInt(e.tflmIr, 10),
			Ratio: fmt.Sprintf("%.2f", float64(e.tflmIr)/float64(d.ir)), PerMAC: "-", SpeedIr: "same", SpeedRatio: "-"}
		if e.macs > 0 {
			r.PerMAC = fmt.Sprintf("%.2f", float64(d.ir)/float64(e.macs))
		}
		if e.speedCode {
			s, err := c.run("-amd64", e.model, "-speed", "-compiler", "gc")
			if err != nil {
				return nil, nil, fmt.Errorf("%s -speed: %w", e.name, err)
			}
			for _, m := range sameOutputs(d, s) {
				bad = append(bad, e.name+" -speed: "+m)
			}
			r.SpeedIr, r.SpeedRatio = strconv.FormatInt(s.ir, 10), fmt.Sprintf("%.2f", float64(e.tflmIr)/float64(s.ir))
		}
		rows = append(rows, r)
	}
	return rows, bad, nil
}

// armRow is one line of the 32-bit ARM table.
type armRow struct {
	Model, Ir, SpeedIr, Ref, CMSIS, Ratio, SpeedRatio, PerMAC, Consts, ModelConsts, ConstRatio, Exact, Target string
}

// armCounts counts every reference model on 32-bit ARM: `count --tflm`
// for the default build and both TFLM builds, `count -speed` for the
// -speed build where it generates different code.
func armCounts(c counter, entries []entry) ([]armRow, error) {
	var rows []armRow
	for _, e := range entries {
		if !e.ref {
			continue
		}
		d, err := c.run("--tflm", e.model, "-compiler", "gc")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.name, err)
		}
		if d.ref <= 0 || d.cmsis <= 0 {
			return nil, fmt.Errorf("%s: count --tflm printed no TFLM counts", e.name)
		}
		bad := d.mismatches("tflm_ref")
		s := d
		if e.speedCode {
			if s, err = c.run(e.model, "-speed", "-compiler", "gc"); err != nil {
				return nil, fmt.Errorf("%s -speed: %w", e.name, err)
			}
			for _, m := range sameOutputs(d, s) {
				bad = append(bad, "-speed "+m)
			}
		}
		r := armRow{Model: e.name, Ir: strconv.FormatInt(d.ir, 10), SpeedIr: "same",
			Ref: strconv.FormatInt(d.ref, 10), CMSIS: strconv.FormatInt(d.cmsis, 10),
			Ratio: fmt.Sprintf("%.2f", float64(d.ir)/float64(d.cmsis)), SpeedRatio: "-", PerMAC: "-",
			Consts: strconv.Itoa(e.consts.Total()), ModelConsts: strconv.Itoa(e.consts.Model), ConstRatio: "-",
			Exact: "equal", Target: armTarget(e.name, e.float, d.ir, s.ir, d.ref, d.cmsis)}
		if e.speedCode {
			r.SpeedIr, r.SpeedRatio = strconv.FormatInt(s.ir, 10), fmt.Sprintf("%.2f", float64(s.ir)/float64(d.cmsis))
		}
		if e.macs > 0 {
			r.PerMAC = fmt.Sprintf("%.2f", float64(d.ir)/float64(e.macs))
		}
		if e.consts.Model > 0 {
			r.ConstRatio = fmt.Sprintf("%.2f", float64(e.consts.Total())/float64(e.consts.Model))
			if flashOver(e.consts) {
				r.ConstRatio = "**" + r.ConstRatio + "**"
			}
		}
		switch {
		case len(bad) > 0 && e.float:
			// Float results are compared within 1e-5 relative by
			// TestReference; on ARM the last bits differ from x86's (see
			// shared/arm/README.md), so a byte difference is no error.
			r.Exact = "float: last bits differ (" + strings.Join(bad, "; ") + ")"
		case len(bad) > 0:
			r.Exact = "**error: " + strings.Join(bad, "; ") + "**"
			fmt.Fprintf(os.Stderr, "benchdoc: %s: outputs not bit-exact on ARM: %s\n", e.name, strings.Join(bad, "; "))
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// flashOver reports whether the read-only constants exceed issue 11's
// limit: 1.25x the model's constant tensors plus 4 KB for fixed tables.
func flashOver(c *report.ConstBytes) bool {
	return 4*c.Total() > 5*c.Model+4*4096
}

// armTarget is issue 11's verdict for a model on 32-bit ARM: the default
// build at most 1.5x TFLM + CMSIS-NN's instructions (person_detect 1.0x),
// -speed (speed; the default's count when -speed is the same code) at most
// 1.0x. Float models are exempt (CMSIS-NN has no float kernels); they must
// not execute more than TFLM's reference kernels.
func armTarget(model string, float bool, ir, speed, ref, cmsis int64) string {
	if float {
		if ir <= ref {
			return "float: exempt; ≤ TFLM ref: met"
		}
		return "float: exempt; ≤ TFLM ref: **missed**"
	}
	limit, name := int64(15), "1.5x" // tenths
	if model == "person_detect" {
		limit, name = 10, "1.0x"
	}
	var miss []string
	if ir*10 > cmsis*limit {
		miss = append(miss, "default > "+name)
	}
	if speed > cmsis {
		miss = append(miss, "-speed > 1.0x")
	}
	if len(miss) == 0 {
		return "met"
	}
	return "**missed** (" + strings.Join(miss, ", ") + ")"
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
