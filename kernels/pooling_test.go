package kernels

import (
	"math"
	"math/rand"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// Cases ported from TFLite Micro's tensorflow/lite/micro/kernels/
// pooling_test.cc (names are the TEST names there). Every case pools a
// 1x2x4x1 input with a 2x2 filter. Padding is computed from the padding
// mode as tflite::ComputePaddingHeightWidth does (mirrored from
// gen/lower_pool.go); like TFLM, the kernel then iterates over the output
// tensor's shape, which two TFLM cases make larger than the computed one.

type poolTCase struct {
	name             string
	same             bool // padding SAME (else VALID)
	strideH, strideW int
	outH, outW       int // output tensor shape
	act              quant.Activation
	scale            float32 // quantized cases: input and output scale
	input, golden    []float32
}

// poolTPadding mirrors ComputeOutSize and ComputePaddingWithOffset (no
// dilation): the computed output size and the padding before the data.
func poolTPadding(same bool, in, filter, stride int) (out, pad int) {
	if same {
		out = (in + stride - 1) / stride
	} else {
		out = (in + stride - filter) / stride
	}
	pad = max((out-1)*stride+filter-in, 0) / 2
	return out, pad
}

func poolTParams(t *testing.T, c poolTCase, qmin, qmax int32) *poolParams {
	t.Helper()
	_, padH := poolTPadding(c.same, 2, 2, c.strideH)
	_, padW := poolTPadding(c.same, 4, 2, c.strideW)
	p := &poolParams{batches: 1, inH: 2, inW: 4, depth: 1, outH: c.outH, outW: c.outW,
		strideH: c.strideH, strideW: c.strideW, filterH: 2, filterW: 2, padH: padH, padW: padW}
	if c.scale == 0 {
		lo, hi, ok := quant.RangeFloat(c.act)
		if !ok {
			t.Fatalf("activation %v", c.act)
		}
		p.fActMin, p.fActMax = lo, hi
		return p
	}
	lo, hi, ok := quant.RangeQuantized(c.act, float64(c.scale), 0, qmin, qmax)
	if !ok {
		t.Fatalf("activation %v", c.act)
	}
	p.actMin, p.actMax = lo, hi
	return p
}

func TestPoolingAverageF32(t *testing.T) {
	cases := []poolTCase{
		{name: "SimpleAveragePoolTestFloat", strideH: 2, strideW: 2, outH: 1, outW: 2,
			input: []float32{0, 6, 2, 4, 3, 2, 10, 7}, golden: []float32{2.75, 5.75}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := make([]float32, len(c.golden))
			avgPoolF32(poolTParams(t, c, 0, 0), c.input, out)
			for i, g := range c.golden {
				if math.Abs(float64(out[i]-g)) > 1e-5 {
					t.Fatalf("got %v, want %v", out, c.golden)
				}
			}
		})
	}
}

func TestPoolingMaxF32(t *testing.T) {
	in := []float32{0, 6, 2, 4, 3, 2, 10, 7}
	cases := []poolTCase{
		{name: "SimpleMaxPoolTestFloat", strideH: 2, strideW: 2, outH: 1, outW: 2,
			input: in, golden: []float32{6, 10}},
		{name: "SimpleMaxPoolTestFloatRelu", strideH: 2, strideW: 2, outH: 1, outW: 2, act: quant.ActRelu,
			input: []float32{-1, -6, 2, 4, -3, -2, 10.5, 7}, golden: []float32{0, 10.5}},
		{name: "SimpleMaxPoolTestFloatReluN1To1/1", strideH: 2, strideW: 2, outH: 1, outW: 2, act: quant.ActReluN1To1,
			input: []float32{-2.75, -6, 0.2, 0.4, -3, -2, -0.3, 0.7}, golden: []float32{-1.0, 0.7}},
		{name: "SimpleMaxPoolTestFloatReluN1To1/2", strideH: 2, strideW: 2, outH: 1, outW: 2, act: quant.ActReluN1To1,
			input: []float32{-2.75, -6, -2, -4, -3, -2, 10, -7}, golden: []float32{-1.0, 1.0}},
		{name: "SimpleMaxPoolTestFloatRelu6/1", strideH: 2, strideW: 2, outH: 1, outW: 2, act: quant.ActRelu6,
			input: []float32{-1.5, -6, 12, 4, -3, -2, 10, 7}, golden: []float32{0, 6}},
		{name: "SimpleMaxPoolTestFloatRelu6/2", strideH: 2, strideW: 2, outH: 1, outW: 2, act: quant.ActRelu6,
			input: []float32{0, 4.5, 12, 4, 3, 2, 10, 7}, golden: []float32{4.5, 6}},
		{name: "SimpleMaxPoolTestPaddingSameStride1", same: true, strideH: 1, strideW: 1, outH: 2, outW: 4,
			input: in, golden: []float32{6, 10, 10, 7, 3, 10, 10, 7}},
		{name: "SimpleMaxPoolTestPaddingValidStride1", strideH: 1, strideW: 1, outH: 1, outW: 3,
			input: in, golden: []float32{6, 10, 10}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := make([]float32, len(c.golden))
			maxPoolF32(poolTParams(t, c, 0, 0), c.input, out)
			for i, g := range c.golden {
				if math.Abs(float64(out[i]-g)) > 1e-5 {
					t.Fatalf("got %v, want %v", out, c.golden)
				}
			}
		})
	}
}

// poolTAvgCases are the AVERAGE_POOL int8 cases; the int16 TEST_s use the
// same data (SimpleAveragePoolTestInt16...).
var poolTAvgCases = []poolTCase{
	{name: "PaddingValidStride2ActNone", strideH: 2, strideW: 2, outH: 1, outW: 2, scale: .25,
		input: []float32{0, -24, 8, 16, 12, 8, -40, 28}, golden: []float32{-1, 3}},
	{name: "PaddingValidStride1Stride2Relu", strideH: 2, strideW: 1, outH: 1, outW: 3, scale: .25, act: quant.ActRelu,
		input: []float32{0, -24, 8, 16, 12, 8, -40, 28}, golden: []float32{0, 0, 3}},
	{name: "PaddingValidStride2Stride1ReluN1To1", strideH: 1, strideW: 2, outH: 1, outW: 2, scale: .25, act: quant.ActReluN1To1,
		input: []float32{0, -24, 8, 16, 12, 8, -40, 28}, golden: []float32{-1, 3}},
	{name: "PaddingValidStride2Relu6", strideH: 2, strideW: 2, outH: 1, outW: 2, scale: .25, act: quant.ActRelu6,
		input: []float32{12, -24, 32, 16, 12, 8, 40, 28}, golden: []float32{2, 24}},
	// Named "PaddingSame" in TFLM but run with VALID padding and a 2x4
	// output tensor: windows past the data are clipped.
	{name: "PaddingSameStride1ActNone", strideH: 1, strideW: 1, outH: 2, outW: 4, scale: .25,
		input: []float32{12, -24, 32, 16, 12, 8, 40, 28}, golden: []float32{2, 14, 29, 22, 10, 24, 34, 28}},
}

// poolTMaxCases are the MAX_POOL int8 cases; the int16 TEST_s use the same
// data (SimpleMaxPoolTestInt16ActNone, MaxPoolTestInt16Act...).
var poolTMaxCases = []poolTCase{
	{name: "ActNone", strideH: 2, strideW: 2, outH: 1, outW: 2, scale: 1,
		input: []float32{0, 6, 2, 4, 3, 2, 10, 7}, golden: []float32{6, 10}},
	{name: "ActRelu", strideH: 2, strideW: 2, outH: 1, outW: 2, scale: 0.5, act: quant.ActRelu,
		input: []float32{-3, -12, 4, 8, -6, -4, 20, 14}, golden: []float32{0, 20}},
	{name: "ActReluN1To1", strideH: 2, strideW: 2, outH: 1, outW: 2, scale: 1, act: quant.ActReluN1To1,
		input: []float32{-2, -6, -2, -4, -3, -2, 10, 7}, golden: []float32{-1, 1}},
	{name: "ActRelu6", strideH: 2, strideW: 2, outH: 1, outW: 2, scale: 1, act: quant.ActRelu6,
		input: []float32{0, -6, 12, 4, -3, -2, 10, 7}, golden: []float32{0, 6}},
}

func TestPoolingInt8(t *testing.T) {
	for _, avg := range []bool{true, false} {
		cases, kind := poolTMaxCases, "Max"
		if avg {
			cases, kind = poolTAvgCases, "Average"
		}
		for _, c := range cases {
			t.Run(kind+"/"+c.name, func(t *testing.T) {
				p := poolTParams(t, c, -128, 127)
				in := make([]int8, len(c.input))
				for i, v := range c.input {
					in[i] = int8(v)
				}
				out := make([]int8, len(c.golden))
				if avg {
					avgPoolInt8(p, in, out)
				} else {
					maxPoolInt8(p, in, out)
				}
				for i, g := range c.golden {
					if int8(g) != out[i] {
						t.Fatalf("got %v, want %v", out, c.golden)
					}
				}
			})
		}
	}
}

func TestPoolingInt16(t *testing.T) {
	for _, avg := range []bool{true, false} {
		cases, kind := poolTMaxCases, "Max"
		if avg {
			cases, kind = poolTAvgCases, "Average"
		}
		for _, c := range cases {
			t.Run(kind+"/"+c.name, func(t *testing.T) {
				p := poolTParams(t, c, -32768, 32767)
				in := make([]int16, len(c.input))
				for i, v := range c.input {
					in[i] = int16(v)
				}
				out := make([]int16, len(c.golden))
				if avg {
					avgPoolInt16(p, in, out)
				} else {
					maxPoolInt16(p, in, out)
				}
				for i, g := range c.golden {
					if int16(g) != out[i] {
						t.Fatalf("got %v, want %v", out, c.golden)
					}
				}
			})
		}
	}
}

// poolTRef transcribes reference_integer_ops::AveragePool / MaxPool
// (window bounds per output element, Offset() indexing, the integer
// average's rounding) for int8 data held in int32.
func poolTRef(p *poolParams, in []int32, avg bool) []int32 {
	var out []int32
	for b := 0; b < p.batches; b++ {
		for oy := 0; oy < p.outH; oy++ {
			for ox := 0; ox < p.outW; ox++ {
				for c := 0; c < p.depth; c++ {
					x0 := ox*p.strideW - p.padW
					y0 := oy*p.strideH - p.padH
					fx0, fx1 := max(0, -x0), min(p.filterW, p.inW-x0)
					fy0, fy1 := max(0, -y0), min(p.filterH, p.inH-y0)
					acc, n, m := int32(0), int32(0), int32(-128)
					for fy := fy0; fy < fy1; fy++ {
						for fx := fx0; fx < fx1; fx++ {
							v := in[((b*p.inH+y0+fy)*p.inW+x0+fx)*p.depth+c]
							acc += v
							n++
							m = max(m, v)
						}
					}
					if avg {
						if acc > 0 {
							acc = (acc + n/2) / n
						} else {
							acc = (acc - n/2) / n
						}
						m = acc
					}
					out = append(out, min(max(m, p.actMin), p.actMax))
				}
			}
		}
	}
	return out
}

// TestPoolingInt8Strided compares the int8 kernels with a transcription of
// the reference on random data: SAME and VALID padding, unequal strides
// and filters, several batches and channels, and an activation range
// narrower than the type (as a fused RELU with a zero point at -128 makes).
func TestPoolingInt8Strided(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for _, same := range []bool{true, false} {
		for _, f := range [][4]int{{3, 2, 2, 1}, {2, 3, 1, 3}, {5, 5, 2, 2}, {1, 1, 1, 1}} {
			fh, fw, sh, sw := f[0], f[1], f[2], f[3]
			oh, ph := poolTPadding(same, 7, fh, sh)
			ow, pw := poolTPadding(same, 6, fw, sw)
			p := &poolParams{batches: 2, inH: 7, inW: 6, depth: 3, outH: oh, outW: ow,
				strideH: sh, strideW: sw, filterH: fh, filterW: fw, padH: ph, padW: pw,
				actMin: -100, actMax: 127}
			raw := make([]int32, 2*7*6*3)
			in := make([]int8, len(raw))
			for i := range raw {
				in[i] = int8(r.Intn(256) - 128)
				raw[i] = int32(in[i])
			}
			for _, avg := range []bool{true, false} {
				want := poolTRef(p, raw, avg)
				out := make([]int8, len(want))
				if avg {
					avgPoolInt8(p, in, out)
				} else {
					maxPoolInt8(p, in, out)
				}
				for i := range want {
					if int32(out[i]) != want[i] {
						t.Fatalf("same=%v filter %v avg=%v: output %d = %d, want %d", same, f, avg, i, out[i], want[i])
					}
				}
			}
		}
	}
}

// TestPoolRecip checks that poolRecip's multiply divides exactly every
// dividend the int8 average pooling gives it (0 <= x <= 128n + n/2), for
// every window size up to 4096 and samples up to poolRecipMax, at the
// ends of the range and around every multiple of n there.
func TestPoolRecip(t *testing.T) {
	ns := []int32{}
	for n := int32(1); n <= 4096; n++ {
		ns = append(ns, n)
	}
	for n := int32(4097); n <= poolRecipMax; n += 997 {
		ns = append(ns, n)
	}
	ns = append(ns, poolRecipMax-1, poolRecipMax)
	for _, n := range ns {
		rcp := poolRecip(n)
		top := uint64(128*n + n/2)
		check := func(x uint64) {
			if got, want := (x*rcp)>>40, x/uint64(n); got != want {
				t.Fatalf("n %d x %d: %d, want %d", n, x, got, want)
			}
		}
		for _, x := range []uint64{0, 1, uint64(n / 2), top - 1, top} {
			check(x)
		}
		if n <= 64 {
			for x := uint64(0); x <= top; x++ {
				check(x)
			}
		}
		for k := top / uint64(n); k > 0 && k+3 > top/uint64(n); k-- {
			check(k*uint64(n) - 1)
			check(k * uint64(n))
		}
	}
}
