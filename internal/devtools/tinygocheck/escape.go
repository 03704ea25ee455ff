package tinygocheck

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// diagLine matches a compiler diagnostic "file.go:line:col: message".
var diagLine = regexp.MustCompile(`^(.*\.go):(\d+):(\d+): (.*)$`)

// heapMsg matches the escape-analysis messages that mean a heap allocation:
// "x escapes to heap", "moved to heap: x" (wording of gc since Go 1.13).
var heapMsg = regexp.MustCompile(`\b(escapes|moved) to heap\b`)

// escapeProblems builds a copy of the package in a throwaway module with
// `go build -gcflags=-m` and reports heap allocations inside functions on
// the Invoke path. Positions in inlined code are reported by the compiler
// at the call site, which is then on the path too. An allocation already
// explained by a source problem (the compiler reports the same text on a
// line with such a problem, e.g. for make or panic) is not repeated.
func escapeProblems(l *loaded, path *Path, source []Problem) ([]Problem, error) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("escape analysis needs the go command: %v", err)
	}
	tmp, err := os.MkdirTemp("", "tinygocheck")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	for _, f := range l.files {
		b, err := os.ReadFile(filepath.Join(l.dir, f))
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(tmp, f), b, 0o644); err != nil {
			return nil, err
		}
	}
	mod := "module tinygocheck.tmp/" + l.pkg.Name() + "\n\ngo " + strings.TrimPrefix(goVersion(), "go") + "\n"
	if err := os.WriteFile(filepath.Join(tmp, "go.mod"), []byte(mod), 0o644); err != nil {
		return nil, err
	}
	// -m reports escape decisions for the named package only; -o discards
	// the archive. Compiler output is replayed from the build cache.
	cmd := exec.Command(goCmd, "build", "-gcflags=-m", "-o", os.DevNull, ".")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod -buildvcs=false", "GO111MODULE=on")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s: go build -gcflags=-m failed: %v\n%s", l.dir, err, out)
	}
	flagged := map[string]bool{}
	for _, p := range source {
		flagged[p.Pos.Filename+":"+strconv.Itoa(p.Pos.Line)] = true
	}
	type heapLine struct {
		pos token.Position
		fd  *ast.FuncDecl
		msg string
	}
	var found []heapLine
	explained := map[string]bool{}
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		file, line, col, msg, ok := heapDiag(sc.Text())
		if !ok {
			continue
		}
		if dir := filepath.Dir(file); dir != "." && dir != tmp {
			continue // not a file of this package
		}
		pos := token.Position{Filename: filepath.Join(l.dir, filepath.Base(file)), Line: line, Column: col}
		fd := path.FuncAt(l.fset, pos)
		if fd == nil || seen[sc.Text()] {
			continue
		}
		seen[sc.Text()] = true
		if flagged[pos.Filename+":"+strconv.Itoa(line)] {
			explained[msg] = true
		}
		found = append(found, heapLine{pos, fd, msg})
	}
	var probs []Problem
	for _, h := range found {
		if !explained[h.msg] {
			probs = append(probs, Problem{h.pos, fmt.Sprintf("heap allocation on the Invoke path (in %s): go build -gcflags=-m says %q", funcName(h.fd), h.msg)})
		}
	}
	return probs, nil
}

// heapDiag parses one line of `go build -gcflags=-m` output and reports
// whether it is a heap allocation: "x escapes to heap" or "moved to heap: x"
// (not "does not escape", "leaking param", inlining notes).
func heapDiag(s string) (file string, line, col int, msg string, ok bool) {
	m := diagLine.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil || !heapMsg.MatchString(m[4]) || strings.HasSuffix(m[4], "does not escape") {
		return "", 0, 0, "", false
	}
	line, _ = strconv.Atoi(m[2])
	col, _ = strconv.Atoi(m[3])
	return m[1], line, col, m[4], true
}
