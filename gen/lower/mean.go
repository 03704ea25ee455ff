package lower

import (
	"encoding/binary"
	"math/bits"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

func init() { register(model.OpMean, lowerMean, ownBuffer, withTFLMScratch(reduceSumTFLMScratch)) }

// meanMaxLevels is the number of loop levels of the MEAN kernels.
const meanMaxLevels = 5

// meanLevels resolves the axes (negative values count from the end,
// repeats are ignored) and merges neighbouring dimensions that are both
// reduced or both kept. It returns, outermost first and padded at the front
// to meanMaxLevels with size-1 levels, each level's size and output stride
// (0 for reduced levels), the number of outputs and the number of input
// elements per output. ok is false for an axis out of range or when more
// than meanMaxLevels levels remain.
func meanLevels(shape []int, axes []int32) (dims, strides [meanMaxLevels]int, nOut, count int, ok bool) {
	reduced := make([]bool, len(shape))
	if len(shape) == 0 {
		axes = nil // a scalar: TFLM's ResolveAxis ignores the axes
	}
	for _, a := range axes {
		d := int(a)
		if d < 0 {
			d += len(shape)
		}
		if d < 0 || d >= len(shape) {
			return dims, strides, 0, 0, false
		}
		reduced[d] = true
	}
	var sizes []int
	var red []bool
	count = 1
	for d, n := range shape {
		if reduced[d] {
			count *= n
		}
		if len(sizes) > 0 && red[len(red)-1] == reduced[d] {
			sizes[len(sizes)-1] *= n
			continue
		}
		sizes = append(sizes, n)
		red = append(red, reduced[d])
	}
	if len(sizes) > meanMaxLevels {
		return dims, strides, 0, 0, false
	}
	for i := range dims {
		dims[i] = 1
	}
	nOut = 1
	for i := len(sizes) - 1; i >= 0; i-- {
		j := meanMaxLevels - len(sizes) + i
		dims[j] = sizes[i]
		if !red[i] {
			strides[j] = nOut
			nOut *= sizes[i]
		}
	}
	return dims, strides, nOut, count, true
}

// lowerMean lowers MEAN (TFLM reduce.cc) for float32, int8 and int16 over
// the constant axes of input 1. Option: keep_dims, which only
// shapes the output. Integer inputs are summed into an int32 scratch
// accumulator per output and requantized with the multiplier
// input/output scale adjusted for 1/count as QuantizedMeanOrSum does.
// TFLM's float special case (4-D, axes {1, 2}, keep_dims) sums in the same
// order as its general path, so one kernel serves both.
func lowerMean(c *opCtx) error {
	if c.NumIn() != 2 || c.NumOut() != 1 || c.In(0) == nil || c.In(1) == nil {
		return c.Errorf("has %d inputs and %d outputs, want 2 and 1", c.NumIn(), c.NumOut())
	}
	in, axis, out := c.In(0), c.In(1), c.Out(0)
	o := c.Op.Options()
	_ = o.Reducer() // keep_dims is reflected in the output shape
	if err := o.Err(); err != nil {
		return c.Errorf("%v", err)
	}
	if axis.Type != model.Int32 || !axis.IsConst() {
		return c.Errorf("axis %s must be a constant int32 tensor", axis.Describe())
	}
	axes := make([]int32, axis.NumElements())
	for i := range axes {
		axes[i] = int32(binary.LittleEndian.Uint32(axis.Data[4*i:]))
	}
	for _, n := range in.Shape {
		if n == 0 {
			return c.Errorf("input %s is empty", in.Describe())
		}
	}
	dims, strides, nOut, count, ok := meanLevels(in.Shape, axes)
	if !ok {
		return c.Errorf("axes %v of input %s are out of range or alternate too often (at most %d runs of reduced and kept dimensions)", axes, in.Describe(), meanMaxLevels)
	}
	if out.NumElements() != nOut {
		return c.Errorf("output %s: want %d elements", out.Describe(), nOut)
	}
	if in.Type != out.Type {
		return c.Errorf("input %s and output %s types differ", in.Describe(), out.Describe())
	}
	params := []Field{
		F("d0", Int(dims[0])), F("d1", Int(dims[1])), F("d2", Int(dims[2])), F("d3", Int(dims[3])), F("d4", Int(dims[4])),
		F("s0", Int(strides[0])), F("s1", Int(strides[1])), F("s2", Int(strides[2])), F("s3", Int(strides[3])), F("s4", Int(strides[4])),
		F("nOut", Int(nOut)),
	}
	var fn kernelsig.Func
	switch in.Type {
	case model.Float32:
		c.Call(kernelsig.MeanF32, Struct(kernelsig.MeanParams, append(params, F("count", F32(float32(count))))...), View(in), View(out))
		return nil
	case model.Int8:
		fn = kernelsig.MeanInt8
	case model.Int16:
		fn = kernelsig.MeanInt16
	default:
		return c.Errorf("input %s: type %s is not supported (float32, int8 or int16)", in.Describe(), in.Type)
	}
	for _, t := range []*model.Tensor{in, out} {
		if t.Quant == nil || len(t.Quant.Scale) != 1 || len(t.Quant.ZeroPoint) != 1 {
			return c.Errorf("%s needs per-tensor quantization", t.Describe())
		}
	}
	m, s, err := c.multiplier("input/output scale ratio", float64(in.Quant.Scale[0])/float64(out.Quant.Scale[0]))
	if err != nil {
		return err
	}
	// Fold 1/count into the multiplier, keeping the shift within
	// MultiplyByQuantizedMultiplier's range.
	sh := min(bits.Len64(uint64(count))-1, 32, 31+s)
	if sh < 0 {
		return c.Errorf("input/output scale ratio %g is too small", float64(in.Quant.Scale[0])/float64(out.Quant.Scale[0]))
	}
	m = int32((int64(m) << uint(sh)) / int64(count))
	s -= sh
	inZP := in.Quant.ZeroPoint[0]
	params = append(params, F("inZeroSum", I64(inZP*int64(count))), F("mult", I32(m)), F("shift", Int(s)),
		F("outOffset", I32(int32(out.Quant.ZeroPoint[0]))))
	c.Call(fn, Struct(kernelsig.MeanParams, params...), View(in), c.Scratch(model.Int32, nOut), View(out))
	return nil
}
