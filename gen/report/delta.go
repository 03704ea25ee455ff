package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// maxDeltaOps bounds the operators Delta lists one by one.
const maxDeltaOps = 20

// Delta writes what changed between two reports of a package, for a CI log
// (tflm-gen -check): the model's SHA-256, ArenaSize, the bound and
// certificate, stack, RAM, constants and MACs, each with its change, the
// unchanged ones on one line; then the operators that changed, one line
// each (compared by index: kernels, MACs, constants, bytes live, scratch,
// state, fused group, overlap, in place, outputs' buffers and offsets), at
// most maxDeltaOps of them. Every line starts with indent.
func Delta(w io.Writer, old, cur *Report, indent string) error {
	var lines, same []string
	num := func(name string, a, b int64) {
		if a == b {
			same = append(same, fmt.Sprintf("%s %d", name, b))
			return
		}
		lines = append(lines, fmt.Sprintf("%-12s %d -> %d (%+d)", name, a, b, b-a))
	}
	text := func(name, a, b string) {
		if a == b {
			same = append(same, fmt.Sprintf("%s %s", name, b))
			return
		}
		lines = append(lines, fmt.Sprintf("%-12s %s -> %s", name, a, b))
	}
	if old.SHA256 != cur.SHA256 || old.Model != cur.Model {
		lines = append(lines, fmt.Sprintf("%-12s %s (sha256 %.12s...) -> %s (sha256 %.12s...)", "model", old.Model, old.SHA256, cur.Model, cur.SHA256))
	} else {
		same = append(same, "model")
	}
	num("ArenaSize", int64(old.ArenaSize), int64(cur.ArenaSize))
	num("lower bound", int64(old.LowerBound), int64(cur.LowerBound))
	text("plan", old.Certificate, cur.Certificate)
	num("stack", int64(stackBytes(old)), int64(stackBytes(cur)))
	num("RAM", int64(old.RAM), int64(cur.RAM))
	num("constants", int64(constTotal(old)), int64(constTotal(cur)))
	num("MACs", old.MACs, cur.MACs)
	num("operators", int64(len(old.Operators)), int64(len(cur.Operators)))
	for _, l := range lines {
		if _, err := fmt.Fprintf(w, "%s%s\n", indent, l); err != nil {
			return err
		}
	}
	if len(same) > 0 {
		if _, err := fmt.Fprintf(w, "%sunchanged: %s\n", indent, strings.Join(same, ", ")); err != nil {
			return err
		}
	}
	n := min(len(old.Operators), len(cur.Operators))
	var ops []string
	for i := range n {
		if d := opDelta(old, cur, i); d != "" {
			ops = append(ops, fmt.Sprintf("%d %s: %s", i, cur.Operators[i].Code, d))
		}
	}
	what := "operators that changed"
	if len(old.Operators) != len(cur.Operators) {
		what += fmt.Sprintf(" (compared by index, the first %d)", n)
	}
	if len(ops) == 0 {
		_, err := fmt.Fprintf(w, "%s%s: none\n", indent, what)
		return err
	}
	if _, err := fmt.Fprintf(w, "%s%s: %d of %d\n", indent, what, len(ops), n); err != nil {
		return err
	}
	for k, l := range ops {
		if k == maxDeltaOps {
			_, err := fmt.Fprintf(w, "%s  and %d more\n", indent, len(ops)-k)
			return err
		}
		if _, err := fmt.Fprintf(w, "%s  %s\n", indent, l); err != nil {
			return err
		}
	}
	return nil
}

func stackBytes(r *Report) int {
	if r.Stack == nil {
		return 0
	}
	return r.Stack.Bytes
}

func constTotal(r *Report) int {
	if r.Constants == nil {
		return 0
	}
	return r.Constants.Total
}

// opDelta says what changed in operator i, "" when nothing did.
func opDelta(old, cur *Report, i int) string {
	a, b := old.Operators[i], cur.Operators[i]
	var ch []string
	if a.Code != b.Code {
		ch = append(ch, fmt.Sprintf("was %s", a.Code))
	}
	if !slices.Equal(a.Kernels, b.Kernels) {
		ch = append(ch, fmt.Sprintf("kernels %s -> %s", kernelList(a.Kernels), kernelList(b.Kernels)))
	}
	num := func(name string, x, y int64) {
		if x != y {
			ch = append(ch, fmt.Sprintf("%s %d -> %d", name, x, y))
		}
	}
	num("MACs", a.MACs, b.MACs)
	num("constants", int64(a.ConstBytes), int64(b.ConstBytes))
	num("live", int64(a.LiveBytes), int64(b.LiveBytes))
	num("scratch", int64(a.ScratchBytes), int64(b.ScratchBytes))
	num("state", int64(a.StateBytes), int64(b.StateBytes))
	if ga, gb := groupSpan(old, a.Group), groupSpan(cur, b.Group); ga != gb {
		ch = append(ch, fmt.Sprintf("fused %s -> %s", ga, gb))
	}
	flag := func(name string, x, y bool) {
		switch {
		case x && !y:
			ch = append(ch, "no longer "+name)
		case !x && y:
			ch = append(ch, name)
		}
	}
	flag("writes over its input", a.WritesOverInput, b.WritesOverInput)
	flag("in place", a.InPlace, b.InPlace)
	if oa, ob := outputsText(a.Outputs), outputsText(b.Outputs); oa != ob {
		ch = append(ch, fmt.Sprintf("output %s -> %s", oa, ob))
	}
	return strings.Join(ch, "; ")
}

func kernelList(ks []string) string {
	if len(ks) == 0 {
		return "(none)"
	}
	return strings.Join(ks, ",")
}

// groupSpan names an operator's fused group by its operators.
func groupSpan(r *Report, g *int) string {
	if g == nil || *g < 0 || *g >= len(r.Groups) {
		return "no"
	}
	return fmt.Sprintf("in %d-%d", r.Groups[*g].First, r.Groups[*g].Last)
}

// outputsText is where an operator's outputs are: "at 0 (1024 bytes)"
// (buffer numbers shift when a buffer is added before, offsets do not).
func outputsText(ts []JSONTensor) string {
	var s []string
	for _, t := range ts {
		s = append(s, fmt.Sprintf("at %d (%d bytes)", t.Offset, t.Bytes))
	}
	return strings.Join(s, ", ")
}
