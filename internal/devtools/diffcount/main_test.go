package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestParseAndWrite: count lines are summed by operator, skipped cases in
// their own column, and failed tests listed.
func TestParseAndWrite(t *testing.T) {
	events := `{"Action":"run","Test":"TestGatherMatchesTFLM/GATHER_int8"}
{"Action":"output","Test":"TestGatherMatchesTFLM/GATHER_int8","Output":"    diff_test.go:300: differential counts: compared 190, refused 4, skipped 6, mismatches 0\n"}
{"Action":"output","Test":"TestGatherMatchesTFLM/GATHER_float32","Output":"    diff_test.go:300: differential counts: compared 0, refused 0, skipped 200, mismatches 0\n"}
{"Action":"skip","Test":"TestGatherMatchesTFLM/GATHER_float32"}
{"Action":"output","Test":"TestCustom/TFLite_Detection_PostProcess_float32","Output":"differential counts: compared 20, refused 0, skipped 0, mismatches 1\n"}
{"Action":"fail","Test":"TestCustom/TFLite_Detection_PostProcess_float32"}
`
	byOp, failed, err := parse(strings.NewReader(events))
	if err != nil {
		t.Fatal(err)
	}
	if g := byOp["GATHER"]; g == nil || *g != (counts{combos: 2, compared: 190, refused: 4, skipped: 206}) {
		t.Errorf("GATHER: %+v", g)
	}
	if len(failed) != 1 || failed[0] != "TestCustom/TFLite_Detection_PostProcess_float32" {
		t.Errorf("failed: %q", failed)
	}
	var b bytes.Buffer
	write(&b, byOp)
	for _, want := range []string{
		"| operator | type combinations | cases compared with TFLM | refused (as TFLM, or documented) | skipped (no TFLM recording) | mismatches |",
		"| GATHER | 2 | 190 | 4 | 206 | 0 |",
		"| TFLite_Detection_PostProcess | 1 | 20 | 0 | 0 | 1 |",
		"| all 2 operators | 3 | 210 | 4 | 206 | 1 |",
	} {
		if !strings.Contains(b.String(), want+"\n") {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}
