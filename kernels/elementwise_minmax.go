package kernels

// MAXIMUM and MINIMUM with broadcasting (see ewBcast). As in TFLite Micro,
// the raw values are compared: quantization parameters are not used, and
// for float32 the first operand wins unless the second is strictly greater
// (MAXIMUM) or strictly smaller (MINIMUM).

// maximumInt8 is MAXIMUM for int8 tensors.
func maximumInt8(bc *ewBcast, a, b, out []int8) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			x, y := a[ai], b[bi]
			if y > x {
				x = y
			}
			o[i] = x
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// maximumInt16 is MAXIMUM for int16 tensors.
func maximumInt16(bc *ewBcast, a, b, out []int16) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			x, y := a[ai], b[bi]
			if y > x {
				x = y
			}
			o[i] = x
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// maximumI32 is MAXIMUM for int32 tensors.
func maximumI32(bc *ewBcast, a, b, out []int32) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			x, y := a[ai], b[bi]
			if y > x {
				x = y
			}
			o[i] = x
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// maximumF32 is MAXIMUM for float32 tensors: x > y ? x : y, so a NaN in
// the first operand yields the second.
func maximumF32(bc *ewBcast, a, b, out []float32) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			x, y := a[ai], b[bi]
			if !(x > y) {
				x = y
			}
			o[i] = x
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// minimumInt8 is MINIMUM for int8 tensors.
func minimumInt8(bc *ewBcast, a, b, out []int8) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			x, y := a[ai], b[bi]
			if y < x {
				x = y
			}
			o[i] = x
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// minimumInt16 is MINIMUM for int16 tensors.
func minimumInt16(bc *ewBcast, a, b, out []int16) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			x, y := a[ai], b[bi]
			if y < x {
				x = y
			}
			o[i] = x
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// minimumI32 is MINIMUM for int32 tensors.
func minimumI32(bc *ewBcast, a, b, out []int32) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			x, y := a[ai], b[bi]
			if y < x {
				x = y
			}
			o[i] = x
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}

// minimumF32 is MINIMUM for float32 tensors: x < y ? x : y.
func minimumF32(bc *ewBcast, a, b, out []float32) {
	n := bc.inner
	for r, rows := 0, ewRows(bc, len(out)); r < rows; r++ {
		ai, bi := ewRowStart(bc, r)
		o := out[r*n : r*n+n]
		for i := range o {
			x, y := a[ai], b[bi]
			if !(x < y) {
				x = y
			}
			o[i] = x
			ai += bc.aInner
			bi += bc.bInner
		}
	}
}
