package kernels

import "unsafe"

// fcRowsInt8 and fcRowsInt8Q are the int8 fully connected layer for gc's
// 32-bit code (the generator's choice where they beat the blocks of eight
// rows of fcOctInt8: layers of few units, or a number of units that eight
// does not divide). The output channels are split into fcRowsBlocks blocks
// of at most six rows, of sizes that differ by at most one (10 units: two
// blocks of five; 12: two of six), so no row is computed for nothing; each
// block is one pass over the input row (fc_rows_pass.go).
//
// Weights (gen/lower's fcPackRows): the blocks one after the other, a
// block of m rows starting at row c holding [k][m] signed bytes at c*k (the
// m rows' weights for input element d side by side). The weights are
// stored as they are (no +128), so the sums need no correction by the
// input's sum.

// fcRowsBlocks returns how fcRowsInt8 splits n output channels: nb blocks,
// the first rem of base+1 rows, the others of base rows.
func fcRowsBlocks(n int) (nb, base, rem int) {
	nb = (n + 5) / 6
	return nb, n / nb, n % nb
}

// fcRowsDot stores in a[:m] the sums of x with the block of m rows (1 to
// 6) at w.
func fcRowsDot(x []int8, w unsafe.Pointer, m int, a *[6]int32) {
	switch m {
	case 6:
		fcRows6(x, w, a)
	case 5:
		fcRows5(x, w, a)
	case 4:
		fcRows4(x, w, a)
	case 3:
		fcRows3(x, w, a)
	case 2:
		fcRows2(x, w, a)
	default:
		fcRows1(x, w, a)
	}
}

// fcRowsInt8Q is the layer with one requantization for every channel, its
// one-multiply record t planned by the generator (PlanRQOne): bias holds
// one little-endian int32 per output channel with the input offset folded
// in.
func fcRowsInt8Q(p *fcParams, in []int8, w, bias string, t *rqOne, out []int8) {
	k, n, nbat := p.accumDepth, p.outDepth, p.batches
	if k <= 0 || n <= 0 || nbat <= 0 {
		return
	}
	w = w[:n*k]
	bias = bias[:4*n]
	in, out = in[:nbat*k], out[:nbat*n]
	nb, base, rem := fcRowsBlocks(n)
	pw := unsafe.Pointer(unsafe.StringData(w))
	var a [6]int32
	for b := 0; b < nbat; b++ {
		x := in[b*k : b*k+k]
		o := out[b*n : b*n+n]
		c := 0
		for i := 0; i < nb; i++ {
			m := base
			if i < rem {
				m++
			}
			fcRowsDot(x, unsafe.Add(pw, c*k), m, &a)
			fcRowsOutQ(&a, bias[4*c:4*c+4*m], t, o[c:c+m])
			c += m
		}
	}
}

// fcRowsOutQ finishes a block: the sums a[:len(o)] plus the folded biases
// (little-endian int32s), requantized with t (rqOneR for the usual record,
// no left shift and a right shift of at least 1; rqOneQ otherwise).
func fcRowsOutQ(a *[6]int32, bias string, t *rqOne, o []int8) {
	o = o[:min(len(o), 6)]
	bias = bias[:4*len(o)]
	pb := unsafe.Pointer(unsafe.StringData(bias))
	if t.lsh != 0 || t.e == 0 {
		for j := range o {
			o[j] = int8(rqOneQ(a[j]+le32((*[4]byte)(unsafe.Add(pb, 4*j))), t))
		}
		return
	}
	m2, d, sh, span, hi := t.m2, uint64(t.d), t.r&31, t.span, t.hi
	for j := range o {
		o[j] = rqOneR(a[j]+le32((*[4]byte)(unsafe.Add(pb, 4*j))), m2, d, sh, span, hi)
	}
}

// fcRowsInt8 is the layer with a requantization per channel: rq holds
// one fcRQRecordLen-byte record per output channel (the bias with the
// input offset folded in and the channel's requantization, as fcInt8's).
func fcRowsInt8(p *fcParams, in []int8, w, rq string, out []int8) {
	k, n, nbat := p.accumDepth, p.outDepth, p.batches
	if k <= 0 || n <= 0 || nbat <= 0 {
		return
	}
	w = w[:n*k]
	rq = rq[:fcRQRecordLen*n]
	in, out = in[:nbat*k], out[:nbat*n]
	nb, base, rem := fcRowsBlocks(n)
	pw := unsafe.Pointer(unsafe.StringData(w))
	var a [6]int32
	for b := 0; b < nbat; b++ {
		x := in[b*k : b*k+k]
		o := out[b*n : b*n+n]
		c := 0
		for i := 0; i < nb; i++ {
			m := base
			if i < rem {
				m++
			}
			fcRowsDot(x, unsafe.Add(pw, c*k), m, &a)
			fcRowsOut(p, &a, rq[fcRQRecordLen*c:fcRQRecordLen*(c+m)], o[c:c+m])
			c += m
		}
	}
}

// fcRowsOut finishes a block with per-channel records (as fcOctOut: the
// folded bias added, rqApply, the output zero point, the clamp).
func fcRowsOut(p *fcParams, a *[6]int32, rq string, o []int8) {
	o = o[:min(len(o), 6)]
	rq = rq[:fcRQRecordLen*len(o)]
	zp, lo, hi := p.outOffset, p.actMin, p.actMax
	for r := range o {
		t := rq[fcRQRecordLen*r : fcRQRecordLen*r+fcRQRecordLen]
		q := rqFromFC(ld32(t, 1), t[12], t[13])
		o[r] = int8(min(max(rqApply(a[r]+ld32(t, 0), &q)+zp, lo), hi))
	}
}
