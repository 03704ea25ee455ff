package planner

import (
	"fmt"
	"slices"
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
	// Per buffer: its unit, its place in the unit (rel, aligned size),
	// and the buffers of other units live at a common step with it.
	unitOf, rel, size []int
	bufFirst, bufLast []int
	conflicts         [][]int
	// block says where the block bound (block_bound.go) raised lowerBound
	// above the largest live total, nil where it did not.
	block *BlockBound
}

// tiedUnits groups the buffers into units: a chain is a buffer without a
// tie, the buffer tied to it, the buffer tied to that one, ...; each member
// with its offset in the unit (the lowest at 0), aligned size and lifetime.
func tiedUnits(bufs []Buffer, align int) [][]member {
	tiedBy := make([]int, len(bufs))
	for i := range tiedBy {
		tiedBy[i] = -1
	}
	for i, b := range bufs {
		if b.Tie != nil {
			tiedBy[b.Tie.To] = i
		}
	}
	var units [][]member
	for i, b := range bufs {
		if b.Tie != nil {
			continue
		}
		ms := []member{{buf: i}}
		for j := tiedBy[i]; j >= 0; j = tiedBy[j] {
			ms = append(ms, member{buf: j, rel: ms[len(ms)-1].rel + bufs[j].Tie.Shift})
		}
		low := 0
		for _, m := range ms {
			low = min(low, m.rel)
		}
		for k := range ms {
			b := bufs[ms[k].buf]
			ms[k].rel -= low
			ms[k].size = alignUp(b.Size, align)
			ms[k].first, ms[k].last = b.First, b.Last
		}
		units = append(units, ms)
	}
	return units
}

func newTiedProblem(bufs []Buffer, align int) *tiedProblem {
	p := &tiedProblem{n: len(bufs), units: tiedUnits(bufs, align)}
	for u, ms := range p.units {
		p.extent = append(p.extent, 0)
		p.first = append(p.first, ms[0].first)
		p.last = append(p.last, ms[0].last)
		for _, m := range ms {
			p.extent[u] = max(p.extent[u], m.rel+m.size)
			p.first[u] = min(p.first[u], m.first)
			p.last[u] = max(p.last[u], m.last)
		}
	}
	p.unitOf, p.rel, p.size = make([]int, p.n), make([]int, p.n), make([]int, p.n)
	for u, ms := range p.units {
		for _, m := range ms {
			p.unitOf[m.buf], p.rel[m.buf], p.size[m.buf] = u, m.rel, m.size
		}
	}
	first, last := make([]int, p.n), make([]int, p.n)
	for i, b := range bufs {
		first[i], last[i] = b.First, b.Last
	}
	p.bufFirst, p.bufLast = first, last
	p.conflicts = make([][]int, p.n)
	forEachLivePair(first, last, func(i, j int) {
		if p.unitOf[i] != p.unitOf[j] && p.size[i] > 0 && p.size[j] > 0 {
			p.conflicts[i] = append(p.conflicts[i], j)
			p.conflicts[j] = append(p.conflicts[j], i)
		}
	})
	p.lowerBound, p.peakStep = p.unionBound()
	p.lowerBound, p.block = p.blockBound(p.lowerBound)
	return p
}

// stepDelta is a change of the live memory at a step.
type stepDelta struct{ step, delta int }

// unionBound is the lifetime lower bound over units: the largest total, at
// one step, of the memory each unit's live members cover (their union),
// and the first step where it is reached. Each unit is swept over the
// steps where its live members change, so the work is the members and
// their pairs live at a common step, not steps times units.
func (p *tiedProblem) unionBound() (bound, step int) {
	var deltas []stepDelta
	type ev struct{ step, m int }
	var evs []ev
	var live []int // members live at the current step
	var sp []span
	for _, ms := range p.units {
		evs = evs[:0]
		for k, m := range ms {
			if m.size > 0 {
				evs = append(evs, ev{m.first, k}, ev{m.last + 1, -1 - k})
			}
		}
		slices.SortFunc(evs, func(a, b ev) int { return a.step - b.step })
		live, prev := live[:0], 0
		for e := 0; e < len(evs); {
			at := evs[e].step
			for ; e < len(evs) && evs[e].step == at; e++ {
				if k := evs[e].m; k >= 0 {
					live = append(live, k)
				} else {
					live = slices.DeleteFunc(live, func(x int) bool { return x == -1-k })
				}
			}
			sp = sp[:0]
			for _, k := range live {
				sp = append(sp, span{ms[k].rel, ms[k].rel + ms[k].size})
			}
			slices.SortFunc(sp, func(a, b span) int { return a.lo - b.lo })
			cover, end := 0, 0
			for _, s := range sp {
				if s.hi > end {
					cover += s.hi - max(s.lo, end)
					end = s.hi
				}
			}
			if cover != prev {
				deltas = append(deltas, stepDelta{at, cover - prev})
				prev = cover
			}
		}
	}
	slices.SortStableFunc(deltas, func(a, b stepDelta) int { return a.step - b.step })
	sum := 0
	for e := 0; e < len(deltas); {
		at := deltas[e].step
		for ; e < len(deltas) && deltas[e].step == at; e++ {
			sum += deltas[e].delta
		}
		if sum > bound {
			bound, step = sum, at
		}
	}
	return bound, step
}

// fit is the lowest offset at which unit u's members all avoid the members
// of the placed units (placed, at offsets off) they share a step with.
func (p *tiedProblem) fit(u int, off []int, placed []bool) int {
	at := 0
	for moved := true; moved; {
		moved = false
		for _, m := range p.units[u] {
			if m.size == 0 {
				continue
			}
			for _, b := range p.conflicts[m.buf] {
				v := p.unitOf[b]
				if !placed[v] {
					continue
				}
				lo := off[v] + p.rel[b]
				if hi := lo + p.size[b]; at+m.rel < hi && lo < at+m.rel+m.size {
					at = hi - m.rel
					moved = true
				}
			}
		}
	}
	return at
}

// firstFit places units in order, each at its lowest fit; it returns the
// unit offsets and the arena height.
func (p *tiedProblem) firstFit(order []int) ([]int, int) {
	off := make([]int, len(p.units))
	placed := make([]bool, len(p.units))
	h := 0
	for _, u := range order {
		off[u] = p.fit(u, off, placed)
		placed[u] = true
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
	plan := &Plan{LowerBound: p.lowerBound, PeakStep: p.peakStep, Block: p.block}
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
	order := bySize // the order that placed best
	if bestH > p.lowerBound {
		if off, h := p.firstFit(byStart); h < bestH {
			best, bestH, order, plan.Method = off, h, byStart, "first fit by lifetime start"
		}
	}
	searched := false
	if off, h := p.orderSearch(order, best, bestH); h < bestH {
		best, bestH, searched, plan.Method = off, h, true, "first fit in a searched order"
	}
	if off, h := p.repair(best, bestH); h < bestH {
		m := "first fit, then ruin and recreate"
		if searched {
			m = "first fit in a searched order, then ruin and recreate"
		}
		best, bestH, plan.Method = off, h, m
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
}

func (s *tiedSearch) dfs(depth, height int) bool {
	p := s.p
	if depth == len(p.units) {
		if height < s.best {
			s.best, s.bestOff, s.improved = height, append([]int(nil), s.off...), true
		}
		return true
	}
	// As in search.dfs, each next candidate is found by a new scan rather
	// than kept in a per-level list.
	c, cat := s.nextCand(-1, 0)
	if c == prune {
		return true
	}
	for c >= 0 {
		if !s.budget.take(s.cost) {
			return false
		}
		s.steps++
		s.placedU[c], s.off[c] = true, cat
		ok := s.dfs(depth+1, max(height, cat+p.extent[c]))
		s.placedU[c] = false
		if !ok {
			return false
		}
		if s.best == p.lowerBound {
			return true
		}
		c, cat = s.nextCand(c, cat)
	}
	return true
}

// nextCand returns the unit that follows (after, afterAt) in the search
// order (lower fit, then larger extent, then lower index; the first one
// when after is -1), or -1 when there is none. The first scan returns
// prune when an unplaced unit's fit already reaches the best height.
func (s *tiedSearch) nextCand(after, afterAt int) (int, int) {
	p := s.p
	c, cat := -1, 0
	for u := range p.units {
		if s.placedU[u] {
			continue
		}
		at := p.fit(u, s.off, s.placedU)
		if after < 0 && at+p.extent[u] >= s.best {
			return prune, 0
		}
		if (after < 0 || candBefore(p.extent, after, afterAt, u, at)) && (c < 0 || candBefore(p.extent, u, at, c, cat)) {
			c, cat = u, at
		}
	}
	return c, cat
}

// checkChains rejects ties whose fixed distances make two buffers of one
// chain that are not tied to each other overlap while both are live: no
// plan could place them.
func checkChains(bufs []Buffer, align int) error {
	for _, ms := range tiedUnits(bufs, align) {
		// Only members live at a common step can clash.
		first, last := make([]int, len(ms)), make([]int, len(ms))
		for k, m := range ms {
			first[k], last[k] = m.first, m.last
		}
		var err error
		forEachLivePair(first, last, func(a, b int) {
			a, b = min(a, b), max(a, b)
			x, y := ms[a], ms[b]
			if err == nil && b >= a+2 && x.size > 0 && y.size > 0 && x.rel < y.rel+y.size && y.rel < x.rel+x.size {
				err = fmt.Errorf("%w: buffers %d %q and %d %q of one chain of ties overlap while both are live", ErrBadBuffer, x.buf, bufs[x.buf].Name, y.buf, bufs[y.buf].Name)
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}
