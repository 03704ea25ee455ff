package kernels

import (
	"testing"
	"unsafe"
)

// TestScratchRecordWords checks the record sizes the kernels' scratch
// sizes are computed from against the records themselves (on the host;
// 32-bit targets pad no more than 64-bit ones) and that a scratch of the
// planned size holds what the kernels place in it.
func TestScratchRecordWords(t *testing.T) {
	for _, c := range []struct {
		name  string
		size  uintptr
		words int
	}{
		{"convPWCh", unsafe.Sizeof(convPWCh{}), convPWChWords},
		{"dwRec", unsafe.Sizeof(dwRec{}), dwRecWords},
		{"dw3x3Rec", unsafe.Sizeof(dw3x3Rec{}), dw3x3RecWords},
	} {
		if c.size > uintptr(4*c.words) {
			t.Errorf("%s: %d bytes, the scratch sizes count %d words", c.name, c.size, c.words)
		}
	}
	if n := 4 * (convPWScratch(convPWBlk) - convPWBlk*convPWChWords); n < int(unsafe.Sizeof([2]convPWCh{})) {
		t.Errorf("convPWScratch leaves %d bytes for the pair's records", n)
	}
	for _, c := range []struct {
		name  string
		size  uintptr
		words int
	}{
		{"dspArgs", unsafe.Sizeof(dspArgs{}), dspArgsWords},
		{"dspPWArgs", unsafe.Sizeof(dspPWArgs{}), dspPWArgsWords},
		{"dwDSPArgs", unsafe.Sizeof(dwDSPArgs{}), dwDSPArgsWords},
	} {
		if c.size > uintptr(4*c.words) {
			t.Errorf("%s: %d bytes, the scratch sizes count %d words", c.name, c.size, c.words)
		}
	}
	if n := 4 * (dw3x3Scratch - 3*13*dw3x3G/4); n < int(unsafe.Sizeof([dw3x3G]dw3x3Rec{})) {
		t.Errorf("dw3x3Scratch leaves %d bytes for a group's records", n)
	}
}
