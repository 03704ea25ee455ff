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

// TestCopyBytesSlide: a fused group's line buffer slides its last rows
// down to its start, source and destination overlapping.
func TestCopyBytesSlide(t *testing.T) {
	tests := []struct {
		name             string
		rows, keep, size int // rows held, rows still needed (the last ones), bytes per row
	}{
		{"keep two of three", 3, 2, 4},
		{"keep one of three", 3, 1, 5},
		{"keep more than dropped", 5, 4, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := make([]byte, tc.rows*tc.size)
			for i := range b {
				b[i] = byte(i + 1)
			}
			from, n := (tc.rows-tc.keep)*tc.size, tc.keep*tc.size
			want := append([]byte(nil), b[from:]...)
			copyBytes(b[:n], b[from:from+n])
			if !bytes.Equal(b[:n], want) {
				t.Errorf("after the slide: %v, want %v first", b, want)
			}
		})
	}
}
