package board

import (
	"strings"
	"testing"
)

// dis is llvm-objdump output (--no-show-raw-insn) in the shapes LLVM emits
// for Thumb-2: a prologue of push and sub sp, direct calls, a call through
// a register loaded from a literal pool and copied, an early-return
// epilogue before more body, a tail call, a panic call, and inline
// assembly that saves every register, overwrites the one holding a
// function's address and restores it before the call through it.
const dis = `
00001000 <main.invoke>:
    1000:      	push	{r7, lr}
    1002:      	bl	0x1100 <tg/p.op0>       @ imm = #0xfc
    1006:      	bl	0x1200 <tg/p.op1>       @ imm = #0x1f8
    100a:      	pop	{r7, pc}

00001100 <tg/p.op0>:
    1100:      	push.w	{r4, r5, r6, r7, r8, r9, r10, r11, lr}
    1104:      	sub	sp, #0x20
    1106:      	ldr.w	r6, [pc, #0x20]         @ 0x1128 <tg/p.op0+0x28>
    110a:      	mov	r4, r6
    110c:      	blx	r4
    110e:      	cbz	r0, 0x1118 <tg/p.op0+0x18>
    1110:      	add	sp, #0x20
    1112:      	pop.w	{r4, r5, r6, r7, r8, r9, r10, r11, pc}
    1118:      	bl	0x1300 <tg/p.leaf>      @ imm = #0x1e4
    111c:      	bl	0x1400 <runtime.nilPanic> @ imm = #0x2e0

00001200 <tg/p.op1>:
    1200:      	push	{r4, lr}
    1202:      	sub.w	sp, sp, #0x100
    1206:      	b.w	0x1300 <tg/p.leaf>      @ imm = #0xf6

00001300 <tg/p.leaf>:
    1300:      	push	{r4, r5, r6, lr}
    1302:      	vpush	{d8, d9}
    1306:      	bx	lr

00001400 <runtime.nilPanic>:
    1400:      	push	{r7, lr}
    1402:      	blx	r3

00001500 <tg/p.asm>:
    1500:      	push	{r4, lr}
    1502:      	ldr	r4, [pc, #0x10]         @ 0x1514 <tg/p.asm+0x14>
    1504:      	push	{r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11, r12, lr}
    1508:      	mov	r4, r5
    150a:      	pop	{r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11, r12, lr}
    150e:      	blx	r4
    1510:      	pop	{r4, pc}
`

func TestParseFrames(t *testing.T) {
	f, err := parseFrames([]byte(dis), func(lit uint64) (string, bool) {
		if lit == 0x1128 || lit == 0x1514 {
			return "tg/p.leaf", true
		}
		return "", false
	})
	if err != nil {
		t.Fatal(err)
	}
	for fn, want := range map[string]int{"main.invoke": 8, "tg/p.op0": 36 + 32, "tg/p.op1": 8 + 256, "tg/p.leaf": 16 + 16} {
		if f.Self[fn] != want {
			t.Errorf("%s: own depth %d, want %d", fn, f.Self[fn], want)
		}
	}
	// op0 -> leaf through r6 -> r4 and directly; op1 tail-calls leaf.
	if got := strings.Join(f.Calls["tg/p.op0"], ","); got != "tg/p.leaf,runtime.nilPanic" {
		t.Errorf("op0 calls %s", got)
	}
	if got := strings.Join(f.Calls["tg/p.op1"], ","); got != "tg/p.leaf" {
		t.Errorf("op1 calls %s", got)
	}
	if got := strings.Join(f.Calls["tg/p.asm"], ","); got != "tg/p.leaf" || f.Unknown["tg/p.asm"] != "" {
		t.Errorf("asm calls %s (unknown: %q): the pop restores r4", got, f.Unknown["tg/p.asm"])
	}
	// The deepest path: main.invoke -> op1 -> leaf; the panic's indirect
	// call is not followed.
	d, err := f.Depth("main.invoke")
	if err != nil {
		t.Fatal(err)
	}
	if want := 8 + 264 + 32; d != want {
		t.Errorf("depth %d, want %d", d, want)
	}
	if _, err := f.Depth("runtime.nilPanic"); err == nil || !strings.Contains(err.Error(), "indirect call") {
		t.Errorf("an unresolved indirect call: error %v", err)
	}
}

func TestRegNames(t *testing.T) {
	for list, want := range map[string]string{
		"{r0-r3, r12, lr}": "r0 r1 r2 r3 r12 lr", "{r4, pc}": "r4", "sp!, {r4-r5, lr}": "r4 r5 lr", "{d8-d11}": "",
	} {
		if got := strings.Join(regNames(list), " "); got != want {
			t.Errorf("regNames(%q) = %q, want %q", list, got, want)
		}
	}
}

func TestRegCount(t *testing.T) {
	for list, want := range map[string]int{
		"{r4, r5, r6, r7, r8, r9, r10, r11, lr}": 9, "{r7, lr}": 2, "{d8-d11}": 4, "sp!, {r4-r7, lr}": 5,
	} {
		if got := regCount(list); got != want {
			t.Errorf("regCount(%q) = %d, want %d", list, got, want)
		}
	}
}

func TestIsSoftDouble(t *testing.T) {
	for name, want := range map[string]bool{
		"__aeabi_dadd": true, "__aeabi_d2f": true, "__aeabi_f2d": true, "__aeabi_i2d": true, "__muldf3": true,
		"__extendsfdf2": true, "__truncdfsf2": true, "__fixdfsi": true, "__floatsidf": true, "exp": true, "sqrt": true,
		"__aeabi_fadd": false, "__mulsf3": false, "expf": false, "sqrtf": false, "tg/p.exp": false, "memset": false,
	} {
		if got := IsSoftDouble(name); got != want {
			t.Errorf("IsSoftDouble(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestSoftDoubleCalls(t *testing.T) {
	f := &Frames{Self: map[string]int{"tg/p.k": 8, "__aeabi_dadd": 16, "__aeabi_dmul": 8, "expf": 8},
		Calls: map[string][]string{"tg/p.k": {"__aeabi_dadd", "expf"}, "__aeabi_dadd": {"__aeabi_dmul"}}}
	routines, calls := f.SoftDouble()
	if strings.Join(routines, ",") != "__aeabi_dadd,__aeabi_dmul" || strings.Join(calls, ",") != "tg/p.k -> __aeabi_dadd" {
		t.Errorf("routines %v, calls %v", routines, calls)
	}
}
