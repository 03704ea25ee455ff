//go:build tinygo || !linux || !arm.6

package kernels

// f32WordLoads is true where a 32-bit word may be loaded from any address
// (see f32words_armv6.go); not here: ARMv5 rotates a misaligned word, and
// the other targets take other paths.
const f32WordLoads = false
