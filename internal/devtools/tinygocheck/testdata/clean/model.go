// Package clean is a generated-style package that obeys every rule.
package clean

import (
	"math"
	"math/bits"
	"unsafe"
)

const weights = "\x01\x02\x03\x04"

// Model holds the arena.
type Model struct {
	mem [64]byte
}

type params struct {
	n     int
	scale float32
}

type arena []byte

func (a arena) f32(off, n int) []float32 {
	b := a[off : off+4*n : off+4*n]
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

func constI8(s string) []int8 {
	return unsafe.Slice((*int8)(unsafe.Pointer(unsafe.StringData(s))), len(s))
}

func (m *Model) arena() arena { return m.mem[:] }

// Input returns input i; off the Invoke path a constant panic is fine.
func (m *Model) Input(i int) []float32 {
	if i != 0 {
		panic("clean: Input index out of range")
	}
	return m.arena().f32(0, 4)
}

// Scratch allocates, but it is not on the Invoke path.
func Scratch() []byte { return make([]byte, 16) }

// Reset clears the state.
func (m *Model) Reset() { clear(m.mem[32:]) }

// Invoke runs the model.
func (m *Model) Invoke() {
	a := m.arena()
	scaleAll(&params{n: 4, scale: 0.5}, constI8(weights), a.f32(0, 4), a.f32(16, 4))
	_ = sumOf(a.f32(16, 4))
}

func scaleAll(p *params, w []int8, in, out []float32) {
	for i := range p.n {
		v := in[i] * p.scale * float32(w[i])
		out[i] = float32(math.Max(float64(v), 0)) + float32(bits.OnesCount8(uint8(w[i])))
	}
}

func sumOf[T float32 | int32](xs []T) T {
	var s T
	for _, x := range xs {
		s += x
	}
	return s
}
