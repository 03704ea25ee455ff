package kernels

import (
	"math"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// TestUnaryFloat ports TFLite Micro's elementwise_test.cc float cases (its
// inputs and goldens, within its 1e-5) and adds exact bit checks where the
// reference's result is exact: signed zeros, NaN, infinities.
func TestUnaryFloat(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	negZero := math.Float32frombits(1 << 31)
	for _, c := range []struct {
		name      string
		fn        func(in, out []float32)
		in, want  []float32
		exactBits bool
	}{
		{"abs", absF32, []float32{0.01, -0.01, 10, -10}, []float32{0.01, 0.01, 10, 10}, true},
		{"abs special", absF32, []float32{negZero, -inf, inf}, []float32{0, inf, inf}, true},
		{"neg", negF32, []float32{1, -2.5, 0, negZero}, []float32{-1, 2.5, negZero, 0}, true},
		{"sqrt", sqrtF32, []float32{0, 1, 2, 4}, []float32{0, 1, 1.41421, 2}, false},
		{"sqrt special", sqrtF32, []float32{inf, negZero}, []float32{inf, negZero}, true},
		{"rsqrt", rsqrtF32, []float32{1, 2, 4, 9}, []float32{1, 0.7071, 0.5, 0.33333}, false},
		{"square", squareF32, []float32{1, 2, 0.5, -3.0}, []float32{1, 4.0, 0.25, 9.0}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := make([]float32, len(c.in)+1)
			out[len(c.in)] = 23
			c.fn(c.in, out)
			if out[len(c.in)] != 23 {
				t.Errorf("wrote past the input length")
			}
			for i, w := range c.want {
				g := out[i]
				if c.exactBits && math.Float32bits(g) != math.Float32bits(w) {
					t.Errorf("%v -> %v (bits %08x), want %v (bits %08x)", c.in[i], g, math.Float32bits(g), w, math.Float32bits(w))
				}
				if !c.exactBits && math.Abs(float64(g-w)) > 1e-4*max(1, math.Abs(float64(w))) {
					t.Errorf("%v -> %v, want %v", c.in[i], g, w)
				}
			}
		})
	}
	// Every float32 bit pattern class at once for the exact kernels.
	in := []float32{nan, -nan, 3.4e38, -1e-45, 1.17549435e-38}
	out := make([]float32, len(in))
	absF32(in, out)
	for i, v := range in {
		if math.Float32bits(out[i]) != math.Float32bits(v)&^(1<<31) {
			t.Errorf("abs(%08x) = %08x", math.Float32bits(v), math.Float32bits(out[i]))
		}
	}
	sqrtF32(in[2:], out[2:])
	for i, v := range in[2:] {
		if w := float32(math.Sqrt(float64(v))); math.Float32bits(out[i+2]) != math.Float32bits(w) {
			t.Errorf("sqrt(%g) = %g, want %g", v, out[i+2], w)
		}
	}
}

// TestLogicalNot ports TFLite Micro's LogicalNot case.
func TestLogicalNot(t *testing.T) {
	in := []uint8{1, 0, 0, 1}
	out := make([]uint8, 4)
	logicalNot(in, out)
	for i, w := range []uint8{0, 1, 1, 0} {
		if out[i] != w {
			t.Errorf("not %d = %d, want %d", in[i], out[i], w)
		}
	}
}

// absQuantCase quantizes TFLite Micro's ABS test data the way its test
// does (round to nearest, clamp) and checks the dequantized outputs within
// the input scale, as the test does.
func absQuantCase(t *testing.T, name string, qmin, qmax int32, inScale, outScale float32, inZP, outZP int32,
	run func(p *absParams, in []int32) []int32) {
	t.Helper()
	data := []float32{15, 46, 78, -142, -1, -17, -49, 113}
	golden := []float32{15, 46, 78, 142, 1, 17, 49, 113}
	p := &absParams{inZP: inZP, outZP: outZP, rescale: inScale != outScale}
	if p.rescale {
		var err error
		if p.mult, p.shift, err = quant.CheckedMultiplier(float64(inScale) / float64(outScale)); err != nil {
			t.Fatal(err)
		}
	}
	in := make([]int32, len(data))
	for i, v := range data {
		q := int32(math.Round(float64(v/inScale))) + inZP
		in[i] = min(max(q, qmin), qmax)
	}
	out := run(p, in)
	for i, g := range golden {
		f := float32(out[i]-outZP) * outScale
		if math.Abs(float64(f-g)) > float64(inScale) {
			t.Errorf("%s: abs(%v) = %v (q %d), want %v within %v", name, data[i], f, out[i], g, inScale)
		}
	}
}

// TestAbsQuantized runs TFLite Micro's AbsInt8, AbsInt8SameScale and
// AbsInt16 cases, and checks the saturation the reference applies.
func TestAbsQuantized(t *testing.T) {
	int8Run := func(p *absParams, in []int32) []int32 {
		x := make([]int8, len(in))
		for i, v := range in {
			x[i] = int8(v)
		}
		y := make([]int8, len(in))
		absInt8(p, x, y)
		out := make([]int32, len(in))
		for i, v := range y {
			out[i] = int32(v)
		}
		return out
	}
	int16Run := func(p *absParams, in []int32) []int32 {
		x := make([]int16, len(in))
		for i, v := range in {
			x[i] = int16(v)
		}
		y := make([]int16, len(in))
		absInt16(p, x, y)
		out := make([]int32, len(in))
		for i, v := range y {
			out[i] = int32(v)
		}
		return out
	}
	const dataMin, dataMax = -142, 113
	scale := float32(dataMax-dataMin) / 255
	absQuantCase(t, "int8", -128, 127, scale, 142.0/255, 127-dataMax, -128, int8Run)
	absQuantCase(t, "int8 same scale", -128, 127, scale, scale, 127-dataMax, -128, int8Run)
	absQuantCase(t, "int16", -32768, 32767, 142.0/32767, 150.0/32767, 0, 0, int16Run)

	// Saturation: |-128 - 127| = 255 plus the output zero point clamps.
	y := make([]int8, 2)
	absInt8(&absParams{inZP: 127, outZP: 0}, []int8{-128, 127}, y)
	if y[0] != 127 || y[1] != 0 {
		t.Errorf("int8 saturation: %v, want [127 0]", y)
	}
	z := make([]int16, 2)
	absInt16(&absParams{}, []int16{-32768, 32767}, z)
	if z[0] != 32767 || z[1] != 32767 {
		t.Errorf("int16 saturation: %v, want [32767 32767]", z)
	}
	w := make([]int16, 3)
	absInt16Plain([]int16{-32768, -5, 7}, w)
	if w[0] != -32768 || w[1] != 5 || w[2] != 7 {
		t.Errorf("plain int16 abs: %v, want [-32768 5 7]", w)
	}
}
