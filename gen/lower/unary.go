package lower

import (
	"math"
	"math/bits"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// Lowerings of the elementwise unary operators whose reference results are
// exact (kernels/unary.go), following TFLite Micro's elementwise.cc (ABS,
// SQRT, RSQRT, SQUARE, LOGICAL_NOT) and neg.cc (NEG). SIN, COS, LOG and
// EXP, whose C library results Go reproduces within an ulp or two rather
// than bit for bit, are in math.go. Quantized RSQRT (int8) is a 256-entry
// table computed with TFLM's fixed-point arithmetic (rsqrtInt8Table).

func init() {
	register(model.OpAbs, lowerAbs, elementwise)
	register(model.OpNeg, lowerFloatUnary(kernelsig.NegF32), elementwise)
	register(model.OpSqrt, lowerFloatUnary(kernelsig.SqrtF32), elementwise)
	register(model.OpRsqrt, lowerRsqrt, elementwise)
	register(model.OpSquare, lowerFloatUnary(kernelsig.SquareF32), elementwise)
	register(model.OpLogicalNot, lowerLogicalNot, elementwise)
}

// lowerFloatUnary lowers an operator TFLM runs for float32 only.
func lowerFloatUnary(fn kernelsig.Func) lowering {
	return func(c *opCtx) error {
		in, out, err := actUnary(c)
		if err != nil {
			return err
		}
		if in.Type != model.Float32 {
			return c.Errorf("type %s not supported (float32 only, as in TFLite Micro)", in.Type)
		}
		return actEmitUnary(c, noBand, fn, nil, in, out)
	}
}

func lowerLogicalNot(c *opCtx) error {
	in, out, err := actUnary(c)
	if err != nil {
		return err
	}
	if in.Type != model.Bool {
		return c.Errorf("type %s not supported (bool only)", in.Type)
	}
	return actEmitUnary(c, noBand, kernelsig.LogicalNot, nil, in, out)
}

// lowerAbs follows PrepareAbsRsqrt: float32 as is; int8, and int16 when it
// is quantized, as |x - zin| rescaled by in/out scale when the scales
// differ (int16: both zero points 0); int16 without quantization as |x|.
func lowerAbs(c *opCtx) error {
	in, out, err := actUnary(c)
	if err != nil {
		return err
	}
	switch {
	case in.Type == model.Float32:
		return actEmitUnary(c, noBand, kernelsig.AbsF32, nil, in, out)
	case in.Type == model.Int16 && in.Quant == nil:
		return actEmitUnary(c, noBand, kernelsig.AbsInt16Plain, nil, in, out)
	case in.Type != model.Int8 && in.Type != model.Int16:
		return c.Errorf("type %s not supported (float32, int8, int16)", in.Type)
	}
	si, so, zi, zo, err := actQuantPair(c, in, out)
	if err != nil {
		return err
	}
	if in.Type == model.Int16 && (zi != 0 || zo != 0) {
		return c.Errorf("int16 zero points must be 0, have %d and %d", zi, zo)
	}
	fields := []Field{F("inZP", I32(zi)), F("outZP", I32(zo))}
	if si != so {
		m, shift, err := quant.CheckedMultiplier(float64(si) / float64(so))
		if err != nil {
			return c.Errorf("%v", err)
		}
		fields = append(fields, F("mult", I32(m)), F("shift", Int(shift)), F("rescale", Bool(true)))
	}
	fn := kernelsig.AbsInt8
	if in.Type == model.Int16 {
		fn = kernelsig.AbsInt16
	}
	return actEmitUnary(c, noBand, fn, []Arg{Struct(kernelsig.AbsParams, fields...)}, in, out)
}

// lowerRsqrt lowers RSQRT: float32 as 1/sqrt(x), int8 through the table of
// rsqrtInt8Table (TFLM's PrepareAbsRsqrt accepts float32 and int8 only).
// TFLM's int8 Invoke fails on an input below its zero point (a negative
// real value); a run-time input cannot stop the generated Invoke, so such
// values take the table entry documented at rsqrtInt8Table, and a constant
// input holding one is refused.
func lowerRsqrt(c *opCtx) error {
	in, out, err := actUnary(c)
	if err != nil {
		return err
	}
	switch in.Type {
	case model.Float32:
		return actEmitUnary(c, noBand, kernelsig.RsqrtF32, nil, in, out)
	case model.Int8:
	default:
		return c.Errorf("type %s not supported (float32, int8)", in.Type)
	}
	si, so, zi, zo, err := actQuantPair(c, in, out)
	if err != nil {
		return err
	}
	if in.IsConst() {
		for _, b := range in.Data {
			if int32(int8(b)) < zi {
				return c.Errorf("constant input %s holds %d, below its zero point %d (TFLite Micro's Invoke fails on it)", in.Describe(), int8(b), zi)
			}
		}
	}
	// SetRsqrtOutputMultiplier: 1 / (sqrtf(si) * so) in double.
	m, shift := quant.Multiplier(1 / float64(float32(math.Sqrt(float64(si)))*so))
	if shift-rsqrtShift < -31 {
		return c.Errorf("output multiplier 1/(sqrt(%g) * %g) is too small (shift %d)", si, so, shift)
	}
	t := rsqrtInt8Table(m, shift, zi, zo)
	return actEmitUnary(c, unaryBand, kernelsig.LutInt8, []Arg{c.Const("RsqrtTab", t[:])}, in, out)
}

// rsqrtShift is the headroom TFLM's RsqrtEvalQuantized keeps in the
// intermediate 1/sqrt(x) (kShift).
const rsqrtShift = 20

// rsqrtInt8Table is TFLM's RsqrtEvalQuantized for every int8 input v,
// entry uint8(v): x = v - zi; x = 0 gives 127; otherwise 1/sqrt(x) as a
// multiplier and shift (GetInvSqrtQuantizedMultiplierExp, which treats
// every x <= 1 as 1) applied to 1 with 20 bits of headroom, rescaled by
// the output multiplier (m, shift) less those bits, moved to zo and
// clamped. Inputs below the zero point (x < 0), on which TFLM's Invoke
// fails, get the entry of x = 1, the value TFLM's arithmetic gives them
// without its check.
func rsqrtInt8Table(m int32, shift int, zi, zo int32) [256]byte {
	var t [256]byte
	for v := int32(-128); v < 128; v++ {
		x := v - zi
		r := int32(math.MaxInt8)
		if x != 0 {
			inv, invShift := rsqrtInvSqrt(x)
			data := rsqrtMulByQuant(1, inv, invShift+rsqrtShift)
			r = rsqrtMulByQuant(data, m, shift-rsqrtShift) + zo
		}
		t[uint8(v)] = byte(int8(min(max(r, math.MinInt8), math.MaxInt8)))
	}
	return t
}

// rsqrtMulByQuant is MultiplyByQuantizedMultiplier (double rounding); the
// left shift wraps as the reference's does in practice.
func rsqrtMulByQuant(x, m int32, shift int) int32 {
	left, right := max(shift, 0), max(-shift, 0)
	return actGenRDivPOT(actGenSRDHM(x*(int32(1)<<uint(left)), m), right)
}

// rsqrtInvSqrt is GetInvSqrtQuantizedMultiplierExp with kReverseShift (-1)
// for x < 2^29: 1/sqrt(x) by five Newton-Raphson steps in Q3.28 on x
// normalised to [2^27, 2^29) by an even shift, returned as a Q31
// multiplier and a left shift (<= 0). x <= 1 gives MaxInt32 and 0.
func rsqrtInvSqrt(x int32) (int32, int) {
	if x <= 1 {
		return math.MaxInt32, 0
	}
	shift := 11
	pairs := (bits.LeadingZeros32(uint32(x))-1)/2 - 1
	shift -= pairs
	x <<= uint(2 * pairs)
	in := x >> 1                 // Q3.28
	half := actGenRDivPOT(in, 1) // in / 2
	const halfThree = 1<<28 + 1<<27
	y := int32(1 << 28) // 1 in Q3.28
	for i := 0; i < 5; i++ {
		y3 := actGenShlSat(actGenSRDHM(actGenSRDHM(y, y), y), 6)
		y = actGenShlSat(actGenSRDHM(halfThree, y)-actGenSRDHM(half, y3), 3)
	}
	y = actGenSRDHM(y, 1518500250) // times sqrt(2)/2
	if shift < 0 {
		y <<= uint(-shift)
		shift = 0
	}
	return y, -shift
}
