package gen

import (
	"os"
	"path/filepath"
	"testing"
)

// sharedDir returns the reference data directory (../shared beside the
// checkout, or $TFLM_SHARED), skipping the test when it is absent.
func sharedDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("TFLM_SHARED")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared")
	}
	if _, err := os.Stat(filepath.Join(dir, "ref")); err != nil {
		t.Skipf("reference data not found at %s (set TFLM_SHARED or place shared/ beside the checkout): %v", dir, err)
	}
	return dir
}
