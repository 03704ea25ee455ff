package lower

import (
	"encoding/binary"
	"math"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/internal/quant"
)

func init() { register(model.OpSoftmax, lowerSoftmax, ownBuffer) }

// softmaxScaledDiffBits is the number of integer bits of the scaled input
// difference in the int8 kernels (Q5.26), as in TFLM.
const softmaxScaledDiffBits = 5

// lowerSoftmax lowers SOFTMAX over the last dimension (TFLM softmax.cc):
// float32; int8 input with int8 output (scale 1/256, zero point -128) or
// int16 output (scale 1/65536, zero point -32768); int16 input and output
// (zero points 0, output scale 1/32768). Option: beta (slot 0).
//
// The int8 kernels get the input multiplier, shift and diff_min of TFLM's
// PreprocessSoftmaxScaling and CalculateInputRadius, and an int32 scratch
// row for the exponentials. The int16 kernel gets the exp and 1/(1+x)
// lookup tables TFLM fills in Prepare, computed here.
func lowerSoftmax(c *opCtx) error {
	if c.NumIn() != 1 || c.NumOut() != 1 || c.In(0) == nil {
		return c.Errorf("has %d inputs and %d outputs, want 1 and 1", c.NumIn(), c.NumOut())
	}
	in, out := c.In(0), c.Out(0)
	o := c.Op.Options()
	beta := o.Softmax().Beta
	if err := o.Err(); err != nil {
		return c.Errorf("%v", err)
	}
	if len(in.Shape) < 1 || len(out.Shape) < 1 {
		return c.Errorf("input %s and output %s need at least one dimension", in.Describe(), out.Describe())
	}
	depth := in.Shape[len(in.Shape)-1]
	if depth < 1 || out.Shape[len(out.Shape)-1] != depth || out.NumElements() != in.NumElements() {
		return c.Errorf("input %s and output %s shapes differ", in.Describe(), out.Describe())
	}
	rows := in.NumElements() / depth
	params := []Field{F("outer", Int(rows)), F("depth", Int(depth))}

	if in.Type == model.Float32 {
		if out.Type != model.Float32 {
			return c.Errorf("output %s: want float32 with a float32 input", out.Describe())
		}
		if math.IsInf(float64(beta), 0) || math.IsNaN(float64(beta)) {
			return c.Errorf("beta %v is not finite", beta)
		}
		c.Call(kernelsig.SoftmaxF32, Struct(kernelsig.SoftmaxParams, append(params, F("beta", F32(beta)))...), View(in), View(out))
		return nil
	}
	if in.Type != model.Int8 && in.Type != model.Int16 {
		return c.Errorf("input %s: type %s is not supported (float32, int8 or int16)", in.Describe(), in.Type)
	}
	for _, t := range []*model.Tensor{in, out} {
		if t.Quant == nil || len(t.Quant.Scale) != 1 || len(t.Quant.ZeroPoint) != 1 {
			return c.Errorf("%s needs per-tensor quantization", t.Describe())
		}
	}
	inS := in.Quant.Scale[0]
	outS, outZP := out.Quant.Scale[0], out.Quant.ZeroPoint[0]

	if in.Type == model.Int16 {
		if out.Type != model.Int16 {
			return c.Errorf("output %s: want int16 with an int16 input", out.Describe())
		}
		if in.Quant.ZeroPoint[0] != 0 || outZP != 0 {
			return c.Errorf("int16 softmax needs zero points 0 (input %d, output %d)", in.Quant.ZeroPoint[0], outZP)
		}
		if !softmaxNear(outS, 1.0/32768) {
			return c.Errorf("output %s: scale %g, want 1/32768", out.Describe(), outS)
		}
		m, s, err := c.multiplier("beta times input scale", float64(inS)*float64(beta)/(10.0/65535.0))
		if err != nil {
			return err
		}
		const rng = 65535 // int16 max - int16 min
		expLUT := softmaxLUT(10.0/rng, 32767, 2.0/rng, 0, func(x float32) float32 {
			return float32(math.Exp(float64(x)))
		})
		recipLUT := softmaxLUT(1.0/rng, -32768, 2.0/rng, 0, func(x float32) float32 { return 1 / (1 + x) })
		params = append(params, F("inputMult", I32(m)), F("inputShift", Int(s)))
		c.Call(kernelsig.SoftmaxInt16, Struct(kernelsig.SoftmaxParams, params...), View(in), View(out),
			c.Const("ExpLUT", expLUT), c.Const("RecipLUT", recipLUT))
		return nil
	}

	fn := kernelsig.SoftmaxInt8
	switch out.Type {
	case model.Int8:
		if outZP != -128 || outS != 1.0/256 {
			return c.Errorf("output %s: int8 softmax output needs scale 1/256 and zero point -128", out.Describe())
		}
	case model.Int16:
		if outZP != -32768 || !softmaxNear(outS, 1.0/65536) {
			return c.Errorf("output %s: int16 output of an int8 softmax needs scale 1/65536 and zero point -32768", out.Describe())
		}
		fn = kernelsig.SoftmaxInt8Int16
	default:
		return c.Errorf("output %s: want int8 or int16 with an int8 input", out.Describe())
	}
	// PreprocessSoftmaxScaling: beta * input scale as a Q(5).26 multiplier
	// greater than one, capped at 2^31 - 1 (TFLM's
	// QuantizeMultiplierGreaterThanOne: the kernel applies the exponent as a
	// left shift of the small input difference, so exponents above 30 are
	// valid here and quant.CheckedMultiplier's limit does not apply).
	real := math.Min(float64(beta)*float64(inS)*(1<<(31-softmaxScaledDiffBits)), 1<<31-1.0)
	m, s := quant.Multiplier(real)
	if !(real > 1) || s < 0 {
		return c.Errorf("beta %g times input scale %g is too small for the int8 softmax", beta, inS)
	}
	// CalculateInputRadius: the largest difference that still rescales into
	// the Q5.26 range; smaller differences contribute nothing.
	radius := math.Floor(float64((1<<softmaxScaledDiffBits)-1) * (1 << (31 - softmaxScaledDiffBits)) / math.Ldexp(1, s))
	params = append(params, F("inputMult", I32(m)), F("inputShift", Int(s)), F("diffMin", I32(-int32(radius))))
	c.Call(fn, Struct(kernelsig.SoftmaxParams, params...), View(in), View(out), c.Scratch(model.Int32, depth))
	return nil
}

// softmaxNear is TF_LITE_ENSURE_NEAR(scale, want, 0.001 * want) in float.
func softmaxNear(scale, want float32) bool {
	d := scale - want
	if d < 0 {
		d = -d
	}
	return d <= 0.001*want
}

// softmaxLUT fills a 513-entry int16 table as TFLite's LUTPopulate<int16_t>
// does (float arithmetic): f sampled at 512 steps over the input range plus
// the end point, each sample corrected by half the error that linear
// interpolation makes at the step's midpoint. Products are converted to
// float32 explicitly so that they are never fused into multiply-adds.
func softmaxLUT(inScale float32, inZP int32, outScale float32, outZP int32, f func(float32) float32) []byte {
	inMin := inScale * float32(math.MinInt16-inZP)
	inMax := inScale * float32(math.MaxInt16-inZP)
	outMin := outScale * float32(math.MinInt16-outZP)
	outMax := outScale * float32(math.MaxInt16-outZP)
	step := (inMax - inMin) / 512
	half := step / 2
	inv := float32(65536) / (outMax - outMin)
	round := func(x float32) float32 { return float32(math.Round(float64(x))) }
	clamp := func(x float32) uint16 { return uint16(int16(min(max(x, math.MinInt16), math.MaxInt16))) }
	b := make([]byte, 2*513)
	for i := 0; i < 512; i++ {
		x := inMin + float32(float32(i)*step)
		val := f(x)
		mid := f(x + half)
		next := f(inMin + float32(float32(i+1)*step))
		sample := round(float32(val * inv))
		interp := round((float32(next*inv) + sample) / 2)
		bias := round((interp - round(float32(mid*inv))) / 2)
		binary.LittleEndian.PutUint16(b[2*i:], clamp(sample-bias))
	}
	binary.LittleEndian.PutUint16(b[2*512:], clamp(round(float32(f(inMax)*inv))))
	return b
}
