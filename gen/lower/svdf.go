package lower

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/internal/quant"
)

func init() {
	register(model.OpSvdf, lowerSVDF, ownBuffer, withMACs(svdfMACs), withTFLMScratch(svdfTFLMScratch))
}

// svdfShape is the geometry of an SVDF operator, validated as TFLM's
// PrepareSvdf does.
type svdfShape struct {
	batch, inputSize, numFilters, rank, numUnits, memory int
}

// svdfScales are the integer SVDF's fixed-point rescaling constants.
type svdfScales struct {
	mult1, mult2   int32
	shift1, shift2 int
}

// svdfQuantScales computes the two effective scales exactly as TFLM's
// PrepareSvdf does (float32 arithmetic, then widened) and converts them to
// multipliers: effective_scale_1 = input*weights_feature/state rescales the
// feature projection into the state; effective_scale_2 =
// state*weights_time/output rescales the time accumulator into the output.
func svdfQuantScales(in, wf, wt, state, out float32) (svdfScales, error) {
	e1 := float64(float32(float32(in*wf) / state))
	e2 := float64(float32(float32(state*wt) / out))
	var s svdfScales
	var err error
	if s.mult1, s.shift1, err = quant.CheckedMultiplier(e1); err != nil {
		return s, fmt.Errorf("effective scale 1: %w", err)
	}
	if s.mult2, s.shift2, err = quant.CheckedMultiplier(e2); err != nil {
		return s, fmt.Errorf("effective scale 2: %w", err)
	}
	return s, nil
}

// lowerSVDF lowers SVDF (TFLM svdf.cc, reference path): int8 input with
// int8 weights_feature, int16 or int8 weights_time and activation state,
// int32 bias and int8 output; or float32 throughout.
//
// Inputs: 0 input [batch, input_size], 1 weights_feature [filters,
// input_size], 2 weights_time [filters, memory], 3 bias [units] (optional),
// 4 activation state [batch, memory*filters] (a variable tensor: the planner
// keeps it for the whole program and Reset sets it to zero, or to the zero
// point for int8, like TFLM's ResetVariableTensors). Options: rank (slot 0),
// fused activation (slot 1; applied by the float kernel only, as in TFLM),
// asymmetric_quantize_inputs (slot 2, hybrid kernels only; TFLM ignores it).
// The integer kernels ask for a scratch buffer of 8 to 24 int32 (octDot's
// sums, see kernels/svdf.go); with -speed (opCtx.Speed) an integer SVDF of
// rank 1 and a memory of a multiple of 8 keeps its state as rings
// (kernels/svdf_ring.go) and asks for one persistent int32, the rings'
// position.
func lowerSVDF(c *opCtx) error {
	if c.NumIn() != 5 || c.NumOut() != 1 {
		return c.Errorf("has %d inputs and %d outputs, want 5 and 1", c.NumIn(), c.NumOut())
	}
	in, wf, wt, bias, state, out := c.In(0), c.In(1), c.In(2), c.In(3), c.In(4), c.Out(0)
	if in == nil || wf == nil || wt == nil || state == nil {
		return c.Errorf("input, weights_feature, weights_time and activation state are required")
	}
	o := c.Op.Options()
	opt := o.SVDF() // asymmetric_quantize_inputs: hybrid kernels only
	rank := opt.Rank
	act := quant.Activation(opt.FusedActivationFunction)
	if err := o.Err(); err != nil {
		return c.Errorf("%v", err)
	}

	sh, err := svdfCheckShapes(c, int(rank), in, wf, wt, bias, state, out)
	if err != nil {
		return err
	}
	if in.Type == model.Float32 {
		return lowerSVDFFloat(c, sh, act, in, wf, wt, bias, state, out)
	}
	if in.Type == model.Int8 {
		return lowerSVDFInt8(c, sh, in, wf, wt, bias, state, out)
	}
	return c.Errorf("input %s: type %s not supported (int8 or float32)", in.Describe(), in.Type)
}

// svdfCheckShapes validates the operator's geometry.
func svdfCheckShapes(c *opCtx, rank int, in, wf, wt, bias, state, out *model.Tensor) (svdfShape, error) {
	var sh svdfShape
	for _, x := range []struct {
		what string
		t    *model.Tensor
	}{{"input", in}, {"weights_feature", wf}, {"weights_time", wt}, {"activation state", state}, {"output", out}} {
		if len(x.t.Shape) != 2 {
			return sh, c.Errorf("%s %s: want 2 dimensions", x.what, x.t.Describe())
		}
		if x.t.Shape[0] < 1 || x.t.Shape[1] < 1 {
			return sh, c.Errorf("%s %s: empty", x.what, x.t.Describe())
		}
	}
	if rank < 1 {
		return sh, c.Errorf("rank %d, want at least 1", rank)
	}
	sh = svdfShape{
		batch: in.Shape[0], inputSize: in.Shape[1], numFilters: wf.Shape[0], rank: rank,
		memory: wt.Shape[1],
	}
	if sh.numFilters%rank != 0 {
		return sh, c.Errorf("weights_feature %s: %d filters is not a multiple of rank %d", wf.Describe(), sh.numFilters, rank)
	}
	sh.numUnits = sh.numFilters / rank
	if wf.Shape[1] != sh.inputSize {
		return sh, c.Errorf("weights_feature %s: want [%d %d]", wf.Describe(), sh.numFilters, sh.inputSize)
	}
	if wt.Shape[0] != sh.numFilters {
		return sh, c.Errorf("weights_time %s: want %d rows", wt.Describe(), sh.numFilters)
	}
	if bias != nil && (len(bias.Shape) < 1 || bias.Shape[0] != sh.numUnits || bias.NumElements() != sh.numUnits) {
		return sh, c.Errorf("bias %s: want %d elements", bias.Describe(), sh.numUnits)
	}
	if state.Shape[0] != sh.batch || state.Shape[1] != sh.memory*sh.numFilters {
		return sh, c.Errorf("activation state %s: want [%d %d]", state.Describe(), sh.batch, sh.memory*sh.numFilters)
	}
	if !state.IsVariable || state.IsConst() {
		return sh, c.Errorf("activation state %s: must be a variable tensor", state.Describe())
	}
	if out.Shape[0] != sh.batch || out.Shape[1] != sh.numUnits {
		return sh, c.Errorf("output %s: want [%d %d]", out.Describe(), sh.batch, sh.numUnits)
	}
	return sh, nil
}

// lowerSVDFInt8 emits svdfInt8x16 or svdfInt8x8.
func lowerSVDFInt8(c *opCtx, sh svdfShape, in, wf, wt, bias, state, out *model.Tensor) error {
	if wf.Type != model.Int8 {
		return c.Errorf("weights_feature %s: want int8 with an int8 input", wf.Describe())
	}
	if wt.Type != model.Int8 && wt.Type != model.Int16 {
		return c.Errorf("weights_time %s: want int8 or int16", wt.Describe())
	}
	if state.Type != wt.Type {
		// TFLM reads the state with weights_time's type.
		return c.Errorf("activation state %s: type must match weights_time (%s)", state.Describe(), wt.Type)
	}
	if out.Type != model.Int8 {
		return c.Errorf("output %s: want int8", out.Describe())
	}
	if bias == nil {
		// TFLM's PrepareSvdf reads the bias scale unconditionally.
		return c.Errorf("integer SVDF without bias is not supported (TFLM requires it)")
	}
	if bias.Type != model.Int32 || !bias.IsConst() {
		return c.Errorf("bias %s: want a constant int32 tensor", bias.Describe())
	}
	if !wt.IsConst() || !wf.IsConst() {
		return c.Errorf("weights_feature %s and weights_time %s must be constants", wf.Describe(), wt.Describe())
	}

	inS, inZP, err := perTensor(c, "input", in)
	if err != nil {
		return err
	}
	wfS, wfZP, err := perTensor(c, "weights_feature", wf)
	if err != nil {
		return err
	}
	wtS, wtZP, err := perTensor(c, "weights_time", wt)
	if err != nil {
		return err
	}
	bS, bZP, err := perTensor(c, "bias", bias)
	if err != nil {
		return err
	}
	stS, stZP, err := perTensor(c, "activation state", state)
	if err != nil {
		return err
	}
	outS, outZP, err := perTensor(c, "output", out)
	if err != nil {
		return err
	}
	// TFLM ignores these zero points (it assumes symmetric weights and bias).
	if wfZP != 0 || wtZP != 0 || bZP != 0 {
		return c.Errorf("weights and bias need zero point 0 (weights_feature %d, weights_time %d, bias %d)", wfZP, wtZP, bZP)
	}
	if inZP < -128 || inZP > 127 || outZP < -128 || outZP > 127 {
		return c.Errorf("zero points out of int8 range (input %d, output %d)", inZP, outZP)
	}
	stMin, stMax := int64(math.MinInt8), int64(math.MaxInt8)
	if state.Type == model.Int16 {
		stMin, stMax = math.MinInt16, math.MaxInt16
	}
	if stZP < stMin || stZP > stMax {
		return c.Errorf("activation state zero point %d out of %s range", stZP, state.Type)
	}
	// TFLM's check that the bias scale is state*weights_time scale.
	if d := math.Abs(float64(bS) - float64(stS*wtS)); !(d < 1e-5) {
		return c.Errorf("bias scale %g differs from activation state scale * weights_time scale %g", bS, stS*wtS)
	}
	sc, err := svdfQuantScales(inS, wfS, wtS, stS, outS)
	if err != nil {
		return c.Errorf("%v", err)
	}

	q1, err := fcMakeRQ(c, sc.mult1, sc.shift1)
	if err != nil {
		return err
	}
	q2, err := fcMakeRQ(c, sc.mult2, sc.shift2)
	if err != nil {
		return err
	}
	// weights_feature is packed like FULLY_CONNECTED's, for octDot (one
	// byte per weight).
	k := sh.inputSize
	wfPacked := c.Const("FeatureWeights", octPack(sh.numFilters, k, func(r int) []byte { return wf.Data[r*k : r*k+k] }))
	// The fast kernels read the shapes and the state zero point only.
	shapes := []Field{
		F("batch", Int(sh.batch)), F("inputSize", Int(sh.inputSize)),
		F("numFilters", Int(sh.numFilters)), F("rank", Int(sh.rank)),
		F("numUnits", Int(sh.numUnits)), F("memory", Int(sh.memory)),
		F("stateZP", I32(int32(stZP))),
	}
	p := Struct(kernelsig.SvdfParams, append(shapes[:len(shapes):len(shapes)],
		F("outZP", I32(int32(outZP))),
		F("mult1", I32(q1.mult)), F("half1", I32(q1.half)), F("lsh1", Int(int(q1.lsh))), F("rsh1", Int(int(q1.rsh))),
		F("mult2", I32(q2.mult)), F("half2", I32(q2.half)), F("lsh2", Int(int(q2.lsh))), F("rsh2", Int(int(q2.rsh))),
		F("octW", Bool(true)),
	)...)
	// The zero points are folded into per-filter and per-unit constants
	// (kernels/svdf.go).
	fb, tb := svdfFoldBiases(sh, wf, wt, bias, int32(inZP), int32(stZP))
	// The fused activation is ignored, as in TFLM's integer kernel (the
	// output is only clamped to int8).
	fn := kernelsig.SvdfInt8x8
	if wt.Type == model.Int16 {
		fn = kernelsig.SvdfInt8x16
		// svdfInt8x16 rescales the feature sums eight filters at a time.
		fb = append(fb, make([]int32, (-len(fb))&7)...)
	}
	// The fast kernels' plan, made here with the kernels' code
	// (kernelsig.PlanSVDF): they then get its records and test nothing.
	rf, rt, fast := kernelsig.PlanSVDF(wt.Type == model.Int16, sh.rank, sh.memory, sh.numFilters, sh.numUnits, int32(outZP),
		q1.mult, q1.lsh, q1.rsh, q2.mult, q2.lsh, q2.rsh)
	if !fast {
		words := kernelsig.SVDFInt8x8Scratch
		if wt.Type == model.Int16 {
			words = kernelsig.SVDFInt8x16Scratch
		}
		c.Call(fn, p, View(in), wfPacked, c.ConstI32("FeatureBias", fb), Str(wt), c.ConstI32("TimeBias", tb), View(state),
			c.Scratch(model.Int32, words), View(out))
		return nil
	}
	fq, err := rqOneStruct(c, rf)
	if err != nil {
		return err
	}
	tq, err := rqOneStruct(c, rt)
	if err != nil {
		return err
	}
	p = Struct(kernelsig.SvdfParams, shapes...)
	if c.Speed() && !c.Lean() {
		// -speed: the ring kernels (kernels/svdf_ring.go), with
		// weights_time's rows doubled (int16: twice, the second copy at
		// an odd offset) and the ring's position in a persistent int32.
		ring, ww := kernelsig.SvdfInt8x8Ring, svdfDoubleRows(wt.Data, sh.numFilters, sh.memory*wt.Type.Size())
		if wt.Type == model.Int16 {
			ring = kernelsig.SvdfInt8x16Ring
			ww = append(append(ww, 0), ww...)
		}
		// The biases four times, one copy word-aligned.
		fb4, tb4 := phase4(int32Bytes(fb[:sh.numFilters])), phase4(int32Bytes(tb))
		pos := c.Persistent(model.Int32, 1)
		c.Call(ring, p, fq, tq, View(in), wfPacked, c.Const("FeatureBiasRing", fb4), c.Const("TimeWeightsRing", ww), c.Const("TimeBiasRing", tb4), View(state), pos,
			c.Scratch(model.Int32, kernelsig.SVDFFastScratch), View(out))
		return nil
	}
	fn = kernelsig.SvdfInt8x8Fast
	if wt.Type == model.Int16 {
		fn = kernelsig.SvdfInt8x16Fast
	}
	c.Call(fn, p, fq, tq, View(in), wfPacked, c.ConstI32("FeatureBias", fb), Str(wt), c.ConstI32("TimeBias", tb), View(state),
		c.Scratch(model.Int32, kernelsig.SVDFFastScratch), View(out))
	return nil
}

// svdfDoubleRows returns n rows of rb bytes each, each written twice in a
// row (row || row).
func svdfDoubleRows(data []byte, n, rb int) []byte {
	out := make([]byte, 0, 2*n*rb)
	for r := 0; r < n; r++ {
		row := data[r*rb : (r+1)*rb]
		out = append(append(out, row...), row...)
	}
	return out
}

// svdfFoldBiases returns the integer kernels' folded constants: per filter
// -inZP * sum(weights_feature of the filter), and per unit the bias minus
// stZP * sum(weights_time of the unit's filters), in wrapping int32
// arithmetic (the kernels' accumulators wrap the same way).
func svdfFoldBiases(sh svdfShape, wf, wt, bias *model.Tensor, inZP, stZP int32) (fb, tb []int32) {
	fb = make([]int32, sh.numFilters)
	for f := range fb {
		var sum int32
		for _, b := range wf.Data[f*sh.inputSize : (f+1)*sh.inputSize] {
			sum += int32(int8(b))
		}
		fb[f] = -inZP * sum
	}
	tb = make([]int32, sh.numUnits)
	for u := range tb {
		var sum int32
		for f := u * sh.rank; f < (u+1)*sh.rank; f++ {
			for j := 0; j < sh.memory; j++ {
				k := f*sh.memory + j
				if wt.Type == model.Int16 {
					sum += int32(int16(binary.LittleEndian.Uint16(wt.Data[2*k:])))
				} else {
					sum += int32(int8(wt.Data[k]))
				}
			}
		}
		tb[u] = int32(binary.LittleEndian.Uint32(bias.Data[4*u:])) - stZP*sum
	}
	return fb, tb
}

// lowerSVDFFloat emits svdfFloat.
func lowerSVDFFloat(c *opCtx, sh svdfShape, act quant.Activation, in, wf, wt, bias, state, out *model.Tensor) error {
	for _, x := range []struct {
		what string
		t    *model.Tensor
	}{{"weights_feature", wf}, {"weights_time", wt}, {"bias", bias}, {"activation state", state}, {"output", out}} {
		if x.t == nil {
			continue
		}
		if x.t.Type != model.Float32 {
			return c.Errorf("%s %s: want float32 with a float32 input (hybrid SVDF is not supported)", x.what, x.t.Describe())
		}
	}
	for _, x := range []struct {
		what string
		t    *model.Tensor
	}{{"weights_feature", wf}, {"weights_time", wt}, {"bias", bias}} {
		if x.t != nil && !x.t.IsConst() {
			return c.Errorf("%s %s: non-constant weights are not supported", x.what, x.t.Describe())
		}
	}
	lo, hi, err := c.actRangeFloat(act)
	if err != nil {
		return err
	}
	p := Struct(kernelsig.SvdfFloatParams,
		F("batch", Int(sh.batch)), F("inputSize", Int(sh.inputSize)),
		F("numFilters", Int(sh.numFilters)), F("rank", Int(sh.rank)),
		F("numUnits", Int(sh.numUnits)), F("memory", Int(sh.memory)),
		F("actMin", F32(lo)), F("actMax", F32(hi)),
	)
	var b Arg
	if bias != nil {
		b = Str(bias)
	} else {
		// TFLM starts the sums at 0.0f without a bias: the same as a zero bias.
		b = c.ConstF32("SvdfBias", make([]float32, sh.numUnits))
	}
	c.Call(kernelsig.SvdfFloat, p, View(in), Str(wf), Str(wt), b, View(state), View(out))
	return nil
}

// svdfMACs: the feature FC and the time filters, per batch.
func svdfMACs(g *model.Graph, op *model.Op) int64 {
	wf := dims64(g.Input(op, 1)) // [filters, inputSize]
	wt := dims64(g.Input(op, 2)) // [filters, memory]
	if len(wf) != 2 || len(wt) != 2 || wf[1] <= 0 {
		return 0
	}
	batch := elems64(g.Input(op, 0)) / wf[1]
	return batch * (wf[0]*wf[1] + wt[0]*wt[1])
}

// svdfTFLMScratch: TFLM's kernel requests the filters' activations (and,
// quantized, the units' sums).
func svdfTFLMScratch(g *model.Graph, op *model.Op) []int {
	x, wf := g.Input(op, 0), g.Input(op, 1)
	batch, filters := dimOf(x, 0), dimOf(wf, 0)
	if x == nil || x.Type == model.Float32 {
		return []int{batch * filters * 4}
	}
	// An absent rank counts as 1 here (the lowering refuses it, but this
	// also runs for operators that are not lowered: offline plans).
	rank := int(op.Options().SVDFOr(model.SVDFOptions{Rank: 1}).Rank)
	units := 0
	if rank > 0 {
		units = filters / rank
	}
	return []int{batch * filters * 4, batch * units * 4}
}
