package lower

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestREADMEListsEveryOperator: the operator table of the README has a row
// for every operator with a lowering, builtin or custom, and for every
// builtin TFLite Micro registers (shared/tflm/README.md lists them).
func TestREADMEListsEveryOperator(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	inTable := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "| operator | int8 |") {
			inTable = true
			continue
		}
		if inTable && !strings.HasPrefix(line, "|") {
			break
		}
		if inTable {
			first := strings.Split(line, "|")[1]
			for _, name := range strings.Split(first, ",") {
				listed[strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(name), "(custom)"))] = true
			}
		}
	}
	if len(listed) == 0 {
		t.Fatal("no operator table in README.md")
	}
	for code := range lowerings {
		if !listed[code.String()] {
			t.Errorf("README's operator table has no row for %s", code)
		}
	}
	for name := range customLowerings {
		if !listed[name] {
			t.Errorf("README's operator table has no row for custom operator %s", name)
		}
	}
	shared := os.Getenv("TFLM_SHARED")
	if shared == "" {
		shared = filepath.Join("..", "..", "..", "shared")
	}
	tf, err := os.ReadFile(filepath.Join(shared, "tflm", "README.md"))
	if err != nil {
		t.Logf("TFLM's operator list not found (%v): checked the lowerings only", err)
		return
	}
	text := string(tf)
	start, end := strings.Index(text, "MicroMutableOpResolver"), strings.Index(text, "plus the\n  custom ops")
	if start < 0 || end < start {
		t.Fatal("shared/tflm/README.md: no operator list")
	}
	for _, name := range regexp.MustCompile(`\b[A-Z][A-Z0-9_]+\b`).FindAllString(text[start:end], -1) {
		if !listed[name] {
			t.Errorf("README's operator table has no row for TFLM's %s", name)
		}
	}
}
