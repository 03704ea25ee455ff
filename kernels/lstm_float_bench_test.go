package kernels

import (
	"math"
	"math/rand"
	"testing"
)

// lstmBenchFloat builds a float LSTM shaped like shared/models/trained_lstm
// (28 steps of 28 features, 20 units) with random weights.
func lstmBenchFloat() (p *lstmParams, x, h, c, out []float32, wIn, wRec, bias string) {
	rng := rand.New(rand.NewSource(1))
	const steps, n, s = 28, 28, 20
	p = &lstmParams{batch: 1, steps: steps, inDim: n, units: s, clip: true, cellClipF: 10}
	rnd := func(k int, a float32) []float32 {
		v := make([]float32, k)
		for i := range v {
			v[i] = (rng.Float32()*2 - 1) * a
		}
		return v
	}
	var w, r, b [4][]float32
	for g := range w {
		w[g], r[g], b[g] = rnd(s*n, 0.5), rnd(s*s, 0.5), rnd(s, 0.5)
	}
	wIn, wRec, bias = lstmTInterleave(w, s, n), lstmTInterleave(r, s, s), lstmTInterleave(b, s, 1)
	return p, rnd(steps*n, 1), make([]float32, s), make([]float32, s), make([]float32, steps*s), wIn, wRec, bias
}

// BenchmarkLSTMFloat measures both float LSTM variants at trained_lstm's
// size (107,520 multiply-accumulates per call).
func BenchmarkLSTMFloat(b *testing.B) {
	p, x, h, c, out, wIn, wRec, bias := lstmBenchFloat()
	macs := float64(4 * (p.inDim + p.units) * p.units * p.steps)
	b.Run("lean", func(b *testing.B) {
		for b.Loop() {
			lstmFloatLean(p, x, h, c, out, wIn, wRec, bias)
		}
		b.ReportMetric(macs*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "MAC/ns")
	})
	b.Run("scratch", func(b *testing.B) {
		buf := make([]float32, 4*(p.inDim+p.units)*p.units)
		for b.Loop() {
			lstmFloat(p, x, h, c, out, buf, wIn, wRec, bias)
		}
		b.ReportMetric(macs*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "MAC/ns")
	})
}

// BenchmarkLSTMSigTanh measures one group's activations: 24 logistic and
// 16 tanh values, as lstmRunF evaluates them for 8 units.
func BenchmarkLSTMSigTanh(b *testing.B) {
	rng := rand.New(rand.NewSource(2))
	v := make([]float32, 40)
	for i := range v {
		v[i] = float32(rng.NormFloat64() * 3)
	}
	d := make([]float32, 40)
	for b.Loop() {
		lstmSigmoidF(d[:24], v[:24])
		lstmTanhF(d[24:32], v[24:32])
		lstmTanhF(d[32:], v[32:])
	}
}

// BenchmarkLSTMDotF8 measures the float multiply-accumulate rate of the
// fastest float dot product (decoded weights, eight sums in order per
// call) on vectors of 48, trained_lstm's input plus state: the ceiling for
// float32 kernels that keep TFLM's summation order.
func BenchmarkLSTMDotF8(b *testing.B) {
	const n, pairs = 48, 10
	x := make([]float32, n)
	w := make([]float32, 8*n*pairs)
	for i := range x {
		x[i] = float32(i) / n
	}
	for i := range w {
		w[i] = float32(i%17) / 17
	}
	var sum float32
	for b.Loop() {
		for u := 0; u < pairs; u++ {
			a, _, _, _, _, _, _, c := lstmDotF8(x, w[8*n*u:8*n*(u+1)])
			sum += a + c
		}
	}
	b.ReportMetric(float64(8*n*pairs)*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "MAC/ns")
	if sum == 0 {
		b.Fatal("no work done")
	}
}

// lstmTDotFMA8 is the alternative BenchmarkLSTMDotFMA measures: eight sums
// of float64 weights with fused multiply-adds (math.FMA), which would give
// up TFLM's float32 rounding for fewer instructions.
//
//go:noinline
func lstmTDotFMA8(x []float64, w [][8]float64) (a0, a1, a2, a3, b0, b1, b2, b3 float64) {
	w = w[:len(x)]
	for d, xv := range x {
		q := &w[d]
		a0 = math.FMA(xv, q[0], a0)
		a1 = math.FMA(xv, q[1], a1)
		a2 = math.FMA(xv, q[2], a2)
		a3 = math.FMA(xv, q[3], a3)
		b0 = math.FMA(xv, q[4], b0)
		b1 = math.FMA(xv, q[5], b1)
		b2 = math.FMA(xv, q[6], b2)
		b3 = math.FMA(xv, q[7], b3)
	}
	return
}

// BenchmarkLSTMDotFMA is BenchmarkLSTMDotF8 for lstmTDotFMA8: it shows
// whether fused float64 multiply-adds would lift the float LSTM's ceiling
// (on the machine of BENCH.md they do not: 2.4-2.9 MAC/ns).
func BenchmarkLSTMDotFMA(b *testing.B) {
	const n, pairs = 48, 10
	x := make([]float64, n)
	w := make([][8]float64, n*pairs)
	for i := range x {
		x[i] = float64(i) / n
	}
	for i := range w {
		for j := range w[i] {
			w[i][j] = float64((8*i+j)%17) / 17
		}
	}
	var sum float64
	for b.Loop() {
		for u := 0; u < pairs; u++ {
			a, _, _, _, _, _, _, c := lstmTDotFMA8(x, w[n*u:n*(u+1)])
			sum += a + c
		}
	}
	b.ReportMetric(float64(8*n*pairs)*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "MAC/ns")
	if sum == 0 {
		b.Fatal("no work done")
	}
}
