package lower

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/devtools/oracle"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// The harness of the differential tests against TFLite Micro (the oracle):
// random models, their inputs, the comparison and the count line that
// internal/devtools/diffcount collects.

// diffCase is one random single-operator model with its graph inputs.
type diffCase struct {
	desc   string
	model  []byte
	inputs []difftest.Vals
	outDT  model.DType
}

// diffN is the number of random cases of a differential (sub)test: long
// in a full run, short with -short. The cases are always drawn long from
// the random source, so that -short runs a prefix of the full run's cases
// and the source is left as the full run leaves it for whatever draws from
// it next (the oracle's replay holds the full run's cases only).
type diffN struct{ short, long int }

// run is the number of the drawn cases that run.
func (n diffN) run() int {
	if testing.Short() {
		return min(n.short, n.long)
	}
	return n.long
}

// runDiffCases runs n cases from gen through TFLM and in-process and
// compares output 0. A model TFLM rejects must be refused by the lowering;
// a model TFLM runs may be refused only when allowRefusal says so (a
// documented refusal). A case the oracle has no recording of is skipped.
// It returns the numbers compared and refused and logs the counts
// (difftest.Tally.log: the test fails when no case compared, and is skipped when
// that is because cases were skipped).
func runDiffCases(t *testing.T, o *oracle.Oracle, n diffN, r *rand.Rand, gen func(r *rand.Rand) diffCase, allowRefusal func(error) bool) (compared, refused int) {
	t.Helper()
	return runDiffCasesWith(t, o, n, r, gen, allowRefusal, func(c diffCase, got [][]byte, want [][]string) error {
		return difftest.CompareRaw(c.outDT, got[0], want[0])
	})
}

// runDiffCasesWith is runDiffCases comparing the outputs with cmp (every
// output, or float32 within a tolerance). Every case runs in-process; the
// cases sweep picks run through TFLM too, the others are compared with the
// reference implementations where they cover them (refCompare).
func runDiffCasesWith(t *testing.T, o *oracle.Oracle, n diffN, r *rand.Rand, gen func(r *rand.Rand) diffCase, allowRefusal func(error) bool,
	cmp func(c diffCase, got [][]byte, want [][]string) error) (compared, refused int) {
	t.Helper()
	// The cases are drawn in order from r, then run on every core: each
	// TFLM run is a process of its own.
	cases := make([]diffCase, n.long)
	for i := range cases {
		cases[i] = gen(r)
	}
	cases = cases[:n.run()]
	type result struct {
		path       []string
		want       [][]string
		got        [][]byte
		oerr, gerr error
	}
	res := make([]result, len(cases))
	parallel(len(cases), func(i int) {
		var raws [][]byte
		for _, v := range cases[i].inputs {
			raws = append(raws, v.Raw())
		}
		res[i].got, res[i].path, res[i].gerr = inProcessPath(cases[i].model, raws...)
	})
	var sw difftest.Sweep
	picked := make([]bool, len(cases))
	for i := range cases {
		picked[i] = sw.Pick(i, res[i].path)
	}
	parallel(len(cases), func(i int) {
		if !picked[i] {
			return
		}
		var csvs [][]string
		for _, v := range cases[i].inputs {
			csvs = append(csvs, v.CSV())
		}
		res[i].want, res[i].oerr = o.Run(cases[i].model, csvs...)
	})
	var tally difftest.Tally
	for i, c := range cases {
		want, oerr, got, gerr := res[i].want, res[i].oerr, res[i].got, res[i].gerr
		if !picked[i] {
			tally.UnrunCase(gerr)
			if gerr != nil {
				continue
			}
			if ok, err := refCompare(c, got, cmp); err != nil {
				t.Errorf("case %d (%s): %v", i, c.desc, err)
				tally.Mismatches++
			} else if ok {
				tally.RefChecked++
			}
			continue
		}
		if tally.Skip(t, oerr, i, c.desc) {
			continue
		}
		switch {
		case oerr != nil && errors.Is(oerr, oracle.ErrRejected):
			if gerr == nil {
				t.Errorf("case %d (%s): TFLM rejects the model (%v) but tflm-gen lowers it", i, c.desc, oerr)
				tally.Mismatches++
			}
			tally.Refused++
			continue
		case oerr != nil:
			t.Fatalf("case %d (%s): oracle: %v", i, c.desc, oerr)
		case gerr != nil:
			if !errors.Is(gerr, ErrUnsupported) || allowRefusal == nil || !allowRefusal(gerr) {
				t.Errorf("case %d (%s): TFLM runs it, tflm-gen: %v", i, c.desc, gerr)
				tally.Mismatches++
			}
			tally.Refused++
			continue
		}
		if err := cmp(c, got, want); err != nil {
			t.Errorf("case %d (%s): %v", i, c.desc, err)
			tally.Mismatches++
		}
		if err := refCheck(c, want); err != nil {
			t.Errorf("case %d (%s): %v", i, c.desc, err)
		}
		tally.Compared++
	}
	tally.Log(t)
	return tally.Compared, tally.Refused
}

// parallel calls f(i) for i in [0, n) on every core.
func parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				f(i)
			}
		}()
	}
	wg.Wait()
}

// refCheck compares the reference implementations that check new fuzzing
// inputs (fuzz_ref_test.go) with TFLM's outputs of a case, so that they
// stay exact; nil when they do not cover the case.
func refCheck(c diffCase, want [][]string) error {
	var raws [][]byte
	for _, v := range c.inputs {
		raws = append(raws, v.Raw())
	}
	ref, err := refRun(c.model, raws...)
	switch {
	case errors.Is(err, errNoRef):
		return nil
	case err != nil:
		return fmt.Errorf("reference implementation: %w", err)
	case len(ref) != len(want):
		return fmt.Errorf("reference implementation: %d outputs, TFLM has %d", len(ref), len(want))
	}
	for k, v := range ref {
		if err := difftest.CompareRaw(v.DT, v.Raw(), want[k]); err != nil {
			return fmt.Errorf("reference implementation (fuzz_ref_test.go), output %d: %w", k, err)
		}
	}
	return nil
}

// checkRefusedAsTFLM: TFLM rejects the case's model and the lowering
// refuses it with an unsupported-model error naming the operator and
// containing want. It runs as a subtest named after the case, skipped when
// the oracle has no recording of it.
func checkRefusedAsTFLM(t *testing.T, o *oracle.Oracle, c diffCase, code model.OpCode, want string) {
	t.Helper()
	checkRefused(t, o, c, "("+code.String()+")", want)
}

// checkRefused is checkRefusedAsTFLM for an operator named label in the
// lowering's errors ("(CONV_2D)", `(CUSTOM "name")`).
func checkRefused(t *testing.T, o *oracle.Oracle, c diffCase, label, want string) {
	t.Helper()
	t.Run(c.desc, func(t *testing.T) {
		t.Helper()
		var csvs [][]string
		var raws [][]byte
		for _, v := range c.inputs {
			csvs = append(csvs, v.CSV())
			raws = append(raws, v.Raw())
		}
		_, oerr := o.Run(c.model, csvs...)
		oracle.SkipIfNotRecorded(t, oerr, c.desc)
		if !errors.Is(oerr, oracle.ErrRejected) {
			t.Errorf("%s: TFLM did not reject the model: %v", c.desc, oerr)
		}
		_, err := inProcess(c.model, raws...)
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), label) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want an unsupported-model error naming %s and saying %q", c.desc, err, label, want)
		}
	})
}
