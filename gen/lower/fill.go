package lower

import (
	"encoding/binary"
	"math"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// Operators that make tensors of a shape known at generation time, with no
// kernels of their own:
//
//   - ZEROS_LIKE (zeros_like.cc): int8, int32, int64, float32; the output
//     is filled with zero bytes (kernels.padFill).
//   - FILL (fill.cc): constant dims that must equal the output shape, a
//     scalar value of the output's type, float32, int32 or int8. A
//     constant value is written with padFill; a value that is a graph
//     input or computed is copied to every element (a strided copy with
//     source step 0).
//   - BROADCAST_TO (broadcast_to.cc): any type, up to 5-D, a constant
//     shape; one strided copy with step 0 along broadcast dimensions.
//   - BROADCAST_ARGS (broadcast_args.cc): the broadcast of two constant
//     int32 or int64 shapes, folded into a constant at generation time and
//     copied into the output (kernels.copyConst). Shapes computed at run
//     time are refused.

func init() {
	register(model.OpZerosLike, lowerZerosLike, ownBuffer)
	register(model.OpFill, lowerFill, ownBuffer)
	register(model.OpBroadcastTo, lowerBroadcastTo, ownBuffer)
	register(model.OpBroadcastArgs, lowerBroadcastArgs, ownBuffer)
}

func lowerZerosLike(c *opCtx) error {
	in, out, err := moveIO(c, 1, 1)
	if err != nil {
		return err
	}
	switch in.Type {
	case model.Int8, model.Int32, model.Int64, model.Float32:
	default:
		return c.Errorf("type %s is not supported (int8, int32, int64, float32)", in.Type)
	}
	if out.Type != in.Type {
		return c.Errorf("output type %s differs from input type %s", out.Type, in.Type)
	}
	if in.NumElements() != out.NumElements() {
		return c.Errorf("input %v and output %v differ in size", in.Shape, out.Shape)
	}
	if out.NumElements() > 0 {
		c.Call(kernelsig.PadFill, Bytes(out), I64(0), Int(out.Type.Size()))
	}
	return nil
}

// fillOutputDims checks that a constant 1-D integer tensor holds exactly
// the dimensions of shape (FILL's dims, BROADCAST_TO's shape).
func fillOutputDims(c *opCtx, what string, t *model.Tensor, shape []int, types ...model.DType) error {
	if t == nil {
		return c.Errorf("%s input is missing", what)
	}
	ok := false
	for _, dt := range types {
		ok = ok || t.Type == dt
	}
	if !ok {
		return c.Errorf("%s type %s is not supported (want %v)", what, t.Type, types)
	}
	if !t.IsConst() {
		return c.Errorf("%s must be constant (as TFLite Micro requires)", what)
	}
	if len(t.Shape) != 1 {
		return c.Errorf("%s must be 1-D, has shape %v", what, t.Shape)
	}
	v := fillConstInts(t)
	if len(v) != len(shape) {
		return c.Errorf("%s %v has %d values, the output %v has %d dimensions", what, v, len(v), shape, len(shape))
	}
	for i, d := range v {
		if d != int64(shape[i]) {
			return c.Errorf("%s %v does not match the output shape %v", what, v, shape)
		}
	}
	return nil
}

// fillConstInts reads a constant int8, int16, int32 or int64 tensor.
func fillConstInts(t *model.Tensor) []int64 {
	n := t.NumElements()
	v := make([]int64, n)
	for i := range v {
		switch t.Type {
		case model.Int8:
			v[i] = int64(int8(t.Data[i]))
		case model.Int16:
			v[i] = int64(int16(binary.LittleEndian.Uint16(t.Data[2*i:])))
		case model.Int32:
			v[i] = int64(int32(binary.LittleEndian.Uint32(t.Data[4*i:])))
		case model.Int64:
			v[i] = int64(binary.LittleEndian.Uint64(t.Data[8*i:]))
		}
	}
	return v
}

func lowerFill(c *opCtx) error {
	if c.NumIn() != 2 || c.NumOut() != 1 {
		return c.Errorf("want 2 inputs and 1 output, have %d and %d", c.NumIn(), c.NumOut())
	}
	dims, value, out := c.In(0), c.In(1), c.Out(0)
	if value == nil {
		return c.Errorf("value input is missing")
	}
	if len(value.Shape) != 0 {
		return c.Errorf("value must be a scalar, has shape %v", value.Shape)
	}
	if value.Type != out.Type {
		return c.Errorf("value type %s differs from output type %s", value.Type, out.Type)
	}
	if err := fillOutputDims(c, "dims", dims, out.Shape, model.Int8, model.Int16, model.Int32, model.Int64); err != nil {
		return err
	}
	switch value.Type {
	case model.Float32, model.Int32, model.Int8:
	default:
		return c.Errorf("type %s is not supported (float32, int32, int8)", value.Type)
	}
	n := out.NumElements()
	if n == 0 {
		return nil
	}
	if value.IsConst() {
		var bits int64
		switch value.Type {
		case model.Int8:
			bits = int64(value.Data[0])
		default:
			bits = int64(binary.LittleEndian.Uint32(value.Data))
		}
		c.Call(kernelsig.PadFill, Bytes(out), I64(bits), Int(out.Type.Size()))
		return nil
	}
	return emitMove(c, value, out, []int{n}, []int{0}, []int{1}, 0, 0)
}

// broadcastToMaxDims is TFLM's kMaxDims for BROADCAST_TO.
const broadcastToMaxDims = 5

func lowerBroadcastTo(c *opCtx) error {
	if c.NumIn() != 2 || c.NumOut() != 1 {
		return c.Errorf("want 2 inputs and 1 output, have %d and %d", c.NumIn(), c.NumOut())
	}
	in, out := c.In(0), c.Out(0)
	if in == nil {
		return c.Errorf("input 0 is missing")
	}
	if in.Type != out.Type {
		return c.Errorf("input type %s differs from output type %s", in.Type, out.Type)
	}
	if !moveTypeOK(in.Type) {
		return c.Errorf("type %s is not supported", in.Type)
	}
	if len(in.Shape) > broadcastToMaxDims || len(out.Shape) > broadcastToMaxDims {
		return c.Errorf("input %v or output %v has more than %d dimensions", in.Shape, out.Shape, broadcastToMaxDims)
	}
	if err := fillOutputDims(c, "shape", c.In(1), out.Shape, model.Int32, model.Int64); err != nil {
		return err
	}
	if len(in.Shape) > len(out.Shape) {
		return c.Errorf("input %v has more dimensions than the output %v", in.Shape, out.Shape)
	}
	ext := len(out.Shape) - len(in.Shape)
	inSt := moveStrides(in.Shape)
	src := make([]int, len(out.Shape))
	for i, d := range in.Shape {
		switch {
		case d == out.Shape[ext+i]:
			src[ext+i] = inSt[i]
		case d == 1:
		default:
			return c.Errorf("input %v does not broadcast to %v", in.Shape, out.Shape)
		}
	}
	if len(out.Shape) == 0 {
		return emitMove(c, in, out, []int{1}, []int{1}, []int{1}, 0, 0)
	}
	return emitMove(c, in, out, out.Shape, src, moveStrides(out.Shape), 0, 0)
}

func lowerBroadcastArgs(c *opCtx) error {
	if c.NumIn() != 2 || c.NumOut() != 1 {
		return c.Errorf("want 2 inputs and 1 output, have %d and %d", c.NumIn(), c.NumOut())
	}
	s1, s2, out := c.In(0), c.In(1), c.Out(0)
	if s1 == nil || s2 == nil {
		return c.Errorf("an input is missing")
	}
	if s1.Type != model.Int32 && s1.Type != model.Int64 {
		return c.Errorf("type %s is not supported (int32, int64)", s1.Type)
	}
	if s2.Type != s1.Type || out.Type != s1.Type {
		return c.Errorf("input types %s and %s and output type %s differ", s1.Type, s2.Type, out.Type)
	}
	if len(s1.Shape) != 1 || len(s2.Shape) != 1 || len(out.Shape) != 1 {
		return c.Errorf("inputs %v, %v and output %v must be 1-D", s1.Shape, s2.Shape, out.Shape)
	}
	if !s1.IsConst() || !s2.IsConst() {
		return c.Errorf("shapes computed at run time are not supported (constant inputs only)")
	}
	a, b := fillConstInts(s1), fillConstInts(s2)
	n := out.Shape[0]
	// As reference_ops::BroadcastArgs: from the last dimension, a missing
	// entry counts as 1; the output's length decides how many are made.
	// TFLM holds each entry in an int, so int64 entries are truncated to
	// 32 bits.
	at := func(v []int64, back int) int64 {
		if i := len(v) - 1 - back; i >= 0 {
			return v[i]
		}
		return 1
	}
	res := make([]int64, n)
	for back := range n {
		x, y := int64(int32(at(a, back))), int64(int32(at(b, back)))
		switch {
		case x == 1:
			res[n-1-back] = y
		case y == 1 || x == y:
			res[n-1-back] = x
		default:
			return c.Errorf("shapes %v and %v do not broadcast (TFLite Micro aborts)", a, b)
		}
	}
	if n == 0 {
		return nil
	}
	if s1.Type == model.Int32 {
		v := make([]int32, n)
		for i, x := range res {
			if x < math.MinInt32 || x > math.MaxInt32 {
				return c.Errorf("dimension %d out of the int32 range", x)
			}
			v[i] = int32(x)
		}
		c.Call(kernelsig.CopyConst, Bytes(out), c.ConstI32("Shape", v))
		return nil
	}
	c.Call(kernelsig.CopyConst, Bytes(out), c.ConstI64("Shape", res))
	return nil
}
