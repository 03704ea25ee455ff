//go:build !tinygo && linux && arm.6

package kernels

// f32WordLoads is true where a 32-bit word may be loaded from any address:
// gc for ARMv6 and later on Linux, which leaves unaligned LDR to the
// hardware (VLDR, the float load, still needs a word-aligned address).
// There fcF32 reads a misaligned weight string a word at a time
// (f32WordRow) instead of shifting each float out of two aligned words.
const f32WordLoads = true
