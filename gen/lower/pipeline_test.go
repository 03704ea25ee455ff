package lower

import (
	"github.com/tflm-gen/tflm-gen/gen/emit"
	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// testOptions are the generation options the tests of this package use.
type testOptions struct {
	Package          string
	NoShare, NoTests bool
	Speed            bool // -speed: every operator's fast variant
}

// testResult is a generated package with its program and plan.
type testResult struct {
	Files   map[string][]byte
	Program *program.Program
	Layout  *layout.Layout
}

// testGenerate runs the whole pipeline as gen.Generate does (which this
// package cannot import): lower with the default variant choice, plan,
// emit.
func testGenerate(name string, data []byte, o testOptions) (*testResult, error) {
	g, err := model.Parse(name, data)
	if err != nil {
		return nil, err
	}
	p, plain, err := Program(g, ProgramOptions{Options: Options{NoShare: o.NoShare}, Speed: o.Speed})
	if err != nil {
		return nil, err
	}
	return testEmit(p, plain, o)
}

// testLean lowers g with the given lean flags (no variant choice), plans
// and emits.
func testLean(g *model.Graph, lean []bool, o testOptions) (*testResult, error) {
	frags, err := Ops(g, lean)
	if err != nil {
		return nil, err
	}
	p, err := Assemble(g, frags, Options{NoShare: o.NoShare})
	if err != nil {
		return nil, err
	}
	return testEmit(p, nil, o)
}

func testEmit(p, plain *program.Program, o testOptions) (*testResult, error) {
	lay, err := layout.Make(p, plain, layout.Options{})
	if err != nil {
		return nil, err
	}
	files, err := emit.Files(p, lay, emit.Options{Package: o.Package, NoTests: o.NoTests})
	if err != nil {
		return nil, err
	}
	return &testResult{Files: files, Program: p, Layout: lay}, nil
}
