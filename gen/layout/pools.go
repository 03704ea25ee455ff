package layout

import (
	"errors"
	"fmt"
	"slices"

	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/planner"
)

// placeMemories places p's buffers in several memories: the pools of opt
// (planner.MakePools), or one arena (a pool named ""), and with
// opt.ExternalIO the graph's inputs and outputs each in memory of its own,
// which the application passes to Invoke (pools whose IO is set). The
// Layout's Plan lays the memories end to end in that order, each as large
// as its plan (a pool at most its capacity).
func placeMemories(p *program.Program, align int, opt Options) (*Layout, error) {
	var io []ioBuffer
	if opt.ExternalIO {
		var err error
		if io, err = ioBuffers(p); err != nil {
			return nil, err
		}
	}
	return placeBuffers(p, plannerBuffers(p, align), Access(p), io, nil, align, opt)
}

// placeBuffers is placeMemories over the buffers all of p (as the planner
// takes them), with their access counts and the external inputs and
// outputs io.
//
// starts, when not nil, are the first buffers of several programs laid end
// to end (MakeJoint): each pool is then planned again as jointPlan plans
// one arena (each program's buffers apart from the persistent ones at
// offset 0, the persistent ones stacked above), and keeps the smaller plan.
func placeBuffers(p *program.Program, all []planner.Buffer, access []int64, io []ioBuffer, starts []int, align int, opt Options) (*Layout, error) {
	ext := map[int]int{} // buffer -> index in io
	for k, b := range io {
		ext[b.buf] = k
	}
	// The planned buffers: all but the external ones, renumbered, ties to
	// or from an external buffer dropped (an output written over its dying
	// input needs no distance from it when the two are in different
	// memories: they never share a byte).
	var planned []int
	for i := range all {
		if _, ok := ext[i]; !ok {
			planned = append(planned, i)
		}
	}
	bufs, _ := subset(all, planned)
	acc := make([]int64, len(planned))
	for k, i := range planned {
		acc[k] = access[i]
	}
	popt := planner.Options{Align: align, Strategy: opt.Strategy, Effort: opt.Effort, Session: opt.Session}
	pools := opt.Pools
	var pp *planner.PoolPlan
	if len(pools) == 0 {
		// One arena: exactly the single-memory plan.
		plan, err := makePlan(bufs, align, opt)
		if err := planError(p, err); err != nil {
			return nil, err
		}
		pools = []planner.Pool{{Name: "", Size: plan.Size, Cost: 1}}
		pp = &planner.PoolPlan{Pool: make([]int, len(bufs)), Offsets: plan.Offsets, Plans: []*planner.Plan{plan}, Members: [][]int{nil}}
		for k := range bufs {
			pp.Members[0] = append(pp.Members[0], k)
			pp.Cost += acc[k]
		}
		pp.Bound, pp.FastCost, pp.SlowCost = pp.Cost, pp.Cost, pp.Cost
	} else {
		var err error
		// A budget of its own (the session's may be spent on variant
		// choice): MakePools shares it between its pools.
		popt.Session = nil
		pp, err = planner.MakePools(bufs, acc, pools, popt)
		alt, untied, aerr := untiedPools(bufs, acc, pools, popt)
		if aerr == nil && alt != nil {
			// Ties may be dropped: the bound covers both kinds of plan.
			if b, berr := planner.SplitBound(bufs, acc, pools, popt); berr == nil {
				alt.Bound = b
				if err == nil {
					pp.Bound = min(pp.Bound, b)
				}
			}
			if err != nil || alt.Cost < pp.Cost {
				// Cheaper with an overlapped pair apart.
				pp, err, bufs = alt, nil, untied
			}
		}
		var short *planner.PoolShortError
		if errors.As(err, &short) {
			at := fmt.Sprintf("step %d", short.Step)
			if short.Step >= 0 && short.Step < len(p.Ops) {
				at = fmt.Sprintf("operator %d (%s)", short.Step, p.Ops[short.Step].Code)
			}
			return nil, fmt.Errorf("%w: pool %q (%d bytes) is %d bytes short at %s: the buffers that fit in no cheaper pool need %d bytes there",
				ErrTooLarge, short.Pool, short.Size, short.Short, at, short.Need)
		}
		if err := planError(p, err); err != nil {
			return nil, err
		}
	}
	if starts != nil {
		for i := range pools {
			replanJoint(pp, i, bufs, planned, starts, popt)
		}
	}
	l := &Layout{Align: align, PoolOf: make([]int, len(all)), Access: access,
		Cost: pp.Cost, Bound: pp.Bound, FastCost: pp.FastCost, SlowCost: pp.SlowCost, Untied: make([]bool, len(all))}
	for k, i := range planned {
		l.Untied[i] = all[i].Tie != nil && bufs[k].Tie == nil
	}
	for _, b := range io {
		l.Untied[b.buf] = all[b.buf].Tie != nil
	}
	comb := &planner.Plan{Offsets: make([]int, len(all)), Cert: planner.AtLowerBound, Method: "pools"}
	base := 0
	for i, pool := range pools {
		pl := pp.Plans[i]
		lp := Pool{Pool: pool, Base: base, Plan: pl}
		for _, k := range pp.Members[i] {
			b := planned[k]
			lp.Members = append(lp.Members, b)
			lp.Access += access[b]
			l.PoolOf[b] = i
			comb.Offsets[b] = base + pp.Offsets[k]
		}
		// The pool's buffers, their ties renumbered (a tie chain is in one pool).
		sub, cut := subset(bufs, pp.Members[i])
		if cut >= 0 {
			b := bufs[pp.Members[i][cut]]
			return nil, fmt.Errorf("internal error: pool %q holds %q but not %q, tied to it", pool.Name, b.Name, bufs[b.Tie.To].Name)
		}
		if err := checkPlacement(sub, pl); err != nil {
			return nil, fmt.Errorf("pool %q: %w", pool.Name, err)
		}
		l.Pools = append(l.Pools, lp)
		base += pl.Size
		comb.LowerBound += pl.LowerBound
		comb.Steps += pl.Steps
		if pl.Gap() > 0 && worse(pl.Cert, comb.Cert) {
			comb.Cert = pl.Cert
		}
		if len(opt.Pools) == 0 {
			comb.Cert, comb.Method, comb.PeakStep = pl.Cert, pl.Method, pl.PeakStep
		}
	}
	comb.Size = base // the arena: the external inputs and outputs follow it
	for _, b := range io {
		lp := Pool{Pool: planner.Pool{Name: b.name, Size: all[b.buf].Size, Cost: 1}, IO: b.name, Base: base,
			Plan: &planner.Plan{Offsets: []int{0}, Size: all[b.buf].Size, LowerBound: all[b.buf].Size}, Members: []int{b.buf}, Access: access[b.buf]}
		l.PoolOf[b.buf] = len(l.Pools)
		comb.Offsets[b.buf] = base
		l.Pools = append(l.Pools, lp)
		base += planner.AlignedSize(all[b.buf].Size, align)
	}
	if len(opt.Pools) > 0 {
		comb.PeakStep = peakStep(bufs)
	}
	l.Plan = comb
	l.PlainSize = comb.Size
	return l, nil
}

// untiedPools is MakePools with the ties loosened: a buffer tied to
// another (an output written over its dying input at a fixed distance) may
// go to another pool than it, where the two share no byte and need no
// distance. Within a pool that holds both, the tie is kept when the pool's
// plan with it still fits (it is usually smaller), else dropped (the two
// then share no byte either). It returns nil when no buffer is tied, and
// the buffers with the ties it kept.
func untiedPools(bufs []planner.Buffer, acc []int64, pools []planner.Pool, opt planner.Options) (*planner.PoolPlan, []planner.Buffer, error) {
	free := slices.Clone(bufs)
	tied := false
	for i := range free {
		tied = tied || free[i].Tie != nil
		free[i].Tie = nil
	}
	if !tied {
		return nil, nil, nil
	}
	pp, err := planner.MakePools(free, acc, pools, opt)
	if err != nil {
		return nil, nil, err
	}
	// Each pool planned again with the ties between its own buffers.
	for i, pool := range pools {
		members := pp.Members[i]
		sub, _ := subset(bufs, members)
		if !slices.ContainsFunc(sub, func(b planner.Buffer) bool { return b.Tie != nil }) {
			continue
		}
		pl, err := planner.Make(sub, opt)
		if err != nil || pl.Size > pool.Size {
			continue // the plan without the ties stands
		}
		pp.Plans[i] = pl
		for k, b := range members {
			pp.Offsets[b] = pl.Offsets[k]
			free[b].Tie = nil
			if sub[k].Tie != nil {
				free[b].Tie = bufs[b].Tie
			}
		}
	}
	return pp, free, nil
}

// ErrIOShared is wrapped when -io external finds two graph inputs or
// outputs in one buffer; lowering without in-place operators (NoShare)
// may separate them.
var ErrIOShared = errors.New("inputs and outputs share memory")

// ioBuffer is a graph input's or output's buffer placed in memory the
// application passes to Invoke (-io external), named "in0", "out1", ...
type ioBuffer struct {
	buf  int
	name string
}

// ioBuffers lists the buffers of the graph's inputs, then outputs, that
// -io external takes out of the arena, refusing what that cannot do: a
// buffer shared by an input and an output (an operator writing an output
// in place of an input) or by two of them, one larger than its tensor, or
// a persistent one.
func ioBuffers(p *program.Program) ([]ioBuffer, error) {
	g := p.Graph
	var out []ioBuffer
	owner := map[program.BufID]string{}
	add := func(kind, short string, k, t int) error {
		b, ok := p.TensorBuf[t]
		what := fmt.Sprintf("%s %d (tensor %d %q)", kind, k, t, g.Tensors[t].Name)
		if !ok {
			return fmt.Errorf("%w: -io external: %s is not in the arena (a constant), so it has no memory of its own", model.ErrUnsupported, what)
		}
		if o, dup := owner[b]; dup {
			return fmt.Errorf("%w: -io external: %s shares its memory with %s (the same tensor, a view of it, or an operator writing one in place of the other)", ErrIOShared, what, o)
		}
		buf := p.Buffers[b]
		if buf.Kind == planner.Persistent {
			return fmt.Errorf("%w: -io external: %s is persistent state", model.ErrUnsupported, what)
		}
		if buf.Size != g.Tensors[t].Bytes() {
			return fmt.Errorf("%w: -io external: %s is %d bytes but its buffer, shared with another tensor, is %d", model.ErrUnsupported, what, g.Tensors[t].Bytes(), buf.Size)
		}
		if program.GoType(g.Tensors[t].Type) == "" {
			return fmt.Errorf("%w: -io external: %s is of type %s, which has no Go element type", model.ErrUnsupported, what, g.Tensors[t].Type)
		}
		owner[b] = what
		out = append(out, ioBuffer{buf: int(b), name: fmt.Sprintf("%s%d", short, k)})
		return nil
	}
	for k, t := range g.Inputs {
		if err := add("input", "in", k, t); err != nil {
			return nil, err
		}
	}
	for k, t := range g.Outputs {
		if err := add("output", "out", k, t); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// worse orders certificates from the strongest claim to the weakest.
func worse(a, b planner.Certificate) bool {
	rank := func(c planner.Certificate) int {
		switch c {
		case planner.AtLowerBound:
			return 0
		case planner.Exhaustive:
			return 1
		case planner.AllOrders:
			return 2
		case planner.BestFound:
			return 3
		}
		return 4
	}
	return rank(a) > rank(b)
}

// peakStep is the step with the most bytes of live buffers.
func peakStep(bufs []planner.Buffer) int {
	steps := 0
	for _, b := range bufs {
		steps = max(steps, b.Last+1)
	}
	live := make([]int, steps+1)
	for _, b := range bufs {
		live[b.First] += b.Size
		live[b.Last+1] -= b.Size
	}
	best, at, run := -1, 0, 0
	for s := 0; s < steps; s++ {
		run += live[s]
		if run > best {
			best, at = run, s
		}
	}
	return at
}

// replanJoint plans pool i of pp again as jointPlan plans several programs
// (starts: each program's first buffer among all, planned maps the pool
// plan's buffer numbers to all's) and keeps the plan if it is smaller.
func replanJoint(pp *planner.PoolPlan, i int, bufs []planner.Buffer, planned []int, starts []int, opt planner.Options) {
	members := pp.Members[i]
	if len(members) == 0 {
		return
	}
	sub, cut := subset(bufs, members)
	if cut >= 0 {
		return // a tie leaves the pool: keep the plan
	}
	var subStarts []int
	prog := -1
	for k, b := range members {
		for prog+1 < len(starts) && starts[prog+1] <= planned[b] {
			prog++
			subStarts = append(subStarts, k)
		}
	}
	pl, err := jointPlan(sub, subStarts, opt)
	if err != nil || pl.Size >= pp.Plans[i].Size {
		return
	}
	pp.Plans[i] = pl
	for k, b := range members {
		pp.Offsets[b] = pl.Offsets[k]
	}
}

// subset returns the buffers members of bufs, renumbered in that order,
// each tie kept where the buffer it is tied to is a member too and dropped
// otherwise; cut is the position in members of the first buffer whose tie
// was dropped, -1 when none was.
func subset(bufs []planner.Buffer, members []int) (sub []planner.Buffer, cut int) {
	at := make(map[int]int, len(members))
	for k, b := range members {
		at[b] = k
	}
	sub, cut = make([]planner.Buffer, len(members)), -1
	for k, b := range members {
		sub[k] = bufs[b]
		if t := bufs[b].Tie; t != nil {
			sub[k].Tie = nil
			if to, ok := at[t.To]; ok {
				sub[k].Tie = &planner.Tie{To: to, Shift: t.Shift}
			} else if cut < 0 {
				cut = k
			}
		}
	}
	return sub, cut
}
