package e2e

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/model"
)

// SharedDir returns the reference data directory ($TFLM_SHARED, else the
// shared/ directory beside the checkout, found from the working directory
// upwards), skipping the test when it is absent.
func SharedDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("TFLM_SHARED")
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			t.Skipf("reference data: %v", err)
		}
		for d := wd; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
				dir = filepath.Join(d, "..", "shared")
				break
			}
			if filepath.Dir(d) == d {
				dir = filepath.Join(wd, "shared")
				break
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "ref")); err != nil {
		t.Skipf("reference data not found at %s (set TFLM_SHARED or place shared/ beside the checkout): %v", dir, err)
	}
	return dir
}

var nonIdent = regexp.MustCompile(`[^a-z0-9_]`)

// ParseModel reads and parses the model file at path, failing the test
// on an error.
func ParseModel(t testing.TB, path string) *model.Graph {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g, err := model.Parse(filepath.Base(path), data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return g
}

// PackageName makes a package name of a model name.
func PackageName(model string) string {
	return nonIdent.ReplaceAllString(strings.ToLower(model), "_")
}

// OutputsMatch compares generated and reference output bytes: exactly for
// integer types, within 1e-5 relative for float32.
func OutputsMatch(t *model.Tensor, got, want []byte) (bool, string) {
	if len(got) != len(want) {
		return false, fmt.Sprintf("%d bytes, want %d", len(got), len(want))
	}
	if t.Type != model.Float32 {
		for i := range got {
			if got[i] != want[i] {
				return false, fmt.Sprintf("byte %d is %d, want %d", i, got[i], want[i])
			}
		}
		return true, ""
	}
	worst := 0.0
	for i := 0; i+4 <= len(got); i += 4 {
		g := float64(math.Float32frombits(binary.LittleEndian.Uint32(got[i:])))
		w := float64(math.Float32frombits(binary.LittleEndian.Uint32(want[i:])))
		d := math.Abs(g - w)
		if d > 1e-5*math.Abs(w) && d > 1e-6 {
			return false, fmt.Sprintf("element %d is %g, want %g", i/4, g, w)
		}
		worst = max(worst, d)
	}
	return true, fmt.Sprintf("max abs diff %.3g", worst)
}
