//go:build tinygo && cortexm && !nodsp

package kernels

import (
	"device/arm"
	"unsafe"
)

// bfpDot4: see bfpDot4Ref (bfp.go). Here, Thumb-2: per element of x one word load
// of x, four of the weights (LDR, which takes any address: the weights
// are a string constant of unknown alignment) and four SMLAL (eleven
// instructions for four multiply-accumulates with the loop's). a must
// not be a local variable of the caller (its address would make TinyGo
// move it to the heap): the kernels pass words of their scratch.
func bfpDot4(a *[4]int64, x []int32, w unsafe.Pointer) {
	if len(x) == 0 {
		*a = [4]int64{}
		return
	}
	bfpDot4Asm(unsafe.Pointer(a), unsafe.Pointer(unsafe.SliceData(x)), uint32(len(x)), w)
}

// bfpDot4Asm is bfpDot4's loop for n >= 1 elements at x. It stores its
// operands in its frame before it changes a register (LLVM may have put
// them in any), saves r0-r12, lr and the flags and restores them:
// TinyGo's inline assembly declares no clobbers.
func bfpDot4Asm(a, x unsafe.Pointer, n uint32, w unsafe.Pointer) {
	arm.AsmFull(`
	push {r0-r12, lr}
	sub sp, sp, #20
	str {a}, [sp, #4]
	str {x}, [sp, #8]
	str {n}, [sp, #12]
	str {w}, [sp, #16]
	mrs r0, apsr
	str r0, [sp]
	ldr r0, [sp, #8]
	ldr r1, [sp, #16]
	ldr r2, [sp, #12]
	movs r4, #0
	movs r5, #0
	movs r6, #0
	movs r7, #0
	mov r8, r4
	mov r9, r4
	mov r10, r4
	mov r11, r4
1:
	ldr r3, [r0], #4
	ldr r12, [r1], #4
	smlal r4, r5, r3, r12
	ldr lr, [r1], #4
	smlal r6, r7, r3, lr
	ldr r12, [r1], #4
	smlal r8, r9, r3, r12
	ldr lr, [r1], #4
	smlal r10, r11, r3, lr
	subs r2, r2, #1
	bne 1b
	ldr r12, [sp, #4]
	stm r12, {r4-r11}
	ldr r0, [sp]
	msr apsr_nzcvq, r0
	add sp, sp, #20
	pop {r0-r12, lr}
`, map[string]interface{}{"a": uintptr(a), "x": uintptr(x), "n": n, "w": uintptr(w)})
}
