package schedule

import (
	"slices"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/lower"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/planner"
)

// TestHeaviestCandidates: past maxOverlapWork, chooseOverlaps tries the
// candidates at the steps with the most bytes live, in program order.
func TestHeaviestCandidates(t *testing.T) {
	// Operators 0-5; buffer sizes make the live bytes per step
	// 10, 10, 50, 30, 50, 10.
	p := &program.Program{}
	for i := range 6 {
		p.Ops = append(p.Ops, program.Op{Index: i})
	}
	for _, b := range []planner.Buffer{{Size: 10, First: 0, Last: 5}, {Size: 40, First: 2, Last: 2}, {Size: 20, First: 3, Last: 4}, {Size: 20, First: 4, Last: 4}} {
		p.Buffers = append(p.Buffers, program.Buffer{Buffer: b})
	}
	g := &model.Graph{}
	for i := range 6 {
		g.Ops = append(g.Ops, &model.Op{Index: i})
	}
	cands := lower.Bare(g)
	for _, tc := range []struct {
		keep int
		want []int
	}{
		{0, []int{2}}, // at least one
		{1, []int{2}},
		{2, []int{2, 4}},
		{3, []int{2, 3, 4}},
		{4, []int{0, 2, 3, 4}}, // ties: program order
		{9, []int{0, 1, 2, 3, 4, 5}},
	} {
		var got []int
		for _, c := range heaviest(p, cands, tc.keep) {
			got = append(got, c.Op())
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("keep %d: operators %v, want %v", tc.keep, got, tc.want)
		}
	}
}
