package kernels

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
)

// padTestParams builds padParams the plain way (no merging of dimensions):
// the shape is right-aligned to five dimensions as TFLM's PadImpl does.
func padTestParams(esz int, value int64, shape []int, pads [][2]int) padParams {
	var n, l, r [5]int
	for i := range n {
		n[i] = 1
	}
	off := 5 - len(shape)
	for i, d := range shape {
		n[off+i], l[off+i], r[off+i] = d, pads[i][0], pads[i][1]
	}
	p := padParams{esz: esz, value: value,
		rowLeft: l[4] * esz, rowIn: n[4] * esz, rowRight: r[4] * esz}
	block := esz * (n[4] + l[4] + r[4])
	outs := [4]*int{&p.n0, &p.n1, &p.n2, &p.n3}
	los := [4]*int{&p.lo0, &p.lo1, &p.lo2, &p.lo3}
	his := [4]*int{&p.hi0, &p.hi1, &p.hi2, &p.hi3}
	blocks := [4]*int{&p.block0, &p.block1, &p.block2, &p.block3}
	for j := 3; j >= 0; j-- {
		*outs[j] = n[j] + l[j] + r[j]
		*los[j] = l[j]
		*his[j] = l[j] + n[j]
		*blocks[j] = block
		block *= *outs[j]
	}
	return p
}

// padTestEncode writes values as little-endian elements.
func padTestEncode(esz int, v []float64, float bool) []byte {
	b := make([]byte, len(v)*esz)
	for i, x := range v {
		switch {
		case float:
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(x)))
		case esz == 1:
			b[i] = byte(int8(x))
		case esz == 2:
			binary.LittleEndian.PutUint16(b[2*i:], uint16(int16(x)))
		case esz == 4:
			binary.LittleEndian.PutUint32(b[4*i:], uint32(int32(x)))
		}
	}
	return b
}

// padTestValue packs one element's bytes into padParams.value.
func padTestValue(esz int, x float64, float bool) int64 {
	var b [8]byte
	copy(b[:], padTestEncode(esz, []float64{x}, float))
	return int64(binary.LittleEndian.Uint64(b[:]))
}

// Cases from tensorflow/lite/micro/kernels/pad_test.cc (PAD pads with 0 or
// the int8 output zero point; PADV2 with its constant value).
func TestPadBytesTFLM(t *testing.T) {
	p2d := [][2]int{{1, 1}, {0, 0}, {1, 1}, {0, 0}}
	in := []float64{1, 2, 3, 4}
	golden0 := []float64{0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	golden42 := []float64{42, 42, 42, 42, 42, 42, 42, 42, 42, 1, 2, 42, 42, 3, 4, 42, 42, 42, 42, 42, 42, 42, 42, 42}
	golden4d := make([]float64, 81)
	golden4d[40] = 42
	goldenZP := make([]float64, len(golden0))
	for i, v := range golden0 {
		goldenZP[i] = v
		if v == 0 {
			goldenZP[i] = -128
		}
	}
	tests := []struct {
		name  string
		esz   int
		float bool
		shape []int
		pads  [][2]int
		value float64
		in    []float64
		want  []float64
	}{
		{"Test2DFloat", 4, true, []int{1, 2, 2, 1}, p2d, 0, in, golden0},
		{"Test4DFloat", 4, true, []int{1, 1, 1, 1}, [][2]int{{1, 1}, {1, 1}, {1, 1}, {1, 1}}, 0, []float64{42}, golden4d},
		{"Test2DFloatV2", 4, true, []int{1, 2, 2, 1}, p2d, 42, in, golden42},
		{"Test2DInt8", 1, false, []int{1, 2, 2, 1}, p2d, 0, in, golden0},
		{"Test2DInt16", 2, false, []int{1, 2, 2, 1}, p2d, 0, in, golden0},
		{"Test2DInt32", 4, false, []int{1, 2, 2, 1}, p2d, 0, in, golden0},
		{"Test2DInt8V2", 1, false, []int{1, 2, 2, 1}, p2d, 42, in, golden42},
		{"Test2DInt16V2", 2, false, []int{1, 2, 2, 1}, p2d, 42, in, golden42},
		{"Test2DInt32V2", 4, false, []int{1, 2, 2, 1}, p2d, 42, in, golden42},
		// int8 PAD with an output zero point at the type limit.
		{"Int8ZeroPointMin", 1, false, []int{1, 2, 2, 1}, p2d, -128, in, goldenZP},
		// Negative float pad value and int16/int32 extremes in the data.
		{"Float5D", 4, true, []int{1, 1, 2, 1, 1}, [][2]int{{0, 0}, {1, 0}, {0, 1}, {0, 0}, {1, 1}}, -1.5, []float64{7, 8},
			[]float64{-1.5, -1.5, -1.5, -1.5, -1.5, -1.5, -1.5, -1.5, -1.5, -1.5, 7, -1.5, -1.5, 8, -1.5, -1.5, -1.5, -1.5}},
		{"Int16Limits", 2, false, []int{2}, [][2]int{{1, 2}}, 32767, []float64{-32768, 32767}, []float64{32767, -32768, 32767, 32767, 32767}},
		{"Int32Limits", 4, false, []int{2}, [][2]int{{2, 0}}, -2147483648, []float64{2147483647, -1}, []float64{-2147483648, -2147483648, 2147483647, -1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := padTestParams(tc.esz, padTestValue(tc.esz, tc.value, tc.float), tc.shape, tc.pads)
			src := padTestEncode(tc.esz, tc.in, tc.float)
			want := padTestEncode(tc.esz, tc.want, tc.float)
			got := make([]byte, len(want))
			for i := range got {
				got[i] = 0x5A // the kernel must write every byte
			}
			padBytes(&p, got, src)
			if !bytes.Equal(got, want) {
				t.Errorf("got % x\nwant % x", got, want)
			}
			got2 := make([]byte, len(want))
			padBytesConst(&p, got2, string(src))
			if !bytes.Equal(got2, want) {
				t.Errorf("const: got % x\nwant % x", got2, want)
			}
		})
	}
}

// padFill covers every byte for lengths that are not powers of two.
func TestPadFill(t *testing.T) {
	for _, esz := range []int{1, 2, 4} {
		for n := 0; n < 20; n++ {
			dst := make([]byte, n*esz)
			padFill(dst, 0x0102030405060708, esz)
			for i, b := range dst {
				if want := byte(0x08 - i%esz); b != want {
					t.Fatalf("esz %d n %d: byte %d = %#x, want %#x", esz, n, i, b, want)
				}
			}
		}
	}
}
