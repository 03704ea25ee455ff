package kernels

import (
	"math"
	"math/rand"
	"slices"
	"testing"
)

// TestPoolSumGlobal: the sums of a global average pool added up over
// random bands of rows, then averaged, equal the average pool of the whole
// image (avgPoolInt8, the DSP build's avgPoolDSPInt8 where its record
// exists, avgPoolInt16, avgPoolF32), element for element and bit for bit.
func TestPoolSumGlobal(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for _, g := range []struct{ h, w, c int }{{1, 1, 1}, {25, 5, 64}, {7, 7, 3}, {3, 3, 256}, {1, 13, 8}, {12, 1, 5}, {4, 6, 20}} {
		p := &poolParams{batches: 1, inH: g.h, inW: g.w, depth: g.c, outH: 1, outW: 1, strideH: 1, strideW: 1, filterH: g.h, filterW: g.w,
			actMin: -128, actMax: 127, fActMin: float32(math.Inf(-1)), fActMax: float32(math.Inf(1))}
		if r.Intn(2) == 0 {
			p.actMin, p.actMax, p.fActMin, p.fActMax = -20, 90, -0.5, 0.75
		}
		row := g.w * g.c
		// bands cuts the rows into random bands and calls add(lo, hi, start)
		// for each, in order.
		bands := func(add func(lo, hi int, start bool)) {
			for lo := 0; lo < g.h; {
				hi := min(g.h, lo+1+r.Intn(3))
				add(lo, hi, lo == 0)
				lo = hi
			}
		}
		i8 := make([]int8, g.h*row)
		i16 := make([]int16, g.h*row)
		f32 := make([]float32, g.h*row)
		for k := range i8 {
			i8[k] = int8(r.Intn(256) - 128)
			i16[k] = int16(r.Intn(65536) - 32768)
			f32[k] = r.Float32()*2 - 1
		}
		p16 := *p
		p16.actMin, p16.actMax = -32768, 32767
		if p.actMin != -128 {
			p16.actMin, p16.actMax = -3000, 20000
		}

		acc := make([]int32, g.c)
		bands(func(lo, hi int, start bool) { poolSumInt8(acc, i8[lo*row:hi*row], start) })
		got, want := make([]int8, g.c), make([]int8, g.c)
		poolMeanInt8(p, acc, got)
		avgPoolInt8(p, i8, want)
		if !slices.Equal(got, want) {
			t.Errorf("%v int8: got %v, want %v", g, got, want)
		}
		if k, ok := dspPoolPlan(true, g.c, g.w, 1, 1, g.h, g.w, p.actMin, p.actMax); ok {
			avgPoolDSPInt8(p, string(k), i8, want)
			if !slices.Equal(got, want) {
				t.Errorf("%v int8, DSP build: got %v, want %v", g, got, want)
			}
		}

		bands(func(lo, hi int, start bool) { poolSumInt16(acc, i16[lo*row:hi*row], start) })
		got16, want16 := make([]int16, g.c), make([]int16, g.c)
		poolMeanInt16(&p16, acc, got16)
		avgPoolInt16(&p16, i16, want16)
		if !slices.Equal(got16, want16) {
			t.Errorf("%v int16: got %v, want %v", g, got16, want16)
		}

		accF := make([]float32, g.c)
		bands(func(lo, hi int, start bool) { poolSumF32(accF, f32[lo*row:hi*row], start) })
		gotF, wantF := make([]float32, g.c), make([]float32, g.c)
		poolMeanF32(p, accF, gotF)
		avgPoolF32(p, f32, wantF)
		for c := range gotF {
			if math.Float32bits(gotF[c]) != math.Float32bits(wantF[c]) {
				t.Errorf("%v float32 channel %d: got %v, want %v", g, c, gotF[c], wantF[c])
			}
		}
	}
}

// TestMeanFinishGlobal: MEAN over the height and width of an image, its
// sums added up over random bands of rows (poolSum...) and finished
// (meanFinish...), equals meanInt8, meanInt16 and meanF32 on the whole
// image, bit for bit.
func TestMeanFinishGlobal(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for _, g := range []struct{ h, w, c int }{{1, 1, 1}, {25, 5, 64}, {7, 7, 3}, {3, 3, 256}, {1, 13, 8}, {12, 1, 5}} {
		row := g.w * g.c
		count := g.h * g.w
		p := &meanParams{d0: 1, d1: 1, d2: 1, d3: count, d4: g.c, s4: 1, nOut: g.c,
			inZeroSum: int64(r.Intn(256)-128) * int64(count), mult: 1<<30 + int32(r.Intn(1<<29)), shift: -r.Intn(8), outOffset: int32(r.Intn(256) - 128), count: float32(count)}
		bands := func(add func(lo, hi int, start bool)) {
			for lo := 0; lo < g.h; {
				hi := min(g.h, lo+1+r.Intn(3))
				add(lo, hi, lo == 0)
				lo = hi
			}
		}
		i8 := make([]int8, g.h*row)
		i16 := make([]int16, g.h*row)
		f32 := make([]float32, g.h*row)
		for k := range i8 {
			i8[k] = int8(r.Intn(256) - 128)
			i16[k] = int16(r.Intn(65536) - 32768)
			f32[k] = r.Float32()*2 - 1
		}
		acc, scratch := make([]int32, g.c), make([]int32, g.c)
		bands(func(lo, hi int, start bool) { poolSumInt8(acc, i8[lo*row:hi*row], start) })
		got, want := make([]int8, g.c), make([]int8, g.c)
		meanFinishInt8(p, acc, got)
		meanInt8(p, i8, scratch, want)
		if !slices.Equal(got, want) {
			t.Errorf("%v int8: got %v, want %v", g, got, want)
		}
		p16 := *p
		p16.inZeroSum, p16.outOffset = 0, 0
		bands(func(lo, hi int, start bool) { poolSumInt16(acc, i16[lo*row:hi*row], start) })
		got16, want16 := make([]int16, g.c), make([]int16, g.c)
		meanFinishInt16(&p16, acc, got16)
		meanInt16(&p16, i16, scratch, want16)
		if !slices.Equal(got16, want16) {
			t.Errorf("%v int16: got %v, want %v", g, got16, want16)
		}
		accF := make([]float32, g.c)
		bands(func(lo, hi int, start bool) { poolSumF32(accF, f32[lo*row:hi*row], start) })
		gotF, wantF := make([]float32, g.c), make([]float32, g.c)
		meanFinishF32(p, accF, gotF)
		meanF32(p, f32, wantF)
		for c := range gotF {
			if math.Float32bits(gotF[c]) != math.Float32bits(wantF[c]) {
				t.Errorf("%v float32 channel %d: got %v, want %v", g, c, gotF[c], wantF[c])
			}
		}
	}
}
