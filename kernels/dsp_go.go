//go:build !tinygo || !cortexm || nodsp

package kernels

import "unsafe"

// dspDot2x2Rows: see dsp.go. Here, Go.
func dspDot2x2Rows(g *dspArgs) { dspDot2x2RowsRef(g) }

// dspPWPairs: see dsp.go. Here, Go.
func dspPWPairs(g *dspPWArgs) { dspPWPairsRef(g) }

// dspPWOne: see dsp.go. Here, Go.
func dspPWOne(g *dspPWArgs) { dspPWOneRef(g) }

// dspWiden2: see dsp.go. Here, Go.
func dspWiden2(g *dspPWArgs) { dspWiden2Ref(g) }

// dspPWPairsW: see dsp.go. Here, Go.
func dspPWPairsW(g *dspPWArgs) { dspPWPairsWRef(g) }

// dspCopy: see dsp_arm.go. Here, copy.
func dspCopy(dst, src unsafe.Pointer, n int) {
	copy(unsafe.Slice((*byte)(dst), n), unsafe.Slice((*byte)(src), n))
}
