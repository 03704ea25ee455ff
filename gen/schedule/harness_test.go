package schedule

import (
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// programWith is the program Program makes with opt, for difftest.
func programWith(opt Options) difftest.ProgramFunc {
	return func(g *model.Graph) (*program.Program, error) {
		p, _, err := Program(g, opt)
		return p, err
	}
}

// inProcess runs a model in-process layer by layer (the default build
// with -fuse off) and returns its outputs.
func inProcess(data []byte, inputs ...[]byte) ([][]byte, error) {
	return difftest.InProcess(programWith(Options{}), data, inputs...)
}

// inProcessOverlap runs a model in-process as the default build schedules
// it (Options.Fuse); it also returns the program's overlapped pairs.
func inProcessOverlap(data []byte, inputs ...[]byte) ([][]byte, int, error) {
	outs, p, err := difftest.InProcessProgram(programWith(Options{Fuse: true}), data, inputs...)
	if p == nil {
		return nil, 0, err
	}
	return outs, len(p.Overlaps), err
}

// pathOf is the path of a model scheduled with opt (difftest.PathOf).
func pathOf(data []byte, opt Options) []string {
	return difftest.PathOf(data, programWith(opt))
}
