package lower

import (
	"slices"

	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/planner"
)

// Overlapped in-place operators. A kernel that computes its output in
// raster order, reading each output pixel's input window before it writes
// that pixel, can write its output over its own input when the input dies
// there, provided the output starts far enough below the input that no
// write reaches input a later pixel still reads. The lowering states the
// smallest such distance (overlapOffer); Assemble ties the input's buffer
// to the output's at that distance when the input dies at the operator,
// and the planner places the pair as one block: output and input overlap,
// and the pair takes max(output, distance + input) bytes instead of their
// sum. Every output element is computed exactly as without overlap.

// overlapOffer says that the operator's output may be placed minShift
// bytes below its input In (an input index) and written over it, by the
// operator's calls or, when calls is set, by these instead (a raster-order
// kernel where the usual one writes in another order).
type overlapOffer struct {
	in       int
	minShift int
	calls    []kcall
	scratch  []*scratchReq // the scratch only calls use: planned only when the pair is overlapped
}

// offerOverlap records that the operator's kernel writes its output over
// input in safely when the input starts at least minShift bytes above the
// output.
func (c *opCtx) offerOverlap(in, minShift int) {
	c.overlap = &overlapOffer{in: in, minShift: minShift}
}

// offerOverlapAlt records a second way to write the operator's output
// over input in: the calls emit makes, safe at minShift. belowTheBound
// tries it in place of the first offer for each overlapped operator and
// keeps it where the arena comes out smaller (less distance for more
// scratch, say).
func (c *opCtx) offerOverlapAlt(in, minShift int, emit func()) {
	first := c.overlap
	c.offerOverlapWith(in, minShift, emit)
	c.overlapAlt, c.overlap = c.overlap, first
}

// offer is the overlap offer of the operator that alt chooses: the second
// where alt lists the operator and it has one.
func (c *opCtx) offer(alt map[int]bool) *overlapOffer {
	if alt[c.Op.Index] && c.overlapAlt != nil {
		return c.overlapAlt
	}
	return c.overlap
}

// offerOverlapWith records that the calls emit makes write the operator's
// output over input in safely at minShift; they replace the operator's
// calls when the pair is overlapped. emit must use the constants the
// operator's own calls use, so that no constant is stored twice.
func (c *opCtx) offerOverlapWith(in, minShift int, emit func()) {
	own, nScratch := c.calls, len(c.scratch)
	c.calls = nil
	emit()
	c.overlap = &overlapOffer{in: in, minShift: minShift, calls: c.calls, scratch: slices.Clone(c.scratch[nScratch:])}
	c.calls, c.scratch = own, c.scratch[:nScratch]
}

// rasterWindowShift is the smallest distance (bytes from the output's
// start to the input's) at which a kernel writing pixels in raster order
// (batch, row, column), each pixel's outC elements of outSize bytes, never
// overwrites input a later read needs. The kernel works on blocks of block
// consecutive columns of a row (the last block of a row may be short).
// With readFirst it reads all the block's input windows before it writes
// any of its pixels (convGatherInt8: pairs). Otherwise (dw3x3Int8, a
// depthwise kernel of int8 elements, inC == outC) it goes channel by
// channel: it reads channel c of the block's windows, then writes channel c
// of the block's pixels. The input is NHWC with elements of inSize bytes;
// a pixel's window is fH x fW taps at stride and dilation, shifted by the
// padding, clipped to the image.
func rasterWindowShift(g convFastGeom, inSize, outSize, block int, readFirst bool) int {
	pixels := g.batches * g.outH * g.outW
	const none = int(^uint(0) >> 1)
	minAddr := make([]int, pixels) // lowest input byte each pixel reads
	start := make([]int, pixels)   // first pixel of each pixel's block
	end := make([]int, pixels)     // first pixel after it
	img := g.inH * g.inW * g.inC * inSize
	k := 0
	for b := 0; b < g.batches; b++ {
		for oy := 0; oy < g.outH; oy++ {
			for ox := 0; ox < g.outW; ox++ {
				iy0, ix0 := oy*g.strideH-g.padH, ox*g.strideW-g.padW
				iy, ix := max(iy0, 0), max(ix0, 0)
				if iy >= min(iy0+(g.fH-1)*g.dilH+1, g.inH) || ix >= min(ix0+(g.fW-1)*g.dilW+1, g.inW) {
					minAddr[k] = none
				} else {
					minAddr[k] = b*img + (iy*g.inW+ix)*g.inC*inSize
				}
				s := ox / block * block
				start[k], end[k] = k-ox+s, k-ox+min(s+block, g.outW)
				k++
			}
		}
	}
	// suffix[j]: the lowest input byte pixels j and later read.
	suffix := make([]int, pixels+1)
	suffix[pixels] = none
	for j := pixels - 1; j >= 0; j-- {
		suffix[j] = min(suffix[j+1], minAddr[j])
	}
	shift := 0
	need := func(write, read int) { // a write at byte write before a read at byte read
		if read != none {
			shift = max(shift, write-read+1)
		}
	}
	for k := 0; k < pixels; k++ {
		lastByte := (k+1)*g.outC*outSize - 1
		if readFirst {
			need(lastByte, suffix[end[k]])
			continue
		}
		// Channel c of pixel k is written before channels c+1... of its
		// block's windows and everything after the block are read.
		need(lastByte, suffix[end[k]])
		if blockMin := minRange(minAddr, start[k], end[k]); blockMin != none && g.outC > 1 {
			// The write of channel c (byte kC+c) must stay below channel
			// c+1 of the block's lowest window (blockMin+c+1): for every
			// c < C-1 that is kC - blockMin + 1.
			need(k*g.outC, blockMin+1)
		}
	}
	return shift
}

func minRange(v []int, from, to int) int {
	m := v[from]
	for _, x := range v[from+1 : to] {
		m = min(m, x)
	}
	return m
}

// tieOverlaps ties, for each operator that offers an overlap, its dying
// input's buffer to its output's buffer. The input must be read last by
// that operator and not be a graph output or state; the output must be
// born there. Consecutive pairs chain (an output overwritten in turn by
// the next operator's output): the planner places a chain as one block.
func tieOverlaps(frags []*Fragment, p *program.Program, ops, alt map[int]bool) map[int]bool {
	tied := map[int]bool{}
	hasTie, tiedTo := map[program.BufID]bool{}, map[program.BufID]bool{}
	for _, f := range frags {
		c := f.c
		if !ops[c.Op.Index] {
			continue
		}
		bi, bo, ok := overlapPair(p, c)
		if !ok || hasTie[bi] || tiedTo[bo] {
			continue
		}
		ib := &p.Buffers[bi]
		o := c.offer(alt)
		shift := planner.AlignedSize(o.minShift, 0)
		ib.Tie = &planner.Tie{To: int(bo), Shift: shift}
		hasTie[bi], tiedTo[bo] = true, true
		tied[c.Op.Index] = true
		p.Overlaps = append(p.Overlaps, program.Overlap{Op: c.Op.Index, In: bi, Out: bo, MinShift: o.minShift})
	}
	return tied
}

// overlapPair returns the buffers of the input and output an operator
// offers to overlap in program p, ok when the pair is possible there: the
// input is an activation read last by the operator and not a graph output,
// the output an activation born there, in a buffer of its own.
func overlapPair(p *program.Program, c *opCtx) (in, out program.BufID, ok bool) {
	if c.overlap == nil || len(c.Op.Outputs) != 1 {
		return 0, 0, false
	}
	in, ok1 := p.TensorBuf[c.Op.Inputs[c.overlap.in]]
	out, ok2 := p.TensorBuf[c.Op.Outputs[0]]
	if !ok1 || !ok2 || in == out || p.IsGraphOutput(in) {
		return 0, 0, false
	}
	ib, ob := p.Buffers[in], p.Buffers[out]
	if ib.Kind != planner.Activation || ob.Kind != planner.Activation || ib.Last != c.Op.Index || ob.First != c.Op.Index {
		return 0, 0, false
	}
	return in, out, true
}

// Op is the index of the fragment's operator.
func (f *Fragment) Op() int { return f.c.Op.Index }

// OffersOverlap reports whether the operator's kernel can write its output
// over a dying input (offerOverlap).
func (f *Fragment) OffersOverlap() bool { return f.c.overlap != nil }

// OffersOverlapAlt reports whether the operator has a second way to do so
// (offerOverlapAlt), which Options.OverlapAlt chooses.
func (f *Fragment) OffersOverlapAlt() bool { return f.c.overlapAlt != nil }

// OverlapShift is the smallest distance in bytes from the output's start
// to the input's at which the first overlap offer is safe; 0 without one.
func (f *Fragment) OverlapShift() int {
	if f.c.overlap == nil {
		return 0
	}
	return f.c.overlap.minShift
}

// OverlapPair returns the buffers of the input and output the operator
// offers to overlap in p, ok when the pair is possible there (overlapPair).
func (f *Fragment) OverlapPair(p *program.Program) (in, out program.BufID, ok bool) {
	return overlapPair(p, f.c)
}

// TieOverlaps ties, in p, the buffers of the operators of ops that offer
// an overlap (their first offer) as Assemble does with Options.Overlap,
// and adds p.Overlaps for them: a program to plan a choice of overlaps
// without assembling it again. p's Buffers must be p's own copy.
func TieOverlaps(frags []*Fragment, p *program.Program, ops map[int]bool) {
	tieOverlaps(frags, p, ops, nil)
}
