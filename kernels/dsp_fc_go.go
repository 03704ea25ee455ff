//go:build !tinygo || !cortexm || nodsp

package kernels

import "unsafe"

// dspFCRow: see fc_dsp.go. Here, Go.
func dspFCRow(x, w, r, o unsafe.Pointer) { dspFCRowRef(x, w, r, o) }

// dspFC16Row: see fc_dsp.go. Here, Go.
func dspFC16Row(x, w, r, o unsafe.Pointer) { dspFC16RowRef(x, w, r, o) }

// dspGather16: see conv_dsp16.go. Here, Go.
func dspGather16(d, s unsafe.Pointer, stride, spec uint32) { dspGather16Ref(d, s, stride, spec) }
