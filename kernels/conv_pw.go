package kernels

import "unsafe"

// Int8 CONV_2D as a matrix multiply, chosen at generation time for
// ungrouped convolutions (and depthwise convolutions of one input channel):
// out[p][oc] = requant(sum_k x[p][k]*w[oc][k] + folded bias[oc]), where
// row p of x is output pixel p's window (all taps and input channels, in
// filter order). convPWInt8 takes the rows straight from the input (1x1
// filter, stride 1: pixel p's window is input pixel p) with plain int32
// multiply-adds, two pixels by two output channels at a time (see there);
// convWinInt8 gathers them, writing the input zero point for taps in the
// padding: such a tap then adds zp*w, which the folded bias's inOffset*w
// cancels, exactly as the reference skips it.
//
// convWinInt8 multiplies three pixels at once: their row values are packed
// into one int64 as 21-bit lanes (a + b<<21 + c<<42) in a scratch row, so
// one 64-bit multiply by a weight yields three products in separate lanes.
// Weights are stored offset by 128 as uint8 (u = w + 128), which the
// compiler loads with one indexed instruction; sum(x*w) = sum(x*u) -
// 128*sum(x), the second term being split from the packed row sums once
// per three pixels. A lane holds a signed sum of at most convPWChunk
// products of magnitude <= 32640, which stays inside (-2^20, 2^20), so the
// lanes are split exactly after every chunk of that many columns and added
// up in int32. Sums of a whole row then wrap like the reference's int32
// accumulator.

// Columns a lane sums between splits: products (<= 32640), and plain
// inputs (<= 128) for the offset correction.
const (
	convPWChunk    = 32
	convPWSumChunk = 8191
)

// convPWParams describes a pointwise convolution.
type convPWParams struct {
	pixels         int   // batches * height * width
	inC, outC      int   // input and output channels
	outOffset      int32 // output zero point
	actMin, actMax int32 // quantized activation bounds
}

// convPWScratch is the scratch memory of convPWInt8 in int32 words for
// outC output channels: the records of a block of channels, then those of
// the channel pair convPWTile computes.
func convPWScratch(outC int) int { return (min(outC, convPWBlk) + 2) * convPWChWords }

// convPWInt8 runs the pointwise convolution. wt holds the int8 weights in
// the layout of convPWPairs: for each pair of output channels (outC
// rounded up to even, the missing channel's weights zero), 2*inC bytes; rq
// holds the requantization triples (conv_rq.go); scr is
// convPWScratch(outC) words of scratch (8-byte aligned) for the decoded
// records.
//
// The products are computed for two pixels and two output channels at a
// time in four int32 sums, one 32-bit multiply-add each (MLA on ARM): a
// 32-bit core keeps the four sums, three base pointers and the loaded
// values in its registers, where lane-packed 64-bit products would need
// a 64-bit add per multiply and twice the registers per sum. The sums wrap
// like the reference's int32 accumulator.
func convPWInt8(p *convPWParams, in []int8, wt, rq string, scr []int32, out []int8) {
	K, N, P := p.inC, p.outC, p.pixels
	w := constI8(wt)
	in = in[:P*K]
	out = out[:P*N]
	w = w[:(N+1)/2*2*K]
	K8, K16 := K/8, K/16
	if K%8 == 0 && !convPW64 {
		// Blocks of convPWBlk channels whose requantizations convPWQ
		// takes run as tiles (convPWGrid, convPWRunK8, convPWTile); the
		// others pair by pair.
		scr = scr[:convPWScratch(N)]
		nb := min(N, convPWBlk)
		var g convPWRunArgs
		g.t = unsafe.Slice((*convPWCh)(unsafe.Pointer(&scr[0])), nb)
		g.t2 = (*[2]convPWCh)(unsafe.Pointer(&scr[nb*convPWChWords]))
		for ob := 0; ob < N; ob += convPWBlk {
			if !convPWBlock(p, &g, rq, ob) {
				convPWPairs(p, in, w, rq, out, ob, min(ob+convPWBlk, N))
				continue
			}
			g.P, g.N, g.K8, g.out = P, N, K8, out[ob:]
			switch {
			case K8 == 1 && N%2 == 0:
				// Rows and weights as groups of eight and sixteen (made
				// here: unsafe.Slice of a variable length is a runtime
				// call, which convPWGrid's blocks do without).
				g.x = unsafe.Slice((*[8]int8)(unsafe.Pointer(unsafe.SliceData(in))), len(in)/8)
				w16 := unsafe.Slice((*[16]int8)(unsafe.Pointer(unsafe.SliceData(w))), len(w)/16)
				g.w = w16[ob/2*K8:]
				// The outputs by channel pair, made here (unsafe.Slice of
				// a variable length is a runtime call, and a pointer
				// stored through &g in the kernel would move g to the
				// heap).
				g.out2 = unsafe.Slice((*[2]int8)(unsafe.Pointer(unsafe.SliceData(g.out))), (len(g.out)+1)/2)
				convPWRunK8(&g)
			case g.nb%2 == 0:
				g.in, g.wt, g.tp = in, w[ob*K:], unsafe.Pointer(&g.t[0])
				g.pin, g.pwt = unsafe.Pointer(unsafe.SliceData(g.in)), unsafe.Pointer(unsafe.SliceData(g.wt))
				g.pout = unsafe.Pointer(unsafe.SliceData(g.out))
				convPWGrid(&g)
			default:
				// Pair by pair: g.t2 the pair's records; rows and
				// weights as groups of eight and sixteen, and of sixteen
				// and thirty-two for rows of an even number of groups.
				g.x = unsafe.Slice((*[8]int8)(unsafe.Pointer(unsafe.SliceData(in))), len(in)/8)
				g.x16 = unsafe.Slice((*[16]int8)(unsafe.Pointer(unsafe.SliceData(in))), len(in)/16)
				w16 := unsafe.Slice((*[16]int8)(unsafe.Pointer(unsafe.SliceData(w))), len(w)/16)
				w32 := unsafe.Slice((*[32]int8)(unsafe.Pointer(unsafe.SliceData(w))), len(w)/32)
				for j := 0; j < g.nb; j += 2 {
					g.t2[0], g.t2[1] = g.t[j], g.t[min(j+1, g.nb-1)]
					g.two = j+1 < g.nb
					g.w, g.w32 = w16[(ob+j)/2*K8:], w32[(ob+j)/2*K16:]
					g.out = out[ob+j:]
					convPWTile(&g)
				}
			}
		}
		return
	}
	convPWPairs(p, in, w, rq, out, 0, N)
}

// convPWPairs is convPWInt8 for output channels lo..hi-1 (lo even), a pair
// at a time (four on 64-bit machines): convPWQuad8, convPWPair8 or
// convPWDotAny, with convPWRQ's requantization. in, w and out are
// convPWInt8's, resliced.
func convPWPairs(p *convPWParams, in, w []int8, rq string, out []int8, lo, hi int) {
	K, N, P := p.inC, p.outC, p.pixels
	K8 := K / 8
	in8 := unsafe.Slice((*[8]int8)(unsafe.Pointer(unsafe.SliceData(in))), len(in)/8)
	w16 := unsafe.Slice((*[16]int8)(unsafe.Pointer(unsafe.SliceData(w))), len(w)/16)
	var q [4]convPWRQ
	q2 := (*[2]convPWRQ)(q[:2])
	for ob := lo; ob < hi; ob += 2 {
		convPWRQLoad(rq, ob, &q[0])
		two := ob+1 < N
		if two {
			convPWRQLoad(rq, ob+1, &q[1])
		}
		if convPW64 && K%8 == 0 && K < 1<<17 && ob+2 < hi {
			// Four channels, two pixels a multiply (convPWQuad8).
			convPWRQLoad(rq, ob+2, &q[2])
			m := min(4, hi-ob)
			if m == 4 {
				convPWRQLoad(rq, ob+3, &q[3])
			}
			convPWQuad8(p, in8, w16[ob/2*K8:ob/2*K8+2*K8], &q, m, out[ob:])
			ob += 2
			continue
		}
		if K%8 == 0 {
			convPWPair8(p, in8, w16[ob/2*K8:ob/2*K8+K8], q2, two, out[ob:])
			continue
		}
		wb := w[ob*K : ob*K+2*K]
		for px := 0; px < P; px += 2 {
			p1 := min(px+1, P-1) // an odd last pixel is paired with itself
			s00, s01, s10, s11 := convPWDotAny(in[px*K:px*K+K], in[p1*K:p1*K+K], wb)
			convPWStore2x2(p, s00, s01, s10, s11, q2, two, px+1 < P, out[px*N+ob:])
		}
	}
}

// convPWStore2x2 rescales and stores the sums of pixels px (s00, s01) and
// px+1 (s10, s11, when second) for output channels ob (q[0]) and ob+1
// (s01, s11, q[1], when two); out starts at pixel px, channel ob.
func convPWStore2x2(p *convPWParams, s00, s01, s10, s11 int32, q *[2]convPWRQ, two, second bool, out []int8) {
	zo, lo, hi := p.outOffset, p.actMin, p.actMax
	out[0] = convPWOut(s00, &q[0], zo, lo, hi)
	if two {
		out[1] = convPWOut(s01, &q[1], zo, lo, hi)
	}
	if second {
		o := out[p.outC:]
		o[0] = convPWOut(s10, &q[0], zo, lo, hi)
		if two {
			o[1] = convPWOut(s11, &q[1], zo, lo, hi)
		}
	}
}

// convPWRQ is one output channel's requantization in 32-bit steps: the
// folded bias, the left shift, twice the multiplier (the multiplier is Q31
// and >= 0, so this fits in uint32) and, for the rounding right shift r,
// the mask 2^r - 1, the half 2^(r-1) and negRound, all ones when r > 0
// (mask, half and negRound are zero when r = 0).
type convPWRQ struct {
	bias                 int32
	left, mult2, right   uint32
	mask, half, negRound uint32
	// For right >= 2 (then left = 0), convRQR's kh = 2^(right-2) and
	// rm1 = right - 1.
	kh, rm1 uint32
}

// convPWRQLoad decodes channel c's triple (folded bias, multiplier, shift)
// of rq into q.
func convPWRQLoad(rq string, c int, q *convPWRQ) {
	s := rq[12*c : 12*c+12]
	q.bias = int32(uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24)
	q.mult2 = (uint32(s[4]) | uint32(s[5])<<8 | uint32(s[6])<<16 | uint32(s[7])<<24) << 1
	shift := int32(uint32(s[8]) | uint32(s[9])<<8 | uint32(s[10])<<16 | uint32(s[11])<<24)
	q.left, q.right = uint32(max(shift, 0)), uint32(max(-shift, 0))
	q.mask, q.half, q.negRound = 0, 0, 0
	if q.right > 0 {
		q.mask = 1<<q.right - 1
		q.half = 1 << (q.right - 1)
		q.negRound = ^uint32(0)
		q.kh, q.rm1 = 1<<(q.right-2&31), q.right-1
	}
}

// convPWOut adds the folded bias to the sum acc, rescales it
// (convPWRescale), adds the output zero point zo and clamps it to [lo, hi].
func convPWOut(acc int32, q *convPWRQ, zo, lo, hi int32) int8 {
	return int8(max(min(convPWRescale(acc, q)+zo, hi), lo))
}

// convPWRescale adds the folded bias to the sum acc and rescales it with
// 32-bit operations (bit-exact mulByQuantMul).
//
// With v = (acc + bias) << left and m the multiplier (0 <= m < 2^31), the
// rounding doubling high multiply is floor((v*m + 2^30) / 2^31) (see
// fc_rq.go), i.e. the high word h of v*2m + 2^31: the unsigned 32x32->64
// product of uint32(v) and 2m plus 2^31, less 2m in the high word when
// v < 0. The rounding right shift of h by r is floor((h + 2^(r-1) -
// [h < 0]) / 2^r), i.e. h>>r plus the carry of (h & mask) + half - [h < 0],
// which is 0 or 1 (and h itself when r = 0).
func convPWRescale(acc int32, q *convPWRQ) int32 {
	return convRQ32(acc, q.bias, q.left, q.mult2, q.right, q.mask, q.half, q.negRound)
}

// convRQ32 is convPWRescale with the requantization's fields as
// arguments, which the compiler can keep in registers across a loop.
func convRQ32(acc, bias int32, left, mult2, right, mask, half, negRound uint32) int32 {
	v := (acc + bias) << (left & 31)
	h := int32((uint64(uint32(v))*uint64(mult2)+1<<31)>>32) - int32(mult2&uint32(v>>31))
	r := right & 31
	return h>>r + int32((uint32(h)&mask+half+uint32(h>>31)&negRound)>>r)
}

// convRQR is the rescale of v = acc + bias by multiplier m with a right
// shift r >= 2 (left shift 0), bit-exact mulByQuantMul, in one 32x32->64
// multiply, one 64-bit add and one shift; kh is 2^(r-2) and rm1 is r-1.
// With X = v*m, the doubling high multiply and the rounding right shift
// merge (conv_rq.go) into
//
//	floor((X + 2^30 + 2^(30+r) - [h < 0]*2^31) / 2^(31+r))
//
// where h = floor((X + 2^30)/2^31). h < 0 implies v < 0, and v < 0 implies
// h <= 0; where v < 0 but h = 0 the correction changes nothing (both
// floor((2^(r-1) - 1)/2^r) and floor(2^(r-1)/2^r) are 0 for r >= 1), so
// [v < 0] replaces [h < 0]. X is the unsigned product of uint32(v) and m
// less m*2^32 when v < 0, so with s = v>>31 the addend is, modulo 2^64,
// (kh - (m+1)&s)*2^32 + 2^30 + (s&2^31) (|X| < 2^62: the true sum is
// within int64 and its high word within int32). The shift is at least 32,
// so the result is the high word shifted right by r-1.
func convRQR(v int32, m, kh, rm1 uint32) int32 {
	s := uint32(v >> 31)
	k := uint64(kh+s&^m)<<32 | uint64(1<<30|s&(1<<31))
	return int32(uint32((uint64(uint32(v))*uint64(m)+k)>>32)) >> (rm1 & 31)
}

// convPWBatch is how many pixel pairs convPWPair8 passes to convPWDot8 at
// once (their sums are kept in a local array).
const convPWBatch = 16

// convPWPair8 computes output channels ob and ob+1 (when two) for every
// pixel: x holds the pixels' rows as groups of eight inputs (K/8 groups a
// pixel), w the channel pair's weights as groups of sixteen (the first
// channel's eight, then the second's), q their requantizations; out starts
// at channel ob of pixel 0. The dot products of a batch of pixel pairs
// come from convPWDot8 (an odd last pixel is paired with itself), then
// the batch is rescaled and stored.
//
//go:noinline
func convPWPair8(p *convPWParams, x [][8]int8, w [][16]int8, q *[2]convPWRQ, two bool, out []int8) {
	K8, N, P := len(w), p.outC, p.pixels
	zo, lo, hi := p.outOffset, p.actMin, p.actMax
	nch := 1
	if two {
		nch = 2
	}
	// With an even number of groups, rows and weights are read as groups
	// of sixteen and thirty-two (convPWDot16).
	x16 := unsafe.Slice((*[16]int8)(unsafe.Pointer(unsafe.SliceData(x))), len(x)/2)
	w32 := unsafe.Slice((*[32]int8)(unsafe.Pointer(unsafe.SliceData(w))), len(w)/2)
	// sums[j][t] is channel ob+j of pixel px+t.
	var sums [2][2 * convPWBatch]int32
	for px := 0; px < P; px += 2 * convPWBatch {
		n := min(convPWBatch, (P-px+1)/2)
		for i := 0; i < n; i++ {
			a := (px + 2*i) * K8
			b := min(a+K8, (P-1)*K8)
			var s00, s01, s10, s11 int32
			if K8%2 == 0 {
				s00, s01, s10, s11 = convPWDot16(x16[a/2:a/2+K8/2], x16[b/2:b/2+K8/2], w32)
			} else {
				s00, s01, s10, s11 = convPWDot8(x[a:a+K8], x[b:b+K8], w)
			}
			sums[0][2*i], sums[1][2*i], sums[0][2*i+1], sums[1][2*i+1] = s00, s01, s10, s11
		}
		m := min(2*convPWBatch, P-px)
		for j := 0; j < nch; j++ {
			// One channel at a time, so that its requantization stays in
			// registers (convRQ32 written out: so the compiler keeps more
			// of it in registers).
			qj := &q[j]
			o := out[px*N+j:]
			if qj.right >= 2 && qj.right <= 23 && zo >= -128 && zo <= 128 {
				// convRQR written out, with zo added in the high word
				// (zo*2^(r-1)), which adds it to the result exactly: the
				// high word stays below 2^30 + 2^(r-2) + 2^(r+6) <= 2^31
				// in magnitude.
				bias, mult, rm1 := qj.bias, qj.mult2>>1, qj.rm1&31
				kh := qj.kh + uint32(zo)<<rm1
				for t, acc := range sums[j][:m] {
					o[t*N] = int8(max(min(convRQR(acc+bias, mult, kh, rm1), hi), lo))
				}
				continue
			}
			bias, left, mult2, right := qj.bias, qj.left&31, qj.mult2, qj.right&31
			mask, half, neg := qj.mask, qj.half, qj.negRound
			for t, acc := range sums[j][:m] {
				v := (acc + bias) << left
				h := int32((uint64(uint32(v))*uint64(mult2)+1<<31)>>32) - int32(mult2&uint32(v>>31))
				y := h>>right + int32((uint32(h)&mask+half+uint32(h>>31)&neg)>>right)
				o[t*N] = int8(max(min(y+zo, hi), lo))
			}
		}
	}
}

// convPWDot8 returns the dot products of two pixel rows a and b (groups of
// eight inputs) with the weight rows of a pair of output channels w
// (groups of sixteen: the first channel's eight, then the second's); s01 is
// a with the second channel's weights. Each product is one multiply-add;
// the four sums, the three bases and the loaded values fit in a 32-bit
// core's registers.
//
//go:noinline
func convPWDot8(a, b [][8]int8, w [][16]int8) (s00, s01, s10, s11 int32) {
	b, w = b[:len(a)], w[:len(a)]
	for k := range a {
		qa, qb, r := &a[k], &b[k], &w[k]
		x, u := int32(qa[0]), int32(r[0])
		s00 += x * u
		y := int32(qb[0])
		s10 += y * u
		v := int32(r[8])
		s01 += x * v
		s11 += y * v
		x, u = int32(qa[1]), int32(r[1])
		s00 += x * u
		y = int32(qb[1])
		s10 += y * u
		v = int32(r[9])
		s01 += x * v
		s11 += y * v
		x, u = int32(qa[2]), int32(r[2])
		s00 += x * u
		y = int32(qb[2])
		s10 += y * u
		v = int32(r[10])
		s01 += x * v
		s11 += y * v
		x, u = int32(qa[3]), int32(r[3])
		s00 += x * u
		y = int32(qb[3])
		s10 += y * u
		v = int32(r[11])
		s01 += x * v
		s11 += y * v
		x, u = int32(qa[4]), int32(r[4])
		s00 += x * u
		y = int32(qb[4])
		s10 += y * u
		v = int32(r[12])
		s01 += x * v
		s11 += y * v
		x, u = int32(qa[5]), int32(r[5])
		s00 += x * u
		y = int32(qb[5])
		s10 += y * u
		v = int32(r[13])
		s01 += x * v
		s11 += y * v
		x, u = int32(qa[6]), int32(r[6])
		s00 += x * u
		y = int32(qb[6])
		s10 += y * u
		v = int32(r[14])
		s01 += x * v
		s11 += y * v
		x, u = int32(qa[7]), int32(r[7])
		s00 += x * u
		y = int32(qb[7])
		s10 += y * u
		v = int32(r[15])
		s01 += x * v
		s11 += y * v
	}
	return
}

// convPW64 is true where int is 64 bits wide: there convPWInt8 multiplies
// two pixels at once with 64-bit products (convPWQuad8).
const convPW64 = ^uint(0)>>63 == 1

// convPWQuad8 is convPWPair8 for four output channels ob..ob+3 (m of them
// exist; w holds their two channel pairs, q their requantizations), for
// 64-bit machines: the inputs of a pixel pair are packed into one int64,
// a + b<<32, so that one 64-bit multiply by a weight gives both products,
// a*w in the low 32 bits and b*w above. The low lane of a sum is the int32
// sum of a*w (wrapping like the reference's); as that sum is exact in
// int32 for K < 2^17, the high lane is the int32 sum of b*w.
//
//go:noinline
func convPWQuad8(p *convPWParams, x [][8]int8, w [][16]int8, q *[4]convPWRQ, m int, out []int8) {
	K8, N, P := len(w)/2, p.outC, p.pixels
	zo, lo, hi := p.outOffset, p.actMin, p.actMax
	w0, w1 := w[:K8], w[K8:2*K8]
	for px := 0; px < P; px += 2 {
		a := px * K8
		b := min(a+K8, (P-1)*K8)
		var s [4]int64
		s[0], s[1], s[2], s[3] = convPWDot8x4(x[a:a+K8], x[b:b+K8], w0, w1)
		o := out[px*N:]
		for j := range s[:m] {
			l := int32(s[j])
			o[j] = int8(max(min(convPWRescale(l, &q[j])+zo, hi), lo))
			if px+1 < P {
				o[N+j] = int8(max(min(convPWRescale(int32((s[j]-int64(l))>>32), &q[j])+zo, hi), lo))
			}
		}
	}
}

// convPWDot8x4 returns the lane-packed dot products (pixel a in the low 32
// bits, b above) of two pixel rows with the four weight rows of two
// channel pairs w0 and w1 (convPWDot8's layout).
//
//go:noinline
func convPWDot8x4(a, b [][8]int8, w0, w1 [][16]int8) (s0, s1, s2, s3 int64) {
	b, w0, w1 = b[:len(a)], w0[:len(a)], w1[:len(a)]
	for k := range a {
		qa, qb, r, t := a[k], b[k], w0[k], w1[k]
		v := int64(qa[0]) + int64(qb[0])<<32
		s0 += v * int64(r[0])
		s1 += v * int64(r[8])
		s2 += v * int64(t[0])
		s3 += v * int64(t[8])
		v = int64(qa[1]) + int64(qb[1])<<32
		s0 += v * int64(r[1])
		s1 += v * int64(r[9])
		s2 += v * int64(t[1])
		s3 += v * int64(t[9])
		v = int64(qa[2]) + int64(qb[2])<<32
		s0 += v * int64(r[2])
		s1 += v * int64(r[10])
		s2 += v * int64(t[2])
		s3 += v * int64(t[10])
		v = int64(qa[3]) + int64(qb[3])<<32
		s0 += v * int64(r[3])
		s1 += v * int64(r[11])
		s2 += v * int64(t[3])
		s3 += v * int64(t[11])
		v = int64(qa[4]) + int64(qb[4])<<32
		s0 += v * int64(r[4])
		s1 += v * int64(r[12])
		s2 += v * int64(t[4])
		s3 += v * int64(t[12])
		v = int64(qa[5]) + int64(qb[5])<<32
		s0 += v * int64(r[5])
		s1 += v * int64(r[13])
		s2 += v * int64(t[5])
		s3 += v * int64(t[13])
		v = int64(qa[6]) + int64(qb[6])<<32
		s0 += v * int64(r[6])
		s1 += v * int64(r[14])
		s2 += v * int64(t[6])
		s3 += v * int64(t[14])
		v = int64(qa[7]) + int64(qb[7])<<32
		s0 += v * int64(r[7])
		s1 += v * int64(r[15])
		s2 += v * int64(t[7])
		s3 += v * int64(t[15])
	}
	return
}

// convPWDot16 is convPWDot8 for rows of groups of sixteen inputs (two of
// convPWDot8's groups; w in the same layout, two groups of sixteen weights
// per element), so that the loop's overhead is paid once per 64 products.
//
//go:noinline
func convPWDot16(a, b [][16]int8, w [][32]int8) (s00, s01, s10, s11 int32) {
	b, w = b[:len(a)], w[:len(a)]
	for k := range a {
		qa, qb, r := &a[k], &b[k], &w[k]
		x, u := int32(qa[0]), int32(r[0])
		s00 += x * u
		y := int32(qb[0])
		s10 += y * u
		v := int32(r[8])
		s01 += x * v
		s11 += y * v
		x, u = int32(qa[1]), int32(r[1])
		s00 += x * u
		y = int32(qb[1])
		s10 += y * u
		v = int32(r[9])
		s01 += x * v
		s11 += y * v
		x, u = int32(qa[2]), int32(r[2])
		s00 += x * u
		y = int32(qb[2])
		s10 += y * u
		v = int32(r[10])
		s01 += x * v
		s11 += y * v
		x, u = int32(qa[3]), int32(r[3])
		s00 += x * u
		y = int32(qb[3])
		s10 += y * u
		v = int32(r[11])
		s01 += x * v
		s11 += y * v
		x, u = int32(qa[4]), int32(r[4])
		s00 += x * u
		y = int32(qb[4])
		s10 += y * u
		v = int32(r[12])
		s01 += x * v
		s11 += y * v
		x, u = int32(qa[5]), int32(r[5])
		s00 += x * u
		y = int32(qb[5])
		s10 += y * u
		v = int32(r[13])
		s01 += x * v
		s11 += y * v
		x, u = int32(qa[6]), int32(r[6])
		s00 += x * u
		y = int32(qb[6])
		s10 += y * u
		v = int32(r[14])
		s01 += x * v
		s11 += y * v
		x, u = int32(qa[7]), int32(r[7])
		s00 += x * u
		y = int32(qb[7])
		s10 += y * u
		v = int32(r[15])
		s01 += x * v
		s11 += y * v
		x, u = int32(qa[8]), int32(r[16])
		s00 += x * u
		y = int32(qb[8])
		s10 += y * u
		v = int32(r[24])
		s01 += x * v
		s11 += y * v
		x, u = int32(qa[9]), int32(r[17])
		s00 += x * u
		y = int32(qb[9])
		s10 += y * u
		v = int32(r[25])
		s01 += x * v
		s11 += y * v
		x, u = int32(qa[10]), int32(r[18])
		s00 += x * u
		y = int32(qb[10])
		s10 += y * u
		v = int32(r[26])
		s01 += x * v
		s11 += y * v
		x, u = int32(qa[11]), int32(r[19])
		s00 += x * u
		y = int32(qb[11])
		s10 += y * u
		v = int32(r[27])
		s01 += x * v
		s11 += y * v
		x, u = int32(qa[12]), int32(r[20])
		s00 += x * u
		y = int32(qb[12])
		s10 += y * u
		v = int32(r[28])
		s01 += x * v
		s11 += y * v
		x, u = int32(qa[13]), int32(r[21])
		s00 += x * u
		y = int32(qb[13])
		s10 += y * u
		v = int32(r[29])
		s01 += x * v
		s11 += y * v
		x, u = int32(qa[14]), int32(r[22])
		s00 += x * u
		y = int32(qb[14])
		s10 += y * u
		v = int32(r[30])
		s01 += x * v
		s11 += y * v
		x, u = int32(qa[15]), int32(r[23])
		s00 += x * u
		y = int32(qb[15])
		s10 += y * u
		v = int32(r[31])
		s01 += x * v
		s11 += y * v
	}
	return
}

// convPWDotAny returns the dot products of the pixel rows x0 and x1 (of
// any length K) with the weight rows of a pair of output channels, w in
// convPWPairs's layout (2K bytes); s01 is x0 with the second channel.
func convPWDotAny(x0, x1, w []int8) (s00, s01, s10, s11 int32) {
	K := len(x0)
	x1, w = x1[:K], w[:2*K]
	n := K / 8 * 8
	for k := range x0 {
		// Weight k of the first channel, and the second's 8 (groups) or 1
		// (tail) bytes later.
		j, d := 2*k, 1
		if k < n {
			j, d = 16*(k/8)+k%8, 8
		}
		u, v := int32(w[j]), int32(w[j+d])
		x, y := int32(x0[k]), int32(x1[k])
		s00 += x * u
		s10 += y * u
		s01 += x * v
		s11 += y * v
	}
	return
}

// convWinParams describes a convolution run through gathered windows.
type convWinParams struct {
	batches              int
	inH, inW, inC        int
	filterH, filterW     int
	outH, outW, outC     int
	strideH, strideW     int
	dilationH, dilationW int
	padH, padW           int   // padding before the first row / column
	inZP                 int64 // input zero point, written for padded taps
	outOffset            int32 // output zero point
	actMin, actMax       int32 // quantized activation bounds
}

// convWinInt8 runs a convolution whose filter is [outC][filterH][filterW]
// [inC], stored like convPWInt8's as uint8 rows of K = filterH*filterW*inC.
// Pixels are taken in triples along each output row. xp is K int64 of
// scratch.
func convWinInt8(p *convWinParams, in []int8, wt, rq string, rqs []int64, xp []int64, out []int8) {
	convRQLoad(rq, rqs)
	K := p.filterH * p.filterW * p.inC
	N := p.outC
	w := constU8(wt)
	xp = xp[:K]
	img := p.inH * p.inW * p.inC
	for b := 0; b < p.batches; b++ {
		x := in[b*img : b*img+img]
		for oy := 0; oy < p.outH; oy++ {
			o := out[(b*p.outH+oy)*p.outW*N : (b*p.outH+oy+1)*p.outW*N]
			for ox := 0; ox < p.outW; ox += 3 {
				n := min(3, p.outW-ox)
				convWinGather(p, x, oy, ox, n, xp)
				convPWRows(xp, w, n, N, rqs, o[ox*N:], p.outOffset, p.actMin, p.actMax)
			}
		}
	}
}

// convWinGather packs the windows of the n output pixels (oy, ox..ox+n-1)
// into the lanes of xp, the input zero point standing in for padding.
func convWinGather(p *convWinParams, x []int8, oy, ox, n int, xp []int64) {
	cin, fW := p.inC, p.filterW
	seg := fW * cin
	iy0 := oy*p.strideH - p.padH
	ix0 := ox*p.strideW - p.padW
	span := (fW - 1) * p.dilationW
	// Windows of all three pixels inside the row, taps contiguous: one pass.
	joint := n == 3 && p.dilationW == 1 && ix0 >= 0 && ix0+2*p.strideW+span < p.inW
	zp := p.inZP
	for fy := 0; fy < p.filterH; fy++ {
		dst := xp[fy*seg : fy*seg+seg]
		iy := iy0 + fy*p.dilationH
		if iy < 0 || iy >= p.inH {
			v := zp
			if n > 1 {
				v += zp << 21
			}
			if n > 2 {
				v += zp << 42
			}
			for i := range dst {
				dst[i] = v
			}
			continue
		}
		row := x[iy*p.inW*cin : (iy+1)*p.inW*cin]
		if joint {
			a := row[ix0*cin : ix0*cin+seg]
			b := row[(ix0+p.strideW)*cin : (ix0+p.strideW)*cin+seg]
			c := row[(ix0+2*p.strideW)*cin : (ix0+2*p.strideW)*cin+seg]
			b, c = b[:len(a)], c[:len(a)]
			dst = dst[:len(a)]
			for i, av := range a {
				dst[i] = int64(av) + int64(b[i])<<21 + int64(c[i])<<42
			}
			continue
		}
		for lane := 0; lane < n; lane++ {
			convWinLane(p, row, ix0+lane*p.strideW, dst, uint(21*lane))
		}
	}
}

// convWinLane packs one window row (taps starting at input column ix0 of
// row) into lane shift/21 of dst; lane 0 overwrites dst.
func convWinLane(p *convWinParams, row []int8, ix0 int, dst []int64, shift uint) {
	cin, fW := p.inC, p.filterW
	if p.dilationW == 1 {
		// Taps [lo, hi) are inside the row, the others in the padding.
		lo := min(max(-ix0, 0), fW)
		hi := max(min(p.inW-ix0, fW), lo)
		convWinPad(dst[:lo*cin], p.inZP<<shift, shift == 0)
		convWinPad(dst[hi*cin:], p.inZP<<shift, shift == 0)
		src := row[(ix0+lo)*cin : (ix0+hi)*cin]
		d := dst[lo*cin : hi*cin]
		d = d[:len(src)]
		if shift == 0 {
			for i, v := range src {
				d[i] = int64(v)
			}
		} else {
			for i, v := range src {
				d[i] += int64(v) << shift
			}
		}
		return
	}
	for fx := 0; fx < fW; fx++ {
		ix := ix0 + fx*p.dilationW
		d := dst[fx*cin : fx*cin+cin]
		if ix < 0 || ix >= p.inW {
			convWinPad(d, p.inZP<<shift, shift == 0)
			continue
		}
		src := row[ix*cin : ix*cin+cin]
		src = src[:len(d)]
		if shift == 0 {
			for i, v := range src {
				d[i] = int64(v)
			}
		} else {
			for i, v := range src {
				d[i] += int64(v) << shift
			}
		}
	}
}

// convWinPad writes (first) or adds v to every element of d.
func convWinPad(d []int64, v int64, first bool) {
	if first {
		for i := range d {
			d[i] = v
		}
		return
	}
	for i := range d {
		d[i] += v
	}
}

// convPWRows multiplies the n (1 to 3) lane-packed rows xp by every block of
// four output channels of w (uint8 rows of len(xp), offset by 128) and
// stores the rescaled results for the n pixels, whose outputs are N apart
// in out.
func convPWRows(xp []int64, w []uint8, n, N int, rqs []int64, out []int8, zo, lo, hi int32) {
	K := len(xp)
	// -128 * sum(x) for each pixel, from the lanes of the packed row sums
	// (split every convPWSumChunk columns, before a lane can overflow).
	var corr [3]int32
	for k0 := 0; k0 < K; k0 += convPWSumChunk {
		var sum int64
		for _, v := range xp[k0:min(k0+convPWSumChunk, K)] {
			sum += v
		}
		convPWSplit(sum, &corr)
	}
	for i := range corr {
		corr[i] *= -128
	}
	var v [4][3]int32
	for ob := 0; 4*ob < N; ob++ {
		w0 := w[4*ob*K : 4*ob*K+K]
		w1 := w[4*ob*K+K : 4*ob*K+2*K]
		w2 := w[4*ob*K+2*K : 4*ob*K+3*K]
		w3 := w[4*ob*K+3*K : 4*ob*K+4*K]
		v = [4][3]int32{corr, corr, corr, corr}
		for k0 := 0; k0 < K; k0 += convPWChunk {
			k1 := min(k0+convPWChunk, K)
			s0, s1, s2, s3 := convPWDot4(xp[k0:k1], w0[k0:k1], w1[k0:k1], w2[k0:k1], w3[k0:k1])
			convPWSplit(s0, &v[0])
			convPWSplit(s1, &v[1])
			convPWSplit(s2, &v[2])
			convPWSplit(s3, &v[3])
		}
		convPWStore(&v, n, min(4, N-4*ob), rqs[4*ob*convRQLen:], out[4*ob:], N, zo, lo, hi)
	}
}

// convPWStore rescales the sums v[j][i] of output channel j (record j of
// rqs) and pixel i, for n pixels and m channels, and stores them at
// out[i*N+j].
//
//go:noinline
func convPWStore(v *[4][3]int32, n, m int, rqs []int64, out []int8, N int, zo, lo, hi int32) {
	for j := 0; j < m; j++ {
		r := rqs[j*convRQLen : j*convRQLen+convRQLen]
		b, mult, left, total := int32(r[0]), r[1], uint64(r[2])&31, uint64(r[3])&63
		add, neg := r[4], r[5]
		vj := &v[j&3]
		if n == 3 {
			o := out[j : j+2*N+1]
			x0 := int64((vj[0]+b)<<left) * mult
			x1 := int64((vj[1]+b)<<left) * mult
			x2 := int64((vj[2]+b)<<left) * mult
			y0 := int32((x0 + add - (x0+1<<30)>>63&neg) >> total)
			y1 := int32((x1 + add - (x1+1<<30)>>63&neg) >> total)
			y2 := int32((x2 + add - (x2+1<<30)>>63&neg) >> total)
			o[0] = int8(max(min(y0+zo, hi), lo))
			o[N] = int8(max(min(y1+zo, hi), lo))
			o[2*N] = int8(max(min(y2+zo, hi), lo))
			continue
		}
		for i := 0; i < n; i++ {
			x := int64((vj[i%3]+b)<<left) * mult
			y := int32((x + add - (x+1<<30)>>63&neg) >> total)
			out[i*N+j] = int8(max(min(y+zo, hi), lo))
		}
	}
}

// convPWSplit adds the three 21-bit lanes of s to v.
func convPWSplit(s int64, v *[3]int32) {
	a := s << 43 >> 43
	s = (s - a) >> 21
	b := s << 43 >> 43
	c := (s - b) >> 21
	v[0] += int32(a)
	v[1] += int32(b)
	v[2] += int32(c)
}

// convPWDot4 returns the lane-packed dot products of xp with four uint8
// weight rows of the same length.
//
//go:noinline
func convPWDot4(xp []int64, w0, w1, w2, w3 []uint8) (s0, s1, s2, s3 int64) {
	n := len(xp)
	w0, w1, w2, w3 = w0[:n], w1[:n], w2[:n], w3[:n]
	for k, xv := range xp {
		s0 += xv * int64(w0[k])
		s1 += xv * int64(w1[k])
		s2 += xv * int64(w2[k])
		s3 += xv * int64(w3[k])
	}
	return
}

// convPWCh is one output channel's requantization for convPWTile, with
// the output zero point and the clamp folded in (convPWQ).
type convPWCh struct {
	bias int32  // folded bias + 2^30: the sums start at it
	m2   uint32 // twice the multiplier
	d    uint64 // convPWQ's addend
	r    uint32 // the right shift, 1 to 21
}

// convPWChSet fills t for folded bias b, twice the multiplier m2, right
// shift r and zl = zo - lo (convPWQ).
func convPWChSet(t *convPWCh, b int32, m2, r, zl uint32) {
	// kh = 2^(r-1) + zl*2^r < 2^20 + 2^29 for r <= 21, zl <= 255 (the
	// masks only spare gc the code for shifts of 32 and more); d modulo
	// 2^64.
	kh := uint32(1)<<((r-1)&31) + zl<<(r&31)
	t.bias, t.m2, t.r = b+1<<30, m2, r
	t.d = 1<<31 + uint64(kh-1)<<32 - uint64(m2)<<30
}

// convPWQ rescales the sum s of a channel t and clamps it, returning hi -
// y for the clamped output y (span = hi - lo). The sums start at t.bias,
// so s = v + 2^30 for the true sum v = acc + folded bias, |v| < 2^30: s
// lies in (0, 2^31), and v < 0 exactly when bit 30 of s is clear.
//
// It is convRQR doubled: with m the multiplier, mulByQuantMul(v) + zo - lo
// is floor(N / 2^(32+r)) for
//
//	N = 2mv + 2^31 + (2^(r-1) + (zo-lo)*2^r - [v < 0])*2^32
//
// (convRQR's numerator and denominator times two). With 2mv = s*2m -
// 2^30*2m and [v < 0] = 1 - (s>>30), N = s*2m + d + (s>>30)*2^32 for the
// constant d = 2^31 + (2^(r-1) + (zo-lo)*2^r - 1)*2^32 - 2^30*2m: one
// unsigned 32x32->64 multiply, a 64-bit add and the bit added to the high
// word. |v| < 2^30, so N's high word, at most |v*m/2^31| + 2^20 + 255*2^21
// + 1 in magnitude, is an int32 and its arithmetic shift by r is the
// result. The clamp to [0, span] and the final hi - y are branch-free.
func convPWQ(s int32, t *convPWCh, span int32) int32 {
	x := uint64(uint32(s))*uint64(t.m2) + t.d
	y := (int32(uint32(x>>32)) + int32(uint32(s)>>30)) >> (t.r & 31)
	y &^= y >> 31
	z := span - y
	return z &^ (z >> 31)
}

// convPWBlk is how many output channels convPWInt8 prepares the
// requantizations of at once (convPWBlock), an even number.
const convPWBlk = 16

// convPWRunArgs are the arguments and loop state of convPWRunK8 and
// convPWTile, read from memory where they are needed, so that the dot
// product loops keep the registers (gc's register allocator reloads every
// value live across a loop at its back edge).
type convPWRunArgs struct {
	x   [][8]int8    // the pixels' rows, groups of eight inputs
	w   [][16]int8   // the weights from the block's first channel pair on (convPWDot8's layout)
	x16 [][16]int8   // x and w as groups of sixteen inputs, used when a
	w32 [][32]int8   // row has an even number of groups
	t   []convPWCh   // the block's records, at most convPWBlk (in scratch: a pointer into g stored in g moves g to the heap)
	t2  *[2]convPWCh // convPWTile's channel pair's records (in scratch)
	nb  int          // channels in the block
	P   int          // pixels
	N   int          // output channels
	K8  int          // groups of eight inputs a row

	span, hi int32  // actMax - actMin, actMax
	out      []int8 // from the block's first channel of pixel 0 on

	// For convPWGrid: the pixels' rows, and the weights from the block's
	// first channel pair on, and the same as pointers (with out's); the
	// loop state: the offsets of the rows of pixels px and px+1, of their
	// outputs and of channel pair j's weights, and a sum stored only to
	// order the loads around the column loop.
	in, wt         []int8
	pin, pwt, pout unsafe.Pointer
	tp             unsafe.Pointer // the records: &t, or a caller's array
	// For convPWRunK8: out by channel pair (its caller makes it).
	out2           [][2]int8
	xa, xb, oa, ob int
	oc             int // convPWGridTri: the third pixel's outputs
	j, wo          int
	s              int32

	// The loop state: pixel px; for convPWTile the first groups a of
	// pixel px's row in x or x16 and a row's length d in them.
	px, a, d int
	two      bool // convPWTile: whether channel ob+1 exists
}

// convPWBlock prepares g.t for the block of output channels ob.. (at most
// convPWBlk) and reports whether convPWQ is exact for every one of them.
func convPWBlock(p *convPWParams, g *convPWRunArgs, rq string, ob int) bool {
	g.nb = min(convPWBlk, p.outC-ob)
	g.span, g.hi = p.actMax-p.actMin, p.actMax
	return convPWChDecode(rq[12*ob:12*ob+12*g.nb], p.inC, p.outOffset, p.actMin, g.t[:g.nb])
}

// convPWChDecode prepares t from the requantization triples rq (one a
// channel, len(t) of them) for rows of K inputs, output zero point zo and
// lower bound lo, and reports whether convPWQ is exact for every channel
// (a right shift of 1 to 21 and |bias| + K*2^14 < 2^30, which bounds
// |v| = |acc + bias|).
func convPWChDecode(rq string, K int, zo, lo int32, t []convPWCh) bool {
	if K >= 1<<16 {
		return false
	}
	zl, k14 := uint32(zo-lo), uint32(K)<<14
	rq = rq[:12*len(t)]
	for j := range t {
		// The triple decoded and checked in 32-bit steps:
		// |bias| + K*2^14 < 2^32 as K < 2^16.
		s := rq[12*j : 12*j+12]
		bias := uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
		m2 := (uint32(s[4]) | uint32(s[5])<<8 | uint32(s[6])<<16 | uint32(s[7])<<24) << 1
		r := uint32(-int32(int8(s[8]))) // the exponent is within [-31, 31]
		neg := uint32(int32(bias) >> 31)
		if r-1 >= 21 || (bias^neg)-neg+k14 >= 1<<30 {
			return false
		}
		convPWChSet(&t[j], int32(bias), m2, r, zl)
	}
	return true
}

// convPWRunK8 computes a block of g.nb output channels (g.t holds their
// requantizations) of every pixel for rows of eight inputs (g.K8 = 1) and
// an even number of output channels, two pixels by two channels at a time
// (convPWTile's products written out): the rows, weights,
// requantizations and outputs are indexed by channel pair; an odd last
// pixel is paired with itself.
//
//go:noinline
func convPWRunK8(g *convPWRunArgs) {
	// Only what the tile loop uses is live across it: the pixel index and
	// the rest are read from g again (convPWRunArgs).
	for g.px = 0; g.px < g.P; g.px += 2 {
		px, np, N2 := g.px, (g.nb+1)/2, g.N/2
		x := g.x[:g.P]
		w := g.w[:np]
		t2 := unsafe.Slice((*[2]convPWCh)(unsafe.Pointer(&g.t[0])), np)
		out2 := g.out2
		qa, qb := &x[px], &x[px]
		o0, o1 := out2[px*N2:], out2[px*N2:] // an odd last pixel's partner is itself: the same values stored twice
		if px+1 < len(x) {
			qb, o1 = &x[px+1], out2[(px+1)*N2:]
		}
		o0, o1 = o0[:len(w)], o1[:len(w)]
		for jp := range w {
			r, t := &w[jp], &t2[jp]
			s00, s01 := t[0].bias, t[1].bias
			s10, s11 := s00, s01
			x, u := int32(qa[0]), int32(r[0])
			s00 += x * u
			y := int32(qb[0])
			s10 += y * u
			v := int32(r[8])
			s01 += x * v
			s11 += y * v
			x, u = int32(qa[1]), int32(r[1])
			s00 += x * u
			y = int32(qb[1])
			s10 += y * u
			v = int32(r[9])
			s01 += x * v
			s11 += y * v
			x, u = int32(qa[2]), int32(r[2])
			s00 += x * u
			y = int32(qb[2])
			s10 += y * u
			v = int32(r[10])
			s01 += x * v
			s11 += y * v
			x, u = int32(qa[3]), int32(r[3])
			s00 += x * u
			y = int32(qb[3])
			s10 += y * u
			v = int32(r[11])
			s01 += x * v
			s11 += y * v
			x, u = int32(qa[4]), int32(r[4])
			s00 += x * u
			y = int32(qb[4])
			s10 += y * u
			v = int32(r[12])
			s01 += x * v
			s11 += y * v
			x, u = int32(qa[5]), int32(r[5])
			s00 += x * u
			y = int32(qb[5])
			s10 += y * u
			v = int32(r[13])
			s01 += x * v
			s11 += y * v
			x, u = int32(qa[6]), int32(r[6])
			s00 += x * u
			y = int32(qb[6])
			s10 += y * u
			v = int32(r[14])
			s01 += x * v
			s11 += y * v
			x, u = int32(qa[7]), int32(r[7])
			s00 += x * u
			y = int32(qb[7])
			s10 += y * u
			v = int32(r[15])
			s01 += x * v
			s11 += y * v
			span, hi := g.span, g.hi
			a, b := &o0[jp], &o1[jp]
			a[0] = int8(hi - convPWQ(s00, &t[0], span))
			a[1] = int8(hi - convPWQ(s01, &t[1], span))
			b[0] = int8(hi - convPWQ(s10, &t[0], span))
			b[1] = int8(hi - convPWQ(s11, &t[1], span))
		}
	}
}

// convPWTile computes output channels ob and ob+1 (when g.two; g.t2[0] and
// g.t2[1] hold their requantizations) of every pixel: g.w and g.w32 start
// at the pair's weights, g.out at channel ob of pixel 0, pixels N apart in
// it. Two pixels at a time, the four sums start at the folded biases and
// take one multiply-add per product (the dot products written out here,
// rows of an even number of groups by sixteen inputs, as in convPWDot16,
// others by eight); an odd last pixel is paired with itself. The loop
// state lives in g, so that only the sums and the dot product's pointers
// are live across the inner loops.
//
//go:noinline
func convPWTile(g *convPWRunArgs) {
	g.a, g.d = 0, g.K8
	if g.K8%2 == 0 {
		g.d = g.K8 / 2
	}
	for g.px = 0; g.px < g.P; g.px += 2 {
		a, d := g.a, g.d
		b := a + d
		if g.px+1 == g.P {
			b = a
		}
		s00, s01 := g.t2[0].bias, g.t2[1].bias
		s10, s11 := s00, s01
		if g.K8%2 == 0 {
			xa, xb := g.x16[a:a+d], g.x16[b:b+d]
			xb, w := xb[:len(xa)], g.w32[:len(xa)]
			for k := range xa {
				qa, qb, r := &xa[k], &xb[k], &w[k]
				x, u := int32(qa[0]), int32(r[0])
				s00 += x * u
				y := int32(qb[0])
				s10 += y * u
				v := int32(r[8])
				s01 += x * v
				s11 += y * v
				x, u = int32(qa[1]), int32(r[1])
				s00 += x * u
				y = int32(qb[1])
				s10 += y * u
				v = int32(r[9])
				s01 += x * v
				s11 += y * v
				x, u = int32(qa[2]), int32(r[2])
				s00 += x * u
				y = int32(qb[2])
				s10 += y * u
				v = int32(r[10])
				s01 += x * v
				s11 += y * v
				x, u = int32(qa[3]), int32(r[3])
				s00 += x * u
				y = int32(qb[3])
				s10 += y * u
				v = int32(r[11])
				s01 += x * v
				s11 += y * v
				x, u = int32(qa[4]), int32(r[4])
				s00 += x * u
				y = int32(qb[4])
				s10 += y * u
				v = int32(r[12])
				s01 += x * v
				s11 += y * v
				x, u = int32(qa[5]), int32(r[5])
				s00 += x * u
				y = int32(qb[5])
				s10 += y * u
				v = int32(r[13])
				s01 += x * v
				s11 += y * v
				x, u = int32(qa[6]), int32(r[6])
				s00 += x * u
				y = int32(qb[6])
				s10 += y * u
				v = int32(r[14])
				s01 += x * v
				s11 += y * v
				x, u = int32(qa[7]), int32(r[7])
				s00 += x * u
				y = int32(qb[7])
				s10 += y * u
				v = int32(r[15])
				s01 += x * v
				s11 += y * v
				x, u = int32(qa[8]), int32(r[16])
				s00 += x * u
				y = int32(qb[8])
				s10 += y * u
				v = int32(r[24])
				s01 += x * v
				s11 += y * v
				x, u = int32(qa[9]), int32(r[17])
				s00 += x * u
				y = int32(qb[9])
				s10 += y * u
				v = int32(r[25])
				s01 += x * v
				s11 += y * v
				x, u = int32(qa[10]), int32(r[18])
				s00 += x * u
				y = int32(qb[10])
				s10 += y * u
				v = int32(r[26])
				s01 += x * v
				s11 += y * v
				x, u = int32(qa[11]), int32(r[19])
				s00 += x * u
				y = int32(qb[11])
				s10 += y * u
				v = int32(r[27])
				s01 += x * v
				s11 += y * v
				x, u = int32(qa[12]), int32(r[20])
				s00 += x * u
				y = int32(qb[12])
				s10 += y * u
				v = int32(r[28])
				s01 += x * v
				s11 += y * v
				x, u = int32(qa[13]), int32(r[21])
				s00 += x * u
				y = int32(qb[13])
				s10 += y * u
				v = int32(r[29])
				s01 += x * v
				s11 += y * v
				x, u = int32(qa[14]), int32(r[22])
				s00 += x * u
				y = int32(qb[14])
				s10 += y * u
				v = int32(r[30])
				s01 += x * v
				s11 += y * v
				x, u = int32(qa[15]), int32(r[23])
				s00 += x * u
				y = int32(qb[15])
				s10 += y * u
				v = int32(r[31])
				s01 += x * v
				s11 += y * v
			}
		} else {
			xa, xb := g.x[a:a+d], g.x[b:b+d]
			xb, w := xb[:len(xa)], g.w[:len(xa)]
			for k := range xa {
				qa, qb, r := &xa[k], &xb[k], &w[k]
				x, u := int32(qa[0]), int32(r[0])
				s00 += x * u
				y := int32(qb[0])
				s10 += y * u
				v := int32(r[8])
				s01 += x * v
				s11 += y * v
				x, u = int32(qa[1]), int32(r[1])
				s00 += x * u
				y = int32(qb[1])
				s10 += y * u
				v = int32(r[9])
				s01 += x * v
				s11 += y * v
				x, u = int32(qa[2]), int32(r[2])
				s00 += x * u
				y = int32(qb[2])
				s10 += y * u
				v = int32(r[10])
				s01 += x * v
				s11 += y * v
				x, u = int32(qa[3]), int32(r[3])
				s00 += x * u
				y = int32(qb[3])
				s10 += y * u
				v = int32(r[11])
				s01 += x * v
				s11 += y * v
				x, u = int32(qa[4]), int32(r[4])
				s00 += x * u
				y = int32(qb[4])
				s10 += y * u
				v = int32(r[12])
				s01 += x * v
				s11 += y * v
				x, u = int32(qa[5]), int32(r[5])
				s00 += x * u
				y = int32(qb[5])
				s10 += y * u
				v = int32(r[13])
				s01 += x * v
				s11 += y * v
				x, u = int32(qa[6]), int32(r[6])
				s00 += x * u
				y = int32(qb[6])
				s10 += y * u
				v = int32(r[14])
				s01 += x * v
				s11 += y * v
				x, u = int32(qa[7]), int32(r[7])
				s00 += x * u
				y = int32(qb[7])
				s10 += y * u
				v = int32(r[15])
				s01 += x * v
				s11 += y * v
			}
		}
		N, span, hi := g.N, g.span, g.hi
		o := g.out[g.px*N:]
		o[0] = int8(hi - convPWQ(s00, &g.t2[0], span))
		if g.two {
			o[1] = int8(hi - convPWQ(s01, &g.t2[1], span))
		}
		if g.px+1 < g.P {
			o = o[N:]
			o[0] = int8(hi - convPWQ(s10, &g.t2[0], span))
			if g.two {
				o[1] = int8(hi - convPWQ(s11, &g.t2[1], span))
			}
		}
		g.a += 2 * g.d
	}
}
