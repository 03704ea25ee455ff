package kernels

import (
	"encoding/binary"
	"math"
)

// Generation-time planning. Some kernels pick their form by testing their
// parameters, such as whether a one-multiply requantization is exact for
// every sum. The generator makes that choice once, with the kernels' own
// code, and passes the record the kernel would otherwise build on every
// Invoke as a literal. Nothing here is copied into a generated package.

// PlanRQOne is rqOneSet for the generator. For the requantization
// (multiplier, left shift, 31 + right shift), output zero point zo and
// clamp [lo, hi] it reports whether rqOneQ is exact for every int32 sum
// and, if so, returns the record's fields by name.
func PlanRQOne(mult int32, lsh, rsh uint8, zo, lo, hi int32) (map[string]int64, bool) {
	var t rqOne
	if !rqOneSet(&t, mult, lsh, rsh, zo, lo, hi) {
		return nil, false
	}
	return rqOneFields(&t), true
}

// rqOneFields returns t's fields by name.
func rqOneFields(t *rqOne) map[string]int64 {
	return map[string]int64{
		"m2": int64(t.m2), "e": int64(t.e), "d": t.d, "r": int64(t.r),
		"lsh": int64(t.lsh), "span": int64(t.span), "hi": int64(t.hi),
	}
}

// PlanSVDF is svdfFastPlan for the generator: for an int8 SVDF (int16
// state when st16) with the given shape and requantizations (multiplier,
// left shift, 31 + right shift, as svdfParams holds them) it reports
// whether the fast kernels take it and, if so, returns the fields of
// their feature and time records.
func PlanSVDF(st16 bool, rank, memory, numFilters, numUnits int, outZP int32,
	mult1 int32, lsh1, rsh1 uint8, mult2 int32, lsh2, rsh2 uint8) (f, t map[string]int64, ok bool) {
	p := svdfParams{
		rank: rank, memory: memory, numFilters: numFilters, numUnits: numUnits, outZP: outZP, octW: true,
		mult1: mult1, lsh1: lsh1, rsh1: rsh1, mult2: mult2, lsh2: lsh2, rsh2: rsh2,
	}
	var rf, rt rqOne
	if !svdfFastPlan(&p, st16, &rf, &rt) {
		return nil, nil, false
	}
	return rqOneFields(&rf), rqOneFields(&rt), true
}

// PlanLSTMInt8 is lstmInt8Form for the generator: the name of the int8
// LSTM kernel to call for the requantizations of the forget, input, cell
// and output gates' input and recurrent FCs (in that order) and of the cell
// and hidden updates (multiplier, exponent).
func PlanLSTMInt8(inMult, recMult [4]int32, inShift, recShift [4]int,
	forgetMult int32, forgetShift int, inputMult int32, inputShift int, hidMult int32, hidShift int) string {
	var g [4]lstmGate
	for i := range g {
		g[i] = lstmGate{inMult: inMult[i], recMult: recMult[i], inShift: inShift[i], recShift: recShift[i]}
	}
	p := lstmParams{forgetMult: forgetMult, forgetShift: forgetShift, inputMult: inputMult, inputShift: inputShift,
		hidMult: hidMult, hidShift: hidShift}
	switch lstmInt8Form(&p, &g[0], &g[1], &g[2], &g[3]) {
	case lstmFormWide:
		return "lstmInt8Wide"
	case lstmFormR:
		return "lstmInt8R"
	}
	return "lstmInt8G"
}

// Scratch memory of the kernels that take a scr []int32 argument, in int32
// words (the generator asks the planner for it).

// FCOctScratch is fcOctInt8's, fcOctInt8PT's and fcOctInt8PTQ's.
const FCOctScratch = fcOctScratch

// LSTMInt8Scratch is lstmInt8's and its forms'.
const LSTMInt8Scratch = lstmInt8Scratch

// SVDFInt8x16Scratch, SVDFInt8x8Scratch and SVDFFastScratch are
// svdfInt8x16's, svdfInt8x8's and the fast and ring SVDF kernels'.
const (
	SVDFInt8x16Scratch = svdfInt8x16Scratch
	SVDFInt8x8Scratch  = svdfInt8x8Scratch
	SVDFFastScratch    = svdfFastScratch
)

// Dw3x3Scratch is dw3x3Int8's.
const Dw3x3Scratch = dw3x3Scratch

// Dw3x3BlockWidth is the number of pixels of a row dw3x3Int8 computes as
// one block (dw3x3BlockWidth): the overlap distance of the kernel depends
// on it.
func Dw3x3BlockWidth(outW int) int { return dw3x3BlockWidth(outW) }

// MoveLoops is the number of loops moveStrided runs around its run. Limits
// and record sizes of the specialised int8 kernels: ConvRQLen
// int64 values an expanded requantization record (conv_rq.go);
// DwRowsMaxRows filter rows and DwRowsMaxTaps taps dwRowsInt8 takes;
// ConvGatherMax window values and ConvGatherMaxC output channels
// convGatherInt8 takes; ConvPWKMax input channels convPWKInt8 computes
// itself; DwRasterMax output channels dwInt8BlocksMulRaster takes, and
// DwRasterPix pixels of a row it reads before it writes them;
// ConvDilMaxTaps bounds (filterH+1)*(filterW+1) of convDilInt8.
const (
	MoveLoops      = moveLoops
	ConvRQLen      = convRQLen
	DwRowsMaxRows  = dwRowsMaxRows
	DwRowsMaxTaps  = dwRowsMaxTaps
	ConvGatherMax  = convGatherMax
	ConvGatherMaxC = convGatherMaxC
	ConvPWKMax     = convPWKMax
	DwRasterMax    = dwRasterMax
	DwRasterPix    = dwRasterPix
	ConvDilMaxTaps = convDilMaxTaps
	// ConvDilRasterMax bounds the output channels of convDilInt8Raster.
	ConvDilRasterMax = convDilRasterMax
	// ConvRowsTriK bounds the windows convRowsTriInt8 gathers.
	ConvRowsTriK = convRowsTriK
)

// ConvPWScratch is convPWInt8's for outC output channels.
func ConvPWScratch(outC int) int { return convPWScratch(outC) }

// ConvGatherScratch is convGatherInt8's for windows of K values and outC
// output channels.
func ConvGatherScratch(K, outC int) int { return convGatherScratch(K, outC) }

// Dw3x3Seg is the number of pixels of a dw3x3Mult segment: all of a
// segment's input is read before its outputs are written, which bounds how
// close below its input the kernel may write its output.
const Dw3x3Seg = dw3x3Seg

// PlanPWDSP plans convPWDSP for a pointwise convolution with weight rows
// rows ([outC][K]) and requantization triples rq (conv_rq.go) for output
// zero point zo and activation minimum lo: the packed weights and the
// records, ok false when the kernel cannot take the layer (K not a
// multiple of four, or a requantization convPWQ would not compute
// exactly).
func PlanPWDSP(rows [][]int8, rq []byte, zo, lo int32) (wt, rec []byte, ok bool) {
	if len(rows) == 0 || len(rows[0]) < 4 || len(rows[0])%4 != 0 {
		return nil, nil, false
	}
	K := len(rows[0])
	if rec, ok = dspPlanRecords(rq, K, zo, lo); !ok {
		return nil, nil, false
	}
	return dspPackPairs(rows, K), rec, true
}

// DSPPWArgsWords is convPWDSP's scratch, in int32 words: the argument
// block of its DSP loops (dsp.go).
const DSPPWArgsWords = dspPWArgsWords

// DSPWidenWords is the scratch convPWDSPW adds to DSPPWArgsWords for rows
// of K inputs: the widened pixel pair.
func DSPWidenWords(K int) int { return dspWidenWords(K) }

// PlanConvDSP plans convDSP and convDSPW for an ungrouped int8 convolution
// with weight rows rows ([outC][K], filter order) and requantization
// triples rq: the packed weights and the records, ok false when a
// requantization convPWQ would not compute exactly.
func PlanConvDSP(rows [][]int8, rq []byte, zo, lo int32) (wt, rec []byte, ok bool) {
	if len(rows) == 0 || len(rows[0]) == 0 {
		return nil, nil, false
	}
	K := len(rows[0])
	if rec, ok = dspPlanRecords(rq, K, zo, lo); !ok {
		return nil, nil, false
	}
	return dspPackPairs(rows, K), rec, true
}

// ConvDSPScratch and ConvDSPWScratch are convDSP's and convDSPW's scratch
// in int32 words for windows of K values.
func ConvDSPScratch(K int) int  { return convDSPScratch(K) }
func ConvDSPWScratch(K int) int { return convDSPWScratch(K) }

// FCSoftMinDepth is the least input depth for which the generator calls
// fcF32S instead of fcF32 (fcSoftMinDepth).
const FCSoftMinDepth = fcSoftMinDepth

// FCBFPMinDepth is the least input depth for which the generator calls
// fcF32BFP (fcBFPMinDepth).
const FCBFPMinDepth = fcBFPMinDepth

// FCSmallWeights is the most weights of a layer for which the generator
// calls fcF32Small on the soft-float board (fcSmallWeights).
const FCSmallWeights = fcSmallWeights

// Int16QBuf is the most window values convInt16Q gathers (int16QBuf): the
// generator calls it on larger windows only where they are read in place
// (1x1 filters).
const Int16QBuf = int16QBuf

// PlanInt16Blocks plans the 16x8 block kernels (convInt16Blocks,
// fcInt16Blocks): the weight rows (one per output channel) packed in blocks
// of four channels, and one record per channel of its int64 bias (nil:
// none) and TFLite Micro's 64-bit rescaling of multiplier mult and
// exponent shift (< 8) (int16BlocksPlan).
func PlanInt16Blocks(rows [][]int8, bias []int64, mult, shift []int32) (wt, rec []byte) {
	return int16BlocksPlan(rows, bias, mult, shift)
}

// PlanInt16Q plans the 16x8 kernels that accumulate in 32 bits
// (convInt16Q, fcInt16Q): their blocks of four channels' weights and
// records, and whether they take the layer (int16QPlan).
func PlanInt16Q(rows [][]int8, bias []int64, mult, shift []int32, outOffset, actMin, actMax int32) (blocks []byte, ok bool) {
	return int16QPlan(rows, bias, mult, shift, outOffset, actMin, actMax)
}

// PlanDWDSP plans the depthwise DSP kernels (dwDSPInt8M1, M2, MQ) for
// output channels with taps rows ([outC][taps], taps row by row) and
// requantization triples rq (conv_rq.go, bias folded for input offset
// -zp), output zero point zo and activation minimum lo: the packed weights
// and the groups' records, ok false when the kernels cannot take the layer
// (fewer than four output channels, or a requantization dspQ would not
// compute exactly).
func PlanDWDSP(rows [][]int8, rq []byte, zo, lo int32) (wt, rec []byte, ok bool) {
	return dwDSPPlan(rows, rq, zo, lo)
}

// PlanDWDSPQ8 is PlanDWDSP for dwDSPInt8Q8 (one input channel, a depth
// multiplier that is a multiple of eight) and an fH x fW filter.
func PlanDWDSPQ8(rows [][]int8, fH, fW int, rq []byte, zo, lo int32) (wt, rec []byte, ok bool) {
	return dwDSPPlanQ8(rows, fH, fW, rq, zo, lo)
}

// DWDSPScratch is the scratch of dwDSPInt8M1, M2 and MQ for an fH x fW
// filter, in int32 words.
func DWDSPScratch(fH, fW int) int { return dwDSPScratch(fH, fW) }

// DWDSPScratchQ8 is dwDSPInt8Q8's scratch for an fH x fW filter, in int32
// words.
func DWDSPScratchQ8(fH, fW int) int { return dwDSPScratchQ8(fH, fW) }

// DWDSPZerosQ8 is the length of dwDSPInt8Q8's zero row for outW output
// columns at horizontal stride sW.
func DWDSPZerosQ8(outW, sW int) int { return dwDSPZerosQ8(outW, sW) }

// DWGeom is the geometry of a depthwise convolution, for DWDSPShift.
type DWGeom struct {
	Batches, InH, InW, InC int
	FilterH, FilterW       int
	OutH, OutW, OutC       int
	DepthMul               int
	StrideH, StrideW       int
	DilationH, DilationW   int
	PadH, PadW             int
}

// DWDSPShift is the least distance (bytes) the input of a depthwise DSP
// kernel (dwDSPInt8Q8 when q8) may start above its output when the output
// is written over it (dwDSPShift: the kernel's order of reads and writes
// replayed); with depth multiplier 1 the distance must be a multiple of
// the channels.
func DWDSPShift(g DWGeom, q8 bool) int {
	return dwDSPShift(&dwDSPParams{batches: g.Batches, inH: g.InH, inW: g.InW, inC: g.InC,
		filterH: g.FilterH, filterW: g.FilterW, outH: g.OutH, outW: g.OutW, outC: g.OutC, depthMul: g.DepthMul,
		strideH: g.StrideH, strideW: g.StrideW, dilationH: g.DilationH, dilationW: g.DilationW, padH: g.PadH, padW: g.PadW}, q8)
}

// PlanFCDSP plans fcDSPInt8 for N weight rows of K int8 columns (row(j)
// returns row j) and requantization triples rq (folded bias, multiplier,
// exponent per row, little-endian int32) to an output with zero point zo
// clamped to [lo, hi]: the packed weights and the record string, ok false
// when the kernel cannot take the layer (K not a multiple of four, or a
// requantization convPWQ would not compute exactly).
func PlanFCDSP(N, K int, row func(j int) []byte, rq []byte, zo, lo, hi int32) (wt, rec []byte, ok bool) {
	if N <= 0 || len(rq) != 12*N {
		return nil, nil, false
	}
	if rec, ok = dspFCPlan(rq, K, zo, lo, hi); !ok {
		return nil, nil, false
	}
	return dspFCPack(N, K, row), rec, true
}

// PlanFC16DSP plans fcDSPInt16 for rows of K columns with int64 biases
// (the input offset folded in), multipliers and exponents per output
// channel, output zero point zo and clamp [lo, hi]: the record string, ok
// false when the kernel cannot take the layer (K not a multiple of four, a
// rescale of 1/4 or more).
func PlanFC16DSP(K int, bias []int64, mult, shift []int32, zo, lo, hi int32) ([]byte, bool) {
	return dspFC16Plan(K, bias, mult, shift, zo, lo, hi)
}

// PlanFC16DSPWeights lays out N weight rows of K int8 columns (row(j)
// returns row j) for fcDSPInt16.
func PlanFC16DSPWeights(N, K int, row func(j int) []byte) []byte { return dspFC16Pack(N, K, row) }

// PlanPoolDSP plans avgPoolDSPInt8 (avg) or maxPoolDSPInt8 for an int8
// pooling layer: the layer's record, ok false when the kernel cannot take
// it (dspPoolPlan).
func PlanPoolDSP(avg bool, depth, inW, outW, strideW, filterH, filterW int, lo, hi int32) ([]byte, bool) {
	return dspPoolPlan(avg, depth, inW, outW, strideW, filterH, filterW, lo, hi)
}

// PlanMulDSP plans mulDSPInt8 for an int8 MUL with the broadcast plan's
// row (inner elements, steps aInner and bInner) and its innermost outer
// dimension (n1 rows, steps a1 and b1), the negated input zero points,
// the output zero point, the multiplier and exponent and the clamp
// [lo, hi]: the record, ok false when the kernel cannot take the layer
// (dspMulPlan).
func PlanMulDSP(inner, aInner, bInner, n1, a1, b1 int, in1Off, in2Off, outOff, mult int32, shift int, lo, hi int32) ([]byte, bool) {
	bc := &ewBcast{inner: inner, aInner: aInner, bInner: bInner, n1: n1, a1: a1, b1: b1}
	p := &mulQuantParams{in1Off: in1Off, in2Off: in2Off, outOff: outOff, mult: mult, shift: shift, actMin: lo, actMax: hi}
	return dspMulPlan(bc, p)
}

// PlanLSTMFloatBFP lays out a float32 LSTM's weights for lstmFloatBFP: the
// four gates' input weights inW ([units][inDim] little-endian float32
// each, gates forget, input, cell, output), recurrent weights recW
// ([units][units]) and biases ([units]) become the kernel's wIn, wRec and
// rec strings. ok is false when a weight or bias is infinite or NaN.
func PlanLSTMFloatBFP(inW, recW, bias [4][]byte, units, inDim int) (wIn, wRec, rec []byte, ok bool) {
	for k := range 4 {
		if len(inW[k]) != 4*units*inDim || len(recW[k]) != 4*units*units || len(bias[k]) != 4*units ||
			!bfpFinite(inW[k]) || !bfpFinite(recW[k]) || !bfpFinite(bias[k]) {
			return nil, nil, nil, false
		}
	}
	_, bwIn := bfpBits(inDim)
	_, bwRec := bfpBits(units)
	wIn, wRec = make([]byte, 16*inDim*units), make([]byte, 16*units*units)
	rec = make([]byte, lstmBFPRec*units)
	for u := range units {
		r := rec[lstmBFPRec*u:]
		for k := range 4 {
			eIn := bfpPutRow(wIn[16*inDim*u+4*k:], inW[k][4*inDim*u:4*inDim*(u+1)], bwIn)
			eRec := bfpPutRow(wRec[16*units*u+4*k:], recW[k][4*units*u:4*units*(u+1)], bwRec)
			binary.LittleEndian.PutUint32(r[4*k:], uint32(eIn))
			binary.LittleEndian.PutUint32(r[16+4*k:], uint32(eRec))
			copy(r[32+4*k:], bias[k][4*u:4*u+4])
		}
	}
	return wIn, wRec, rec, true
}

// bfpPutRow converts a row of little-endian float32 weights (finite) to
// significands of bw bits (bfpRow) and writes significand j at
// dst[16*j:] (rows of four interleaved, as bfpDot4 reads them); it
// returns the row's exponent.
func bfpPutRow(dst, row []byte, bw uint32) int32 {
	f := make([]float32, len(row)/4)
	for j := range f {
		f[j] = math.Float32frombits(binary.LittleEndian.Uint32(row[4*j:]))
	}
	q, ew := bfpRow(f, bw)
	for j, v := range q {
		binary.LittleEndian.PutUint32(dst[16*j:], uint32(v))
	}
	return ew
}

// bfpFinite reports whether every little-endian float32 of m is finite.
func bfpFinite(m []byte) bool {
	for i := 0; i+4 <= len(m); i += 4 {
		if binary.LittleEndian.Uint32(m[i:])&0x7f800000 == 0x7f800000 {
			return false
		}
	}
	return true
}

// bfpRow returns the int32 significands of the float32 weights w with the
// shared exponent ew for bw bits (as bfpVec, at generation time; w must
// be finite).
func bfpRow(w []float32, bw uint32) (q []int32, ew int32) {
	q = make([]int32, len(w))
	ew, _ = bfpVec(q, w, bw)
	return q, ew
}

// PlanFCF32BFP lays out a float32 FULLY_CONNECTED's weights (units rows of
// depth little-endian float32) and bias (units float32, or none) for
// fcF32BFP: the packed weights and the record string. ok is false when a
// weight or bias is infinite or NaN.
func PlanFCF32BFP(w, bias []byte, units, depth int) (wt, rec []byte, ok bool) {
	if units <= 0 || depth <= 0 || len(w) != 4*units*depth || !bfpFinite(w) ||
		len(bias) != 0 && (len(bias) != 4*units || !bfpFinite(bias)) {
		return nil, nil, false
	}
	_, bw := bfpBits(depth)
	wt = make([]byte, 16*depth*((units+3)/4)) // the last block's missing rows stay zero
	rec = make([]byte, fcBFPRec*units)        // a missing bias stays zero
	for ch := range units {
		ew := bfpPutRow(wt[16*depth*(ch/4)+4*(ch%4):], w[4*depth*ch:4*depth*(ch+1)], bw)
		binary.LittleEndian.PutUint32(rec[fcBFPRec*ch:], uint32(ew))
		if len(bias) != 0 {
			copy(rec[fcBFPRec*ch+4:], bias[4*ch:4*ch+4])
		}
	}
	return wt, rec, true
}
