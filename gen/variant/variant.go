// Package variant chooses, per operator, between a kernel's fast variant
// and its lean one (the variant with the least scratch memory).
//
// RAM is what a microcontroller lacks: by default speed is only bought with
// memory that is free anyway. The choice is a pure function of the scratch
// each variant needs and of the plans of candidate selections; it knows
// nothing of how programs are lowered or planned.
package variant

import "slices"

// Plan is the outcome of planning one selection: the arena size and the
// operator at the plan's peak.
type Plan struct {
	Size, PeakStep int
}

// Planner plans the program that takes, for every operator i, the lean
// variant when lean[i] is set and the fast one otherwise. It may keep lean:
// Choose passes a fresh slice on every call.
type Planner func(lean []bool) (Plan, error)

// maxWork bounds Choose's work: operators times plans made. The models of
// ../shared stay far below (person_detect: 31 operators, 4 steps); a chain of
// 2,000 operators gets 8.
const maxWork = 1 << 14

// Choose returns the selection to emit. fastScratch and leanScratch give,
// per operator, the bytes of scratch each variant needs, rounded as the
// planner places them. Starting from every fast variant, operators whose
// fast variant needs more scratch switch to their lean variant, the one at
// the plan's peak first, else the one with the most extra scratch (the
// lowest index on ties), until the arena is no larger than with every
// lean variant; if it stays larger, every operator is lean. The returned
// plan is the plan of the returned selection.
func Choose(fastScratch, leanScratch []int, plan Planner) ([]bool, Plan, error) {
	return ChooseWithin(fastScratch, leanScratch, 0, plan)
}

// ChooseWithin is Choose where an arena of budget bytes is there anyway
// (another model's, in a package of several models sharing one arena):
// operators switch to their lean variant only until the arena is no
// larger than budget or than with every lean variant, whichever is
// larger.
func ChooseWithin(fastScratch, leanScratch []int, budget int, plan Planner) ([]bool, Plan, error) {
	n := len(fastScratch)
	lean := make([]bool, n)
	cur, err := plan(slices.Clone(lean))
	if err != nil {
		return nil, Plan{}, err
	}
	allLean := make([]bool, n)
	for i := range allLean {
		allLean[i] = true
	}
	base, err := plan(allLean)
	if err != nil {
		return nil, Plan{}, err
	}
	extra := make([]int, n)
	left := 0
	for i := range extra {
		if d := fastScratch[i] - leanScratch[i]; d > 0 {
			extra[i] = d
			left++
		}
	}
	// Each step plans the whole program: on programs of thousands of
	// operators the steps are bounded (maxWork operators planned in all),
	// and a choice the bound cuts short ends with every operator lean.
	steps := max(1, maxWork/max(n, 1))
	goal := max(base.Size, budget)
	for cur.Size > goal && left > 0 && steps > 0 {
		steps--
		pick := -1
		if p := cur.PeakStep; p >= 0 && p < n && extra[p] > 0 {
			pick = p
		} else {
			for i, d := range extra {
				if d > 0 && (pick < 0 || d > extra[pick]) {
					pick = i
				}
			}
		}
		extra[pick] = 0
		left--
		lean[pick] = true
		if cur, err = plan(slices.Clone(lean)); err != nil {
			return nil, Plan{}, err
		}
	}
	if cur.Size > goal {
		return allLean, base, nil
	}
	return lean, cur, nil
}
