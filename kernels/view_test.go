package kernels

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
	"unsafe"
)

// testArena returns a 64-byte arena aligned to 8 bytes (backed by uint64s,
// as the generated Model aligns its arena), filled with 0, 1, 2, ... 63 so
// every byte's value is its offset.
func testArena() arena {
	words := make([]uint64, 8)
	a := arena(unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), 64))
	for i := range a {
		a[i] = byte(i)
	}
	return a
}

// littleEndian reports whether the host stores integers little-endian.
// The views reinterpret arena bytes in host order; tflm-gen's arena
// format (Input/Output bytes, constants) is little-endian, which is what
// every supported target is.
func littleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}

// sameMemory reports whether a view whose element 0 is at p starts at
// a[off].
func sameMemory(a arena, off int, p unsafe.Pointer) bool {
	return p == unsafe.Pointer(&a[off])
}

func TestArenaViews(t *testing.T) {
	if !littleEndian() {
		t.Skip("generated code assumes a little-endian target")
	}
	type view struct {
		name string
		size int
		// get views n elements at off and returns: length, capacity, the
		// address of element 0, element k as a uint64 of its bits, and a
		// setter of element k from bits.
		get func(a arena, off, n int) (l, c int, p unsafe.Pointer, elem func(k int) uint64, set func(k int, bits uint64))
	}
	views := []view{
		{"u8", 1, func(a arena, off, n int) (int, int, unsafe.Pointer, func(int) uint64, func(int, uint64)) {
			v := a.u8(off, n)
			return len(v), cap(v), unsafe.Pointer(unsafe.SliceData(v)), func(k int) uint64 { return uint64(v[k]) }, func(k int, b uint64) { v[k] = uint8(b) }
		}},
		{"i8", 1, func(a arena, off, n int) (int, int, unsafe.Pointer, func(int) uint64, func(int, uint64)) {
			v := a.i8(off, n)
			return len(v), cap(v), unsafe.Pointer(unsafe.SliceData(v)), func(k int) uint64 { return uint64(uint8(v[k])) }, func(k int, b uint64) { v[k] = int8(b) }
		}},
		{"i16", 2, func(a arena, off, n int) (int, int, unsafe.Pointer, func(int) uint64, func(int, uint64)) {
			v := a.i16(off, n)
			return len(v), cap(v), unsafe.Pointer(unsafe.SliceData(v)), func(k int) uint64 { return uint64(uint16(v[k])) }, func(k int, b uint64) { v[k] = int16(b) }
		}},
		{"i32", 4, func(a arena, off, n int) (int, int, unsafe.Pointer, func(int) uint64, func(int, uint64)) {
			v := a.i32(off, n)
			return len(v), cap(v), unsafe.Pointer(unsafe.SliceData(v)), func(k int) uint64 { return uint64(uint32(v[k])) }, func(k int, b uint64) { v[k] = int32(b) }
		}},
		{"i64", 8, func(a arena, off, n int) (int, int, unsafe.Pointer, func(int) uint64, func(int, uint64)) {
			v := a.i64(off, n)
			return len(v), cap(v), unsafe.Pointer(unsafe.SliceData(v)), func(k int) uint64 { return uint64(v[k]) }, func(k int, b uint64) { v[k] = int64(b) }
		}},
		{"f32", 4, func(a arena, off, n int) (int, int, unsafe.Pointer, func(int) uint64, func(int, uint64)) {
			v := a.f32(off, n)
			return len(v), cap(v), unsafe.Pointer(unsafe.SliceData(v)), func(k int) uint64 { return uint64(math.Float32bits(v[k])) }, func(k int, b uint64) { v[k] = math.Float32frombits(uint32(b)) }
		}},
	}
	// le decodes size bytes at b little-endian.
	le := func(b []byte, size int) uint64 {
		var buf [8]byte
		copy(buf[:], b[:size])
		return binary.LittleEndian.Uint64(buf[:])
	}
	for _, v := range views {
		// Offsets are multiples of 8 (every element type aligned), at the
		// start, inside and ending exactly at the arena's end.
		for _, tc := range []struct{ off, bytes int }{{0, 16}, {8, 24}, {16, 48}, {56, 8}, {0, 64}} {
			a := testArena()
			n := tc.bytes / v.size
			l, c, p, elem, set := v.get(a, tc.off, n)
			if l != n || c != n {
				t.Errorf("%s(%d, %d): len %d cap %d, want both %d (cap bounded so append cannot spill into the next buffer)", v.name, tc.off, n, l, c, n)
				continue
			}
			if !sameMemory(a, tc.off, p) {
				t.Errorf("%s(%d, %d) does not start at arena[%d]", v.name, tc.off, n, tc.off)
				continue
			}
			// Element k holds bytes off+k*size ... little-endian: e.g. i16
			// at offset 8 element 0 is 8 | 9<<8 = 0x0908.
			for k := range n {
				if got, want := elem(k), le(a[tc.off+k*v.size:], v.size); got != want {
					t.Errorf("%s(%d, %d)[%d] = %#x, want %#x", v.name, tc.off, n, k, got, want)
				}
			}
			// A write through the last element lands, little-endian, in
			// the arena bytes it covers, and nowhere else.
			before := bytes.Clone(a)
			k := n - 1
			bits := uint64(0xA1B2C3D4E5F60718) >> (64 - 8*v.size)
			set(k, bits)
			at := tc.off + k*v.size
			var enc [8]byte
			binary.LittleEndian.PutUint64(enc[:], bits)
			copy(before[at:], enc[:v.size])
			if !bytes.Equal(a, before) {
				t.Errorf("%s(%d, %d): writing %#x to element %d gave arena\n% x\nwant\n% x", v.name, tc.off, n, bits, k, []byte(a), before)
			}
		}
	}
	// Known values: an i16 view at offset 8 reads 8 | 9<<8; an i32 at
	// 4 reads 4 | 5<<8 | 6<<16 | 7<<24; 0xff bytes read -1 as i8.
	a := testArena()
	if got := a.i16(8, 1)[0]; got != 0x0908 {
		t.Errorf("i16(8, 1)[0] = %#x, want 0x0908", got)
	}
	if got := a.i32(4, 1)[0]; got != 0x07060504 {
		t.Errorf("i32(4, 1)[0] = %#x, want 0x07060504", got)
	}
	a[33] = 0xff
	if got := a.i8(32, 2); got[0] != 32 || got[1] != -1 {
		t.Errorf("i8(32, 2) = %v, want [32 -1]", got)
	}
	binary.LittleEndian.PutUint32(a[40:], math.Float32bits(-1.5))
	if got := a.f32(40, 1)[0]; got != -1.5 {
		t.Errorf("f32(40, 1)[0] = %v, want -1.5", got)
	}
	// Two views of the same bytes alias: writing one changes the other.
	a.i32(16, 2)[1] = -2 // bytes 20-23 = fe ff ff ff
	if got := a.i8(20, 4); got[0] != -2 || got[1] != -1 || got[3] != -1 {
		t.Errorf("i8 view after an i32 write = %v, want [-2 -1 -1 -1]", got)
	}
	if got := a.u8(16, 8); !bytes.Equal(got, []byte{16, 17, 18, 19, 0xfe, 0xff, 0xff, 0xff}) {
		t.Errorf("u8(16, 8) = % x", got)
	}
}

func TestArenaViewBounds(t *testing.T) {
	// A view reaching past the arena panics (the doc's "a wrong offset
	// panics instead of corrupting memory"); n = 0 at the very end does not.
	a := testArena()
	for _, tc := range []struct {
		name  string
		f     func()
		panic bool
	}{
		{"u8 past the end", func() { a.u8(60, 5) }, true},
		{"i8 past the end", func() { a.i8(64, 1) }, true},
		{"i16 past the end", func() { a.i16(56, 5) }, true}, // 56+10 > 64
		{"i32 past the end", func() { a.i32(48, 5) }, true}, // 48+20 > 64
		{"i64 past the end", func() { a.i64(8, 8) }, true},  // 8+64 > 64
		{"f32 past the end", func() { a.f32(64, 1) }, true}, // 64+4 > 64
		{"i64 filling the arena", func() { a.i64(0, 8) }, false},
		{"empty view at the end", func() { a.i32(64, 0) }, false},
	} {
		panicked := func() (p bool) {
			defer func() { p = recover() != nil }()
			tc.f()
			return false
		}()
		if panicked != tc.panic {
			t.Errorf("%s: panicked %v, want %v", tc.name, panicked, tc.panic)
		}
	}
}

func TestConstViews(t *testing.T) {
	for _, s := range []string{"", "\x00", "\x00\x01\x7f\x80\xfe\xff"} {
		i8, u8 := constI8(s), constU8(s)
		if len(i8) != len(s) || len(u8) != len(s) {
			t.Errorf("%q: lengths %d and %d, want %d", s, len(i8), len(u8), len(s))
			continue
		}
		if len(s) > 0 {
			// No copy: both views start at the string's own bytes (in
			// flash on a microcontroller).
			if unsafe.Pointer(&i8[0]) != unsafe.Pointer(unsafe.StringData(s)) || &u8[0] != unsafe.StringData(s) {
				t.Errorf("%q: the views do not alias the string's data", s)
			}
		}
		for i := range len(s) {
			// int8 is the byte's two's-complement value: 0x80 -> -128,
			// 0xff -> -1.
			if u8[i] != s[i] || i8[i] != int8(s[i]) {
				t.Errorf("%q[%d]: u8 %d i8 %d, want %d and %d", s, i, u8[i], i8[i], s[i], int8(s[i]))
			}
		}
	}
	if got := constI8("\x80\xff\x7f"); got[0] != -128 || got[1] != -1 || got[2] != 127 {
		t.Errorf("constI8 = %v, want [-128 -1 127]", got)
	}
}
