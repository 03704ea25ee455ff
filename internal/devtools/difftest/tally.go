package difftest

import (
	"errors"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/oracle"
)

// Tally counts the cases of one differential (sub)test for its count
// line (Log).
type Tally struct {
	Compared   int // outputs compared with TFLM's
	Refused    int // refused by both sides, or by tflm-gen as documented
	Skipped    int // no TFLM reference (oracle.ErrNotRecorded): neither passed nor failed
	Mismatches int // failed
	// The cases the default mode did not run through TFLM (Sweep; -long
	// runs them): Unrun those tflm-gen lowers, RefChecked those of them
	// compared with the reference implementations instead (gen/lower's refCompare),
	// UnrunRefused those tflm-gen refuses.
	Unrun, RefChecked, UnrunRefused int
}

// Skip reports whether oerr says that the oracle has no recording of case
// i (oracle.ErrNotRecorded); it then counts the case as skipped and logs
// it. A test checks this before anything else about the case.
func (n *Tally) Skip(t *testing.T, oerr error, i int, desc string) bool {
	t.Helper()
	if !errors.Is(oerr, oracle.ErrNotRecorded) {
		return false
	}
	n.Skipped++
	t.Logf("case %d (%s): skipped: %v", i, desc, oerr)
	return true
}

// Done is the number of cases compared, skipped, or not run through TFLM
// but expected to compare (unrun): a test that draws cases until enough
// were compared stops at the same case whether or not the oracle had their
// recordings and, in the default mode, about where the full run stops (a
// case beyond the full run's is skipped: the oracle has no recording of it).
func (n Tally) Done() int { return n.Compared + n.Skipped + n.Unrun }

// Log writes the count line of one differential (sub)test, which
// internal/devtools/diffcount collects into a table per operator. The test
// (or subtest) name must start with the operator's name followed by "_"
// and the types in lower case (e.g. "RESIZE_BILINEAR_int8"). A test that
// compared nothing fails, unless cases were skipped for want of a
// reference: the skipped cases may be those that would have compared, so
// the test is skipped.
func (n Tally) Log(t *testing.T) {
	t.Helper()
	t.Logf("differential counts: compared %d, refused %d, skipped %d, mismatches %d", n.Compared, n.Refused, n.Skipped, n.Mismatches)
	n.LogUnrun(t)
	n.SkipIfNoneCompared(t)
	if n.Compared == 0 {
		t.Errorf("no case compared with TFLM")
	}
}

// UnrunCase counts a case the default mode does not run through TFLM,
// which tflm-gen lowers (gerr nil) or refuses.
func (n *Tally) UnrunCase(gerr error) {
	if gerr != nil {
		n.UnrunRefused++
	} else {
		n.Unrun++
	}
}

// LogUnrun logs how many cases the default mode did not run through TFLM.
func (n Tally) LogUnrun(t *testing.T) {
	t.Helper()
	if n.Unrun+n.UnrunRefused > 0 {
		t.Logf("default mode: %d more cases not run through TFLM (go test -long runs them): %d lowered, %d of them compared with the reference implementations; %d refused",
			n.Unrun+n.UnrunRefused, n.Unrun, n.RefChecked, n.UnrunRefused)
	}
}

// SkipIfNoneCompared skips the test when it compared no case and skipped
// some for want of a reference (for tests that log no count line).
func (n Tally) SkipIfNoneCompared(t *testing.T) {
	t.Helper()
	if n.Compared == 0 && n.Skipped > 0 {
		t.Skipf("no case compared with TFLM: %d cases skipped for want of a recorded TFLM result (shared/tflm/README.md, Replay)", n.Skipped)
	}
}

// Count is the number of cases of a test that draws cases until
// enough were compared: short with -short, else long. The test must draw
// from a random source of its own, so that -short runs a prefix of the
// full run's cases.
func Count(short, long int) int {
	if testing.Short() {
		return short
	}
	return long
}
