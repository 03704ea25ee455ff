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
		im := randGlobalImage(r, g.h, g.w*g.c)
		i8, i16, f32 := im.i8, im.i16, im.f32
		acc, acc16, accF := im.sums(r, g.c)
		p16 := *p
		p16.actMin, p16.actMax = -32768, 32767
		if p.actMin != -128 {
			p16.actMin, p16.actMax = -3000, 20000
		}

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

		got16, want16 := make([]int16, g.c), make([]int16, g.c)
		poolMeanInt16(&p16, acc16, got16)
		avgPoolInt16(&p16, i16, want16)
		if !slices.Equal(got16, want16) {
			t.Errorf("%v int16: got %v, want %v", g, got16, want16)
		}

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
		count := g.h * g.w
		p := &meanParams{d0: 1, d1: 1, d2: 1, d3: count, d4: g.c, s4: 1, nOut: g.c,
			inZeroSum: int64(r.Intn(256)-128) * int64(count), mult: 1<<30 + int32(r.Intn(1<<29)), shift: -r.Intn(8), outOffset: int32(r.Intn(256) - 128), count: float32(count)}
		im := randGlobalImage(r, g.h, g.w*g.c)
		i8, i16, f32 := im.i8, im.i16, im.f32
		acc, acc16, accF := im.sums(r, g.c)
		scratch := make([]int32, g.c)
		got, want := make([]int8, g.c), make([]int8, g.c)
		meanFinishInt8(p, acc, got)
		meanInt8(p, i8, scratch, want)
		if !slices.Equal(got, want) {
			t.Errorf("%v int8: got %v, want %v", g, got, want)
		}
		p16 := *p
		p16.inZeroSum, p16.outOffset = 0, 0
		got16, want16 := make([]int16, g.c), make([]int16, g.c)
		meanFinishInt16(&p16, acc16, got16)
		meanInt16(&p16, i16, scratch, want16)
		if !slices.Equal(got16, want16) {
			t.Errorf("%v int16: got %v, want %v", g, got16, want16)
		}
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

// globalImage is an image of h rows of row values in each element type.
type globalImage struct {
	h, row int
	i8     []int8
	i16    []int16
	f32    []float32
}

func randGlobalImage(r *rand.Rand, h, row int) globalImage {
	im := globalImage{h: h, row: row, i8: make([]int8, h*row), i16: make([]int16, h*row), f32: make([]float32, h*row)}
	for k := range im.i8 {
		im.i8[k] = int8(r.Intn(256) - 128)
		im.i16[k] = int16(r.Intn(65536) - 32768)
		im.f32[k] = r.Float32()*2 - 1
	}
	return im
}

// sums adds the image's pixels of c channels up as a fused group's bands
// do: poolSumInt8, poolSumInt16 and poolSumF32 on bands of 1 to 3 rows
// (random heights, each type its own cut), the first band starting the
// sums.
func (im globalImage) sums(r *rand.Rand, c int) (s8, s16 []int32, sf []float32) {
	s8, s16, sf = make([]int32, c), make([]int32, c), make([]float32, c)
	for _, add := range []func(lo, hi int, start bool){
		func(lo, hi int, start bool) { poolSumInt8(s8, im.i8[lo*im.row:hi*im.row], start) },
		func(lo, hi int, start bool) { poolSumInt16(s16, im.i16[lo*im.row:hi*im.row], start) },
		func(lo, hi int, start bool) { poolSumF32(sf, im.f32[lo*im.row:hi*im.row], start) },
	} {
		for lo := 0; lo < im.h; {
			hi := min(im.h, lo+1+r.Intn(3))
			add(lo, hi, lo == 0)
			lo = hi
		}
	}
	return s8, s16, sf
}
