package planner

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// subBuffers returns the buffers of members with their ties re-indexed to
// members (the test's own version of what MakePools does).
func subBuffers(bufs []Buffer, members []int) []Buffer {
	out := make([]Buffer, len(members))
	for k, i := range members {
		b := bufs[i]
		if b.Tie != nil {
			b.Tie = &Tie{To: slices.Index(members, b.Tie.To), Shift: b.Tie.Shift}
		}
		out[k] = b
	}
	return out
}

// checkPoolPlan checks everything a PoolPlan promises.
func checkPoolPlan(t *testing.T, name string, bufs []Buffer, access []int64, pools []Pool, pp *PoolPlan) {
	t.Helper()
	if len(pp.Pool) != len(bufs) || len(pp.Offsets) != len(bufs) || len(pp.Plans) != len(pools) || len(pp.Members) != len(pools) {
		t.Fatalf("%s: lengths %d %d %d %d", name, len(pp.Pool), len(pp.Offsets), len(pp.Plans), len(pp.Members))
	}
	var cost, fast, slow int64
	minCost, maxCost := int64(math.MaxInt64), int64(0)
	for _, p := range pools {
		minCost, maxCost = min(minCost, p.Cost), max(maxCost, p.Cost)
	}
	seen := make([]int, len(bufs))
	for k, members := range pp.Members {
		if !slices.IsSorted(members) {
			t.Fatalf("%s: members of pool %d not ascending: %v", name, k, members)
		}
		plan := pp.Plans[k]
		if plan == nil || len(plan.Offsets) != len(members) {
			t.Fatalf("%s: pool %d: plan %+v for %d members", name, k, plan, len(members))
		}
		if plan.Size > pools[k].Size {
			t.Fatalf("%s: pool %q: plan of %d bytes in %d", name, pools[k].Name, plan.Size, pools[k].Size)
		}
		sub := subBuffers(bufs, members)
		if i, j, bad := FirstOverlap(sub, plan.Offsets); bad {
			t.Fatalf("%s: pool %q: buffers %d and %d overlap", name, pools[k].Name, members[i], members[j])
		}
		for m, i := range members {
			seen[i]++
			if pp.Pool[i] != k || pp.Offsets[i] != plan.Offsets[m] {
				t.Fatalf("%s: buffer %d: pool %d offset %d, listed in pool %d at %d", name, i, pp.Pool[i], pp.Offsets[i], k, plan.Offsets[m])
			}
			if pp.Offsets[i] < 0 || pp.Offsets[i]+bufs[i].Size > plan.Size && bufs[i].Size > 0 {
				t.Fatalf("%s: buffer %d ends past its pool's plan", name, i)
			}
		}
	}
	for i, b := range bufs {
		if seen[i] != 1 {
			t.Fatalf("%s: buffer %d in %d pools", name, i, seen[i])
		}
		if b.Tie != nil {
			if pp.Pool[i] != pp.Pool[b.Tie.To] || pp.Offsets[i] != pp.Offsets[b.Tie.To]+b.Tie.Shift {
				t.Fatalf("%s: tie of buffer %d to %d broken: pools %d, %d, offsets %d, %d", name, i, b.Tie.To, pp.Pool[i], pp.Pool[b.Tie.To], pp.Offsets[i], pp.Offsets[b.Tie.To])
			}
		}
		cost += access[i] * pools[pp.Pool[i]].Cost
		fast += access[i] * minCost
		slow += access[i] * maxCost
	}
	if cost != pp.Cost || fast != pp.FastCost || slow != pp.SlowCost {
		t.Fatalf("%s: costs %d/%d/%d, want %d/%d/%d", name, pp.Cost, pp.FastCost, pp.SlowCost, cost, fast, slow)
	}
	if !(pp.FastCost <= pp.Bound && pp.Bound <= pp.Cost && pp.Cost <= pp.SlowCost) {
		t.Fatalf("%s: fast %d, bound %d, cost %d, slow %d out of order", name, pp.FastCost, pp.Bound, pp.Cost, pp.SlowCost)
	}
}

// TestPoolsOnePool: with one pool, MakePools is Make: the same offsets
// when they fit, a PoolShortError with Make's numbers when not.
func TestPoolsOnePool(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	tied := []Buffer{
		{Name: "in", Size: 1960, First: 0, Last: 1, Tie: &Tie{To: 1, Shift: 2208}},
		{Name: "out", Size: 4000, First: 1, Last: 2},
		{Name: "next", Size: 4, First: 2, Last: 3},
		{Name: "scratch", Size: 16, First: 3, Last: 3},
	}
	for _, tc := range []struct {
		name string
		bufs []Buffer
		opt  Options
	}{
		{"empty", nil, Options{}},
		{"tied pair", tied, Options{}},
		{"random small", randomBuffers(r, 12, 6), Options{}},
		{"random align 1", randomBuffers(r, 20, 8), Options{Align: 1}},
		{"greedy", randomBuffers(r, 30, 10), Options{Strategy: Greedy}},
		{"schedule", scheduleBuffers(r, 120), Options{Effort: 20000}},
		{"sizes 0", []Buffer{{Size: 0, First: 0, Last: 2}, {Size: 32, First: 1, Last: 1}}, Options{}},
	} {
		want, err := Make(tc.bufs, tc.opt)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		access := make([]int64, len(tc.bufs))
		for i := range access {
			access[i] = int64(r.IntN(1000))
		}
		for _, size := range []int{want.Size, want.Size + 100, want.Size - 1} {
			if size < 0 {
				continue
			}
			pools := []Pool{{Name: "ram", Size: size, Cost: 3}}
			pp, err := MakePools(tc.bufs, access, pools, tc.opt)
			if size < want.Size {
				var short *PoolShortError
				if !errors.As(err, &short) {
					t.Fatalf("%s in %d bytes: error %v, want a PoolShortError", tc.name, size, err)
				}
				w := PoolShortError{Pool: "ram", Step: want.PeakStep, Need: want.Size, Size: size, Short: want.Size - size}
				if *short != w {
					t.Errorf("%s: %+v, want %+v", tc.name, *short, w)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s in %d bytes: %v", tc.name, size, err)
			}
			if !slices.Equal(pp.Offsets, want.Offsets) || !slices.Equal(pp.Plans[0].Offsets, want.Offsets) || pp.Plans[0].Size != want.Size {
				t.Fatalf("%s: offsets %v, Make's %v", tc.name, pp.Offsets, want.Offsets)
			}
			checkPoolPlan(t, tc.name, tc.bufs, access, pools, pp)
		}
	}
}

// TestPoolsTiesTogether: a chain of tied buffers goes to one pool, even
// when its densest member alone would fit the fast pool.
func TestPoolsTiesTogether(t *testing.T) {
	bufs := []Buffer{
		{Name: "a", Size: 256, First: 0, Last: 1},
		{Name: "b", Size: 64, First: 1, Last: 2, Tie: &Tie{To: 0, Shift: 0}},
		{Name: "c", Size: 512, First: 2, Last: 3, Tie: &Tie{To: 1, Shift: 0}},
		{Name: "d", Size: 128, First: 0, Last: 3},
		{Name: "z", Size: 0, First: 1, Last: 1},
	}
	for _, tc := range []struct {
		name     string
		access   []int64
		pools    []Pool
		wantPool []int
	}{
		{"chain too big for fast", []int64{10, 1000, 10, 50, 7},
			[]Pool{{"slow", 4096, 10}, {"fast", 256, 1}}, []int{0, 0, 0, 1, 1}},
		{"chain fits fast", []int64{10, 1000, 10, 50, 7},
			[]Pool{{"slow", 4096, 10}, {"fast", 512, 1}}, []int{1, 1, 1, 0, 1}},
		{"chain denser", []int64{10000, 1000, 10000, 50, 7},
			[]Pool{{"fast", 600, 1}, {"slow", 4096, 10}}, []int{0, 0, 0, 1, 0}},
	} {
		pp, err := MakePools(bufs, tc.access, tc.pools, Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		checkPoolPlan(t, tc.name, bufs, tc.access, tc.pools, pp)
		if !slices.Equal(pp.Pool, tc.wantPool) {
			t.Errorf("%s: pools %v, want %v (cost %d, bound %d)", tc.name, pp.Pool, tc.wantPool, pp.Cost, pp.Bound)
		}
	}
}

// bruteForcePools returns the least cost of an assignment of the buffers
// (tie chains together) to the pools in which every pool's Make plan fits,
// and whether there is one.
func bruteForcePools(t *testing.T, bufs []Buffer, access []int64, pools []Pool, opt Options) (int64, bool) {
	n := len(bufs)
	root := make([]int, n)
	for i := range bufs {
		j := i
		for bufs[j].Tie != nil {
			j = bufs[j].Tie.To
		}
		root[i] = j
	}
	var comps [][]int // buffers per component
	compOf := make([]int, n)
	for i := range bufs {
		if root[i] == i {
			compOf[i] = len(comps)
			comps = append(comps, nil)
		}
	}
	for i := range bufs {
		c := compOf[root[i]]
		compOf[i] = c
		comps[c] = append(comps[c], i)
	}
	// Arena of every set of whole components.
	compMask := make([]int, len(comps))
	for c, cs := range comps {
		for _, i := range cs {
			compMask[c] |= 1 << i
		}
	}
	size := make([]int, 1<<n)
	for mask := range size {
		var members []int
		whole := true
		for i := 0; i < n; i++ {
			if mask&(1<<i) != 0 {
				members = append(members, i)
				whole = whole && mask&compMask[compOf[i]] == compMask[compOf[i]]
			}
		}
		if !whole {
			size[mask] = -1
			continue
		}
		p, err := Make(subBuffers(bufs, members), Options{Align: opt.Align, Strategy: opt.Strategy, Effort: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		size[mask] = p.Size
	}
	best, found := int64(0), false
	assign := make([]int, len(comps))
	var rec func(c int)
	rec = func(c int) {
		if c == len(comps) {
			masks := make([]int, len(pools))
			var cost int64
			for k, cs := range comps {
				for _, i := range cs {
					masks[assign[k]] |= 1 << i
					cost += access[i] * pools[assign[k]].Cost
				}
			}
			for k, m := range masks {
				if size[m] > pools[k].Size {
					return
				}
			}
			if !found || cost < best {
				best, found = cost, true
			}
			return
		}
		for k := range pools {
			assign[c] = k
			rec(c + 1)
		}
	}
	rec(0)
	return best, found
}

// randomPoolProblem is a small random problem: up to 8 buffers, some of
// size 0, some tied, 2 or 3 pools whose sizes are random shares of the
// lower bound of the whole.
func randomPoolProblem(r *rand.Rand) ([]Buffer, []int64, []Pool, bool) {
	n := 2 + r.IntN(7)
	bufs := randomBuffers(r, n, 1+r.IntN(6))
	for i := range bufs {
		switch r.IntN(10) {
		case 0:
			bufs[i].Size = 0
		case 1, 2:
			bufs[i].Size = 16 * (1 + r.IntN(20))
		}
	}
	for i := range bufs {
		j := r.IntN(n)
		if r.IntN(4) == 0 && j != i && !tiedTo(bufs, j) && !reaches(bufs, j, i) {
			bufs[i].Tie = &Tie{To: j, Shift: 16 * (r.IntN(9) - 4)}
		}
	}
	access := make([]int64, n)
	for i := range access {
		if r.IntN(8) != 0 {
			access[i] = int64(r.IntN(5000))
		}
	}
	whole, err := Make(bufs, Options{})
	if err != nil {
		return nil, nil, nil, false // a chain whose distances clash
	}
	pools := make([]Pool, 2+r.IntN(2))
	for k := range pools {
		pools[k] = Pool{Name: fmt.Sprint("p", k), Size: r.IntN(whole.LowerBound + 2), Cost: 1 + int64(r.IntN(12))}
		if r.IntN(2) == 0 {
			pools[k].Size = pools[k].Size / 16 * 16
		}
	}
	return bufs, access, pools, true
}

// TestPoolsMatchBruteForce compares MakePools with every assignment of
// small random problems, an assignment fitting when Make's plan of each
// pool fits: MakePools' cost is at least the optimum, which is at least its
// bound, and it fails only where no assignment fits (or rarely). With ties
// Make's plans need not be the smallest (Certificate AllOrders), and the
// arrangements MakePools' search builds may be smaller: there it may beat
// the brute force.
func TestPoolsMatchBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var problems, feasible, optimal, boundTight, infeasible, missed, beatMake int
	for trial := 0; problems < 1000; trial++ {
		bufs, access, pools, ok := randomPoolProblem(r)
		if !ok {
			continue
		}
		problems++
		opt := Options{}
		switch trial % 7 {
		case 0, 3:
			opt.Align = 4
		case 5:
			opt.Strategy = Greedy
		}
		loose := false
		for _, b := range bufs {
			loose = loose || b.Tie != nil && opt.Strategy == Optimal
		}
		name := fmt.Sprintf("trial %d", trial)
		best, found := bruteForcePools(t, bufs, access, pools, opt)
		pp, err := MakePools(bufs, access, pools, opt)
		var short *PoolShortError
		switch {
		case err != nil && !errors.As(err, &short):
			t.Fatalf("%s: %v", name, err)
		case err != nil && !found:
			infeasible++
			if short.Short <= 0 || short.Need-short.Size != short.Short {
				t.Fatalf("%s: %+v", name, *short)
			}
			continue
		case err != nil:
			feasible++
			missed++
			t.Logf("%s: an assignment of cost %d fits, MakePools: %v", name, best, err)
			continue
		}
		checkPoolPlan(t, name, bufs, access, pools, pp)
		if !found || pp.Cost < best {
			if !loose {
				t.Fatalf("%s: cost %d, bound %d; brute force optimum %d (found %v)\nbuffers %+v\naccess %v\npools %+v", name, pp.Cost, pp.Bound, best, found, bufs, access, pools)
			}
			beatMake++
			if !found {
				infeasible++
				continue
			}
		}
		feasible++
		if pp.Bound > best {
			t.Fatalf("%s: bound %d above the optimum %d", name, pp.Bound, best)
		}
		if pp.Cost == best {
			optimal++
		}
		if pp.Bound == best {
			boundTight++
		}
	}
	t.Logf("%d problems: %d where no assignment fits Make's plans (MakePools fitted %d of them with its own arrangements), %d feasible: MakePools optimal on %d (%.1f%%), found nothing on %d, beat Make's tied plans on %d, bound = optimum on %d",
		problems, infeasible, beatMake, feasible, optimal, 100*float64(optimal)/float64(feasible), missed, beatMake, boundTight)
	if missed*10 > feasible {
		t.Errorf("MakePools found no assignment for %d of %d feasible problems", missed, feasible)
	}
}

// TestPoolsDeterministic: the same input gives the same plan, with or
// without a caller's session.
func TestPoolsDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	bufs := scheduleBuffers(r, 80)
	access := make([]int64, len(bufs))
	for i := range access {
		access[i] = int64(bufs[i].Size * (1 + r.IntN(4)))
	}
	whole, _ := Make(bufs, Options{})
	pools := []Pool{{"sram", whole.LowerBound / 2, 2}, {"dtcm", whole.LowerBound / 5, 1}, {"psram", whole.Size * 2, 12}}
	a, err := MakePools(bufs, access, pools, Options{Effort: 100000})
	if err != nil {
		t.Fatal(err)
	}
	checkPoolPlan(t, "a", bufs, access, pools, a)
	b, err := MakePools(bufs, access, pools, Options{Effort: 100000})
	if err != nil {
		t.Fatal(err)
	}
	c, err := MakePools(bufs, access, pools, Options{Effort: 100000, Session: NewSession(100000)})
	if err != nil {
		t.Fatal(err)
	}
	checkPoolPlan(t, "c", bufs, access, pools, c)
	if !slices.Equal(a.Pool, b.Pool) || !slices.Equal(a.Offsets, b.Offsets) || a.Cost != b.Cost || a.Bound != b.Bound {
		t.Error("two runs differ")
	}
	if !slices.Equal(a.Pool, c.Pool) || a.Cost != c.Cost {
		t.Error("a caller's session changes the assignment")
	}
}

// TestPoolShortError: the message names the pool and the numbers, and a
// buffer larger than every pool is reported against the last resort.
func TestPoolShortError(t *testing.T) {
	e := &PoolShortError{Pool: "sram", Step: 7, Need: 270000, Size: 262144, Short: 7856}
	if got, want := e.Error(), `pool "sram" (262144 bytes) is 7856 bytes short at step 7: the buffers left for it need 270000 bytes there`; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	bufs := []Buffer{
		{Name: "small", Size: 1000, First: 0, Last: 1},
		{Name: "huge", Size: 300000, First: 1, Last: 2},
		{Name: "tail", Size: 5000, First: 2, Last: 3},
	}
	pools := []Pool{{"sram", 262144, 2}, {"dtcm", 65536, 1}}
	_, err := MakePools(bufs, []int64{100, 10, 100}, pools, Options{})
	var short *PoolShortError
	if !errors.As(err, &short) {
		t.Fatalf("error %v, want a PoolShortError", err)
	}
	// sram is the last resort; it holds huge and, at step 1 or 2, small
	// or tail would have gone to dtcm.
	if short.Pool != "sram" || short.Need != 300000 || short.Short != 300000-262144 || short.Step != 1 {
		t.Errorf("%+v", *short)
	}
}

// TestPoolsBadInput: invalid pools, access counts and buffers are refused.
func TestPoolsBadInput(t *testing.T) {
	ok := []Buffer{{Size: 16, First: 0, Last: 1}, {Size: 32, First: 1, Last: 2}}
	two := []int64{1, 2}
	p := []Pool{{"a", 1024, 1}, {"b", 4096, 2}}
	for _, tc := range []struct {
		name   string
		bufs   []Buffer
		access []int64
		pools  []Pool
		want   error
	}{
		{"no pools", ok, two, nil, ErrBadPool},
		{"no name", ok, two, []Pool{{"", 1, 1}}, ErrBadPool},
		{"same name", ok, two, []Pool{{"a", 1, 1}, {"a", 2, 2}}, ErrBadPool},
		{"negative size", ok, two, []Pool{{"a", -1, 1}}, ErrBadPool},
		{"cost 0", ok, two, []Pool{{"a", 1, 0}, {"b", 1, 1}}, ErrBadPool},
		{"access count", ok, []int64{1}, p, ErrBadBuffer},
		{"negative access", ok, []int64{1, -1}, p, ErrBadBuffer},
		{"access overflow", ok, []int64{math.MaxInt64, 1}, p, ErrBadBuffer},
		{"cost overflow", ok, two, []Pool{{"a", 1, 1}, {"b", 1, math.MaxInt64 / 2}}, ErrBadBuffer},
		{"bad lifetime", []Buffer{{Size: 1, First: 2, Last: 1}, {}}, two, p, ErrBadBuffer},
		{"tie cycle", []Buffer{{Size: 16, Tie: &Tie{To: 1}}, {Size: 16, Tie: &Tie{To: 0}}}, two, p, ErrBadBuffer},
		{"tie out of range", []Buffer{{Size: 16, Tie: &Tie{To: 5}}, {Size: 16}}, two, p, ErrBadBuffer},
	} {
		_, err := MakePools(tc.bufs, tc.access, tc.pools, Options{})
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
	}
}

// TestPoolsEdgeCases: empty and degenerate inputs plan or fail cleanly.
func TestPoolsEdgeCases(t *testing.T) {
	zero := []Buffer{{Size: 0, First: 0, Last: 3}, {Size: 0, First: 1, Last: 1}}
	two := []Pool{{"slow", 0, 5}, {"fast", 0, 1}}
	for _, tc := range []struct {
		name   string
		bufs   []Buffer
		access []int64
		pools  []Pool
		short  bool
	}{
		{"no buffers", nil, nil, two, false},
		{"sizes 0 in pools of 0 bytes", zero, []int64{5, 7}, two, false},
		{"chain of sizes 0 at a distance", []Buffer{{Size: 0, First: 0, Last: 1}, {Size: 0, First: 1, Last: 2, Tie: &Tie{To: 0, Shift: 32}}},
			[]int64{1, 1}, []Pool{{"fast", 0, 1}, {"slow", 32, 2}}, false},
		{"too big for every pool", []Buffer{{Size: 100, First: 0, Last: 0}}, []int64{1}, two, true},
		{"equal costs", randomBuffers(rand.New(rand.NewPCG(1, 1)), 20, 5), make([]int64, 20),
			[]Pool{{"a", 400, 2}, {"b", 400, 2}, {"c", 4000, 2}}, false},
		{"fast pool empty", randomBuffers(rand.New(rand.NewPCG(2, 1)), 20, 5), make([]int64, 20),
			[]Pool{{"fast", 0, 1}, {"slow", 1 << 20, 9}}, false},
	} {
		pp, err := MakePools(tc.bufs, tc.access, tc.pools, Options{})
		var short *PoolShortError
		switch {
		case tc.short && errors.As(err, &short):
		case tc.short || err != nil:
			t.Errorf("%s: error %v", tc.name, err)
		default:
			checkPoolPlan(t, tc.name, tc.bufs, tc.access, tc.pools, pp)
		}
	}
	// Random problems of up to 40 buffers over 1 to 4 pools, either
	// strategy: a plan that keeps every promise, or a PoolShortError.
	r := rand.New(rand.NewPCG(21, 22))
	for trial := 0; trial < 300; trial++ {
		bufs := randomBuffers(r, r.IntN(40), 1+r.IntN(10))
		for i := range bufs {
			j := r.IntN(len(bufs))
			if r.IntN(5) == 0 && j != i && !tiedTo(bufs, j) && !reaches(bufs, j, i) {
				bufs[i].Tie = &Tie{To: j, Shift: 16 * (r.IntN(9) - 4)}
			}
		}
		access := make([]int64, len(bufs))
		for i := range access {
			access[i] = int64(r.IntN(100))
		}
		pools := make([]Pool, 1+r.IntN(4))
		for k := range pools {
			pools[k] = Pool{Name: fmt.Sprint("p", k), Size: r.IntN(1500), Cost: 1 + int64(r.IntN(3))}
		}
		opt := Options{Strategy: Strategy(r.IntN(2)), Effort: 20000}
		pp, err := MakePools(bufs, access, pools, opt)
		var short *PoolShortError
		switch {
		case errors.Is(err, ErrBadBuffer): // a chain whose distances clash
		case errors.As(err, &short):
			if short.Short <= 0 || short.Need-short.Size != short.Short {
				t.Fatalf("trial %d: %+v", trial, *short)
			}
		case err != nil:
			t.Fatalf("trial %d: %v", trial, err)
		default:
			checkPoolPlan(t, fmt.Sprint("trial ", trial), bufs, access, pools, pp)
		}
	}
}

// randomPoolsLarge is a schedule of ops operators with access counts and
// three pools: a fast one of a tenth of the lower bound, a middle one of
// a third, and a slow one large enough for all.
func randomPoolsLarge(r *rand.Rand, ops int) ([]Buffer, []int64, []Pool) {
	bufs := scheduleBuffers(r, ops)
	access := make([]int64, len(bufs))
	for i, b := range bufs {
		access[i] = int64(b.Size) * int64(1+r.IntN(8))
	}
	whole, _ := Make(bufs, Options{Strategy: Greedy})
	return bufs, access, []Pool{
		{"sram", whole.LowerBound / 3, 2},
		{"dtcm", whole.LowerBound / 10, 1},
		{"psram", whole.Size, 12},
	}
}

// TestPoolsTiming plans random schedules of about 100 buffers (and two of
// about 400 and 700) over three pools and logs the time each takes.
func TestPoolsTiming(t *testing.T) {
	for seed := uint64(0); seed < 10; seed++ {
		ops := 85
		if seed >= 8 {
			ops = 300 * int(seed-7)
		}
		bufs, access, pools := randomPoolsLarge(rand.New(rand.NewPCG(seed, 3)), ops)
		start := time.Now()
		pp, err := MakePools(bufs, access, pools, Options{})
		took := time.Since(start)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		checkPoolPlan(t, fmt.Sprint("seed ", seed), bufs, access, pools, pp)
		t.Logf("seed %d: %d buffers in %v: cost %d, bound %d (fast %d, slow %d); pools %d/%d/%d buffers",
			seed, len(bufs), took, pp.Cost, pp.Bound, pp.FastCost, pp.SlowCost, len(pp.Members[0]), len(pp.Members[1]), len(pp.Members[2]))
	}
}

// BenchmarkMakePools plans a random schedule of about 100 buffers over
// three pools.
func BenchmarkMakePools(b *testing.B) {
	bufs, access, pools := randomPoolsLarge(rand.New(rand.NewPCG(1, 3)), 85)
	for b.Loop() {
		if _, err := MakePools(bufs, access, pools, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSplitBoundBruteForce checks SplitBound against every assignment of
// small random problems in which a tie may be kept (both buffers in one
// pool, at their distance) or dropped (the buffers apart): the cheapest
// assignment whose every pool's plan (Make, ties kept where chosen) fits
// costs at least the bound.
func TestSplitBoundBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	checked := 0
	for trial := 0; trial < 400; trial++ {
		bufs, access, pools, ok := randomPoolProblem(r)
		if !ok || len(bufs) > 6 {
			continue
		}
		bound, err := SplitBound(bufs, access, pools, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var ties []int
		for i, b := range bufs {
			if b.Tie != nil {
				ties = append(ties, i)
			}
		}
		best, found := int64(0), false
		assign := make([]int, len(bufs))
		var rec func(i int)
		rec = func(i int) {
			if i < len(bufs) {
				for k := range pools {
					assign[i] = k
					rec(i + 1)
				}
				return
			}
			var cost int64
			for j := range bufs {
				cost += access[j] * pools[assign[j]].Cost
			}
			if found && cost >= best {
				return
			}
			for mask := 0; mask < 1<<len(ties); mask++ {
				fits := true
				for k := range pools {
					var sub []Buffer
					at := map[int]int{}
					for j := range bufs {
						if assign[j] == k {
							at[j] = len(sub)
							sub = append(sub, bufs[j])
							sub[len(sub)-1].Tie = nil
						}
					}
					for ti, j := range ties {
						if to, ok := at[bufs[j].Tie.To]; ok && assign[j] == k && mask&(1<<ti) != 0 {
							sub[at[j]].Tie = &Tie{To: to, Shift: bufs[j].Tie.Shift}
						}
					}
					p, err := Make(sub, Options{})
					if err != nil || p.Size > pools[k].Size {
						fits = false
						break
					}
				}
				if fits {
					best, found = cost, true
					return
				}
			}
		}
		rec(0)
		if found {
			checked++
			if bound > best {
				t.Fatalf("trial %d: SplitBound %d above the optimum %d\nbufs %+v\naccess %v\npools %+v", trial, bound, best, bufs, access, pools)
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d feasible problems checked", checked)
	}
	t.Logf("%d feasible problems: SplitBound at most the optimum in each", checked)
}
