//go:build tinygo && cortexm && !nodsp

package kernels

import (
	"device/arm"
	"unsafe"
)

// svdfLd0 ... svdfLd14 load the word at p plus 0 ... 14 bytes, any
// address, with one LDR, and svdfSt0 ... svdfSt12 store x there with one
// STR (the Cortex-M4/M7 load and store unaligned words). In assembly
// because LLVM at -O2 (TinyGo -opt=2) splits joined byte loads and stores
// back into LDRB and STRB where only the halves of the word are used
// (keyword_scrambled: 33k -> 68k instructions in this function); at -Oz
// it joined them. The offset is in the instruction, so that no address is
// computed. LLVM takes the calls for ones that may read and write memory:
// they keep their order with every other load and store.
func svdfLd0(p unsafe.Pointer) int32 {
	return int32(arm.AsmFull("ldr {}, [{p}]", map[string]interface{}{"p": uintptr(p)}))
}

func svdfLd2(p unsafe.Pointer) int32 {
	return int32(arm.AsmFull("ldr {}, [{p}, #2]", map[string]interface{}{"p": uintptr(p)}))
}

func svdfLd4(p unsafe.Pointer) int32 {
	return int32(arm.AsmFull("ldr {}, [{p}, #4]", map[string]interface{}{"p": uintptr(p)}))
}

func svdfLd6(p unsafe.Pointer) int32 {
	return int32(arm.AsmFull("ldr {}, [{p}, #6]", map[string]interface{}{"p": uintptr(p)}))
}

func svdfLd8(p unsafe.Pointer) int32 {
	return int32(arm.AsmFull("ldr {}, [{p}, #8]", map[string]interface{}{"p": uintptr(p)}))
}

func svdfLd10(p unsafe.Pointer) int32 {
	return int32(arm.AsmFull("ldr {}, [{p}, #10]", map[string]interface{}{"p": uintptr(p)}))
}

func svdfLd12(p unsafe.Pointer) int32 {
	return int32(arm.AsmFull("ldr {}, [{p}, #12]", map[string]interface{}{"p": uintptr(p)}))
}

func svdfLd14(p unsafe.Pointer) int32 {
	return int32(arm.AsmFull("ldr {}, [{p}, #14]", map[string]interface{}{"p": uintptr(p)}))
}

func svdfSt0(p unsafe.Pointer, x int32) {
	arm.AsmFull("str {x}, [{p}]", map[string]interface{}{"p": uintptr(p), "x": x})
}

func svdfSt4(p unsafe.Pointer, x int32) {
	arm.AsmFull("str {x}, [{p}, #4]", map[string]interface{}{"p": uintptr(p), "x": x})
}

func svdfSt8(p unsafe.Pointer, x int32) {
	arm.AsmFull("str {x}, [{p}, #8]", map[string]interface{}{"p": uintptr(p), "x": x})
}

func svdfSt12(p unsafe.Pointer, x int32) {
	arm.AsmFull("str {x}, [{p}, #12]", map[string]interface{}{"p": uintptr(p), "x": x})
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
		acc := svdfLd0(pb)
		for e := unsafe.Add(ps, g); ps != e; ps, pw = unsafe.Add(ps, 16), unsafe.Add(pw, 16) {
			x := svdfLd2(ps)
			svdfSt0(ps, x)
			acc = svdfMAC2(acc, x, svdfLd0(pw))
			x = svdfLd6(ps)
			svdfSt4(ps, x)
			acc = svdfMAC2(acc, x, svdfLd4(pw))
			x = svdfLd10(ps)
			svdfSt8(ps, x)
			acc = svdfMAC2(acc, x, svdfLd8(pw))
			x = svdfLd14(ps)
			svdfSt12(ps, x)
			acc = svdfMAC2(acc, x, svdfLd12(pw))
		}
		// The row's last group: slots 1..7 move to 0..6, the new value
		// goes to slot 7.
		x := svdfLd2(ps)
		svdfSt0(ps, x)
		acc = svdfMAC2(acc, x, svdfLd0(pw))
		x = svdfLd6(ps)
		svdfSt4(ps, x)
		acc = svdfMAC2(acc, x, svdfLd4(pw))
		x = svdfLd10(ps)
		svdfSt8(ps, x)
		acc = svdfMAC2(acc, x, svdfLd8(pw))
		v6 := *(*int16)(unsafe.Add(ps, 14))
		*(*int16)(unsafe.Add(ps, 12)) = v6
		y := svdfLd12(pw)
		v := *(*int32)(pa)
		*(*int16)(unsafe.Add(ps, 14)) = int16(v)
		acc += int32(v6)*int32(int16(y)) + v*(y>>16)
		ps, pw = unsafe.Add(ps, 16), unsafe.Add(pw, 16)
		*(*int8)(po) = rqOneR(acc, m2, d, sh, 255, 127)
	}
}
