package kernels

import (
	"math"
	"unsafe"
)

// SVDF (singular value decomposition filter), as in TFLite Micro's reference
// svdf kernel. Each invocation:
//  1. shifts the activation state (batch x filters x memory, a variable
//     tensor kept across Invoke) left by one element;
//  2. writes each filter's feature projection (weights_feature . input) into
//     the newest (last) memory slot of that filter;
//  3. takes each filter's dot product of its memory row with weights_time,
//     sums the rank filters of every unit onto the bias and writes the unit.
//
// TFLM keeps the per-filter time products and the per-unit sums in two
// scratch buffers; here they are folded into the reduction loop, which adds
// the same int32 values (wrapping addition is associative) or the same
// float32 values in the same order, so no scratch memory is needed for
// them. The integer kernels' scratch (svdfInt8x16Scratch, svdfInt8x8Scratch
// and svdfFastScratch int32 words, planned by the generator) holds only
// feature sums, which octDot's assembly stores to memory.
//
// The integer kernels take generation-time data (gen/lower_svdf.go):
// weights_feature packed like FULLY_CONNECTED weights (fcPackI8, see
// fully_connected.go, or for octDot, see oct.go, when octW is set) with,
// per filter, -inputZeroPoint*sum(weights) as fbias; and per unit the bias
// minus stateZeroPoint*sum(weights_time of the unit's filters) as tbias. Both corrections are exact in wrapping int32
// arithmetic, so the kernels compute plain dot products.

// svdfParams holds the shapes and generation-time quantization constants of
// an integer SVDF operator: the requantization of the feature accumulator to
// the state scale (input*weights_feature/state: mult1, lsh1, rsh1, half1)
// and of the time accumulator to the output scale (state*weights_time/
// output: mult2, ...), in the fcRQ form.
type svdfParams struct {
	batch, inputSize int // input is [batch, inputSize]
	numFilters, rank int // numFilters = numUnits * rank
	numUnits, memory int // output is [batch, numUnits]; state is [batch, numFilters*memory]
	stateZP, outZP   int32
	mult1, half1     int32
	lsh1, rsh1       uint8
	mult2, half2     int32
	lsh2, rsh2       uint8
	octW             bool // weights_feature packed for octDot (octPack), not fcPackI8
}

// svdfChunk is how many filters the integer kernels project per pass: a
// multiple of 4 (fcDots) and of 8 (octDot).
const svdfChunk = 24

// svdfInt8x16Scratch and svdfInt8x8Scratch are the scratch of svdfInt8x16
// (and svdfInt8x16Any) and of svdfInt8x8 in int32 words: one block's
// feature sums, one pass's.
const (
	svdfInt8x16Scratch = 8
	svdfInt8x8Scratch  = svdfChunk
)

// svdfFeatures stores in acc[:m] the raw feature sums of filters
// c..c+m-1 (m <= svdfChunk, c a multiple of svdfChunk): input row x times
// weights_feature stored as w+128, so the caller adds -128*sum(x).
func svdfFeatures(p *svdfParams, x []int8, wf string, c, m int, acc *[svdfChunk]int32) {
	k := len(x)
	if p.octW {
		for j := 0; j < m; j += 8 {
			octDot(x, wf[(c+j)*k:], (*[8]int32)(acc[j:j+8]))
		}
		return
	}
	mb := (m + 3) &^ 3
	fcDots(x, wf[c*k:(c+mb)*k], acc[:mb])
}

// svdfFloatParams holds the shapes and activation bounds of a float32 SVDF
// operator.
type svdfFloatParams struct {
	batch, inputSize int
	numFilters, rank int
	numUnits, memory int
	actMin, actMax   float32
}

// svdfInt8x16 runs an SVDF with int8 input and output, weights_feature
// packed for octDot (wf), int16 weights_time (wt, little-endian, as
// stored) and int16 activation state; fbias and tbias are the folded int32
// corrections described above. The fused activation is not applied:
// TFLM's integer kernel ignores it. The generator calls it for an SVDF
// that svdfFastPlan declines, svdfInt8x16Fast otherwise.
//
// Block by block of eight filters: their feature sums (octDot), their new
// state values (svdfNewState16), then per filter its memory row shifted
// left by one while it is multiplied with the weights, so that the state
// is read and written once, and the units' outputs (svdfOut8). TFLM shifts
// the whole state by one element first; the values that move across rows
// are overwritten by the new values, so the results are the same. Each
// step is a loop of its own so that its values fit in the registers of a
// 32-bit core.
func svdfInt8x16(p *svdfParams, in []int8, wf, fbias, wt, tbias string, state []int16, scr []int32, out []int8) {
	mem, nf, nu, k := p.memory, p.numFilters, p.numUnits, p.inputSize
	fbias, tbias, wt = fbias[:4*((nf+7)&^7)], tbias[:4*nu], wt[:2*nf*mem]
	state = state[:p.batch*nf*mem]
	out = out[:p.batch*nu]
	if mem%8 != 0 || p.rank != 1 {
		svdfInt8x16Any(p, in, wf, fbias, wt, tbias, state, scr, out)
		return
	}
	q1, q2 := rqFromFC(p.mult1, p.lsh1, p.rsh1), rqFromFC(p.mult2, p.lsh2, p.rsh2)
	groups := mem/8 - 1 // groups of eight memory slots before a row's last
	acc := (*[8]int32)(scr[:8])
	var tac [8]int32
	fb := unsafe.Pointer(unsafe.StringData(fbias))
	tb := unsafe.Pointer(unsafe.StringData(tbias))
	wb := unsafe.Pointer(unsafe.StringData(wt))
	for b := 0; b < p.batch; b++ {
		x := in[b*k : (b+1)*k]
		corr := -128 * sumI8(x) // octPack stores w+128
		o := out[b*nf : (b+1)*nf]
		sb := unsafe.Pointer(unsafe.SliceData(state[b*nf*mem : (b+1)*nf*mem]))
		for c := 0; c < nf; c += 8 {
			m := min(8, nf-c)
			octDot(x, wf[c*k:], acc)
			svdfNewState16(acc, (*[8][4]byte)(unsafe.Add(fb, 4*c)), corr, &q1, p.stateZP)
			tbv := (*[8][4]byte)(unsafe.Add(tb, 4*c))
			for j := range tac[:m] {
				t := le32(&tbv[j])
				v := int16(acc[j])
				wp := unsafe.Add(wb, 2*mem*(c+j))
				sp := unsafe.Add(sb, 2*mem*(c+j))
				for g := 0; g < groups; g++ {
					// Slots 1..8 of the group's nine move to 0..7.
					s, w, h := (*[9]int16)(sp), (*[16]uint8)(wp), (*[16]int8)(wp)
					v0 := s[1]
					s[0] = v0
					t += int32(v0) * (int32(h[1])<<8 | int32(w[0]))
					v1 := s[2]
					s[1] = v1
					t += int32(v1) * (int32(h[3])<<8 | int32(w[2]))
					v2 := s[3]
					s[2] = v2
					t += int32(v2) * (int32(h[5])<<8 | int32(w[4]))
					v3 := s[4]
					s[3] = v3
					t += int32(v3) * (int32(h[7])<<8 | int32(w[6]))
					v4 := s[5]
					s[4] = v4
					t += int32(v4) * (int32(h[9])<<8 | int32(w[8]))
					v5 := s[6]
					s[5] = v5
					t += int32(v5) * (int32(h[11])<<8 | int32(w[10]))
					v6 := s[7]
					s[6] = v6
					t += int32(v6) * (int32(h[13])<<8 | int32(w[12]))
					v7 := s[8]
					s[7] = v7
					t += int32(v7) * (int32(h[15])<<8 | int32(w[14]))
					sp, wp = unsafe.Add(sp, 16), unsafe.Add(wp, 16)
				}
				// The row's last group takes the new value.
				s, w, h := (*[8]int16)(sp), (*[16]uint8)(wp), (*[16]int8)(wp)
				v0 := s[1]
				s[0] = v0
				t += int32(v0) * (int32(h[1])<<8 | int32(w[0]))
				v1 := s[2]
				s[1] = v1
				t += int32(v1) * (int32(h[3])<<8 | int32(w[2]))
				v2 := s[3]
				s[2] = v2
				t += int32(v2) * (int32(h[5])<<8 | int32(w[4]))
				v3 := s[4]
				s[3] = v3
				t += int32(v3) * (int32(h[7])<<8 | int32(w[6]))
				v4 := s[5]
				s[4] = v4
				t += int32(v4) * (int32(h[9])<<8 | int32(w[8]))
				v5 := s[6]
				s[5] = v5
				t += int32(v5) * (int32(h[11])<<8 | int32(w[10]))
				v6 := s[7]
				s[6] = v6
				t += int32(v6) * (int32(h[13])<<8 | int32(w[12]))
				s[7] = v
				t += int32(v) * (int32(h[15])<<8 | int32(w[14]))
				tac[j] = t
			}
			svdfOut8(&tac, o[c:c+m], &q2, p.outZP)
		}
	}
}

// svdfNewState16 turns the eight raw feature sums in a into new state
// values (kept in a, as int16 values): plus corr and the feature biases fb
// (little-endian int32; the lowering pads them to a multiple of eight
// filters), rescaled by q (rqApply, written out so that q's fields stay in
// registers), clamped to int16, plus the state zero point, truncated to
// int16.
func svdfNewState16(a *[8]int32, fb *[8][4]byte, corr int32, q *rq32, zp int32) {
	pow, mult, rsh, mask := q.pow, int64(uint32(q.mult)), q.rsh&31, q.mask
	half := mask >> 1
	for j := range a {
		x := a[j] + corr + le32(&fb[j])
		y := int32(uint64(int64(x*pow)*mult+1<<30) >> 31)
		v := y>>rsh - (half+int32(uint32(y)>>31)-y&mask)>>31
		if (v+32768)>>16 != 0 {
			v = min(max(v, -32768), 32767)
		}
		// The zero point is added after the clamp and the sum is
		// truncated to the state type, as TFLM does.
		a[j] = int32(int16(v + zp))
	}
}

// svdfOut8 writes o[j] = the time sum t[j] rescaled by q (as in
// svdfNewState16), plus zp, clamped to int8.
func svdfOut8(t *[8]int32, o []int8, q *rq32, zp int32) {
	pow, mult, rsh, mask := q.pow, int64(uint32(q.mult)), q.rsh&31, q.mask
	half := mask >> 1
	for j := range o {
		x := t[j&7]
		y := int32(uint64(int64(x*pow)*mult+1<<30) >> 31)
		v := y>>rsh - (half+int32(uint32(y)>>31)-y&mask)>>31 + zp
		if uint32(v+128) > 255 {
			v = min(max(v, -128), 127)
		}
		o[j] = int8(v)
	}
}

// svdfInt8x16Any is svdfInt8x16 for any rank and memory size, with
// bounds-checked slices.
func svdfInt8x16Any(p *svdfParams, in []int8, wf, fbias, wt, tbias string, state []int16, scr []int32, out []int8) {
	mem, nf, nu, k := p.memory, p.numFilters, p.numUnits, p.inputSize
	q1, q2 := rqFromFC(p.mult1, p.lsh1, p.rsh1), rqFromFC(p.mult2, p.lsh2, p.rsh2)
	acc := (*[8]int32)(scr[:8])
	for b := 0; b < p.batch; b++ {
		x := in[b*k : (b+1)*k]
		corr := -128 * sumI8(x)
		row := state[b*nf*mem : (b+1)*nf*mem]
		f := 0
		for u := range out[b*nu : (b+1)*nu] {
			t := ld32(tbias, u)
			for r := 0; r < p.rank; r++ {
				if f&7 == 0 {
					octDot(x, wf[f*k:], acc)
				}
				a := acc[f&7] + corr + ld32(fbias, f)
				v := int16(min(max(rqApply(a, &q1), -32768), 32767) + p.stateZP)
				s := row[f*mem : f*mem+mem]
				w := wt[2*f*mem : 2*f*mem+2*mem]
				for j := 0; j < mem-1; j++ {
					sj := s[j+1]
					s[j] = sj
					t += int32(sj) * int32(int16(uint16(w[2*j])|uint16(w[2*j+1])<<8))
				}
				s[mem-1] = v
				t += int32(v) * int32(int16(uint16(w[2*mem-2])|uint16(w[2*mem-1])<<8))
				f++
			}
			out[b*nu+u] = int8(min(max(rqApply(t, &q2)+p.outZP, -128), 127))
		}
	}
}

// svdfInt8x8 is svdfInt8x16 with int8 weights_time (a constant string) and
// int8 activation state (whose zero point may be non-zero); svdfInt8x8Fast
// is its form for an SVDF that svdfFastPlan accepts.
func svdfInt8x8(p *svdfParams, in []int8, wf, fbias, wt, tbias string, state []int8, scr []int32, out []int8) {
	mem, nf := p.memory, p.numFilters
	state = state[:p.batch*nf*mem]
	copy(state, state[1:])
	q := rqFromFC(p.mult1, p.lsh1, p.rsh1)
	acc := (*[svdfChunk]int32)(scr[:svdfChunk])
	for b := 0; b < p.batch; b++ {
		x := in[b*p.inputSize : (b+1)*p.inputSize]
		corr := -128 * fcSumI8(x) // both weight layouts store w+128
		row := state[b*nf*mem : (b+1)*nf*mem]
		for c := 0; c < nf; c += svdfChunk {
			m := min(svdfChunk, nf-c)
			svdfFeatures(p, x, wf, c, m, acc)
			for r, a := range acc[:m] {
				a += corr
				v := min(max(rqApply(a+ld32(fbias, c+r), &q), -128), 127)
				// May wrap for a non-zero zero point; TFLM truncates the same way.
				row[(c+r+1)*mem-1] = int8(v + p.stateZP)
			}
		}
		svdfTime8(p, row, wt, tbias, out[b*p.numUnits:(b+1)*p.numUnits])
	}
}

// svdfTime8 is svdfTime16 for an int8 state row and int8 weights_time (a
// constant string).
func svdfTime8(p *svdfParams, row []int8, wt, tbias string, o []int8) {
	l := p.rank * p.memory
	q, zp := rqFromFC(p.mult2, p.lsh2, p.rsh2), p.outZP
	if n8 := len(o) * l / 8; l%8 == 0 && n8 > 0 && len(row) >= 8*n8 && len(wt) >= 8*n8 {
		// As in svdfTime16: runs of eight, viewed once for the whole row.
		s8 := unsafe.Slice((*[8]int8)(unsafe.Pointer(unsafe.SliceData(row))), n8)
		w8 := unsafe.Slice((*[8]int8)(unsafe.Pointer(unsafe.StringData(wt))), n8)
		i := 0
		for u := range o {
			acc := ld32(tbias, u)
			for e := i + l/8; i < e; i++ {
				s, w := &s8[i], &w8[i]
				acc += int32(s[0])*int32(w[0]) + int32(s[1])*int32(w[1]) +
					int32(s[2])*int32(w[2]) + int32(s[3])*int32(w[3]) +
					int32(s[4])*int32(w[4]) + int32(s[5])*int32(w[5]) +
					int32(s[6])*int32(w[6]) + int32(s[7])*int32(w[7])
			}
			o[u] = int8(min(max(rqApply(acc, &q)+zp, -128), 127))
		}
		return
	}
	for u := range o {
		s := row[u*l : u*l+l]
		w := wt[u*l : u*l+l]
		acc := ld32(tbias, u)
		for len(s) >= 8 && len(w) >= 8 {
			acc += int32(s[0])*int32(int8(w[0])) + int32(s[1])*int32(int8(w[1])) +
				int32(s[2])*int32(int8(w[2])) + int32(s[3])*int32(int8(w[3])) +
				int32(s[4])*int32(int8(w[4])) + int32(s[5])*int32(int8(w[5])) +
				int32(s[6])*int32(int8(w[6])) + int32(s[7])*int32(int8(w[7]))
			s, w = s[8:], w[8:]
		}
		for len(s) > 0 && len(w) > 0 {
			acc += int32(s[0]) * int32(int8(w[0]))
			s, w = s[1:], w[1:]
		}
		o[u] = int8(min(max(rqApply(acc, &q)+zp, -128), 127))
	}
}

// svdfFloat runs a float32 SVDF. wf, wt and bias are constant strings of
// float32 values (bias empty for none); the fused activation is the clamp
// [actMin, actMax]. Products are rounded to float32 before each addition so
// that no platform fuses them, and sums are taken in TFLM's order.
func svdfFloat(p *svdfFloatParams, in []float32, wf, wt, bias string, state []float32, out []float32) {
	n := p.batch * p.numFilters * p.memory
	state = state[:n]
	copy(state, state[1:])
	for b := 0; b < p.batch; b++ {
		x := in[b*p.inputSize : (b+1)*p.inputSize]
		row := state[b*p.numFilters*p.memory:]
		for f := 0; f < p.numFilters; f++ {
			dot := float32(0)
			for i := range x {
				dot += float32(ldf32(wf, f*p.inputSize+i) * x[i])
			}
			row[f*p.memory+p.memory-1] = dot
		}
	}
	for b := 0; b < p.batch; b++ {
		row := state[b*p.numFilters*p.memory:]
		for u := 0; u < p.numUnits; u++ {
			acc := float32(0)
			if len(bias) != 0 {
				acc = ldf32(bias, u)
			}
			for r := 0; r < p.rank; r++ {
				f := u*p.rank + r
				s := row[f*p.memory : (f+1)*p.memory]
				dot := float32(0)
				for j := range s {
					dot += float32(ldf32(wt, f*p.memory+j) * s[j])
				}
				acc += dot
			}
			out[b*p.numUnits+u] = svdfActF32(acc, p.actMin, p.actMax)
		}
	}
}

// svdfActF32 is the fused activation as TFLite Micro's float SVDF applies
// it (ActivationValFloat, not the clamp of the other float kernels): NONE
// (lo = -MaxFloat32, hi = MaxFloat32) is the identity, infinities
// included; RELU is max(0, x), unbounded above (hi = MaxFloat32); the
// others max(lo, min(x, hi)). A NaN becomes lo, as in C++'s std::max(lo, NaN).
func svdfActF32(x, lo, hi float32) float32 {
	if lo == -math.MaxFloat32 {
		return x
	}
	if hi != math.MaxFloat32 && hi < x {
		x = hi
	}
	if !(lo < x) {
		x = lo
	}
	return x
}
