package kernels

import (
	"runtime"
	"unsafe"
)

// DSP inner loops. The Cortex-M4 and M7 (ARMv7E-M) have SIMD
// multiply-accumulates on 16-bit halves: SXTB16 sign-extends bytes 0 and 2
// of a word into its two halves (with a rotation, bytes 1 and 3), and SMLAD
// adds the products of the two halves of two words to an accumulator: two
// int8 multiply-accumulates in one instruction once both operands are
// widened. LLVM forms neither from Go at TinyGo's optimisation levels, so
// on that target (dsp_arm.go: build tags tinygo, cortexm, not nodsp) the
// loops below are inline assembly through TinyGo's device/arm; everywhere
// else (dsp_go.go) they are these Go functions, which compute the same
// int32 sums (wrapping, in any order: the sums are the same modulo 2^32).
//
// The loops take their arguments from a block in the arena (dspArgs, in the
// kernel's planned scratch): the assembly gets its address as a number,
// and the address of a Go local converted so would move the local to the
// heap under TinyGo.

// dspSetPtr stores p at *dst without a write barrier. Argument blocks and
// tables of pointers live in the arena, which the garbage collector does
// not scan and whose old contents may be anything (another tensor, a stale
// pointer): a barrier on the store would hand those old contents to the
// collector as a pointer. The arena, and what its pointers point at, stay
// alive on their own.
func dspSetPtr(dst *unsafe.Pointer, p unsafe.Pointer) { *(*uintptr)(unsafe.Pointer(dst)) = uintptr(p) }

// dspArgs is the argument block of the DSP loops, words in this order (the
// assembly loads them with one LDM). The pointers are unsafe.Pointer, not
// uintptr, so that the Go loops' conversions stay valid for checkptr. The
// block lives in the arena, whose words held other data before: a kernel
// clears a block (dspClear) before it stores pointers in it, or gc's
// write barrier would take the old word for a pointer.
type dspArgs struct {
	x  unsafe.Pointer // pixel a's row (dspDot2x2Rows)
	w  unsafe.Pointer // the channel pair's weights
	n  uint32         // groups of four columns
	xb uint32         // pixel b's row, in bytes after pixel a's
	s  [4]int32       // the sums: (a, c0), (a, c1), (b, c0), (b, c1); in: their starting values
}

// dspArgsWords is the scratch a kernel reserves for its dspArgs, in int32
// words: enough for 64-bit hosts too (a test checks it).
const dspArgsWords = 12

// dspPackPairs lays out weight rows [outC][K] for dspDot2x2Rows: output
// channel pairs (an odd last channel paired with zeros), each pair's rows
// interleaved by groups of four columns ([c0 k0..k3][c1 k0..k3][c0 k4..k7]
// ...), K rounded up to a multiple of four with zeros.
func dspPackPairs(rows [][]int8, K int) []byte {
	k4 := (K + 3) / 4
	out := make([]byte, 0, (len(rows)+1)/2*8*k4)
	zero := make([]int8, 4*k4)
	for j := 0; j < len(rows); j += 2 {
		r0, r1 := rows[j], zero
		if j+1 < len(rows) {
			r1 = rows[j+1]
		}
		for g := 0; g < k4; g++ {
			for _, r := range [2][]int8{r0, r1} {
				for i := 4 * g; i < 4*g+4; i++ {
					v := int8(0)
					if i < len(r) && i < K {
						v = r[i]
					}
					out = append(out, byte(v))
				}
			}
		}
	}
	return out
}

// dspDot2x2RowsRef is dspDot2x2Rows in Go: g.n groups of four columns of
// the int8 rows of pixels a (at g.x) and b (g.xb bytes further) times those
// of a channel pair (at g.w, dspPackPairs' layout), added to g.s.
func dspDot2x2RowsRef(g *dspArgs) {
	n := int(g.n)
	a := unsafe.Slice((*int8)(g.x), 4*n)
	b := unsafe.Slice((*int8)(unsafe.Add(g.x, g.xb)), 4*n)
	w := unsafe.Slice((*int8)(g.w), 8*n)
	s00, s01, s10, s11 := g.s[0], g.s[1], g.s[2], g.s[3]
	for i := 0; i < n; i++ {
		c0, c1 := w[8*i:8*i+4:8*i+4], w[8*i+4:8*i+8:8*i+8]
		x, y := a[4*i:4*i+4:4*i+4], b[4*i:4*i+4:4*i+4]
		for k := range 4 {
			u, v := int32(c0[k]), int32(c1[k])
			s00 += int32(x[k]) * u
			s01 += int32(x[k]) * v
			s10 += int32(y[k]) * u
			s11 += int32(y[k]) * v
		}
	}
	g.s = [4]int32{s00, s01, s10, s11}
}

// dspPWArgs is the argument block of dspPWPairs, words in this order (the
// assembly reads them by offset).
type dspPWArgs struct {
	x     unsafe.Pointer // 0: pixel a's row
	w     unsafe.Pointer // 4: the first channel pair's weights (dspPackPairs)
	n     uint32         // 8: groups of four columns
	xb    uint32         // 12: pixel b's row, in bytes after pixel a's
	rec   unsafe.Pointer // 16: the first channel's record (dspRecBytes each)
	oa    unsafe.Pointer // 20: pixel a's output, at the first channel
	ob    unsafe.Pointer // 24: pixel b's output
	pairs uint32         // 28: channel pairs
	span  int32          // 32: actMax - actMin
	lo    int32          // 36: actMin
	wx    unsafe.Pointer // 40: the widened pixel pair (dspWiden2), for dspPWPairsW
}

// dspPWArgsWords is the scratch, in int32 words, for a dspPWArgs (enough
// for 64-bit hosts too; a test checks it).
const dspPWArgsWords = 18

// dspPWPairsRef is dspPWPairs in Go: for g.pairs channel pairs from g.w
// and g.rec on, the two pixels' sums (dspDot2x2Rows, starting at the
// records' biases) requantized by dspQ and stored at g.oa and g.ob, a byte
// a channel.
func dspPWPairsRef(g *dspPWArgs) {
	var d dspArgs
	d.x, d.w, d.n, d.xb = g.x, g.w, g.n, g.xb
	hi := g.lo + g.span
	for j := 0; j < int(g.pairs); j++ {
		r0 := (*[dspRecBytes]byte)(unsafe.Add(g.rec, 2*dspRecBytes*j))
		r1 := (*[dspRecBytes]byte)(unsafe.Add(g.rec, 2*dspRecBytes*j+dspRecBytes))
		b0, b1 := le32((*[4]byte)(r0[0:4])), le32((*[4]byte)(r1[0:4]))
		d.s = [4]int32{b0, b1, b0, b1}
		dspDot2x2RowsRef(&d)
		d.w = unsafe.Add(d.w, 8*int(g.n))
		oa := (*[2]int8)(unsafe.Add(g.oa, 2*j))
		ob := (*[2]int8)(unsafe.Add(g.ob, 2*j))
		oa[0] = int8(hi - dspQ(d.s[0], r0, g.span))
		oa[1] = int8(hi - dspQ(d.s[1], r1, g.span))
		ob[0] = int8(hi - dspQ(d.s[2], r0, g.span))
		ob[1] = int8(hi - dspQ(d.s[3], r1, g.span))
	}
}

// dspPWOneRef is dspPWOne in Go: dspPWPairsRef for pixel a alone (g.xb
// is not read, g.ob not written): the sums of its channel pairs,
// requantized and stored at g.oa.
func dspPWOneRef(g *dspPWArgs) {
	var d dspArgs
	d.x, d.w, d.n = g.x, g.w, g.n
	hi := g.lo + g.span
	for j := 0; j < int(g.pairs); j++ {
		r0 := (*[dspRecBytes]byte)(unsafe.Add(g.rec, 2*dspRecBytes*j))
		r1 := (*[dspRecBytes]byte)(unsafe.Add(g.rec, 2*dspRecBytes*j+dspRecBytes))
		b0, b1 := le32((*[4]byte)(r0[0:4])), le32((*[4]byte)(r1[0:4]))
		d.s = [4]int32{b0, b1, b0, b1}
		dspDot2x2RowsRef(&d)
		d.w = unsafe.Add(d.w, 8*int(g.n))
		oa := (*[2]int8)(unsafe.Add(g.oa, 2*j))
		oa[0] = int8(hi - dspQ(d.s[0], r0, g.span))
		oa[1] = int8(hi - dspQ(d.s[1], r1, g.span))
	}
}

// dspWidenWords is the scratch of a pixel pair widened by dspWiden2 for
// rows of K int8 columns (K a multiple of four), in int32 words.
func dspWidenWords(K int) int { return 4 * (K / 4) }

// dspWiden2Ref is dspWiden2 in Go: the g.n groups of four int8 columns of
// pixels a (g.x) and b (g.xb bytes further) written to g.wx as int16
// halves, a group's four words in the order SXTB16 makes them: a0 a2, a1
// a3, b0 b2, b1 b3 (low half first).
func dspWiden2Ref(g *dspPWArgs) {
	n := int(g.n)
	a := unsafe.Slice((*int8)(g.x), 4*n)
	b := unsafe.Slice((*int8)(unsafe.Add(g.x, g.xb)), 4*n)
	d := unsafe.Slice((*int16)(g.wx), 8*n)
	for i := 0; i < n; i++ {
		x, y, o := a[4*i:4*i+4:4*i+4], b[4*i:4*i+4:4*i+4], d[8*i:8*i+8:8*i+8]
		o[0], o[1], o[2], o[3] = int16(x[0]), int16(x[2]), int16(x[1]), int16(x[3])
		o[4], o[5], o[6], o[7] = int16(y[0]), int16(y[2]), int16(y[1]), int16(y[3])
	}
}

// dspPWPairsWRef is dspPWPairsRef with the pixel pair read from its
// widened copy at g.wx (dspWiden2): the same sums.
func dspPWPairsWRef(g *dspPWArgs) {
	n := int(g.n)
	x := unsafe.Slice((*int16)(g.wx), 8*n)
	hi := g.lo + g.span
	w := g.w
	for j := 0; j < int(g.pairs); j++ {
		r0 := (*[dspRecBytes]byte)(unsafe.Add(g.rec, 2*dspRecBytes*j))
		r1 := (*[dspRecBytes]byte)(unsafe.Add(g.rec, 2*dspRecBytes*j+dspRecBytes))
		b0, b1 := le32((*[4]byte)(r0[0:4])), le32((*[4]byte)(r1[0:4]))
		s00, s01, s10, s11 := b0, b1, b0, b1
		c := unsafe.Slice((*int8)(w), 8*n)
		for i := 0; i < n; i++ {
			v, c0, c1 := x[8*i:8*i+8:8*i+8], c[8*i:8*i+4:8*i+4], c[8*i+4:8*i+8:8*i+8]
			// v holds a0 a2 a1 a3 b0 b2 b1 b3.
			for k, at := range [4]int{0, 2, 1, 3} {
				u, t := int32(c0[at]), int32(c1[at])
				s00 += int32(v[k]) * u
				s01 += int32(v[k]) * t
				s10 += int32(v[4+k]) * u
				s11 += int32(v[4+k]) * t
			}
		}
		w = unsafe.Add(w, 8*n)
		oa := (*[2]int8)(unsafe.Add(g.oa, 2*j))
		ob := (*[2]int8)(unsafe.Add(g.ob, 2*j))
		oa[0] = int8(hi - dspQ(s00, r0, g.span))
		oa[1] = int8(hi - dspQ(s01, r1, g.span))
		ob[0] = int8(hi - dspQ(s10, r0, g.span))
		ob[1] = int8(hi - dspQ(s11, r1, g.span))
	}
}

// dspClear zeroes the first n words of an argument block with plain
// integer stores, so that pointer stores into it find nil there (see
// dspArgs): under gc only, whose write barrier reads the old word (TinyGo's
// collector has none).
func dspClear(p unsafe.Pointer, n int) {
	if runtime.Compiler == "gc" {
		clear(unsafe.Slice((*uint32)(p), n))
	}
}
