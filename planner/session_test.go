package planner

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// scheduleBuffers are the buffers of a random operator schedule with skip
// connections and scratch: about 1.2 buffers per operator, sizes from 16
// bytes to 8 KiB. With 150 operators, heuristics miss the lower bound on
// about half of the seeds, so the exact search runs.
func scheduleBuffers(r *rand.Rand, ops int) []Buffer {
	var bufs []Buffer
	for i := 0; i < ops; i++ {
		last := i + 1 + r.IntN(3)
		if r.IntN(6) == 0 {
			last = i + 2 + r.IntN(20)
		}
		last = min(last, ops-1)
		bufs = append(bufs, Buffer{Size: (1 + r.IntN(64)) * 16 * (1 + r.IntN(8)), First: i, Last: max(last, i)})
		if r.IntN(4) == 0 {
			bufs = append(bufs, Buffer{Size: 16 * (1 + r.IntN(100)), First: i, Last: i, Kind: Scratch})
		}
	}
	return bufs
}

// refSearch is the search as first written: every node recomputes every
// candidate's lowest fit from scratch. The incremental search must visit
// the same nodes in the same order.
type refCand struct{ i, at int }

type refSearch struct {
	p        *problem
	budget   int64
	steps    int64
	best     int
	bestOff  []int
	complete bool
	off      []int
	placed   []bool
	tmp      []span
}

func (s *refSearch) dfs(depth, height int) bool {
	p := s.p
	if depth == p.n {
		if height < s.best {
			s.best, s.bestOff = height, append([]int(nil), s.off...)
		}
		return true
	}
	var cands []refCand
	for i := 0; i < p.n; i++ {
		if s.placed[i] {
			continue
		}
		dup := false
		for _, c := range cands {
			if p.size[c.i] == p.size[i] && p.first[c.i] == p.first[i] && p.last[c.i] == p.last[i] {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		at := p.lowestFit(i, s.off, s.placed, &s.tmp)
		if at+p.size[i] >= s.best {
			return true
		}
		cands = append(cands, refCand{i, at})
	}
	sort.SliceStable(cands, func(a, b int) bool {
		if cands[a].at != cands[b].at {
			return cands[a].at < cands[b].at
		}
		return p.size[cands[a].i] > p.size[cands[b].i]
	})
	for _, c := range cands {
		if s.steps >= s.budget {
			return false
		}
		s.steps++
		ci, at := c.i, c.at
		s.placed[ci], s.off[ci] = true, at
		ok := s.dfs(depth+1, max(height, at+p.size[ci]))
		s.placed[ci] = false
		if !ok {
			return false
		}
		if s.best == p.lowerBound {
			return true
		}
	}
	return true
}

// TestIncrementalSearchMatchesReference: on random schedules, small and
// large, the incremental search takes exactly the steps of the original
// one and finds the same offsets.
func TestIncrementalSearchMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 60; trial++ {
		ops := 5 + r.IntN(60)
		bufs := scheduleBuffers(r, ops)
		if trial%3 == 0 {
			bufs = randomBuffers(r, 2+r.IntN(14), 1+r.IntN(8))
		}
		p := newProblem(bufs, 16)
		start := p.firstFit(p.orderByStart())
		budget := int64(20000)
		ref := &refSearch{p: p, budget: budget, best: p.height(start), bestOff: start,
			off: make([]int, p.n), placed: make([]bool, p.n)}
		ref.complete = ref.dfs(0, 0)
		s := &search{p: p, budget: &Budget{left: budget}, cost: 1, best: p.height(start), bestOff: start}
		s.run()
		if s.steps != ref.steps || s.best != ref.best || s.complete != ref.complete || !slices.Equal(s.bestOff, ref.bestOff) {
			t.Fatalf("trial %d (%d buffers): incremental search: %d steps, arena %d, complete %v; original: %d steps, arena %d, complete %v",
				trial, len(bufs), s.steps, s.best, s.complete, ref.steps, ref.best, ref.complete)
		}
	}
}

// TestSessionSharesBudget: the plans of one session take their search
// steps from one budget, and a problem planned before costs nothing and
// gives the same plan.
func TestSessionSharesBudget(t *testing.T) {
	var hard [][]Buffer
	for seed := uint64(0); len(hard) < 2 && seed < 50; seed++ {
		bufs := scheduleBuffers(rand.New(rand.NewPCG(seed, 1)), 150)
		if p, _ := Make(bufs, Options{Effort: 50000}); p.Cert == BestFound {
			hard = append(hard, bufs)
		}
	}
	if len(hard) < 2 {
		t.Fatal("no instance where the heuristics miss the bound")
	}
	const steps = 30000
	sess := NewSession(steps)
	a, err := Make(hard[0], Options{Session: sess})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Make(hard[1], Options{Session: sess})
	if err != nil {
		t.Fatal(err)
	}
	cost := 1 + int64(len(hard[0]))/64 // both have 128-191 buffers
	if (a.Steps+b.Steps)*cost > steps || sess.StepsLeft() >= cost {
		t.Errorf("plans took %d + %d steps from a budget of %d, %d left", a.Steps, b.Steps, steps, sess.StepsLeft())
	}
	if a.Cert != BestFound || b.Cert != BestFound {
		t.Errorf("certificates %v, %v with %d steps left; want the budget used up", a.Cert, b.Cert, sess.StepsLeft())
	}
	again, err := Make(hard[0], Options{Session: sess})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again.Offsets, a.Offsets) || again.Size != a.Size || again.Steps != a.Steps {
		t.Errorf("planned again: arena %d (%d steps), first time %d (%d steps)", again.Size, again.Steps, a.Size, a.Steps)
	}
	again.Offsets[0]++ // the remembered plan is a copy
	if third, _ := Make(hard[0], Options{Session: sess}); third.Offsets[0] != a.Offsets[0] {
		t.Error("a caller's change to a plan reached the session's memory")
	}
}

// BenchmarkSearch plans schedules of 150 operators (about 180 buffers)
// where the heuristics miss the bound, with the default budget; ns/step is
// the cost of one search step.
func BenchmarkSearch(b *testing.B) {
	var hard [][]Buffer
	for seed := uint64(0); len(hard) < 4; seed++ {
		bufs := scheduleBuffers(rand.New(rand.NewPCG(seed, 1)), 150)
		if p, _ := Make(bufs, Options{Effort: 50000}); p.Cert == BestFound {
			hard = append(hard, bufs)
		}
	}
	steps := int64(0)
	for b.Loop() {
		for _, bufs := range hard {
			p, err := Make(bufs, Options{})
			if err != nil {
				b.Fatal(err)
			}
			steps += p.Steps
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/step")
}
