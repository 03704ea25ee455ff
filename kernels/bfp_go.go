//go:build !tinygo || !cortexm || nodsp

package kernels

import "unsafe"

// bfpDot4: see bfpDot4Ref (bfp.go). Here, Go.
func bfpDot4(a *[4]int64, x []int32, w unsafe.Pointer) { bfpDot4Ref(a, x, w) }
