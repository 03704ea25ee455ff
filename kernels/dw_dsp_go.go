//go:build !tinygo || !cortexm || nodsp

package kernels

// dwDSPRunM1: see dw_dsp.go. Here, Go.
func dwDSPRunM1(g *dwDSPArgs) { dwDSPRunM1Ref(g) }

// dwDSPRunM2: see dw_dsp.go. Here, Go.
func dwDSPRunM2(g *dwDSPArgs) { dwDSPRunM2Ref(g) }

// dwDSPRunMQ: see dw_dsp.go. Here, Go.
func dwDSPRunMQ(g *dwDSPArgs) { dwDSPRunMQRef(g) }

// dwDSPRunQ8: see dw_dsp.go. Here, Go.
func dwDSPRunQ8(g *dwDSPArgs) { dwDSPRunQ8Ref(g) }
