// Package planner places buffers with known sizes and lifetimes in one arena,
// ahead of time. It knows nothing of models or Go code: a buffer is a size
// and an inclusive range of steps [First, Last] during which it is live, and
// a plan is an offset per buffer.
//
// Two buffers conflict when their lifetimes intersect; conflicting buffers
// must not overlap in memory. The smallest arena is bounded below by the
// largest total size of buffers live at one step (the lifetime lower bound).
// Plan first tries fast heuristics and, when none reaches the bound, runs an
// exact branch-and-bound search over placement orders that either proves its
// best arena optimal or stops after a fixed number of steps and reports the
// gap. The budget counts steps, never time, so plans are reproducible.
package planner

import (
	"errors"
	"fmt"
	"slices"
	"sort"
)

// Kind tells why a buffer exists; it is reported, not used for placement.
type Kind int

// Buffer kinds.
const (
	Activation Kind = iota // a tensor written by one operator and read by later ones
	Scratch                // working memory of one operator
	Persistent             // state kept across invocations (variable tensors)
)

func (k Kind) String() string {
	switch k {
	case Activation:
		return "activation"
	case Scratch:
		return "scratch"
	case Persistent:
		return "persistent"
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Buffer is one request for memory.
type Buffer struct {
	Name        string
	Size        int // bytes; 0 is allowed and placed at offset 0
	First, Last int // inclusive lifetime in steps (operator indices)
	Kind        Kind
	// Tie, when set, places this buffer at a fixed distance from another:
	// an operator writing its output over its own dying input in an order
	// that never overwrites input still to be read (an overlapped pair).
	Tie *Tie
}

// Tie fixes a buffer's offset to Shift bytes above buffer To's (Shift may
// be negative). The two may overlap in memory although their lifetimes
// meet. No other buffer may be tied to To; To may itself be tied to a
// third buffer, so ties form chains (an operator's output overwriting its
// input, then the next operator's output overwriting that), placed as one
// rigid block. Shift must be a multiple of the alignment.
type Tie struct {
	To, Shift int
}

// Strategy selects the placement algorithm.
type Strategy int

// Strategies.
const (
	Optimal Strategy = iota // heuristics, then exact search within Effort
	Greedy                  // TFLite Micro's rule: by size, largest first, lowest offset that fits
)

// Options tune planning.
type Options struct {
	Align    int      // offset alignment in bytes; 0 means 16
	Strategy Strategy // default Optimal
	// Effort bounds the exact search in search nodes; 0 means DefaultEffort.
	Effort int64
	// Session, when set, shares one search budget (its, instead of
	// Effort) and remembers plans across the plans made with it.
	Session *Session
}

// Session is shared by the plans of one generation: their searches draw
// from one budget of steps, so the total work is bounded however many
// candidate plans are made, and a problem planned before (the same
// buffers, alignment and strategy) is answered from memory with the same
// plan.
type Session struct {
	budget Budget
	memo   map[string]*Plan
}

// NewSession returns a session with a budget of the given number of search
// steps (0: DefaultEffort).
func NewSession(steps int64) *Session {
	if steps <= 0 {
		steps = DefaultEffort
	}
	return &Session{budget: Budget{left: steps}, memo: map[string]*Plan{}}
}

// StepsLeft is the number of search steps not yet taken.
func (s *Session) StepsLeft() int64 { return s.budget.left }

// Budget is a number of search steps.
type Budget struct {
	left int64
}

// take takes the given number of steps, reporting false when they are not
// left.
func (b *Budget) take(n int64) bool {
	if b.left < n {
		b.left = 0
		return false
	}
	b.left -= n
	return true
}

// problemKey identifies a planning problem for a session's memory.
func problemKey(bufs []Buffer, align int, strategy Strategy) string {
	k := make([]byte, 0, 16+12*len(bufs))
	k = fmt.Appendf(k, "%d/%d", align, strategy)
	for _, b := range bufs {
		k = fmt.Appendf(k, ";%d,%d,%d", b.Size, b.First, b.Last)
		if b.Tie != nil {
			k = fmt.Appendf(k, "@%d%+d", b.Tie.To, b.Tie.Shift)
		}
	}
	return string(k)
}

func clonePlan(p *Plan) *Plan {
	c := *p
	c.Offsets = slices.Clone(p.Offsets)
	return &c
}

// DefaultEffort is the default search budget in nodes: for a Session, the
// budget of all its plans together. A node of a problem of n buffers costs
// 1 + n/64 of it (a unit is about a quarter of a microsecond).
const DefaultEffort = 1_000_000

// Certificate states what is known about a plan's optimality.
type Certificate int

// Certificates.
const (
	AtLowerBound Certificate = iota // arena equals the lifetime lower bound
	Exhaustive                      // the search covered every order: no smaller arena exists
	BestFound                       // search budget ran out; Gap bytes may be saved at most
	Heuristic                       // greedy strategy requested: no claim
	// AllOrders: with tied pairs the search covered every placement order,
	// which need not contain the optimum when a pair leaves a gap another
	// buffer could use.
	AllOrders
)

// Plan is the result of planning.
type Plan struct {
	Offsets    []int // per buffer, in input order
	Size       int   // arena bytes: max offset+aligned size
	LowerBound int   // lifetime lower bound (aligned sizes)
	Cert       Certificate
	Steps      int64  // search nodes visited
	Method     string // which algorithm produced the offsets
	PeakStep   int    // a step where the live total is largest (equal to LowerBound unless Block)
	// Block, when not nil, says where LowerBound exceeds the largest live
	// total: a block of tied buffers leaves the buffers live beside it no
	// way to fit in that total (block_bound.go).
	Block *BlockBound
	// Pinned is the total (aligned) size of the buffers live over the whole
	// program (persistent state, for one): they conflict with every other
	// buffer, so they are stacked at the top of the arena, above the rest,
	// and Size-Pinned is what the remaining buffers need.
	Pinned int
}

// Gap is Size-LowerBound: how far the plan may be from optimal.
func (p *Plan) Gap() int { return p.Size - p.LowerBound }

// CertText renders the certificate for reports.
func (p *Plan) CertText() string {
	switch p.Cert {
	case AtLowerBound:
		return "optimal (= lower bound)"
	case Exhaustive:
		return "optimal (exhaustive)"
	case BestFound:
		return fmt.Sprintf("best found, gap %d bytes", p.Gap())
	case AllOrders:
		return fmt.Sprintf("best of every placement order, gap %d bytes", p.Gap())
	}
	return fmt.Sprintf("greedy (heuristic), %d bytes above the lower bound", p.Gap())
}

// ErrBadBuffer reports an invalid buffer request.
var ErrBadBuffer = errors.New("invalid buffer")

// MaxLivePairs bounds the pairs of buffers live at a common step (the
// conflicts the planner keeps and checks; a layer-by-layer model of n
// operators has about 2n of them, every model of ../shared fewer than 200).
// Their number grows with the square of the buffers live at once, which
// only a hostile graph makes large (one tensor read by thousands of
// operators whose outputs all stay live): Make refuses more with a
// *LivePairsError, so that planning time and memory stay bounded.
const MaxLivePairs = 1 << 20

// ErrTooComplex is wrapped by errors refusing a problem over MaxLivePairs.
var ErrTooComplex = errors.New("memory plan too large")

// LivePairsError reports a problem with more than MaxLivePairs pairs of
// buffers live at a common step. It wraps ErrTooComplex.
type LivePairsError struct {
	Pairs int64 // pairs of buffers live at a common step
	// Step is a step where the most buffers are live, Live their number.
	Step, Live int
}

func (e *LivePairsError) Error() string {
	return fmt.Sprintf("%v: %d pairs of buffers are live at a common step (up to %d buffers at step %d), more than the planner's limit of %d (planner.MaxLivePairs)", ErrTooComplex, e.Pairs, e.Live, e.Step, MaxLivePairs)
}

// Unwrap returns ErrTooComplex.
func (e *LivePairsError) Unwrap() error { return ErrTooComplex }

// LivePairs counts the pairs of buffers live at a common step and finds a
// step where the most buffers are live (live of them), in O(n log n).
func LivePairs(bufs []Buffer) (pairs int64, step, live int) {
	n := len(bufs)
	firsts, lasts := make([]int, n), make([]int, n)
	for i, b := range bufs {
		firsts[i], lasts[i] = b.First, b.Last
	}
	slices.Sort(firsts)
	slices.Sort(lasts)
	// Pairs that do not meet: one ends before the other starts.
	var apart int64
	k := 0
	for _, f := range firsts {
		for k < n && lasts[k] < f {
			k++
		}
		apart += int64(k)
	}
	// The most buffers live at once: sweep starts against ends.
	k = 0
	for i, f := range firsts {
		for k < n && lasts[k] < f {
			k++
		}
		if i+1-k > live {
			live, step = i+1-k, f
		}
	}
	return int64(n)*int64(n-1)/2 - apart, step, live
}

// forEachLivePair calls fn(i, j) for every pair of buffers i != j whose
// lifetimes [first, last] meet, in O(n log n + pairs): a sweep by start
// with the started buffers in a heap by end.
func forEachLivePair(first, last []int, fn func(i, j int)) {
	order := make([]int, len(first))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return first[a] - first[b] })
	h := &endHeap{last: last}
	for _, i := range order {
		for len(h.ids) > 0 && last[h.ids[0]] < first[i] {
			h.pop()
		}
		for _, j := range h.ids {
			fn(j, i)
		}
		h.push(i)
	}
}

// endHeap is a binary min-heap of buffer ids by lifetime end.
type endHeap struct {
	ids  []int
	last []int
}

func (h *endHeap) less(a, b int) bool { return h.last[h.ids[a]] < h.last[h.ids[b]] }

func (h *endHeap) push(i int) {
	h.ids = append(h.ids, i)
	for c := len(h.ids) - 1; c > 0; {
		p := (c - 1) / 2
		if !h.less(c, p) {
			break
		}
		h.ids[c], h.ids[p] = h.ids[p], h.ids[c]
		c = p
	}
}

func (h *endHeap) pop() {
	n := len(h.ids) - 1
	h.ids[0] = h.ids[n]
	h.ids = h.ids[:n]
	for p := 0; ; {
		c := 2*p + 1
		if c >= n {
			break
		}
		if c+1 < n && h.less(c+1, c) {
			c++
		}
		if !h.less(c, p) {
			break
		}
		h.ids[c], h.ids[p] = h.ids[p], h.ids[c]
		p = c
	}
}

// DefaultAlign is the alignment Make uses when Options.Align is 0.
const DefaultAlign = 16

// AlignedSize is the arena space a buffer of n bytes takes at alignment a
// (0 for DefaultAlign): n rounded up to a multiple of a.
func AlignedSize(n, a int) int {
	if a == 0 {
		a = DefaultAlign
	}
	return alignUp(n, a)
}

func alignUp(n, a int) int { return (n + a - 1) / a * a }

// Make plans the buffers.
func Make(bufs []Buffer, opt Options) (*Plan, error) {
	align := opt.Align
	if align == 0 {
		align = DefaultAlign
	}
	if align < 1 || align&(align-1) != 0 {
		return nil, fmt.Errorf("alignment %d is not a power of two", align)
	}
	tiedTo := map[int]bool{}
	for i, b := range bufs {
		if b.Size < 0 || b.First < 0 || b.Last < b.First {
			return nil, fmt.Errorf("%w: buffer %d %q: size %d, lifetime [%d, %d]", ErrBadBuffer, i, b.Name, b.Size, b.First, b.Last)
		}
		if t := b.Tie; t != nil {
			if t.To < 0 || t.To >= len(bufs) || t.To == i || tiedTo[t.To] || t.Shift%align != 0 {
				return nil, fmt.Errorf("%w: buffer %d %q: tie to buffer %d at %d bytes (the other buffer must exist and have no other buffer tied to it; the shift a multiple of %d)", ErrBadBuffer, i, b.Name, t.To, t.Shift, align)
			}
			tiedTo[t.To] = true
		}
	}
	// Ties form chains, not cycles: follow each chain once (state 1: on
	// the chain being followed, 2: known to end), linear in the buffers.
	state := make([]int8, len(bufs))
	for i := range bufs {
		j := i
		for state[j] == 0 && bufs[j].Tie != nil {
			state[j] = 1
			j = bufs[j].Tie.To
		}
		if state[j] == 1 {
			return nil, fmt.Errorf("%w: buffer %d %q: its ties form a cycle", ErrBadBuffer, i, bufs[i].Name)
		}
		for j = i; state[j] == 1; j = bufs[j].Tie.To {
			state[j] = 2
		}
		state[j] = 2
	}
	if len(tiedTo) > 0 {
		if err := checkChains(bufs, align); err != nil {
			return nil, err
		}
	}
	if pairs, step, live := LivePairs(bufs); pairs > MaxLivePairs {
		return nil, &LivePairsError{Pairs: pairs, Step: step, Live: live}
	}
	sess := opt.Session
	if sess == nil {
		sess = NewSession(opt.Effort)
	}
	key := problemKey(bufs, align, opt.Strategy)
	if p, ok := sess.memo[key]; ok {
		return clonePlan(p), nil
	}
	plan, err := makePinned(bufs, opt.Strategy, align, &sess.budget)
	if err != nil {
		return nil, err
	}
	sess.memo[key] = clonePlan(plan)
	return plan, nil
}

// makePinned plans the buffers live over the whole range apart: they
// conflict with all others, so no plan can share their memory, and the
// optimum is their sum plus the optimum of the rest. It plans the rest and
// stacks them on top.
func makePinned(bufs []Buffer, strategy Strategy, align int, budget *Budget) (*Plan, error) {
	lo, hi := 0, 0
	for i, b := range bufs {
		if i == 0 || b.First < lo {
			lo = b.First
		}
		hi = max(hi, b.Last)
	}
	// With ties, a pinned buffer may fit in a gap of a tied pair, so
	// stacking it on top is not optimal: plan everything together.
	anyTie := false
	for _, b := range bufs {
		anyTie = anyTie || b.Tie != nil
	}
	var rest, pinned []int
	for i, b := range bufs {
		if b.First == lo && b.Last == hi && !anyTie {
			pinned = append(pinned, i)
		} else {
			rest = append(rest, i)
		}
	}
	sub := make([]Buffer, len(rest))
	for k, i := range rest {
		sub[k] = bufs[i]
	}
	plan, err := makeFree(sub, strategy, align, budget)
	if err != nil {
		return nil, err
	}
	offsets := make([]int, len(bufs))
	for k, i := range rest {
		offsets[i] = plan.Offsets[k]
	}
	top := plan.Size
	for _, i := range pinned {
		offsets[i] = top
		top += alignUp(bufs[i].Size, align)
	}
	plan.Pinned = top - plan.Size
	plan.Offsets, plan.Size = offsets, top
	plan.LowerBound += plan.Pinned
	if len(rest) == 0 {
		plan.PeakStep = lo
	}
	return plan, nil
}

// makeFree plans buffers none of which is pinned.
func makeFree(bufs []Buffer, strategy Strategy, align int, budget *Budget) (*Plan, error) {
	for _, b := range bufs {
		if b.Tie != nil {
			return makeTied(bufs, strategy, align, budget), nil
		}
	}
	p := newProblem(bufs, align)
	plan := &Plan{LowerBound: p.lowerBound, PeakStep: p.peakStep}

	best := p.greedyBySize()
	plan.Method = "greedy by size"
	if strategy == Greedy {
		plan.Offsets, plan.Size, plan.Cert = best, p.height(best), Heuristic
		return plan, nil
	}
	bestH := p.height(best)
	for _, h := range []struct {
		name  string
		order []int
	}{
		{"first fit by conflicts", p.orderByConflicts()},
		{"first fit by lifetime start", p.orderByStart()},
	} {
		if bestH == p.lowerBound {
			break
		}
		off := p.firstFit(h.order)
		if hh := p.height(off); hh < bestH {
			best, bestH, plan.Method = off, hh, h.name
		}
	}
	plan.Cert = AtLowerBound
	if bestH > p.lowerBound {
		// A step scans every unplaced buffer: on large problems it costs
		// more of the budget, so that the budget bounds the time too.
		s := &search{p: p, budget: budget, cost: 1 + int64(p.n)/64, best: bestH, bestOff: best}
		s.run()
		plan.Steps = s.steps
		if s.improved {
			best, bestH, plan.Method = s.bestOff, s.best, "branch and bound"
		}
		switch {
		case bestH == p.lowerBound:
			plan.Cert = AtLowerBound
		case s.complete:
			plan.Cert = Exhaustive
		default:
			plan.Cert = BestFound
		}
	}
	plan.Offsets, plan.Size = best, bestH
	return plan, nil
}

// problem is the planning instance with aligned sizes and conflict lists.
type problem struct {
	n          int
	size       []int
	first      []int
	last       []int
	conflicts  [][]int
	lowerBound int
	peakStep   int
}

func newProblem(bufs []Buffer, align int) *problem {
	p := &problem{n: len(bufs)}
	maxStep := 0
	for _, b := range bufs {
		p.size = append(p.size, alignUp(b.Size, align))
		p.first = append(p.first, b.First)
		p.last = append(p.last, b.Last)
		maxStep = max(maxStep, b.Last)
	}
	p.conflicts = make([][]int, p.n)
	forEachLivePair(p.first, p.last, func(i, j int) {
		p.conflicts[i] = append(p.conflicts[i], j)
		p.conflicts[j] = append(p.conflicts[j], i)
	})
	for _, c := range p.conflicts {
		slices.Sort(c) // by index, as the search expects no other order
	}
	if p.n > 0 {
		live := make([]int, maxStep+2)
		for i := 0; i < p.n; i++ {
			live[p.first[i]] += p.size[i]
			live[p.last[i]+1] -= p.size[i]
		}
		sum := 0
		for t := 0; t <= maxStep; t++ {
			sum += live[t]
			if sum > p.lowerBound {
				p.lowerBound, p.peakStep = sum, t
			}
		}
	}
	return p
}

func (p *problem) height(off []int) int {
	h := 0
	for i, o := range off {
		h = max(h, o+p.size[i])
	}
	return h
}

// lowestFit returns the lowest offset at which buffer i fits given the
// placed buffers (placed[j] true, offsets off[j]).
func (p *problem) lowestFit(i int, off []int, placed []bool, tmp *[]span) int {
	sp := (*tmp)[:0]
	for _, j := range p.conflicts[i] {
		if placed[j] && p.size[j] > 0 {
			sp = append(sp, span{off[j], off[j] + p.size[j]})
		}
	}
	slices.SortFunc(sp, func(a, b span) int { return a.lo - b.lo })
	*tmp = sp
	cand := 0
	for _, s := range sp {
		if s.lo >= cand+p.size[i] {
			break
		}
		cand = max(cand, s.hi)
	}
	return cand
}

type span struct{ lo, hi int }

// firstFit places buffers in the given order, each at its lowest fit.
func (p *problem) firstFit(order []int) []int {
	off := make([]int, p.n)
	placed := make([]bool, p.n)
	var tmp []span
	for _, i := range order {
		off[i] = p.lowestFit(i, off, placed, &tmp)
		placed[i] = true
	}
	return off
}

// greedyBySize is TFLite Micro's GreedyMemoryPlanner order: largest first,
// ties by earlier first use, then input order.
func (p *problem) greedyBySize() []int {
	order := p.indices()
	sort.SliceStable(order, func(a, b int) bool {
		i, j := order[a], order[b]
		if p.size[i] != p.size[j] {
			return p.size[i] > p.size[j]
		}
		return p.first[i] < p.first[j]
	})
	return p.firstFit(order)
}

func (p *problem) orderByConflicts() []int {
	order := p.indices()
	w := make([]int, p.n)
	for i := range w {
		for _, j := range p.conflicts[i] {
			w[i] += p.size[j]
		}
		w[i] += p.size[i]
	}
	sort.SliceStable(order, func(a, b int) bool { return w[order[a]] > w[order[b]] })
	return order
}

func (p *problem) orderByStart() []int {
	order := p.indices()
	sort.SliceStable(order, func(a, b int) bool {
		i, j := order[a], order[b]
		if p.first[i] != p.first[j] {
			return p.first[i] < p.first[j]
		}
		return p.size[i] > p.size[j]
	})
	return order
}

func (p *problem) indices() []int {
	order := make([]int, p.n)
	for i := range order {
		order[i] = i
	}
	return order
}

// search is a depth-first branch and bound over placement orders. Placing
// buffers in the order of their offsets in any optimal plan, each at its
// lowest fit, yields offsets no higher than that plan's, so exploring every
// order with lowest-fit placement is complete.
//
// A step is cheap: the lowest fit of every unplaced buffer is kept up to
// date as buffers are placed (only the conflicting buffers whose fit the new
// one covers move, and they are restored on backtracking), and the placed
// buffers are kept sorted by offset so that a fit is one scan without
// sorting.
type search struct {
	p        *problem
	budget   *Budget
	cost     int64 // budget units per step: 1 + n/64 for n buffers
	steps    int64
	best     int
	bestOff  []int
	improved bool
	complete bool

	off    []int
	placed []bool
	fit    []int // lowest fit of each unplaced buffer
	// byOff lists the placed buffers of nonzero size by offset.
	byOff []int
	// class numbers the buffers that are interchangeable (same size and
	// lifetime); only the first unplaced one of a class is a candidate.
	class []int
	seen  []int64 // per class: the node that last took a candidate of it
	node  int64
	undo  []fitUndo
	tmp   []span
}

// fitUndo restores a fit changed by a placement.
type fitUndo struct{ i, fit int }

func (s *search) run() {
	p := s.p
	s.off = make([]int, p.n)
	s.placed = make([]bool, p.n)
	s.fit = make([]int, p.n) // nothing placed: every fit is 0
	s.class = make([]int, p.n)
	type key struct{ size, first, last int }
	classes := map[key]int{}
	for i := 0; i < p.n; i++ {
		k := key{p.size[i], p.first[i], p.last[i]}
		c, ok := classes[k]
		if !ok {
			c = len(classes)
			classes[k] = c
		}
		s.class[i] = c
	}
	s.seen = make([]int64, len(classes))
	for i := range s.seen {
		s.seen[i] = -1
	}
	s.complete = s.dfs(0, 0)
}

// conflict reports whether buffers i and j are live at a common step.
func (p *problem) conflict(i, j int) bool {
	return p.first[i] <= p.last[j] && p.first[j] <= p.last[i]
}

// fitOf is the lowest offset at which unplaced buffer i fits among the
// placed buffers. It scans whichever is shorter: i's placed conflicts
// (lowestFit, which sorts them), or all placed buffers in offset order.
func (s *search) fitOf(i int) int {
	p := s.p
	if len(p.conflicts[i]) < len(s.byOff) {
		return p.lowestFit(i, s.off, s.placed, &s.tmp)
	}
	cand := 0
	for _, j := range s.byOff {
		if !p.conflict(i, j) {
			continue
		}
		if s.off[j] >= cand+p.size[i] {
			break
		}
		cand = max(cand, s.off[j]+p.size[j])
	}
	return cand
}

// place puts buffer c at offset at and updates the fits it changes; it
// returns the undo mark for unplace.
func (s *search) place(c, at int) int {
	p := s.p
	mark := len(s.undo)
	s.placed[c], s.off[c] = true, at
	if p.size[c] == 0 {
		return mark
	}
	k := len(s.byOff)
	s.byOff = append(s.byOff, c)
	for k > 0 && s.off[s.byOff[k-1]] > at {
		s.byOff[k] = s.byOff[k-1]
		k--
	}
	s.byOff[k] = c
	end := at + p.size[c]
	for _, j := range p.conflicts[c] {
		if s.placed[j] || p.size[j] == 0 {
			continue
		}
		if f := s.fit[j]; f < end && at < f+p.size[j] {
			s.undo = append(s.undo, fitUndo{j, f})
			s.fit[j] = s.fitOf(j)
		}
	}
	return mark
}

// unplace takes buffer c out again and restores the fits to mark.
func (s *search) unplace(c, mark int) {
	s.placed[c] = false
	for k := len(s.undo) - 1; k >= mark; k-- {
		s.fit[s.undo[k].i] = s.undo[k].fit
	}
	s.undo = s.undo[:mark]
	if s.p.size[c] == 0 {
		return
	}
	k := slices.Index(s.byOff, c)
	s.byOff = slices.Delete(s.byOff, k, k+1)
}

// dfs returns false when the budget ran out below this node.
func (s *search) dfs(depth, height int) bool {
	p := s.p
	if depth == p.n {
		if height < s.best {
			s.best = height
			s.bestOff = append([]int(nil), s.off...)
			s.improved = true
		}
		return true
	}
	// Candidates: unplaced buffers in order of fit, largest first at equal
	// fits; identical buffers (same size and lifetime) are interchangeable,
	// so only the first is tried. The candidates are not kept: each next
	// one is found by a new scan (the fits are restored after each child),
	// so that a deep search holds no per-level lists.
	c, cat := s.nextCand(-1, 0)
	if c == prune {
		return true
	}
	for c >= 0 {
		if !s.budget.take(s.cost) {
			return false
		}
		s.steps++
		mark := s.place(c, cat)
		ok := s.dfs(depth+1, max(height, cat+p.size[c]))
		s.unplace(c, mark)
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

// prune is nextCand's answer when some unplaced buffer cannot be placed
// below the best height found.
const prune = -2

// nextCand returns the candidate that follows (after, afterAt) in the
// search order (the first one when after is -1), or -1 when there is none.
// The first scan also prunes: it returns prune when an unplaced buffer's
// fit already reaches the best height.
func (s *search) nextCand(after, afterAt int) (int, int) {
	p := s.p
	s.node++
	c, cat := -1, 0
	for i := 0; i < p.n; i++ {
		if s.placed[i] || s.seen[s.class[i]] == s.node {
			continue
		}
		s.seen[s.class[i]] = s.node
		at := s.fit[i]
		if after < 0 && at+p.size[i] >= s.best {
			// Placing i anywhere now cannot beat the best: every
			// completion of this node places i at or above this fit.
			return prune, 0
		}
		if (after < 0 || candBefore(p.size, after, afterAt, i, at)) && (c < 0 || candBefore(p.size, i, at, c, cat)) {
			c, cat = i, at
		}
	}
	return c, cat
}

// candBefore reports whether candidate i at offset at comes before j at bt
// in a search's order: lower fit first, then the larger, then the lower
// index.
func candBefore(size []int, i, at, j, bt int) bool {
	if at != bt {
		return at < bt
	}
	if size[i] != size[j] {
		return size[i] > size[j]
	}
	return i < j
}

// FirstOverlap checks a plan: found reports two buffers i < j that are live
// at the same step and overlap in memory (the first such pair), so the plan
// is bad; found is false when the plan is valid. Sizes are taken as given
// (unaligned), so it checks exactly what the program touches. A tied
// buffer may overlap the buffer it is tied to, but must sit at exactly its
// distance from it (found reports the pair when not).
func FirstOverlap(bufs []Buffer, offsets []int) (i, j int, found bool) {
	for i, b := range bufs {
		if t := b.Tie; t != nil && offsets[i] != offsets[t.To]+t.Shift {
			return min(i, t.To), max(i, t.To), true
		}
	}
	// Only buffers live at a common step can clash: visit those pairs
	// (forEachLivePair) and keep the first clash in (i, j) order.
	first, last := make([]int, len(bufs)), make([]int, len(bufs))
	for k, b := range bufs {
		first[k], last[k] = b.First, b.Last
	}
	forEachLivePair(first, last, func(x, y int) {
		x, y = min(x, y), max(x, y)
		a, b := bufs[x], bufs[y]
		if a.Size == 0 || b.Size == 0 || a.Tie != nil && a.Tie.To == y || b.Tie != nil && b.Tie.To == x {
			return
		}
		if offsets[x] < offsets[y]+b.Size && offsets[y] < offsets[x]+a.Size &&
			(!found || x < i || x == i && y < j) {
			i, j, found = x, y, true
		}
	})
	if !found {
		return 0, 0, false
	}
	return i, j, true
}
