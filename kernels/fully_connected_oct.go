package kernels

import "unsafe"

// fcOctInt8 is the int8 fully connected layer computed with octDot
// (oct.go): eight output channels per pass over the input row, one byte per
// weight. w holds the weights packed at generation time (gen/lower's
// octPack, rows = output channels). rq holds one fcRQRecordLen-byte record
// per output channel: the bias with the input offset folded in and the
// channel's requantization.
func fcOctInt8(p *fcParams, in []int8, w, rq string, out []int8) {
	k, n := p.accumDepth, p.outDepth
	for b := 0; b < p.batches; b++ {
		x := in[b*k : b*k+k]
		o := out[b*n : b*n+n]
		corr := -128 * fcSumI8(x) // octDot sums x*(w+128)
		for c := 0; c < n; c += 8 {
			var a [8]int32
			octDot(x, w[c*k:], &a)
			fcOctOut(p, &a, corr, rq[fcRQRecordLen*c:], o[c:min(c+8, n)])
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
// and shift for every channel, in p's mult, lsh, rsh): bias holds one
// int32 per output channel with the input offset folded in.
func fcOctInt8PT(p *fcParams, in []int8, w, bias string, out []int8) {
	k, n := p.accumDepth, p.outDepth
	q := rqFromFC(p.mult, p.lsh, p.rsh)
	zp, lo, hi := p.outOffset, p.actMin, p.actMax
	// With no left shift and a right shift of 1 to 21, the outputs whose
	// sum v has |v| < 2^30 take convPWQ (one multiply, the zero point,
	// rounding and clamp folded in), the others rqApply.
	var t fcPTFast
	t.ok = p.lsh == 0 && q.rsh >= 1 && q.rsh <= 21 && p.mult >= 0 && zp >= lo && zp-lo <= 255
	if t.ok {
		convPWChSet(&t.ch, 0, 2*uint32(p.mult), q.rsh, uint32(zp-lo))
		t.q, t.zo, t.lo, t.hi, t.span = q, zp, lo, hi, hi-lo
	}
	for b := 0; b < p.batches; b++ {
		x := in[b*k : b*k+k]
		o := out[b*n : b*n+n]
		corr := -128 * fcSumI8(x) // octDot sums x*(w+128)
		for c := 0; c < n; c += 8 {
			var a [8]int32
			octDot(x, w[c*k:], &a)
			oc := o[c:min(c+8, n)]
			bc := bias[4*c : 4*c+4*len(oc)]
			if t.ok {
				fcOutPTFast(&a, corr, bc, &t, oc)
				continue
			}
			for j := range oc {
				oc[j] = int8(min(max(rqApply(a[j&7]+corr+ld32(bc, j), &q)+zp, lo), hi))
			}
		}
	}
}

// fcPTFast is fcOctInt8PT's per-tensor requantization: as a convPWCh (its
// bias unused) and as the rq32 for sums outside convPWQ's range, with the
// output zero point and bounds.
type fcPTFast struct {
	ch               convPWCh
	q                rq32
	zo, lo, hi, span int32
	ok               bool
}

// fcOutPTFast finishes the len(o) <= 8 channels of a block: sum a[j] +
// corr + the folded bias (little-endian int32 j of bias), then convPWQ
// where the sum is within (-2^30, 2^30) and rqApply elsewhere, so that
// every output is TFLM's.
func fcOutPTFast(a *[8]int32, corr int32, bias string, t *fcPTFast, o []int8) {
	o = o[:min(len(o), 8)]
	pb := unsafe.Pointer(unsafe.StringData(bias[:4*len(o)]))
	// The record copied to a local: the stores below might alias t, for
	// all gc knows.
	ch, span, hi := t.ch, t.span, t.hi
	for j := range o {
		q := (*[4]byte)(unsafe.Add(pb, 4*j))
		v := a[j] + corr + int32(uint32(q[0])|uint32(q[1])<<8|uint32(q[2])<<16|uint32(q[3])<<24)
		if s := uint32(v) + 1<<30; s-1 < 1<<31-1 {
			o[j] = int8(hi - convPWQ(int32(s), &ch, span))
			continue
		}
		o[j] = fcPTSlow(v, t)
	}
}

// fcPTSlow is fcOutPTFast's requantization of a sum outside convPWQ's
// range, out of line so that the loop keeps its registers.
//
//go:noinline
func fcPTSlow(v int32, t *fcPTFast) int8 {
	return int8(min(max(rqApply(v, &t.q)+t.zo, t.lo), t.hi))
}
