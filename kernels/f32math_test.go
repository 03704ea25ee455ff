package kernels

import (
	"math"
	"math/big"
	"testing"
)

// f32TUlps is the distance in ulps between two float32 values of the same
// sign (MaxInt64 for different signs, 0 for two NaNs).
func f32TUlps(a, b float32) int64 {
	if a != a || b != b {
		if a != a && b != b {
			return 0
		}
		return math.MaxInt64
	}
	if a == b {
		return 0
	}
	if (a < 0) != (b < 0) {
		return math.MaxInt64
	}
	d := int64(math.Float32bits(a)&0x7fffffff) - int64(math.Float32bits(b)&0x7fffffff)
	return max(d, -d)
}

// TestF32Elementary checks the integer elementary functions against Go's
// float64 math package rounded to float32 (correctly rounded but within
// 2^-52 of a boundary) over every 509th to 16381st float32 of their ranges:
// never more than an ulp off, and correctly rounded for all but a few
// (the square root always).
func TestF32Elementary(t *testing.T) {
	all := [][2]uint32{{0, 0x7f800000}, {0x80000000, 0xff800000}}
	for _, c := range []struct {
		name     string
		f        func(float32) float32
		ref      func(float64) float64
		ranges   [][2]uint32
		step     uint32
		maxOff   int // values one ulp off allowed per million
		exactAll bool
	}{
		{"exp", f32Exp, math.Exp, [][2]uint32{{0x30000000, 0x42d80000}, {0xb0000000, 0xc2d80000}}, 509, 20, false},
		{"expm1", f32Expm1, math.Expm1, all, 4093, 20, false},
		{"tanh", f32Tanh, math.Tanh, [][2]uint32{{0x30000000, 0x42000000}, {0xb0000000, 0xc2000000}}, 509, 20, false},
		{"log", f32Log, math.Log, [][2]uint32{{0, 0x7f800000}}, 797, 20, false},
		{"sin", f32Sin, math.Sin, all, 4093, 20, false},
		{"cos", f32Cos, math.Cos, all, 4093, 20, false},
		{"sqrt", f32Sqrt, math.Sqrt, [][2]uint32{{0, 0x7f800000}}, 16381, 0, true},
	} {
		n, off := 0, 0
		for _, r := range c.ranges {
			for b := r[0]; b < r[1]; b += c.step {
				x := math.Float32frombits(b)
				got, want := c.f(x), float32(c.ref(float64(x)))
				n++
				switch d := f32TUlps(got, want); {
				case d == 1 && !c.exactAll:
					off++
				case d != 0:
					t.Fatalf("%s(%g) = %g (%#x), want %g (%#x)", c.name, x, got, math.Float32bits(got), want, math.Float32bits(want))
				}
			}
		}
		if off*1000000 > c.maxOff*n {
			t.Errorf("%s: %d of %d values one ulp off", c.name, off, n)
		}
		t.Logf("%s: %d values, %d one ulp off", c.name, n, off)
	}
}

// TestF32ElementarySpecial checks the IEEE special values and the edges of
// each function's ranges exactly (any NaN for NaN).
func TestF32ElementarySpecial(t *testing.T) {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	negZero := math.Float32frombits(1 << 31)
	for _, c := range []struct {
		name string
		f    func(float32) float32
		ref  func(float64) float64
	}{
		{"exp", f32Exp, math.Exp}, {"expm1", f32Expm1, math.Expm1}, {"tanh", f32Tanh, math.Tanh},
		{"log", f32Log, math.Log}, {"sin", f32Sin, math.Sin}, {"cos", f32Cos, math.Cos}, {"sqrt", f32Sqrt, math.Sqrt},
	} {
		for _, x := range []float32{0, negZero, inf, -inf, nan, 1, -1, 1e-45, -1e-45, 1.1754942e-38, 3.4028235e38, -3.4028235e38,
			88.72283, 88.722839, 89, -87.33654, -103.97, -104, -17.5, 9.01, 10, 0.0625, 1.0 / 4096, 3.1415927, 16367173 * (1 << 72)} {
			got, want := c.f(x), float32(c.ref(float64(x)))
			if f32TUlps(got, want) > 1 || (got == 0 && want == 0 && math.Float32bits(got) != math.Float32bits(want)) {
				t.Errorf("%s(%g) = %g (%#x), want %g (%#x)", c.name, x, got, math.Float32bits(got), want, math.Float32bits(want))
			}
		}
	}
}

// TestF32Rounding checks f32Floor, f32Ceil (bits, NaN quieted), f32RoundI32
// (C's roundf saturated to int32) and f32Mod (fmodf, exact) against the
// math package.
func TestF32Rounding(t *testing.T) {
	for b := uint32(0); b < 0xffffff00; b += 4001 {
		x := math.Float32frombits(b)
		q := float64(x)
		for _, c := range []struct {
			name      string
			got, want float32
		}{{"floor", f32Floor(x), float32(math.Floor(q))}, {"ceil", f32Ceil(x), float32(math.Ceil(q))}} {
			if math.Float32bits(c.got) != math.Float32bits(c.want) && !(c.got != c.got && c.want != c.want) {
				t.Fatalf("%s(%g) = %g, want %g", c.name, x, c.got, c.want)
			}
		}
		var w int32
		switch {
		case q != q:
		case q >= 1<<31:
			w = math.MaxInt32
		case q <= -(1 << 31):
			w = math.MinInt32
		default:
			w = int32(math.Round(q))
		}
		if g := f32RoundI32(x); g != w {
			t.Fatalf("round(%g) = %d, want %d", x, g, w)
		}
	}
	for _, x := range []float32{0.5, -0.5, 1.5, -2.5, 8388607.5, 2147483520, -2147483648, 0.49999997} {
		if g, w := f32RoundI32(x), int32(math.Round(float64(x))); g != w {
			t.Errorf("round(%g) = %d, want %d", x, g, w)
		}
	}
	for i := uint32(0); i < 500000; i++ {
		bx, by := i*2654435761, i*40503+(i>>3)*2246822519
		x, y := math.Float32frombits(bx), math.Float32frombits(by)
		g, w := f32Mod(x, y), float32(math.Mod(float64(x), float64(y)))
		if math.Float32bits(g) != math.Float32bits(w) && !(g != g && w != w) {
			t.Fatalf("mod(%g, %g) = %g, want %g", x, y, g, w)
		}
	}
}

// TestF32Tables recomputes the constants of f32math.go with math/big.
func TestF32Tables(t *testing.T) {
	const prec = 300
	bf := func(x int64) *big.Float { return new(big.Float).SetPrec(prec).SetInt64(x) }
	// ln x = 2*atanh((x-1)/(x+1)); exp by its Taylor series.
	ln := func(x *big.Float) *big.Float {
		z := new(big.Float).SetPrec(prec).Quo(new(big.Float).Sub(x, bf(1)), new(big.Float).Add(x, bf(1)))
		z2 := new(big.Float).SetPrec(prec).Mul(z, z)
		s, p := bf(0), new(big.Float).SetPrec(prec).Set(z)
		for k := int64(1); k < 1000; k += 2 {
			s.Add(s, new(big.Float).SetPrec(prec).Quo(p, bf(k)))
			p.Mul(p, z2)
		}
		return s.Mul(s, bf(2))
	}
	exp := func(x *big.Float) *big.Float {
		s, term := bf(1), bf(1)
		for n := int64(1); n < 100; n++ {
			term.Mul(term, x)
			term.Quo(term, bf(n))
			s.Add(s, term)
		}
		return s
	}
	fix := func(x *big.Float, q int) int64 { // round(x*2^q)
		y := new(big.Float).SetPrec(prec).SetMantExp(x, q)
		if y.Sign() < 0 {
			y.Sub(y, new(big.Float).SetFloat64(0.5))
		} else {
			y.Add(y, new(big.Float).SetFloat64(0.5))
		}
		i, _ := y.Int(nil)
		return int64(i.Uint64())
	}
	ln2 := ln(bf(2))
	for _, c := range []struct {
		name      string
		got, want int64
	}{
		{"expC56", expC56, fix(new(big.Float).Quo(ln2, bf(32)), 56)},
		{"ln2Q62", ln2Q62, fix(ln2, 62)},
		{"ln2Q56", ln2Q56, fix(ln2, 56)},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	kq, _ := new(big.Float).SetMantExp(new(big.Float).SetPrec(prec).Quo(bf(32), ln2), 25).Int(nil)
	if kq.Int64() != expKQ {
		t.Errorf("expKQ = %d, want %d (32/ln2 in Q25, rounded down)", expKQ, kq.Int64())
	}
	for j := 0; j < 32; j++ {
		x := new(big.Float).SetPrec(prec).Mul(ln2, new(big.Float).SetFloat64(float64(j)/32))
		if got, want := int64(f32Tab64(f32Exp2Tab, j)), fix(exp(x), 62); got != want {
			t.Errorf("f32Exp2Tab[%d] = %#x, want %#x", j, got, want)
		}
		c := int64(256)
		if j > 0 {
			c = int64(256/(1+(float64(j)+0.5)/32) + 0.5)
		}
		if got := int64(f32LogInv[j]) + 128; got != c {
			t.Errorf("f32LogInv[%d] = %d, want %d", j, got, c)
		}
		if got, want := int64(f32Tab64(f32LogC, j)), fix(ln(new(big.Float).SetPrec(prec).Quo(bf(256), bf(c))), 62); got != want {
			t.Errorf("f32LogC[%d] = %#x, want %#x", j, got, want)
		}
	}
	// 2/pi: 256 bits.
	pi := new(big.Float).SetPrec(prec)
	{ // Machin: pi = 16 atan(1/5) - 4 atan(1/239)
		atan := func(inv int64) *big.Float {
			x := new(big.Float).SetPrec(prec).Quo(bf(1), bf(inv))
			x2 := new(big.Float).SetPrec(prec).Mul(x, x)
			s, p := bf(0), new(big.Float).SetPrec(prec).Set(x)
			for k := int64(1); k < 800; k += 2 {
				tm := new(big.Float).SetPrec(prec).Quo(p, bf(k))
				if k%4 == 1 {
					s.Add(s, tm)
				} else {
					s.Sub(s, tm)
				}
				p.Mul(p, x2)
			}
			return s
		}
		a, b := atan(5), atan(239)
		pi.Sub(a.Mul(a, bf(16)), b.Mul(b, bf(4)))
	}
	tp, _ := new(big.Float).SetMantExp(new(big.Float).SetPrec(prec).Quo(bf(2), pi), 256).Int(nil)
	var want [32]byte
	tp.FillBytes(want[:])
	if string(want[:]) != f32TwoOverPi {
		t.Errorf("f32TwoOverPi = %x, want %x", f32TwoOverPi, want)
	}
	if got, w := int64(piOver2Q62), fix(new(big.Float).Quo(pi, bf(2)), 62); got != w {
		t.Errorf("piOver2Q62 = %d, want %d", got, w)
	}
}

// TestF32Bounds measures the relative error of the integer evaluations
// before their rounding to float32 (expFix, tanhSmall, tanhMid) against
// the float64 math package over dense sweeps: exp within 2^-39.5, tanh
// within 2^-40 and 2^-37. These bounds make the float32 results one ulp
// off the correctly rounded ones as rarely as TestF32Elementary finds.
func TestF32Bounds(t *testing.T) {
	for _, c := range []struct {
		name   string
		lo, hi uint32
		neg    bool
		fix    func(uint32) (uint64, int32)
		ref    func(float64) float64
		bound  float64
	}{
		{"expFix", 0x33000000, 0x42d00000, true, expFix, math.Exp, 1.0 / (1 << 39) / math.Sqrt2},
		{"tanhSmall", 0x39800000, 0x3d800000, false, tanhSmall, math.Tanh, 1.0 / (1 << 40)},
		{"tanhMid", 0x3d800000, 0x41200000, false, tanhMid, math.Tanh, 1.0 / (1 << 37)},
	} {
		worst := 0.0
		for b := c.lo; b < c.hi; b += 127 {
			for _, bb := range []uint32{b, b | 1<<31} {
				if bb != b && !c.neg {
					continue
				}
				M, q := c.fix(bb)
				got := float64(M) * math.Exp2(float64(q-62))
				want := c.ref(float64(math.Float32frombits(bb)))
				worst = max(worst, math.Abs(got-want)/want)
			}
		}
		if worst > c.bound {
			t.Errorf("%s: relative error up to %g (2^%.2f), want at most 2^%.2f", c.name, worst, math.Log2(worst), math.Log2(c.bound))
		}
		t.Logf("%s: relative error up to 2^%.2f", c.name, math.Log2(worst))
	}
}
