package kernels

import "unsafe"

// Dot products of int8 activations with three weight rows per 64-bit
// multiplication, for the int8 LSTM and fully connected kernels.
//
// At generation time the weights of three rows r0, r1, r2 for one input
// element d are packed into one int64, w0 + w1*2^21 + w2*2^42; multiplied by
// the activation x[d] it gives x*w0 + x*w1*2^21 + x*w2*2^42, the three
// products in 21-bit lanes, and the activation itself needs no packing. A
// product of int8 values is at most 2^14 in magnitude, so a lane summing up
// to triBlock (63) of them stays inside (-2^20, 2^20) and is split exactly
// before it could overflow; the blocks' sums are added in int32. Integer
// sums are exact, so the dot products are bit-identical to a term-by-term
// int32 accumulation (wrapping as it would).
//
// Weights come as four packed rows interleaved per element, 32 bytes per
// element of x: twelve dot products per pass over x.

// triBlock is the number of elements summed before the lanes are split.
const triBlock = 63

// triSums holds the twelve dot products of one pass: packed row k, lane u
// at index 3*k+u.
type triSums [12]int32

// triDotBlock returns the four raw lane sums of the activations x (at most
// triBlock) with the packed weights wq. (Unrolled by two elements, it runs
// the same number of instructions.)
func triDotBlock(x []int8, wq [][32]byte) (s0, s1, s2, s3 int64) {
	wq = wq[:len(x)]
	for d, xv := range x {
		v, q := int64(xv), &wq[d]
		s0 += v * int64(le64((*[8]byte)(q[0:8])))
		s1 += v * int64(le64((*[8]byte)(q[8:16])))
		s2 += v * int64(le64((*[8]byte)(q[16:24])))
		s3 += v * int64(le64((*[8]byte)(q[24:32])))
	}
	return s0, s1, s2, s3
}

// triAdd splits the lanes of s and adds them to a.
func triAdd(a *[3]int32, s int64) {
	v0 := s << 43 >> 43
	s = (s - v0) >> 21
	v1 := s << 43 >> 43
	a[0] += int32(v0)
	a[1] += int32(v1)
	a[2] += int32((s - v1) >> 21)
}

// triDot adds to a the twelve dot products of the activations x with the
// packed weights w (32 bytes per element of x).
func triDot(x []int8, w string, a *triSums) {
	wq := unsafe.Slice((*[32]byte)(unsafe.Pointer(unsafe.StringData(w))), len(w)/32)
	wq = wq[:len(x)]
	// A row of one block (the usual case) leaves the loop after one pass
	// without slicing again.
	for {
		m := min(len(x), triBlock)
		s0, s1, s2, s3 := triDotBlock(x[:m], wq[:m])
		triAdd((*[3]int32)(a[0:3]), s0)
		triAdd((*[3]int32)(a[3:6]), s1)
		triAdd((*[3]int32)(a[6:9]), s2)
		triAdd((*[3]int32)(a[9:12]), s3)
		if m == len(x) {
			return
		}
		x, wq = x[m:], wq[m:]
	}
}
