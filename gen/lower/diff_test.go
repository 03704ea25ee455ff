package lower

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/oracle"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// The harness of the differential tests against TFLite Micro (the oracle):
// random models, their inputs, the comparison and the count line that
// internal/devtools/diffcount collects.

// diffVals is the value list of one graph input (or a constant tensor).
type diffVals struct {
	dt   model.DType
	ints []int64
	flts []float32
	// bounds, for index inputs: value i indexes a dimension of size
	// bounds[i % len(bounds)].
	bounds []int
}

func (v diffVals) raw() []byte {
	var b []byte
	switch v.dt {
	case model.Float32:
		for _, x := range v.flts {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
	case model.Int16:
		for _, x := range v.ints {
			b = binary.LittleEndian.AppendUint16(b, uint16(x))
		}
	case model.Int32:
		for _, x := range v.ints {
			b = binary.LittleEndian.AppendUint32(b, uint32(x))
		}
	case model.Int64:
		for _, x := range v.ints {
			b = binary.LittleEndian.AppendUint64(b, uint64(x))
		}
	default:
		for _, x := range v.ints {
			b = append(b, byte(x))
		}
	}
	return b
}

func (v diffVals) csv() []string {
	if v.dt == model.Float32 {
		return oracle.Floats(v.flts)
	}
	return oracle.Ints(v.ints)
}

// randVals draws n values of type dt: integers over the whole type range,
// float32 mostly normal with some zeros of both signs, infinities and
// extremes.
func randVals(r *rand.Rand, dt model.DType, n int) diffVals {
	v := diffVals{dt: dt}
	for i := 0; i < n; i++ {
		if dt == model.Float32 {
			specials := []float32{0, float32(math.Copysign(0, -1)), 1, -1, float32(math.Inf(1)), float32(math.Inf(-1)), 3.4e38, 1.2e-38}
			if r.IntN(16) == 0 {
				v.flts = append(v.flts, specials[r.IntN(len(specials))])
				continue
			}
			v.flts = append(v.flts, float32(r.NormFloat64()*math.Exp2(float64(r.IntN(12)-6))))
			continue
		}
		lo, hi := typeRange(dt)
		v.ints = append(v.ints, int64(lo)+r.Int64N(int64(hi)-int64(lo)+1))
	}
	return v
}

// constTensor adds v as a constant tensor of the given shape.
func (v diffVals) constTensor(m *builder.Model, name string, shape []int, q *builder.Quant) int {
	return m.Const(name, v.dt, shape, q, v.raw())
}

// randQuant is a per-tensor quantization for int8/int16 with zero points
// often at the type limits (int16: 0), nil for other types.
func randQuant(r *rand.Rand, dt model.DType) *builder.Quant {
	if dt != model.Int8 && dt != model.Int16 {
		return nil
	}
	lo, hi := typeRange(dt)
	zp := int64(0)
	if dt == model.Int8 {
		switch r.IntN(4) {
		case 0:
			zp = int64(lo)
		case 1:
			zp = int64(hi)
		default:
			zp = int64(lo) + r.Int64N(int64(hi)-int64(lo)+1)
		}
	}
	return builder.PerTensor(randScale(r), zp)
}

// compareRaw checks output bytes of type dt against the oracle's values:
// integers exactly, float32 by bits (any NaN matching any NaN).
func compareRaw(dt model.DType, got []byte, want []string) error {
	if dt == model.Float32 {
		w, err := oracle.ParseFloats(want)
		if err != nil {
			return err
		}
		if len(w)*4 != len(got) {
			return fmt.Errorf("%d output values, TFLM has %d", len(got)/4, len(w))
		}
		for i, x := range w {
			g := math.Float32frombits(binary.LittleEndian.Uint32(got[4*i:]))
			nx, ng := math.IsNaN(float64(x)), math.IsNaN(float64(g))
			if nx != ng || !nx && math.Float32bits(g) != math.Float32bits(x) {
				return fmt.Errorf("element %d: got %v (%#x), TFLM %v (%#x)", i, g, math.Float32bits(g), x, math.Float32bits(x))
			}
		}
		return nil
	}
	w, err := oracle.ParseInts(want)
	if err != nil {
		return err
	}
	size := dt.Size()
	if len(w)*size != len(got) {
		return fmt.Errorf("%d output values, TFLM has %d", len(got)/size, len(w))
	}
	for i, x := range w {
		var g int64
		switch dt {
		case model.Int8:
			g = int64(int8(got[i]))
		case model.Int16:
			g = int64(int16(binary.LittleEndian.Uint16(got[2*i:])))
		case model.Int32:
			g = int64(int32(binary.LittleEndian.Uint32(got[4*i:])))
		case model.Int64:
			g = int64(binary.LittleEndian.Uint64(got[8*i:]))
		default:
			g = int64(got[i])
		}
		if g != x {
			return fmt.Errorf("element %d: got %d, TFLM %d", i, g, x)
		}
	}
	return nil
}

// diffCase is one random single-operator model with its graph inputs.
type diffCase struct {
	desc   string
	model  []byte
	inputs []diffVals
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
// (diffTally.log: the test fails when no case compared, and is skipped when
// that is because cases were skipped).
func runDiffCases(t *testing.T, o *oracle.Oracle, n diffN, r *rand.Rand, gen func(r *rand.Rand) diffCase, allowRefusal func(error) bool) (compared, refused int) {
	t.Helper()
	return runDiffCasesWith(t, o, n, r, gen, allowRefusal, func(c diffCase, got [][]byte, want [][]string) error {
		return compareRaw(c.outDT, got[0], want[0])
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
			raws = append(raws, v.raw())
		}
		res[i].got, res[i].path, res[i].gerr = inProcessPath(cases[i].model, raws...)
	})
	var sw sweep
	picked := make([]bool, len(cases))
	for i := range cases {
		picked[i] = sw.pick(i, res[i].path)
	}
	parallel(len(cases), func(i int) {
		if !picked[i] {
			return
		}
		var csvs [][]string
		for _, v := range cases[i].inputs {
			csvs = append(csvs, v.csv())
		}
		res[i].want, res[i].oerr = o.Run(cases[i].model, csvs...)
	})
	var tally diffTally
	for i, c := range cases {
		want, oerr, got, gerr := res[i].want, res[i].oerr, res[i].got, res[i].gerr
		if !picked[i] {
			tally.unrunCase(gerr)
			if gerr != nil {
				continue
			}
			if ok, err := refCompare(c, got, cmp); err != nil {
				t.Errorf("case %d (%s): %v", i, c.desc, err)
				tally.mismatches++
			} else if ok {
				tally.refChecked++
			}
			continue
		}
		if tally.skip(t, oerr, i, c.desc) {
			continue
		}
		switch {
		case oerr != nil && errors.Is(oerr, oracle.ErrRejected):
			if gerr == nil {
				t.Errorf("case %d (%s): TFLM rejects the model (%v) but tflm-gen lowers it", i, c.desc, oerr)
				tally.mismatches++
			}
			tally.refused++
			continue
		case oerr != nil:
			t.Fatalf("case %d (%s): oracle: %v", i, c.desc, oerr)
		case gerr != nil:
			if !errors.Is(gerr, ErrUnsupported) || allowRefusal == nil || !allowRefusal(gerr) {
				t.Errorf("case %d (%s): TFLM runs it, tflm-gen: %v", i, c.desc, gerr)
				tally.mismatches++
			}
			tally.refused++
			continue
		}
		if err := cmp(c, got, want); err != nil {
			t.Errorf("case %d (%s): %v", i, c.desc, err)
			tally.mismatches++
		}
		if err := refCheck(c, want); err != nil {
			t.Errorf("case %d (%s): %v", i, c.desc, err)
		}
		tally.compared++
	}
	tally.log(t)
	return tally.compared, tally.refused
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
		raws = append(raws, v.raw())
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
		if err := compareRaw(v.dt, v.raw(), want[k]); err != nil {
			return fmt.Errorf("reference implementation (fuzz_ref_test.go), output %d: %w", k, err)
		}
	}
	return nil
}

// diffTally counts the cases of one differential (sub)test for its count
// line (log).
type diffTally struct {
	compared   int // outputs compared with TFLM's
	refused    int // refused by both sides, or by tflm-gen as documented
	skipped    int // no TFLM reference (oracle.ErrNotRecorded): neither passed nor failed
	mismatches int // failed
	// The cases the default mode did not run through TFLM (sweep; -long
	// runs them): unrun those tflm-gen lowers, refChecked those of them
	// compared with the reference implementations instead (refCompare),
	// unrunRefused those tflm-gen refuses.
	unrun, refChecked, unrunRefused int
}

// skip reports whether oerr says that the oracle has no recording of case
// i (oracle.ErrNotRecorded); it then counts the case as skipped and logs
// it. A test checks this before anything else about the case.
func (n *diffTally) skip(t *testing.T, oerr error, i int, desc string) bool {
	t.Helper()
	if !errors.Is(oerr, oracle.ErrNotRecorded) {
		return false
	}
	n.skipped++
	t.Logf("case %d (%s): skipped: %v", i, desc, oerr)
	return true
}

// done is the number of cases compared, skipped, or not run through TFLM
// but expected to compare (unrun): a test that draws cases until enough
// were compared stops at the same case whether or not the oracle had their
// recordings and, in the default mode, about where the full run stops (a
// case beyond the full run's is skipped: the oracle has no recording of it).
func (n diffTally) done() int { return n.compared + n.skipped + n.unrun }

// log writes the count line of one differential (sub)test, which
// internal/devtools/diffcount collects into a table per operator. The test
// (or subtest) name must start with the operator's name followed by "_"
// and the types in lower case (e.g. "RESIZE_BILINEAR_int8"). A test that
// compared nothing fails, unless cases were skipped for want of a
// reference: the skipped cases may be those that would have compared, so
// the test is skipped.
func (n diffTally) log(t *testing.T) {
	t.Helper()
	t.Logf("differential counts: compared %d, refused %d, skipped %d, mismatches %d", n.compared, n.refused, n.skipped, n.mismatches)
	n.logUnrun(t)
	n.skipIfNoneCompared(t)
	if n.compared == 0 {
		t.Errorf("no case compared with TFLM")
	}
}

// unrunCase counts a case the default mode does not run through TFLM,
// which tflm-gen lowers (gerr nil) or refuses.
func (n *diffTally) unrunCase(gerr error) {
	if gerr != nil {
		n.unrunRefused++
	} else {
		n.unrun++
	}
}

// logUnrun logs how many cases the default mode did not run through TFLM.
func (n diffTally) logUnrun(t *testing.T) {
	t.Helper()
	if n.unrun+n.unrunRefused > 0 {
		t.Logf("default mode: %d more cases not run through TFLM (go test -long runs them): %d lowered, %d of them compared with the reference implementations; %d refused",
			n.unrun+n.unrunRefused, n.unrun, n.refChecked, n.unrunRefused)
	}
}

// skipIfNoneCompared skips the test when it compared no case and skipped
// some for want of a reference (for tests that log no count line).
func (n diffTally) skipIfNoneCompared(t *testing.T) {
	t.Helper()
	if n.compared == 0 && n.skipped > 0 {
		t.Skipf("no case compared with TFLM: %d cases skipped for want of a recorded TFLM result (shared/tflm/README.md, Replay)", n.skipped)
	}
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
			csvs = append(csvs, v.csv())
			raws = append(raws, v.raw())
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

// diffCount is the number of cases of a test that draws cases until
// enough were compared: short with -short, else long. The test must draw
// from a random source of its own, so that -short runs a prefix of the
// full run's cases.
func diffCount(short, long int) int {
	if testing.Short() {
		return short
	}
	return long
}
