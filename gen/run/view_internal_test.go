package run

import (
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/model"
)

// TestViewTypeRaw: a raw (byte) view exists for every type of known
// element size (uint32, for CAST), a typed view only for the kernels'
// element types.
func TestViewTypeRaw(t *testing.T) {
	if g, err := viewType(model.Uint32, true); err != nil || g != "[]uint8" {
		t.Errorf("raw uint32 view: %q, %v", g, err)
	}
	if _, err := viewType(model.Uint32, false); err == nil {
		t.Errorf("typed uint32 view accepted")
	}
	if _, err := viewType(model.DType(200), true); err == nil {
		t.Errorf("raw view of an unknown type accepted")
	}
}
