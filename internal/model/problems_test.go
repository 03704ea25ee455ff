package model

import (
	"fmt"
	"strings"
	"testing"
)

// TestSummarize: operators with the same problem are one entry, whatever
// their tensors; the message is capped at maxShownProblems entries.
func TestSummarize(t *testing.T) {
	npu := func(i int) string {
		return fmt.Sprintf(`operator %d (CUSTOM "ethos-u"): no kernel for this custom operator; NPU and EdgeTPU operators need their vendor's runtime (inputs const uint8[%d], int8[1 4]; outputs int8[1 4])`, i, 100+i)
	}
	var many []string
	for i := range 73 {
		many = append(many, npu(2*i))
	}
	var distinct []string
	for i := range 12 {
		distinct = append(distinct, fmt.Sprintf("tensor %d \"t\": element type complex64 is not supported", i))
	}
	for _, tc := range []struct {
		name     string
		problems []string
		want     string
	}{
		{"one", []string{npu(3)}, npu(3)},
		{"two different", []string{"tensor 0 \"x\": bad", "operator 1 (ABS): worse"}, "tensor 0 \"x\": bad; operator 1 (ABS): worse"},
		{"same problem, different signatures", []string{npu(0), npu(5), "operator 6 (ABS): type complex64 not supported (float32, int8, int16)", npu(9)},
			`3 operators 0, 5, 9 (CUSTOM "ethos-u"): no kernel for this custom operator; NPU and EdgeTPU operators need their vendor's runtime; operator 6 (ABS): type complex64 not supported (float32, int8, int16)`},
		{"73 NPU operators", many,
			`73 operators 0, 2, 4, 6, 8, 10 and 67 more (CUSTOM "ethos-u"): no kernel for this custom operator; NPU and EdgeTPU operators need their vendor's runtime`},
		{"different custom names stay apart", []string{npu(0), strings.Replace(npu(1), "ethos-u", "edgetpu", 1)}, npu(0) + "; " + strings.Replace(npu(1), "ethos-u", "edgetpu", 1)},
		{"subgraphs stay apart", []string{"subgraph 1: operator 0 (ABS): bad", "subgraph 2: operator 0 (ABS): bad", "subgraph 1: operator 3 (ABS): bad"},
			"subgraph 1: 2 operators 0, 3 (ABS): bad; subgraph 2: operator 0 (ABS): bad"},
		{"capped", distinct, strings.Join(distinct[:8], "; ") + "; and 4 more"},
		{"quotes and parentheses in a custom name", []string{`operator 0 (CUSTOM "a(b\")"): x`, `operator 1 (CUSTOM "a(b\")"): x`}, `2 operators 0, 1 (CUSTOM "a(b\")"): x`},
	} {
		if got := summarize(tc.problems); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}
