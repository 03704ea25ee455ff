package kernels

import "unsafe"

// fcOctInt8 is the int8 fully connected layer computed with octDot
// (oct.go): eight output channels per pass over the input row, one byte per
// weight. w holds the weights packed at generation time (gen/lower's
// octPack, rows = output channels). rq holds one fcRQRecordLen-byte record
// per output channel: the bias with the input offset folded in and the
// channel's requantization. scr is its planned scratch (fcOctScratch
// words): octDot's sums, which its assembly stores to memory.
func fcOctInt8(p *fcParams, in []int8, w, rq string, scr []int32, out []int8) {
	k, n := p.accumDepth, p.outDepth
	a := (*[8]int32)(scr[:8])
	for b := 0; b < p.batches; b++ {
		x := in[b*k : b*k+k]
		o := out[b*n : b*n+n]
		corr := -128 * fcSumI8(x) // octDot sums x*(w+128)
		for c := 0; c < n; c += 8 {
			octDot(x, w[c*k:], a)
			fcOctOut(p, a, corr, rq[fcRQRecordLen*c:], o[c:min(c+8, n)])
		}
	}
}

// fcOctOut finishes up to eight channels from their raw sums a: adds corr
// and the folded bias of the channel's record in rq, requantizes (rqApply),
// adds the output zero point and clamps.
func fcOctOut(p *fcParams, a *[8]int32, corr int32, rq string, o []int8) {
	o = o[:min(len(o), 8)]
	rq = rq[:fcRQRecordLen*len(o)]
	zp, lo, hi := p.outOffset, p.actMin, p.actMax
	for r := range o {
		t := rq[fcRQRecordLen*r : fcRQRecordLen*r+fcRQRecordLen]
		q := rqFromFC(ld32(t, 1), t[12], t[13])
		o[r] = int8(min(max(rqApply(a[r]+corr+ld32(t, 0), &q)+zp, lo), hi))
	}
}

// fcOctInt8PT is fcOctInt8 for per-tensor requantization (one multiplier
// and shift for every channel, in p's mult, lsh, rsh; rqApply): bias holds
// one int32 per output channel with the input offset folded in. The
// generator calls it where the one-multiply form is not exact (PlanRQOne
// declines), fcOctInt8PTQ otherwise. scr is as fcOctInt8's.
func fcOctInt8PT(p *fcParams, in []int8, w, bias string, scr []int32, out []int8) {
	if p.bias4 {
		bias = strAligned4(bias, 4*p.outDepth)
	}
	zp, lo, hi := p.outOffset, p.actMin, p.actMax
	k, n := p.accumDepth, p.outDepth
	q := rqFromFC(p.mult, p.lsh, p.rsh)
	a := (*[8]int32)(scr[:8])
	for b := 0; b < p.batches; b++ {
		x := in[b*k : b*k+k]
		o := out[b*n : b*n+n]
		corr := -128 * fcSumI8(x) // octDot sums x*(w+128)
		for c := 0; c < n; c += 8 {
			octDot(x, w[c*k:], a)
			oc := o[c:min(c+8, n)]
			bc := bias[4*c : 4*c+4*len(oc)]
			for j := range oc {
				oc[j] = int8(min(max(rqApply(a[j&7]+corr+ld32(bc, j), &q)+zp, lo), hi))
			}
		}
	}
}

// fcOctInt8PTQ is fcOctInt8PT for a requantization whose one-multiply
// record t the generator has planned (PlanRQOne): no test of the
// parameters at run time. scr is as fcOctInt8's.
func fcOctInt8PTQ(p *fcParams, in []int8, w, bias string, t *rqOne, scr []int32, out []int8) {
	if p.bias4 {
		bias = strAligned4(bias, 4*p.outDepth)
	}
	fcOctPTFast(p, in, w, bias, t, (*[8]int32)(scr[:8]), out)
}

// fcOctPTFast is fcOctInt8PTQ's loop (rqOneQ with t): each block's eight sums
// a[j] + corr + the folded bias (little-endian int32; read as words when
// p.bias4 says they are aligned) are finished right after octDot, with
// t's fields read after the call (rqOneR for the usual case, no left
// shift and a right shift of at least 1). a is the scratch for the sums.
func fcOctPTFast(p *fcParams, in []int8, w, bias string, t *rqOne, a *[8]int32, out []int8) {
	k, n := p.accumDepth, p.outDepth
	bias = bias[:4*n]
	for b := 0; b < p.batches; b++ {
		x := in[b*k : b*k+k]
		o := out[b*n : b*n+n]
		corr := -128 * fcSumI8(x) // octDot sums x*(w+128)
		for c := 0; c < n; c += 8 {
			octDot(x, w[c*k:], a)
			oc := o[c:min(c+8, n)]
			pb := unsafe.Add(unsafe.Pointer(unsafe.StringData(bias)), 4*c)
			if t.lsh != 0 || t.e == 0 {
				for j := range oc {
					oc[j] = int8(rqOneQ(a[j]+corr+le32((*[4]byte)(unsafe.Add(pb, 4*j))), t))
				}
				continue
			}
			m2, d, sh, span, hi := t.m2, uint64(t.d), t.r&31, t.span, t.hi
			if p.bias4 { // word-aligned biases
				for j := range oc {
					oc[j] = rqOneR(a[j&7]+corr+*(*int32)(unsafe.Add(pb, 4*j)), m2, d, sh, span, hi)
				}
				continue
			}
			for j := range oc {
				oc[j] = rqOneR(a[j&7]+corr+le32((*[4]byte)(unsafe.Add(pb, 4*j))), m2, d, sh, span, hi)
			}
		}
	}
}

// fcOctScratch is the scratch of fcOctInt8, fcOctInt8PT and fcOctInt8PTQ
// in int32 words: one block's eight sums (octDot).
const fcOctScratch = 8
