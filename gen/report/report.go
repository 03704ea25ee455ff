// Package report renders the memory plan of a lowered program for people:
// the layout.txt table and timeline chart of every generated package (and
// of the plan command), and an SVG of the arena.
package report

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/planner"
	"github.com/tflm-gen/tflm-gen/templates"
)

// layoutReport is the data of templates/layout.txt.tmpl.
type layoutReport struct {
	Model, SHA256            string
	Arena, LowerBound        int
	Cert, Method             string
	Steps                    int64
	BudgetOut                bool // the search stopped before proving the plan optimal
	Act, Scratch, Persistent int
	PeakOp                   int
	PeakName                 string
	Align                    int
	Saved, Plain             int
	InPlace                  []string
	Overlaps                 []string
	Groups                   []string // lines describing the fused groups
	NumGroups                int
	MACs                     int64
	Table, Chart             string
	Const                    *ConstBytes // nil when no code was emitted
	Stack                    *Stack      // nil when no code was emitted
	StackOpName              string
	RAM                      int
}

// Stack bounds the stack a call of the generated Invoke (or Reset) takes on
// the board (TinyGo for the Cortex-M4, -opt=z): Bytes below the caller's
// stack pointer, deepest in operator Op (the first of its fused group).
// Unmeasured lists the kernels called for which no measurement exists
// (each then counted as the deepest measured kernel).
type Stack struct {
	Bytes, Op  int
	Unmeasured []string
}

// ConstBytes is the read-only data of a generated package, in bytes: the
// model's constant tensors used as stored, and the constants the lowering
// made (re-laid-out weights, folded biases, requantization tables); Model
// is the size of all the model's constant tensors, for comparison.
type ConstBytes struct {
	Stored, Derived, Model int
}

// Total is the package's read-only data: Stored plus Derived.
func (c *ConstBytes) Total() int { return c.Stored + c.Derived }

// Order returns buffer indices sorted by first use, kind and name: a stable
// order in which an unrelated change to the model moves few lines.
func Order(pr *program.Program) []int {
	idx := make([]int, len(pr.Buffers))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := pr.Buffers[idx[a]], pr.Buffers[idx[b]]
		if x.First != y.First {
			return x.First < y.First
		}
		if x.Kind != y.Kind {
			return x.Kind < y.Kind
		}
		return x.Name < y.Name
	})
	return idx
}

// Text renders layout.txt for program pr planned as l; consts and stack,
// when not nil, add the package's read-only data and stack.
func Text(pr *program.Program, l *layout.Layout, consts *ConstBytes, stack *Stack) ([]byte, error) {
	p := l.Plan
	g := pr.Graph
	r := layoutReport{Const: consts, Stack: stack,
		Model: g.Name, SHA256: g.SHA256, Arena: p.Size, LowerBound: p.LowerBound,
		Cert: p.CertText(), Method: p.Method, Steps: p.Steps, BudgetOut: p.Cert == planner.BestFound,
		Act: pr.Bytes(planner.Activation), Scratch: pr.Bytes(planner.Scratch), Persistent: pr.Bytes(planner.Persistent),
		PeakOp: p.PeakStep, PeakName: pr.Ops[p.PeakStep].Code.String(), Align: l.Align,
		Saved: l.PlainSize - p.Size, Plain: l.PlainSize, MACs: pr.MACs(),
	}
	if stack != nil {
		r.RAM = p.Size + stack.Bytes
		if stack.Op >= 0 {
			r.StackOpName = pr.Ops[stack.Op].Code.String()
		}
	}
	order := Order(pr)
	row := map[program.BufID]int{} // a buffer's number in the table
	for n, i := range order {
		row[program.BufID(i)] = n
	}
	for _, ov := range pr.Overlaps {
		in, out := pr.Buffers[ov.In], pr.Buffers[ov.Out]
		r.Overlaps = append(r.Overlaps, fmt.Sprintf("operator %d (%s) writes %s over %s, which starts %d bytes above it (at least %d needed)",
			ov.Op, pr.Ops[ov.Op].Code, bufLabel(row[ov.Out], out), bufLabel(row[ov.In], in), l.Offset(ov.In)-l.Offset(ov.Out), ov.MinShift))
	}
	r.NumGroups = len(pr.Groups)
	for _, grp := range pr.Groups {
		r.Groups = append(r.Groups, groupText(pr, l, &grp, row)...)
	}
	for _, ip := range pr.InPlace {
		r.InPlace = append(r.InPlace, fmt.Sprintf("operator %d (%s) writes t%d in place of t%d", ip.Op, pr.Ops[ip.Op].Code, ip.Out, ip.In))
	}
	var tb strings.Builder
	fmt.Fprintf(&tb, "%4s %8s %8s %9s  %-10s  %s\n", "buf", "offset", "size", "ops", "kind", "name")
	for n, i := range order {
		b := pr.Buffers[i]
		name := b.Name
		if len(b.Tensors) > 0 {
			name += " (" + tensorList(b) + ")"
		}
		fmt.Fprintf(&tb, "%4s %8d %8d %9s  %-10s  %s\n", fmt.Sprintf("b%d", n), p.Offsets[i], b.Size,
			fmt.Sprintf("%d-%d", b.First, b.Last), b.Kind, name)
	}
	r.Table = tb.String()
	r.Chart = chart(pr, order)
	var out bytes.Buffer
	if err := templates.Layout.Execute(&out, r); err != nil {
		return nil, fmt.Errorf("layout report: %w", err)
	}
	return out.Bytes(), nil
}

// maxChartCells bounds the timeline chart (buffers times operators): it
// grows with the square of a program's size, so a long chain of operators
// would write hundreds of megabytes of dots. Every model of ../shared stays
// far below (person_detect: 32 buffers x 31 operators).
const maxChartCells = 1 << 20

// chart draws one row per buffer and one column per operator.
func chart(pr *program.Program, order []int) string {
	n := len(pr.Ops)
	if cells := int64(len(order)) * int64(n); cells > maxChartCells {
		return fmt.Sprintf("(not drawn: %d buffers x %d operators is over %d cells; the table above lists every lifetime)\n", len(order), n, maxChartCells)
	}
	var sb strings.Builder
	pad := strings.Repeat(" ", 6)
	if n > 10 {
		sb.WriteString(pad)
		for i := 0; i < n; i++ {
			if i%10 == 0 {
				sb.WriteString(fmt.Sprint(i / 10 % 10))
			} else {
				sb.WriteByte(' ')
			}
		}
		sb.WriteByte('\n')
	}
	sb.WriteString(pad)
	for i := 0; i < n; i++ {
		sb.WriteString(fmt.Sprint(i % 10))
	}
	sb.WriteByte('\n')
	for k, i := range order {
		b := pr.Buffers[i]
		fmt.Fprintf(&sb, "%-6s", fmt.Sprintf("b%d", k))
		for s := 0; s < n; s++ {
			if b.First <= s && s <= b.Last {
				sb.WriteByte('#')
			} else {
				sb.WriteByte('.')
			}
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// bufLabel names a buffer as the table does: b<row> and its tensors.
func bufLabel(n int, b program.Buffer) string {
	return fmt.Sprintf("b%d (%s)", n, tensorList(b))
}

// tensorList is the tensors a buffer holds, "t1 = t2".
func tensorList(b program.Buffer) string {
	ts := make([]string, len(b.Tensors))
	for k, t := range b.Tensors {
		ts[k] = fmt.Sprintf("t%d", t)
	}
	return strings.Join(ts, " = ")
}

// groupText describes a fused group: its operators, calls and loop, its
// line buffers and whether its output overlaps its input.
func groupText(pr *program.Program, l *layout.Layout, grp *program.Group, row map[program.BufID]int) []string {
	var codes []string
	for i := grp.First; i <= grp.Last; i++ {
		codes = append(codes, pr.Ops[i].Code.String())
	}
	loop := "no loop"
	if grp.Iter > 0 {
		loop = fmt.Sprintf("a loop of %d runs of %d calls", grp.Iter, len(grp.Body))
	}
	out := []string{fmt.Sprintf("operators %d-%d (%s) fused, row by row: %d calls, %s", grp.First, grp.Last, strings.Join(codes, ", "), grp.Calls(), loop)}
	for _, ln := range grp.Lines {
		b := pr.Buffers[ln.Buf]
		out = append(out, fmt.Sprintf("  line %s: %d of %d rows of %d bytes", bufLabel(row[ln.Buf], b), ln.Rows, ln.TensorRows, ln.RowBytes))
	}
	in, o := pr.Buffers[grp.In], pr.Buffers[grp.Out]
	if grp.MinShift >= 0 {
		out = append(out, fmt.Sprintf("  output %s written over the dying input %s, which starts %d bytes above it (at least %d needed)",
			bufLabel(row[grp.Out], o), bufLabel(row[grp.In], in), l.Offset(grp.In)-l.Offset(grp.Out), grp.MinShift))
	} else {
		out = append(out, fmt.Sprintf("  input %s and output %s whole", bufLabel(row[grp.In], in), bufLabel(row[grp.Out], o)))
	}
	return out
}
