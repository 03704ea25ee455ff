package kernels

import "math"

// exp, logistic and tanh in float32 arithmetic, for builds for gc
// (-compiler gc), whose targets have a floating-point unit: there a few
// float32 multiply-adds cost less than f32Exp's and f32Tanh's integer
// arithmetic (trained_lstm under gc for 32-bit ARM: 1.32M -> 1.00M
// instructions per Invoke). Range reduction by ln 2 (in two parts) and a
// polynomial, as Cephes' expf and tanhf do; within 4.5 ulps of the
// exact value (TestF32FPUFunctions), where the default build keeps f32Exp
// and f32Tanh, whose bits are the same on every target.

// f32ExpCore returns e^x for x in (-87, 88): x = k ln 2 + r, |r| <=
// ln 2 / 2, k = round(x / ln 2) from adding 1.5 * 2^23 (the float32 sum
// rounds to an integer, k in its low bits: no conversion, no branch), e^r
// by its Taylor polynomial of degree 6 (error below 1.7e-7 relative), the
// scale 2^k from k's bits. Small enough for gc to inline.
func f32ExpCore(x float32) float32 {
	t := x*1.44269504088896341 + 12582912
	fk := t - 12582912
	r := x - fk*0.693359375 + fk*2.12194440e-4
	y := 1 + r*(1+r*(0.5+r*(0.16666667+r*(0.041666668+r*(0.008333334+r*0.0013888889)))))
	return y * math.Float32frombits(math.Float32bits(t)<<23+0x3f800000) // (k+127)<<23
}

// f32ExpFPU returns e^x in float32 arithmetic: infinity above
// 88.72284, 0 below -103.97208, NaN for NaN; outside (-87, 88) as the
// square of e^(x/2).
func f32ExpFPU(x float32) float32 {
	switch {
	case x > -87 && x < 88:
		return f32ExpCore(x)
	case x != x:
		return x
	case x > 88.72284:
		return float32(math.Inf(1))
	case x < -103.97208:
		return 0
	}
	h := f32ExpCore(x / 2)
	return h * h
}

// f32LogisticFPU is f32Logistic (TFLM's cut-offs) in float32 arithmetic.
func f32LogisticFPU(x float32) float32 {
	switch {
	case x > 16.619047164916992188:
		return 1
	case x < -9:
		return f32ExpFPU(x)
	case x != x:
		return x
	}
	return 1 / (1 + f32ExpCore(-x))
}

// f32TanhFPU returns tanh(x) in float32 arithmetic: Cephes' odd
// polynomial below 0.625, 1 - 2/(e^2|x| + 1) up to 10, +-1 beyond.
func f32TanhFPU(x float32) float32 {
	a := x
	if a < 0 {
		a = -a
	}
	switch {
	case a < 0.625:
		z := x * x
		return ((((-5.70498872745e-3*z+2.06390887954e-2)*z-5.37397155531e-2)*z+1.33314422036e-1)*z-3.33332819422e-1)*z*x + x
	case a >= 10:
		if x < 0 {
			return -1
		}
		return 1
	case x != x:
		return x
	}
	t := 1 - 2/(f32ExpCore(2*a)+1)
	if x < 0 {
		return -t
	}
	return t
}
