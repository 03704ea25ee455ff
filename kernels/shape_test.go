package kernels

import (
	"bytes"
	"testing"
)

// RESHAPE of a constant input (reshape_test.cc feeds constant data too):
// the output receives the constant's bytes unchanged.
func TestCopyConst(t *testing.T) {
	tests := []struct {
		name string
		src  string
	}{
		{"Empty", ""},
		{"Int8", "\x01\x80\x7f\xff"},
		{"Float32", "\x00\x00\x80\x3f\x00\x00\x00\xc0"},
	}
	for _, tc := range tests {
		dst := make([]byte, len(tc.src))
		copyConst(dst, tc.src)
		if !bytes.Equal(dst, []byte(tc.src)) {
			t.Errorf("%s: got % x, want % x", tc.name, dst, tc.src)
		}
	}
}
