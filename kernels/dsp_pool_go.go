//go:build !tinygo || !cortexm || nodsp

package kernels

import "unsafe"

// dspMaxPool: see pool_dsp.go. Here, Go.
func dspMaxPool(x, o unsafe.Pointer, spec uint32, k unsafe.Pointer) { dspMaxPoolRef(x, o, spec, k) }

// dspAvgPool: see pool_dsp.go. Here, Go.
func dspAvgPool(x, o unsafe.Pointer, spec uint32, k unsafe.Pointer) { dspAvgPoolRef(x, o, spec, k) }
