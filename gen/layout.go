package gen

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/planner"
)

// Layout is the planned arena: one entry per planner buffer.
type Layout struct {
	Plan    *planner.Plan
	Buffers []planner.Buffer
	// Tensors lists, per buffer, the tensors stored in it (several when
	// operators alias their output to their input); empty for scratch.
	Tensors [][]int
	// Reset lists, per buffer, the byte value Reset fills it with, or -1
	// when Reset leaves it alone (everything but persistent state).
	Reset []int
	// InPlace lists the operators whose output overwrites a dying input.
	InPlace []inPlacePair
	// PlainSize is the arena a plan without views or in-place operators
	// would need (every tensor its own buffer); PlainSize-Plan.Size is
	// what operator-aware sharing saves.
	PlainSize int
	// OpNames are the operator types in execution order.
	OpNames []string
	Align   int
	// tensorBuf maps a tensor index to its buffer.
	tensorBuf map[int]int
}

// TensorOffset returns the arena offset of a non-constant tensor.
func (l *Layout) TensorOffset(t int) (int, bool) {
	b, ok := l.tensorBuf[t]
	if !ok {
		return 0, false
	}
	return l.Plan.Offsets[b], true
}

// Bytes sums the planned (unaligned) sizes of the buffers of one kind.
func (l *Layout) Bytes(k planner.Kind) int {
	n := 0
	for _, b := range l.Buffers {
		if b.Kind == k {
			n += b.Size
		}
	}
	return n
}

func planGraph(g *model.Graph, lw *lowered, opt Options) (*Layout, error) {
	align := opt.Align
	if align == 0 {
		align = 16
	}
	last := len(g.Ops) - 1
	// Union-find over tensors that share a buffer through aliases.
	parent := map[int]int{}
	var find func(int) int
	find = func(t int) int {
		p, ok := parent[t]
		if !ok || p == t {
			return t
		}
		r := find(p)
		parent[t] = r
		return r
	}
	for _, c := range lw.ops {
		for _, a := range c.aliases {
			parent[find(c.Op.Outputs[a.out])] = find(c.Op.Inputs[a.in])
		}
	}
	var inPlace []inPlacePair
	if !opt.NoShare {
		inPlace = findInPlace(g, find)
		for _, p := range inPlace {
			parent[find(p.out)] = find(p.in)
		}
	}

	type group struct {
		first, last int
		tensors     []int
		variable    bool
	}
	groups := map[int]*group{}
	var roots []int
	touch := func(t, step int) {
		if t < 0 || g.Tensors[t].IsConst() {
			return
		}
		r := find(t)
		gr, ok := groups[r]
		if !ok {
			gr = &group{first: step, last: step}
			groups[r] = gr
			roots = append(roots, r)
		}
		gr.first, gr.last = min(gr.first, step), max(gr.last, step)
		found := false
		for _, x := range gr.tensors {
			found = found || x == t
		}
		if !found {
			gr.tensors = append(gr.tensors, t)
		}
		if g.Tensors[t].IsVariable {
			gr.variable = true
		}
	}
	for _, t := range g.Inputs {
		touch(t, 0)
	}
	for _, op := range g.Ops {
		for _, t := range op.Inputs {
			touch(t, op.Index)
		}
		for _, t := range op.Outputs {
			touch(t, op.Index)
		}
	}
	for _, t := range g.Outputs {
		touch(t, last)
	}

	lay := &Layout{Align: align, tensorBuf: map[int]int{}, InPlace: inPlace}
	for _, op := range g.Ops {
		lay.OpNames = append(lay.OpNames, op.Code.String())
	}
	for _, r := range roots {
		gr := groups[r]
		sort.Ints(gr.tensors)
		t := g.Tensors[r]
		b := planner.Buffer{Name: t.Name, Size: t.Bytes(), First: gr.first, Last: gr.last, Kind: planner.Activation}
		fill := -1
		if gr.variable {
			b.First, b.Last, b.Kind = 0, last, planner.Persistent
			fill = 0
			if t.Type == model.Int8 && t.Quant != nil && len(t.Quant.ZeroPoint) > 0 {
				// TFLite Micro resets int8 state to the zero point.
				fill = int(uint8(int8(t.Quant.ZeroPoint[0])))
			}
		}
		if b.Name == "" {
			b.Name = fmt.Sprintf("tensor%d", r)
		}
		for _, x := range gr.tensors {
			lay.tensorBuf[x] = len(lay.Buffers)
		}
		lay.Buffers = append(lay.Buffers, b)
		lay.Tensors = append(lay.Tensors, gr.tensors)
		lay.Reset = append(lay.Reset, fill)
	}
	var reqs []*scratchReq
	for _, c := range lw.ops {
		for _, r := range c.scratch {
			lay.Buffers = append(lay.Buffers, planner.Buffer{
				Name: fmt.Sprintf("op%d scratch%d (%s)", c.Op.Index, r.n, c.Op.Code),
				Size: r.bytes, First: c.Op.Index, Last: c.Op.Index, Kind: planner.Scratch,
			})
			lay.Tensors = append(lay.Tensors, nil)
			lay.Reset = append(lay.Reset, -1)
			reqs = append(reqs, r)
		}
		for _, r := range c.persist {
			lay.Buffers = append(lay.Buffers, planner.Buffer{
				Name: fmt.Sprintf("op%d state%d (%s)", c.Op.Index, r.n, c.Op.Code),
				Size: r.bytes, First: 0, Last: last, Kind: planner.Persistent,
			})
			lay.Tensors = append(lay.Tensors, nil)
			lay.Reset = append(lay.Reset, 0)
			reqs = append(reqs, r)
		}
	}
	plan, err := planner.Make(lay.Buffers, planner.Options{Align: align, Strategy: opt.Planner, Effort: opt.Effort})
	if err != nil {
		return nil, fmt.Errorf("planning: %w", err)
	}
	if plan.Size > model.MaxTensorBytes {
		return nil, fmt.Errorf("%w: arena of %d bytes does not fit a 32-bit int", model.ErrUnsupported, plan.Size)
	}
	if i, j, bad := planner.FirstOverlap(lay.Buffers, plan.Offsets); bad {
		return nil, fmt.Errorf("internal error: planner placed %q and %q, live at the same time, in overlapping memory", lay.Buffers[i].Name, lay.Buffers[j].Name)
	}
	lay.Plan = plan
	lay.PlainSize = plan.Size
	if len(inPlace) > 0 || anyAlias(lw) {
		// The same model planned with one buffer per tensor, for the report.
		plain, err := plainSize(g, lw, opt)
		if err != nil {
			return nil, err
		}
		lay.PlainSize = plain
	}
	nAct := len(roots)
	for k, r := range reqs {
		r.offset = plan.Offsets[nAct+k]
	}
	return lay, nil
}

func anyAlias(lw *lowered) bool {
	for _, c := range lw.ops {
		if len(c.aliases) > 0 {
			return true
		}
	}
	return false
}

// plainSize plans the graph with every tensor in its own buffer.
func plainSize(g *model.Graph, lw *lowered, opt Options) (int, error) {
	bare := &lowered{}
	for _, c := range lw.ops {
		cc := *c
		cc.aliases = nil
		bare.ops = append(bare.ops, &cc)
	}
	opt.NoShare = true
	lay, err := planGraph(g, bare, opt)
	if err != nil {
		return 0, err
	}
	return lay.Plan.Size, nil
}

// liveAt lists the buffers live at step, largest first.
func (l *Layout) liveAt(step int) []int {
	var live []int
	for i, b := range l.Buffers {
		if b.First <= step && step <= b.Last {
			live = append(live, i)
		}
	}
	sort.SliceStable(live, func(a, b int) bool { return l.Buffers[live[a]].Size > l.Buffers[live[b]].Size })
	return live
}

// explainOver says why the plan does not fit in limit bytes.
func (l *Layout) explainOver(limit int) string {
	p := l.Plan
	step := p.PeakStep
	var sb strings.Builder
	fmt.Fprintf(&sb, "arena needs %d bytes, %d over the limit of %d", p.Size, p.Size-limit, limit)
	if p.Size > p.LowerBound {
		fmt.Fprintf(&sb, " (lower bound %d; plan is %s)", p.LowerBound, p.CertText())
	}
	fmt.Fprintf(&sb, "; peak at operator %d (%s) where these buffers are live:", step, l.OpNames[step])
	for _, i := range l.liveAt(step) {
		b := l.Buffers[i]
		fmt.Fprintf(&sb, " %q %d bytes (%s, ops %d-%d);", b.Name, b.Size, b.Kind, b.First, b.Last)
	}
	return strings.TrimSuffix(sb.String(), ";")
}
