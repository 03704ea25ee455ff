//go:build tinygo && cortexm && !nodsp

package kernels

import (
	"device/arm"
	"unsafe"
)

// The depthwise DSP loops (dw_dsp.go) in Thumb-2: one loop over the items
// with the block's address on the stack, the item's state in registers
// (r0 bc, r1 the table, r2 the weights, r3 the tap pairs left, lr the
// records, r4-r7 the four sums), the tap-pair loop (a tap's address: its
// pointer plus bc) that differs by depth multiplier, then each sum
// requantized as dwDSPQ does (SMMLAR of twice the sum and the multiplier
// with the addend, less one for a negative sum, the right shift, USAT to
// [0, 255]), the four results clamped to the span two at a time (USUB16
// and SEL), packed into a word, actMin added to each byte (UADD8) and
// stored with one STR; then the block's pointers advance (LDM, four ADDs,
// STM). Every register the assembly touches and the flags, GE included,
// are saved and restored, and {g} is read first.

// dwDSPAsmHead starts an item: the block's address from the stack, bc, w
// and rec by one LDM, the table and the pair count, the sums from the
// records' biases.
const dwDSPAsmHead = `
	push {r0-r12, lr}
	mov r12, {g}
	mrs r0, apsr
	push {r0}
	push {r12}
2:
	ldr r12, [sp]
	ldm r12, {r0, r2, lr}
	ldr r1, [r12, #48]
	ldr r3, [r12, #36]
	ldr r4, [lr]
	ldr r5, [lr, #4]
	ldr r6, [lr, #8]
	ldr r7, [lr, #12]
1:
`

// dwDSPAsmTail requantizes the four sums, stores them, advances the block
// and loops over the items.
const dwDSPAsmTail = `
	subs r3, r3, #1
	bne 1b
	ldr r8, [lr, #16]
	ldr r9, [lr, #32]
	lsl r10, r4, #1
	smmlar r10, r10, r8, r9
	add r10, r10, r4, asr #31
	ldrb r8, [lr, #48]
	asr r10, r10, r8
	usat r4, #8, r10
	ldr r8, [lr, #20]
	ldr r9, [lr, #36]
	lsl r10, r5, #1
	smmlar r10, r10, r8, r9
	add r10, r10, r5, asr #31
	ldrb r8, [lr, #49]
	asr r10, r10, r8
	usat r5, #8, r10
	ldr r8, [lr, #24]
	ldr r9, [lr, #40]
	lsl r10, r6, #1
	smmlar r10, r10, r8, r9
	add r10, r10, r6, asr #31
	ldrb r8, [lr, #50]
	asr r10, r10, r8
	usat r6, #8, r10
	ldr r8, [lr, #28]
	ldr r9, [lr, #44]
	lsl r10, r7, #1
	smmlar r10, r10, r8, r9
	add r10, r10, r7, asr #31
	ldrb r8, [lr, #51]
	asr r10, r10, r8
	usat r7, #8, r10
	ldr r12, [sp]
	ldr r10, [r12, #40]
	pkhbt r8, r4, r6, lsl #16
	pkhbt r9, r5, r7, lsl #16
	usub16 r11, r8, r10
	sel r8, r10, r8
	usub16 r11, r9, r10
	sel r9, r10, r9
	orr r8, r8, r9, lsl #8
	ldr r10, [r12, #44]
	uadd8 r8, r8, r10
	ldm r12, {r0-r7}
	str r8, [r3]
	add r0, r0, r4
	add r1, r1, r5
	add r2, r2, r6
	add r3, r3, r7
	stm r12, {r0-r3}
	ldr r0, [r12, #32]
	subs r0, r0, #1
	str r0, [r12, #32]
	bne 2b
	add sp, sp, #4
	pop {r0}
	msr apsr_nzcvqg, r0
	pop {r0-r12, lr}
`

// dwDSPRunM1 is dwDSPRunM1Ref (dw_dsp.go) in Thumb-2. A tap pair: the two
// pointers by one LDRD, the two taps' words (four channels each), PKHBT and
// PKHTB pair channels 0-1 and 2-3 of the two taps, four SXTB16 widen each
// channel's two taps into one word, two weight words widened alike, four
// SMLAD (eight multiply-accumulates in 21 instructions with the loop's).
func dwDSPRunM1(g *dwDSPArgs) {
	arm.AsmFull(dwDSPAsmHead+`
	ldrd r8, r9, [r1], #8
	ldr r8, [r8, r0]
	ldr r9, [r9, r0]
	pkhbt r10, r8, r9, lsl #16
	pkhtb r8, r9, r8, asr #16
	ldr r11, [r2], #4
	sxtb16 r9, r10
	sxtb16 r12, r11
	smlad r4, r9, r12, r4
	sxtb16 r9, r10, ror #8
	sxtb16 r12, r11, ror #8
	smlad r5, r9, r12, r5
	ldr r11, [r2], #4
	sxtb16 r9, r8
	sxtb16 r12, r11
	smlad r6, r9, r12, r6
	sxtb16 r9, r8, ror #8
	sxtb16 r12, r11, ror #8
	smlad r7, r9, r12, r7
`+dwDSPAsmTail, map[string]interface{}{"g": uintptr(unsafe.Pointer(g))})
}

// dwDSPRunM2 is dwDSPRunM2Ref in Thumb-2: a tap's two input channels by
// one LDRH each, both taps' in one word (ORR), widened by two SXTB16 into
// the first channel's pair and the second's (18 instructions a pair).
func dwDSPRunM2(g *dwDSPArgs) {
	arm.AsmFull(dwDSPAsmHead+`
	ldrd r8, r9, [r1], #8
	ldrh r8, [r8, r0]
	ldrh r9, [r9, r0]
	orr r10, r8, r9, lsl #16
	sxtb16 r8, r10
	sxtb16 r10, r10, ror #8
	ldr r11, [r2], #4
	sxtb16 r12, r11
	smlad r4, r8, r12, r4
	sxtb16 r12, r11, ror #8
	smlad r5, r8, r12, r5
	ldr r11, [r2], #4
	sxtb16 r12, r11
	smlad r6, r10, r12, r6
	sxtb16 r12, r11, ror #8
	smlad r7, r10, r12, r7
`+dwDSPAsmTail, map[string]interface{}{"g": uintptr(unsafe.Pointer(g))})
}

// dwDSPRunMQ is dwDSPRunMQRef in Thumb-2: the two taps' input bytes by
// LDRSB, in one word by PKHBT, used by all four SMLAD (16 instructions a
// pair).
func dwDSPRunMQ(g *dwDSPArgs) {
	arm.AsmFull(dwDSPAsmHead+`
	ldrd r8, r9, [r1], #8
	ldrsb r8, [r8, r0]
	ldrsb r9, [r9, r0]
	pkhbt r10, r8, r9, lsl #16
	ldr r11, [r2], #4
	sxtb16 r12, r11
	smlad r4, r10, r12, r4
	sxtb16 r12, r11, ror #8
	smlad r5, r10, r12, r5
	ldr r11, [r2], #4
	sxtb16 r12, r11
	smlad r6, r10, r12, r6
	sxtb16 r12, r11, ror #8
	smlad r7, r10, r12, r7
`+dwDSPAsmTail, map[string]interface{}{"g": uintptr(unsafe.Pointer(g))})
}

// dwDSPRunQ8 is dwDSPRunQ8Ref (dw_dsp.go) in Thumb-2: eight sums in r4-r11;
// a quad: its pointer, one word load of its four taps (unaligned), two
// SXTB16 widen taps 0 and 2 and taps 1 and 3, then for each channel two
// weight words and two SMLAD (32 multiply-accumulates in 39 instructions
// with the loop's, which ends on the table's end kept on the stack). The
// eight results are requantized and stored as two words.
func dwDSPRunQ8(g *dwDSPArgs) {
	arm.AsmFull(`
	push {r0-r12, lr}
	mov r12, {g}
	mrs r0, apsr
	push {r0}
	sub sp, sp, #8
	str r12, [sp]
2:
	ldr r12, [sp]
	ldm r12, {r0, r2, lr}
	ldr r1, [r12, #48]
	ldr r3, [r12, #36]
	add r3, r1, r3, lsl #2
	str r3, [sp, #4]
	ldr r4, [lr]
	ldr r5, [lr, #4]
	ldr r6, [lr, #8]
	ldr r7, [lr, #12]
	ldr r8, [lr, #16]
	ldr r9, [lr, #20]
	ldr r10, [lr, #24]
	ldr r11, [lr, #28]
1:
	ldr r12, [r1], #4
	ldr r12, [r12, r0]
	sxtb16 r3, r12
	sxtb16 r12, r12, ror #8
	ldr lr, [r2], #4
	smlad r4, r3, lr, r4
	ldr lr, [r2], #4
	smlad r4, r12, lr, r4
	ldr lr, [r2], #4
	smlad r5, r3, lr, r5
	ldr lr, [r2], #4
	smlad r5, r12, lr, r5
	ldr lr, [r2], #4
	smlad r6, r3, lr, r6
	ldr lr, [r2], #4
	smlad r6, r12, lr, r6
	ldr lr, [r2], #4
	smlad r7, r3, lr, r7
	ldr lr, [r2], #4
	smlad r7, r12, lr, r7
	ldr lr, [r2], #4
	smlad r8, r3, lr, r8
	ldr lr, [r2], #4
	smlad r8, r12, lr, r8
	ldr lr, [r2], #4
	smlad r9, r3, lr, r9
	ldr lr, [r2], #4
	smlad r9, r12, lr, r9
	ldr lr, [r2], #4
	smlad r10, r3, lr, r10
	ldr lr, [r2], #4
	smlad r10, r12, lr, r10
	ldr lr, [r2], #4
	smlad r11, r3, lr, r11
	ldr lr, [r2], #4
	smlad r11, r12, lr, r11
	ldr lr, [sp, #4]
	cmp r1, lr
	bne 1b
	ldr r12, [sp]
	ldr lr, [r12, #8]
	ldr r1, [lr, #32]
	ldr r2, [lr, #64]
	lsl r3, r4, #1
	smmlar r3, r3, r1, r2
	add r3, r3, r4, asr #31
	ldrb r1, [lr, #96]
	asr r3, r3, r1
	usat r4, #8, r3
	ldr r1, [lr, #36]
	ldr r2, [lr, #68]
	lsl r3, r5, #1
	smmlar r3, r3, r1, r2
	add r3, r3, r5, asr #31
	ldrb r1, [lr, #97]
	asr r3, r3, r1
	usat r5, #8, r3
	ldr r1, [lr, #40]
	ldr r2, [lr, #72]
	lsl r3, r6, #1
	smmlar r3, r3, r1, r2
	add r3, r3, r6, asr #31
	ldrb r1, [lr, #98]
	asr r3, r3, r1
	usat r6, #8, r3
	ldr r1, [lr, #44]
	ldr r2, [lr, #76]
	lsl r3, r7, #1
	smmlar r3, r3, r1, r2
	add r3, r3, r7, asr #31
	ldrb r1, [lr, #99]
	asr r3, r3, r1
	usat r7, #8, r3
	ldr r1, [lr, #48]
	ldr r2, [lr, #80]
	lsl r3, r8, #1
	smmlar r3, r3, r1, r2
	add r3, r3, r8, asr #31
	ldrb r1, [lr, #100]
	asr r3, r3, r1
	usat r8, #8, r3
	ldr r1, [lr, #52]
	ldr r2, [lr, #84]
	lsl r3, r9, #1
	smmlar r3, r3, r1, r2
	add r3, r3, r9, asr #31
	ldrb r1, [lr, #101]
	asr r3, r3, r1
	usat r9, #8, r3
	ldr r1, [lr, #56]
	ldr r2, [lr, #88]
	lsl r3, r10, #1
	smmlar r3, r3, r1, r2
	add r3, r3, r10, asr #31
	ldrb r1, [lr, #102]
	asr r3, r3, r1
	usat r10, #8, r3
	ldr r1, [lr, #60]
	ldr r2, [lr, #92]
	lsl r3, r11, #1
	smmlar r3, r3, r1, r2
	add r3, r3, r11, asr #31
	ldrb r1, [lr, #103]
	asr r3, r3, r1
	usat r11, #8, r3
	ldr r2, [r12, #40]
	pkhbt r0, r4, r6, lsl #16
	pkhbt r1, r5, r7, lsl #16
	usub16 r3, r0, r2
	sel r0, r2, r0
	usub16 r3, r1, r2
	sel r1, r2, r1
	orr r0, r0, r1, lsl #8
	pkhbt r1, r8, r10, lsl #16
	pkhbt r3, r9, r11, lsl #16
	usub16 lr, r1, r2
	sel r1, r2, r1
	usub16 lr, r3, r2
	sel r3, r2, r3
	orr r1, r1, r3, lsl #8
	ldr r2, [r12, #44]
	uadd8 r0, r0, r2
	uadd8 r1, r1, r2
	ldr r2, [r12, #12]
	str r0, [r2]
	str r1, [r2, #4]
	ldm r12, {r0-r7}
	add r0, r0, r4
	add r1, r1, r5
	add r2, r2, r6
	add r3, r3, r7
	stm r12, {r0-r3}
	ldr r0, [r12, #32]
	subs r0, r0, #1
	str r0, [r12, #32]
	bne 2b
	add sp, sp, #8
	pop {r0}
	msr apsr_nzcvqg, r0
	pop {r0-r12, lr}
`, map[string]interface{}{"g": uintptr(unsafe.Pointer(g))})
}
