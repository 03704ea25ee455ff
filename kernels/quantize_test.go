package kernels

import (
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// Cases ported from TFLite Micro's quantize_test.cc and dequantize_test.cc,
// plus the QUANTIZE operators of the keyword_scrambled models checked
// against TFLM's recorded tensors.

var (
	// qtValuesA and qtValuesB are the value sets of quantize_test.cc.
	qtValuesA = ewtF32(-64, -62, -60, -58, -56, 54, 56, 58, 60, 62)
	qtValuesB = ewtF32(-32, -31, -30, -29, -28, 27, 28, 29, 30, 31)
	// qtValuesHalf are the values of the float QUANTIZE and DEQUANTIZE tests.
	qtValuesHalf = ewtF32(-63.5, -63, -62.5, -62, -61.5, 62, 62.5, 63, 63.5, 64)
)

// qtRequantParams computes requantization parameters (quantize_common.cc)
// for output type O.
func qtRequantParams[O ewtInt](si, so float32, zi, zo int32) *requantizeParams {
	p := &requantizeParams{inZP: zi, outZP: zo}
	q := fcTRQ(quant.Multiplier(float64(si) / float64(so)))
	p.mult, p.lsh, p.rsh, p.half = q.mult, q.lsh, q.rsh, q.half
	p.qmin, p.qmax = ewtRange[O]()
	return p
}

// qtRequant runs one requantization case: the values are quantized at the
// input's parameters, requantized, and compared exactly with the values
// quantized at the output's parameters.
func qtRequant[I, O ewtInt](t *testing.T, name string, vals []float32, si float32, zi int32, so float32, zo int32, fn func(*requantizeParams, []I, []O)) {
	t.Helper()
	in := ewtQuantize[I](vals, si, zi)
	got := make([]O, len(vals))
	fn(qtRequantParams[O](si, so, zi, zo), in, got)
	ewtCheckInts(t, name, got, ewtQuantize[O](vals, so, zo), 0)
}

func TestQuantizeFloat(t *testing.T) {
	cases := []struct {
		name  string
		vals  []float32
		scale float32
		zp    int32
	}{
		{"QuantizeOpTestInt16", qtValuesHalf, 0.5, -1},
		{"QuantizeOpTestInt16NoScale", ewtF32(-128, -127, -126, -125, -124, 123, 124, 125, 126, 127), 1, 0},
		{"QuantizeOpTestInt8", qtValuesHalf, 0.5, -1},
		{"QuantizeOpTestInt8NoZeroPoint", qtValuesB, 0.5, 0},
		// Ties round away from zero; values beyond the range saturate.
		{"TiesAndSaturation", ewtF32(2.5, -2.5, 0.5, -0.5, 1e30, -1e30, 300, -300), 1, 0},
	}
	for _, c := range cases {
		p := &quantizeParams{scale: c.scale, zp: c.zp}
		got16 := make([]int16, len(c.vals))
		quantizeF32ToInt16(p, c.vals, got16)
		ewtCheckInts(t, c.name+"/int16", got16, ewtQuantize[int16](c.vals, c.scale, c.zp), 0)
		got8 := make([]int8, len(c.vals))
		quantizeF32ToInt8(p, c.vals, got8)
		ewtCheckInts(t, c.name+"/int8", got8, ewtQuantize[int8](c.vals, c.scale, c.zp), 0)
	}
	// Explicit expectations for the rounding and saturation case.
	got := make([]int8, 9)
	quantizeF32ToInt8(&quantizeParams{scale: 1, zp: 3}, ewtF32(2.5, -2.5, 0.5, -0.5, 1e30, -1e30, 300, -300, math.NaN()), got)
	ewtCheckInts(t, "TiesAndSaturation explicit", got, []int8{6, 0, 4, 2, 127, -128, 127, -128, 3}, 0)
}

func TestQuantizeRequantize(t *testing.T) {
	A, B := qtValuesA, qtValuesB
	qtRequant(t, "QuantizeOpTestInt16toInt16", A, 2, 0, 0.5, 32, requantizeI16ToI16)
	qtRequant(t, "QuantizeOpTestInt16toInt16NoZeroPoint", B, 1, 0, 0.5, 0, requantizeI16ToI16)
	qtRequant(t, "QuantizeOpTestInt8toInt8", A, 2, 0, 0.5, 32, requantizeI8ToI8)
	qtRequant(t, "QuantizeOpTestInt8toInt8NoZeroPoint", B, 1, 0, 0.5, 0, requantizeI8ToI8)
	qtRequant(t, "QuantizeOpTestInt8toInt16", A, 2, 0, 0.5, 32, requantizeI8ToI16)
	qtRequant(t, "QuantizeOpTestInt32toInt16", B, 0.4, 0, 1, 0, requantizeI32ToI16)
	qtRequant(t, "QuantizeOpTestInt32toInt8", B, 0.4, 0, 1, 0, requantizeI32ToI8)
	qtRequant(t, "QuantizeOpTestInt16toInt8_2", A, 2, 0, 0.5, 0, requantizeI16ToI8)
	qtRequant(t, "QuantizeOpTestInt8toUInt8Fast", B, 1, 0, 0.5, 128, requantizeI8ToU8)
	qtRequant(t, "QuantizeOpTestInt8toUInt8Normal", B, 1, 50, 1, 110, requantizeI8ToU8)
	qtRequant(t, "QuantizeOpTestUInt8toInt8Fast", B, 0.4, 0, 1, -128, requantizeU8ToI8)
	qtRequant(t, "QuantizeOpTestUInt8toInt8Normal", B, 1, 50, 0.3, 0, requantizeU8ToI8)
	qtRequant(t, "QuantizeOpTestInt8toInt32", B, 1, 0, 0.5, 0, requantizeI8ToI32)
	qtRequant(t, "QuantizeOpTestInt16toInt32", B, 1, 0, 0.5, 0, requantizeI16ToI32)
	qtRequant(t, "QuantizeOpTestInt16toInt8", B, 0.4, 0, 1, 0, requantizeI16ToI8)

	// Same scale, zero points 128 apart: TFLM's fast path flips the top
	// bit; the general path must give the same bytes.
	in := []int8{-128, -1, 0, 1, 127}
	got := make([]uint8, len(in))
	requantizeI8ToU8(qtRequantParams[uint8](0.5, 0.5, -128, 0), in, got)
	ewtCheckInts(t, "int8 to uint8 same scale", got, []uint8{0, 127, 128, 129, 255}, 0)
	back := make([]int8, len(in))
	requantizeU8ToI8(qtRequantParams[int8](0.5, 0.5, 0, -128), got, back)
	ewtCheckInts(t, "uint8 to int8 same scale", back, in, 0)
}

func TestDequantize(t *testing.T) {
	want := qtValuesHalf
	got := make([]float32, len(want))
	dequantizeI8(&dequantizeParams{0.5, -1}, ewtQuantize[int8](want, 0.5, -1), got)
	ewtCheckF32(t, "DequantizeOpTestInt8", got, want, 0.001)
	dequantizeI16(&dequantizeParams{0.5, -1}, ewtQuantize[int16](want, 0.5, -1), got)
	ewtCheckF32(t, "DequantizeOpTestInt16", got, want, 0.001)
	dequantizeU8(&dequantizeParams{0.5, 127}, ewtQuantize[uint8](want, 0.5, 127), got)
	ewtCheckF32(t, "DequantizeOpTestUint8", got, want, 0.001)
	// The product is formed in float64 and rounded once: 0.1*(q-zp).
	dequantizeI16(&dequantizeParams{0.1, 0}, []int16{3}, got[:1])
	if want := float32(float64(float32(0.1)) * 3); got[0] != want {
		t.Errorf("dequantize rounding: got %v, want %v", got[0], want)
	}
}

// TestQuantizeReference runs the QUANTIZE operators of keyword_scrambled
// (int16 to int8, int16 to int32) on TFLM's recorded input tensors and
// requires the recorded outputs exactly.
func TestQuantizeReference(t *testing.T) {
	shared := ewtShared(t, "ref")
	n := 0
	for _, m := range []string{"keyword_scrambled", "keyword_scrambled_8bit"} {
		g := ewtModel(t, filepath.Join(shared, "..", "models", m+".tflite"))
		for _, op := range g.Ops {
			if op.Code != model.OpQuantize {
				continue
			}
			in, out := g.Input(op, 0), g.Output(op, 0)
			si, zi := ewtTensorQuant(t, in)
			so, zo := ewtTensorQuant(t, out)
			inB, err := os.ReadFile(filepath.Join(shared, "tensors", m, "t"+strconv.Itoa(in.Index)+".bin"))
			if err != nil {
				t.Fatal(err)
			}
			wantB, err := os.ReadFile(filepath.Join(shared, "tensors", m, "t"+strconv.Itoa(out.Index)+".bin"))
			if err != nil {
				t.Fatal(err)
			}
			name := m + "/" + op.Describe()
			switch {
			case in.Type == model.Int16 && out.Type == model.Int8:
				got := make([]int8, out.NumElements())
				requantizeI16ToI8(qtRequantParams[int8](si, so, zi, zo), ewtRaw[int16](inB), got)
				ewtCheckInts(t, name, got, ewtRaw[int8](wantB), 0)
			case in.Type == model.Int16 && out.Type == model.Int32:
				got := make([]int32, out.NumElements())
				requantizeI16ToI32(qtRequantParams[int32](si, so, zi, zo), ewtRaw[int16](inB), got)
				ewtCheckInts(t, name, got, ewtRaw[int32](wantB), 0)
			default:
				t.Fatalf("%s: unexpected types %s -> %s", name, in.Type, out.Type)
			}
			n++
		}
	}
	if n != 4 {
		t.Fatalf("checked %d QUANTIZE operators, want 4", n)
	}
}

// TestRequantizeFast checks the dwRQFast loops of requantizeI16ToI8 and
// requantizeI8ToI8 against requantizeOne (the general path) on every input
// value, for random multipliers, shifts (left, right 0..31) and zero
// points.
func TestRequantizeFast(t *testing.T) {
	r := rand.New(rand.NewSource(15))
	in16 := make([]int16, 65536)
	for i := range in16 {
		in16[i] = int16(i - 32768)
	}
	in8 := make([]int8, 256)
	for i := range in8 {
		in8[i] = int8(i - 128)
	}
	out16 := make([]int8, len(in16))
	out8 := make([]int8, len(in8))
	for trial := 0; trial < 300; trial++ {
		p := &requantizeParams{mult: int32(1<<30 + r.Int63n(1<<30)), qmin: -128, qmax: 127}
		if trial%2 == 0 {
			p.qmin, p.qmax = int32(r.Intn(100)-128), int32(127-r.Intn(100))
		}
		sh := r.Intn(33) - 31 // exponent -31..1
		if trial < 40 {
			sh = -(trial % 23)
		}
		if sh > 0 {
			p.lsh, p.rsh = uint8(sh), 31
		} else {
			p.rsh = uint8(31 - sh)
			if sh < 0 {
				p.half = int32(1) << (-sh - 1)
			}
		}
		p.outZP = int32(r.Intn(256) - 128)
		for _, w := range []struct {
			zi  int32
			n16 bool
		}{{int32(r.Intn(65536) - 32768), true}, {0, true}, {int32(r.Intn(256) - 128), false}} {
			p.inZP = w.zi
			q := fcMakeRQ(p.mult, p.half, p.lsh, p.rsh)
			if w.n16 {
				requantizeI16ToI8(p, in16, out16)
				for i, v := range in16 {
					if want := int8(requantizeOne(p, q, int32(v))); out16[i] != want {
						t.Fatalf("%+v: int16 %d gives %d, want %d", *p, v, out16[i], want)
					}
				}
				continue
			}
			requantizeI8ToI8(p, in8, out8)
			for i, v := range in8 {
				if want := int8(requantizeOne(p, q, int32(v))); out8[i] != want {
					t.Fatalf("%+v: int8 %d gives %d, want %d", *p, v, out8[i], want)
				}
			}
		}
	}
}
