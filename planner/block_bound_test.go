package planner

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// TestBlockBoundIsABound: on random small problems with ties, no placement
// of the units (offsets in steps of the alignment, every unit whole) fits
// below the lower bound, found by exhaustive search; the block bound
// raises the bound above the largest live total in some of them, and
// proves plans optimal there.
func TestBlockBoundIsABound(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	raised, proved := 0, 0
	for trial := 0; trial < 3000; trial++ {
		bufs := randomBuffers(r, 3+r.IntN(4), 1+r.IntN(4))
		for i := range bufs {
			bufs[i].Size = 1 + r.IntN(120)
			j := r.IntN(len(bufs))
			if r.IntN(2) == 0 && j != i && !tiedTo(bufs, j) && !reaches(bufs, j, i) {
				bufs[i].Tie = &Tie{To: j, Shift: 16 * (r.IntN(9) - 4)}
			}
		}
		p, err := Make(bufs, Options{Effort: 1 << 16})
		if errors.Is(err, ErrBadBuffer) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		tp := newTiedProblem(bufs, 16)
		union, _ := tp.unionBound()
		if p.LowerBound > union {
			raised++
			if p.Block == nil {
				t.Fatalf("trial %d: bound %d above the live total %d, no BlockBound", trial, p.LowerBound, union)
			}
			if p.Size == p.LowerBound {
				proved++
			}
		}
		if fits(tp, p.LowerBound-16) {
			t.Fatalf("trial %d: the units fit in %d bytes, below the bound %d\n%+v", trial, p.LowerBound-16, p.LowerBound, bufs)
		}
	}
	t.Logf("3000 problems: the block bound above the live total in %d, the plan at that bound in %d", raised, proved)
	if raised == 0 || proved == 0 {
		t.Errorf("the block bound raised %d bounds and proved %d plans optimal: the test does not exercise it", raised, proved)
	}
}

// fits reports whether the units of tp can all be placed in h bytes:
// exhaustive search over offsets in steps of 16.
func fits(tp *tiedProblem, h int) bool {
	n := len(tp.units)
	off := make([]int, n)
	var rec func(u int) bool
	rec = func(u int) bool {
		if u == n {
			return true
		}
		for o := 0; o+tp.extent[u] <= h; o += 16 {
			ok := true
			for v := 0; v < u && ok; v++ {
				ok = !unitsClash(tp, u, o, v, off[v])
			}
			if ok {
				off[u] = o
				if rec(u + 1) {
					return true
				}
			}
		}
		return false
	}
	return h >= 0 && rec(0)
}

// unitsClash reports whether units u at ou and v at ov have members live
// at a common step that overlap.
func unitsClash(tp *tiedProblem, u, ou, v, ov int) bool {
	for _, a := range tp.units[u] {
		for _, b := range tp.units[v] {
			if a.size == 0 || b.size == 0 || a.last < b.first || b.last < a.first {
				continue
			}
			if ou+a.rel < ov+b.rel+b.size && ov+b.rel < ou+a.rel+a.size {
				return true
			}
		}
	}
	return false
}
