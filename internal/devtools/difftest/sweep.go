package difftest

import (
	"flag"
	"fmt"
	"regexp"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// The differential sweeps run in one of two modes.
//
// By default (go test ./...) each sweep draws every case of the full run,
// from the same random sources and in the same order, runs every one of
// them in-process, and runs a deterministic subset of them through TFLM:
// every sweepStride-th case (case 0 included) and each case that reaches
// something no earlier case of the sweep reached (PathOf: a kernel its
// lowering calls, fused groups, overlapped pairs, in-place operators, or a
// class of refusal), so that nothing the sweep reaches goes untested
// against TFLM. The cases it does not run through TFLM are checked without
// TFLM where the test has a check of its own (the reference
// implementations, gen/lower's refCompare; fused or overlapped against layer by layer).
// The subset's cases are cases of the full run, so the oracle's replay has
// them.
//
// With -long (go test ./gen/lower ./gen/schedule -long, which .ci/run runs) every case
// runs through TFLM, as before the split. -short, which runs a prefix of
// the cases (gen/lower's diffN, Count), runs every case of its prefix through TFLM.
var runLong = flag.Bool("long", false, fmt.Sprintf("run every case of the differential sweeps through TFLM "+
	"(default: every %dth case and each case reaching a kernel or refusal no earlier case reached)", sweepStride))

// sweepStride: the default mode runs case i through TFLM when i is a
// multiple of sweepStride (or it reaches something new).
const sweepStride = 100

// Sweep picks the cases of one differential (sub)test that run through
// TFLM. Its zero value is ready for use.
type Sweep struct {
	seen map[string]bool
}

// All reports whether every case runs through TFLM (-long or -short).
func (Sweep) All() bool { return *runLong || testing.Short() }

// Pick reports whether case i (the cases drawn in order, numbered from
// 0), whose path through the generator is path, runs through TFLM. It must
// be called for every case in order: a case is picked when its path has an
// element no earlier case's had.
func (s *Sweep) Pick(i int, path []string) bool {
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	fresh := false
	for _, e := range path {
		if !s.seen[e] {
			s.seen[e] = true
			fresh = true
		}
	}
	return s.All() || fresh || i%sweepStride == 0
}

// Take is Pick for a model run as prog makes it (PathOf), which it
// lowers in the default mode only.
func (s *Sweep) Take(i int, data []byte, prog ProgramFunc) bool {
	if s.All() {
		return true
	}
	return s.Pick(i, PathOf(data, prog))
}

// digits matches the numbers of an error message (shapes, indices, values).
var digits = regexp.MustCompile(`[0-9]+`)

// PathOf is the path a model takes through the generator when prog makes
// its program: ProgramPath of the program or, when prog refuses it, the
// class of the refusal (the error with its numbers left out).
func PathOf(data []byte, prog ProgramFunc) []string {
	g, err := model.Parse("case.tflite", data)
	if err != nil {
		return RefusalPath("invalid", err)
	}
	p, err := prog(g)
	if err != nil {
		return RefusalPath("refused", err)
	}
	return ProgramPath(p)
}

// RefusalPath is the path of a model the generator refuses: the class of
// the refusal, its error with the numbers left out.
func RefusalPath(what string, err error) []string {
	return []string{what + ": " + digits.ReplaceAllString(err.Error(), "#")}
}

// ProgramPath lists the kernels a program calls (fused groups' and control
// flow's included) and whether it has fused groups, overlapped pairs and
// in-place operators.
func ProgramPath(p *program.Program) []string {
	fns := map[string]bool{}
	program.Walk(p.Ops, func(op *program.Op) {
		for _, c := range op.Calls {
			fns[c.Fn] = true
		}
	})
	p.GroupCalls(func(c program.Call) { fns[c.Fn] = true })
	for _, f := range []struct {
		name string
		on   bool
	}{{"(fused groups)", len(p.Groups) > 0}, {"(overlapped pairs)", len(p.Overlaps) > 0}, {"(in place)", len(p.InPlace) > 0}} {
		fns[f.name] = f.on
	}
	var path []string
	for k, on := range fns {
		if on {
			path = append(path, k)
		}
	}
	return path
}
