package emit

import "testing"

func TestDropStyleDirectives(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"simplification check", "a()\n\t//lint:ignore S1001 reason\n\tfor {}\n", "a()\n\tfor {}\n"},
		{"style checks", "//lint:ignore ST1003,S1008 reason\nx\n", "x\n"},
		{"correctness check kept", "//lint:ignore SA4006 reason\nx\n", "//lint:ignore SA4006 reason\nx\n"},
		{"mixed list kept", "//lint:ignore S1001,SA4006 reason\nx\n", "//lint:ignore S1001,SA4006 reason\nx\n"},
		{"ordinary comment kept", "// lint:ignore S1001 is prose here\nx", "// lint:ignore S1001 is prose here\nx"},
		{"last line without newline", "x\n//lint:ignore S1001 r", "x\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(dropStyleDirectives([]byte(tc.in))); got != tc.want {
				t.Errorf("dropStyleDirectives(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
