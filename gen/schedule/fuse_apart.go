package schedule

import (
	"fmt"

	"github.com/tflm-gen/tflm-gen/gen/program"
)

// apart says, for every operator i > 0 of f's program not in one of spans
// with the operator before it, why the two run apart: the first rule of
// fusion (bandable, link, fusable, choose) that keeps them so. The
// operator before i is i-1, or the last before it not folded into
// another (gen/fold); a folded operator itself has no entry.
func (f *fusePlanner) apart(spans []fuseSpan) []program.Apart {
	p := f.p
	n := len(p.Ops)
	span := make([]int, n) // span[i]: 1 + the index of i's span in spans, 0 for none
	for k, sp := range spans {
		for i := sp.first; i <= sp.last; i++ {
			span[i] = k + 1
		}
	}
	var out []program.Apart
	prev := -1
	for i := range n {
		if p.Graph.Ops[i].Folded {
			continue
		}
		if prev >= 0 && (span[i] == 0 || span[i] != span[prev]) {
			out = append(out, program.Apart{Op: i, From: prev, Why: f.why(prev, i)})
		}
		prev = i
	}
	return out
}

// why is the rule that keeps operator i apart from operator j, the one
// before it (i-1, or the last before i not folded into another).
func (f *fusePlanner) why(j, i int) string {
	p := f.p
	a, b := f.band[j], f.band[i]
	switch {
	case a == nil:
		return fmt.Sprintf("operator %d (%s) %s", j, p.Ops[j].Code, noBand(p, j))
	case b == nil:
		return fmt.Sprintf("operator %d (%s) %s", i, p.Ops[i].Code, noBand(p, i))
	}
	if why := f.lineable(j); why != "" {
		return why
	}
	// Linked (so is an operator folded between them): the choice of
	// groups kept them apart.
	if sp := (fuseSpan{j, i}); f.fusable(sp) && f.group(sp) >= 0 {
		if f.budget > f.ownPeak {
			return fmt.Sprintf("the package's arena holds %d bytes for its other models anyway, and this model stays within them without fusing the two (the fewest fused operators that reach it are chosen)", f.budget)
		}
		return "fusing them would not lower the estimated peak of the arena (the fewest fused operators that reach it are chosen)"
	}
	if f.until[j] > i {
		return fmt.Sprintf("a group holding both must reach operator %d, the last to read operator %d's output, and none that does lowers the estimated peak", f.until[j], j)
	}
	if a.outBuf != b.inBuf {
		return fmt.Sprintf("operator %d does not read operator %d's output as its row input, and no group across them lowers the estimated peak", i, j)
	}
	return "the two cannot form a group alone (a CONCATENATION would read a line whole, or the group's tied input and output do not fit), and no longer group across them lowers the estimated peak"
}

// noBand says why operator i has no row-band form.
func noBand(p *program.Program, i int) string {
	op := p.Ops[i]
	switch {
	case len(op.Calls) == 0 && op.Flow == nil:
		return "is a view of its input (no code) whose rows are not its input's rows"
	case op.Flow != nil:
		return "is control flow"
	case len(op.Calls) > 1:
		return fmt.Sprintf("runs %d kernel calls, not one band kernel", len(op.Calls))
	}
	if _, _, ok := callBand(op.Calls[0]); !ok {
		return fmt.Sprintf("has no row-band kernel (%s runs on whole tensors)", op.Calls[0].Fn)
	}
	return "does not read and write whole batch-1 NHWC tensors"
}
