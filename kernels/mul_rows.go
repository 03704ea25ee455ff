package kernels

import "unsafe"

// mulInt8Rows is mulInt8 (MUL for int8 tensors) for the gc build: each
// row of contiguous elements in one call of mulRun, whose requantization
// is rqOne's (one 32x32->64 multiply of the product plus 2^30, its
// rounding, sign term, output zero point and clamp in a 64-bit addend, a
// shift and a branchless clamp), set up once a call. Layers outside its
// range (a right shift outside 1 to 21, an output zero point or clamp
// span outside 0 to 255 of the lower bound, input offsets beyond +-255,
// strided rows) take mulInt8.
func mulInt8Rows(p *mulQuantParams, bc *ewBcast, a, b, out []int8) {
	r := -p.shift
	if r < 1 || r > 21 || p.mult < 0 || p.outOff < -128 || p.outOff > 127 || p.actMin < -128 || p.actMax > 127 || p.actMin > p.actMax ||
		p.in1Off < -255 || p.in1Off > 255 || p.in2Off < -255 || p.in2Off > 255 || bc.aInner != 1 || bc.bInner != 1 {
		mulInt8(p, bc, a, b, out)
		return
	}
	// rqOne's addend for the sums s = prod + 2^31 (|prod| <= 255^2, so
	// that s*2m's low word is 0 and the addend's is 2^31): the rounding
	// half, -[prod < 0] (which s>>31 adds back) and zo + 128 (the clamp
	// to [-128, 127]), less 2^31 * 2m.
	m2 := 2 * uint32(p.mult)
	kh := int32(1)<<(r-1) + (p.outOff+128)<<r - 1
	k := mulRunRec{o1: p.in1Off, o2: p.in2Off, m2: m2, dh: uint32(kh) - uint32(p.mult), r: uint32(r)}
	clamp := p.actMin > -128 || p.actMax < 127
	n := bc.inner
	if n <= 0 {
		return
	}
	for row, rows := 0, ewRows(bc, len(out)); row < rows; row++ {
		ai, bi := ewRowStart(bc, row)
		o := out[row*n : row*n+n]
		x, y := a[ai:ai+n], b[bi:bi+n]
		mulRun(unsafe.Pointer(&x[0]), unsafe.Pointer(&y[0]), unsafe.Pointer(&o[0]), n, &k)
		if clamp {
			poolClamp(o, p.actMin, p.actMax)
		}
	}
}

// mulRunRec holds mulRun's constants: the input offsets, twice the
// multiplier, the high word of the addend and the right shift.
type mulRunRec struct {
	o1, o2 int32
	m2, dh uint32
	r      uint32
}

// mulRun writes to o the requantized products of n > 0 elements of a and
// b, (o1 + a) * (o2 + b) rescaled as rqOne0 does (with its addend's high
// word dh, low word 2^31, the shift r), plus the zero point, clamped to
// [-128, 127]. Not inlined: with few values live, gc keeps them in
// registers.
//
//go:noinline
func mulRun(a, b, o unsafe.Pointer, n int, k *mulRunRec) {
	o1, o2, m2, dh, r := k.o1, k.o2, k.m2, k.dh, k.r&31
	// b and o at their distances from a: one pointer steps.
	db, do := uintptr(b)-uintptr(a), uintptr(o)-uintptr(a)
	e := unsafe.Add(a, n-1)
	for {
		s := uint32((o1+int32(*(*int8)(a)))*(o2+int32(*(*int8)(unsafe.Add(a, db))))) + 1<<31
		x := uint64(s)*uint64(m2) + (uint64(dh)<<32 | 1<<31)
		y := int32(uint32(x>>32)+s>>31) >> r
		// y clamped to [0, 255], less 128.
		y &^= y >> 31
		y |= (255 - y) >> 31
		*(*int8)(unsafe.Add(a, do)) = int8(y ^ 0x80)
		if a == e {
			break
		}
		a = unsafe.Add(a, 1)
	}
}
