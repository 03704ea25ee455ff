//go:build tinygo && cortexm && !nodsp

package kernels

import "unsafe"

// svdfPut stores the two int16 of x at p, any address, as one word (STR).
// svdfLE32 loads them the same way: LLVM joins its byte loads into one LDR
// (the Cortex-M4/M7 load unaligned words), never into an LDRD or LDM,
// which need aligned words.
func svdfPut(p unsafe.Pointer, x int32) {
	q := (*[4]byte)(p)
	q[0], q[1], q[2], q[3] = byte(x), byte(x>>8), byte(x>>16), byte(x>>24)
}

// svdfMAC2 is the two products of the int16 halves of x and y: LLVM makes
// it one SMLABB and one SMLATT on the DSP extension.
func svdfMAC2(acc, x, y int32) int32 {
	return acc + int32(int16(x))*int32(int16(y)) + (x>>16)*(y>>16)
}

// svdfTimeOutI16 is svdfTimeOutI16Ref (svdf_fast.go) two slots a word:
// slots 2k+1, 2k+2 of a row are loaded as one word, stored one slot lower
// and multiplied by the weights of slots 2k, 2k+1 (one word of
// weights_time) with two 16x16 multiply-accumulates. Each word is loaded
// before the store that overwrites its low slot.
//
//go:noinline
func svdfTimeOutI16(st []int16, wt, tb string, a []int32, mem int, t *rqOne, o []int8) {
	n := len(a)
	st, wt, tb, o = st[:n*mem], wt[:2*n*mem], tb[:4*n], o[:n]
	ps := unsafe.Pointer(unsafe.SliceData(st))
	pw := unsafe.Pointer(unsafe.StringData(wt))
	pb := unsafe.Pointer(unsafe.StringData(tb))
	po := unsafe.Pointer(unsafe.SliceData(o))
	pa := unsafe.Pointer(unsafe.SliceData(a))
	end := unsafe.Add(po, n)               // po, not pa: doc.go, "Locals under TinyGo"
	m2, d, sh := t.m2, uint64(t.d), t.r&31 // svdfFastPlan's time record: span 255, hi 127
	g := 16 * (mem/8 - 1)                  // bytes of a row before its last group of eight
	for ; po != end; pa, pb, po = unsafe.Add(pa, 4), unsafe.Add(pb, 4), unsafe.Add(po, 1) {
		acc := svdfLE32(pb)
		for e := unsafe.Add(ps, g); ps != e; ps, pw = unsafe.Add(ps, 16), unsafe.Add(pw, 16) {
			x := svdfLE32(unsafe.Add(ps, 2))
			svdfPut(ps, x)
			acc = svdfMAC2(acc, x, svdfLE32(pw))
			x = svdfLE32(unsafe.Add(ps, 6))
			svdfPut(unsafe.Add(ps, 4), x)
			acc = svdfMAC2(acc, x, svdfLE32(unsafe.Add(pw, 4)))
			x = svdfLE32(unsafe.Add(ps, 10))
			svdfPut(unsafe.Add(ps, 8), x)
			acc = svdfMAC2(acc, x, svdfLE32(unsafe.Add(pw, 8)))
			x = svdfLE32(unsafe.Add(ps, 14))
			svdfPut(unsafe.Add(ps, 12), x)
			acc = svdfMAC2(acc, x, svdfLE32(unsafe.Add(pw, 12)))
		}
		// The row's last group: slots 1..7 move to 0..6, the new value
		// goes to slot 7.
		x := svdfLE32(unsafe.Add(ps, 2))
		svdfPut(ps, x)
		acc = svdfMAC2(acc, x, svdfLE32(pw))
		x = svdfLE32(unsafe.Add(ps, 6))
		svdfPut(unsafe.Add(ps, 4), x)
		acc = svdfMAC2(acc, x, svdfLE32(unsafe.Add(pw, 4)))
		x = svdfLE32(unsafe.Add(ps, 10))
		svdfPut(unsafe.Add(ps, 8), x)
		acc = svdfMAC2(acc, x, svdfLE32(unsafe.Add(pw, 8)))
		v6 := *(*int16)(unsafe.Add(ps, 14))
		*(*int16)(unsafe.Add(ps, 12)) = v6
		y := svdfLE32(unsafe.Add(pw, 12))
		v := *(*int32)(pa)
		*(*int16)(unsafe.Add(ps, 14)) = int16(v)
		acc += int32(v6)*int32(int16(y)) + v*(y>>16)
		ps, pw = unsafe.Add(ps, 16), unsafe.Add(pw, 16)
		*(*int8)(po) = rqOneR(acc, m2, d, sh, 255, 127)
	}
}
