// Package report renders the memory plan of a lowered program: for people,
// the layout.txt of every generated package (and of the plan command: the
// table, timeline and arena map) and an SVG of the arena; for tools,
// report.json (Report), and what changed between two of them (Delta).
package report

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/model"
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
	Operators                string // operatorTable
	Choices                  string // kernelChoices
	Overlaps                 []string
	Groups                   []string // lines describing the fused groups
	NumGroups                int
	MACs                     int64
	Table, Chart, Map        string
	MapColumn                int // bytes a column of the map covers
	// CertMeaning says what the certificate means, in words.
	CertMeaning string
	Const       *ConstBytes // nil when no code was emitted
	Stack       *Stack      // nil when no code was emitted
	StackOpName string
	RAM         int
	// Pools describes a multi-pool layout, one line per pool then the
	// access cost; empty with one arena.
	Pools []string
	// Apart says why each operator not fused with its predecessor runs
	// apart from it (when lowering fused).
	Apart []string
	// Folded lists the operators folded into another (gen/fold).
	Folded []string
	// Strips describes the stage run in column strips (gen/strips), one
	// line a strip after the first; empty where there is none.
	Strips []string
	// Block says why the lower bound exceeds the largest live total (a
	// block of tied buffers), empty where it does not; PeakLive is that
	// total.
	Block    string
	PeakLive int
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
		CertMeaning: CertMeaning(p), MapColumn: mapColumnBytes(p.Size), PeakLive: p.LowerBound,
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
		if l.Apart(ov.In, ov.Out) {
			r.Overlaps = append(r.Overlaps, fmt.Sprintf("operator %d (%s) could write %s over %s, but they share no memory (different memories, or a pool that fits only so)",
				ov.Op, pr.Ops[ov.Op].Code, bufLabel(row[ov.Out], out), bufLabel(row[ov.In], in)))
			continue
		}
		r.Overlaps = append(r.Overlaps, fmt.Sprintf("operator %d (%s) writes %s over %s, which starts %d bytes above it (at least %d needed)",
			ov.Op, pr.Ops[ov.Op].Code, bufLabel(row[ov.Out], out), bufLabel(row[ov.In], in), l.Offset(ov.In)-l.Offset(ov.Out), ov.MinShift))
	}
	r.NumGroups = len(pr.Groups)
	for _, grp := range pr.Groups {
		r.Groups = append(r.Groups, groupText(pr, l, &grp, row)...)
	}
	r.Apart = apartLines(pr)
	r.Folded = foldedLines(g)
	r.Strips = stripsLines(g)
	if b := p.Block; b != nil {
		names := make([]string, len(b.Unit))
		for i, id := range b.Unit {
			names[i] = fmt.Sprintf("b%d", row[program.BufID(id)])
		}
		r.Block = fmt.Sprintf("%d bytes above the largest live total (%d) at operator %d (%s): the tied buffers %s are one rigid block whose live part starts %d bytes into it, and the %d bytes of other buffers live there fit only whole, below that part or above it",
			p.LowerBound-b.Live, b.Live, b.Step, pr.Ops[b.Step].Code, strings.Join(names, ", "), b.Below, b.Between)
		r.PeakLive = b.Live
	}
	for _, ip := range pr.InPlace {
		r.InPlace = append(r.InPlace, fmt.Sprintf("operator %d (%s) writes t%d in place of t%d", ip.Op, pr.Ops[ip.Op].Code, ip.Out, ip.In))
	}
	var tb strings.Builder
	if l.Pools != nil {
		r.Pools = poolLines(pr, l)
		fmt.Fprintf(&tb, "%4s %-8s %8s %8s %9s %10s  %-10s  %s\n", "buf", "pool", "offset", "size", "ops", "accessed", "kind", "name")
	} else {
		fmt.Fprintf(&tb, "%4s %8s %8s %9s  %-10s  %s\n", "buf", "offset", "size", "ops", "kind", "name")
	}
	for n, i := range order {
		b := pr.Buffers[i]
		name := b.Name
		if len(b.Tensors) > 0 {
			name += " (" + tensorList(b) + ")"
		}
		if l.Pools != nil {
			fmt.Fprintf(&tb, "%4s %-8s %8d %8d %9s %10d  %-10s  %s\n", fmt.Sprintf("b%d", n), l.PoolName(program.BufID(i)), l.Offset(program.BufID(i)), b.Size,
				fmt.Sprintf("%d-%d", b.First, b.Last), l.Access[i], b.Kind, name)
			continue
		}
		fmt.Fprintf(&tb, "%4s %8d %8d %9s  %-10s  %s\n", fmt.Sprintf("b%d", n), p.Offsets[i], b.Size,
			fmt.Sprintf("%d-%d", b.First, b.Last), b.Kind, name)
	}
	r.Table = tb.String()
	f := operatorFacts(pr, l)
	r.Operators = operatorTable(pr, f)
	r.Choices = kernelChoices(pr, f)
	r.Chart = chart(pr, order, p.Offsets)
	r.Map = arenaMap(pr, l, order)
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

// CertMeaning says in words what plan p's certificate (CertText) means.
func CertMeaning(p *planner.Plan) string {
	switch p.Cert {
	case planner.AtLowerBound:
		return "the arena equals the lower bound: no plan of these buffers can be smaller"
	case planner.Exhaustive:
		return fmt.Sprintf("%d bytes above the lower bound, but the search tried every order of placing the buffers: no plan of these buffers is smaller (the buffers live at the peak cannot all be packed below the others)", p.Gap())
	case planner.BestFound:
		return fmt.Sprintf("the search stopped at its budget (-plan-effort) before it could prove this plan optimal: a plan up to %d bytes smaller may exist", p.Gap())
	case planner.AllOrders:
		return fmt.Sprintf("the search tried every order of placing the buffers, each at its lowest free offset, and found none smaller; with buffers written over their dying input a plan up to %d bytes smaller may still exist (one that puts a buffer in a gap no lowest placement finds)", p.Gap())
	}
	return fmt.Sprintf("-planner greedy: TFLite Micro's rule (largest buffer first, at the lowest offset that fits), no search; a plan up to %d bytes smaller may exist", p.Gap())
}

// chart draws one row per buffer and one column per operator, each row
// ending with the buffer's bytes in the arena.
func chart(pr *program.Program, order []int, offsets []int) string {
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
		if b.Size > 0 {
			fmt.Fprintf(&sb, "  %d-%d", offsets[i], offsets[i]+b.Size-1)
		} else {
			sb.WriteString("  (empty)")
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// mapColumns is the most columns the arena map draws; a column covers a
// power of two of bytes, so the map has mapColumns/2 to mapColumns.
const mapColumns = 64

// maxMapOpName bounds the output tensor name ending a row of the map.
const maxMapOpName = 40

// mapColumnBytes is the bytes a column of the arena map covers: the least
// power of two that draws an arena of size bytes in mapColumns columns.
func mapColumnBytes(size int) int {
	col := 1
	for col*mapColumns < size {
		col *= 2
	}
	return col
}

// bufChar is the character of buffer number n (b<n>) in the arena map.
func bufChar(n int) byte {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	if n < len(digits) {
		return digits[n]
	}
	return '*'
}

// arenaMap draws the arena at every operator, as TFLite Micro's planner
// prints its plan: one row per operator (its number, type, the bytes in
// use and its output's name), one column per power of two of bytes, each
// buffer live at the operator drawn with its character (bufChar), '+'
// where two live buffers share bytes (an output written over its dying
// input) and '.' where no live buffer is. A column shows the buffer that
// covers most of it.
func arenaMap(pr *program.Program, l *layout.Layout, order []int) string {
	n := len(pr.Ops)
	if n*mapColumns > maxChartCells {
		return fmt.Sprintf("(not drawn: %d operators x %d columns is over %d cells; the table above gives every offset)\n", n, mapColumns, maxChartCells)
	}
	size := l.Plan.Size
	col := mapColumnBytes(size)
	cols := max(1, (size+col-1)/col)
	num := make([]int, len(pr.Buffers)) // a buffer's number in the table
	for k, i := range order {
		num[i] = k
	}
	byFirst := make([][]int, n)
	for _, i := range order {
		if b := pr.Buffers[i]; b.Size > 0 && b.First >= 0 && b.First < n {
			byFirst[b.First] = append(byFirst[b.First], i)
		}
	}
	codeW := 0
	for _, op := range pr.Ops {
		codeW = max(codeW, len(op.Code.String()))
	}
	numW := len(fmt.Sprint(n - 1))
	liveW := len(fmt.Sprint(size))
	var sb strings.Builder
	pad := strings.Repeat(" ", numW+1+codeW+1)
	end := fmt.Sprint(size)
	ruler := "0" + strings.Repeat(" ", max(1, cols-1-len(end))) + end
	fmt.Fprintf(&sb, "%s%s\n", pad, ruler)
	type span struct{ lo, hi, buf int }
	var live []int
	var spans []span
	row := make([]byte, cols)
	cover := make([]int, cols) // bytes of the column the drawn buffer covers
	for s := 0; s < n; s++ {
		live = append(live, byFirst[s]...)
		k := 0
		spans = spans[:0]
		for _, i := range live {
			if pr.Buffers[i].Last >= s {
				live[k] = i
				k++
				off := l.Plan.Offsets[i]
				spans = append(spans, span{off, off + pr.Buffers[i].Size, i})
			}
		}
		live = live[:k]
		for c := range row {
			row[c], cover[c] = '.', 0
		}
		sort.Slice(spans, func(a, b int) bool {
			if spans[a].lo != spans[b].lo {
				return spans[a].lo < spans[b].lo
			}
			return num[spans[a].buf] < num[spans[b].buf]
		})
		used, reach := 0, 0
		var shared [][2]int
		for _, sp := range spans {
			if sp.lo < reach {
				shared = append(shared, [2]int{sp.lo, min(sp.hi, reach)})
			}
			if lo := max(sp.lo, reach); sp.hi > lo {
				used += sp.hi - lo
			}
			reach = max(reach, sp.hi)
			for c := sp.lo / col; c < cols && c*col < sp.hi; c++ {
				b := min(sp.hi, (c+1)*col) - max(sp.lo, c*col)
				if b > cover[c] {
					row[c], cover[c] = bufChar(num[sp.buf]), b
				}
			}
		}
		for _, sh := range shared {
			for c := sh[0] / col; c < cols && c*col < sh[1]; c++ {
				row[c] = '+'
			}
		}
		name := ""
		if i := pr.Ops[s].Index; i >= 0 && i < len(pr.Graph.Ops) {
			if o := pr.Graph.Ops[i]; len(o.Outputs) > 0 && o.Outputs[0] >= 0 {
				name = "  " + mapName(pr.Graph.Tensors[o.Outputs[0]].Name)
			}
		}
		fmt.Fprintf(&sb, "%*d %-*s|%s| %*d%s\n", numW, s, codeW, pr.Ops[s].Code, string(row), liveW, used, name)
	}
	return sb.String()
}

// mapName is a tensor name as a row of the arena map ends with it: quoted
// when it holds anything but printable characters, cut at maxMapOpName
// characters.
func mapName(s string) string {
	for _, r := range s {
		if !strconv.IsPrint(r) {
			s = strconv.Quote(s)
			break
		}
	}
	if r := []rune(s); len(r) > maxMapOpName {
		s = string(r[:maxMapOpName-3]) + "..."
	}
	return s
}

// operatorTable is layout.txt's table of operators: per operator its
// multiply-accumulates, the read-only bytes it reads first, the arena
// bytes live while it runs, its own scratch, how it runs (in a fused
// group, over its dying input, in place) and the kernels it calls.
func operatorTable(pr *program.Program, f opFacts) string {
	var tb strings.Builder
	fmt.Fprintf(&tb, "%4s  %-18s %10s %9s %8s %7s  %-12s %s\n", "op", "code", "MACs", "read-only", "live", "scratch", "runs", "kernels")
	for i, op := range pr.Ops {
		runs := "alone"
		switch {
		case folded(pr, i):
			runs = fmt.Sprintf("folded in %d", pr.Graph.Ops[i].FoldedInto)
		case f.groupOf[i] > 0:
			grp := pr.Groups[f.groupOf[i]-1]
			runs = fmt.Sprintf("fused %d-%d", grp.First, grp.Last)
		case f.over[i]:
			runs = "over input"
		case f.inPlace[i]:
			runs = "in place"
		case len(f.kernels[i]) == 0:
			runs = "view"
		}
		line := fmt.Sprintf("%4d  %-18s %10d %9d %8d %7d  %-12s %s", i, op.Code, op.MACs, f.constBytes[i], f.live[i], f.scratch[i], runs, strings.Join(f.kernels[i], ", "))
		tb.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	return tb.String()
}

// kernelChoices is layout.txt's list of why each operator calls the
// kernels it does, where the lowering chose among other forms: one line
// per operator and kernel, in execution order; empty when no operator
// had a choice.
func kernelChoices(pr *program.Program, f opFacts) string {
	var tb strings.Builder
	for i, op := range pr.Ops {
		for _, k := range f.kernels[i] {
			if why, ok := f.why[i][k]; ok {
				fmt.Fprintf(&tb, "%4d  %-18s %s: %s\n", i, op.Code, k, why)
			}
		}
	}
	return tb.String()
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
		code := pr.Ops[i].Code.String()
		if folded(pr, i) {
			code += " folded"
		} else if pr.ViewInGroup(grp, i) {
			code += " view"
		}
		codes = append(codes, code)
	}
	loop := "no loop"
	if grp.Iter > 0 {
		loop = fmt.Sprintf("a loop of %d runs of %d calls", grp.Iter, len(grp.Body))
	}
	out := []string{fmt.Sprintf("operators %d-%d (%s) fused, row by row: %d calls, %s", grp.First, grp.Last, strings.Join(codes, ", "), grp.Calls(), loop)}
	for _, ln := range grp.Lines {
		b := pr.Buffers[ln.Buf]
		line := fmt.Sprintf("  line %s: %d of %d rows of %d bytes", bufLabel(row[ln.Buf], b), ln.Rows, ln.TensorRows, ln.RowBytes)
		if ln.Readers != nil {
			if len(ln.Readers) == 1 {
				line += fmt.Sprintf(", read by operator %d (not the next one)", ln.Readers[0])
			} else {
				line += ", read by operators " + readersText(ln.Readers) + " (each row held until the last of them has read it)"
			}
		}
		out = append(out, line)
	}
	if grp.Sums {
		b := pr.Buffers[grp.SumsBuf]
		out = append(out, fmt.Sprintf("  sums b%d (%s): %d bytes, operator %d's global average: its input's rows added as they come, divided at the end", row[grp.SumsBuf], b.Name, b.Size, grp.Last))
	}
	in, o := pr.Buffers[grp.In], pr.Buffers[grp.Out]
	if grp.In == grp.Out {
		out = append(out, fmt.Sprintf("  output %s written in place over the input, its skip tensor (no band writes rows a later band reads)", bufLabel(row[grp.Out], o)))
	} else if grp.MinShift >= 0 && l.Apart(grp.In, grp.Out) {
		out = append(out, fmt.Sprintf("  input %s and output %s whole, sharing no memory", bufLabel(row[grp.In], in), bufLabel(row[grp.Out], o)))
	} else if grp.MinShift >= 0 {
		out = append(out, fmt.Sprintf("  output %s written over the dying input %s, which starts %d bytes above it (at least %d needed)",
			bufLabel(row[grp.Out], o), bufLabel(row[grp.In], in), l.Offset(grp.In)-l.Offset(grp.Out), grp.MinShift))
	} else {
		out = append(out, fmt.Sprintf("  input %s and output %s whole", bufLabel(row[grp.In], in), bufLabel(row[grp.Out], o)))
	}
	return out
}

// readersText lists two or more operators: "4 and 7", "4, 6 and 7".
func readersText(ops []int) string {
	s := make([]string, len(ops))
	for i, op := range ops {
		s[i] = fmt.Sprint(op)
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// poolLines describes each memory of a multi-memory layout (the pools of
// -pool, or the arena, and the inputs and outputs of -io external) and,
// with pools, the access cost of the assignment against its bounds.
func poolLines(pr *program.Program, l *layout.Layout) []string {
	var out []string
	named := false
	for _, p := range l.Pools {
		span := fmt.Sprintf("bytes %d-%d of the timeline and map below", p.Base, p.Base+max(p.Plan.Size, 1)-1)
		switch {
		case p.IO != "":
			out = append(out, fmt.Sprintf("%-8s %d bytes outside the arena, in the application's memory (Invoke's %s), %d bytes accessed per Invoke; %s",
				p.IO, p.Plan.Size, p.IO, p.Access, span))
		case p.Name == "":
			out = append(out, fmt.Sprintf("%-8s %d bytes: %d buffers, %d bytes accessed per Invoke; plan %s, lower bound %d; %s",
				"arena", p.Plan.Size, len(p.Members), p.Access, p.Plan.CertText(), p.Plan.LowerBound, span))
		case len(p.Members) == 0:
			named = true
			out = append(out, fmt.Sprintf("%-8s capacity %d bytes, cost %d: unused (the cheaper pools hold every buffer)", p.Name, p.Size, p.Cost))
		default:
			named = true
			out = append(out, fmt.Sprintf("%-8s %d of %d bytes, cost %d: %d buffers, %d bytes accessed per Invoke; plan %s, lower bound %d; %s",
				p.Name, p.Plan.Size, p.Size, p.Cost, len(p.Members), p.Access, p.Plan.CertText(), p.Plan.LowerBound, span))
		}
	}
	if !named {
		return out
	}
	out = append(out, fmt.Sprintf("access cost %d (bytes accessed times the pool's cost); all in the cheapest pool %d, all in the dearest %d;", l.Cost, l.FastCost, l.SlowCost))
	gap := "the assignment is optimal"
	if l.Cost > l.Bound {
		gap = fmt.Sprintf("the assignment is at most %d above the optimum", l.Cost-l.Bound)
	}
	out = append(out, fmt.Sprintf("no assignment within the capacities costs less than %d (%s)", l.Bound, gap))
	return out
}

// folded says whether operator i of pr is folded into another (gen/fold);
// false where the graph has no operator i (a test's bare program).
func folded(pr *program.Program, i int) bool {
	return pr.Graph != nil && i >= 0 && i < len(pr.Graph.Ops) && pr.Graph.Ops[i].Folded
}

// foldedLines says, for each operator folded into another, into which and
// how: a PAD into the convolution reading it, as its padding.
func foldedLines(g *model.Graph) []string {
	var out []string
	for _, op := range g.Ops {
		if !op.Folded {
			continue
		}
		into := g.Ops[op.FoldedInto]
		line := fmt.Sprintf("operator %d (%s) into operator %d (%s)", op.Index, op.Code, into.Index, into.Code)
		if p := into.Padding; p != nil {
			line += fmt.Sprintf(", which reads t%d with padding (top, bottom, left, right) %d, %d, %d, %d", into.Inputs[0], p.Top, p.Bottom, p.Left, p.Right)
		}
		out = append(out, line)
	}
	return out
}

// stripsLines describes the stage of g that runs in column strips: which
// operators of the model, the extra multiply-accumulates, each strip's
// columns and operators, the operators joining them, and where the
// model's later operators are.
func stripsLines(g *model.Graph) []string {
	st := g.Strips
	if st == nil {
		return nil
	}
	extra := st.MACs - st.ModelMACs
	pct := 0.0
	if st.ModelMACs > 0 {
		pct = 100 * float64(extra) / float64(st.ModelMACs)
	}
	out := []string{fmt.Sprintf("operators %d-%d of the model run in %d column strips (-recompute): each computes columns of t%d from columns of t%d, again for the columns its windows share with its neighbours: %d multiply-accumulates per Invoke against the model's %d (%+d, %+.1f%%)",
		st.First, st.Last, st.Count, st.Out, st.In, st.MACs, st.ModelMACs, extra, pct)}
	// Each strip's first and last operators, in one pass.
	lo, hi := make([]int, st.Count), make([]int, st.Count)
	for k := range lo {
		lo[k], hi[k] = -1, -1
	}
	for i, k := range st.Strip {
		if k >= 0 && k < st.Count {
			if lo[k] < 0 {
				lo[k] = i
			}
			hi[k] = i
		}
	}
	for k := range st.Count {
		out = append(out, fmt.Sprintf("strip %d: columns %d-%d of t%d from columns %d-%d of t%d, operators %d-%d",
			k, st.OutCols[k][0], st.OutCols[k][1]-1, st.Out, st.InCols[k][0], st.InCols[k][1]-1, st.In, lo[k], hi[k]))
	}
	var join []string
	after := -1
	for i, s := range st.Strip {
		switch {
		case s < 0 && st.Source[i] == st.Last:
			join = append(join, fmt.Sprintf("%d (%s)", i, g.Ops[i].Code))
		case s < 0 && st.Source[i] > st.Last && after < 0:
			after = i
		}
	}
	out = append(out, fmt.Sprintf("the strips' columns joined into t%d by operators %s", st.Out, strings.Join(join, ", ")))
	if after >= 0 {
		out = append(out, fmt.Sprintf("the model's operator n after the stage is operator n%+d here", after-st.Source[after]))
	}
	return out
}

// apartLines says why each operator outside a fused group runs apart from
// the one before it, a run of consecutive operators kept apart for the
// same reason on one line.
func apartLines(pr *program.Program) []string {
	var out []string
	as := pr.Apart
	for k := 0; k < len(as); {
		a := as[k]
		if a.Op <= 0 || a.Op >= len(pr.Ops) || a.From < 0 || a.From >= a.Op {
			k++
			continue
		}
		e := k
		for a.From == a.Op-1 && e+1 < len(as) && as[e+1].Op == as[e].Op+1 && as[e+1].From == as[e].Op && as[e+1].Why == a.Why && as[e+1].Op < len(pr.Ops) {
			e++
		}
		if e == k {
			out = append(out, fmt.Sprintf("operator %d (%s) runs apart from %d (%s): %s", a.Op, pr.Ops[a.Op].Code, a.From, pr.Ops[a.From].Code, a.Why))
		} else {
			out = append(out, fmt.Sprintf("operators %d-%d each run apart from the one before: %s", a.Op, as[e].Op, a.Why))
		}
		k = e + 1
	}
	return out
}
