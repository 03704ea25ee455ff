package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestDelta: changed totals one a line with their change, the unchanged
// ones on one line, and one line per operator that changed.
func TestDelta(t *testing.T) {
	base := func() *Report {
		g := 0
		return &Report{Model: "m.tflite", SHA256: "aaaaaaaaaaaaaaaa", ArenaSize: 1120, LowerBound: 1120, Certificate: "optimal (= lower bound)",
			Stack: &JSONStack{Bytes: 600}, RAM: 1720, Constants: &JSONConstants{Total: 1000}, MACs: 500,
			Groups: []JSONGroup{{First: 0, Last: 1}},
			Operators: []JSONOperator{
				{Index: 0, Code: "CONV_2D", Kernels: []string{"convA"}, LiveBytes: 800, Group: &g, Outputs: []JSONTensor{{Offset: 0, Bytes: 512}}},
				{Index: 1, Code: "DEPTHWISE_CONV_2D", Kernels: []string{"dwB"}, LiveBytes: 900, Group: &g},
				{Index: 2, Code: "SOFTMAX", Kernels: []string{"softmax"}, ScratchBytes: 16},
			}}
	}
	for _, tc := range []struct {
		name   string
		change func(r *Report)
		want   string
	}{
		{"nothing", func(*Report) {},
			"  unchanged: model, ArenaSize 1120, lower bound 1120, plan optimal (= lower bound), stack 600, RAM 1720, constants 1000, MACs 500, operators 3\n" +
				"  operators that changed: none\n"},
		{"weights", func(r *Report) { r.SHA256 = "bbbbbbbbbbbbbbbbbbb" },
			"  model        m.tflite (sha256 aaaaaaaaaaaa...) -> m.tflite (sha256 bbbbbbbbbbbb...)\n" +
				"  unchanged: ArenaSize 1120, lower bound 1120, plan optimal (= lower bound), stack 600, RAM 1720, constants 1000, MACs 500, operators 3\n" +
				"  operators that changed: none\n"},
		{"plan", func(r *Report) {
			r.ArenaSize, r.RAM, r.Certificate = 1136, 1736, "best found, gap 16 bytes"
			r.Groups = nil
			r.Operators[0].Group, r.Operators[1].Group = nil, nil
			r.Operators[0].Kernels = []string{"convA", "copyBytes"}
			r.Operators[0].Outputs[0].Offset = 16
			r.Operators[2].ScratchBytes, r.Operators[2].WritesOverInput = 0, true
		},
			"  ArenaSize    1120 -> 1136 (+16)\n" +
				"  plan         optimal (= lower bound) -> best found, gap 16 bytes\n" +
				"  RAM          1720 -> 1736 (+16)\n" +
				"  unchanged: model, lower bound 1120, stack 600, constants 1000, MACs 500, operators 3\n" +
				"  operators that changed: 3 of 3\n" +
				"    0 CONV_2D: kernels convA -> convA,copyBytes; fused in 0-1 -> no; output at 0 (512 bytes) -> at 16 (512 bytes)\n" +
				"    1 DEPTHWISE_CONV_2D: fused in 0-1 -> no\n" +
				"    2 SOFTMAX: scratch 16 -> 0; writes over its input\n"},
		{"an operator more", func(r *Report) {
			r.Operators = append(r.Operators, JSONOperator{Index: 3, Code: "ADD"})
			r.Operators[1].Code = "ADD"
		},
			"  operators    3 -> 4 (+1)\n" +
				"  unchanged: model, ArenaSize 1120, lower bound 1120, plan optimal (= lower bound), stack 600, RAM 1720, constants 1000, MACs 500\n" +
				"  operators that changed (compared by index, the first 3): 1 of 3\n" +
				"    1 ADD: was DEPTHWISE_CONV_2D\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cur := base()
			tc.change(cur)
			var b bytes.Buffer
			if err := Delta(&b, base(), cur, "  "); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tc.want)
			}
		})
	}
	// Many operators changed: maxDeltaOps lines, then a count.
	old, cur := &Report{}, &Report{}
	for i := range 30 {
		old.Operators = append(old.Operators, JSONOperator{Index: i, Code: "ABS", MACs: 1})
		cur.Operators = append(cur.Operators, JSONOperator{Index: i, Code: "ABS", MACs: 2})
	}
	var b bytes.Buffer
	if err := Delta(&b, old, cur, ""); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); strings.Count(s, ": MACs 1 -> 2\n") != maxDeltaOps || !strings.HasSuffix(s, fmt.Sprintf("  and %d more\n", 30-maxDeltaOps)) {
		t.Errorf("30 changed operators:\n%s", s)
	}
}
