package kernels

import (
	"math/bits"
	"unsafe"
)

// Dot products of int8 activations with eight weight rows at a time, one
// byte per weight, for the int8 LSTM, FULLY_CONNECTED and SVDF kernels.
//
// Layout (built at generation time, gen/lower's octPack): rows in blocks of
// eight (the last block padded with zero rows), len(x)*8 bytes each. A
// block holds its columns by groups of four, [k/4][8][4]: the eight rows'
// four weights for input elements 4g..4g+3, row after row; then the last
// k%4 columns as [8][k%4]. Every weight w is stored as the byte w+128
// (w^0x80), so that the 64-bit path below can mask bytes into lanes and
// the DSP loop can widen them with UXTB16; the raw sums are therefore
// sum(x*(w+128)) and the caller adds -128*sum(x) (fcSumI8), once per input
// vector. A weight string ends with octPad zero bytes: the loads of the
// last block may reach that far past it.
//
// Integer sums are exact (or wrap in int32 as TFLM's accumulator does), so
// the results are the reference's dot products bit for bit, on every path:
//
//   - Cortex-M4/M7 under TinyGo (dsp_oct_arm.go): one word load of four
//     activations widened by two SXTB16 per group, and per row one word
//     load of its four weights widened by two UXTB16 into two SMLAD (43
//     instructions for 32 multiply-accumulates);
//   - other 32-bit targets (octPass8Ref): plain int32 multiply-accumulates
//     (one MLA per weight on ARM, after one byte load), all eight rows in
//     one pass (one activation load per eight MACs), sixteen input
//     elements per iteration;
//   - 64-bit targets: one 8-byte load at offset j+8m of a group holds
//     column j of rows 2m and 2m+1 in bytes 0 and 4; masked, it is two
//     weights in 32-bit lanes, so one 64-bit multiply by the activation
//     gives two products. Four loads at offsets j, j+8, j+16, j+24 cover
//     the group's eight rows.
//
// A lane sums at most len(x) products x*(w+128) in (-2^15, 2^15), well
// inside its 32 bits for any vector shorter than 65536.

// octPad is the number of zero bytes after the last block of a weight
// string.
const octPad = 4

// octDot stores in a the eight raw sums sum(x[d]*(w[r][d]+128)) of the
// block of eight rows at the start of w (len(x)*8 bytes, followed by at
// least octPad bytes). a is eight words of the caller's planned
// scratch in the arena: the DSP loop (dsp_oct_arm.go) stores the sums there
// from assembly, and a Go local's address handed to it would move that
// local to the heap under TinyGo.
func octDot(x []int8, w string, a *[8]int32) {
	w = w[:8*len(x)+octPad]
	p := unsafe.Pointer(unsafe.StringData(w))
	if bits.UintSize == 64 {
		octDot64(x, p, a)
		return
	}
	octPass8(x, p, a)
}

// octPass8Ref is octPass8 (the DSP loop of dsp_oct_arm.go) in Go, the
// 32-bit path elsewhere: it computes the eight rows of a block at p in one
// pass over x: eight accumulators, the activation, the weight and the two
// walking pointers fill the registers of a 32-bit core (gc for ARM keeps
// the end pointer on the stack and reloads it once per group of sixteen
// elements). It stays a function of its own: inlined into its caller
// (TinyGo inlines a function with one caller, as the SVDF kernels are in a
// package whose fully connected layers run on the DSP loop), its spills
// grow that caller's frame by 168 bytes.
//
//go:noinline
func octPass8Ref(x []int8, p unsafe.Pointer, a *[8]int32) {
	k := len(x)
	n := k / 16
	var a0, a1, a2, a3, a4, a5, a6, a7 int32
	// The last k%16 elements first: then nothing but a is live across the
	// main loop.
	d := 16 * n
	if k&8 != 0 {
		xx, q := (*[8]int8)(x[d:d+8]), (*[64]uint8)(unsafe.Add(p, 8*d))
		v := int32(xx[0])
		a0 += v * int32(q[0])
		a1 += v * int32(q[4])
		a2 += v * int32(q[8])
		a3 += v * int32(q[12])
		a4 += v * int32(q[16])
		a5 += v * int32(q[20])
		a6 += v * int32(q[24])
		a7 += v * int32(q[28])
		v = int32(xx[1])
		a0 += v * int32(q[1])
		a1 += v * int32(q[5])
		a2 += v * int32(q[9])
		a3 += v * int32(q[13])
		a4 += v * int32(q[17])
		a5 += v * int32(q[21])
		a6 += v * int32(q[25])
		a7 += v * int32(q[29])
		v = int32(xx[2])
		a0 += v * int32(q[2])
		a1 += v * int32(q[6])
		a2 += v * int32(q[10])
		a3 += v * int32(q[14])
		a4 += v * int32(q[18])
		a5 += v * int32(q[22])
		a6 += v * int32(q[26])
		a7 += v * int32(q[30])
		v = int32(xx[3])
		a0 += v * int32(q[3])
		a1 += v * int32(q[7])
		a2 += v * int32(q[11])
		a3 += v * int32(q[15])
		a4 += v * int32(q[19])
		a5 += v * int32(q[23])
		a6 += v * int32(q[27])
		a7 += v * int32(q[31])
		v = int32(xx[4])
		a0 += v * int32(q[32])
		a1 += v * int32(q[36])
		a2 += v * int32(q[40])
		a3 += v * int32(q[44])
		a4 += v * int32(q[48])
		a5 += v * int32(q[52])
		a6 += v * int32(q[56])
		a7 += v * int32(q[60])
		v = int32(xx[5])
		a0 += v * int32(q[33])
		a1 += v * int32(q[37])
		a2 += v * int32(q[41])
		a3 += v * int32(q[45])
		a4 += v * int32(q[49])
		a5 += v * int32(q[53])
		a6 += v * int32(q[57])
		a7 += v * int32(q[61])
		v = int32(xx[6])
		a0 += v * int32(q[34])
		a1 += v * int32(q[38])
		a2 += v * int32(q[42])
		a3 += v * int32(q[46])
		a4 += v * int32(q[50])
		a5 += v * int32(q[54])
		a6 += v * int32(q[58])
		a7 += v * int32(q[62])
		v = int32(xx[7])
		a0 += v * int32(q[35])
		a1 += v * int32(q[39])
		a2 += v * int32(q[43])
		a3 += v * int32(q[47])
		a4 += v * int32(q[51])
		a5 += v * int32(q[55])
		a6 += v * int32(q[59])
		a7 += v * int32(q[63])
		d += 8
	}
	if k&4 != 0 {
		xx, q := (*[4]int8)(x[d:d+4]), (*[32]uint8)(unsafe.Add(p, 8*d))
		v := int32(xx[0])
		a0 += v * int32(q[0])
		a1 += v * int32(q[4])
		a2 += v * int32(q[8])
		a3 += v * int32(q[12])
		a4 += v * int32(q[16])
		a5 += v * int32(q[20])
		a6 += v * int32(q[24])
		a7 += v * int32(q[28])
		v = int32(xx[1])
		a0 += v * int32(q[1])
		a1 += v * int32(q[5])
		a2 += v * int32(q[9])
		a3 += v * int32(q[13])
		a4 += v * int32(q[17])
		a5 += v * int32(q[21])
		a6 += v * int32(q[25])
		a7 += v * int32(q[29])
		v = int32(xx[2])
		a0 += v * int32(q[2])
		a1 += v * int32(q[6])
		a2 += v * int32(q[10])
		a3 += v * int32(q[14])
		a4 += v * int32(q[18])
		a5 += v * int32(q[22])
		a6 += v * int32(q[26])
		a7 += v * int32(q[30])
		v = int32(xx[3])
		a0 += v * int32(q[3])
		a1 += v * int32(q[7])
		a2 += v * int32(q[11])
		a3 += v * int32(q[15])
		a4 += v * int32(q[19])
		a5 += v * int32(q[23])
		a6 += v * int32(q[27])
		a7 += v * int32(q[31])
		d += 4
	}
	if t := k - d; t > 0 {
		// The last one to three columns, [8][t]: row r's weight for
		// column j at q[t*r+j].
		for j := 0; j < t; j++ {
			v, q := int32(x[d+j]), unsafe.Add(p, 8*d+j)
			a0 += v * int32(*(*uint8)(q))
			a1 += v * int32(*(*uint8)(unsafe.Add(q, t)))
			a2 += v * int32(*(*uint8)(unsafe.Add(q, 2*t)))
			a3 += v * int32(*(*uint8)(unsafe.Add(q, 3*t)))
			a4 += v * int32(*(*uint8)(unsafe.Add(q, 4*t)))
			a5 += v * int32(*(*uint8)(unsafe.Add(q, 5*t)))
			a6 += v * int32(*(*uint8)(unsafe.Add(q, 6*t)))
			a7 += v * int32(*(*uint8)(unsafe.Add(q, 7*t)))
		}
	}
	xq, wq := unsafe.Pointer(unsafe.SliceData(x)), p
	if n > 0 {
		// Both pointers walk and stop at the last group (never a
		// pointer past x).
		xe := unsafe.Add(xq, 16*(n-1))
		for {
			xx, q := (*[16]int8)(xq), (*[128]uint8)(wq)
			v := int32(xx[0])
			a0 += v * int32(q[0])
			a1 += v * int32(q[4])
			a2 += v * int32(q[8])
			a3 += v * int32(q[12])
			a4 += v * int32(q[16])
			a5 += v * int32(q[20])
			a6 += v * int32(q[24])
			a7 += v * int32(q[28])
			v = int32(xx[1])
			a0 += v * int32(q[1])
			a1 += v * int32(q[5])
			a2 += v * int32(q[9])
			a3 += v * int32(q[13])
			a4 += v * int32(q[17])
			a5 += v * int32(q[21])
			a6 += v * int32(q[25])
			a7 += v * int32(q[29])
			v = int32(xx[2])
			a0 += v * int32(q[2])
			a1 += v * int32(q[6])
			a2 += v * int32(q[10])
			a3 += v * int32(q[14])
			a4 += v * int32(q[18])
			a5 += v * int32(q[22])
			a6 += v * int32(q[26])
			a7 += v * int32(q[30])
			v = int32(xx[3])
			a0 += v * int32(q[3])
			a1 += v * int32(q[7])
			a2 += v * int32(q[11])
			a3 += v * int32(q[15])
			a4 += v * int32(q[19])
			a5 += v * int32(q[23])
			a6 += v * int32(q[27])
			a7 += v * int32(q[31])
			v = int32(xx[4])
			a0 += v * int32(q[32])
			a1 += v * int32(q[36])
			a2 += v * int32(q[40])
			a3 += v * int32(q[44])
			a4 += v * int32(q[48])
			a5 += v * int32(q[52])
			a6 += v * int32(q[56])
			a7 += v * int32(q[60])
			v = int32(xx[5])
			a0 += v * int32(q[33])
			a1 += v * int32(q[37])
			a2 += v * int32(q[41])
			a3 += v * int32(q[45])
			a4 += v * int32(q[49])
			a5 += v * int32(q[53])
			a6 += v * int32(q[57])
			a7 += v * int32(q[61])
			v = int32(xx[6])
			a0 += v * int32(q[34])
			a1 += v * int32(q[38])
			a2 += v * int32(q[42])
			a3 += v * int32(q[46])
			a4 += v * int32(q[50])
			a5 += v * int32(q[54])
			a6 += v * int32(q[58])
			a7 += v * int32(q[62])
			v = int32(xx[7])
			a0 += v * int32(q[35])
			a1 += v * int32(q[39])
			a2 += v * int32(q[43])
			a3 += v * int32(q[47])
			a4 += v * int32(q[51])
			a5 += v * int32(q[55])
			a6 += v * int32(q[59])
			a7 += v * int32(q[63])
			v = int32(xx[8])
			a0 += v * int32(q[64])
			a1 += v * int32(q[68])
			a2 += v * int32(q[72])
			a3 += v * int32(q[76])
			a4 += v * int32(q[80])
			a5 += v * int32(q[84])
			a6 += v * int32(q[88])
			a7 += v * int32(q[92])
			v = int32(xx[9])
			a0 += v * int32(q[65])
			a1 += v * int32(q[69])
			a2 += v * int32(q[73])
			a3 += v * int32(q[77])
			a4 += v * int32(q[81])
			a5 += v * int32(q[85])
			a6 += v * int32(q[89])
			a7 += v * int32(q[93])
			v = int32(xx[10])
			a0 += v * int32(q[66])
			a1 += v * int32(q[70])
			a2 += v * int32(q[74])
			a3 += v * int32(q[78])
			a4 += v * int32(q[82])
			a5 += v * int32(q[86])
			a6 += v * int32(q[90])
			a7 += v * int32(q[94])
			v = int32(xx[11])
			a0 += v * int32(q[67])
			a1 += v * int32(q[71])
			a2 += v * int32(q[75])
			a3 += v * int32(q[79])
			a4 += v * int32(q[83])
			a5 += v * int32(q[87])
			a6 += v * int32(q[91])
			a7 += v * int32(q[95])
			v = int32(xx[12])
			a0 += v * int32(q[96])
			a1 += v * int32(q[100])
			a2 += v * int32(q[104])
			a3 += v * int32(q[108])
			a4 += v * int32(q[112])
			a5 += v * int32(q[116])
			a6 += v * int32(q[120])
			a7 += v * int32(q[124])
			v = int32(xx[13])
			a0 += v * int32(q[97])
			a1 += v * int32(q[101])
			a2 += v * int32(q[105])
			a3 += v * int32(q[109])
			a4 += v * int32(q[113])
			a5 += v * int32(q[117])
			a6 += v * int32(q[121])
			a7 += v * int32(q[125])
			v = int32(xx[14])
			a0 += v * int32(q[98])
			a1 += v * int32(q[102])
			a2 += v * int32(q[106])
			a3 += v * int32(q[110])
			a4 += v * int32(q[114])
			a5 += v * int32(q[118])
			a6 += v * int32(q[122])
			a7 += v * int32(q[126])
			v = int32(xx[15])
			a0 += v * int32(q[99])
			a1 += v * int32(q[103])
			a2 += v * int32(q[107])
			a3 += v * int32(q[111])
			a4 += v * int32(q[115])
			a5 += v * int32(q[119])
			a6 += v * int32(q[123])
			a7 += v * int32(q[127])
			if xq == xe {
				break
			}
			xq, wq = unsafe.Add(xq, 16), unsafe.Add(wq, 128)
		}
	}
	a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7] = a0, a1, a2, a3, a4, a5, a6, a7
}

// octDot64 is octDot for 64-bit targets: two products per multiplication
// (see above), four input elements per iteration, then the last one to
// three byte by byte.
func octDot64(x []int8, p unsafe.Pointer, a *[8]int32) {
	s0, s1, s2, s3 := octCols64(x, p)
	d := len(x) &^ 3
	if t := len(x) - d; t > 0 {
		// [8][t]: row r's weight for column j at q[t*r+j].
		for j := 0; j < t; j++ {
			v, q := int64(x[d+j]), unsafe.Add(p, 8*d+j)
			s0 += v * (octByte(q, 0) | octByte(q, t)<<32)
			s1 += v * (octByte(q, 2*t) | octByte(q, 3*t)<<32)
			s2 += v * (octByte(q, 4*t) | octByte(q, 5*t)<<32)
			s3 += v * (octByte(q, 6*t) | octByte(q, 7*t)<<32)
		}
	}
	a[0], a[1] = octLanes(s0)
	a[2], a[3] = octLanes(s1)
	a[4], a[5] = octLanes(s2)
	a[6], a[7] = octLanes(s3)
}

// octByte is the byte at q+i.
func octByte(q unsafe.Pointer, i int) int64 { return int64(*(*uint8)(unsafe.Add(q, i))) }

// octMask selects bytes 0 and 4 of a load: two rows in 32-bit lanes.
const octMask = 0x000000FF000000FF

// octCols64 returns octDot64's four lane sums (rows 0 and 1, 2 and 3, 4
// and 5, 6 and 7) over the first len(x)&^3 input elements.
func octCols64(x []int8, p unsafe.Pointer) (s0, s1, s2, s3 int64) {
	n := len(x) / 4
	if n == 0 {
		return
	}
	// Both pointers walk (gc then loads the activations with constant
	// offsets instead of recomputing their addresses); they do not move
	// after the last iteration, so that they never point past x.
	xq, q := unsafe.Pointer(unsafe.SliceData(x)), p
	for d := n; ; d-- {
		xx := (*[4]int8)(xq)
		v := int64(xx[0])
		s0 += v * int64(le64((*[8]byte)(q))&octMask)
		s1 += v * int64(le64((*[8]byte)(unsafe.Add(q, 8)))&octMask)
		s2 += v * int64(le64((*[8]byte)(unsafe.Add(q, 16)))&octMask)
		s3 += v * int64(le64((*[8]byte)(unsafe.Add(q, 24)))&octMask)
		v = int64(xx[1])
		s0 += v * int64(le64((*[8]byte)(unsafe.Add(q, 1)))&octMask)
		s1 += v * int64(le64((*[8]byte)(unsafe.Add(q, 9)))&octMask)
		s2 += v * int64(le64((*[8]byte)(unsafe.Add(q, 17)))&octMask)
		s3 += v * int64(le64((*[8]byte)(unsafe.Add(q, 25)))&octMask)
		v = int64(xx[2])
		s0 += v * int64(le64((*[8]byte)(unsafe.Add(q, 2)))&octMask)
		s1 += v * int64(le64((*[8]byte)(unsafe.Add(q, 10)))&octMask)
		s2 += v * int64(le64((*[8]byte)(unsafe.Add(q, 18)))&octMask)
		s3 += v * int64(le64((*[8]byte)(unsafe.Add(q, 26)))&octMask)
		v = int64(xx[3])
		s0 += v * int64(le64((*[8]byte)(unsafe.Add(q, 3)))&octMask)
		s1 += v * int64(le64((*[8]byte)(unsafe.Add(q, 11)))&octMask)
		s2 += v * int64(le64((*[8]byte)(unsafe.Add(q, 19)))&octMask)
		s3 += v * int64(le64((*[8]byte)(unsafe.Add(q, 27)))&octMask)
		if d == 1 {
			return
		}
		xq, q = unsafe.Add(xq, 4), unsafe.Add(q, 32)
	}
}

// octLanes splits a sum of two signed 32-bit lanes.
func octLanes(s int64) (lo, hi int32) {
	lo = int32(s)
	return lo, int32((s - int64(lo)) >> 32)
}
