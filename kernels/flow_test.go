package kernels

import (
	"bytes"
	"testing"
)

// TestCopyBytes: TFLM's memcpy between a variable and a tensor
// (micro_resource_variable.cc Read/Assign, kernel_util.cc's subgraph copies).
func TestCopyBytes(t *testing.T) {
	src := []byte{1, 2, 3, 0xff}
	dst := make([]byte, 4)
	copyBytes(dst, src)
	if !bytes.Equal(dst, src) {
		t.Fatalf("got %v, want %v", dst, src)
	}
	copyBytes(dst[:0], src[:0])
}
