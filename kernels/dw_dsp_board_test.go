package kernels

import "testing"

// dwDSPBoardMain runs the depthwise DSP loops (dw_dsp_arm.go) and their Go
// twins (dwDSPRun*Ref) on the same pseudo-random argument blocks on the
// emulated Cortex-M4 and reports each mismatch through semihosting.
const dwDSPBoardMain = `
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

// mem holds the input, tables, weights, records, outputs and argument
// blocks, at random (also unaligned) offsets.
var mem [32768]byte

func main() {
	bad := 0
	for c := 0; c < 600; c++ {
		for i := range mem {
			mem[i] = byte(rnd())
		}
		np := 1 + int(rnd()%25)
		n := 1 + int(rnd()%5)
		mode := int(rnd() % 4) // 3: Q8
		dbc := int(rnd() % 40)
		ch, wq := 4, 8*np // channels an item, weight bytes a group
		if mode == 3 {
			ch, wq = 8, 64*np
		}
		dw := []int{0, wq}[rnd()%2]
		drec := []int{0, 13 * ch}[rnd()%2]
		dout := ch + int(rnd()%8)
		bc := int(rnd() % 64) // the items' offset from the tap pointers
		in := 1 + int(rnd()%8) // the input: 4096 bytes from in on
		tab := 8192            // word-aligned tables, one per run
		w := 12288 + int(rnd()%4)
		rec := 16384 + int(rnd()%4)
		out := 20480 + int(rnd()%4)
		// Tap pointers into the input, reads of four bytes included, for
		// every item.
		for j := 0; j < 2*np; j++ {
			v := uint32(uintptr(unsafe.Pointer(&mem[in]))) + rnd()%uint32(4096-4-bc-dbc*(n-1))
			for _, b := range [2]int{tab, tab + 512} {
				*(*uint32)(unsafe.Pointer(&mem[b+4*j])) = v
			}
		}
		// Records (dwDSPRecChan, a group's fields one after another):
		// requantizations as dwDSPRecs makes them, with right shifts that
		// leave most outputs inside the clamp.
		for i := 0; i < n; i++ {
			r := mem[rec+13*ch*i:]
			for k := 0; k < ch; k++ {
				sh := 8 + rnd()%12
				zl := rnd() % 256
				for f, v := range []uint32{uint32(int32(rnd()%65536) - 32768), rnd()>>1 | 1<<30, uint32(1)<<(sh-1) + zl<<sh} {
					q := r[4*(f*ch+k):]
					q[0], q[1], q[2], q[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
				}
				r[12*ch+k] = byte(sh)
			}
		}
		if mode == 3 {
			// Int16 weights: keep them int8-sized, as the layout has them.
			for i := 0; i < 2*wq; i += 2 {
				v := int16(int8(mem[w+i]))
				mem[w+i], mem[w+i+1] = byte(v), byte(uint16(v)>>8)
			}
		}
		for i := 0; i < 2048; i++ {
			mem[out+i], mem[out+2048+i] = 0, 0
		}
		span := rnd() % 256
		lo := -128 + int(rnd()%(256-span))
		for v := 0; v < 2; v++ {
			g := (*p.DWArgs)(unsafe.Pointer(&mem[28672+128*v]))
			g.Bc, g.W, g.Rec = uintptr(bc), unsafe.Pointer(&mem[w]), unsafe.Pointer(&mem[rec])
			g.Out = unsafe.Pointer(&mem[out+2048*v])
			g.Dbc, g.Dw, g.Drec, g.Dout, g.N = int32(dbc), int32(dw), int32(drec), int32(dout), int32(n)
			g.Tab, g.Np = unsafe.Pointer(&mem[tab+512*v]), int32(np)
			g.Span2, g.Lo4 = span|span<<16, uint32(uint8(lo))*0x01010101
			p.Run(g, mode, v == 0)
		}
		for i := 0; i < n*dout; i++ {
			if mem[out+i] != mem[out+2048+i] {
				bad++
				if bad < 10 {
					say("FAIL case " + itoa(c) + " mode " + itoa(mode) + " np " + itoa(np) + " n " + itoa(n) + " byte " + itoa(i) +
						": asm " + itoa(int(int8(mem[out+i]))) + ", Go " + itoa(int(int8(mem[out+2048+i]))))
				}
				break
			}
		}
	}
	if bad == 0 {
		say("ok")
	}
}
`

// TestDepthwiseDSPOnBoard checks the depthwise DSP loops against their Go
// twins on the emulated Cortex-M4 (skipped without TinyGo): random tap
// tables, weights, records, item counts and advances, unaligned inputs,
// weights, records and outputs, every form.
func TestDepthwiseDSPOnBoard(t *testing.T) {
	export := `package p

import "unsafe"

// DWArgs is dwDSPArgs with exported fields, in the same order.
type DWArgs struct {
	Bc                  uintptr
	W, Rec, Out         unsafe.Pointer
	Dbc, Dw, Drec, Dout int32
	N, Np               int32
	Span2, Lo4          uint32
	Tab                 unsafe.Pointer
}

// Run runs the loop of the given form, in Thumb-2 (asm) or Go.
func Run(g *DWArgs, mode int, asm bool) {
	a := (*dwDSPArgs)(unsafe.Pointer(g))
	switch {
	case mode == 0 && asm:
		dwDSPRunM1(a)
	case mode == 0:
		dwDSPRunM1Ref(a)
	case mode == 1 && asm:
		dwDSPRunM2(a)
	case mode == 1:
		dwDSPRunM2Ref(a)
	case mode == 2 && asm:
		dwDSPRunMQ(a)
	case mode == 2:
		dwDSPRunMQRef(a)
	case asm:
		dwDSPRunQ8(a)
	default:
		dwDSPRunQ8Ref(a)
	}
}
`
	dspBoardRun(t, dwDSPBoardMain, export)
}
