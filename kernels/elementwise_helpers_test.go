package kernels

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// Test helpers shared by the elementwise, quantize and activation tests.
// Kernel parameters are computed here from scales and zero points the way
// TFLite Micro's Prepare functions compute them, independently of the
// generator (gen/lower_*.go has its own end-to-end test of the lowering).

// ewtInt is the set of integer element types the tests quantize to.
type ewtInt interface {
	~int8 | ~uint8 | ~int16 | ~int32
}

// ewtRange is the value range of an integer element type.
func ewtRange[T ewtInt]() (lo, hi int32) {
	var z T
	switch any(z).(type) {
	case int8:
		return math.MinInt8, math.MaxInt8
	case uint8:
		return 0, math.MaxUint8
	case int16:
		return math.MinInt16, math.MaxInt16
	}
	return math.MinInt32, math.MaxInt32
}

// ewtQuantize quantizes floats as TFLM's test helper (FloatToQuantizedType)
// does: round(v/scale) + zero point in float32, clamped to T's range.
func ewtQuantize[T ewtInt](vals []float32, scale float32, zp int32) []T {
	lo, hi := ewtRange[T]()
	out := make([]T, len(vals))
	for i, v := range vals {
		r := math.Round(float64(v/scale)) + float64(zp)
		out[i] = T(max(float64(lo), min(float64(hi), r)))
	}
	return out
}

// ewtDequantize is the inverse used by TFLM's tests to compare in float.
func ewtDequantize[T ewtInt](q []T, scale float32, zp int32) []float32 {
	out := make([]float32, len(q))
	for i, v := range q {
		out[i] = scale * float32(int32(v)-zp)
	}
	return out
}

// ewtF32 converts float64 literals to float32.
func ewtF32(v ...float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// ewtBcast plans a broadcast without fusing dimensions: every dimension of
// the (extended) output is its own loop. It is independent of the
// generator's fused planner, so the kernels are also exercised with plans
// that have many size-1 and strided loops.
func ewtBcast(t *testing.T, s1, s2, so []int) *ewBcast {
	t.Helper()
	r := max(len(s1), len(s2), len(so))
	if r > 6 {
		t.Fatalf("rank %d too large for the test planner", r)
	}
	ext := func(s []int) []int {
		e := make([]int, r)
		for i := range e {
			e[i] = 1
		}
		copy(e[r-len(s):], s)
		return e
	}
	e1, e2, eo := ext(s1), ext(s2), ext(so)
	n := make([]int, 6)
	sa, sb := make([]int, 6), make([]int, 6)
	for i := range n {
		n[i] = 1
	}
	accA, accB := 1, 1
	for k := 0; k < r; k++ { // k = 0 is the innermost dimension
		d := r - 1 - k
		n[k] = eo[d]
		if e1[d] != 1 || eo[d] == 1 {
			sa[k] = accA
		}
		if e2[d] != 1 || eo[d] == 1 {
			sb[k] = accB
		}
		accA *= e1[d]
		accB *= e2[d]
	}
	return &ewBcast{
		inner: n[0], aInner: sa[0], bInner: sb[0],
		n1: n[1], n2: n[2], n3: n[3], n4: n[4], n5: n[5],
		a1: sa[1], a2: sa[2], a3: sa[3], a4: sa[4], a5: sa[5],
		b1: sb[1], b2: sb[2], b3: sb[3], b4: sb[4], b5: sb[5],
	}
}

// ewtActRange is TFLM's CalculateActivationRangeQuantized.
func ewtActRange(act quant.Activation, lo, hi int32, scale float32, zp int32) (int32, int32) {
	q := func(f float32) int32 { return zp + int32(math.Round(float64(f/scale))) }
	switch act {
	case quant.ActRelu:
		return max(lo, q(0)), hi
	case quant.ActRelu6:
		return max(lo, q(0)), min(hi, q(6))
	case quant.ActReluN1To1:
		return max(lo, q(-1)), min(hi, q(1))
	}
	return lo, hi
}

// ewtActRangeF32 is TFLM's CalculateActivationRange for float.
func ewtActRangeF32(act quant.Activation) *ewF32Params {
	switch act {
	case quant.ActRelu:
		return &ewF32Params{0, math.MaxFloat32}
	case quant.ActRelu6:
		return &ewF32Params{0, 6}
	case quant.ActReluN1To1:
		return &ewF32Params{-1, 1}
	}
	return &ewF32Params{-math.MaxFloat32, math.MaxFloat32}
}

// ewtMultBelowOne is QuantizeMultiplierSmallerThanOneExp.
func ewtMultBelowOne(t *testing.T, r float64) (int32, int) {
	t.Helper()
	if !(r > 0 && r < 1) {
		t.Fatalf("multiplier %v not in (0, 1)", r)
	}
	m, s := quant.Multiplier(r)
	if s > 0 {
		t.Fatalf("multiplier %v rounds to 1", r)
	}
	return m, s
}

// ewtAddSubParams computes ADD (add_common.cc, float64) or SUB
// (sub_common.cc, float32) parameters for an output of type T.
func ewtAddSubParams[T ewtInt](t *testing.T, sub bool, s [3]float32, z [3]int32, act quant.Activation) *ewQuantParams {
	t.Helper()
	p := &ewQuantParams{in1Off: -z[0], in2Off: -z[1], outOff: z[2], leftShift: 20}
	var zero T
	if _, ok := any(zero).(int16); ok {
		p.leftShift = 15
	}
	var r1, r2, ro float64
	if sub {
		tw := 2 * max(s[0], s[1])
		r1, r2 = float64(s[0]/tw), float64(s[1]/tw)
		ro = float64(tw / (float32(int32(1)<<p.leftShift) * s[2]))
	} else {
		tw := 2 * float64(max(s[0], s[1]))
		r1, r2 = float64(s[0])/tw, float64(s[1])/tw
		ro = tw / (float64(int32(1)<<p.leftShift) * float64(s[2]))
	}
	p.in1Mult, p.in1Shift = ewtMultBelowOne(t, r1)
	p.in2Mult, p.in2Shift = ewtMultBelowOne(t, r2)
	p.outMult, p.outShift = ewtMultBelowOne(t, ro)
	lo, hi := ewtRange[T]()
	p.actMin, p.actMax = ewtActRange(act, lo, hi, s[2], z[2])
	return p
}

// ewtMulParams computes MUL parameters (mul_common.cc) for type T.
func ewtMulParams[T ewtInt](s [3]float32, z [3]int32, act quant.Activation) *mulQuantParams {
	p := &mulQuantParams{in1Off: -z[0], in2Off: -z[1], outOff: z[2]}
	p.mult, p.shift = quant.Multiplier(float64(s[0]) * float64(s[1]) / float64(s[2]))
	lo, hi := ewtRange[T]()
	p.actMin, p.actMax = ewtActRange(act, lo, hi, s[2], z[2])
	return p
}

// ewtCheckInts requires |got-want| <= tol element by element.
func ewtCheckInts[T ewtInt](t *testing.T, what string, got, want []T, tol int32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d outputs, want %d", what, len(got), len(want))
	}
	bad := 0
	for i := range got {
		if d := int32(got[i]) - int32(want[i]); d > tol || d < -tol {
			if bad < 5 {
				t.Errorf("%s: output %d = %d, want %d (tolerance %d)", what, i, got[i], want[i], tol)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d outputs differ", what, bad, len(got))
	}
}

// ewtCheckF32 requires |got-want| <= tol element by element.
func ewtCheckF32(t *testing.T, what string, got, want []float32, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d outputs, want %d", what, len(got), len(want))
	}
	for i := range got {
		if d := math.Abs(float64(got[i]) - float64(want[i])); !(d <= tol) {
			t.Errorf("%s: output %d = %v, want %v (tolerance %g)", what, i, got[i], want[i], tol)
		}
	}
}

// ewtShared returns the shared reference directory or skips the test.
func ewtShared(t *testing.T, sub string) string {
	t.Helper()
	dir := os.Getenv("TFLM_SHARED")
	if dir == "" {
		dir = "/work/shared"
	}
	p := filepath.Join(dir, sub)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("reference data %s not available (set TFLM_SHARED): %v", p, err)
	}
	return p
}

// ewtModel parses a .tflite file.
func ewtModel(t *testing.T, path string) *model.Graph {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g, err := model.Parse(filepath.Base(path), b)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// ewtCSV reads a one-line comma-separated list of integers.
func ewtCSV(t *testing.T, path string) []int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for _, f := range strings.Split(strings.TrimSpace(string(b)), ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	return out
}

// ewtConv converts integers to element type T, failing on overflow.
func ewtConv[T ewtInt](t *testing.T, v []int64) []T {
	t.Helper()
	lo, hi := ewtRange[T]()
	out := make([]T, len(v))
	for i, x := range v {
		if x < int64(lo) || x > int64(hi) {
			t.Fatalf("value %d out of range", x)
		}
		out[i] = T(x)
	}
	return out
}

// ewtRaw reinterprets little-endian bytes as elements of type T.
func ewtRaw[T ewtInt](b []byte) []T {
	var z T
	size := 1
	switch any(z).(type) {
	case int16:
		size = 2
	case int32:
		size = 4
	}
	out := make([]T, len(b)/size)
	for i := range out {
		var u uint32
		for k := size - 1; k >= 0; k-- {
			u = u<<8 | uint32(b[i*size+k])
		}
		switch size {
		case 1:
			out[i] = T(int32(int8(u)))
			if _, ok := any(z).(uint8); ok {
				out[i] = T(u)
			}
		case 2:
			out[i] = T(int16(u))
		default:
			out[i] = T(int32(u))
		}
	}
	return out
}

// ewtTensorQuant returns a tensor's per-tensor scale and zero point.
func ewtTensorQuant(t *testing.T, x *model.Tensor) (float32, int32) {
	t.Helper()
	if x.Quant == nil || len(x.Quant.Scale) != 1 {
		t.Fatalf("%s: not per-tensor quantized", x.Describe())
	}
	return x.Quant.Scale[0], int32(x.Quant.ZeroPoint[0])
}
