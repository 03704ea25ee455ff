package planner

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
)

// Planning over several memories. A board may have a small fast RAM, a
// larger slower one and a large slow external one; each buffer goes to one
// of them, and each memory gets its own arena plan (Make over the buffers
// assigned to it). The aim is the least access cost: the bytes each buffer
// is read and written per run times the relative cost of a byte in its
// memory.

// Pool is one memory of a board.
type Pool struct {
	Name string
	Size int   // capacity in bytes
	Cost int64 // relative cost of one byte accessed (>= 1)
}

// PoolPlan is an assignment of buffers to pools with a plan per pool.
type PoolPlan struct {
	Pool    []int // per buffer (input order): index into the pools slice
	Offsets []int // per buffer: offset inside its pool
	// Plans has a plan per pool (in the order of the pools argument) of the
	// buffers planned in it: its Offsets are indexed like that pool's
	// Members. A pool with no buffers gets a plan of Size 0. Its Size is at
	// most the pool's.
	Plans []*Plan
	// Members lists per pool the buffer indices (input order, ascending)
	// planned in it.
	Members  [][]int
	Cost     int64 // total access cost of this assignment
	Bound    int64 // a lower bound on the cost of any assignment that fits (see MakePools); Bound <= Cost
	FastCost int64 // cost with every buffer in the cheapest pool (unlimited fast memory)
	SlowCost int64 // cost with every buffer in the most expensive pool
}

// ErrBadPool reports an invalid pool list.
var ErrBadPool = errors.New("invalid memory pool")

// PoolShortError says no assignment was found: pool Pool (its name) lacks
// Short bytes at step Step, where Need bytes of buffers are live and it
// holds Size. Need is the arena the plan of the buffers left for that pool
// (its own and those no cheaper pool took) takes, at least the bytes live
// at Step; Short is Need-Size.
type PoolShortError struct {
	Pool              string
	Step              int
	Need, Size, Short int
}

func (e *PoolShortError) Error() string {
	return fmt.Sprintf("pool %q (%d bytes) is %d bytes short at step %d: the buffers left for it need %d bytes there", e.Pool, e.Size, e.Short, e.Step, e.Need)
}

// Budgets of the trial plans MakePools makes while it searches for an
// assignment (they only decide whether a set of buffers fits a pool): each
// trial plan may take 1/trialPlanShare of the caller's effort (between
// minTrialPlanEffort and maxTrialPlanEffort steps), and all of them
// together 1/trialTotalShare of it.
const (
	trialPlanShare     = 500
	minTrialPlanEffort = 64
	maxTrialPlanEffort = 4096
	trialTotalShare    = 10
	// maxPoolPasses bounds the passes of the improvement phase.
	maxPoolPasses = 4
	// maxSwapTries bounds the swaps tried per component and cheaper pool
	// in one pass.
	maxSwapTries = 4
)

// MakePools assigns every buffer to one of the pools and plans each pool
// over the buffers assigned to it, so that every pool's plan fits in its
// Size, aiming at the least total cost: the sum over the buffers of
// access[b] (bytes read and written per run) times the Cost of b's pool.
// Buffers tied together (Buffer.Tie) go to one pool; their ties are
// re-indexed to that pool's Members. Buffers that need no memory (size 0,
// not tied at a distance) go to the cheapest pool.
//
// With one pool the plan is Make(bufs, opt)'s, or a *PoolShortError with
// its numbers when it does not fit. With several, when everything fits in
// the cheapest pool that is the answer. Otherwise the components (a buffer
// with the buffers tied to it) are taken by access per byte, densest
// first, each into the cheapest pool where it still fits: a pool is
// rejected at once when its live bytes at some step would exceed its size
// (the lower bound of any plan of it), else the component goes to its
// lowest fit among the pool's buffers where they are, else the pool is
// planned anew (Make, with a small share of opt's effort) with it. Then
// components move to cheaper pools, or swap with less accessed components
// there, while the cost drops and both pools fit (a bounded number of
// passes). The same is done starting with the largest components, and
// with the sparsest into the most expensive pool first; the cheapest
// result is kept. Finally each pool gets Make's plan with opt (its
// Session, or one budget of its Effort for all pools), unless the
// arrangement the search left is smaller (for one, when it is at the
// lifetime lower bound; its Method is then "lowest fit over pools"). Under
// the Greedy strategy every pool is planned anew at each step and gets
// Make's plan. Components that fit nowhere go to the most expensive pool,
// the last resort: when the plan of its buffers then does not fit,
// MakePools returns a *PoolShortError naming it.
//
// Bound is a lower bound on the cost of every assignment whose pools'
// plans fit: at any step t, a pool's plan holds the buffers live at t
// apart (a chain of tied buffers takes the union of its live members), so
// in every such assignment those bytes, summed per pool, are at most the
// pool's Size. Relaxing the assignment of each component live at t to a
// fractional one (bytes of it spread over pools at proportional cost)
// subject only to these capacities at t, and every other component in the
// cheapest pool, can only lower the cost; that relaxed problem is solved
// exactly by filling the pools cheapest first with the components of
// highest access per byte first (its cost matrix, access per byte times
// pool cost, is a Monge array once both are sorted). Bound is the largest
// such relaxed cost over the steps (rounded down), so it is at least
// FastCost.
//
// Invalid input is refused with an error wrapping ErrBadBuffer (buffers,
// access counts) or ErrBadPool (pools), or Make's errors.
func MakePools(bufs []Buffer, access []int64, pools []Pool, opt Options) (*PoolPlan, error) {
	minCost, maxCost, err := checkPools(bufs, access, pools)
	if err != nil {
		return nil, err
	}
	var total int64
	for _, a := range access {
		total += a // checkPools made sure that total*maxCost fits
	}
	if len(pools) == 1 {
		return onePool(bufs, access, pools[0], total, opt)
	}
	// Make refuses bad buffers, ties that form cycles or overlap, and too
	// many live pairs; a heuristic plan of all of them checks that (and
	// no subset can then fail).
	if _, err := Make(bufs, Options{Align: opt.Align, Strategy: Greedy}); err != nil {
		return nil, err
	}
	s := newPoolSolver(bufs, access, pools, opt)
	fast, slow := total*minCost, total*maxCost
	if err := s.solve(); err != nil {
		return nil, err
	}
	pp, err := s.result()
	if err != nil {
		return nil, err
	}
	pp.FastCost, pp.SlowCost = fast, slow
	pp.Bound = max(fast, s.bound(fast), s.eligible(nil))
	return pp, nil
}

// checkPools validates the pools and access counts and returns the least
// and largest pool cost.
func checkPools(bufs []Buffer, access []int64, pools []Pool) (minCost, maxCost int64, err error) {
	if len(pools) == 0 {
		return 0, 0, fmt.Errorf("%w: no pools", ErrBadPool)
	}
	names := map[string]bool{}
	for i, p := range pools {
		switch {
		case p.Name == "":
			return 0, 0, fmt.Errorf("%w: pool %d has no name", ErrBadPool, i)
		case names[p.Name]:
			return 0, 0, fmt.Errorf("%w: pool %d: name %q used twice", ErrBadPool, i, p.Name)
		case p.Size < 0:
			return 0, 0, fmt.Errorf("%w: pool %q: size %d", ErrBadPool, p.Name, p.Size)
		case p.Cost < 1:
			return 0, 0, fmt.Errorf("%w: pool %q: cost %d (at least 1)", ErrBadPool, p.Name, p.Cost)
		}
		names[p.Name] = true
		if i == 0 || p.Cost < minCost {
			minCost = p.Cost
		}
		maxCost = max(maxCost, p.Cost)
	}
	if len(access) != len(bufs) {
		return 0, 0, fmt.Errorf("%w: %d access counts for %d buffers", ErrBadBuffer, len(access), len(bufs))
	}
	var total int64
	for i, a := range access {
		if a < 0 {
			return 0, 0, fmt.Errorf("%w: buffer %d %q: access count %d", ErrBadBuffer, i, bufs[i].Name, a)
		}
		if total > math.MaxInt64-a {
			return 0, 0, fmt.Errorf("%w: the access counts add up to more than %d", ErrBadBuffer, int64(math.MaxInt64))
		}
		total += a
	}
	if hi, lo := bits.Mul64(uint64(total), uint64(maxCost)); hi != 0 || lo > math.MaxInt64 {
		return 0, 0, fmt.Errorf("%w: %d bytes accessed at cost %d overflow the cost (int64)", ErrBadBuffer, total, maxCost)
	}
	return minCost, maxCost, nil
}

// onePool is MakePools with a single pool: Make's plan, if it fits.
func onePool(bufs []Buffer, access []int64, pool Pool, total int64, opt Options) (*PoolPlan, error) {
	plan, err := Make(bufs, opt)
	if err != nil {
		return nil, err
	}
	if plan.Size > pool.Size {
		return nil, &PoolShortError{Pool: pool.Name, Step: plan.PeakStep, Need: plan.Size, Size: pool.Size, Short: plan.Size - pool.Size}
	}
	members := make([]int, len(bufs))
	for i := range members {
		members[i] = i
	}
	cost := total * pool.Cost
	return &PoolPlan{
		Pool:     make([]int, len(bufs)),
		Offsets:  slices.Clone(plan.Offsets),
		Plans:    []*Plan{plan},
		Members:  [][]int{members},
		Cost:     cost,
		Bound:    cost,
		FastCost: cost,
		SlowCost: cost,
	}, nil
}

// poolComp is a component: a buffer with the buffers tied to it (a unit of
// tied.go), which goes to one pool whole.
type poolComp struct {
	bufs   []int // buffer indices, ascending
	access int64 // their access counts summed
	size   int   // their aligned sizes summed
	// extent is the bytes from the lowest to the highest end of its
	// members at their distances: 0 only when it needs no memory at all
	// (a chain of buffers of size 0 at distinct offsets needs some).
	extent int
	// segs is the memory the component occupies per step: the union of
	// its live members, over ranges of compressed steps.
	segs   []poolSeg
	lo, hi int // compressed steps [lo, hi) it occupies memory in
}

// poolSeg is cover bytes occupied over the compressed steps [lo, hi).
type poolSeg struct{ lo, hi, cover int }

// peak is the most memory the component occupies at one step.
func (c *poolComp) peak() int {
	m := 0
	for _, g := range c.segs {
		m = max(m, g.cover)
	}
	return m
}

// poolState is one pool during the search: its components and an
// arrangement of their buffers (offsets in poolSolver.off) that fits.
type poolState struct {
	Pool
	index  int   // in the caller's list
	comps  []int // components assigned, ascending
	live   []int // bytes occupied per compressed step
	height int   // the arrangement's top: at most Size
}

// poolSolver searches an assignment of components to pools.
type poolSolver struct {
	bufs   []Buffer
	align  int
	points []int // compressed steps: the steps where some buffer starts or ends+1
	comps  []poolComp
	pools  []*poolState // by cost, then input order
	where  []int        // per component: its position in pools, -1 while unplaced
	order  []int        // components by access per byte, densest first

	// Per buffer: its component, aligned size, distance above its
	// component's offset, the buffers of other components of nonzero size
	// live at a common step with it (when its size is not 0), and its
	// offset in its pool's arrangement.
	compOf, size, rel []int
	conf              [][]int
	off               []int

	trial     *Session // trial plans, with a small budget each
	trialOpt  Options
	quickOpt  Options // heuristics only: a session without budget
	final     Options // the caller's, with one Session for all pools
	perPlan   int64
	trialLeft int64

	// strict: every pool's plan is Make's (the Greedy strategy); else an
	// arrangement found by the search may serve.
	strict bool

	pos []int  // scratch for sub-problems: a buffer's index among members
	tmp []span // scratch for fits
}

func newPoolSolver(bufs []Buffer, access []int64, pools []Pool, opt Options) *poolSolver {
	align := opt.Align
	if align == 0 {
		align = DefaultAlign
	}
	n := len(bufs)
	s := &poolSolver{bufs: bufs, align: align, pos: make([]int, n),
		compOf: make([]int, n), size: make([]int, n), rel: make([]int, n), conf: make([][]int, n), off: make([]int, n)}
	effort := opt.Effort
	if effort <= 0 {
		effort = DefaultEffort
	}
	s.perPlan = min(max(effort/trialPlanShare, minTrialPlanEffort), maxTrialPlanEffort)
	s.trialLeft = effort / trialTotalShare
	s.trial = NewSession(1)
	s.trialOpt = Options{Align: align, Strategy: opt.Strategy, Session: s.trial}
	s.quickOpt = Options{Align: align, Strategy: opt.Strategy, Session: &Session{memo: map[string]*Plan{}}}
	s.strict = opt.Strategy == Greedy
	s.final = opt
	if s.final.Session == nil {
		s.final.Session = NewSession(opt.Effort)
	}

	for _, b := range bufs {
		s.points = append(s.points, b.First, b.Last+1)
	}
	slices.Sort(s.points)
	s.points = slices.Compact(s.points)

	for i, p := range pools {
		s.pools = append(s.pools, &poolState{Pool: p, index: i, live: make([]int, len(s.points))})
	}
	slices.SortStableFunc(s.pools, func(a, b *poolState) int {
		switch {
		case a.Cost < b.Cost:
			return -1
		case a.Cost > b.Cost:
			return 1
		}
		return 0
	})

	for _, ms := range tiedUnits(bufs, align) {
		c := poolComp{}
		for _, m := range ms {
			c.bufs = append(c.bufs, m.buf)
			c.access += access[m.buf]
			c.size += m.size
			c.extent = max(c.extent, m.rel+m.size)
			s.size[m.buf], s.rel[m.buf] = m.size, m.rel
		}
		slices.Sort(c.bufs)
		c.segs = s.unitSegs(ms)
		if len(c.segs) > 0 {
			c.lo, c.hi = c.segs[0].lo, c.segs[len(c.segs)-1].hi
		}
		s.comps = append(s.comps, c)
	}
	// Components in the order of their lowest buffer.
	slices.SortFunc(s.comps, func(a, b poolComp) int { return a.bufs[0] - b.bufs[0] })
	for c := range s.comps {
		for _, b := range s.comps[c].bufs {
			s.compOf[b] = c
		}
	}
	first, last := make([]int, n), make([]int, n)
	for i, b := range bufs {
		first[i], last[i] = b.First, b.Last
	}
	forEachLivePair(first, last, func(i, j int) {
		if s.compOf[i] != s.compOf[j] && s.size[i] > 0 && s.size[j] > 0 {
			s.conf[i] = append(s.conf[i], j)
			s.conf[j] = append(s.conf[j], i)
		}
	})
	s.where = make([]int, len(s.comps))
	s.order = make([]int, len(s.comps))
	for i := range s.order {
		s.order[i] = i
	}
	slices.SortStableFunc(s.order, func(a, b int) int {
		return -cmpDensity(s.comps[a].access, s.comps[a].size, s.comps[b].access, s.comps[b].size)
	})
	return s
}

// cmpDensity compares access per byte a/x with b/y (x, y >= 0; a size of
// 0 counts as the densest, since it takes no memory).
func cmpDensity(a int64, x int, b int64, y int) int {
	switch {
	case x == 0 && y == 0:
		return 0
	case x == 0:
		return 1
	case y == 0:
		return -1
	}
	h1, l1 := bits.Mul64(uint64(a), uint64(y))
	h2, l2 := bits.Mul64(uint64(b), uint64(x))
	switch {
	case h1 != h2:
		if h1 < h2 {
			return -1
		}
		return 1
	case l1 != l2:
		if l1 < l2 {
			return -1
		}
		return 1
	}
	return 0
}

// point is the compressed index of a step that is a buffer's First or
// Last+1.
func (s *poolSolver) point(step int) int { return sort.SearchInts(s.points, step) }

// unitSegs is the memory a unit occupies over the compressed steps: at each
// step, the union of its live members (aligned, at their distances), as the
// lifetime lower bound counts it.
func (s *poolSolver) unitSegs(ms []member) []poolSeg {
	if len(ms) == 1 {
		m := ms[0]
		if m.size == 0 {
			return nil
		}
		return []poolSeg{{s.point(m.first), s.point(m.last + 1), m.size}}
	}
	type ev struct{ step, m int }
	var evs []ev
	for k, m := range ms {
		if m.size > 0 {
			evs = append(evs, ev{m.first, k}, ev{m.last + 1, -1 - k})
		}
	}
	slices.SortStableFunc(evs, func(a, b ev) int { return a.step - b.step })
	var segs []poolSeg
	var live []int
	var sp []span
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
		for _, x := range sp {
			if x.hi > end {
				cover += x.hi - max(x.lo, end)
				end = x.hi
			}
		}
		if cover > 0 && e < len(evs) {
			lo, hi := s.point(at), s.point(evs[e].step)
			if n := len(segs); n > 0 && segs[n-1].hi == lo && segs[n-1].cover == cover {
				segs[n-1].hi = hi
			} else {
				segs = append(segs, poolSeg{lo, hi, cover})
			}
		}
	}
	return segs
}

// roomFor reports whether pool p's live bytes stay within its size with
// component c added and component out (-1: none) taken away: when not, no
// plan of p fits.
func (s *poolSolver) roomFor(p *poolState, c, out int) bool {
	if out >= 0 {
		s.addLive(p, out, -1)
		defer s.addLive(p, out, 1)
	}
	for _, g := range s.comps[c].segs {
		for k := g.lo; k < g.hi; k++ {
			if p.live[k]+g.cover > p.Size {
				return false
			}
		}
	}
	return true
}

func (s *poolSolver) addLive(p *poolState, c, sign int) {
	for _, g := range s.comps[c].segs {
		for k := g.lo; k < g.hi; k++ {
			p.live[k] += sign * g.cover
		}
	}
}

// lowestFit is the lowest offset at which component c fits in the
// arrangement of pool pi, component out (-1: none) taken away: its
// members clear every buffer of the pool they share a step with.
func (s *poolSolver) lowestFit(pi, c, out int) int {
	sp := s.tmp[:0]
	for _, b := range s.comps[c].bufs {
		for _, x := range s.conf[b] {
			if cx := s.compOf[x]; s.where[cx] == pi && cx != out {
				// c at "at" clashes with x when lo < at < hi.
				sp = append(sp, span{s.off[x] - s.rel[b] - s.size[b], s.off[x] + s.size[x] - s.rel[b]})
			}
		}
	}
	slices.SortFunc(sp, func(a, b span) int { return a.lo - b.lo })
	s.tmp = sp
	at := 0
	for _, x := range sp {
		if x.lo >= at {
			break
		}
		at = max(at, x.hi)
	}
	return at
}

// compsWith returns the components of p with in added and out (-1: none)
// taken away, ascending, and their buffers, ascending.
func (s *poolSolver) compsWith(p *poolState, in, out int) (comps, members []int) {
	comps = slices.Clone(p.comps)
	if out >= 0 {
		comps = slices.DeleteFunc(comps, func(c int) bool { return c == out })
	}
	if in >= 0 {
		comps = append(comps, in)
		slices.Sort(comps)
	}
	return comps, s.membersOf(comps)
}

func (s *poolSolver) membersOf(comps []int) []int {
	var members []int
	for _, c := range comps {
		members = append(members, s.comps[c].bufs...)
	}
	slices.Sort(members)
	return members
}

// sub returns the buffers of members, their ties re-indexed to members.
func (s *poolSolver) sub(members []int) []Buffer {
	out := make([]Buffer, len(members))
	for k, i := range members {
		s.pos[i] = k
	}
	for k, i := range members {
		b := s.bufs[i]
		if b.Tie != nil {
			b.Tie = &Tie{To: s.pos[b.Tie.To], Shift: b.Tie.Shift}
		}
		out[k] = b
	}
	return out
}

// trialPlan plans members to see whether they fit in size bytes: with
// the heuristics alone first, then, when those miss both size and the
// lower bound, with a search of the trial budget.
func (s *poolSolver) trialPlan(members []int, size int) (*Plan, error) {
	sub := s.sub(members)
	p, err := Make(sub, s.quickOpt)
	if err != nil || p.Size <= size || p.LowerBound > size || p.Cert != BestFound || s.trialLeft <= 0 {
		return p, err
	}
	give := min(s.perPlan, s.trialLeft)
	s.trial.budget.left = give
	p, err = Make(sub, s.trialOpt)
	s.trialLeft -= give - s.trial.budget.left
	return p, err
}

// placement is a way to put component in (-1: none) into pool pi in
// place of out (-1: none): at offset at in the arrangement, or, when plan
// is set, with the whole pool rearranged by plan (over members).
type placement struct {
	pi, in, out int
	at          int
	plan        *Plan
	comps       []int
	members     []int
}

// place finds a placement of component in (-1: none) into pool pi in
// place of out (-1: none), or nil: none when the pool's live bytes would
// exceed its size, else the lowest fit in its arrangement if that fits,
// else a new plan of the pool's buffers if that fits. Under the Greedy
// strategy every pool keeps Make's plan: it is planned anew each time.
func (s *poolSolver) place(pi, in, out int) (*placement, error) {
	p := s.pools[pi]
	if in >= 0 && !s.roomFor(p, in, out) {
		return nil, nil
	}
	m := &placement{pi: pi, in: in, out: out}
	if !s.strict {
		if in < 0 {
			return m, nil // taking a component out leaves the rest in place
		}
		if m.at = s.lowestFit(pi, in, out); m.at+s.comps[in].extent <= p.Size {
			return m, nil
		}
	}
	m.comps, m.members = s.compsWith(p, in, out)
	plan, err := s.trialPlan(m.members, p.Size)
	if err != nil || plan.Size > p.Size {
		return nil, err
	}
	m.plan = plan
	return m, nil
}

// apply makes a placement.
func (s *poolSolver) apply(m *placement) {
	p := s.pools[m.pi]
	if m.out >= 0 {
		s.addLive(p, m.out, -1)
		if s.where[m.out] == m.pi {
			s.where[m.out] = -1
		}
	}
	if m.in >= 0 {
		s.addLive(p, m.in, 1)
		s.where[m.in] = m.pi
	}
	if m.plan != nil {
		p.comps = m.comps
		for k, b := range m.members {
			s.off[b] = m.plan.Offsets[k]
		}
	} else {
		p.comps, _ = s.compsWith(p, m.in, m.out)
		if m.in >= 0 {
			for _, b := range s.comps[m.in].bufs {
				s.off[b] = m.at + s.rel[b]
			}
		}
	}
	s.setHeight(p)
}

// setHeight sets the top of p's arrangement, as Plan.Size counts it.
func (s *poolSolver) setHeight(p *poolState) {
	p.height = 0
	for _, c := range p.comps {
		for _, b := range s.comps[c].bufs {
			p.height = max(p.height, s.off[b]+s.size[b])
		}
	}
}

// solve assigns every component to a pool: all to the cheapest when they
// fit there, else greedily and then improved. The greedy takes the
// components by access per byte, densest first, into the cheapest pool
// where they fit; it starts again with the largest components first, and
// with the sparsest first into the most expensive pool, and keeps the
// cheapest assignment that fits.
func (s *poolSolver) solve() error {
	s.reset()
	if ok, err := s.allInCheapest(); ok || err != nil {
		return err
	}
	byCost := make([]int, len(s.pools))
	for i := range byCost {
		byCost[i] = i
	}
	costliest := slices.Clone(byCost)
	slices.Reverse(costliest)
	bySize := slices.Clone(s.order)
	slices.SortStableFunc(bySize, func(a, b int) int { return s.comps[b].peak() - s.comps[a].peak() })
	sparse := slices.Clone(s.order)
	slices.Reverse(sparse)
	var first, best *poolSnapshot
	var firstLeft []int
	var bestCost int64
	for v, g := range []struct{ comps, pools []int }{
		{s.order, byCost},
		{bySize, byCost},
		{sparse, costliest},
	} {
		if v > 0 {
			s.reset()
		}
		left, err := s.greedy(g.comps, g.pools)
		if err != nil {
			return err
		}
		if len(left) > 0 {
			if v == 0 {
				first, firstLeft = s.snapshot(), left
			}
			continue
		}
		if err := s.improve(); err != nil {
			return err
		}
		if c := s.cost(); best == nil || c < bestCost {
			best, bestCost = s.snapshot(), c
		}
	}
	if best != nil {
		s.restore(best)
		return nil
	}
	s.restore(first)
	return s.lastResort(firstLeft)
}

// reset empties the pools but for the components that take no memory,
// which go to the cheapest pool, at offset 0.
func (s *poolSolver) reset() {
	for _, p := range s.pools {
		p.comps, p.height = nil, 0
		clear(p.live)
	}
	for c := range s.where {
		s.where[c] = -1
		if s.comps[c].extent == 0 {
			s.pools[0].comps = append(s.pools[0].comps, c)
			s.where[c] = 0
			for _, b := range s.comps[c].bufs {
				s.off[b] = 0
			}
		}
	}
}

// allInCheapest puts every component in the cheapest pool if they fit
// there together.
func (s *poolSolver) allInCheapest() (bool, error) {
	cheap := s.pools[0]
	room := true
	for c := range s.comps {
		if s.where[c] < 0 {
			room = room && s.roomFor(cheap, c, -1)
			s.addLive(cheap, c, 1)
		}
	}
	if room {
		comps := make([]int, len(s.comps))
		for c := range comps {
			comps[c] = c
		}
		members := s.membersOf(comps)
		plan, err := s.trialPlan(members, cheap.Size)
		if err != nil {
			return false, err
		}
		if plan.Size <= cheap.Size {
			for c := range s.where {
				s.where[c] = 0
			}
			cheap.comps = comps
			for k, b := range members {
				s.off[b] = plan.Offsets[k]
			}
			s.setHeight(cheap)
			return true, nil
		}
	}
	for c := range s.comps {
		if s.where[c] < 0 {
			s.addLive(cheap, c, -1)
		}
	}
	return false, nil
}

// greedy puts the unplaced components, in the given order, each into the
// first pool (in the given order of positions) where it fits; it returns
// those that fit nowhere.
func (s *poolSolver) greedy(order, pools []int) ([]int, error) {
	var left []int
	for _, c := range order {
		if s.where[c] >= 0 {
			continue
		}
		placed := false
		for _, pi := range pools {
			m, err := s.place(pi, c, -1)
			if err != nil {
				return nil, err
			}
			if m != nil {
				s.apply(m)
				placed = true
				break
			}
		}
		if !placed {
			left = append(left, c)
		}
	}
	return left, nil
}

// cost is the access cost of the placed components.
func (s *poolSolver) cost() int64 {
	var cost int64
	for c, pi := range s.where {
		if pi >= 0 {
			cost += s.comps[c].access * s.pools[pi].Cost
		}
	}
	return cost
}

// poolSnapshot is the state of the search: per pool its components, live
// bytes and height, per component its pool, per buffer its offset.
type poolSnapshot struct {
	pools []poolState
	where []int
	off   []int
}

func (s *poolSolver) snapshot() *poolSnapshot {
	sn := &poolSnapshot{where: slices.Clone(s.where), off: slices.Clone(s.off)}
	for _, p := range s.pools {
		q := *p
		q.live = slices.Clone(p.live)
		sn.pools = append(sn.pools, q)
	}
	return sn
}

func (s *poolSolver) restore(sn *poolSnapshot) {
	copy(s.where, sn.where)
	copy(s.off, sn.off)
	for i, p := range s.pools {
		*p = sn.pools[i]
		p.live = slices.Clone(sn.pools[i].live)
	}
}

// lastResort puts the components that fit nowhere into the most expensive
// pool, and reports how short it falls when they do not fit there.
func (s *poolSolver) lastResort(left []int) error {
	pi := len(s.pools) - 1
	p := s.pools[pi]
	comps := slices.Concat(p.comps, left)
	slices.Sort(comps)
	members := s.membersOf(comps)
	plan, err := s.trialPlan(members, p.Size)
	if err == nil && plan.Size > p.Size {
		// Before giving up, plan them with the caller's effort.
		plan, err = Make(s.sub(members), s.final)
	}
	if err != nil {
		return err
	}
	if plan.Size > p.Size {
		return &PoolShortError{Pool: p.Name, Step: plan.PeakStep, Need: plan.Size, Size: p.Size, Short: plan.Size - p.Size}
	}
	for _, c := range left {
		s.addLive(p, c, 1)
		s.where[c] = pi
	}
	p.comps = comps
	for k, b := range members {
		s.off[b] = plan.Offsets[k]
	}
	s.setHeight(p)
	return s.improve()
}

// improve moves components to cheaper pools, or swaps them with less
// accessed components there, while the cost drops and the plans fit.
func (s *poolSolver) improve() error {
	for pass := 0; pass < maxPoolPasses; pass++ {
		improved := false
		for _, c := range s.order {
			pc := s.where[c]
			if s.comps[c].access == 0 {
				continue
			}
			for qi := 0; qi < pc && s.pools[qi].Cost < s.pools[pc].Cost; qi++ {
				ok, err := s.move(c, pc, qi)
				if err == nil && !ok {
					ok, err = s.swap(c, pc, qi)
				}
				if err != nil {
					return err
				}
				if ok {
					improved = true
					break
				}
			}
		}
		if !improved {
			break
		}
	}
	return nil
}

// move moves component c from pool pc to the cheaper pool qi if it fits
// there.
func (s *poolSolver) move(c, pc, qi int) (bool, error) {
	mq, err := s.place(qi, c, -1)
	if err != nil || mq == nil {
		return false, err
	}
	mp, err := s.place(pc, -1, c)
	if err != nil || mp == nil {
		return false, err
	}
	s.apply(mq)
	s.apply(mp)
	return true, nil
}

// swap exchanges component c of pool pc with a less accessed component of
// the cheaper pool qi, trying the largest gains first.
func (s *poolSolver) swap(c, pc, qi int) (bool, error) {
	cc := &s.comps[c]
	var cands []int
	for _, d := range s.pools[qi].comps {
		dd := &s.comps[d]
		if dd.access < cc.access && len(dd.segs) > 0 && dd.lo < cc.hi && cc.lo < dd.hi {
			cands = append(cands, d)
		}
	}
	slices.SortStableFunc(cands, func(a, b int) int {
		switch x, y := s.comps[a].access, s.comps[b].access; {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	tries := 0
	for _, d := range cands {
		if tries == maxSwapTries {
			break
		}
		if !s.roomFor(s.pools[qi], c, d) || !s.roomFor(s.pools[pc], d, c) {
			continue
		}
		tries++
		mq, err := s.place(qi, c, d)
		if err != nil {
			return false, err
		}
		if mq == nil {
			continue
		}
		mp, err := s.place(pc, d, c)
		if err != nil {
			return false, err
		}
		if mp == nil {
			continue
		}
		s.apply(mq)
		s.apply(mp)
		return true, nil
	}
	return false, nil
}

// result plans every pool. An arrangement the search found at the
// lifetime lower bound of its pool is kept (no plan is smaller); else the
// pool is planned with the caller's options (one budget of its Effort for
// all pools unless it brings a Session), and the arrangement kept when it
// is smaller than that plan. Under the Greedy strategy every plan is
// Make's.
func (s *poolSolver) result() (*PoolPlan, error) {
	n := len(s.pools)
	pp := &PoolPlan{
		Pool:    make([]int, len(s.bufs)),
		Offsets: make([]int, len(s.bufs)),
		Plans:   make([]*Plan, n),
		Members: make([][]int, n),
	}
	for _, p := range s.pools {
		members := s.membersOf(p.comps)
		if members == nil {
			members = []int{}
		}
		lb, peak := 0, 0
		for k, v := range p.live {
			if v > lb {
				lb, peak = v, s.points[k]
			}
		}
		var plan *Plan
		if s.strict || p.height > lb {
			var err error
			if plan, err = Make(s.sub(members), s.final); err != nil {
				return nil, err
			}
		}
		if plan == nil || plan.Size > p.height && (!s.strict || plan.Size > p.Size) {
			plan = &Plan{Offsets: make([]int, len(members)), Size: p.height, LowerBound: lb, PeakStep: peak,
				Cert: Heuristic, Method: "lowest fit over pools"}
			if p.height == lb {
				plan.Cert = AtLowerBound
			}
			for k, b := range members {
				plan.Offsets[k] = s.off[b]
			}
		}
		pp.Plans[p.index], pp.Members[p.index] = plan, members
		for k, i := range members {
			pp.Pool[i], pp.Offsets[i] = p.index, plan.Offsets[k]
		}
	}
	pp.Cost = s.cost()
	return pp, nil
}

// bound is the largest cost, over the steps, of the fractional assignment
// of the components live at that step, subject to the pools' sizes, with
// the others at the cheapest cost fast (see MakePools).
func (s *poolSolver) bound(fast int64) int64 {
	type item struct{ c, cover int }
	at := make([][]item, len(s.points))
	for c := range s.comps {
		for _, g := range s.comps[c].segs {
			for k := g.lo; k < g.hi; k++ {
				at[k] = append(at[k], item{c, g.cover})
			}
		}
	}
	minCost, maxCost := s.pools[0].Cost, s.pools[len(s.pools)-1].Cost
	room := make([]int, len(s.pools))
	best := fast
	for _, items := range at {
		slices.SortStableFunc(items, func(x, y item) int {
			return -cmpDensity(s.comps[x.c].access, x.cover, s.comps[y.c].access, y.cover)
		})
		for i, p := range s.pools {
			room[i] = p.Size
		}
		v, pi := fast, 0
		for _, it := range items {
			if it.cover == 0 {
				continue // takes no room: at the cheapest cost, as in fast
			}
			a := s.comps[it.c].access
			v -= a * minCost
			left := it.cover
			for left > 0 && pi < len(room) {
				if room[pi] == 0 {
					pi++
					continue
				}
				take := min(left, room[pi])
				v += share(a, take, it.cover) * s.pools[pi].Cost
				room[pi] -= take
				left -= take
			}
			if left > 0 {
				v += share(a, left, it.cover) * maxCost
			}
		}
		best = max(best, v)
	}
	return best
}

// share is a*part/whole rounded down (0 <= part <= whole, whole > 0).
func share(a int64, part, whole int) int64 {
	if part == whole {
		return a
	}
	hi, lo := bits.Mul64(uint64(a), uint64(part))
	q, _ := bits.Div64(hi, lo, uint64(whole))
	return int64(q)
}

// SplitBound is a lower bound on the access cost of every assignment of
// bufs to pools that fits, when a tie may be kept (the tied buffers in one
// pool at their distance) or dropped (the two apart: in different pools,
// or in one pool at offsets that share no byte). It is MakePools' bound
// over the buffers untied, each counting at every step its aligned size
// less half of its overlap, at the tie's distance, with every buffer of its
// chain whose lifetime meets its own (rounded up, at least 0): by
// inclusion-exclusion, the buffers of a chain in one pool at one step take
// at least the sum of these sizes whether their ties are kept or not.
func SplitBound(bufs []Buffer, access []int64, pools []Pool, opt Options) (int64, error) {
	minCost, _, err := checkPools(bufs, access, pools)
	if err != nil {
		return 0, err
	}
	align := opt.Align
	if align == 0 {
		align = DefaultAlign
	}
	// Make refuses bad buffers and ties (cycles, clashes), as MakePools.
	if _, err := Make(bufs, Options{Align: align, Strategy: Greedy}); err != nil {
		return 0, err
	}
	n := len(bufs)
	red := make([]Buffer, n)
	own := make([]int, n) // each buffer's aligned size
	var total int64
	for _, ms := range tiedUnits(bufs, align) {
		for _, a := range ms {
			over := 0
			for _, c := range ms {
				if c.buf != a.buf && c.first <= a.last && a.first <= c.last {
					over += max(0, min(a.rel+a.size, c.rel+c.size)-max(a.rel, c.rel))
				}
			}
			b := bufs[a.buf]
			red[a.buf] = Buffer{Name: b.Name, Size: max(0, a.size-(over+1)/2), First: b.First, Last: b.Last, Kind: b.Kind}
			own[a.buf] = a.size
			total += access[a.buf]
		}
	}
	s := newPoolSolver(red, access, pools, Options{Align: 1, Strategy: opt.Strategy})
	fast := total * minCost
	// Each buffer alone must fit its pool, tie kept or not: its own
	// aligned size decides where it can go.
	return max(fast, s.bound(fast), s.eligible(own)), nil
}

// eligible is a lower bound on the cost of every assignment that fits:
// each component at the cost of the cheapest pool it fits in alone (its
// extent, or with size not nil the largest size of its buffers, at most
// that pool's size), the pools' capacities otherwise ignored. A component
// that fits no pool counts at the dearest cost.
func (s *poolSolver) eligible(size []int) int64 {
	var total int64
	for _, c := range s.comps {
		need := c.extent
		if size != nil {
			need = 0
			for _, b := range c.bufs {
				need = max(need, size[b])
			}
		}
		cost := s.pools[len(s.pools)-1].Cost
		for _, p := range s.pools { // cheapest first
			if need <= p.Size {
				cost = p.Cost
				break
			}
		}
		total += c.access * cost
	}
	return total
}
