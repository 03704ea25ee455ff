package kernels

import "unsafe"

// int8 MUL on the DSP extension: dspMulRows runs n1 rows of a broadcast
// plan (ewBcast's innermost outer dimension) per call, one element at a
// time: the two bytes plus their offsets multiplied (one MUL, the product
// doubled by the first factor's shift), then the requantization of
// convPWQ in one SMMLAR: with K = 2^(r-1) + (zo-lo)*2^r, the high word of
// K*2^32 + 2p*m + 2^31, less 1 for a negative product, shifted right by r
// is mulByQuantMul(p) + zo - lo (convPWQ's N divided by 2^32; exact for
// |p| < 2^30, and a product of two offset int8 values is below 2^16), then
// USAT, the clamp and a byte store: 13 instructions an element without an
// activation clamp, 16 with it (the loop's included). The layer's constants are a record the generator writes
// (dspMulPlan).

// dspMulRecBytes is the size of a MUL record: little-endian int32 words
// inner, n1, a1, b1 (ewBcast's), 2*in1Off, in2Off, the multiplier m, K,
// the right shift r, span (actMax - actMin), lo (actMin), and the mode:
// bit 0 aInner, bit 1 bInner, bit 2 set when the clamp is the int8 range
// itself.
const dspMulRecBytes = 48

// dspMulPlan returns the MUL record for the broadcast plan bc and the
// quantization p, ok false when the DSP loop does not take it: a right
// shift outside 1 to 21 (TFLM's exponent -21 to -1), offsets or a clamp
// out of the int8 domain, or both inputs broadcast along the row.
func dspMulPlan(bc *ewBcast, p *mulQuantParams) ([]byte, bool) {
	r := -p.shift
	zl, span := p.outOff-p.actMin, p.actMax-p.actMin
	if r < 1 || r > 21 || p.mult < 0 || zl < 0 || zl > 255 || span < 0 || span > 255 ||
		bc.inner < 1 || bc.n1 < 1 || bc.aInner|bc.bInner == 0 || bc.aInner > 1 || bc.bInner > 1 || bc.aInner < 0 || bc.bInner < 0 ||
		p.in1Off < -255 || p.in1Off > 255 || p.in2Off < -255 || p.in2Off > 255 {
		return nil, false
	}
	mode := bc.aInner | bc.bInner<<1
	if span == 255 {
		mode |= 4
	}
	k := int32(1)<<(r-1) + zl<<r
	out := make([]byte, 0, dspMulRecBytes)
	for _, v := range []int32{int32(bc.inner), int32(bc.n1), int32(bc.a1), int32(bc.b1), 2 * p.in1Off, p.in2Off, p.mult, k, int32(r), span, p.actMin, int32(mode)} {
		out = append(out, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	}
	return out, true
}

// mulDSPInt8 is MUL for int8 tensors through dspMulRows, one call per
// block of n1 rows; k is the layer's record (dspMulPlan).
func mulDSPInt8(k string, bc *ewBcast, a, b, out []int8) {
	n := bc.inner * bc.n1
	if n <= 0 {
		return
	}
	pk := unsafe.Pointer(unsafe.StringData(k[:dspMulRecBytes]))
	for r, blocks := 0, len(out)/n; r < blocks; r++ {
		ai, bi := ewRowStart(bc, r*bc.n1)
		dspMulRows(unsafe.Pointer(&a[ai]), unsafe.Pointer(&b[bi]), unsafe.Pointer(&out[r*n]), pk)
	}
}

// dspMulRowsRef is dspMulRows in Go: the record's n1 rows of inner
// elements from a and b (rows a1 and b1 bytes apart, elements aInner and
// bInner apart), their products requantized, stored at o one row after
// the other.
func dspMulRowsRef(a, b, o unsafe.Pointer, k unsafe.Pointer) {
	rec := (*[dspMulRecBytes]byte)(k)
	w := func(i int) int32 { return le32((*[4]byte)(rec[4*i : 4*i+4])) }
	inner, n1, a1, b1 := int(w(0)), int(w(1)), int(w(2)), int(w(3))
	o1x2, o2, m, kk, r, span, lo, mode := w(4), w(5), w(6), w(7), w(8), w(9), w(10), w(11)
	sa, sb := int(mode&1), int(mode>>1&1)
	out := unsafe.Slice((*int8)(o), n1*inner)
	for row := 0; row < n1; row++ {
		for i := 0; i < inner; i++ {
			x := int32(*(*int8)(unsafe.Add(a, row*a1+i*sa)))
			y := int32(*(*int8)(unsafe.Add(b, row*b1+i*sb)))
			p2 := (o1x2 + 2*x) * (y + o2)
			t := int32((int64(kk)<<32 + int64(p2)*int64(m) + 1<<31) >> 32)
			t = (t + p2>>31) >> (r & 31)
			out[row*inner+i] = int8(lo + min(max(t, 0), span))
		}
	}
}
