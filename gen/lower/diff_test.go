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

// runDiffCases runs n cases from gen through TFLM and in-process and
// compares output 0. A model TFLM rejects must be refused by the lowering;
// a model TFLM runs may be refused only when allowRefusal says so (a
// documented refusal). It returns the numbers compared and refused, logs
// the counts (logDiffCounts) and fails the test when no case compared.
func runDiffCases(t *testing.T, o *oracle.Oracle, n int, r *rand.Rand, gen func(r *rand.Rand) diffCase, allowRefusal func(error) bool) (compared, refused int) {
	t.Helper()
	return runDiffCasesWith(t, o, n, r, gen, allowRefusal, func(c diffCase, got [][]byte, want [][]string) error {
		return compareRaw(c.outDT, got[0], want[0])
	})
}

// runDiffCasesWith is runDiffCases comparing the outputs with cmp (every
// output, or float32 within a tolerance).
func runDiffCasesWith(t *testing.T, o *oracle.Oracle, n int, r *rand.Rand, gen func(r *rand.Rand) diffCase, allowRefusal func(error) bool,
	cmp func(c diffCase, got [][]byte, want [][]string) error) (compared, refused int) {
	t.Helper()
	// The cases are drawn in order from r, then run on every core: each
	// TFLM run is a process of its own.
	cases := make([]diffCase, n)
	for i := range cases {
		cases[i] = gen(r)
	}
	type result struct {
		want       [][]string
		got        [][]byte
		oerr, gerr error
	}
	res := make([]result, n)
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				c := cases[i]
				var csvs [][]string
				var raws [][]byte
				for _, v := range c.inputs {
					csvs = append(csvs, v.csv())
					raws = append(raws, v.raw())
				}
				res[i].want, res[i].oerr = o.Run(c.model, csvs...)
				res[i].got, res[i].gerr = inProcess(c.model, raws...)
			}
		}()
	}
	wg.Wait()
	mismatches := 0
	for i, c := range cases {
		want, oerr, got, gerr := res[i].want, res[i].oerr, res[i].got, res[i].gerr
		switch {
		case oerr != nil && errors.Is(oerr, oracle.ErrRejected):
			if gerr == nil {
				t.Errorf("case %d (%s): TFLM rejects the model (%v) but tflm-gen lowers it", i, c.desc, oerr)
				mismatches++
			}
			refused++
			continue
		case oerr != nil:
			t.Fatalf("case %d (%s): oracle: %v", i, c.desc, oerr)
		case gerr != nil:
			if !errors.Is(gerr, ErrUnsupported) || allowRefusal == nil || !allowRefusal(gerr) {
				t.Errorf("case %d (%s): TFLM runs it, tflm-gen: %v", i, c.desc, gerr)
				mismatches++
			}
			refused++
			continue
		}
		if err := cmp(c, got, want); err != nil {
			t.Errorf("case %d (%s): %v", i, c.desc, err)
			mismatches++
		}
		compared++
	}
	logDiffCounts(t, compared, refused, mismatches)
	return compared, refused
}

// logDiffCounts writes the count line of one differential (sub)test, which
// internal/devtools/diffcount collects into a table per operator. The test
// (or subtest) name must start with the operator's name followed by "_"
// and the types in lower case (e.g. "RESIZE_BILINEAR_int8"). A test that
// compared nothing fails.
func logDiffCounts(t *testing.T, compared, refused, mismatches int) {
	t.Helper()
	t.Logf("differential counts: compared %d, refused %d, mismatches %d", compared, refused, mismatches)
	if compared == 0 {
		t.Errorf("no case compared with TFLM")
	}
}

// checkRefusedAsTFLM: TFLM rejects the case's model and the lowering
// refuses it with an unsupported-model error naming the operator and
// containing want.
func checkRefusedAsTFLM(t *testing.T, o *oracle.Oracle, c diffCase, code model.OpCode, want string) {
	t.Helper()
	var csvs [][]string
	var raws [][]byte
	for _, v := range c.inputs {
		csvs = append(csvs, v.csv())
		raws = append(raws, v.raw())
	}
	if _, err := o.Run(c.model, csvs...); !errors.Is(err, oracle.ErrRejected) {
		t.Errorf("%s: TFLM did not reject the model: %v", c.desc, err)
	}
	_, err := inProcess(c.model, raws...)
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "("+code.String()+")") || !strings.Contains(err.Error(), want) {
		t.Errorf("%s: error %v, want an unsupported-model error naming %s and saying %q", c.desc, err, code, want)
	}
}

func diffCount(short, long int) int {
	if testing.Short() {
		return short
	}
	return long
}
