package kernels

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// TestBFPF32Rounds checks bfpF32 against math/big's rounding of s * 2^e
// to float32 (nearest even, subnormals, overflow to infinity) for random
// and edge significands over the whole exponent range.
func TestBFPF32Rounds(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	sigs := []int64{1, -1, 3, 1<<24 - 1, 1 << 24, 1<<24 + 1, 1<<25 + 3, -(1<<25 + 1), 1<<62 - 1, -(1<<62 - 1), 0x7fffff8000000000 >> 1}
	for range 4000 {
		s := int64(r.Uint64()) >> r.IntN(63)
		if r.IntN(3) == 0 {
			// ties: 24 significant bits and a half below
			s = (int64(1<<23+r.IntN(1<<23))<<1 | 1) << r.IntN(30)
		}
		sigs = append(sigs, s)
	}
	n := 0
	for _, s := range sigs {
		for _, e := range []int32{-260, -200, -160, -150, -149, -140, -126, -90, -40, 0, 40, 64, 100, 127, 128} {
			e += int32(r.IntN(9)) - 4
			got := bfpF32(bfpTerm{s, e})
			f := new(big.Float).SetPrec(200).SetInt64(s)
			f.SetMantExp(f, int(e))
			want, _ := f.Float32()
			if math.Float32bits(got) != math.Float32bits(want) {
				t.Fatalf("bfpF32(%d * 2^%d) = %g (%#x), want %g (%#x)", s, e, got, math.Float32bits(got), want, math.Float32bits(want))
			}
			n++
		}
	}
	t.Logf("%d values rounded as math/big rounds them", n)
}

// TestBFPVec checks the shared-exponent significands: each within half a
// last place of the element (ties away from zero), the largest below
// 2^bx+1, subnormals and zeros included, and nothing written when an
// element is infinite or NaN.
func TestBFPVec(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for c := range 3000 {
		n := 1 + r.IntN(40)
		x := make([]float32, n)
		for i := range x {
			switch r.IntN(6) {
			case 0:
				x[i] = 0
			case 1:
				x[i] = math.Float32frombits(r.Uint32() & 0x807fffff) // subnormal
			default:
				x[i] = float32(r.NormFloat64() * math.Pow(2, float64(r.IntN(60)-30)))
			}
		}
		bx := uint32(20 + r.IntN(11))
		dst := make([]int32, n)
		ex, ok := bfpVec(dst, x, bx)
		if !ok {
			t.Fatalf("case %d: finite vector refused", c)
		}
		unit := math.Ldexp(1, int(ex))
		for i, v := range x {
			got := float64(dst[i]) * unit
			if d := math.Abs(got - float64(v)); d > unit/2 {
				t.Fatalf("case %d bx %d: element %d %g became %g (unit %g)", c, bx, i, v, got, unit)
			}
			if math.Abs(float64(dst[i])) > math.Ldexp(1, int(bx)) {
				t.Fatalf("case %d bx %d: element %d has %d, above 2^bx", c, bx, i, dst[i])
			}
		}
		// In place, as lstmFloatBFP converts the state.
		y := append([]float32(nil), x...)
		ys := unsafe.Slice((*int32)(unsafe.Pointer(&y[0])), n)
		if ey, _ := bfpVec(ys, y, bx); ey != ex || !slices.Equal(ys, dst) {
			t.Fatalf("case %d: in place gives other significands", c)
		}
		for _, bad := range []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())} {
			z := append([]float32(nil), x...)
			z[r.IntN(n)] = bad
			zs := make([]int32, n)
			for i := range zs {
				zs[i] = 12345
			}
			if _, ok := bfpVec(zs, z, bx); ok || zs[0] != 12345 {
				t.Fatalf("case %d: %g accepted or dst written", c, bad)
			}
		}
	}
}

// bfpTDot returns the dot product of x and w by block floating point (the
// weights as PlanFCF32BFP lays them out for one channel) rounded once.
func bfpTDot(x, w []float32) float32 {
	n := len(x)
	wt, rec, ok := PlanFCF32BFP([]byte(lstmTF32Str(w)), nil, 1, n)
	if !ok {
		panic("PlanFCF32BFP")
	}
	xs := make([]int32, 8+n)
	bx, _ := bfpBits(n)
	ex, _ := bfpVec(xs[8:], x, bx)
	a := bfpAcc(xs)
	bfpDot4(a, xs[8:], unsafe.Pointer(&wt[0]))
	ew := int32(binary.LittleEndian.Uint32(rec))
	return bfpF32(bfpAdd3(bfpTerm{a[0], ex + ew}, bfpTerm{0, bfpZeroE}, bfpTerm{0, bfpZeroE}))
}

// TestBFPDotAccuracy measures block floating point dot products against
// the exact value: within the bound the kernels document (2^-bx of
// max|x| times sum|w|, plus 2^-bw of max|w| times sum|x|, plus half an
// ulp of the result) on every case, including inputs spanning 2^40, and
// reports the worst error against the float32 sum in order (TFLM's) on
// ordinary data.
func TestBFPDotAccuracy(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 3, 16, 28, 250, 560, 1100, 5000} {
		bx, bw := bfpBits(n)
		var worstB, worstF float64
		for trial := range 200 {
			x, w := make([]float32, n), make([]float32, n)
			wide := trial%4 == 3
			for i := range x {
				x[i] = float32(r.Float64()*2 - 1)
				w[i] = float32(r.Float64()*0.2 - 0.1)
				if wide {
					x[i] *= float32(math.Pow(2, float64(r.IntN(40)-20)))
				}
			}
			var exact, sx, sw, mx, mw float64
			var f32 float32
			for i := range x {
				exact += float64(x[i]) * float64(w[i])
				f32 += x[i] * w[i]
				sx, sw = sx+math.Abs(float64(x[i])), sw+math.Abs(float64(w[i]))
				mx, mw = max(mx, math.Abs(float64(x[i]))), max(mw, math.Abs(float64(w[i])))
			}
			got := float64(bfpTDot(x, w))
			bound := math.Ldexp(mx*sw, -int(bx)) + math.Ldexp(mw*sx, -int(bw)) + math.Ldexp(float64(n)*mx*mw, -int(bx+bw)) +
				math.Ldexp(math.Abs(exact), -24)
			if d := math.Abs(got - exact); d > bound*1.0001 {
				t.Fatalf("n %d trial %d: error %g above the bound %g", n, trial, d, bound)
			}
			if !wide {
				var sa float64
				for i := range x {
					sa += math.Abs(float64(x[i]) * float64(w[i]))
				}
				worstB = max(worstB, math.Abs(got-exact)/sa)
				worstF = max(worstF, math.Abs(float64(f32)-exact)/sa)
			}
		}
		t.Logf("n=%d (bx %d, bw %d): worst error / sum|x*w|: block floating point %.2g, float32 in order %.2g", n, bx, bw, worstB, worstF)
	}
}
