//go:build tinygo && cortexm && !nodsp

package kernels

import (
	"device/arm"
	"unsafe"
)

// dspDot2x2Rows is dspDot2x2RowsRef (dsp.go) in Thumb-2: per group of four
// columns two word loads of the pixels' rows and two of the channel
// pair's weights, eight SXTB16 and eight SMLAD (sixteen multiply-
// accumulates in 22 instructions with the loop's). Registers: r0 pixel a,
// r1 weights, r2 groups left, r3 pixel b's offset, r4-r7 the sums, r8-r12
// and lr the widened operands. The assembly saves and restores every
// register it touches and the condition flags (APSR): TinyGo's inline
// assembly declares no clobbers, and LLVM may keep a comparison's result
// in the flags across it. It reads {g} first, before any register
// changes: LLVM may have put it in any of them.
func dspDot2x2Rows(g *dspArgs) {
	arm.AsmFull(`
	push {r0-r12, lr}
	mov r12, {g}
	mrs r0, apsr
	push {r0}
	push {r12}
	ldm r12, {r0-r7}
1:
	ldr r9, [r0, r3]
	ldr r8, [r0], #4
	sxtb16 r10, r8
	sxtb16 r8, r8, ror #8
	sxtb16 r11, r9
	sxtb16 r9, r9, ror #8
	ldr lr, [r1], #4
	sxtb16 r12, lr
	sxtb16 lr, lr, ror #8
	smlad r4, r10, r12, r4
	smlad r4, r8, lr, r4
	smlad r6, r11, r12, r6
	smlad r6, r9, lr, r6
	ldr lr, [r1], #4
	sxtb16 r12, lr
	sxtb16 lr, lr, ror #8
	smlad r5, r10, r12, r5
	smlad r5, r8, lr, r5
	smlad r7, r11, r12, r7
	smlad r7, r9, lr, r7
	subs r2, r2, #1
	bne 1b
	pop {r12}
	add r12, r12, #16
	stm r12, {r4-r7}
	pop {r0}
	msr apsr_nzcvq, r0
	pop {r0-r12, lr}
`, map[string]interface{}{"g": uintptr(unsafe.Pointer(g))})
}

// dspPWPairs is dspPWPairsRef (dsp.go) in Thumb-2: for each channel pair,
// dspDot2x2Rows's loop from the records' biases, then each of the four
// sums requantized as dspQ does (UMLAL of the multiplier and the 64-bit
// addend, the sum's bit 30, the right shift) and clamped to [0, span] with
// USAT and a compare, plus actMin, stored a byte at a time. The block's
// address and the pairs left live on the stack.
func dspPWPairs(g *dspPWArgs) {
	arm.AsmFull(`
	push {r0-r12, lr}
	mov r12, {g}
	mrs r0, apsr
	push {r0}
	ldr r1, [r12, #4]
	ldr r0, [r12, #28]
	push {r0, r12}
2:
	ldr r12, [sp, #4]
	ldr r0, [r12]
	ldr r2, [r12, #8]
	ldr r3, [r12, #12]
	ldr r8, [r12, #16]
	ldr r4, [r8]
	ldr r5, [r8, #20]
	mov r6, r4
	mov r7, r5
	tst r2, #1
	beq 3f
	ldr r9, [r0, r3]
	ldr r8, [r0], #4
	sxtb16 r10, r8
	sxtb16 r8, r8, ror #8
	sxtb16 r11, r9
	sxtb16 r9, r9, ror #8
	ldr lr, [r1], #4
	sxtb16 r12, lr
	sxtb16 lr, lr, ror #8
	smlad r4, r10, r12, r4
	smlad r4, r8, lr, r4
	smlad r6, r11, r12, r6
	smlad r6, r9, lr, r6
	ldr lr, [r1], #4
	sxtb16 r12, lr
	sxtb16 lr, lr, ror #8
	smlad r5, r10, r12, r5
	smlad r5, r8, lr, r5
	smlad r7, r11, r12, r7
	smlad r7, r9, lr, r7
	subs r2, r2, #1
	beq 4f
3:
	ldr r9, [r0, r3]
	ldr r8, [r0], #4
	sxtb16 r10, r8
	sxtb16 r8, r8, ror #8
	sxtb16 r11, r9
	sxtb16 r9, r9, ror #8
	ldr lr, [r1], #4
	sxtb16 r12, lr
	sxtb16 lr, lr, ror #8
	smlad r4, r10, r12, r4
	smlad r4, r8, lr, r4
	smlad r6, r11, r12, r6
	smlad r6, r9, lr, r6
	ldr lr, [r1], #4
	sxtb16 r12, lr
	sxtb16 lr, lr, ror #8
	smlad r5, r10, r12, r5
	smlad r5, r8, lr, r5
	smlad r7, r11, r12, r7
	smlad r7, r9, lr, r7
	ldr r9, [r0, r3]
	ldr r8, [r0], #4
	sxtb16 r10, r8
	sxtb16 r8, r8, ror #8
	sxtb16 r11, r9
	sxtb16 r9, r9, ror #8
	ldr lr, [r1], #4
	sxtb16 r12, lr
	sxtb16 lr, lr, ror #8
	smlad r4, r10, r12, r4
	smlad r4, r8, lr, r4
	smlad r6, r11, r12, r6
	smlad r6, r9, lr, r6
	ldr lr, [r1], #4
	sxtb16 r12, lr
	sxtb16 lr, lr, ror #8
	smlad r5, r10, r12, r5
	smlad r5, r8, lr, r5
	smlad r7, r11, r12, r7
	smlad r7, r9, lr, r7
	subs r2, r2, #2
	bne 3b
4:
	ldr r12, [sp, #4]
	ldr r0, [r12, #16]
	ldr r2, [r12, #20]
	ldr r3, [r12, #24]
	ldr r11, [r12, #32]
	ldr lr, [r12, #36]
	ldr r8, [r0, #4]
	ldrb r12, [r0, #16]
	ldr r9, [r0, #8]
	ldr r10, [r0, #12]
	umlal r9, r10, r4, r8
	add r10, r10, r4, lsr #30
	asr r10, r10, r12
	usat r10, #8, r10
	cmp r10, r11
	it gt
	movgt r10, r11
	add r10, r10, lr
	strb r10, [r2], #1
	ldr r9, [r0, #8]
	ldr r10, [r0, #12]
	umlal r9, r10, r6, r8
	add r10, r10, r6, lsr #30
	asr r10, r10, r12
	usat r10, #8, r10
	cmp r10, r11
	it gt
	movgt r10, r11
	add r10, r10, lr
	strb r10, [r3], #1
	ldr r8, [r0, #24]
	ldrb r12, [r0, #36]
	ldr r9, [r0, #28]
	ldr r10, [r0, #32]
	umlal r9, r10, r5, r8
	add r10, r10, r5, lsr #30
	asr r10, r10, r12
	usat r10, #8, r10
	cmp r10, r11
	it gt
	movgt r10, r11
	add r10, r10, lr
	strb r10, [r2], #1
	ldr r9, [r0, #28]
	ldr r10, [r0, #32]
	umlal r9, r10, r7, r8
	add r10, r10, r7, lsr #30
	asr r10, r10, r12
	usat r10, #8, r10
	cmp r10, r11
	it gt
	movgt r10, r11
	add r10, r10, lr
	strb r10, [r3], #1
	add r0, r0, #40
	ldr r12, [sp, #4]
	str r0, [r12, #16]
	str r2, [r12, #20]
	str r3, [r12, #24]
	ldr r0, [sp]
	subs r0, r0, #1
	str r0, [sp]
	bne 2b
	add sp, sp, #8
	pop {r0}
	msr apsr_nzcvq, r0
	pop {r0-r12, lr}
`, map[string]interface{}{"g": uintptr(unsafe.Pointer(g))})
}

// dspPWOne is dspPWOneRef (dsp.go) in Thumb-2: dspPWPairs for one pixel
// (an odd last pixel, which dspPWPairs would pair with itself): per group
// one word load of the pixel, two SXTB16, and for each channel of the
// pair a word load of its weights, two SXTB16 and two SMLAD (eight
// multiply-accumulates in 13 instructions). Registers: r0 the pixel, r1
// the weights, r2 groups left, r4 and r5 the sums, r8 r10 the widened
// pixel, r12 lr the widened weights; the requantization as dspPWPairs'.
// Not inlined: convPWDSP's frame stays as small as its pair loop needs.
//
//go:noinline
func dspPWOne(g *dspPWArgs) {
	arm.AsmFull(`
	push {r0-r12, lr}
	mov r12, {g}
	mrs r0, apsr
	push {r0}
	ldr r1, [r12, #4]
	ldr r0, [r12, #28]
	push {r0, r12}
2:
	ldr r12, [sp, #4]
	ldr r0, [r12]
	ldr r2, [r12, #8]
	ldr r8, [r12, #16]
	ldr r4, [r8]
	ldr r5, [r8, #20]
	tst r2, #1
	beq 3f
	ldr r8, [r0], #4
	sxtb16 r10, r8
	sxtb16 r8, r8, ror #8
	ldr lr, [r1], #4
	sxtb16 r12, lr
	sxtb16 lr, lr, ror #8
	smlad r4, r10, r12, r4
	smlad r4, r8, lr, r4
	ldr lr, [r1], #4
	sxtb16 r12, lr
	sxtb16 lr, lr, ror #8
	smlad r5, r10, r12, r5
	smlad r5, r8, lr, r5
	subs r2, r2, #1
	beq 4f
3:
	ldr r8, [r0], #4
	sxtb16 r10, r8
	sxtb16 r8, r8, ror #8
	ldr lr, [r1], #4
	sxtb16 r12, lr
	sxtb16 lr, lr, ror #8
	smlad r4, r10, r12, r4
	smlad r4, r8, lr, r4
	ldr lr, [r1], #4
	sxtb16 r12, lr
	sxtb16 lr, lr, ror #8
	smlad r5, r10, r12, r5
	smlad r5, r8, lr, r5
	ldr r8, [r0], #4
	sxtb16 r10, r8
	sxtb16 r8, r8, ror #8
	ldr lr, [r1], #4
	sxtb16 r12, lr
	sxtb16 lr, lr, ror #8
	smlad r4, r10, r12, r4
	smlad r4, r8, lr, r4
	ldr lr, [r1], #4
	sxtb16 r12, lr
	sxtb16 lr, lr, ror #8
	smlad r5, r10, r12, r5
	smlad r5, r8, lr, r5
	subs r2, r2, #2
	bne 3b
4:
	ldr r12, [sp, #4]
	ldr r0, [r12, #16]
	ldr r2, [r12, #20]
	ldr r11, [r12, #32]
	ldr lr, [r12, #36]
	ldr r8, [r0, #4]
	ldrb r12, [r0, #16]
	ldr r9, [r0, #8]
	ldr r10, [r0, #12]
	umlal r9, r10, r4, r8
	add r10, r10, r4, lsr #30
	asr r10, r10, r12
	usat r10, #8, r10
	cmp r10, r11
	it gt
	movgt r10, r11
	add r10, r10, lr
	strb r10, [r2], #1
	ldr r8, [r0, #24]
	ldrb r12, [r0, #36]
	ldr r9, [r0, #28]
	ldr r10, [r0, #32]
	umlal r9, r10, r5, r8
	add r10, r10, r5, lsr #30
	asr r10, r10, r12
	usat r10, #8, r10
	cmp r10, r11
	it gt
	movgt r10, r11
	add r10, r10, lr
	strb r10, [r2], #1
	add r0, r0, #40
	ldr r12, [sp, #4]
	str r0, [r12, #16]
	str r2, [r12, #20]
	ldr r0, [sp]
	subs r0, r0, #1
	str r0, [sp]
	bne 2b
	add sp, sp, #8
	pop {r0}
	msr apsr_nzcvq, r0
	pop {r0-r12, lr}
`, map[string]interface{}{"g": uintptr(unsafe.Pointer(g))})
}

// dspWiden2 is dspWiden2Ref (dsp.go) in Thumb-2: per group two word loads,
// four SXTB16, one STM.
func dspWiden2(g *dspPWArgs) {
	arm.AsmFull(`
	push {r0-r12, lr}
	mov r12, {g}
	mrs r0, apsr
	push {r0}
	ldr r0, [r12]
	ldr r3, [r12, #12]
	ldr r2, [r12, #40]
	add r1, r0, r3
	ldr r3, [r12, #8]
1:
	ldr r4, [r0], #4
	ldr r5, [r1], #4
	sxtb16 r6, r4
	sxtb16 r7, r4, ror #8
	sxtb16 r8, r5
	sxtb16 r9, r5, ror #8
	stm r2!, {r6-r9}
	subs r3, r3, #1
	bne 1b
	pop {r0}
	msr apsr_nzcvq, r0
	pop {r0-r12, lr}
`, map[string]interface{}{"g": uintptr(unsafe.Pointer(g))})
}

// dspPWPairsW is dspPWPairsWRef (dsp.go) in Thumb-2: dspPWPairs with the
// pixel pair's widened words loaded by one LDM a group (17 instructions
// for sixteen multiply-accumulates).
func dspPWPairsW(g *dspPWArgs) {
	arm.AsmFull(`
	push {r0-r12, lr}
	mov r12, {g}
	mrs r0, apsr
	push {r0}
	ldr r1, [r12, #4]
	ldr r0, [r12, #28]
	push {r0, r12}
2:
	ldr r12, [sp, #4]
	ldr r0, [r12, #40]
	ldr r2, [r12, #8]
	ldr r8, [r12, #16]
	ldr r4, [r8]
	ldr r5, [r8, #20]
	mov r6, r4
	mov r7, r5
	tst r2, #1
	beq 3f
	ldm r0!, {r8-r11}
	ldr lr, [r1], #4
	sxtb16 r12, lr
	sxtb16 lr, lr, ror #8
	smlad r4, r8, r12, r4
	smlad r4, r9, lr, r4
	smlad r6, r10, r12, r6
	smlad r6, r11, lr, r6
	ldr lr, [r1], #4
	sxtb16 r12, lr
	sxtb16 lr, lr, ror #8
	smlad r5, r8, r12, r5
	smlad r5, r9, lr, r5
	smlad r7, r10, r12, r7
	smlad r7, r11, lr, r7
	subs r2, r2, #1
	beq 4f
3:
	ldm r0!, {r8-r11}
	ldr lr, [r1], #4
	sxtb16 r12, lr
	sxtb16 lr, lr, ror #8
	smlad r4, r8, r12, r4
	smlad r4, r9, lr, r4
	smlad r6, r10, r12, r6
	smlad r6, r11, lr, r6
	ldr lr, [r1], #4
	sxtb16 r12, lr
	sxtb16 lr, lr, ror #8
	smlad r5, r8, r12, r5
	smlad r5, r9, lr, r5
	smlad r7, r10, r12, r7
	smlad r7, r11, lr, r7
	ldm r0!, {r8-r11}
	ldr lr, [r1], #4
	sxtb16 r12, lr
	sxtb16 lr, lr, ror #8
	smlad r4, r8, r12, r4
	smlad r4, r9, lr, r4
	smlad r6, r10, r12, r6
	smlad r6, r11, lr, r6
	ldr lr, [r1], #4
	sxtb16 r12, lr
	sxtb16 lr, lr, ror #8
	smlad r5, r8, r12, r5
	smlad r5, r9, lr, r5
	smlad r7, r10, r12, r7
	smlad r7, r11, lr, r7
	subs r2, r2, #2
	bne 3b
4:
	ldr r12, [sp, #4]
	ldr r0, [r12, #16]
	ldr r2, [r12, #20]
	ldr r3, [r12, #24]
	ldr r11, [r12, #32]
	ldr lr, [r12, #36]
	ldr r8, [r0, #4]
	ldrb r12, [r0, #16]
	ldr r9, [r0, #8]
	ldr r10, [r0, #12]
	umlal r9, r10, r4, r8
	add r10, r10, r4, lsr #30
	asr r10, r10, r12
	usat r10, #8, r10
	cmp r10, r11
	it gt
	movgt r10, r11
	add r10, r10, lr
	strb r10, [r2], #1
	ldr r9, [r0, #8]
	ldr r10, [r0, #12]
	umlal r9, r10, r6, r8
	add r10, r10, r6, lsr #30
	asr r10, r10, r12
	usat r10, #8, r10
	cmp r10, r11
	it gt
	movgt r10, r11
	add r10, r10, lr
	strb r10, [r3], #1
	ldr r8, [r0, #24]
	ldrb r12, [r0, #36]
	ldr r9, [r0, #28]
	ldr r10, [r0, #32]
	umlal r9, r10, r5, r8
	add r10, r10, r5, lsr #30
	asr r10, r10, r12
	usat r10, #8, r10
	cmp r10, r11
	it gt
	movgt r10, r11
	add r10, r10, lr
	strb r10, [r2], #1
	ldr r9, [r0, #28]
	ldr r10, [r0, #32]
	umlal r9, r10, r7, r8
	add r10, r10, r7, lsr #30
	asr r10, r10, r12
	usat r10, #8, r10
	cmp r10, r11
	it gt
	movgt r10, r11
	add r10, r10, lr
	strb r10, [r3], #1
	add r0, r0, #40
	ldr r12, [sp, #4]
	str r0, [r12, #16]
	str r2, [r12, #20]
	str r3, [r12, #24]
	ldr r0, [sp]
	subs r0, r0, #1
	str r0, [sp]
	bne 2b
	add sp, sp, #8
	pop {r0}
	msr apsr_nzcvq, r0
	pop {r0-r12, lr}
`, map[string]interface{}{"g": uintptr(unsafe.Pointer(g))})
}

// dspCopy copies n bytes from src to dst (not overlapping), a word at a
// time whatever the alignment (the Cortex-M4 loads and stores unaligned
// words), 16 bytes an iteration: picolibc's memmove, which copy() calls,
// moves a byte at a time. The operands reach the assembly in any
// registers: it stores them first and pops them into its own.
func dspCopy(dst, src unsafe.Pointer, n int) {
	arm.AsmFull(`
	push {r0-r12, lr}
	str {d}, [sp, #-4]!
	str {s}, [sp, #-4]!
	str {n}, [sp, #-4]!
	pop {r0, r1, r2}
	mrs r3, apsr
	push {r3}
	subs r0, r0, #16
	blt 2f
1:
	ldr r4, [r1], #4
	ldr r5, [r1], #4
	ldr r6, [r1], #4
	ldr r7, [r1], #4
	str r4, [r2], #4
	str r5, [r2], #4
	str r6, [r2], #4
	str r7, [r2], #4
	subs r0, r0, #16
	bge 1b
2:
	adds r0, r0, #16
	beq 4f
3:
	ldrb r4, [r1], #1
	strb r4, [r2], #1
	subs r0, r0, #1
	bne 3b
4:
	pop {r3}
	msr apsr_nzcvq, r3
	pop {r0-r12, lr}
`, map[string]interface{}{"d": uintptr(dst), "s": uintptr(src), "n": uintptr(n)})
}
