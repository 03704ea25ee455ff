// Package oracle runs TensorFlow Lite Micro (shared/tflm/tflm_ref, the
// reference-kernel build behind shared/ref, now a replay of its recorded
// runs) on models that tests build, for differential tests: the same model
// and inputs through TFLM and through tflm-gen must give the same output
// bytes.
//
// A call the replay has no recording of is an error wrapping
// ErrNotRecorded: there is no reference for that case, so a test skips it
// (SkipIfNotRecorded for a test of one case; gen/lower's differential
// harness counts the skips) and neither passes nor fails it.
package oracle

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"
)

// ErrRejected is wrapped when TFLM refuses the model (its Prepare or Invoke
// failed); the error text carries TFLM's log.
var ErrRejected = errors.New("TFLM rejected the model")

// ErrNotRecorded is wrapped when tflm_ref has no recorded TFLM result for
// the call (the replay exits with notRecordedStatus; shared/tflm/README.md,
// "Replay"): a case added or changed since the recording. The error text
// carries tflm_ref's message.
var ErrNotRecorded = errors.New("no TFLM reference for this case")

// Exit statuses of tflm_ref: the real binary's "TFLM rejected the model"
// (AllocateTensors or Invoke failed), and the replay's "not recorded".
const (
	rejectedStatus    = 1
	notRecordedStatus = 3
)

// exitError classifies a failed run of tflm_ref from its error and
// stderr: ErrRejected, ErrNotRecorded, or any other failure.
func exitError(err error, stderr []byte) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() > 0 {
		return statusError(ee.ExitCode(), stderr)
	}
	return fmt.Errorf("tflm_ref: %v: %s", err, strings.TrimSpace(string(stderr)))
}

// statusError is the error of tflm_ref's exit with status code (not 0)
// and stderr.
func statusError(code int, stderr []byte) error {
	msg := strings.TrimSpace(string(stderr))
	switch code {
	case rejectedStatus:
		return fmt.Errorf("%w: %s", ErrRejected, msg)
	case notRecordedStatus:
		return fmt.Errorf("%w (tflm_ref exit status %d): %s", ErrNotRecorded, notRecordedStatus, msg)
	}
	return fmt.Errorf("tflm_ref: exit status %d: %s", code, msg)
}

// SkipIfNotRecorded skips a test of one case when err wraps ErrNotRecorded,
// naming the case; other errors, and nil, return.
func SkipIfNotRecorded(t testing.TB, err error, what string) {
	t.Helper()
	if errors.Is(err, ErrNotRecorded) {
		t.Skipf("%s: skipped: %v", what, err)
	}
}

// Oracle runs tflm_ref in a scratch directory. Its methods may be called
// from several goroutines at once.
type Oracle struct {
	bin, dir string
	n        atomic.Int64
}

// New locates tflm_ref under the reference data (see e2e.SharedDir),
// skipping the test when it is absent.
func New(t testing.TB) *Oracle {
	t.Helper()
	bin := filepath.Join(e2e.SharedDir(t), "tflm", "tflm_ref")
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("TFLM oracle not found at %s: %v", bin, err)
	}
	return &Oracle{bin: bin, dir: t.TempDir()}
}

// Run writes model to a file, runs one Invoke in TFLM with the given inputs
// (one list of values per graph input, in the tensor's element type) and
// returns the values of every output as TFLM prints them (integers in
// decimal, float32 with 9 significant digits, which round-trips).
func (o *Oracle) Run(model []byte, inputs ...[]string) ([][]string, error) {
	// A small arena first: the default 256 MiB costs most of the run
	// time, and the pages of a 4 MiB one still half of it. A model that
	// does not fit in it is run again in 4 MiB.
	out, err := o.run(256<<10, model, inputs)
	if errors.Is(err, ErrRejected) && outOfArena.MatchString(err.Error()) {
		out, err = o.run(4<<20, model, inputs)
	}
	return out, err
}

// outOfArena matches TFLM's messages for an arena too small (its
// allocators' "Failed to allocate ...", "Unable to allocate ...", "Failed to
// resize buffer ...").
var outOfArena = regexp.MustCompile(`(?i)allocate|resize buffer`)

func (o *Oracle) run(arena int, model []byte, inputs [][]string) ([][]string, error) {
	stem := filepath.Join(o.dir, fmt.Sprintf("case%d", o.n.Add(1)))
	if err := os.WriteFile(stem+".tflite", model, 0o644); err != nil {
		return nil, err
	}
	args := []string{"-arena", strconv.Itoa(arena), "-csv", stem + ".tflite", stem + ".out.csv"}
	for k, in := range inputs {
		f := fmt.Sprintf("%s.in%d.csv", stem, k)
		if err := os.WriteFile(f, []byte(strings.Join(in, ",")+"\n"), 0o644); err != nil {
			return nil, err
		}
		args = append(args, f)
	}
	if _, err := o.Exec(args...); err != nil {
		return nil, err
	}
	var outs [][]string
	for k := 0; ; k++ {
		f := stem + ".out.csv"
		if k > 0 {
			f = fmt.Sprintf("%s.out.csv.out%d.csv", stem, k)
			if _, err := os.Stat(f); err != nil {
				f = fmt.Sprintf("%s.out.out%d.csv", stem, k)
			}
		}
		b, err := os.ReadFile(f)
		if err != nil {
			if k == 0 {
				return nil, err
			}
			return outs, nil
		}
		outs = append(outs, strings.FieldsFunc(strings.TrimSpace(string(b)), func(r rune) bool { return r == ',' || r == ' ' || r == '\n' }))
	}
}

// Exec runs tflm_ref with args (its command line, shared/tflm/README.md)
// and returns its stdout. A failure wraps ErrRejected (TFLM's Prepare or
// Invoke failed; the text carries TFLM's log), ErrNotRecorded (the replay
// has no recording of the call), or is any other error of the run.
//
// A call the recording in shared/tflm/replay holds is answered in process
// (replay.go), as tflm_ref would answer it, without running it.
func (o *Oracle) Exec(args ...string) (stdout []byte, err error) {
	if out, err, ok := o.replay(args); ok {
		return out, err
	}
	var out, stderr bytes.Buffer
	cmd := exec.Command(o.bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, exitError(err, stderr.Bytes())
	}
	return out.Bytes(), nil
}

// Ints formats integers as input values.
func Ints[T ~int8 | ~int16 | ~int32 | ~int64 | ~uint8](v []T) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = strconv.FormatInt(int64(x), 10)
	}
	return out
}

// Floats formats float32 values so that TFLM reads back the same bits.
func Floats(v []float32) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = strconv.FormatFloat(float64(x), 'g', -1, 32)
	}
	return out
}

// ParseFloats reads float32 output values ("nan", "inf" included).
func ParseFloats(s []string) ([]float32, error) {
	out := make([]float32, len(s))
	for i, x := range s {
		f, err := strconv.ParseFloat(strings.ToLower(x), 32)
		if err != nil {
			if strings.Contains(strings.ToLower(x), "nan") {
				out[i] = float32(math.NaN())
				continue
			}
			return nil, fmt.Errorf("output value %d: %w", i, err)
		}
		out[i] = float32(f)
	}
	return out, nil
}

// ParseInts reads integer output values.
func ParseInts(s []string) ([]int64, error) {
	out := make([]int64, len(s))
	for i, x := range s {
		v, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("output value %d: %w", i, err)
		}
		out[i] = v
	}
	return out, nil
}

// Patterns runs model in TFLM's pattern mode (one Invoke per input
// pattern, ramp and xorshift, in a fresh interpreter; shared/PATTERNS.md)
// and returns TFLM's arena_used_bytes and the raw output bytes of every
// output, for both patterns in that order.
func (o *Oracle) Patterns(model []byte) (arenaUsed int, outputs [][]byte, err error) {
	stem := filepath.Join(o.dir, fmt.Sprintf("case%d", o.n.Add(1)))
	if err := os.WriteFile(stem+".tflite", model, 0o644); err != nil {
		return 0, nil, err
	}
	stdout, err := o.Exec(stem+".tflite", stem)
	if err != nil {
		return 0, nil, err
	}
	_, rest, ok := strings.Cut(string(stdout), "arena_used ")
	if !ok {
		return 0, nil, fmt.Errorf("tflm_ref printed no arena_used: %q", stdout)
	}
	if arenaUsed, err = strconv.Atoi(strings.Fields(rest)[0]); err != nil {
		return 0, nil, fmt.Errorf("tflm_ref arena_used: %v", err)
	}
	for _, p := range []string{"ramp", "xorshift"} {
		for k := 0; ; k++ {
			b, err := os.ReadFile(fmt.Sprintf("%s.%s.out%d.bin", stem, p, k))
			if err != nil {
				if k == 0 {
					return 0, nil, err
				}
				break
			}
			outputs = append(outputs, b)
		}
	}
	return arenaUsed, outputs, nil
}
