package main

import (
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/report"
)

func TestParseBench(t *testing.T) {
	out := `goos: linux
pkg: benchmod/a
BenchmarkInvoke-2   	   19519	     61230 ns/op	         1.847 MAC/ns	       0 B/op	       0 allocs/op
BenchmarkInvoke-2   	   19101	     62262.5 ns/op	         1.817 MAC/ns	       0 B/op	       0 allocs/op
pkg: benchmod/b
BenchmarkInvoke   	   10	     7 ns/op	       16 B/op	       1 allocs/op
PASS
`
	ns, allocs := parseBench([]byte(out))
	if got := ns["benchmod/a"]; len(got) != 2 || got[0] != 61230 || got[1] != 62262.5 {
		t.Errorf("benchmod/a ns = %v", got)
	}
	if got := ns["benchmod/b"]; len(got) != 1 || got[0] != 7 {
		t.Errorf("benchmod/b ns = %v", got)
	}
	if allocs["benchmod/a"] != "0" || allocs["benchmod/b"] != "1" {
		t.Errorf("allocs = %v", allocs)
	}
}

// countSample is count's output for person_detect, as shared/arm/README.md
// shows it.
const countSample = `instructions/invoke 73883190
# ../shared/models/person_detect.tflite, inputs: ramp pattern; Invoke #2 of 3, qemu-arm 32-bit ARM (ARMv7-A, A32)
tflm_ref instructions/invoke 124054151
tflm_cmsis instructions/invoke 22548236
tflm-gen / tflm_ref 0.60
tflm-gen / tflm_cmsis 3.28

tflm-gen: Invoke #1 / #2 / #3 = 73,883,468 / 73,883,190 / 73,883,190; Go runtime excluded 22,151 / 2,637 / 2,637
tflm_ref: Invoke #1 / #2 / #3 = 124,054,152 / 124,054,151 / 124,054,151; arena_used 82300
tflm_cmsis: Invoke #1 / #2 / #3 = 22,548,237 / 22,548,236 / 22,548,236; arena_used 82316
out0: 2 bytes, sha256 27c6622231a09c27; vs tflm_ref: equal; vs tflm_cmsis: equal; vs shared/ref: equal
`

func TestParseCount(t *testing.T) {
	c, err := parseCount([]byte(countSample))
	if err != nil {
		t.Fatal(err)
	}
	if c.ir != 73883190 || c.ref != 124054151 || c.cmsis != 22548236 {
		t.Errorf("counts = %d, %d, %d", c.ir, c.ref, c.cmsis)
	}
	if len(c.outs) != 1 || c.outs[0].name != "out0" || c.outs[0].sha != "27c6622231a09c27" {
		t.Fatalf("outs = %+v", c.outs)
	}
	for _, w := range []string{"tflm_ref", "tflm_cmsis", "shared/ref"} {
		if v := c.outs[0].vs[w]; v != "equal" {
			t.Errorf("vs %s = %q", w, v)
		}
		if bad := c.mismatches(w); len(bad) != 0 {
			t.Errorf("mismatches(%s) = %q", w, bad)
		}
	}

	// Plain count (no TFLM), a second output that differs from shared/ref
	// and an Invoke #3 note.
	plain := `instructions/invoke 5101
# m.tflite -speed, inputs: ramp pattern; Invoke #2 of 3, qemu-x86_64 (x86-64)

tflm-gen: Invoke #1 / #2 / #3 = 5,200 / 5,101 / 5,101; Go runtime excluded 0 / 0 / 0
out0: 40 bytes, sha256 0123456789abcdef (Invoke #3's output differs from #1's: state kept between Invokes); vs shared/ref: equal
out1: 4 bytes, sha256 fedcba9876543210; vs shared/ref: differ in 3 of 4 bytes
`
	p, err := parseCount([]byte(plain))
	if err != nil {
		t.Fatal(err)
	}
	if p.ir != 5101 || p.ref != 0 || p.cmsis != 0 || len(p.outs) != 2 {
		t.Fatalf("plain = %+v", p)
	}
	if bad := p.mismatches("shared/ref"); len(bad) != 1 || bad[0] != "out1 differ in 3 of 4 bytes" {
		t.Errorf("mismatches(shared/ref) = %q", bad)
	}
	if bad := p.mismatches("tflm_ref"); len(bad) != 2 || !strings.Contains(bad[0], "not compared") {
		t.Errorf("mismatches(tflm_ref) = %q", bad)
	}
	if bad := sameOutputs(p, p); len(bad) != 0 {
		t.Errorf("sameOutputs(p, p) = %q", bad)
	}
	if bad := sameOutputs(c, p); len(bad) != 1 {
		t.Errorf("sameOutputs(c, p) = %q", bad)
	}
	q := p
	q.outs = []outCmp{p.outs[0], {name: "out1", sha: "0000000000000000"}}
	if bad := sameOutputs(p, q); len(bad) != 1 || !strings.HasPrefix(bad[0], "out1 ") {
		t.Errorf("sameOutputs(p, q) = %q", bad)
	}

	for _, bad := range []string{"", "tflm_ref instructions/invoke 5\n", "instructions/invoke x\n", "instructions/invoke 0\n"} {
		if _, err := parseCount([]byte(bad)); err == nil {
			t.Errorf("parseCount(%q): no error", bad)
		}
	}
}

func TestArmTarget(t *testing.T) {
	for _, tc := range []struct {
		model                 string
		float                 bool
		ir, speed, ref, cmsis int64
		want                  string
	}{
		{"m", false, 150, 100, 1000, 100, "met"},
		{"m", false, 151, 100, 1000, 100, "**missed** (default > 1.5x)"},
		{"m", false, 150, 101, 1000, 100, "**missed** (-speed > 1.0x)"},
		{"m", false, 328, 277, 550, 100, "**missed** (default > 1.5x, -speed > 1.0x)"},
		{"person_detect", false, 100, 100, 550, 100, "met"},
		{"person_detect", false, 101, 90, 550, 100, "**missed** (default > 1.0x)"},
		{"trained_lstm", true, 1000, 900, 1000, 1000, "float: exempt; ≤ TFLM ref: met"},
		{"trained_lstm", true, 1001, 900, 1000, 1000, "float: exempt; ≤ TFLM ref: **missed**"},
	} {
		if got := armTarget(tc.model, tc.float, tc.ir, tc.speed, tc.ref, tc.cmsis); got != tc.want {
			t.Errorf("armTarget(%+v) = %q, want %q", tc, got, tc.want)
		}
	}
}

func TestFlashOver(t *testing.T) {
	for _, tc := range []struct {
		stored, derived, model int
		want                   bool
	}{
		{1000, 250 + 4096, 1000, false},
		{1000, 251 + 4096, 1000, true},
		{925_000, 0, 366_000, true},
	} {
		c := &report.ConstBytes{Stored: tc.stored, Derived: tc.derived, Model: tc.model}
		if got := flashOver(c); got != tc.want {
			t.Errorf("flashOver(%+v) = %v", *c, got)
		}
	}
}

func TestSameCode(t *testing.T) {
	a := map[string][]byte{"model.go": []byte("package m\n// m.tflite\n"), "layout.txt": []byte("m\n")}
	b := map[string][]byte{"model.go": []byte("package m_speed\n// m.tflite\n"), "layout.txt": []byte("m_speed\n")}
	if !sameCode(a, b, "m", "m_speed") {
		t.Error("same code: false")
	}
	b["model.go"] = []byte("package m_speed\n// x\n")
	if sameCode(a, b, "m", "m_speed") {
		t.Error("different code: true")
	}
}

func TestTarget(t *testing.T) {
	for _, tc := range []struct {
		macs           int64
		tflm, ns, best float64
		want           string
	}{
		{100_000, 100, 10, 10, "-"},
		{100_001, 100, 50, 50, "met"},
		{100_001, 100, 51, 50, "met with -speed"},
		{100_001, 100, 51, 51, "**missed**"},
	} {
		if got := target(tc.macs, tc.tflm, tc.ns, tc.best); got != tc.want {
			t.Errorf("target(%d, %v, %v, %v) = %q, want %q", tc.macs, tc.tflm, tc.ns, tc.best, got, tc.want)
		}
	}
}
