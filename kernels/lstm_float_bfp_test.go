package kernels

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// bfpTAt returns a copy of s as a string whose data starts off bytes past
// a word boundary (Go's allocations are word-aligned).
func bfpTAt(s []byte, off int) string {
	buf := make([]byte, off+len(s)+3)
	copy(buf[off:], s)
	return string(buf)[off : off+len(s)]
}

// bfpTClose reports whether got is within 1e-5 relative or 1e-6 absolute
// of want; NaN matches NaN, infinities and +-MaxFloat32 must be equal.
func bfpTClose(got, want float32) bool {
	g, w := float64(got), float64(want)
	switch {
	case math.IsNaN(w) || math.IsNaN(g):
		return math.IsNaN(w) && math.IsNaN(g)
	case math.IsInf(w, 0) || math.Abs(w) == math.MaxFloat32:
		return got == want
	}
	d := math.Abs(g - w)
	return d <= 1e-5*math.Abs(w) || d <= 1e-6
}

// TestLSTMFloatBFPMatchesFloat runs random float LSTMs (batch-major and
// time-major, odd and even units, cell clip on and off, every alignment of
// the weight strings) with lstmFloatBFP and with lstmFloatLean (float32
// arithmetic in TFLM's order): outputs, hidden and cell states within the
// float tolerance. Some cases hold an infinity or a NaN in one input row
// (lstmRowBFPSlow from there on), with weights that block floating point
// holds exactly.
func TestLSTMFloatBFPMatchesFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	shapes := [][4]int{{1, 3, 2, 2}, {1, 5, 2, 3}, {2, 4, 3, 5}, {1, 28, 28, 20}, {1, 2, 5, 23}, {3, 3, 1, 2}, {1, 4, 40, 1}, {2, 6, 64, 33}}
	var compared, specials int
	for ci := range 60 {
		sh := shapes[ci%len(shapes)]
		special := ci%5 == 4
		p := &lstmParams{batch: sh[0], steps: sh[1], inDim: sh[2], units: sh[3], timeMajor: ci%3 == 1}
		if ci%2 == 0 {
			p.clip, p.cellClipF = true, 1.5
		}
		n, s := p.inDim, p.units
		val := func(scale float64) float32 {
			if special {
				return float32(r.IntN(2049)-1024) / 512 // exact in 29 bits of a row
			}
			return float32(r.NormFloat64() * scale)
		}
		var w, rw, b [4][]float32
		var wb, rb, bb [4][]byte
		for g := range w {
			w[g], rw[g], b[g] = make([]float32, s*n), make([]float32, s*s), make([]float32, s)
			for _, v := range [][]float32{w[g], rw[g], b[g]} {
				for i := range v {
					v[i] = val(0.5)
				}
			}
			wb[g], rb[g], bb[g] = []byte(lstmTF32Str(w[g])), []byte(lstmTF32Str(rw[g])), []byte(lstmTF32Str(b[g]))
		}
		wIn, wRec, rec, ok := PlanLSTMFloatBFP(wb, rb, bb, s, n)
		if !ok {
			t.Fatalf("case %d: finite weights refused", ci)
		}
		x := make([]float32, p.batch*p.steps*n)
		h0, c0 := make([]float32, p.batch*s), make([]float32, p.batch*s)
		for _, v := range [][]float32{x, h0, c0} {
			for i := range v {
				v[i] = val(1)
			}
		}
		if special {
			x[r.IntN(len(x))] = []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}[ci%3]
			specials++
		}
		// The reference: lstmFloatLean.
		ref := [3][]float32{make([]float32, p.batch*p.steps*s), append([]float32(nil), h0...), append([]float32(nil), c0...)}
		lstmFloatLean(p, x, ref[1], ref[2], ref[0], lstmTInterleave(w, s, n), lstmTInterleave(rw, s, s), lstmTInterleave(b, s, 1))
		off := ci % 4
		got := [3][]float32{make([]float32, p.batch*p.steps*s), append([]float32(nil), h0...), append([]float32(nil), c0...)}
		xs := make([]int32, 8+n)
		lstmFloatBFP(p, x, got[1], got[2], got[0], xs, bfpTAt(wIn, off), bfpTAt(wRec, (off+1)%4), bfpTAt(rec, (off+2)%4))
		for k, what := range []string{"output", "hidden state", "cell state"} {
			for i := range ref[k] {
				if !bfpTClose(got[k][i], ref[k][i]) {
					t.Fatalf("case %d %v (special %v): %s[%d] = %g, lstmFloatLean %g", ci, sh, special, what, i, got[k][i], ref[k][i])
				}
				compared++
			}
		}
	}
	t.Logf("%d values within the float tolerance of lstmFloatLean's, %d cases with an infinity or NaN", compared, specials)
}

// TestFCF32BFPMatchesFloat runs random float FULLY_CONNECTED layers with
// fcF32BFP: each output within 2^-20 of the sum of |x*w| and |bias| of
// the exact value (float64 sums here; fcF32's float32 sums in order are
// off by more than 1e-5 relative where the products cancel), clamps
// included; rows holding an infinity or NaN give what fcF32 gives
// (weights exact in block floating point there).
func TestFCF32BFPMatchesFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	var compared int
	for ci := range 200 {
		batches, k, n := 1+r.IntN(3), 1+r.IntN(300), 1+r.IntN(13)
		special := ci%7 == 6
		val := func() float32 {
			if special {
				return float32(r.IntN(2049)-1024) / 512
			}
			return float32(r.NormFloat64())
		}
		w := make([]float32, n*k)
		for i := range w {
			w[i] = val()
		}
		var bias []byte
		if ci%2 == 0 {
			bv := make([]float32, n)
			for i := range bv {
				bv[i] = val()
			}
			bias = []byte(lstmTF32Str(bv))
		}
		in := make([]float32, batches*k)
		for i := range in {
			in[i] = val()
		}
		if special {
			in[r.IntN(len(in))] = []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}[ci%3]
		}
		p := &fcParams{batches: batches, outDepth: n, accumDepth: k, fActMin: -math.MaxFloat32, fActMax: math.MaxFloat32}
		if ci%3 == 1 {
			p.fActMin, p.fActMax = 0, 6
		}
		// fcF32's packing: blocks of four rows, [blocks][k][4].
		packed := make([]float32, 0, (n+3)/4*4*k)
		for c := 0; c < n; c += 4 {
			for i := range k {
				for j := c; j < c+4; j++ {
					if j < n {
						packed = append(packed, w[j*k+i])
					} else {
						packed = append(packed, 0)
					}
				}
			}
		}
		want := make([]float32, batches*n)
		fcF32(p, in, lstmTF32Str(packed), string(bias), want)
		wt, rec, ok := PlanFCF32BFP([]byte(lstmTF32Str(w)), bias, n, k)
		if !ok {
			t.Fatalf("case %d: refused", ci)
		}
		got := make([]float32, batches*n)
		fcF32BFP(p, in, make([]int32, 8+k), bfpTAt(wt, ci%4), bfpTAt(rec, (ci+1)%4), got)
		for b := range batches {
			for j := range n {
				i := b*n + j
				if special {
					if !bfpTClose(got[i], want[i]) {
						t.Fatalf("case %d (%dx%d -> %d, special): output %d = %g, fcF32 %g", ci, batches, k, n, i, got[i], want[i])
					}
					continue
				}
				var exact, scale float64
				for d := range k {
					v := float64(in[b*k+d]) * float64(w[j*k+d])
					exact, scale = exact+v, scale+math.Abs(v)
				}
				if len(bias) != 0 {
					bv := float64(math.Float32frombits(binary.LittleEndian.Uint32(bias[4*j:])))
					exact, scale = exact+bv, scale+math.Abs(bv)
				}
				exact = min(max(exact, float64(p.fActMin)), float64(p.fActMax))
				if d := math.Abs(float64(got[i]) - exact); d > math.Ldexp(scale, -20) {
					t.Fatalf("case %d (%dx%d -> %d): output %d = %g, exact %g (fcF32 %g)", ci, batches, k, n, i, got[i], exact, want[i])
				}
				compared++
			}
		}
	}
	t.Logf("%d outputs within 2^-20 of their scale of the exact value", compared)
}
