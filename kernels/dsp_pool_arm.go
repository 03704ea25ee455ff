//go:build tinygo && cortexm && !nodsp

package kernels

import (
	"device/arm"
	"unsafe"
)

// dspMaxPool is dspMaxPoolRef (pool_dsp.go) in Thumb-2: per pixel, blocks
// of four channel words (then two, then one) whose maxima start at -128 in
// every byte (r2-r5); per tap a word load, SSUB8 and SEL per word, the tap
// pointer (r11) stepping by the depth (r0) along a row and by the input
// row (lr) between rows; then the clamp to the record's bytes (SSUB8 and
// SEL twice) and a word store. It saves r0-r12, lr and the flags with the
// GE bits (apsr_nzcvqg), and takes its operands as dspFCRow does.
func dspMaxPool(x, o unsafe.Pointer, spec uint32, k unsafe.Pointer) {
	arm.AsmFull(`
	push {r0-r12, lr}
	sub sp, sp, #80
	str {p}, [sp, #4]
	str {o}, [sp, #8]
	str {n}, [sp, #12]
	str {k}, [sp, #16]
	mrs r0, apsr
	str r0, [sp]
	ldr r0, [sp, #12]
	ldr r1, [sp, #8]
	uxth r0, r0
	str r0, [sp, #20]
1:
	ldr r0, [sp, #4]
	ldr r12, [sp, #16]
	ldr r3, [r12]
	str r3, [sp, #24]
2:
	ldr r3, [sp, #24]
	cmp r3, #4
	blt 20f
	sub r3, r3, #4
	str r3, [sp, #24]
	mov r2, #0x80808080
	mov r3, r2
	mov r4, r2
	mov r5, r2
	str r0, [sp, #40]
	mov lr, r0
	ldr r0, [sp, #16]
	ldr r0, [r0, #8]
	ldr r12, [sp, #12]
	lsr r12, r12, #16
	uxtb r12, r12
	str r12, [sp, #36]
11:
	mov r11, lr
	ldr r12, [sp, #12]
	lsr r12, r12, #24
12:
	ldr r10, [r11]
	ssub8 r9, r10, r2
	sel r2, r10, r2
	ldr r10, [r11, #4]
	ssub8 r9, r10, r3
	sel r3, r10, r3
	ldr r10, [r11, #8]
	ssub8 r9, r10, r4
	sel r4, r10, r4
	ldr r10, [r11, #12]
	ssub8 r9, r10, r5
	sel r5, r10, r5
	add r11, r11, r0
	subs r12, r12, #1
	bne 12b
	ldr r10, [sp, #16]
	ldr r10, [r10, #4]
	add lr, lr, r10
	ldr r10, [sp, #36]
	subs r10, r10, #1
	str r10, [sp, #36]
	bne 11b
	ldr r12, [sp, #16]
	ldr r10, [r12, #16]
	ssub8 r9, r2, r10
	sel r2, r2, r10
	ssub8 r9, r3, r10
	sel r3, r3, r10
	ssub8 r9, r4, r10
	sel r4, r4, r10
	ssub8 r9, r5, r10
	sel r5, r5, r10
	ldr r10, [r12, #20]
	ssub8 r9, r10, r2
	sel r2, r2, r10
	str r2, [r1], #4
	ssub8 r9, r10, r3
	sel r3, r3, r10
	str r3, [r1], #4
	ssub8 r9, r10, r4
	sel r4, r4, r10
	str r4, [r1], #4
	ssub8 r9, r10, r5
	sel r5, r5, r10
	str r5, [r1], #4
	ldr r0, [sp, #40]
	add r0, r0, #16
	b 2b
20:
	cmp r3, #2
	blt 25f
	sub r3, r3, #2
	str r3, [sp, #24]
	mov r2, #0x80808080
	mov r3, r2
	str r0, [sp, #40]
	mov lr, r0
	ldr r0, [sp, #16]
	ldr r0, [r0, #8]
	ldr r12, [sp, #12]
	lsr r12, r12, #16
	uxtb r12, r12
	str r12, [sp, #36]
41:
	mov r11, lr
	ldr r12, [sp, #12]
	lsr r12, r12, #24
42:
	ldr r10, [r11]
	ssub8 r9, r10, r2
	sel r2, r10, r2
	ldr r10, [r11, #4]
	ssub8 r9, r10, r3
	sel r3, r10, r3
	add r11, r11, r0
	subs r12, r12, #1
	bne 42b
	ldr r10, [sp, #16]
	ldr r10, [r10, #4]
	add lr, lr, r10
	ldr r10, [sp, #36]
	subs r10, r10, #1
	str r10, [sp, #36]
	bne 41b
	ldr r12, [sp, #16]
	ldr r10, [r12, #16]
	ssub8 r9, r2, r10
	sel r2, r2, r10
	ssub8 r9, r3, r10
	sel r3, r3, r10
	ldr r10, [r12, #20]
	ssub8 r9, r10, r2
	sel r2, r2, r10
	str r2, [r1], #4
	ssub8 r9, r10, r3
	sel r3, r3, r10
	str r3, [r1], #4
	ldr r0, [sp, #40]
	add r0, r0, #8
	b 2b
25:
	cmp r3, #0
	beq 30f
	sub r3, r3, #1
	str r3, [sp, #24]
	mov r2, #0x80808080
	str r0, [sp, #40]
	mov lr, r0
	ldr r0, [sp, #16]
	ldr r0, [r0, #8]
	ldr r12, [sp, #12]
	lsr r12, r12, #16
	uxtb r12, r12
	str r12, [sp, #36]
21:
	mov r11, lr
	ldr r12, [sp, #12]
	lsr r12, r12, #24
22:
	ldr r10, [r11]
	ssub8 r9, r10, r2
	sel r2, r10, r2
	add r11, r11, r0
	subs r12, r12, #1
	bne 22b
	ldr r10, [sp, #16]
	ldr r10, [r10, #4]
	add lr, lr, r10
	ldr r10, [sp, #36]
	subs r10, r10, #1
	str r10, [sp, #36]
	bne 21b
	ldr r12, [sp, #16]
	ldr r10, [r12, #16]
	ssub8 r9, r2, r10
	sel r2, r2, r10
	ldr r10, [r12, #20]
	ssub8 r9, r10, r2
	sel r2, r2, r10
	str r2, [r1], #4
	ldr r0, [sp, #40]
	add r0, r0, #4
	b 2b
30:
	ldr r0, [sp, #4]
	ldr r12, [sp, #16]
	ldr r12, [r12, #12]
	add r0, r0, r12
	str r0, [sp, #4]
	ldr r0, [sp, #20]
	subs r0, r0, #1
	str r0, [sp, #20]
	bne 1b
	b 9f
9:
	ldr r0, [sp]
	msr apsr_nzcvqg, r0
	add sp, sp, #80
	pop {r0-r12, lr}

`, map[string]interface{}{"p": uintptr(x), "o": uintptr(o), "n": spec, "k": uintptr(k)})
}

// dspAvgPool is dspAvgPoolRef (pool_dsp.go) in Thumb-2: dspMaxPool's loops
// with two SXTAB16 per word and tap into 16-bit lanes (r2-r9: channels 0
// and 2, 1 and 3 of each word); the lanes go to the frame, and per word
// (label 51) each channel's sum is made positive, doubled and added to
// 2*(n/2), multiplied by floor(2^31/n) + 1 (UMULL, the high word: the
// rounded quotient), given back its sign, packed into a word with the
// other three (BFI), clamped (SSUB8 and SEL) and stored. The reciprocal
// comes from one UDIV per call.
func dspAvgPool(x, o unsafe.Pointer, spec uint32, k unsafe.Pointer) {
	arm.AsmFull(`
	push {r0-r12, lr}
	sub sp, sp, #80
	str {p}, [sp, #4]
	str {o}, [sp, #8]
	str {n}, [sp, #12]
	str {k}, [sp, #16]
	mrs r0, apsr
	str r0, [sp]
	ldr r0, [sp, #12]
	lsr r2, r0, #16
	uxtb r2, r2
	lsr r3, r0, #24
	mul r2, r2, r3
	mov r3, #0x80000000
	udiv r3, r3, r2
	add r3, r3, #1
	str r3, [sp, #28]
	bic r2, r2, #1
	str r2, [sp, #32]
	ldr r1, [sp, #8]
	uxth r0, r0
	str r0, [sp, #20]
1:
	ldr r0, [sp, #4]
	ldr r12, [sp, #16]
	ldr r3, [r12]
	str r3, [sp, #24]
2:
	ldr r3, [sp, #24]
	cmp r3, #4
	blt 20f
	sub r3, r3, #4
	str r3, [sp, #24]
	mov r2, #0
	mov r3, #0
	mov r4, #0
	mov r5, #0
	mov r6, #0
	mov r7, #0
	mov r8, #0
	mov r9, #0
	str r0, [sp, #40]
	mov lr, r0
	ldr r0, [sp, #16]
	ldr r0, [r0, #8]
	ldr r12, [sp, #12]
	lsr r12, r12, #16
	uxtb r12, r12
	str r12, [sp, #36]
11:
	mov r11, lr
	ldr r12, [sp, #12]
	lsr r12, r12, #24
12:
	ldr r10, [r11]
	sxtab16 r2, r2, r10
	sxtab16 r3, r3, r10, ror #8
	ldr r10, [r11, #4]
	sxtab16 r4, r4, r10
	sxtab16 r5, r5, r10, ror #8
	ldr r10, [r11, #8]
	sxtab16 r6, r6, r10
	sxtab16 r7, r7, r10, ror #8
	ldr r10, [r11, #12]
	sxtab16 r8, r8, r10
	sxtab16 r9, r9, r10, ror #8
	add r11, r11, r0
	subs r12, r12, #1
	bne 12b
	ldr r10, [sp, #16]
	ldr r10, [r10, #4]
	add lr, lr, r10
	ldr r10, [sp, #36]
	subs r10, r10, #1
	str r10, [sp, #36]
	bne 11b
	add r10, sp, #44
	stm r10, {r2-r9}
	mov r12, #4
	b 50f
20:
	cmp r3, #2
	blt 25f
	sub r3, r3, #2
	str r3, [sp, #24]
	mov r2, #0
	mov r3, #0
	mov r4, #0
	mov r5, #0
	str r0, [sp, #40]
	mov lr, r0
	ldr r0, [sp, #16]
	ldr r0, [r0, #8]
	ldr r12, [sp, #12]
	lsr r12, r12, #16
	uxtb r12, r12
	str r12, [sp, #36]
41:
	mov r11, lr
	ldr r12, [sp, #12]
	lsr r12, r12, #24
42:
	ldr r10, [r11]
	sxtab16 r2, r2, r10
	sxtab16 r3, r3, r10, ror #8
	ldr r10, [r11, #4]
	sxtab16 r4, r4, r10
	sxtab16 r5, r5, r10, ror #8
	add r11, r11, r0
	subs r12, r12, #1
	bne 42b
	ldr r10, [sp, #16]
	ldr r10, [r10, #4]
	add lr, lr, r10
	ldr r10, [sp, #36]
	subs r10, r10, #1
	str r10, [sp, #36]
	bne 41b
	add r10, sp, #44
	stm r10, {r2-r5}
	mov r12, #2
	b 50f
25:
	cmp r3, #0
	beq 30f
	sub r3, r3, #1
	str r3, [sp, #24]
	mov r2, #0
	mov r3, #0
	str r0, [sp, #40]
	mov lr, r0
	ldr r0, [sp, #16]
	ldr r0, [r0, #8]
	ldr r12, [sp, #12]
	lsr r12, r12, #16
	uxtb r12, r12
	str r12, [sp, #36]
21:
	mov r11, lr
	ldr r12, [sp, #12]
	lsr r12, r12, #24
22:
	ldr r10, [r11]
	sxtab16 r2, r2, r10
	sxtab16 r3, r3, r10, ror #8
	add r11, r11, r0
	subs r12, r12, #1
	bne 22b
	ldr r10, [sp, #16]
	ldr r10, [r10, #4]
	add lr, lr, r10
	ldr r10, [sp, #36]
	subs r10, r10, #1
	str r10, [sp, #36]
	bne 21b
	add r10, sp, #44
	stm r10, {r2-r3}
	mov r12, #1
	b 50f
30:
	ldr r0, [sp, #4]
	ldr r12, [sp, #16]
	ldr r12, [r12, #12]
	add r0, r0, r12
	str r0, [sp, #4]
	ldr r0, [sp, #20]
	subs r0, r0, #1
	str r0, [sp, #20]
	bne 1b
	b 9f
50:
	ldr r11, [sp, #28]
	ldr lr, [sp, #32]
51:
	ldr r2, [r10], #4
	ldr r3, [r10], #4
	sxth r4, r2
	eor r5, r4, r4, asr #31
	sub r5, r5, r4, asr #31
	add r5, lr, r5, lsl #1
	umull r6, r5, r5, r11
	eor r5, r5, r4, asr #31
	sub r5, r5, r4, asr #31
	uxtb r9, r5
	sxth r4, r3
	eor r5, r4, r4, asr #31
	sub r5, r5, r4, asr #31
	add r5, lr, r5, lsl #1
	umull r6, r5, r5, r11
	eor r5, r5, r4, asr #31
	sub r5, r5, r4, asr #31
	bfi r9, r5, #8, #8
	asr r4, r2, #16
	eor r5, r4, r4, asr #31
	sub r5, r5, r4, asr #31
	add r5, lr, r5, lsl #1
	umull r6, r5, r5, r11
	eor r5, r5, r4, asr #31
	sub r5, r5, r4, asr #31
	bfi r9, r5, #16, #8
	asr r4, r3, #16
	eor r5, r4, r4, asr #31
	sub r5, r5, r4, asr #31
	add r5, lr, r5, lsl #1
	umull r6, r5, r5, r11
	eor r5, r5, r4, asr #31
	sub r5, r5, r4, asr #31
	orr r9, r9, r5, lsl #24
	ldr r8, [sp, #16]
	ldr r7, [r8, #16]
	ssub8 r6, r9, r7
	sel r9, r9, r7
	ldr r7, [r8, #20]
	ssub8 r6, r7, r9
	sel r9, r9, r7
	str r9, [r1], #4
	subs r12, r12, #1
	bne 51b
	ldr r0, [sp, #40]
	add r12, sp, #44
	sub r12, r10, r12
	add r0, r0, r12, lsr #1
	b 2b
9:
	ldr r0, [sp]
	msr apsr_nzcvqg, r0
	add sp, sp, #80
	pop {r0-r12, lr}

`, map[string]interface{}{"p": uintptr(x), "o": uintptr(o), "n": spec, "k": uintptr(k)})
}
