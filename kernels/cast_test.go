package kernels

import (
	"encoding/binary"
	"math"
	"testing"
)

func castTBytes[T int8 | int16 | int32 | uint32 | float32 | uint8](v []T) []byte {
	var b []byte
	for _, x := range v {
		b, _ = binary.Append(b, binary.LittleEndian, x)
	}
	return b
}

// TestCastTFLM ports cast_test.cc's cases (inputs and goldens).
func TestCastTFLM(t *testing.T) {
	check := func(name string, got, want []byte) {
		t.Helper()
		if string(got) != string(want) {
			t.Errorf("%s: got % x, want % x", name, got, want)
		}
	}
	fin := castTBytes([]float32{100, 1, 0, 0.4, 1.999, 1.1})
	out := make([]byte, 6)
	castF32Int(&castParams{inSize: 4, outSize: 1}, math.MinInt8, math.MaxInt8, out, fin)
	check("FloatToInt8", out, castTBytes([]int8{100, 1, 0, 0, 1, 1}))
	out = make([]byte, 12)
	castF32Int(&castParams{inSize: 4, outSize: 2}, math.MinInt16, math.MaxInt16, out, fin)
	check("FloatToInt16", out, castTBytes([]int16{100, 1, 0, 0, 1, 1}))

	f := make([]float32, 6)
	castIntF32(&castParams{inSize: 1, outSize: 4, signed: true}, f, castTBytes([]int8{123, 0, 1, 2, 3, 4}))
	check("Int8ToFloat", castTBytes(f), castTBytes([]float32{123, 0, 1, 2, 3, 4}))
	castIntF32(&castParams{inSize: 2, outSize: 4, signed: true}, f, castTBytes([]int16{123, 0, 1, 2, 3, 4}))
	check("Int16ToFloat", castTBytes(f), castTBytes([]float32{123, 0, 1, 2, 3, 4}))
	castIntF32(&castParams{inSize: 1, outSize: 4}, f, []byte{1, 1, 0, 1, 0, 1})
	check("BoolToFloat", castTBytes(f), castTBytes([]float32{1, 1, 0, 1, 0, 1}))

	out = make([]byte, 24)
	castInt(&castParams{inSize: 2, outSize: 4, signed: true}, out, castTBytes([]int16{123, 0, 1, 2, 3, 4}))
	check("Int16ToInt32", out, castTBytes([]int32{123, 0, 1, 2, 3, 4}))
	out = make([]byte, 12)
	castInt(&castParams{inSize: 4, outSize: 2, signed: true}, out, castTBytes([]int32{123, 0, 1, 2, 3, 4}))
	check("Int32ToInt16", out, castTBytes([]int16{123, 0, 1, 2, 3, 4}))
	out = make([]byte, 24)
	castInt(&castParams{inSize: 4, outSize: 4}, out, castTBytes([]uint32{100, 200, 300, 400, 500, 600}))
	check("UInt32ToInt32", out, castTBytes([]int32{100, 200, 300, 400, 500, 600}))
	castInt(&castParams{inSize: 4, outSize: 4, signed: true}, out, castTBytes([]int32{100, 200, 300, 400, 500, 600}))
	check("Int32ToUInt32", out, castTBytes([]uint32{100, 200, 300, 400, 500, 600}))
}

// TestCastEdges: narrowing wraps, unsigned inputs zero-extend, and float32
// saturates (NaN to 0) where C++ leaves the result undefined.
func TestCastEdges(t *testing.T) {
	out := make([]byte, 3)
	castInt(&castParams{inSize: 4, outSize: 1, signed: true}, out, castTBytes([]int32{300, -129, -1}))
	if int8(out[0]) != 44 || int8(out[1]) != 127 || int8(out[2]) != -1 {
		t.Errorf("int32 to int8: % x", out)
	}
	f := make([]float32, 1)
	castIntF32(&castParams{inSize: 4, outSize: 4}, f, castTBytes([]uint32{math.MaxUint32}))
	if f[0] != 4294967296 {
		t.Errorf("uint32 max to float32: %v", f[0])
	}
	out = make([]byte, 5)
	castF32Int(&castParams{inSize: 4, outSize: 1}, math.MinInt8, math.MaxInt8, out,
		castTBytes([]float32{float32(math.NaN()), 1e9, -1e9, -2.9, float32(math.Inf(-1))}))
	if want := castTBytes([]int8{0, 127, -128, -2, -128}); string(out) != string(want) {
		t.Errorf("float32 to int8: % x, want % x", out, want)
	}
}
