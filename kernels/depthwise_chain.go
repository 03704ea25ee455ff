package kernels

import "unsafe"

// The chain kernels of dw3x3Int8 (depth multiplier 1, rows of whole blocks
// of six pixels, input and output apart in memory): the channels are
// processed in groups of dw3x3G, whose requantizations are decoded once per
// call (dw3x3Rec), and for every block of six pixels of a row the kernel
// walks each window row's columns with one pointer, a column stride apart,
// so that a tap costs one add and one immediate-offset load. Blocks at the
// left or right edge copy their window into a local buffer first (padded
// columns hold the zero point); a padded row reads zrow with stride 0.

// dw3x3G is the number of channels of a group (two words of a column).
const dw3x3G = 8

// dw3x3Scratch is the scratch memory of dw3x3ChainInt8 (and so of
// dw3x3Int8) in int32 words: a block's window, then a group's records.
const dw3x3Scratch = 3*13*dw3x3G/4 + dw3x3G*dw3x3RecWords

// dw3x3RecWords is the size of a dw3x3Rec in words (a test checks it).
const dw3x3RecWords = 5

// dw3x3Rec is one channel's requantization for dwRQFast with the clamp
// folded in: k includes the output zero point less actMin, so that the
// result is the output less actMin before clamping.
type dw3x3Rec struct {
	bias, k, mm int32
	m, sh       uint32
}

// dw3x3Run is the loop state of dw3x3Buf1 and dw3x3Buf2, in memory so
// that only the sums, weights and the window pointer live in registers.
type dw3x3Run struct {
	buf unsafe.Pointer // the block's window, [3 * 13 * dw3x3G]int8: row, column, channel (in scratch)
	t   unsafe.Pointer // the group's records, [dw3x3G]dw3x3Rec, right after buf (in scratch)
	w   unsafe.Pointer // the group's weights
	out unsafe.Pointer // the block's first pixel, the group's first channel
	C   uintptr        // output pixel stride
	j   uintptr
	nch uintptr
	// span = actMax - actMin, hi = actMax.
	span, hi int32
	_        [0]uint32
}

// dw3x3Buf1 computes six output pixels of g.nch channels with horizontal
// stride 1 from g.buf (window row fy, column k, channel j at
// (8fy+k)*dw3x3G+j); g.w holds the channels' weights, g.t their records
// and g.out the first pixel's output, pixels g.C apart. The sums are
// requantized by dwRQFast and clamped without branches.
//
//go:noinline
func dw3x3Buf1(g *dw3x3Run) {
	for g.j = 0; g.j < g.nch; g.j++ {
		b := (*[3 * 13 * dw3x3G]int8)(unsafe.Add(g.buf, g.j))
		q := (*dw3x3Rec)(unsafe.Add(g.t, g.j*unsafe.Sizeof(dw3x3Rec{})))
		var a0, a1, a2, a3, a4, a5, x, u0, u1, u2 int32
		a0 = q.bias
		a1, a2, a3, a4, a5 = a0, a0, a0, a0, a0
		wc := (*[9]int8)(unsafe.Add(g.w, 9*g.j))
		u0, u1, u2 = int32(wc[0]), int32(wc[1]), int32(wc[2])
		a0 += int32(b[0]) * u0
		x = int32(b[8])
		a0 += x * u1
		a1 += x * u0
		x = int32(b[16])
		a0 += x * u2
		a1 += x * u1
		a2 += x * u0
		x = int32(b[24])
		a1 += x * u2
		a2 += x * u1
		a3 += x * u0
		x = int32(b[32])
		a2 += x * u2
		a3 += x * u1
		a4 += x * u0
		x = int32(b[40])
		a3 += x * u2
		a4 += x * u1
		a5 += x * u0
		x = int32(b[48])
		a4 += x * u2
		a5 += x * u1
		a5 += int32(b[56]) * u2
		wc = (*[9]int8)(unsafe.Add(g.w, 9*g.j))
		u0, u1, u2 = int32(wc[3]), int32(wc[4]), int32(wc[5])
		a0 += int32(b[64]) * u0
		x = int32(b[72])
		a0 += x * u1
		a1 += x * u0
		x = int32(b[80])
		a0 += x * u2
		a1 += x * u1
		a2 += x * u0
		x = int32(b[88])
		a1 += x * u2
		a2 += x * u1
		a3 += x * u0
		x = int32(b[96])
		a2 += x * u2
		a3 += x * u1
		a4 += x * u0
		x = int32(b[104])
		a3 += x * u2
		a4 += x * u1
		a5 += x * u0
		x = int32(b[112])
		a4 += x * u2
		a5 += x * u1
		a5 += int32(b[120]) * u2
		wc = (*[9]int8)(unsafe.Add(g.w, 9*g.j))
		u0, u1, u2 = int32(wc[6]), int32(wc[7]), int32(wc[8])
		a0 += int32(b[128]) * u0
		x = int32(b[136])
		a0 += x * u1
		a1 += x * u0
		x = int32(b[144])
		a0 += x * u2
		a1 += x * u1
		a2 += x * u0
		x = int32(b[152])
		a1 += x * u2
		a2 += x * u1
		a3 += x * u0
		x = int32(b[160])
		a2 += x * u2
		a3 += x * u1
		a4 += x * u0
		x = int32(b[168])
		a3 += x * u2
		a4 += x * u1
		a5 += x * u0
		x = int32(b[176])
		a4 += x * u2
		a5 += x * u1
		a5 += int32(b[184]) * u2
		m, k, mm, sh := q.m, q.k, q.mm, q.sh&31
		span, hi, C := g.span, g.hi, g.C
		p := unsafe.Add(g.out, g.j)
		y := int32(uint32((uint64(uint32(a0<<2))*uint64(m))>>32)) + k + mm&(a0>>31)
		y >>= sh
		y &^= y >> 31
		y = span - y
		*(*int8)(p) = int8(hi - y&^(y>>31))
		p = unsafe.Add(p, C)
		y = int32(uint32((uint64(uint32(a1<<2))*uint64(m))>>32)) + k + mm&(a1>>31)
		y >>= sh
		y &^= y >> 31
		y = span - y
		*(*int8)(p) = int8(hi - y&^(y>>31))
		p = unsafe.Add(p, C)
		y = int32(uint32((uint64(uint32(a2<<2))*uint64(m))>>32)) + k + mm&(a2>>31)
		y >>= sh
		y &^= y >> 31
		y = span - y
		*(*int8)(p) = int8(hi - y&^(y>>31))
		p = unsafe.Add(p, C)
		y = int32(uint32((uint64(uint32(a3<<2))*uint64(m))>>32)) + k + mm&(a3>>31)
		y >>= sh
		y &^= y >> 31
		y = span - y
		*(*int8)(p) = int8(hi - y&^(y>>31))
		p = unsafe.Add(p, C)
		y = int32(uint32((uint64(uint32(a4<<2))*uint64(m))>>32)) + k + mm&(a4>>31)
		y >>= sh
		y &^= y >> 31
		y = span - y
		*(*int8)(p) = int8(hi - y&^(y>>31))
		p = unsafe.Add(p, C)
		y = int32(uint32((uint64(uint32(a5<<2))*uint64(m))>>32)) + k + mm&(a5>>31)
		y >>= sh
		y &^= y >> 31
		y = span - y
		*(*int8)(p) = int8(hi - y&^(y>>31))
	}
}

// dw3x3Buf2 is dw3x3Buf1 with horizontal stride 2 (13 columns a window
// row, at (13fy+k)*dw3x3G+j).
//
//go:noinline
func dw3x3Buf2(g *dw3x3Run) {
	for g.j = 0; g.j < g.nch; g.j++ {
		b := (*[3 * 13 * dw3x3G]int8)(unsafe.Add(g.buf, g.j))
		q := (*dw3x3Rec)(unsafe.Add(g.t, g.j*unsafe.Sizeof(dw3x3Rec{})))
		var a0, a1, a2, a3, a4, a5, x, u0, u1, u2 int32
		a0 = q.bias
		a1, a2, a3, a4, a5 = a0, a0, a0, a0, a0
		wc := (*[9]int8)(unsafe.Add(g.w, 9*g.j))
		u0, u1, u2 = int32(wc[0]), int32(wc[1]), int32(wc[2])
		a0 += int32(b[0]) * u0
		a0 += int32(b[8]) * u1
		x = int32(b[16])
		a0 += x * u2
		a1 += x * u0
		a1 += int32(b[24]) * u1
		x = int32(b[32])
		a1 += x * u2
		a2 += x * u0
		a2 += int32(b[40]) * u1
		x = int32(b[48])
		a2 += x * u2
		a3 += x * u0
		a3 += int32(b[56]) * u1
		x = int32(b[64])
		a3 += x * u2
		a4 += x * u0
		a4 += int32(b[72]) * u1
		x = int32(b[80])
		a4 += x * u2
		a5 += x * u0
		a5 += int32(b[88]) * u1
		a5 += int32(b[96]) * u2
		wc = (*[9]int8)(unsafe.Add(g.w, 9*g.j))
		u0, u1, u2 = int32(wc[3]), int32(wc[4]), int32(wc[5])
		a0 += int32(b[104]) * u0
		a0 += int32(b[112]) * u1
		x = int32(b[120])
		a0 += x * u2
		a1 += x * u0
		a1 += int32(b[128]) * u1
		x = int32(b[136])
		a1 += x * u2
		a2 += x * u0
		a2 += int32(b[144]) * u1
		x = int32(b[152])
		a2 += x * u2
		a3 += x * u0
		a3 += int32(b[160]) * u1
		x = int32(b[168])
		a3 += x * u2
		a4 += x * u0
		a4 += int32(b[176]) * u1
		x = int32(b[184])
		a4 += x * u2
		a5 += x * u0
		a5 += int32(b[192]) * u1
		a5 += int32(b[200]) * u2
		wc = (*[9]int8)(unsafe.Add(g.w, 9*g.j))
		u0, u1, u2 = int32(wc[6]), int32(wc[7]), int32(wc[8])
		a0 += int32(b[208]) * u0
		a0 += int32(b[216]) * u1
		x = int32(b[224])
		a0 += x * u2
		a1 += x * u0
		a1 += int32(b[232]) * u1
		x = int32(b[240])
		a1 += x * u2
		a2 += x * u0
		a2 += int32(b[248]) * u1
		x = int32(b[256])
		a2 += x * u2
		a3 += x * u0
		a3 += int32(b[264]) * u1
		x = int32(b[272])
		a3 += x * u2
		a4 += x * u0
		a4 += int32(b[280]) * u1
		x = int32(b[288])
		a4 += x * u2
		a5 += x * u0
		a5 += int32(b[296]) * u1
		a5 += int32(b[304]) * u2
		m, k, mm, sh := q.m, q.k, q.mm, q.sh&31
		span, hi, C := g.span, g.hi, g.C
		p := unsafe.Add(g.out, g.j)
		y := int32(uint32((uint64(uint32(a0<<2))*uint64(m))>>32)) + k + mm&(a0>>31)
		y >>= sh
		y &^= y >> 31
		y = span - y
		*(*int8)(p) = int8(hi - y&^(y>>31))
		p = unsafe.Add(p, C)
		y = int32(uint32((uint64(uint32(a1<<2))*uint64(m))>>32)) + k + mm&(a1>>31)
		y >>= sh
		y &^= y >> 31
		y = span - y
		*(*int8)(p) = int8(hi - y&^(y>>31))
		p = unsafe.Add(p, C)
		y = int32(uint32((uint64(uint32(a2<<2))*uint64(m))>>32)) + k + mm&(a2>>31)
		y >>= sh
		y &^= y >> 31
		y = span - y
		*(*int8)(p) = int8(hi - y&^(y>>31))
		p = unsafe.Add(p, C)
		y = int32(uint32((uint64(uint32(a3<<2))*uint64(m))>>32)) + k + mm&(a3>>31)
		y >>= sh
		y &^= y >> 31
		y = span - y
		*(*int8)(p) = int8(hi - y&^(y>>31))
		p = unsafe.Add(p, C)
		y = int32(uint32((uint64(uint32(a4<<2))*uint64(m))>>32)) + k + mm&(a4>>31)
		y >>= sh
		y &^= y >> 31
		y = span - y
		*(*int8)(p) = int8(hi - y&^(y>>31))
		p = unsafe.Add(p, C)
		y = int32(uint32((uint64(uint32(a5<<2))*uint64(m))>>32)) + k + mm&(a5>>31)
		y >>= sh
		y &^= y >> 31
		y = span - y
		*(*int8)(p) = int8(hi - y&^(y>>31))
	}
}

// dw3x3Decode decodes the n records of rq (conv_rq.go's triples) into t
// for dwRQFast with d = output zero point - actMin folded into k, and
// reports whether dwRQFast takes them all: a right shift of 1 to 21,
// m >= 0 and |bias| < dw3x3BiasMax.
func dw3x3Decode(rq string, d int32, t *[dw3x3G]dw3x3Rec, n int) bool {
	rq = rq[:12*n]
	for c := 0; c < n && c < len(t); c++ {
		r := rq[12*c : 12*c+12]
		bias := int32(uint32(r[0]) | uint32(r[1])<<8 | uint32(r[2])<<16 | uint32(r[3])<<24)
		m := int32(uint32(r[4]) | uint32(r[5])<<8 | uint32(r[6])<<16 | uint32(r[7])<<24)
		rr := -int32(int8(r[8])) // the exponent is within [-31, 31]
		if rr < 1 || rr > 21 || m < 0 || bias <= -dw3x3BiasMax || bias >= dw3x3BiasMax {
			return false
		}
		// rr is 1..21 here; the masks only spare gc the code for shifts
		// of 32 and more.
		tc := &t[c]
		tc.bias, tc.k, tc.mm = bias, 1+int32(1)<<(uint32(rr)&31)+d<<(uint32(rr+1)&31), -m-2
		tc.m, tc.sh = uint32(m), uint32(rr+1)
	}
	return true
}

// dw3x3ChainInt8 runs dw3x3Int8 with dw3x3Buf1 and dw3x3Buf2 when they
// apply: depth multiplier 1, rows of whole blocks of six pixels, a
// multiple of four channels, a word-aligned input apart in memory from the
// output or below it by a multiple of the channels (see there), an output
// zero point less actMin within [-256, 256] and records
// dwRQFast takes. It reports whether it ran. The channels go in groups of
// dw3x3G (their records decoded once), each group over the whole image;
// a block's window is copied into g.buf a word (four channels) at a time,
// padded taps as the zero point. scr is dw3x3Scratch words of scratch.
func dw3x3ChainInt8(p *dw3x3Params, in []int8, w9 [][9]int8, z []int8, rq string, scr []int32, out []int8) bool {
	C, W, sW, inW := p.chans, p.outW, p.strideW, p.inW
	if W <= 0 || W%6 != 0 || C <= 0 || C%4 != 0 || p.outH <= 0 || p.batches <= 0 || p.inH <= 0 || inW <= 0 ||
		len(w9) < C || len(z) < C || len(rq) < 12*C {
		return false
	}
	d := p.outOffset - p.actMin
	if d < -256 || d > 256 || p.actMax < p.actMin {
		return false
	}
	img := p.inH * inW * C
	nIn, nOut := p.batches*img, p.batches*p.outH*W*C
	if len(in) < nIn || len(out) < nOut {
		return false
	}
	in, out = in[:nIn], out[:nOut]
	ib, ob := uintptr(unsafe.Pointer(&in[0])), uintptr(unsafe.Pointer(&out[0]))
	if ib&3 != 0 {
		return false
	}
	if ib < ob+uintptr(nOut) && ob < ib+uintptr(nIn) {
		// Written over its input (the planner's overlap, safe in raster
		// order): output channel c reads only input channel c, so with
		// the output a multiple of C bytes below the input, output (p, c)
		// lands on input (p - (ib-ob)/C, c), the same channel at an
		// earlier pixel. A channel group run in raster order then
		// clobbers only what raster order would, and the later groups'
		// channels not at all. The records are all checked first: a
		// fallback after some groups were written would read clobbered
		// input.
		if ob > ib || (ib-ob)%uintptr(C) != 0 {
			return false
		}
		var t [dw3x3G]dw3x3Rec
		for g0 := 0; g0 < C; g0 += dw3x3G {
			if !dw3x3Decode(rq[12*g0:], d, &t, min(dw3x3G, C-g0)) {
				return false
			}
		}
	}
	nc := 5*sW + 3 // columns of a block's window row
	zw := uint32(uint8(z[0])) * 0x01010101
	var g dw3x3Run
	scr = scr[:dw3x3Scratch]
	g.buf, g.t = unsafe.Pointer(&scr[0]), unsafe.Pointer(&scr[3*13*dw3x3G/4])
	t := (*[dw3x3G]dw3x3Rec)(g.t)
	g.C, g.span, g.hi = uintptr(C), p.actMax-p.actMin, p.actMax
	bw := unsafe.Slice((*[dw3x3G / 4]uint32)(g.buf), 3*13)
	for g0 := 0; g0 < C; g0 += dw3x3G {
		nch := min(dw3x3G, C-g0)
		if !dw3x3Decode(rq[12*g0:], d, t, nch) {
			return false
		}
		g.nch, g.w = uintptr(nch), unsafe.Pointer(&w9[g0])
		for b := 0; b < p.batches; b++ {
			x := in[b*img : b*img+img]
			for oy := 0; oy < p.outH; oy++ {
				iy0 := oy*p.strideH - p.padH
				o := out[((b*p.outH+oy)*W)*C+g0:]
				for ox := 0; ox < W; ox += 6 {
					ix0 := ox*sW - p.padW
					// Columns kl..kh-1 of the window are inside the image.
					kl, kh := min(max(-ix0, 0), nc), max(min(inW-ix0, nc), 0)
					kh = max(kh, kl)
					for fy := 0; fy < 3; fy++ {
						r := bw[fy*nc : fy*nc+nc]
						iy := iy0 + fy
						if iy < 0 || iy >= p.inH {
							for k := range r {
								r[k] = [2]uint32{zw, zw}
							}
							continue
						}
						for k := range r[:kl] {
							r[k] = [2]uint32{zw, zw}
						}
						for k := kh; k < len(r); k++ {
							r[k] = [2]uint32{zw, zw}
						}
						if kl == kh {
							continue
						}
						q := (iy*inW+ix0+kl)*C + g0
						if nch == dw3x3G {
							// Whole columns: two words each, C bytes apart.
							_ = x[q+(kh-kl-1)*C+dw3x3G-1]
							sp, dp := unsafe.Pointer(&x[q]), unsafe.Pointer(&r[kl])
							for k := kh - kl; ; {
								a, b := *(*uint32)(sp), *(*uint32)(unsafe.Add(sp, 4))
								*(*uint32)(dp) = a
								*(*uint32)(unsafe.Add(dp, 4)) = b
								if k--; k == 0 {
									break
								}
								sp, dp = unsafe.Add(sp, C), unsafe.Add(dp, 8)
							}
							continue
						}
						for k := kl; k < kh; k++ {
							s := x[q : q+4]
							r[k][0] = *(*uint32)(unsafe.Pointer(&s[0]))
							q += C
						}
					}
					_ = o[(ox+5)*C+nch-1]
					g.out = unsafe.Pointer(&o[ox*C])
					if sW == 1 {
						dw3x3Buf1(&g)
					} else {
						dw3x3Buf2(&g)
					}
				}
			}
		}
	}
	return true
}
