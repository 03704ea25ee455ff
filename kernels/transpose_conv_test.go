package kernels

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// tconvTGeom builds tconvParams the way TFLM's transpose_conv.cc Prepare
// does: the padding comes from padding.h applied to the *output* size (as
// if it were the input of a forward convolution), dilation 1.
func tconvTGeom(inShape, fShape, outShape [4]int, same bool, strideH, strideW int) *tconvParams {
	p := &tconvParams{
		batches: inShape[0], inH: inShape[1], inW: inShape[2], inC: inShape[3],
		filterH: fShape[1], filterW: fShape[2],
		outH: outShape[1], outW: outShape[2], outC: outShape[3],
		strideH: strideH, strideW: strideW,
	}
	p.padH = convTPad(strideH, 1, p.outH, p.filterH, convTOutSize(same, p.outH, p.filterH, strideH, 1))
	p.padW = convTPad(strideW, 1, p.outW, p.filterW, convTOutSize(same, p.outW, p.filterW, strideW, 1))
	return p
}

// The shared tensors of transpose_conv_test.cc.
var (
	tconvTInput = []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
		17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32}
	tconvTFilter = []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18}
	tconvTGolden = []float32{184, 412, 568, 528, 678, 1347, 1689, 1434,
		1494, 2715, 3057, 2442, 1968, 3352, 3652, 2760}
)

func TestTransposeConvFloat(t *testing.T) {
	cases := []struct {
		name                      string
		inShape, fShape, outShape [4]int
		in, filter, bias, golden  []float32
		same                      bool
		stride                    int
		act                       quant.Activation
	}{
		{"SimpleTestFloat", [4]int{1, 4, 4, 2}, [4]int{1, 3, 3, 2}, [4]int{1, 4, 4, 1},
			tconvTInput, tconvTFilter, []float32{0}, tconvTGolden, true, 1, quant.ActNone},
		{"fusedRELUTest", [4]int{1, 4, 4, 1}, [4]int{1, 3, 3, 1}, [4]int{1, 4, 4, 1},
			[]float32{1, 2, -3, -4, 5, 6, -7, -8, 9, 10, -11, -12, 13, 14, 15, 16},
			[]float32{1, 2, 3, 4, 5, 6, 7, 8, 9}, []float32{0},
			[]float32{29, 24, 0, 0, 99, 72, 0, 0, 207, 186, 0, 0, 263, 292, 141, 0}, true, 1, quant.ActRelu},
		{"AccuracyWithFusedActivationTest", [4]int{1, 1, 2, 1}, [4]int{1, 3, 3, 1}, [4]int{1, 3, 4, 1},
			[]float32{323, -521}, []float32{9, 5, 6, 9, 8, 5, 3, 1, 4}, []float32{0},
			[]float32{1615, 1938, 0, 0, 2584, 1615, 0, 0, 323, 1292, 0, 0}, true, 3, quant.ActRelu},
		{"MultiChannelBiasWithFusedActivationTest", [4]int{1, 2, 2, 1}, [4]int{2, 3, 3, 1}, [4]int{1, 5, 5, 2},
			[]float32{1, 2, -3, 4}, []float32{1, 3, 5, 7, 9, 11, 13, 15, 17, 2, 4, 6, 8, 10, 12, 14, 16, 18},
			[]float32{3, 4},
			[]float32{4, 6, 6, 8, 10, 14, 9, 12, 13, 16, 10, 12, 12,
				14, 28, 32, 21, 24, 25, 28, 13, 12, 9, 8, 35, 40,
				45, 52, 57, 64, 0, 0, 0, 0, 0, 0, 39, 44, 47,
				52, 0, 0, 0, 0, 4, 6, 63, 68, 71, 76}, false, 2, quant.ActRelu},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := tconvTGeom(c.inShape, c.fShape, c.outShape, c.same, c.stride, c.stride)
			p.fActMin, p.fActMax = convTFloatRange(t, c.act)
			out := make([]float32, len(c.golden))
			for i := range out {
				out[i] = 12345 // the kernel must clear its accumulator
			}
			tconvF32(p, c.in, convTF32s(c.filter), convTF32s(c.bias), out)
			convTNearF(t, out, c.golden)
		})
	}
}

// TestTransposeConvInt8 ports SimpleTestQuantizedPerChannel (tolerance 1).
func TestTransposeConvInt8(t *testing.T) {
	const inScale, outScale = float32(0.5), float32(30)
	p := tconvTGeom([4]int{1, 4, 4, 2}, [4]int{1, 3, 3, 2}, [4]int{1, 4, 4, 1}, true, 1, 1)
	filter, fScales := convTSymPerChannel(tconvTFilter, 1, 0)
	q := convTQuant(tconvTInput, inScale, 0, -128, 127)
	in := make([]int8, len(q))
	for i, v := range q {
		in[i] = int8(v)
	}
	mult, shift := convTMult(inScale, fScales, outScale, 1)
	p.actMin, p.actMax = -128, 127
	scratch := make([]int32, 16)
	for i := range scratch {
		scratch[i] = 999 // stale scratch must not leak into the result
	}
	out := make([]int8, 16)
	// CreateQuantizedBiasTensor(bias, input_scale, filter_scale = 1).
	tconvInt8(p, in, filter, convTBias([]float32{0}, inScale, []float32{1}, 32), mult, shift, scratch, out)
	convTNear(t, out, convTQuant(tconvTGolden, outScale, 0, -128, 127), 1)
}

// TestTransposeConvInt16 ports SimpleTestQuantized16x8PerChannel and
// ...WithInt16Bias; an int16 bias is widened to int64 (the lowering does
// that at generation time, TFLM at run time). Tolerance 4 as in TFLM.
func TestTransposeConvInt16(t *testing.T) {
	for _, c := range []struct {
		name string
		bits int
	}{{"SimpleTestQuantized16x8PerChannel", 64}, {"SimpleTestQuantized16x8PerChannelWithInt16Bias", 16}} {
		t.Run(c.name, func(t *testing.T) {
			p := tconvTGeom([4]int{1, 4, 4, 2}, [4]int{1, 3, 3, 2}, [4]int{1, 4, 4, 1}, true, 1, 1)
			filter, fScales := convTSymPerChannel(tconvTFilter, 1, 0)
			q := convTQuant(tconvTInput, 1, 0, -32768, 32767)
			in := make([]int16, len(q))
			for i, v := range q {
				in[i] = int16(v)
			}
			b := convTBias([]float32{0}, 1, []float32{1}, c.bits)
			if c.bits == 16 {
				b = tconvTWiden16(b)
			}
			mult, shift := convTMult(1, fScales, 1, 1)
			p.actMin, p.actMax = -32768, 32767
			out := make([]int16, 16)
			tconvInt16(p, in, filter, b, mult, shift, make([]int64, 16), out)
			convTNear(t, out, convTQuant(tconvTGolden, 1, 0, -32768, 32767), 4)
		})
	}
}

// tconvTWiden16 re-encodes little-endian int16 values as int64.
func tconvTWiden16(s string) string {
	v := make([]int32, 0, len(s)/2)
	for i := 0; i+1 < len(s); i += 2 {
		v = append(v, int32(int16(uint16(s[i])|uint16(s[i+1])<<8)))
	}
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		u := uint64(int64(x))
		for k := 0; k < 8; k++ {
			b = append(b, byte(u>>(8*k)))
		}
	}
	return string(b)
}

// TestTransposeConvIntegerMatchesFloat runs MultiChannelBiasWithFused
// ActivationTest's data (VALID, stride 2, two output channels, RELU) through
// the integer kernels with unit scales, where quantization is exact: the
// int8 kernel with non-zero input and output zero points, and the 16x8
// kernel, must both reproduce TFLM's float golden exactly.
func TestTransposeConvIntegerMatchesFloat(t *testing.T) {
	in := []float32{1, 2, -3, 4}
	filter := []float32{1, 3, 5, 7, 9, 11, 13, 15, 17, 2, 4, 6, 8, 10, 12, 14, 16, 18}
	golden := []float32{4, 6, 6, 8, 10, 14, 9, 12, 13, 16, 10, 12, 12,
		14, 28, 32, 21, 24, 25, 28, 13, 12, 9, 8, 35, 40,
		45, 52, 57, 64, 0, 0, 0, 0, 0, 0, 39, 44, 47,
		52, 0, 0, 0, 0, 4, 6, 63, 68, 71, 76}
	f8 := make([]int8, len(filter))
	for i, v := range filter {
		f8[i] = int8(v)
	}
	bias := convTI32s([]int32{3, 4})
	mult, shift := convTMult(1, []float32{1}, 1, 2)
	geom := func() *tconvParams {
		return tconvTGeom([4]int{1, 2, 2, 1}, [4]int{2, 3, 3, 1}, [4]int{1, 5, 5, 2}, false, 2, 2)
	}

	t.Run("int8", func(t *testing.T) {
		p := geom()
		const inZP, outZP = -3, -10
		in8 := make([]int8, len(in))
		for i, v := range in {
			in8[i] = int8(int32(v) + inZP)
		}
		p.inOffset, p.outOffset = -inZP, outZP
		p.actMin, p.actMax = convTActRange(t, quant.ActRelu, 1, outZP, -128, 127)
		out := make([]int8, len(golden))
		tconvInt8(p, in8, f8, bias, mult, shift, make([]int32, len(golden)), out)
		convTNear(t, out, convTQuant(golden, 1, outZP, -128, 127), 0)
	})
	t.Run("int16", func(t *testing.T) {
		p := geom()
		in16 := make([]int16, len(in))
		for i, v := range in {
			in16[i] = int16(v)
		}
		p.actMin, p.actMax = convTActRange(t, quant.ActRelu, 1, 0, -32768, 32767)
		out := make([]int16, len(golden))
		b64 := tconvTWiden16(string([]byte{3, 0, 4, 0}))
		tconvInt16(p, in16, f8, b64, mult, shift, make([]int64, len(golden)), out)
		convTNear(t, out, convTQuant(golden, 1, 0, -32768, 32767), 0)
	})
}

// TestTransposeConvSeanetInt16 runs TFLM's seanet 16x8 TRANSPOSE_CONV test
// models (int64 bias, output shape fed as a graph input) on their input
// vectors and requires the golden output exactly (TFLM_CHECK.txt: 0
// mismatches).
func TestTransposeConvSeanetInt16(t *testing.T) {
	shared := convTSharedDir(t)
	dir := filepath.Join(shared, "vectors", "seanet", "transpose_conv")
	files, _ := filepath.Glob(filepath.Join(dir, "transpose_conv*.tflite"))
	if len(files) == 0 {
		t.Skip("no seanet transpose_conv vectors in " + dir)
	}
	for _, f := range files {
		base := strings.TrimSuffix(filepath.Base(f), ".tflite")
		t.Run(base, func(t *testing.T) {
			g := convTModel(t, f)
			if len(g.Ops) != 1 || g.Ops[0].Code != model.OpTransposeConv {
				t.Fatalf("expected a single TRANSPOSE_CONV")
			}
			op := g.Ops[0]
			filter, in, bias, out := g.Input(op, 1), g.Input(op, 2), g.Input(op, 3), g.Output(op, 0)
			if in.Type != model.Int16 || bias == nil || bias.Type != model.Int64 {
				t.Fatalf("expected int16 input and int64 bias")
			}
			o := op.Options()
			same := o.Uint8(0, 0) == 0
			sw, sh := int(o.Int32(1, 0)), int(o.Int32(2, 0))
			act := quant.Activation(o.Uint8(3, 0))
			if err := o.Err(); err != nil {
				t.Fatal(err)
			}
			var is, fs, os [4]int
			copy(is[:], in.Shape)
			copy(fs[:], filter.Shape)
			copy(os[:], out.Shape)
			p := tconvTGeom(is, fs, os, same, sh, sw)
			q := convTQuantFromOp(t, in, filter, out, act, p.outC, -32768, 32767)
			p.actMin, p.actMax = q.actMin, q.actMax

			shape := convTCSV(t, filepath.Join(dir, base+"_input0_int32.csv"))
			for i, d := range shape {
				if int(d) != out.Shape[i] {
					t.Fatalf("output_shape input %v, output tensor %v", shape, out.Shape)
				}
			}
			xs := convTCSV(t, filepath.Join(dir, base+"_input1_int16.csv"))
			x := make([]int16, len(xs))
			for i, v := range xs {
				x[i] = int16(v)
			}
			ws := convTCSV(t, filepath.Join(dir, base+"_golden_int16.csv"))
			want := make([]int32, len(ws))
			for i, v := range ws {
				want[i] = int32(v)
			}
			if len(x) != in.NumElements() || len(want) != out.NumElements() {
				t.Fatalf("vector sizes %d/%d, tensors %d/%d", len(x), len(want), in.NumElements(), out.NumElements())
			}
			got := make([]int16, len(want))
			tconvInt16(p, x, convTBytesI8(filter.Data), string(bias.Data), q.mult, q.shift, make([]int64, len(want)), got)
			convTNear(t, got, want, 0)
		})
	}
}
