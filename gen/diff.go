package gen

import (
	"fmt"
	"io"
	"strings"

	"github.com/tflm-gen/tflm-gen/gen/report"
)

// Drift is how an output directory differs from a generation's files
// (CheckDir): what a CI log shows when a generated package is out of date.
type Drift struct {
	// Dir is the directory compared.
	Dir string
	// Total counts the generation's files.
	Total int
	// Files lists the files that differ: the generation's, by name, then
	// the stale ones.
	Files []FileDrift
	// Old and New are report.json as the directory holds it and as
	// generated; Old is nil when the directory has none that tflm-gen
	// wrote and that parses (a package from before report.json).
	Old, New *report.Report
}

// FileDrift is one file that differs.
type FileDrift struct {
	// Name is the file's name, Path its path in the directory.
	Name, Path string
	// State is "changed", "missing" (generated, not in the directory) or
	// "stale" (generated before, no longer part of the output; WriteDir
	// removes it).
	State string
	// Added and Removed count the lines the diff adds and removes.
	Added, Removed int
	// Decls names the Go declarations the changed lines are in ("op3",
	// "tensorConv1Weights", "offsets", "header"), in file order, at most
	// maxDecls and then "N more"; empty for other files, and for files
	// missing or stale as a whole.
	Decls []string
	// Diff is the unified diff from the directory's file to the output's.
	Diff string
}

// Changed reports whether the directory differs from the output.
func (d *Drift) Changed() bool { return len(d.Files) > 0 }

// WriteSummary writes what a CI log needs (tflm-gen -check): one line per
// file that differs, with its lines added and removed and the Go
// declarations they are in, then what changed in the plan (report.Delta:
// model, ArenaSize, bound, stack, constants, the operators that changed).
func (d *Drift) WriteSummary(w io.Writer) error {
	if !d.Changed() {
		_, err := fmt.Fprintf(w, "%s is up to date (%d files)\n", d.Dir, d.Total)
		return err
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s differs from the generated package: %d file%s\n", d.Dir, len(d.Files), plural1(len(d.Files)))
	width := 0
	for _, f := range d.Files {
		width = max(width, len(f.Name))
	}
	for _, f := range d.Files {
		fmt.Fprintf(&sb, "  %-*s  %-7s  +%d -%d line%s", width, f.Name, f.State, f.Added, f.Removed, plural1(max(f.Added, f.Removed)))
		if len(f.Decls) > 0 {
			fmt.Fprintf(&sb, ", in %s", strings.Join(f.Decls, ", "))
		}
		sb.WriteString("\n")
	}
	allMissing := true
	for _, f := range d.Files {
		allMissing = allMissing && f.State == "missing"
	}
	switch {
	case d.New == nil:
	case allMissing && len(d.Files) == d.Total:
		sb.WriteString("(no generated package there yet)\n")
	case d.Old == nil:
		sb.WriteString("plan: no report.json of tflm-gen in the directory to compare with (a package from before report.json, or it was removed)\n")
	default:
		sb.WriteString("plan, before -> after:\n")
		if err := report.Delta(&sb, d.Old, d.New, "  "); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// WriteDiff writes the unified diff of every file that differs.
func (d *Drift) WriteDiff(w io.Writer) error {
	for _, f := range d.Files {
		if _, err := io.WriteString(w, f.Diff); err != nil {
			return err
		}
	}
	return nil
}

func plural1(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// maxDecls bounds the declarations a FileDrift names.
const maxDecls = 6

// fileDrift compares one file: old is nil when the directory lacks it, cur
// nil when the output no longer has it.
func fileDrift(name, path string, old, cur []byte) FileDrift {
	f := FileDrift{Name: name, Path: path, State: "changed"}
	switch {
	case old == nil:
		f.State = "missing"
	case cur == nil:
		f.State = "stale"
	}
	a, b := splitLines(old), splitLines(cur)
	ops := diffLines(a, b)
	var da, db []string
	if strings.HasSuffix(name, ".go") && f.State == "changed" {
		da, db = declNames(a), declNames(b)
	}
	seen := map[string]bool{}
	more := 0
	for _, o := range ops {
		decl := ""
		switch o.kind {
		case '+':
			f.Added++
			if db != nil {
				decl = db[o.b]
			}
		case '-':
			f.Removed++
			if da != nil {
				decl = da[o.a]
			}
		}
		if decl == "" || seen[decl] {
			continue
		}
		seen[decl] = true
		if len(f.Decls) < maxDecls {
			f.Decls = append(f.Decls, decl)
		} else {
			more++
		}
	}
	if more > 0 {
		f.Decls = append(f.Decls, fmt.Sprintf("%d more", more))
	}
	f.Diff = renderDiff(path, old, cur, ops)
	return f
}

// declNames names, for each line of a gofmt'ed Go file, the top-level
// declaration it belongs to: "header" before the package clause, the
// function, type or constant's name ("Invoke", "op3", "tensorW"), a doc
// comment its declaration's, the name on each line of a parenthesized
// const or var block (model.go's "offsets" block is one name, "offsets");
// "" between declarations.
func declNames(lines []string) []string {
	out := make([]string, len(lines))
	cur := "header"
	// open: cur's body is open (its line ended in "{" or "(") until a
	// "}" or ")" at column 0; block: that body is a const or var block.
	open, block := false, false
	var pending []int // doc comment lines awaiting their declaration
	for i, l := range lines {
		switch {
		case open && (l == ")" || l == "}"):
			out[i] = cur
			cur, open, block = "", false, false
		case open || l != "" && (l[0] == '\t' || l[0] == ' '):
			out[i] = cur
			if id := leadingIdent(strings.TrimLeft(l, "\t ")); block && id != "" {
				out[i] = id
				if strings.HasPrefix(id, "off") {
					out[i] = "offsets"
				}
			}
		case l == "":
			if cur != "header" {
				cur = ""
			}
			out[i] = cur
		case strings.HasPrefix(l, "//"):
			pending = append(pending, i)
		default:
			// A declaration starts at column 0.
			cur = declName(l)
			open = strings.HasSuffix(l, "{") || strings.HasSuffix(l, "(")
			block = open && strings.HasSuffix(l, "(") && (strings.HasPrefix(l, "const") || strings.HasPrefix(l, "var"))
			out[i] = cur
		}
		if len(pending) > 0 && !strings.HasPrefix(l, "//") {
			// A comment followed by a declaration is its doc comment;
			// followed by a blank line, a comment of its own (the
			// header's, a section's).
			for _, p := range pending {
				out[p] = out[i]
			}
			pending = pending[:0]
		}
	}
	for _, p := range pending {
		out[p] = cur
	}
	return out
}

// declName names the declaration a line at column 0 starts.
func declName(l string) string {
	f := strings.Fields(l)
	switch {
	case len(f) == 0:
		return ""
	case f[0] == "package":
		return "package clause"
	case f[0] == "import":
		return "imports"
	case f[0] == "func" && len(f) > 1 && strings.HasPrefix(f[1], "("):
		// A method: the name after the receiver.
		if i := strings.Index(l, ") "); i >= 0 {
			return leadingIdent(l[i+2:])
		}
	case (f[0] == "func" || f[0] == "type" || f[0] == "const" || f[0] == "var") && len(f) > 1:
		if f[1] == "(" {
			return f[0] + " block"
		}
		return leadingIdent(f[1])
	}
	return f[0]
}

// leadingIdent returns the identifier s starts with.
func leadingIdent(s string) string {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return s[:i]
		}
	}
	return s
}

// maxEdits bounds the diff search; larger changes are shown as one hunk
// replacing the whole file.
const maxEdits = 4000

// unifiedDiff renders a unified diff (3 lines of context) from old to new
// for path; either side may be nil (file missing).
func unifiedDiff(path string, old, new []byte) string {
	return renderDiff(path, old, new, diffLines(splitLines(old), splitLines(new)))
}

// renderDiff renders the edit script ops from old to new as a unified diff.
func renderDiff(path string, old, new []byte, ops []editOp) string {
	var sb strings.Builder
	from, to := "a/"+path, "b/"+path
	if old == nil {
		from = "/dev/null"
	}
	if new == nil {
		to = "/dev/null"
	}
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", from, to)
	const ctx = 3
	// ops is a list of (kind, line) with kind ' ', '-', '+'; group into hunks.
	i := 0
	for i < len(ops) {
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i == len(ops) {
			break
		}
		start := max(0, i-ctx)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*ctx {
				end = min(len(ops), end+ctx)
				break
			}
			end = run
		}
		aStart, bStart, aN, bN := ops[start].a, ops[start].b, 0, 0
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				aN++
			}
			if o.kind != '-' {
				bN++
			}
		}
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(aStart, aN), hunkRange(bStart, bN))
		for _, o := range ops[start:end] {
			sb.WriteByte(o.kind)
			sb.WriteString(o.text)
			sb.WriteByte('\n')
		}
		i = end
	}
	return sb.String()
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	s := strings.TrimSuffix(string(b), "\n")
	return strings.Split(s, "\n")
}

type editOp struct {
	kind byte
	text string
	a, b int // line index in old and new before this op
}

// diffLines computes a shortest edit script with Myers' algorithm.
func diffLines(a, b []string) []editOp {
	n, m := len(a), len(b)
	max := n + m
	if max == 0 {
		return nil
	}
	off := max
	v := make([]int, 2*max+2)
	var trace [][]int
	found := false
	for d := 0; d <= max && d <= maxEdits; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = true
				break
			}
		}
		if found {
			trace = append(trace, append([]int(nil), v...))
			break
		}
	}
	if !found {
		var ops []editOp
		for i, l := range a {
			ops = append(ops, editOp{'-', l, i, 0})
		}
		for j, l := range b {
			ops = append(ops, editOp{'+', l, n, j})
		}
		return ops
	}
	// Backtrack through the saved frontiers.
	var rev []editOp
	x, y := n, m
	for d := len(trace) - 2; d >= 0 && (x > 0 || y > 0); d-- {
		vd := trace[d]
		k := x - y
		var pk int
		if k == -d || (k != d && vd[off+k-1] < vd[off+k+1]) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := vd[off+pk]
		py := px - pk
		for x > px && y > py {
			x--
			y--
			rev = append(rev, editOp{' ', a[x], x, y})
		}
		if d == 0 {
			break
		}
		if x == px {
			y--
			rev = append(rev, editOp{'+', b[y], x, y})
		} else {
			x--
			rev = append(rev, editOp{'-', a[x], x, y})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, editOp{' ', a[x], x, y})
	}
	ops := make([]editOp, len(rev))
	for i := range rev {
		ops[i] = rev[len(rev)-1-i]
	}
	return ops
}
