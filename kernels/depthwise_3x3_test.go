package kernels

import (
	"math/rand"
	"testing"
	"unsafe"
)

// dwT3x3Layout returns a [1][3][3][C] depthwise filter channel-major
// ([C][9]), a row of C zero points and the requantization triples with
// the bias folded for input offset -zp, as gen does for dw3x3Int8.
func dwT3x3Layout(filter []int8, c int, bias, mult, shift string, zp int32) (w, zrow, rq string) {
	b := make([]byte, len(filter))
	z := make([]byte, c)
	sums := make([]int32, c)
	for ch := 0; ch < c; ch++ {
		for t := 0; t < 9; t++ {
			b[9*ch+t] = byte(filter[t*c+ch])
			sums[ch] += int32(filter[t*c+ch])
		}
		z[ch] = byte(zp)
	}
	return string(b), string(z), convTRQ(bias, mult, shift, sums, -zp)
}

// dwT3x3Run runs the reference dwInt8 and dw3x3Int8 on one random 3x3
// case; extreme sets every input and weight to the int8 minimum.
func dwT3x3Run(t *testing.T, r *rand.Rand, c dwTRowsCase, zp, lo, hi int32, extreme, noBias bool) {
	dwT3x3RunMult(t, r, c, 1, zp, lo, hi, extreme, noBias)
}

// dwT3x3RunMult is dwT3x3Run with depth multiplier d (c.c == 1 when d > 1).
func dwT3x3RunMult(t *testing.T, r *rand.Rand, c dwTRowsCase, d int, zp, lo, hi int32, extreme, noBias bool) {
	n := c.c * d
	oh := convTOutSize(c.same, c.inH, 3, c.sH, 1)
	ow := convTOutSize(c.same, c.inW, 3, c.sW, 1)
	dp := &dwParams{batches: c.b, inH: c.inH, inW: c.inW, inC: c.c, filterH: 3, filterW: 3,
		outH: oh, outW: ow, outC: n, depthMul: d, strideH: c.sH, strideW: c.sW, dilationH: 1, dilationW: 1,
		padH: convTPad(c.sH, 1, c.inH, 3, oh), padW: convTPad(c.sW, 1, c.inW, 3, ow),
		inOffset: -zp, outOffset: 5, actMin: lo, actMax: hi}
	in := convTRandI8(r, c.b*c.inH*c.inW*c.c)
	filter := convTRandI8(r, 9*n)
	if extreme {
		for i := range in {
			in[i] = -128
		}
		for i := range filter {
			filter[i] = -128
		}
	}
	bias, mult, shift := convTRandQ(r, n)
	if noBias {
		bias = ""
	}
	want := make([]int8, c.b*oh*ow*n)
	dwInt8(dp, in, filter, bias, mult, shift, want)
	p := &dw3x3Params{batches: c.b, inH: c.inH, inW: c.inW, chans: c.c, mult: d, outH: oh, outW: ow,
		strideH: c.sH, strideW: c.sW, padH: dp.padH, padW: dp.padW,
		outOffset: 5, actMin: lo, actMax: hi}
	w, zrow, rq := dwT3x3Layout(filter, n, bias, mult, shift, zp)
	got := make([]int8, len(want))
	dw3x3Int8(p, in, w, zrow, rq, make([]int32, dw3x3Scratch), got)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%+v mult %d zp %d extreme %v: output %d is %d, want %d", c, d, zp, extreme, i, got[i], want[i])
		}
	}
}

// TestDepthwise3x3Int8 checks the scratch-free 3x3 kernel against dwInt8:
// person_detect's depth-multiplier-1 layers, then random sizes (widths
// below four, one row or column, batches), SAME and VALID padding,
// horizontal strides 1 and 2 with vertical strides 1 to 3, zero points at
// the int8 limits, all-minimum inputs and weights and no bias.
func TestDepthwise3x3Int8(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	for _, c := range dwTRowsShapes[:9] {
		dwT3x3Run(t, r, c, -128, -128, 127, false, false)
		dwT3x3Run(t, r, c, 127, -100, 90, false, false)
	}
	for i := 0; i < 400; i++ {
		c := dwTRowsCase{b: 1 + r.Intn(2), inH: 1 + r.Intn(9), inW: 1 + r.Intn(14), c: 1 + r.Intn(40),
			sH: 1 + r.Intn(3), sW: 1 + r.Intn(2), same: r.Intn(2) == 0}
		if !c.same && (c.inH < 3 || c.inW < 3) {
			c.same = true
		}
		zp := int32(r.Intn(256) - 128)
		switch i % 4 {
		case 1:
			zp = -128
		case 2:
			zp = 127
		}
		dwT3x3Run(t, r, c, zp, -128, 127, i%7 == 3, i%5 == 4)
	}
}

// TestDepthwise3x3Mult checks dw3x3Int8 with one input channel and a depth
// multiplier above 1 (dw3x3Mult) against dwInt8: person_detect's first
// layer, then random sizes (rows wider than a segment, widths below four),
// SAME and VALID padding, strides, zero points at the int8 limits and
// all-minimum inputs and weights.
func TestDepthwise3x3Mult(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	pd := dwTRowsCase{b: 1, inH: 96, inW: 96, c: 1, sH: 2, sW: 2, same: true}
	dwT3x3RunMult(t, r, pd, 8, -1, -128, 127, false, false)
	dwT3x3RunMult(t, r, pd, 8, 127, -100, 90, false, false)
	for i := 0; i < 300; i++ {
		c := dwTRowsCase{b: 1 + r.Intn(2), inH: 1 + r.Intn(7), inW: 1 + r.Intn(150), c: 1,
			sH: 1 + r.Intn(3), sW: 1 + r.Intn(2), same: r.Intn(2) == 0}
		if !c.same && (c.inH < 3 || c.inW < 3) {
			c.same = true
		}
		zp := int32(r.Intn(256) - 128)
		switch i % 4 {
		case 1:
			zp = -128
		case 2:
			zp = 127
		}
		dwT3x3RunMult(t, r, c, 2+r.Intn(8), zp, -128, 127, i%7 == 3, i%5 == 4)
	}
}

// TestDwRQFast checks dwRQFast against mulByQuantMul plus the output zero
// point over its whole domain's edges and random points: |v| < 2^29,
// 0 <= m < 2^31, right shifts 1..21, |zo| <= 128.
func TestDwRQFast(t *testing.T) {
	r := rand.New(rand.NewSource(14))
	vs := []int32{0, 1, -1, 2, -2, 1<<29 - 1, -(1<<29 - 1), 1 << 20, -(1 << 20), 12345, -12345}
	ms := []int32{0, 1, 1 << 30, 1<<31 - 1, 1<<30 + 1, 1518500250}
	for i := 0; i < 200000; i++ {
		var v, m int32
		if i < len(vs)*len(ms) {
			v, m = vs[i%len(vs)], ms[i/len(vs)]
		} else {
			v = int32(r.Int63n(1<<30)) - (1<<29 - 1)
			m = int32(r.Int63n(1 << 31))
			if i%3 == 0 {
				v = int32(r.Intn(1<<19)) - 1<<18
			}
		}
		rr := 1 + i%21
		zo := int32(i%257) - 128
		want := mulByQuantMul(v, m, -rr) + zo
		k := 1 + int32(1)<<rr + zo<<(rr+1)
		got := dwRQFast(v, uint32(m), k, -m-2, uint32(rr+1))
		if got != want {
			t.Fatalf("v %d m %d r %d zo %d: %d, want %d", v, m, rr, zo, got, want)
		}
	}
}

// TestDepthwise3x3Chain checks dw3x3ChainInt8, the channel-group kernel
// dw3x3Int8 takes for rows of whole six-pixel blocks and a multiple of
// four channels, against dwInt8: with requantizations it takes (right
// shifts), separate buffers and the output written over its input two
// input rows below it (the overlap the planner offers).
func TestDepthwise3x3Chain(t *testing.T) {
	r := rand.New(rand.NewSource(15))
	cases := []dwTRowsCase{
		{b: 1, inH: 6, inW: 6, c: 4, sH: 1, sW: 1, same: true},
		{b: 2, inH: 5, inW: 12, c: 8, sH: 1, sW: 1, same: true},
		{b: 1, inH: 7, inW: 12, c: 16, sH: 2, sW: 2, same: true},
		{b: 1, inH: 8, inW: 11, c: 12, sH: 1, sW: 2, same: true},
		{b: 1, inH: 5, inW: 8, c: 20, sH: 1, sW: 1, same: false},
		{b: 2, inH: 9, inW: 14, c: 36, sH: 2, sW: 2, same: false},
	}
	for i, c := range cases {
		for _, zp := range []int32{-128, 127, 3} {
			oh := convTOutSize(c.same, c.inH, 3, c.sH, 1)
			ow := convTOutSize(c.same, c.inW, 3, c.sW, 1)
			if ow%6 != 0 {
				t.Fatalf("case %d: %d output columns, not whole blocks of six", i, ow)
			}
			dp := &dwParams{batches: c.b, inH: c.inH, inW: c.inW, inC: c.c, filterH: 3, filterW: 3,
				outH: oh, outW: ow, outC: c.c, depthMul: 1, strideH: c.sH, strideW: c.sW, dilationH: 1, dilationW: 1,
				padH: convTPad(c.sH, 1, c.inH, 3, oh), padW: convTPad(c.sW, 1, c.inW, 3, ow),
				inOffset: -zp, outOffset: 5, actMin: -128, actMax: 127}
			in := convTRandI8(r, c.b*c.inH*c.inW*c.c)
			filter := convTRandI8(r, 9*c.c)
			bias, mult, shift := convTRandQRight(r, c.c)
			want := make([]int8, c.b*oh*ow*c.c)
			dwInt8(dp, in, filter, bias, mult, shift, want)
			p := &dw3x3Params{batches: c.b, inH: c.inH, inW: c.inW, chans: c.c, mult: 1, outH: oh, outW: ow,
				strideH: c.sH, strideW: c.sW, padH: dp.padH, padW: dp.padW, outOffset: 5, actMin: -128, actMax: 127}
			w, zrow, rq := dwT3x3Layout(filter, c.c, bias, mult, shift, zp)
			w9 := make([][9]int8, c.c)
			for ch := range w9 {
				for k := range w9[ch] {
					w9[ch][k] = int8(w[9*ch+k])
				}
			}
			check := func(what string, got []int8) {
				t.Helper()
				for j := range want {
					if got[j] != want[j] {
						t.Fatalf("case %d %+v zp %d %s: output %d is %d, want %d", i, c, zp, what, j, got[j], want[j])
					}
				}
			}
			// Separate buffers; the input starts a word boundary (an
			// arena offset is a multiple of 16).
			buf := make([]uint32, (len(in)+len(want))/4+2)
			b8 := unsafe.Slice((*int8)(unsafe.Pointer(&buf[0])), 4*len(buf))
			xin, out := b8[:len(in)], b8[len(in)+3:][:len(want)]
			copy(xin, in)
			if !dw3x3ChainInt8(p, xin, w9, constI8(zrow), rq, make([]int32, dw3x3Scratch), out) {
				t.Fatalf("case %d %+v zp %d: dw3x3ChainInt8 declined", i, c, zp)
			}
			check("separate", out)
			// Written over its input, two input rows (a multiple of the
			// channels) below it.
			d := 2 * c.inW * c.c
			ob := make([]uint32, (d+4+max(len(in), len(want)))/4+1)
			o8 := unsafe.Slice((*int8)(unsafe.Pointer(&ob[0])), 4*len(ob))
			copy(o8[d:], in)
			if !dw3x3ChainInt8(p, o8[d:d+len(in)], w9, constI8(zrow), rq, make([]int32, dw3x3Scratch), o8[:len(want)]) {
				t.Fatalf("case %d %+v zp %d: dw3x3ChainInt8 declined the overlap", i, c, zp)
			}
			check("over its input", o8[:len(want)])
			if c.c%8 == 0 {
				// The input four bytes above the output: output channel c
				// would land on input channel c+4, which a later group
				// reads.
				copy(o8[4:], in)
				if dw3x3ChainInt8(p, o8[4:4+len(in)], w9, constI8(zrow), rq, make([]int32, dw3x3Scratch), o8[:len(want)]) {
					t.Fatalf("case %d %+v zp %d: dw3x3ChainInt8 took an overlap off the channel grid", i, c, zp)
				}
			}
		}
	}
}
