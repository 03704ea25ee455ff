package lower

import (
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// The tests of this package run the lowering alone: the stage after it
// (gen/schedule, which chooses kernel variants, overlaps and fused groups
// by planning candidates) imports this package, so its tests cannot run
// here; gen/schedule's and gen's tests run the whole pipeline.

// testProgram lowers g for the default build as a one-operator model's
// schedule does: each operator takes its lean kernel variant where the
// fast one needs more scratch (at a one-operator model's only step, the
// scratch adds to the arena's peak, and the variant choice gives the fast
// variant up), its fast variant elsewhere.
func testProgram(g *model.Graph) (*program.Program, error) {
	frags, err := testFragments(g, Kernels{})
	if err != nil {
		return nil, err
	}
	return Assemble(g, frags, Options{})
}

// testFragments lowers g for the build k as testProgram does.
func testFragments(g *model.Graph, k Kernels) ([]*Fragment, error) {
	fast, err := Lower(g, nil, k)
	if err != nil || k.Speed {
		return fast, err
	}
	all := make([]bool, len(g.Ops))
	for i := range all {
		all[i] = true
	}
	lean, err := Lower(g, all, k)
	if err != nil {
		return nil, err
	}
	for i := range fast {
		if lean[i].ScratchBytes(0) < fast[i].ScratchBytes(0) {
			fast[i] = lean[i]
		}
	}
	return fast, nil
}

// overlapProgram is testProgram with every overlap the lowerings offer
// taken (Options.Overlap) where the input dies at the operator, whether or
// not it makes the arena smaller.
func overlapProgram(g *model.Graph) (*program.Program, error) {
	return overlapProgramWith(g, false)
}

// overlapProgramWith is overlapProgram taking, with alt, each operator's
// second way of overlapping where it has one (Options.OverlapAlt).
func overlapProgramWith(g *model.Graph, alt bool) (*program.Program, error) {
	frags, err := testFragments(g, Kernels{})
	if err != nil {
		return nil, err
	}
	o := Options{Overlap: map[int]bool{}, OverlapAlt: map[int]bool{}}
	for _, f := range frags {
		if f.OffersOverlap() {
			o.Overlap[f.Op()] = true
			o.OverlapAlt[f.Op()] = alt && f.OffersOverlapAlt()
		}
	}
	return Assemble(g, frags, o)
}

// testGenerate runs the pipeline as gen.Generate does, with testProgram
// in place of the schedule stage: lower, plan, emit.
func testGenerate(name string, data []byte, o difftest.EmitOptions) (*difftest.Generated, error) {
	g, err := model.Parse(name, data)
	if err != nil {
		return nil, err
	}
	frags, err := testFragments(g, Kernels{Speed: o.Speed, GC: o.GC})
	if err != nil {
		return nil, err
	}
	p, err := Assemble(g, frags, Options{NoShare: o.NoShare})
	if err != nil {
		return nil, err
	}
	plain, err := Plain(g, frags, p)
	if err != nil {
		return nil, err
	}
	return difftest.Emit(p, plain, o)
}

// testLean lowers g with the given lean flags (no variant choice), plans
// and emits.
func testLean(g *model.Graph, lean []bool, o difftest.EmitOptions) (*difftest.Generated, error) {
	frags, err := Lower(g, lean, Kernels{})
	if err != nil {
		return nil, err
	}
	p, err := Assemble(g, frags, Options{NoShare: o.NoShare})
	if err != nil {
		return nil, err
	}
	return difftest.Emit(p, nil, o)
}
