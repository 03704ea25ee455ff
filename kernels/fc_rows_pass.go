package kernels

import "unsafe"

// Dot products of an int8 input row with a block of 1 to 6 weight rows
// (fcRowsInt8, fc_rows.go), for gc's 32-bit ARM code: plain int32
// multiply-accumulates, one signed byte load and one MLA per weight and one
// activation load per input element shared by the block's rows. With at
// most six accumulators, the two walking pointers, the loop's end, the
// activation and the weight take at most 11 registers: nothing spills (gc
// allocates 12 on ARM). Sixteen input elements per iteration; the last
// len(x)%16 first, so that only the sums are live across the main loop.
// Every function has the same shape, only the number of rows differs.
//
// w points at the block's weights, [len(x)][rows] signed bytes (input
// element d's weights for the block's rows side by side); a receives the
// rows' sums (wrapping in int32, as TFLite's accumulator).

// fcRows1 computes the sums of a block of 1 row (see above).
//
//go:noinline
func fcRows1(x []int8, w unsafe.Pointer, a *[6]int32) {
	k := len(x)
	n := k / 16
	var a0 int32
	d := 16 * n
	for i, v := range x[d:] {
		q := (*[1]int8)(unsafe.Add(w, 1*(d+i)))
		u := int32(v)
		a0 += u * int32(q[0])
	}
	if n > 0 {
		// Both pointers walk and stop at the last group (never a
		// pointer past x).
		xq, wq := unsafe.Pointer(unsafe.SliceData(x)), w
		xe := unsafe.Add(xq, 16*(n-1))
		for {
			xx, q := (*[16]int8)(xq), (*[16]int8)(wq)
			v := int32(xx[0])
			a0 += v * int32(q[0])
			v = int32(xx[1])
			a0 += v * int32(q[1])
			v = int32(xx[2])
			a0 += v * int32(q[2])
			v = int32(xx[3])
			a0 += v * int32(q[3])
			v = int32(xx[4])
			a0 += v * int32(q[4])
			v = int32(xx[5])
			a0 += v * int32(q[5])
			v = int32(xx[6])
			a0 += v * int32(q[6])
			v = int32(xx[7])
			a0 += v * int32(q[7])
			v = int32(xx[8])
			a0 += v * int32(q[8])
			v = int32(xx[9])
			a0 += v * int32(q[9])
			v = int32(xx[10])
			a0 += v * int32(q[10])
			v = int32(xx[11])
			a0 += v * int32(q[11])
			v = int32(xx[12])
			a0 += v * int32(q[12])
			v = int32(xx[13])
			a0 += v * int32(q[13])
			v = int32(xx[14])
			a0 += v * int32(q[14])
			v = int32(xx[15])
			a0 += v * int32(q[15])
			if xq == xe {
				break
			}
			xq, wq = unsafe.Add(xq, 16), unsafe.Add(wq, 16)
		}
	}
	a[0] = a0
}

// fcRows2 computes the sums of a block of 2 rows (see above).
//
//go:noinline
func fcRows2(x []int8, w unsafe.Pointer, a *[6]int32) {
	k := len(x)
	n := k / 16
	var a0, a1 int32
	d := 16 * n
	for i, v := range x[d:] {
		q := (*[2]int8)(unsafe.Add(w, 2*(d+i)))
		u := int32(v)
		a0 += u * int32(q[0])
		a1 += u * int32(q[1])
	}
	if n > 0 {
		// Both pointers walk and stop at the last group (never a
		// pointer past x).
		xq, wq := unsafe.Pointer(unsafe.SliceData(x)), w
		xe := unsafe.Add(xq, 16*(n-1))
		for {
			xx, q := (*[16]int8)(xq), (*[32]int8)(wq)
			v := int32(xx[0])
			a0 += v * int32(q[0])
			a1 += v * int32(q[1])
			v = int32(xx[1])
			a0 += v * int32(q[2])
			a1 += v * int32(q[3])
			v = int32(xx[2])
			a0 += v * int32(q[4])
			a1 += v * int32(q[5])
			v = int32(xx[3])
			a0 += v * int32(q[6])
			a1 += v * int32(q[7])
			v = int32(xx[4])
			a0 += v * int32(q[8])
			a1 += v * int32(q[9])
			v = int32(xx[5])
			a0 += v * int32(q[10])
			a1 += v * int32(q[11])
			v = int32(xx[6])
			a0 += v * int32(q[12])
			a1 += v * int32(q[13])
			v = int32(xx[7])
			a0 += v * int32(q[14])
			a1 += v * int32(q[15])
			v = int32(xx[8])
			a0 += v * int32(q[16])
			a1 += v * int32(q[17])
			v = int32(xx[9])
			a0 += v * int32(q[18])
			a1 += v * int32(q[19])
			v = int32(xx[10])
			a0 += v * int32(q[20])
			a1 += v * int32(q[21])
			v = int32(xx[11])
			a0 += v * int32(q[22])
			a1 += v * int32(q[23])
			v = int32(xx[12])
			a0 += v * int32(q[24])
			a1 += v * int32(q[25])
			v = int32(xx[13])
			a0 += v * int32(q[26])
			a1 += v * int32(q[27])
			v = int32(xx[14])
			a0 += v * int32(q[28])
			a1 += v * int32(q[29])
			v = int32(xx[15])
			a0 += v * int32(q[30])
			a1 += v * int32(q[31])
			if xq == xe {
				break
			}
			xq, wq = unsafe.Add(xq, 16), unsafe.Add(wq, 32)
		}
	}
	a[0], a[1] = a0, a1
}

// fcRows3 computes the sums of a block of 3 rows (see above).
//
//go:noinline
func fcRows3(x []int8, w unsafe.Pointer, a *[6]int32) {
	k := len(x)
	n := k / 16
	var a0, a1, a2 int32
	d := 16 * n
	for i, v := range x[d:] {
		q := (*[3]int8)(unsafe.Add(w, 3*(d+i)))
		u := int32(v)
		a0 += u * int32(q[0])
		a1 += u * int32(q[1])
		a2 += u * int32(q[2])
	}
	if n > 0 {
		// Both pointers walk and stop at the last group (never a
		// pointer past x).
		xq, wq := unsafe.Pointer(unsafe.SliceData(x)), w
		xe := unsafe.Add(xq, 16*(n-1))
		for {
			xx, q := (*[16]int8)(xq), (*[48]int8)(wq)
			v := int32(xx[0])
			a0 += v * int32(q[0])
			a1 += v * int32(q[1])
			a2 += v * int32(q[2])
			v = int32(xx[1])
			a0 += v * int32(q[3])
			a1 += v * int32(q[4])
			a2 += v * int32(q[5])
			v = int32(xx[2])
			a0 += v * int32(q[6])
			a1 += v * int32(q[7])
			a2 += v * int32(q[8])
			v = int32(xx[3])
			a0 += v * int32(q[9])
			a1 += v * int32(q[10])
			a2 += v * int32(q[11])
			v = int32(xx[4])
			a0 += v * int32(q[12])
			a1 += v * int32(q[13])
			a2 += v * int32(q[14])
			v = int32(xx[5])
			a0 += v * int32(q[15])
			a1 += v * int32(q[16])
			a2 += v * int32(q[17])
			v = int32(xx[6])
			a0 += v * int32(q[18])
			a1 += v * int32(q[19])
			a2 += v * int32(q[20])
			v = int32(xx[7])
			a0 += v * int32(q[21])
			a1 += v * int32(q[22])
			a2 += v * int32(q[23])
			v = int32(xx[8])
			a0 += v * int32(q[24])
			a1 += v * int32(q[25])
			a2 += v * int32(q[26])
			v = int32(xx[9])
			a0 += v * int32(q[27])
			a1 += v * int32(q[28])
			a2 += v * int32(q[29])
			v = int32(xx[10])
			a0 += v * int32(q[30])
			a1 += v * int32(q[31])
			a2 += v * int32(q[32])
			v = int32(xx[11])
			a0 += v * int32(q[33])
			a1 += v * int32(q[34])
			a2 += v * int32(q[35])
			v = int32(xx[12])
			a0 += v * int32(q[36])
			a1 += v * int32(q[37])
			a2 += v * int32(q[38])
			v = int32(xx[13])
			a0 += v * int32(q[39])
			a1 += v * int32(q[40])
			a2 += v * int32(q[41])
			v = int32(xx[14])
			a0 += v * int32(q[42])
			a1 += v * int32(q[43])
			a2 += v * int32(q[44])
			v = int32(xx[15])
			a0 += v * int32(q[45])
			a1 += v * int32(q[46])
			a2 += v * int32(q[47])
			if xq == xe {
				break
			}
			xq, wq = unsafe.Add(xq, 16), unsafe.Add(wq, 48)
		}
	}
	a[0], a[1], a[2] = a0, a1, a2
}

// fcRows4 computes the sums of a block of 4 rows (see above).
//
//go:noinline
func fcRows4(x []int8, w unsafe.Pointer, a *[6]int32) {
	k := len(x)
	n := k / 16
	var a0, a1, a2, a3 int32
	d := 16 * n
	for i, v := range x[d:] {
		q := (*[4]int8)(unsafe.Add(w, 4*(d+i)))
		u := int32(v)
		a0 += u * int32(q[0])
		a1 += u * int32(q[1])
		a2 += u * int32(q[2])
		a3 += u * int32(q[3])
	}
	if n > 0 {
		// Both pointers walk and stop at the last group (never a
		// pointer past x).
		xq, wq := unsafe.Pointer(unsafe.SliceData(x)), w
		xe := unsafe.Add(xq, 16*(n-1))
		for {
			xx, q := (*[16]int8)(xq), (*[64]int8)(wq)
			v := int32(xx[0])
			a0 += v * int32(q[0])
			a1 += v * int32(q[1])
			a2 += v * int32(q[2])
			a3 += v * int32(q[3])
			v = int32(xx[1])
			a0 += v * int32(q[4])
			a1 += v * int32(q[5])
			a2 += v * int32(q[6])
			a3 += v * int32(q[7])
			v = int32(xx[2])
			a0 += v * int32(q[8])
			a1 += v * int32(q[9])
			a2 += v * int32(q[10])
			a3 += v * int32(q[11])
			v = int32(xx[3])
			a0 += v * int32(q[12])
			a1 += v * int32(q[13])
			a2 += v * int32(q[14])
			a3 += v * int32(q[15])
			v = int32(xx[4])
			a0 += v * int32(q[16])
			a1 += v * int32(q[17])
			a2 += v * int32(q[18])
			a3 += v * int32(q[19])
			v = int32(xx[5])
			a0 += v * int32(q[20])
			a1 += v * int32(q[21])
			a2 += v * int32(q[22])
			a3 += v * int32(q[23])
			v = int32(xx[6])
			a0 += v * int32(q[24])
			a1 += v * int32(q[25])
			a2 += v * int32(q[26])
			a3 += v * int32(q[27])
			v = int32(xx[7])
			a0 += v * int32(q[28])
			a1 += v * int32(q[29])
			a2 += v * int32(q[30])
			a3 += v * int32(q[31])
			v = int32(xx[8])
			a0 += v * int32(q[32])
			a1 += v * int32(q[33])
			a2 += v * int32(q[34])
			a3 += v * int32(q[35])
			v = int32(xx[9])
			a0 += v * int32(q[36])
			a1 += v * int32(q[37])
			a2 += v * int32(q[38])
			a3 += v * int32(q[39])
			v = int32(xx[10])
			a0 += v * int32(q[40])
			a1 += v * int32(q[41])
			a2 += v * int32(q[42])
			a3 += v * int32(q[43])
			v = int32(xx[11])
			a0 += v * int32(q[44])
			a1 += v * int32(q[45])
			a2 += v * int32(q[46])
			a3 += v * int32(q[47])
			v = int32(xx[12])
			a0 += v * int32(q[48])
			a1 += v * int32(q[49])
			a2 += v * int32(q[50])
			a3 += v * int32(q[51])
			v = int32(xx[13])
			a0 += v * int32(q[52])
			a1 += v * int32(q[53])
			a2 += v * int32(q[54])
			a3 += v * int32(q[55])
			v = int32(xx[14])
			a0 += v * int32(q[56])
			a1 += v * int32(q[57])
			a2 += v * int32(q[58])
			a3 += v * int32(q[59])
			v = int32(xx[15])
			a0 += v * int32(q[60])
			a1 += v * int32(q[61])
			a2 += v * int32(q[62])
			a3 += v * int32(q[63])
			if xq == xe {
				break
			}
			xq, wq = unsafe.Add(xq, 16), unsafe.Add(wq, 64)
		}
	}
	a[0], a[1], a[2], a[3] = a0, a1, a2, a3
}

// fcRows5 computes the sums of a block of 5 rows (see above).
//
//go:noinline
func fcRows5(x []int8, w unsafe.Pointer, a *[6]int32) {
	k := len(x)
	n := k / 16
	var a0, a1, a2, a3, a4 int32
	d := 16 * n
	for i, v := range x[d:] {
		q := (*[5]int8)(unsafe.Add(w, 5*(d+i)))
		u := int32(v)
		a0 += u * int32(q[0])
		a1 += u * int32(q[1])
		a2 += u * int32(q[2])
		a3 += u * int32(q[3])
		a4 += u * int32(q[4])
	}
	if n > 0 {
		// Both pointers walk and stop at the last group (never a
		// pointer past x).
		xq, wq := unsafe.Pointer(unsafe.SliceData(x)), w
		xe := unsafe.Add(xq, 16*(n-1))
		for {
			xx, q := (*[16]int8)(xq), (*[80]int8)(wq)
			v := int32(xx[0])
			a0 += v * int32(q[0])
			a1 += v * int32(q[1])
			a2 += v * int32(q[2])
			a3 += v * int32(q[3])
			a4 += v * int32(q[4])
			v = int32(xx[1])
			a0 += v * int32(q[5])
			a1 += v * int32(q[6])
			a2 += v * int32(q[7])
			a3 += v * int32(q[8])
			a4 += v * int32(q[9])
			v = int32(xx[2])
			a0 += v * int32(q[10])
			a1 += v * int32(q[11])
			a2 += v * int32(q[12])
			a3 += v * int32(q[13])
			a4 += v * int32(q[14])
			v = int32(xx[3])
			a0 += v * int32(q[15])
			a1 += v * int32(q[16])
			a2 += v * int32(q[17])
			a3 += v * int32(q[18])
			a4 += v * int32(q[19])
			v = int32(xx[4])
			a0 += v * int32(q[20])
			a1 += v * int32(q[21])
			a2 += v * int32(q[22])
			a3 += v * int32(q[23])
			a4 += v * int32(q[24])
			v = int32(xx[5])
			a0 += v * int32(q[25])
			a1 += v * int32(q[26])
			a2 += v * int32(q[27])
			a3 += v * int32(q[28])
			a4 += v * int32(q[29])
			v = int32(xx[6])
			a0 += v * int32(q[30])
			a1 += v * int32(q[31])
			a2 += v * int32(q[32])
			a3 += v * int32(q[33])
			a4 += v * int32(q[34])
			v = int32(xx[7])
			a0 += v * int32(q[35])
			a1 += v * int32(q[36])
			a2 += v * int32(q[37])
			a3 += v * int32(q[38])
			a4 += v * int32(q[39])
			v = int32(xx[8])
			a0 += v * int32(q[40])
			a1 += v * int32(q[41])
			a2 += v * int32(q[42])
			a3 += v * int32(q[43])
			a4 += v * int32(q[44])
			v = int32(xx[9])
			a0 += v * int32(q[45])
			a1 += v * int32(q[46])
			a2 += v * int32(q[47])
			a3 += v * int32(q[48])
			a4 += v * int32(q[49])
			v = int32(xx[10])
			a0 += v * int32(q[50])
			a1 += v * int32(q[51])
			a2 += v * int32(q[52])
			a3 += v * int32(q[53])
			a4 += v * int32(q[54])
			v = int32(xx[11])
			a0 += v * int32(q[55])
			a1 += v * int32(q[56])
			a2 += v * int32(q[57])
			a3 += v * int32(q[58])
			a4 += v * int32(q[59])
			v = int32(xx[12])
			a0 += v * int32(q[60])
			a1 += v * int32(q[61])
			a2 += v * int32(q[62])
			a3 += v * int32(q[63])
			a4 += v * int32(q[64])
			v = int32(xx[13])
			a0 += v * int32(q[65])
			a1 += v * int32(q[66])
			a2 += v * int32(q[67])
			a3 += v * int32(q[68])
			a4 += v * int32(q[69])
			v = int32(xx[14])
			a0 += v * int32(q[70])
			a1 += v * int32(q[71])
			a2 += v * int32(q[72])
			a3 += v * int32(q[73])
			a4 += v * int32(q[74])
			v = int32(xx[15])
			a0 += v * int32(q[75])
			a1 += v * int32(q[76])
			a2 += v * int32(q[77])
			a3 += v * int32(q[78])
			a4 += v * int32(q[79])
			if xq == xe {
				break
			}
			xq, wq = unsafe.Add(xq, 16), unsafe.Add(wq, 80)
		}
	}
	a[0], a[1], a[2], a[3], a[4] = a0, a1, a2, a3, a4
}

// fcRows6 computes the sums of a block of 6 rows (see above).
//
//go:noinline
func fcRows6(x []int8, w unsafe.Pointer, a *[6]int32) {
	k := len(x)
	n := k / 16
	var a0, a1, a2, a3, a4, a5 int32
	d := 16 * n
	for i, v := range x[d:] {
		q := (*[6]int8)(unsafe.Add(w, 6*(d+i)))
		u := int32(v)
		a0 += u * int32(q[0])
		a1 += u * int32(q[1])
		a2 += u * int32(q[2])
		a3 += u * int32(q[3])
		a4 += u * int32(q[4])
		a5 += u * int32(q[5])
	}
	if n > 0 {
		// Both pointers walk and stop at the last group (never a
		// pointer past x).
		xq, wq := unsafe.Pointer(unsafe.SliceData(x)), w
		xe := unsafe.Add(xq, 16*(n-1))
		for {
			xx, q := (*[16]int8)(xq), (*[96]int8)(wq)
			v := int32(xx[0])
			a0 += v * int32(q[0])
			a1 += v * int32(q[1])
			a2 += v * int32(q[2])
			a3 += v * int32(q[3])
			a4 += v * int32(q[4])
			a5 += v * int32(q[5])
			v = int32(xx[1])
			a0 += v * int32(q[6])
			a1 += v * int32(q[7])
			a2 += v * int32(q[8])
			a3 += v * int32(q[9])
			a4 += v * int32(q[10])
			a5 += v * int32(q[11])
			v = int32(xx[2])
			a0 += v * int32(q[12])
			a1 += v * int32(q[13])
			a2 += v * int32(q[14])
			a3 += v * int32(q[15])
			a4 += v * int32(q[16])
			a5 += v * int32(q[17])
			v = int32(xx[3])
			a0 += v * int32(q[18])
			a1 += v * int32(q[19])
			a2 += v * int32(q[20])
			a3 += v * int32(q[21])
			a4 += v * int32(q[22])
			a5 += v * int32(q[23])
			v = int32(xx[4])
			a0 += v * int32(q[24])
			a1 += v * int32(q[25])
			a2 += v * int32(q[26])
			a3 += v * int32(q[27])
			a4 += v * int32(q[28])
			a5 += v * int32(q[29])
			v = int32(xx[5])
			a0 += v * int32(q[30])
			a1 += v * int32(q[31])
			a2 += v * int32(q[32])
			a3 += v * int32(q[33])
			a4 += v * int32(q[34])
			a5 += v * int32(q[35])
			v = int32(xx[6])
			a0 += v * int32(q[36])
			a1 += v * int32(q[37])
			a2 += v * int32(q[38])
			a3 += v * int32(q[39])
			a4 += v * int32(q[40])
			a5 += v * int32(q[41])
			v = int32(xx[7])
			a0 += v * int32(q[42])
			a1 += v * int32(q[43])
			a2 += v * int32(q[44])
			a3 += v * int32(q[45])
			a4 += v * int32(q[46])
			a5 += v * int32(q[47])
			v = int32(xx[8])
			a0 += v * int32(q[48])
			a1 += v * int32(q[49])
			a2 += v * int32(q[50])
			a3 += v * int32(q[51])
			a4 += v * int32(q[52])
			a5 += v * int32(q[53])
			v = int32(xx[9])
			a0 += v * int32(q[54])
			a1 += v * int32(q[55])
			a2 += v * int32(q[56])
			a3 += v * int32(q[57])
			a4 += v * int32(q[58])
			a5 += v * int32(q[59])
			v = int32(xx[10])
			a0 += v * int32(q[60])
			a1 += v * int32(q[61])
			a2 += v * int32(q[62])
			a3 += v * int32(q[63])
			a4 += v * int32(q[64])
			a5 += v * int32(q[65])
			v = int32(xx[11])
			a0 += v * int32(q[66])
			a1 += v * int32(q[67])
			a2 += v * int32(q[68])
			a3 += v * int32(q[69])
			a4 += v * int32(q[70])
			a5 += v * int32(q[71])
			v = int32(xx[12])
			a0 += v * int32(q[72])
			a1 += v * int32(q[73])
			a2 += v * int32(q[74])
			a3 += v * int32(q[75])
			a4 += v * int32(q[76])
			a5 += v * int32(q[77])
			v = int32(xx[13])
			a0 += v * int32(q[78])
			a1 += v * int32(q[79])
			a2 += v * int32(q[80])
			a3 += v * int32(q[81])
			a4 += v * int32(q[82])
			a5 += v * int32(q[83])
			v = int32(xx[14])
			a0 += v * int32(q[84])
			a1 += v * int32(q[85])
			a2 += v * int32(q[86])
			a3 += v * int32(q[87])
			a4 += v * int32(q[88])
			a5 += v * int32(q[89])
			v = int32(xx[15])
			a0 += v * int32(q[90])
			a1 += v * int32(q[91])
			a2 += v * int32(q[92])
			a3 += v * int32(q[93])
			a4 += v * int32(q[94])
			a5 += v * int32(q[95])
			if xq == xe {
				break
			}
			xq, wq = unsafe.Add(xq, 16), unsafe.Add(wq, 96)
		}
	}
	a[0], a[1], a[2], a[3], a[4], a[5] = a0, a1, a2, a3, a4, a5
}
