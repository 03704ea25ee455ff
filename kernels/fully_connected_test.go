package kernels

import (
	"encoding/binary"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// Cases ported from TFLite Micro's tensorflow/lite/micro/kernels/
// fully_connected_test.cc: the float data, the quantization parameters and
// the float goldens of each TEST, quantized the way that file's helpers do
// (test_helpers.h / micro_utils.h). Quantized goldens are compared with the
// test's own tolerance (0 per-tensor, 1 per-channel); float within 1e-4.
// The generation-time preparation (multipliers, activation bounds, bias
// with the input offset folded in) mirrors gen/lower_fc.go.

// fcTCase is one scenario in float values.
type fcTCase struct {
	name    string
	batches int
	accum   int
	units   int
	input   []float32
	weights []float32
	bias    []float32 // nil: no bias tensor
	golden  []float32
	act     quant.Activation
}

// fcTQuant is the quantization a TEST applies to an fcTCase.
type fcTQuant struct {
	inScale  float32
	inZP     int32
	wScales  []float32 // one: per-tensor; else per output channel
	outScale float32
	outZP    int32
	tol      int32
}

var fcTSimpleInput = []float32{
	1, 2, 3, 4, 5, 6, 7, 8, -9, -10, // b = 0
	1, 2, 3, 4, 5, 6, 7, -8, 9, -10, // b = 1
}

var fcTSimpleWeights = []float32{
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, // u = 0
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, // u = 1
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, // u = 2
}

var fcTReluWeights = []float32{
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, // u = 0
	-1, -2, -3, -4, -5, -6, -7, -8, -9, -10, // u = 1
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, // u = 2
}

var (
	fcTSimple = fcTCase{name: "simple", batches: 2, accum: 10, units: 3,
		input: fcTSimpleInput, weights: fcTSimpleWeights, bias: []float32{1, 2, 3},
		golden: []float32{24, 25, 26, 58, 59, 60}}
	fcTSimpleNullBias = fcTCase{name: "simple null bias", batches: 2, accum: 10, units: 3,
		input: fcTSimpleInput, weights: fcTSimpleWeights,
		golden: []float32{23, 23, 23, 57, 57, 57}}
	fcTRelu = fcTCase{name: "relu", batches: 2, accum: 10, units: 3,
		input: fcTSimpleInput, weights: fcTReluWeights, bias: []float32{1, -2, 3},
		golden: []float32{24, 0, 26, 58, 0, 60}, act: quant.ActRelu}
	fcTRepresentative = fcTCase{name: "representative 1x64 -> 1x16", batches: 1, accum: 64, units: 16,
		input: fcTRepresentative64x16InputData, weights: fcTRepresentative64x16WeightsData,
		bias: fcTRepresentative64x16BiasData, golden: fcTRepresentative64x16Golden}
)

// fcTQuantize mirrors micro_utils.h Quantize: round(v/scale)+zp, clamped.
func fcTQuantize(v []float32, scale float32, zp, lo, hi int32) []int32 {
	out := make([]int32, len(v))
	for i, x := range v {
		out[i] = clampI32(int32(math.Round(float64(x/scale)))+zp, lo, hi)
	}
	return out
}

// fcTSymmetric mirrors FloatToSymmetricQuantizedType: round(v/scale)
// clamped to [lo+1, hi] (scales per channel of `per` elements).
func fcTSymmetric(v []float32, scales []float32, per int, lo, hi int64) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		s := scales[0]
		if len(scales) > 1 {
			s = scales[i/per]
		}
		q := int64(math.Round(float64(x / s)))
		out[i] = min(max(q, lo+1), hi)
	}
	return out
}

func fcTStr32(v []int32) string {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return string(b)
}

func fcTStr64(v []int64) string {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return string(b)
}

func fcTStrF32(v []float32) string {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return string(b)
}

// fcTTable encodes per-channel folded biases, multipliers and shifts (LE
// int32 strings) as the fcRecord table gen/lower_fc.go emits.
func fcTTable(bias, mult, shift string) string {
	var b []byte
	for c := 0; c < len(bias)/4; c++ {
		q := fcTRQ(ld32(mult, c), int(ld32(shift, c)))
		b = binary.LittleEndian.AppendUint32(b, uint32(ld32(bias, c)))
		b = binary.LittleEndian.AppendUint32(b, uint32(q.mult))
		b = binary.LittleEndian.AppendUint32(b, uint32(q.half))
		b = append(b, q.lsh, q.rsh, 0, 0)
	}
	return string(b)
}

// fcTPackOct mirrors gen/lower's octPack for a weight matrix [n][k].
func fcTPackOct(w []int8, n, k int) string {
	rows := make([][]int8, n)
	for r := range rows {
		rows[r] = w[r*k : r*k+k]
	}
	return octTPack(rows, k)
}

// fcTPack mirrors gen/lower_fc.go's fcPackI8: blocks of 4 channels (the
// last padded with zero rows), each stored [k/4][4][4] then [k%4][4], every
// weight stored as w+128.
func fcTPack(w []int8, n, k int) string {
	at := func(r, i int) byte {
		if r >= n {
			return 128
		}
		return byte(w[r*k+i]) + 128
	}
	var out []byte
	for c := 0; c < n; c += 4 {
		i := 0
		for ; i+4 <= k; i += 4 {
			for r := c; r < c+4; r++ {
				out = append(out, at(r, i), at(r, i+1), at(r, i+2), at(r, i+3))
			}
		}
		for ; i < k; i++ {
			for r := c; r < c+4; r++ {
				out = append(out, at(r, i))
			}
		}
	}
	return string(out)
}

// fcTPackF32 mirrors gen/lower_fc.go's fcPackF32: blocks of 4 channels,
// [k][4] float32 values each, padded with zero rows.
func fcTPackF32(w []float32, n, k int) string {
	var v []float32
	for c := 0; c < n; c += 4 {
		for i := 0; i < k; i++ {
			for r := c; r < c+4; r++ {
				if r < n {
					v = append(v, w[r*k+i])
				} else {
					v = append(v, 0)
				}
			}
		}
	}
	return fcTStrF32(v)
}

// fcTRunInt8 runs fcInt8 with the packed weights and per-channel records,
// and, when every channel shares one multiplier and shift, also fcInt8PT,
// requiring both to agree; out receives the result.
func fcTRunInt8(t *testing.T, p *fcParams, in, w []int8, bias []int32, mult, shift string, out []int8) {
	t.Helper()
	packed := fcTPack(w, p.outDepth, p.accumDepth)
	table := fcTTable(fcTStr32(bias), mult, shift)
	fcInt8(p, in, packed, table, out)
	oct := make([]int8, len(out))
	fcOctInt8(p, in, fcTPackOct(w, p.outDepth, p.accumDepth), table, make([]int32, fcOctScratch), oct)
	for i := range out {
		if oct[i] != out[i] {
			t.Fatalf("fcOctInt8 out[%d] = %d, fcInt8 gives %d", i, oct[i], out[i])
		}
	}
	for c := 1; c < p.outDepth; c++ {
		if ld32(mult, c) != ld32(mult, 0) || ld32(shift, c) != ld32(shift, 0) {
			return
		}
	}
	q := fcTRQ(ld32(mult, 0), int(ld32(shift, 0)))
	pt := *p
	pt.mult, pt.lsh, pt.rsh, pt.half = q.mult, q.lsh, q.rsh, q.half
	got := make([]int8, len(out))
	fcInt8PT(&pt, in, packed, fcTStr32(bias), got)
	for i := range out {
		if got[i] != out[i] {
			t.Fatalf("fcInt8PT out[%d] = %d, fcInt8 gives %d", i, got[i], out[i])
		}
	}
	// The rqApply path takes every requantization; the one-multiply path
	// those rqOneSet accepts (the generator's choice, PlanRQOne).
	fcOctInt8PT(&pt, in, fcTPackOct(w, p.outDepth, p.accumDepth), fcTStr32(bias), make([]int32, fcOctScratch), got)
	for i := range out {
		if got[i] != out[i] {
			t.Fatalf("fcOctInt8PT out[%d] = %d, fcInt8 gives %d", i, got[i], out[i])
		}
	}
	var rec rqOne
	if rqOneSet(&rec, pt.mult, pt.lsh, pt.rsh, pt.outOffset, pt.actMin, pt.actMax) {
		fcOctInt8PTQ(&pt, in, fcTPackOct(w, p.outDepth, p.accumDepth), fcTStr32(bias), &rec, make([]int32, fcOctScratch), got)
		for i := range out {
			if got[i] != out[i] {
				t.Fatalf("fcOctInt8PTQ out[%d] = %d, fcInt8 gives %d", i, got[i], out[i])
			}
		}
	}
}

// fcTPrep is what the lowering computes for a quantized operator: params,
// per-channel multipliers and shifts, and the bias with
// -inZP * sum(weights of the channel) folded in.
type fcTPrep struct {
	p           *fcParams
	mult, shift string
	bias        []int64
}

func fcTPrepare(t *testing.T, tc fcTCase, q fcTQuant, w []int8, bias []int64, qmin, qmax int32) fcTPrep {
	t.Helper()
	lo, hi, ok := quant.RangeQuantized(tc.act, float64(q.outScale), q.outZP, qmin, qmax)
	if !ok {
		t.Fatalf("activation %v", tc.act)
	}
	p := &fcParams{batches: tc.batches, outDepth: tc.units, accumDepth: tc.accum,
		outOffset: q.outZP, actMin: lo, actMax: hi}
	mults := make([]int32, tc.units)
	shifts := make([]int32, tc.units)
	folded := make([]int64, tc.units)
	for c := range mults {
		var real float64
		if len(q.wScales) == 1 {
			// GetQuantizedConvolutionMultipler: the scale product is float.
			real = float64(q.inScale*q.wScales[0]) / float64(q.outScale)
		} else {
			real = float64(q.inScale) * float64(q.wScales[c]) / float64(q.outScale)
		}
		m, s := quant.Multiplier(real)
		mults[c], shifts[c] = m, int32(s)
		var sum int64
		for _, x := range w[c*tc.accum : (c+1)*tc.accum] {
			sum += int64(x)
		}
		if bias != nil {
			folded[c] = bias[c]
		}
		folded[c] += -int64(q.inZP) * sum
	}
	return fcTPrep{p: p, mult: fcTStr32(mults), shift: fcTStr32(shifts), bias: folded}
}

// fcTQuantWeightsBias quantizes weights and bias as the TEST helpers do.
func fcTQuantWeightsBias(tc fcTCase, q fcTQuant, biasBits int) ([]int8, []int64) {
	var w []int8
	if len(q.wScales) == 1 {
		for _, v := range fcTQuantize(tc.weights, q.wScales[0], 0, -128, 127) {
			w = append(w, int8(v))
		}
	} else {
		for _, v := range fcTSymmetric(tc.weights, q.wScales, tc.accum, -128, 127) {
			w = append(w, int8(v))
		}
	}
	if tc.bias == nil {
		return w, nil
	}
	bs := make([]float32, len(q.wScales))
	for i, s := range q.wScales {
		bs[i] = q.inScale * s
	}
	lo, hi := int64(math.MinInt32), int64(math.MaxInt32)
	if biasBits == 64 {
		lo, hi = math.MinInt64, math.MaxInt64
	}
	return w, fcTSymmetric(tc.bias, bs, 1, lo, hi)
}

func fcTCheck(t *testing.T, got, want []int32, tol int32) {
	t.Helper()
	for i := range want {
		if d := got[i] - want[i]; d > tol || d < -tol {
			t.Errorf("output %d = %d, want %d (tolerance %d)\ngot  %v\nwant %v", i, got[i], want[i], tol, got, want)
			return
		}
	}
}

func TestFullyConnectedF32(t *testing.T) {
	cases := []fcTCase{
		fcTSimple,         // SimpleTest, SimpleTest4DInput
		fcTSimpleNullBias, // SimpleTestNullBias
		fcTRepresentative, // Representative1x64Input1x16Output
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lo, hi, _ := quant.RangeFloat(tc.act)
			p := &fcParams{batches: tc.batches, outDepth: tc.units, accumDepth: tc.accum, fActMin: lo, fActMax: hi}
			bias := ""
			if tc.bias != nil {
				bias = fcTStrF32(tc.bias)
			}
			out := make([]float32, len(tc.golden))
			fcF32(p, tc.input, fcTPackF32(tc.weights, tc.units, tc.accum), bias, out)
			for i, g := range tc.golden {
				if math.Abs(float64(out[i]-g)) > 1e-4 {
					t.Fatalf("output %d = %v, want %v\ngot %v", i, out[i], g, out)
				}
			}
		})
	}
}

func TestFullyConnectedInt8(t *testing.T) {
	simpleQ := fcTQuant{inScale: 1, inZP: -1, wScales: []float32{1}, outScale: 0.5, outZP: -1}
	cases := []struct {
		name string
		tc   fcTCase
		q    fcTQuant
	}{
		{"SimpleTestQuantizedInt8", fcTSimple, simpleQ},
		{"SimpleTestQuantizedInt8NullBias", fcTSimpleNullBias, simpleQ},
		{"SimpleTestQuantizedInt8Relu", fcTRelu,
			fcTQuant{inScale: 1, inZP: -1, wScales: []float32{1}, outScale: 0.5, outZP: -128}},
		{"Representative1x64Input1x16OutputQuantizedInt8", fcTRepresentative,
			fcTQuant{inScale: 0.051445, inZP: -128, wScales: []float32{0.005660}, outScale: 0.069785, outZP: -9}},
		{"SimpleTestQuantizedPerChannelInt8", fcTSimple,
			fcTQuant{inScale: 0.5, inZP: -1, wScales: []float32{0.2, 0.25, 0.5}, outScale: 1, outZP: -1, tol: 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w, bias := fcTQuantWeightsBias(c.tc, c.q, 32)
			pr := fcTPrepare(t, c.tc, c.q, w, bias, -128, 127)
			b32 := make([]int32, len(pr.bias))
			for i, v := range pr.bias {
				b32[i] = int32(v)
			}
			var in []int8
			for _, v := range fcTQuantize(c.tc.input, c.q.inScale, c.q.inZP, -128, 127) {
				in = append(in, int8(v))
			}
			out := make([]int8, len(c.tc.golden))
			fcTRunInt8(t, pr.p, in, w, b32, pr.mult, pr.shift, out)
			got := make([]int32, len(out))
			for i, v := range out {
				got[i] = int32(v)
			}
			fcTCheck(t, got, fcTQuantize(c.tc.golden, c.q.outScale, c.q.outZP, -128, 127), c.q.tol)
		})
	}
}

func TestFullyConnectedInt16(t *testing.T) {
	s := float32(128.0 / 65536)
	cases := []struct {
		name string
		tc   fcTCase
		q    fcTQuant
	}{
		{"SimpleTestQuantizedInt16", fcTSimple,
			fcTQuant{inScale: s, wScales: []float32{1}, outScale: s}},
		{"SimpleTestPerChannelQuantizedInt16", fcTSimple,
			fcTQuant{inScale: s, wScales: []float32{0.2, 0.25, 0.5}, outScale: s, tol: 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w, bias := fcTQuantWeightsBias(c.tc, c.q, 64)
			pr := fcTPrepare(t, c.tc, c.q, w, bias, -32768, 32767)
			var in []int16
			for _, v := range fcTQuantize(c.tc.input, c.q.inScale, c.q.inZP, -32768, 32767) {
				in = append(in, int16(v))
			}
			out := make([]int16, len(c.tc.golden))
			fcInt16(pr.p, in, w, fcTStr64(pr.bias), pr.mult, pr.shift, out)
			got := make([]int32, len(out))
			for i, v := range out {
				got[i] = int32(v)
			}
			fcTCheck(t, got, fcTQuantize(c.tc.golden, c.q.outScale, c.q.outZP, -32768, 32767), c.q.tol)
		})
	}
}

// fcTRef transcribes reference_integer_ops::FullyConnected(PerChannel):
// acc += w * (x + inputOffset), + bias, rescale, + output offset, clamp.
// wide selects the 16x8 int64 accumulator and its 64-bit rescale.
func fcTRef(p *fcParams, x []int32, w []int8, bias []int64, inOff int32, mult, shift []int32, wide bool) []int32 {
	out := make([]int32, p.batches*p.outDepth)
	for b := 0; b < p.batches; b++ {
		for c := 0; c < p.outDepth; c++ {
			var acc32 int32
			var acc64 int64
			for d := 0; d < p.accumDepth; d++ {
				prod := int32(w[c*p.accumDepth+d]) * (x[b*p.accumDepth+d] + inOff)
				acc32 += prod
				acc64 += int64(prod)
			}
			var v int32
			if wide {
				v = mulByQuantMul64(acc64+bias[c], mult[c], int(shift[c]))
			} else {
				v = mulByQuantMul(acc32+int32(bias[c]), mult[c], int(shift[c]))
			}
			out[b*p.outDepth+c] = clampI32(v+p.outOffset, p.actMin, p.actMax)
		}
	}
	return out
}

// TestFullyConnectedFoldedBias checks, on random data with zero points at
// the type limits, odd depths and long rows, that folding the input offset
// into the bias and the blocked dot products give the reference's
// results bit for bit, including 32-bit wrap-around.
func TestFullyConnectedFoldedBias(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, variant := range []string{"int8", "int16", "int16acc32"} {
		for _, shape := range [][3]int{{3, 37, 5}, {2, 700, 3}, {1, 1, 1}, {4, 8, 16}, {1, 3, 13}, {2, 16, 12}, {1, 64, 7}, {1, 5, 9}, {1, 2, 2}, {1, 9, 37}, {2, 6, 70}, {1, 17, 64}} {
			for _, zp := range []int32{-128, 127, 0} {
				p := &fcParams{batches: shape[0], accumDepth: shape[1], outDepth: shape[2], actMin: -128, actMax: 127}
				lo, hi := int32(-128), int32(127)
				if variant != "int8" {
					lo, hi, zp = -32768, 32767, zp*200
					p.actMin, p.actMax = -32768, 32767
				}
				p.outOffset = zp / 3
				x := make([]int32, p.batches*p.accumDepth)
				for i := range x {
					x[i] = lo + r.Int31n(hi-lo+1)
					if i%7 == 0 {
						x[i] = lo
					}
				}
				w := make([]int8, p.outDepth*p.accumDepth)
				for i := range w {
					w[i] = int8(r.Intn(256) - 128)
				}
				bias := make([]int64, p.outDepth)
				mult := make([]int32, p.outDepth)
				shift := make([]int32, p.outDepth)
				folded := make([]int64, p.outDepth)
				// Scale the typical accumulator (std ~ xs*74*sqrt(depth))
				// to about a quarter of the output range.
				xs := 74.0
				if variant != "int8" {
					xs = 19000
				}
				typical := xs * 74 * math.Sqrt(float64(p.accumDepth))
				rshift := int32(math.Round(math.Log2(typical / float64(hi) * 4)))
				for c := range bias {
					bias[c] = int64(r.Int31n(1<<10) - 1<<9)
					mult[c] = 1<<30 + r.Int31n(1<<30)
					if zp == 0 && c > 0 {
						// Uniform requantization: exercises fcInt8PT too.
						mult[c] = mult[0]
					}
					shift[c] = -rshift
					var sum int64
					for _, v := range w[c*p.accumDepth : (c+1)*p.accumDepth] {
						sum += int64(v)
					}
					folded[c] = bias[c] - int64(zp)*sum
				}
				want := fcTRef(p, x, w, bias, -zp, mult, shift, variant == "int16")
				got := make([]int32, len(want))
				switch variant {
				case "int8":
					in := make([]int8, len(x))
					for i, v := range x {
						in[i] = int8(v)
					}
					b32 := make([]int32, len(folded))
					for i, v := range folded {
						b32[i] = int32(v)
					}
					out := make([]int8, len(want))
					fcTRunInt8(t, p, in, w, b32, fcTStr32(mult), fcTStr32(shift), out)
					for i, v := range out {
						got[i] = int32(v)
					}
				default:
					in := make([]int16, len(x))
					for i, v := range x {
						in[i] = int16(v)
					}
					out := make([]int16, len(want))
					if variant == "int16" {
						fcInt16(p, in, w, fcTStr64(folded), fcTStr32(mult), fcTStr32(shift), out)
					} else {
						b32 := make([]int32, len(folded))
						for i, v := range folded {
							b32[i] = int32(v)
						}
						fcInt16Acc32(p, in, w, fcTStr32(b32), fcTStr32(mult), fcTStr32(shift), out)
					}
					for i, v := range out {
						got[i] = int32(v)
					}
				}
				inside := 0
				for _, v := range want {
					if v > p.actMin && v < p.actMax {
						inside++
					}
				}
				if inside < len(want)/2 {
					t.Errorf("%s shape %v zp %d: only %d of %d outputs are not saturated", variant, shape, zp, inside, len(want))
				}
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("%s shape %v zp %d: output %d = %d, want %d", variant, shape, zp, i, got[i], want[i])
					}
				}
			}
		}
	}
}

var fcTRepresentative64x16InputData = []float32{
	0.0000, 0.1543, 0.0000, 0.0000, 1.8520, 0.0000, 4.7844, 1.1832,
	0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 1.5948, 0.0000,
	1.5948, 1.9549, 0.0000, 1.2347, 0.0000, 1.5948, 1.5948, 0.5145,
	0.0000, 0.0000, 0.0000, 0.0000, 2.6237, 0.0000, 0.0000, 0.0000,
	1.3890, 5.3503, 2.3665, 2.9838, 0.0000, 1.2861, 0.0000, 3.0867,
	0.9775, 0.0000, 5.9676, 0.0000, 0.0000, 1.4405, 0.5145, 2.5723,
	3.1896, 4.4757, 0.0000, 0.0000, 0.0000, 0.0000, 4.1671, 0.0000,
	2.8295, 3.0353, 0.0000, 2.7780, 0.0000, 0.0000, 0.0000, 0.0000,
}

var fcTRepresentative64x16WeightsData = []float32{
	-0.1075, 0.1245, 0.1811, -0.1302, -0.1868, 0.0679, 0.1245, 0.2321,
	-0.1981, -0.2094, 0.1358, -0.1698, 0.0113, 0.0566, 0.1358, -0.2490,
	0.0000, -0.1189, -0.0170, -0.0396, -0.3113, 0.1641, -0.4188, 0.0566,
	-0.4471, 0.4754, -0.0396, 0.0113, -0.0340, 0.0170, 0.0170, 0.1811,
	-0.0792, 0.4981, 0.2490, -0.1924, 0.0792, 0.1868, -0.1075, -0.3962,
	0.1358, 0.2547, -0.1245, -0.0962, -0.0283, 0.4132, -0.0057, -0.5150,
	0.1019, 0.1585, -0.0962, -0.2207, -0.2377, 0.2830, 0.4471, 0.0170,
	0.0566, 0.2038, 0.1019, -0.0226, 0.2830, 0.1415, 0.0283, -0.0792,
	0.4301, 0.3226, -0.1132, 0.4981, -0.3849, -0.2943, -0.2547, -0.2264,
	0.0453, -0.0170, 0.0396, 0.1415, 0.3000, 0.2547, 0.0962, 0.2151,
	-0.1585, -0.1302, -0.0057, -0.2773, 0.0283, -0.0906, 0.1302, -0.1075,
	-0.0566, 0.1755, 0.2773, 0.0283, 0.0566, 0.1528, -0.0736, -0.2830,
	0.0792, 0.0962, -0.2321, -0.0113, 0.2660, -0.2887, -0.0566, 0.0057,
	-0.2547, -0.0679, -0.2321, 0.0340, 0.1868, 0.2490, 0.2264, -0.3509,
	0.1585, -0.0849, -0.0623, 0.1132, 0.3396, -0.2490, 0.1528, 0.0679,
	0.1755, 0.4754, -0.0057, -0.2151, -0.1415, -0.1302, -0.2717, 0.1641,
	0.5037, -0.2321, 0.0170, -0.1755, -0.1075, -0.0226, 0.2038, -0.0340,
	-0.5150, -0.3113, 0.1472, -0.0226, 0.1528, 0.1189, -0.1472, 0.0396,
	-0.3000, -0.1924, -0.0283, 0.0283, 0.1641, 0.0736, 0.1472, -0.1755,
	-0.1132, 0.0113, -0.1868, -0.2604, -0.3283, -0.0509, 0.0283, -0.0679,
	0.0623, 0.0792, -0.0283, -0.0962, 0.0396, 0.1641, 0.4584, 0.3226,
	0.0226, -0.1811, 0.2377, -0.1019, 0.2321, 0.1811, -0.1924, -0.0057,
	0.0736, 0.0113, 0.2547, -0.2264, -0.0170, -0.0396, 0.1245, -0.1415,
	0.1755, 0.3679, -0.2377, -0.0396, -0.1585, -0.3000, -0.1641, -0.1302,
	-0.0396, -0.1698, 0.1189, 0.2434, 0.1132, -0.1245, -0.1415, 0.0453,
	0.1868, -0.0906, -0.1189, -0.0509, 0.0057, -0.1189, -0.0057, 0.0170,
	-0.1924, 0.2207, 0.0792, -0.4641, -0.2660, 0.2943, 0.1358, -0.0340,
	-0.3339, -0.1189, 0.0906, -0.4358, 0.0453, -0.1755, 0.1415, 0.0340,
	0.1924, -0.0057, 0.2321, -0.2094, -0.1132, 0.0000, 0.1924, -0.3000,
	0.0340, -0.3396, -0.0906, -0.0340, 0.1641, -0.0226, -0.1472, -0.1019,
	0.2377, -0.0962, -0.3396, -0.5433, 0.0906, 0.2151, -0.0679, 0.1755,
	0.1528, 0.0283, -0.4188, -0.0340, -0.0057, -0.0679, 0.0509, 0.1472,
	-0.3849, -0.0113, 0.3962, 0.0849, 0.1472, 0.0340, -0.1358, 0.1641,
	-0.2038, 0.2151, -0.1189, -0.3679, 0.0906, -0.0679, 0.5716, -0.0057,
	-0.0736, 0.0113, 0.2830, -0.2887, 0.0396, 0.0849, -0.0736, -0.0736,
	-0.3679, 0.2264, 0.0113, -0.1641, 0.0396, -0.1132, -0.0623, 0.3113,
	0.5999, -0.1415, 0.1472, -0.2038, -0.1132, -0.2377, 0.0566, 0.1755,
	-0.0057, -0.0453, 0.0226, 0.1132, 0.1698, 0.0340, -0.0226, 0.0226,
	0.4415, -0.3792, 0.0792, 0.3736, -0.5999, -0.3056, -0.1924, -0.1132,
	-0.0962, 0.0283, 0.0000, -0.3339, -0.3226, 0.3679, -0.0453, -0.1641,
	0.0170, 0.1302, -0.0170, -0.0509, 0.1755, -0.0283, -0.1302, -0.2887,
	-0.0679, 0.0340, 0.4641, 0.2321, 0.7188, 0.3339, -0.1075, 0.4754,
	-0.0226, 0.3226, -0.1528, -0.0849, 0.0509, -0.1981, 0.0113, 0.2321,
	0.2773, -0.1019, 0.4075, 0.0396, 0.0792, 0.1132, -0.0906, -0.4188,
	0.1924, -0.3679, -0.6396, 0.1358, 0.4981, 0.4132, -0.0283, 0.3849,
	-0.3509, -0.0566, -0.0962, 0.3113, -0.1811, 0.4019, 0.0453, -0.0057,
	-0.1868, -0.2490, -0.0792, -0.3622, 0.1924, -0.0453, -0.1528, -0.1811,
	0.5943, -0.1302, 0.3170, -0.0170, 0.0509, -0.1528, -0.1755, 0.5547,
	0.2490, -0.0906, 0.0000, 0.1698, 0.0000, 0.0340, -0.1132, -0.0509,
	-0.1755, -0.2943, 0.1472, 0.0849, 0.0000, 0.1528, -0.0566, 0.1528,
	-0.5264, -0.5320, -0.0736, 0.0566, 0.2604, -0.4075, 0.0962, -0.3453,
	-0.1415, 0.0057, 0.3905, 0.2830, 0.3679, 0.5320, -0.2660, 0.0340,
	0.0736, 0.0057, 0.2207, 0.4471, 0.0849, 0.3000, -0.0057, -0.0623,
	0.1415, -0.0566, 0.5264, -0.0340, 0.0226, -0.0623, -0.0113, -0.5037,
	-0.4471, 0.0170, -0.0396, -0.1358, -0.1698, 0.1924, 0.0057, -0.1585,
	0.0849, -0.1698, 0.0057, -0.1245, -0.0170, -0.1755, -0.0792, 0.5264,
	0.1358, 0.2434, 0.1585, -0.4188, -0.1472, -0.1358, -0.0849, -0.1189,
	0.5037, 0.0736, -0.0453, -0.2434, 0.1868, -0.0679, 0.1415, -0.2717,
	0.2604, 0.0057, -0.1528, -0.1811, 0.0226, -0.1641, 0.3170, -0.1981,
	0.1245, 0.0226, 0.0566, 0.2830, -0.1755, 0.0396, -0.2094, 0.1924,
	0.1698, 0.0283, 0.1641, 0.0849, 0.0000, -0.1698, -0.1415, -0.3000,
	0.4471, 0.3056, -0.0283, -0.4245, -0.0453, 0.0226, 0.0000, -0.1075,
	-0.1528, -0.3226, 0.2773, -0.2264, -0.1811, 0.1755, -0.3566, -0.4188,
	0.1755, -0.0057, 0.2038, 0.1075, 0.3679, -0.0792, 0.2207, -0.0453,
	0.3736, 0.2943, -0.0113, -0.0623, 0.2264, 0.0113, -0.0396, -0.2207,
	0.0453, -0.2830, -0.1302, 0.0623, -0.1924, -0.1811, -0.2717, 0.2830,
	0.2094, 0.0170, -0.3170, -0.0283, -0.1189, -0.0509, -0.0566, -0.3622,
	0.1132, -0.0906, 0.1132, 0.4019, -0.4698, -0.1019, -0.1075, -0.2094,
	-0.2207, -0.0509, 0.0057, 0.1019, -0.0509, 0.2264, -0.5716, 0.0226,
	-0.4019, 0.1641, -0.3000, 0.3849, 0.1245, 0.0679, 0.3056, 0.2377,
	0.0679, -0.0170, -0.5377, -0.0170, 0.0057, 0.1358, -0.1132, -0.2038,
	0.0679, 0.1075, -0.2773, 0.5943, 0.0623, -0.1472, 0.3566, 0.0396,
	-0.2377, 0.2604, 0.0849, 0.1358, -0.3792, -0.0340, -0.1415, 0.3566,
	-0.3736, 0.1245, 0.0566, 0.3396, 0.0736, 0.4019, -0.1528, 0.1075,
	0.0792, -0.2547, 0.0453, -0.1755, 0.1868, -0.2547, 0.1075, 0.0623,
	0.1698, -0.0170, 0.1585, -0.0736, -0.4358, -0.0113, -0.6792, -0.0849,
	-0.0396, -0.6056, 0.1358, 0.1189, 0.2547, 0.1528, 0.2887, 0.0453,
	-0.1075, -0.3283, -0.0453, -0.0509, 0.2038, 0.2547, 0.0849, -0.0566,
	-0.1698, 0.0509, -0.0113, -0.1585, 0.1924, -0.0792, -0.1868, 0.0509,
	-0.1698, -0.0849, -0.0170, 0.0453, 0.3170, 0.0906, -0.5943, -0.1245,
	0.1585, -0.1755, -0.2151, 0.0906, 0.1924, 0.3170, -0.2490, -0.5660,
	-0.0283, 0.0962, -0.1358, 0.1585, 0.0057, -0.2604, 0.1189, -0.0170,
	0.3509, 0.0623, 0.0679, -0.1302, -0.0792, 0.0906, -0.0792, 0.0849,
	-0.1924, 0.2604, -0.1245, -0.3679, 0.0340, 0.0113, -0.1698, 0.2490,
	0.0283, 0.1019, -0.3736, 0.1019, -0.2207, -0.0340, 0.3170, 0.1755,
	0.0962, 0.3226, -0.0113, -0.1189, -0.2321, -0.0226, -0.2434, -0.0170,
	-0.1585, -0.0283, -0.1132, 0.0679, -0.4188, -0.0453, 0.1528, -0.1302,
	-0.3792, 0.1415, -0.1358, -0.1811, 0.1302, 0.1415, 0.5207, 0.0509,
	-0.1358, -0.0396, -0.2434, 0.0396, 0.0792, -0.2264, -0.1415, 0.0906,
	0.1245, 0.0170, 0.0623, -0.1415, 0.2773, -0.3566, -0.0396, 0.2887,
	0.4188, 0.1698, -0.2547, 0.1132, -0.0453, -0.0113, -0.1358, 0.1075,
	0.0566, 0.1075, 0.2604, -0.0849, -0.2490, 0.1415, 0.0509, -0.2151,
	0.0340, 0.1698, 0.0509, -0.0906, 0.0566, -0.1075, -0.2151, 0.2038,
	-0.1924, -0.0113, 0.2830, 0.1358, -0.1189, 0.0113, -0.5603, -0.2830,
	-0.2943, 0.0453, -0.0396, 0.1358, 0.0566, 0.2038, -0.3283, -0.0509,
	0.0509, 0.1641, 0.2094, -0.2038, -0.1868, -0.1585, -0.2207, -0.1302,
	0.0396, -0.1019, -0.0679, 0.1075, -0.4584, -0.2207, 0.2434, -0.0113,
	0.0849, 0.1755, -0.3056, 0.1585, -0.2547, 0.0453, 0.0906, -0.1358,
	-0.0679, -0.0509, 0.0679, -0.3509, 0.0057, 0.0453, 0.4132, -0.1981,
	0.2264, -0.0736, 0.1075, 0.0679, -0.0906, -0.3113, 0.0509, 0.0849,
	0.2604, 0.0623, -0.3113, 0.3849, 0.0000, 0.6396, -0.2038, -0.1019,
	0.1245, -0.0453, 0.1641, 0.1075, -0.1075, -0.2660, -0.4528, -0.0566,
	-0.0170, 0.0453, 0.0340, 0.1189, -0.2434, -0.0283, -0.1811, 0.2547,
	0.0000, -0.0226, 0.4471, 0.1019, -0.1472, 0.0849, 0.1075, 0.1075,
	0.0283, -0.2773, 0.4415, -0.1811, 0.2717, 0.3170, 0.0509, 0.0623,
	-0.0962, 0.1585, -0.0792, -0.1811, -0.0792, -0.3283, 0.0962, -0.1698,
	-0.0736, 0.0453, 0.0962, -0.3566, -0.4584, 0.3396, -0.4811, 0.3056,
	-0.1755, 0.2490, -0.1698, -0.2377, -0.3339, -0.0453, 0.1811, 0.0736,
	0.0340, -0.0962, -0.0113, -0.3056, -0.3339, 0.2038, 0.2038, -0.1924,
	0.2547, -0.4471, -0.0849, -0.2038, 0.3566, -0.4811, 0.3453, 0.0849,
	0.1189, 0.3170, -0.1358, 0.2717, 0.0113, -0.4754, -0.1924, 0.4245,
	-0.2773, 0.3453, 0.2264, 0.2943, 0.5320, 0.2773, -0.2264, -0.1019,
	-0.1132, -0.3962, 0.3679, 0.0509, -0.0623, -0.0906, -0.5603, -0.1641,
	-0.3170, -0.2377, 0.1415, -0.0509, 0.0792, 0.0170, -0.0226, -0.0057,
	-0.1358, -0.4245, 0.3905, 0.3113, 0.0340, -0.1189, 0.2887, -0.2943,
	-0.3056, 0.2434, 0.1019, -0.0170, 0.3849, 0.1528, -0.0736, -0.0170,
	0.0792, 0.1755, 0.0509, 0.3509, 0.1472, 0.1528, 0.1472, 0.0057,
	0.0113, -0.0113, -0.3283, -0.3962, -0.0792, -0.1245, -0.0283, -0.1868,
	0.4019, 0.2943, -0.0906, -0.2321, 0.6056, 0.1189, 0.0340, -0.2207,
	-0.0453, 0.3339, 0.2377, -0.1641, 0.3736, 0.2151, -0.2547, 0.0453,
	0.1924, -0.1019, -0.0340, -0.2207, 0.3962, -0.4471, -0.2547, -0.2151,
	-0.3736, 0.0283, 0.1189, 0.0283, 0.0736, 0.0396, 0.1019, 0.0283,
	0.0170, 0.2321, 0.3509, -0.0226, -0.0226, 0.0736, 0.0283, 0.1641,
	-0.0906, 0.1811, 0.0226, 0.5716, -0.0396, -0.0509, -0.1641, -0.0509,
	0.4132, -0.2604, 0.1019, -0.0283, -0.0340, 0.0453, 0.1472, -0.0057,
	0.2717, -0.2094, 0.3396, 0.0340, 0.1245, 0.2547, -0.5886, 0.2717,
	-0.0906, 0.1641, 0.0962, -0.0792, -0.0113, 0.2264, -0.0736, 0.3170,
	0.0623, 0.0679, 0.0623, -0.0792, -0.2207, 0.1924, 0.1245, -0.2773,
}

var fcTRepresentative64x16BiasData = []float32{
	-0.0084, 0.0006, 0.0000, 0.0000, -0.0087, -0.0006, -0.0003, -0.0003,
	0.0006, -0.0003, -0.0003, -0.0003, -0.0253, 0.0012, 0.0000, 0.0000,
}

var fcTRepresentative64x16Golden = []float32{
	3.8624, -2.9580, 4.3043, -1.2844, -1.5769, -2.7998, -0.1011, -3.4029,
	-1.0557, -7.1931, -1.4852, -0.4163, 1.7186, -0.6965, 0.3580, 2.7378,
}

// TestFcSumI8 checks the lane-parallel sum against a plain one for lengths
// around the 8-byte groups and the 128-group flush, at the type limits.
func TestFcSumI8(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 1023, 1024, 1025, 4000, 5000} {
		for _, fill := range []int{-128, 127, 0, 1} {
			x := make([]int8, n)
			var want int32
			for i := range x {
				switch fill {
				case 0:
					x[i] = int8(r.Intn(256) - 128)
				default:
					x[i] = int8(fill)
				}
				want += int32(x[i])
			}
			if got := fcSumI8(x); got != want {
				t.Fatalf("n=%d fill=%d: got %d, want %d", n, fill, got, want)
			}
		}
	}
}

// TestFcOctInt8PTFast checks fcOctInt8PTQ with rqOneSet's records (right
// shifts of 0 to 21, left shifts), as the generator calls it, against
// fcInt8PT, with
// folded biases near and beyond the +-2^30 bound of the one-multiply
// form's range so that sums inside it and sums clamped into it both occur,
// zero points at the int8 limits and narrow clamps; every case must take
// the fast path.
func TestFcOctInt8PTFast(t *testing.T) {
	r := rand.New(rand.NewSource(31))
	fast, slow := 0, 0
	for i := 0; i < 300; i++ {
		k, n := 1+r.Intn(40), 1+r.Intn(20)
		zp := int32(r.Intn(256) - 128)
		lo, hi := int32(-128), int32(127)
		if i%3 == 1 {
			lo, hi = max(zp, -128), min(zp+100, 127)
		}
		p := &fcParams{batches: 1 + r.Intn(3), outDepth: n, accumDepth: k, outOffset: zp, actMin: lo, actMax: hi}
		q := fcTRQ(int32(1<<30+r.Intn(1<<30)), r.Intn(24)-21)
		p.mult, p.lsh, p.rsh, p.half = q.mult, q.lsh, q.rsh, q.half
		var rec rqOne
		if !rqOneSet(&rec, p.mult, p.lsh, p.rsh, zp, lo, hi) {
			t.Fatalf("case %d: rqOneSet declines %+v", i, p)
		}
		in := make([]int8, p.batches*k)
		for j := range in {
			in[j] = int8(r.Intn(256) - 128)
		}
		w := make([]int8, n*k)
		for j := range w {
			w[j] = int8(r.Intn(255) - 127)
		}
		bias := make([]int32, n)
		for c := range bias {
			switch r.Intn(4) {
			case 0:
				bias[c] = 1<<30 - int32(r.Intn(1<<16)) // near the bound, either side once the sum is added
			case 1:
				bias[c] = -1<<30 + int32(r.Intn(1<<16))
			case 2:
				bias[c] = int32(r.Uint32()) // anywhere
			default:
				bias[c] = int32(r.Intn(1<<20) - 1<<19)
			}
			if s := int64(bias[c]) << p.lsh; s > -1<<30+int64(k)<<(14+p.lsh) && s < 1<<30-int64(k)<<(14+p.lsh) {
				fast++
			} else {
				slow++
			}
		}
		want := make([]int8, p.batches*n)
		fcInt8PT(p, in, fcTPack(w, n, k), fcTStr32(bias), want)
		got := make([]int8, len(want))
		fcOctInt8PTQ(p, in, fcTPackOct(w, n, k), fcTStr32(bias), &rec, make([]int32, fcOctScratch), got)
		for j := range want {
			if got[j] != want[j] {
				t.Fatalf("case %d k %d n %d zp %d [%d %d]: out[%d] = %d, fcInt8PT gives %d", i, k, n, zp, lo, hi, j, got[j], want[j])
			}
		}
		// -speed's layout: the biases four times (bias4), here at each of
		// the four alignments.
		p4 := *p
		p4.bias4 = true
		got4 := make([]int8, len(want))
		fcOctInt8PTQ(&p4, in, fcTPackOct(w, n, k), tAt(tPhase4(fcTStr32(bias)), i), &rec, make([]int32, fcOctScratch), got4)
		if !slices.Equal(got4, want) {
			t.Fatalf("case %d k %d n %d, four-copy biases at offset %d: %v, fcInt8PT gives %v", i, k, n, i&3, got4, want)
		}
	}
	if fast == 0 || slow == 0 {
		t.Fatalf("channels inside / near or outside the one-multiply range: %d / %d (want both)", fast, slow)
	}
}
