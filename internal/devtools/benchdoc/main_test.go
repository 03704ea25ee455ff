package main

import (
	"strings"
	"testing"
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

func TestCallgrindTotal(t *testing.T) {
	for _, tc := range []struct {
		name, profile string
		want          int64
		err           string
	}{
		{"ok", "events: Ir\nfn=(1) x\n3 5\nsummary: 180163\ntotals: 180163\n", 180163, ""},
		{"zero", "events: Ir\ntotals: 0\n", 0, "inlined"},
		{"missing", "events: Ir\n", 0, "no totals"},
		{"stack copy", "fn=(9) runtime.copystack\ntotals: 5\n", 0, "stack was copied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := callgrindTotal([]byte(tc.profile))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %d, %v; want %d", got, err, tc.want)
			}
		})
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
