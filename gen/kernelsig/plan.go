package kernelsig

import "github.com/tflm-gen/tflm-gen/kernels"

// Generation-time planning with the kernels' own code (kernels/plan.go):
// the predicates that say whether a kernel form takes a layer, the records
// and packed weights it then reads, the scratch it needs and the distance
// at which it may write its output over its input. The generator reaches
// them here, never through package kernels itself, with kernel names as
// Func values and records by field name as Record values;
// TestPlanCovered fails when kernels/plan.go exports a name this file
// does not. Where Func or Struct constants of table.go take a kernel
// name, the counterpart is renamed (ScratchConvPW for ConvPWScratch).

// Record holds the fields of a kernel's parameter struct by name, for a
// struct literal.
type Record map[string]int64

// PlanRQOne reports whether the one-multiply requantization (rqOneQ) is
// exact for every int32 sum, for the multiplier, left shift, 31 + right
// shift, output zero point zo and clamp [lo, hi]; if so it returns the
// rqOne record (kernels.PlanRQOne).
func PlanRQOne(mult int32, lsh, rsh uint8, zo, lo, hi int32) (Record, bool) {
	r, ok := kernels.PlanRQOne(mult, lsh, rsh, zo, lo, hi)
	return r, ok
}

// PlanSVDF reports whether the fast SVDF kernels take an int8 SVDF (int16
// state when st16) and, if so, returns their feature and time records
// (kernels.PlanSVDF).
func PlanSVDF(st16 bool, rank, memory, numFilters, numUnits int, outZP int32,
	mult1 int32, lsh1, rsh1 uint8, mult2 int32, lsh2, rsh2 uint8) (f, t Record, ok bool) {
	f, t, ok = kernels.PlanSVDF(st16, rank, memory, numFilters, numUnits, outZP, mult1, lsh1, rsh1, mult2, lsh2, rsh2)
	return f, t, ok
}

// PlanLSTMInt8 is the int8 LSTM kernel to call for the gates' and updates'
// requantizations (kernels.PlanLSTMInt8).
func PlanLSTMInt8(inMult, recMult [4]int32, inShift, recShift [4]int,
	forgetMult int32, forgetShift int, inputMult int32, inputShift int, hidMult int32, hidShift int) Func {
	return Func(kernels.PlanLSTMInt8(inMult, recMult, inShift, recShift, forgetMult, forgetShift, inputMult, inputShift, hidMult, hidShift))
}

// Scratch of the kernels that take a scr []int32 argument, in int32 words,
// and the kernels' other generation-time constants (kernels/plan.go).
const (
	FCOctScratch       = kernels.FCOctScratch
	LSTMInt8Scratch    = kernels.LSTMInt8Scratch
	SVDFInt8x16Scratch = kernels.SVDFInt8x16Scratch
	SVDFInt8x8Scratch  = kernels.SVDFInt8x8Scratch
	SVDFFastScratch    = kernels.SVDFFastScratch
	Dw3x3Scratch       = kernels.Dw3x3Scratch
	// Dw3x3Seg is the number of pixels of a dw3x3Mult segment.
	Dw3x3Seg = kernels.Dw3x3Seg
	// DSPPWArgsWords is convPWDSP's scratch.
	DSPPWArgsWords = kernels.DSPPWArgsWords
	// FCSoftMinDepth is the least input depth for fcF32S.
	FCSoftMinDepth = kernels.FCSoftMinDepth
	// FCSmallWeights is the most weights for fcF32Small.
	FCSmallWeights = kernels.FCSmallWeights
	// Int16QBuf is the most window values convInt16Q gathers.
	Int16QBuf = kernels.Int16QBuf
	// FCBFPMinDepth is the least input depth for fcF32BFP.
	FCBFPMinDepth = kernels.FCBFPMinDepth
	// MoveLoops is the number of loops moveStrided runs around its run.
	MoveLoops = kernels.MoveLoops
	// ConvRQLen is the int64 values of an expanded requantization record.
	ConvRQLen = kernels.ConvRQLen
	// DwRowsMaxRows and DwRowsMaxTaps bound dwRowsInt8's filters.
	DwRowsMaxRows = kernels.DwRowsMaxRows
	DwRowsMaxTaps = kernels.DwRowsMaxTaps
	// ConvGatherMax and ConvGatherMaxC bound convGatherInt8's windows and
	// output channels.
	ConvGatherMax  = kernels.ConvGatherMax
	ConvGatherMaxC = kernels.ConvGatherMaxC
	// ConvPWKMax is the most input channels convPWKInt8 computes itself.
	ConvPWKMax = kernels.ConvPWKMax
	// DwRasterMax is the most output channels of dwInt8BlocksMulRaster.
	DwRasterMax = kernels.DwRasterMax
	// DwRasterPix is how many pixels of a row dwInt8BlocksMulRaster reads
	// before it writes them.
	DwRasterPix = kernels.DwRasterPix
	// ConvDilMaxTaps bounds (filterH+1)*(filterW+1) of convDilInt8.
	ConvDilMaxTaps = kernels.ConvDilMaxTaps
	// ConvDilRasterMax bounds the output channels of convDilInt8Raster.
	ConvDilRasterMax = kernels.ConvDilRasterMax
	// ConvRowsTriK bounds the windows convRowsTriInt8 gathers.
	ConvRowsTriK = kernels.ConvRowsTriK
)

// BlockWidthDw3x3 is the pixels of a row dw3x3Int8 computes as one block
// (kernels.Dw3x3BlockWidth).
func BlockWidthDw3x3(outW int) int { return kernels.Dw3x3BlockWidth(outW) }

// ScratchConvPW is convPWInt8's scratch for outC output channels.
func ScratchConvPW(outC int) int { return kernels.ConvPWScratch(outC) }

// ScratchConvGather is convGatherInt8's for windows of K values and outC
// output channels.
func ScratchConvGather(K, outC int) int { return kernels.ConvGatherScratch(K, outC) }

// DSPWidenWords is the scratch convPWDSPW adds to DSPPWArgsWords for rows
// of K inputs.
func DSPWidenWords(K int) int { return kernels.DSPWidenWords(K) }

// ScratchConvDSP is convDSP's scratch for windows of K values.
func ScratchConvDSP(K int) int { return kernels.ConvDSPScratch(K) }

// ScratchConvDSPW is convDSPW's scratch for windows of K values.
func ScratchConvDSPW(K int) int { return kernels.ConvDSPWScratch(K) }

// DWDSPScratch is the scratch of dwDSPInt8M1, M2 and MQ for an fH x fW
// filter.
func DWDSPScratch(fH, fW int) int { return kernels.DWDSPScratch(fH, fW) }

// DWDSPScratchQ8 is dwDSPInt8Q8's scratch for an fH x fW filter.
func DWDSPScratchQ8(fH, fW int) int { return kernels.DWDSPScratchQ8(fH, fW) }

// DWDSPZerosQ8 is the length of dwDSPInt8Q8's zero row.
func DWDSPZerosQ8(outW, sW int) int { return kernels.DWDSPZerosQ8(outW, sW) }

// PlanPWDSP plans convPWDSP: packed weights and records, ok false when the
// kernel cannot take the layer (kernels.PlanPWDSP).
func PlanPWDSP(rows [][]int8, rq []byte, zo, lo int32) (wt, rec []byte, ok bool) {
	return kernels.PlanPWDSP(rows, rq, zo, lo)
}

// PlanConvDSP plans convDSP and convDSPW (kernels.PlanConvDSP).
func PlanConvDSP(rows [][]int8, rq []byte, zo, lo int32) (wt, rec []byte, ok bool) {
	return kernels.PlanConvDSP(rows, rq, zo, lo)
}

// PlanDWDSP plans dwDSPInt8M1, M2 and MQ (kernels.PlanDWDSP).
func PlanDWDSP(rows [][]int8, rq []byte, zo, lo int32) (wt, rec []byte, ok bool) {
	return kernels.PlanDWDSP(rows, rq, zo, lo)
}

// PlanDWDSPQ8 plans dwDSPInt8Q8 (kernels.PlanDWDSPQ8).
func PlanDWDSPQ8(rows [][]int8, fH, fW int, rq []byte, zo, lo int32) (wt, rec []byte, ok bool) {
	return kernels.PlanDWDSPQ8(rows, fH, fW, rq, zo, lo)
}

// DWGeometry is the geometry of a depthwise convolution, for DWDSPShift.
type DWGeometry = kernels.DWGeom

// DWDSPShift is the least distance in bytes the input of a depthwise DSP
// kernel may start above its output when the output is written over it,
// from the kernel's own order of reads and writes (kernels.DWDSPShift).
func DWDSPShift(g DWGeometry, q8 bool) int { return kernels.DWDSPShift(g, q8) }

// PlanFCDSP plans fcDSPInt8 (kernels.PlanFCDSP).
func PlanFCDSP(N, K int, row func(j int) []byte, rq []byte, zo, lo, hi int32) (wt, rec []byte, ok bool) {
	return kernels.PlanFCDSP(N, K, row, rq, zo, lo, hi)
}

// PlanFC16DSP plans fcDSPInt16's record (kernels.PlanFC16DSP).
func PlanFC16DSP(K int, bias []int64, mult, shift []int32, zo, lo, hi int32) ([]byte, bool) {
	return kernels.PlanFC16DSP(K, bias, mult, shift, zo, lo, hi)
}

// PlanFC16DSPWeights packs N rows of K int8 weights for fcDSPInt16
// (kernels.PlanFC16DSPWeights).
func PlanFC16DSPWeights(N, K int, row func(j int) []byte) []byte {
	return kernels.PlanFC16DSPWeights(N, K, row)
}

// PlanPoolDSP plans avgPoolDSPInt8 or maxPoolDSPInt8 (kernels.PlanPoolDSP).
func PlanPoolDSP(avg bool, depth, inW, outW, strideW, filterH, filterW int, lo, hi int32) ([]byte, bool) {
	return kernels.PlanPoolDSP(avg, depth, inW, outW, strideW, filterH, filterW, lo, hi)
}

// PlanMulDSP plans mulDSPInt8 (kernels.PlanMulDSP).
func PlanMulDSP(inner, aInner, bInner, n1, a1, b1 int, in1Off, in2Off, outOff, mult int32, shift int, lo, hi int32) ([]byte, bool) {
	return kernels.PlanMulDSP(inner, aInner, bInner, n1, a1, b1, in1Off, in2Off, outOff, mult, shift, lo, hi)
}

// PlanLSTMFloatBFP plans the float32 LSTM's block-floating-point weights
// (kernels.PlanLSTMFloatBFP).
func PlanLSTMFloatBFP(inW, recW, bias [4][]byte, units, inDim int) (wIn, wRec, rec []byte, ok bool) {
	return kernels.PlanLSTMFloatBFP(inW, recW, bias, units, inDim)
}

// PlanFCF32BFP plans fcF32BFP's block-floating-point weights
// (kernels.PlanFCF32BFP).
func PlanFCF32BFP(w, bias []byte, units, depth int) (wt, rec []byte, ok bool) {
	return kernels.PlanFCF32BFP(w, bias, units, depth)
}

// PlanInt16Blocks plans the 16x8 block kernels' packed weights and records
// (kernels.PlanInt16Blocks).
func PlanInt16Blocks(rows [][]int8, bias []int64, mult, shift []int32) (wt, rec []byte) {
	return kernels.PlanInt16Blocks(rows, bias, mult, shift)
}

// PlanInt16Q plans the 16x8 kernels that accumulate in 32 bits
// (kernels.PlanInt16Q).
func PlanInt16Q(rows [][]int8, bias []int64, mult, shift []int32, outOffset, actMin, actMax int32) (blocks []byte, ok bool) {
	return kernels.PlanInt16Q(rows, bias, mult, shift, outOffset, actMin, actMax)
}
