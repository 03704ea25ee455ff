package kernels

import (
	"math/rand"
	"slices"
	"testing"
	"unsafe"
)

// TestSvdfFastMatchesReference drives the fast SVDF kernels (svdfFastPlan:
// rank 1, memory a multiple of 8, right-shift time rescaling) and the ring
// kernels of -speed (svdf_ring.go) with the plan's records, or, for the
// last two cases, which the plan declines, the general kernels, as the
// generator does, on random data over successive invokes, and requires
// output and state (the ring's rotated back) to equal svdfTRef (TFLM's
// reference, transcribed) bit for bit. The cases cover
// both state types, more filters than a block (svdfBlk) and a partial
// block of eight, feature rescales with right shifts of 0 to 21 and left
// shifts of 1 and 2, and biases large enough that sums leave [-2^30, 2^30)
// and must saturate; each case asserts that the fast path was taken.
func TestSvdfFastMatchesReference(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	type shape struct{ batch, input, units, mem int }
	cases := []struct {
		bits   int
		sh     shape
		s1, s2 int   // exponents of the two rescales (> 0 shifts left)
		wt     int32 // weights_time magnitude bound
		bias   int32 // bias magnitude bound
	}{
		{8, shape{1, 16, 64, 8}, -9, -9, 128, 1 << 12},
		{8, shape{1, 96, 64, 8}, -10, -9, 128, 1 << 12},
		{8, shape{2, 24, 70, 16}, -9, -9, 128, 1 << 12},
		{8, shape{1, 7, 9, 32}, -8, -10, 128, 1 << 12},
		{8, shape{1, 16, 64, 8}, -21, -1, 128, 1 << 12},  // mostly saturated
		{8, shape{1, 16, 64, 8}, -9, -4, 128, 1<<31 - 1}, // sums saturate both ways
		{16, shape{1, 4, 64, 8}, 0, -17, 256, 1 << 12},
		{16, shape{1, 2, 32, 32}, 1, -18, 256, 1 << 12},
		{16, shape{2, 24, 70, 16}, 2, -19, 512, 1 << 12},
		{16, shape{1, 9, 13, 8}, -3, -19, 4096, 1 << 12},
		{16, shape{1, 16, 64, 8}, 0, -13, 32768, 1<<31 - 1},
		// Declined by svdfFastPlan (the general kernels): int16 state's
		// range not saturated at right shift 21; a time left shift.
		{16, shape{1, 16, 24, 8}, -21, -13, 256, 1 << 12},
		{8, shape{2, 16, 24, 16}, -9, 1, 8, 1 << 12},
	}
	for ci, tc := range cases {
		sh := tc.sh
		nf := sh.units
		stMin, stMax := int32(-128), int32(127)
		wrap := func(v int32) int32 { return int32(int8(v)) }
		if tc.bits == 16 {
			stMin, stMax = -32768, 32767
			wrap = func(v int32) int32 { return int32(int16(v)) }
		}
		inZP := r.Int31n(256) - 128
		stZP := int32(0)
		if tc.bits == 8 {
			stZP = r.Int31n(256) - 128
		}
		m1, m2 := 1<<30+r.Int31n(1<<30), 1<<30+r.Int31n(1<<30)
		q1, q2 := fcTRQ(m1, tc.s1), fcTRQ(m2, tc.s2)
		p := &svdfParams{
			batch: sh.batch, inputSize: sh.input, numFilters: nf, rank: 1,
			numUnits: sh.units, memory: sh.mem, stateZP: stZP, outZP: r.Int31n(256) - 128,
			mult1: q1.mult, lsh1: q1.lsh, rsh1: q1.rsh, half1: q1.half,
			mult2: q2.mult, lsh2: q2.lsh, rsh2: q2.rsh, half2: q2.half,
			octW: true,
		}
		var fq, tq rqOne
		declined := ci >= len(cases)-2
		if svdfFastPlan(p, tc.bits == 16, &fq, &tq) == declined {
			t.Fatalf("case %d: svdfFastPlan %v for %+v", ci, !declined, tc)
		}
		wf := make([]int8, nf*sh.input)
		for i := range wf {
			wf[i] = int8(r.Intn(256) - 128)
		}
		wt := make([]int32, nf*sh.mem)
		for i := range wt {
			wt[i] = r.Int31n(2*tc.wt) - tc.wt
		}
		bias := make([]int32, sh.units)
		for i := range bias {
			bias[i] = int32(r.Int63n(2*int64(tc.bias)+1) - int64(tc.bias))
		}
		refState := make([]int32, sh.batch*nf*sh.mem)
		for i := range refState {
			refState[i] = stZP
		}
		st8 := make([]int8, len(refState))
		st16 := make([]int16, len(refState))
		for i, v := range refState {
			st8[i], st16[i] = int8(v), int16(v)
		}
		wfp, fb, tb := svdfTFold(p, wf, wt, fcTStr32(bias), inZP)
		out := make([]int8, sh.batch*sh.units)
		// The ring kernels' state, position and doubled weights.
		ring8, ring16 := slices.Clone(st8), slices.Clone(st16)
		pos := []int32{0}
		var dbl []int32
		for f := 0; f < nf; f++ {
			dbl = append(dbl, wt[f*sh.mem:(f+1)*sh.mem]...)
			dbl = append(dbl, wt[f*sh.mem:(f+1)*sh.mem]...)
		}
		ww := string(svdfTBytes8(dbl))
		if tc.bits == 16 {
			// Twice more, the second copy one byte further.
			ww = svdfTStr16(dbl) + "\x00" + svdfTStr16(dbl)
		}
		// The biases four times, each copy a byte further (gen/lower's
		// svdfPhase4).
		fb4, tb4 := tPhase4(fb[:4*nf]), tPhase4(tb)
		outRing := make([]int8, len(out))
		var parity [2]bool
		sat, inside := 0, 0
		for step := 0; step < 12; step++ {
			in := make([]int8, sh.batch*sh.input)
			for i := range in {
				in[i] = int8(r.Intn(256) - 128)
			}
			want := svdfTRef(p, m1, tc.s1, m2, tc.s2, inZP, in, wf, wt, bias, refState, stMin, stMax, wrap)
			switch {
			case tc.bits == 16 && declined:
				svdfInt8x16(p, in, wfp, fb, svdfTStr16(wt), tb, st16, make([]int32, svdfInt8x16Scratch), out)
			case tc.bits == 16:
				svdfInt8x16Fast(p, &fq, &tq, in, wfp, fb, svdfTStr16(wt), tb, st16, make([]int32, svdfFastScratch), out)
				// The same string at an even and at an odd address, so that
				// each copy is the aligned one in turn.
				w := ww
				if step&1 == 1 {
					w = ("\x00" + ww)[1:]
				}
				parity[uintptr(unsafe.Pointer(unsafe.StringData(w)))&1] = true
				if a := svdfRingWT16(w); uintptr(unsafe.Pointer(unsafe.StringData(a)))&1 != 0 || a != svdfTStr16(dbl) {
					t.Fatalf("case %d: svdfRingWT16 returns a misaligned or wrong copy", ci)
				}
				svdfInt8x16Ring(p, &fq, &tq, in, wfp, tAt(fb4, step), w, tAt(tb4, step), ring16, pos, make([]int32, svdfFastScratch), outRing)
			case declined:
				svdfInt8x8(p, in, wfp, fb, string(svdfTBytes8(wt)), tb, st8, make([]int32, svdfInt8x8Scratch), out)
			default:
				svdfInt8x8Fast(p, &fq, &tq, in, wfp, fb, string(svdfTBytes8(wt)), tb, st8, make([]int32, svdfFastScratch), out)
				svdfInt8x8Ring(p, &fq, &tq, in, wfp, tAt(fb4, step), ww, tAt(tb4, step), ring8, pos, make([]int32, svdfFastScratch), outRing)
			}
			if a := strAligned4(tAt(tb4, step), len(tb)); uintptr(unsafe.Pointer(unsafe.StringData(a)))&3 != 0 || a != tb {
				t.Fatalf("case %d step %d: strAligned4 returns a misaligned or wrong copy", ci, step)
			}
			if !declined && !slices.Equal(out, outRing) {
				t.Fatalf("case %d step %d: the ring kernel's output differs: %v, want %v", ci, step, outRing, out)
			}
			for i := range refState {
				// Logical slot m of a row is at physical (pos+m) mod memory.
				row, m := i/sh.mem, i%sh.mem
				j := row*sh.mem + (int(pos[0])+m)%sh.mem
				got := int32(ring8[j])
				if tc.bits == 16 {
					got = int32(ring16[j])
				}
				if !declined && got != refState[i] {
					t.Fatalf("case %d step %d: ring state slot %d of row %d = %d, want %d", ci, step, m, row, got, refState[i])
				}
			}
			for i := range want {
				if out[i] != want[i] {
					t.Fatalf("case %d %+v step %d: out[%d] = %d, want %d", ci, tc, step, i, out[i], want[i])
				}
				if want[i] == -128 || want[i] == 127 {
					sat++
				} else {
					inside++
				}
			}
			for i, v := range refState {
				got := int32(st8[i])
				if tc.bits == 16 {
					got = int32(st16[i])
				}
				if got != v {
					t.Fatalf("case %d %+v step %d: state[%d] = %d, want %d", ci, tc, step, i, got, v)
				}
			}
		}
		if tc.bits == 16 && !declined && !(parity[0] && parity[1]) {
			t.Errorf("case %d: the doubled weights were not read at both alignments", ci)
		}
		// The rounding is only tested by outputs inside the int8 range.
		switch {
		case tc.bias > 1<<30 && sat == 0:
			t.Errorf("case %d: no output saturated; the case does not reach the clamp", ci)
		case tc.bias < 1<<30 && tc.s2 < -1 && inside < 2*sat:
			t.Errorf("case %d: %d outputs inside the int8 range, %d saturated: too few to test the rounding", ci, inside, sat)
		}
	}
}

// tPhase4 is gen/lower's svdfPhase4: s four times, copy i at offset
// i*(len(s)+1).
func tPhase4(s string) string {
	return s + "\x00" + s + "\x00" + s + "\x00" + s
}

// tAt returns a copy of s whose address is k mod 4 bytes past that of
// a fresh heap string (word-aligned on the targets the tests run on), so
// that successive k read each of tPhase4's copies as the aligned one;
// it fails the test run if the heap string was not aligned.
func tAt(s string, k int) string {
	k &= 3
	b := make([]byte, k+len(s))
	copy(b[k:], s)
	t := string(b)
	if uintptr(unsafe.Pointer(unsafe.StringData(t)))&3 != 0 {
		panic("tAt: heap string not word-aligned")
	}
	return t[k:]
}
