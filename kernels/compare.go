package kernels

// Comparisons (EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL)
// and LOGICAL_AND / LOGICAL_OR with broadcasting (see ewBcast), as TFLite
// Micro's comparisons.cc and logical.cc. Outputs are bools, one byte each
// (0 or 1).
//
// One kernel per input type serves all six comparisons: the operator is a
// truth table (cmpParams.mask) over the outcome of comparing x with y, bit
// cmpLess for x < y, cmpEqual for x == y, cmpGreater for x > y and
// cmpUnordered when a float32 operand is NaN (every comparison but
// NOT_EQUAL is then false, as in C).

const (
	cmpLess      = 0
	cmpEqual     = 1
	cmpGreater   = 2
	cmpUnordered = 3
)

// cmpParams is a comparison: the truth table mask and, for int8, TFLM's
// rescaling of both inputs (offset = -zero point, then a left shift by 8
// and the input's scale as a multiplier below one, shift <= 0) before the
// rescaled values are compared.
type cmpParams struct {
	mask               uint8
	in1Off, in2Off     int32
	in1Mult, in2Mult   int32
	in1Shift, in2Shift int
}

// cmpOrd32 is the outcome of comparing two int32.
func cmpOrd32(x, y int32) uint {
	if x < y {
		return cmpLess
	}
	if x > y {
		return cmpGreater
	}
	return cmpEqual
}

// cmpOrd64 is the outcome of comparing two int64.
func cmpOrd64(x, y int64) uint {
	if x < y {
		return cmpLess
	}
	if x > y {
		return cmpGreater
	}
	return cmpEqual
}

// cmpF32 compares float32 tensors.
func cmpF32(p *cmpParams, bc *ewBcast, a, b []float32, out []uint8) {
	m := p.mask
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			x, y := a[ai], b[bi]
			k := uint(cmpUnordered)
			switch {
			case x < y:
				k = cmpLess
			case x > y:
				k = cmpGreater
			case x == y:
				k = cmpEqual
			}
			o[i] = m >> k & 1
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// cmpI32 compares int32 tensors.
func cmpI32(p *cmpParams, bc *ewBcast, a, b []int32, out []uint8) {
	m := p.mask
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			o[i] = m >> cmpOrd32(a[ai], b[bi]) & 1
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// cmpI64 compares int64 tensors.
func cmpI64(p *cmpParams, bc *ewBcast, a, b []int64, out []uint8) {
	m := p.mask
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			o[i] = m >> cmpOrd64(a[ai], b[bi]) & 1
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// cmpBool compares bool tensors (EQUAL and NOT_EQUAL).
func cmpBool(p *cmpParams, bc *ewBcast, a, b []uint8, out []uint8) {
	m := p.mask
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			o[i] = m >> cmpOrd32(int32(a[ai]), int32(b[bi])) & 1
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// cmpInt8 compares int8 tensors after rescaling both, as TFLM's
// ComparisonWithScaling: ((x - zp) << 8) times the input's scale.
func cmpInt8(p *cmpParams, bc *ewBcast, a, b []int8, out []uint8) {
	m := p.mask
	r1, r2 := uint(-p.in1Shift)&31, uint(-p.in2Shift)&31
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			x := ewRequantDown((p.in1Off+int32(a[ai]))<<8, p.in1Mult, r1)
			y := ewRequantDown((p.in2Off+int32(b[bi]))<<8, p.in2Mult, r2)
			o[i] = m >> cmpOrd32(x, y) & 1
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// logicalAnd is LOGICAL_AND of bool tensors.
func logicalAnd(bc *ewBcast, a, b, out []uint8) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			o[i] = b2u8(a[ai] != 0 && b[bi] != 0)
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// logicalOr is LOGICAL_OR of bool tensors.
func logicalOr(bc *ewBcast, a, b, out []uint8) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			o[i] = b2u8(a[ai] != 0 || b[bi] != 0)
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// b2u8 is a bool as a byte.
func b2u8(v bool) uint8 {
	if v {
		return 1
	}
	return 0
}

// loadI64 decodes a constant string of little-endian int64 values into dst,
// so that a constant operand can be read like an activation.
func loadI64(s string, dst []int64) {
	for i := range dst {
		dst[i] = ld64(s, i)
	}
}

// selBcast describes how SELECT_V2 walks its three inputs (condition, x,
// y): like ewBcast, a row of inner elements and up to four outer
// dimensions, innermost first, with each input's step along each (0 where
// it is broadcast). Unused dimensions have size 1 and steps 0.
type selBcast struct {
	inner                  int
	cInner, xInner, yInner int
	n1, n2, n3, n4         int
	c1, c2, c3, c4         int
	x1, x2, x3, x4         int
	y1, y2, y3, y4         int
}

// selRowStart returns the offsets in the three inputs of the first element
// of output row r.
func selRowStart(bc *selBcast, r int) (ci, xi, yi int) {
	k := r % bc.n1
	r /= bc.n1
	ci, xi, yi = k*bc.c1, k*bc.x1, k*bc.y1
	k = r % bc.n2
	r /= bc.n2
	ci, xi, yi = ci+k*bc.c2, xi+k*bc.x2, yi+k*bc.y2
	k = r % bc.n3
	r /= bc.n3
	ci, xi, yi = ci+k*bc.c3, xi+k*bc.x3, yi+k*bc.y3
	k = r % bc.n4
	return ci + k*bc.c4, xi + k*bc.x4, yi + k*bc.y4
}

// selRows is the number of output rows of a SELECT_V2 with n outputs.
func selRows(bc *selBcast, n int) int {
	if bc.inner == 0 {
		return 0
	}
	return n / bc.inner
}

// selectInt8 is SELECT_V2 for int8 (and any one-byte type): out = cond ?
// x : y, element by element after broadcasting.
func selectInt8(bc *selBcast, cond []uint8, x, y, out []int8) {
	n := bc.inner
	for r, rows := 0, selRows(bc, len(out)); r < rows; r++ {
		ci, xi, yi := selRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			v := y[yi]
			if cond[ci] != 0 {
				v = x[xi]
			}
			o[i] = v
			ci += bc.cInner
			xi += bc.xInner
			yi += bc.yInner
		}
	}
}

// selectInt16 is SELECT_V2 for int16.
func selectInt16(bc *selBcast, cond []uint8, x, y, out []int16) {
	n := bc.inner
	for r, rows := 0, selRows(bc, len(out)); r < rows; r++ {
		ci, xi, yi := selRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			v := y[yi]
			if cond[ci] != 0 {
				v = x[xi]
			}
			o[i] = v
			ci += bc.cInner
			xi += bc.xInner
			yi += bc.yInner
		}
	}
}

// selectF32 is SELECT_V2 for float32 (the bits are copied, NaNs too).
func selectF32(bc *selBcast, cond []uint8, x, y, out []float32) {
	n := bc.inner
	for r, rows := 0, selRows(bc, len(out)); r < rows; r++ {
		ci, xi, yi := selRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			v := y[yi]
			if cond[ci] != 0 {
				v = x[xi]
			}
			o[i] = v
			ci += bc.cInner
			xi += bc.xInner
			yi += bc.yInner
		}
	}
}
