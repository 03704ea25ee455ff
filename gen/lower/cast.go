package lower

import (
	"math"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// CAST (TFLite Micro's cast.cc, kernels/cast.go): every pair its Eval
// takes, from int8, int16, int32, float32 or bool to int8, int16, int32 or
// float32, and uint32 on both sides (read and written through byte views,
// the only arena view uint32 tensors have; they cannot be graph inputs or
// outputs). The CastOptions types and any quantization are ignored, as
// TFLM ignores them. Input and output must have the same number
// of elements. A constant input is first copied into scratch memory.
// float32 values outside the target integer type (undefined in C++)
// saturate; see the kernel.

func init() {
	register(model.OpCast, lowerCast, elementwise)
}

// castIntType reports whether dt is an integer type CAST reads or writes
// byte-wise, and whether it is signed.
func castIntType(dt model.DType) (ok, signed bool) {
	switch dt {
	case model.Int8, model.Int16, model.Int32:
		return true, true
	case model.Uint32, model.Bool:
		return true, false
	}
	return false, false
}

func lowerCast(c *opCtx) error {
	if c.NumIn() != 1 || c.NumOut() != 1 {
		return c.Errorf("want 1 input and 1 output, have %d and %d", c.NumIn(), c.NumOut())
	}
	in, out := c.In(0), c.Out(0)
	if in == nil {
		return c.Errorf("input 0 is missing")
	}
	inInt, signed := castIntType(in.Type)
	if !inInt && in.Type != model.Float32 {
		return c.Errorf("input type %s is not supported (int8, int16, int32, uint32, float32, bool)", in.Type)
	}
	outInt, _ := castIntType(out.Type)
	if out.Type == model.Bool || !outInt && out.Type != model.Float32 {
		return c.Errorf("output type %s is not supported (int8, int16, int32, uint32, float32)", out.Type)
	}
	if in.NumElements() != out.NumElements() {
		return c.Errorf("input %v and output %v differ in size", in.Shape, out.Shape)
	}
	if in.NumElements() == 0 {
		return nil
	}
	if in.Type == model.Float32 && out.Type == model.Float32 {
		n := in.NumElements()
		return emitMove(c, in, out, []int{n}, []int{1}, []int{1}, 0, 0)
	}
	src := Bytes(in)
	if in.IsConst() {
		src = c.Scratch(model.Uint8, in.Bytes())
		c.Call(kernelsig.CopyConst, src, Str(in))
	}
	p := Struct(kernelsig.CastParams, F("inSize", Int(in.Type.Size())), F("outSize", Int(out.Type.Size())), F("signed", Bool(signed)))
	switch {
	case out.Type == model.Float32:
		c.Call(kernelsig.CastIntF32, p, View(out), src)
	case in.Type == model.Float32:
		lo, hi := int64(math.MinInt32), int64(math.MaxInt32)
		switch out.Type {
		case model.Int8:
			lo, hi = math.MinInt8, math.MaxInt8
		case model.Int16:
			lo, hi = math.MinInt16, math.MaxInt16
		case model.Uint32:
			lo, hi = 0, math.MaxUint32
		}
		c.Call(kernelsig.CastF32Int, p, I64(lo), I64(hi), Bytes(out), src)
	default:
		c.Call(kernelsig.CastInt, p, Bytes(out), src)
	}
	return nil
}
