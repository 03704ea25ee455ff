//go:build !tinygo || !cortexm || nodsp

package kernels

import "unsafe"

// octPass8: see oct.go. Here, Go.
func octPass8(x []int8, p unsafe.Pointer, a *[8]int32) { octPass8Ref(x, p, a) }
