package kernels

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
// float32 values in the same order, so no scratch memory is needed.

// svdfParams holds the shapes and generation-time quantization constants of
// an integer SVDF operator.
type svdfParams struct {
	batch, inputSize     int // input is [batch, inputSize]
	numFilters, rank     int // numFilters = numUnits * rank
	numUnits, memory     int // output is [batch, numUnits]; state is [batch, numFilters*memory]
	inZP, stateZP, outZP int32
	// mult1/shift1 rescale the feature accumulator to the state scale
	// (input*weights_feature/state); mult2/shift2 rescale the time
	// accumulator to the output scale (state*weights_time/output).
	mult1, mult2   int32
	shift1, shift2 int
}

// svdfFloatParams holds the shapes and activation bounds of a float32 SVDF
// operator.
type svdfFloatParams struct {
	batch, inputSize int
	numFilters, rank int
	numUnits, memory int
	actMin, actMax   float32
}

// svdfLd16 reads the i-th little-endian int16 of a constant string.
func svdfLd16(s string, i int) int16 {
	return int16(uint16(s[2*i]) | uint16(s[2*i+1])<<8)
}

// svdfFeature returns the feature projection of batch b for filter f,
// rescaled to the activation state's scale but not yet clamped or offset.
func svdfFeature(p *svdfParams, in, wf []int8, b, f int) int32 {
	x := in[b*p.inputSize : (b+1)*p.inputSize]
	w := wf[f*p.inputSize : (f+1)*p.inputSize]
	acc := int32(0)
	for i := range x {
		acc += int32(w[i]) * (int32(x[i]) - p.inZP)
	}
	return mulByQuantMul(acc, p.mult1, p.shift1)
}

// svdfOutput rescales a unit's accumulator (bias plus time products) to the
// int8 output.
func svdfOutput(p *svdfParams, acc int32) int8 {
	v := mulByQuantMul(acc, p.mult2, p.shift2) + p.outZP
	return int8(clampI32(v, -128, 127))
}

// svdfInt8x16 runs an SVDF with int8 input, weights_feature and output,
// int16 weights_time (wt, a constant string) and int16 activation state.
// bias holds numUnits int32 values (empty for none). The fused activation
// is not applied: TFLM's integer kernel ignores it.
func svdfInt8x16(p *svdfParams, in, wf []int8, wt, bias string, state []int16, out []int8) {
	n := p.batch * p.numFilters * p.memory
	state = state[:n]
	copy(state, state[1:])
	for b := 0; b < p.batch; b++ {
		row := state[b*p.numFilters*p.memory:]
		for f := 0; f < p.numFilters; f++ {
			v := clampI32(svdfFeature(p, in, wf, b, f), -32768, 32767)
			// The zero point is added after the clamp and the sum is
			// truncated to the state type, as TFLM does.
			row[f*p.memory+p.memory-1] = int16(p.stateZP + v)
		}
	}
	for b := 0; b < p.batch; b++ {
		row := state[b*p.numFilters*p.memory:]
		for u := 0; u < p.numUnits; u++ {
			acc := int32(0)
			if len(bias) != 0 {
				acc = ld32(bias, u)
			}
			for r := 0; r < p.rank; r++ {
				f := u*p.rank + r
				s := row[f*p.memory : (f+1)*p.memory]
				dot := int32(0)
				for j := range s {
					dot += int32(svdfLd16(wt, f*p.memory+j)) * (int32(s[j]) - p.stateZP)
				}
				acc += dot
			}
			out[b*p.numUnits+u] = svdfOutput(p, acc)
		}
	}
}

// svdfInt8x8 is svdfInt8x16 with int8 weights_time and int8 activation
// state (whose zero point may be non-zero).
func svdfInt8x8(p *svdfParams, in, wf, wt []int8, bias string, state []int8, out []int8) {
	n := p.batch * p.numFilters * p.memory
	state = state[:n]
	copy(state, state[1:])
	for b := 0; b < p.batch; b++ {
		row := state[b*p.numFilters*p.memory:]
		for f := 0; f < p.numFilters; f++ {
			v := clampI32(svdfFeature(p, in, wf, b, f), -128, 127)
			// May wrap for a non-zero zero point; TFLM truncates the same way.
			row[f*p.memory+p.memory-1] = int8(p.stateZP + v)
		}
	}
	for b := 0; b < p.batch; b++ {
		row := state[b*p.numFilters*p.memory:]
		for u := 0; u < p.numUnits; u++ {
			acc := int32(0)
			if len(bias) != 0 {
				acc = ld32(bias, u)
			}
			for r := 0; r < p.rank; r++ {
				f := u*p.rank + r
				s := row[f*p.memory : (f+1)*p.memory]
				w := wt[f*p.memory : (f+1)*p.memory]
				dot := int32(0)
				for j := range s {
					dot += int32(w[j]) * (int32(s[j]) - p.stateZP)
				}
				acc += dot
			}
			out[b*p.numUnits+u] = svdfOutput(p, acc)
		}
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
			out[b*p.numUnits+u] = clampF32(acc, p.actMin, p.actMax)
		}
	}
}
