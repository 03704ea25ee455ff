package kernels

import "unsafe"

// arena is the model's working memory. Generated code takes typed views of it
// at offsets fixed by the planner; the views below check the byte range
// against the arena and then reinterpret it, so a wrong offset panics
// instead of corrupting memory. Offsets are multiples of the plan alignment
// (16 by default) from a 16-byte-aligned base, so every view is aligned for
// its element type.
type arena []byte

// viewHeader is a slice's header (data, len, cap), as gc and TinyGo lay it
// out: the typed views are built from the byte range's data without
// unsafe.Slice, which is a runtime call for a variable length on 32-bit
// gc. The byte range has been checked against the arena.
type viewHeader struct {
	data     unsafe.Pointer
	len, cap int
}

func (a arena) u8(off, n int) []uint8 { return a[off : off+n : off+n] }

func (a arena) i8(off, n int) []int8 {
	b := a[off : off+n : off+n]
	// The same slice header retyped: one byte an element, so no new
	// header is needed (the wider views build one, viewHeader).
	return *(*[]int8)(unsafe.Pointer(&b))
}

func (a arena) i16(off, n int) []int16 {
	b := a[off : off+2*n : off+2*n]
	return *(*[]int16)(unsafe.Pointer(&viewHeader{unsafe.Pointer(unsafe.SliceData(b)), n, n}))
}

func (a arena) i32(off, n int) []int32 {
	b := a[off : off+4*n : off+4*n]
	return *(*[]int32)(unsafe.Pointer(&viewHeader{unsafe.Pointer(unsafe.SliceData(b)), n, n}))
}

func (a arena) i64(off, n int) []int64 {
	b := a[off : off+8*n : off+8*n]
	return *(*[]int64)(unsafe.Pointer(&viewHeader{unsafe.Pointer(unsafe.SliceData(b)), n, n}))
}

func (a arena) f32(off, n int) []float32 {
	b := a[off : off+4*n : off+4*n]
	return *(*[]float32)(unsafe.Pointer(&viewHeader{unsafe.Pointer(unsafe.SliceData(b)), n, n}))
}

// constI8 views a read-only string constant as int8 values without copying.
// The slice must never be written: on a microcontroller the data is in flash.
func constI8(s string) []int8 {
	return unsafe.Slice((*int8)(unsafe.Pointer(unsafe.StringData(s))), len(s))
}

// constU8 is constI8 for uint8 data.
func constU8(s string) []uint8 {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}
