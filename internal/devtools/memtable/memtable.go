// Package memtable writes BENCH.md's section on memory the way boards have
// it (issue 27): the access cost of multi-pool plans (-pool) for several
// board descriptions, the RAM that inputs and outputs outside the arena
// save (-io external), and the RAM that planning several models as one
// saves (one package, several models). The figures come from planning
// alone (no build, no measurement), so they are exact and repeatable; the
// test TestBenchSectionCurrent keeps BENCH.md's section current (go
// generate ./... rewrites it).
package memtable

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tflm-gen/tflm-gen/gen"
	"github.com/tflm-gen/tflm-gen/planner"
)

// Board is a board description: its memories as -pool flags take them.
type Board struct {
	Name  string
	Pools []planner.Pool
}

// Boards are the descriptions the section plans for.
var Boards = []Board{
	{"H7-like (DTCM, AXI SRAM, SDRAM)", []planner.Pool{{Name: "dtcm", Size: 128 << 10, Cost: 1}, {Name: "sram", Size: 512 << 10, Cost: 2}, {Name: "sdram", Size: 8 << 20, Cost: 10}}},
	{"ESP32-S3-like (SRAM, PSRAM)", []planner.Pool{{Name: "sram", Size: 320 << 10, Cost: 1}, {Name: "psram", Size: 8 << 20, Cost: 8}}},
	{"single SRAM", []planner.Pool{{Name: "sram", Size: 256 << 10, Cost: 1}}},
	{"small TCM (4 KB TCM, 64 KB SRAM, PSRAM)", []planner.Pool{{Name: "tcm", Size: 4 << 10, Cost: 1}, {Name: "sram", Size: 64 << 10, Cost: 3}, {Name: "psram", Size: 8 << 20, Cost: 12}}},
}

// Begin and End mark the section in BENCH.md.
const (
	Begin = "<!-- memory section: go generate ./... (internal/devtools/memtable) -->"
	End   = "<!-- end of memory section -->"
)

// model is one model file planned for the section.
type model struct {
	name string
	data []byte
}

// models lists ../shared/models (when shared is not "") and testdata/.
func models(root, shared string) ([]model, error) {
	var paths []string
	if shared != "" {
		p, _ := filepath.Glob(filepath.Join(shared, "models", "*.tflite"))
		paths = append(paths, p...)
	}
	p, _ := filepath.Glob(filepath.Join(root, "testdata", "*.tflite"))
	paths = append(paths, p...)
	sort.SliceStable(paths, func(a, b int) bool { return filepath.Base(paths[a]) < filepath.Base(paths[b]) })
	var out []model
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		out = append(out, model{filepath.Base(p), b})
	}
	return out, nil
}

// poolFlags renders a board's pools as -pool flags.
func poolFlags(ps []planner.Pool) string {
	var s []string
	for _, p := range ps {
		size := fmt.Sprint(p.Size)
		switch {
		case p.Size%(1<<20) == 0:
			size = fmt.Sprintf("%dM", p.Size>>20)
		case p.Size%(1<<10) == 0:
			size = fmt.Sprintf("%dK", p.Size>>10)
		}
		s = append(s, fmt.Sprintf("`-pool %s:%s:%d`", p.Name, size, p.Cost))
	}
	return strings.Join(s, " ")
}

// ratio renders a/b to two decimals.
func ratio(a, b int64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(a)/float64(b))
}

// Section renders the section for the repository at root, with the
// reference models of shared ("" when absent).
func Section(root, shared string) (string, error) {
	ms, err := models(root, shared)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(Begin + "\n## Memory the way boards have it: pools, inputs and outputs outside, several models\n\n")
	b.WriteString("Plans only (no build, no measurement: exact and repeatable), for the models of `shared/models` and\n" +
		"the fixtures in `testdata/`. Do not edit by hand. Every option gives the same output bytes as the\n" +
		"default package, on the host and on the emulated Cortex-M4 (`TestPoolsBitExact`, `TestBindOnBoard`,\n" +
		"`TestMultiModel`; the instructions too: person_detect with `-pool dtcm:8K:1 -pool sram:64K:3` runs\n" +
		"13,957,167 per Invoke under TinyGo, 13,957,483 with one arena).\n\n")
	b.WriteString("### Access cost of the plan on several boards (`-pool`)\n\n" +
		"Cost = bytes each Invoke's kernel calls pass of each buffer times its pool's cost (`layout.Access`).\n" +
		"\"all slowest\" puts every buffer in the dearest pool, \"unlimited fast\" in the cheapest as if it\n" +
		"held everything; \"bound\" is the lower bound the plan states (no assignment within the\n" +
		"capacities costs less). Boards:\n\n")
	for _, bd := range Boards {
		fmt.Fprintf(&b, "- %s: %s\n", bd.Name, poolFlags(bd.Pools))
	}
	b.WriteString("\n| model | one arena | board | bytes per pool | cost | all slowest | unlimited fast | bound | cost / unlimited fast |\n|---|---:|---|---|---:|---:|---:|---:|---:|\n")
	for _, m := range ms {
		_, base, err := gen.Lower(m.name, m.data, gen.Options{})
		if err != nil {
			return "", fmt.Errorf("%s: %w", m.name, err)
		}
		for _, bd := range Boards {
			_, l, err := gen.Lower(m.name, m.data, gen.Options{Pools: bd.Pools})
			if err != nil {
				fmt.Fprintf(&b, "| %s | %d | %s | does not fit: %v | | | | | |\n", m.name, base.Plan.Size, bd.Name, err)
				continue
			}
			var used []string
			for _, p := range l.Pools {
				if len(p.Members) > 0 {
					used = append(used, fmt.Sprintf("%s %d", p.Name, p.Plan.Size))
				}
			}
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %d | %d | %d | %d | %s |\n", m.name, base.Plan.Size, bd.Name,
				strings.Join(used, ", "), l.Cost, l.SlowCost, l.FastCost, l.Bound, ratio(l.Cost, l.FastCost))
		}
	}
	b.WriteString("\n### Inputs and outputs in the application's memory (`-io external`)\n\n" +
		"ArenaSize with the inputs and outputs as views into the arena (default) and as arrays the\n" +
		"application owns and passes to `Invoke`: the arena shrinks where they were at the peak, and the\n" +
		"fused schedule is chosen for the arena without them.\n\n" +
		"| model | ArenaSize | with `-io external` | saved | inputs and outputs outside |\n|---|---:|---:|---:|---:|\n")
	for _, m := range ms {
		_, base, err := gen.Lower(m.name, m.data, gen.Options{})
		if err != nil {
			return "", err
		}
		_, l, err := gen.Lower(m.name, m.data, gen.Options{ExternalIO: true})
		if err != nil {
			fmt.Fprintf(&b, "| %s | %d | %v | | |\n", m.name, base.Plan.Size, err)
			continue
		}
		io := 0
		for _, p := range l.Pools {
			if p.IO != "" {
				io += p.Plan.Size
			}
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d |\n", m.name, base.Plan.Size, l.ArenaSize(), base.Plan.Size-l.ArenaSize(), io)
	}
	b.WriteString("\n### Several models in one arena (`tflm-gen a.tflite b.tflite -o pkg`)\n\n" +
		"One package runs the models one at a time in one arena planned for all: each model's activation\n" +
		"and scratch buffers may share bytes with the others', its persistent state has bytes of its own.\n\n" +
		"| models | each alone, together | one arena | saved | lower bound | plan |\n|---|---:|---:|---:|---:|---|\n")
	byName := map[string]model{}
	for _, m := range ms {
		byName[strings.TrimSuffix(m.name, ".tflite")] = m
	}
	sets := [][]string{
		{"person_detect", "micro_speech_quantized"},
		{"keyword_scrambled", "dtln_noise_suppression"},
		{"mobilenet_int8", "tiny_conv_int8", "dense_int8", "mlp_float"},
	}
	var all []string
	for _, m := range ms {
		all = append(all, strings.TrimSuffix(m.name, ".tflite"))
	}
	sets = append(sets, all)
	for _, set := range sets {
		var files []gen.ModelFile
		alone := 0
		ok := true
		for _, n := range set {
			m, found := byName[n]
			if !found {
				ok = false
				break
			}
			_, l, err := gen.Lower(m.name, m.data, gen.Options{})
			if err != nil {
				return "", err
			}
			alone += l.ArenaSize()
			files = append(files, gen.ModelFile{Name: m.name, Data: m.data})
		}
		if !ok {
			continue
		}
		res, err := gen.GenerateMulti(files, gen.Options{Package: "models", NoTests: true})
		if err != nil {
			return "", err
		}
		p := res.Joint.Plan
		name := strings.Join(set, " + ")
		if len(set) == len(all) && len(all) > 4 {
			name = fmt.Sprintf("all %d models above", len(set))
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %s |\n", name, alone, p.Size, alone-p.Size, p.LowerBound, p.CertText())
	}
	b.WriteString(End + "\n")
	return b.String(), nil
}

// Splice puts section into doc in place of the one between Begin and End,
// or at its end when doc has none.
func Splice(doc []byte, section string) []byte {
	i := bytes.Index(doc, []byte(Begin))
	j := bytes.Index(doc, []byte(End))
	if i < 0 || j < i {
		out := append([]byte(nil), doc...)
		if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n\n")) {
			out = append(out, '\n')
		}
		return append(out, section...)
	}
	j += len(End)
	if j < len(doc) && doc[j] == '\n' {
		j++
	}
	out := append([]byte(nil), doc[:i]...)
	out = append(out, section...)
	return append(out, doc[j:]...)
}
