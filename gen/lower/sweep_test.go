package lower

import (
	"errors"
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
// something no earlier case of the sweep reached (pathOf: a kernel its
// lowering calls, fused groups, overlapped pairs, in-place operators, or a
// class of refusal), so that nothing the sweep reaches goes untested
// against TFLM. The cases it does not run through TFLM are checked without
// TFLM where the test has a check of its own (the reference
// implementations, refCompare; fused or overlapped against layer by layer).
// The subset's cases are cases of the full run, so the oracle's replay has
// them.
//
// With -long (go test ./gen/lower -long, which .ci/run runs) every case
// runs through TFLM, as before the split. -short, which runs a prefix of
// the cases (diffN, diffCount), runs every case of its prefix through TFLM.
var runLong = flag.Bool("long", false, fmt.Sprintf("run every case of the differential sweeps through TFLM "+
	"(default: every %dth case and each case reaching a kernel or refusal no earlier case reached)", sweepStride))

// sweepStride: the default mode runs case i through TFLM when i is a
// multiple of sweepStride (or it reaches something new).
const sweepStride = 100

// sweep picks the cases of one differential (sub)test that run through
// TFLM. Its zero value is ready for use.
type sweep struct {
	seen map[string]bool
}

// all reports whether every case runs through TFLM (-long or -short).
func (sweep) all() bool { return *runLong || testing.Short() }

// pick reports whether case i (the cases drawn in order, numbered from
// 0), whose path through the generator is path, runs through TFLM. It must
// be called for every case in order: a case is picked when its path has an
// element no earlier case's had.
func (s *sweep) pick(i int, path []string) bool {
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
	return s.all() || fresh || i%sweepStride == 0
}

// take is pick for a model lowered with opt (pathOf), which it lowers in
// the default mode only.
func (s *sweep) take(i int, data []byte, opt ProgramOptions) bool {
	if s.all() {
		return true
	}
	return s.pick(i, pathOf(data, opt))
}

// digits matches the numbers of an error message (shapes, indices, values).
var digits = regexp.MustCompile(`[0-9]+`)

// pathOf is the path a model takes through the generator lowered with opt:
// programPath of its program or, when the lowering refuses it, the class
// of the refusal (the error with its numbers left out).
func pathOf(data []byte, opt ProgramOptions) []string {
	g, err := model.Parse("case.tflite", data)
	if err != nil {
		return refusalPath("invalid", err)
	}
	p, _, err := Program(g, opt)
	if err != nil {
		return refusalPath("refused", err)
	}
	return programPath(p)
}

// refusalPath is the path of a model the generator refuses: the class of
// the refusal, its error with the numbers left out.
func refusalPath(what string, err error) []string {
	return []string{what + ": " + digits.ReplaceAllString(err.Error(), "#")}
}

// programPath lists the kernels a program calls (fused groups' and control
// flow's included) and whether it has fused groups, overlapped pairs and
// in-place operators.
func programPath(p *program.Program) []string {
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

// refCompare checks the outputs of a case that did not run through TFLM
// against the reference implementations (refRun), with the test's own
// comparison cmp; on every case the full run compares, refCheck holds the
// references equal to TFLM's outputs bit for bit, so cmp passes here
// whenever it passes against TFLM. It reports whether the references cover
// the case.
func refCompare(c diffCase, got [][]byte, cmp func(c diffCase, got [][]byte, want [][]string) error) (bool, error) {
	var raws [][]byte
	for _, v := range c.inputs {
		raws = append(raws, v.raw())
	}
	ref, err := refRun(c.model, raws...)
	switch {
	case errors.Is(err, errNoRef):
		return false, nil
	case err != nil:
		return true, fmt.Errorf("reference implementation: %w", err)
	case len(ref) != len(got):
		return true, fmt.Errorf("%d outputs, the reference implementation has %d", len(got), len(ref))
	}
	want := make([][]string, len(ref))
	for k, v := range ref {
		want[k] = v.csv()
	}
	if err := cmp(c, got, want); err != nil {
		return true, fmt.Errorf("against the reference implementation (fuzz_ref_test.go; not run through TFLM): %w", err)
	}
	return true, nil
}
