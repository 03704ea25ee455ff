package kernels

// ARG_MAX and ARG_MIN as TensorFlow Lite Micro's reference ArgMinMax: for
// every (outer, inner) position the index of the first greatest (or least)
// value along the axis. Float comparisons skip NaN candidates and let any
// number replace a NaN current value, as the reference comparator does.

// argMinMaxParams gives the input as outer x axis x inner elements; isMin
// selects ARG_MIN.
type argMinMaxParams struct {
	outer, axis, inner int
	isMin              bool
}

// argMinMaxIdxI8 returns the arg-min/max index for output position
// (o, k) of an int8 input.
func argMinMaxIdxI8(p *argMinMaxParams, in []int8, o, k int) int {
	base := o*p.axis*p.inner + k
	best := in[base]
	idx := 0
	for i := 1; i < p.axis; i++ {
		v := in[base+i*p.inner]
		if (!p.isMin && v > best) || (p.isMin && v < best) {
			best = v
			idx = i
		}
	}
	return idx
}

// argMinMaxIdxI16 is argMinMaxIdxI8 for int16 input.
func argMinMaxIdxI16(p *argMinMaxParams, in []int16, o, k int) int {
	base := o*p.axis*p.inner + k
	best := in[base]
	idx := 0
	for i := 1; i < p.axis; i++ {
		v := in[base+i*p.inner]
		if (!p.isMin && v > best) || (p.isMin && v < best) {
			best = v
			idx = i
		}
	}
	return idx
}

// argMinMaxIdxF32 is argMinMaxIdxI8 for float32 input, with the
// reference's NaN rules: a NaN candidate never wins, and any number beats a
// NaN current value.
func argMinMaxIdxF32(p *argMinMaxParams, in []float32, o, k int) int {
	base := o*p.axis*p.inner + k
	best := in[base]
	idx := 0
	for i := 1; i < p.axis; i++ {
		v := in[base+i*p.inner]
		if v != v {
			continue
		}
		if best != best || (!p.isMin && v > best) || (p.isMin && v < best) {
			best = v
			idx = i
		}
	}
	return idx
}

// argMinMaxI8I32 computes ARG_MAX/ARG_MIN of int8 input into int32 indices.
func argMinMaxI8I32(p *argMinMaxParams, in []int8, out []int32) {
	for o := 0; o < p.outer; o++ {
		for k := 0; k < p.inner; k++ {
			out[o*p.inner+k] = int32(argMinMaxIdxI8(p, in, o, k))
		}
	}
}

// argMinMaxI8I64 computes ARG_MAX/ARG_MIN of int8 input into int64 indices.
func argMinMaxI8I64(p *argMinMaxParams, in []int8, out []int64) {
	for o := 0; o < p.outer; o++ {
		for k := 0; k < p.inner; k++ {
			out[o*p.inner+k] = int64(argMinMaxIdxI8(p, in, o, k))
		}
	}
}

// argMinMaxI16I32 computes ARG_MAX/ARG_MIN of int16 input into int32 indices.
func argMinMaxI16I32(p *argMinMaxParams, in []int16, out []int32) {
	for o := 0; o < p.outer; o++ {
		for k := 0; k < p.inner; k++ {
			out[o*p.inner+k] = int32(argMinMaxIdxI16(p, in, o, k))
		}
	}
}

// argMinMaxI16I64 computes ARG_MAX/ARG_MIN of int16 input into int64 indices.
func argMinMaxI16I64(p *argMinMaxParams, in []int16, out []int64) {
	for o := 0; o < p.outer; o++ {
		for k := 0; k < p.inner; k++ {
			out[o*p.inner+k] = int64(argMinMaxIdxI16(p, in, o, k))
		}
	}
}

// argMinMaxF32I32 computes ARG_MAX/ARG_MIN of float32 input into int32
// indices.
func argMinMaxF32I32(p *argMinMaxParams, in []float32, out []int32) {
	for o := 0; o < p.outer; o++ {
		for k := 0; k < p.inner; k++ {
			out[o*p.inner+k] = int32(argMinMaxIdxF32(p, in, o, k))
		}
	}
}

// argMinMaxF32I64 computes ARG_MAX/ARG_MIN of float32 input into int64
// indices.
func argMinMaxF32I64(p *argMinMaxParams, in []float32, out []int64) {
	for o := 0; o < p.outer; o++ {
		for k := 0; k < p.inner; k++ {
			out[o*p.inner+k] = int64(argMinMaxIdxF32(p, in, o, k))
		}
	}
}
