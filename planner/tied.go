package planner

import (
	"fmt"
	"sort"
)

// Planning with tied buffers (overlapped pairs). A unit is a buffer with
// the buffers tied to it, placed as one rigid block: each member at its
// fixed distance from the unit's offset. Members of one unit may overlap;
// members of different units must not when their lifetimes meet. The
// lifetime lower bound counts, per step, the memory a unit's live members
// cover (their union), so an overlapped pair costs its footprint, not the
// sum of its sizes. This path serves the few programs with ties; the
// others keep the incremental search of planner.go.

// member is one buffer of a unit at rel bytes above the unit's offset.
type member struct {
	buf, rel, size, first, last int
}

// tiedProblem is a planning instance over units.
type tiedProblem struct {
	units      [][]member
	extent     []int // bytes from the unit's offset to its highest end
	first      []int
	last       []int
	lowerBound int
	peakStep   int
	n          int // buffers
}

func newTiedProblem(bufs []Buffer, align int) *tiedProblem {
	p := &tiedProblem{n: len(bufs)}
	// A unit is a chain: a buffer without a tie, the buffer tied to it,
	// the buffer tied to that one, ...
	tiedBy := make([]int, len(bufs))
	for i := range tiedBy {
		tiedBy[i] = -1
	}
	for i, b := range bufs {
		if b.Tie != nil {
			tiedBy[b.Tie.To] = i
		}
	}
	for i, b := range bufs {
		if b.Tie != nil {
			continue
		}
		ms := []member{{buf: i}}
		for j := tiedBy[i]; j >= 0; j = tiedBy[j] {
			ms = append(ms, member{buf: j, rel: ms[len(ms)-1].rel + bufs[j].Tie.Shift})
		}
		p.units = append(p.units, ms)
	}
	maxStep := 0
	for u, ms := range p.units {
		low := 0
		for _, m := range ms {
			low = min(low, m.rel)
		}
		p.extent = append(p.extent, 0)
		p.first = append(p.first, bufs[ms[0].buf].First)
		p.last = append(p.last, bufs[ms[0].buf].Last)
		for k := range ms {
			b := bufs[ms[k].buf]
			ms[k].rel -= low
			ms[k].size = alignUp(b.Size, align)
			ms[k].first, ms[k].last = b.First, b.Last
			p.extent[u] = max(p.extent[u], ms[k].rel+ms[k].size)
			p.first[u] = min(p.first[u], b.First)
			p.last[u] = max(p.last[u], b.Last)
			maxStep = max(maxStep, b.Last)
		}
	}
	for t := 0; t <= maxStep; t++ {
		sum := 0
		for _, ms := range p.units {
			sum += liveUnion(ms, t)
		}
		if sum > p.lowerBound {
			p.lowerBound, p.peakStep = sum, t
		}
	}
	return p
}

// liveUnion is the memory the members live at step t cover.
func liveUnion(ms []member, t int) int {
	var sp []span
	for _, m := range ms {
		if m.first <= t && t <= m.last && m.size > 0 {
			sp = append(sp, span{m.rel, m.rel + m.size})
		}
	}
	sort.Slice(sp, func(a, b int) bool { return sp[a].lo < sp[b].lo })
	n, end := 0, 0
	for _, s := range sp {
		if s.hi > end {
			n += s.hi - max(s.lo, end)
			end = s.hi
		}
	}
	return n
}

// placedSpan is a placed member: its memory and lifetime.
type placedSpan struct {
	lo, hi, first, last int
}

// fit is the lowest offset at which unit u's members all avoid the placed
// members they share a step with.
func (p *tiedProblem) fit(u int, placed []placedSpan) int {
	off := 0
	for moved := true; moved; {
		moved = false
		for _, m := range p.units[u] {
			if m.size == 0 {
				continue
			}
			for _, s := range placed {
				if s.first <= m.last && m.first <= s.last && off+m.rel < s.hi && s.lo < off+m.rel+m.size {
					off = s.hi - m.rel
					moved = true
				}
			}
		}
	}
	return off
}

// appendSpans appends the members of unit u placed at off.
func (p *tiedProblem) appendSpans(dst []placedSpan, u, off int) []placedSpan {
	for _, m := range p.units[u] {
		if m.size > 0 {
			dst = append(dst, placedSpan{off + m.rel, off + m.rel + m.size, m.first, m.last})
		}
	}
	return dst
}

// firstFit places units in order, each at its lowest fit; it returns the
// unit offsets and the arena height.
func (p *tiedProblem) firstFit(order []int) ([]int, int) {
	off := make([]int, len(p.units))
	var placed []placedSpan
	h := 0
	for _, u := range order {
		off[u] = p.fit(u, placed)
		placed = p.appendSpans(placed, u, off[u])
		h = max(h, off[u]+p.extent[u])
	}
	return off, h
}

// offsets turns unit offsets into buffer offsets.
func (p *tiedProblem) offsets(unitOff []int) []int {
	out := make([]int, p.n)
	for u, ms := range p.units {
		for _, m := range ms {
			out[m.buf] = unitOff[u] + m.rel
		}
	}
	return out
}

// makeTied plans buffers with ties: size-ordered and start-ordered first
// fit, then a depth-first branch and bound over unit orders (each unit at
// its lowest fit) within the budget.
func makeTied(bufs []Buffer, strategy Strategy, align int, budget *Budget) *Plan {
	p := newTiedProblem(bufs, align)
	plan := &Plan{LowerBound: p.lowerBound, PeakStep: p.peakStep}
	idx := make([]int, len(p.units))
	for i := range idx {
		idx[i] = i
	}
	bySize := append([]int(nil), idx...)
	sort.SliceStable(bySize, func(a, b int) bool {
		i, j := bySize[a], bySize[b]
		if p.extent[i] != p.extent[j] {
			return p.extent[i] > p.extent[j]
		}
		return p.first[i] < p.first[j]
	})
	best, bestH := p.firstFit(bySize)
	plan.Method = "greedy by size"
	if strategy == Greedy {
		plan.Offsets, plan.Size, plan.Cert = p.offsets(best), bestH, Heuristic
		return plan
	}
	byStart := append([]int(nil), idx...)
	sort.SliceStable(byStart, func(a, b int) bool {
		i, j := byStart[a], byStart[b]
		if p.first[i] != p.first[j] {
			return p.first[i] < p.first[j]
		}
		return p.extent[i] > p.extent[j]
	})
	if bestH > p.lowerBound {
		if off, h := p.firstFit(byStart); h < bestH {
			best, bestH, plan.Method = off, h, "first fit by lifetime start"
		}
	}
	plan.Cert = AtLowerBound
	if bestH > p.lowerBound {
		// A step computes the fit of every unplaced unit against every
		// placed member: it costs 1 + units/16 of the budget.
		s := &tiedSearch{p: p, budget: budget, cost: 1 + int64(len(p.units))/16, best: bestH, bestOff: best,
			off: make([]int, len(p.units)), placedU: make([]bool, len(p.units))}
		complete := s.dfs(0, 0)
		plan.Steps = s.steps
		if s.improved {
			best, bestH, plan.Method = s.bestOff, s.best, "branch and bound"
		}
		switch {
		case bestH == p.lowerBound:
			plan.Cert = AtLowerBound
		case complete:
			plan.Cert = AllOrders
		default:
			plan.Cert = BestFound
		}
	}
	plan.Offsets, plan.Size = p.offsets(best), bestH
	return plan
}

// tiedSearch is the branch and bound over unit orders, each unit at its
// lowest fit. Unlike for plain buffers, every order need not reach the
// optimum (a buffer may sit in a tied pair's gap that no lowest fit finds),
// so a finished search certifies AllOrders, not Exhaustive.
type tiedSearch struct {
	p        *tiedProblem
	budget   *Budget
	cost     int64
	steps    int64
	best     int
	bestOff  []int
	improved bool
	off      []int
	placedU  []bool
	placed   []placedSpan // the placed units' members
	cands    []cand
}

func (s *tiedSearch) dfs(depth, height int) bool {
	p := s.p
	if depth == len(p.units) {
		if height < s.best {
			s.best, s.bestOff, s.improved = height, append([]int(nil), s.off...), true
		}
		return true
	}
	base := len(s.cands)
	for u := range p.units {
		if s.placedU[u] {
			continue
		}
		at := p.fit(u, s.placed)
		if at+p.extent[u] >= s.best {
			s.cands = s.cands[:base]
			return true
		}
		s.cands = append(s.cands, cand{u, at})
	}
	cands := s.cands[base:]
	sort.SliceStable(cands, func(a, b int) bool {
		if cands[a].at != cands[b].at {
			return cands[a].at < cands[b].at
		}
		return p.extent[cands[a].i] > p.extent[cands[b].i]
	})
	defer func() { s.cands = s.cands[:base] }()
	for k := range cands {
		c := s.cands[base+k]
		if !s.budget.take(s.cost) {
			return false
		}
		s.steps++
		mark := len(s.placed)
		s.placed = p.appendSpans(s.placed, c.i, c.at)
		s.placedU[c.i], s.off[c.i] = true, c.at
		ok := s.dfs(depth+1, max(height, c.at+p.extent[c.i]))
		s.placedU[c.i] = false
		s.placed = s.placed[:mark]
		if !ok {
			return false
		}
		if s.best == p.lowerBound {
			return true
		}
	}
	return true
}

// checkChains rejects ties whose fixed distances make two buffers of one
// chain that are not tied to each other overlap while both are live: no
// plan could place them.
func checkChains(bufs []Buffer, align int) error {
	p := newTiedProblem(bufs, align)
	for _, ms := range p.units {
		for a := range ms {
			for b := a + 2; b < len(ms); b++ {
				x, y := ms[a], ms[b]
				if x.first <= y.last && y.first <= x.last && x.size > 0 && y.size > 0 &&
					x.rel < y.rel+y.size && y.rel < x.rel+x.size {
					return fmt.Errorf("%w: buffers %d %q and %d %q of one chain of ties overlap while both are live", ErrBadBuffer, x.buf, bufs[x.buf].Name, y.buf, bufs[y.buf].Name)
				}
			}
		}
	}
	return nil
}
