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
	if bad == 0 {
		say("ok")
	}
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
func PWPairsW(g *DSPPWArgs)    { dspPWPairsW(pw(g)) }
func PWPairsWRef(g *DSPPWArgs) { dspPWPairsWRef(pw(g)) }
func Widen2(g *DSPPWArgs)      { dspWiden2(pw(g)) }
func Widen2Ref(g *DSPPWArgs)   { dspWiden2Ref(pw(g)) }
func Dot2x2(g *DSPArgs)        { dspDot2x2Rows(dd(g)) }
func Dot2x2Ref(g *DSPArgs)     { dspDot2x2RowsRef(dd(g)) }
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
