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

// TestSlideDownWords: slideDownWords moves bytes down as copy does, for
// every distance, length and alignment of a small buffer (overlapping or
// not), and slideDown likewise.
func TestSlideDownWords(t *testing.T) {
	for from := 0; from < 40; from++ {
		for to := 0; to <= from; to++ {
			for n := 0; from+n <= 72; n++ {
				b := make([]byte, 80)
				for i := range b {
					b[i] = byte(i*7 + 1)
				}
				want := append([]byte(nil), b...)
				copy(want[to:to+n], want[from:from+n])
				got := append([]byte(nil), b...)
				slideDownWords(got[to:to+n], got[from:from+n])
				if !bytes.Equal(got, want) {
					t.Fatalf("from %d to %d, %d bytes: got %v, want %v", from, to, n, got, want)
				}
				got = append(got[:0], b...)
				slideDown(got[to:to+n], got[from:from+n])
				if !bytes.Equal(got, want) {
					t.Fatalf("slideDown from %d to %d, %d bytes: got %v, want %v", from, to, n, got, want)
				}
			}
		}
	}
}
