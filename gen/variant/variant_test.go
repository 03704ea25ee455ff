package variant

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

// fakePlanner is a Planner over a pure function of the selection. It
// records every selection it is asked to plan (copied: Choose keeps
// mutating its slice), so a test can check the order in which operators
// switch and that the returned Plan belongs to the returned selection.
type fakePlanner struct {
	plan    func(lean []bool) Plan
	failAt  int // 1-based call that fails (0: never)
	err     error
	planned [][]bool
}

func (f *fakePlanner) Plan(lean []bool) (Plan, error) {
	f.planned = append(f.planned, append([]bool(nil), lean...))
	if f.failAt == len(f.planned) {
		return Plan{}, f.err
	}
	return f.plan(lean), nil
}

// peakModel is a plan function shaped like a real arena: at operator i the
// live activations take act[i] bytes and the operator's scratch takes
// fast[i] or lean[i]; the arena is the largest step total and the peak is
// the first step reaching it (a planner that meets the lower bound).
func peakModel(act, fast, lean []int) func([]bool) Plan {
	return func(sel []bool) Plan {
		p := Plan{PeakStep: -1}
		for i := range act {
			s := act[i] + fast[i]
			if sel[i] {
				s = act[i] + lean[i]
			}
			if s > p.Size {
				p = Plan{Size: s, PeakStep: i}
			}
		}
		return p
	}
}

// slackModel is a plan function whose arena is base plus the extra scratch
// (fast-lean) of the operators still fast beyond slack bytes (the first
// slack bytes fit in a gap of the plan), with a fixed peak step: it lets a
// test put the peak on an operator that has no extra scratch.
func slackModel(base, slack int, fast, lean []int, peak int) func([]bool) Plan {
	return func(sel []bool) Plan {
		sum := 0
		for i, l := range sel {
			if !l && fast[i] > lean[i] {
				sum += fast[i] - lean[i]
			}
		}
		return Plan{Size: base + max(0, sum-slack), PeakStep: peak}
	}
}

// tableModel plans from an explicit table keyed by the selection ("FT"
// for fast, lean); it can be non-monotone.
func tableModel(t map[string]Plan) func([]bool) Plan {
	return func(sel []bool) Plan {
		p, ok := t[key(sel)]
		if !ok {
			panic("selection not in table: " + key(sel))
		}
		return p
	}
}

func key(sel []bool) string {
	b := make([]byte, len(sel))
	for i, l := range sel {
		b[i] = 'F'
		if l {
			b[i] = 'L'
		}
	}
	return string(b)
}

func TestChoose(t *testing.T) {
	tests := []struct {
		budget      int
		name        string
		fast, lean  []int
		plan        func([]bool) Plan
		wantSel     string
		wantPlan    Plan
		wantPlanned []string // every selection planned, in order
	}{
		{
			// No operator's fast variant needs more scratch than its lean
			// one (op 1 needs less: d < 0 is not extra). Step totals are
			// 110, 54, 90 all fast and 110, 58, 90 all lean: both 110 at
			// op 0, so nothing switches: the loop never runs, two plans
			// only.
			name:        "no extra scratch",
			fast:        []int{10, 4, 0},
			lean:        []int{10, 8, 0},
			plan:        peakModel([]int{100, 50, 90}, []int{10, 4, 0}, []int{10, 8, 0}),
			wantSel:     "FFF",
			wantPlan:    Plan{Size: 110, PeakStep: 0},
			wantPlanned: []string{"FFF", "LLL"},
		},
		{
			// Op 1's fast variant needs 48 extra bytes but its step total
			// (20+48=68) stays under the peak of op 0 (100+10): the memory
			// is free, so the fast variant stays.
			name:        "extra scratch that is free",
			fast:        []int{10, 48, 0},
			lean:        []int{10, 0, 0},
			plan:        peakModel([]int{100, 20, 30}, []int{10, 48, 0}, []int{10, 0, 0}),
			wantSel:     "FFF",
			wantPlan:    Plan{Size: 110, PeakStep: 0},
			wantPlanned: []string{"FFF", "LLL"},
		},
		{
			// act 40, 20, 60, 30; extra 0, 40, 32, 0. All fast: step totals
			// 56, 60, 108, 62 -> 108 at op 2; all lean: 56, 20, 76, 62 ->
			// 76. The peak operator (2) switches first although op 1 has
			// more extra scratch; then 56, 60, 76, 62 -> 76 = all-lean, so
			// op 1 keeps its fast variant (its 40 bytes are free).
			name:        "peak operator first, then stop",
			fast:        []int{16, 40, 48, 32},
			lean:        []int{16, 0, 16, 32},
			plan:        peakModel([]int{40, 20, 60, 30}, []int{16, 40, 48, 32}, []int{16, 0, 16, 32}),
			wantSel:     "FFLF",
			wantPlan:    Plan{Size: 76, PeakStep: 2},
			wantPlanned: []string{"FFFF", "LLLL", "FFLF"},
		},
		{
			// As above with op 1 at act 40: after op 2 switches the totals
			// are 56, 104, 76, 62 -> 104 at op 1, now the peak: it switches
			// too, reaching 76 (with the peak back at op 2).
			name:        "peak moves to the next operator",
			fast:        []int{16, 64, 48, 32},
			lean:        []int{16, 0, 16, 32},
			plan:        peakModel([]int{40, 40, 60, 30}, []int{16, 64, 48, 32}, []int{16, 0, 16, 32}),
			wantSel:     "FLLF",
			wantPlan:    Plan{Size: 76, PeakStep: 2},
			wantPlanned: []string{"FFFF", "LLLL", "FFLF", "FLLF"},
		},
		{
			// Extra scratch 10, 30, 0, 30, 20 (op 2: fast = lean = 8); the
			// peak is op 2, which has none, so the largest extra switches
			// first, the lowest index on the tie: op 1, then op 3. Sizes:
			// all fast 100+90-50 = 140, all lean 100; after op 1:
			// 100+60-50 = 110; after op 3: 100+max(0, 30-50) = 100 = all
			// lean: stop, ops 0 and 4 keep their fast variant.
			name:        "largest extra first, lowest index on ties",
			fast:        []int{26, 30, 8, 46, 20},
			lean:        []int{16, 0, 8, 16, 0},
			plan:        slackModel(100, 50, []int{26, 30, 8, 46, 20}, []int{16, 0, 8, 16, 0}, 2),
			wantSel:     "FLFLF",
			wantPlan:    Plan{Size: 100, PeakStep: 2},
			wantPlanned: []string{"FFFFF", "LLLLL", "FLFFF", "FLFLF"},
		},
		{
			// A peak step outside the operators (-1) also falls back to
			// the largest extra: 3 (30), then 1 (20) and 4 (20) tied,
			// lowest index first. Sizes with slack 25: 100+80-25 = 155,
			// after op 3: 125, after op 1: 105, after op 4: 100 = all lean;
			// op 0 keeps its fast variant.
			name:        "peak step out of range",
			fast:        []int{10, 20, 0, 30, 20},
			lean:        []int{0, 0, 0, 0, 0},
			plan:        slackModel(100, 25, []int{10, 20, 0, 30, 20}, []int{0, 0, 0, 0, 0}, -1),
			wantSel:     "FLFLL",
			wantPlan:    Plan{Size: 100, PeakStep: -1},
			wantPlanned: []string{"FFFFF", "LLLLL", "FFFLF", "FLFLF", "FLFLL"},
		},
		{
			// The peak (op 1) switches first even where its extra (20) is
			// not the largest (op 3: 30); once switched it has no extra
			// left, so the largest rule takes over: op 3, then op 4 (20)
			// before op 0 (10). Slack 25: 155 -> 135 -> 105 -> 100 = all
			// lean; op 0 stays fast.
			name:        "peak operator already lean",
			fast:        []int{10, 20, 0, 30, 20},
			lean:        []int{0, 0, 0, 0, 0},
			plan:        slackModel(100, 25, []int{10, 20, 0, 30, 20}, []int{0, 0, 0, 0, 0}, 1),
			wantSel:     "FLFLL",
			wantPlan:    Plan{Size: 100, PeakStep: 1},
			wantPlanned: []string{"FFFFF", "LLLLL", "FLFFF", "FLFLF", "FLFLL"},
		},
		{
			// Non-monotone planning: op 0's fast variant needs less scratch
			// (8 < 24, so it is never a candidate) yet the plan with op 0
			// fast and op 1 lean (120) is larger than all lean (100), as a
			// heuristic planner may do. Switching op 1, the only candidate,
			// leaves the arena larger than all lean, so Choose returns all
			// lean and the all-lean plan, planned before the loop.
			name: "fallback to all lean",
			fast: []int{8, 64},
			lean: []int{24, 0},
			plan: tableModel(map[string]Plan{
				"FF": {Size: 200, PeakStep: 1},
				"LL": {Size: 100, PeakStep: 0},
				"FL": {Size: 120, PeakStep: 0},
			}),
			wantSel:     "LL",
			wantPlan:    Plan{Size: 100, PeakStep: 0},
			wantPlanned: []string{"FF", "LL", "FL"},
		},
		{
			// A budget above the all-fast plan (another model's arena):
			// every operator stays fast.
			name: "budget above the fast plan",
			fast: []int{8, 64},
			lean: []int{8, 0},
			plan: tableModel(map[string]Plan{
				"FF": {Size: 200, PeakStep: 1},
				"FL": {Size: 136, PeakStep: 0},
				"LL": {Size: 136, PeakStep: 0},
			}),
			budget:      256,
			wantSel:     "FF",
			wantPlan:    Plan{Size: 200, PeakStep: 1},
			wantPlanned: []string{"FF", "LL"},
		},
		{
			// A budget between the lean and the fast plans: operators
			// switch until the arena fits in it, no further.
			name: "budget between the plans",
			fast: []int{40, 64},
			lean: []int{0, 0},
			plan: tableModel(map[string]Plan{
				"FF": {Size: 200, PeakStep: 1},
				"FL": {Size: 150, PeakStep: 0},
				"LL": {Size: 100, PeakStep: 0},
			}),
			budget:      160,
			wantSel:     "FL",
			wantPlan:    Plan{Size: 150, PeakStep: 0},
			wantPlanned: []string{"FF", "LL", "FL"},
		},
		{
			// No operators: both plans are of the empty selection.
			name:        "empty program",
			plan:        func([]bool) Plan { return Plan{Size: 0, PeakStep: 0} },
			wantSel:     "",
			wantPlan:    Plan{},
			wantPlanned: []string{"", ""},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakePlanner{plan: tc.plan}
			sel, got, err := ChooseWithin(tc.fast, tc.lean, tc.budget, f.Plan)
			if err != nil {
				t.Fatal(err)
			}
			if key(sel) != tc.wantSel || len(sel) != len(tc.fast) {
				t.Errorf("selection %q (len %d), want %q", key(sel), len(sel), tc.wantSel)
			}
			if got != tc.wantPlan {
				t.Errorf("plan %+v, want %+v", got, tc.wantPlan)
			}
			keys := []string{}
			for _, s := range f.planned {
				if len(s) != len(tc.fast) {
					t.Errorf("planned a selection of %d operators, want %d", len(s), len(tc.fast))
				}
				keys = append(keys, key(s))
			}
			if !reflect.DeepEqual(keys, tc.wantPlanned) {
				t.Errorf("planned %q, want %q", keys, tc.wantPlanned)
			}
			// The returned plan is the plan of the returned selection
			// (the plan functions are pure, so planning it again must
			// agree), and that selection was one of those planned.
			if again := tc.plan(sel); again != got {
				t.Errorf("returned plan %+v, but selection %q plans as %+v", got, key(sel), again)
			}
			found := false
			for _, s := range f.planned {
				found = found || key(s) == key(sel)
			}
			if !found {
				t.Errorf("returned selection %q was never planned", key(sel))
			}
		})
	}
}

// TestChooseErrors fails each planner call in turn: the first (all fast),
// the second (all lean) and one in the switching loop; Choose must return
// the planner's error (unwrapped or wrapped) and no selection.
func TestChooseErrors(t *testing.T) {
	errPlan := errors.New("planner failed")
	fast, lean := []int{0, 32}, []int{0, 0}
	// With op 1 fast the arena is 132, all lean 100: the loop plans a
	// third selection ("FL"), so calls 1, 2 and 3 are all reached.
	plan := peakModel([]int{50, 100}, fast, lean)
	for call := 1; call <= 3; call++ {
		t.Run(fmt.Sprint("call ", call), func(t *testing.T) {
			f := &fakePlanner{plan: plan, failAt: call, err: errPlan}
			sel, p, err := Choose(fast, lean, f.Plan)
			if !errors.Is(err, errPlan) {
				t.Fatalf("error %v, want %v", err, errPlan)
			}
			if sel != nil || p != (Plan{}) {
				t.Errorf("on error got selection %v and plan %+v, want nil and zero", sel, p)
			}
			if len(f.planned) != call {
				t.Errorf("planner called %d times, want %d (Choose must stop at the error)", len(f.planned), call)
			}
		})
	}
	// Without a failure the same inputs need exactly those three calls,
	// so the cases above are not vacuous.
	f := &fakePlanner{plan: plan}
	sel, p, err := Choose(fast, lean, f.Plan)
	if err != nil || key(sel) != "FL" || p != (Plan{Size: 100, PeakStep: 1}) || len(f.planned) != 3 {
		t.Errorf("Choose = %q, %+v, %v after %d calls; want \"FL\", {100 1}, nil after 3", key(sel), p, err, len(f.planned))
	}
}
