package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const root = "../../.."

// updateFlag matches the declaration of a package's -update flag.
var updateFlag = regexp.MustCompile(`flag\.Bool\("update"`)

// TestStepsCoverEveryUpdate: every package whose tests declare an -update
// flag is a step, and every step's tests exist in its package, which
// declares the flag.
func TestStepsCoverEveryUpdate(t *testing.T) {
	withUpdate := map[string]bool{} // "./dir"
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if updateFlag.Match(src) {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			withUpdate["./"+filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	inSteps := map[string]bool{}
	for _, s := range steps {
		inSteps[s.Pkg] = true
		if !withUpdate[s.Pkg] {
			t.Errorf("step %s: no -update flag in %s's tests", s.Writes, s.Pkg)
		}
		names, err := filepath.Glob(filepath.Join(root, s.Pkg, "*_test.go"))
		if err != nil {
			t.Fatal(err)
		}
		var src []byte
		for _, n := range names {
			b, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			src = append(src, b...)
		}
		for _, test := range strings.Split(s.Tests, "|") {
			if !bytes.Contains(src, []byte("\nfunc "+test+"(t *testing.T)")) {
				t.Errorf("step %s: no test %s in %s", s.Writes, test, s.Pkg)
			}
		}
	}
	for p := range withUpdate {
		if !inSteps[p] {
			t.Errorf("%s has an -update flag but is no step of regen: add it to steps, in dependency order", p)
		}
	}
}

// TestGoGenerateRunsRegen: the repository root's go:generate directive,
// which `go generate ./...` runs first (packages in import path order, the
// root first), is this command.
func TestGoGenerateRunsRegen(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(root, "generate.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(src, []byte("\n//go:generate go run ./internal/devtools/regen\n")) {
		t.Errorf("generate.go has no //go:generate go run ./internal/devtools/regen line:\n%s", src)
	}
}

// TestDryRun: -n prints every step's command and runs none.
func TestDryRun(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-n"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != len(steps) {
		t.Fatalf("%d lines for %d steps:\n%s", len(lines), len(steps), out.String())
	}
	for i, s := range steps {
		if want := "go " + strings.Join(s.args(), " "); !strings.HasSuffix(lines[i], want) {
			t.Errorf("line %d: %q, want it to end in %q", i, lines[i], want)
		}
	}
	if code := run([]string{"extra"}, &out, &errb); code != 2 {
		t.Errorf("an argument: exit %d, want 2", code)
	}
}
