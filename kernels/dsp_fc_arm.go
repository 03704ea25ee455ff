//go:build tinygo && cortexm && !nodsp

package kernels

import (
	"device/arm"
	"unsafe"
)

// dspFCRow is dspFCRowRef (fc_dsp.go) in Thumb-2. Per group of eight
// channels (label 80): per group of four columns a word load of the row,
// widened by two SXTB16 (r11, r12), and for each channel a word load of its
// weights widened by two SXTB16 (r2, lr) into two SMLAD, the sums in
// r3-r10 (46 instructions for 32 multiply-accumulates), until the row's
// end; then a quad, a pair and a single (labels 10, 20, 30) by groups of
// eight columns. Then (label 50) each sum plus its record's bias,
// saturated by SSAT and doubled, requantized by SMMLAR with the record's
// multiplier and K, less its sign, shifted right by r, clamped by USAT and
// a compare with span, plus lo, stored. r1 walks the weights from group to
// group; the row, its end, the records, the outputs, the groups left and
// the sums live in a frame below the saved registers.
//
// Its operands are values, not the address of a block: the kernel has no
// scratch to hold one. It stores them in its frame before it changes a
// register (LLVM may have put them in any), saves r0-r12, lr and the flags
// (mrs/msr apsr_nzcvq), and restores them: TinyGo's inline assembly
// declares no clobbers.
func dspFCRow(x, w, r, o unsafe.Pointer) {
	arm.AsmFull(`
	push {r0-r12, lr}
	sub sp, sp, #64
	str {x}, [sp, #4]
	str {r}, [sp, #20]
	str {o}, [sp, #12]
	mov r1, {w}
	mrs r0, apsr
	str r0, [sp]
	ldr r0, [sp, #20]
	add r2, r0, #24
	str r2, [sp, #8]
	ldr r2, [r0, #8]
	str r2, [sp, #16]
	ldr r2, [r0, #12]
	str r2, [sp, #24]
	ldr r2, [r0]
	ldr r3, [r0, #4]
	lsl r2, r2, #3
	add r2, r2, r3, lsl #2
	ldr r3, [sp, #4]
	add r2, r2, r3
	str r2, [sp, #28]
2:
	ldr r0, [sp, #4]
	ldr r12, [sp, #20]
	ldr r2, [r12]
	ldr r3, [sp, #16]
	cmp r3, #0
	bne 80f
	ldr r3, [sp, #24]
	cmp r3, #4
	bge 10f
	cmp r3, #2
	bge 20f
	cmp r3, #1
	beq 30f
	b 9f
80:
	sub r3, r3, #1
	str r3, [sp, #16]
	mov r3, #0
	mov r4, #0
	mov r5, #0
	mov r6, #0
	mov r7, #0
	mov r8, #0
	mov r9, #0
	mov r10, #0
81:
	ldr r11, [r0], #4
	sxtb16 r12, r11, ror #8
	sxtb16 r11, r11
	ldr lr, [r1], #4
	sxtb16 r2, lr
	sxtb16 lr, lr, ror #8
	smlad r3, r11, r2, r3
	smlad r3, r12, lr, r3
	ldr lr, [r1], #4
	sxtb16 r2, lr
	sxtb16 lr, lr, ror #8
	smlad r4, r11, r2, r4
	smlad r4, r12, lr, r4
	ldr lr, [r1], #4
	sxtb16 r2, lr
	sxtb16 lr, lr, ror #8
	smlad r5, r11, r2, r5
	smlad r5, r12, lr, r5
	ldr lr, [r1], #4
	sxtb16 r2, lr
	sxtb16 lr, lr, ror #8
	smlad r6, r11, r2, r6
	smlad r6, r12, lr, r6
	ldr lr, [r1], #4
	sxtb16 r2, lr
	sxtb16 lr, lr, ror #8
	smlad r7, r11, r2, r7
	smlad r7, r12, lr, r7
	ldr lr, [r1], #4
	sxtb16 r2, lr
	sxtb16 lr, lr, ror #8
	smlad r8, r11, r2, r8
	smlad r8, r12, lr, r8
	ldr lr, [r1], #4
	sxtb16 r2, lr
	sxtb16 lr, lr, ror #8
	smlad r9, r11, r2, r9
	smlad r9, r12, lr, r9
	ldr lr, [r1], #4
	sxtb16 r2, lr
	sxtb16 lr, lr, ror #8
	smlad r10, r11, r2, r10
	smlad r10, r12, lr, r10
	ldr r2, [sp, #28]
	cmp r0, r2
	bne 81b
	add r2, sp, #32
	stm r2, {r3-r10}
	mov r0, #8
	b 50f
10:
	sub r3, r3, #4
	str r3, [sp, #24]
	mov r3, #0
	mov r4, #0
	mov r5, #0
	mov r6, #0
	cmp r2, #0
	beq 13f
11:
	ldr r9, [r0, #4]
	ldr r7, [r0], #8
	sxtb16 r8, r7, ror #8
	sxtb16 r7, r7
	sxtb16 r10, r9, ror #8
	sxtb16 r9, r9
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r3, r7, r12, r3
	smlad r3, r8, r11, r3
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r3, r9, r12, r3
	smlad r3, r10, r11, r3
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r4, r7, r12, r4
	smlad r4, r8, r11, r4
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r4, r9, r12, r4
	smlad r4, r10, r11, r4
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r5, r7, r12, r5
	smlad r5, r8, r11, r5
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r5, r9, r12, r5
	smlad r5, r10, r11, r5
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r6, r7, r12, r6
	smlad r6, r8, r11, r6
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r6, r9, r12, r6
	smlad r6, r10, r11, r6
	subs r2, r2, #1
	bne 11b
13:
	ldr r12, [sp, #20]
	ldr r2, [r12, #4]
	cmp r2, #0
	beq 14f
	ldr r7, [r0]
	sxtb16 r8, r7, ror #8
	sxtb16 r7, r7
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r3, r7, r12, r3
	smlad r3, r8, r11, r3
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r4, r7, r12, r4
	smlad r4, r8, r11, r4
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r5, r7, r12, r5
	smlad r5, r8, r11, r5
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r6, r7, r12, r6
	smlad r6, r8, r11, r6
14:
	add r7, sp, #32
	stm r7, {r3-r6}
	mov r0, #4
	b 50f
20:
	sub r3, r3, #2
	str r3, [sp, #24]
	mov r3, #0
	mov r4, #0
	cmp r2, #0
	beq 23f
21:
	ldr r9, [r0, #4]
	ldr r7, [r0], #8
	sxtb16 r8, r7, ror #8
	sxtb16 r7, r7
	sxtb16 r10, r9, ror #8
	sxtb16 r9, r9
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r3, r7, r12, r3
	smlad r3, r8, r11, r3
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r3, r9, r12, r3
	smlad r3, r10, r11, r3
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r4, r7, r12, r4
	smlad r4, r8, r11, r4
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r4, r9, r12, r4
	smlad r4, r10, r11, r4
	subs r2, r2, #1
	bne 21b
23:
	ldr r12, [sp, #20]
	ldr r2, [r12, #4]
	cmp r2, #0
	beq 24f
	ldr r7, [r0]
	sxtb16 r8, r7, ror #8
	sxtb16 r7, r7
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r3, r7, r12, r3
	smlad r3, r8, r11, r3
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r4, r7, r12, r4
	smlad r4, r8, r11, r4
24:
	add r7, sp, #32
	stm r7, {r3-r4}
	mov r0, #2
	b 50f
30:
	mov r3, #0
	str r3, [sp, #24]
	mov r3, #0
	cmp r2, #0
	beq 33f
31:
	ldr r9, [r0, #4]
	ldr r7, [r0], #8
	sxtb16 r8, r7, ror #8
	sxtb16 r7, r7
	sxtb16 r10, r9, ror #8
	sxtb16 r9, r9
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r3, r7, r12, r3
	smlad r3, r8, r11, r3
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r3, r9, r12, r3
	smlad r3, r10, r11, r3
	subs r2, r2, #1
	bne 31b
33:
	ldr r12, [sp, #20]
	ldr r2, [r12, #4]
	cmp r2, #0
	beq 34f
	ldr r7, [r0]
	sxtb16 r8, r7, ror #8
	sxtb16 r7, r7
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r3, r7, r12, r3
	smlad r3, r8, r11, r3
34:
	str r3, [sp, #32]
	mov r0, #1
	b 50f
50:
	ldr r7, [sp, #8]
	ldr r2, [sp, #12]
	ldr r12, [sp, #20]
	ldr r11, [r12, #16]
	ldr lr, [r12, #20]
	add r6, sp, #32
51:
	ldr r3, [r6], #4
	ldr r8, [r7]
	add r3, r3, r8
	ssat r3, #31, r3
	lsl r3, r3, #1
	ldr r8, [r7, #4]
	ldr r9, [r7, #8]
	ldr r10, [r7, #12]
	smmlar r9, r3, r8, r9
	add r9, r9, r3, asr #31
	asr r9, r9, r10
	usat r9, #8, r9
	cmp r9, r11
	it gt
	movgt r9, r11
	add r9, r9, lr
	strb r9, [r2], #1
	add r7, r7, #16
	subs r0, r0, #1
	bne 51b
	str r7, [sp, #8]
	str r2, [sp, #12]
	b 2b
9:
	ldr r0, [sp]
	msr apsr_nzcvq, r0
	add sp, sp, #64
	pop {r0-r12, lr}

`, map[string]interface{}{"x": uintptr(x), "w": uintptr(w), "r": uintptr(r), "o": uintptr(o)})
}

// dspFC16Row is dspFC16RowRef (fc_dsp.go) in Thumb-2: dspFCRow's groups
// (labels 10, 20, 30) and loops with the row's words used as they are
// (four word loads per eight columns, r7-r10); a long row (the header's
// flag) in blocks of at most 32 groups of eight columns (label 41) whose
// 32-bit sums are added to 64-bit sums in the frame (label 45; a last
// group of four columns joins the last block), a short one's sums
// sign-extended into the frame (label 46); then (label 51) for each 64-bit
// sum, UMLAL and MLA by the record's multiplier onto its addend, the high
// word shifted right by e, plus zo, clamped to [lo, hi] and stored as a
// halfword. Operands, frame and saved registers as in dspFCRow.
func dspFC16Row(x, w, r, o unsafe.Pointer) {
	arm.AsmFull(`
	push {r0-r12, lr}
	sub sp, sp, #72
	str {x}, [sp, #4]
	str {r}, [sp, #20]
	str {o}, [sp, #12]
	mov r1, {w}
	mrs r0, apsr
	str r0, [sp]
	ldr r0, [sp, #20]
	add r2, r0, #32
	str r2, [sp, #8]
	ldr r2, [r0, #8]
	str r2, [sp, #16]
	ldr r2, [r0, #12]
	str r2, [sp, #24]
2:
	ldr r3, [sp, #16]
	cmp r3, #0
	bne 10f
	ldr r3, [sp, #24]
	cmp r3, #2
	bge 20f
	cmp r3, #1
	beq 30f
	b 9f
10:
	sub r3, r3, #1
	str r3, [sp, #16]
	mov r3, #4
	b 40f
20:
	sub r3, r3, #2
	str r3, [sp, #24]
	mov r3, #2
	b 40f
30:
	mov r3, #0
	str r3, [sp, #24]
	mov r3, #1
40:
	str r3, [sp, #32]
	ldr r0, [sp, #4]
	mov r12, #0
	str r12, [sp, #28]
	ldr r12, [sp, #20]
	ldr r2, [r12]
	ldr r12, [r12, #28]
	cmp r12, #0
	beq 42f
	mov r3, #0
	mov r4, #0
	strd r3, r4, [sp, #40]
	strd r3, r4, [sp, #48]
	strd r3, r4, [sp, #56]
	strd r3, r4, [sp, #64]
	str r2, [sp, #28]
41:
	ldr r2, [sp, #28]
	cmp r2, #32
	it hi
	movhi r2, #32
	ldr r12, [sp, #28]
	sub r12, r12, r2
	str r12, [sp, #28]
42:
	mov r3, #0
	mov r4, #0
	mov r5, #0
	mov r6, #0
	ldr r12, [sp, #32]
	cmp r12, #2
	blt 31f
	beq 21f
11:
	cmp r2, #0
	beq 13f
12:
	ldr r8, [r0, #4]
	ldr r9, [r0, #8]
	ldr r10, [r0, #12]
	ldr r7, [r0], #16
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r3, r7, r12, r3
	smlad r3, r8, r11, r3
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r3, r9, r12, r3
	smlad r3, r10, r11, r3
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r4, r7, r12, r4
	smlad r4, r8, r11, r4
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r4, r9, r12, r4
	smlad r4, r10, r11, r4
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r5, r7, r12, r5
	smlad r5, r8, r11, r5
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r5, r9, r12, r5
	smlad r5, r10, r11, r5
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r6, r7, r12, r6
	smlad r6, r8, r11, r6
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r6, r9, r12, r6
	smlad r6, r10, r11, r6
	subs r2, r2, #1
	bne 12b
13:
	ldr r12, [sp, #28]
	cmp r12, #0
	bne 45f
	ldr r12, [sp, #20]
	ldr r2, [r12, #4]
	cmp r2, #0
	beq 45f
	ldr r8, [r0, #4]
	ldr r7, [r0], #8
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r3, r7, r12, r3
	smlad r3, r8, r11, r3
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r4, r7, r12, r4
	smlad r4, r8, r11, r4
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r5, r7, r12, r5
	smlad r5, r8, r11, r5
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r6, r7, r12, r6
	smlad r6, r8, r11, r6
	b 45f
21:
	cmp r2, #0
	beq 23f
22:
	ldr r8, [r0, #4]
	ldr r9, [r0, #8]
	ldr r10, [r0, #12]
	ldr r7, [r0], #16
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r3, r7, r12, r3
	smlad r3, r8, r11, r3
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r3, r9, r12, r3
	smlad r3, r10, r11, r3
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r4, r7, r12, r4
	smlad r4, r8, r11, r4
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r4, r9, r12, r4
	smlad r4, r10, r11, r4
	subs r2, r2, #1
	bne 22b
23:
	ldr r12, [sp, #28]
	cmp r12, #0
	bne 45f
	ldr r12, [sp, #20]
	ldr r2, [r12, #4]
	cmp r2, #0
	beq 45f
	ldr r8, [r0, #4]
	ldr r7, [r0], #8
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r3, r7, r12, r3
	smlad r3, r8, r11, r3
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r4, r7, r12, r4
	smlad r4, r8, r11, r4
	b 45f
31:
	cmp r2, #0
	beq 33f
32:
	ldr r8, [r0, #4]
	ldr r9, [r0, #8]
	ldr r10, [r0, #12]
	ldr r7, [r0], #16
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r3, r7, r12, r3
	smlad r3, r8, r11, r3
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r3, r9, r12, r3
	smlad r3, r10, r11, r3
	subs r2, r2, #1
	bne 32b
33:
	ldr r12, [sp, #28]
	cmp r12, #0
	bne 45f
	ldr r12, [sp, #20]
	ldr r2, [r12, #4]
	cmp r2, #0
	beq 45f
	ldr r8, [r0, #4]
	ldr r7, [r0], #8
	ldr r11, [r1], #4
	sxtb16 r12, r11
	sxtb16 r11, r11, ror #8
	smlad r3, r7, r12, r3
	smlad r3, r8, r11, r3
	b 45f
45:
	ldr r12, [sp, #20]
	ldr r12, [r12, #28]
	cmp r12, #0
	beq 46f
	ldrd r7, r8, [sp, #40]
	adds r7, r7, r3
	adc r8, r8, r3, asr #31
	strd r7, r8, [sp, #40]
	ldrd r7, r8, [sp, #48]
	adds r7, r7, r4
	adc r8, r8, r4, asr #31
	strd r7, r8, [sp, #48]
	ldrd r7, r8, [sp, #56]
	adds r7, r7, r5
	adc r8, r8, r5, asr #31
	strd r7, r8, [sp, #56]
	ldrd r7, r8, [sp, #64]
	adds r7, r7, r6
	adc r8, r8, r6, asr #31
	strd r7, r8, [sp, #64]
	ldr r12, [sp, #28]
	cmp r12, #0
	bne 41b
	b 47f
46:
	asr r7, r3, #31
	strd r3, r7, [sp, #40]
	asr r7, r4, #31
	strd r4, r7, [sp, #48]
	asr r7, r5, #31
	strd r5, r7, [sp, #56]
	asr r7, r6, #31
	strd r6, r7, [sp, #64]
47:
	ldr r7, [sp, #8]
	ldr r2, [sp, #12]
	ldr r0, [sp, #32]
	ldr r12, [sp, #20]
	ldr r3, [r12, #16]
	ldr r4, [r12, #20]
	ldr r5, [r12, #24]
	add r6, sp, #40
51:
	ldrd r8, r9, [r6], #8
	ldr r12, [r7]
	ldr r10, [r7, #4]
	ldr r11, [r7, #8]
	umlal r10, r11, r8, r12
	mla r11, r9, r12, r11
	ldr r12, [r7, #12]
	asr r11, r11, r12
	add r11, r11, r5
	cmp r11, r3
	it lt
	movlt r11, r3
	cmp r11, r4
	it gt
	movgt r11, r4
	strh r11, [r2], #2
	add r7, r7, #16
	subs r0, r0, #1
	bne 51b
	str r7, [sp, #8]
	str r2, [sp, #12]
	b 2b
9:
	ldr r0, [sp]
	msr apsr_nzcvq, r0
	add sp, sp, #72
	pop {r0-r12, lr}

`, map[string]interface{}{"x": uintptr(x), "w": uintptr(w), "r": uintptr(r), "o": uintptr(o)})
}

// dspGather16 is dspGather16Ref (conv_dsp16.go) in Thumb-2: per row, two
// words a step (LDR and STR, which may be unaligned), then a last word and
// a last halfword. Operands, frame and saved registers as in dspFCRow.
func dspGather16(d, s unsafe.Pointer, stride, spec uint32) {
	arm.AsmFull(`
	push {r0-r12, lr}
	sub sp, sp, #24
	str {d}, [sp, #4]
	str {s}, [sp, #8]
	str {t}, [sp, #12]
	str {n}, [sp, #16]
	mrs r0, apsr
	str r0, [sp]
	ldr r0, [sp, #4]
	ldr r1, [sp, #8]
	ldr r2, [sp, #12]
	ldr r3, [sp, #16]
	lsr r4, r3, #16
	uxth r3, r3
1:
	mov r5, r1
	lsrs r6, r3, #3
	beq 3f
2:
	ldr r8, [r5, #4]
	ldr r7, [r5], #8
	str r8, [r0, #4]
	str r7, [r0], #8
	subs r6, r6, #1
	bne 2b
3:
	tst r3, #4
	beq 4f
	ldr r7, [r5], #4
	str r7, [r0], #4
4:
	tst r3, #2
	beq 5f
	ldrh r7, [r5]
	strh r7, [r0], #2
5:
	add r1, r1, r2
	subs r4, r4, #1
	bne 1b
	ldr r0, [sp]
	msr apsr_nzcvq, r0
	add sp, sp, #24
	pop {r0-r12, lr}
`, map[string]interface{}{"d": uintptr(d), "s": uintptr(s), "t": stride, "n": spec})
}
