package lower

import (
	"math"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR (TFLite Micro's
// resize_nearest_neighbor.cc and resize_bilinear.cc over the reference
// resize_nearest_neighbor.h and resize_bilinear.h). The size input must be
// constant, as TFLM requires, so which input rows and columns every output
// row and column reads, and their interpolation weights, are computed here
// with TFLM's arithmetic (float32 for the nearest neighbour and the float
// bilinear resize, 10-bit fixed point for int8) and handed to the kernels
// as tables (kernels/resize.go).

func init() {
	register(model.OpResizeNearestNeighbor, lowerResizeNearest, ownBuffer)
	register(model.OpResizeBilinear, lowerResizeBilinear, ownBuffer)
}

// resizeGeom is what both resizes check, as their Prepare does plus what
// the reference kernels assume: a 4-D NHWC input, a constant int32 size of
// two positive values, and an output of the input's type shaped [batches,
// new height, new width, depth].
type resizeGeom struct {
	in, out        *model.Tensor
	b, h, w, d     int
	oh, ow         int
	align, halfPix bool
}

func resizeCheck(c *opCtx) (*resizeGeom, error) {
	if c.NumIn() != 2 || c.NumOut() != 1 {
		return nil, c.Errorf("has %d inputs and %d outputs, want 2 and 1", c.NumIn(), c.NumOut())
	}
	in, size, out := c.In(0), c.In(1), c.Out(0)
	if in == nil || size == nil {
		return nil, c.Errorf("input or size is missing")
	}
	if len(in.Shape) != 4 {
		return nil, c.Errorf("input has shape %v, want 4 dimensions", in.Shape)
	}
	if size.Type != model.Int32 || len(size.Shape) != 1 || size.Shape[0] != 2 {
		return nil, c.Errorf("size %s must be an int32 vector of 2 values", size.Describe())
	}
	if !size.IsConst() {
		return nil, c.Errorf("size %s is not constant (TFLite Micro requires a constant size)", size.Describe())
	}
	sv, err := moveConstInts(size, false)
	if err != nil {
		return nil, c.Errorf("size: %v", err)
	}
	if out.Type != in.Type {
		return nil, c.Errorf("output type %s differs from input type %s", out.Type, in.Type)
	}
	o := c.Op.Options()
	g := &resizeGeom{in: in, out: out, b: in.Shape[0], h: in.Shape[1], w: in.Shape[2], d: in.Shape[3]}
	if c.Op.Code == model.OpResizeBilinear {
		opt := o.ResizeBilinear()
		g.align, g.halfPix = opt.AlignCorners, opt.HalfPixelCenters
	} else {
		opt := o.ResizeNearestNeighbor()
		g.align, g.halfPix = opt.AlignCorners, opt.HalfPixelCenters
	}
	if err := o.Err(); err != nil {
		return nil, c.Errorf("%v", err)
	}
	if sv[0] < 1 || sv[1] < 1 || sv[0] > 1<<16 || sv[1] > 1<<16 {
		return nil, c.Errorf("size %v: new height and width must be in [1, 65536]", sv)
	}
	g.oh, g.ow = int(sv[0]), int(sv[1])
	if in.NumElements() == 0 {
		return nil, c.Errorf("input shape %v is empty", in.Shape)
	}
	if g.h > 1<<16 || g.w > 1<<16 {
		return nil, c.Errorf("input height and width must be at most 65536, have %v", in.Shape)
	}
	if want := []int{g.b, g.oh, g.ow, g.d}; !moveSameShape(out.Shape, want) {
		return nil, c.Errorf("output shape %v, want %v for size %v", out.Shape, want, sv)
	}
	return g, nil
}

// nearestIndex is TFLM's GetNearestNeighbor: the input row (or column) that
// output row v of out reads from an input of n, in float32 arithmetic.
func nearestIndex(v, n, out int, align, halfPix bool) int {
	scale := float32(n) / float32(out)
	if align && out > 1 {
		scale = float32(n-1) / float32(out-1)
	}
	var off float32
	if halfPix {
		off = 0.5
	}
	x := float32((float32(v) + off) * scale)
	var r int
	if align {
		r = int(math.Round(float64(x))) // roundf: halves away from zero
	} else {
		r = int(math.Floor(float64(x)))
	}
	r = min(r, n-1)
	if halfPix {
		r = max(r, 0)
	}
	return r
}

func lowerResizeNearest(c *opCtx) error {
	g, err := resizeCheck(c)
	if err != nil {
		return err
	}
	switch g.in.Type {
	case model.Float32, model.Int8, model.Int16:
	default:
		return c.Errorf("type %s not supported (TFLite Micro supports float32, int8, int16)", g.in.Type)
	}
	esz := g.in.Type.Size()
	ys := make([]int32, g.oh)
	for y := range ys {
		ys[y] = int32(nearestIndex(y, g.h, g.oh, g.align, g.halfPix) * g.w * g.d * esz)
	}
	xs := make([]int32, g.ow)
	for x := range xs {
		xs[x] = int32(nearestIndex(x, g.w, g.ow, g.align, g.halfPix) * g.d * esz)
	}
	p := Struct(kernelsig.ResizeNearestParams,
		F("batches", Int(g.b)), F("outH", Int(g.oh)), F("outW", Int(g.ow)),
		F("run", Int(g.d*esz)), F("inBatch", Int(g.h*g.w*g.d*esz)))
	c.Call(kernelsig.ResizeNearest, p, c.ConstI32("Rows", ys), c.ConstI32("Cols", xs), Bytes(g.out), Bytes(g.in))
	return nil
}

// bilinearAxisInt8 is ComputeInterpolationValuesInteger over one axis: per
// output index, the element offsets (index times stride) of the two input
// neighbours and their weights in 1/1024 (1024-d, d). It refuses what TFLM
// would compute with int32 overflow or read outside the input.
func bilinearAxisInt8(c *opCtx, n, out, stride int, align, halfPix bool) ([]int32, error) {
	scale := (1024*int64(n) + int64(out/2)) / int64(out)
	if align && out > 1 {
		scale = (1024*int64(n-1) + int64(out-1)/2) / int64(out-1)
	}
	tab := make([]int32, 0, 4*out)
	for v := 0; v < out; v++ {
		s := int64(v) * scale
		if halfPix {
			s += scale/2 - 512
		}
		if s+1023 > math.MaxInt32 {
			return nil, c.Errorf("the fixed-point sample position of row %d overflows int32 in TFLite Micro", v)
		}
		lo := max(s/1024, 0) // truncating division, as in C
		hi := min((s+1023)/1024, int64(n-1))
		d := s - 1024*lo
		if lo > int64(n-1) || hi < 0 || d < -512 || d > 1024 {
			return nil, c.Errorf("output row %d samples input row %d of %d: TFLite Micro would read outside its input", v, lo, n)
		}
		tab = append(tab, int32(lo*int64(stride)), int32(hi*int64(stride)), int32(1024-d), int32(d))
	}
	return tab, nil
}

// bilinearAxisF32 is ComputeInterpolationValues over one axis with float32
// weights (1-d, d), as bits in the int32 table.
func bilinearAxisF32(c *opCtx, n, out, stride int, align, halfPix bool) ([]int32, error) {
	scale := float32(n) / float32(out)
	if align && out > 1 {
		scale = float32(n-1) / float32(out-1)
	}
	tab := make([]int32, 0, 4*out)
	for v := 0; v < out; v++ {
		s := float32(float32(v) * scale)
		if halfPix {
			s = float32((float32(v)+0.5)*scale) - 0.5
		}
		lo := max(int(math.Floor(float64(s))), 0)
		hi := min(int(math.Ceil(float64(s))), n-1)
		if lo > n-1 || hi < 0 {
			return nil, c.Errorf("output row %d samples input row %d of %d: TFLite Micro would read outside its input", v, lo, n)
		}
		d := s - float32(lo)
		tab = append(tab, int32(lo*stride), int32(hi*stride), int32(math.Float32bits(1-d)), int32(math.Float32bits(d)))
	}
	return tab, nil
}

func lowerResizeBilinear(c *opCtx) error {
	g, err := resizeCheck(c)
	if err != nil {
		return err
	}
	if g.align && g.halfPix {
		return c.Errorf("half_pixel_centers requires align_corners false (as TFLite Micro)")
	}
	axis := bilinearAxisInt8
	fn := kernelsig.ResizeBilinearInt8
	switch g.in.Type {
	case model.Int8:
	case model.Float32:
		axis, fn = bilinearAxisF32, kernelsig.ResizeBilinearF32
	default:
		return c.Errorf("type %s not supported (TFLite Micro supports float32 and int8)", g.in.Type)
	}
	ys, err := axis(c, g.h, g.oh, g.w*g.d, g.align, g.halfPix)
	if err != nil {
		return err
	}
	xs, err := axis(c, g.w, g.ow, g.d, g.align, g.halfPix)
	if err != nil {
		return err
	}
	p := Struct(kernelsig.ResizeBilinearParams,
		F("batches", Int(g.b)), F("outH", Int(g.oh)), F("outW", Int(g.ow)),
		F("depth", Int(g.d)), F("inBatch", Int(g.h*g.w*g.d)))
	c.Call(fn, p, c.ConstI32("Rows", ys), c.ConstI32("Cols", xs), View(g.in), View(g.out))
	return nil
}
