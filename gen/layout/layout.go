// Package layout plans the arena of a lowered program: it hands the
// program's buffers to the planner and keeps the offsets, keyed by buffer
// id, with the plan's bound and certificate. It changes nothing in the
// program and knows nothing of Go code.
package layout

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/planner"
)

// Options control planning.
type Options struct {
	// Align is the buffer offset alignment in bytes (power of two, default 16).
	Align int
	// Strategy selects the planner's algorithm.
	Strategy planner.Strategy
	// Effort bounds the exact search (search nodes, 0 = default) when
	// Session is nil.
	Effort int64
	// Session, when set, shares one search budget and the plans made so
	// far across every Make with these options (see planner.Session).
	Session *planner.Session
	// Pools, when set, places the buffers in several memories (tflm-gen
	// -pool): every buffer goes to one pool, chosen to minimise the bytes
	// accessed per Invoke times each pool's cost (see MakePools).
	Pools []planner.Pool
	// ExternalIO takes the graph's inputs and outputs out of the arena
	// (tflm-gen -io external): each is a memory of its own, which the
	// application passes to Invoke.
	ExternalIO bool
}

// Layout is a planned arena for one program.
type Layout struct {
	// Plan has one offset per buffer: Plan.Offsets[id] for program.BufID id.
	Plan *planner.Plan
	// Align is the alignment every buffer was placed at.
	Align int
	// PlainSize is the arena the same model needs with every tensor in its
	// own buffer (no views, no in-place operators); PlainSize-Plan.Size is
	// what operator-aware sharing saves.
	PlainSize int

	// Pools is set when the buffers were placed in several memories
	// (Options.Pools), in the order given. Plan then lays the pools end
	// to end, each starting at its Base, so that the reports draw one
	// address space; Offset gives a buffer's offset inside its pool.
	Pools []Pool
	// PoolOf is each buffer's pool (an index into Pools) when Pools is set.
	PoolOf []int
	// Access is the bytes one Invoke moves through each buffer (Access),
	// set with Pools.
	Access []int64
	// Cost is the access cost of the assignment (bytes accessed times the
	// cost of the buffer's pool, summed); Bound a lower bound on the cost
	// of any assignment that fits the pools; FastCost the cost with every
	// buffer in the cheapest pool, SlowCost in the dearest.
	Cost, Bound, FastCost, SlowCost int64
	// Untied marks, with Pools, the buffers whose planner tie (an output
	// written over its dying input at a fixed distance) the plan dropped:
	// they went to another memory than the buffer they were tied to, or
	// their pool fits only without the tie. Such a pair shares no byte.
	Untied []bool
}

// Apart reports whether an overlapped pair, buffer in tied to out, shares
// no memory in this layout (different memories, or the tie dropped).
func (l *Layout) Apart(in, out program.BufID) bool {
	return l.Pools != nil && (l.PoolOf[in] != l.PoolOf[out] || l.Untied[in] || l.Untied[out])
}

// Pool is one memory of a multi-pool layout.
type Pool struct {
	planner.Pool
	// Base is the pool's start in the Layout's Plan (pools end to end).
	Base int
	// Plan is the plan of the pool's buffers: its Size is the memory the
	// pool needs, at most its capacity; its offsets are by Members index.
	Plan *planner.Plan
	// Members lists the pool's buffers (BufIDs, ascending).
	Members []int
	// IO names the graph input or output ("in0", "out1") a memory the
	// application passes to Invoke holds (-io external), "" for a pool.
	IO string
	// Shared marks a pool of several models' joint layout (MakeJoint):
	// every model binds it, whether it holds buffers of the model or not.
	Shared bool
	// Access is the bytes one Invoke moves through the pool.
	Access int64
}

// ErrTooLarge is wrapped when a plan exceeds a limit on the arena.
var ErrTooLarge = errors.New("arena larger than the limit")

// Offset returns the arena offset of buffer b.
func (l *Layout) Offset(b program.BufID) int {
	if l.Pools != nil {
		return l.Plan.Offsets[b] - l.Pools[l.PoolOf[b]].Base
	}
	return l.Plan.Offsets[b]
}

// ArenaSize is the working memory a Model holds (or takes with Bind): the
// plan's size; with pools the sum of their plans (the inputs and outputs
// of -io external, in the application's memory, not counted).
func (l *Layout) ArenaSize() int {
	if l.Pools == nil {
		return l.Plan.Size
	}
	n := 0
	for _, p := range l.Pools {
		if p.IO == "" {
			n += p.Plan.Size
		}
	}
	return n
}

// PoolName is the name of buffer b's pool, "" without pools (and for the
// single arena of -io external).
func (l *Layout) PoolName(b program.BufID) string {
	if l.Pools == nil {
		return ""
	}
	return l.Pools[l.PoolOf[b]].Name
}

// Make plans p. plain, when not nil, is the same model assembled with one
// buffer per tensor, planned only for Layout.PlainSize.
func Make(p *program.Program, plain *program.Program, opt Options) (*Layout, error) {
	align := opt.Align
	if align == 0 {
		align = planner.DefaultAlign
	}
	var l *Layout
	if len(opt.Pools) > 0 || opt.ExternalIO {
		var err error
		if l, err = placeMemories(p, align, opt); err != nil {
			return nil, err
		}
	} else {
		plan, err := place(p, align, opt)
		if err != nil {
			return nil, err
		}
		l = &Layout{Plan: plan, Align: align, PlainSize: plan.Size}
	}
	if plain != nil {
		pp, err := place(plain, align, opt)
		if err != nil {
			return nil, err
		}
		l.PlainSize = pp.Size
	}
	return l, nil
}

func place(p *program.Program, align int, opt Options) (*planner.Plan, error) {
	bufs := plannerBuffers(p, align)
	plan, err := makePlan(bufs, align, opt)
	if err := planError(p, err); err != nil {
		return nil, err
	}
	return plan, checkPlacement(bufs, plan)
}

// makePlan is planner.Make with opt's session; when the session's shared
// budget ran out before the plan was proven (variant choice plans many
// candidate programs), the final program is planned again with a budget
// of its own, a twentieth of the effort (search steps: generation time
// stays bounded), and the smaller plan is kept.
func makePlan(bufs []planner.Buffer, align int, opt Options) (*planner.Plan, error) {
	plan, err := planner.Make(bufs, planner.Options{Align: align, Strategy: opt.Strategy, Effort: opt.Effort, Session: opt.Session})
	if err != nil || plan.Cert != planner.BestFound || opt.Session == nil {
		return plan, err
	}
	effort := opt.Effort
	if effort <= 0 {
		effort = planner.DefaultEffort
	}
	if again, err := planner.Make(bufs, planner.Options{Align: align, Strategy: opt.Strategy, Effort: max(1, effort/retryShare)}); err == nil && again.Size < plan.Size {
		plan = again
	}
	return plan, nil
}

// retryShare is the share of the search effort makePlan's second plan
// takes (1/retryShare).
const retryShare = 20

// plannerBuffers returns p's buffers with their ties' shifts aligned.
func plannerBuffers(p *program.Program, align int) []planner.Buffer {
	bufs := p.PlannerBuffers()
	for i, b := range bufs {
		if b.Tie != nil && b.Tie.Shift%align != 0 {
			bufs[i].Tie = &planner.Tie{To: b.Tie.To, Shift: planner.AlignedSize(b.Tie.Shift, align)}
		}
	}
	return bufs
}

// planError words a planner error in the program's terms.
func planError(p *program.Program, err error) error {
	var pairs *planner.LivePairsError
	if errors.As(err, &pairs) && pairs.Step >= 0 && pairs.Step < len(p.Ops) {
		op := p.Ops[pairs.Step]
		return fmt.Errorf("%w: %d pairs of buffers are live at a common operator, more than the planner's limit of %d (planner.MaxLivePairs); %d buffers are live at operator %d (%s)",
			planner.ErrTooComplex, pairs.Pairs, planner.MaxLivePairs, pairs.Live, op.Index, op.Code)
	}
	if err != nil {
		return fmt.Errorf("planning: %w", err)
	}
	return nil
}

// checkPlacement refuses a plan too large for a 32-bit int or with live
// buffers overlapping (a planner bug).
func checkPlacement(bufs []planner.Buffer, plan *planner.Plan) error {
	if plan.Size > model.MaxTensorBytes {
		return fmt.Errorf("%w: arena of %d bytes does not fit a 32-bit int", model.ErrUnsupported, plan.Size)
	}
	if i, j, bad := planner.FirstOverlap(bufs, plan.Offsets); bad {
		return fmt.Errorf("internal error: planner placed %q and %q, live at the same time, in overlapping memory", bufs[i].Name, bufs[j].Name)
	}
	return nil
}

// CheckLimit returns an error wrapping ErrTooLarge, saying which buffers
// are live at the plan's peak and what the gap between the plan and its
// lower bound means for the limit, when the arena is larger than limit
// bytes (limit > 0).
func CheckLimit(p *program.Program, l *Layout, limit int) error {
	if limit <= 0 || l.Plan.Size <= limit {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrTooLarge, explainOver(p, l, limit))
}

// liveAt lists the buffers live at step that take memory, largest first.
func liveAt(p *program.Program, step int) []int {
	var live []int
	for i, b := range p.Buffers {
		if b.First <= step && step <= b.Last && b.Size > 0 {
			live = append(live, i)
		}
	}
	sort.SliceStable(live, func(a, b int) bool { return p.Buffers[live[a]].Size > p.Buffers[live[b]].Size })
	return live
}

// maxExplained bounds the buffers a limit error lists one by one.
const maxExplained = 8

// explainOver says why the plan does not fit in limit bytes: by how much,
// whether a smaller plan can exist (the lower bound against the limit, and
// the certificate), and the buffers live at the peak with their offsets,
// saying which share bytes (an output written over its dying input).
func explainOver(p *program.Program, l *Layout, limit int) string {
	pl := l.Plan
	step := pl.PeakStep
	var sb strings.Builder
	fmt.Fprintf(&sb, "arena needs %d bytes, %d over the limit of %d; ", pl.Size, pl.Size-limit, limit)
	switch {
	case pl.Size == pl.LowerBound:
		sb.WriteString("the plan equals the lower bound, so no plan of these buffers is smaller")
	case pl.LowerBound > limit:
		fmt.Fprintf(&sb, "the lower bound, %d bytes, is over the limit too, so no plan of these buffers fits (this one is %s)", pl.LowerBound, pl.CertText())
	case pl.Cert == planner.Exhaustive:
		fmt.Fprintf(&sb, "the lower bound, %d bytes, is within the limit, but the plan is %s: the search tried every placement and none is smaller", pl.LowerBound, pl.CertText())
	case pl.Cert == planner.BestFound:
		fmt.Fprintf(&sb, "the lower bound, %d bytes, is within the limit and the plan is %s: the search stopped at its budget, so a plan that fits may exist (-plan-effort raises the budget)", pl.LowerBound, pl.CertText())
	case pl.Cert == planner.AllOrders:
		fmt.Fprintf(&sb, "the lower bound, %d bytes, is within the limit and the plan is %s: no placement order does better, though a plan that fits may exist", pl.LowerBound, pl.CertText())
	default:
		fmt.Fprintf(&sb, "the lower bound, %d bytes, is within the limit and the plan is %s: -planner optimal searches for a smaller one", pl.LowerBound, pl.CertText())
	}
	live := liveAt(p, step)
	fmt.Fprintf(&sb, "; peak at operator %d (%s), where %d bytes are live (aligned sizes, bytes an output shares with its dying input counted once), in these buffers:", step, p.Ops[step].Code, pl.LowerBound)
	for k, i := range live {
		if k == maxExplained {
			rest := 0
			for _, j := range live[k:] {
				rest += p.Buffers[j].Size
			}
			fmt.Fprintf(&sb, " %d more, %d bytes in all;", len(live)-k, rest)
			break
		}
		b := p.Buffers[i]
		fmt.Fprintf(&sb, " %q %d bytes at offset %d (%s, ops %d-%d", b.Name, b.Size, pl.Offsets[i], b.Kind, b.First, b.Last)
		// The bytes it shares with a buffer live since before: it is
		// written over that buffer, which dies at this operator.
		for _, j := range live {
			o := p.Buffers[j]
			if j == i || o.First > b.First || o.First == b.First && j > i {
				continue
			}
			lo, hi := max(pl.Offsets[i], pl.Offsets[j]), min(pl.Offsets[i]+b.Size, pl.Offsets[j]+o.Size)
			if lo < hi {
				fmt.Fprintf(&sb, "; written over %q, sharing %d bytes with it", o.Name, hi-lo)
			}
		}
		sb.WriteString(");")
	}
	return strings.TrimSuffix(sb.String(), ";")
}
