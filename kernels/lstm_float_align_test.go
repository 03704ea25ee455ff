package kernels

import (
	"math"
	"testing"
)

// TestLSTMDotFStrAlign checks the float LSTM's string dot products at every
// address modulo 4 (aligned view, funnel or byte decode) against the
// decoded-float versions: identical bits.
func TestLSTMDotFStrAlign(t *testing.T) {
	rng := uint32(12345)
	next := func() float32 {
		rng ^= rng << 13
		rng ^= rng >> 17
		rng ^= rng << 5
		return float32(int32(rng>>8)-1<<23) / (1 << 22)
	}
	for _, n := range []int{1, 2, 3, 7, 20, 28} {
		x := make([]float32, n)
		for i := range x {
			x[i] = next()
		}
		w := make([]float32, 8*n)
		for i := range w {
			w[i] = next()
		}
		ws := lstmTF32Str(w)
		a0, a1, a2, a3, b0, b1, b2, b3 := lstmDotF8(x, w)
		want8 := [8]float32{a0, a1, a2, a3, b0, b1, b2, b3}
		c0, c1, c2, c3 := f32Dot4(x, w[:4*n])
		want4 := [4]float32{c0, c1, c2, c3}
		for off := 0; off < 8; off++ {
			// A fresh buffer with off bytes in front (and a few behind,
			// which must not matter).
			buf := make([]byte, off+len(ws)+5)
			for i := range buf {
				buf[i] = 0xa5
			}
			copy(buf[off:], ws)
			s := string(buf)[off : off+len(ws)]
			a0, a1, a2, a3, b0, b1, b2, b3 := lstmDotF8S(x, s)
			got8 := [8]float32{a0, a1, a2, a3, b0, b1, b2, b3}
			c0, c1, c2, c3 := f32DotStr4(x, s[:16*n])
			got4 := [4]float32{c0, c1, c2, c3}
			for k := range got8 {
				if math.Float32bits(got8[k]) != math.Float32bits(want8[k]) {
					t.Fatalf("n=%d off=%d (addr mod 4 %d): lstmDotF8S[%d] = %g, want %g", n, off, f32StrOff(s), k, got8[k], want8[k])
				}
			}
			for k := range got4 {
				if math.Float32bits(got4[k]) != math.Float32bits(want4[k]) {
					t.Fatalf("n=%d off=%d (addr mod 4 %d): f32DotStr4[%d] = %g, want %g", n, off, f32StrOff(s), k, got4[k], want4[k])
				}
			}
		}
	}
}

// TestFullyConnectedF32Align runs fcF32 (aligned view, or by target a
// misaligned view, word loads (f32WordRow: gc for ARMv6+ on Linux, two
// blocks a pass, then one), the funnel with the carry running over
// blocks, or byte decode), fcF32Small (a channel at a time, decoded
// weights) and fcF32B (byte decode) with their weight and bias strings at
// every address modulo 4, with and without a bias, and compares each
// output bit for bit with an in-order float32 reference.
func TestFullyConnectedF32Align(t *testing.T) {
	rng := uint32(999)
	next := func() float32 {
		rng ^= rng << 13
		rng ^= rng >> 17
		rng ^= rng << 5
		return float32(int32(rng>>8)-1<<23) / (1 << 22)
	}
	at := func(s string, off int) string {
		buf := make([]byte, off+len(s)+5)
		for i := range buf {
			buf[i] = 0x5a
		}
		copy(buf[off:], s)
		return string(buf)[off : off+len(s)]
	}
	for _, sh := range [][3]int{{1, 1, 1}, {1, 16, 1}, {1, 1, 16}, {1, 16, 16}, {2, 3, 5}, {1, 560, 10}, {3, 7, 9}, {1, 2, 4},
		{2, 5, 12}, {1, 6, 11}, {2, 11, 14}, {1, 9, 8}, {3, 4, 13}} {
		batches, k, n := sh[0], sh[1], sh[2]
		x := make([]float32, batches*k)
		for i := range x {
			x[i] = next()
		}
		w := make([]float32, n*k)
		for i := range w {
			w[i] = next()
		}
		bias := make([]float32, n)
		for i := range bias {
			bias[i] = next()
		}
		for _, withBias := range []bool{true, false} {
			want := make([]float32, batches*n)
			for b := 0; b < batches; b++ {
				for c := 0; c < n; c++ {
					var a float32
					for i := 0; i < k; i++ {
						a += float32(x[b*k+i] * w[c*k+i])
					}
					if withBias {
						a += bias[c]
					}
					want[b*n+c] = clampF32(a, -1, 1.5)
				}
			}
			ws, bs := fcTPackF32(w, n, k), fcTStrF32(bias)
			p := &fcParams{batches: batches, outDepth: n, accumDepth: k, fActMin: -1, fActMax: 1.5}
			for _, kern := range []struct {
				name string
				fn   func(*fcParams, []float32, string, string, []float32)
			}{{"fcF32", fcF32}, {"fcF32Small", fcF32Small}, {"fcF32B", fcF32B}} {
				for off := 0; off < 8; off++ {
					// Guards after the outputs: nothing may be written there.
					buf := make([]float32, batches*n+8)
					for i := range buf {
						buf[i] = 77
					}
					out := buf[:batches*n]
					b := ""
					if withBias {
						b = at(bs, 7-off)
					}
					kern.fn(p, x, at(ws, off), b, out)
					for i, v := range buf[len(out):] {
						if v != 77 {
							t.Fatalf("%s batches=%d k=%d n=%d bias %v off=%d: wrote %g %d past the outputs", kern.name, batches, k, n, withBias, off, v, i)
						}
					}
					for i := range out {
						if math.Float32bits(out[i]) != math.Float32bits(want[i]) {
							t.Fatalf("%s batches=%d k=%d n=%d bias %v off=%d (addr mod 4 %d): out[%d] = %g, want %g", kern.name, batches, k, n, withBias, off, f32StrOff(at(ws, off)), i, out[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestLSTMFloatLeanAlign runs lstmFloatLean with its weight and bias
// strings at every address modulo 4 (funnel with two steps per pass, view,
// odd unit counts, more pairs than lstmNextMax holds) and compares outputs
// and states bit for bit with lstmFloat (decoded weights).
func TestLSTMFloatLeanAlign(t *testing.T) {
	rng := uint32(4242)
	next := func() float32 {
		rng ^= rng << 13
		rng ^= rng >> 17
		rng ^= rng << 5
		return float32(int32(rng>>8)-1<<23) / (1 << 23)
	}
	at := func(s string, off int) string {
		buf := make([]byte, off+len(s)+5)
		for i := range buf {
			buf[i] = 0x3c
		}
		copy(buf[off:], s)
		return string(buf)[off : off+len(s)]
	}
	for _, sh := range [][4]int{{1, 3, 2, 2}, {1, 5, 2, 3}, {2, 4, 3, 5}, {1, 7, 28, 20}, {1, 2, 5, 23}, {3, 3, 1, 2}, {1, 4, 2, 25}} {
		p := &lstmParams{batch: sh[0], steps: sh[1], inDim: sh[2], units: sh[3], clip: true, cellClipF: 1.5, timeMajor: sh[0] == 2}
		n, s := p.inDim, p.units
		var w, r, b [4][]float32
		for g := range w {
			w[g], r[g], b[g] = make([]float32, s*n), make([]float32, s*s), make([]float32, s)
			for _, v := range [][]float32{w[g], r[g], b[g]} {
				for i := range v {
					v[i] = 2 * next()
				}
			}
		}
		wIn, wRec, bias := lstmTInterleave(w, s, n), lstmTInterleave(r, s, s), lstmTInterleave(b, s, 1)
		x := make([]float32, p.batch*p.steps*n)
		h0, c0 := make([]float32, p.batch*s), make([]float32, p.batch*s)
		for _, v := range [][]float32{x, h0, c0} {
			for i := range v {
				v[i] = 3 * next()
			}
		}
		run := func(lean bool, oi, or, ob int) [3][]float32 {
			h, c := append([]float32(nil), h0...), append([]float32(nil), c0...)
			out := make([]float32, p.batch*p.steps*s)
			if lean {
				lstmFloatLean(p, x, h, c, out, at(wIn, oi), at(wRec, or), at(bias, ob))
			} else {
				lstmFloat(p, x, h, c, out, make([]float32, 4*(n+s)*s), wIn, wRec, bias)
			}
			return [3][]float32{out, h, c}
		}
		want := run(false, 0, 0, 0)
		for oi := 0; oi < 4; oi++ {
			for or := 0; or < 4; or++ {
				got := run(true, oi, or, (oi+or)%4)
				for k := range want {
					for i := range want[k] {
						if math.Float32bits(got[k][i]) != math.Float32bits(want[k][i]) {
							t.Fatalf("%v offsets %d/%d: result %d[%d] = %g, want %g", sh, oi, or, k, i, got[k][i], want[k][i])
						}
					}
				}
			}
		}
	}
}
