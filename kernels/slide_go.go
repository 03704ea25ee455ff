//go:build !tinygo || !cortexm || nodsp

package kernels

// slideDown moves a fused group's line rows down (slideDownWords): here
// with copy, whose memmove is the fastest on gc's targets.
func slideDown(dst, src []byte) { copy(dst, src) }
