package kernels

import (
	"math"
	"unsafe"
)

// Float32 dot products over weights stored as constant strings, shared by
// the float FULLY_CONNECTED and LSTM kernels: four interleaved weight rows
// (16 bytes per input element), every product rounded to float32 and each
// row summed in input order, as TFLM's reference kernels do.

// f32Dot4 returns the dot products of x with the four interleaved weight
// rows w (4 floats per element of x), each summed in order.
func f32Dot4(x []float32, w []float32) (a0, a1, a2, a3 float32) {
	wq := unsafe.Slice((*[4]float32)(unsafe.Pointer(unsafe.SliceData(w))), len(w)/4)
	wq = wq[:len(x)]
	for d, xv := range x {
		q := &wq[d]
		a0 += float32(xv * q[0])
		a1 += float32(xv * q[1])
		a2 += float32(xv * q[2])
		a3 += float32(xv * q[3])
	}
	return a0, a1, a2, a3
}

// f32DotStr4 is f32Dot4 for weights read directly from a constant string
// (16 bytes per element of x).
func f32DotStr4(x []float32, w string) (a0, a1, a2, a3 float32) {
	if off := f32StrOff(w); off == 0 {
		return f32Dot4(x, f32StrView(w))
	} else if f32Funnel {
		return f32DotFunnel4(x, w, off)
	}
	wq := unsafe.Slice((*[16]byte)(unsafe.Pointer(unsafe.StringData(w))), len(w)/16)
	wq = wq[:len(x)]
	for d, xv := range x {
		p := wq[d][:]
		a0 += float32(xv * f32q(p, 0))
		a1 += float32(xv * f32q(p, 1))
		a2 += float32(xv * f32q(p, 2))
		a3 += float32(xv * f32q(p, 3))
	}
	return a0, a1, a2, a3
}

// Read-only data has no alignment guarantee (gc packs string data at byte
// granularity), so the string kernels look at the address: a word-aligned
// string is read as float32 directly. Otherwise, on 64-bit targets the
// compiler merges the four byte loads of f32q into one load; 32-bit
// targets (gc for ARM does not merge them) read the aligned words that
// cover the string and shift each float together from two neighbours
// (f32Funnel). Only words inside the string are read: the partial first
// and last words are assembled from bytes.

// f32Funnel is true where int is 32 bits.
const f32Funnel = ^uint(0)>>32 == 0

// f32StrOff returns the address of w's data modulo 4.
func f32StrOff(w string) uint32 {
	return uint32(uintptr(unsafe.Pointer(unsafe.StringData(w)))) & 3
}

// f32StrView views a word-aligned string as float32 values.
func f32StrView(w string) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.StringData(w))), len(w)/4)
}

// f32Words prepares the funnel read of w (address off mod 4, off != 0,
// len(w) a multiple of 4 and at least 4): it returns the first (4-off)
// bytes of w as the low bytes of c, the aligned words that lie entirely
// inside w (len(w)/4-1 of them) and the last off bytes of w as the low
// bytes of e. Float j of w is then word j-1's high bytes (or c) shifted
// down by 8*off, or'ed with word j's low bytes (or e) shifted up by
// 32-8*off.
func f32Words(w string, off uint32) (c uint32, q []uint32, e uint32) {
	n := len(w)
	for k := int(4-off) - 1; k >= 0; k-- {
		c = c<<8 | uint32(w[k])
	}
	for k := n - 1; k >= n-int(off); k-- {
		e = e<<8 | uint32(w[k])
	}
	p := unsafe.Add(unsafe.Pointer(unsafe.StringData(w)), 4-off)
	return c, unsafe.Slice((*uint32)(p), n/4-1), e
}

// f32DotFunnel4 is f32DotStr4 through the funnel (see f32Words): the
// elements but the last in one loop, then the last one, whose last word is
// e.
func f32DotFunnel4(x []float32, w string, off uint32) (a0, a1, a2, a3 float32) {
	c, q, e := f32Words(w, off)
	sl, sr := (8*off)&31, (32-8*off)&31
	n := len(x) - 1
	if n < 0 {
		return
	}
	q = q[:4*n+3]
	for d, xv := range x[:n] {
		r := (*[4]uint32)(q[4*d : 4*d+4])
		w0 := c | r[0]<<sr
		w1 := r[0]>>sl | r[1]<<sr
		w2 := r[1]>>sl | r[2]<<sr
		w3 := r[2]>>sl | r[3]<<sr
		c = r[3] >> sl
		a0 += float32(xv * math.Float32frombits(w0))
		a1 += float32(xv * math.Float32frombits(w1))
		a2 += float32(xv * math.Float32frombits(w2))
		a3 += float32(xv * math.Float32frombits(w3))
	}
	r := (*[3]uint32)(q[4*n:])
	xv := x[n]
	a0 += float32(xv * math.Float32frombits(c|r[0]<<sr))
	a1 += float32(xv * math.Float32frombits(r[0]>>sl|r[1]<<sr))
	a2 += float32(xv * math.Float32frombits(r[1]>>sl|r[2]<<sr))
	a3 += float32(xv * math.Float32frombits(r[2]>>sl|e<<sr))
	return
}

// f32q reads the k-th little-endian float32 of p.
func f32q(p []byte, k int) float32 {
	return math.Float32frombits(uint32(p[4*k]) | uint32(p[4*k+1])<<8 | uint32(p[4*k+2])<<16 | uint32(p[4*k+3])<<24)
}
