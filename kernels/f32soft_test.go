package kernels

import (
	"encoding/binary"
	"math"
	"math/rand"
	"testing"
	"unsafe"
)

// f32TAt returns a copy of s whose data's address is off modulo 4.
func f32TAt(s string, off int) string {
	b := make([]uint32, (len(s)+7)/4)
	p := unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), off)
	copy(unsafe.Slice((*byte)(p), len(s)), s)
	return unsafe.String((*byte)(p), len(s))
}

// f32TRand returns random float32 values: zeros, small integers and
// normally distributed values over 2^-10 to 2^10.
func f32TRand(rng *rand.Rand) float32 {
	switch rng.Intn(10) {
	case 0:
		return 0
	case 1:
		return float32(rng.Intn(5) - 2)
	}
	return float32(rng.NormFloat64() * math.Exp2(float64(rng.Intn(21)-10)))
}

// f32TDot returns the sum of x[i]*w[i] by f32sDot (the weights in memory
// at an address off modulo 4, the input unpacked in chunks).
func f32TDot(x, w []float32, off int) float32 {
	wb := make([]byte, 4*len(w))
	for i, v := range w {
		binary.LittleEndian.PutUint32(wb[4*i:], math.Float32bits(v))
	}
	ws := f32TAt(string(wb), off)
	pw := unsafe.Pointer(unsafe.StringData(ws))
	s := f32sSum{0, f32sZeroE}
	var u [f32sChunk]f32sX
	for d := 0; d < len(x); {
		n, read := f32sUnpackN(&u, x[d:], uint32(4*d), 4)
		s = f32sDot(s, u[:n], pw, off == 0)
		d += read
	}
	return f32sSumF32(s)
}

// TestF32sDot sums random products with f32sDot and with float32
// arithmetic, in order: identical bits. A third of the sums are driven
// to cancellation (each product about minus the sum so far).
func TestF32sDot(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 100000; trial++ {
		n := 1 + rng.Intn(40)
		var want float32
		x, w := make([]float32, n), make([]float32, n)
		for i := range x {
			x[i], w[i] = f32TRand(rng), f32TRand(rng)
			if trial%3 == 0 && i > 0 && w[i] != 0 && math.Abs(float64(want)) > 1e-20 {
				x[i] = -want / w[i] * (1 + float32(rng.NormFloat64())/(1<<20))
			}
			want += float32(x[i] * w[i])
		}
		if got := f32TDot(x, w, trial%4); math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("trial %d: %v . %v = %g (%#x), want %g (%#x)", trial, x, w, got, math.Float32bits(got), want, math.Float32bits(want))
		}
	}
}

// TestF32sDotOK checks f32sDotOK at the edges of the exponent range it
// admits: sums of products whose exponents it accepts stay normal (the
// result equals float32 arithmetic's), and it refuses one step beyond.
func TestF32sDotOK(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for _, c := range []struct {
		xlo, xhi, wlo, whi uint32
		n                  int
		ok                 bool
	}{
		{76, 76, 75, 75, 10, true},    // products at 2^-103: sums >= 2^-126
		{76, 76, 74, 74, 10, false},   // one below
		{200, 200, 176, 176, 4, true}, // sum of 4 products below 2^126
		{200, 200, 177, 177, 4, false},
		{0, 0, 255, 0, 5, true}, // no non-zero weight
	} {
		if got := f32sDotOK(c.xlo, c.xhi, c.wlo, c.whi, c.n); got != c.ok {
			t.Errorf("f32sDotOK(%d, %d, %d, %d, %d) = %v, want %v", c.xlo, c.xhi, c.wlo, c.whi, c.n, got, c.ok)
		}
		if !c.ok || c.xlo > c.xhi || c.wlo > c.whi {
			continue
		}
		for trial := 0; trial < 2000; trial++ {
			x, w := make([]float32, c.n), make([]float32, c.n)
			for i := range x {
				e := []uint32{c.xlo, c.xhi}[rng.Intn(2)]
				x[i] = math.Float32frombits(rng.Uint32()&0x807fffff | e<<23)
				e = []uint32{c.wlo, c.whi}[rng.Intn(2)]
				w[i] = math.Float32frombits(rng.Uint32()&0x807fffff | e<<23)
			}
			lo, hi, ok := f32sRange(x)
			wl, wh, wok := f32sRange(w)
			if !ok || !wok || !f32sDotOK(lo, hi, wl, wh, c.n) {
				t.Fatalf("range of %v, %v refused", x, w)
			}
			var want float32
			for i := range x {
				want += float32(x[i] * w[i])
			}
			if got := f32TDot(x, w, trial%4); math.Float32bits(got) != math.Float32bits(want) {
				t.Fatalf("%+v: %v . %v = %g, want %g", c, x, w, got, want)
			}
		}
	}
}

// TestLSTMSoftF runs random float LSTMs through lstmRunSoftF and
// lstmFloatLean: identical outputs and states, with inputs that keep the
// soft path, zeros among the inputs and weights, and inputs and weights
// beyond f32sDotOK's range (plain float32 arithmetic) or not normal.
func TestLSTMSoftF(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for trial := 0; trial < 40; trial++ {
		p := &lstmParams{batch: 1 + trial%2, steps: 1 + trial%5, inDim: 1 + trial*7%37, units: 1 + trial*5%23,
			timeMajor: trial%4 == 3}
		if trial%3 == 0 {
			p.clip, p.cellClipF = true, 0.75
		}
		n, s := p.inDim, p.units
		rnd := func(k int, a float32) []float32 {
			v := make([]float32, k)
			for i := range v {
				v[i] = (rng.Float32()*2 - 1) * a
				switch {
				case trial%5 == 1 && rng.Intn(4) == 0:
					v[i] = 0
				case trial%5 == 2 && rng.Intn(50) == 0:
					v[i] = []float32{1e-39, 1e-30, 3e38, float32(math.Inf(1))}[rng.Intn(4)]
				}
			}
			return v
		}
		var w, r, b [4][]float32
		for g := range w {
			w[g], r[g], b[g] = rnd(s*n, 0.5), rnd(s*s, 0.5), rnd(s, 0.5)
		}
		// The weights word-aligned (read as words) or not (byte by byte).
		wIn, wRec, bias := f32TAt(lstmTInterleave(w, s, n), trial%4), f32TAt(lstmTInterleave(r, s, s), trial/4%4), lstmTInterleave(b, s, 1)
		x, h, c := rnd(p.batch*p.steps*n, 2), rnd(p.batch*s, 1), rnd(p.batch*s, 1)
		h2, c2 := append([]float32(nil), h...), append([]float32(nil), c...)
		out, out2 := make([]float32, p.batch*p.steps*s), make([]float32, p.batch*p.steps*s)
		lstmFloatLean(p, x, h, c, out, wIn, wRec, bias)
		lstmRunSoftF(p, x, h2, c2, out2, wIn, wRec, bias)
		for _, cmp := range []struct {
			what      string
			got, want []float32
		}{{"output", out2, out}, {"hidden", h2, h}, {"cell", c2, c}} {
			for i := range cmp.want {
				if math.Float32bits(cmp.got[i]) != math.Float32bits(cmp.want[i]) {
					t.Fatalf("trial %d (%+v): %s[%d] = %g, want %g", trial, *p, cmp.what, i, cmp.got[i], cmp.want[i])
				}
			}
		}
	}
}

// TestF32sScalar checks f32sAdd, f32sMul, f32sDiv and f32sLt against
// float32 arithmetic on random operands of every class and exponent
// (including results that over- or underflow, which take the compiler's
// operation): identical bits, any NaN for NaN.
func TestF32sScalar(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	val := func() float32 {
		switch rng.Intn(20) {
		case 0:
			return math.Float32frombits(rng.Uint32()) // any pattern
		case 1:
			return []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), 1, -1, 1e-40}[rng.Intn(7)]
		}
		return float32(rng.NormFloat64() * math.Exp2(float64(rng.Intn(60)-30)))
	}
	same := func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) || a != a && b != b }
	for i := 0; i < 3000000; i++ {
		x, y := val(), val()
		if i%4 == 0 {
			y = -x * (1 + float32(rng.NormFloat64())/(1<<22)) // cancellation
		}
		if g, w := f32sAdd(x, y), x+y; !same(g, w) {
			t.Fatalf("%g + %g = %g (%#x), want %g (%#x)", x, y, g, math.Float32bits(g), w, math.Float32bits(w))
		}
		if g, w := f32sMul(x, y), x*y; !same(g, w) {
			t.Fatalf("%g * %g = %g (%#x), want %g (%#x)", x, y, g, math.Float32bits(g), w, math.Float32bits(w))
		}
		if g, w := f32sDiv(x, y), x/y; !same(g, w) {
			t.Fatalf("%g / %g = %g (%#x), want %g (%#x)", x, y, g, math.Float32bits(g), w, math.Float32bits(w))
		}
		if g, w := f32sLt(x, y), x < y; g != w {
			t.Fatalf("%g < %g = %v, want %v", x, y, g, w)
		}
	}
}

// TestFullyConnectedF32Soft runs fcF32Soft and fcF32B (plain float32) on
// random layers with the weights at every address modulo 4: identical
// bits; and checks fcF32Soft declines inputs beyond f32sDotOK's range.
func TestFullyConnectedF32Soft(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	for trial := 0; trial < 200; trial++ {
		k, n, nbat := 1+rng.Intn(40), 1+rng.Intn(11), 1+rng.Intn(3)
		nb := (n + 3) / 4
		wv := make([]float32, 4*k*nb)
		for i := range wv {
			if i%4 < n-4*(i/(4*k)) {
				wv[i] = f32TRand(rng)
			}
		}
		wb := make([]byte, 4*len(wv))
		for i, v := range wv {
			binary.LittleEndian.PutUint32(wb[4*i:], math.Float32bits(v))
		}
		w := f32TAt(string(wb), trial%4)
		bias := ""
		if trial%2 == 0 {
			bb := make([]byte, 4*n)
			for i := 0; i < n; i++ {
				binary.LittleEndian.PutUint32(bb[4*i:], math.Float32bits(f32TRand(rng)))
			}
			bias = string(bb)
		}
		in := make([]float32, k*nbat)
		for i := range in {
			in[i] = f32TRand(rng)
		}
		p := &fcParams{batches: nbat, outDepth: n, accumDepth: k, fActMin: -3, fActMax: 1e30}
		got, want := make([]float32, n*nbat), make([]float32, n*nbat)
		if !fcF32Soft(p, in, w, bias, got) {
			t.Fatalf("trial %d: fcF32Soft declined", trial)
		}
		fcF32B(p, in, w, bias, want)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("trial %d (k %d, n %d): out[%d] = %g, want %g", trial, k, n, i, got[i], want[i])
			}
		}
		in[rng.Intn(len(in))] = 1e-41 // subnormal: plain float32 arithmetic
		if fcF32Soft(p, in, w, bias, got) {
			t.Fatalf("trial %d: fcF32Soft took a subnormal input", trial)
		}
	}
}
