package gen

import (
	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/lower"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/gen/strips"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// maxStrips is the most column strips a stage is cut into, maxStages the
// most stages planned, maxStageOps the most operators a stage holds.
const (
	maxStrips   = 16
	maxStages   = 8
	maxStageOps = 256
)

// chosen is a graph the chooser kept (recompute) and its plan, made as
// schedulePlan makes it without pools: program and layout, or the error.
type chosen struct {
	g   *model.Graph
	p   *program.Program
	lay *layout.Layout
	err error
}

// recompute returns g with a stage of its first operators run in column
// strips (gen/strips) where that makes the arena smaller within
// opt.Recompute per cent more multiply-accumulates, g itself where nothing
// does, with its plan. The stages tried end where the activations are the
// smallest yet (a stage's output is held whole, so ending where it is
// larger than before cannot pay) and smaller than the arena, each with
// the most strips the extra allows; each is planned as the final plan is,
// the smallest arena wins. The search stops at the first stage that even
// 2 strips make too costly (a longer stage recomputes more), after
// maxStages plans and at maxStageOps operators, so that its time is
// bounded on any graph.
func recompute(g *model.Graph, opt Options, budget int) chosen {
	plan := func(g *model.Graph) chosen {
		p, lay, err := schedulePlan(g, opt, budget, false)
		return chosen{g: g, p: p, lay: lay, err: err}
	}
	out := plan(g)
	if out.err != nil {
		// The model as written does not lower: lowerGraph says why.
		return out
	}
	best := out.lay.Plan.Size
	macs := lower.MACs(g)
	allowed := int64(float64(macs) * opt.Recompute / 100)
	smallest := -1 // the smallest stage output so far, in bytes
	planned := 0
	for last := range min(len(g.Ops), maxStageOps) {
		if planned == maxStages {
			break
		}
		if err := strips.Check(g, strips.Stage{First: 0, Last: last, Strips: 2}); err != nil {
			continue
		}
		t := g.Tensors[g.Ops[last].Outputs[0]]
		if smallest >= 0 && t.Bytes() > smallest || t.Bytes() >= best {
			continue
		}
		smallest = t.Bytes()
		fits := false
		for k := min(maxStrips, t.Shape[2]); k >= 2; k-- {
			sg, err := strips.Split(g, strips.Stage{First: 0, Last: last, Strips: k})
			if err != nil {
				continue
			}
			m := lower.MACs(sg)
			if m-macs > allowed {
				continue
			}
			fits = true
			planned++
			sg.Strips.ModelMACs, sg.Strips.MACs = macs, m
			if c := plan(sg); c.err == nil && c.lay.Plan.Size < best {
				best, out = c.lay.Plan.Size, c
			}
			break
		}
		if !fits {
			break
		}
	}
	return out
}
