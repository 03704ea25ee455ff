//go:build !tinygo || !cortexm || nodsp

package kernels

import "unsafe"

// dspMulRows: see mul_dsp.go. Here, Go.
func dspMulRows(a, b, o unsafe.Pointer, k unsafe.Pointer) { dspMulRowsRef(a, b, o, k) }
