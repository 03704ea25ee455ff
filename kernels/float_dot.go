package kernels

import (
	"math"
	"runtime"
	"unsafe"
)

// Float32 dot products over weights stored as constant strings, shared by
// the float FULLY_CONNECTED and LSTM kernels: four interleaved weight rows
// (16 bytes per input element), every product rounded to float32 and each
// row summed in input order, as TFLM's reference kernels do.

// f32Dot4 returns the dot products of x with the four interleaved weight
// rows w (4 floats per element of x), each summed in order.
func f32Dot4(x []float32, w []float32) (a0, a1, a2, a3 float32) {
	wq := unsafe.Slice((*[4]float32)(unsafe.Pointer(unsafe.SliceData(w))), len(w)/4)
	wq = wq[:len(x)]
	for d, xv := range x {
		q := &wq[d]
		a0 += float32(xv * q[0])
		a1 += float32(xv * q[1])
		a2 += float32(xv * q[2])
		a3 += float32(xv * q[3])
	}
	return a0, a1, a2, a3
}

// f32DotStr4 is f32Dot4 for weights read directly from a constant string
// (16 bytes per element of x).
func f32DotStr4(x []float32, w string) (a0, a1, a2, a3 float32) {
	if off := f32StrOff(w); off == 0 || f32Unaligned {
		return f32Dot4(x, f32StrView(w))
	} else if f32Funnel {
		return f32DotFunnel4(x, w, off)
	}
	wq := unsafe.Slice((*[16]byte)(unsafe.Pointer(unsafe.StringData(w))), len(w)/16)
	wq = wq[:len(x)]
	for d, xv := range x {
		p := wq[d][:]
		a0 += float32(xv * f32q(p, 0))
		a1 += float32(xv * f32q(p, 1))
		a2 += float32(xv * f32q(p, 2))
		a3 += float32(xv * f32q(p, 3))
	}
	return a0, a1, a2, a3
}

// Read-only data has no alignment guarantee (gc packs string data at byte
// granularity), so the string kernels look at the address: a word-aligned
// string is read as float32 directly. Otherwise, on 64-bit targets the
// compiler merges the four byte loads of f32q into one load; 32-bit
// targets (gc for ARM does not merge them) read the aligned words that
// cover the string and shift each float together from two neighbours
// (f32Funnel). Only words inside the string are read: the partial first
// and last words are assembled from bytes.

// f32Funnel is true where int is 32 bits.
const f32Funnel = ^uint(0)>>32 == 0

// f32Unaligned is true where a float32 may be loaded from any address:
// gc for x86 (SSE loads and the integer loads of softfloat have no
// alignment requirement). There the string kernels view any string as
// float32.
const f32Unaligned = runtime.Compiler == "gc" && (runtime.GOARCH == "amd64" || runtime.GOARCH == "386")

// f32RangeLoop selects the plain range loop in the float dot products, for
// gc on amd64; elsewhere they test the loop end after the adds (which gc
// for ARM needs to fuse multiply and add).
const f32RangeLoop = runtime.Compiler == "gc" && runtime.GOARCH == "amd64"

// f32StrOff returns the address of w's data modulo 4.
func f32StrOff(w string) uint32 {
	return uint32(uintptr(unsafe.Pointer(unsafe.StringData(w)))) & 3
}

// f32StrView views a word-aligned string as float32 values.
func f32StrView(w string) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.StringData(w))), len(w)/4)
}

// f32Words prepares the funnel read of w (address off mod 4, off != 0,
// len(w) a multiple of 4 and at least 4): it returns the first (4-off)
// bytes of w as the low bytes of c, the aligned words that lie entirely
// inside w (len(w)/4-1 of them) and the last off bytes of w as the low
// bytes of e. Float j of w is then word j-1's high bytes (or c) shifted
// down by 8*off, or'ed with word j's low bytes (or e) shifted up by
// 32-8*off.
func f32Words(w string, off uint32) (c uint32, q []uint32, e uint32) {
	n := len(w)
	c, e = f32Ends(w, off)
	p := unsafe.Add(unsafe.Pointer(unsafe.StringData(w)), 4-off)
	return c, unsafe.Slice((*uint32)(p), n/4-1), e
}

// f32Ends returns f32Words' c and e: the first 4-off bytes of w as the low
// bytes of c, the last off bytes as the low bytes of e (from w's first
// and last three bytes).
func f32Ends(w string, off uint32) (c, e uint32) {
	h, t := w[:3], w[len(w)-3:] // (off is 1 to 3)
	c = (uint32(h[0]) | uint32(h[1])<<8 | uint32(h[2])<<16) & (^uint32(0) >> (8 * off & 31))
	e = (uint32(t[0]) | uint32(t[1])<<8 | uint32(t[2])<<16) >> ((24 - 8*off) & 31)
	return c, e
}

// f32DotFunnel4 is f32DotStr4 through the funnel (see f32Words): the
// elements but the last in one loop, then the last one, whose last word is
// e.
func f32DotFunnel4(x []float32, w string, off uint32) (a0, a1, a2, a3 float32) {
	c, q, e := f32Words(w, off)
	sl, sr := (8*off)&31, (32-8*off)&31
	n := len(x) - 1
	if n < 0 {
		return
	}
	q = q[:4*n+3]
	for d, xv := range x[:n] {
		r := (*[4]uint32)(q[4*d : 4*d+4])
		w0 := c | r[0]<<sr
		w1 := r[0]>>sl | r[1]<<sr
		w2 := r[1]>>sl | r[2]<<sr
		w3 := r[2]>>sl | r[3]<<sr
		c = r[3] >> sl
		a0 += float32(xv * math.Float32frombits(w0))
		a1 += float32(xv * math.Float32frombits(w1))
		a2 += float32(xv * math.Float32frombits(w2))
		a3 += float32(xv * math.Float32frombits(w3))
	}
	r := (*[3]uint32)(q[4*n:])
	xv := x[n]
	a0 += float32(xv * math.Float32frombits(c|r[0]<<sr))
	a1 += float32(xv * math.Float32frombits(r[0]>>sl|r[1]<<sr))
	a2 += float32(xv * math.Float32frombits(r[1]>>sl|r[2]<<sr))
	a3 += float32(xv * math.Float32frombits(r[2]>>sl|e<<sr))
	return
}

// f32q reads the k-th little-endian float32 of p.
func f32q(p []byte, k int) float32 {
	return math.Float32frombits(uint32(p[4*k]) | uint32(p[4*k+1])<<8 | uint32(p[4*k+2])<<16 | uint32(p[4*k+3])<<24)
}

// f32Act holds what fcF32's row functions need, set by fcF32 in one go
// (so that gc drops the zeroing of the struct) and read, never written,
// by the row functions (pointer stores through ac would need write
// barriers).
//
// The row: input x (k elements; xl the last, x2 the first of the last
// whole pair, x3 that of the pair before the last two elements), output
// o (4*(nb-1)+m channels, m of them, 1 to 4, in the last block), the
// weights pw; for the funnel (see f32Words) t, the three words that end
// the weights, the first carry wc, last bytes we and shifts wsl, wsr.
//
// The bias and clamp, applied to every block of four sums while they are
// in registers: pb is the first block's bias, four float32 values
// (mode 1) or, for a misaligned bias on 32-bit targets (mode 2), the
// aligned words inside it, read through the funnel with the first carry
// c, shifts sl, sr and the last bytes e (the bias of the last channel).
// Without a bias (mode 0) the sums are only clamped to [lo, hi].
type f32Act struct {
	x, xl, x2, x3, o, pw, pb unsafe.Pointer
	t                        *[3]uint32
	k, nb, m                 int
	wc, we, wsl, wsr         uint32
	c, e, sl, sr, mode       uint32
	lo, hi                   float32
}

// f32ActLast adds the bias (from pb, with the funnel's carry c) to the
// sums of a last block of m channels (2 or 3) and clamps them: the
// funnel's last bias word is e.
func f32ActLast(ac *f32Act, po, pb unsafe.Pointer, c uint32, m int, a0, a1, a2 float32) {
	if ac.mode == 2 {
		sl, sr := ac.sl&31, ac.sr&31
		r := (*[2]uint32)(pb) // (only the first m-1 are inside the string)
		r0 := r[0]
		a0 += math.Float32frombits(c | r0<<sr)
		if m == 3 {
			r1 := r[1]
			a1 += math.Float32frombits(r0>>sl | r1<<sr)
			a2 += math.Float32frombits(r1>>sl | ac.e<<sr)
		} else {
			a1 += math.Float32frombits(r0>>sl | ac.e<<sr)
		}
	} else if ac.mode == 1 {
		r := (*[2]float32)(pb)
		a0, a1 = a0+r[0], a1+r[1]
		if m == 3 {
			a2 += (*[3]float32)(pb)[2]
		}
	}
	lo, hi := ac.lo, ac.hi
	oq := (*[2]float32)(po)
	oq[0], oq[1] = clampF32(a0, lo, hi), clampF32(a1, lo, hi)
	if m == 3 {
		(*[3]float32)(po)[2] = clampF32(a2, lo, hi)
	}
}

// f32FunnelRow writes to o the bias-added, clamped (see f32Act) dot
// products of the input row x with the blocks of four interleaved rows
// read through the funnel (see f32Words), all of them given by ac: pw is
// the first aligned word inside the weight string (len(x)*nb*4-1 of them
// for nb blocks), t the three words that end them, we the string's last
// bytes and wc the first float's low bytes. The last block has m channels,
// one of them computing only its own products. The loops walk pointers
// that never pass their last element, two elements per pass, and test
// their end after the adds (so gc for ARM makes each multiply and add one
// VMLA). What the loops need after them they read from ac.
func f32FunnelRow(ac *f32Act) {
	pg, c := ac.pw, ac.wc
	sl, sr := ac.wsl&31, ac.wsr&31 // (shifts known to be below 32 need no range check)
	// The block's output and bias pointers, the blocks left and the bias
	// carry stay in memory across the loops (values held in registers
	// across a loop make gc reload them on every iteration).
	// (Loaded before the arrays are filled: gc drops their zeroing.)
	po, pb, nb1, bc := ac.o, ac.pb, uint32(ac.nb-1), ac.c
	var pp [2]unsafe.Pointer
	var bv [2]uint32
	pp[0], pp[1] = po, pb
	bv[0], bv[1] = nb1, bc
	for ; ; bv[0]-- {
		var a0, a1, a2, a3 float32
		if bv[0] != 0 {
			if ac.k >= 2 {
				for px := ac.x; ; {
					xv := (*[2]float32)(px)
					r := (*[8]uint32)(pg)
					u := xv[0]
					r0, r1, r2, r3 := r[0], r[1], r[2], r[3]
					a0 += float32(u * math.Float32frombits(c|r0<<sr))
					a1 += float32(u * math.Float32frombits(r0>>sl|r1<<sr))
					a2 += float32(u * math.Float32frombits(r1>>sl|r2<<sr))
					a3 += float32(u * math.Float32frombits(r2>>sl|r3<<sr))
					u = xv[1]
					c = r3 >> sl
					r0, r1, r2, r3 = r[4], r[5], r[6], r[7]
					a0 += float32(u * math.Float32frombits(c|r0<<sr))
					a1 += float32(u * math.Float32frombits(r0>>sl|r1<<sr))
					a2 += float32(u * math.Float32frombits(r1>>sl|r2<<sr))
					a3 += float32(u * math.Float32frombits(r2>>sl|r3<<sr))
					c = r3 >> sl
					pg = unsafe.Add(pg, 32) // (at most to t)
					if px == ac.x2 {
						break
					}
					px = unsafe.Add(px, 8)
				}
			}
			if ac.k%2 != 0 {
				u := *(*float32)(ac.xl)
				r := (*[4]uint32)(pg)
				r0, r1, r2, r3 := r[0], r[1], r[2], r[3]
				a0 += float32(u * math.Float32frombits(c|r0<<sr))
				a1 += float32(u * math.Float32frombits(r0>>sl|r1<<sr))
				a2 += float32(u * math.Float32frombits(r1>>sl|r2<<sr))
				a3 += float32(u * math.Float32frombits(r2>>sl|r3<<sr))
				c = r3 >> sl
				pg = unsafe.Add(pg, 16) // (at most to t)
			}
		} else {
			// The last block: all elements but the last through the
			// loop, the last with t and we.
			if ac.m == 1 {
				var a float32
				xl := ac.xl
				if xl != ac.x {
					for px := ac.x; ; {
						r := (*[4]uint32)(pg)
						a += float32(*(*float32)(px) * math.Float32frombits(c|r[0]<<sr))
						c = r[3] >> sl
						px = unsafe.Add(px, 4)
						if px == xl {
							break
						}
						pg = unsafe.Add(pg, 16)
					}
				}
				a += float32(*(*float32)(xl) * math.Float32frombits(c|ac.t[0]<<sr))
				if ac.mode == 2 {
					a += math.Float32frombits(bv[1] | ac.e<<(ac.sr&31))
				} else if ac.mode == 1 {
					a += *(*float32)(pp[1])
				}
				*(*float32)(pp[0]) = a
				if a < ac.lo {
					*(*float32)(pp[0]) = ac.lo
				} else if a > ac.hi {
					*(*float32)(pp[0]) = ac.hi
				}
				return
			}
			if ac.k >= 3 {
				for px := ac.x; ; {
					xv := (*[2]float32)(px)
					r := (*[8]uint32)(pg)
					u := xv[0]
					r0, r1, r2, r3 := r[0], r[1], r[2], r[3]
					a0 += float32(u * math.Float32frombits(c|r0<<sr))
					a1 += float32(u * math.Float32frombits(r0>>sl|r1<<sr))
					a2 += float32(u * math.Float32frombits(r1>>sl|r2<<sr))
					a3 += float32(u * math.Float32frombits(r2>>sl|r3<<sr))
					u = xv[1]
					c = r3 >> sl
					r0, r1, r2, r3 = r[4], r[5], r[6], r[7]
					a0 += float32(u * math.Float32frombits(c|r0<<sr))
					a1 += float32(u * math.Float32frombits(r0>>sl|r1<<sr))
					a2 += float32(u * math.Float32frombits(r1>>sl|r2<<sr))
					a3 += float32(u * math.Float32frombits(r2>>sl|r3<<sr))
					c = r3 >> sl
					if px == ac.x3 {
						break
					}
					px = unsafe.Add(px, 8)
					pg = unsafe.Add(pg, 32)
				}
				pg = unsafe.Add(pg, 32)
			}
			if ac.k%2 == 0 {
				u := *(*float32)(unsafe.Add(ac.xl, -4))
				r := (*[4]uint32)(pg)
				r0, r1, r2, r3 := r[0], r[1], r[2], r[3]
				a0 += float32(u * math.Float32frombits(c|r0<<sr))
				a1 += float32(u * math.Float32frombits(r0>>sl|r1<<sr))
				a2 += float32(u * math.Float32frombits(r1>>sl|r2<<sr))
				a3 += float32(u * math.Float32frombits(r2>>sl|r3<<sr))
				c = r3 >> sl
			}
			xv := *(*float32)(ac.xl)
			t := ac.t
			t0, t1, t2 := t[0], t[1], t[2]
			a0 += float32(xv * math.Float32frombits(c|t0<<sr))
			a1 += float32(xv * math.Float32frombits(t0>>sl|t1<<sr))
			a2 += float32(xv * math.Float32frombits(t1>>sl|t2<<sr))
			a3 += float32(xv * math.Float32frombits(t2>>sl|ac.we<<sr))
			if ac.m != 4 {
				f32ActLast(ac, pp[0], pp[1], bv[1], ac.m, a0, a1, a2)
				return
			}
		}
		// The bias and clamp of four channels (in the last block the
		// funnel's fourth bias word is e).
		if ac.mode == 2 {
			r := (*[3]uint32)(pp[1])
			bsl, bsr := ac.sl&31, ac.sr&31
			r0, r1, r2 := r[0], r[1], r[2]
			r3 := ac.e
			if bv[0] != 0 {
				r3 = (*[4]uint32)(pp[1])[3]
			}
			a0 += math.Float32frombits(bv[1] | r0<<bsr)
			a1 += math.Float32frombits(r0>>bsl | r1<<bsr)
			a2 += math.Float32frombits(r1>>bsl | r2<<bsr)
			a3 += math.Float32frombits(r2>>bsl | r3<<bsr)
			bv[1] = r3 >> bsl
		} else if ac.mode == 1 {
			r := (*[4]float32)(pp[1])
			a0 += r[0]
			a1 += r[1]
			a2 += r[2]
			a3 += r[3]
		}
		oq := (*[4]float32)(pp[0])
		lo, hi := ac.lo, ac.hi
		oq[0], oq[1], oq[2], oq[3] = a0, a1, a2, a3
		if a0 < lo {
			oq[0] = lo
		} else if a0 > hi {
			oq[0] = hi
		}
		if a1 < lo {
			oq[1] = lo
		} else if a1 > hi {
			oq[1] = hi
		}
		if a2 < lo {
			oq[2] = lo
		} else if a2 > hi {
			oq[2] = hi
		}
		if a3 < lo {
			oq[3] = lo
		} else if a3 > hi {
			oq[3] = hi
		}
		if bv[0] == 0 {
			return
		}
		pp[0] = unsafe.Add(pp[0], 16)
		pp[1] = unsafe.Add(pp[1], 16)
	}
}

// f32ViewRow is f32FunnelRow for weights viewed as float32: from pw on
// lie the nb blocks, len(x) groups of four floats each.
func f32ViewRow(ac *f32Act) {
	pw := ac.pw
	po, pb, bc := ac.o, ac.pb, ac.c
	for blk := ac.nb - 1; ; blk-- {
		if blk == 0 && ac.m == 1 {
			// One channel left: only its products.
			var a float32
			for px := ac.x; ; {
				a += float32(*(*float32)(px) * (*[4]float32)(pw)[0])
				if px == ac.xl {
					break
				}
				px = unsafe.Add(px, 4)
				pw = unsafe.Add(pw, 16)
			}
			if ac.mode == 2 {
				a += math.Float32frombits(bc | ac.e<<(ac.sr&31))
			} else if ac.mode == 1 {
				a += *(*float32)(pb)
			}
			*(*float32)(po) = a
			if a < ac.lo {
				*(*float32)(po) = ac.lo
			} else if a > ac.hi {
				*(*float32)(po) = ac.hi
			}
			return
		}
		var a0, a1, a2, a3 float32
		for px := ac.x; ; {
			xv := *(*float32)(px)
			r := (*[4]float32)(pw)
			a0 += float32(xv * r[0])
			a1 += float32(xv * r[1])
			a2 += float32(xv * r[2])
			a3 += float32(xv * r[3])
			pw = unsafe.Add(pw, 16)
			if px == ac.xl {
				break
			}
			px = unsafe.Add(px, 4)
		}
		if blk == 0 && ac.m != 4 {
			f32ActLast(ac, po, pb, bc, ac.m, a0, a1, a2)
			return
		}
		// The bias and clamp of four channels (as in f32FunnelRow).
		if ac.mode == 2 {
			r := (*[3]uint32)(pb)
			bsl, bsr := ac.sl&31, ac.sr&31
			r0, r1, r2 := r[0], r[1], r[2]
			r3 := ac.e
			if blk != 0 {
				r3 = (*[4]uint32)(pb)[3]
			}
			a0 += math.Float32frombits(bc | r0<<bsr)
			a1 += math.Float32frombits(r0>>bsl | r1<<bsr)
			a2 += math.Float32frombits(r1>>bsl | r2<<bsr)
			a3 += math.Float32frombits(r2>>bsl | r3<<bsr)
			bc = r3 >> bsl
		} else if ac.mode == 1 {
			r := (*[4]float32)(pb)
			a0 += r[0]
			a1 += r[1]
			a2 += r[2]
			a3 += r[3]
		}
		oq := (*[4]float32)(po)
		lo, hi := ac.lo, ac.hi
		oq[0], oq[1], oq[2], oq[3] = a0, a1, a2, a3
		if a0 < lo {
			oq[0] = lo
		} else if a0 > hi {
			oq[0] = hi
		}
		if a1 < lo {
			oq[1] = lo
		} else if a1 > hi {
			oq[1] = hi
		}
		if a2 < lo {
			oq[2] = lo
		} else if a2 > hi {
			oq[2] = hi
		}
		if a3 < lo {
			oq[3] = lo
		} else if a3 > hi {
			oq[3] = hi
		}
		if blk == 0 {
			return
		}
		pb = unsafe.Add(pb, 16)
		po = unsafe.Add(po, 16)
	}
}

// f32Store4 stores the first min(len(o), 4) of a0..a3 in o.
func f32Store4(o []float32, a0, a1, a2, a3 float32) {
	switch len(o) {
	case 1:
		o[0] = a0
	case 2:
		oq := (*[2]float32)(o)
		oq[0], oq[1] = a0, a1
	case 3:
		oq := (*[3]float32)(o)
		oq[0], oq[1], oq[2] = a0, a1, a2
	default:
		oq := (*[4]float32)(o[:4])
		oq[0], oq[1], oq[2], oq[3] = a0, a1, a2, a3
	}
}
