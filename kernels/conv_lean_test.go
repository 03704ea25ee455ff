package kernels

import (
	"encoding/binary"
	"math/rand"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// convTLeanLayout lays out OHWI int8 weights as convLeanInt8 reads them (see
// there): per block of eight output channels and index k, four int64
// u(2j) + u(2j+1)<<32 with u = w+128, and 128 for missing channels.
func convTLeanLayout(filter []int8, outC int) string {
	k := len(filter) / outC
	u := func(oc, i int) uint64 {
		if oc < outC {
			return uint64(int(filter[oc*k+i]) + 128)
		}
		return 128
	}
	var out []byte
	for b := 0; b < (outC+7)/8; b++ {
		for i := 0; i < k; i++ {
			for j := 0; j < 4; j++ {
				out = binary.LittleEndian.AppendUint64(out, u(8*b+2*j, i)|u(8*b+2*j+1, i)<<32)
			}
		}
	}
	return string(out)
}

// TestConvLeanMatchesConvInt8 runs random convolutions (strides,
// dilations, padding on every side, channel counts that are and are not
// multiples of eight, one input channel, two batches, extreme zero points
// and weights, with and without bias) through convLeanInt8 and through
// convInt8, the direct transcription of TFLM's reference loop, whose
// outputs must be identical.
func TestConvLeanMatchesConvInt8(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for trial := 0; trial < 300; trial++ {
		p := &convParams{
			batches: 1 + r.Intn(2), inH: 1 + r.Intn(9), inW: 1 + r.Intn(9), inC: 1 + r.Intn(12),
			filterH: 1 + r.Intn(4), filterW: 1 + r.Intn(4),
			strideH: 1 + r.Intn(3), strideW: 1 + r.Intn(3), dilationH: 1 + r.Intn(2), dilationW: 1 + r.Intn(2),
			outC: 1 + r.Intn(20),
		}
		if trial%5 == 0 {
			p.inC = 1
		}
		p.filterC, p.groupOutC = p.inC, p.outC
		p.padH, p.padW = r.Intn(p.filterH), r.Intn(p.filterW)
		p.outH = (p.inH+2*p.padH-p.dilationH*(p.filterH-1)-1)/p.strideH + 1
		p.outW = (p.inW+2*p.padW-p.dilationW*(p.filterW-1)-1)/p.strideW + 1
		if p.outH <= 0 || p.outW <= 0 {
			continue
		}
		zp := int32(r.Intn(256) - 128)
		if trial%7 == 0 {
			zp = -128 + 255*int32(trial%2)
		}
		p.inOffset, p.outOffset = -zp, int32(r.Intn(256)-128)
		p.actMin, p.actMax = -128, 127
		if trial%3 == 0 {
			p.actMin, p.actMax = int32(r.Intn(100)-128), int32(r.Intn(100)+27)
		}
		in := make([]int8, p.batches*p.inH*p.inW*p.inC)
		for i := range in {
			in[i] = int8(r.Intn(256) - 128)
		}
		k := p.filterH * p.filterW * p.inC
		filter := make([]int8, p.outC*k)
		for i := range filter {
			filter[i] = int8(r.Intn(256) - 128)
			if trial%11 == 0 {
				filter[i] = -128
			}
		}
		bias := ""
		if trial%4 != 0 {
			b := make([]int32, p.outC)
			for i := range b {
				b[i] = int32(r.Intn(1<<20) - 1<<19)
			}
			bias = convTI32s(b)
		}
		m, s := make([]int32, p.outC), make([]int32, p.outC)
		for i := range m {
			var sh int
			m[i], sh = quant.Multiplier(r.Float64() * 0.02)
			s[i] = int32(sh)
		}
		mult, shift := convTI32s(m), convTI32s(s)
		n := p.batches * p.outH * p.outW * p.outC
		want, got := make([]int8, n), make([]int8, n)
		convInt8(p, in, filter, bias, mult, shift, want)
		convLeanInt8(p, in, convTLeanLayout(filter, p.outC), bias, mult, shift, got)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("trial %d %+v: output %d = %d, want %d", trial, *p, i, got[i], want[i])
			}
		}
	}
}
