package schedule

import (
	"fmt"
	"slices"

	"github.com/tflm-gen/tflm-gen/gen/lower"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/planner"
)

// maxGroup bounds the operators of one fused group.
const maxGroup = 24

// fusePlanner estimates, on the layer-by-layer program, what each
// operator and each candidate group costs: the bytes live while it runs,
// each buffer rounded up to the alignment as the planner places it.
type fusePlanner struct {
	p     *program.Program
	frags []*lower.Fragment
	align int
	band  []*bandOp
	// link[i]: operators i-1 and i may be in one group, both with a band
	// form and i-1's output a possible line (lineable): read only by
	// later operators within a group's reach, as their row input or as a
	// residual operator's skip tensor, the last of them until[i-1] (a
	// group holding i-1 and i must reach it). Which of a group's
	// operators read which line makes it a chain or a DAG (fusable).
	link  []bool
	until []int
	// skipInPlace are the residual operators of p that write their
	// output in place over their skip tensor in the program being
	// estimated for (skipInPlace): p gives them a buffer of their own,
	// so that a group may hold their skip tensor as a line.
	skipInPlace map[int]bool
	groups      map[fuseSpan]int
	// bornBy[j] sums the (aligned) buffers whose lifetime starts at step j
	// or before, diedBy[i] those whose lifetime ends before step i, so that
	// the buffers live at some step of [i, j] sum to bornBy[j]-diedBy[i].
	bornBy, diedBy []int
	// scratchOf lists the scratch buffers of each operator.
	scratchOf [][]program.BufID
	// inPlace[i] is what operator i saves on its own by writing its
	// output over its input, where p gives it a buffer of its own for
	// the groups' sake (unaryInPlace).
	inPlace map[int]int
	// outside holds the buffers placed outside the arena (the graph's
	// inputs and outputs with -io external), which cost it nothing.
	outside map[program.BufID]bool
	// budget is a peak the arena has anyway (Options.Budget): choose
	// fuses no more than needed to reach it; ownPeak is the smallest
	// estimated peak choose found.
	budget, ownPeak int
}

// newFusePlanner estimates p's groups; the buffers of outside (may be nil)
// are not in the arena and count as 0 bytes.
func newFusePlanner(p *program.Program, frags []*lower.Fragment, align int, outside map[program.BufID]bool) *fusePlanner {
	n := len(p.Ops)
	f := &fusePlanner{p: p, frags: frags, align: align, band: make([]*bandOp, n), link: make([]bool, n), until: make([]int, n), groups: map[fuseSpan]int{}, inPlace: map[int]int{}, outside: outside}
	for i := range p.Ops {
		f.band[i] = bandable(p, i)
	}
	f.bornBy, f.diedBy, f.scratchOf = make([]int, n+1), make([]int, n+1), make([][]program.BufID, n)
	for k := range p.Buffers {
		b := &p.Buffers[k]
		sz := f.size(program.BufID(k))
		f.bornBy[min(max(b.First, 0), n)] += sz
		if b.Last+1 <= n {
			f.diedBy[max(b.Last+1, 0)] += sz
		}
		if b.Kind == planner.Scratch && b.Op >= 0 && b.Op < n {
			f.scratchOf[b.Op] = append(f.scratchOf[b.Op], program.BufID(k))
		}
	}
	for i := 1; i <= n; i++ {
		f.bornBy[i] += f.bornBy[i-1]
		f.diedBy[i] += f.diedBy[i-1]
	}
	for i := 1; i < n; i++ {
		if f.band[i-1] != nil && f.band[i] != nil && f.lineable(i-1) == "" {
			f.link[i], f.until[i-1] = true, i-1
			if !f.band[i-1].folded {
				f.until[i-1] = p.Buffers[f.band[i-1].outBuf].Last
			}
		}
	}
	return f
}

// fuseDAG lets a line be read by operators other than the next one (tests
// turn it off to measure what DAG groups save).
var fuseDAG = true

// lineable says why the output of operator j (with a band form) cannot be
// a line of a group, "" when it can: an activation of its own, born at j,
// not a graph output, read by later operators within a group's reach,
// each reading it as its row input, or one row a row as a residual
// operator's skip tensor (bandElems) or a CONCATENATION's input.
func (f *fusePlanner) lineable(j int) string {
	if f.band[j].folded {
		return "" // nothing to hold: its reader reads its input
	}
	p := f.p
	b := f.band[j].outBuf
	buf := &p.Buffers[b]
	switch {
	case p.IsGraphOutput(b):
		return fmt.Sprintf("operator %d's output is a graph output, kept whole", j)
	case buf.Kind != planner.Activation || !f.ownTensors(j):
		return fmt.Sprintf("operator %d's output shares its memory with another tensor (a view that mixes rows or an in-place operator)", j)
	case buf.First != j || buf.Last <= j:
		return fmt.Sprintf("operator %d's output is not made by it and read after it", j)
	case buf.Tie != nil:
		return fmt.Sprintf("operator %d's output is written over its input at a fixed distance", j)
	case !fuseDAG && buf.Last != j+1:
		return fmt.Sprintf("operator %d's output is read after operator %d too", j, j+1)
	case buf.Last-j >= maxGroup:
		return fmt.Sprintf("operator %d's output is read by operator %d, beyond the %d operators of a group, so it is kept whole", j, buf.Last, maxGroup)
	}
	for k := j + 1; k <= buf.Last; k++ {
		reads := false
		for _, t := range p.Graph.Ops[k].Inputs {
			if bt, ok := p.TensorBuf[t]; ok && t >= 0 && bt == b {
				reads = true
			}
		}
		if !reads {
			continue
		}
		o := f.band[k]
		switch {
		case o == nil:
			return fmt.Sprintf("operator %d's output is read by operator %d (%s), which has no band form, so it is kept whole", j, k, p.Ops[k].Code)
		case o.view:
			// Its readers read the line: they are checked here too.
		case o.inBuf == b || slices.Contains(o.skipBufs(), b):
		default:
			return fmt.Sprintf("operator %d's output is read whole by operator %d (%s), so it is kept whole", j, k, p.Ops[k].Code)
		}
	}
	return ""
}

// ownTensors reports whether the buffer of operator j's output holds its
// output and views of it whose rows are its rows (isRowView), nothing
// else: a line of its rows serves them all.
func (f *fusePlanner) ownTensors(j int) bool {
	p := f.p
	b := f.band[j].outBuf
	own := map[int]bool{p.Graph.Ops[j].Outputs[0]: true}
	for k := j + 1; k <= p.Buffers[b].Last && k < len(p.Ops); k++ {
		if o := f.band[k]; o != nil && o.view {
			if in := p.Graph.Ops[k].Inputs[0]; own[in] {
				own[p.Graph.Ops[k].Outputs[0]] = true
			}
		}
	}
	for _, t := range p.Buffers[b].Tensors {
		if !own[t] {
			return false
		}
	}
	return true
}

// skipLineIn says whether residual operator i of group sp must keep its
// output apart from its skip tensor: the output is a line (i is not the
// group's last operator) or the skip tensor is (made in the group).
func (f *fusePlanner) skipLineIn(i int, sp fuseSpan) bool {
	if i != sp.last {
		return true
	}
	b := f.band[i]
	for j := sp.first; j < i; j++ {
		if !f.band[j].folded && f.band[j].outBuf == b.skipBuf {
			return true
		}
	}
	return false
}

func (f *fusePlanner) size(b program.BufID) int {
	if f.outside[b] {
		return 0
	}
	return planner.AlignedSize(f.p.Buffers[b].Size, f.align)
}

// live sums the buffers live at some step of [i, j] (0 <= i <= j < the
// number of operators), in constant time.
func (f *fusePlanner) live(i, j int) int {
	return f.bornBy[j] - f.diedBy[i]
}

// liveIn reports whether buffer b is live at some step of [i, j].
func (f *fusePlanner) liveIn(b program.BufID, i, j int) bool {
	buf := &f.p.Buffers[b]
	return buf.First <= j && buf.Last >= i
}

// single is what operator i costs run on its own, overlapped where its
// kernel offers it.
func (f *fusePlanner) single(i int) (withOverlap, without int) {
	without = f.live(i, i) - f.inPlace[i]
	withOverlap = without
	fr := f.frags[i]
	bi, bo, ok := fr.OverlapPair(f.p)
	if !ok {
		return
	}
	in, out := f.size(bi), f.size(bo)
	pair := max(out, planner.AlignedSize(fr.OverlapShift(), f.align)+in)
	withOverlap = without - (in + out) + min(pair, in+out)
	return
}

// group is what operators sp.first..sp.last cost fused, -1 when they
// cannot be.
func (f *fusePlanner) group(sp fuseSpan) int {
	if v, ok := f.groups[sp]; ok {
		return v
	}
	cost := -1
	if f.fusable(sp) {
		ops := chainOps(f.band[sp.first : sp.last+1])
		last := ops[len(ops)-1]
		s := schedule(ops, false)
		mine := map[program.BufID]bool{ops[0].inBuf: true, ops[len(ops)-1].outBuf: true}
		lines := 0
		for j := range ops[:len(ops)-1] {
			mine[ops[j].outBuf] = true
			lines += planner.AlignedSize(s.lineBytes(j), f.align)
		}
		// The buffers live in the span but the operators' scratch and
		// the chain's own tensors, which the group replaces.
		scratch, other := 0, f.live(sp.first, sp.last)
		for k := sp.first; k <= sp.last; k++ {
			// One buffer shared by the group, each operator's scratch
			// one after another in it (shareGroupScratch).
			mine := 0
			for _, b := range f.scratchOf[k] {
				if f.liveIn(b, sp.first, sp.last) {
					if k != sp.last || !last.mean { // a MEAN run as sums uses none (fuse)
						mine += planner.AlignedSize(f.p.Buffers[b].Size, 16)
					}
					other -= f.size(b)
				}
			}
			scratch = max(scratch, planner.AlignedSize(mine, f.align))
		}
		for b := range mine {
			if f.liveIn(b, sp.first, sp.last) && !(f.p.Buffers[b].Kind == planner.Scratch && f.p.Buffers[b].Op >= sp.first && f.p.Buffers[b].Op <= sp.last) {
				other -= f.size(b)
			}
		}
		inB, outB := ops[0].inBuf, ops[len(ops)-1].outBuf
		in, out := f.size(inB), f.size(outB)
		pair := in + out
		switch {
		case f.skipInPlace[last.op] && s.skipFrom[len(ops)-1] < 0:
			// The program fuse gets writes this operator's output over
			// its skip tensor, where that is not a line (chooseSchedule):
			// over the group's input (as inB == outB), or over another
			// whole tensor, which other counts.
			pair = in
			if last.skipBuf == inB && s.shift > 0 {
				pair = -1
			}
		case inB == outB:
			// The output written in place over the input, its skip
			// tensor (fuse).
			pair = in
			if s.shift > 0 {
				pair = -1
			}
		case last.kind == bandSums:
			// The sums live through the group; input and output apart.
			lines += planner.AlignedSize(last.sumsBytes(), f.align)
		case concatReadsInput(ops):
		case groupMayTie(f.p, inB, outB, sp):
			pair = min(pair, max(out, planner.AlignedSize(s.shift, f.align)+in))
		}
		if pair >= 0 {
			cost = other + scratch + lines + pair
		}
	}
	f.groups[sp] = cost
	return cost
}

func (f *fusePlanner) fusable(sp fuseSpan) bool {
	if sp.last <= sp.first || sp.last-sp.first+1 > maxGroup {
		return false
	}
	// Every line read before the group ends, every operator reading its
	// row input from the group's input or a line made before it.
	for i := sp.first + 1; i <= sp.last; i++ {
		if !f.link[i] || f.until[i-1] > sp.last {
			return false
		}
	}
	// A group starts and ends with an operator of its own, not one folded
	// into another (linked, both have a band form).
	if f.band[sp.first].folded || f.band[sp.last].folded {
		return false
	}
	made := map[program.BufID]bool{f.band[sp.first].inBuf: true}
	prev := f.band[sp.first] // the last operator before i that is not folded
	for i := sp.first + 1; i <= sp.last; i++ {
		b := f.band[i]
		if b.folded {
			continue
		}
		made[prev.outBuf] = true
		if !made[b.inBuf] || !fuseDAG && b.inBuf != prev.outBuf {
			return false
		}
		prev = b
	}
	// A MEAN runs in bands only as the sums that end a group.
	for _, b := range f.band[sp.first:sp.last] {
		if b.kind == bandSums {
			return false
		}
	}
	// A residual operator's skip tensor and a CONCATENATION's other
	// inputs are read a row a row: whole tensors made before the group
	// or lines of it (the schedule keeps their rows until they are read).
	return true
}

// choose returns the groups that make the estimated peak smallest (or no
// larger than f.budget, where that is larger), and, among the choices
// with that peak, fuse the fewest operators; and the operators left on
// their own that must overlap for that peak.
func (f *fusePlanner) choose() ([]fuseSpan, map[int]bool) {
	n := len(f.p.Ops)
	// Runs of linked operators: only inside them can groups form.
	type run struct{ s, e int }
	var runs []run
	for i := 0; i < n; {
		j := i
		for j+1 < n && f.link[j+1] {
			j++
		}
		runs = append(runs, run{i, j})
		i = j + 1
	}
	const inf = int(^uint(0) >> 1)
	segCost := func(i, j int) int {
		if i == j {
			c, _ := f.single(i)
			return c
		}
		if c := f.group(fuseSpan{i, j}); c >= 0 {
			return c
		}
		return inf
	}
	// Smallest peak.
	peak := 0
	for _, r := range runs {
		best := make([]int, r.e-r.s+2) // best[k]: ops r.s..r.s+k-1
		best[0] = 0
		for k := 1; k < len(best); k++ {
			best[k] = inf
			j := r.s + k - 1
			for i := j; i >= max(r.s, j-maxGroup+1); i-- {
				c := segCost(i, j)
				if c == inf || best[i-r.s] == inf {
					continue
				}
				best[k] = min(best[k], max(best[i-r.s], c))
			}
		}
		peak = max(peak, best[len(best)-1])
	}
	f.ownPeak = peak
	peak = max(peak, f.budget)
	// Fewest fused operators within that peak.
	var spans []fuseSpan
	overlap := map[int]bool{}
	for _, r := range runs {
		m := r.e - r.s + 1
		fused := make([]int, m+1)
		from := make([]int, m+1)
		for k := 1; k <= m; k++ {
			fused[k] = inf
			j := r.s + k - 1
			for i := j; i >= max(r.s, j-maxGroup+1); i-- {
				c := segCost(i, j)
				if c > peak || fused[i-r.s] == inf {
					continue
				}
				cnt := fused[i-r.s]
				if i < j {
					cnt += j - i + 1
				}
				if cnt < fused[k] {
					fused[k], from[k] = cnt, i
				}
			}
		}
		if fused[m] == inf {
			continue
		}
		for k := m; k > 0; {
			i := from[k]
			j := r.s + k - 1
			if i < j {
				spans = append(spans, fuseSpan{i, j})
			} else if with, without := f.single(i); without > peak && with <= peak {
				overlap[i] = true
			}
			k = i - r.s
		}
	}
	// Spans in execution order.
	for a, b := 0, len(spans)-1; a < b; a, b = a+1, b-1 {
		spans[a], spans[b] = spans[b], spans[a]
	}
	return spans, overlap
}
