package kernels

import (
	"math"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// Truth tables as gen/lower/compare.go has them.
const (
	cmpTEqual        = 0b0010
	cmpTNotEqual     = 0b1101
	cmpTLess         = 0b0001
	cmpTLessEqual    = 0b0011
	cmpTGreater      = 0b0100
	cmpTGreaterEqual = 0b0110
)

// cmpTFlat is the plan of two same-shape inputs of n elements.
func cmpTFlat(n int) *ewBcast {
	return &ewBcast{inner: n, aInner: 1, bInner: 1, n1: 1, n2: 1, n3: 1, n4: 1, n5: 1}
}

// cmpTScalar is the plan of an n-element input against a one-element one.
func cmpTScalar(n int) *ewBcast {
	return &ewBcast{inner: n, aInner: 1, bInner: 0, n1: 1, n2: 1, n3: 1, n4: 1, n5: 1}
}

func cmpTBools(t *testing.T, got []uint8, want []bool) {
	t.Helper()
	for i, w := range want {
		if got[i] != b2u8(w) {
			t.Errorf("element %d: got %d, want %v (all %v)", i, got[i], w, got)
			return
		}
	}
}

// TestCompareTFLM ports TFLite Micro's comparisons_test.cc cases (inputs
// and expected outputs) for the float32, int32 and bool kernels.
func TestCompareTFLM(t *testing.T) {
	f1, f2 := []float32{0.1, 0.9, 0.7, 0.3}, []float32{0.1, 0.2, 0.6, 0.5}
	i1, i2 := []int32{-1, 9, 7, 3}, []int32{1, 2, 7, 5}
	b1, b2 := []uint8{1, 0, 1, 0}, []uint8{1, 1, 0, 0}
	out := make([]uint8, 8)
	for _, c := range []struct {
		name string
		run  func()
		want []bool
	}{
		{"EqualBool", func() { cmpBool(&cmpParams{mask: cmpTEqual}, cmpTFlat(4), b1, b2, out) }, []bool{true, false, false, true}},
		{"EqualFloat", func() { cmpF32(&cmpParams{mask: cmpTEqual}, cmpTFlat(4), f1, f2, out) }, []bool{true, false, false, false}},
		{"EqualInt", func() { cmpI32(&cmpParams{mask: cmpTEqual}, cmpTFlat(4), i1, i2, out) }, []bool{false, false, true, false}},
		{"EqualBroadcast", func() { cmpI32(&cmpParams{mask: cmpTEqual}, cmpTScalar(4), i1, []int32{7}, out) }, []bool{false, false, true, false}},
		{"NotEqualBool", func() { cmpBool(&cmpParams{mask: cmpTNotEqual}, cmpTFlat(4), b1, b2, out) }, []bool{false, true, true, false}},
		{"NotEqualFloat", func() { cmpF32(&cmpParams{mask: cmpTNotEqual}, cmpTFlat(4), f1, f2, out) }, []bool{false, true, true, true}},
		{"NotEqualInt", func() { cmpI32(&cmpParams{mask: cmpTNotEqual}, cmpTFlat(4), i1, i2, out) }, []bool{true, true, false, true}},
		{"GreaterFloat", func() { cmpF32(&cmpParams{mask: cmpTGreater}, cmpTFlat(4), f1, f2, out) }, []bool{false, true, true, false}},
		{"GreaterInt", func() { cmpI32(&cmpParams{mask: cmpTGreater}, cmpTFlat(4), i1, i2, out) }, []bool{false, true, false, false}},
		{"GreaterEqualFloat", func() { cmpF32(&cmpParams{mask: cmpTGreaterEqual}, cmpTFlat(4), f1, f2, out) }, []bool{true, true, true, false}},
		{"GreaterEqualInt", func() { cmpI32(&cmpParams{mask: cmpTGreaterEqual}, cmpTFlat(4), i1, i2, out) }, []bool{false, true, true, false}},
		{"LessFloat", func() { cmpF32(&cmpParams{mask: cmpTLess}, cmpTFlat(4), f1, f2, out) }, []bool{false, false, false, true}},
		{"LessInt", func() { cmpI32(&cmpParams{mask: cmpTLess}, cmpTFlat(4), i1, i2, out) }, []bool{true, false, false, true}},
		{"LessEqualFloat", func() { cmpF32(&cmpParams{mask: cmpTLessEqual}, cmpTFlat(4), f1, f2, out) }, []bool{true, false, false, true}},
		{"LessEqualInt", func() { cmpI32(&cmpParams{mask: cmpTLessEqual}, cmpTFlat(4), i1, i2, out) }, []bool{true, false, true, true}},
		{"LessEqualInt64", func() {
			cmpI64(&cmpParams{mask: cmpTLessEqual}, cmpTFlat(4), []int64{-1, 9, 7, 3}, []int64{1, 2, 7, 5}, out)
		}, []bool{true, false, true, true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.run()
			cmpTBools(t, out, c.want)
		})
	}
}

// TestCompareNaN: with a NaN operand only NOT_EQUAL is true.
func TestCompareNaN(t *testing.T) {
	nan := float32(math.NaN())
	out := make([]uint8, 2)
	for _, c := range []struct {
		mask uint8
		want bool
	}{{cmpTEqual, false}, {cmpTNotEqual, true}, {cmpTLess, false}, {cmpTLessEqual, false}, {cmpTGreater, false}, {cmpTGreaterEqual, false}} {
		cmpF32(&cmpParams{mask: c.mask}, cmpTFlat(2), []float32{nan, 1}, []float32{1, nan}, out)
		cmpTBools(t, out, []bool{c.want, c.want})
	}
}

// cmpTQuant quantizes values as TFLM's test helper does.
func cmpTQuant(v []float32, scale float32, zp int32) []int8 {
	q := make([]int8, len(v))
	for i, x := range v {
		q[i] = int8(min(max(int32(math.Round(float64(x/scale)))+zp, -128), 127))
	}
	return q
}

// cmpTInt8Params is ComparisonsPrepare's rescaling for two int8 inputs.
func cmpTInt8Params(mask uint8, s1 float32, z1 int32, s2 float32, z2 int32) *cmpParams {
	m1, sh1 := quant.Multiplier(float64(s1))
	m2, sh2 := quant.Multiplier(float64(s2))
	return &cmpParams{mask: mask, in1Off: -z1, in2Off: -z2, in1Mult: m1, in2Mult: m2, in1Shift: sh1, in2Shift: sh2}
}

// TestCompareInt8TFLM ports comparisons_test.cc's quantized int8 cases.
func TestCompareInt8TFLM(t *testing.T) {
	out := make([]uint8, 6)
	a := cmpTQuant([]float32{1, -9, 7, 3}, 0.5, -5)
	b := cmpTQuant([]float32{-1, 2, 7, 5}, 0.25, 5)
	cmpInt8(cmpTInt8Params(cmpTEqual, 0.5, -5, 0.25, 5), cmpTFlat(4), a, b, out)
	cmpTBools(t, out, []bool{false, false, true, false})
	b = cmpTQuant([]float32{1, 2, 7, 5}, 0.25, 5)
	cmpInt8(cmpTInt8Params(cmpTNotEqual, 0.5, -5, 0.25, 5), cmpTFlat(4), a, b, out)
	cmpTBools(t, out, []bool{false, true, false, true})

	x := cmpTQuant([]float32{20, -2, -71, 8, 11, 20}, 0.5, -9)
	y := cmpTQuant([]float32{8}, 0.5, -9)
	for _, c := range []struct {
		name string
		mask uint8
		want []bool
	}{
		{"NotEqualWithBroadcast", cmpTNotEqual, []bool{true, true, true, false, true, true}},
		{"GreaterWithBroadcast", cmpTGreater, []bool{true, false, false, false, true, true}},
		{"GreaterEqualWithBroadcast", cmpTGreaterEqual, []bool{true, false, false, true, true, true}},
		{"LessWithBroadcast", cmpTLess, []bool{false, true, true, false, false, false}},
		{"LessEqualWithBroadcast", cmpTLessEqual, []bool{false, true, true, true, false, false}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmpInt8(cmpTInt8Params(c.mask, 0.5, -9, 0.5, -9), cmpTScalar(6), x, y, out)
			cmpTBools(t, out, c.want)
		})
	}
}

// TestLogicalTFLM ports logical_test.cc: LOGICAL_OR and LOGICAL_AND, plain
// and with a broadcast scalar.
func TestLogicalTFLM(t *testing.T) {
	out := make([]uint8, 4)
	a, b := []uint8{1, 0, 0, 1}, []uint8{1, 0, 1, 0}
	logicalOr(cmpTFlat(4), a, b, out)
	cmpTBools(t, out, []bool{true, false, true, true})
	logicalOr(cmpTScalar(4), a, []uint8{0}, out)
	cmpTBools(t, out, []bool{true, false, false, true})
	logicalAnd(cmpTFlat(4), a, b, out)
	cmpTBools(t, out, []bool{true, false, false, false})
	logicalAnd(cmpTScalar(4), a, []uint8{1}, out)
	cmpTBools(t, out, []bool{true, false, false, true})
}

func TestLoadI64(t *testing.T) {
	dst := make([]int64, 2)
	loadI64("\x01\x00\x00\x00\x00\x00\x00\x80\xff\xff\xff\xff\xff\xff\xff\xff", dst)
	if dst[0] != math.MinInt64+1 || dst[1] != -1 {
		t.Errorf("got %v", dst)
	}
}

// selTFlat is the SELECT_V2 plan of three same-shape inputs.
func selTFlat(n int) *selBcast {
	return &selBcast{inner: n, cInner: 1, xInner: 1, yInner: 1, n1: 1, n2: 1, n3: 1, n4: 1}
}

// TestSelectTFLM ports select_test.cc: the plain cases and broadcasts of
// the condition.
func TestSelectTFLM(t *testing.T) {
	f := make([]float32, 4)
	selectF32(selTFlat(4), []uint8{1, 0, 1, 0}, []float32{0.1, 0.2, 0.3, 0.4}, []float32{0.5, 0.6, 0.7, 0.8}, f)
	if f[0] != 0.1 || f[1] != 0.6 || f[2] != 0.3 || f[3] != 0.8 {
		t.Errorf("SelectFloat: %v", f)
	}
	b := make([]int8, 4)
	selectInt8(selTFlat(4), []uint8{0, 1, 0, 0}, []int8{1, -2, 3, 4}, []int8{5, 6, 7, -8}, b)
	if b[0] != 5 || b[1] != -2 || b[2] != 7 || b[3] != -8 {
		t.Errorf("SelectInt8: %v", b)
	}
	for _, c := range []struct {
		name    string
		bc      selBcast
		cond    []uint8
		x, y    []int16
		want    []int16
		outSize int
	}{
		{"SelectInt16", *selTFlat(4), []uint8{0, 1, 0, 0}, []int16{1, 2, 3, 4}, []int16{5, 6, 7, 8}, []int16{5, 2, 7, 8}, 4},
		// condition [1] against x [1,2,2,2,1] and y [1,2,2,1]: y repeats.
		{"OneDimensionConditionWithSingleValue", selBcast{inner: 4, cInner: 0, xInner: 1, yInner: 1, n1: 2, x1: 4, n2: 1, n3: 1, n4: 1},
			[]uint8{0}, []int16{1, 2, 3, 4, 5, 6, 7, 8}, []int16{9, 10, 11, 12}, []int16{9, 10, 11, 12, 9, 10, 11, 12}, 8},
		// condition [1,2] against [1,2,2].
		{"LesserThan4D", selBcast{inner: 2, cInner: 1, xInner: 1, yInner: 1, n1: 2, x1: 2, y1: 2, n2: 1, n3: 1, n4: 1},
			[]uint8{0, 1}, []int16{1, 2, 3, 4}, []int16{5, 6, 7, 8}, []int16{5, 2, 7, 4}, 4},
		{"OnFalseValue", selBcast{inner: 4, xInner: 1, yInner: 1, n1: 1, n2: 1, n3: 1, n4: 1},
			[]uint8{0}, []int16{1, 2, 3, 4}, []int16{5, 6, 7, 8}, []int16{5, 6, 7, 8}, 4},
		// condition [2] against x and y [2,1,2,1] into [2,1,2,2].
		{"OneDimensionConditionWithTwoValues", selBcast{inner: 2, cInner: 1, n1: 2, x1: 1, y1: 1, n2: 2, x2: 2, y2: 2, n3: 1, n4: 1},
			[]uint8{0, 1}, []int16{1, 2, 3, 4}, []int16{5, 6, 7, 8}, []int16{5, 1, 6, 2, 7, 3, 8, 4}, 8},
	} {
		out := make([]int16, c.outSize)
		selectInt16(&c.bc, c.cond, c.x, c.y, out)
		for i, w := range c.want {
			if out[i] != w {
				t.Errorf("%s: got %v, want %v", c.name, out, c.want)
				break
			}
		}
	}
}
