package emit

import "testing"

// TestCommentText: names from the model reach comments unchanged when they
// are plain text, quoted (escapes shown) when they could break the comment
// or display differently from what the compiler reads (issue 26: the
// bidirectional overrides of Trojan Source, CVE-2021-42574).
func TestCommentText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"conv1/relu", "conv1/relu"},
		{"Übergang 层 ½", "Übergang 层 ½"},
		{"a\nb", `"a\nb"`},
		{"tab\there", `"tab\there"`},
		{"x /* y", `"x /* y"`},
		{"y */ x", `"y */ x"`},
		{"admin\u202e\u2066 // evil\u2069\u2066", `"admin\u202e\u2066 // evil\u2069\u2066"`}, // RLO, LRI, PDI
		{"a\u200fb", `"a\u200fb"`}, // right-to-left mark
		{"a\u2028b", `"a\u2028b"`}, // line separator
		{"zero\u200bwidth", `"zero\u200bwidth"`},
		{"bad\uFFFD", `"bad�"`},
		{"nbsp\u00a0x", `"nbsp\u00a0x"`},
	} {
		if got := commentText(tc.in); got != tc.want {
			t.Errorf("commentText(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
