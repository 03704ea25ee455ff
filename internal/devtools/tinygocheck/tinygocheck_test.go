package tinygocheck

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
)

// wantRe finds the expectation comments of the testdata packages: on the
// line a problem is reported at, `// want` followed by one or more quoted
// regular expressions, each of which must match a problem on that line
// (and every problem must match one of them).
var wantRe = regexp.MustCompile(`// want (.*)$`)

type want struct {
	re      *regexp.Regexp
	matched bool
}

// readWants returns the expectations of the .go files in dir by
// "file:line".
func readWants(t *testing.T, dir string) map[string][]*want {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	wants := map[string][]*want{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(strings.NewReader(string(b)))
		for line := 1; sc.Scan(); line++ {
			m := wantRe.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			rest := strings.TrimSpace(m[1])
			for rest != "" {
				q, err := strconv.QuotedPrefix(rest)
				if err != nil {
					t.Fatalf("%s:%d: bad want comment: %v", f, line, err)
				}
				s, _ := strconv.Unquote(q)
				key := f + ":" + strconv.Itoa(line)
				wants[key] = append(wants[key], &want{re: regexp.MustCompile(s)})
				rest = strings.TrimSpace(rest[len(q):])
			}
		}
	}
	return wants
}

// TestCheck runs Check on one hand-written package per rule: every
// problem must be announced by a want comment on its line and every want
// comment must be met. clean breaks no rule.
func TestCheck(t *testing.T) {
	cases := []struct {
		dir     string
		wantErr string // substring of the error Check must return, or ""
	}{
		{dir: "clean"},
		{dir: "imports"},
		{dir: "globals"},
		{dir: "goroutine"},
		{dir: "maps"},
		{dir: "interfaces"},
		{dir: "closure"},
		{dir: "funcvalue"},
		{dir: "deferstmt"},
		{dir: "panics"},
		{dir: "channels"},
		{dir: "strings"},
		{dir: "alloc"},
		{dir: "escape"},
		{dir: "noinvoke"},
		{dir: "panicmsg"},
		{dir: "buildtag"},
		{dir: "broken", wantErr: "does not type-check"},
	}
	for _, tc := range cases {
		t.Run(tc.dir, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join("testdata", tc.dir)
			probs, err := Check(dir)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("Check: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("Check error = %v, want one containing %q", err, tc.wantErr)
			}
			wants := readWants(t, dir)
			if tc.dir != "clean" && len(wants) == 0 {
				t.Fatal("a bad package without want comments tests nothing")
			}
			for _, p := range probs {
				key := p.Pos.Filename + ":" + strconv.Itoa(p.Pos.Line)
				ok := false
				for _, w := range wants[key] {
					if w.re.MatchString(p.Msg) {
						w.matched, ok = true, true
					}
				}
				if !ok {
					t.Errorf("unexpected problem %s", p)
				}
			}
			for key, ws := range wants {
				for _, w := range ws {
					if !w.matched {
						t.Errorf("%s: no problem matching %q", key, w.re)
					}
				}
			}
		})
	}
}

// TestCheckErrors covers directories that cannot be checked at all.
func TestCheckErrors(t *testing.T) {
	if _, err := Check(t.TempDir()); err == nil {
		t.Error("Check of an empty directory: no error")
	}
	if _, err := Check(filepath.Join("testdata", "does-not-exist")); err == nil {
		t.Error("Check of a missing directory: no error")
	}
}

func TestAnalyzersValid(t *testing.T) {
	if err := analysis.Validate(Analyzers); err != nil {
		t.Fatal(err)
	}
}

func TestProblemString(t *testing.T) {
	probs, err := Check(filepath.Join("testdata", "deferstmt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(probs) != 1 {
		t.Fatalf("got %v, want one problem", probs)
	}
	want := filepath.Join("testdata", "deferstmt", "model.go") + ":9:2: defer statement on the Invoke path (in (*Model).Invoke)"
	if got := probs[0].String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// TestHeapDiag covers the compiler messages the escape check relies on.
func TestHeapDiag(t *testing.T) {
	cases := []struct {
		in   string
		want string // message, or "" for a line that is no heap allocation
	}{
		{"./model.go:12:2: moved to heap: acc", "moved to heap: acc"},
		{"./x.go:3:36: make([]byte, n) escapes to heap", "make([]byte, n) escapes to heap"},
		{`./x.go:7:37: "bad" escapes to heap`, `"bad" escapes to heap`},
		{"./x.go:5:31: v escapes to heap:", "v escapes to heap:"}, // -m=2 style
		{"/tmp/b/x.go:5:31: ... argument escapes to heap", "... argument escapes to heap"},
		{"./x.go:6:58: string(b) does not escape", ""},
		{"./x.go:6:58: ... argument does not escape", ""},
		{"./kernel_view.go:17:7: leaking param: a to result ~r0 level=0", ""},
		{"./kernel_view.go:17:7: leaking param content: a", ""},
		{"./x.go:8:37: inlining call to escInl", ""},
		{"./x.go:3:6: can inline escX", ""},
		{"# tinygocheck.tmp/x", ""},
	}
	for _, tc := range cases {
		_, line, _, msg, ok := heapDiag(tc.in)
		if ok != (tc.want != "") || msg != tc.want || ok && line == 0 {
			t.Errorf("heapDiag(%q) = %q, %v, want %q", tc.in, msg, ok, tc.want)
		}
	}
}
