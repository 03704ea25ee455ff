package kernels

import "unsafe"

// The -speed SVDF kernels keep each filter's memory row as a ring instead
// of TFLM's shift register: one slot is written per Invoke, and pos (a
// persistent int32) holds the physical slot of the oldest value. Logical
// slot m (0 the oldest) of every row is at physical (pos+m) mod memory.
// weights_time is stored with each row twice (row || row), so that for
// any pos the weights of the physical slots 0..memory-1 are one
// contiguous window of it, from offset memory - pos: the time product
// reads the row and the window in order and stores nothing but the new
// value. The sums are the same int32 values as TFLM's in another order
// (wrapping addition is associative), and Reset's state (every slot the
// zero point, pos 0) is TFLM's initial state. The int16 weights are
// stored twice more, the second copy at an odd offset, so that one of
// them is 2-byte aligned and each weight is one halfword load; the
// feature and time biases four times, one copy word-aligned
// (strAligned4).

// svdfRingStep advances pos (a value out of range counts as 0) and
// returns the physical slot of the new value and the offset of the
// weights' window in each doubled row.
func svdfRingStep(pos []int32, mem int) (slot, off int) {
	p := int(uint32(pos[0]))
	if p >= mem {
		p = 0
	}
	q := p + 1
	if q == mem {
		q = 0
	}
	pos[0] = int32(q)
	return p, mem - q
}

// svdfRingWT16 returns the 2-byte-aligned copy of the doubled int16
// weights_time in ww (copy || 0 || copy).
func svdfRingWT16(ww string) string {
	n := (len(ww) - 1) / 2
	if uintptr(unsafe.Pointer(unsafe.StringData(ww)))&1 == 0 {
		return ww[:n]
	}
	return ww[n+1 : 2*n+1]
}

// svdfTimeOutRingI8 is svdfTimeOutI8 for ring rows: row j (st[j*mem:])
// takes a[j] at physical slot slot, and its time sum reads the doubled
// int8 weights ww[2*j*mem+off:] (mem a multiple of 8); tb is
// word-aligned (strAligned4). A memory of 8 slots, the keyword models'
// most common, has a loop of its own without the inner loop (about 7
// instructions a filter fewer under gc).
//
//go:noinline
func svdfTimeOutRingI8(st []int8, ww, tb string, a []int32, mem, slot, off int, t *rqOne, o []int8) {
	n := len(a)
	st, ww, tb, o = st[:n*mem], ww[:2*n*mem], tb[:4*n], o[:n]
	slot, off = min(slot, mem-1), min(off, mem)
	ps := unsafe.Pointer(unsafe.SliceData(st))
	pw := unsafe.Add(unsafe.Pointer(unsafe.StringData(ww)), off)
	pb := unsafe.Pointer(unsafe.StringData(tb))
	po := unsafe.Pointer(unsafe.SliceData(o))
	pa := unsafe.Pointer(unsafe.SliceData(a))
	end := unsafe.Add(po, n)               // po, not pa: doc.go, "Locals under TinyGo"
	m2, d, sh := t.m2, uint64(t.d), t.r&31 // svdfFastPlan's time record: span 255, hi 127
	if mem == 8 {
		// One group of eight a row: no inner loop.
		for ; po != end; pa, pb, po = unsafe.Add(pa, 4), unsafe.Add(pb, 4), unsafe.Add(po, 1) {
			*(*int8)(unsafe.Add(ps, slot)) = int8(*(*int32)(pa))
			acc := *(*int32)(pb)
			s, w := (*[8]int8)(ps), (*[8]int8)(pw)
			acc += int32(s[0]) * int32(w[0])
			acc += int32(s[1]) * int32(w[1])
			acc += int32(s[2]) * int32(w[2])
			acc += int32(s[3]) * int32(w[3])
			acc += int32(s[4]) * int32(w[4])
			acc += int32(s[5]) * int32(w[5])
			acc += int32(s[6]) * int32(w[6])
			acc += int32(s[7]) * int32(w[7])
			ps, pw = unsafe.Add(ps, 8), unsafe.Add(pw, 16)
			*(*int8)(po) = rqOneR(acc, m2, d, sh, 255, 127)
		}
		return
	}
	for ; po != end; pa, pb, po = unsafe.Add(pa, 4), unsafe.Add(pb, 4), unsafe.Add(po, 1) {
		*(*int8)(unsafe.Add(ps, slot)) = int8(*(*int32)(pa))
		acc := *(*int32)(pb)
		for e := unsafe.Add(ps, mem); ps != e; ps, pw = unsafe.Add(ps, 8), unsafe.Add(pw, 8) {
			s, w := (*[8]int8)(ps), (*[8]int8)(pw)
			acc += int32(s[0]) * int32(w[0])
			acc += int32(s[1]) * int32(w[1])
			acc += int32(s[2]) * int32(w[2])
			acc += int32(s[3]) * int32(w[3])
			acc += int32(s[4]) * int32(w[4])
			acc += int32(s[5]) * int32(w[5])
			acc += int32(s[6]) * int32(w[6])
			acc += int32(s[7]) * int32(w[7])
		}
		pw = unsafe.Add(pw, mem) // the doubled row's second half
		*(*int8)(po) = rqOneR(acc, m2, d, sh, 255, 127)
	}
}

// svdfTimeOutRingI16 is svdfTimeOutRingI8 for int16 state and the aligned
// copy of the doubled int16 weights (svdfRingWT16).
//
//go:noinline
func svdfTimeOutRingI16(st []int16, ww, tb string, a []int32, mem, slot, off int, t *rqOne, o []int8) {
	n := len(a)
	st, ww, tb, o = st[:n*mem], ww[:4*n*mem], tb[:4*n], o[:n]
	slot, off = min(slot, mem-1), min(off, mem)
	ps := unsafe.Pointer(unsafe.SliceData(st))
	pw := unsafe.Add(unsafe.Pointer(unsafe.StringData(ww)), 2*off)
	pb := unsafe.Pointer(unsafe.StringData(tb))
	po := unsafe.Pointer(unsafe.SliceData(o))
	pa := unsafe.Pointer(unsafe.SliceData(a))
	end := unsafe.Add(po, n)               // po, not pa: doc.go, "Locals under TinyGo"
	m2, d, sh := t.m2, uint64(t.d), t.r&31 // svdfFastPlan's time record: span 255, hi 127
	if mem == 8 {
		// One group of eight a row: no inner loop.
		for ; po != end; pa, pb, po = unsafe.Add(pa, 4), unsafe.Add(pb, 4), unsafe.Add(po, 1) {
			*(*int16)(unsafe.Add(ps, 2*slot)) = int16(*(*int32)(pa))
			acc := *(*int32)(pb)
			s, w := (*[8]int16)(ps), (*[8]int16)(pw)
			acc += int32(s[0]) * int32(w[0])
			acc += int32(s[1]) * int32(w[1])
			acc += int32(s[2]) * int32(w[2])
			acc += int32(s[3]) * int32(w[3])
			acc += int32(s[4]) * int32(w[4])
			acc += int32(s[5]) * int32(w[5])
			acc += int32(s[6]) * int32(w[6])
			acc += int32(s[7]) * int32(w[7])
			ps, pw = unsafe.Add(ps, 16), unsafe.Add(pw, 32)
			*(*int8)(po) = rqOneR(acc, m2, d, sh, 255, 127)
		}
		return
	}
	for ; po != end; pa, pb, po = unsafe.Add(pa, 4), unsafe.Add(pb, 4), unsafe.Add(po, 1) {
		*(*int16)(unsafe.Add(ps, 2*slot)) = int16(*(*int32)(pa))
		acc := *(*int32)(pb)
		for e := unsafe.Add(ps, 2*mem); ps != e; ps, pw = unsafe.Add(ps, 16), unsafe.Add(pw, 16) {
			s, w := (*[8]int16)(ps), (*[8]int16)(pw)
			acc += int32(s[0]) * int32(w[0])
			acc += int32(s[1]) * int32(w[1])
			acc += int32(s[2]) * int32(w[2])
			acc += int32(s[3]) * int32(w[3])
			acc += int32(s[4]) * int32(w[4])
			acc += int32(s[5]) * int32(w[5])
			acc += int32(s[6]) * int32(w[6])
			acc += int32(s[7]) * int32(w[7])
		}
		pw = unsafe.Add(pw, 2*mem)
		*(*int8)(po) = rqOneR(acc, m2, d, sh, 255, 127)
	}
}

// svdfInt8x8Ring is svdfInt8x8Fast with ring rows (see above): ww is
// weights_time with each row doubled, pos the ring's position. The
// lowering emits it only for an SVDF that svdfFastPlan accepts, with the
// records f and t.
func svdfInt8x8Ring(p *svdfParams, f, t *rqOne, in []int8, wf, fbias, ww, tbias string, state []int8, pos []int32, scr []int32, out []int8) {
	mem, nf, k := p.memory, p.numFilters, p.inputSize
	fbias, tbias = strAligned4(fbias, 4*nf), strAligned4(tbias, 4*nf)
	ww = ww[:2*nf*mem]
	state, out = state[:p.batch*nf*mem], out[:p.batch*nf]
	slot, off := svdfRingStep(pos, mem)
	acc := (*[svdfBlk]int32)(scr[:svdfBlk])
	for b := 0; b < p.batch; b++ {
		x := in[b*k : (b+1)*k]
		corr := -128 * sumI8(x) // octPack stores w+128
		row := state[b*nf*mem : (b+1)*nf*mem]
		o := out[b*nf : (b+1)*nf]
		for c := 0; c < nf; c += svdfBlk {
			n := min(svdfBlk, nf-c)
			svdfProject(x, wf, c, n, acc)
			svdfState8(acc[:n], fbias[4*c:], true, corr, f, p.stateZP)
			svdfTimeOutRingI8(row[c*mem:], ww[2*c*mem:], tbias[4*c:], acc[:n], mem, slot, off, t, o[c:])
		}
	}
}

// svdfInt8x16Ring is svdfInt8x16 with ring rows: ww holds the doubled
// int16 weights_time twice (svdfRingWT16).
func svdfInt8x16Ring(p *svdfParams, f, t *rqOne, in []int8, wf, fbias, ww, tbias string, state []int16, pos []int32, scr []int32, out []int8) {
	mem, nf, k := p.memory, p.numFilters, p.inputSize
	fbias, tbias = strAligned4(fbias, 4*nf), strAligned4(tbias, 4*nf)
	ww = svdfRingWT16(ww)[:4*nf*mem]
	state, out = state[:p.batch*nf*mem], out[:p.batch*nf]
	slot, off := svdfRingStep(pos, mem)
	acc := (*[svdfBlk]int32)(scr[:svdfBlk])
	for b := 0; b < p.batch; b++ {
		x := in[b*k : (b+1)*k]
		corr := -128 * sumI8(x) // octPack stores w+128
		row := state[b*nf*mem : (b+1)*nf*mem]
		o := out[b*nf : (b+1)*nf]
		for c := 0; c < nf; c += svdfBlk {
			n := min(svdfBlk, nf-c)
			svdfProject(x, wf, c, n, acc)
			svdfState16(acc[:n], fbias[4*c:], true, corr, f, p.stateZP)
			svdfTimeOutRingI16(row[c*mem:], ww[4*c*mem:], tbias[4*c:], acc[:n], mem, slot, off, t, o[c:])
		}
	}
}
