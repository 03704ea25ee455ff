package kernels

import "math"

// CAST (TFLite Micro's cast.cc): static_cast of every element from int8,
// int16, int32, uint32, float32 or bool to int8, int16, int32, uint32 or
// float32. Inputs are read as little-endian bytes, so one kernel serves
// every integer pair: the value is sign- or zero-extended and its low
// bytes kept (C's conversion to a narrower integer type, two's
// complement). Integers become float32 rounded to nearest, as in C.
//
// float32 to an integer type truncates toward zero. C++ leaves a value
// outside the target type (NaN, infinities, values past its range)
// undefined, and TFLM's result for it depends on the processor; here it
// saturates to the target type's range and NaN gives 0.

// castParams are the element sizes (bytes) and whether the input type is
// signed.
type castParams struct {
	inSize, outSize int
	signed          bool
}

// castLoad reads element i of src as an integer.
func castLoad(p *castParams, src []byte, i int) int64 {
	switch p.inSize {
	case 1:
		if p.signed {
			return int64(int8(src[i]))
		}
		return int64(src[i])
	case 2:
		v := uint16(src[2*i]) | uint16(src[2*i+1])<<8
		if p.signed {
			return int64(int16(v))
		}
		return int64(v)
	}
	s := src[4*i : 4*i+4]
	v := uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
	if p.signed {
		return int64(int32(v))
	}
	return int64(v)
}

// castStore writes the low outSize bytes of v as element i of dst.
func castStore(p *castParams, dst []byte, i int, v int64) {
	switch p.outSize {
	case 1:
		dst[i] = byte(v)
	case 2:
		d := dst[2*i : 2*i+2]
		d[0], d[1] = byte(v), byte(v>>8)
	default:
		d := dst[4*i : 4*i+4]
		d[0], d[1], d[2], d[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
}

// castInt casts between integer types (bool in as 0 or 1).
func castInt(p *castParams, dst, src []byte) {
	n := len(dst) / p.outSize
	for i := 0; i < n; i++ {
		castStore(p, dst, i, castLoad(p, src, i))
	}
}

// castIntF32 casts an integer type (bool in as 0 or 1) to float32.
func castIntF32(p *castParams, dst []float32, src []byte) {
	for i := range dst {
		v := castLoad(p, src, i)
		if p.signed {
			dst[i] = float32(int32(v))
		} else {
			dst[i] = float32(uint32(v))
		}
	}
}

// castF32Int casts float32 to an integer type of outSize bytes whose range
// is [lo, hi]: truncation toward zero, saturated to the range, NaN to 0.
// The bounds are compared in float32: lo is a power of two or 0, and hi
// either exact or 2^k - 1 with k > 24, which rounds to 2^k, and no float32
// lies between 2^k - 1 and 2^k.
func castF32Int(p *castParams, lo, hi int64, dst, src []byte) {
	n := len(dst) / p.outSize
	flo, fhi := float32(lo), float32(hi)
	for i := 0; i < n; i++ {
		s := src[4*i : 4*i+4]
		f := math.Float32frombits(uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24)
		var v int64
		switch {
		case f != f:
			v = 0
		case f <= flo:
			v = lo
		case f >= fhi:
			v = hi
		default:
			v = int64(f)
		}
		castStore(p, dst, i, v)
	}
}
