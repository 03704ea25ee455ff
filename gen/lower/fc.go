package lower

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/internal/quant"
)

func init() { register(model.OpFullyConnected, lowerFullyConnected, ownBuffer, withMACs(fcMACs)) }

// fcPerTensor returns the scale and zero point of a per-tensor quantized
// tensor.
func fcPerTensor(c *opCtx, t *model.Tensor, what string) (float32, int32, error) {
	if t.Quant == nil || len(t.Quant.Scale) != 1 || len(t.Quant.ZeroPoint) != 1 {
		return 0, 0, c.Errorf("%s %s: want per-tensor quantization", what, t.Describe())
	}
	return t.Quant.Scale[0], int32(t.Quant.ZeroPoint[0]), nil
}

// lowerFullyConnected lowers FULLY_CONNECTED as TFLite Micro's
// fully_connected.cc does: float32; int8 with int8 weights (per-tensor or
// per-channel along the output dimension) and an int32 bias; int16
// activations with int8 weights and an int64 bias (64-bit accumulator) or an
// int32 bias (32-bit accumulator, also chosen by quantized_bias_type INT32
// when the bias is omitted).
//
// Inputs: 0 input (any shape; rows = elements / weight columns), 1 weights
// [units, depth] (constant), 2 bias [units] (optional). Options: fused
// activation, weights_format (only DEFAULT), keep_num_dims (only shapes
// the output, which is taken as given), asymmetric_quantize_inputs (hybrid
// kernels only, which TFLM does not have), quantized_bias_type.
//
// The output's last dimension is the number of units and its other
// dimensions the rows, as in the reference. For integer kernels the input
// zero point is folded into the bias here (see kernels/fully_connected.go),
// so the kernels compute plain dot products.
func lowerFullyConnected(c *opCtx) error {
	if c.NumIn() < 2 || c.NumIn() > 3 || c.NumOut() != 1 {
		return c.Errorf("has %d inputs and %d outputs, want 2 or 3 and 1", c.NumIn(), c.NumOut())
	}
	in, w, bias, out := c.In(0), c.In(1), c.In(2), c.Out(0)
	if in == nil || w == nil {
		return c.Errorf("input and weights are required")
	}
	o := c.Op.Options()
	// keep_num_dims is reflected in the output shape;
	// asymmetric_quantize_inputs is for hybrid kernels only.
	opt := o.FullyConnected()
	act := quant.Activation(opt.FusedActivationFunction)
	format := opt.WeightsFormat
	biasType := model.DType(opt.QuantizedBiasType)
	if err := o.Err(); err != nil {
		return c.Errorf("%v", err)
	}
	if format != 0 {
		return c.Errorf("weights format %d is not supported (only DEFAULT)", format)
	}
	if !w.IsConst() {
		return c.Errorf("weights %s must be a constant", w.Describe())
	}
	if len(w.Shape) != 2 {
		return c.Errorf("weights %s: want 2 dimensions [units, depth]", w.Describe())
	}
	units, depth := w.Shape[0], w.Shape[1]
	if len(out.Shape) < 1 || out.Shape[len(out.Shape)-1] != units {
		return c.Errorf("output %s: last dimension must be the %d units", out.Describe(), units)
	}
	if units < 1 || depth < 1 {
		return c.Errorf("weights %s are empty", w.Describe())
	}
	rows := out.NumElements() / units
	if in.NumElements() != rows*depth {
		return c.Errorf("input %s has %d elements, want %d rows of %d", in.Describe(), in.NumElements(), rows, depth)
	}
	if in.Type != out.Type {
		return c.Errorf("input %s and output %s types differ", in.Describe(), out.Describe())
	}
	if bias != nil {
		if !bias.IsConst() {
			return c.Errorf("bias %s must be a constant", bias.Describe())
		}
		if bias.NumElements() != units {
			return c.Errorf("bias %s: want %d elements", bias.Describe(), units)
		}
	}
	params := []Field{F("batches", Int(rows)), F("outDepth", Int(units)), F("accumDepth", Int(depth))}

	switch in.Type {
	case model.Float32:
		if w.Type != model.Float32 {
			return c.Errorf("weights %s: want float32 with a float32 input", w.Describe())
		}
		lo, hi, err := c.actRangeFloat(act)
		if err != nil {
			return err
		}
		b := c.Const("NoBias", []byte{})
		if bias != nil {
			if bias.Type != model.Float32 {
				return c.Errorf("bias %s: want float32", bias.Describe())
			}
			b = Str(bias)
		}
		params = append(params, F("fActMin", F32(lo)), F("fActMax", F32(hi)))
		// A constant data input (TFLM accepts one) is copied to scratch.
		inArg, err := ewOperand(c, in)
		if err != nil {
			return err
		}
		if c.DSP() && c.Speed() && depth >= kernelsig.FCBFPMinDepth {
			// Float32 is emulated on the board: with -speed, block
			// floating point dot products (kernels/bfp.go), the same bits
			// on every target. Their scratch (an input row's significands)
			// would make them a fast variant for variant.Choose to weigh
			// layer by layer, which on a network of a hundred float FCs
			// costs more than the second of generation time allows.
			var bb []byte
			if bias != nil {
				bb = bias.Data
			}
			if wt, rec, ok := kernelsig.PlanFCF32BFP(w.Data, bb, units, depth); ok {
				c.Because(kernelsig.FcF32BFP, "-speed on the soft-float board, depth %d of at least %d, finite weights: block floating point", depth, kernelsig.FCBFPMinDepth)
				c.Call(kernelsig.FcF32BFP, Struct(kernelsig.FcParams, params...), inArg,
					c.Scratch(model.Int32, 8+depth), c.Const("Weights", wt), c.Const("Rec", rec), View(out))
				return nil
			}
		}
		packed := c.Const("Weights", fcPackF32(w.Data, units, depth))
		fn := kernelsig.FcF32
		c.Because(kernelsig.FcF32, "depth %d, below %d", depth, kernelsig.FCSoftMinDepth)
		switch {
		case depth >= kernelsig.FCSoftMinDepth:
			fn = kernelsig.FcF32S // emulated float32 repays its set-up on deep layers
			c.Because(fn, "depth %d of at least %d: emulated float32 repays its set-up", depth, kernelsig.FCSoftMinDepth)
		case c.DSP() && units*depth <= kernelsig.FCSmallWeights:
			// Float32 is emulated on the board: the loads hardly count,
			// the code does.
			fn = kernelsig.FcF32Small
			c.Because(fn, "the soft-float board, %d weights, at most %d: one compact loop a channel", units*depth, kernelsig.FCSmallWeights)
		}
		c.Call(fn, Struct(kernelsig.FcParams, params...), inArg, packed, b, View(out))
		return nil
	case model.Int8, model.Int16:
	default:
		return c.Errorf("input %s: type %s is not supported (float32, int8 or int16)", in.Describe(), in.Type)
	}

	if w.Type != model.Int8 {
		return c.Errorf("weights %s: want int8 with an %s input", w.Describe(), in.Type)
	}
	inS, inZP, err := fcPerTensor(c, in, "input")
	if err != nil {
		return err
	}
	outS, outZP, err := fcPerTensor(c, out, "output")
	if err != nil {
		return err
	}
	mult, shift, err := fcMultipliers(c, inS, outS, w, bias, units)
	if err != nil {
		return err
	}
	lo, hi, err := c.actRange(act, outS, outZP, in.Type)
	if err != nil {
		return err
	}
	params = append(params, F("outOffset", I32(outZP)), F("actMin", I32(lo)), F("actMax", I32(hi)))

	// Which accumulator TFLM uses: int32 for int8, and for int16 when the
	// bias (or the declared bias type, without a bias) is int32.
	wide := false
	if in.Type == model.Int16 {
		wide = bias == nil && biasType != model.Int32 || bias != nil && bias.Type == model.Int64
	}
	if bias != nil {
		want := model.Int32
		if wide {
			want = model.Int64
		}
		if bias.Type != want {
			return c.Errorf("bias %s: want %s", bias.Describe(), want)
		}
	}
	folded := fcFoldBias(w, bias, units, depth, inZP)
	p := Struct(kernelsig.FcParams, params...)
	switch {
	case in.Type == model.Int8:
		if fcLowerDSPInt8(c, params, w, folded, mult, shift, units, depth, outZP, lo, hi) {
			return nil
		}
		if ok, err := fcLowerRowsInt8(c, params, w, folded, mult, shift, units, depth, outZP, lo, hi); ok || err != nil {
			return err
		}
		fnPT, fn := kernelsig.FcOctInt8PT, kernelsig.FcOctInt8
		notDSP := "the build for gc"
		if c.DSP() {
			notDSP = "the DSP records do not take it (a depth not a multiple of 4, or a requantization they would not compute exactly)"
		}
		c.Because(kernelsig.FcOctInt8PT, "%s; one requantization for every unit, blocks of eight units", notDSP)
		c.Because(kernelsig.FcOctInt8PTQ, "%s; one requantization for every unit, exact as one multiply (PlanRQOne), blocks of eight units", notDSP)
		c.Because(kernelsig.FcOctInt8, "%s; a requantization per unit, blocks of eight units", notDSP)
		c.Because(kernelsig.FcInt8PT, "%s; one requantization for every unit; units or depth too few for blocks of eight", notDSP)
		c.Because(kernelsig.FcInt8, "%s; a requantization per unit; units or depth too few for blocks of eight", notDSP)
		// The octDot kernels' scratch: a block's sums, which its
		// assembly stores to memory (kernels/dsp_oct_arm.go).
		var packed, scr Arg
		if fcOctWastes(units, depth) || depth < 4 {
			// Rows shorter than the DSP loop's group of four columns
			// gain nothing from it, and its 32 bytes of scratch can
			// be the layer's peak (hello_world_int8's first layer, one
			// input: twice TFLM's arena).
			fnPT, fn = kernelsig.FcInt8PT, kernelsig.FcInt8
			packed = c.Const("Weights", fcPackI8(w.Data, units, depth))
		} else {
			packed = c.Const("Weights", octPack(units, depth, func(r int) []byte { return w.Data[r*depth : r*depth+depth] }))
			scr = c.Scratch(model.Int32, kernelsig.FCOctScratch)
		}
		if fcUniform(mult, shift) {
			q, err := fcMakeRQ(c, mult[0], int(shift[0]))
			if err != nil {
				return err
			}
			// The one-multiply requantization, planned here when it is
			// exact: the kernel then tests nothing at run time, and its
			// parameters are the shapes (params' first three) and the
			// record.
			var rq Arg
			if fnPT == kernelsig.FcOctInt8PT {
				if rq, err = rqOneArg(c, q.mult, q.lsh, q.rsh, outZP, lo, hi); err != nil {
					return err
				}
			}
			ps := params[:3:3]
			if rq != nil {
				fnPT = kernelsig.FcOctInt8PTQ
			} else {
				ps = append(params, F("mult", I32(q.mult)), F("lsh", Int(int(q.lsh))), F("rsh", Int(int(q.rsh))), F("half", I32(q.half)))
			}
			var bias Arg
			if fnPT != kernelsig.FcInt8PT && c.Speed() {
				// -speed: the biases four times, one copy word-aligned.
				ps = append(ps, F("bias4", Bool(true)))
				bias = c.Const("Bias4", phase4(int32Bytes(fcTrunc32(folded))))
			} else {
				bias = c.ConstI32("Bias", fcTrunc32(folded))
			}
			args := []Arg{Struct(kernelsig.FcParams, ps...), View(in), packed, bias}
			if rq != nil {
				args = append(args, rq)
			}
			if scr != nil {
				args = append(args, scr)
			}
			c.Call(fnPT, append(args, View(out))...)
			return nil
		}
		tab, err := fcRQTable(c, fcTrunc32(folded), mult, shift)
		if err != nil {
			return err
		}
		if scr != nil {
			c.Call(fn, p, View(in), packed, c.Const("RQ", tab), scr, View(out))
			return nil
		}
		c.Call(fn, p, View(in), packed, c.Const("RQ", tab), View(out))
	case wide:
		for i, sh := range shift {
			if sh >= 8 {
				return c.Errorf("unit %d: rescale exponent %d is too large for the 64-bit accumulator (input*weights/output scale >= 128)", i, sh)
			}
		}
		// A constant data input (TFLM accepts one) is copied to scratch.
		inArg, err := ewOperand(c, in)
		if err != nil {
			return err
		}
		if c.DSP() {
			// The DSP loop where its records take the requantization.
			if rec, ok := kernelsig.PlanFC16DSP(depth, folded, mult, shift, outZP, lo, hi); ok {
				c.Because(kernelsig.FcDSPInt16, "the DSP records take the requantization (PlanFC16DSP)")
				wt := kernelsig.PlanFC16DSPWeights(units, depth, func(j int) []byte { return w.Data[j*depth : j*depth+depth] })
				c.Call(kernelsig.FcDSPInt16, Struct(kernelsig.FcDSPParams, params[:3]...), inArg, c.Const("Weights", wt), c.Const("Rec", rec), View(out))
				return nil
			}
		}
		if !c.DSP() {
			if blocks, ok := kernelsig.PlanInt16Q(convOHWI(w.Data[:units*depth], units), folded, mult, shift, outZP, lo, hi); ok {
				c.Because(kernelsig.FcInt16Q, "the gc kernel set: every unit's sums fit in 32 bits (PlanInt16Q), the rescale one 32x32-bit multiply")
				c.Call(kernelsig.FcInt16Q, p, inArg, c.Const("Blocks", blocks), View(out))
				return nil
			}
		}
		c.Because(kernelsig.FcInt16Blocks, "%s", int16BlocksWhy(c))
		wt, rec := kernelsig.PlanInt16Blocks(convOHWI(w.Data[:units*depth], units), folded, mult, shift)
		c.Call(kernelsig.FcInt16Blocks, p, inArg, c.Const("Blocks", wt), c.Const("Rec", rec), View(out))
	default:
		// A constant data input (TFLM accepts one) is copied to scratch.
		inArg, err := ewOperand(c, in)
		if err != nil {
			return err
		}
		c.Call(kernelsig.FcInt16Acc32, p, inArg, View(w), c.ConstI32("Bias", fcTrunc32(folded)), c.ConstI32("Mult", mult), c.ConstI32("Shift", shift), View(out))
	}
	return nil
}

// fcLowerDSPInt8 emits fcDSPInt8 for an int8 layer (per-tensor or
// per-channel weights) where the DSP kernels are allowed and the kernel
// takes it (kernelsig.PlanFCDSP: a depth that is a multiple of four, and a
// requantization its records compute exactly), and reports whether it did.
// params are the layer's fcParams fields, batches, outDepth and
// accumDepth first (fcDSPParams' fields).
func fcLowerDSPInt8(c *opCtx, params []Field, w *model.Tensor, folded []int64, mult, shift []int32, units, depth int, outZP, lo, hi int32) bool {
	if !c.DSP() {
		return false
	}
	b := fcTrunc32(folded)
	triples := make([]int32, 0, 3*units)
	for u := range units {
		triples = append(triples, b[u], mult[u], shift[u])
	}
	wt, rec, ok := kernelsig.PlanFCDSP(units, depth, func(j int) []byte { return w.Data[j*depth : j*depth+depth] }, int32Bytes(triples), outZP, lo, hi)
	if !ok {
		return false
	}
	// One input row by four channels at a time, the sums requantized with
	// the planned records: no scratch.
	c.Because(kernelsig.FcDSPInt8, "depth %d, a multiple of 4; the DSP records exact (PlanFCDSP)", depth)
	c.Call(kernelsig.FcDSPInt8, Struct(kernelsig.FcDSPParams, params[:3]...), View(c.In(0)), c.Const("Weights", wt), c.Const("Rec", rec), View(c.Out(0)))
	return true
}

// fcRowsWins reports whether the build for gc takes the fcRows kernels
// (blocks of up to six units, none padded) for a layer of units outputs
// rather than fcOctInt8's blocks of eight: when the blocks of eight would
// compute more than 5% more rows than there are units. Measured under gc
// for 32-bit ARM, a block of eight costs about 2.16 instructions a
// multiply-accumulate, the fcRows blocks about 2.25-2.3 (fewer accumulators
// share an activation load): 10 units ran in 0.55-0.71 of the
// instructions of fcOctInt8PTQ or fcInt8PT, 32 units 1% slower.
func fcRowsWins(units int) bool {
	return 20*((units+7)/8*8-units) > units
}

// fcLowerRowsInt8 emits fcRowsInt8Q (one requantization for every unit,
// exact as one multiply) or fcRowsInt8 for an int8 layer in the build for
// gc when blocks of eight units would pad too many (fcRowsWins) or its
// rows are shorter than four inputs, and reports whether it did.
func fcLowerRowsInt8(c *opCtx, params []Field, w *model.Tensor, folded []int64, mult, shift []int32, units, depth int, outZP, lo, hi int32) (bool, error) {
	if c.DSP() || !fcRowsWins(units) && depth >= 4 {
		return false, nil
	}
	why := fmt.Sprintf("%d units, which blocks of eight would pad by more than 5%%", units)
	if !fcRowsWins(units) {
		why = fmt.Sprintf("rows of %d inputs, fewer than a group of four of the blocks of eight", depth)
	}
	packed := c.Const("Weights", fcPackRows(w.Data, units, depth))
	b := fcTrunc32(folded)
	if fcUniform(mult, shift) {
		q, err := fcMakeRQ(c, mult[0], int(shift[0]))
		if err != nil {
			return false, err
		}
		rq, err := rqOneArg(c, q.mult, q.lsh, q.rsh, outZP, lo, hi)
		if err != nil {
			return false, err
		}
		if rq != nil {
			c.Because(kernelsig.FcRowsInt8Q, "the build for gc, %s: blocks of up to six units, none padded; one requantization exact as one multiply (PlanRQOne)", why)
			c.Call(kernelsig.FcRowsInt8Q, Struct(kernelsig.FcParams, params[:3]...), View(c.In(0)), packed, c.ConstI32("Bias", b), rq, View(c.Out(0)))
			return true, nil
		}
	}
	tab, err := fcRQTable(c, b, mult, shift)
	if err != nil {
		return false, err
	}
	c.Because(kernelsig.FcRowsInt8, "the build for gc, %s: blocks of up to six units, none padded; a requantization record per unit", why)
	c.Call(kernelsig.FcRowsInt8, Struct(kernelsig.FcParams, params...), View(c.In(0)), packed, c.Const("RQ", tab), View(c.Out(0)))
	return true, nil
}

// fcPackRows re-lays-out an int8 weight matrix [n][k] for the fcRows
// kernels (kernels/fc_rows.go): the blocks of kernels' fcRowsBlocks (n/nb
// or n/nb+1 rows, nb = ceil(n/6), the larger first), each [k][m] signed
// bytes (the block's m weights of input element d side by side).
func fcPackRows(data []byte, n, k int) []byte {
	nb := (n + 5) / 6
	base, rem := n/nb, n%nb
	out := make([]byte, 0, n*k)
	c := 0
	for i := 0; i < nb; i++ {
		m := base
		if i < rem {
			m++
		}
		for d := 0; d < k; d++ {
			for r := c; r < c+m; r++ {
				out = append(out, data[r*k+d])
			}
		}
		c += m
	}
	return out
}

// fcMultipliers computes the output multipliers and exponents as TFLM's
// CalculateOpDataFullyConnected: per-tensor weights use
// GetQuantizedConvolutionMultipler (input*weights scale product in float,
// then divided in double; with a bias, its scale must be within 2% of an
// output step of that product), per-channel weights
// input*weights[i]/output in double. The result has one entry per unit.
func fcMultipliers(c *opCtx, inS, outS float32, w, bias *model.Tensor, units int) (mult, shift []int32, err error) {
	q := w.Quant
	if q == nil || len(q.Scale) == 0 {
		return nil, nil, c.Errorf("weights %s are not quantized", w.Describe())
	}
	for _, zp := range q.ZeroPoint {
		if zp != 0 {
			return nil, nil, c.Errorf("weights %s have zero point %d; TFLite Micro requires symmetric weights", w.Describe(), zp)
		}
	}
	mult = make([]int32, units)
	shift = make([]int32, units)
	if len(q.Scale) > 1 {
		if len(q.Scale) != units || q.Axis != 0 {
			return nil, nil, c.Errorf("weights %s: per-channel quantization must have %d scales along axis 0", w.Describe(), units)
		}
		for i, s := range q.Scale {
			m, sh, err := quant.CheckedMultiplier(float64(inS) * float64(s) / float64(outS))
			if err != nil {
				return nil, nil, c.Errorf("weights %s: unit %d: %v", w.Describe(), i, err)
			}
			mult[i], shift[i] = m, int32(sh)
		}
		return mult, shift, nil
	}
	if bias != nil {
		var bs float64
		if bias.Quant != nil && len(bias.Quant.Scale) > 0 {
			bs = float64(bias.Quant.Scale[0])
		}
		prod := float64(inS) * float64(q.Scale[0])
		if math.Abs(prod-bs)/float64(outS) > 0.02 {
			return nil, nil, c.Errorf("bias %s: scale %g differs from input*weights scale %g", bias.Describe(), bs, prod)
		}
	}
	m, sh, err := c.multiplier("output rescaling", float64(inS*q.Scale[0])/float64(outS))
	if err != nil {
		return nil, nil, err
	}
	for i := range mult {
		mult[i], shift[i] = m, int32(sh)
	}
	return mult, shift, nil
}

// fcFoldBias returns, per unit, bias - inputZeroPoint * sum(weights of the
// unit): the part of sum(w * (x - zp)) that does not depend on the input.
func fcFoldBias(w, bias *model.Tensor, units, depth int, inZP int32) []int64 {
	out := make([]int64, units)
	for u := range out {
		var sum int64
		for _, b := range w.Data[u*depth : (u+1)*depth] {
			sum += int64(int8(b))
		}
		var b int64
		switch {
		case bias == nil:
		case bias.Type == model.Int64:
			b = int64(binary.LittleEndian.Uint64(bias.Data[8*u:]))
		default:
			b = int64(int32(binary.LittleEndian.Uint32(bias.Data[4*u:])))
		}
		out[u] = b - int64(inZP)*sum
	}
	return out
}

// fcTrunc32 truncates to 32 bits: the 32-bit accumulators wrap, so the
// folded bias only matters modulo 2^32.
func fcTrunc32(v []int64) []int32 {
	out := make([]int32, len(v))
	for i, x := range v {
		out[i] = int32(x)
	}
	return out
}

// fcRQ is the generation-time form of one requantization (kernels/fc_rq.go):
// multiplier, left shift, 31 + right shift and the rounding half 2^(r-1).
type fcRQ struct {
	mult     int32
	lsh, rsh uint8
	half     int32
}

// fcMakeRQ converts a multiplier and exponent (quant.Multiplier) into the
// kernels' fcRQ form. Exponents above 30 would shift the whole accumulator
// out of 32 bits and are rejected.
func fcMakeRQ(c *opCtx, m int32, shift int) (fcRQ, error) {
	if shift > 30 || shift < -31 || m < 0 {
		return fcRQ{}, c.Errorf("requantization exponent %d (multiplier %d) is out of range", shift, m)
	}
	q := fcRQ{mult: m, rsh: 31}
	if shift > 0 {
		q.lsh = uint8(shift)
	} else if shift < 0 {
		q.rsh = uint8(31 - shift)
		q.half = 1 << (-shift - 1)
	}
	return q, nil
}

// fcRQTable encodes one 16-byte record per channel for kernels/fc_rq.go's
// fcRecord: folded bias, multiplier, rounding half, left shift, 31 + right
// shift, two zero bytes.
func fcRQTable(c *opCtx, bias, mult, shift []int32) ([]byte, error) {
	tab := make([]byte, 0, 16*len(bias))
	for i := range bias {
		q, err := fcMakeRQ(c, mult[i], int(shift[i]))
		if err != nil {
			return nil, err
		}
		tab = binary.LittleEndian.AppendUint32(tab, uint32(bias[i]))
		tab = binary.LittleEndian.AppendUint32(tab, uint32(q.mult))
		tab = binary.LittleEndian.AppendUint32(tab, uint32(q.half))
		tab = append(tab, q.lsh, q.rsh, 0, 0)
	}
	return tab, nil
}

// fcUniform reports whether every channel has the same multiplier and
// shift (per-tensor weights, or per-channel scales that happen to agree).
func fcUniform(mult, shift []int32) bool {
	for i := range mult {
		if mult[i] != mult[0] || shift[i] != shift[0] {
			return false
		}
	}
	return true
}

// fcPackF32 re-lays-out a float32 weight matrix [n][k] (little-endian
// bytes) for kernels/fully_connected.go's fcF32: blocks of 4 channels, each
// [k][4] values, the last block padded with zero rows.
func fcPackF32(data []byte, n, k int) []byte {
	out := make([]byte, 0, (n+3)/4*4*k*4)
	for c := 0; c < n; c += 4 {
		for i := 0; i < k; i++ {
			for r := c; r < c+4; r++ {
				if r >= n {
					out = append(out, 0, 0, 0, 0)
					continue
				}
				out = append(out, data[4*(r*k+i):4*(r*k+i)+4]...)
			}
		}
	}
	return out
}

// octPack re-lays-out n rows of k int8 weights (row(r) returns row r) for
// kernels/oct.go's octDot: blocks of eight rows, the last padded with zero
// rows, each by groups of four columns [k/4][8][4] (the eight rows' four
// weights side by side, as the DSP loop's word loads take them), then the
// last k%4 columns as [8][k%4], every weight stored as w^0x80 (w+128);
// then octPad (4) zero bytes that the kernels' last loads may reach.
func octPack(n, k int, row func(r int) []byte) []byte {
	out := make([]byte, 0, (n+7)/8*8*k+4)
	for c := 0; c < n; c += 8 {
		for g := 0; g < k; g += 4 {
			for r := c; r < c+8; r++ {
				for d := g; d < min(g+4, k); d++ {
					if r >= n {
						out = append(out, 0x80)
						continue
					}
					out = append(out, row(r)[d]^0x80)
				}
			}
		}
	}
	return append(out, 0, 0, 0, 0)
}

// fcOctWastes reports whether octPack's blocks of eight rows would pad a
// layer of units rows by more than a quarter of its weights and more than
// 1 KiB (micro_speech's 4-unit layer: twice its bytes): such layers take
// fcPackI8's blocks of four rows and the fcInt8 kernels instead, flash
// being what a microcontroller lacks.
func fcOctWastes(units, depth int) bool {
	waste := ((units+7)/8*8 - units) * depth
	return 4*waste > units*depth && waste > 1024
}

// fcPackI8 re-lays-out an int8 weight matrix [n][k] for the int8 kernels
// (see the layout comment in kernels/fully_connected.go): blocks of 4
// channels, the last padded with zero rows, each stored four inputs at a
// time as [k/4][4][4] followed by [k%4][4]; every weight stored as w+128.
func fcPackI8(data []byte, n, k int) []byte {
	at := func(r, i int) byte {
		if r >= n {
			return 128 // a zero weight
		}
		return data[r*k+i] + 128
	}
	out := make([]byte, 0, (n+3)/4*4*k)
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
	return out
}

// rqOneArg returns the one-multiply record of the kernels (kernelsig.PlanRQOne)
// for a requantization (multiplier, left shift, 31 + right shift) to an
// output with zero point zo clamped to [lo, hi], as a Struct argument, or
// nil when that form is not exact for every sum.
func rqOneArg(c *opCtx, mult int32, lsh, rsh uint8, zo, lo, hi int32) (Arg, error) {
	v, ok := kernelsig.PlanRQOne(mult, lsh, rsh, zo, lo, hi)
	if !ok {
		return nil, nil
	}
	return rqOneStruct(c, v)
}

// rqOneStruct returns a record of the kernels' rqOne, given by field
// (kernelsig.PlanRQOne, kernelsig.PlanSVDF), as a Struct argument.
func rqOneStruct(c *opCtx, v kernelsig.Record) (Arg, error) {
	params, _ := kernelsig.RqOne.Fields()
	fields := make([]Field, 0, len(params))
	for _, p := range params {
		x, ok := v[p.Name]
		if !ok {
			return nil, c.Errorf("internal error: the planned record has no field %s of %s", p.Name, kernelsig.RqOne)
		}
		fields = append(fields, F(p.Name, I64(x)))
	}
	if len(v) != len(fields) {
		return nil, c.Errorf("internal error: the planned record has %d fields, %s has %d", len(v), kernelsig.RqOne, len(fields))
	}
	return Struct(kernelsig.RqOne, fields...), nil
}

// fcMACs: each row of the input meets every weight.
func fcMACs(g *model.Graph, op *model.Op) int64 {
	w := dims64(g.Input(op, 1)) // [units, depth]
	if len(w) != 2 || w[1] <= 0 {
		return 0
	}
	return elems64(g.Input(op, 0)) / w[1] * w[0] * w[1]
}
