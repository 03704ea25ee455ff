package kernels

import (
	"encoding/binary"
	"math/rand"
	"slices"
	"testing"
)

// dispTI32s encodes int32 values as a little-endian constant string.
func dispTI32s(v []int32) string {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	return string(b)
}

func dispTI8(r *rand.Rand, n int) []int8 {
	v := make([]int8, n)
	for i := range v {
		v[i] = int8(r.Intn(256) - 128)
	}
	return v
}

// TestDispatchConvInt8 runs convInt8 through NewParams and Call and
// compares with a direct call.
func TestDispatchConvInt8(t *testing.T) {
	r := rand.New(rand.NewSource(14))
	const inH, inW, inC, outC = 5, 6, 3, 4
	in := dispTI8(r, inH*inW*inC)
	filter := dispTI8(r, outC*3*3*inC)
	b, m, s := make([]int32, outC), make([]int32, outC), make([]int32, outC)
	for c := range b {
		b[c] = int32(r.Intn(2001) - 1000)
		m[c] = int32(1<<30 + r.Intn(1<<30))
		s[c] = int32(-10 - r.Intn(4))
	}
	bias, mult, shift := dispTI32s(b), dispTI32s(m), dispTI32s(s)
	p := &convParams{batches: 1, inH: inH, inW: inW, inC: inC, filterH: 3, filterW: 3, filterC: inC,
		outH: inH, outW: inW, outC: outC, groupOutC: outC, strideH: 1, strideW: 1, dilationH: 1, dilationW: 1,
		padH: 1, padW: 1, inOffset: 5, outOffset: -3, actMin: -128, actMax: 100}
	want := make([]int8, inH*inW*outC)
	convInt8(p, in, filter, bias, mult, shift, want)

	dp := NewParams("convParams", map[string]any{
		"batches": int64(1), "inH": int64(inH), "inW": int64(inW), "inC": int64(inC),
		"filterH": int64(3), "filterW": int64(3), "filterC": int64(inC),
		"outH": int64(inH), "outW": int64(inW), "outC": int64(outC), "groupOutC": int64(outC),
		"strideH": int64(1), "strideW": int64(1), "dilationH": int64(1), "dilationW": int64(1),
		"padH": int64(1), "padW": int64(1), "inOffset": int64(5), "outOffset": int64(-3),
		"actMin": int64(-128), "actMax": int64(100), "fActMin": float64(0),
	})
	if got := dp.(*convParams); *got != *p {
		t.Fatalf("NewParams: %+v, want %+v", *got, *p)
	}
	got := make([]int8, len(want))
	if !Call("convInt8", []any{dp, in, filter, bias, mult, shift, got}) {
		t.Fatal("Call: convInt8 unknown")
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Call: %v, want %v", got, want)
	}
}

// TestDispatchAddInt16 runs a kernel with two parameter structs (addInt16:
// rescaling and broadcast) through NewParams and Call and compares with a
// direct call.
func TestDispatchAddInt16(t *testing.T) {
	r := rand.New(rand.NewSource(15))
	q := &ewQuantParams{in1Mult: 1 << 30, in2Mult: 1<<30 + 12345, outMult: 1<<30 + 999,
		in1Shift: -1, in2Shift: -2, outShift: -3, leftShift: 15, actMin: -32768, actMax: 32767}
	// [2 3] + [3]: the second input broadcast over rows.
	bc := &ewBcast{inner: 3, aInner: 1, bInner: 1, n1: 2, a1: 3, b1: 0, n2: 1, n3: 1, n4: 1, n5: 1}
	a, b := make([]int16, 6), make([]int16, 3)
	for i := range a {
		a[i] = int16(r.Intn(65536) - 32768)
	}
	for i := range b {
		b[i] = int16(r.Intn(65536) - 32768)
	}
	want := make([]int16, 6)
	addInt16(q, bc, a, b, want)
	qp := NewParams("ewQuantParams", map[string]any{
		"in1Mult": int64(q.in1Mult), "in2Mult": int64(q.in2Mult), "outMult": int64(q.outMult),
		"in1Shift": int64(q.in1Shift), "in2Shift": int64(q.in2Shift), "outShift": int64(q.outShift),
		"leftShift": int64(q.leftShift), "actMin": int64(q.actMin), "actMax": int64(q.actMax),
	})
	bp := NewParams("ewBcast", map[string]any{
		"inner": int64(3), "aInner": int64(1), "bInner": int64(1),
		"n1": int64(2), "a1": int64(3), "b1": int64(0), "n2": int64(1), "n3": int64(1), "n4": int64(1), "n5": int64(1),
	})
	if qp == nil || bp == nil {
		t.Fatal("NewParams returned nil")
	}
	got := make([]int16, 6)
	if !Call("addInt16", []any{qp, bp, a, b, got}) {
		t.Fatal("Call does not know addInt16")
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Call: %v, want %v", got, want)
	}

	// A struct-valued field takes the pointer NewParams returns.
	nested := NewParams("lstmUnitRQ", map[string]any{"hid": NewParams("rq32", map[string]any{"mult": int64(7)})})
	if nested.(*lstmUnitRQ).hid.mult != 7 {
		t.Errorf("nested NewParams: %+v", nested)
	}
	if Call("noSuchKernel", nil) {
		t.Error("Call accepted an unknown kernel")
	}
	if NewParams("noSuchParams", nil) != nil {
		t.Error("NewParams accepted an unknown type")
	}
	if NewParams("ewBcast", map[string]any{"inner": int64(1), "nope": int64(1)}) != nil {
		t.Error("NewParams accepted an unknown field")
	}
}
