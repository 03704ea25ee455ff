package kernels

import "unsafe"

// fcSoftMinDepth is the least input depth for which the generator calls
// fcF32S, which takes fcF32Soft where float32 is emulated: per call it scans the weights' and inputs' exponents and
// unpacks each input row once per block, which shallow layers do not
// repay (on TinyGo for Cortex-M4, hello_world_float's and mlp_float's
// layers of depth 1 to 16 took 11% and 24% more instructions with it;
// trained_lstm's of depth 560, 330,000 fewer).
const fcSoftMinDepth = 64

// fcF32S is fcF32 for layers of at least fcSoftMinDepth inputs: where
// float32 is emulated (f32Soft), fcF32Soft, unless it declines.
func fcF32S(p *fcParams, in []float32, w, bias string, out []float32) {
	if f32Soft && fcF32Soft(p, in, w, bias, out) {
		return
	}
	fcF32(p, in, w, bias, out)
}

// fcF32Soft is fcF32 where float32 arithmetic is emulated (f32Soft): each
// channel's products summed in order by f32sDot, the bias and clamp by
// fcActF32. It does nothing and returns false when a weight or an input
// row leaves f32sDotOK's range (fcF32 then runs its plain float32 loops).
// An input row is unpacked (f32sUnpackN) once per block of four channels.
func fcF32Soft(p *fcParams, in []float32, w, bias string, out []float32) bool {
	k, n, nbat := p.accumDepth, p.outDepth, p.batches
	nb := (n + 3) / 4
	w = w[:16*k*nb]
	in, out = in[:k*nbat], out[:n*nbat]
	wlo, whi, ok := f32sRangeStr(w)
	if !ok {
		return false
	}
	for b := 0; b < nbat; b++ {
		xlo, xhi, xok := f32sRange(in[b*k : b*k+k])
		if !xok || !f32sDotOK(xlo, xhi, wlo, whi, k) {
			return false
		}
	}
	pw := unsafe.Pointer(unsafe.StringData(w))
	aligned := f32StrOff(w) == 0
	var xu [f32sChunk]f32sX
	for b := 0; b < nbat; b++ {
		x, o := in[b*k:b*k+k], out[b*n:b*n+n]
		for blk := 0; blk < nb; blk++ {
			m := min(4, n-4*blk)
			acc := [4]f32sSum{{0, f32sZeroE}, {0, f32sZeroE}, {0, f32sZeroE}, {0, f32sZeroE}}
			pb := unsafe.Add(pw, 16*k*blk)
			for d := 0; d < k; {
				cnt, read := f32sUnpackN(&xu, x[d:], uint32(16*d), 16)
				for j := 0; j < m; j++ {
					acc[j] = f32sDot(acc[j], xu[:cnt], unsafe.Add(pb, 4*j), aligned)
				}
				d += read
			}
			for j := 0; j < m; j++ {
				o[4*blk+j] = f32sSumF32(acc[j])
			}
		}
		fcActF32(o, bias, p.fActMin, p.fActMax)
	}
	return true
}
