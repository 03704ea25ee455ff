package kernels

import (
	"encoding/binary"
	"math"
	"math/rand"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// Cases ported from TFLite Micro: the 2x3x2x2 LSTM (batch 2, 3 time steps,
// input 2, state 2; cell clip 6, tanh cell gate, batch major) of
// tensorflow/lite/micro/kernels/testdata/lstm_test_data.cc
// (Create2x3x2X2FloatNodeContents, Get2X2GateOutputCheckData,
// Get2X2LstmEvalCheckData, Get2X2Int8LstmQuantizationSettings,
// Get2X2Int16LstmQuantizationSettings), with the checks and tolerances of
// lstm_eval_test.cc (CheckGateOutput*, CheckCellStateUpdate*,
// CheckHiddenStateUpdate*, CheckOneStepLSTM*, TestLSTMEval*) and
// unidirectional_sequence_lstm_test.cc (TestUnidirectionalLSTM*). The goldens
// are float; integer results are dequantized and compared within TFLM's
// tolerances. Bit-exactness of the integer kernels against TFLM is checked
// on the shared models by gen's TestLSTMReferenceTensors.

// lstmTGate is one gate's float parameters (weights are [units][inDim] and
// [units][units], row major).
type lstmTGate struct{ w, r, b []float32 }

// lstmTGates are the gates of Create2x3x2X2FloatNodeContents, in the
// kernel's order: forget, input, cell, output.
var lstmTGates = [4]lstmTGate{
	{[]float32{-10, -10, -20, -20}, []float32{-10, -10, -20, -20}, []float32{1, 2}},
	{[]float32{10, 10, 20, 20}, []float32{10, 10, 20, 20}, []float32{-1, -2}},
	{[]float32{1, 1, 1, 1}, []float32{1, 1, 1, 1}, []float32{0, 0}},
	{[]float32{1, 1, 1, 1}, []float32{1, 1, 1, 1}, []float32{0, 0}},
}

const lstmTClip = 6

// lstmTStepData is Get2X2GateOutputCheckData: one step of both batches.
var lstmTStepData = struct {
	input, hidden, cell          []float32
	forget, inGate, outGate, cel []float32 // expected gate outputs
	updatedCell, updatedHidden   []float32
}{
	input:         []float32{0.2, 0.3, -0.98, 0.62},
	hidden:        []float32{-0.1, 0.2, -0.3, 0.5},
	cell:          []float32{-1.3, 6.2, -7.3, 3.5},
	forget:        []float32{6.69285092e-3, 4.53978687e-5, 0.93086158, 0.9945137},
	inGate:        []float32{0.99330715, 0.9999546, 0.06913842, 0.0054863},
	outGate:       []float32{0.6456563062257954, 0.6456563062257954, 0.46008512, 0.46008512},
	cel:           []float32{0.5370495669980353, 0.5370495669980353, -0.1586485, -0.1586485},
	updatedCell:   []float32{0.52475447, 0.53730665, -6, 3.47992756},
	updatedHidden: []float32{0.31079388, 0.3169827, -0.46007947, 0.45921249},
}

// lstmTEvalData is Get2X2LstmEvalCheckData: three steps from zero state.
var lstmTEvalData = struct {
	input, output, hidden, cell []float32
}{
	input: []float32{0.2, 0.3, 0.2, 0.3, 0.2, 0.3, -0.98, 0.62, 0.01, 0.99, 0.49, -0.32},
	output: []float32{
		0.26455893, 0.26870455, 0.47935803, 0.47937014, 0.58013272, 0.58013278,
		-1.41184672e-3, -1.43329117e-5, 0.46887168, 0.46891281, 0.50054074, 0.50054148},
	hidden: []float32{0.58013272, 0.58013278, 0.50054074, 0.50054148},
	cell:   []float32{0.89740515, 0.8974053, 0.80327607, 0.80327785},
}

// lstmTQuant is a NodeQuantizationParameters of lstm_test_data.cc.
type lstmTQuant struct {
	bits      int // activation bits: 8 or 16
	inScale   float32
	inZP      int32
	hidScale  float32 // hidden state and output
	hidZP     int32
	cellScale float32
	gateW     [4][3]float32 // per gate (kernel order): input weight, recurrent weight, bias scales
}

var lstmTInt8Quant = lstmTQuant{
	bits: 8, inScale: 0.00784313725490196, inZP: 0,
	hidScale: 0.004705882165580988, hidZP: -21, cellScale: 0.00024414062,
	gateW: [4][3]float32{
		{0.15748031496062992, 0.15748031496062992, 0.0012351397251814111},
		{0.15748031496062992, 0.15748031496062992, 0.0012351397251814111},
		{0.007874015748031496, 0.007874015748031496, 6.175698625907056e-5},
		{0.007874015748031496, 0.007874015748031496, 6.175698625907056e-5},
	},
}

var lstmTInt16Quant = lstmTQuant{
	bits: 16, inScale: 3.0518044e-5, inZP: 0,
	hidScale: 2.1362956633198035e-05, hidZP: 0, cellScale: 0.00024414062,
	gateW: [4][3]float32{
		{0.15748031496062992, 0.15748031496062992, 4.8059911474468205e-06},
		{0.15748031496062992, 0.15748031496062992, 4.8059911474468205e-06},
		{0.007874015748031496, 0.007874015748031496, 2.40299557372341e-07},
		{0.007874015748031496, 0.007874015748031496, 2.40299557372341e-07},
	},
}

// lstmTQ is micro_utils.h FloatToQuantizedType: round(v/scale)+zp, clamped.
func lstmTQ(v []float32, scale float32, zp int32, bits int) []int32 {
	lo, hi := int32(-128), int32(127)
	if bits == 16 {
		lo, hi = -32768, 32767
	}
	out := make([]int32, len(v))
	for i, x := range v {
		out[i] = clampI32(int32(math.Round(float64(x/scale)))+zp, lo, hi)
	}
	return out
}

// lstmTSym is FloatToSymmetricQuantizedType for a type of the given bits:
// round(v/scale) clamped to [min+1, max].
func lstmTSym(v []float32, scale float32, bits int) []int64 {
	hi := int64(1)<<(bits-1) - 1
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = min(max(int64(math.Round(float64(x/scale))), -hi), hi)
	}
	return out
}

// lstmTDeq is Dequantize: scale*(q-zp).
func lstmTDeq(q []int32, scale float32, zp int32) []float32 {
	out := make([]float32, len(q))
	for i, v := range q {
		out[i] = scale * float32(v-zp)
	}
	return out
}

func lstmTI8(v []int32) []int8 {
	out := make([]int8, len(v))
	for i, x := range v {
		out[i] = int8(x)
	}
	return out
}

func lstmTI16(v []int32) []int16 {
	out := make([]int16, len(v))
	for i, x := range v {
		out[i] = int16(x)
	}
	return out
}

func lstmTI32s[T int8 | int16](v []T) []int32 {
	out := make([]int32, len(v))
	for i, x := range v {
		out[i] = int32(x)
	}
	return out
}

// lstmTStr encodes values as a little-endian constant string of 4 or 8
// bytes per value.
func lstmTStr(v []int64, size int) string {
	b := make([]byte, size*len(v))
	for i, x := range v {
		if size == 8 {
			binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
		} else {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(int32(x)))
		}
	}
	return string(b)
}

func lstmTF32Str(v []float32) string {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return string(b)
}

// lstmTNear reports the first element of got farther than tol from want.
func lstmTNear(t *testing.T, what string, got, want []float32, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range want {
		if d := math.Abs(float64(got[i]) - float64(want[i])); d > tol || math.IsNaN(d) {
			t.Errorf("%s[%d] = %g, want %g (tolerance %g)", what, i, got[i], want[i], tol)
		}
	}
}

// lstmTMult is QuantizeMultiplier for the tests.
func lstmTMult(real float64) (int32, int) { return quant.Multiplier(real) }

// lstmTIntModel is the quantized 2x3x2x2 model: parameters as TFLM's
// Prepare computes them and the quantized constants.
type lstmTIntModel struct {
	p     *lstmParams
	gates [4]*lstmGate
	w, r  [4][]int8
	b     [4]string  // folded biases as lstmInt16 reads them
	fold  [4][]int64 // the same values
}

// lstmTBuild quantizes the float model with q, computing the gate
// multipliers as PrepareGateParametersInteger (float32 product of the input
// and weight scales over the Q3.12 scale) and the inter-gate products as
// CreateInterGateMulParams.
func lstmTBuild(q lstmTQuant, batch, steps int, timeMajor bool) *lstmTIntModel {
	const q312, q015 = float32(1.0 / 4096), float32(1.0 / 32768)
	m := &lstmTIntModel{p: &lstmParams{
		batch: batch, steps: steps, inDim: 2, units: 2, timeMajor: timeMajor,
		hidZP: q.hidZP, hidMin: -128, hidMax: 127,
	}}
	p := m.p
	if q.bits == 16 {
		p.hidMin, p.hidMax = -32768, 32767
	}
	p.forgetMult, p.forgetShift = lstmTMult(float64(q015) * float64(q.cellScale) / float64(q.cellScale))
	p.inputMult, p.inputShift = lstmTMult(float64(q015) * float64(q015) / float64(q.cellScale))
	p.hidMult, p.hidShift = lstmTMult(float64(q015) * float64(q015) / float64(q.hidScale))
	// CheckedLog2(2^-12) = -12: the tanh input shift is 15-12-3 = 0.
	p.tanhMult, p.tanhShift = 3, 0
	p.clip = true
	p.cellClip = int32(lstmTClip / float64(q.cellScale))
	biasSize := 4
	if q.bits == 16 {
		biasSize = 8
	}
	for g := 0; g < 4; g++ {
		ws, rs, bs := q.gateW[g][0], q.gateW[g][1], q.gateW[g][2]
		gt := &lstmGate{}
		gt.inMult, gt.inShift = lstmTMult(float64(q.inScale*ws) / float64(q312))
		gt.recMult, gt.recShift = lstmTMult(float64(q.hidScale*rs) / float64(q312))
		m.gates[g] = gt
		m.w[g] = lstmTI8s(lstmTSym(lstmTGates[g].w, ws, 8))
		m.r[g] = lstmTI8s(lstmTSym(lstmTGates[g].r, rs, 8))
		m.fold[g] = lstmTFold(lstmTSym(lstmTGates[g].b, bs, 8*biasSize), m.w[g], m.r[g],
			-int64(q.inZP), -int64(q.hidZP))
		m.b[g] = lstmTStr(m.fold[g], biasSize)
	}
	return m
}

// lstmTFold folds the input and hidden zero points into the biases as the
// kernels expect: bias[o] + inOff*sum(w[o]), then
// hidOff*sum(r[o]), for 2x2 weights.
func lstmTFold(bias []int64, w, r []int8, inOff, hidOff int64) []int64 {
	out := make([]int64, 4)
	for o := 0; o < 2; o++ {
		out[o] = bias[o] + inOff*int64(int32(w[2*o])+int32(w[2*o+1]))
		out[2+o] = hidOff * int64(int32(r[2*o])+int32(r[2*o+1]))
	}
	return out
}

// lstmTPackW lays out four gates' [rows][cols] int8 weights as lstmInt8
// reads them (as gen's lstmPackInt8W does): per pair of units, the eight
// rows forget, input, cell, output of unit 2g then of unit 2g+1, as one
// octDot block (octTPack).
func lstmTPackW(m [4][]int8, rows, cols int) string {
	var w [][]int8
	for o := 0; o < rows; o++ {
		for k := range m {
			w = append(w, m[k][o*cols:o*cols+cols])
		}
	}
	return octTPack(w, cols)
}

// lstmTCallInt8 runs lstmInt8 on weights and folded biases (2*units per
// gate) laid out as gen does.
func lstmTCallInt8(p *lstmParams, x, h []int8, c []int16, out []int8, gates [4]*lstmGate,
	w, r [4][]int8, fold [4][]int64) {
	n, s := p.inDim, p.units
	var b []int64
	for o := 0; o < s; o++ {
		for half := 0; half < 2; half++ {
			for k := range fold {
				b = append(b, fold[k][half*s+o])
			}
		}
	}
	wIn, wRec, bias := lstmTPackW(w, s, n), lstmTPackW(r, s, s), lstmTStr(b, 4)
	lstmInt8(p, x, h, c, out, gates[0], gates[1], gates[2], gates[3], wIn, wRec, bias, make([]int32, lstmInt8Scratch))
}

// lstmTInterleave lays out four gates' [rows][cols] float weights as the
// float kernels read them: rows in pairs, [pairs][cols][2 rows][4 gates],
// then an odd last row as [cols][4 gates].
func lstmTInterleave(m [4][]float32, rows, cols int) string {
	var v []float32
	for r0 := 0; r0 < rows; r0 += 2 {
		for c := 0; c < cols; c++ {
			for r := r0; r < min(r0+2, rows); r++ {
				for k := range m {
					v = append(v, m[k][r*cols+c])
				}
			}
		}
	}
	return lstmTF32Str(v)
}

func lstmTI8s(v []int64) []int8 {
	out := make([]int8, len(v))
	for i, x := range v {
		out[i] = int8(x)
	}
	return out
}

// lstmTRunInt runs the quantized model on float input and state, returning
// the dequantized output, hidden state and cell state.
func lstmTRunInt(q lstmTQuant, m *lstmTIntModel, input, hidden, cell []float32) (out, h, c []float32) {
	x := lstmTQ(input, q.inScale, q.inZP, q.bits)
	hq := lstmTQ(hidden, q.hidScale, q.hidZP, q.bits)
	cq := lstmTI16(lstmTQ(cell, q.cellScale, 0, 16))
	n := m.p.batch * m.p.steps * m.p.units
	var oq []int32
	if q.bits == 8 {
		h8, o8 := lstmTI8(hq), make([]int8, n)
		lstmTCallInt8(m.p, lstmTI8(x), h8, cq, o8, m.gates, m.w, m.r, m.fold)
		hq, oq = lstmTI32s(h8), lstmTI32s(o8)
	} else {
		h16, o16 := lstmTI16(hq), make([]int16, n)
		lstmInt16(m.p, lstmTI16(x), h16, cq, o16,
			m.gates[0], m.w[0], m.r[0], m.b[0], m.gates[1], m.w[1], m.r[1], m.b[1],
			m.gates[2], m.w[2], m.r[2], m.b[2], m.gates[3], m.w[3], m.r[3], m.b[3])
		hq, oq = lstmTI32s(h16), lstmTI32s(o16)
	}
	return lstmTDeq(oq, q.hidScale, q.hidZP), lstmTDeq(hq, q.hidScale, q.hidZP),
		lstmTDeq(lstmTI32s(cq), q.cellScale, 0)
}

// lstmTRunFloat runs the float model with lstmFloat (and checks that
// lstmFloatLean gives the same bits).
func lstmTRunFloat(batch, steps int, timeMajor bool, input, hidden, cell []float32) (out, h, c []float32) {
	p := &lstmParams{batch: batch, steps: steps, inDim: 2, units: 2, timeMajor: timeMajor, clip: true, cellClipF: lstmTClip}
	var w, r, b [4][]float32
	for g := range w {
		w[g], r[g], b[g] = lstmTGates[g].w, lstmTGates[g].r, lstmTGates[g].b
	}
	return lstmTCallFloat(p, input, hidden, cell, w, r, b)
}

// lstmTCallFloat runs lstmFloat and lstmFloatLean on copies of the state
// with weights laid out as gen does; it panics if they differ and returns
// lstmFloat's output and final state.
func lstmTCallFloat(p *lstmParams, input, hidden, cell []float32, w, r, b [4][]float32) (out, h, c []float32) {
	n, s := p.inDim, p.units
	wIn, wRec, bias := lstmTInterleave(w, s, n), lstmTInterleave(r, s, s), lstmTInterleave(b, s, 1)
	var res [2][3][]float32
	for v := range res {
		h := append([]float32(nil), hidden...)
		c := append([]float32(nil), cell...)
		out := make([]float32, p.batch*p.steps*s)
		if v == 0 {
			lstmFloat(p, input, h, c, out, make([]float32, 4*(n+s)*s), wIn, wRec, bias)
		} else {
			lstmFloatLean(p, input, h, c, out, wIn, wRec, bias)
		}
		res[v] = [3][]float32{out, h, c}
	}
	for k := range res[0] {
		for i := range res[0][k] {
			if math.Float32bits(res[0][k][i]) != math.Float32bits(res[1][k][i]) {
				panic("lstmFloat and lstmFloatLean differ")
			}
		}
	}
	return res[0][0], res[0][1], res[0][2]
}

// lstmActF applies lstmSigmoidF to the elements k of src with bit k%4 of
// sig set and lstmTanhF to the others, storing the results in dst.
func lstmActF(dst, src []float32, sig uint) {
	dst = dst[:len(src)]
	for k := range src {
		if sig>>uint(k&3)&1 != 0 {
			lstmSigmoidF(dst[k:k+1], src[k:k+1])
		} else {
			lstmTanhF(dst[k:k+1], src[k:k+1])
		}
	}
}

// lstmTSigmoid and lstmTTanh apply lstmActF to one value.
func lstmTSigmoid(v float32) float32 {
	a := []float32{v}
	lstmActF(a, a, 1)
	return a[0]
}

func lstmTTanh(v float32) float32 {
	a := []float32{v}
	lstmActF(a, a, 0)
	return a[0]
}

// TestLSTMEvalTFLM ports TestLSTMEval{Float,Int8,Int16} (lstm_eval_test.cc)
// and TestUnidirectionalLSTM{Float,Int8,Int16}
// (unidirectional_sequence_lstm_test.cc): three steps of both batches from
// zero state. TFLM compares only the first batch*state output values; all
// twelve are compared here.
func TestLSTMEvalTFLM(t *testing.T) {
	d := lstmTEvalData
	zero := make([]float32, 4)
	cases := []struct {
		name                    string
		q                       *lstmTQuant
		hidTol, cellTol, outTol float64
	}{
		{"float", nil, 1e-6, 1e-6, 1e-6},
		{"int8", &lstmTInt8Quant, 1e-2, 1e-2, 1e-2},
		{"int16", &lstmTInt16Quant, 1e-3, 1e-2, 1e-3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, h, c []float32
			if tc.q == nil {
				out, h, c = lstmTRunFloat(2, 3, false, d.input, zero, zero)
			} else {
				out, h, c = lstmTRunInt(*tc.q, lstmTBuild(*tc.q, 2, 3, false), d.input, zero, zero)
			}
			lstmTNear(t, "hidden state", h, d.hidden, tc.hidTol)
			lstmTNear(t, "cell state", c, d.cell, tc.cellTol)
			lstmTNear(t, "output", out, d.output, tc.outTol)
		})
	}
}

// TestLSTMTimeMajor runs the evaluation data as a time-major input: the
// results must be those of the batch-major run with the input and output
// transposed (TFLM's time-major path processes all batches per step).
func TestLSTMTimeMajor(t *testing.T) {
	d := lstmTEvalData
	zero := make([]float32, 4)
	tm := make([]float32, len(d.input)) // [3 steps][2 batches][2]
	for b := 0; b < 2; b++ {
		for s := 0; s < 3; s++ {
			copy(tm[(s*2+b)*2:(s*2+b)*2+2], d.input[(b*3+s)*2:(b*3+s)*2+2])
		}
	}
	untranspose := func(o []float32) []float32 {
		r := make([]float32, len(o))
		for b := 0; b < 2; b++ {
			for s := 0; s < 3; s++ {
				copy(r[(b*3+s)*2:(b*3+s)*2+2], o[(s*2+b)*2:(s*2+b)*2+2])
			}
		}
		return r
	}
	fo, fh, fc := lstmTRunFloat(2, 3, false, d.input, zero, zero)
	to, th, tcl := lstmTRunFloat(2, 3, true, tm, zero, zero)
	lstmTNear(t, "float output", untranspose(to), fo, 0)
	lstmTNear(t, "float hidden", th, fh, 0)
	lstmTNear(t, "float cell", tcl, fc, 0)
	for _, q := range []lstmTQuant{lstmTInt8Quant, lstmTInt16Quant} {
		bo, bh, bc := lstmTRunInt(q, lstmTBuild(q, 2, 3, false), d.input, zero, zero)
		mo, mh, mc := lstmTRunInt(q, lstmTBuild(q, 2, 3, true), tm, zero, zero)
		lstmTNear(t, "int output", untranspose(mo), bo, 0)
		lstmTNear(t, "int hidden", mh, bh, 0)
		lstmTNear(t, "int cell", mc, bc, 0)
	}
}

// TestLSTMOneStepTFLM ports CheckOneStepLSTM{Float,Int8,Int16}: one
// time-major step of both batches from the given hidden and cell states.
func TestLSTMOneStepTFLM(t *testing.T) {
	d := lstmTStepData
	cases := []struct {
		name            string
		q               *lstmTQuant
		hidTol, cellTol float64
	}{
		{"float", nil, 1e-6, 1e-6},
		{"int8", &lstmTInt8Quant, 1e-2, 1e-1},
		{"int16", &lstmTInt16Quant, 1e-3, 1e-1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, h, c []float32
			if tc.q == nil {
				out, h, c = lstmTRunFloat(2, 1, true, d.input, d.hidden, d.cell)
			} else {
				out, h, c = lstmTRunInt(*tc.q, lstmTBuild(*tc.q, 2, 1, true), d.input, d.hidden, d.cell)
			}
			lstmTNear(t, "hidden state", h, d.updatedHidden, tc.hidTol)
			lstmTNear(t, "cell state", c, d.updatedCell, tc.cellTol)
			lstmTNear(t, "output", out, h, 0)
		})
	}
}

// TestLSTMGatesTFLM ports CheckGateOutput{Float,Int8,Int16}: each gate's
// activation for both batches of the step data.
func TestLSTMGatesTFLM(t *testing.T) {
	d := lstmTStepData
	want := [4][]float32{d.forget, d.inGate, d.cel, d.outGate}
	names := [4]string{"forget", "input", "cell", "output"}
	t.Run("float", func(t *testing.T) {
		var w, r, b [4][]float32
		for g := range w {
			w[g], r[g], b[g] = lstmTGates[g].w, lstmTGates[g].r, lstmTGates[g].b
		}
		wIn, wRec, bias := lstmTInterleave(w, 2, 2), lstmTInterleave(r, 2, 2), lstmTInterleave(b, 2, 1)
		var got [4][]float32
		for g := range got {
			got[g] = make([]float32, 4)
		}
		for bt := 0; bt < 2; bt++ {
			var a, r [8]float32
			a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7] = lstmDotF8S(d.input[bt*2:bt*2+2], wIn)
			r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7] = lstmDotF8S(d.hidden[bt*2:bt*2+2], wRec)
			for o := 0; o < 2; o++ {
				gv := make([]float32, 4)
				for g := range gv {
					gv[g] = lstmGateF(a[4*o+g], ldf32(bias, 4*o+g), r[4*o+g])
				}
				lstmActF(gv, gv, 0b1011)
				for g := range got {
					got[g][bt*2+o] = gv[g]
				}
			}
		}
		for g := range got {
			lstmTNear(t, names[g]+" gate", got[g], want[g], 1e-6)
		}
	})
	for _, tc := range []struct {
		name string
		q    lstmTQuant
		tol  [4]float64 // forget, input, cell, output
	}{
		{"int8", lstmTInt8Quant, [4]float64{1e-1, 1e-1, 1e-2, 1e-2}},
		{"int16", lstmTInt16Quant, [4]float64{1e-1, 1e-1, 1e-4, 1e-4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := lstmTBuild(tc.q, 2, 1, true)
			x := lstmTQ(d.input, tc.q.inScale, tc.q.inZP, tc.q.bits)
			h := lstmTQ(d.hidden, tc.q.hidScale, tc.q.hidZP, tc.q.bits)
			for g := 0; g < 4; g++ {
				got := make([]int32, 4)
				for bt := 0; bt < 2; bt++ {
					for o := 0; o < 2; o++ {
						var v int16
						if tc.q.bits == 8 {
							// The packed dot products of lstmInt8, unit o.
							wIn, wRec := lstmTPackW(m.w, 2, 2), lstmTPackW(m.r, 2, 2)
							var in, rec [8]int32
							xs, hs := lstmTI8(x[bt*2:bt*2+2]), lstmTI8(h[bt*2:bt*2+2])
							octDot(xs, wIn, &in)
							octDot(hs, wRec, &rec)
							cx, ch := -128*fcSumI8(xs), -128*fcSumI8(hs)
							v = lstmGateSum(m.gates[g], in[4*o+g]+cx+int32(m.fold[g][o]), rec[4*o+g]+ch+int32(m.fold[g][2+o]))
						} else {
							v = lstmGate16(m.gates[g], m.p, lstmTI16(x[bt*2:bt*2+2]), lstmTI16(h[bt*2:bt*2+2]), m.w[g], m.r[g], m.b[g], o)
						}
						if g == 2 {
							got[bt*2+o] = int32(lstmTanhQ(v, 3, 0))
						} else {
							got[bt*2+o] = int32(lstmSigmoidQ(v))
						}
					}
				}
				lstmTNear(t, names[g]+" gate", lstmTDeq(got, 1.0/32768, 0), want[g], tc.tol[g])
			}
		})
	}
}

// TestLSTMCellHiddenUpdateTFLM ports CheckCellStateUpdate* and
// CheckHiddenStateUpdate*: the cell update from the expected gate outputs
// (quantized to Q0.15) and the hidden update from the expected updated cell
// and output gate.
func TestLSTMCellHiddenUpdateTFLM(t *testing.T) {
	d := lstmTStepData
	t.Run("float", func(t *testing.T) {
		p := &lstmParams{clip: true, cellClipF: lstmTClip}
		c, h := make([]float32, 4), make([]float32, 4)
		for i := range c {
			c[i] = lstmCellF(p, d.cell[i], d.forget[i], d.inGate[i], d.cel[i])
			h[i] = clampF32(lstmTTanh(d.updatedCell[i])*d.outGate[i], -lstmMaxF, lstmMaxF)
		}
		lstmTNear(t, "cell", c, d.updatedCell, 1e-6)
		lstmTNear(t, "hidden", h, d.updatedHidden, 1e-6)
	})
	for _, tc := range []struct {
		name            string
		q               lstmTQuant
		cellTol, hidTol float64
	}{
		{"int8", lstmTInt8Quant, 1e-3, 1e-2},
		{"int16", lstmTInt16Quant, 1e-3, 1e-4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := lstmTBuild(tc.q, 2, 1, true)
			f := lstmTQ(d.forget, 1.0/32768, 0, 16)
			i := lstmTQ(d.inGate, 1.0/32768, 0, 16)
			g := lstmTQ(d.cel, 1.0/32768, 0, 16)
			og := lstmTQ(d.outGate, 1.0/32768, 0, 16)
			c0 := lstmTQ(d.cell, tc.q.cellScale, 0, 16)
			c1 := lstmTQ(d.updatedCell, tc.q.cellScale, 0, 16)
			c, h := make([]int32, 4), make([]int32, 4)
			for k := range c {
				var urq lstmUnitRQ
				lstmMakeUnitRQ(m.p, &urq)
				c[k] = int32(lstmCellQ(m.p, &urq, int16(c0[k]), int16(f[k]), int16(i[k]), int16(g[k])))
				h[k] = lstmHiddenQ(m.p, &urq, int16(c1[k]), int16(og[k]))
			}
			lstmTNear(t, "cell", lstmTDeq(c, tc.q.cellScale, 0), d.updatedCell, tc.cellTol)
			lstmTNear(t, "hidden", lstmTDeq(h, tc.q.hidScale, tc.q.hidZP), d.updatedHidden, tc.hidTol)
		})
	}
}

// TestLSTMSigmoidTable checks the transcribed table against its meaning,
// sigmoid(i/24) in 0.16 fixed point: TFLM's values are within 1.5 units of
// 65536*sigmoid(i/24) (not exactly rounded) and non-decreasing, which
// catches any mistyped digit.
func TestLSTMSigmoidTable(t *testing.T) {
	for i := 0; i < 256; i++ {
		v := sigmoidTab(i)
		x := 65536 / (1 + math.Exp(-float64(i)/24))
		if math.Abs(float64(v)-x) > 1.5 {
			t.Errorf("sigmoidTab(%d) = %d, want within 1.5 of %.2f", i, v, x)
		}
		if i > 0 && v < sigmoidTab(i-1) {
			t.Errorf("sigmoidTab(%d) = %d below the previous entry", i, v)
		}
	}
}

// TestLSTMNonlinearities checks the 16-bit sigmoid and tanh on every Q3.12
// input: within 2^-10 of the real function (the LUT's accuracy), monotone,
// and with the exact symmetries TFLM's rounding gives (sigmoid(v) +
// sigmoid(-v) = 1 and tanh(-v) = -tanh(v) in Q0.15).
func TestLSTMNonlinearities(t *testing.T) {
	prevS, prevT := int16(math.MinInt16), int16(math.MinInt16)
	for v := math.MinInt16; v <= math.MaxInt16; v++ {
		x := float64(v) / 4096
		s, th := lstmSigmoidQ(int16(v)), lstmTanhQ(int16(v), 3, 0)
		if d := math.Abs(float64(s)/32768 - 1/(1+math.Exp(-x))); d > 1.0/1024 {
			t.Fatalf("sigmoid(%d/4096) = %d/32768, off by %g", v, s, d)
		}
		if d := math.Abs(float64(th)/32768 - math.Tanh(x)); d > 1.0/1024 {
			t.Fatalf("tanh(%d/4096) = %d/32768, off by %g", v, th, d)
		}
		if s < prevS || th < prevT {
			t.Fatalf("not monotone at %d", v)
		}
		if v > math.MinInt16 {
			if sum := int32(s) + int32(lstmSigmoidQ(int16(-v))); sum != 32768 {
				t.Fatalf("sigmoid(%d) + sigmoid(%d) = %d/32768, want 1", v, -v, sum)
			}
			if neg := lstmTanhQ(int16(-v), 3, 0); neg != -th {
				t.Fatalf("tanh(%d) = %d, tanh(%d) = %d: not odd", v, th, -v, neg)
			}
		}
		prevS, prevT = s, th
	}
	exact := []struct {
		name      string
		got, want int16
	}{
		{"sigmoid(0)", lstmSigmoidQ(0), 16384},
		{"tanh(0)", lstmTanhQ(0, 3, 0), 0},
		// Beyond the table (|3v| >= 255*256) tanh saturates to +-32767.
		{"tanh(max)", lstmTanhQ(math.MaxInt16, 3, 0), 32767},
		{"tanh(min)", lstmTanhQ(math.MinInt16, 3, 0), -32767},
		// A Q4.11 cell state (scale 2^-11) uses multiplier 6; a Q2.13 one
		// (2^-13) a rounding right shift of 3*c by 1.
		{"tanh Q4.11 vs Q3.12", lstmTanhQ(1000, 6, 0), lstmTanhQ(2000, 3, 0)},
		// (3*2001+1)>>1 = 3002.
		{"tanh Q2.13 rescale", lstmTanhQ(2001, 3, 1), lstmTanhQ(3002, 1, 0)},
	}
	for _, e := range exact {
		if e.got != e.want {
			t.Errorf("%s = %d, want %d", e.name, e.got, e.want)
		}
	}
}

// lstmTStepRange returns, for step k of TFLM's loop (every batch row of a
// time step when time major, else one row), the number of batch rows it
// processes and the offsets of its input, state and output rows.
func lstmTStepRange(p *lstmParams, k int) (rows, xOff, sOff, oOff int) {
	if p.timeMajor {
		return p.batch, k * p.batch * p.inDim, 0, k * p.batch * p.units
	}
	return 1, k * p.inDim, (k / p.steps) * p.units, k * p.units
}

// lstmTRefInt is a direct transcription of TFLM's integer evaluation order
// (lstm_eval.h: LstmStep over whole vectors with scratch buffers, FC inputs
// offset term by term, unfolded biases), used to check that the kernel's
// unit-by-unit order and folded biases give identical bits.
func lstmTRefInt(p *lstmParams, gates [4]*lstmGate, bits int, x []int32, inZP, hZP int32,
	w, r [4][]int8, bias [4][]int64, h []int32, c []int16, out []int32) {
	n, s := p.inDim, p.units
	fc := func(v []int32, zp int32, wt []int8, b []int64, depth, rows int, m int32, sh int) []int32 {
		res := make([]int32, rows*s)
		for bt := 0; bt < rows; bt++ {
			for o := 0; o < s; o++ {
				var acc int64
				var acc32 int32
				for d := 0; d < depth; d++ {
					prod := int32(wt[o*depth+d]) * (v[bt*depth+d] - zp)
					acc32 += prod
					acc += int64(prod)
				}
				var y int32
				if bits == 8 {
					if b != nil {
						acc32 += int32(b[o])
					}
					y = mulByQuantMul(acc32, m, sh)
				} else {
					if b != nil {
						acc += b[o]
					}
					y = mulByQuantMul64(acc, m, sh)
				}
				res[bt*s+o] = clampI32(y, -32768, 32767)
			}
		}
		return res
	}
	steps := p.batch * p.steps
	if p.timeMajor {
		steps = p.steps
	}
	for k := 0; k < steps; k++ {
		rows, xo, so, oo := lstmTStepRange(p, k)
		xs, hs := x[xo:xo+rows*n], h[so:so+rows*s]
		var act [4][]int16
		for g := 0; g < 4; g++ {
			a := fc(xs, inZP, w[g], bias[g], n, rows, gates[g].inMult, gates[g].inShift)
			b := fc(hs, hZP, r[g], nil, s, rows, gates[g].recMult, gates[g].recShift)
			act[g] = make([]int16, rows*s)
			for i := range a {
				v := int16(clampI32(a[i]+b[i], -32768, 32767))
				if g == 2 {
					act[g][i] = lstmTanhQ(v, 3, 0)
				} else {
					act[g][i] = lstmSigmoidQ(v)
				}
			}
		}
		cs := c[so : so+rows*s]
		for i := range cs {
			fcv := clampI32(mulByQuantMul(int32(act[0][i])*int32(cs[i]), p.forgetMult, p.forgetShift), -32768, 32767)
			ig := clampI32(mulByQuantMul(int32(act[1][i])*int32(act[2][i]), p.inputMult, p.inputShift), -32768, 32767)
			v := clampI32(fcv+ig, -32768, 32767)
			if p.clip {
				v = max(min(p.cellClip, v), -p.cellClip)
			}
			cs[i] = int16(v)
		}
		for i := range cs {
			t := lstmTanhQ(cs[i], p.tanhMult, p.tanhShift)
			hs[i] = clampI32(p.hidZP+mulByQuantMul(int32(t)*int32(act[3][i]), p.hidMult, p.hidShift), p.hidMin, p.hidMax)
		}
		copy(out[oo:oo+rows*s], hs)
	}
}

// TestLSTMMatchesTFLMOrder runs random int8 and int16 LSTMs (batch and
// time major, several batches, non-zero zero points, random scales, cell
// clipping) through the kernels and through lstmTRefInt; the outputs and
// final states must be identical. The int8 trials also cover the pair
// packing of lstmInt8 (with and without scratch): weights of -128, inputs
// longer than one block of pairs, and constant inputs and weights that
// drive every block sum to its bound.
func TestLSTMMatchesTFLMOrder(t *testing.T) {
	rng := uint32(12345)
	next := func() uint32 { rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5; return rng }
	rnd := func(lo, hi int32) int32 { return lo + int32(next()%uint32(hi-lo+1)) }
	for trial := 0; trial < 80; trial++ {
		bits := 8
		if trial%2 == 1 {
			bits = 16
		}
		// int8 weight modes: 0 in [-127, 127], 1 in [-128, 127], 2 long
		// rows, 3 and 4 long rows of constant -127 or -128 weights and -128
		// inputs (the largest block sums).
		mode := 0
		if bits == 8 {
			mode = trial / 2 % 5
		}
		lo, hi := int32(-128), int32(127)
		if bits == 16 {
			lo, hi = -32768, 32767
		}
		p := &lstmParams{
			batch: int(rnd(1, 3)), steps: int(rnd(1, 4)), inDim: int(rnd(1, 9)), units: int(rnd(1, 7)),
			timeMajor: trial%4 >= 2, hidMin: lo, hidMax: hi,
		}
		if mode >= 2 {
			p.inDim = int(rnd(250, 700))
		}
		inZP, hZP := rnd(lo/4, hi/4), rnd(lo/4, hi/4)
		if bits == 16 {
			inZP, hZP = 0, 0
		}
		p.hidZP = hZP
		cellPow := int(rnd(-15, -9))
		cellScale := math.Ldexp(1, cellPow)
		hidScale := float64(rnd(1, 1000)) / 65536
		if bits == 8 {
			hidScale *= 256
		}
		p.forgetMult, p.forgetShift = lstmTMult(math.Ldexp(1, -15))
		p.inputMult, p.inputShift = lstmTMult(math.Ldexp(1, -30) / cellScale)
		p.hidMult, p.hidShift = lstmTMult(math.Ldexp(1, -30) / hidScale)
		if ls := 15 + cellPow - 3; ls >= 0 {
			p.tanhMult, p.tanhShift = 3<<uint(ls), 0
		} else {
			p.tanhMult, p.tanhShift = 3, -ls
		}
		if trial%3 == 0 {
			p.clip, p.cellClip = true, rnd(100, 20000)
		}
		n, s := p.inDim, p.units
		var gates [4]*lstmGate
		var w, r [4][]int8
		var bias [4][]int64
		var folded [4]string
		var fold [4][]int64
		for g := 0; g < 4; g++ {
			gt := &lstmGate{}
			gt.inMult, gt.inShift = lstmTMult(float64(rnd(1, 1000)) / 300 / float64(int32(1)<<uint(bits-8)))
			gt.recMult, gt.recShift = lstmTMult(float64(rnd(1, 1000)) / 300 / float64(int32(1)<<uint(bits-8)))
			gates[g] = gt
			w[g], r[g] = make([]int8, s*n), make([]int8, s*s)
			wlo := int32(-127)
			if mode == 1 {
				wlo = -128
			}
			for i := range w[g] {
				w[g][i] = int8(rnd(wlo, 127))
				if mode >= 3 {
					w[g][i] = int8(-124 - mode)
				}
			}
			for i := range r[g] {
				r[g][i] = int8(rnd(wlo, 127))
			}
			if mode == 1 {
				r[g][0] = -128
			}
			bias[g] = make([]int64, s)
			f := make([]int64, 2*s)
			for o := 0; o < s; o++ {
				bias[g][o] = int64(rnd(-40000, 40000))
				sw, sr := int64(0), int64(0)
				for d := 0; d < n; d++ {
					sw += int64(w[g][o*n+d])
				}
				for d := 0; d < s; d++ {
					sr += int64(r[g][o*s+d])
				}
				f[o], f[s+o] = bias[g][o]-int64(inZP)*sw, -int64(hZP)*sr
			}
			folded[g], fold[g] = lstmTStr(f, bits/2), f
		}
		x := make([]int32, p.batch*p.steps*n)
		for i := range x {
			x[i] = rnd(lo, hi)
			if mode >= 3 {
				x[i] = -128
			}
		}
		h0 := make([]int32, p.batch*s)
		c0 := make([]int16, p.batch*s)
		for i := range h0 {
			h0[i], c0[i] = rnd(lo, hi), int16(rnd(-32768, 32767))
		}
		refH, refC, refOut := append([]int32(nil), h0...), append([]int16(nil), c0...), make([]int32, p.batch*p.steps*s)
		lstmTRefInt(p, gates, bits, x, inZP, hZP, w, r, bias, refH, refC, refOut)

		c := append([]int16(nil), c0...)
		var gotH, gotOut []int32
		if bits == 8 {
			h8, o8 := lstmTI8(h0), make([]int8, len(refOut))
			lstmTCallInt8(p, lstmTI8(x), h8, c, o8, gates, w, r, fold)
			gotH, gotOut = lstmTI32s(h8), lstmTI32s(o8)
		} else {
			h16, o16 := lstmTI16(h0), make([]int16, len(refOut))
			lstmInt16(p, lstmTI16(x), h16, c, o16,
				gates[0], w[0], r[0], folded[0], gates[1], w[1], r[1], folded[1],
				gates[2], w[2], r[2], folded[2], gates[3], w[3], r[3], folded[3])
			gotH, gotOut = lstmTI32s(h16), lstmTI32s(o16)
		}
		for i := range refOut {
			if gotOut[i] != refOut[i] {
				t.Fatalf("trial %d (%d-bit, %+v): output[%d] = %d, want %d", trial, bits, *p, i, gotOut[i], refOut[i])
			}
		}
		for i := range refH {
			if gotH[i] != refH[i] || c[i] != refC[i] {
				t.Fatalf("trial %d (%d-bit): state[%d] = (%d, %d), want (%d, %d)", trial, bits, i, gotH[i], c[i], refH[i], refC[i])
			}
		}
	}
}

// TestLSTMActivationsFloat checks lstmActF against the float64 library:
// TFLM's logistic (its cut-offs, expf rounded to float32, then float32
// arithmetic) and tanh rounded to float32, over a dense sweep of inputs and
// the special values. Results must be within one float32 ulp, and nearly
// all identical.
func TestLSTMActivationsFloat(t *testing.T) {
	refSig := func(v float32) float32 {
		if v > 16.619047164916992188 {
			return 1
		}
		if v < -9 {
			return float32(math.Exp(float64(v)))
		}
		return 1 / (1 + float32(math.Exp(float64(-v))))
	}
	refTanh := func(v float32) float32 { return float32(math.Tanh(float64(v))) }
	ulps := func(a, b float32) int64 {
		d := int64(math.Float32bits(a)&0x7fffffff) - int64(math.Float32bits(b)&0x7fffffff)
		if (a < 0) != (b < 0) && a != 0 && b != 0 {
			return math.MaxInt64
		}
		return max(d, -d)
	}
	var vs []float32
	for x := -120.0; x <= 120; x += 0.00731 {
		vs = append(vs, float32(x))
	}
	for e := -40; e <= 7; e++ {
		for _, m := range []float64{1, 1.37, 1.9999} {
			vs = append(vs, float32(math.Ldexp(m, e)), float32(-math.Ldexp(m, e)))
		}
	}
	vs = append(vs, 0, 16.619047, 16.62, -9, -9.000001, -8.999999, 0.625, -0.625, 1e30, -1e30, 1.0/16384, -1.0/16384)
	in := append([]float32(nil), vs...)
	sig, th := make([]float32, len(vs)), make([]float32, len(vs))
	for i := range in {
		// Element k of a call gets the logistic when bit k%4 of sig is
		// set: compute both for every value.
		a := []float32{in[i], in[i]}
		lstmActF(a, a, 0b01)
		sig[i], th[i] = a[0], a[1]
	}
	exact := 0
	for i, v := range vs {
		ws, wt := refSig(v), refTanh(v)
		if ulps(sig[i], ws) > 1 || ulps(th[i], wt) > 1 {
			t.Fatalf("v=%g: logistic %g (want %g), tanh %g (want %g)", v, sig[i], ws, th[i], wt)
		}
		if sig[i] == ws && th[i] == wt {
			exact++
		}
	}
	if exact < len(vs)*999/1000 {
		t.Errorf("only %d of %d values exactly as the library", exact, len(vs))
	}
	special := []struct {
		v, sig, tanh float32
	}{
		{float32(math.Inf(1)), 1, 1},
		{float32(math.Inf(-1)), 0, -1},
		{float32(math.Copysign(0, -1)), 0.5, float32(math.Copysign(0, -1))},
	}
	for _, sp := range special {
		if g := lstmTSigmoid(sp.v); g != sp.sig {
			t.Errorf("logistic(%g) = %g, want %g", sp.v, g, sp.sig)
		}
		if g := lstmTTanh(sp.v); math.Float32bits(g) != math.Float32bits(sp.tanh) {
			t.Errorf("tanh(%g) = %g, want %g", sp.v, g, sp.tanh)
		}
	}
	nan := float32(math.NaN())
	if g, h := lstmTSigmoid(nan), lstmTTanh(nan); g == g || h == h {
		t.Errorf("logistic(NaN) = %g, tanh(NaN) = %g, want NaN", g, h)
	}
}

// TestLSTMMakeRQ checks the LSTM kernels' requantization, fcRescale with
// lstmMakeRQ, against mulByQuantMul (TFLM's MultiplyByQuantizedMultiplier)
// on random and extreme operands over the range the generator allows
// (exponents -31..30, multipliers >= 0).
func TestLSTMMakeRQ(t *testing.T) {
	rng := uint64(99)
	next := func() uint64 { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng }
	xs := []int32{0, 1, -1, 2, -2, 3, -3, math.MaxInt32, math.MinInt32, 1 << 30, -(1 << 30), 12345, -12345}
	ms := []int32{math.MaxInt32, 1 << 30, 1518500250, 1, 0}
	for i := 0; i < 200000; i++ {
		x, m, sh := int32(next()), int32(next()>>33), int(next()%62)-31
		if i%3 == 0 {
			x >>= next() % 31
		}
		if i < len(xs)*len(ms)*62 {
			x, m, sh = xs[i%len(xs)], ms[i/len(xs)%len(ms)], i/(len(xs)*len(ms))%62-31
		}
		want := mulByQuantMul(x, m, sh)
		q := lstmMakeRQ(m, sh)
		if got := rqApply(x, &q); got != want {
			t.Fatalf("rqApply(%d, lstmMakeRQ(%d, %d)) = %d, want %d", x, m, sh, got, want)
		}
	}
}

// lstmGateSum returns a gate's Q3.12 pre-activation from its input and
// recurrent FC accumulators (biases included), as TFLM computes it: each
// requantized and clamped to int16, then added with int16 saturation.
func lstmGateSum(g *lstmGate, in, rec int32) int16 {
	a := clampI32(mulByQuantMul(in, g.inMult, g.inShift), -32768, 32767)
	b := clampI32(mulByQuantMul(rec, g.recMult, g.recShift), -32768, 32767)
	return int16(clampI32(a+b, -32768, 32767))
}

// lstmTRefFloat is a direct transcription of TFLM's float evaluation
// (lstm_eval.h: per time step, gate by gate over whole vectors; each FC
// summed in order, bias added, clamped; the two FCs added; sigmoid or tanh;
// cell and hidden updates), with lstmActF as the elementwise sigmoid and
// tanh so that the comparison is bit for bit.
func lstmTRefFloat(p *lstmParams, x []float32, w, r, bias [4][]float32, h, c, out []float32) {
	n, s := p.inDim, p.units
	steps := p.batch * p.steps
	if p.timeMajor {
		steps = p.steps
	}
	clamp := func(v float32) float32 { return clampF32(v, -lstmMaxF, lstmMaxF) }
	for k := 0; k < steps; k++ {
		rows, xo, so, oo := lstmTStepRange(p, k)
		var act [4][]float32
		for g := 0; g < 4; g++ {
			act[g] = make([]float32, rows*s)
			for bt := 0; bt < rows; bt++ {
				for o := 0; o < s; o++ {
					var a, b float32
					for d := 0; d < n; d++ {
						a += float32(x[xo+bt*n+d] * w[g][o*n+d])
					}
					for d := 0; d < s; d++ {
						b += float32(h[so+bt*s+d] * r[g][o*s+d])
					}
					v := clamp(a+bias[g][o]) + clamp(b)
					if g == 2 {
						act[g][bt*s+o] = lstmTTanh(v)
					} else {
						act[g][bt*s+o] = lstmTSigmoid(v)
					}
				}
			}
		}
		cs, hs := c[so:so+rows*s], h[so:so+rows*s]
		for i := range cs {
			cs[i] = lstmCellF(p, cs[i], act[0][i], act[1][i], act[2][i])
			hs[i] = clamp(float32(lstmTTanh(cs[i]) * act[3][i]))
		}
		copy(out[oo:oo+rows*s], hs)
	}
}

// TestLSTMFloatMatchesTFLMOrder runs random float LSTMs (more units than
// one group of lstmChunkF, odd sizes, batch and time major, with and
// without cell clipping) through lstmFloat and lstmFloatLean and through
// lstmTRefFloat: outputs and final states must be identical.
func TestLSTMFloatMatchesTFLMOrder(t *testing.T) {
	rng := uint32(777)
	next := func() float32 {
		rng ^= rng << 13
		rng ^= rng >> 17
		rng ^= rng << 5
		return float32(int32(rng>>8)-1<<23) / (1 << 23)
	}
	for trial := 0; trial < 12; trial++ {
		p := &lstmParams{batch: 1 + trial%3, steps: 1 + trial%4, inDim: 1 + trial*3%13, units: 1 + trial*5%19,
			timeMajor: trial%2 == 1}
		if trial%3 == 0 {
			p.clip, p.cellClipF = true, 0.75
		}
		n, s := p.inDim, p.units
		var w, r, b [4][]float32
		for g := range w {
			w[g], r[g], b[g] = make([]float32, s*n), make([]float32, s*s), make([]float32, s)
			for _, v := range [][]float32{w[g], r[g], b[g]} {
				for i := range v {
					v[i] = 2 * next()
				}
			}
		}
		x := make([]float32, p.batch*p.steps*n)
		h0, c0 := make([]float32, p.batch*s), make([]float32, p.batch*s)
		for _, v := range [][]float32{x, h0, c0} {
			for i := range v {
				v[i] = 3 * next()
			}
		}
		out, h, c := lstmTCallFloat(p, x, h0, c0, w, r, b)
		rh, rc, rout := append([]float32(nil), h0...), append([]float32(nil), c0...), make([]float32, len(out))
		lstmTRefFloat(p, x, w, r, b, rh, rc, rout)
		for _, cmp := range []struct {
			what      string
			got, want []float32
		}{{"output", out, rout}, {"hidden", h, rh}, {"cell", c, rc}} {
			for i := range cmp.want {
				if math.Float32bits(cmp.got[i]) != math.Float32bits(cmp.want[i]) {
					t.Fatalf("trial %d (%+v): %s[%d] = %g, want %g", trial, *p, cmp.what, i, cmp.got[i], cmp.want[i])
				}
			}
		}
	}
}

// TestLstmQ checks lstmInt8's requantization (hm then rnd) against rqApply
// and mulByQuantMul over extreme and random accumulators, multipliers and
// exponents, and lstmSat16 against a clamp.
func TestLstmQ(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	xs := []int32{0, 1, -1, 2, -2, math.MaxInt32, math.MinInt32, math.MaxInt32 - 1, math.MinInt32 + 1, 1 << 30, -1 << 30, 32767, -32768}
	for range 2000 {
		xs = append(xs, int32(rng.Uint32()), int32(rng.Uint32())>>uint(rng.Intn(31)))
	}
	ms := []int32{0, 1, 1 << 30, math.MaxInt32, 1 << 29, 1518500250}
	for range 40 {
		ms = append(ms, int32(rng.Uint32()>>1))
	}
	for shift := -31; shift <= 30; shift++ {
		for _, m := range ms {
			r, q := rqFor(m, shift), lstmMakeQ(m, shift)
			for _, x := range xs {
				want := rqApply(x, &r)
				if got := q.rnd(q.hm(x)); got != want {
					t.Fatalf("m %d shift %d x %d: lstmQ %d, rqApply %d", m, shift, x, got, want)
				}
				if shift <= 0 || (int64(x)<<uint(shift) == int64(x<<uint(shift))) {
					if w2 := mulByQuantMul(x, m, shift); w2 != want {
						t.Fatalf("m %d shift %d x %d: rqApply %d, mulByQuantMul %d", m, shift, x, want, w2)
					}
				}
			}
		}
	}
	for _, v := range xs {
		if got, want := lstmSat16(v), min(max(v, -32768), 32767); got != want {
			t.Fatalf("lstmSat16(%d) = %d, want %d", v, got, want)
		}
	}
}
