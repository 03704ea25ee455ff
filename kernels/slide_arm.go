//go:build tinygo && cortexm && !nodsp

package kernels

// slideDown moves a fused group's line rows down (slideDownWords): here
// by words, TinyGo's memmove moving a byte at a time.
func slideDown(dst, src []byte) { slideDownWords(dst, src) }
