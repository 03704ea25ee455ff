package kernels

import "unsafe"

// The int8 fully connected layer on the DSP extension: one input row by
// eight output channels at a time (dspFCRow), the row's bytes widened with
// SXTB16 once per group of four columns and used for eight channels, each
// channel's weights widened as they are loaded, two multiply-accumulates
// per SMLAD (46 instructions for 32 multiply-accumulates in Thumb-2); the
// last N%8 channels as a quad, a pair and a single (columns by eights).
// Each sum plus its folded bias, saturated into [-2^30, 2^30], is
// requantized in one SMMLAR (convPWQ's form divided by 2^32, as dspMulRows
// does) with a record the generator computes (dspFCPlan): nothing is
// tested at run time, and the kernel needs no scratch.

// dspFCHdr is the size of the header before the channel records of a
// dspFCRow record string: little-endian int32 words n8 (groups of eight
// columns), k4 (1 when a last group of four columns follows them), octs
// (N/8), rem (N%8), span (actMax - actMin) and lo (actMin).
const dspFCHdr = 24

// dspFCRecBytes is the size of a dspFCRow channel record: little-endian
// int32 words bias (folded), the multiplier m, K = 2^(r-1) + (zo-lo)*2^r
// and the right shift r.
const dspFCRecBytes = 16

// fcDSPParams is the shape of a fully connected layer on the DSP loops
// (the rest is in the records).
type fcDSPParams struct {
	batches    int // rows of input and output
	outDepth   int // output channels (weight rows)
	accumDepth int // input channels (weight columns)
}

// fcDSPInt8 is the int8 fully connected layer (per-tensor or per-channel
// weights) through dspFCRow, one call per input row: wt holds the weights
// in dspFCPack's layout, rec the header and records of dspFCPlan.
// accumDepth is a multiple of four.
func fcDSPInt8(p *fcDSPParams, in []int8, wt, rec string, out []int8) {
	k, n := p.accumDepth, p.outDepth
	if k < 4 || k%4 != 0 || n <= 0 || p.batches <= 0 {
		return
	}
	in, out = in[:p.batches*k], out[:p.batches*n]
	wt, rec = wt[:n*k], rec[:dspFCHdr+dspFCRecBytes*n]
	pw, pr := unsafe.Pointer(unsafe.StringData(wt)), unsafe.Pointer(unsafe.StringData(rec))
	for b := 0; b < p.batches; b++ {
		dspFCRow(unsafe.Pointer(&in[b*k]), pw, pr, unsafe.Pointer(&out[b*n]))
	}
}

// dspFCGroup returns the size of the channel group that starts at channel
// c0 of N: eight, then four, two and one for the last N%8.
func dspFCGroup(c0, N int) int {
	m := 8
	for c0+m > N {
		m /= 2
	}
	return m
}

// dspFCRowRef is dspFCRow in Go: the outputs (header at r) of the int8
// row at x, for the weights at w (dspFCPack's layout) and the records after
// the header, stored at o.
func dspFCRowRef(x, w, r, o unsafe.Pointer) {
	h := (*[dspFCHdr]byte)(r)
	n8, k4 := int(le32((*[4]byte)(h[0:4]))), int(le32((*[4]byte)(h[4:8])))
	N := 8*int(le32((*[4]byte)(h[8:12]))) + int(le32((*[4]byte)(h[12:16])))
	span, lo := le32((*[4]byte)(h[16:20])), le32((*[4]byte)(h[20:24]))
	K := 8*n8 + 4*k4
	xs := unsafe.Slice((*int8)(x), K)
	ws := unsafe.Slice((*int8)(w), N*K)
	out := unsafe.Slice((*int8)(o), N)
	for c0 := 0; c0 < N; {
		m := dspFCGroup(c0, N)
		wg := ws[c0*K : (c0+m)*K]
		for c := 0; c < m; c++ {
			var s int32
			for j := 0; j < K; j++ {
				// Column j's weight: an oct interleaves its channels by
				// fours, the smaller groups by eights (the last four
				// columns by fours).
				g, n := j/8, 8
				if m == 8 || j >= 8*n8 {
					g, n = j/4, 4
				}
				s += int32(xs[j]) * int32(wg[m*n*g+n*c+j%n])
			}
			rc := (*[dspFCRecBytes]byte)(unsafe.Add(r, dspFCHdr+dspFCRecBytes*(c0+c)))
			out[c0+c] = int8(lo + dspQS(s, rc, span))
		}
		c0 += m
	}
}

// dspQS is the requantization of dspFCRow's sum s with record rc: the sum
// plus the bias, saturated into [-2^30, 2^30], doubled (v2); then the high
// word of K*2^32 + v2*m + 2^31 (SMMLAR), less 1 when v2 < 0, shifted
// right by r and clamped to [0, span].
func dspQS(s int32, rc *[dspFCRecBytes]byte, span int32) int32 {
	v := min(max(s+le32((*[4]byte)(rc[0:4])), -1<<30), 1<<30-1)
	v2, m, k, r := 2*v, le32((*[4]byte)(rc[4:8])), le32((*[4]byte)(rc[8:12])), uint32(le32((*[4]byte)(rc[12:16])))
	t := int32((int64(k)<<32 + int64(v2)*int64(m) + 1<<31) >> 32)
	return min(max((t+v2>>31)>>(r&31), 0), span)
}

// dspFCPack lays out N weight rows of K int8 columns (K a multiple of
// four; row(j) returns row j) for dspFCRow: groups of eight channels, their
// rows interleaved by groups of four columns ([c0 k0..k3][c1 k0..k3]...
// [c7 k0..k3][c0 k4..k7]...), then a quad, a pair and a single for the
// last N%8, interleaved by groups of eight columns and a last four.
func dspFCPack(N, K int, row func(j int) []byte) []byte {
	out := make([]byte, 0, N*K)
	for c0 := 0; c0 < N; {
		m := dspFCGroup(c0, N)
		step := 8
		if m == 8 {
			step = 4
		}
		for g := 0; g < K; g += step {
			n := min(step, K-g)
			for c := c0; c < c0+m; c++ {
				out = append(out, row(c)[g:g+n]...)
			}
		}
		c0 += m
	}
	return out
}

// dspFCPlan returns dspFCRow's record string for the requantization
// triples rq (folded bias, multiplier, exponent per channel, little-endian
// int32) of rows of K columns, output zero point zo and clamp [lo, hi]:
// the header, then one dspFCRecBytes record per channel. ok is false
// where the requantization would not be exact: a right shift outside 1
// to 21, or sums that may leave [-2^30, 2^30) (|bias| + K*2^14 >= 2^30)
// for a channel whose outputs at the ends of that range are not already
// lo and hi (then the saturation changes no output).
func dspFCPlan(rq []byte, K int, zo, lo, hi int32) ([]byte, bool) {
	N := len(rq) / 12
	if N <= 0 || K < 4 || K%4 != 0 || K >= 1<<16 || hi < lo || hi-lo > 255 || zo < lo || zo-lo > 255 {
		return nil, false
	}
	span := hi - lo
	out := make([]byte, 0, dspFCHdr+dspFCRecBytes*N)
	put := func(v int32) { out = append(out, byte(v), byte(v>>8), byte(v>>16), byte(v>>24)) }
	for _, v := range []int32{int32(K / 8), int32(K % 8 / 4), int32(N / 8), int32(N % 8), span, lo} {
		put(v)
	}
	for j := 0; j < N; j++ {
		s := rq[12*j : 12*j+12]
		bias := int32(uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24)
		m := int32(uint32(s[4]) | uint32(s[5])<<8 | uint32(s[6])<<16 | uint32(s[7])<<24)
		r := uint32(-int32(uint32(s[8]) | uint32(s[9])<<8 | uint32(s[10])<<16 | uint32(s[11])<<24))
		if m < 0 || r-1 >= 21 {
			return nil, false
		}
		if b := int64(bias); max(b, -b)+int64(K)<<14 >= 1<<30 {
			// lo + span - convPWQ is the output; at the ends of the
			// range it must be hi and lo.
			var t convPWCh
			convPWChSet(&t, bias, 2*uint32(m), r, uint32(zo-lo))
			if convPWQ(1<<31-1, &t, span) != 0 || convPWQ(0, &t, span) != span {
				return nil, false
			}
		}
		put(bias)
		put(m)
		put(int32(1)<<(r-1) + (zo-lo)<<r)
		put(int32(r))
	}
	return out, true
}

// The 16x8 fully connected layer (int16 activations, int8 weights, 64-bit
// accumulator) on the DSP extension: dspFC16Row is dspFCRow's loop with
// the row already in 16-bit pairs (one word load, two columns), the
// weights of every group of four columns stored in the order 0, 2, 1, 3 so
// that SXTB16 widens them into the pairs (0, 1) and (2, 3) that match the
// row's words (46 instructions for 32 multiply-accumulates). A product is
// at most 2^22 in magnitude, so 256 columns (and a last four) sum exactly
// in 32 bits: longer rows run in blocks of 256 columns whose sums are
// added to 64-bit ones. The requantization is TFLM's 64-bit one
// (mulByQuantMul64) in the form dspFC16Plan records.

// dspFC16Hdr is the size of the header before the channel records of a
// dspFC16Row record string: little-endian int32 words n8, k4, quads, rem
// (as dspFCHdr's), lo and hi (actMin, actMax), zo (the output zero point)
// and long (1 when n8 > 32: the row runs in blocks).
const dspFC16Hdr = 32

// dspRec16Bytes is the size of a dspFC16Row channel record: the
// multiplier u, the 64-bit addend D (low word, high word) and the shift e
// (dspFC16Plan).
const dspRec16Bytes = 16

// fcDSPInt16 is the 16x8 fully connected layer with a 64-bit accumulator
// through dspFC16Row, one call per input row: wt holds the weights in
// dspFC16Pack's layout, rec the header and records of dspFC16Plan.
// accumDepth is a multiple of four.
func fcDSPInt16(p *fcDSPParams, in []int16, wt, rec string, out []int16) {
	k, n := p.accumDepth, p.outDepth
	if k < 4 || k%4 != 0 || n <= 0 || p.batches <= 0 {
		return
	}
	in, out = in[:p.batches*k], out[:p.batches*n]
	wt, rec = wt[:n*k], rec[:dspFC16Hdr+dspRec16Bytes*n]
	pw, pr := unsafe.Pointer(unsafe.StringData(wt)), unsafe.Pointer(unsafe.StringData(rec))
	for b := 0; b < p.batches; b++ {
		dspFC16Row(unsafe.Pointer(&in[b*k]), pw, pr, unsafe.Pointer(&out[b*n]))
	}
}

// dspFC16RowRef is dspFC16Row in Go: the outputs (header at r) of the
// int16 row at x, for the weights at w (dspFC16Pack's layout) and the
// records after the header, stored at o.
func dspFC16RowRef(x, w, r, o unsafe.Pointer) {
	h := (*[dspFC16Hdr]byte)(r)
	n8, k4 := int(le32((*[4]byte)(h[0:4]))), int(le32((*[4]byte)(h[4:8])))
	N := 4*int(le32((*[4]byte)(h[8:12]))) + int(le32((*[4]byte)(h[12:16])))
	lo, hi, zo := le32((*[4]byte)(h[16:20])), le32((*[4]byte)(h[20:24])), le32((*[4]byte)(h[24:28]))
	K := 8*n8 + 4*k4
	xs := unsafe.Slice((*int16)(x), K)
	ws := unsafe.Slice((*int8)(w), N*K)
	out := unsafe.Slice((*int16)(o), N)
	for c0 := 0; c0 < N; {
		m := 4
		if c0+4 > N {
			m = 2
			if c0+2 > N {
				m = 1
			}
		}
		wg := ws[c0*K : (c0+m)*K]
		for c := 0; c < m; c++ {
			var s int64
			for j := 0; j < K; j++ {
				// Column j's weight: its group of eight (or the last
				// four), the channel's slot in it, the order 0, 2, 1, 3.
				g, n := j/8, 8
				if j >= 8*n8 {
					n = 4
				}
				s += int64(xs[j]) * int64(wg[8*m*g+n*c+j%8&^3+[4]int{0, 2, 1, 3}[j&3]])
			}
			rc := (*[dspRec16Bytes]byte)(unsafe.Add(r, dspFC16Hdr+dspRec16Bytes*(c0+c)))
			out[c0+c] = int16(dspQ16(s, rc, lo, hi, zo))
		}
		c0 += m
	}
}

// dspQ16 is the output of the 64-bit sum s (before the bias) for record
// rc: the high word of s*u + D (modulo 2^64) shifted right by e, plus zo,
// clamped to [lo, hi].
func dspQ16(s int64, rc *[dspRec16Bytes]byte, lo, hi, zo int32) int32 {
	u := uint64(uint32(le32((*[4]byte)(rc[0:4]))))
	d := uint64(uint32(le32((*[4]byte)(rc[4:8])))) | uint64(uint32(le32((*[4]byte)(rc[8:12]))))<<32
	y := int32(uint32((uint64(s)*u+d)>>32)) >> (uint32(le32((*[4]byte)(rc[12:16]))) & 31)
	return min(max(y+zo, lo), hi)
}

// dspFC16Pack lays out N weight rows of K int8 columns (K a multiple of
// four; row(j) returns row j) for dspFC16Row: groups of four channels,
// then a pair and a single for the last N%4, each group's rows interleaved
// by groups of eight columns ([c0 k0..k7][c1 k0..k7]...[c0 k8..k15]...),
// a last group of four columns the same way; every group of four columns
// stored in the order 0, 2, 1, 3.
func dspFC16Pack(N, K int, row func(j int) []byte) []byte {
	out := make([]byte, 0, N*K)
	for c0 := 0; c0 < N; {
		m := 4
		for c0+m > N {
			m /= 2
		}
		for g := 0; g < K; g += 8 {
			n := min(8, K-g)
			for c := c0; c < c0+m; c++ {
				out = append(out, row(c)[g:g+n]...)
			}
		}
		c0 += m
	}
	for i := 0; i+4 <= len(out); i += 4 {
		out[i+1], out[i+2] = out[i+2], out[i+1]
	}
	return out
}

// dspFC16Plan returns dspFC16Row's record string for rows of K columns,
// the int64 biases, multipliers and exponents of the N channels, output
// zero point zo and clamp [lo, hi]; ok false where the form does not apply.
//
// mulByQuantMul64(S, m, shift) is int32((S*u0 + 2^(t-1)) >> t) for the
// reduced multiplier u0 < 2^15 and t = 15 - shift. For t > 32 that is the
// high word of S*u0 + 2^(t-1) shifted right by e = t - 32 (|S| < 2^47, as
// TFLM assumes, keeps the 64-bit sum exact). For 17 <= t <= 32, the low 32
// bits of that sum shifted right by t are the high word of the same sum
// shifted left by 32 - t, modulo 2^64: S*u + 2^31 with u = u0 << (32 - t)
// < 2^31, e = 0. Smaller t (a rescale of 1/4 or more) is declined. With S
// = s + bias for the sum s of products, the record holds u, D = bias*u +
// the rounding term (modulo 2^64) and e.
func dspFC16Plan(K int, bias []int64, mult, shift []int32, zo, lo, hi int32) ([]byte, bool) {
	N := len(bias)
	if N <= 0 || len(mult) != N || len(shift) != N || K < 4 || K%4 != 0 || lo > hi {
		return nil, false
	}
	out := make([]byte, 0, dspFC16Hdr+dspRec16Bytes*N)
	put := func(v uint32) { out = append(out, byte(v), byte(v>>8), byte(v>>16), byte(v>>24)) }
	long := int32(0)
	if K/8 > 32 {
		long = 1
	}
	for _, v := range []int32{int32(K / 8), int32(K % 8 / 4), int32(N / 4), int32(N % 4), lo, hi, zo, long} {
		put(uint32(v))
	}
	for j := range N {
		m, t := mult[j], 15-int(shift[j])
		if m < 0 || t < 17 || t > 62 {
			return nil, false
		}
		u0 := uint64(0x7FFF)
		if m < 0x7FFF0000 {
			u0 = uint64((m + 1<<15) >> 16)
		}
		u, d, e := u0, uint64(1)<<(t-1), t-32
		if t <= 32 {
			u, d, e = u0<<(32-t), 1<<31, 0
		}
		d += uint64(bias[j]) * u
		put(uint32(u))
		put(uint32(d))
		put(uint32(d >> 32))
		put(uint32(e))
	}
	return out, true
}
