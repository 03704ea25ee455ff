package lower

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/oracle"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// Helpers shared by the differential tests of resize.go, gather.go and
// shapeof.go.

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
// documented refusal). It returns the numbers compared and refused.
func runDiffCases(t *testing.T, o *oracle.Oracle, n int, r *rand.Rand, gen func(r *rand.Rand) diffCase, allowRefusal func(error) bool) (compared, refused int) {
	t.Helper()
	for i := 0; i < n; i++ {
		c := gen(r)
		var csvs [][]string
		var raws [][]byte
		for _, v := range c.inputs {
			csvs = append(csvs, v.csv())
			raws = append(raws, v.raw())
		}
		want, oerr := o.Run(c.model, csvs...)
		got, gerr := inProcess(c.model, raws...)
		switch {
		case oerr != nil && errors.Is(oerr, oracle.ErrRejected):
			if gerr == nil {
				t.Errorf("case %d (%s): TFLM rejects the model (%v) but tflm-gen lowers it", i, c.desc, oerr)
			}
			refused++
			continue
		case oerr != nil:
			t.Fatalf("case %d (%s): oracle: %v", i, c.desc, oerr)
		case gerr != nil:
			if !errors.Is(gerr, ErrUnsupported) || allowRefusal == nil || !allowRefusal(gerr) {
				t.Errorf("case %d (%s): TFLM runs it, tflm-gen: %v", i, c.desc, gerr)
			}
			refused++
			continue
		}
		if err := compareRaw(c.outDT, got[0], want[0]); err != nil {
			t.Errorf("case %d (%s): %v", i, c.desc, err)
		}
		compared++
	}
	return compared, refused
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

// Union types of the options tables these tests write (schema.fbs).
const (
	unionResizeBilinear = 15
	unionGather         = 23
	unionShape          = 55
	unionResizeNearest  = 74
)

// randResize is a random RESIZE_NEAREST_NEIGHBOR or RESIZE_BILINEAR case:
// up- and downscaling (one case in four by large and odd ratios) and both
// options.
func randResize(r *rand.Rand, code model.OpCode, dt model.DType, bothOptions bool) diffCase {
	b, h, w, d := 1+r.IntN(2), 1+r.IntN(7), 1+r.IntN(7), 1+r.IntN(4)
	oh, ow := 1+r.IntN(12), 1+r.IntN(12)
	if r.IntN(4) == 0 {
		// Large and odd ratios, one channel: the index and weight tables
		// get most of the test.
		b, d = 1, 1
		h, w = 1+r.IntN(40), 1+r.IntN(40)
		oh, ow = 1+r.IntN(90), 1+r.IntN(90)
	}
	align, half := r.IntN(2) == 0, r.IntN(2) == 0
	if align && half && (!bothOptions || r.IntN(4) > 0) {
		half = false // both true (which RESIZE_BILINEAR refuses) in 1 case of 16
	}
	m := builder.New("resize differential case")
	q := randQuant(r, dt)
	vals := randVals(r, dt, b*h*w*d)
	c := diffCase{outDT: dt, desc: fmt.Sprintf("%s %s [%d %d %d %d] -> %dx%d align %v half %v", code, dt, b, h, w, d, oh, ow, align, half)}
	// A constant input would leave the model without graph inputs, which
	// the oracle's CSV mode needs; constant inputs are covered by the
	// GATHER tests (same byte-level copies).
	in := m.Tensor("in", dt, []int{b, h, w, d}, q)
	c.inputs = []diffVals{vals}
	size := m.ConstI32("size", []int{2}, nil, []int32{int32(oh), int32(ow)})
	out := m.Tensor("out", dt, []int{b, oh, ow, d}, q)
	opts := &builder.Options{Type: unionResizeNearest, Fields: []builder.Field{
		builder.Bool(resizeNearestAlignCorners, align), builder.Bool(resizeNearestHalfPixel, half)}}
	if code == model.OpResizeBilinear {
		opts = &builder.Options{Type: unionResizeBilinear, Fields: []builder.Field{
			builder.Bool(resizeBilinearAlign, align), builder.Bool(resizeBilinearHalfPixel, half)}}
	}
	m.Op(code, []int{in, size}, []int{out}, opts)
	m.IO([]int{in}, []int{out})
	c.model = m.Bytes()
	return c
}

// TestResizeMatchesTFLM: random resizes of every type TFLM runs, through
// TFLM and in-process, compared bit for bit. RESIZE_BILINEAR cases include
// align_corners with half_pixel_centers, which both refuse.
func TestResizeMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	for _, tc := range []struct {
		code model.OpCode
		dt   model.DType
	}{
		{model.OpResizeNearestNeighbor, model.Float32},
		{model.OpResizeNearestNeighbor, model.Int8},
		{model.OpResizeNearestNeighbor, model.Int16},
		{model.OpResizeBilinear, model.Float32},
		{model.OpResizeBilinear, model.Int8},
	} {
		t.Run(fmt.Sprintf("%s_%s", tc.code, tc.dt), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(tc.code), uint64(tc.dt)))
			gen := func(r *rand.Rand) diffCase { return randResize(r, tc.code, tc.dt, true) }
			compared, refused := runDiffCases(t, o, diffCount(20, 200), r, gen, nil)
			t.Logf("%d cases compared with TFLM, %d refused as TFLM does", compared, refused)
			if compared == 0 {
				t.Errorf("no case compared")
			}
		})
	}
}

// TestResizeRefusedAsTFLM: types TFLM's kernels reject (int16 bilinear
// fails in TFLM's Eval), and the half-pixel/align-corners conflict.
func TestResizeRefusedAsTFLM(t *testing.T) {
	o := oracle.New(t)
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		code model.OpCode
		dt   model.DType
		want string
	}{
		{model.OpResizeBilinear, model.Int16, "not supported"},
		{model.OpResizeBilinear, model.Int32, "not supported"},
		{model.OpResizeNearestNeighbor, model.Int32, "not supported"},
	} {
		checkRefusedAsTFLM(t, o, randResize(r, tc.code, tc.dt, false), tc.code, tc.want)
	}
	for {
		c := randResize(r, model.OpResizeBilinear, model.Int8, true)
		if strings.Contains(c.desc, "align true half true") {
			checkRefusedAsTFLM(t, o, c, model.OpResizeBilinear, "half_pixel_centers")
			break
		}
	}
}

// TestResizeBilinearOutsideInputRefused: for extreme upscales TFLM's fixed
// point puts the lower neighbour of the last rows past the input (1 row to
// 2000 with half-pixel centres: row 1999 samples input row 1), so TFLM
// reads outside its tensor; the lowering refuses the model.
func TestResizeBilinearOutsideInputRefused(t *testing.T) {
	m := builder.New("resize outside input")
	in := m.Tensor("in", model.Int8, []int{1, 1, 1, 1}, nil)
	size := m.ConstI32("size", []int{2}, nil, []int32{2000, 1})
	out := m.Tensor("out", model.Int8, []int{1, 2000, 1, 1}, nil)
	m.Op(model.OpResizeBilinear, []int{in, size}, []int{out}, &builder.Options{Type: unionResizeBilinear,
		Fields: []builder.Field{builder.Bool(resizeBilinearHalfPixel, true)}})
	m.IO([]int{in}, []int{out})
	_, err := inProcess(m.Bytes(), []byte{7})
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "outside its input") {
		t.Errorf("error %v, want a refusal saying TFLM would read outside its input", err)
	}
}
