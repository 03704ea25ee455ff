package kernels

import (
	"math/bits"
	"unsafe"
)

// The integer SVDF kernels' fast path, for the common shape (rank 1, a
// memory of a multiple of eight slots, octDot weights) with the feature
// rescaling a left shift or a right shift of up to 21 bits and the time
// rescaling a right shift of 1 to 21 bits. A block of filters at a time:
// their feature sums (octDot), their new state values (svdfState8/16), then
// per filter its row shifted by one slot while it is multiplied with
// weights_time (operands read at constant offsets from two walking
// pointers: a load of each, the store of the shift and one multiply-add
// per product on a 32-bit core) and the unit's output. Both rescalings use
// convPWQ's one-multiply form (svdfRec); it covers sums in [-2^30, 2^30),
// and the sums outside are clamped into it, which svdfFastPlan makes exact
// by requiring that both ends of that range already saturate. The
// generator runs the plan (PlanSVDF) and emits a call of svdfInt8x8Fast,
// svdfInt8x16Fast or, with -speed, the ring kernels (svdf_ring.go) with
// its records; other SVDFs call svdfInt8x8 or svdfInt8x16.

// svdfFastPlan reports whether the SVDF p (int16 state when st16) takes
// the fast kernels and fills their two requantizations: f, feature sum to
// state value (clamped to int8 for int8 state; not clamped for int16
// state, where the kernel clamps), and t, time sum to the int8 output.
// The generator calls it (PlanSVDF) and passes f and t to the kernels.
func svdfFastPlan(p *svdfParams, st16 bool, f, t *rqOne) bool {
	if p.rank != 1 || p.memory%8 != 0 || p.memory == 0 || !p.octW || p.numUnits != p.numFilters {
		return false
	}
	if st16 {
		// The no-clamp form (zo = lo = hi = 0), its ends checked
		// against the int16 range.
		return rqOneSet(f, p.mult1, p.lsh1, p.rsh1, 0, 0, 0) &&
			rqOneSat(p.mult1, p.rsh1, 0, -32768, 32767) &&
			rqOneSet(t, p.mult2, p.lsh2, p.rsh2, p.outZP, -128, 127) && p.rsh2 > 31
	}
	return rqOneSet(f, p.mult1, p.lsh1, p.rsh1, 0, -128, 127) &&
		rqOneSet(t, p.mult2, p.lsh2, p.rsh2, p.outZP, -128, 127) && p.rsh2 > 31
}

// svdfBlk is how many filters the fast kernels take through each step
// at once (their sums and new state values, kept in the planned scratch).
// Sixteen: 64 bytes of scratch. (When the block was a local array, TinyGo
// zeroed it on every call, byte by byte through memset, which for 64
// filters cost more than the steps' calls for four blocks of sixteen.)
const svdfBlk = 16

// svdfFastScratch is the scratch of the fast and ring kernels in int32
// words: one step's sums and new state values.
const svdfFastScratch = svdfBlk

// svdfProject stores in acc the raw feature sums (octDot) of filters c to
// c+n-1, n <= svdfBlk, in blocks of eight (the packed weights wf pad the
// last block), walking one pointer through the weights.
func svdfProject(x []int8, wf string, c, n int, acc *[svdfBlk]int32) {
	k, nb := len(x), min((n+7)/8, svdfBlk/8)
	wf = wf[c*k : (c+8*nb)*k+octPad]
	p := unsafe.Pointer(unsafe.StringData(wf))
	for j := 0; j < nb; j++ {
		a := (*[8]int32)(unsafe.Pointer(&acc[8*j]))
		if bits.UintSize == 64 {
			octDot64(x, p, a)
		} else {
			octPass8(x, p, a)
		}
		p = unsafe.Add(p, 8*k)
	}
}

// svdfState8 turns the raw feature sums a[j] of a block into new int8
// state values, kept in a[j]: plus corr and feature bias j (fb:
// little-endian int32; word-aligned when al is set, then read as words),
// rescaled by r.f, clamped to int8, plus the state zero point zs,
// truncated to int8 as TFLM does.
//
//go:noinline
func svdfState8(a []int32, fb string, al bool, corr int32, f *rqOne, zs int32) {
	fb = fb[:4*len(a)]
	pa, pb := unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.StringData(fb))
	end := unsafe.Add(pb, 4*len(a)) // pb, not pa: doc.go, "Locals under TinyGo"
	// rqOneQ with the record's fields in registers (span 255, hi 127);
	// one loop per bias layout, so that neither tests al per filter.
	m2, e, d, sh, lsh := f.m2, f.e, uint64(f.d), f.r&31, f.lsh&31
	if al {
		for ; pb != end; pa, pb = unsafe.Add(pa, 4), unsafe.Add(pb, 4) {
			*(*int32)(pa) = int32(int8(svdfNew8(*(*int32)(pa)+corr+*(*int32)(pb), m2, e, d, sh, lsh) + zs))
		}
		return
	}
	for ; pb != end; pa, pb = unsafe.Add(pa, 4), unsafe.Add(pb, 4) {
		*(*int32)(pa) = int32(int8(svdfNew8(*(*int32)(pa)+corr+svdfLE32(pb), m2, e, d, sh, lsh) + zs))
	}
}

// svdfLE32 is le32 at p, written out so that TinyGo (-opt=z), which does
// not inline le32 into these loops, loads it in place: one LDR on the
// Cortex-M4, which combines the four byte loads.
func svdfLE32(p unsafe.Pointer) int32 {
	q := (*[4]byte)(p)
	return int32(uint32(q[0]) | uint32(q[1])<<8 | uint32(q[2])<<16 | uint32(q[3])<<24)
}

// svdfNew8 is the int8 state value of feature sum v before the zero
// point: rqOneQ with the record's fields passed by value (span 255, hi
// 127). The caller adds the zero point and truncates to int8, as TFLM
// does.
func svdfNew8(v int32, m2, e uint32, d uint64, sh, lsh uint32) int32 {
	s := uint32(rqOneIn(v<<lsh)) + 1<<30
	x := uint64(s)*uint64(m2) + d
	y := (int32(uint32(x>>32)) + int32(s>>30&e)) >> sh // rq(v) + 128
	y &^= y >> 31
	y = 255 - y
	return 127 - y&^(y>>31)
}

// svdfState16 is svdfState8 for int16 state.
//
//go:noinline
func svdfState16(a []int32, fb string, al bool, corr int32, f *rqOne, zs int32) {
	fb = fb[:4*len(a)]
	pa, pb := unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.StringData(fb))
	end := unsafe.Add(pb, 4*len(a)) // pb, not pa: doc.go, "Locals under TinyGo"
	// rqOne0 with the record's fields in registers; one loop per bias
	// layout, so that neither tests al per filter.
	m2, e, d, sh, lsh := f.m2, f.e, uint64(f.d), f.r&31, f.lsh&31
	if al {
		for ; pb != end; pa, pb = unsafe.Add(pa, 4), unsafe.Add(pb, 4) {
			*(*int32)(pa) = svdfNew16(*(*int32)(pa)+corr+*(*int32)(pb), m2, e, d, sh, lsh, zs)
		}
		return
	}
	for ; pb != end; pa, pb = unsafe.Add(pa, 4), unsafe.Add(pb, 4) {
		*(*int32)(pa) = svdfNew16(*(*int32)(pa)+corr+svdfLE32(pb), m2, e, d, sh, lsh, zs)
	}
}

// svdfNew16 is the new int16 state value of feature sum v: rqOne0 with
// the record's fields passed by value, clamped to int16, plus the state
// zero point zs (added after the clamp, as TFLM does), truncated to int16.
func svdfNew16(v int32, m2, e uint32, d uint64, sh, lsh uint32, zs int32) int32 {
	s := uint32(rqOneIn(v<<lsh)) + 1<<30
	x := uint64(s)*uint64(m2) + d
	y := (int32(uint32(x>>32)) + int32(s>>30&e)) >> sh
	if (y+32768)>>16 != 0 {
		y = min(max(y, -32768), 32767)
	}
	return int32(int16(y + zs))
}

// svdfTimeOutI8 finishes a block of len(a) filters with int8 state: row j
// (st[j*mem:]) is shifted left by one slot as it is multiplied with its
// int8 weights_time row (wt[j*mem:]) and takes the new value a[j] in its
// last slot; the time sum is time bias j (tb) plus those products, and
// output j its rescaling (rqOneR with the time record). mem is a multiple
// of 8.
//
//go:noinline
func svdfTimeOutI8(st []int8, wt, tb string, a []int32, mem int, t *rqOne, o []int8) {
	n := len(a)
	st, wt, tb, o = st[:n*mem], wt[:n*mem], tb[:4*n], o[:n]
	ps := unsafe.Pointer(unsafe.SliceData(st))
	pw := unsafe.Pointer(unsafe.StringData(wt))
	pb := unsafe.Pointer(unsafe.StringData(tb))
	po := unsafe.Pointer(unsafe.SliceData(o))
	pa := unsafe.Pointer(unsafe.SliceData(a))
	end := unsafe.Add(po, n)               // po, not pa: doc.go, "Locals under TinyGo"
	m2, d, sh := t.m2, uint64(t.d), t.r&31 // svdfFastPlan's time record: span 255, hi 127
	g := 8 * (mem/8 - 1)                   // bytes of a row before its last group of eight
	for ; po != end; pa, pb, po = unsafe.Add(pa, 4), unsafe.Add(pb, 4), unsafe.Add(po, 1) {
		acc := svdfLE32(pb)
		for e := unsafe.Add(ps, g); ps != e; ps, pw = unsafe.Add(ps, 8), unsafe.Add(pw, 8) {
			// Slots 1..8 of the group's nine move to 0..7.
			s, w := (*[9]int8)(ps), (*[8]int8)(pw)
			v0 := s[1]
			s[0] = v0
			acc += int32(v0) * int32(w[0])
			v1 := s[2]
			s[1] = v1
			acc += int32(v1) * int32(w[1])
			v2 := s[3]
			s[2] = v2
			acc += int32(v2) * int32(w[2])
			v3 := s[4]
			s[3] = v3
			acc += int32(v3) * int32(w[3])
			v4 := s[5]
			s[4] = v4
			acc += int32(v4) * int32(w[4])
			v5 := s[6]
			s[5] = v5
			acc += int32(v5) * int32(w[5])
			v6 := s[7]
			s[6] = v6
			acc += int32(v6) * int32(w[6])
			v7 := s[8]
			s[7] = v7
			acc += int32(v7) * int32(w[7])
		}
		// The row's last group takes the new value.
		s, w := (*[8]int8)(ps), (*[8]int8)(pw)
		v0 := s[1]
		s[0] = v0
		acc += int32(v0) * int32(w[0])
		v1 := s[2]
		s[1] = v1
		acc += int32(v1) * int32(w[1])
		v2 := s[3]
		s[2] = v2
		acc += int32(v2) * int32(w[2])
		v3 := s[4]
		s[3] = v3
		acc += int32(v3) * int32(w[3])
		v4 := s[5]
		s[4] = v4
		acc += int32(v4) * int32(w[4])
		v5 := s[6]
		s[5] = v5
		acc += int32(v5) * int32(w[5])
		v6 := s[7]
		s[6] = v6
		acc += int32(v6) * int32(w[6])
		v := *(*int32)(pa)
		s[7] = int8(v)
		acc += v * int32(w[7])
		ps, pw = unsafe.Add(ps, 8), unsafe.Add(pw, 8)
		*(*int8)(po) = rqOneR(acc, m2, d, sh, 255, 127)
	}
}

// svdfTimeOutI16Ref is svdfTimeOutI8 for int16 state and int16
// weights_time (little-endian, as stored): each row is shifted left by one
// slot as it is multiplied, and the new value goes to its last slot. It is
// svdfTimeOutI16 on every build but the Cortex-M4/M7 one
// (svdf_time_arm.go), which moves and multiplies two slots a word.
//
//go:noinline
func svdfTimeOutI16Ref(st []int16, wt, tb string, a []int32, mem int, t *rqOne, o []int8) {
	n := len(a)
	st, wt, tb, o = st[:n*mem], wt[:2*n*mem], tb[:4*n], o[:n]
	ps := unsafe.Pointer(unsafe.SliceData(st))
	pw := unsafe.Pointer(unsafe.StringData(wt))
	pb := unsafe.Pointer(unsafe.StringData(tb))
	po := unsafe.Pointer(unsafe.SliceData(o))
	pa := unsafe.Pointer(unsafe.SliceData(a))
	end := unsafe.Add(po, n)               // po, not pa: doc.go, "Locals under TinyGo"
	m2, d, sh := t.m2, uint64(t.d), t.r&31 // svdfFastPlan's time record: span 255, hi 127
	g := 16 * (mem/8 - 1)                  // bytes of a row before its last group of eight
	for ; po != end; pa, pb, po = unsafe.Add(pa, 4), unsafe.Add(pb, 4), unsafe.Add(po, 1) {
		acc := svdfLE32(pb)
		for e := unsafe.Add(ps, g); ps != e; ps, pw = unsafe.Add(ps, 16), unsafe.Add(pw, 16) {
			// Slots 1..8 of the group's nine move to 0..7.
			s, w, h := (*[9]int16)(ps), (*[16]uint8)(pw), (*[16]int8)(pw)
			v0 := s[1]
			s[0] = v0
			acc += int32(v0) * (int32(h[1])<<8 | int32(w[0]))
			v1 := s[2]
			s[1] = v1
			acc += int32(v1) * (int32(h[3])<<8 | int32(w[2]))
			v2 := s[3]
			s[2] = v2
			acc += int32(v2) * (int32(h[5])<<8 | int32(w[4]))
			v3 := s[4]
			s[3] = v3
			acc += int32(v3) * (int32(h[7])<<8 | int32(w[6]))
			v4 := s[5]
			s[4] = v4
			acc += int32(v4) * (int32(h[9])<<8 | int32(w[8]))
			v5 := s[6]
			s[5] = v5
			acc += int32(v5) * (int32(h[11])<<8 | int32(w[10]))
			v6 := s[7]
			s[6] = v6
			acc += int32(v6) * (int32(h[13])<<8 | int32(w[12]))
			v7 := s[8]
			s[7] = v7
			acc += int32(v7) * (int32(h[15])<<8 | int32(w[14]))
		}
		// The row's last group takes the new value.
		s, w, h := (*[8]int16)(ps), (*[16]uint8)(pw), (*[16]int8)(pw)
		v0 := s[1]
		s[0] = v0
		acc += int32(v0) * (int32(h[1])<<8 | int32(w[0]))
		v1 := s[2]
		s[1] = v1
		acc += int32(v1) * (int32(h[3])<<8 | int32(w[2]))
		v2 := s[3]
		s[2] = v2
		acc += int32(v2) * (int32(h[5])<<8 | int32(w[4]))
		v3 := s[4]
		s[3] = v3
		acc += int32(v3) * (int32(h[7])<<8 | int32(w[6]))
		v4 := s[5]
		s[4] = v4
		acc += int32(v4) * (int32(h[9])<<8 | int32(w[8]))
		v5 := s[6]
		s[5] = v5
		acc += int32(v5) * (int32(h[11])<<8 | int32(w[10]))
		v6 := s[7]
		s[6] = v6
		acc += int32(v6) * (int32(h[13])<<8 | int32(w[12]))
		v := *(*int32)(pa)
		s[7] = int16(v)
		acc += v * (int32(h[15])<<8 | int32(w[14]))
		ps, pw = unsafe.Add(ps, 16), unsafe.Add(pw, 16)
		*(*int8)(po) = rqOneR(acc, m2, d, sh, 255, 127)
	}
}

// svdfInt8x8Fast is svdfInt8x8 for an SVDF that svdfFastPlan accepts
// (int8 state), with its records f and t, svdfBlk filters at a time:
// feature sums (octDot), new state values, then rows (shifted by one
// slot), time sums and outputs.
func svdfInt8x8Fast(p *svdfParams, f, t *rqOne, in []int8, wf, fbias, wt, tbias string, state []int8, scr []int32, out []int8) {
	mem, nf, k := p.memory, p.numFilters, p.inputSize
	fbias, tbias, wt = fbias[:4*nf], tbias[:4*nf], wt[:nf*mem]
	state, out = state[:p.batch*nf*mem], out[:p.batch*nf]
	acc := (*[svdfBlk]int32)(scr[:svdfBlk])
	for b := 0; b < p.batch; b++ {
		x := in[b*k : (b+1)*k]
		corr := -128 * sumI8(x) // octPack stores w+128
		row := state[b*nf*mem : (b+1)*nf*mem]
		o := out[b*nf : (b+1)*nf]
		for c := 0; c < nf; c += svdfBlk {
			n := min(svdfBlk, nf-c)
			svdfProject(x, wf, c, n, acc)
			svdfState8(acc[:n], fbias[4*c:], false, corr, f, p.stateZP)
			svdfTimeOutI8(row[c*mem:], wt[c*mem:], tbias[4*c:], acc[:n], mem, t, o[c:])
		}
	}
}

// svdfInt8x16Fast is svdfInt8x16 for an SVDF that svdfFastPlan accepts
// (int16 state), as svdfInt8x8Fast.
func svdfInt8x16Fast(p *svdfParams, f, t *rqOne, in []int8, wf, fbias, wt, tbias string, state []int16, scr []int32, out []int8) {
	mem, nf, k := p.memory, p.numFilters, p.inputSize
	fbias, tbias, wt = fbias[:4*nf], tbias[:4*nf], wt[:2*nf*mem]
	state, out = state[:p.batch*nf*mem], out[:p.batch*nf]
	acc := (*[svdfBlk]int32)(scr[:svdfBlk])
	for b := 0; b < p.batch; b++ {
		x := in[b*k : (b+1)*k]
		corr := -128 * sumI8(x) // octPack stores w+128
		row := state[b*nf*mem : (b+1)*nf*mem]
		o := out[b*nf : (b+1)*nf]
		for c := 0; c < nf; c += svdfBlk {
			n := min(svdfBlk, nf-c)
			svdfProject(x, wf, c, n, acc)
			svdfState16(acc[:n], fbias[4*c:], false, corr, f, p.stateZP)
			svdfTimeOutI16(row[c*mem:], wt[2*c*mem:], tbias[4*c:], acc[:n], mem, t, o[c:])
		}
	}
}
