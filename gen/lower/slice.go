package lower

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// Data movement: TRANSPOSE, SLICE and STRIDED_SLICE here, CONCATENATION,
// PACK, UNPACK and SPLIT in lower_shape.go. Every one becomes one or more
// calls of the kernel moveStrided (kernels/slice.go), a strided byte copy
// whose loop counts, strides and offsets are all computed below.

func init() {
	register(model.OpTranspose, lowerTranspose, ownBuffer)
	register(model.OpSlice, lowerSlice, ownBuffer)
	register(model.OpStridedSlice, lowerStridedSlice, ownBuffer)
}

// movePlan holds the fields of kernels.moveParams: counts, source and
// destination strides in bytes (outermost loop first), the contiguous run
// in bytes, and the byte offsets of the first element.
type movePlan struct {
	run      int
	n, s, d  [kernelsig.MoveLoops]int
	src, dst int
}

// newMovePlan describes an N-dimensional element copy as a movePlan: for
// every index vector i below count, element src[srcOff + Σ i_k*srcStride_k]
// goes to dst[dstOff + Σ i_k*dstStride_k] (strides and offsets in elements
// of esz bytes). Dimensions of size one are dropped, neighbours that walk
// memory contiguously on both sides are merged, and a unit-stride innermost
// dimension becomes the byte run. empty reports a copy of no elements.
func newMovePlan(esz int, count, srcStride, dstStride []int, srcOff, dstOff int) (p movePlan, empty bool, err error) {
	type moveDim struct{ n, s, d int }
	var dims []moveDim
	for i, n := range count {
		if n == 0 {
			return movePlan{}, true, nil
		}
		if n == 1 {
			continue
		}
		x := moveDim{n, srcStride[i], dstStride[i]}
		if k := len(dims) - 1; k >= 0 && dims[k].s == x.s*x.n && dims[k].d == x.d*x.n {
			dims[k] = moveDim{dims[k].n * x.n, x.s, x.d}
			continue
		}
		dims = append(dims, x)
	}
	run := 1
	if k := len(dims) - 1; k >= 0 && dims[k].s == 1 && dims[k].d == 1 {
		run = dims[k].n
		dims = dims[:k]
	}
	if len(dims) > kernelsig.MoveLoops {
		return movePlan{}, false, fmt.Errorf("copy needs %d strided loops, the kernel has %d", len(dims), kernelsig.MoveLoops)
	}
	p.run = run * esz
	off := kernelsig.MoveLoops - len(dims)
	for i := range p.n {
		p.n[i] = 1
	}
	for i, x := range dims {
		p.n[off+i] = x.n
		p.s[off+i] = x.s * esz
		p.d[off+i] = x.d * esz
	}
	p.src = srcOff * esz
	p.dst = dstOff * esz
	return p, false, nil
}

// bounds returns the lowest and one-past-highest byte the plan touches on
// the source (src true) or destination side.
func (p movePlan) bounds(src bool) (lo, hi int) {
	lo = p.dst
	if src {
		lo = p.src
	}
	hi = lo
	for i := range p.n {
		st := p.d[i]
		if src {
			st = p.s[i]
		}
		ext := (p.n[i] - 1) * st
		if ext < 0 {
			lo += ext
		} else {
			hi += ext
		}
	}
	return lo, hi + p.run
}

// check verifies that the plan stays inside source and destination buffers
// of the given byte sizes.
func (p movePlan) check(srcBytes, dstBytes int) error {
	if lo, hi := p.bounds(true); lo < 0 || hi > srcBytes {
		return fmt.Errorf("copy reads bytes [%d, %d) of a %d-byte input", lo, hi, srcBytes)
	}
	if lo, hi := p.bounds(false); lo < 0 || hi > dstBytes {
		return fmt.Errorf("copy writes bytes [%d, %d) of a %d-byte output", lo, hi, dstBytes)
	}
	return nil
}

// arg renders the plan as the kernel's parameter struct.
func (p movePlan) arg() Arg {
	f := []Field{F("run", Int(p.run))}
	for i := range p.n {
		f = append(f, F(fmt.Sprintf("n%d", i), Int(p.n[i])))
	}
	for i := range p.s {
		f = append(f, F(fmt.Sprintf("s%d", i), Int(p.s[i])))
	}
	for i := range p.d {
		f = append(f, F(fmt.Sprintf("d%d", i), Int(p.d[i])))
	}
	f = append(f, F("src", Int(p.src)), F("dst", Int(p.dst)))
	return Struct(kernelsig.MoveParams, f...)
}

// emitMove plans and emits one strided copy from in to out (element strides
// and offsets as for newMovePlan). Nothing is emitted for an empty copy.
func emitMove(c *opCtx, in, out *model.Tensor, count, srcStride, dstStride []int, srcOff, dstOff int) error {
	p, empty, err := newMovePlan(in.Type.Size(), count, srcStride, dstStride, srcOff, dstOff)
	if err != nil {
		return c.Errorf("%v", err)
	}
	if empty {
		return nil
	}
	if err := p.check(in.Bytes(), out.Bytes()); err != nil {
		return c.Errorf("internal error: %v", err)
	}
	if in.IsConst() {
		c.Call(kernelsig.MoveStridedConst, p.arg(), Bytes(out), Str(in))
	} else {
		c.BandCall(moveBand, kernelsig.MoveStrided, p.arg(), Bytes(out), Bytes(in))
	}
	return nil
}

// moveStrides returns the row-major element strides of shape.
func moveStrides(shape []int) []int {
	st := make([]int, len(shape))
	n := 1
	for i := len(shape) - 1; i >= 0; i-- {
		st[i] = n
		n *= shape[i]
	}
	return st
}

// moveTypeOK reports whether data movement supports element type dt.
func moveTypeOK(dt model.DType) bool {
	switch dt {
	case model.Int8, model.Uint8, model.Int16, model.Int32, model.Int64, model.Float32, model.Bool:
		return true
	}
	return false
}

// moveConstInts reads a constant int32 (or, when allow64, int64) tensor.
func moveConstInts(t *model.Tensor, allow64 bool) ([]int64, error) {
	if t == nil {
		return nil, fmt.Errorf("missing")
	}
	if !t.IsConst() {
		return nil, fmt.Errorf("%s is not constant", t.Describe())
	}
	switch {
	case t.Type == model.Int32:
		v := make([]int64, len(t.Data)/4)
		for i := range v {
			v[i] = int64(int32(binary.LittleEndian.Uint32(t.Data[4*i:])))
		}
		return v, nil
	case t.Type == model.Int64 && allow64:
		v := make([]int64, len(t.Data)/8)
		for i := range v {
			v[i] = int64(binary.LittleEndian.Uint64(t.Data[8*i:]))
		}
		return v, nil
	}
	return nil, fmt.Errorf("%s has type %s, want int32", t.Describe(), t.Type)
}

// moveSameShape reports whether two shapes are equal.
func moveSameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// moveIO checks the operator's input/output counts and that input 0 and
// output 0 share a supported element type, and returns them.
func moveIO(c *opCtx, nIn, nOut int) (in, out *model.Tensor, err error) {
	if c.NumIn() != nIn || c.NumOut() != nOut {
		return nil, nil, c.Errorf("has %d inputs and %d outputs, want %d and %d", c.NumIn(), c.NumOut(), nIn, nOut)
	}
	in, out = c.In(0), c.Out(0)
	if in == nil {
		return nil, nil, c.Errorf("input 0 is missing")
	}
	if in.Type != out.Type {
		return nil, nil, c.Errorf("input type %s differs from output type %s", in.Type, out.Type)
	}
	if !moveTypeOK(in.Type) {
		return nil, nil, c.Errorf("type %s is not supported", in.Type)
	}
	return in, out, nil
}

// lowerTranspose lowers TRANSPOSE (constant int32 perm, up to 5-D, as
// TFLM's transpose.cc) to one strided copy.
func lowerTranspose(c *opCtx) error {
	in, out, err := moveIO(c, 2, 1)
	if err != nil {
		return err
	}
	if in.Type != model.Float32 && in.Type != model.Int8 && in.Type != model.Int16 {
		// TFLM's transpose.cc Eval supports these three only.
		return c.Errorf("type %s is not supported (TFLM supports float32, int8 and int16)", in.Type)
	}
	perm, err := moveConstInts(c.In(1), false)
	if err != nil {
		return c.Errorf("perm: %v", err)
	}
	count, srcStride, err := transposeLayout(in.Shape, perm)
	if err != nil {
		return c.Errorf("%v", err)
	}
	if !moveSameShape(count, out.Shape) {
		return c.Errorf("output shape %v, want %v for perm %v", out.Shape, count, perm)
	}
	return emitMove(c, in, out, count, srcStride, moveStrides(out.Shape), 0, 0)
}

// transposeLayout returns the output shape of transposing shape by perm and,
// for each output dimension, its element stride in the input.
func transposeLayout(shape []int, perm []int64) (outShape, srcStride []int, err error) {
	if len(shape) > 5 {
		return nil, nil, fmt.Errorf("input has %d dimensions, at most 5 are supported", len(shape))
	}
	if len(perm) != len(shape) {
		return nil, nil, fmt.Errorf("perm has %d entries for a %d-D input", len(perm), len(shape))
	}
	inStride := moveStrides(shape)
	seen := make([]bool, len(shape))
	for _, p := range perm {
		if p < 0 || int(p) >= len(shape) || seen[p] {
			return nil, nil, fmt.Errorf("perm %v is not a permutation of [0, %d)", perm, len(shape))
		}
		seen[p] = true
		outShape = append(outShape, shape[p])
		srcStride = append(srcStride, inStride[p])
	}
	return outShape, srcStride, nil
}

// lowerSlice lowers SLICE (constant int32 or int64 begin and size, up to
// 5-D, size -1 meaning "to the end", as TFLM's slice.cc).
func lowerSlice(c *opCtx) error {
	in, out, err := moveIO(c, 3, 1)
	if err != nil {
		return err
	}
	if in.Type == model.Int64 {
		// TFLM's slice.cc Eval has no int64 case.
		return c.Errorf("type %s is not supported", in.Type)
	}
	begin, err := moveConstInts(c.In(1), true)
	if err != nil {
		return c.Errorf("begin: %v", err)
	}
	size, err := moveConstInts(c.In(2), true)
	if err != nil {
		return c.Errorf("size: %v", err)
	}
	start, count, err := sliceRanges(in.Shape, begin, size)
	if err != nil {
		return c.Errorf("%v", err)
	}
	if !moveSameShape(count, out.Shape) {
		return c.Errorf("output shape %v, want %v", out.Shape, count)
	}
	st := moveStrides(in.Shape)
	off := 0
	for i := range start {
		off += start[i] * st[i]
	}
	return emitMove(c, in, out, count, st, moveStrides(count), off, 0)
}

// sliceRanges returns the first index and the count of every dimension of
// a SLICE, checking that the slice lies inside the input.
func sliceRanges(shape []int, begin, size []int64) (start, count []int, err error) {
	if len(shape) > 5 {
		return nil, nil, fmt.Errorf("input has %d dimensions, at most 5 are supported", len(shape))
	}
	if len(begin) != len(shape) || len(size) != len(shape) {
		return nil, nil, fmt.Errorf("begin has %d and size %d entries for a %d-D input", len(begin), len(size), len(shape))
	}
	for i, d := range shape {
		b, s := begin[i], size[i]
		if s == -1 {
			s = int64(d) - b
		}
		if b < 0 || s < 0 || b+s > int64(d) {
			return nil, nil, fmt.Errorf("dimension %d: begin %d size %d outside [0, %d)", i, begin[i], size[i], d)
		}
		start = append(start, int(b))
		count = append(count, int(s))
	}
	return start, count, nil
}

// stridedSliceOpts are the STRIDED_SLICE options TFLM uses.
type stridedSliceOpts struct {
	beginMask, endMask, shrinkMask int32
}

// lowerStridedSlice lowers STRIDED_SLICE with constant int32 begin, end and
// strides. Starts, stops and loop counts are computed as TFLM's reference
// StridedSlice does at run time (strided_slice_logic.h), and the output
// shape is checked as its Prepare does (strided_slice_common.cc).
func lowerStridedSlice(c *opCtx) error {
	in, out, err := moveIO(c, 4, 1)
	if err != nil {
		return err
	}
	if in.Type == model.Int64 {
		// TFLM's strided_slice.cc Eval has no int64 case.
		return c.Errorf("type %s is not supported", in.Type)
	}
	var v [3][]int64
	for k, name := range []string{"begin", "end", "strides"} {
		if v[k], err = moveConstInts(c.In(1+k), false); err != nil {
			return c.Errorf("%s: %v", name, err)
		}
	}
	o := c.Op.Options()
	opt := o.StridedSlice()
	opts := stridedSliceOpts{beginMask: opt.BeginMask, endMask: opt.EndMask, shrinkMask: opt.ShrinkAxisMask}
	ellipsis, newAxis, offset := opt.EllipsisMask, opt.NewAxisMask, opt.Offset
	if err := o.Err(); err != nil {
		return c.Errorf("%v", err)
	}
	if ellipsis != 0 || newAxis != 0 || offset {
		// TFLM's strided_slice_common.cc zeroes these and never reads offset.
		return c.Errorf("ellipsis_mask %d, new_axis_mask %d and offset %v are not supported", ellipsis, newAxis, offset)
	}
	start, count, step, err := stridedSliceRanges(in.Shape, out.Shape, v[0], v[1], v[2], opts)
	if err != nil {
		return c.Errorf("%v", err)
	}
	st := moveStrides(in.Shape)
	off := 0
	src := make([]int, len(st))
	for i := range st {
		off += start[i] * st[i]
		src[i] = step[i] * st[i]
	}
	return emitMove(c, in, out, count, src, moveStrides(count), off, 0)
}

// stridedSliceRanges returns, for every input dimension, the first index,
// the number of elements taken and the step, exactly as TFLM's reference
// kernel iterates, after checking the output shape as TFLM's Prepare does
// and that the elements taken fill the output.
func stridedSliceRanges(shape, outShape []int, begin, end, strides []int64, o stridedSliceOpts) (start, count, step []int, err error) {
	n := len(shape)
	if n > 4 {
		return nil, nil, nil, fmt.Errorf("input has %d dimensions, at most 4 are supported (as in TFLM)", n)
	}
	if len(begin) != n || len(end) != n || len(strides) != n {
		return nil, nil, nil, fmt.Errorf("begin, end and strides have %d, %d and %d entries for a %d-D input", len(begin), len(end), len(strides), n)
	}
	bit := func(mask int32, i int) bool { return mask&(1<<uint(i)) != 0 }
	clamp := func(v, lo, hi int64) int64 { return max(lo, min(v, hi)) }

	// Prepare's output shape check (StartForAxis / StopForAxis).
	var want []int
	for i := range n {
		size, stride := int64(shape[i]), strides[i]
		if stride == 0 {
			return nil, nil, nil, fmt.Errorf("dimension %d: stride is 0", i)
		}
		var b, e int64
		if size != 0 {
			b = begin[i]
			if bit(o.beginMask, i) {
				b = math.MinInt32
				if stride < 0 {
					b = math.MaxInt32
				}
			}
			if b < 0 {
				b += size
			}
			if stride > 0 {
				b = clamp(b, 0, size)
			} else {
				b = clamp(b, -1, size-1)
			}
			switch {
			case bit(o.shrinkMask, i):
				e = b + 1
			default:
				e = end[i]
				if bit(o.endMask, i) {
					e = math.MaxInt32
					if stride < 0 {
						e = math.MinInt32
					}
				}
				if e < 0 {
					e += size
				}
				if stride > 0 {
					e = clamp(e, 0, size)
				} else {
					e = clamp(e, -1, size-1)
				}
			}
		}
		if bit(o.shrinkMask, i) {
			continue
		}
		d := int(math.Ceil(float64(float32(e-b) / float32(stride))))
		want = append(want, max(d, 0))
	}
	if !moveSameShape(want, outShape) {
		return nil, nil, nil, fmt.Errorf("output shape %v, want %v", outShape, want)
	}

	// The run-time ranges (StridedSliceStartForAxis / EndForAxis).
	total, outTotal := 1, 1
	for _, d := range outShape {
		outTotal *= d
	}
	for i := range n {
		size, stride := int64(shape[i]), strides[i]
		b := begin[i]
		if b < 0 {
			b += size
		}
		if stride > 0 {
			b = clamp(b, 0, size)
		} else {
			b = clamp(b, -1, size-1)
		}
		if bit(o.beginMask, i) {
			b = 0
			if stride < 0 {
				b = size - 1
			}
		}
		var e int64
		if bit(o.shrinkMask, i) {
			e = b + 1
			if b >= size {
				e = b
			}
		} else {
			e = end[i]
			if e < 0 {
				e += size
			}
			if stride > 0 {
				e = clamp(e, 0, size)
			} else {
				e = clamp(e, -1, size-1)
			}
			if bit(o.endMask, i) {
				e = size
				if stride < 0 {
					e = -1
				}
			}
		}
		var k int64
		if stride > 0 && e > b {
			k = (e - b + stride - 1) / stride
		} else if stride < 0 && b > e {
			k = (b - e - stride - 1) / -stride
		}
		start = append(start, int(b))
		count = append(count, int(k))
		step = append(step, int(stride))
		total *= int(k)
	}
	if total != outTotal {
		return nil, nil, nil, fmt.Errorf("slice takes %d elements (counts %v) but the output %v holds %d", total, count, outShape, outTotal)
	}
	return start, count, step, nil
}
