package gen

import (
	"github.com/tflm-gen/tflm-gen/gen/emit"
	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/gen/report"
)

// PlanOutput is what `tflm-gen plan` prints and draws.
type PlanOutput struct {
	Text    []byte // the layout report, as in layout.txt
	SVG     []byte // the arena drawn as offset against operator
	JSON    []byte // report.json, as generation writes it
	Program *program.Program
	Layout  *layout.Layout
}

// PlanReport lowers and plans the model without emitting code.
func PlanReport(name string, data []byte, opt Options) (*PlanOutput, error) {
	p, lay, err := Lower(name, data, opt)
	if err != nil {
		return nil, err
	}
	text, err := report.Text(p, lay, nil, nil)
	if err != nil {
		return nil, err
	}
	stack := emit.StackOf(p)
	js, err := report.Make(p, lay, emit.ConstBytes(p), &stack, opt.Version).JSON()
	if err != nil {
		return nil, err
	}
	return &PlanOutput{Text: text, SVG: report.SVG(p, lay), JSON: js, Program: p, Layout: lay}, nil
}
