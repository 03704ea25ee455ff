// Command benchdoc measures Invoke of the packages generated from every
// reference model (../shared/ref) and example (testdata/) and writes the
// comparison with TensorFlow Lite Micro to BENCH.md.
//
//	go run ./internal/benchdoc [-shared ../shared] [-o BENCH.md] [-count 5]
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
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/templates"
)

type row struct {
	Model, MACs, Arena, Ns, TFLM, Ratio, MACPerNs, Allocs, Target string
	SpeedArena, SpeedNs, SpeedRatio                               string
}

func main() {
	shared := flag.String("shared", "../shared", "reference data directory")
	out := flag.String("o", "BENCH.md", "output file")
	count := flag.Int("count", 5, "benchmark runs per package (the median is reported)")
	benchtime := flag.String("benchtime", "1s", "go test -benchtime")
	flag.Parse()
	if err := run(*shared, *out, *count, *benchtime); err != nil {
		fmt.Fprintln(os.Stderr, "benchdoc:", err)
		os.Exit(1)
	}
}

type entry struct {
	name, pkg string
	macs      int64
	tflmNs    int64 // 0 when there is no reference
	arena     int
	speed     *entry // the -speed build, when its arena differs
}

func run(shared, out string, count int, benchtime string) error {
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
	add := func(name, path string, tflm int64) error {
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
		e := entry{name: name, pkg: pkg, macs: gen.MACs(g), tflmNs: tflm, arena: res.Layout.Plan.Size}
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
	refs, _ := filepath.Glob(filepath.Join(shared, "ref", "*.json"))
	for _, r := range refs {
		var ref struct {
			TFLM struct {
				Ns int64 `json:"invoke_ns_median"`
			} `json:"tflm"`
		}
		b, err := os.ReadFile(r)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &ref); err != nil {
			return fmt.Errorf("%s: %w", r, err)
		}
		name := strings.TrimSuffix(filepath.Base(r), ".json")
		if err := add(name, filepath.Join(shared, "models", name+".tflite"), ref.TFLM.Ns); err != nil {
			return err
		}
	}
	examples, _ := filepath.Glob("testdata/*.tflite")
	for _, e := range examples {
		if err := add(strings.TrimSuffix(filepath.Base(e), ".tflite"), e, 0); err != nil {
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
	cmd := exec.Command("go", "test", "-p", "1", "-run", "^$", "-bench", "^BenchmarkInvoke$", "-benchmem",
		"-count", strconv.Itoa(count), "-benchtime", benchtime, "./...")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOWORK=off")
	cmd.Stderr = os.Stderr
	raw, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go test -bench: %v\n%s", err, raw)
	}
	ns, allocs := parseBench(raw)
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
			if e.macs > 100_000 {
				switch {
				case float64(e.tflmNs)/med >= 2:
					r.Target = "met"
				case float64(e.tflmNs)/best >= 2:
					r.Target = "met with -speed"
				default:
					r.Target = "**missed**"
				}
			}
		}
		rows = append(rows, r)
	}
	var buf bytes.Buffer
	data := map[string]any{
		"GoVersion": runtime.Version(), "GOOS": runtime.GOOS, "GOARCH": runtime.GOARCH,
		"CPU": cpuName(), "Count": count, "Rows": rows,
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
