package planner

import (
	"errors"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"
)

// The sweeps that replaced quadratic loops (issue 26) are checked against
// the loops they replaced, kept here as references.

// refConflicts is newProblem's former pair loop.
func refConflicts(first, last []int) [][]int {
	c := make([][]int, len(first))
	for i := range first {
		for j := i + 1; j < len(first); j++ {
			if first[i] <= last[j] && first[j] <= last[i] {
				c[i] = append(c[i], j)
				c[j] = append(c[j], i)
			}
		}
	}
	return c
}

// refFirstOverlap is FirstOverlap's former pair loop.
func refFirstOverlap(bufs []Buffer, offsets []int) (int, int, bool) {
	for i, b := range bufs {
		if t := b.Tie; t != nil && offsets[i] != offsets[t.To]+t.Shift {
			return min(i, t.To), max(i, t.To), true
		}
	}
	for i := range bufs {
		for j := i + 1; j < len(bufs); j++ {
			a, b := bufs[i], bufs[j]
			if a.Size == 0 || b.Size == 0 || a.Tie != nil && a.Tie.To == j || b.Tie != nil && b.Tie.To == i {
				continue
			}
			if a.First <= b.Last && b.First <= a.Last && offsets[i] < offsets[j]+b.Size && offsets[j] < offsets[i]+a.Size {
				return i, j, true
			}
		}
	}
	return 0, 0, false
}

// refUnionBound is the tied lower bound's former loop over every step.
func refUnionBound(p *tiedProblem) (int, int) {
	maxStep := 0
	for _, ms := range p.units {
		for _, m := range ms {
			maxStep = max(maxStep, m.last)
		}
	}
	bound, step := 0, 0
	for t := 0; t <= maxStep; t++ {
		sum := 0
		for _, ms := range p.units {
			var sp []span
			for _, m := range ms {
				if m.first <= t && t <= m.last && m.size > 0 {
					sp = append(sp, span{m.rel, m.rel + m.size})
				}
			}
			sort.Slice(sp, func(a, b int) bool { return sp[a].lo < sp[b].lo })
			end := 0
			for _, s := range sp {
				if s.hi > end {
					sum += s.hi - max(s.lo, end)
					end = s.hi
				}
			}
		}
		if sum > bound {
			bound, step = sum, t
		}
	}
	return bound, step
}

// tiedRandom is a random instance with random chains of ties.
func tiedRandom(r *rand.Rand, n, steps int) []Buffer {
	bufs := randomBuffers(r, n, steps)
	for i := range bufs {
		j := r.IntN(len(bufs))
		if r.IntN(3) == 0 && j != i && !tiedTo(bufs, j) && !reaches(bufs, j, i) {
			bufs[i].Tie = &Tie{To: j, Shift: 16 * (r.IntN(13) - 6)}
		}
	}
	return bufs
}

func TestSweepsMatchReferences(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 3))
	for trial := range 500 {
		n, steps := 1+r.IntN(40), 1+r.IntN(30)
		bufs := tiedRandom(r, n, steps)
		first, last := make([]int, n), make([]int, n)
		for i, b := range bufs {
			first[i], last[i] = b.First, b.Last
		}
		got := make([][]int, n)
		forEachLivePair(first, last, func(i, j int) {
			got[i] = append(got[i], j)
			got[j] = append(got[j], i)
		})
		for _, c := range got {
			slices.Sort(c)
		}
		want := refConflicts(first, last)
		pairs := 0
		for i := range want {
			pairs += len(want[i])
			if !slices.Equal(got[i], want[i]) {
				t.Fatalf("trial %d: conflicts of %d: %v, want %v", trial, i, got[i], want[i])
			}
		}
		if lp, _, _ := LivePairs(bufs); lp != int64(pairs/2) {
			t.Fatalf("trial %d: LivePairs %d, want %d", trial, lp, pairs/2)
		}
		// Random offsets: valid and invalid plans alike.
		offs := make([]int, n)
		for i := range offs {
			offs[i] = 16 * r.IntN(n+1)
		}
		i, j, found := FirstOverlap(bufs, offs)
		wi, wj, wfound := refFirstOverlap(bufs, offs)
		if found != wfound || i != wi || j != wj {
			t.Fatalf("trial %d: FirstOverlap %d, %d, %v; want %d, %d, %v", trial, i, j, found, wi, wj, wfound)
		}
		if checkChains(bufs, 16) != nil {
			continue
		}
		tp := newTiedProblem(bufs, 16)
		b, s := tp.unionBound()
		if wb, ws := refUnionBound(tp); b != wb || s != ws {
			t.Fatalf("trial %d: tied lower bound %d at step %d, want %d at %d", trial, b, s, wb, ws)
		}
	}
}

// TestLivePairsLimit: a problem over MaxLivePairs is refused, saying where
// the most buffers are live, before any pair is listed.
func TestLivePairsLimit(t *testing.T) {
	for _, tc := range []struct {
		name       string
		n          int // buffers live from step i to the end
		refused    bool
		pairs      int64
		step, live int
	}{
		{"under the limit", 1448, false, 1447 * 1448 / 2, 1447, 1448},
		{"just over", 1449, true, 1448 * 1449 / 2, 1448, 1449},
		{"far over", 40_000, true, 39_999 * 40_000 / 2, 39_999, 40_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bufs := make([]Buffer, tc.n)
			for i := range bufs {
				bufs[i] = Buffer{Size: 16, First: i, Last: tc.n - 1}
			}
			start := time.Now()
			p, err := Make(bufs, Options{})
			var lp *LivePairsError
			if tc.refused != errors.As(err, &lp) {
				t.Fatalf("refused = %v (%v), want %v", err != nil, err, tc.refused)
			}
			if tc.refused {
				if !errors.Is(err, ErrTooComplex) || lp.Pairs != tc.pairs || lp.Step != tc.step || lp.Live != tc.live {
					t.Errorf("error %+v (%v), want %d pairs, %d live at step %d", lp, err, tc.pairs, tc.live, tc.step)
				}
			} else if err != nil || p.Size != 16*tc.n {
				t.Errorf("plan %v, %v; want %d bytes", p, err, 16*tc.n)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}
