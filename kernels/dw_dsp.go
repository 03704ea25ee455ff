package kernels

import "unsafe"

// Int8 DEPTHWISE_CONV_2D on the DSP extension (dsp.go explains the three
// files: this one, dw_dsp_arm.go's Thumb-2 loops and dw_dsp_go.go's Go
// twins), for any filter size, stride and dilation and depth multipliers
// 1, 2 and multiples of four.
//
// The output channels go in groups of four (the last group of a layer
// whose channel count is not a multiple of four overlaps the one before:
// it ends at the last channel, and its first channels are computed twice,
// alike). One "item" of the loops is one group of one output pixel: its
// four sums start at the records' folded biases, add two taps at a time,
// each tap's input value and weight widened to 16-bit halves, a pair of
// taps of a channel in one word, so that one SMLAD adds both products;
// then the four sums are requantized (dwDSPQ: one SMMLAR), clamped two at
// a time (USUB16 and SEL against the span) and stored as one word. Taps are read through a table in the scratch of one
// pointer per tap: tap t of an item reads at tab[t] + bc, bc an offset
// that advances from item to item. The pixels of a row whose window lies
// inside the image share the table of the first of them (bc: the input
// channel, then the horizontal stride's bytes per pixel) and run group by
// group; a pixel whose window reaches into the padding gets a table of its
// own, whose padded taps point at zrow (the input zero point, which the
// folded bias cancels), and runs its groups (bc: their input channels).
//
// One input channel with a depth multiplier that is a multiple of eight
// (dwDSPInt8Q8) goes eight output channels an item, four adjacent taps of
// a filter row a table entry (one word load), the weights widened at
// generation time: for a pixel whose window, its rows' taps rounded up to
// four, does not lie inside the image, a quad in a padded row reads four
// bytes of the zero point, and one partly outside the image's columns a
// copy in the scratch, padded with the zero point.

// dwDSPParams describes a depthwise convolution for dwDSPInt8M1 (depth
// multiplier 1), dwDSPInt8M2 (2) and dwDSPInt8MQ (a multiple of four).
type dwDSPParams struct {
	batches              int
	inH, inW, inC        int
	filterH, filterW     int
	outH, outW, outC     int
	depthMul             int
	strideH, strideW     int
	dilationH, dilationW int
	padH, padW           int   // padding before the first row / column
	span, hi             int32 // actMax - actMin, actMax
}

// dwDSPArgs is the argument block of the depthwise DSP loops, words in
// this order (the assembly reads them by offset and with LDM/STM).
type dwDSPArgs struct {
	bc    uintptr        // 0: the first item's offset added to the tap pointers
	w     unsafe.Pointer // 4: the first item's weights (dwDSPPlan's layout)
	rec   unsafe.Pointer // 8: the first item's records (dwDSPRecs)
	out   unsafe.Pointer // 12: the first item's four output bytes
	dbc   int32          // 16: advance of bc per item, in bytes
	dw    int32          // 20: of w
	drec  int32          // 24: of rec
	dout  int32          // 28: of out
	n     int32          // 32: items, at least one
	np    int32          // 36: tap pairs, at least one
	span2 uint32         // 40: actMax - actMin in both halves
	lo4   uint32         // 44: actMin in all four bytes
	tab   unsafe.Pointer // 48: 2*np tap pointers (stored as uintptr): tap t of an item reads at tab[t] + bc
}

// dwDSPArgsWords is the scratch, in int32 words, of a dwDSPArgs (enough
// for 64-bit hosts too; a test checks it).
const dwDSPArgsWords = 18

// dwDSPPairs is the number of tap pairs of a filter of taps taps.
func dwDSPPairs(taps int) int { return (taps + 1) / 2 }

// dwDSPPtrWords is the scratch, in int32 words, of a table entry (a
// pointer: enough for 64-bit hosts too).
const dwDSPPtrWords = 2

// dwDSPScratch is the scratch of the dwDSP kernels for an fH x fW filter,
// in int32 words: the argument block and the table (2*np pointers).
func dwDSPScratch(fH, fW int) int { return dwDSPArgsWords + 2*dwDSPPairs(fH*fW)*dwDSPPtrWords }

// dwDSPRecBytes is the size of the records of a group of four channels
// (dwDSPRecs).
const dwDSPRecBytes = 4 * dwDSPRecChan

// dwDSPRecChan is the size of a channel's requantization record: its
// folded bias, multiplier and addend (int32 each) and its right shift (a
// byte). A group's records are its channels' biases, then multipliers,
// then addends, then shifts.
const dwDSPRecChan = 13

// dwDSPQ requantizes the sum v (the folded bias included) of a channel
// with multiplier m, addend k and right shift r, as the Thumb-2 loops do,
// and returns the result less actMin, clamped to [0, span]: with X =
// 2*v*m, TFLM's rounding doubling high multiply is floor((X + 2^31) /
// 2^32) (SMMLAR of 2v and m adds k to it: k = 2^(r-1) + (zo - actMin)*2^r,
// the rounding right shift's half and the output zero point less actMin
// moved before the shift), its rounding right shift subtracts one for v <
// 0 (as convPWQ explains), and the two floors merge. |v| < 2^30, so 2v is
// an int32; the sum is below 2^31 in magnitude.
func dwDSPQ(v, m, k int32, r uint8, span int32) int32 {
	y := int32(uint64(int64(2*v)*int64(m)+1<<31)>>32) + k + v>>31
	y >>= r & 31
	y &^= y >> 31
	return min(y, span)
}

// dwDSPRec returns record k of the records at rec of a group of n
// channels (dwDSPRecChan).
func dwDSPRec(rec unsafe.Pointer, k, n int) (bias, m, kk int32, r uint8) {
	b := unsafe.Slice((*byte)(rec), n*dwDSPRecChan)
	return le32((*[4]byte)(b[4*k : 4*k+4])), le32((*[4]byte)(b[4*(n+k) : 4*(n+k)+4])),
		le32((*[4]byte)(b[4*(2*n+k) : 4*(2*n+k)+4])), b[12*n+k]
}

// dwDSPRecs returns the records (dwDSPRecChan) of the channels whose
// requantization triples (conv_rq.go: folded bias, multiplier, shift) are
// rq, for sums of taps products, output zero point zo and activation
// minimum lo, in groups of g channels (starting at g*i, the last one at
// n-g), ok false when dwDSPQ would not be exact for every sum: a right
// shift of 1 to 21 and |bias| + taps*2^14 < 2^30 (convPWChDecode's test).
func dwDSPRecs(rq []byte, taps int, zo, lo int32, g int) ([]byte, bool) {
	n := len(rq) / 12
	t := make([]convPWCh, n)
	if n < g || !convPWChDecode(string(rq), taps, zo, lo, t) {
		return nil, false
	}
	var out []byte
	for i := 0; i < (n+g-1)/g; i++ {
		s := min(g*i, n-g)
		grp := t[s : s+g]
		for _, c := range grp {
			out = binary32(out, uint32(c.bias-1<<30))
		}
		for _, c := range grp {
			out = binary32(out, c.m2/2)
		}
		for _, c := range grp {
			out = binary32(out, uint32(1)<<(c.r-1)+uint32(zo-lo)<<c.r)
		}
		for _, c := range grp {
			out = append(out, byte(c.r))
		}
	}
	return out, true
}

// binary32 appends v little-endian.
func binary32(b []byte, v uint32) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
}

// The loops' ways of reading a tap's input for the four channels of a
// group (dwDSPItemsRef's mode).
const (
	dwDSPM1 = iota // depth multiplier 1: four consecutive input channels
	dwDSPM2        // 2: two input channels, each for two outputs
	dwDSPMQ        // a multiple of four: one input channel for all four
)

// dwDSPItemsRef is the depthwise DSP loop in Go (dwDSPRunM1Ref and its
// twins): for each of g.n items, the four sums start at the records'
// biases; for each tap pair j the taps' input values (mode: the four
// bytes at the tap's address for dwDSPM1, bytes 0, 0, 1, 1 for dwDSPM2,
// byte 0 for all four for dwDSPMQ) times the pair's weights (a word per
// two channels: channel 2h's tap 2j, channel 2h+1's tap 2j, then the same
// for tap 2j+1) are added; each sum is requantized by dwDSPQ and stored;
// then bc, w, rec and out advance.
func dwDSPItemsRef(g *dwDSPArgs, mode int) {
	np := int(g.np)
	tab := unsafe.Slice((*unsafe.Pointer)(g.tab), 2*np)
	span := int32(g.span2 & 0xffff)
	lo := int32(int8(g.lo4))
	bc, w, rec, out := g.bc, g.w, g.rec, g.out
	for i := 0; i < int(g.n); i++ {
		if i > 0 {
			bc, w, rec, out = bc+uintptr(g.dbc), unsafe.Add(w, g.dw), unsafe.Add(rec, g.drec), unsafe.Add(out, g.dout)
		}
		var s [4]int32
		for k := range s {
			s[k], _, _, _ = dwDSPRec(rec, k, 4)
		}
		ws := unsafe.Slice((*int8)(w), 8*np)
		for j := 0; j < np; j++ {
			pa, pb := unsafe.Add(tab[2*j], bc), unsafe.Add(tab[2*j+1], bc)
			for k := range s {
				lane := k
				switch mode {
				case dwDSPM2:
					lane = k / 2
				case dwDSPMQ:
					lane = 0
				}
				xa, xb := int32(*(*int8)(unsafe.Add(pa, lane))), int32(*(*int8)(unsafe.Add(pb, lane)))
				q := 8*j + 4*(k/2) + k%2
				s[k] += xa*int32(ws[q]) + xb*int32(ws[q+2])
			}
		}
		o := (*[4]int8)(out)
		for k := range o {
			_, m, kk, r := dwDSPRec(rec, k, 4)
			o[k] = int8(lo + dwDSPQ(s[k], m, kk, r, span))
		}
	}
}

// dwDSPRunM1Ref is dwDSPRunM1 in Go: dwDSPItemsRef, depth multiplier 1.
func dwDSPRunM1Ref(g *dwDSPArgs) { dwDSPItemsRef(g, dwDSPM1) }

// dwDSPRunM2Ref is dwDSPRunM2 in Go: dwDSPItemsRef, depth multiplier 2.
func dwDSPRunM2Ref(g *dwDSPArgs) { dwDSPItemsRef(g, dwDSPM2) }

// dwDSPRunMQRef is dwDSPRunMQ in Go: dwDSPItemsRef, one input channel for
// the group.
func dwDSPRunMQRef(g *dwDSPArgs) { dwDSPItemsRef(g, dwDSPMQ) }

// dwDSPPlan lays out the weights and records of the dwDSP kernels: rows
// holds each output channel's taps (row by row), rq the requantization
// triples (conv_rq.go) with the bias folded for input offset -zp. For each
// group of four output channels (starting at 4g, the last one at outC-4),
// the np tap pairs' two words (dwDSPItemsRef), and the channels' records
// (dwDSPRecs). ok is false with fewer than four output channels or a
// requantization dwDSPQ would not compute exactly.
func dwDSPPlan(rows [][]int8, rq []byte, zo, lo int32) (wt, rec []byte, ok bool) {
	n := len(rows)
	if n < 4 || len(rows[0]) == 0 {
		return nil, nil, false
	}
	T := len(rows[0])
	rec, ok = dwDSPRecs(rq, T, zo, lo, 4)
	if !ok {
		return nil, nil, false
	}
	np := dwDSPPairs(T)
	for g := 0; g < (n+3)/4; g++ {
		s := min(4*g, n-4)
		for j := 0; j < np; j++ {
			for h := 0; h < 2; h++ {
				for t := 2 * j; t < 2*j+2; t++ {
					for k := 2 * h; k < 2*h+2; k++ {
						v := int8(0)
						if t < T {
							v = rows[s+k][t]
						}
						wt = append(wt, byte(v))
					}
				}
			}
		}
	}
	return wt, rec, true
}

// dwDSPRun is what the dwDSP kernels share: the argument block, the table,
// and the layer's constants.
type dwDSPRun struct {
	g      *dwDSPArgs
	tab    []uintptr // the table's pointers
	np, G  int       // tap pairs; groups
	xl, xr int       // the output columns whose windows lie inside the image's columns
	img    int       // bytes of an input image
	zrow   uintptr
	wb, rb unsafe.Pointer
}

// dwDSPSetup checks the operands' sizes and fills d for the kernels with
// groups of four channels: the argument block's constant fields and the
// interior columns. It reports false when there is nothing to compute.
func dwDSPSetup(d *dwDSPRun, p *dwDSPParams, in []int8, wt, rec, zrow string, scr []int32, out []int8) bool {
	T := p.filterH * p.filterW
	if p.batches <= 0 || p.outH <= 0 || p.outW <= 0 || p.outC < 4 || T <= 0 || p.inC <= 0 {
		return false
	}
	np := dwDSPPairs(T)
	G := (p.outC + 3) / 4
	d.np, d.G = np, G
	d.img = p.inH * p.inW * p.inC
	_ = in[p.batches*d.img-1]
	_ = out[p.batches*p.outH*p.outW*p.outC-1]
	_ = wt[G*8*np-1]
	_ = rec[G*dwDSPRecBytes-1]
	_ = zrow[p.inC-1]
	scr = scr[:dwDSPScratch(p.filterH, p.filterW)]
	d.g = (*dwDSPArgs)(unsafe.Pointer(&scr[0]))
	d.tab = unsafe.Slice((*uintptr)(unsafe.Pointer(&scr[dwDSPArgsWords])), 2*np)
	d.zrow = uintptr(unsafe.Pointer(unsafe.StringData(zrow)))
	d.wb, d.rb = unsafe.Pointer(unsafe.StringData(wt)), unsafe.Pointer(unsafe.StringData(rec))
	d.xl, d.xr = dwDSPInterior(p, p.filterW)
	g := d.g
	g.np = int32(np)
	dspSetPtr(&g.tab, unsafe.Pointer(&d.tab[0]))
	g.span2 = uint32(p.span) | uint32(p.span)<<16
	g.lo4 = uint32(uint8(p.hi-p.span)) * 0x01010101
	return true
}

// dwDSPInterior returns the output columns [xl, xr) whose windows, fW
// taps wide, lie inside the image's columns (xl = xr when there are none).
func dwDSPInterior(p *dwDSPParams, fW int) (xl, xr int) {
	xl = (p.padW + p.strideW - 1) / p.strideW
	last := p.inW - 1 - (fW-1)*p.dilationW + p.padW // the last window origin inside, plus padW
	xr = 0
	if last >= 0 {
		xr = last/p.strideW + 1
	}
	xr = min(xr, p.outW)
	xl = min(xl, xr)
	return xl, xr
}

// dwDSPRowInside reports whether the windows of output rows starting at
// input row iy0 lie inside the image's rows.
func dwDSPRowInside(p *dwDSPParams, iy0 int) bool {
	return iy0 >= 0 && iy0+(p.filterH-1)*p.dilationH < p.inH
}

// dwDSPTable fills the table with the pointers to the taps (channel 0) of
// the window at (iy0, ix0) of image x, d.zrow for the taps in the padding.
func dwDSPTable(d *dwDSPRun, p *dwDSPParams, x []int8, iy0, ix0 int) {
	t := d.tab
	x0 := uintptr(unsafe.Pointer(&x[0]))
	j := 0
	for kh := 0; kh < p.filterH; kh++ {
		iy := iy0 + kh*p.dilationH
		for kw := 0; kw < p.filterW; kw++ {
			ix := ix0 + kw*p.dilationW
			v := d.zrow
			if iy >= 0 && iy < p.inH && ix >= 0 && ix < p.inW {
				v = x0 + uintptr((iy*p.inW+ix)*p.inC)
			}
			t[j] = v
			j++
		}
	}
	if j < len(t) {
		t[j] = t[j-1]
	}
}

// dwDSPInner sets d.g for the interior pixels [xl, xr) of an output row
// (its first pixel at output pixel index px), group gi (first channel s,
// input channel cin); the table holds the first pixel's taps.
func dwDSPInner(d *dwDSPRun, p *dwDSPParams, out []int8, px, gi, s, cin int) {
	g := d.g
	g.bc = uintptr(cin)
	dspSetPtr(&g.w, unsafe.Add(d.wb, gi*8*d.np))
	dspSetPtr(&g.rec, unsafe.Add(d.rb, gi*dwDSPRecBytes))
	dspSetPtr(&g.out, unsafe.Pointer(&out[(px+d.xl)*p.outC+s]))
	g.dbc, g.dw, g.drec, g.dout = int32(p.strideW*p.inC), 0, 0, int32(p.outC)
	g.n = int32(d.xr - d.xl)
}

// dwDSPGroups sets d.g for n groups from gi on (first channel s, input
// channel cin, each next group dbc input channels further) of output pixel
// index px, whose table dwDSPTable built.
func dwDSPGroups(d *dwDSPRun, p *dwDSPParams, out []int8, px, gi, n, s, cin, dbc int) {
	g := d.g
	g.bc = uintptr(cin)
	dspSetPtr(&g.w, unsafe.Add(d.wb, gi*8*d.np))
	dspSetPtr(&g.rec, unsafe.Add(d.rb, gi*dwDSPRecBytes))
	dspSetPtr(&g.out, unsafe.Pointer(&out[px*p.outC+s]))
	g.dbc, g.dw, g.drec, g.dout = int32(dbc), int32(8*d.np), dwDSPRecBytes, 4
	g.n = int32(n)
}

// dwDSPInt8M1 is the int8 depthwise convolution with depth multiplier 1
// (at least four channels) on the DSP loop dwDSPRunM1. wt and rec are
// dwDSPPlan's, zrow holds inC bytes of the input zero point, scr
// dwDSPScratch words (8-byte aligned). Output rows are computed in order;
// in a row, the padded pixels left of the interior each group by group,
// then the interior pixels group by group, then the padded pixels right of
// them (dwDSPShift replays this order).
func dwDSPInt8M1(p *dwDSPParams, in []int8, wt, rec, zrow string, scr []int32, out []int8) {
	var d dwDSPRun
	if !dwDSPSetup(&d, p, in, wt, rec, zrow, scr, out) {
		return
	}
	C, G := p.outC, d.G
	full := C / 4
	for b := 0; b < p.batches; b++ {
		x := in[b*d.img : b*d.img+d.img]
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			px := (b*p.outH + oy) * p.outW
			xl, xr := 0, 0
			if dwDSPRowInside(p, iy0) {
				xl, xr = d.xl, d.xr
			}
			for ox := 0; ox < p.outW; ox++ {
				dwDSPTable(&d, p, x, iy0, ox*p.strideW-p.padW)
				if ox == xl && xl < xr {
					for gi := 0; gi < G; gi++ {
						s := min(4*gi, C-4)
						dwDSPInner(&d, p, out, px, gi, s, s)
						dwDSPRunM1(d.g)
					}
					ox = xr - 1
					continue
				}
				dwDSPGroups(&d, p, out, px+ox, 0, full, 0, 0, 4)
				dwDSPRunM1(d.g)
				if full < G {
					dwDSPGroups(&d, p, out, px+ox, G-1, 1, C-4, C-4, 0)
					dwDSPRunM1(d.g)
				}
			}
		}
	}
}

// dwDSPInt8M2 is dwDSPInt8M1 for depth multiplier 2 (at least two input
// channels) on dwDSPRunM2: a group's channels read two input channels.
func dwDSPInt8M2(p *dwDSPParams, in []int8, wt, rec, zrow string, scr []int32, out []int8) {
	var d dwDSPRun
	if !dwDSPSetup(&d, p, in, wt, rec, zrow, scr, out) {
		return
	}
	C, G := p.outC, d.G
	full := C / 4
	for b := 0; b < p.batches; b++ {
		x := in[b*d.img : b*d.img+d.img]
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			px := (b*p.outH + oy) * p.outW
			xl, xr := 0, 0
			if dwDSPRowInside(p, iy0) {
				xl, xr = d.xl, d.xr
			}
			for ox := 0; ox < p.outW; ox++ {
				dwDSPTable(&d, p, x, iy0, ox*p.strideW-p.padW)
				if ox == xl && xl < xr {
					for gi := 0; gi < G; gi++ {
						s := min(4*gi, C-4)
						dwDSPInner(&d, p, out, px, gi, s, s/2)
						dwDSPRunM2(d.g)
					}
					ox = xr - 1
					continue
				}
				dwDSPGroups(&d, p, out, px+ox, 0, full, 0, 0, 2)
				dwDSPRunM2(d.g)
				if full < G {
					dwDSPGroups(&d, p, out, px+ox, G-1, 1, C-4, (C-4)/2, 0)
					dwDSPRunM2(d.g)
				}
			}
		}
	}
}

// dwDSPInt8MQ is dwDSPInt8M1 for a depth multiplier that is a multiple of
// four on dwDSPRunMQ: a group's channels all read one input channel; a
// padded pixel runs input channel by input channel.
func dwDSPInt8MQ(p *dwDSPParams, in []int8, wt, rec, zrow string, scr []int32, out []int8) {
	var d dwDSPRun
	if !dwDSPSetup(&d, p, in, wt, rec, zrow, scr, out) {
		return
	}
	M, G := p.depthMul, d.G
	q := M / 4
	for b := 0; b < p.batches; b++ {
		x := in[b*d.img : b*d.img+d.img]
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			px := (b*p.outH + oy) * p.outW
			xl, xr := 0, 0
			if dwDSPRowInside(p, iy0) {
				xl, xr = d.xl, d.xr
			}
			for ox := 0; ox < p.outW; ox++ {
				dwDSPTable(&d, p, x, iy0, ox*p.strideW-p.padW)
				if ox == xl && xl < xr {
					for gi := 0; gi < G; gi++ {
						dwDSPInner(&d, p, out, px, gi, 4*gi, 4*gi/M)
						dwDSPRunMQ(d.g)
					}
					ox = xr - 1
					continue
				}
				for ic := 0; ic < p.inC; ic++ {
					dwDSPGroups(&d, p, out, px+ox, ic*q, q, ic*M, ic, 0)
					dwDSPRunMQ(d.g)
				}
			}
		}
	}
}

// dwDSPShift is the least distance (bytes) the input of a dwDSP kernel
// (dwDSPInt8Q8 when q8) may start above its output when the output is
// written over the input: the kernel's order of items replayed
// (dwDSPInt8M1), every item reading its taps' input bytes before it writes
// its output bytes, and no write may reach the input that a later item
// reads. With depth multiplier 1 the distance is a multiple of the
// channels, so that a write of channel c can only reach input channel c:
// then only the reads of the written channel count (a group's writes
// never reach another group's input); a distance that is a larger
// multiple of the channels is safe too.
func dwDSPShift(p *dwDSPParams, q8 bool) int {
	var reads, writes, groups []int // per item in order: lowest input byte read (-1: none), highest output byte written, group
	gw, G, fW := 4, (p.outC+3)/4, p.filterW
	if q8 {
		gw, G, fW = 8, p.outC/8, 4*dwDSPQuads(p.filterW)
	}
	xl, xr := dwDSPInterior(p, fW)
	for b := 0; b < p.batches; b++ {
		for oy := 0; oy < p.outH; oy++ {
			l, r := 0, 0
			if q8 || dwDSPRowInside(p, oy*p.strideH-p.padH) {
				l, r = xl, xr
			}
			for ox := 0; ox < p.outW; ox++ {
				if ox == l && l < r {
					for gi := 0; gi < G; gi++ {
						for x := l; x < r; x++ {
							reads, writes = append(reads, dwDSPItemRead(p, b, oy, x, gi, gw)), append(writes, dwDSPItemWrite(p, b, oy, x, gi, gw))
							groups = append(groups, gi)
						}
					}
					ox = r - 1
					continue
				}
				for gi := 0; gi < G; gi++ {
					reads, writes = append(reads, dwDSPItemRead(p, b, oy, ox, gi, gw)), append(writes, dwDSPItemWrite(p, b, oy, ox, gi, gw))
					groups = append(groups, gi)
				}
			}
		}
	}
	if p.depthMul != 1 {
		shift, suffix := 0, -1
		for i := len(reads) - 1; i >= 0; i-- {
			if suffix >= 0 {
				shift = max(shift, writes[i]-suffix+1)
			}
			if r := reads[i]; r >= 0 && (suffix < 0 || r < suffix) {
				suffix = r
			}
		}
		return shift
	}
	// Channel by channel: a write of channel c at output byte w and a read
	// of channel c at input byte r, both c plus a multiple of C, need
	// shift > w - r; the least multiple of C is then above the largest
	// w - r over all channels.
	C := p.outC
	suffix := make([]int, C) // per channel: the lowest byte later items read, -1: none
	for c := range suffix {
		suffix[c] = -1
	}
	k := 0 // the largest (w - r) / C + 1 over all channels
	for i := len(reads) - 1; i >= 0; i-- {
		s := min(4*groups[i], C-4)
		for c := s; c < s+4; c++ {
			w := writes[i] - 3 + c - s
			if suffix[c] >= 0 {
				k = max(k, (w-suffix[c])/C+1)
			}
			if r := reads[i]; r >= 0 && (suffix[c] < 0 || r+c-s < suffix[c]) {
				suffix[c] = r + c - s
			}
		}
	}
	return k * C
}

// dwDSPItemRead is the lowest input byte that the item of group gi (of
// gw channels) of output pixel (b, oy, ox) reads, -1 when all its taps are
// in the padding.
func dwDSPItemRead(p *dwDSPParams, b, oy, ox, gi, gw int) int {
	iy := dwDSPFirstTap(oy*p.strideH-p.padH, p.dilationH, p.filterH, p.inH)
	ix := dwDSPFirstTap(ox*p.strideW-p.padW, p.dilationW, p.filterW, p.inW)
	if iy < 0 || ix < 0 {
		return -1
	}
	s := min(gw*gi, p.outC-gw)
	c := s // the group's lowest input channel
	switch {
	case p.depthMul == 2:
		c = s / 2
	case p.depthMul > 2:
		c = s / p.depthMul
	}
	return ((b*p.inH+iy)*p.inW+ix)*p.inC + c
}

// dwDSPItemWrite is the highest output byte that the item of group gi (of
// gw channels) of output pixel (b, oy, ox) writes.
func dwDSPItemWrite(p *dwDSPParams, b, oy, ox, gi, gw int) int {
	return ((b*p.outH+oy)*p.outW+ox)*p.outC + min(gw*gi, p.outC-gw) + gw - 1
}

// dwDSPFirstTap is the first of taps positions o0, o0+dil, ... inside
// [0, size), -1 when there is none.
func dwDSPFirstTap(o0, dil, taps, size int) int {
	for k := 0; k < taps; k++ {
		if o := o0 + k*dil; o >= 0 && o < size {
			return o
		}
	}
	return -1
}

// dwDSPQuads is the number of quads (four adjacent taps) of a filter row
// of fW taps.
func dwDSPQuads(fW int) int { return (fW + 3) / 4 }

// dwDSPZerosQ8 is the length of dwDSPInt8Q8's zero row for outW output
// columns at horizontal stride sW: a quad's four bytes, and as many more as
// a row's pixels advance.
func dwDSPZerosQ8(outW, sW int) int { return 4 + max(outW-1, 0)*sW }

// dwDSPQ8RecBytes is the size of the records of a dwDSPInt8Q8 group
// (dwDSPRecs).
const dwDSPQ8RecBytes = 8 * dwDSPRecChan

// dwDSPScratchQ8 is dwDSPInt8Q8's scratch for an fH x fW filter, in int32
// words: the argument block, the table (a pointer per quad) and a word per
// quad for a padded pixel's quads partly outside the image.
func dwDSPScratchQ8(fH, fW int) int {
	nq := fH * dwDSPQuads(fW)
	return dwDSPArgsWords + nq*dwDSPPtrWords + nq
}

// dwDSPRunQ8Ref is dwDSPRunQ8 in Go: for each of g.n items, eight sums
// from the records' biases; for each of g.np quads, the four bytes at the
// quad's pointer plus bc, x0..x3, times the quad's 16 weight words (for
// each channel, x0 and x2's int16 weights in one word, then x1 and x3's)
// are added; the sums are requantized by dwDSPQ and stored; then bc, w, rec
// and out advance.
func dwDSPRunQ8Ref(g *dwDSPArgs) {
	nq := int(g.np)
	tab := unsafe.Slice((*unsafe.Pointer)(g.tab), nq)
	span := int32(g.span2 & 0xffff)
	lo := int32(int8(g.lo4))
	bc, w, rec, out := g.bc, g.w, g.rec, g.out
	for i := 0; i < int(g.n); i++ {
		if i > 0 {
			bc, w, rec, out = bc+uintptr(g.dbc), unsafe.Add(w, g.dw), unsafe.Add(rec, g.drec), unsafe.Add(out, g.dout)
		}
		var s [8]int32
		for k := range s {
			s[k], _, _, _ = dwDSPRec(rec, k, 8)
		}
		ws := unsafe.Slice((*[2]byte)(w), 32*nq)
		for j := 0; j < nq; j++ {
			x := (*[4]int8)(unsafe.Add(tab[j], bc))
			for k := range s {
				q := 32*j + 4*k
				for t, at := range [4]int{0, 2, 1, 3} {
					v := ws[q+t]
					s[k] += int32(x[at]) * int32(int16(uint16(v[0])|uint16(v[1])<<8))
				}
			}
		}
		o := (*[8]int8)(out)
		for k := range o {
			_, m, kk, r := dwDSPRec(rec, k, 8)
			o[k] = int8(lo + dwDSPQ(s[k], m, kk, r, span))
		}
	}
}

// dwDSPPlanQ8 lays out the weights and records of dwDSPInt8Q8 for an fH x
// fW filter: rows holds each output channel's taps (row by row), rq the
// requantization triples (conv_rq.go) with the bias folded for input
// offset -zp. For each group of eight output channels, each quad of each
// filter row (the row's taps rounded up to four with zero weights), the
// channels' two words of int16 weights (dwDSPRunQ8Ref), and the channels'
// records (dwDSPRecs). ok is false unless the channels are a multiple of
// eight and dwDSPQ computes every requantization exactly.
func dwDSPPlanQ8(rows [][]int8, fH, fW int, rq []byte, zo, lo int32) (wt, rec []byte, ok bool) {
	n := len(rows)
	if n == 0 || n%8 != 0 || fH*fW != len(rows[0]) {
		return nil, nil, false
	}
	rec, ok = dwDSPRecs(rq, fH*fW, zo, lo, 8)
	if !ok {
		return nil, nil, false
	}
	nqw := dwDSPQuads(fW)
	for g := 0; g < n/8; g++ {
		for kh := 0; kh < fH; kh++ {
			for q := 0; q < nqw; q++ {
				for c := 8 * g; c < 8*g+8; c++ {
					for _, at := range [4]int{0, 2, 1, 3} {
						v := int16(0)
						if kw := 4*q + at; kw < fW {
							v = int16(rows[c][kh*fW+kw])
						}
						wt = append(wt, byte(v), byte(uint16(v)>>8))
					}
				}
			}
		}
	}
	return wt, rec, true
}

// dwDSPInt8Q8 is the int8 depthwise convolution of one input channel with
// a depth multiplier that is a multiple of eight (no horizontal dilation)
// on the DSP loop dwDSPRunQ8: the output channels in groups of eight, the
// taps four adjacent ones at a time. wt and rec are dwDSPPlanQ8's, zrow
// holds dwDSPZerosQ8 bytes of the input zero point, scr dwDSPScratchQ8
// words (8-byte aligned). Output rows are computed in order; in a row,
// each pixel whose window's columns (its rows' taps rounded up to four)
// do not lie inside the image group by group, and the others group by
// group, all pixels of a group in turn (dwDSPShift replays this order).
func dwDSPInt8Q8(p *dwDSPParams, in []int8, wt, rec, zrow string, scr []int32, out []int8) {
	fH, nqw := p.filterH, dwDSPQuads(p.filterW)
	W4, nq := 4*nqw, fH*nqw
	if p.batches <= 0 || p.outH <= 0 || p.outW <= 0 || p.outC < 8 || p.inC != 1 || nq <= 0 {
		return
	}
	G := p.outC / 8
	img := p.inH * p.inW
	_ = in[p.batches*img-1]
	_ = out[p.batches*p.outH*p.outW*p.outC-1]
	_ = wt[G*64*nq-1]
	_ = rec[G*dwDSPQ8RecBytes-1]
	dxl, dxr := dwDSPInterior(p, W4)
	// The zero row is read by the interior pixels of a row too, item by
	// item further.
	zr := uintptr(unsafe.Pointer(unsafe.StringData(zrow[:4+max(dxr-dxl-1, 0)*p.strideW])))
	zw := uint32(uint8(zrow[0])) * 0x01010101
	scr = scr[:dwDSPScratchQ8(fH, p.filterW)]
	g := (*dwDSPArgs)(unsafe.Pointer(&scr[0]))
	tab := unsafe.Slice((*uintptr)(unsafe.Pointer(&scr[dwDSPArgsWords])), nq)
	win := unsafe.Slice((*uint32)(unsafe.Pointer(&scr[dwDSPArgsWords+nq*dwDSPPtrWords])), nq)
	wb, rb := unsafe.Pointer(unsafe.StringData(wt)), unsafe.Pointer(unsafe.StringData(rec))
	g.np = int32(nq)
	dspSetPtr(&g.tab, unsafe.Pointer(&tab[0]))
	g.span2 = uint32(p.span) | uint32(p.span)<<16
	g.lo4 = uint32(uint8(p.hi-p.span)) * 0x01010101
	for b := 0; b < p.batches; b++ {
		x := in[b*img : b*img+img]
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			px := (b*p.outH + oy) * p.outW
			xl, xr := dxl, dxr // a padded row's quads read the zero row
			for ox := 0; ox < p.outW; ox++ {
				ix0 := ox*p.strideW - p.padW
				if ox == xl && xl < xr {
					dwDSPQuadTable(tab, win, x, p, iy0, ix0, nqw, zr, zw)
					for gi := 0; gi < G; gi++ {
						g.bc = 0
						dspSetPtr(&g.w, unsafe.Add(wb, gi*64*nq))
						dspSetPtr(&g.rec, unsafe.Add(rb, gi*dwDSPQ8RecBytes))
						dspSetPtr(&g.out, unsafe.Pointer(&out[(px+xl)*p.outC+8*gi]))
						g.dbc, g.dw, g.drec, g.dout, g.n = int32(p.strideW), 0, 0, int32(p.outC), int32(xr-xl)
						dwDSPRunQ8(g)
					}
					ox = xr - 1
					continue
				}
				dwDSPQuadTable(tab, win, x, p, iy0, ix0, nqw, zr, zw)
				g.bc = 0
				dspSetPtr(&g.w, wb)
				dspSetPtr(&g.rec, rb)
				dspSetPtr(&g.out, unsafe.Pointer(&out[(px+ox)*p.outC]))
				g.dbc, g.dw, g.drec, g.dout, g.n = 0, int32(64*nq), dwDSPQ8RecBytes, 8, int32(G)
				dwDSPRunQ8(g)
			}
		}
	}
}

// dwDSPQuadTable fills tab with the pointers to the quads (four adjacent
// taps, nqw a filter row) of the window at (iy0, ix0) of the one-channel
// image x: into x for a quad inside the image, zr (four zero points) for a
// quad in a padded row, a word of win (the quad's bytes inside the image,
// padded with zw's zero points) for a quad partly inside.
//
//go:noinline
func dwDSPQuadTable(tab []uintptr, win []uint32, x []int8, p *dwDSPParams, iy0, ix0, nqw int, zr uintptr, zw uint32) {
	n, inW := p.filterH*nqw, p.inW
	tab, win = tab[:n], win[:n]
	x0, w0 := uintptr(unsafe.Pointer(&x[0])), uintptr(unsafe.Pointer(&win[0]))
	i, iy := 0, iy0
	for kh := 0; kh < p.filterH; kh++ {
		if uint(iy) >= uint(p.inH) {
			for q := 0; q < nqw; q++ {
				tab[i] = zr
				i++
			}
			iy += p.dilationH
			continue
		}
		r, ix := iy*inW, ix0
		for q := 0; q < nqw; q++ {
			switch {
			case ix >= 0 && ix <= inW-4:
				tab[i] = x0 + uintptr(r+ix)
			case inW >= 4 && ix < 0 && ix > -4:
				// The row's first word, shifted in after zero points.
				sh := uint(-ix) * 8
				win[i] = uint32(le32((*[4]byte)(unsafe.Pointer(&x[r]))))<<sh | zw>>(32-sh)
				tab[i] = w0 + uintptr(4*i)
			case inW >= 4 && ix > inW-4 && ix < inW:
				// The row's last word, shifted out before zero points.
				sh := uint(ix+4-inW) * 8
				win[i] = uint32(le32((*[4]byte)(unsafe.Pointer(&x[r+inW-4]))))>>sh | zw<<(32-sh)
				tab[i] = w0 + uintptr(4*i)
			default:
				v := zw
				for j := 0; j < 4; j++ {
					if c := ix + j; uint(c) < uint(inW) {
						v = v&^(0xff<<(8*j)) | uint32(uint8(x[r+c]))<<(8*j)
					}
				}
				win[i] = v
				tab[i] = w0 + uintptr(4*i)
			}
			i++
			ix += 4
		}
		iy += p.dilationH
	}
}
