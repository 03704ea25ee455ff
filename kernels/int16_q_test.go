package kernels

import (
	"encoding/binary"
	"math/rand"
	"testing"
)

// rq16Q is rq16 for the range int16QPlan takes: exponents -17..-1 (total
// shifts 16..32), biases up to 2^bits in magnitude, now and then a
// multiplier reduced to 0 or to 0x7FFF.
func rq16Q(r *rand.Rand, n int, none bool, biasBits int) (bias []int64, mult, shift []int32, bs, ms, ss string) {
	var b, m, sh []byte
	for range n {
		bias = append(bias, r.Int63n(2<<biasBits)-1<<biasBits)
		v := int32(1<<30 + r.Intn(1<<30))
		switch r.Intn(10) {
		case 0:
			v = 0x7FFF8000 + int32(r.Intn(0x8000)) // reduced to 0x7FFF
		case 1:
			v = int32(r.Intn(1 << 15)) // reduced to 0
		case 2:
			v = int32(r.Intn(1 << 20))
		}
		mult = append(mult, v)
		shift = append(shift, int32(-1-r.Intn(17)))
		b = binary.LittleEndian.AppendUint64(b, uint64(bias[len(bias)-1]))
		m = binary.LittleEndian.AppendUint32(m, uint32(mult[len(mult)-1]))
		sh = binary.LittleEndian.AppendUint32(sh, uint32(shift[len(shift)-1]))
	}
	if none {
		bias, b = nil, nil
	}
	return bias, mult, shift, string(b), string(m), string(sh)
}

// TestConvInt16Q: convInt16Q equals convInt16 (TFLM's reference loop) bit
// for bit on the random layers int16QPlan takes: padding, strides,
// dilation, channel counts not a multiple of four, windows read in place
// and gathered, extreme inputs and weights at the edge of the 32-bit
// bound, no bias; and int16QPlan refuses the layers whose sums could leave
// int32.
func TestConvInt16Q(t *testing.T) {
	r := rand.New(rand.NewSource(71))
	taken := 0
	for i := range 600 {
		p := &convParams{batches: 1 + r.Intn(2), inH: 1 + r.Intn(9), inW: 1 + r.Intn(9), inC: 1 + r.Intn(9),
			filterH: 1 + r.Intn(5), filterW: 1 + r.Intn(5), outC: 1 + r.Intn(11),
			strideH: 1 + r.Intn(2), strideW: 1 + r.Intn(2), dilationH: 1 + r.Intn(2), dilationW: 1 + r.Intn(2)}
		switch i % 10 {
		case 0:
			p.inC = 16 + r.Intn(14) // windows of up to 725 values
		case 1:
			p.filterH, p.filterW = 1, 1 // in place
		case 2:
			p.filterW, p.dilationH = p.inW, 1 // rows spanning whole image rows
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
		if K > int16QBuf {
			continue
		}
		in := randI16(r, p.batches*p.inH*p.inW*p.inC)
		w := randI8(r, p.outC*K, in[0] == -32768 && r.Intn(2) == 0)
		bias, mult, shift, bs, ms, ss := rq16Q(r, p.outC, i%7 == 3, 2+r.Intn(28))
		p.actMin, p.actMax = -32768, 32767
		if i%3 == 1 {
			p.actMin, p.actMax = 0, int32(r.Intn(32768))
		}
		wt, ok := int16QPlan(rows8(w, p.outC), bias, mult, shift, 0, p.actMin, p.actMax)
		if !ok {
			continue
		}
		taken++
		n := p.batches * p.outH * p.outW * p.outC
		want, got := make([]int16, n), make([]int16, n)
		convInt16(p, in, w, bs, ms, ss, want)
		convInt16Q(p, in, string(wt), got)
		for j := range want {
			if got[j] != want[j] {
				t.Fatalf("case %d %+v: out[%d] = %d, convInt16 gives %d", i, *p, j, got[j], want[j])
			}
		}
	}
	if taken < 300 {
		t.Fatalf("int16QPlan took %d layers", taken)
	}
}

// TestFcInt16Q: fcInt16Q equals fcInt16 bit for bit on the layers
// int16QPlan takes, odd depths, unit counts not a multiple of four, depths
// up to the 32-bit bound (511 extreme products).
func TestFcInt16Q(t *testing.T) {
	r := rand.New(rand.NewSource(73))
	taken, extreme := 0, 0
	for i := range 400 {
		p := &fcParams{batches: 1 + r.Intn(3), accumDepth: 1 + r.Intn(80), outDepth: 1 + r.Intn(13)}
		switch i % 5 {
		case 1:
			p.accumDepth = 250 + r.Intn(10)
		case 2:
			p.accumDepth = 500 + r.Intn(20)
		}
		k, units := p.accumDepth, p.outDepth
		in := randI16(r, p.batches*k)
		x := in[0] == -32768 && r.Intn(2) == 0
		w := randI8(r, units*k, x)
		bias, mult, shift, bs, ms, ss := rq16Q(r, units, false, 2+r.Intn(28))
		p.actMin, p.actMax = -32768, 32767
		if i%3 == 1 {
			p.actMin, p.actMax = 0, int32(r.Intn(32768))
		}
		wt, ok := int16QPlan(rows8(w, units), bias, mult, shift, 0, p.actMin, p.actMax)
		if !ok {
			continue
		}
		taken++
		if x {
			extreme++
		}
		want, got := make([]int16, p.batches*units), make([]int16, p.batches*units)
		fcInt16(p, in, w, bs, ms, ss, want)
		fcInt16Q(p, in, string(wt), got)
		for j := range want {
			if got[j] != want[j] {
				t.Fatalf("case %d %+v: out[%d] = %d, fcInt16 gives %d", i, *p, j, got[j], want[j])
			}
		}
	}
	if taken < 200 || extreme < 5 {
		t.Fatalf("int16QPlan took %d layers, %d extreme", taken, extreme)
	}
}

// TestInt16QPlanBound: int16QPlan refuses a row whose extreme sum leaves
// int32 and an output offset, and takes the largest that fits.
func TestInt16QPlanBound(t *testing.T) {
	row := func(n int) [][]int8 { return [][]int8{randI8(rand.New(rand.NewSource(1)), n, true)} }
	if _, ok := int16QPlan(row(511), nil, []int32{1 << 30}, []int32{-5}, 0, -32768, 32767); !ok {
		t.Errorf("511 products of -128*-32768 refused")
	}
	if _, ok := int16QPlan(row(512), nil, []int32{1 << 30}, []int32{-5}, 0, -32768, 32767); ok {
		t.Errorf("512 products of -128*-32768 taken")
	}
	if _, ok := int16QPlan(row(8), nil, []int32{1 << 30}, []int32{-5}, 3, -32768, 32767); ok {
		t.Errorf("output offset taken")
	}
	if _, ok := int16QPlan(row(8), nil, []int32{1 << 30}, []int32{0}, 0, -32768, 32767); ok {
		t.Errorf("total shift 15 taken")
	}
}
