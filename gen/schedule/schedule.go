// Package schedule decides how a lowered model runs: which kernel variant
// each operator takes (fast, or lean where the fast one's scratch would
// make the arena larger), which operators write their output over their
// dying input, and which chains of operators run fused, band of rows by
// band of rows. Lowering (gen/lower) offers the choices; planning
// (gen/layout) measures each candidate; the result is one program for
// layout and emission.
package schedule

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/lower"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/gen/variant"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// Options control Program.
type Options struct {
	// Lower says how Assemble shares memory between tensors.
	Lower lower.Options
	// Kernels is the build the kernels are chosen for (-speed, -compiler).
	// With Kernels.Speed every operator keeps its fast variant even where
	// its scratch memory makes the arena larger.
	Kernels lower.Kernels
	// Fuse goes below the layer-by-layer bound (-fuse on): operators
	// write their output over their dying input where their kernels allow
	// it, and chains run fused, where the arena comes out smaller.
	Fuse bool
	// Plan is how candidate schedules are planned (alignment, strategy,
	// effort): the same as for the final plan.
	Plan layout.Options
	// Budget is an arena size the program gets anyway (in a package of
	// several models sharing one arena, the other models' largest): memory
	// is traded for speed only down to it. Fast kernels stay where the
	// arena is no larger than Budget (variant.ChooseWithin), and fusion
	// fuses the fewest operators that bring the estimated peak to Budget
	// or to its smallest, whichever is larger. 0: the smallest arena.
	Budget int
}

// Program lowers every operator of g with its fastest kernels and, unless
// opt.Kernels.Speed is set, lets variant.Choose give up the fast kernels
// whose scratch memory would make the arena larger than with lean kernels
// only. With opt.Fuse it then goes below the layer-by-layer bound
// (belowTheBound).
// plain is the same program with one buffer per tensor (no views, no
// in-place operators), for reporting what sharing saves; it is nil when no
// buffer of p holds more than one tensor.
func Program(g *model.Graph, opt Options) (p, plain *program.Program, err error) {
	fast, err := lower.Lower(g, nil, opt.Kernels)
	if err != nil {
		return nil, nil, err
	}
	frags := fast
	var leanOps []int
	if !opt.Kernels.Speed {
		all := make([]bool, len(g.Ops))
		for i := range all {
			all[i] = true
		}
		lean, err := lower.Lower(g, all, lower.Kernels{GC: opt.Kernels.GC})
		if err != nil {
			return nil, nil, err
		}
		fs, ls := make([]int, len(g.Ops)), make([]int, len(g.Ops))
		for i := range g.Ops {
			fs[i], ls[i] = fast[i].ScratchBytes(opt.Plan.Align), lean[i].ScratchBytes(opt.Plan.Align)
		}
		pick := func(sel []bool) []*lower.Fragment {
			out := make([]*lower.Fragment, len(sel))
			for i, l := range sel {
				out[i] = fast[i]
				if l {
					out[i] = lean[i]
				}
			}
			return out
		}
		sel, _, err := variant.ChooseWithin(fs, ls, opt.Budget, func(sel []bool) (variant.Plan, error) {
			p, err := lower.Assemble(g, pick(sel), opt.Lower)
			if err != nil {
				return variant.Plan{}, err
			}
			l, err := layout.Make(p, nil, opt.Plan)
			if err != nil {
				return variant.Plan{}, err
			}
			return variant.Plan{Size: l.Plan.Size, PeakStep: l.Plan.PeakStep}, nil
		})
		if err != nil {
			return nil, nil, err
		}
		frags = pick(sel)
		for i, l := range sel {
			if l && fs[i] > ls[i] {
				leanOps = append(leanOps, i)
			}
		}
	}
	if p, err = lower.Assemble(g, frags, opt.Lower); err != nil {
		return nil, nil, err
	}
	if opt.Fuse {
		if p, err = belowTheBound(g, frags, opt, p); err != nil {
			return nil, nil, err
		}
		// A fused group's calls may leave a table unread.
		p = p.WithoutUnusedConsts()
	}
	p.Lean = leanOps
	plain, err = lower.Plain(g, frags, p)
	return p, plain, err
}

// belowTheBound returns the program with the smallest arena among: flat
// (layer by layer) with operators writing over their dying input, added
// one by one where that makes the arena smaller, and the fused groups
// (fuse.go) that make the estimated peak smallest, with the overlapped
// operators that peak needs (which also finds sets of overlaps that only
// lower the arena together, where several operators share the peak). A
// tie keeps the first (fewer calls).
//
// Last, each overlapped operator with a second way to write over its
// input (offerOverlapAlt) is tried that way, kept where the arena comes
// out smaller.
func belowTheBound(g *model.Graph, frags []*lower.Fragment, opt Options, flat *program.Program) (*program.Program, error) {
	plan := func(q *program.Program) (int, error) {
		l, err := layout.Make(q, nil, opt.Plan)
		if err != nil {
			return 0, err
		}
		return l.Plan.Size, nil
	}
	p, o, spans, err := chooseSchedule(g, frags, opt, flat, plan)
	if err != nil {
		return nil, err
	}
	return overlapAlternatives(g, frags, o, spans, p, plan)
}

// chooseSchedule is belowTheBound but for the second ways of overlapping:
// the program, the options it was assembled with and its fused groups.
func chooseSchedule(g *model.Graph, frags []*lower.Fragment, opt Options, flat *program.Program, plan func(*program.Program) (int, error)) (*program.Program, lower.Options, []fuseSpan, error) {
	best, chosen, err := chooseOverlaps(g, frags, opt.Lower, flat, plan)
	if err != nil {
		return nil, lower.Options{}, nil, err
	}
	bestOpt := opt.Lower
	bestOpt.Overlap = chosen
	// An elementwise operator written in place over its chain operand
	// joins a chain with a line of its own: the groups are estimated on
	// the program where these operators are not in place, and each on its
	// own costs what it costs in flat.
	// So is a residual operator written over its skip tensor, so that a
	// group may hold that tensor as a line (a DAG group); where it does
	// not, fuse gets it in place.
	keep, skipKeep := bandInPlace(flat)
	est := flat
	if len(keep)+len(skipKeep) > 0 {
		o := opt.Lower
		o.NotInPlace = union(keep, skipKeep)
		if est, err = lower.Assemble(g, frags, o); err != nil {
			return nil, lower.Options{}, nil, err
		}
	}
	fp := newFusePlanner(est, frags, opt.Plan.Align, outsideArena(est, opt.Plan))
	fp.budget = opt.Budget
	fp.skipInPlace = skipKeep
	for i := range union(keep, skipKeep) {
		// In place, the output shares its input's buffer (same shape and
		// element size): at its step, flat holds one buffer fewer.
		fp.inPlace[i] = fp.size(est.TensorBuf[g.Ops[i].Outputs[0]])
	}
	spans, overlap := fp.choose()
	apart := fp.apart(spans)
	if len(spans) == 0 && len(overlap) == 0 {
		best.Apart = apart
		return best, bestOpt, nil, nil
	}
	bestSize, err := plan(best)
	if err != nil {
		return nil, lower.Options{}, nil, err
	}
	o := opt.Lower
	o.Overlap = overlap
	for _, sp := range spans {
		for i := sp.first; i <= sp.last; i++ {
			if keep[i] || skipKeep[i] && fp.skipLineIn(i, sp) {
				if o.NotInPlace == nil {
					o.NotInPlace = map[int]bool{}
				}
				o.NotInPlace[i] = true
			}
		}
	}
	q, err := lower.Assemble(g, frags, o)
	if err != nil {
		return nil, lower.Options{}, nil, err
	}
	if q, err = fuse(q, spans); err != nil {
		return nil, lower.Options{}, nil, err
	}
	n, err := plan(q)
	if err != nil {
		return nil, lower.Options{}, nil, err
	}
	if n < bestSize {
		q.Apart = apart
		return q, o, spans, nil
	}
	// The groups chosen by estimate did not make the plan smaller.
	best.Apart = apart
	for _, sp := range spans {
		for i := sp.first + 1; i <= sp.last; i++ {
			best.Apart = append(best.Apart, program.Apart{Op: i, Why: fmt.Sprintf(
				"fused with operators %d-%d the arena would be %d bytes, no smaller than the %d of the plan without that group", sp.first, sp.last, n, bestSize)})
		}
	}
	sort.Slice(best.Apart, func(a, b int) bool { return best.Apart[a].Op < best.Apart[b].Op })
	return best, bestOpt, nil, nil
}

// overlapAlternatives tries, operator by operator in order, the second way
// of each overlapped operator of p (assembled with o, fused as spans) that
// has one, and keeps it where the arena comes out smaller.
func overlapAlternatives(g *model.Graph, frags []*lower.Fragment, o lower.Options, spans []fuseSpan, p *program.Program, plan func(*program.Program) (int, error)) (*program.Program, error) {
	var cands []*lower.Fragment
	for op := range o.Overlap {
		if frags[op].OffersOverlapAlt() {
			cands = append(cands, frags[op])
		}
	}
	if len(cands) == 0 {
		return p, nil
	}
	// Each trial plans the whole program: as chooseOverlaps, within
	// maxOverlapWork, the operators at the steps with the most bytes live
	// first.
	if n := len(p.Buffers); len(cands)*max(n, 1) > maxOverlapWork {
		cands = heaviest(p, cands, maxOverlapWork/max(n, 1))
	}
	ops := make([]int, len(cands))
	for i, c := range cands {
		ops[i] = c.Op()
	}
	sort.Ints(ops)
	size, err := plan(p)
	if err != nil {
		return nil, err
	}
	for _, op := range ops {
		try := o
		try.OverlapAlt = maps.Clone(o.OverlapAlt)
		if try.OverlapAlt == nil {
			try.OverlapAlt = map[int]bool{}
		}
		try.OverlapAlt[op] = true
		q, err := lower.Assemble(g, frags, try)
		if err != nil {
			return nil, err
		}
		if q, err = fuse(q, spans); err != nil {
			return nil, err
		}
		if len(q.Overlaps) != len(p.Overlaps) {
			continue
		}
		n, err := plan(q)
		if err != nil {
			return nil, err
		}
		if n < size {
			q.Apart = p.Apart
			p, o, size = q, try, n
		}
	}
	return p, nil
}

// bandInPlace returns the operators of p (one call of a band kernel)
// that write their output in place over an input, in two sets. chain: over
// the input a chain would bring them, a unary band kernel (bandUnary) or a
// binary one (bandElems) over the output of the operator before it
// (ADD(y, x) where y is that output). skip: a binary one over its skip
// tensor, the operand that is not that output (ADD(x, y) takes over x,
// and may end a group so).
func bandInPlace(p *program.Program) (chain, skip map[int]bool) {
	add := func(m *map[int]bool, op int) {
		if *m == nil {
			*m = map[int]bool{}
		}
		(*m)[op] = true
	}
	for _, ip := range p.InPlace {
		op := p.Ops[ip.Op]
		if len(op.Calls) != 1 || op.Flow != nil {
			continue
		}
		kind, _, _ := callBand(op.Calls[0])
		switch {
		case kind == bandUnary:
			add(&chain, ip.Op)
		case kind != bandElems:
		case ip.Op > 0 && slices.Contains(p.Graph.Ops[ip.Op-1].Outputs, ip.In):
			add(&chain, ip.Op)
		case ip.Op > 0:
			add(&skip, ip.Op)
		}
	}
	return chain, skip
}

// union returns the operators in any of sets, nil when there are none.
func union(sets ...map[int]bool) map[int]bool {
	var out map[int]bool
	for _, m := range sets {
		for op := range m {
			if out == nil {
				out = map[int]bool{}
			}
			out[op] = true
		}
	}
	return out
}

// outsideArena lists the buffers of p that the layout places outside the
// arena: with opt.ExternalIO, those of the graph's inputs and outputs
// (layout's ioBuffers, which rejects a program where they share memory).
func outsideArena(p *program.Program, opt layout.Options) map[program.BufID]bool {
	if !opt.ExternalIO {
		return nil
	}
	out := map[program.BufID]bool{}
	for _, ts := range [][]int{p.Graph.Inputs, p.Graph.Outputs} {
		for _, t := range ts {
			if b, ok := p.TensorBuf[t]; ok {
				out[b] = true
			}
		}
	}
	return out
}
