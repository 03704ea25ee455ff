package oracle

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fakeRef writes a stand-in for tflm_ref that prints msg on stderr and
// exits with status rc, and returns an Oracle running it.
func fakeRef(t *testing.T, rc int, msg string) *Oracle {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "tflm_ref")
	script := "#!/bin/sh\necho '" + msg + "' >&2\nexit " + strconv.Itoa(rc) + "\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return &Oracle{bin: bin, dir: t.TempDir()}
}

// TestExitStatus: tflm_ref's exit statuses are told apart by every way of
// running it: 1 is TFLM's rejection, 3 the replay's missing recording, and
// anything else an error that is neither.
func TestExitStatus(t *testing.T) {
	for _, tc := range []struct {
		rc                    int
		msg                   string
		rejected, notRecorded bool
	}{
		{1, "AllocateTensors failed", true, false},
		{2, "usage: tflm_ref ...", false, false},
		{3, "tflm_ref: no recorded TFLM result for this case", false, true},
	} {
		o := fakeRef(t, tc.rc, tc.msg)
		_, errRun := o.Run([]byte("model"), []string{"1"})
		_, _, errPat := o.Patterns([]byte("model"))
		_, errExec := o.Exec("x")
		for what, err := range map[string]error{"Run": errRun, "Patterns": errPat, "Exec": errExec} {
			if err == nil || errors.Is(err, ErrRejected) != tc.rejected || errors.Is(err, ErrNotRecorded) != tc.notRecorded ||
				!strings.Contains(err.Error(), tc.msg) {
				t.Errorf("exit status %d: %s: error %v, want rejected %v, not recorded %v, with the message", tc.rc, what, err, tc.rejected, tc.notRecorded)
			}
		}
	}
}

// TestReplayMiss: the reference data's tflm_ref, given a recording without
// the case (an empty store), misses, and the oracle says so. The miss is
// left out of TFLM_REPLAY_LOG, which lists the project's unintended ones.
func TestReplayMiss(t *testing.T) {
	o := New(t)
	t.Setenv("TFLM_REPLAY_DIR", t.TempDir())
	t.Setenv("TFLM_REPLAY_LOG", "")
	_, err := o.Run([]byte("not a model: oracle.TestReplayMiss"), []string{"1"})
	if !errors.Is(err, ErrNotRecorded) {
		t.Fatalf("error %v, want ErrNotRecorded", err)
	}
	t.Log(err)
}

// TestSkipIfNotRecorded skips on ErrNotRecorded only.
func TestSkipIfNotRecorded(t *testing.T) {
	t.Run("other error", func(t *testing.T) {
		SkipIfNotRecorded(t, ErrRejected, "case")
	})
	t.Run("nil", func(t *testing.T) {
		SkipIfNotRecorded(t, nil, "case")
	})
	var skipped bool
	t.Run("not recorded", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		SkipIfNotRecorded(t, errors.Join(errors.New("x"), ErrNotRecorded), "case")
	})
	if !skipped {
		t.Error("ErrNotRecorded did not skip")
	}
}
