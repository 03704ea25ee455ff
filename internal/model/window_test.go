package model

import "testing"

// TestWindowGeometry: output sizes and SAME's leading padding of layers
// of the reference models (../shared/models: person_detect's 96x96 input
// through a 3x3 convolution of stride 2, the 1x1 and 3x3 stride-1 ones,
// MobileNet's 224 stem) and of VALID and dilated windows.
func TestWindowGeometry(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		same                 bool
		in, stride, span     int
		wantOut, wantSamePad int
	}{
		{"3x3 stride 2 SAME, 96", true, 96, 2, 3, 48, 0},
		{"3x3 stride 2 SAME, 97", true, 97, 2, 3, 49, 1},
		{"3x3 stride 1 SAME", true, 48, 1, 3, 48, 1},
		{"1x1 stride 1 SAME", true, 48, 1, 1, 48, 0},
		{"3x3 stride 2 SAME, 224", true, 224, 2, 3, 112, 0},
		{"3x3 dilation 2 SAME", true, 20, 1, 5, 20, 2},
		{"3x3 stride 2 VALID", false, 97, 2, 3, 48, 0},
		{"9x9 VALID", false, 34, 1, 9, 26, 0},
		{"window over the whole input", false, 7, 1, 7, 1, 0},
		{"window wider than the input", false, 3, 1, 5, -1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := WindowOut(tc.same, tc.in, tc.stride, tc.span)
			if out != tc.wantOut {
				t.Errorf("WindowOut = %d, want %d", out, tc.wantOut)
			}
			if pad := SamePad(tc.in, out, tc.stride, tc.span); tc.same && pad != tc.wantSamePad {
				t.Errorf("SamePad = %d, want %d", pad, tc.wantSamePad)
			}
		})
	}
}
