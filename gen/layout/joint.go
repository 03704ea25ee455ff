package layout

import (
	"fmt"

	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/planner"
)

// Joint is one arena planned for several programs that run one at a time
// (several models in one package): every program's activation and scratch
// buffers may share memory with any other program's, since they are live
// only during that program's Invoke, while every persistent buffer keeps
// its bytes for the whole run of all of them.
type Joint struct {
	// Plan is the joint plan over the programs' buffers laid end to end
	// in time: program k's steps follow program k-1's, its buffers follow
	// k-1's in Offsets; persistent buffers span every step.
	Plan *planner.Plan
	// Layouts has one layout per program over the joint arena: its
	// buffers' offsets in it, Plan.Size the joint arena.
	Layouts []*Layout
	// Start is the first buffer and Step the first step of each program in
	// the joint plan.
	Start, Step []int
	// Memories, with pools or -io external, is the layout of all the
	// programs' buffers together (Plan is its Plan).
	Memories *Layout
}

// MakeJoint plans one arena for programs that run one at a time (opt as
// for Make; with Pools or ExternalIO, makeJointMemories).
func MakeJoint(progs []*program.Program, opt Options) (*Joint, error) {
	if len(opt.Pools) > 0 || opt.ExternalIO {
		return makeJointMemories(progs, opt)
	}
	align := opt.Align
	if align == 0 {
		align = planner.DefaultAlign
	}
	cp, j := joinPrograms(progs)
	bufs := plannerBuffers(cp, align)
	popt := planner.Options{Align: align, Strategy: opt.Strategy, Effort: opt.Effort, Session: opt.Session}
	plan, err := jointPlan(bufs, j.Start, popt)
	if err != nil {
		return nil, fmt.Errorf("planning several models: %w", err)
	}
	if err := checkPlacement(bufs, plan); err != nil {
		return nil, err
	}
	j.Plan = plan
	for k, p := range progs {
		j.Layouts = append(j.Layouts, &Layout{Plan: j.programPlan(k, p, bufs, plan), Align: align, PlainSize: plan.Size})
	}
	return j, nil
}

// joinPrograms lays the programs end to end in time as one program (their
// buffers in order, each program's steps after the previous one's, ties
// renumbered, persistent buffers live at every step; their operators in
// order, padded to each program's steps) and returns it with each
// program's first buffer and first step in the Joint.
func joinPrograms(progs []*program.Program) (*program.Program, *Joint) {
	j := &Joint{}
	cp := &program.Program{}
	steps := 0
	for _, p := range progs {
		n := len(p.Ops)
		for _, b := range p.Buffers {
			n = max(n, b.Last+1)
		}
		start := len(cp.Buffers)
		j.Start = append(j.Start, start)
		j.Step = append(j.Step, steps)
		for _, b := range p.Buffers {
			b.First += steps
			b.Last += steps
			if b.Tie != nil {
				b.Tie = &planner.Tie{To: b.Tie.To + start, Shift: b.Tie.Shift}
			}
			cp.Buffers = append(cp.Buffers, b)
		}
		cp.Ops = append(cp.Ops, p.Ops...)
		for len(cp.Ops) < steps+n {
			cp.Ops = append(cp.Ops, program.Op{Index: -1})
		}
		steps += n
	}
	for i := range cp.Buffers {
		if cp.Buffers[i].Kind == planner.Persistent {
			cp.Buffers[i].First, cp.Buffers[i].Last = 0, steps-1
		}
	}
	return cp, j
}

// programPlan cuts program k (p) out of the joint plan of all (the joined
// programs' planner buffers): its buffers' offsets, the joint size, bound
// and certificate, and the step of its own run with the most bytes live.
func (j *Joint) programPlan(k int, p *program.Program, all []planner.Buffer, plan *planner.Plan) *planner.Plan {
	lo, hi := j.Start[k], j.Start[k]+len(p.Buffers)
	pl := &planner.Plan{Offsets: append([]int(nil), plan.Offsets[lo:hi]...), Size: plan.Size,
		LowerBound: plan.LowerBound, Cert: plan.Cert, Steps: plan.Steps, Method: plan.Method}
	own := make([]planner.Buffer, hi-lo)
	for i, b := range all[lo:hi] {
		own[i] = b
		own[i].Tie = nil
		if b.Kind == planner.Persistent {
			own[i].First, own[i].Last = j.Step[k], j.Step[k]+max(1, len(p.Ops))-1
		}
		own[i].First -= j.Step[k]
		own[i].Last -= j.Step[k]
	}
	pl.PeakStep = min(peakStep(own), max(0, len(p.Ops)-1))
	return pl
}

// jointPlan plans the buffers of programs laid end to end in time (start:
// each program's first buffer). No buffer of one program is live with a
// buffer of another but the persistent ones, which are live throughout: so
// the optimum is every persistent buffer stacked, above the largest of the
// programs' own optimal plans of their other buffers, each at offset 0.
// The plan is at its lower bound when every program's own plan is, the
// largest of them setting the height. Ties to or from a persistent buffer
// (none are made today) fall back to one plan of everything.
func jointPlan(bufs []planner.Buffer, start []int, opt planner.Options) (*planner.Plan, error) {
	for _, b := range bufs {
		if b.Kind == planner.Persistent && b.Tie != nil {
			return planner.Make(bufs, opt)
		}
		if b.Tie != nil && bufs[b.Tie.To].Kind == planner.Persistent {
			return planner.Make(bufs, opt)
		}
	}
	plan := &planner.Plan{Offsets: make([]int, len(bufs)), Cert: planner.AtLowerBound, Method: "each model's own plan, persistent state stacked above"}
	height, bound, heightCert := 0, 0, planner.AtLowerBound
	for k := range start {
		hi := len(bufs)
		if k+1 < len(start) {
			hi = start[k+1]
		}
		var idx []int
		for i := start[k]; i < hi; i++ {
			if bufs[i].Kind != planner.Persistent {
				idx = append(idx, i)
			}
		}
		rest, _ := subset(bufs, idx) // no tie leaves them (checked above)
		pl, err := planner.Make(rest, opt)
		if err != nil {
			return nil, err
		}
		for r, i := range idx {
			plan.Offsets[i] = pl.Offsets[r]
		}
		plan.Steps += pl.Steps
		bound = max(bound, pl.LowerBound)
		if pl.Size > height || pl.Size == height && worse(heightCert, pl.Cert) {
			height, heightCert = pl.Size, pl.Cert
			if pl.Gap() == 0 {
				heightCert = planner.AtLowerBound
			}
			plan.PeakStep = pl.PeakStep // the rest keeps the joint steps
		}
	}
	top := height
	persistent := 0
	for i, b := range bufs {
		if b.Kind == planner.Persistent {
			plan.Offsets[i] = top
			top += planner.AlignedSize(b.Size, opt.Align)
			persistent += planner.AlignedSize(b.Size, opt.Align)
		}
	}
	plan.Size = top
	plan.LowerBound = bound + persistent
	if plan.Size > plan.LowerBound {
		plan.Cert = heightCert
	}
	return plan, nil
}

// makeJointMemories is MakeJoint with pools or -io external: the
// programs' buffers laid end to end in time as one program, placed by
// placeBuffers (persistent buffers live throughout, each program's inputs
// and outputs in memories of their own), then each program's layout cut
// out of it: every pool of the joint layout (Shared: the models bind the
// same memories) and the program's own inputs and outputs.
func makeJointMemories(progs []*program.Program, opt Options) (*Joint, error) {
	align := opt.Align
	if align == 0 {
		align = planner.DefaultAlign
	}
	cp, j := joinPrograms(progs)
	var access []int64
	var io []ioBuffer
	var ioOf []int // program of each io buffer
	for k, p := range progs {
		access = append(access, Access(p)...)
		if opt.ExternalIO {
			pio, err := ioBuffers(p)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p.Graph.Name, err)
			}
			for _, b := range pio {
				io = append(io, ioBuffer{buf: b.buf + j.Start[k], name: b.name})
				ioOf = append(ioOf, k)
			}
		}
	}
	all := plannerBuffers(cp, align)
	l, err := placeBuffers(cp, all, access, io, j.Start, align, opt)
	if err != nil {
		return nil, fmt.Errorf("planning several models: %w", err)
	}
	j.Memories, j.Plan = l, l.Plan
	for k, p := range progs {
		ioIndex := 0 // the io pools come in io's order
		lo, hi := j.Start[k], j.Start[k]+len(p.Buffers)
		ml := &Layout{Plan: j.programPlan(k, p, all, l.Plan), Align: align, PlainSize: l.Plan.Size, PoolOf: make([]int, hi-lo),
			Access: append([]int64(nil), l.Access[lo:hi]...), Untied: append([]bool(nil), l.Untied[lo:hi]...),
			Cost: l.Cost, Bound: l.Bound, FastCost: l.FastCost, SlowCost: l.SlowCost}
		index := map[int]int{} // joint pool -> this program's
		for pi, pool := range l.Pools {
			if pool.IO != "" {
				of := ioOf[ioIndex]
				ioIndex++
				if of != k {
					continue
				}
			}
			mp := pool
			mp.Members = nil
			mp.Access = 0
			mp.Shared = pool.IO == "" && len(pool.Members) > 0
			for _, b := range pool.Members {
				if b >= lo && b < hi {
					mp.Members = append(mp.Members, b-lo)
					mp.Access += l.Access[b]
				}
			}
			index[pi] = len(ml.Pools)
			ml.Pools = append(ml.Pools, mp)
		}
		for i := range ml.PoolOf {
			ml.PoolOf[i] = index[l.PoolOf[lo+i]]
		}
		j.Layouts = append(j.Layouts, ml)
	}
	return j, nil
}
