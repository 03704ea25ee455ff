package kernels

import (
	"bytes"
	"testing"
)

func TestSlideRows(t *testing.T) {
	tests := []struct {
		name       string
		rows, keep int // rows held, rows still needed (the last ones)
		rowBytes   int
	}{
		{"keep two of three", 3, 2, 4},
		{"keep one of three", 3, 1, 5},
		{"keep all", 2, 2, 3},
		{"keep none", 4, 0, 2},
		{"keep more than dropped", 5, 4, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := make([]uint8, tc.rows*tc.rowBytes)
			for i := range b {
				b[i] = uint8(i + 1)
			}
			from := (tc.rows - tc.keep) * tc.rowBytes
			want := append([]uint8(nil), b[from:]...)
			slideRows(b, from)
			if got := b[:len(want)]; !bytes.Equal(got, want) {
				t.Errorf("after slideRows: %v, want %v first", b, want)
			}
		})
	}
}
