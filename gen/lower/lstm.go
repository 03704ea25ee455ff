package lower

import (
	"encoding/binary"
	"math"
	"strings"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/internal/quant"
)

func init() {
	register(model.OpUnidirectionalSequenceLstm, lowerLSTM, ownBuffer, withMACs(lstmMACs), withTFLMScratch(lstmTFLMScratch))
}

// Input positions of UNIDIRECTIONAL_SEQUENCE_LSTM (TFLM lstm_shared.h).
const (
	lstmInInput      = 0
	lstmInInputW     = 1 // input-to-gate weights: input, forget, cell, output (1..4)
	lstmInRecurrentW = 5 // recurrent weights, same gate order (5..8)
	lstmInPeephole   = 9 // 9..11
	lstmInBias       = 12
	lstmInProjection = 16 // weights 16, bias 17
	lstmInHidden     = 18
	lstmInCell       = 19
	lstmInLayerNorm  = 20 // 20..23
	lstmNumInputs    = 24
	lstmGateInput    = 0
	lstmGateForget   = 1
	lstmGateCell     = 2
	lstmGateOutput   = 3
	lstmActTanh      = 4
	lstmQ312Scale    = float32(1.0 / 4096)  // FC outputs / nonlinearity inputs, Q3.12
	lstmQ015Scale    = float32(1.0 / 32768) // nonlinearity outputs, Q0.15
)

// lstmGateNames names the gates in schema order, for messages.
var lstmGateNames = [4]string{"input", "forget", "cell", "output"}

// lstmShape is the geometry of an LSTM, deduced as TFLM's CreateLstmSizeInfo
// does.
type lstmShape struct {
	batch, steps, inDim, units int
	timeMajor                  bool
}

// lowerLSTM lowers UNIDIRECTIONAL_SEQUENCE_LSTM as TFLM's kernel does
// (unidirectional_sequence_lstm.cc, lstm_eval_common.cc): the standard LSTM
// only, all four gates present (no CIFG), no peephole, projection or layer
// normalization. Types: float32 throughout; int8 input/output/hidden state
// with int8 weights, int32 biases and int16 cell state; or the same with
// int16 input/output/hidden state and int64 biases.
//
// Options: fused_activation_function (the cell gate's activation: only
// TANH is supported, as TFLM's gate evaluation has no other), cell_clip,
// proj_clip (unused without projection), time_major,
// asymmetric_quantize_inputs (hybrid kernels only; TFLM ignores it),
// diagonal_recurrent_tensors (not supported). The intermediates TFLite's
// own integer LSTM reads are not used: TFLM derives every scale from the
// input, weight and state tensors with fixed Q3.12 / Q0.15 gate formats.
func lowerLSTM(c *opCtx) error {
	if c.NumIn() != lstmNumInputs || c.NumOut() != 1 {
		return c.Errorf("has %d inputs and %d outputs, want %d and 1", c.NumIn(), c.NumOut(), lstmNumInputs)
	}
	o := c.Op.Options()
	opt := o.UnidirectionalSequenceLSTM() // proj_clip and asymmetric_quantize_inputs are not used
	act := opt.FusedActivationFunction
	cellClip := opt.CellClip
	timeMajor := opt.TimeMajor
	diagonal := opt.DiagonalRecurrentTensors
	if err := o.Err(); err != nil {
		return c.Errorf("%v", err)
	}
	if act != lstmActTanh {
		return c.Errorf("cell gate activation %s not supported (TFLM supports TANH only)", quant.Activation(act))
	}
	if diagonal {
		return c.Errorf("diagonal recurrent weights are not supported")
	}
	if math.IsNaN(float64(cellClip)) || math.IsInf(float64(cellClip), 0) {
		return c.Errorf("cell_clip %g is not finite", cellClip)
	}

	in, h, cell, out := c.In(lstmInInput), c.In(lstmInHidden), c.In(lstmInCell), c.Out(0)
	if in == nil || h == nil || cell == nil {
		return c.Errorf("input, output state and cell state are required")
	}
	var inW, recW, bias [4]*model.Tensor
	for g := 0; g < 4; g++ {
		inW[g], recW[g], bias[g] = c.In(lstmInInputW+g), c.In(lstmInRecurrentW+g), c.In(lstmInBias+g)
		if inW[g] == nil || recW[g] == nil || bias[g] == nil {
			return c.Errorf("%s gate: input weights, recurrent weights and bias are required (no CIFG, as in TFLM)", lstmGateNames[g])
		}
		for _, t := range []*model.Tensor{inW[g], recW[g], bias[g]} {
			if !t.IsConst() {
				return c.Errorf("%s gate: %s must be constant", lstmGateNames[g], t.Describe())
			}
		}
	}
	for i := lstmInPeephole; i < lstmInPeephole+3; i++ {
		if c.In(i) != nil {
			return c.Errorf("peephole connections (input %d) are not supported", i)
		}
	}
	for i := lstmInProjection; i < lstmInProjection+2; i++ {
		if c.In(i) != nil {
			return c.Errorf("projection (input %d) is not supported", i)
		}
	}
	for i := lstmInLayerNorm; i < lstmInLayerNorm+4; i++ {
		if c.In(i) != nil {
			return c.Errorf("layer normalization (input %d) is not supported", i)
		}
	}
	for _, t := range []*model.Tensor{h, cell} {
		if !t.IsVariable || t.IsConst() {
			return c.Errorf("state %s: must be a variable tensor", t.Describe())
		}
	}

	sh, err := lstmCheckShapes(c, timeMajor, in, h, cell, out, inW, recW, bias)
	if err != nil {
		return err
	}
	if in.Type == model.Float32 {
		return lowerLSTMFloat(c, sh, cellClip, in, h, cell, out, inW, recW, bias)
	}
	if in.Type == model.Int8 || in.Type == model.Int16 {
		return lowerLSTMInt(c, sh, cellClip, in, h, cell, out, inW, recW, bias)
	}
	return c.Errorf("input %s: type %s not supported (float32, int8 or int16)", in.Describe(), in.Type)
}

// lstmCheckShapes validates the geometry as TFLM's ValidateTensorSize does.
func lstmCheckShapes(c *opCtx, timeMajor bool, in, h, cell, out *model.Tensor, inW, recW, bias [4]*model.Tensor) (lstmShape, error) {
	var sh lstmShape
	if len(in.Shape) != 3 {
		return sh, c.Errorf("input %s: want 3 dimensions", in.Describe())
	}
	if len(h.Shape) < 2 {
		return sh, c.Errorf("output state %s: want at least 2 dimensions", h.Describe())
	}
	sh = lstmShape{batch: in.Shape[0], steps: in.Shape[1], inDim: in.Shape[2], units: h.Shape[1], timeMajor: timeMajor}
	if timeMajor {
		sh.batch, sh.steps = sh.steps, sh.batch
	}
	if sh.batch < 1 || sh.steps < 1 || sh.inDim < 1 || sh.units < 1 {
		return sh, c.Errorf("input %s with state size %d: empty", in.Describe(), sh.units)
	}
	for g := 0; g < 4; g++ {
		if w := inW[g]; len(w.Shape) != 2 || w.Shape[0] != sh.units || w.Shape[1] != sh.inDim {
			return sh, c.Errorf("%s gate input weights %s: want [%d %d]", lstmGateNames[g], w.Describe(), sh.units, sh.inDim)
		}
		if w := recW[g]; len(w.Shape) != 2 || w.Shape[0] != sh.units || w.Shape[1] != sh.units {
			return sh, c.Errorf("%s gate recurrent weights %s: want [%d %d]", lstmGateNames[g], w.Describe(), sh.units, sh.units)
		}
		if b := bias[g]; len(b.Shape) != 1 || b.Shape[0] != sh.units {
			return sh, c.Errorf("%s gate bias %s: want [%d]", lstmGateNames[g], b.Describe(), sh.units)
		}
	}
	n := sh.batch * sh.units
	if h.NumElements() != n {
		return sh, c.Errorf("output state %s: want %d elements", h.Describe(), n)
	}
	if cell.NumElements() != n {
		return sh, c.Errorf("cell state %s: want %d elements", cell.Describe(), n)
	}
	if len(out.Shape) != 3 || out.Shape[0] != in.Shape[0] || out.Shape[1] != in.Shape[1] || out.Shape[2] != sh.units {
		return sh, c.Errorf("output %s: want [%d %d %d]", out.Describe(), in.Shape[0], in.Shape[1], sh.units)
	}
	return sh, nil
}

// lstmCheckTypes checks that every tensor of a group has the wanted type.
func lstmCheckTypes(c *opCtx, want model.DType, what string, ts ...*model.Tensor) error {
	for _, t := range ts {
		if t.Type != want {
			return c.Errorf("%s %s: want %s", what, t.Describe(), want)
		}
	}
	return nil
}

// lstmShapeFields are the geometry fields of lstmParams.
func lstmShapeFields(sh lstmShape) []Field {
	return []Field{
		F("batch", Int(sh.batch)), F("steps", Int(sh.steps)),
		F("inDim", Int(sh.inDim)), F("units", Int(sh.units)),
		F("timeMajor", Bool(sh.timeMajor)),
	}
}

// lowerLSTMFloat emits lstmFloat.
func lowerLSTMFloat(c *opCtx, sh lstmShape, cellClip float32, in, h, cell, out *model.Tensor, inW, recW, bias [4]*model.Tensor) error {
	if err := lstmCheckTypes(c, model.Float32, "float LSTM tensor", h, cell, out); err != nil {
		return err
	}
	if err := lstmCheckTypes(c, model.Float32, "float LSTM weights", append(inW[:], recW[:]...)...); err != nil {
		return err
	}
	if err := lstmCheckTypes(c, model.Float32, "float LSTM bias", bias[:]...); err != nil {
		return err
	}
	fields := lstmShapeFields(sh)
	if cellClip > 0 {
		fields = append(fields, F("clip", Bool(true)), F("cellClipF", F32(cellClip)))
	}
	if !c.DSP() {
		// -compiler gc: the gate functions in float32 arithmetic, which
		// an FPU runs faster than the integer ones.
		fields = append(fields, F("fpu", Bool(true)))
	}
	n, s := sh.inDim, sh.units
	p := Struct(kernelsig.LstmParams, fields...)
	if c.DSP() {
		// Float32 is emulated on the board: block floating point dot
		// products (kernels/bfp.go), the same bits on every target. Lean
		// too: its scratch (8+inDim words) is smaller than the stack the
		// exact emulation (lstmRunSoftF) takes.
		wi, wr, rec, ok := kernelsig.PlanLSTMFloatBFP(lstmGateData(inW), lstmGateData(recW), lstmGateData(bias), s, n)
		if ok {
			c.Call(kernelsig.LstmFloatBFP, p, View(in), View(h), View(cell), View(out), c.Scratch(model.Int32, 8+n),
				c.Const("InW", wi), c.Const("RecW", wr), c.Const("Rec", rec))
			return nil
		}
	}
	wIn := c.Const("InW", lstmInterleave(lstmGateData(inW), s, n, 4))
	wRec := c.Const("RecW", lstmInterleave(lstmGateData(recW), s, s, 4))
	b := c.Const("Bias", lstmInterleave(lstmGateData(bias), s, 1, 4))
	// With several input rows, every unit's weights decoded once into
	// scratch, if that is affordable at all.
	if buf := 4 * (n + s) * s; !c.Lean() && sh.batch*sh.steps > 1 && 4*buf <= lstmFloatCacheBytes {
		c.Call(kernelsig.LstmFloat, p, View(in), View(h), View(cell), View(out), c.Scratch(model.Float32, buf), wIn, wRec, b)
		return nil
	}
	c.Call(kernelsig.LstmFloatLean, p, View(in), View(h), View(cell), View(out), wIn, wRec, b)
	return nil
}

// lstmFloatCacheBytes bounds the scratch the float kernel may use to hold
// every unit's decoded weights.
const lstmFloatCacheBytes = 64 << 10

// lstmKernelGates lists the gates (schema numbers) in the kernels' order:
// forget, input, cell, output, as TFLM evaluates them.
var lstmKernelGates = [4]int{lstmGateForget, lstmGateInput, lstmGateCell, lstmGateOutput}

// lstmGateData returns the data of four per-gate tensors in kernel order.
func lstmGateData(t [4]*model.Tensor) [4][]byte {
	var out [4][]byte
	for k, g := range lstmKernelGates {
		out[k] = t[g].Data
	}
	return out
}

// lstmInterleave re-lays out four [rows][cols] matrices (one per gate, in
// kernel order) of size-byte elements for the float kernel, which computes
// two units (rows) at a time: [rows/2][cols][2 rows][4 gates], then, for an
// odd number of rows, the last row as [cols][4 gates].
func lstmInterleave(m [4][]byte, rows, cols, size int) []byte {
	out := make([]byte, 0, 4*rows*cols*size)
	for r0 := 0; r0 < rows; r0 += 2 {
		for col := 0; col < cols; col++ {
			for r := r0; r < min(r0+2, rows); r++ {
				i := (r*cols + col) * size
				for k := range m {
					out = append(out, m[k][i:i+size]...)
				}
			}
		}
	}
	return out
}

// lstmPackInt8W re-lays out four [rows][cols] int8 weight matrices for
// lstmInt8: per pair of units (rows), one block of kernels/oct.go's octDot
// whose eight rows are the forget, input, cell and output gates of unit 2g
// then of unit 2g+1 (a missing unit has zero rows).
func lstmPackInt8W(m [4][]byte, rows, cols int) []byte {
	return octPack(4*rows, cols, func(r int) []byte {
		o, k := r/4, r%4
		return m[k][o*cols : o*cols+cols]
	})
}

// lstmFCMultiplier is TFLM's gate FC requantization
// (CalculateOpDataFullyConnected with a Q3.12 int16 output): the product of
// the input and weight scales is taken in float32, then divided in double.
func lstmFCMultiplier(c *opCtx, what string, inScale, wScale float32) (int32, int, error) {
	return c.multiplier(what, float64(float32(inScale*wScale))/float64(lstmQ312Scale))
}

// lstmMulMultiplier is TFLM's CreateInterGateMulParams requantization: both
// input scales widened to double, multiplied and divided by the output
// scale.
func lstmMulMultiplier(c *opCtx, what string, s1, s2, outScale float32) (int32, int, error) {
	return c.multiplier(what, float64(s1)*float64(s2)/float64(outScale))
}

// lstmLog2 is TFLM's CheckedLog2 (float32 arithmetic, result rounded half
// away from zero; TFLM does not reject scales that are not powers of two).
func lstmLog2(x float32) int {
	l := float32(math.Log(float64(x))) * (1 / float32(math.Log(2)))
	return int(math.Round(float64(l)))
}

// lowerLSTMInt emits lstmInt8 or lstmInt16 with every multiplier computed
// as TFLM's PrepareGateParametersInteger and CreateLstmCellStateInfo do.
func lowerLSTMInt(c *opCtx, sh lstmShape, cellClip float32, in, h, cell, out *model.Tensor, inW, recW, bias [4]*model.Tensor) error {
	act := in.Type
	biasType, fn := model.Int32, kernelsig.LstmInt8
	if act == model.Int16 {
		biasType, fn = model.Int64, kernelsig.LstmInt16
	}
	if err := lstmCheckTypes(c, act, "hidden state and output type must match the input:", h, out); err != nil {
		return err
	}
	if err := lstmCheckTypes(c, model.Int16, "cell state", cell); err != nil {
		return err
	}
	if err := lstmCheckTypes(c, model.Int8, "integer LSTM weights", append(inW[:], recW[:]...)...); err != nil {
		return err
	}
	if err := lstmCheckTypes(c, biasType, "integer LSTM bias", bias[:]...); err != nil {
		return err
	}

	inS, inZP, err := perTensor(c, "input", in)
	if err != nil {
		return err
	}
	hS, hZP, err := perTensor(c, "output state", h)
	if err != nil {
		return err
	}
	cS, _, err := perTensor(c, "cell state", cell)
	if err != nil {
		return err
	}
	lo, hi := int64(math.MinInt8), int64(math.MaxInt8)
	if act == model.Int16 {
		lo, hi = math.MinInt16, math.MaxInt16
	}
	if inZP < lo || inZP > hi || hZP < lo || hZP > hi {
		return c.Errorf("zero points %d (input) and %d (output state) must be within %s range", inZP, hZP, act)
	}

	// Each gate's input and recurrent FC requantization (multiplier,
	// exponent), in the model's gate order.
	var gq [4]struct {
		im, rm int32
		is, rs int
	}
	for g := 0; g < 4; g++ {
		wS, wZP, err := perTensor(c, lstmGateNames[g]+" gate input weights", inW[g])
		if err != nil {
			return err
		}
		rS, rZP, err := perTensor(c, lstmGateNames[g]+" gate recurrent weights", recW[g])
		if err != nil {
			return err
		}
		if wZP != 0 || rZP != 0 {
			return c.Errorf("%s gate weights: zero points %d and %d, want symmetric (0)", lstmGateNames[g], wZP, rZP)
		}
		im, is, err := lstmFCMultiplier(c, lstmGateNames[g]+" gate input FC", inS, wS)
		if err != nil {
			return err
		}
		rm, rs, err := lstmFCMultiplier(c, lstmGateNames[g]+" gate recurrent FC", hS, rS)
		if err != nil {
			return err
		}
		gq[g].im, gq[g].is, gq[g].rm, gq[g].rs = im, is, rm, rs
	}

	fm, fs, err := lstmMulMultiplier(c, "forget gate x cell state", lstmQ015Scale, cS, cS)
	if err != nil {
		return err
	}
	im, is, err := lstmMulMultiplier(c, "input gate x cell gate", lstmQ015Scale, lstmQ015Scale, cS)
	if err != nil {
		return err
	}
	hm, hs, err := lstmMulMultiplier(c, "output gate x tanh(cell)", lstmQ015Scale, lstmQ015Scale, hS)
	if err != nil {
		return err
	}

	// TFLM's integer tanh takes (c*mult + round) >> shift with a left shift
	// of 15 + log2(cell scale) - 3: a non-negative shift becomes the
	// multiplier 3<<shift, a negative one a right shift of 3*c.
	tanhMult, tanhShift := int32(3), 0
	if ls := 15 + lstmLog2(cS) - 3; ls >= 0 {
		if ls > 14 {
			return c.Errorf("cell state %s: scale %g too large for the integer tanh", cell.Describe(), cS)
		}
		tanhMult = 3 << uint(ls)
	} else {
		if -ls > 30 {
			return c.Errorf("cell state %s: scale %g too small for the integer tanh", cell.Describe(), cS)
		}
		tanhShift = -ls
	}

	fields := lstmShapeFields(sh)
	fields = append(fields,
		F("forgetMult", I32(fm)), F("forgetShift", Int(fs)),
		F("inputMult", I32(im)), F("inputShift", Int(is)),
		F("hidMult", I32(hm)), F("hidShift", Int(hs)),
		F("hidZP", I32(int32(hZP))), F("hidMin", I32(int32(lo))), F("hidMax", I32(int32(hi))),
		F("tanhMult", I32(tanhMult)), F("tanhShift", Int(tanhShift)),
	)
	if cellClip > 0 {
		// static_cast<int16_t> of the clamped double truncates toward zero.
		q := math.Trunc(math.Min(math.Max(float64(cellClip)/float64(cS), -32768), 32767))
		fields = append(fields, F("clip", Bool(true)), F("cellClip", I32(int32(q))))
	}
	var folds [4][]int64
	for k, g := range lstmKernelGates {
		folds[k] = lstmFoldBias(sh, bias[g], inW[g], recW[g], -inZP, -hZP)
	}
	gateArg := func(k int) Arg {
		q := gq[lstmKernelGates[k]]
		return Struct(kernelsig.LstmGate, F("inMult", I32(q.im)), F("inShift", Int(q.is)), F("recMult", I32(q.rm)), F("recShift", Int(q.rs)))
	}
	n, s := sh.inDim, sh.units
	if act == model.Int8 {
		// Per unit: the four gates' input FC biases, then their recurrent
		// FC biases (wrapped to int32 as TFLM's accumulator).
		b := make([]int32, 0, 8*s)
		for o := 0; o < s; o++ {
			for half := 0; half < 2; half++ {
				for k := range folds {
					b = append(b, int32(folds[k][half*s+o]))
				}
			}
		}
		// The kernel's form, chosen here with the kernels' code: the
		// package carries that one alone.
		var inM, recM [4]int32
		var inSh, recSh [4]int
		for k, g := range lstmKernelGates {
			inM[k], recM[k], inSh[k], recSh[k] = gq[g].im, gq[g].rm, gq[g].is, gq[g].rs
		}
		form := kernelsig.PlanLSTMInt8(inM, recM, inSh, recSh, fm, fs, im, is, hm, hs)
		c.Call(form, Struct(kernelsig.LstmParams, fields...), View(in), View(h), View(cell), View(out),
			gateArg(0), gateArg(1), gateArg(2), gateArg(3),
			c.Const("InW", lstmPackInt8W(lstmGateData(inW), s, n)),
			c.Const("RecW", lstmPackInt8W(lstmGateData(recW), s, s)),
			c.ConstI32("Bias", b), c.Scratch(model.Int32, kernelsig.LSTMInt8Scratch))
		return nil
	}
	args := []Arg{Struct(kernelsig.LstmParams, fields...), View(in), View(h), View(cell), View(out)}
	for k, g := range lstmKernelGates {
		hint := strings.ToUpper(lstmGateNames[g][:1]) + lstmGateNames[g][1:] + "Bias"
		args = append(args, gateArg(k), View(inW[g]), View(recW[g]), c.ConstI64(hint, folds[k]))
	}
	c.Call(fn, args...)
	return nil
}

// lstmFoldBias returns a gate's folded biases for the kernel: for each unit
// o, bias[o] + inOff*sum(inW[o]), then for each unit hidOff*sum(recW[o]).
// TFLM accumulates w*(x+off) term by term; sum(w*x) plus these constants is
// the same integer (modulo 2^32 for the int32 accumulator of int8
// activations, where the caller truncates).
func lstmFoldBias(sh lstmShape, bias, inW, recW *model.Tensor, inOff, hidOff int64) []int64 {
	out := make([]int64, 2*sh.units)
	rowSum := func(w *model.Tensor, o, n int) int64 {
		s := int64(0)
		for _, v := range w.Data[o*n : o*n+n] {
			s += int64(int8(v))
		}
		return s
	}
	for o := 0; o < sh.units; o++ {
		var b int64
		if bias.Type == model.Int64 {
			b = int64(binary.LittleEndian.Uint64(bias.Data[8*o:]))
		} else {
			b = int64(int32(binary.LittleEndian.Uint32(bias.Data[4*o:])))
		}
		out[o] = b + inOff*rowSum(inW, o, sh.inDim)
		out[sh.units+o] = hidOff * rowSum(recW, o, sh.units)
	}
	return out
}

// lstmMACs: per time step, four gates' input and recurrent FCs.
func lstmMACs(g *model.Graph, op *model.Op) int64 {
	wi := dims64(g.Input(op, 2)) // input-to-forget [units, inputSize]
	wr := dims64(g.Input(op, 6)) // recurrent-to-forget [units, units]
	if len(wi) != 2 || len(wr) != 2 || wi[1] <= 0 {
		return 0
	}
	steps := elems64(g.Input(op, 0)) / wi[1]
	return steps * 4 * wi[0] * (wi[1] + wr[1])
}

// lstmTFLMScratch: TFLM's kernel requests four gate buffers of a batch of
// hidden-state rows, of the cell state's element type.
func lstmTFLMScratch(g *model.Graph, op *model.Op) []int {
	x, hidden, cell := g.Input(op, 0), g.Input(op, 18), g.Input(op, 19)
	if x == nil || hidden == nil || cell == nil {
		return nil
	}
	batch := dimOf(x, 0)
	if op.Options().UnidirectionalSequenceLSTM().TimeMajor {
		batch = dimOf(x, 1)
	}
	n := batch * dimOf(hidden, len(hidden.Shape)-1) * cell.Type.Size()
	return []int{n, n, n, n}
}
