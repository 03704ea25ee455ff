package kernels

import "unsafe"

// Binary elementwise operators (ADD, SUB, MUL) with NumPy-style
// broadcasting, as in TFLite Micro's reference kernels. The arithmetic of
// every output element depends only on the two input elements it reads, so
// the order in which the output is visited does not change the result; the
// kernels walk the output in memory order, one row at a time.
//
// Broadcasting is planned at generation time: dimensions that can be walked
// as one are fused (as TFLM's BroadcastBinaryOpSimple does), the innermost
// fused dimension becomes the row, and up to five outer dimensions remain,
// each with its own step in the two inputs (0 where an input is broadcast).
// A non-broadcast operator is a single row covering the whole tensor.

// ewBcast describes how a binary elementwise operator walks its inputs.
// Outer dimensions are numbered from the innermost (1) outwards; unused ones
// have size 1 and steps 0. Steps are in elements.
type ewBcast struct {
	inner              int // row length (innermost fused dimension)
	aInner, bInner     int // steps of the two inputs along a row
	n1, n2, n3, n4, n5 int
	a1, a2, a3, a4, a5 int
	b1, b2, b3, b4, b5 int
}

// ewRowStart returns the offsets in the two inputs of the first element of
// output row r.
func ewRowStart(bc *ewBcast, r int) (ai, bi int) {
	k := r % bc.n1
	r /= bc.n1
	ai, bi = k*bc.a1, k*bc.b1
	k = r % bc.n2
	r /= bc.n2
	ai, bi = ai+k*bc.a2, bi+k*bc.b2
	k = r % bc.n3
	r /= bc.n3
	ai, bi = ai+k*bc.a3, bi+k*bc.b3
	k = r % bc.n4
	r /= bc.n4
	ai, bi = ai+k*bc.a4, bi+k*bc.b4
	k = r % bc.n5
	ai, bi = ai+k*bc.a5, bi+k*bc.b5
	return ai, bi
}

// ewRows is the number of output rows of an operator with n output elements.
func ewRows(bc *ewBcast, n int) int {
	if bc.inner == 0 {
		return 0
	}
	return n / bc.inner
}

// ewQuantParams holds the generation-time constants of a quantized ADD or
// SUB: both inputs are moved to a common scale with leftShift extra bits of
// headroom, combined, and rescaled to the output. Offsets are the negated
// input zero points and the output zero point.
type ewQuantParams struct {
	in1Off, in2Off, outOff       int32
	in1Mult, in2Mult, outMult    int32
	in1Shift, in2Shift, outShift int // all <= 0
	leftShift                    int // 20 for int8, 15 for int16
	actMin, actMax               int32
}

// ewF32Params holds the fused activation bounds of a float32 operator.
type ewF32Params struct {
	actMin, actMax float32
}

// ewI32Params holds the fused activation bounds of an int32 operator.
type ewI32Params struct {
	actMin, actMax int32
}

// ewRequantDown is TFLM's MultiplyByQuantizedMultiplierSmallerThanOneExp
// (mulByQuantMul with shift = -right, 0 <= right < 32, same bits) for m >
// MinInt32 (the generator's multipliers are positive), without branches.
// The doubling high multiply (x*m + nudge) / 2^31, rounded toward zero with
// a nudge of 2^30 (1 - 2^30 for negative products), is floor((x*m + 2^30) /
// 2^31) in both cases.
func ewRequantDown(x, m int32, right uint) int32 {
	v := int32((int64(x)*int64(m) + 1<<30) >> 31)
	mask := int32(1)<<right - 1
	return v>>right + int32(uint32(mask>>1+int32(uint32(v)>>31)-v&mask)>>31)
}

// addQuantOne adds two quantized values (already widened to int32).
func addQuantOne(p *ewQuantParams, x, y int32) int32 {
	a := ewRequantDown((p.in1Off+x)*(int32(1)<<uint(p.leftShift)), p.in1Mult, uint(-p.in1Shift))
	b := ewRequantDown((p.in2Off+y)*(int32(1)<<uint(p.leftShift)), p.in2Mult, uint(-p.in2Shift))
	r := ewRequantDown(a+b, p.outMult, uint(-p.outShift)) + p.outOff
	return clampI32(r, p.actMin, p.actMax)
}

// subQuantOne subtracts two quantized values (already widened to int32).
func subQuantOne(p *ewQuantParams, x, y int32) int32 {
	a := ewRequantDown((p.in1Off+x)*(int32(1)<<uint(p.leftShift)), p.in1Mult, uint(-p.in1Shift))
	b := ewRequantDown((p.in2Off+y)*(int32(1)<<uint(p.leftShift)), p.in2Mult, uint(-p.in2Shift))
	r := ewRequantDown(a-b, p.outMult, uint(-p.outShift)) + p.outOff
	return clampI32(r, p.actMin, p.actMax)
}

// addInt8Tab is ADD for int8 tensors with each input's rescaled term taken
// from a table computed at generation time: tab holds 512 little-endian
// int32, entry uint8(x) the term of input 1 value x (its offset added,
// shifted left and rescaled as addQuantOne does), entry 256+uint8(y) that of
// input 2 value y (negated for SUB, see subInt8Tab). Only the rescaling of
// their sum is computed per element; the bits are addQuantOne's.
func addInt8Tab(p *ewQuantParams, tab string, bc *ewBcast, a, b, out []int8) {
	t := (*[2048]byte)(unsafe.Pointer(unsafe.StringData(tab[:2048])))
	mo, ro, oo := p.outMult, uint(-p.outShift)&31, p.outOff
	lo, hi := p.actMin, p.actMax
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		if bc.aInner == 1 && bc.bInner == 1 {
			as, bs := a[ai:ai+n], b[bi:bi+n]
			as, bs = as[:len(o)], bs[:len(o)]
			if ro >= 1 && ro <= 21 && mo >= 0 && oo >= -128 && oo <= 128 {
				addInt8TabFast(t, as, bs, o, uint32(mo), ro, oo, lo, hi)
				continue
			}
			for i := range o {
				s := ewTab32(t, int(uint8(as[i]))) + ewTab32(t, 256+int(uint8(bs[i])))
				o[i] = int8(clampI32(ewRequantDown(s, mo, ro)+oo, lo, hi))
			}
			continue
		}
		for i := range o {
			s := ewTab32(t, int(uint8(a[ai]))) + ewTab32(t, 256+int(uint8(b[bi])))
			o[i] = int8(clampI32(ewRequantDown(s, mo, ro)+oo, lo, hi))
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// addInt8TabFast is addInt8Tab's loop over contiguous a, b and out (the
// same length) for an output right shift r of 1 to 21, m >= 0 and |oo| <=
// 128: the rescaling is dwRQFast with the output zero point folded in (a
// table term is at most 255*2^20 in magnitude, so the sum stays below
// 2^29), the table entries are read through pointers at constant offsets.
func addInt8TabFast(t *[2048]byte, a, b, out []int8, m uint32, r uint, oo, lo, hi int32) {
	ru := uint32(r) & 31
	k, mm, sh := 1+int32(1)<<ru+oo<<((ru+1)&31), -int32(m)-2, ru+1
	tp := unsafe.Pointer(t)
	a, b = a[:len(out)], b[:len(out)]
	for i := range out {
		pa := unsafe.Add(tp, 4*uintptr(uint8(a[i])))
		pb := unsafe.Add(tp, 1024+4*uintptr(uint8(b[i])))
		s := ewTabAt(pa) + ewTabAt(pb)
		out[i] = int8(dwClamp(dwRQFast(s, m, k, mm, sh), lo, hi))
	}
}

// ewTabAt reads the little-endian int32 at p.
func ewTabAt(p unsafe.Pointer) int32 {
	q := (*[4]byte)(p)
	return int32(uint32(q[0]) | uint32(q[1])<<8 | uint32(q[2])<<16 | uint32(q[3])<<24)
}

// subInt8Tab is SUB for int8 tensors: addInt8Tab with input 2's terms
// negated in the table (the difference of the terms is then their sum).
func subInt8Tab(p *ewQuantParams, tab string, bc *ewBcast, a, b, out []int8) {
	addInt8Tab(p, tab, bc, a, b, out)
}

// ewTab32 reads little-endian int32 number i (0..511) of a 2 KiB table.
func ewTab32(t *[2048]byte, i int) int32 {
	return ewTabAt(unsafe.Add(unsafe.Pointer(t), 4*(i&511)))
}

// addInt16 is ADD for int16 tensors (TFLM's general rescaling path; the
// pot_scale_int16 option is ignored, as TFLM does).
func addInt16(p *ewQuantParams, bc *ewBcast, a, b, out []int16) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			o[i] = int16(addQuantOne(p, int32(a[ai]), int32(b[bi])))
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// addF32 is ADD for float32 tensors.
func addF32(p *ewF32Params, bc *ewBcast, a, b, out []float32) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			o[i] = clampF32(a[ai]+b[bi], p.actMin, p.actMax)
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// addI32 is ADD for int32 tensors: wrapping addition, clamped to the
// activation bounds.
func addI32(p *ewI32Params, bc *ewBcast, a, b, out []int32) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			o[i] = clampI32(a[ai]+b[bi], p.actMin, p.actMax)
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// subInt16 is SUB for int16 tensors.
func subInt16(p *ewQuantParams, bc *ewBcast, a, b, out []int16) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			o[i] = int16(subQuantOne(p, int32(a[ai]), int32(b[bi])))
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// subF32 is SUB for float32 tensors.
func subF32(p *ewF32Params, bc *ewBcast, a, b, out []float32) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			o[i] = clampF32(a[ai]-b[bi], p.actMin, p.actMax)
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// subI32 is SUB for int32 tensors (wrapping).
func subI32(p *ewI32Params, bc *ewBcast, a, b, out []int32) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			o[i] = clampI32(a[ai]-b[bi], p.actMin, p.actMax)
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// mulQuantParams holds the generation-time constants of a quantized MUL:
// negated input zero points, the output zero point, the rescaling of the
// product to the output scale and the activation bounds.
type mulQuantParams struct {
	in1Off, in2Off, outOff int32
	mult                   int32
	shift                  int
	actMin, actMax         int32
}

// mulQuantOne multiplies two quantized values (already widened to int32).
func mulQuantOne(p *mulQuantParams, x, y int32) int32 {
	r := mulByQuantMul((p.in1Off+x)*(p.in2Off+y), p.mult, p.shift) + p.outOff
	return clampI32(r, p.actMin, p.actMax)
}

// mulInt8 is MUL for int8 tensors. The requantization is rqApply's (one
// 32x32->64 multiply, set up once a call) where it is exact, which is for
// every multiplier and exponent quant.Multiplier produces.
func mulInt8(p *mulQuantParams, bc *ewBcast, a, b, out []int8) {
	n := bc.inner
	if p.mult >= 0 && p.shift >= -31 && p.shift <= 30 {
		q := rqFor(p.mult, p.shift)
		o1, o2, zo, lo, hi := p.in1Off, p.in2Off, p.outOff, p.actMin, p.actMax
		for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
			ai, bi := ewRowStart(bc, r)
			o := out[r*n : r*n+n]
			if bc.aInner == 1 && bc.bInner == 1 {
				x, y := a[ai:ai+len(o)], b[bi:bi+len(o)]
				for i := range o {
					o[i] = int8(clampI32(rqApply((o1+int32(x[i]))*(o2+int32(y[i])), &q)+zo, lo, hi))
				}
				continue
			}
			for i := range o {
				o[i] = int8(clampI32(rqApply((o1+int32(a[ai]))*(o2+int32(b[bi])), &q)+zo, lo, hi))
				ai += bc.aInner
				bi += bc.bInner
			}
		}
		return
	}
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			o[i] = int8(mulQuantOne(p, int32(a[ai]), int32(b[bi])))
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// mulInt16 is MUL for int16 tensors (zero points are 0).
func mulInt16(p *mulQuantParams, bc *ewBcast, a, b, out []int16) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			o[i] = int16(mulQuantOne(p, int32(a[ai]), int32(b[bi])))
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// mulF32 is MUL for float32 tensors.
func mulF32(p *ewF32Params, bc *ewBcast, a, b, out []float32) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			o[i] = clampF32(a[ai]*b[bi], p.actMin, p.actMax)
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// mulI32 is MUL for int32 tensors (wrapping; quantization is ignored, as in
// TFLM).
func mulI32(p *ewI32Params, bc *ewBcast, a, b, out []int32) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			o[i] = clampI32(a[ai]*b[bi], p.actMin, p.actMax)
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// ewLoadI16 decodes a constant string of little-endian int16 values into
// dst, so that a constant operand can be read like an activation.
func ewLoadI16(s string, dst []int16) {
	for i := range dst {
		dst[i] = int16(uint16(s[2*i]) | uint16(s[2*i+1])<<8)
	}
}

// ewLoadI32 decodes a constant string of little-endian int32 values into dst.
func ewLoadI32(s string, dst []int32) {
	for i := range dst {
		dst[i] = ld32(s, i)
	}
}

// ewLoadF32 decodes a constant string of little-endian float32 values into
// dst.
func ewLoadF32(s string, dst []float32) {
	for i := range dst {
		dst[i] = ldf32(s, i)
	}
}
