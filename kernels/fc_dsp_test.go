package kernels

import (
	"encoding/binary"
	"math/rand"
	"testing"
)

// TestFcDSPInt8 runs fcDSPInt8 (its Go loops here; TestDSPOnBoard compares
// the Thumb-2 ones with them) on random layers with per-channel
// requantizations and biases near and beyond the range where sums stay
// inside [-2^30, 2^30), and compares every output with the reference's
// int32 accumulation and MultiplyByQuantizedMultiplier. Where dspFCPlan
// declines a layer, the reason must be one it documents.
func TestFcDSPInt8(t *testing.T) {
	r := rand.New(rand.NewSource(41))
	inside, saturated, declined := 0, 0, 0
	for i := 0; i < 400; i++ {
		k, n, nb := 4*(1+r.Intn(40)), 1+r.Intn(21), 1+r.Intn(3)
		zp := int32(r.Intn(256) - 128)
		lo, hi := int32(-128), int32(127)
		if i%3 == 1 {
			lo, hi = max(zp, -128), min(zp+100, 127)
		}
		in := make([]int8, nb*k)
		for j := range in {
			in[j] = int8(r.Intn(256) - 128)
		}
		w := make([]int8, n*k)
		for j := range w {
			w[j] = int8(r.Intn(255) - 127)
		}
		rq := make([]byte, 0, 12*n)
		bias, mult, shift := make([]int32, n), make([]int32, n), make([]int32, n)
		for c := range bias {
			switch r.Intn(4) {
			case 0:
				bias[c] = 1<<30 - int32(r.Intn(1<<16))
			case 1:
				bias[c] = -1<<30 + int32(r.Intn(1<<16))
			case 2:
				bias[c] = int32(r.Uint32())
			default:
				bias[c] = int32(r.Intn(1<<20) - 1<<19)
			}
			mult[c], shift[c] = int32(1<<30+r.Intn(1<<30)), int32(-1-r.Intn(22))
			if i%50 == 7 {
				shift[c] = int32(r.Intn(3)) // left shifts: declined
			}
			for _, v := range []int32{bias[c], mult[c], shift[c]} {
				rq = binary.LittleEndian.AppendUint32(rq, uint32(v))
			}
		}
		rec, ok := dspFCPlan(rq, k, zp, lo, hi)
		if !ok {
			declined++
			why := false
			for c := range bias {
				b := int64(bias[c])
				why = why || shift[c] >= 0 || shift[c] < -21 || max(b, -b)+int64(k)<<14 >= 1<<30
			}
			if !why {
				t.Fatalf("case %d: dspFCPlan declines a layer inside its documented range", i)
			}
			continue
		}
		for c := range bias {
			if b := int64(bias[c]); max(b, -b)+int64(k)<<14 >= 1<<30 {
				saturated++
			} else {
				inside++
			}
		}
		p := &fcDSPParams{batches: nb, outDepth: n, accumDepth: k}
		got := make([]int8, nb*n)
		fcDSPInt8(p, in, string(dspFCPack(n, k, func(j int) []byte { return i8Bytes(w[j*k : j*k+k]) })), string(rec), got)
		for b := 0; b < nb; b++ {
			for c := 0; c < n; c++ {
				acc := bias[c]
				for d := 0; d < k; d++ {
					acc += int32(in[b*k+d]) * int32(w[c*k+d])
				}
				want := int8(clampI32(mulByQuantMul(acc, mult[c], int(shift[c]))+zp, lo, hi))
				if got[b*n+c] != want {
					t.Fatalf("case %d k %d n %d zp %d [%d %d]: row %d channel %d = %d, want %d", i, k, n, zp, lo, hi, b, c, got[b*n+c], want)
				}
			}
		}
	}
	if inside == 0 || saturated == 0 || declined == 0 {
		t.Fatalf("channels inside / saturated, layers declined: %d / %d, %d (want all)", inside, saturated, declined)
	}
}

// i8Bytes returns the bytes of int8 values.
func i8Bytes(v []int8) []byte {
	out := make([]byte, len(v))
	for i, x := range v {
		out[i] = byte(x)
	}
	return out
}

// TestFcDSPInt16 runs fcDSPInt16 (its Go loops here) on random 16x8
// layers, rows of up to 1100 columns (several 256-column blocks on the
// board), some at the extremes where the sums leave 32 bits, and compares
// every output with the reference's 64-bit accumulation and
// mulByQuantMul64; dspFC16Plan declines only rescales of 1/4 or more.
func TestFcDSPInt16(t *testing.T) {
	r := rand.New(rand.NewSource(43))
	declined := 0
	for i := 0; i < 300; i++ {
		k, n, nb := 4*(1+r.Intn(275)), 1+r.Intn(13), 1+r.Intn(2)
		in := make([]int16, nb*k)
		for j := range in {
			in[j] = int16(r.Intn(65536) - 32768)
			if i%7 == 0 {
				in[j] = -32768
			}
		}
		w := make([]int8, n*k)
		for j := range w {
			w[j] = int8(r.Intn(256) - 128)
			if i%7 == 0 {
				w[j] = -128
			}
		}
		bias, mult, shift := make([]int64, n), make([]int32, n), make([]int32, n)
		for c := range bias {
			bias[c] = r.Int63n(1<<40) - 1<<39
			mult[c] = int32(1<<30 + r.Intn(1<<30))
			if r.Intn(8) == 0 {
				mult[c] = 0x7FFF0000 + int32(r.Intn(1<<16))
			}
			shift[c] = int32(-r.Intn(32))
		}
		zo := int32(r.Intn(5) - 2)
		lo, hi := int32(-32768), int32(32767)
		if i%3 == 1 {
			lo, hi = 0, int32(r.Intn(32768))
		}
		rec, ok := dspFC16Plan(k, bias, mult, shift, zo, lo, hi)
		if !ok {
			declined++
			for c := range shift {
				ok = ok || shift[c] > -2
			}
			if !ok {
				t.Fatalf("case %d: dspFC16Plan declines shifts %v", i, shift)
			}
			continue
		}
		p := &fcDSPParams{batches: nb, outDepth: n, accumDepth: k}
		got := make([]int16, nb*n)
		fcDSPInt16(p, in, string(dspFC16Pack(n, k, func(j int) []byte { return i8Bytes(w[j*k : j*k+k]) })), string(rec), got)
		for b := 0; b < nb; b++ {
			for c := 0; c < n; c++ {
				acc := bias[c]
				for d := 0; d < k; d++ {
					acc += int64(in[b*k+d]) * int64(w[c*k+d])
				}
				want := int16(clampI32(mulByQuantMul64(acc, mult[c], int(shift[c]))+zo, lo, hi))
				if got[b*n+c] != want {
					t.Fatalf("case %d k %d n %d: row %d channel %d = %d, want %d (shift %d)", i, k, n, b, c, got[b*n+c], want, shift[c])
				}
			}
		}
	}
	if declined == 0 || declined > 200 {
		t.Fatalf("%d of 300 layers declined", declined)
	}
}

// TestConvDSPInt16 compares convDSPInt16 and convDSPInt16PW (their Go
// loops) with convInt16 on random 16x8 convolutions: filters 1x1 to 5x5,
// strides 1 and 2, dilations 1 and 2, padding, channel counts that leave a
// partial group of four columns and of four channels (a band of rows is
// such a geometry too: a shorter input with the padding left at its edge).
func TestConvDSPInt16(t *testing.T) {
	r := rand.New(rand.NewSource(47))
	for i := 0; i < 200; i++ {
		p := &convParams{batches: 1 + r.Intn(2), inH: 1 + r.Intn(9), inW: 1 + r.Intn(9), inC: 1 + r.Intn(9),
			filterH: 1 + r.Intn(5), filterW: 1 + r.Intn(5), outC: 1 + r.Intn(11),
			strideH: 1 + r.Intn(2), strideW: 1 + r.Intn(2), dilationH: 1 + r.Intn(2), dilationW: 1 + r.Intn(2)}
		pw := i%4 == 0
		if pw {
			p.filterH, p.filterW, p.dilationH, p.dilationW, p.inC = 1, 1, 1, 1, 4*(1+r.Intn(3))
		}
		p.filterC, p.groupOutC = p.inC, p.outC
		same := r.Intn(2) == 0 && !pw
		geo := func(in, f, s, d int) (out, pad int) {
			ef := (f-1)*d + 1
			if same {
				out = (in + s - 1) / s
				return out, max((out-1)*s+ef-in, 0) / 2
			}
			return (in - ef + s) / s, 0
		}
		p.outH, p.padH = geo(p.inH, p.filterH, p.strideH, p.dilationH)
		p.outW, p.padW = geo(p.inW, p.filterW, p.strideW, p.dilationW)
		if p.outH <= 0 || p.outW <= 0 {
			continue
		}
		K := p.filterH * p.filterW * p.inC
		K4 := (K + 3) &^ 3
		in := make([]int16, p.batches*p.inH*p.inW*p.inC)
		for j := range in {
			in[j] = int16(r.Intn(65536) - 32768)
		}
		w := make([]int8, p.outC*K)
		for j := range w {
			w[j] = int8(r.Intn(256) - 128)
		}
		bias, mult, shift := make([]int64, p.outC), make([]int32, p.outC), make([]int32, p.outC)
		var bs, ms, ss []byte
		for c := range bias {
			bias[c] = r.Int63n(1<<36) - 1<<35
			mult[c], shift[c] = int32(1<<30+r.Intn(1<<30)), int32(-2-r.Intn(20))
			bs = binary.LittleEndian.AppendUint64(bs, uint64(bias[c]))
			ms = binary.LittleEndian.AppendUint32(ms, uint32(mult[c]))
			ss = binary.LittleEndian.AppendUint32(ss, uint32(shift[c]))
		}
		p.actMin, p.actMax = -32768, 32767
		if i%3 == 1 {
			p.actMin, p.actMax = 0, int32(r.Intn(32768))
		}
		rec, ok := dspFC16Plan(K4, bias, mult, shift, 0, p.actMin, p.actMax)
		if !ok {
			t.Fatalf("case %d: no plan", i)
		}
		wt := string(dspFC16Pack(p.outC, K4, func(j int) []byte { return append(i8Bytes(w[j*K:j*K+K]), make([]byte, K4-K)...) }))
		n := p.batches * p.outH * p.outW * p.outC
		want, got := make([]int16, n), make([]int16, n)
		convInt16(p, in, w, string(bs), string(ms), string(ss), want)
		if pw {
			convDSPInt16PW(p, in, wt, string(rec), got)
		} else {
			scr := make([]int16, K4)
			for j := range scr {
				scr[j] = int16(r.Uint32())
			}
			convDSPInt16(p, in, wt, string(rec), scr, got)
		}
		for j := range want {
			if got[j] != want[j] {
				t.Fatalf("case %d %+v: out[%d] = %d, convInt16 gives %d", i, *p, j, got[j], want[j])
			}
		}
	}
}
