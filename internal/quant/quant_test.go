package quant

import (
	"math"
	"testing"
)

// TestMultiplier checks QuantizeMultiplier's contract: real = m * 2^(shift-31)
// within half a unit in the last place of m, m in [2^30, 2^31) for nonzero
// inputs, and its special cases (zero, tiny values flushed, round-up carry).
func TestMultiplier(t *testing.T) {
	tests := []struct {
		real  float64
		m     int32
		shift int
	}{
		{0, 0, 0},
		{0.5, 1 << 30, 0},
		{1, 1 << 30, 1},
		{0.25, 1 << 30, -1},
		{math.Ldexp(1, -40), 0, 0},         // below 2^-31: flushed to zero
		{math.Nextafter(1, 0), 1 << 30, 1}, // rounds up to 2^31, carried into the shift
		{0.75, 3 << 29, 0},                 // exact
		{1.0 / 3, 1431655765, -1},          // round(2^31 * 2/3)
	}
	for _, tc := range tests {
		m, s := Multiplier(tc.real)
		if m != tc.m || s != tc.shift {
			t.Errorf("Multiplier(%g) = %d, %d; want %d, %d", tc.real, m, s, tc.m, tc.shift)
		}
		if tc.real > math.Ldexp(1, -31) {
			back := float64(m) * math.Ldexp(1, s-31)
			if math.Abs(back-tc.real) > math.Ldexp(1, s-32) {
				t.Errorf("Multiplier(%g) reconstructs %g", tc.real, back)
			}
		}
	}
}

func TestRangeQuantized(t *testing.T) {
	tests := []struct {
		act            Activation
		scale          float64
		zp, qmin, qmax int32
		lo, hi         int32
		ok             bool
	}{
		{ActNone, 0.1, 3, -128, 127, -128, 127, true},
		{ActRelu, 0.1, 3, -128, 127, 3, 127, true},
		{ActRelu6, 0.1, -128, -128, 127, -128, -68, true},
		{ActRelu6, 0.01, -128, -128, 127, -128, 127, true},
		{ActReluN1To1, 0.5, 0, -128, 127, -2, 2, true},
		{ActRelu, 0.1, -200, -128, 127, -128, 127, true},
		{ActTanh, 0.1, 0, -128, 127, 0, 0, false},
	}
	for _, tc := range tests {
		lo, hi, ok := RangeQuantized(tc.act, tc.scale, tc.zp, tc.qmin, tc.qmax)
		if lo != tc.lo || hi != tc.hi || ok != tc.ok {
			t.Errorf("RangeQuantized(%s, %g, %d) = %d, %d, %v; want %d, %d, %v", tc.act, tc.scale, tc.zp, lo, hi, ok, tc.lo, tc.hi, tc.ok)
		}
	}
}

// TestCheckedMultiplier: the multiplier of Multiplier, or an error where
// MultiplyByQuantizedMultiplier cannot apply it.
func TestCheckedMultiplier(t *testing.T) {
	for _, real := range []float64{0, 0.5, -0.25, 1.0 / 3, math.Ldexp(1, 29), math.Ldexp(1, -40)} {
		m, s, err := CheckedMultiplier(real)
		wm, ws := Multiplier(real)
		if err != nil || m != wm || s != ws {
			t.Errorf("CheckedMultiplier(%g) = %d, %d, %v; want %d, %d", real, m, s, err, wm, ws)
		}
	}
	for _, real := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Ldexp(1, 30), 1e20} {
		if _, _, err := CheckedMultiplier(real); err == nil {
			t.Errorf("CheckedMultiplier(%g): no error", real)
		}
	}
}

// TestActRangeOverflow: a bound that does not fit in int32 is an error (TFLM's
// Quantize fails Prepare), as is an activation that is not a clamp.
func TestActRangeOverflow(t *testing.T) {
	tests := []struct {
		act   Activation
		scale float32
		zp    int32
	}{
		{ActRelu6, 1e-12, 0},                 // 6/scale overflows
		{ActReluN1To1, 1e-12, 0},             // -1/scale overflows
		{ActRelu6, 6.0 / (1 << 30), 1 << 30}, // quotient fits, sum with the zero point does not
		{ActTanh, 0.1, 0},
		{ActSignBit, 0.1, 0},
	}
	for _, tc := range tests {
		if lo, hi, err := ActRange(tc.act, tc.scale, tc.zp, math.MinInt32, math.MaxInt32); err == nil {
			t.Errorf("ActRange(%s, %g, %d) = %d, %d; want an error", tc.act, tc.scale, tc.zp, lo, hi)
		}
	}
	if lo, hi, err := ActRange(ActRelu, 1e-12, 5, -128, 127); err != nil || lo != 5 || hi != 127 {
		t.Errorf("ActRange(RELU, 1e-12, 5) = %d, %d, %v; want 5, 127", lo, hi, err)
	}
}
