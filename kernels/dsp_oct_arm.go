//go:build tinygo && cortexm && !nodsp

package kernels

import (
	"device/arm"
	"unsafe"
)

// octPass8 is octPass8Ref (oct.go) in Thumb-2, for the block of eight rows
// at p (octPack's layout). Per group of four columns: a word load of x,
// widened by two SXTB16 (r11: columns 0 and 2, r12: 1 and 3); then per row
// a word load of its four weights (bytes w+128), widened by two UXTB16
// (r2, lr), into two SMLAD, the sums in r3-r10 (43 instructions for 32
// multiply-accumulates). The groups run four to an iteration (labels 10 to
// 13), the first iteration entered at the label that leaves a multiple of
// four groups, until x reaches the end of its groups (kept in the frame);
// then the last one to three columns (labels 71, 72, and the fall-through
// for three) by LDRSB, LDRB and MLA, row after row ([8][k%4]). The sums go
// to a with one STM: a is word-aligned memory in the arena (the caller's
// planned scratch, never a Go local: its address converted to a number
// would move a local to the heap under TinyGo).
//
// Its operands are values, as dspFCRow's (dsp_fc_arm.go): it stores them
// in its frame before it changes a register, saves r0-r12, lr and the
// flags (mrs/msr apsr_nzcvq), and restores them: TinyGo's inline assembly
// declares no clobbers.
//
//go:noinline
func octPass8(x []int8, p unsafe.Pointer, a *[8]int32) {
	arm.AsmFull(`
	push {r0-r12, lr}
	sub sp, sp, #24
	str {x}, [sp, #4]
	str {w}, [sp, #8]
	str {k}, [sp, #12]
	str {s}, [sp, #16]
	mrs r0, apsr
	str r0, [sp]
	ldr r0, [sp, #4]
	ldr r1, [sp, #8]
	ldr r2, [sp, #12]
	mov r3, #0
	mov r4, #0
	mov r5, #0
	mov r6, #0
	mov r7, #0
	mov r8, #0
	mov r9, #0
	mov r10, #0
	lsrs r2, r2, #2
	beq 70f
	add r11, r0, r2, lsl #2
	str r11, [sp, #20]
	and r2, r2, #3
	cmp r2, #1
	beq 13f
	cmp r2, #2
	beq 12f
	cmp r2, #3
	beq 11f
10:
	ldr r11, [r0], #4
	sxtb16 r12, r11, ror #8
	sxtb16 r11, r11
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r3, r11, r2, r3
	smlad r3, r12, lr, r3
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r4, r11, r2, r4
	smlad r4, r12, lr, r4
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r5, r11, r2, r5
	smlad r5, r12, lr, r5
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r6, r11, r2, r6
	smlad r6, r12, lr, r6
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r7, r11, r2, r7
	smlad r7, r12, lr, r7
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r8, r11, r2, r8
	smlad r8, r12, lr, r8
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r9, r11, r2, r9
	smlad r9, r12, lr, r9
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r10, r11, r2, r10
	smlad r10, r12, lr, r10
11:
	ldr r11, [r0], #4
	sxtb16 r12, r11, ror #8
	sxtb16 r11, r11
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r3, r11, r2, r3
	smlad r3, r12, lr, r3
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r4, r11, r2, r4
	smlad r4, r12, lr, r4
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r5, r11, r2, r5
	smlad r5, r12, lr, r5
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r6, r11, r2, r6
	smlad r6, r12, lr, r6
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r7, r11, r2, r7
	smlad r7, r12, lr, r7
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r8, r11, r2, r8
	smlad r8, r12, lr, r8
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r9, r11, r2, r9
	smlad r9, r12, lr, r9
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r10, r11, r2, r10
	smlad r10, r12, lr, r10
12:
	ldr r11, [r0], #4
	sxtb16 r12, r11, ror #8
	sxtb16 r11, r11
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r3, r11, r2, r3
	smlad r3, r12, lr, r3
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r4, r11, r2, r4
	smlad r4, r12, lr, r4
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r5, r11, r2, r5
	smlad r5, r12, lr, r5
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r6, r11, r2, r6
	smlad r6, r12, lr, r6
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r7, r11, r2, r7
	smlad r7, r12, lr, r7
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r8, r11, r2, r8
	smlad r8, r12, lr, r8
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r9, r11, r2, r9
	smlad r9, r12, lr, r9
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r10, r11, r2, r10
	smlad r10, r12, lr, r10
13:
	ldr r11, [r0], #4
	sxtb16 r12, r11, ror #8
	sxtb16 r11, r11
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r3, r11, r2, r3
	smlad r3, r12, lr, r3
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r4, r11, r2, r4
	smlad r4, r12, lr, r4
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r5, r11, r2, r5
	smlad r5, r12, lr, r5
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r6, r11, r2, r6
	smlad r6, r12, lr, r6
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r7, r11, r2, r7
	smlad r7, r12, lr, r7
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r8, r11, r2, r8
	smlad r8, r12, lr, r8
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r9, r11, r2, r9
	smlad r9, r12, lr, r9
	ldr lr, [r1], #4
	uxtb16 r2, lr
	uxtb16 lr, lr, ror #8
	smlad r10, r11, r2, r10
	smlad r10, r12, lr, r10
	ldr r2, [sp, #20]
	cmp r0, r2
	bne 10b
70:
	ldr r2, [sp, #12]
	ands r2, r2, #3
	beq 80f
	ldrsb r11, [r0]
	cmp r2, #2
	blt 71f
	ldrsb r12, [r0, #1]
	beq 72f
	ldrsb r0, [r0, #2]
	ldrb lr, [r1], #1
	mla r3, r11, lr, r3
	ldrb lr, [r1], #1
	mla r3, r12, lr, r3
	ldrb lr, [r1], #1
	mla r3, r0, lr, r3
	ldrb lr, [r1], #1
	mla r4, r11, lr, r4
	ldrb lr, [r1], #1
	mla r4, r12, lr, r4
	ldrb lr, [r1], #1
	mla r4, r0, lr, r4
	ldrb lr, [r1], #1
	mla r5, r11, lr, r5
	ldrb lr, [r1], #1
	mla r5, r12, lr, r5
	ldrb lr, [r1], #1
	mla r5, r0, lr, r5
	ldrb lr, [r1], #1
	mla r6, r11, lr, r6
	ldrb lr, [r1], #1
	mla r6, r12, lr, r6
	ldrb lr, [r1], #1
	mla r6, r0, lr, r6
	ldrb lr, [r1], #1
	mla r7, r11, lr, r7
	ldrb lr, [r1], #1
	mla r7, r12, lr, r7
	ldrb lr, [r1], #1
	mla r7, r0, lr, r7
	ldrb lr, [r1], #1
	mla r8, r11, lr, r8
	ldrb lr, [r1], #1
	mla r8, r12, lr, r8
	ldrb lr, [r1], #1
	mla r8, r0, lr, r8
	ldrb lr, [r1], #1
	mla r9, r11, lr, r9
	ldrb lr, [r1], #1
	mla r9, r12, lr, r9
	ldrb lr, [r1], #1
	mla r9, r0, lr, r9
	ldrb lr, [r1], #1
	mla r10, r11, lr, r10
	ldrb lr, [r1], #1
	mla r10, r12, lr, r10
	ldrb lr, [r1], #1
	mla r10, r0, lr, r10
	b 80f
72:
	ldrb lr, [r1], #1
	mla r3, r11, lr, r3
	ldrb lr, [r1], #1
	mla r3, r12, lr, r3
	ldrb lr, [r1], #1
	mla r4, r11, lr, r4
	ldrb lr, [r1], #1
	mla r4, r12, lr, r4
	ldrb lr, [r1], #1
	mla r5, r11, lr, r5
	ldrb lr, [r1], #1
	mla r5, r12, lr, r5
	ldrb lr, [r1], #1
	mla r6, r11, lr, r6
	ldrb lr, [r1], #1
	mla r6, r12, lr, r6
	ldrb lr, [r1], #1
	mla r7, r11, lr, r7
	ldrb lr, [r1], #1
	mla r7, r12, lr, r7
	ldrb lr, [r1], #1
	mla r8, r11, lr, r8
	ldrb lr, [r1], #1
	mla r8, r12, lr, r8
	ldrb lr, [r1], #1
	mla r9, r11, lr, r9
	ldrb lr, [r1], #1
	mla r9, r12, lr, r9
	ldrb lr, [r1], #1
	mla r10, r11, lr, r10
	ldrb lr, [r1], #1
	mla r10, r12, lr, r10
	b 80f
71:
	ldrb lr, [r1], #1
	mla r3, r11, lr, r3
	ldrb lr, [r1], #1
	mla r4, r11, lr, r4
	ldrb lr, [r1], #1
	mla r5, r11, lr, r5
	ldrb lr, [r1], #1
	mla r6, r11, lr, r6
	ldrb lr, [r1], #1
	mla r7, r11, lr, r7
	ldrb lr, [r1], #1
	mla r8, r11, lr, r8
	ldrb lr, [r1], #1
	mla r9, r11, lr, r9
	ldrb lr, [r1], #1
	mla r10, r11, lr, r10
80:
	ldr r2, [sp, #16]
	stm r2, {r3-r10}
	ldr r0, [sp]
	msr apsr_nzcvq, r0
	add sp, sp, #24
	pop {r0-r12, lr}
`, map[string]interface{}{"x": uintptr(unsafe.Pointer(unsafe.SliceData(x))), "w": uintptr(p), "k": uintptr(len(x)), "s": uintptr(unsafe.Pointer(a))})
}
