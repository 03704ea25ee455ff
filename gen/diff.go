package gen

import (
	"fmt"
	"strings"
)

// maxEdits bounds the diff search; larger changes are shown as one hunk
// replacing the whole file.
const maxEdits = 4000

// unifiedDiff renders a unified diff (3 lines of context) from old to new
// for path; either side may be nil (file missing).
func unifiedDiff(path string, old, new []byte) string {
	a, b := splitLines(old), splitLines(new)
	ops := diffLines(a, b)
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
