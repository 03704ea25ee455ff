package lower

import (
	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// GATHER, GATHER_ND and EMBEDDING_LOOKUP (TFLite Micro's gather.cc,
// gather_nd.cc and embedding_lookup.cc): row copies chosen by an int32
// index input (kernels/gather.go). TFLM accepts float32 and int8 data and
// int32 indices only, and so do these lowerings. All sizes are computed
// here; the kernels clamp every run-time index into the dimension it
// indexes, so a bad index cannot make Invoke read outside a tensor (TFLM
// does not check in release builds, or fails the Invoke). Constant index
// tensors are read from read-only data by the *ConstIdx kernels.

func init() {
	register(model.OpGather, lowerGather, ownBuffer)
	register(model.OpGatherNd, lowerGatherNd, ownBuffer)
	register(model.OpEmbeddingLookup, lowerEmbeddingLookup, ownBuffer)
}

// gatherData checks a data input of GATHER or GATHER_ND against the output.
func gatherData(c *opCtx, what string, in, out *model.Tensor) error {
	if in == nil {
		return c.Errorf("%s input is missing", what)
	}
	switch in.Type {
	case model.Float32, model.Int8:
	default:
		return c.Errorf("%s type %s not supported (TFLite Micro supports float32 and int8)", what, in.Type)
	}
	if out.Type != in.Type {
		return c.Errorf("output type %s differs from %s type %s", out.Type, what, in.Type)
	}
	return nil
}

// gatherIndices checks an index input: int32 only, as TFLM.
func gatherIndices(c *opCtx, what string, t *model.Tensor) error {
	if t == nil {
		return c.Errorf("%s input is missing", what)
	}
	if t.Type != model.Int32 {
		return c.Errorf("%s of type %s not supported (TFLite Micro supports int32 only)", what, t.Type)
	}
	return nil
}

// gatherIdxArg passes an index tensor: a view, or read-only data when
// constant (with the kernel variant that reads it so).
func gatherIdxArg(t *model.Tensor, run, konst kernelsig.Func) (kernelsig.Func, Arg) {
	if t.IsConst() {
		return konst, Str(t)
	}
	return run, View(t)
}

// lowerGather follows GatherPrepare: axis and batch_dims (negative values
// counted from the end of the input and of the positions), batch_dims <=
// axis, equal leading batch dimensions; output shape input[:axis] +
// positions[batch_dims:] + input[axis+1:].
func lowerGather(c *opCtx) error {
	if c.NumIn() != 2 || c.NumOut() != 1 {
		return c.Errorf("has %d inputs and %d outputs, want 2 and 1", c.NumIn(), c.NumOut())
	}
	in, pos, out := c.In(0), c.In(1), c.Out(0)
	if err := gatherIndices(c, "positions", pos); err != nil {
		return err
	}
	if err := gatherData(c, "params", in, out); err != nil {
		return err
	}
	o := c.Op.Options()
	opt := o.Gather()
	axis, bd := int(opt.Axis), int(opt.BatchDims)
	if err := o.Err(); err != nil {
		return c.Errorf("%v", err)
	}
	rank, prank := len(in.Shape), len(pos.Shape)
	if axis < 0 {
		axis += rank
	}
	if axis < 0 || axis >= rank {
		return c.Errorf("axis %d out of range for a %d-D input", opt.Axis, rank)
	}
	if bd < 0 {
		bd += prank
	}
	if bd < 0 || bd > axis || bd >= rank || bd > prank {
		return c.Errorf("batch_dims %d invalid for axis %d, a %d-D input and %d-D positions", opt.BatchDims, axis, rank, prank)
	}
	for i := 0; i < bd; i++ {
		if in.Shape[i] != pos.Shape[i] {
			return c.Errorf("batch dimension %d: input %v and positions %v differ", i, in.Shape, pos.Shape)
		}
	}
	want := append(append(append([]int{}, in.Shape[:axis]...), pos.Shape[bd:]...), in.Shape[axis+1:]...)
	if !moveSameShape(out.Shape, want) {
		return c.Errorf("output shape %v, want %v", out.Shape, want)
	}
	if out.NumElements() == 0 {
		return nil
	}
	if in.Shape[axis] == 0 {
		return c.Errorf("gathers from an empty axis %d of %v", axis, in.Shape)
	}
	p := Struct(kernelsig.GatherParams,
		F("batches", Int(shapeProd(in.Shape[:bd]))), F("outer", Int(shapeProd(in.Shape[bd:axis]))),
		F("coords", Int(shapeProd(pos.Shape[bd:]))), F("axis", Int(in.Shape[axis])),
		F("row", Int(shapeProd(in.Shape[axis+1:])*in.Type.Size())))
	fn, idx := gatherIdxArg(pos, kernelsig.Gather, kernelsig.GatherConstIdx)
	c.Call(fn, p, Bytes(out), Bytes(in), idx)
	return nil
}

// gatherNdMax is TFLM's MAX_INDICES_ND.
const gatherNdMax = 5

// lowerGatherNd follows GatherNdPrepare: params and indices at least 1-D,
// index tuples of at most min(rank(params), 5) values; output shape
// indices[:-1] + params[nd:].
func lowerGatherNd(c *opCtx) error {
	if c.NumIn() != 2 || c.NumOut() != 1 {
		return c.Errorf("has %d inputs and %d outputs, want 2 and 1", c.NumIn(), c.NumOut())
	}
	params, idx, out := c.In(0), c.In(1), c.Out(0)
	if err := gatherData(c, "params", params, out); err != nil {
		return err
	}
	if err := gatherIndices(c, "indices", idx); err != nil {
		return err
	}
	if len(params.Shape) < 1 || len(idx.Shape) < 1 {
		return c.Errorf("params %v and indices %v must be at least vectors", params.Shape, idx.Shape)
	}
	nd := idx.Shape[len(idx.Shape)-1]
	if nd > len(params.Shape) || nd > gatherNdMax {
		return c.Errorf("index tuples of %d values for %d-D params (at most the rank and %d)", nd, len(params.Shape), gatherNdMax)
	}
	want := append(append([]int{}, idx.Shape[:len(idx.Shape)-1]...), params.Shape[nd:]...)
	if !moveSameShape(out.Shape, want) {
		return c.Errorf("output shape %v, want %v", out.Shape, want)
	}
	if out.NumElements() == 0 {
		return nil
	}
	if params.NumElements() == 0 {
		return c.Errorf("gathers from empty params %v", params.Shape)
	}
	esz := params.Type.Size()
	fields := []Field{
		F("slices", Int(shapeProd(idx.Shape[:len(idx.Shape)-1]))), F("nd", Int(nd)),
		F("slice", Int(shapeProd(params.Shape[nd:])*esz)),
	}
	dims := [gatherNdMax]int{1, 1, 1, 1, 1}
	var strides [gatherNdMax]int
	for j := 0; j < nd; j++ {
		dims[j] = params.Shape[j]
		strides[j] = shapeProd(params.Shape[j+1:]) * esz
	}
	for j, name := range []string{"dim0", "dim1", "dim2", "dim3", "dim4"} {
		fields = append(fields, F(name, Int(dims[j])))
	}
	for j, name := range []string{"stride0", "stride1", "stride2", "stride3", "stride4"} {
		fields = append(fields, F(name, Int(strides[j])))
	}
	fn, ia := gatherIdxArg(idx, kernelsig.GatherNd, kernelsig.GatherNdConstIdx)
	c.Call(fn, Struct(kernelsig.GatherNdParams, fields...), Bytes(out), Bytes(params), ia)
	return nil
}

// lowerEmbeddingLookup follows EmbeddingLookUpPrepare: 1-D int32 ids, a
// table of at least 2 dimensions, float32 to float32, int8 to int8 (a row
// copy) or int8 to float32 (dequantized with the table's scale, zero point
// 0); output shape [len(ids)] + table[1:].
func lowerEmbeddingLookup(c *opCtx) error {
	if c.NumIn() != 2 || c.NumOut() != 1 {
		return c.Errorf("has %d inputs and %d outputs, want 2 and 1", c.NumIn(), c.NumOut())
	}
	ids, table, out := c.In(0), c.In(1), c.Out(0)
	if err := gatherIndices(c, "ids", ids); err != nil {
		return err
	}
	if len(ids.Shape) != 1 {
		return c.Errorf("ids shape %v, want 1 dimension", ids.Shape)
	}
	if table == nil || len(table.Shape) < 2 {
		return c.Errorf("table must have at least 2 dimensions")
	}
	hybrid := false
	switch {
	case table.Type == model.Float32 && out.Type == model.Float32:
	case table.Type == model.Int8 && out.Type == model.Int8:
	case table.Type == model.Int8 && out.Type == model.Float32:
		hybrid = true
	default:
		return c.Errorf("table type %s with output type %s not supported (TFLite Micro: float32 to float32, int8 to int8 or float32)", table.Type, out.Type)
	}
	want := append([]int{ids.Shape[0]}, table.Shape[1:]...)
	if !moveSameShape(out.Shape, want) {
		return c.Errorf("output shape %v, want %v", out.Shape, want)
	}
	if out.NumElements() == 0 {
		return nil
	}
	rows := table.Shape[0]
	if rows == 0 {
		return c.Errorf("table %v has no rows", table.Shape)
	}
	cols := table.NumElements() / rows
	if !hybrid {
		p := Struct(kernelsig.GatherParams, F("batches", Int(1)), F("outer", Int(1)),
			F("coords", Int(ids.Shape[0])), F("axis", Int(rows)), F("row", Int(cols*table.Type.Size())))
		fn, idx := gatherIdxArg(ids, kernelsig.Gather, kernelsig.GatherConstIdx)
		c.Call(fn, p, Bytes(out), Bytes(table), idx)
		return nil
	}
	scale, zp := shapeQuant(table)
	if zp != 0 {
		return c.Errorf("int8 table zero point %d, want 0 (as TFLite Micro)", zp)
	}
	p := Struct(kernelsig.GatherParams, F("batches", Int(1)), F("outer", Int(1)),
		F("coords", Int(ids.Shape[0])), F("axis", Int(rows)), F("row", Int(cols)))
	fn, idx := gatherIdxArg(ids, kernelsig.EmbeddingHybrid, kernelsig.EmbeddingHybridConstIdx)
	c.Call(fn, p, F32(scale), View(out), View(table), idx)
	return nil
}
