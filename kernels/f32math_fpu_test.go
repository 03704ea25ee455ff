package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// f32ULPs returns how many float32 ulps (of the exact value's binade) got
// is from the float64 value want.
func f32ULPs(got float32, want float64) float64 {
	if want == 0 {
		return math.Abs(float64(got)) / math.Ldexp(1, -149)
	}
	_, e := math.Frexp(want)
	ulp := math.Ldexp(1, max(e-24, -149))
	return math.Abs(float64(got)-want) / ulp
}

// TestF32FPUFunctions checks f32ExpFPU, f32LogisticFPU and f32TanhFPU
// (the -compiler gc gate functions) against float64's exp and tanh on
// every binade they cover and at their edges: within 4.5 ulps (measured
// worst cases are logged; exp is at its worst past 87, as a square), TFLM's logistic cut-offs, NaN and the
// infinities.
func TestF32FPUFunctions(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	logistic := func(x float64) float64 {
		switch {
		case x > 16.619047164916992188:
			return 1
		case x < -9:
			return math.Exp(x)
		}
		return 1 / (1 + math.Exp(-x))
	}
	fns := []struct {
		name string
		f    func(float32) float32
		ref  func(float64) float64
		lo   float64
		hi   float64
	}{
		{"exp", f32ExpFPU, math.Exp, -103, 88.7},
		{"logistic", f32LogisticFPU, logistic, -100, 20},
		{"tanh", f32TanhFPU, math.Tanh, -12, 12},
	}
	for _, fn := range fns {
		worst, at := 0.0, float32(0)
		for i := range 200000 {
			var x float32
			if i%2 == 0 {
				x = float32(fn.lo + (fn.hi-fn.lo)*r.Float64())
			} else {
				x = float32(math.Copysign(math.Ldexp(1+r.Float64(), -r.IntN(30)), r.Float64()-0.5))
			}
			got, want := fn.f(x), fn.ref(float64(x))
			if u := f32ULPs(got, want); u > worst {
				worst, at = u, x
			}
		}
		t.Logf("%s: worst %.2f ulps (at %g)", fn.name, worst, at)
		if worst > 4.5 {
			t.Errorf("%s: %.2f ulps at %g", fn.name, worst, at)
		}
		nan := float32(math.NaN())
		if v := fn.f(nan); v == v {
			t.Errorf("%s(NaN) = %g", fn.name, v)
		}
	}
	for x, want := range map[float32]float32{89: float32(math.Inf(1)), -104: 0, float32(math.Inf(-1)): 0} {
		if got := f32ExpFPU(x); got != want {
			t.Errorf("f32ExpFPU(%g) = %g, want %g", x, got, want)
		}
	}
	for x, want := range map[float32]float32{17: 1, float32(math.Inf(1)): 1, 20: 1, -200: 0} {
		if got := f32LogisticFPU(x); got != want {
			t.Errorf("f32LogisticFPU(%g) = %g, want %g", x, got, want)
		}
	}
	for x, want := range map[float32]float32{10: 1, -11: -1, float32(math.Inf(-1)): -1, 0: 0} {
		if got := f32TanhFPU(x); got != want {
			t.Errorf("f32TanhFPU(%g) = %g, want %g", x, got, want)
		}
	}
}
