package kernels

// UNIDIRECTIONAL_SEQUENCE_LSTM, as in TFLite Micro's reference kernel
// (unidirectional_sequence_lstm.cc and lstm_eval.{h,cc}): the standard LSTM
// with forget, input, cell and output gates, no peephole, projection, layer
// normalization or CIFG. One time step of one batch row computes, for every
// unit o:
//
//	gate(o) = act(FC_in(x)[o] + FC_rec(h)[o])   (sigmoid; tanh for the cell gate)
//	c[o]    = clip(f[o]*c[o] + i[o]*g[o])
//	h'[o]   = o_gate[o] * tanh(c[o])
//
// and then the new hidden state replaces h and is copied to the output.
//
// TFLM evaluates gate by gate over whole vectors with four scratch buffers.
// Every quantity above depends only on unit o, the input row and the old
// hidden state, so the kernels evaluate unit by unit: each value goes through
// exactly the same integer (or float32) operations in the same order as in
// TFLM, and the new hidden state is assembled in the output slice before it
// replaces h. Input rows are processed in memory order, which is TFLM's order
// for both batch-major and time-major inputs. The int8 kernel
// (lstm_int8.go) and the float kernel (lstm_float.go) take weights re-laid
// out at generation time; the int16 kernel reads the tensors as they are.
//
// Integer path (int8 or int16 activations, int8 weights, int16 cell state):
// each FC is rescaled to Q3.12 (scale 2^-12) and clamped to int16, the two
// FCs of a gate are added with int16 saturation, sigmoid and tanh use TFLM's
// 16-bit lookup-table approximation and produce Q0.15, and the element-wise
// products are requantized with the generation-time multipliers below.
//
// TFLM's FC accumulates w*(x - zp) over the row. Here the zero-point term
// is folded into a per-row bias at generation time: sum(w*x) +
// (bias - zp*sum(w)). Integer addition is exact (or wraps identically in
// int32), so the accumulator, and everything after it, is bit-identical.

// lstmParams holds the shapes and generation-time constants of an LSTM.
type lstmParams struct {
	batch, steps int // batch size and number of time steps of the input
	inDim, units int // input features per step and state size
	// timeMajor: input is [steps, batch, inDim] and a step processes every
	// batch row; otherwise input is [batch, steps, inDim] and each batch row
	// runs its whole sequence before the next one.
	timeMajor bool
	// forgetMult/Shift rescale forget gate x cell state to the cell scale;
	// inputMult/Shift rescale input gate x cell gate to the cell scale.
	forgetMult, inputMult   int32
	forgetShift, inputShift int
	// hidMult/Shift rescale tanh(cell) x output gate to the hidden state,
	// which is then offset by hidZP and clamped to [hidMin, hidMax].
	hidMult               int32
	hidShift              int
	hidZP, hidMin, hidMax int32
	// tanhMult and tanhShift bring the cell state to the Q3.12 input of the
	// integer tanh: (c*tanhMult + round) >> tanhShift.
	tanhMult  int32
	tanhShift int
	// clip enables cell clipping to [-cellClip, cellClip] (integer path) or
	// [-cellClipF, cellClipF] (float path).
	clip      bool
	cellClip  int32
	cellClipF float32
	// fpu (float path, -compiler gc): logistic and tanh in float32
	// arithmetic (f32LogisticFPU, f32TanhFPU) instead of f32Logistic and
	// f32Tanh.
	fpu bool
}

// lstmGate holds the requantization of one gate's two fully connected
// products (input x weights, hidden state x recurrent weights) to Q3.12.
type lstmGate struct {
	inMult, recMult   int32
	inShift, recShift int
}

// lstmSigmoidQ is TFLM's 16-bit logistic for a Q3.12 input (its power-of-two
// case with input multiplier 3 and no shift): the result is sigmoid in
// Q0.15, in [0, 32767].
func lstmSigmoidQ(v int16) int16 {
	x := int32(v) * 3
	// |x| without a branch: the sign of a gate is data, and a
	// mispredicted branch costs more than the two instructions.
	m := x >> 31
	ax := uint32((x ^ m) - m)
	var r uint32
	if u := ax >> 9; u >= 255 {
		r = 0x7FFF << 10
	} else {
		lo, hi := sigmoidTab2(int(u))
		r = lo<<9 + (ax&0x1FF)*(hi-lo)
	}
	if x >= 0 {
		r += 1 << 9
	} else {
		r = 1<<25 - r + 1<<9 - 1
	}
	return int16(r >> 10)
}

// lstmTanhQ is TFLM's 16-bit tanh: the input is first brought to Q3.12 with
// (v*mult + round) >> shift (mult 3 and shift 0 for a Q3.12 gate), the result
// is tanh in Q0.15.
func lstmTanhQ(v int16, mult int32, shift int) int16 {
	rnd := int32(0)
	if shift > 0 {
		rnd = 1 << uint(shift-1)
	}
	x := (int32(v)*mult + rnd) >> uint(shift)
	m := x >> 31
	ax := uint32((x ^ m) - m) // |x| without a branch, as in lstmSigmoidQ
	var r int32
	if u := ax >> 8; u >= 255 {
		r = 0xFFFF << 8
	} else {
		lo, hi := sigmoidTab2(int(u))
		r = int32(lo<<8 + (ax&0xFF)*(hi-lo))
	}
	if x >= 0 {
		r = r - 1<<23 + 1<<7
	} else {
		r = -r + 1<<23 + 1<<7 - 1
	}
	return int16(r >> 8)
}

// lstmMakeRQ prepares the requantization by the generation-time multiplier
// m and exponent shift for rqApply. The generator keeps LSTM exponents in
// [-31, 30] with m >= 0 (lstmMultiplier), where rqApply is mulByQuantMul
// bit for bit.
func lstmMakeRQ(m int32, shift int) rq32 {
	return rqFor(m, shift)
}

// lstmUnitRQ holds the requantizations of a unit's cell and hidden
// updates, prepared once per kernel call.
type lstmUnitRQ struct {
	forget, input, hid rq32
}

// lstmMakeUnitRQ prepares p's cell and hidden requantizations in u.
func lstmMakeUnitRQ(p *lstmParams, u *lstmUnitRQ) {
	u.forget = lstmMakeRQ(p.forgetMult, p.forgetShift)
	u.input = lstmMakeRQ(p.inputMult, p.inputShift)
	u.hid = lstmMakeRQ(p.hidMult, p.hidShift)
}

// lstmRowBatch returns the batch row whose state input row r (in memory
// order) updates: rows are [batch][steps] or, time major, [steps][batch].
// Processing rows in memory order is TFLM's order in both layouts.
func lstmRowBatch(p *lstmParams, r int) int {
	if p.timeMajor {
		return r % p.batch
	}
	return r / p.steps
}

// lstmFCQ64 requantizes the 64-bit FC accumulator of 16-bit activations to
// Q3.12 and clamps it to int16.
func lstmFCQ64(acc int64, m int32, shift int) int32 {
	return clampI32(mulByQuantMul64(acc, m, shift), -32768, 32767)
}

// lstmDot16 returns sum of w[d]*x[d] in int64, as TFLM's 16x8 FC.
func lstmDot16(x []int16, w []int8) int64 {
	w = w[:len(x)]
	acc := int64(0)
	for d, xv := range x {
		acc += int64(int32(w[d]) * int32(xv))
	}
	return acc
}

// lstmGate16 returns the Q3.12 pre-activation of unit o of one gate for one
// batch row with int16 activations: the input FC and the recurrent FC, each
// clamped to int16, added with saturation. bias holds 2*units int64 values:
// the input FC's bias (the gate bias with the input zero point folded in)
// then the recurrent FC's.
func lstmGate16(g *lstmGate, p *lstmParams, x, h []int16, w, r []int8, bias string, o int) int16 {
	n, s := p.inDim, p.units
	a := lstmFCQ64(lstmDot16(x, w[o*n:o*n+n])+ld64(bias, o), g.inMult, g.inShift)
	b := lstmFCQ64(lstmDot16(h, r[o*s:o*s+s])+ld64(bias, s+o), g.recMult, g.recShift)
	return int16(clampI32(a+b, -32768, 32767))
}

// lstmCellQ returns the updated int16 cell state of one unit from its old
// value c and the forget, input and cell gate outputs (Q0.15): both products
// are requantized to the cell scale and clamped to int16, then added with
// saturation and clipped.
func lstmCellQ(p *lstmParams, r *lstmUnitRQ, c, f, i, g int16) int16 {
	a := min(max(rqApply(int32(f)*int32(c), &r.forget), -32768), 32767)
	b := min(max(rqApply(int32(i)*int32(g), &r.input), -32768), 32767)
	v := min(max(a+b, -32768), 32767)
	if p.clip {
		v = min(max(v, -p.cellClip), p.cellClip)
	}
	return int16(v)
}

// lstmHiddenQ returns the new hidden state value of one unit from its
// updated cell state and output gate (Q0.15), clamped to the hidden type.
func lstmHiddenQ(p *lstmParams, r *lstmUnitRQ, c, og int16) int32 {
	t := lstmTanhQ(c, p.tanhMult, p.tanhShift)
	return min(max(p.hidZP+rqApply(int32(t)*int32(og), &r.hid), p.hidMin), p.hidMax)
}

// lstmInt16 runs an LSTM with int16 input, output and hidden state h, int8
// weights ([units][inDim] and [units][units] per gate), int16 cell state c
// and int64 folded biases (2*units per gate, see lstmGate16). Gate arguments
// come in TFLM's evaluation order: forget, input, cell, output, each as
// (requantization, input weights, recurrent weights, folded biases).
func lstmInt16(p *lstmParams, x []int16, h []int16, c []int16, out []int16,
	fg *lstmGate, fw, fr []int8, fb string,
	ig *lstmGate, iw, ir []int8, ib string,
	cg *lstmGate, cw, cr []int8, cb string,
	og *lstmGate, ow, or []int8, ob string) {
	n, s := p.inDim, p.units
	var urq lstmUnitRQ
	lstmMakeUnitRQ(p, &urq)
	for r := 0; r < p.batch*p.steps; r++ {
		b := lstmRowBatch(p, r)
		xr, hb, cs, yr := x[r*n:r*n+n], h[b*s:b*s+s], c[b*s:b*s+s], out[r*s:r*s+s]
		for o := range yr {
			f := lstmSigmoidQ(lstmGate16(fg, p, xr, hb, fw, fr, fb, o))
			i := lstmSigmoidQ(lstmGate16(ig, p, xr, hb, iw, ir, ib, o))
			g := lstmTanhQ(lstmGate16(cg, p, xr, hb, cw, cr, cb, o), 3, 0)
			cv := lstmCellQ(p, &urq, cs[o], f, i, g)
			cs[o] = cv
			ov := lstmSigmoidQ(lstmGate16(og, p, xr, hb, ow, or, ob, o))
			yr[o] = int16(lstmHiddenQ(p, &urq, cv, ov))
		}
		copy(hb, yr)
	}
}
