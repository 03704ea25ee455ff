package lower

import (
	"encoding/binary"
	"testing"
)

func TestConvLeanOK(t *testing.T) {
	for _, tc := range []struct {
		k, outC int
		want    bool
	}{
		{k: 9, outC: 16, want: true},
		{k: 0, outC: 8, want: false},
		{k: 8, outC: 0, want: false},
		{k: 33025, outC: 1, want: false}, // 33025*255*255 >= 2^31
		{k: 2048, outC: 8, want: true},   // exactly convLeanMaxBytes
		{k: 2049, outC: 8, want: false},  // one k over
		{k: 1024, outC: 9, want: true},   // two blocks of eight channels, exactly the bound
		{k: 1025, outC: 9, want: false},  // two blocks, one k over
	} {
		if got := convLeanOK(tc.k, tc.outC); got != tc.want {
			t.Errorf("convLeanOK(%d, %d) = %v, want %v", tc.k, tc.outC, got, tc.want)
		}
	}
}

// TestConvLeanLayout checks the pairing and padding of convLeanLayout on
// three channels of two weights: per k, four int64 u(2j) + u(2j+1)<<32 with
// u = w+128, channels 3..7 being zero weights (u = 128).
func TestConvLeanLayout(t *testing.T) {
	got := convLeanLayout([][]int8{{1, -2}, {3, 4}, {-128, 127}})
	want := []uint64{
		129 | 131<<32, 0 | 128<<32, 128 | 128<<32, 128 | 128<<32, // k = 0
		126 | 132<<32, 255 | 128<<32, 128 | 128<<32, 128 | 128<<32, // k = 1
	}
	if len(got) != 8*len(want) {
		t.Fatalf("layout is %d bytes, want %d", len(got), 8*len(want))
	}
	for i, w := range want {
		if v := binary.LittleEndian.Uint64(got[8*i:]); v != w {
			t.Errorf("word %d = %#x, want %#x", i, v, w)
		}
	}
}
