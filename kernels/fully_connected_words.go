package kernels

import (
	"math"
	"unsafe"
)

// f32At is the float32 whose bits are the word at p, at any address where
// f32WordLoads holds (a word load, then through the stack into a float
// register: gc for ARM has no direct move).
func f32At(p unsafe.Pointer) float32 { return math.Float32frombits(*(*uint32)(p)) }

// f32WordRow is f32ViewRow with every weight and bias value read by f32At:
// from ac.pw on lie the nb blocks, k groups of four floats each; the bias
// (mode 1) at ac.pb. Two whole blocks go to f32WordRow8 together. The
// last block has m channels, one of them computing only its own products.
func f32WordRow(ac *f32Act) {
	pw := ac.pw
	po, pb := ac.o, ac.pb
	for blk := ac.nb - 1; ; blk-- {
		if blk == 0 && ac.m == 1 {
			// One channel left: only its products.
			var a float32
			for px := ac.x; ; {
				a += float32(*(*float32)(px) * f32At(pw))
				if px == ac.xl {
					break
				}
				px = unsafe.Add(px, 4)
				pw = unsafe.Add(pw, 16)
			}
			if ac.mode == 1 {
				a += f32At(pb)
			}
			*(*float32)(po) = clampF32(a, ac.lo, ac.hi)
			return
		}
		if blk >= 2 || blk == 1 && ac.m == 4 {
			// Two whole blocks: eight channels, each input loaded
			// once for them.
			f32WordRow8(ac, pw, pb, po)
			pw = unsafe.Add(pw, 32*ac.k)
			if blk--; blk == 0 {
				return
			}
			pb = unsafe.Add(pb, 32)
			po = unsafe.Add(po, 32)
			continue
		}
		var a0, a1, a2, a3 float32
		for px := ac.x; ; {
			u := *(*float32)(px)
			a0 += float32(u * f32At(pw))
			a1 += float32(u * f32At(unsafe.Add(pw, 4)))
			a2 += float32(u * f32At(unsafe.Add(pw, 8)))
			a3 += float32(u * f32At(unsafe.Add(pw, 12)))
			pw = unsafe.Add(pw, 16)
			if px == ac.xl {
				break
			}
			px = unsafe.Add(px, 4)
		}
		m := 4
		if blk == 0 {
			m = ac.m
		}
		if ac.mode == 1 {
			a0 += f32At(pb)
			a1 += f32At(unsafe.Add(pb, 4))
			if m >= 3 {
				a2 += f32At(unsafe.Add(pb, 8))
			}
			if m == 4 {
				a3 += f32At(unsafe.Add(pb, 12))
			}
		}
		lo, hi := ac.lo, ac.hi
		oq := (*[2]float32)(po)
		oq[0], oq[1] = clampF32(a0, lo, hi), clampF32(a1, lo, hi)
		if m >= 3 {
			(*[3]float32)(po)[2] = clampF32(a2, lo, hi)
		}
		if m == 4 {
			(*[4]float32)(po)[3] = clampF32(a3, lo, hi)
		}
		if blk == 0 {
			return
		}
		pb = unsafe.Add(pb, 16)
		po = unsafe.Add(po, 16)
	}
}

// f32WordRow8 is f32WordRow for the two whole blocks of channels at pw
// (the second 16*k bytes on): the eight channels' sums, bias (from pb)
// and clamp into po, one input a pass.
func f32WordRow8(ac *f32Act, pw, pb, po unsafe.Pointer) {
	var a0, a1, a2, a3, a4, a5, a6, a7 float32
	pv := unsafe.Add(pw, 16*ac.k)
	for px := ac.x; ; {
		u := *(*float32)(px)
		a0 += float32(u * f32At(pw))
		a1 += float32(u * f32At(unsafe.Add(pw, 4)))
		a2 += float32(u * f32At(unsafe.Add(pw, 8)))
		a3 += float32(u * f32At(unsafe.Add(pw, 12)))
		a4 += float32(u * f32At(pv))
		a5 += float32(u * f32At(unsafe.Add(pv, 4)))
		a6 += float32(u * f32At(unsafe.Add(pv, 8)))
		a7 += float32(u * f32At(unsafe.Add(pv, 12)))
		if px == ac.xl {
			break
		}
		px = unsafe.Add(px, 4)
		pw, pv = unsafe.Add(pw, 16), unsafe.Add(pv, 16)
	}
	if ac.mode == 1 {
		a0 += f32At(pb)
		a1 += f32At(unsafe.Add(pb, 4))
		a2 += f32At(unsafe.Add(pb, 8))
		a3 += f32At(unsafe.Add(pb, 12))
		a4 += f32At(unsafe.Add(pb, 16))
		a5 += f32At(unsafe.Add(pb, 20))
		a6 += f32At(unsafe.Add(pb, 24))
		a7 += f32At(unsafe.Add(pb, 28))
	}
	lo, hi := ac.lo, ac.hi
	o := (*[8]float32)(po)
	o[0], o[1], o[2], o[3] = clampF32(a0, lo, hi), clampF32(a1, lo, hi), clampF32(a2, lo, hi), clampF32(a3, lo, hi)
	o[4], o[5], o[6], o[7] = clampF32(a4, lo, hi), clampF32(a5, lo, hi), clampF32(a6, lo, hi), clampF32(a7, lo, hi)
}
