package kernels

import (
	"encoding/binary"
	"math/rand"
	"testing"
)

// rq16 returns random int64 biases (nil when none) and per-channel
// multipliers and exponents of n channels, and the same as the constant
// strings the reference kernels read (bias "" when none).
func rq16(r *rand.Rand, n int, none bool) (bias []int64, mult, shift []int32, bs, ms, ss string) {
	var b, m, sh []byte
	for range n {
		bias = append(bias, r.Int63n(1<<36)-1<<35)
		mult = append(mult, int32(1<<30+r.Intn(1<<30)))
		if r.Intn(8) == 0 {
			mult[len(mult)-1] = 0x7FFF8000 + int32(r.Intn(0x8000)) // reduced to 0x7FFF
		}
		shift = append(shift, int32(7-r.Intn(30)))
		b = binary.LittleEndian.AppendUint64(b, uint64(bias[len(bias)-1]))
		m = binary.LittleEndian.AppendUint32(m, uint32(mult[len(mult)-1]))
		sh = binary.LittleEndian.AppendUint32(sh, uint32(shift[len(shift)-1]))
	}
	if none {
		bias, b = nil, nil
	}
	return bias, mult, shift, string(b), string(m), string(sh)
}

// rows8 splits w into n rows.
func rows8(w []int8, n int) [][]int8 {
	k := len(w) / n
	var rows [][]int8
	for j := range n {
		rows = append(rows, w[j*k:j*k+k])
	}
	return rows
}

func randI16(r *rand.Rand, n int) []int16 {
	x := make([]int16, n)
	for j := range x {
		x[j] = int16(r.Intn(65536) - 32768)
	}
	if r.Intn(4) == 0 {
		// Extremes: the largest products, where 32-bit sums of more
		// than 512 would overflow.
		for j := range x {
			x[j] = -32768
		}
	}
	return x
}

func randI8(r *rand.Rand, n int, extreme bool) []int8 {
	w := make([]int8, n)
	for j := range w {
		w[j] = int8(r.Intn(256) - 128)
		if extreme {
			w[j] = -128
		}
	}
	return w
}

// TestConvInt16Blocks: convInt16Blocks equals convInt16 (the loop TFLM's
// reference kernel runs, checked against TFLM's recordings) bit for bit on
// random shapes: padding, strides, dilation, channel counts not a multiple
// of four, windows of more than 256 values, no bias.
func TestConvInt16Blocks(t *testing.T) {
	r := rand.New(rand.NewSource(61))
	for i := range 300 {
		p := &convParams{batches: 1 + r.Intn(2), inH: 1 + r.Intn(9), inW: 1 + r.Intn(9), inC: 1 + r.Intn(9),
			filterH: 1 + r.Intn(5), filterW: 1 + r.Intn(5), outC: 1 + r.Intn(11),
			strideH: 1 + r.Intn(2), strideW: 1 + r.Intn(2), dilationH: 1 + r.Intn(2), dilationW: 1 + r.Intn(2)}
		if i%10 == 0 {
			p.inC = 30 + r.Intn(40) // windows of up to 1,725 values
		}
		p.filterC, p.groupOutC = p.inC, p.outC
		same := r.Intn(2) == 0
		p.outH = convTOutSize(same, p.inH, p.filterH, p.strideH, p.dilationH)
		p.outW = convTOutSize(same, p.inW, p.filterW, p.strideW, p.dilationW)
		if p.outH <= 0 || p.outW <= 0 {
			continue
		}
		p.padH = convTPad(p.strideH, p.dilationH, p.inH, p.filterH, p.outH)
		p.padW = convTPad(p.strideW, p.dilationW, p.inW, p.filterW, p.outW)
		K := p.filterH * p.filterW * p.inC
		in := randI16(r, p.batches*p.inH*p.inW*p.inC)
		w := randI8(r, p.outC*K, in[0] == -32768 && r.Intn(2) == 0)
		bias, mult, shift, bs, ms, ss := rq16(r, p.outC, i%7 == 3)
		p.actMin, p.actMax = -32768, 32767
		if i%3 == 1 {
			p.actMin, p.actMax = 0, int32(r.Intn(32768))
		}
		n := p.batches * p.outH * p.outW * p.outC
		want, got := make([]int16, n), make([]int16, n)
		convInt16(p, in, w, bs, ms, ss, want)
		wt, rec := int16BlocksPlan(rows8(w, p.outC), bias, mult, shift)
		convInt16Blocks(p, in, string(wt), string(rec), got)
		for j := range want {
			if got[j] != want[j] {
				t.Fatalf("case %d %+v: out[%d] = %d, convInt16 gives %d", i, *p, j, got[j], want[j])
			}
		}
	}
}

// TestFcInt16Blocks: fcInt16Blocks equals fcInt16 bit for bit, with depths
// around the 256-product runs, odd depths and unit counts not a multiple of
// four.
func TestFcInt16Blocks(t *testing.T) {
	r := rand.New(rand.NewSource(67))
	for i := range 200 {
		p := &fcParams{batches: 1 + r.Intn(3), accumDepth: 1 + r.Intn(80), outDepth: 1 + r.Intn(13)}
		switch i % 5 {
		case 1:
			p.accumDepth = 250 + r.Intn(10)
		case 2:
			p.accumDepth = 500 + r.Intn(600)
		}
		k, units := p.accumDepth, p.outDepth
		in := randI16(r, p.batches*k)
		w := randI8(r, units*k, in[0] == -32768 && r.Intn(2) == 0)
		bias, mult, shift, bs, ms, ss := rq16(r, units, false)
		p.actMin, p.actMax = -32768, 32767
		if i%3 == 1 {
			p.actMin, p.actMax = 0, int32(r.Intn(32768))
		}
		want, got := make([]int16, p.batches*units), make([]int16, p.batches*units)
		fcInt16(p, in, w, bs, ms, ss, want)
		wt, rec := int16BlocksPlan(rows8(w, units), bias, mult, shift)
		fcInt16Blocks(p, in, string(wt), string(rec), got)
		for j := range want {
			if got[j] != want[j] {
				t.Fatalf("case %d %+v: out[%d] = %d, fcInt16 gives %d", i, *p, j, got[j], want[j])
			}
		}
	}
}
