//go:build !tinygo || !cortexm || nodsp

package kernels

import "unsafe"

// dspFCRow: see fc_dsp.go. Here, Go.
func dspFCRow(x, w, r, o unsafe.Pointer) { dspFCRowRef(x, w, r, o) }

// dspFC16Row: see fc_dsp.go. Here, Go.
func dspFC16Row(x, w, r, o unsafe.Pointer) { dspFC16RowRef(x, w, r, o) }
