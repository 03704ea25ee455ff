package lower

import (
	"fmt"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// Shape operators. RESHAPE, SQUEEZE and EXPAND_DIMS are views: the output
// shares the input's buffer and no kernel runs (a constant input is copied
// with copyConst instead). CONCATENATION, PACK, UNPACK and SPLIT are one
// strided copy per input or output (movePlan, lower_slice.go).

func init() {
	register(model.OpReshape, lowerReshape, ownBuffer)
	register(model.OpSqueeze, lowerSqueeze, ownBuffer)
	register(model.OpExpandDims, lowerExpandDims, ownBuffer)
	register(model.OpConcatenation, lowerConcatenation, ownBuffer)
	register(model.OpPack, lowerPack, ownBuffer)
	register(model.OpUnpack, lowerUnpack, ownBuffer)
	register(model.OpSplit, lowerSplit, ownBuffer)
}

// shapeView finishes a view operator: output 0 aliases input 0, or receives
// a copy of it when the input is a constant.
func shapeView(c *opCtx, in, out *model.Tensor) error {
	if in.Type != out.Type {
		return c.Errorf("input type %s differs from output type %s", in.Type, out.Type)
	}
	if in.Type.Size() == 0 {
		return c.Errorf("type %s is not supported", in.Type)
	}
	if in.NumElements() != out.NumElements() {
		return c.Errorf("input %v has %d elements, output %v has %d", in.Shape, in.NumElements(), out.Shape, out.NumElements())
	}
	if in.IsConst() {
		c.Call(kernelsig.CopyConst, Bytes(out), Str(in))
		return nil
	}
	c.Alias(0, 0)
	return nil
}

// lowerReshape lowers RESHAPE. Like TFLM (reshape_common.cc) the output
// shape is the output tensor's; the new shape, from the shape input when it
// is constant or else from the options, must agree with it after resolving
// a -1 entry.
func lowerReshape(c *opCtx) error {
	if (c.NumIn() != 1 && c.NumIn() != 2) || c.NumOut() != 1 {
		return c.Errorf("has %d inputs and %d outputs, want 1 or 2 and 1", c.NumIn(), c.NumOut())
	}
	in, out := c.In(0), c.Out(0)
	if in == nil {
		return c.Errorf("input 0 is missing")
	}
	if c.NumIn() == 1 && len(out.Shape) == 1 && out.Shape[0] == 0 {
		return c.Errorf("legacy scalar output shape [0] is not supported")
	}
	var newShape []int64
	have := false
	if st := c.In(1); st != nil && st.IsConst() {
		v, err := moveConstInts(st, false)
		if err != nil {
			return c.Errorf("shape: %v", err)
		}
		newShape, have = v, true
	} else if c.In(1) == nil {
		o := c.Op.Options()
		v := o.Reshape().NewShape
		if err := o.Err(); err != nil {
			return c.Errorf("%v", err)
		}
		for _, x := range v {
			newShape = append(newShape, int64(x))
		}
		have = v != nil
	}
	if have {
		if err := reshapeAgrees(newShape, in.NumElements(), out.Shape); err != nil {
			return c.Errorf("%v", err)
		}
	}
	return shapeView(c, in, out)
}

// reshapeAgrees checks a RESHAPE new_shape against the output shape, a -1
// entry standing for whatever the element count leaves.
func reshapeAgrees(newShape []int64, elems int, outShape []int) error {
	stretch, known := -1, int64(1)
	for i, d := range newShape {
		switch {
		case d == -1 && stretch < 0:
			stretch = i
		case d < 0:
			return fmt.Errorf("new shape %v has an invalid entry", newShape)
		default:
			known *= d
		}
	}
	resolved := make([]int, len(newShape))
	for i, d := range newShape {
		resolved[i] = int(d)
	}
	if stretch >= 0 {
		if known == 0 {
			return fmt.Errorf("new shape %v has -1 next to a zero dimension", newShape)
		}
		resolved[stretch] = int(int64(elems) / known)
	}
	if !moveSameShape(resolved, outShape) {
		return fmt.Errorf("new shape %v (resolved %v) does not match the output shape %v", newShape, resolved, outShape)
	}
	return nil
}

// lowerSqueeze lowers SQUEEZE: squeeze_dims (an option) must name
// dimensions of size one, as TFLM's squeeze.cc checks.
func lowerSqueeze(c *opCtx) error {
	if c.NumIn() != 1 || c.NumOut() != 1 {
		return c.Errorf("has %d inputs and %d outputs, want 1 and 1", c.NumIn(), c.NumOut())
	}
	in, out := c.In(0), c.Out(0)
	if in == nil {
		return c.Errorf("input 0 is missing")
	}
	if len(in.Shape) > 8 {
		return c.Errorf("input has %d dimensions, at most 8 are supported", len(in.Shape))
	}
	o := c.Op.Options()
	dims := o.Squeeze().SqueezeDims
	if err := o.Err(); err != nil {
		return c.Errorf("%v", err)
	}
	for _, d := range dims {
		k := int(d)
		if k < 0 {
			k += len(in.Shape)
		}
		if k < 0 || k >= len(in.Shape) || in.Shape[k] != 1 {
			return c.Errorf("squeeze dimension %d is not a dimension of size 1 of %v", d, in.Shape)
		}
	}
	return shapeView(c, in, out)
}

// lowerExpandDims lowers EXPAND_DIMS with a constant int32 axis; the output
// shape must be the input's with a 1 inserted there (TFLM expand_dims.cc,
// which supports int8, int16 and float32).
func lowerExpandDims(c *opCtx) error {
	if c.NumIn() != 2 || c.NumOut() != 1 {
		return c.Errorf("has %d inputs and %d outputs, want 2 and 1", c.NumIn(), c.NumOut())
	}
	in, out := c.In(0), c.Out(0)
	if in == nil {
		return c.Errorf("input 0 is missing")
	}
	switch in.Type {
	case model.Int8, model.Int16, model.Float32:
	default:
		return c.Errorf("type %s is not supported (TFLM supports int8, int16, float32)", in.Type)
	}
	at := c.In(1)
	axis, err := moveConstInts(at, false)
	if err != nil {
		return c.Errorf("axis: %v", err)
	}
	if len(at.Shape) > 1 || len(axis) < 1 {
		return c.Errorf("axis must hold one value, got shape %v", at.Shape)
	}
	a := int(axis[0])
	if a < 0 {
		a += len(in.Shape) + 1
	}
	if a < 0 || a > len(in.Shape) {
		return c.Errorf("axis %d out of range for a %d-D input", axis[0], len(in.Shape))
	}
	want := append(append(append([]int{}, in.Shape[:a]...), 1), in.Shape[a:]...)
	if !moveSameShape(want, out.Shape) {
		return c.Errorf("output shape %v, want %v", out.Shape, want)
	}
	return shapeView(c, in, out)
}

// shapeQuant returns a tensor's per-tensor scale and zero point as TFLM's
// params field sees them (zero when unquantized).
func shapeQuant(t *model.Tensor) (float32, int64) {
	if t.Quant == nil || len(t.Quant.Scale) == 0 {
		return 0, 0
	}
	return t.Quant.Scale[0], t.Quant.ZeroPoint[0]
}

// shapeProd multiplies a run of dimensions.
func shapeProd(dims []int) int {
	n := 1
	for _, d := range dims {
		n *= d
	}
	return n
}

// shapeAxis normalizes a possibly negative axis for a rank-n shape.
func shapeAxis(c *opCtx, axis int32, n int) (int, error) {
	a := int(axis)
	if a < 0 {
		a += n
	}
	if a < 0 || a >= n {
		return 0, c.Errorf("axis %d out of range for %d dimensions", axis, n)
	}
	return a, nil
}

// lowerConcatenation lowers CONCATENATION (axis in the options, no fused
// activation), with TFLM's rules: equal types, int8 inputs quantized like
// the output, int16 zero points 0.
func lowerConcatenation(c *opCtx) error {
	if c.NumIn() < 1 || c.NumOut() != 1 {
		return c.Errorf("has %d inputs and %d outputs, want at least 1 and 1", c.NumIn(), c.NumOut())
	}
	out := c.Out(0)
	o := c.Op.Options()
	opt := o.Concatenation()
	axisOpt, act := opt.Axis, opt.FusedActivationFunction
	if err := o.Err(); err != nil {
		return c.Errorf("%v", err)
	}
	if act != 0 {
		return c.Errorf("fused activation %d is not supported (TFLM requires NONE)", act)
	}
	switch out.Type {
	case model.Float32, model.Int8, model.Int16, model.Int32, model.Int64, model.Bool:
	default:
		return c.Errorf("type %s is not supported", out.Type)
	}
	axis, err := shapeAxis(c, axisOpt, len(out.Shape))
	if err != nil {
		return err
	}
	outScale, outZP := shapeQuant(out)
	if out.Type == model.Int16 && outZP != 0 {
		return c.Errorf("int16 output zero point %d, want 0", outZP)
	}
	sum := 0
	for i := range c.NumIn() {
		in := c.In(i)
		if in == nil {
			return c.Errorf("input %d is missing", i)
		}
		if in.Type != out.Type {
			return c.Errorf("input %d type %s differs from output type %s", i, in.Type, out.Type)
		}
		scale, zp := shapeQuant(in)
		if out.Type == model.Int8 && (scale != outScale || zp != outZP) {
			return c.Errorf("input %d quantization (%g, %d) differs from the output's (%g, %d)", i, scale, zp, outScale, outZP)
		}
		if out.Type == model.Int16 && zp != 0 {
			return c.Errorf("input %d: int16 zero point %d, want 0", i, zp)
		}
		if len(in.Shape) != len(out.Shape) {
			return c.Errorf("input %d shape %v and output shape %v differ in rank", i, in.Shape, out.Shape)
		}
		for j := range out.Shape {
			if j != axis && in.Shape[j] != out.Shape[j] {
				return c.Errorf("input %d shape %v does not match output shape %v off axis %d", i, in.Shape, out.Shape, axis)
			}
		}
		sum += in.Shape[axis]
	}
	if sum != out.Shape[axis] {
		return c.Errorf("inputs add up to %d along axis %d, output has %d", sum, axis, out.Shape[axis])
	}
	outer := shapeProd(out.Shape[:axis])
	inner := shapeProd(out.Shape[axis+1:])
	row := out.Shape[axis] * inner
	off := 0
	for i := range c.NumIn() {
		in := c.In(i)
		chunk := in.Shape[axis] * inner
		if err := emitMove(c, in, out, []int{outer, chunk}, []int{chunk, 1}, []int{row, 1}, 0, off); err != nil {
			return err
		}
		off += chunk
	}
	return nil
}

// lowerPack lowers PACK (values_count and axis in the options),
// as TFLM's pack.cc.
func lowerPack(c *opCtx) error {
	if c.NumIn() < 1 || c.NumOut() != 1 {
		return c.Errorf("has %d inputs and %d outputs, want at least 1 and 1", c.NumIn(), c.NumOut())
	}
	out := c.Out(0)
	o := c.Op.Options()
	opt := o.Pack()
	count, axisOpt := opt.ValuesCount, opt.Axis
	if err := o.Err(); err != nil {
		return c.Errorf("%v", err)
	}
	if int(count) != c.NumIn() {
		return c.Errorf("values_count %d but %d inputs", count, c.NumIn())
	}
	switch out.Type {
	case model.Float32, model.Int8, model.Int16, model.Int32, model.Int64:
	default:
		return c.Errorf("type %s is not supported", out.Type)
	}
	axis, err := shapeAxis(c, axisOpt, len(out.Shape))
	if err != nil {
		return err
	}
	if out.Shape[axis] != c.NumIn() {
		return c.Errorf("output dimension %d is %d, want %d", axis, out.Shape[axis], c.NumIn())
	}
	want := append(append([]int{}, out.Shape[:axis]...), out.Shape[axis+1:]...)
	outer := shapeProd(out.Shape[:axis])
	inner := shapeProd(out.Shape[axis+1:])
	for i := range c.NumIn() {
		in := c.In(i)
		if in == nil {
			return c.Errorf("input %d is missing", i)
		}
		if in.Type != out.Type {
			return c.Errorf("input %d type %s differs from output type %s", i, in.Type, out.Type)
		}
		if !moveSameShape(in.Shape, want) {
			return c.Errorf("input %d shape %v, want %v", i, in.Shape, want)
		}
		n := c.NumIn()
		if err := emitMove(c, in, out, []int{outer, inner}, []int{inner, 1}, []int{n * inner, 1}, 0, i*inner); err != nil {
			return err
		}
	}
	return nil
}

// lowerUnpack lowers UNPACK (num and axis in the options), as
// TFLM's unpack.cc.
func lowerUnpack(c *opCtx) error {
	if c.NumIn() != 1 || c.NumOut() < 1 {
		return c.Errorf("has %d inputs and %d outputs, want 1 and at least 1", c.NumIn(), c.NumOut())
	}
	in := c.In(0)
	if in == nil {
		return c.Errorf("input 0 is missing")
	}
	o := c.Op.Options()
	opt := o.Unpack()
	num, axisOpt := opt.Num, opt.Axis
	if err := o.Err(); err != nil {
		return c.Errorf("%v", err)
	}
	if int(num) != c.NumOut() {
		return c.Errorf("num %d but %d outputs", num, c.NumOut())
	}
	switch in.Type {
	case model.Float32, model.Int8, model.Int16, model.Int32:
	default:
		return c.Errorf("type %s is not supported", in.Type)
	}
	axis, err := shapeAxis(c, axisOpt, len(in.Shape))
	if err != nil {
		return err
	}
	n := c.NumOut()
	if in.Shape[axis] != n {
		return c.Errorf("input dimension %d is %d, want %d", axis, in.Shape[axis], n)
	}
	want := append(append([]int{}, in.Shape[:axis]...), in.Shape[axis+1:]...)
	outer := shapeProd(in.Shape[:axis])
	inner := shapeProd(in.Shape[axis+1:])
	for i := range n {
		out := c.Out(i)
		if out.Type != in.Type {
			return c.Errorf("output %d type %s differs from input type %s", i, out.Type, in.Type)
		}
		if !moveSameShape(out.Shape, want) {
			return c.Errorf("output %d shape %v, want %v", i, out.Shape, want)
		}
		if err := emitMove(c, in, out, []int{outer, inner}, []int{n * inner, 1}, []int{inner, 1}, i*inner, 0); err != nil {
			return err
		}
	}
	return nil
}

// lowerSplit lowers SPLIT (constant int32 axis as input 0, data as input 1,
// num_splits in the options) into equal parts, as TFLM's split.cc.
func lowerSplit(c *opCtx) error {
	if c.NumIn() != 2 || c.NumOut() < 1 {
		return c.Errorf("has %d inputs and %d outputs, want 2 and at least 1", c.NumIn(), c.NumOut())
	}
	in := c.In(1)
	if in == nil {
		return c.Errorf("input 1 is missing")
	}
	av, err := moveConstInts(c.In(0), false)
	if err != nil {
		return c.Errorf("axis: %v", err)
	}
	if len(av) != 1 {
		return c.Errorf("axis has %d values, want 1", len(av))
	}
	o := c.Op.Options()
	num := o.Split().NumSplits
	if err := o.Err(); err != nil {
		return c.Errorf("%v", err)
	}
	n := c.NumOut()
	if int(num) != n {
		return c.Errorf("num_splits %d but %d outputs", num, n)
	}
	switch in.Type {
	case model.Float32, model.Int8, model.Int16, model.Int32:
	default:
		return c.Errorf("type %s is not supported", in.Type)
	}
	axis, err := shapeAxis(c, int32(av[0]), len(in.Shape))
	if err != nil {
		return err
	}
	if in.Shape[axis]%n != 0 {
		return c.Errorf("dimension %d of size %d does not split into %d parts", axis, in.Shape[axis], n)
	}
	want := append([]int{}, in.Shape...)
	want[axis] /= n
	outer := shapeProd(in.Shape[:axis])
	inner := shapeProd(in.Shape[axis+1:])
	chunk := want[axis] * inner
	for i := range n {
		out := c.Out(i)
		if out.Type != in.Type {
			return c.Errorf("output %d type %s differs from input type %s", i, out.Type, in.Type)
		}
		if !moveSameShape(out.Shape, want) {
			return c.Errorf("output %d shape %v, want %v", i, out.Shape, want)
		}
		if err := emitMove(c, in, out, []int{outer, chunk}, []int{in.Shape[axis] * inner, 1}, []int{chunk, 1}, i*chunk, 0); err != nil {
			return err
		}
	}
	return nil
}
