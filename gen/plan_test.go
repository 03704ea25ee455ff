package gen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"

	"github.com/tflm-gen/tflm-gen/planner"
)

// TestPlannerVsTFLM plans every reference model and compares the arena for
// activations and scratch with what TFLite Micro's greedy planner used
// (tflm.planner.head_bytes): it must never be larger. The table is the one
// quoted in the README.
func TestPlannerVsTFLM(t *testing.T) {
	shared := e2e.SharedDir(t)
	refs, names := loadRefs(t, shared)
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n| model | TFLM head (greedy) | TFLM lifetime bound | tflm-gen activations+scratch | certificate | saved by views/in-place | persistent | TFLM arena_used | tflm-gen ArenaSize |\n|---|---:|---:|---:|---|---:|---:|---:|---:|\n")
	for _, n := range names {
		r := refs[n]
		data, err := os.ReadFile(filepath.Join(shared, "models", n+".tflite"))
		if err != nil {
			t.Fatal(err)
		}
		prog, lay, err := Lower(n+".tflite", data, Options{Package: "p"})
		if err != nil {
			t.Errorf("%s: %v", n, err)
			continue
		}
		p := lay.Plan
		persistent := 0
		for _, b := range prog.Buffers {
			if b.Kind == planner.Persistent {
				persistent += (b.Size + lay.Align - 1) / lay.Align * lay.Align
			}
		}
		act := p.Size - persistent
		if act > r.TFLM.Planner.Head {
			t.Errorf("%s: activations+scratch arena %d > TFLM greedy %d", n, act, r.TFLM.Planner.Head)
		}
		if p.Cert == planner.BestFound {
			t.Errorf("%s: plan not proven optimal: %s", n, p.CertText())
		}
		fmt.Fprintf(&sb, "| %s | %d | %d | %d | %s | %d | %d | %d | %d |\n", n, r.TFLM.Planner.Head, r.TFLM.LowerBound,
			act, p.CertText(), lay.PlainSize-p.Size, persistent, r.TFLM.ArenaUsed, p.Size)
	}
	t.Log(sb.String())
}

// BenchmarkPlanModels measures lowering and planning the largest reference
// models (everything but code emission).
func BenchmarkPlanModels(b *testing.B) {
	shared := e2e.SharedDir(b)
	for _, n := range []string{"person_detect", "dtln_noise_suppression", "keyword_scrambled"} {
		data, err := os.ReadFile(filepath.Join(shared, "models", n+".tflite"))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(n, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := Lower(n+".tflite", data, Options{Package: "p"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGenerate measures the whole generation of the largest models.
func BenchmarkGenerate(b *testing.B) {
	shared := e2e.SharedDir(b)
	for _, n := range []string{"person_detect", "dtln_noise_suppression"} {
		data, err := os.ReadFile(filepath.Join(shared, "models", n+".tflite"))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(n, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Generate(n+".tflite", data, Options{Package: "p"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
