package tinygo

import (
	"errors"
	"reflect"
	"testing"
)

func TestIsSoftDouble(t *testing.T) {
	for _, name := range []string{"__aeabi_dadd", "__aeabi_dsub", "__aeabi_drsub", "__aeabi_dmul", "__aeabi_ddiv",
		"__aeabi_dcmplt", "__aeabi_dcmpun", "__aeabi_d2f", "__aeabi_d2iz", "__aeabi_d2ulz", "__aeabi_f2d", "__aeabi_i2d",
		"__aeabi_ui2d", "__aeabi_l2d", "__adddf3", "__subdf3", "__muldf3", "__divdf3", "__nedf2", "__gedf2",
		"__unorddf2", "__extendsfdf2", "__truncdfsf2", "__fixdfsi", "__fixunsdfsi", "__fixdfdi", "__floatsidf",
		"__floatunsidf", "__floatdidf", "exp", "expl", "log", "sqrt", "floor", "fmod", "tanh"} {
		if !IsSoftDouble(name) {
			t.Errorf("%s: not recognized", name)
		}
	}
	for _, name := range []string{"__aeabi_fadd", "__aeabi_fmul", "__aeabi_fdiv", "__aeabi_f2iz", "__aeabi_i2f",
		"__aeabi_idiv", "__aeabi_uidivmod", "__aeabi_uldivmod", "__aeabi_memclr8", "__aeabi_llsl", "__addsf3",
		"__mulsf3", "__nesf2", "__floatsisf", "__fixsfsi", "expf", "sqrtf", "runtime.alloc", "memset",
		"tgdrv/m.f32Exp", "(*tgdrv/m.Model).Invoke"} {
		if IsSoftDouble(name) {
			t.Errorf("%s: taken for a double routine", name)
		}
	}
}

func TestSoftDoubleIn(t *testing.T) {
	dis := `
x.elf:	file format elf32-littlearm

Disassembly of section .text:

00000100 <__adddf3>:
     100:      	push	{r4, lr}
     104:      	bl	0x200 <__aeabi_dcmpun>
00000200 <__aeabi_dcmpun>:
     200:      	bx	lr
00000300 <tgdrv/m.softmaxF32>:
     300:      	bl	0x100 <__adddf3>          @ imm = #-0x204
     304:      	bl	0x400 <__aeabi_fadd>
     308:      	beq	0x30c <tgdrv/m.softmaxF32+0xc>
     30c:      	b.w	0x500 <exp>
00000400 <__aeabi_fadd>:
     400:      	bx	lr
00000500 <exp>:
     500:      	b.w	0x100 <__adddf3>
`
	routines, calls, err := softDoubleIn([]byte(dis))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"__adddf3", "__aeabi_dcmpun", "exp"}; !reflect.DeepEqual(routines, want) {
		t.Errorf("routines %v, want %v", routines, want)
	}
	if want := []Call{{"tgdrv/m.softmaxF32", "__adddf3"}, {"tgdrv/m.softmaxF32", "exp"}}; !reflect.DeepEqual(calls, want) {
		t.Errorf("calls %v, want %v", calls, want)
	}
}

// TestRuntimeClean builds a package that does nothing: TinyGo's runtime
// links no double-precision routine, so any in a package's firmware comes
// from the package.
func TestRuntimeClean(t *testing.T) {
	tl, err := Find()
	if errors.Is(err, ErrNoTinyGo) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	elf, err := tl.Build(t.TempDir(), map[string][]byte{"m.go": []byte("package m\n\ntype Model struct{ a [16]byte }\n\nfunc (m *Model) Reset() {}\n\nfunc (m *Model) Invoke() { m.a[0]++ }\n")})
	if err != nil {
		t.Fatal(err)
	}
	routines, _, err := tl.SoftDouble(elf)
	if err != nil {
		t.Fatal(err)
	}
	if len(routines) > 0 {
		t.Errorf("TinyGo's runtime links double-precision routines: %v", routines)
	}
}
