package schedule

import (
	"github.com/tflm-gen/tflm-gen/gen/lower"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/planner"
)

// maxGroup bounds the operators of one fused group.
const maxGroup = 12

// fusePlanner estimates, on the layer-by-layer program, what each
// operator and each candidate group costs: the bytes live while it runs,
// each buffer rounded up to the alignment as the planner places it.
type fusePlanner struct {
	p      *program.Program
	frags  []*lower.Fragment
	align  int
	band   []*bandOp
	link   []bool // operator i reads operator i-1's output, which dies there
	groups map[fuseSpan]int
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
	f := &fusePlanner{p: p, frags: frags, align: align, band: make([]*bandOp, n), link: make([]bool, n), groups: map[fuseSpan]int{}, inPlace: map[int]int{}, outside: outside}
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
		a, b := f.band[i-1], f.band[i]
		if a == nil || b == nil || a.outBuf != b.inBuf {
			continue
		}
		buf := p.Buffers[a.outBuf]
		f.link[i] = buf.Kind == planner.Activation && len(buf.Tensors) == 1 && buf.First == i-1 && buf.Last == i && buf.Tie == nil && !p.IsGraphOutput(a.outBuf)
	}
	return f
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
		s := schedule(ops)
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
		case inB == outB:
			// The output written in place over the input, its skip
			// tensor (fuse).
			pair = in
			if s.inOutShift() > 0 {
				pair = -1
			}
		case last.kind == bandSums:
			// The sums live through the group; input and output apart.
			lines += planner.AlignedSize(last.sumsBytes(), f.align)
		case concatReadsInput(ops):
		case groupMayTie(f.p, inB, outB, sp):
			pair = min(pair, max(out, planner.AlignedSize(s.inOutShift(), f.align)+in))
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
	for i := sp.first + 1; i <= sp.last; i++ {
		if !f.link[i] {
			return false
		}
	}
	// A MEAN runs in bands only as the sums that end a group.
	for _, b := range f.band[sp.first:sp.last] {
		if b.kind == bandSums {
			return false
		}
	}
	// A skip tensor is read whole: never one of the group's lines.
	lines := map[program.BufID]bool{}
	for _, b := range f.band[sp.first : sp.last+1] {
		for _, sb := range b.skipBufs() {
			if lines[sb] {
				return false
			}
		}
		lines[b.outBuf] = true
	}
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
