package lower

import (
	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// BATCH_MATMUL (TFLite Micro's batch_matmul.cc and batch_matmul_common.cc,
// reference_ops::BatchMatMul): float32, int8 and int16 operands of rank 2
// to 5 of one type, the output of that type too; batch dimensions
// broadcast where one side is 1; adj_x and adj_y transpose the last two
// dimensions of an operand. The quantized multiplier is TFLM's
// (lhs scale * rhs scale, multiplied in float32, over the output scale);
// int16 needs zero points 0. TFLM's transposed copies and its flattening
// of batch dimensions do not change any sum, so the kernels
// (kernels/batch_matmul.go) read the operands in place through strides.
//
// A constant float32 or int16 operand is read from read-only data: as the
// rhs, or, when it is the lhs, by computing out^T = rhs^T lhs^T (same
// products, same summation order). Refused although TFLM runs them: two
// constant float32 or int16 operands (a graph with no input) and
// per-channel quantization (TFLM reads the first scale only).

func init() { register(model.OpBatchMatmul, lowerBatchMatmul, ownBuffer, withMACs(batchMatmulMACs)) }

// bmmExtend pads a shape at the front with 1s to rank n.
func bmmExtend(s []int, n int) []int {
	e := make([]int, n-len(s), n)
	for i := range e {
		e[i] = 1
	}
	return append(e, s...)
}

func lowerBatchMatmul(c *opCtx) error {
	if c.NumIn() != 2 || c.NumOut() != 1 || c.In(0) == nil || c.In(1) == nil || c.Out(0) == nil {
		return c.Errorf("has %d inputs and %d outputs, want 2 and 1", c.NumIn(), c.NumOut())
	}
	lhs, rhs, out := c.In(0), c.In(1), c.Out(0)
	o := c.Op.Options()
	opt := o.BatchMatMul() // asymmetric_quantize_inputs: hybrid kernels only
	adjX, adjY := opt.AdjX, opt.AdjY
	if err := o.Err(); err != nil {
		return c.Errorf("%v", err)
	}
	switch lhs.Type {
	case model.Float32, model.Int8, model.Int16:
	default:
		return c.Errorf("lhs %s: type %s is not supported (float32, int8 or int16)", lhs.Describe(), lhs.Type)
	}
	if rhs.Type != lhs.Type || out.Type != lhs.Type {
		return c.Errorf("lhs %s, rhs %s and output %s must have one type", lhs.Describe(), rhs.Describe(), out.Describe())
	}
	lr, rr := len(lhs.Shape), len(rhs.Shape)
	if lr < 2 || lr > 5 || rr < 2 || rr > 5 {
		return c.Errorf("lhs %s and rhs %s must have rank 2 to 5", lhs.Describe(), rhs.Describe())
	}
	n := max(lr, rr)
	ls, rs := bmmExtend(lhs.Shape, 5), bmmExtend(rhs.Shape, 5)
	// Matrix dimensions: lhs is [A, B] ([B, A] with adj_x), rhs [B, C]
	// ([C, B] with adj_y).
	A, B := ls[3], ls[4]
	lRow, lK := B, 1
	if adjX {
		A, B = ls[4], ls[3]
		lRow, lK = 1, A
	}
	B2, C := rs[3], rs[4]
	rK, rCol := C, 1
	if adjY {
		B2, C = rs[4], rs[3]
		rK, rCol = 1, B2
	}
	if B != B2 {
		return c.Errorf("lhs %s (adj_x %v) and rhs %s (adj_y %v): accumulation depths %d and %d differ", lhs.Describe(), adjX, rhs.Describe(), adjY, B, B2)
	}
	var nb, lb, rb [3]int
	nOut := A * C
	lStride, rStride := A*B, B*C
	for i := 2; i >= 0; i-- {
		l, r := ls[i], rs[i]
		if l != r && l != 1 && r != 1 {
			return c.Errorf("batch dimensions of lhs %s and rhs %s do not broadcast", lhs.Describe(), rhs.Describe())
		}
		nb[i] = max(l, r)
		if l != 1 {
			lb[i] = lStride
		}
		if r != 1 {
			rb[i] = rStride
		}
		lStride *= l
		rStride *= r
		nOut *= nb[i]
	}
	if len(out.Shape) < n || out.NumElements() != nOut {
		return c.Errorf("output %s: want %d elements of rank %d or more", out.Describe(), nOut, n)
	}
	for _, d := range append(append([]int{}, ls...), rs...) {
		if d == 0 {
			return c.Errorf("lhs %s or rhs %s is empty", lhs.Describe(), rhs.Describe())
		}
	}
	fields := func(lb, rb [3]int, rows, cols, lRow, lK, rK, rCol, oRow, oCol int) []Field {
		return []Field{
			F("n0", Int(nb[0])), F("n1", Int(nb[1])), F("n2", Int(nb[2])),
			F("l0", Int(lb[0])), F("l1", Int(lb[1])), F("l2", Int(lb[2])),
			F("r0", Int(rb[0])), F("r1", Int(rb[1])), F("r2", Int(rb[2])),
			F("rows", Int(rows)), F("cols", Int(cols)), F("depth", Int(B)),
			F("lRow", Int(lRow)), F("lK", Int(lK)), F("rK", Int(rK)), F("rCol", Int(rCol)),
			F("oRow", Int(oRow)), F("oCol", Int(oCol)),
		}
	}
	p := fields(lb, rb, A, C, lRow, lK, rK, rCol, C, 1)
	first, second := lhs, rhs
	wide := lhs.Type != model.Int8
	if wide && lhs.IsConst() {
		if rhs.IsConst() {
			return c.Errorf("lhs %s and rhs %s are both constant", lhs.Describe(), rhs.Describe())
		}
		// out^T[c][a] = sum_k rhs[k][c] * lhs[a][k]: the constant lhs
		// becomes the kernel's rhs.
		p = fields(rb, lb, C, A, rCol, rK, lK, lRow, 1, C)
		first, second = rhs, lhs
	}
	if lhs.Type == model.Float32 {
		if second.IsConst() {
			c.Call(kernelsig.BatchMatmulF32ConstR, Struct(kernelsig.BatchMatmulParams, p...), View(first), Str(second), View(out))
		} else {
			c.Call(kernelsig.BatchMatmulF32, Struct(kernelsig.BatchMatmulParams, p...), View(first), View(second), View(out))
		}
		return nil
	}
	var scale [3]float32
	var zp [3]int64
	for i, t := range []*model.Tensor{lhs, rhs, out} {
		if t.Quant == nil || len(t.Quant.Scale) != 1 || len(t.Quant.ZeroPoint) != 1 {
			return c.Errorf("%s needs per-tensor quantization", t.Describe())
		}
		scale[i], zp[i] = t.Quant.Scale[0], t.Quant.ZeroPoint[0]
	}
	prod := scale[0] * scale[1] // a float32 product, as TFLM forms it
	if prod < 0 {
		return c.Errorf("lhs and rhs scales %g and %g have a negative product", scale[0], scale[1])
	}
	m, s, err := c.multiplier("lhs*rhs/output scale", float64(prod)/float64(scale[2]))
	if err != nil {
		return err
	}
	p = append(p, F("outZP", I32(int32(zp[2]))), F("mult", I32(m)), F("shift", Int(s)))
	if lhs.Type == model.Int8 {
		p = append(p, F("lhsZP", I32(int32(zp[0]))), F("rhsZP", I32(int32(zp[1]))))
		c.Call(kernelsig.BatchMatmulInt8, Struct(kernelsig.BatchMatmulParams, p...), View(lhs), View(rhs), View(out))
		return nil
	}
	if zp[0] != 0 || zp[1] != 0 || zp[2] != 0 {
		return c.Errorf("int16 zero points must be 0, have %d, %d and %d", zp[0], zp[1], zp[2])
	}
	if s > 14 {
		// TFLM's 64-bit MultiplyByQuantizedMultiplier shifts right by
		// 15 - shift, undefined from shift 15 on.
		return c.Errorf("lhs*rhs/output scale %g is too large for int16 (exponent %d, at most 14)", float64(prod)/float64(scale[2]), s)
	}
	if second.IsConst() {
		c.Call(kernelsig.BatchMatmulInt16ConstR, Struct(kernelsig.BatchMatmulParams, p...), View(first), Str(second), View(out))
	} else {
		c.Call(kernelsig.BatchMatmulInt16, Struct(kernelsig.BatchMatmulParams, p...), View(first), View(second), View(out))
	}
	return nil
}

// batchMatmulMACs: each output element sums a row of the (adjointed) LHS
// times a column of the RHS: its inner dimension.
func batchMatmulMACs(g *model.Graph, op *model.Op) int64 {
	a := g.Input(op, 0)
	if a == nil || len(a.Shape) < 2 {
		return 0
	}
	k := a.Shape[len(a.Shape)-1]
	if op.Options().BatchMatMul().AdjX {
		k = a.Shape[len(a.Shape)-2]
	}
	return elems64(g.Output(op, 0)) * int64(k)
}
