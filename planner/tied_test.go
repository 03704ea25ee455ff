package planner

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// TestTiedPair: micro_speech's depthwise layer written over its dying
// input: the 1,960-byte input tied 2,208 bytes above the 4,000-byte output
// takes a 4,176-byte footprint, and the 16 bytes the next operator writes
// fit in the tail the input leaves once it is dead.
func TestTiedPair(t *testing.T) {
	bufs := []Buffer{
		{Name: "in", Size: 1960, First: 0, Last: 1, Tie: &Tie{To: 1, Shift: 2208}},
		{Name: "out", Size: 4000, First: 1, Last: 2},
		{Name: "next", Size: 4, First: 2, Last: 3},
		{Name: "scratch", Size: 16, First: 3, Last: 3},
	}
	p, err := Make(bufs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Size != 4176 || p.LowerBound != 4176 || p.Cert != AtLowerBound {
		t.Errorf("arena %d, bound %d, %s; want 4176 at the bound", p.Size, p.LowerBound, p.CertText())
	}
	if p.Offsets[0] != p.Offsets[1]+2208 {
		t.Errorf("offsets %v: the tie does not hold", p.Offsets)
	}
	if i, j, bad := FirstOverlap(bufs, p.Offsets); bad {
		t.Errorf("buffers %d and %d overlap", i, j)
	}
	// Breaking the tie is reported.
	off := append([]int(nil), p.Offsets...)
	off[0] += 16
	if _, _, bad := FirstOverlap(bufs, off); !bad {
		t.Error("a plan that breaks the tie passes FirstOverlap")
	}
}

// TestTiedMatchesBruteForce: with ties, the search finds the optimum of
// every order of units at lowest fit (the search is complete), and the
// plan keeps every tie and overlaps nothing else.
func TestTiedMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 200; trial++ {
		bufs := randomBuffers(r, 2+r.IntN(6), 1+r.IntN(6))
		for i := range bufs {
			j := r.IntN(len(bufs))
			if r.IntN(3) == 0 && j != i && !tiedTo(bufs, j) && !reaches(bufs, j, i) {
				bufs[i].Tie = &Tie{To: j, Shift: 16 * (r.IntN(13) - 6)}
			}
		}
		p, err := Make(bufs, Options{Effort: 1 << 20})
		if errors.Is(err, ErrBadBuffer) {
			continue // a chain whose distances overlap two live buffers
		}
		if err != nil {
			t.Fatal(err)
		}
		if i, j, bad := FirstOverlap(bufs, p.Offsets); bad {
			t.Fatalf("trial %d: buffers %d %+v and %d %+v conflict at %d and %d", trial, i, bufs[i], j, bufs[j], p.Offsets[i], p.Offsets[j])
		}
		if p.Size < p.LowerBound {
			t.Fatalf("trial %d: arena %d below the bound %d", trial, p.Size, p.LowerBound)
		}
		tp := newTiedProblem(bufs, 16)
		best := -1
		perm := make([]int, len(tp.units))
		for i := range perm {
			perm[i] = i
		}
		var rec func(k int)
		rec = func(k int) {
			if k == len(perm) {
				if _, h := tp.firstFit(perm); best < 0 || h < best {
					best = h
				}
				return
			}
			for i := k; i < len(perm); i++ {
				perm[k], perm[i] = perm[i], perm[k]
				rec(k + 1)
				perm[k], perm[i] = perm[i], perm[k]
			}
		}
		rec(0)
		if p.Size != best {
			t.Fatalf("trial %d: arena %d, brute force %d (%s)", trial, p.Size, best, p.CertText())
		}
	}
}

func tiedTo(bufs []Buffer, i int) bool {
	for _, b := range bufs {
		if b.Tie != nil && b.Tie.To == i {
			return true
		}
	}
	return false
}

// reaches reports whether following ties from buffer j leads to buffer i.
func reaches(bufs []Buffer, j, i int) bool {
	for j != i && bufs[j].Tie != nil {
		j = bufs[j].Tie.To
	}
	return j == i
}
