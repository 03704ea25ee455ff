//go:build tinygo && cortexm && !nodsp

package kernels

import (
	"device/arm"
	"unsafe"
)

// dspMulRows is dspMulRowsRef (mul_dsp.go) in Thumb-2: the record's
// constants in r4-r10 (2*in1Off, in2Off, m, K, r, span, lo), per row a
// loop chosen by the mode (both inputs stepping, with or without the
// activation clamp, labels 10 and 20; one input fixed along the row, its
// term computed once, labels 50 and 60), per element two LDRSB, the offset
// factors, MUL, SMMLAR, the sign term, ASR, USAT, the clamp, the zero
// point and a byte store. Operands, frame and saved registers as in
// dspFCRow.
func dspMulRows(a, b, o unsafe.Pointer, k unsafe.Pointer) {
	arm.AsmFull(`
	push {r0-r12, lr}
	sub sp, sp, #24
	str {a}, [sp, #4]
	str {b}, [sp, #8]
	str {o}, [sp, #12]
	str {k}, [sp, #16]
	mrs r0, apsr
	str r0, [sp]
	ldr r12, [sp, #16]
	ldr r0, [r12, #4]
	str r0, [sp, #20]
	ldr r4, [r12, #16]
	ldr r5, [r12, #20]
	ldr r6, [r12, #24]
	ldr r7, [r12, #28]
	ldr r8, [r12, #32]
	ldr r9, [r12, #36]
	ldr r10, [r12, #40]
	ldr r2, [sp, #12]
1:
	ldr r0, [sp, #4]
	ldr r1, [sp, #8]
	ldr r12, [sp, #16]
	ldr r3, [r12]
	ldr r11, [r12, #44]
	cmp r11, #3
	beq 10f
	cmp r11, #7
	beq 20f
	tst r11, #1
	bne 50f
	b 60f
10:
	ldrsb r11, [r0], #1
	ldrsb r12, [r1], #1
	add r11, r4, r11, lsl #1
	add r12, r12, r5
	mul r11, r11, r12
	smmlar r12, r11, r6, r7
	add r12, r12, r11, asr #31
	asr r12, r12, r8
	usat r12, #8, r12
	cmp r12, r9
	it gt
	movgt r12, r9
	add r12, r12, r10
	strb r12, [r2], #1
	subs r3, r3, #1
	bne 10b
	b 40f
20:
	ldrsb r11, [r0], #1
	ldrsb r12, [r1], #1
	add r11, r4, r11, lsl #1
	add r12, r12, r5
	mul r11, r11, r12
	smmlar r12, r11, r6, r7
	add r12, r12, r11, asr #31
	asr r12, r12, r8
	usat r12, #8, r12
	add r12, r12, r10
	strb r12, [r2], #1
	subs r3, r3, #1
	bne 20b
	b 40f
50:
	ldrsb r12, [r1]
	add lr, r12, r5
51:
	ldrsb r11, [r0], #1
	add r11, r4, r11, lsl #1
	mul r11, r11, lr
	smmlar r12, r11, r6, r7
	add r12, r12, r11, asr #31
	asr r12, r12, r8
	usat r12, #8, r12
	cmp r12, r9
	it gt
	movgt r12, r9
	add r12, r12, r10
	strb r12, [r2], #1
	subs r3, r3, #1
	bne 51b
	b 40f
60:
	ldrsb r12, [r0]
	add lr, r4, r12, lsl #1
61:
	ldrsb r11, [r1], #1
	add r11, r11, r5
	mul r11, r11, lr
	smmlar r12, r11, r6, r7
	add r12, r12, r11, asr #31
	asr r12, r12, r8
	usat r12, #8, r12
	cmp r12, r9
	it gt
	movgt r12, r9
	add r12, r12, r10
	strb r12, [r2], #1
	subs r3, r3, #1
	bne 61b
	b 40f
40:
	ldr r12, [sp, #16]
	ldr r11, [r12, #8]
	ldr r0, [sp, #4]
	add r0, r0, r11
	str r0, [sp, #4]
	ldr r11, [r12, #12]
	ldr r1, [sp, #8]
	add r1, r1, r11
	str r1, [sp, #8]
	ldr r0, [sp, #20]
	subs r0, r0, #1
	str r0, [sp, #20]
	bne 1b
	ldr r0, [sp]
	msr apsr_nzcvq, r0
	add sp, sp, #24
	pop {r0-r12, lr}

`, map[string]interface{}{"a": uintptr(a), "b": uintptr(b), "o": uintptr(o), "k": uintptr(k)})
}
