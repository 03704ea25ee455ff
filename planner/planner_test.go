package planner

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func randomBuffers(r *rand.Rand, n, steps int) []Buffer {
	bufs := make([]Buffer, n)
	for i := range bufs {
		f := r.IntN(steps)
		l := f + r.IntN(min(4, steps-f))
		bufs[i] = Buffer{Name: fmt.Sprint("b", i), Size: 1 + r.IntN(200), First: f, Last: l}
	}
	return bufs
}

// TestInvariants plans random instances and checks that no two buffers live
// at the same time overlap, offsets are aligned, and the arena is at least
// the lower bound and covers every buffer.
func TestInvariants(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		bufs := randomBuffers(r, 1+r.IntN(30), 1+r.IntN(12))
		for _, strat := range []Strategy{Optimal, Greedy} {
			for _, align := range []int{1, 16} {
				p, err := Make(bufs, Options{Align: align, Strategy: strat, Effort: 5000})
				if err != nil {
					t.Fatal(err)
				}
				if i, j, bad := FirstOverlap(bufs, p.Offsets); bad {
					t.Fatalf("trial %d: buffers %d %+v and %d %+v overlap at %d and %d", trial, i, bufs[i], j, bufs[j], p.Offsets[i], p.Offsets[j])
				}
				for i, o := range p.Offsets {
					if o%align != 0 {
						t.Fatalf("offset %d of buffer %d not aligned to %d", o, i, align)
					}
					if o+bufs[i].Size > p.Size {
						t.Fatalf("buffer %d ends at %d past arena %d", i, o+bufs[i].Size, p.Size)
					}
				}
				if p.Size < p.LowerBound {
					t.Fatalf("arena %d below lower bound %d", p.Size, p.LowerBound)
				}
				if p.Cert == AtLowerBound && p.Size != p.LowerBound {
					t.Fatalf("certificate says lower bound but gap is %d", p.Gap())
				}
			}
		}
	}
}

// bruteForce finds the optimal arena by trying every order with lowest-fit
// placement (complete, see search), for small instances.
func bruteForce(bufs []Buffer, align int) int {
	p := newProblem(bufs, align)
	best := -1
	perm := p.indices()
	var rec func(k int)
	rec = func(k int) {
		if k == len(perm) {
			h := p.height(p.firstFit(perm))
			if best < 0 || h < best {
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
	return best
}

// TestOptimalMatchesBruteForce checks the exact search against exhaustive
// enumeration on small random instances, where it must finish and be optimal.
func TestOptimalMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	gaps := 0
	for trial := 0; trial < 200; trial++ {
		bufs := randomBuffers(r, 2+r.IntN(6), 1+r.IntN(5))
		p, err := Make(bufs, Options{Align: 1})
		if err != nil {
			t.Fatal(err)
		}
		want := bruteForce(bufs, 1)
		if p.Size != want {
			t.Fatalf("trial %d: arena %d, brute force optimum %d (%+v)", trial, p.Size, want, bufs)
		}
		if p.Cert == BestFound || p.Cert == Heuristic {
			t.Fatalf("trial %d: small instance not proven optimal: %s", trial, p.CertText())
		}
		if p.Size > p.LowerBound {
			gaps++
		}
	}
	t.Logf("%d of 200 instances have an optimum above the lifetime lower bound", gaps)
}

// TestFirstOverlap checks the plan checker itself on hand-made plans: found
// only for buffers live at the same step whose bytes intersect.
func TestFirstOverlap(t *testing.T) {
	bufs := []Buffer{
		{Name: "a", Size: 8, First: 0, Last: 1},
		{Name: "b", Size: 8, First: 1, Last: 2},
		{Name: "c", Size: 8, First: 2, Last: 3},
		{Name: "empty", Size: 0, First: 0, Last: 3},
	}
	for _, tc := range []struct {
		offsets []int
		found   bool
		i, j    int
	}{
		{[]int{0, 8, 0, 0}, false, 0, 0},  // a and c share bytes but not steps
		{[]int{0, 7, 0, 0}, true, 0, 1},   // a and b share step 1 and byte 7
		{[]int{0, 8, 15, 0}, true, 1, 2},  // b and c share step 2 and byte 15
		{[]int{0, 8, 16, 4}, false, 0, 0}, // a zero-size buffer overlaps nothing
	} {
		i, j, found := FirstOverlap(bufs, tc.offsets)
		if found != tc.found || found && (i != tc.i || j != tc.j) {
			t.Errorf("FirstOverlap(offsets %v) = %d, %d, %v; want %d, %d, %v", tc.offsets, i, j, found, tc.i, tc.j, tc.found)
		}
	}
}

func TestDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	bufs := randomBuffers(r, 60, 20)
	a, _ := Make(bufs, Options{Effort: 20000})
	b, _ := Make(bufs, Options{Effort: 20000})
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatal("same input gave different plans")
	}
}

func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		bufs  []Buffer
		align int
	}{
		{[]Buffer{{Size: -1}}, 16},
		{[]Buffer{{Size: 1, First: 3, Last: 2}}, 16},
		{nil, 3},
	} {
		if _, err := Make(tc.bufs, Options{Align: tc.align}); err == nil {
			t.Errorf("Make(%+v, align %d) succeeded", tc.bufs, tc.align)
		}
	}
}

// BenchmarkPlanSynthetic plans a synthetic graph of a few thousand buffers.
func BenchmarkPlanSynthetic(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	bufs := randomBuffers(r, 3000, 1500)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Make(bufs, Options{Effort: 100000}); err != nil {
			b.Fatal(err)
		}
	}
}
