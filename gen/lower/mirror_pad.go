package lower

import (
	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// MIRROR_PAD as TFLM's mirror_pad.cc: float32 and int8, constant int32 or
// int64 paddings [rank, 2], REFLECT (the edge element is not repeated) or
// SYMMETRIC (it is). The input is copied into the middle of the output,
// then, innermost dimension first, the padding of each dimension is copied
// from the output itself: its middle part along that dimension is by then
// complete in every inner dimension. Each step is a strided copy with
// stride -1 (mirrored) or 0 along the padded dimension.

func init() {
	register(model.OpMirrorPad, lowerMirrorPad, ownBuffer, withTFLMScratch(mirrorPadTFLMScratch))
}

// mirrorRows lets a MIRROR_PAD over the height and width of a batch-1
// image run row by row (mirrorPadRows), which fused row streaming cuts
// into bands; the tests turn it off to compare it with the strided copies
// that TestReshuffleMatchesTFLM checks against TFLM.
var mirrorRows = true

// The values of MirrorPadOptions.mode (options.fbs' MirrorPadMode).
const (
	mirrorPadReflect   = 0 // MirrorPadMode.REFLECT
	mirrorPadSymmetric = 1 // MirrorPadMode.SYMMETRIC
)

// lowerMirrorPad lowers MIRROR_PAD. Left paddings larger than the input
// allows (size - 1 for REFLECT, size for SYMMETRIC) are refused, since
// TFLM then reads outside its input; larger right paddings repeat the
// input's first element, which is what TFLM's index arithmetic gives.
func lowerMirrorPad(c *opCtx) error {
	in, out, err := moveIO(c, 2, 1)
	if err != nil {
		return err
	}
	if err := reshuffleType(c, in, model.Float32, model.Int8); err != nil {
		return err
	}
	o := c.Op.Options()
	if !o.Present() {
		return c.Errorf("options are missing (mode)")
	}
	mode := o.MirrorPad().Mode // absent: REFLECT (0)
	if err := o.Err(); err != nil {
		return c.Errorf("%v", err)
	}
	offset := 0
	switch mode {
	case mirrorPadReflect:
		offset = 1
	case mirrorPadSymmetric:
	default:
		return c.Errorf("mode %d is not REFLECT or SYMMETRIC", mode)
	}
	rank := len(in.Shape)
	pt := c.In(1)
	if pt == nil || len(pt.Shape) != 2 || pt.Shape[0] != rank || pt.Shape[1] != 2 {
		return c.Errorf("paddings must have shape [%d, 2]", rank)
	}
	pv, err := moveConstInts(pt, true)
	if err != nil {
		return c.Errorf("paddings: %v", err)
	}
	if len(out.Shape) != rank {
		return c.Errorf("input shape %v and output shape %v differ in rank", in.Shape, out.Shape)
	}
	// The dimensions, with size-one and neighbouring unpadded ones merged.
	var dims []padDim
	for i, n := range in.Shape {
		l, r := pv[2*i], pv[2*i+1]
		if l < 0 || r < 0 || int64(n)+l+r != int64(out.Shape[i]) {
			return c.Errorf("dimension %d: input %d padded by (%d, %d) does not give output %d", i, n, l, r, out.Shape[i])
		}
		if l > int64(n-offset) {
			return c.Errorf("dimension %d: left padding %d is larger than %d, the most the input of size %d allows", i, l, max(n-offset, 0), n)
		}
		if n == 0 && r > 0 {
			return c.Errorf("dimension %d: an empty dimension cannot be padded", i)
		}
		x := padDim{n, int(l), int(r)}
		if x.l == 0 && x.r == 0 {
			if x.n == 1 {
				continue
			}
			if k := len(dims) - 1; k >= 0 && dims[k].l == 0 && dims[k].r == 0 {
				dims[k].n *= x.n
				continue
			}
		}
		dims = append(dims, x)
	}
	if out.NumElements() == 0 {
		return nil
	}
	if mirrorRows && !in.IsConst() && len(in.Shape) == 4 && in.Shape[0] == 1 && pv[0] == 0 && pv[1] == 0 && pv[6] == 0 && pv[7] == 0 {
		// Height and width of a batch-1 image: row by row, so that fused
		// row streaming can run it on bands of rows (every dimension is
		// at least 1 here: the output is not empty, and an empty one
		// cannot be padded).
		c.BandCall(mirrorBand, kernelsig.MirrorPadRows, Struct(kernelsig.MirrorPadRowsParams,
			F("inH", Int(in.Shape[1])), F("outH", Int(out.Shape[1])), F("row0", Int(0)), F("in0", Int(0)),
			F("imgH", Int(in.Shape[1])), F("top", Int(int(pv[2]))), F("offset", Int(offset)),
			F("inW", Int(in.Shape[2])), F("left", Int(int(pv[4]))), F("right", Int(int(pv[5]))),
			F("pix", Int(in.Shape[3]*in.Type.Size()))), Bytes(out), Bytes(in))
		return nil
	}
	if len(dims) > 5 {
		return c.Errorf("padding needs %d dimensions, at most 5 are supported", len(dims))
	}
	m := len(dims)
	inShape, outShape := make([]int, m), make([]int, m)
	for j, d := range dims {
		inShape[j], outShape[j] = d.n, d.n+d.l+d.r
	}
	os := moveStrides(outShape)
	center := 0
	for j, d := range dims {
		center += d.l * os[j]
	}
	if err := emitMove(c, in, out, inShape, moveStrides(inShape), os, 0, center); err != nil {
		return err
	}
	for k := m - 1; k >= 0; k-- {
		d := dims[k]
		// Outer dimensions: their middle part; inner ones: everything.
		count := append(append([]int{}, inShape[:k]...), 0, os[k])
		dst := append(append([]int{}, os[:k]...), os[k], 1)
		base := 0
		for j := range k {
			base += dims[j].l * os[j]
		}
		part := func(n, dstPos, srcPos, step int) error {
			if n <= 0 {
				return nil
			}
			count[k] = n
			src := append(append([]int{}, os[:k]...), step*os[k], 1)
			return emitMove(c, out, out, count, src, dst, base+srcPos*os[k], base+dstPos*os[k])
		}
		// Left: position p < l mirrors input index l+offset-1-p.
		if err := part(d.l, 0, 2*d.l+offset-1, -1); err != nil {
			return err
		}
		// Right: position q after the input mirrors input index
		// a - min(q, a), a = n-1-offset; past a it stays at index 0.
		a := d.n - 1 - offset
		right := d.l + d.n
		mirrored := min(d.r, max(a+1, 0))
		if err := part(mirrored, right, d.l+a, -1); err != nil {
			return err
		}
		if err := part(d.r-mirrored, right+mirrored, d.l, 0); err != nil {
			return err
		}
	}
	return nil
}

// mirrorPadTFLMScratch: TFLM's kernel requests two ints per dimension.
func mirrorPadTFLMScratch(g *model.Graph, op *model.Op) []int {
	x := g.Input(op, 0)
	if x == nil {
		return nil
	}
	return []int{len(x.Shape) * tflmIntSize, len(x.Shape) * tflmIntSize}
}
