package kernels

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tflm-gen/tflm-gen/internal/devtools/board"
)

// dspBoardMain runs every DSP loop in its Thumb-2 form (dsp_arm.go) and in
// Go (the *Ref functions) on the same pseudo-random operands, on the
// emulated Cortex-M4, and reports each mismatch through semihosting.
const dspBoardMain = `
package main

import (
	"device/arm"
	"unsafe"
)

var line [160]byte

func say(s string) {
	n := copy(line[:len(line)-2], s)
	line[n], line[n+1] = '\n', 0
	arm.SemihostingCall(arm.SemihostingWrite0, uintptr(unsafe.Pointer(&line[0])))
}

func itoa(v int) string {
	if v < 0 {
		return "-" + itoa(-v)
	}
	if v < 10 {
		return string(rune('0' + v))
	}
	return itoa(v/10) + string(rune('0'+v%10))
}

var seed uint32 = 2463534242

func rnd() uint32 {
	seed ^= seed << 13
	seed ^= seed >> 17
	seed ^= seed << 5
	return seed
}

// mem is the arena the loops run in: rows, weights, records, outputs and
// argument blocks, word-aligned, at random (also unaligned) offsets.
var mem [16384]byte

func fill(b []byte) {
	for i := range b {
		b[i] = byte(rnd())
	}
}

func main() {
	bad := 0
	for c := 0; c < 300; c++ {
		k4 := 1 + int(rnd()%40)
		pairs := 1 + int(rnd()%6)
		fill(mem[:])
		x := 1 + int(rnd()%7)            // rows: an unaligned start
		w := 1024 + int(rnd()%5)         // weights
		rec := 4096 + int(rnd()%3)       // records
		xb := 4 * k4 * int(rnd()%2)     // pixel b: after a, or a itself
		oa, ob := 8192, 8192+64
		g1, g2 := 12288, 12288+256      // argument blocks
		wx := 13312
		// Records: a sane requantization (convPWQ's domain).
		for j := 0; j < 2*pairs; j++ {
			r := mem[rec+20*j:]
			b := uint32(int32(rnd()%65536) - 32768 + 1<<30)
			m2 := (rnd() | 1<<30) & 0x7ffffffe
			sh := 1 + rnd()%20
			d := uint64(rnd())<<32 | uint64(rnd())
			for i, v := range []uint32{b, m2, uint32(d), uint32(d >> 32), sh} {
				r[4*i], r[4*i+1], r[4*i+2], r[4*i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
			}
		}
		span := int32(rnd() % 256)
		for _, wide := range []bool{false, true} {
			var out [2][128]byte
			for v, blk := range []int{g1, g2} {
				// The assembly advances its block's record and output
				// pointers: each run gets a fresh block.
				g := (*p.DSPPWArgs)(unsafe.Pointer(&mem[blk]))
				g.X, g.W, g.N, g.XB = unsafe.Pointer(&mem[x]), unsafe.Pointer(&mem[w]), uint32(k4), uint32(xb)
				g.Rec, g.Oa, g.Ob = unsafe.Pointer(&mem[rec]), unsafe.Pointer(&mem[oa+v*128]), unsafe.Pointer(&mem[ob+v*128])
				g.Pairs, g.Span, g.Lo, g.Wx = uint32(pairs), span, -128, unsafe.Pointer(&mem[wx+v*1024])
				switch {
				case v == 0 && wide:
					p.Widen2(g)
					p.PWPairsW(g)
				case v == 0:
					p.PWPairs(g)
				case wide:
					p.Widen2Ref(g)
					p.PWPairsWRef(g)
				default:
					p.PWPairsRef(g)
				}
				copy(out[v][:], mem[oa+v*128:oa+v*128+64])
				copy(out[v][64:], mem[ob+v*128:ob+v*128+64])
			}
			for i := 0; i < 2*pairs; i++ {
				if out[0][i] != out[1][i] || out[0][64+i] != out[1][64+i] {
					bad++
					if bad < 10 {
						what := "direct"
						if wide {
							what = "widened"
						}
						say("FAIL " + what + " case " + itoa(c) + " k4 " + itoa(k4) + " pairs " + itoa(pairs) + " xb " + itoa(xb) + " channel " + itoa(i) +
							": asm " + itoa(int(int8(out[0][i]))) + " " + itoa(int(int8(out[0][64+i]))) + ", Go " + itoa(int(int8(out[1][i]))) + " " + itoa(int(int8(out[1][64+i]))))
					}
					break
				}
			}
		}
		// One pixel alone: pixel b's outputs untouched.
		{
			var out [2][128]byte
			for v, blk := range []int{g1, g2} {
				g := (*p.DSPPWArgs)(unsafe.Pointer(&mem[blk]))
				g.X, g.W, g.N, g.XB = unsafe.Pointer(&mem[x]), unsafe.Pointer(&mem[w]), uint32(k4), uint32(xb)
				g.Rec, g.Oa, g.Ob = unsafe.Pointer(&mem[rec]), unsafe.Pointer(&mem[oa+v*128]), unsafe.Pointer(&mem[ob+v*128])
				g.Pairs, g.Span, g.Lo = uint32(pairs), span, -128
				for i := 0; i < 64; i++ {
					mem[oa+v*128+i], mem[ob+v*128+i] = 0x5a, 0xa5
				}
				if v == 0 {
					p.PWOne(g)
				} else {
					p.PWOneRef(g)
				}
				copy(out[v][:], mem[oa+v*128:oa+v*128+64])
				copy(out[v][64:], mem[ob+v*128:ob+v*128+64])
			}
			for i := 0; i < 64; i++ {
				if out[0][i] != out[1][i] || out[0][64+i] != 0xa5 || out[1][64+i] != 0xa5 {
					bad++
					say("FAIL one pixel case " + itoa(c) + " k4 " + itoa(k4) + " pairs " + itoa(pairs) + " byte " + itoa(i) +
						": asm " + itoa(int(int8(out[0][i]))) + ", Go " + itoa(int(int8(out[1][i]))))
					break
				}
			}
		}
		// The bare 2x2 dot products.
		g := (*p.DSPArgs)(unsafe.Pointer(&mem[g1]))
		h := (*p.DSPArgs)(unsafe.Pointer(&mem[g2]))
		g.X, g.W, g.N, g.XB = unsafe.Pointer(&mem[x]), unsafe.Pointer(&mem[w]), uint32(k4), uint32(xb)
		g.S = [4]int32{int32(rnd()), 1, 2, 3}
		*h = *g
		p.Dot2x2(g)
		p.Dot2x2Ref(h)
		if g.S != h.S {
			bad++
			say("FAIL dot2x2 case " + itoa(c))
		}
	}
	bad += fcCases()
	bad += fc16Cases()
	bad += gatherCases()
	bad += poolCases()
	bad += mulCases()
	bad += octCases()
	bad += timeCases()
	bad += bfpCases()
	if bad == 0 {
		say("ok")
	}
}

// put32 stores v little-endian at mem[at:].
func put32(at int, v uint32) {
	mem[at], mem[at+1], mem[at+2], mem[at+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

// fcCases compares dspFCRow with dspFCRowRef: rows of K = 4..160 columns
// (x at an unaligned address), 1 to 27 channels (groups of eight and the
// rest), records planned by dspFCPlan: multipliers and shifts that leave
// most outputs of random rows inside the clamp, one bias in four anywhere
// in int32 (saturated sums).
func fcCases() int {
	bad, planned := 0, 0
	for c := 0; c < 300; c++ {
		fill(mem[:])
		K := 4 * (1 + int(rnd()%40))
		N := 1 + int(rnd()%27)
		x := 1 + int(rnd()%7)
		w := 256 + int(rnd()%5)
		rec := 8192 + int(rnd()%3)
		oa, ob := 12288, 12288+64
		span := int32(rnd() % 256)
		lo := -128 + int32(rnd()%uint32(256-span))
		zo := lo + int32(rnd()%uint32(span+1))
		rq := make([]int32, 0, 3*N)
		for j := 0; j < N; j++ {
			b := int32(rnd()%(1<<21)) - 1<<20
			if rnd()%4 == 0 {
				b = int32(rnd())
			}
			sh := -8 - int32(rnd()%6)
			if rnd()%8 == 0 {
				// Sums near +-2^30 that still rescale inside the clamp.
				b, sh = int32(1<<29+rnd()%(1<<29)-1<<20), -21
				if rnd()%2 == 0 {
					b = -b
				}
			}
			rq = append(rq, b, int32(1<<30+rnd()%(1<<30)), sh)
		}
		r := p.FCPlan(rq, K, zo, lo, lo+span)
		if r == nil {
			continue
		}
		planned++
		copy(mem[rec:], r)
		for i := 0; i < 128; i++ {
			mem[oa+i] = 0x5a // bytes past N must stay as they are
		}
		p.FCRow(unsafe.Pointer(&mem[x]), unsafe.Pointer(&mem[w]), unsafe.Pointer(&mem[rec]), unsafe.Pointer(&mem[oa]))
		p.FCRowRef(unsafe.Pointer(&mem[x]), unsafe.Pointer(&mem[w]), unsafe.Pointer(&mem[rec]), unsafe.Pointer(&mem[ob]))
		for i := 0; i < 64; i++ {
			if mem[oa+i] != mem[ob+i] {
				bad++
				if bad < 10 {
					say("FAIL fc case " + itoa(c) + " K " + itoa(K) + " N " + itoa(N) + " byte " + itoa(i) +
						": asm " + itoa(int(int8(mem[oa+i]))) + ", Go " + itoa(int(int8(mem[ob+i]))))
				}
				break
			}
		}
	}
	if planned < 100 {
		say("FAIL fc: only " + itoa(planned) + " of 300 cases planned")
		bad++
	}
	return bad
}

// poolCases compares dspMaxPool and dspAvgPool with their Go twins: depths
// 4 to 96, runs of 1 to 5 pixels with windows of up to 8x8 taps (16x16 for
// averages: 256 taps of -128), strides 1 to 3, random clamps.
// bfpCases runs bfpDot4 (Thumb-2) and bfpDot4Ref on random int32
// significands and weights at unaligned addresses, with sums near the
// int64 bound.
func bfpCases() int {
	bad := 0
	for c := 0; c < 300; c++ {
		fill(mem[:])
		n := int(rnd() % 70)
		w := 4096 + int(rnd()%4)
		x := unsafe.Slice((*int32)(unsafe.Pointer(&mem[1024])), n)
		for i := range x {
			x[i] = int32(rnd()) >> (1 + rnd()%8)
		}
		a := (*[4]int64)(unsafe.Pointer(&mem[12288]))
		b := (*[4]int64)(unsafe.Pointer(&mem[12288+64]))
		p.Dot4(a, x, unsafe.Pointer(&mem[w]))
		p.Dot4Ref(b, x, unsafe.Pointer(&mem[w]))
		if *a != *b {
			bad++
			say("FAIL bfp case " + itoa(c) + " n " + itoa(n))
		}
	}
	return bad
}

func poolCases() int {
	bad := 0
	for c := 0; c < 400; c++ {
		fill(mem[:])
		words := 1 + int(rnd()%24)
		d := 4 * words
		npix := 1 + int(rnd()%5)
		rows, cols := 1+int(rnd()%8), 1+int(rnd()%8)
		if c%16 == 0 {
			rows, cols, npix = 16, 16, 1
			words = 1 + int(rnd()%2)
			d = 4 * words
			for i := 0; i < 8192; i++ {
				mem[i] = 0x80
			}
		}
		stride := 1 + int(rnd()%3)
		inW := (npix-1)*stride + cols + int(rnd()%3)
		if rows*inW*d > 8000 {
			continue
		}
		x := 1 + int(rnd()%3)
		k := 12000
		lo := int32(rnd()%256) - 128
		hi := lo + int32(rnd()%uint32(128-lo))
		put32(k, uint32(words))
		put32(k+4, uint32(inW*d))
		put32(k+8, uint32(d))
		put32(k+12, uint32(stride*d))
		for i := 0; i < 4; i++ {
			mem[k+16+i], mem[k+20+i] = byte(lo), byte(hi)
		}
		oa, ob := 12288, 14336
		spec := uint32(npix) | uint32(rows)<<16 | uint32(cols)<<24
		for _, avg := range []bool{false, true} {
			for i := 0; i < 2048; i++ {
				mem[oa+i], mem[ob+i] = 0x5a, 0x5a
			}
			if avg {
				p.AvgPool(unsafe.Pointer(&mem[x]), unsafe.Pointer(&mem[oa]), spec, unsafe.Pointer(&mem[k]))
				p.AvgPoolRef(unsafe.Pointer(&mem[x]), unsafe.Pointer(&mem[ob]), spec, unsafe.Pointer(&mem[k]))
			} else {
				p.MaxPool(unsafe.Pointer(&mem[x]), unsafe.Pointer(&mem[oa]), spec, unsafe.Pointer(&mem[k]))
				p.MaxPoolRef(unsafe.Pointer(&mem[x]), unsafe.Pointer(&mem[ob]), spec, unsafe.Pointer(&mem[k]))
			}
			for i := 0; i < 2048; i++ {
				if mem[oa+i] != mem[ob+i] {
					bad++
					if bad < 10 {
						what := "max"
						if avg {
							what = "avg"
						}
						say("FAIL " + what + "pool case " + itoa(c) + " depth " + itoa(d) + " pixels " + itoa(npix) + " window " + itoa(rows) + "x" + itoa(cols) +
							" byte " + itoa(i) + ": asm " + itoa(int(int8(mem[oa+i]))) + ", Go " + itoa(int(int8(mem[ob+i]))))
					}
					break
				}
			}
		}
	}
	return bad
}

// mulCases compares dspMulRows with dspMulRowsRef: 1 to 6 rows of 1 to 40
// elements in the four modes (both inputs stepping, with and without the
// activation clamp; one input fixed along the row), records planned by
// dspMulPlan with random offsets, multipliers and shifts.
func mulCases() int {
	bad := 0
	for c := 0; c < 400; c++ {
		fill(mem[:])
		inner, n1 := 1+int(rnd()%40), 1+int(rnd()%6)
		ai, bi := 1, 1
		switch c % 4 {
		case 2:
			bi = 0
		case 3:
			ai = 0
		}
		a1, b1 := int(rnd()%50), int(rnd()%50)
		off1, off2 := int32(rnd()%256)-127, int32(rnd()%256)-127
		zo := int32(rnd()%256) - 128
		lo, hi := int32(-128), int32(127)
		if c%4 != 1 {
			lo = zo
			hi = lo + int32(rnd()%uint32(128-lo))
		}
		k := p.MulPlan(inner, ai, bi, n1, a1, b1, off1, off2, zo, int32(1<<30+rnd()%(1<<30)), -1-int(rnd()%21), lo, hi)
		if k == nil {
			say("FAIL mul case " + itoa(c) + ": no plan")
			bad++
			continue
		}
		copy(mem[12000:], k)
		oa, ob := 12288, 14336
		for i := 0; i < 2048; i++ {
			mem[oa+i], mem[ob+i] = 0x5a, 0x5a
		}
		x, y := 1+int(rnd()%3), 4096+int(rnd()%3)
		p.MulRows(unsafe.Pointer(&mem[x]), unsafe.Pointer(&mem[y]), unsafe.Pointer(&mem[oa]), unsafe.Pointer(&mem[12000]))
		p.MulRowsRef(unsafe.Pointer(&mem[x]), unsafe.Pointer(&mem[y]), unsafe.Pointer(&mem[ob]), unsafe.Pointer(&mem[12000]))
		for i := 0; i < 2048; i++ {
			if mem[oa+i] != mem[ob+i] {
				bad++
				if bad < 10 {
					say("FAIL mul case " + itoa(c) + " inner " + itoa(inner) + " rows " + itoa(n1) + " byte " + itoa(i) +
						": asm " + itoa(int(int8(mem[oa+i]))) + ", Go " + itoa(int(int8(mem[ob+i]))))
				}
				break
			}
		}
	}
	return bad
}

// octCases compares octPass8 with octPass8Ref: rows of K = 0 to 299
// columns (every K below 24 once: each entry into the loop of four groups
// and each tail), x and the weights at unaligned addresses, the sums in
// the arena; one case in
// eight at the extremes (-128 against 255, a weight of 127), one in eight
// against 0 (-128).
func octCases() int {
	bad := 0
	for c := 0; c < 300; c++ {
		fill(mem[:])
		K := int(rnd() % 300)
		if c < 24 {
			K = c
		}
		x := 1 + int(rnd()%7)
		w := 512 + int(rnd()%5)
		switch c % 8 {
		case 3, 6:
			for i := 0; i < K; i++ {
				mem[x+i] = 0x80
			}
			for i := 0; i < 8*K; i++ {
				mem[w+i] = byte(0xff * (c % 8 / 3 % 2))
			}
		}
		xs := unsafe.Slice((*int8)(unsafe.Pointer(&mem[x])), K)
		// The assembly's sums go to the arena (a kernel's scratch), the
		// Go twin's to a local.
		a := (*[8]int32)(unsafe.Pointer(&mem[8192]))
		var b [8]int32
		p.Oct8(xs, unsafe.Pointer(&mem[w]), a)
		p.Oct8Ref(xs, unsafe.Pointer(&mem[w]), &b)
		for r := range a {
			if a[r] != b[r] {
				bad++
				if bad < 10 {
					say("FAIL oct case " + itoa(c) + " K " + itoa(K) + " row " + itoa(r) + ": asm " + itoa(int(a[r])) + ", Go " + itoa(int(b[r])))
				}
				break
			}
		}
	}
	return bad
}

// timeCases compares svdfTimeOutI16 (two slots a word on the board) with
// svdfTimeOutI16Ref: 1 to 12 filters of 8 to 48 slots, the state at word
// and halfword addresses, the weights and time biases at any address;
// states, outputs and the shifted rows must agree.
func timeCases() int {
	bad := 0
	for c := 0; c < 200; c++ {
		fill(mem[:])
		slots := 8 * (1 + int(rnd()%6))
		n := 1 + int(rnd()%12)
		sa, sb := 512+2*int(rnd()%2), 2048+2*int(rnd()%2)
		copy(mem[sb:sb+2*n*slots], mem[sa:sa+2*n*slots])
		w, tb := 4096+int(rnd()%4), 7168+int(rnd()%4)
		a := unsafe.Slice((*int32)(unsafe.Pointer(&mem[8192])), n)
		for i := range a {
			a[i] = int32(int16(rnd()))
		}
		stA := unsafe.Slice((*int16)(unsafe.Pointer(&mem[sa])), n*slots)
		stB := unsafe.Slice((*int16)(unsafe.Pointer(&mem[sb])), n*slots)
		wt := unsafe.String(&mem[w], 2*n*slots)
		tbs := unsafe.String(&mem[tb], 4*n)
		oA := unsafe.Slice((*int8)(unsafe.Pointer(&mem[9216])), n)
		oB := unsafe.Slice((*int8)(unsafe.Pointer(&mem[9472])), n)
		mult, rsh := int32(1<<30+rnd()%(1<<30)), uint8(32+rnd()%21)
		p.TimeI16(stA, wt, tbs, a, slots, mult, rsh, oA, false)
		p.TimeI16(stB, wt, tbs, a, slots, mult, rsh, oB, true)
		for i := range stA {
			if stA[i] != stB[i] {
				bad++
				say("FAIL time case " + itoa(c) + " slot " + itoa(i) + ": board " + itoa(int(stA[i])) + ", Go " + itoa(int(stB[i])))
				break
			}
		}
		for i := range oA {
			if oA[i] != oB[i] {
				bad++
				say("FAIL time case " + itoa(c) + " output " + itoa(i) + ": board " + itoa(int(oA[i])) + ", Go " + itoa(int(oB[i])))
				break
			}
		}
	}
	return bad
}

// gatherCases compares dspGather16 with dspGather16Ref: 1 to 12 rows of
// 2 to 160 bytes, any stride, at unaligned addresses.
func gatherCases() int {
	bad := 0
	for c := 0; c < 300; c++ {
		fill(mem[:])
		rows := 1 + int(rnd()%12)
		n := 2 + 2*int(rnd()%80)
		stride := n + int(rnd()%200)
		s := 1 + int(rnd()%7)
		da, db := 4096+int(rnd()%4), 8192
		for i := 0; i < 2048; i++ {
			mem[da+i], mem[db+i] = 0x5a, 0x5a
		}
		spec := uint32(n) | uint32(rows)<<16
		p.Gather16(unsafe.Pointer(&mem[da]), unsafe.Pointer(&mem[s]), uint32(stride), spec)
		p.Gather16Ref(unsafe.Pointer(&mem[db]), unsafe.Pointer(&mem[s]), uint32(stride), spec)
		for i := 0; i < 2048; i++ {
			if mem[da+i] != mem[db+i] {
				bad++
				if bad < 10 {
					say("FAIL gather case " + itoa(c) + " rows " + itoa(rows) + " bytes " + itoa(n) + " at " + itoa(i))
				}
				break
			}
		}
	}
	return bad
}

// fc16Cases compares dspFC16Row with dspFC16RowRef: rows of K = 4..600
// int16 columns (x at an unaligned address; one case in eight at the
// extremes, -32768 times -128, whose sums leave 32 bits), 1 to 13
// channels, records planned by dspFC16Plan.
func fc16Cases() int {
	bad := 0
	for c := 0; c < 200; c++ {
		fill(mem[:])
		K := 4 * (1 + int(rnd()%150))
		N := 1 + int(rnd()%13)
		x := 2 + 2*int(rnd()%3)
		w := 2048 + int(rnd()%5)
		rec := 10240 + int(rnd()%3)
		oa, ob := 12288, 12288+64
		if c%8 == 0 {
			for i := 0; i < K; i++ {
				mem[x+2*i], mem[x+2*i+1] = 0, 0x80
			}
			for i := 0; i < N*K; i++ {
				mem[w+i] = 0x80
			}
		}
		bias, mult, shift := make([]int64, N), make([]int32, N), make([]int32, N)
		for j := range bias {
			bias[j] = int64(int32(rnd())) << (rnd() % 8)
			mult[j] = int32(1<<30 + rnd()%(1<<30))
			shift[j] = -2 - int32(rnd()%28)
		}
		lo := -32768 + int32(rnd()%1000)
		r := p.FC16Plan(K, bias, mult, shift, int32(rnd()%5)-2, lo, lo+int32(rnd()%65000))
		if r == nil {
			say("FAIL fc16 case " + itoa(c) + ": no plan")
			bad++
			continue
		}
		copy(mem[rec:], r)
		for i := 0; i < 128; i++ {
			mem[oa+i] = 0x5a
		}
		p.FC16Row(unsafe.Pointer(&mem[x]), unsafe.Pointer(&mem[w]), unsafe.Pointer(&mem[rec]), unsafe.Pointer(&mem[oa]))
		p.FC16RowRef(unsafe.Pointer(&mem[x]), unsafe.Pointer(&mem[w]), unsafe.Pointer(&mem[rec]), unsafe.Pointer(&mem[ob]))
		for i := 0; i < 64; i++ {
			if mem[oa+i] != mem[ob+i] {
				bad++
				if bad < 10 {
					say("FAIL fc16 case " + itoa(c) + " K " + itoa(K) + " N " + itoa(N) + " byte " + itoa(i) +
						": asm " + itoa(int(mem[oa+i])) + ", Go " + itoa(int(mem[ob+i])))
				}
				break
			}
		}
	}
	return bad
}
`

// TestDSPOnBoard checks the Thumb-2 DSP loops against their Go twins on
// the emulated Cortex-M4 (skipped without TinyGo).
func TestDSPOnBoard(t *testing.T) {
	export := `package p

import "unsafe"

// DSPPWArgs is dspPWArgs with exported fields, in the same order.
type DSPPWArgs struct {
	X, W   unsafe.Pointer
	N, XB  uint32
	Rec    unsafe.Pointer
	Oa, Ob unsafe.Pointer
	Pairs  uint32
	Span   int32
	Lo     int32
	Wx     unsafe.Pointer
}

// DSPArgs is dspArgs with exported fields.
type DSPArgs struct {
	X, W  unsafe.Pointer
	N, XB uint32
	S     [4]int32
}

func pw(g *DSPPWArgs) *dspPWArgs { return (*dspPWArgs)(unsafe.Pointer(g)) }
func dd(g *DSPArgs) *dspArgs     { return (*dspArgs)(unsafe.Pointer(g)) }

func PWPairs(g *DSPPWArgs)     { dspPWPairs(pw(g)) }
func PWPairsRef(g *DSPPWArgs)  { dspPWPairsRef(pw(g)) }
func PWOne(g *DSPPWArgs)       { dspPWOne(pw(g)) }
func PWOneRef(g *DSPPWArgs)    { dspPWOneRef(pw(g)) }
func PWPairsW(g *DSPPWArgs)    { dspPWPairsW(pw(g)) }
func PWPairsWRef(g *DSPPWArgs) { dspPWPairsWRef(pw(g)) }
func Widen2(g *DSPPWArgs)      { dspWiden2(pw(g)) }
func Widen2Ref(g *DSPPWArgs)   { dspWiden2Ref(pw(g)) }
func Dot2x2(g *DSPArgs)        { dspDot2x2Rows(dd(g)) }
func Dot2x2Ref(g *DSPArgs)     { dspDot2x2RowsRef(dd(g)) }

func FCRow(x, w, r, o unsafe.Pointer)    { dspFCRow(x, w, r, o) }
func FCRowRef(x, w, r, o unsafe.Pointer) { dspFCRowRef(x, w, r, o) }

func FCPlan(rq []int32, K int, zo, lo, hi int32) []byte {
	b := make([]byte, 0, 4*len(rq))
	for _, v := range rq {
		b = append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	}
	r, ok := dspFCPlan(b, K, zo, lo, hi)
	if !ok {
		return nil
	}
	return r
}

func FC16Row(x, w, r, o unsafe.Pointer)    { dspFC16Row(x, w, r, o) }
func FC16RowRef(x, w, r, o unsafe.Pointer) { dspFC16RowRef(x, w, r, o) }

func Gather16(d, s unsafe.Pointer, t, n uint32)    { dspGather16(d, s, t, n) }
func Gather16Ref(d, s unsafe.Pointer, t, n uint32) { dspGather16Ref(d, s, t, n) }

func MaxPool(x, o unsafe.Pointer, n uint32, k unsafe.Pointer)    { dspMaxPool(x, o, n, k) }
func MaxPoolRef(x, o unsafe.Pointer, n uint32, k unsafe.Pointer) { dspMaxPoolRef(x, o, n, k) }
func AvgPool(x, o unsafe.Pointer, n uint32, k unsafe.Pointer)    { dspAvgPool(x, o, n, k) }
func AvgPoolRef(x, o unsafe.Pointer, n uint32, k unsafe.Pointer) { dspAvgPoolRef(x, o, n, k) }

func Oct8(x []int8, w unsafe.Pointer, a *[8]int32)    { octPass8(x, w, a) }
func Oct8Ref(x []int8, w unsafe.Pointer, a *[8]int32) { octPass8Ref(x, w, a) }

// TimeI16 runs svdfTimeOutI16 (svdfTimeOutI16Ref when ref) with the time
// record of multiplier mult and right shift rsh - 31, output in [-128, 127].
func TimeI16(st []int16, wt, tb string, a []int32, slots int, mult int32, rsh uint8, o []int8, ref bool) {
	var t rqOne
	if !rqOneSet(&t, mult, 0, rsh, 0, -128, 127) {
		panic("rqOneSet")
	}
	if ref {
		svdfTimeOutI16Ref(st, wt, tb, a, slots, &t, o)
	} else {
		svdfTimeOutI16(st, wt, tb, a, slots, &t, o)
	}
}

func Dot4(a *[4]int64, x []int32, w unsafe.Pointer)    { bfpDot4(a, x, w) }
func Dot4Ref(a *[4]int64, x []int32, w unsafe.Pointer) { bfpDot4Ref(a, x, w) }

func MulRows(a, b, o, k unsafe.Pointer)    { dspMulRows(a, b, o, k) }
func MulRowsRef(a, b, o, k unsafe.Pointer) { dspMulRowsRef(a, b, o, k) }

func MulPlan(inner, ai, bi, n1, a1, b1 int, off1, off2, zo, m int32, shift int, lo, hi int32) []byte {
	bc := &ewBcast{inner: inner, aInner: ai, bInner: bi, n1: n1, a1: a1, b1: b1}
	q := &mulQuantParams{in1Off: off1, in2Off: off2, outOff: zo, mult: m, shift: shift, actMin: lo, actMax: hi}
	k, ok := dspMulPlan(bc, q)
	if !ok {
		return nil
	}
	return k
}

func FC16Plan(K int, bias []int64, mult, shift []int32, zo, lo, hi int32) []byte {
	b, ok := dspFC16Plan(K, bias, mult, shift, zo, lo, hi)
	if !ok {
		return nil
	}
	return b
}
`
	dspBoardRun(t, dspBoardMain, export)
}

// dspBoardRun builds the kernels (as package p, with export.go added)
// and the program main for the emulated Cortex-M4, runs it and fails
// unless it prints "ok" (skipped without TinyGo). main imports p as
// "tg/p" through the import block it starts with.
func dspBoardRun(t *testing.T, main, export string) {
	tools := board.Require(t)
	dir := t.TempDir()
	if d := os.Getenv("DSP_BOARD_DIR"); d != "" {
		dir = d
	}
	if err := os.MkdirAll(filepath.Join(dir, "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob("*.go")
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") || n == "embed.go" || n == "dispatch.go" || n == "plan.go" || n == "doc.go" {
			continue
		}
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		b = []byte(strings.Replace(string(b), "package kernels", "package p", 1))
		if err := os.WriteFile(filepath.Join(dir, "p", n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	main = strings.Replace(main, "import (\n\t\"device/arm\"\n\t\"unsafe\"\n)", "import (\n\t\"device/arm\"\n\t\"unsafe\"\n\n\tp \"tg/p\"\n)", 1)
	files := map[string]string{"main.go": main, "p/export.go": export, "go.mod": "module tg\n\ngo 1.25\n"}
	for n, text := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	elf, _, err := tools.Build(dir, "-target=cortex-m4-qemu")
	if err != nil {
		t.Fatal(err)
	}
	out, err := tools.Run(elf, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("the Thumb-2 DSP loops differ from Go on the board:\n%s", out)
	}
}
