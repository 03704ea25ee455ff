package kernels

import "unsafe"

// convPWDSPParams describes a pointwise convolution for convPWDSP.
type convPWDSPParams struct {
	pixels, inC, outC int   // batches*height*width; input and output channels
	span, hi          int32 // actMax - actMin, actMax
}

// dspRecBytes is the size of a convPWDSP requantization record: the
// channel's folded bias plus 2^30, then convPWCh's m2, d (low word, high
// word) and r, little-endian, as convPWQ uses them.
const dspRecBytes = 20

// convPWDSP is the int8 pointwise convolution (1x1 filter, stride 1) as
// two pixels by two output channels tiles (dspPWPairs, an odd last channel
// through dspDot2x2Rows): the sums of a tile start at the channels' biases
// and go straight into convPWQ with the record the generator computed
// (dspPlanRecords). inC is a multiple of four; wt holds the weights in
// dspPackPairs' layout, rec a record per output channel, scr
// dspPWArgsWords words of scratch (8-byte aligned) for the loops' argument
// blocks. An odd last pixel runs alone (dspPWOne), its odd last channel
// paired with itself.
func convPWDSP(p *convPWDSPParams, in []int8, wt, rec string, scr []int32, out []int8) {
	K, N, P := p.inC, p.outC, p.pixels
	if P <= 0 || N <= 0 || K < 4 || K%4 != 0 {
		return
	}
	in, out = in[:P*K], out[:P*N]
	k4 := K / 4
	wt, rec = wt[:(N+1)/2*8*k4], rec[:dspRecBytes*N]
	g := (*dspPWArgs)(unsafe.Pointer(unsafe.SliceData(scr[:dspPWArgsWords])))
	span, hi := p.span, p.hi
	pw, pr := unsafe.Pointer(unsafe.StringData(wt)), unsafe.Pointer(unsafe.StringData(rec))
	for px := 0; px+1 < P; px += 2 {
		dspClear(unsafe.Pointer(g), dspPWArgsWords)
		oa, ob := out[px*N:px*N+N], out[px*N+N:px*N+2*N]
		xa := unsafe.Pointer(&in[px*K])
		if N >= 2 {
			dspSetPtr(&g.x, xa)
			dspSetPtr(&g.w, pw)
			dspSetPtr(&g.rec, pr)
			dspSetPtr(&g.oa, unsafe.Pointer(&oa[0]))
			dspSetPtr(&g.ob, unsafe.Pointer(&ob[0]))
			g.n, g.xb = uint32(k4), uint32(K)
			g.pairs, g.span, g.lo = uint32(N/2), span, hi-span
			dspPWPairs(g)
		}
		if N%2 != 0 {
			dspPWLast(g, xa, uint32(K), pw, pr, k4, N, span, hi, oa, ob)
		}
	}
	if P%2 == 0 {
		return
	}
	// An odd last pixel runs alone (its odd last channel paired with
	// itself).
	dspClear(unsafe.Pointer(g), dspPWArgsWords)
	oa := out[(P-1)*N : P*N]
	xa := unsafe.Pointer(&in[(P-1)*K])
	if N >= 2 {
		dspSetPtr(&g.x, xa)
		dspSetPtr(&g.w, pw)
		dspSetPtr(&g.rec, pr)
		dspSetPtr(&g.oa, unsafe.Pointer(&oa[0]))
		g.n, g.pairs, g.span, g.lo = uint32(k4), uint32(N/2), span, hi-span
		dspPWOne(g)
	}
	if N%2 != 0 {
		dspPWLast(g, xa, 0, pw, pr, k4, N, span, hi, oa, oa)
	}
}

// convPWDSPW is convPWDSP with each pixel pair widened first (dspWiden2)
// into scratch after the argument block, so that the tiles load a group's
// four widened words with one instruction (dspPWPairsW): scr holds
// dspPWArgsWords + dspWidenWords(inC) words.
func convPWDSPW(p *convPWDSPParams, in []int8, wt, rec string, scr []int32, out []int8) {
	K, N, P := p.inC, p.outC, p.pixels
	if P <= 0 || N <= 0 || K < 4 || K%4 != 0 {
		return
	}
	in, out = in[:P*K], out[:P*N]
	k4 := K / 4
	wt, rec = wt[:(N+1)/2*8*k4], rec[:dspRecBytes*N]
	scr = scr[:dspPWArgsWords+dspWidenWords(K)]
	g := (*dspPWArgs)(unsafe.Pointer(unsafe.SliceData(scr)))
	span, hi := p.span, p.hi
	pw, pr := unsafe.Pointer(unsafe.StringData(wt)), unsafe.Pointer(unsafe.StringData(rec))
	for px := 0; px < P; px += 2 {
		dspClear(unsafe.Pointer(g), dspPWArgsWords)
		oa, ob := out[px*N:px*N+N], out[px*N:px*N+N]
		xb := uint32(K)
		if px+1 < P {
			ob = out[px*N+N : px*N+2*N]
		} else {
			xb = 0
		}
		xa := unsafe.Pointer(&in[px*K])
		dspSetPtr(&g.x, xa)
		dspSetPtr(&g.wx, unsafe.Pointer(&scr[dspPWArgsWords]))
		g.n, g.xb = uint32(k4), xb
		dspWiden2(g)
		if N >= 2 {
			dspSetPtr(&g.w, pw)
			dspSetPtr(&g.rec, pr)
			dspSetPtr(&g.oa, unsafe.Pointer(&oa[0]))
			dspSetPtr(&g.ob, unsafe.Pointer(&ob[0]))
			g.pairs, g.span, g.lo = uint32(N/2), span, hi-span
			dspPWPairsW(g)
		}
		if N%2 != 0 {
			dspPWLast(g, xa, xb, pw, pr, k4, N, span, hi, oa, ob)
		}
	}
}

// dspPWLast computes an odd last output channel N-1 of a pixel pair
// (paired in the weights with zeros) through dspDot2x2Rows, with g's block
// as its arguments.
func dspPWLast(g *dspPWArgs, xa unsafe.Pointer, xb uint32, pw, pr unsafe.Pointer, k4, N int, span, hi int32, oa, ob []int8) {
	j := N - 1
	r := (*[dspRecBytes]byte)(unsafe.Add(pr, dspRecBytes*j))
	b := le32((*[4]byte)(r[0:4]))
	dspClear(unsafe.Pointer(g), dspPWArgsWords)
	d := (*dspArgs)(unsafe.Pointer(g))
	dspSetPtr(&d.x, xa)
	dspSetPtr(&d.w, unsafe.Add(pw, 8*k4*(j/2)))
	d.n, d.xb = uint32(k4), xb
	d.s = [4]int32{b, b, b, b}
	dspDot2x2Rows(d)
	oa[j] = int8(hi - dspQ(d.s[0], r, span))
	ob[j] = int8(hi - dspQ(d.s[2], r, span))
}

// dspQ is convPWQ with the record read from the generator's record r
// (dspRecBytes, unaligned): hi minus the result clamped to [0, span].
func dspQ(s int32, r *[dspRecBytes]byte, span int32) int32 {
	m2 := uint32(le32((*[4]byte)(r[4:8])))
	d := uint64(uint32(le32((*[4]byte)(r[8:12])))) | uint64(uint32(le32((*[4]byte)(r[12:16]))))<<32
	x := uint64(uint32(s))*uint64(m2) + d
	y := (int32(uint32(x>>32)) + int32(uint32(s)>>30)) >> (r[16] & 31)
	y &^= y >> 31
	z := span - y
	return z &^ (z >> 31)
}

// dspPlanRecords returns convPWDSP's records for the requantization
// triples rq (conv_rq.go: folded bias, multiplier, shift per channel) of
// rows of K inputs, output zero point zo and lower bound lo, and whether
// convPWQ is exact for every channel (convPWChDecode's test).
func dspPlanRecords(rq []byte, K int, zo, lo int32) ([]byte, bool) {
	n := len(rq) / 12
	t := make([]convPWCh, n)
	if !convPWChDecode(string(rq), K, zo, lo, t) {
		return nil, false
	}
	out := make([]byte, 0, dspRecBytes*n)
	for _, c := range t {
		for _, v := range []uint32{uint32(c.bias), c.m2, uint32(c.d), uint32(c.d >> 32), c.r} {
			out = append(out, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
		}
	}
	return out, true
}
