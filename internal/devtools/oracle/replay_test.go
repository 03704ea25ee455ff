package oracle

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"
)

// TestReplayMatchesTflmRef: the replay in process (replay.go) answers as
// shared/tflm/tflm_ref does. Each reference model's pattern run (recorded:
// gen's TestEmitOfflineInTFLM makes these calls) goes both ways, tflm_ref
// forced by TFLM_REPLAY_LOG: the same stdout but for the call's own paths,
// the same files, byte for byte, and the same error; so does a call
// neither has a recording of, and a usage error.
func TestReplayMatchesTflmRef(t *testing.T) {
	o := New(t)
	models, _ := filepath.Glob(filepath.Join(e2e.SharedDir(t), "models", "*.tflite"))
	if len(models) == 0 {
		t.Skip("no models in shared/models")
	}
	// run makes one call in a fresh directory, in process or through
	// tflm_ref, and returns what it gave with the directory's path
	// replaced by DIR.
	type result struct {
		stdout string
		err    string
		files  map[string][]byte
		hit    bool
	}
	run := func(t *testing.T, inProcess bool, model []byte, args func(dir string) []string) result {
		dir := t.TempDir()
		if model != nil {
			if err := os.WriteFile(filepath.Join(dir, "case.tflite"), model, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		log := ""
		if !inProcess {
			log = filepath.Join(t.TempDir(), "replay.log")
		}
		t.Setenv("TFLM_REPLAY_LOG", log)
		a := args(dir)
		var r result
		var err error
		var out []byte
		if inProcess {
			out, err, r.hit = o.replay(a)
			if !r.hit {
				out, err = o.Exec(a...)
			}
		} else {
			out, err = o.Exec(a...)
			b, _ := os.ReadFile(log)
			r.hit = bytes.Contains(b, []byte(`"r": "hit"`))
		}
		r.stdout = strings.ReplaceAll(string(out), dir, "DIR")
		if err != nil {
			r.err = strings.ReplaceAll(err.Error(), dir, "DIR")
		}
		r.files = map[string][]byte{}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			r.files[e.Name()] = bytes.ReplaceAll(b, []byte(dir), []byte("DIR"))
		}
		return r
	}
	compare := func(t *testing.T, model []byte, args func(dir string) []string, wantHit bool) {
		t.Helper()
		got, want := run(t, true, model, args), run(t, false, model, args)
		if got.hit != wantHit || want.hit != wantHit {
			t.Fatalf("answered in process %v, recorded for tflm_ref %v; want %v", got.hit, want.hit, wantHit)
		}
		if got.stdout != want.stdout {
			t.Errorf("stdout %q, tflm_ref's %q", got.stdout, want.stdout)
		}
		if got.err != want.err {
			t.Errorf("error %q, tflm_ref's %q", got.err, want.err)
		}
		names := func(m map[string][]byte) []string {
			var s []string
			for n := range m {
				s = append(s, n)
			}
			slices.Sort(s)
			return s
		}
		if !slices.Equal(names(got.files), names(want.files)) {
			t.Fatalf("files %v, tflm_ref's %v", names(got.files), names(want.files))
		}
		for n, b := range want.files {
			if !bytes.Equal(got.files[n], b) {
				t.Errorf("file %s differs from tflm_ref's", n)
			}
		}
	}
	for _, m := range models {
		t.Run(filepath.Base(m), func(t *testing.T) {
			data, err := os.ReadFile(m)
			if err != nil {
				t.Fatal(err)
			}
			compare(t, data, func(dir string) []string {
				return []string{filepath.Join(dir, "case.tflite"), filepath.Join(dir, "case")}
			}, true)
		})
	}
	t.Run("not recorded", func(t *testing.T) {
		compare(t, []byte("not a model: oracle.TestReplayMatchesTflmRef"), func(dir string) []string {
			return []string{"-arena", "1000", "-csv", filepath.Join(dir, "case.tflite"), filepath.Join(dir, "out.csv"), filepath.Join(dir, "case.tflite")}
		}, false)
	})
	t.Run("usage error", func(t *testing.T) {
		compare(t, nil, func(dir string) []string { return []string{"-bogus"} }, false)
	})
}

// TestReplayMissInProcess: a call the recording lacks is not answered in
// process, and Exec, running tflm_ref, reports ErrNotRecorded.
func TestReplayMissInProcess(t *testing.T) {
	o := New(t)
	dir := t.TempDir()
	model := filepath.Join(dir, "m.tflite")
	if err := os.WriteFile(model, []byte("oracle.TestReplayMissInProcess"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TFLM_REPLAY_LOG", "")
	args := []string{model, filepath.Join(dir, "m")}
	if _, _, ok := o.replay(args); ok {
		t.Fatal("answered in process without a recording")
	}
	if _, err := o.Exec(args...); !errors.Is(err, ErrNotRecorded) {
		t.Fatalf("error %v, want ErrNotRecorded", err)
	}
}
