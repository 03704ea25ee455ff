package kernels

import "math"

// Binary division operators of TFLite Micro with broadcasting (see ewBcast):
// DIV (div.cc: float32 and int32 with the fused activation), FLOOR_DIV
// (floor_div.cc) and FLOOR_MOD (floor_mod.cc), float32.
//
// Division by zero cannot stop an Invoke here. TFLM's float32 DIV and
// FLOOR_MOD give the IEEE result (an infinity or NaN) and so do these
// kernels; TFLM's FLOOR_DIV fails the Invoke on a zero divisor, where
// floorDivF32 gives floor(x / 0) (an infinity, or NaN for 0 / 0); TFLM's
// int32 DIV traps on a zero divisor, where divI32 gives 0 (and, as Go
// defines it, MinInt32 / -1 = MinInt32 where the reference traps too). The
// lowering refuses constant divisors with a zero, which TFLM cannot run.

// divF32 is DIV for float32: a / b rounded to float32, clamped to the
// activation bounds (NaN passes).
func divF32(p *ewF32Params, bc *ewBcast, a, b, out []float32) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			o[i] = clampF32(a[ai]/b[bi], p.actMin, p.actMax)
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// divI32 is DIV for int32: the quotient truncated toward zero, clamped to
// the activation bounds; x / 0 is 0 (see above).
func divI32(p *ewI32Params, bc *ewBcast, a, b, out []int32) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			q := int32(0)
			if d := b[bi]; d != 0 {
				q = a[ai] / d
			}
			o[i] = clampI32(q, p.actMin, p.actMax)
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// floorDivF32 is FLOOR_DIV for float32: floor(a / b) with the quotient
// taken in float64, as the reference does, then rounded to float32.
func floorDivF32(bc *ewBcast, a, b, out []float32) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			o[i] = float32(math.Floor(float64(a[ai]) / float64(b[bi])))
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// floorModF32 is FLOOR_MOD for float32: the truncated remainder (fmodf,
// exact, with the sign of a), moved by b when it is non-zero and its sign
// differs from b's. x mod 0 is NaN.
func floorModF32(bc *ewBcast, a, b, out []float32) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			y := b[bi]
			m := float32(math.Mod(float64(a[ai]), float64(y)))
			if m != 0 && (y < 0) != (m < 0) {
				m += y
			}
			o[i] = m
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}
