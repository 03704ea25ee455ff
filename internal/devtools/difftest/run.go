package difftest

import (
	"github.com/tflm-gen/tflm-gen/gen/emit"
	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/gen/run"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// A ProgramFunc makes the program a test runs for a graph: gen/lower's
// tests lower it, gen/schedule's schedule it.
type ProgramFunc func(g *model.Graph) (*program.Program, error)

// InProcess parses a model, makes its program with prog, plans it and runs
// it in-process (gen/run) on the given inputs, returning its outputs.
func InProcess(prog ProgramFunc, data []byte, inputs ...[]byte) ([][]byte, error) {
	outs, _, err := InProcessPath(prog, data, inputs...)
	return outs, err
}

// InProcessPath is InProcess that also returns the model's path through
// the generator (PathOf, from the same program).
func InProcessPath(prog ProgramFunc, data []byte, inputs ...[]byte) ([][]byte, []string, error) {
	g, err := model.Parse("case.tflite", data)
	if err != nil {
		return nil, RefusalPath("invalid", err), err
	}
	p, err := prog(g)
	if err != nil {
		return nil, RefusalPath("refused", err), err
	}
	outs, err := Run(p, inputs...)
	if err != nil {
		return nil, RefusalPath("refused", err), err
	}
	return outs, ProgramPath(p), nil
}

// InProcessProgram is InProcess that also returns the program it ran
// (nil when the model is refused).
func InProcessProgram(prog ProgramFunc, data []byte, inputs ...[]byte) ([][]byte, *program.Program, error) {
	g, err := model.Parse("case.tflite", data)
	if err != nil {
		return nil, nil, err
	}
	p, err := prog(g)
	if err != nil {
		return nil, nil, err
	}
	outs, err := Run(p, inputs...)
	return outs, p, err
}

// Run plans p (layout.Make, default options) and runs it in-process on the
// given inputs, returning its outputs.
func Run(p *program.Program, inputs ...[]byte) ([][]byte, error) {
	lay, err := layout.Make(p, nil, layout.Options{})
	if err != nil {
		return nil, err
	}
	return RunPlanned(p, lay, inputs...)
}

// RunPlanned runs p, planned as lay, in-process on the given inputs and
// returns its outputs.
func RunPlanned(p *program.Program, lay *layout.Layout, inputs ...[]byte) ([][]byte, error) {
	m, err := run.New(p, lay)
	if err != nil {
		return nil, err
	}
	for k, in := range inputs {
		copy(m.Input(k), in)
	}
	m.Invoke()
	var outs [][]byte
	for k := range p.Graph.Outputs {
		outs = append(outs, append([]byte(nil), m.Output(k)...))
	}
	return outs, nil
}

// EmitOptions are the generation options of a package a test emits.
type EmitOptions struct {
	Package          string
	NoShare, NoTests bool
	Speed            bool // -speed: every operator's fast variant
	GC               bool // -compiler gc: the kernels tuned for gc
}

// Generated is a generated package with its program and plan.
type Generated struct {
	Files   map[string][]byte
	Program *program.Program
	Layout  *layout.Layout
}

// Emit plans p (plain: the same program with one buffer per tensor, or
// nil) and emits its package as gen.Generate does.
func Emit(p, plain *program.Program, o EmitOptions) (*Generated, error) {
	lay, err := layout.Make(p, plain, layout.Options{})
	if err != nil {
		return nil, err
	}
	files, err := emit.Files(p, lay, emit.Options{Package: o.Package, NoTests: o.NoTests})
	if err != nil {
		return nil, err
	}
	return &Generated{Files: files, Program: p, Layout: lay}, nil
}
