package lower

import (
	"errors"
	"fmt"
)

// refCompare checks the outputs of a case that did not run through TFLM
// against the reference implementations (refRun), with the test's own
// comparison cmp; on every case the full run compares, refCheck holds the
// references equal to TFLM's outputs bit for bit, so cmp passes here
// whenever it passes against TFLM. It reports whether the references cover
// the case.
func refCompare(c diffCase, got [][]byte, cmp func(c diffCase, got [][]byte, want [][]string) error) (bool, error) {
	var raws [][]byte
	for _, v := range c.inputs {
		raws = append(raws, v.Raw())
	}
	ref, err := refRun(c.model, raws...)
	switch {
	case errors.Is(err, errNoRef):
		return false, nil
	case err != nil:
		return true, fmt.Errorf("reference implementation: %w", err)
	case len(ref) != len(got):
		return true, fmt.Errorf("%d outputs, the reference implementation has %d", len(got), len(ref))
	}
	want := make([][]string, len(ref))
	for k, v := range ref {
		want[k] = v.CSV()
	}
	if err := cmp(c, got, want); err != nil {
		return true, fmt.Errorf("against the reference implementation (fuzz_ref_test.go; not run through TFLM): %w", err)
	}
	return true, nil
}
