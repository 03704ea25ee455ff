package kernels

import "unsafe"

// convGatherPWInt8 is convGatherInt8 for 1x1 filters without padding
// whose rows are a multiple of eight inputs (the generator's choice, in
// the build for gc, for a pointwise convolution written over its input):
// a pixel's window is then its input row, which the tiles
// (convPWGridPair and its variants) read where it lies instead of from a
// gathered copy, and the pair's outputs go to a stack buffer, copied out
// once the pair is done. Every read of a pixel pair's inputs thus still
// comes before the first write of the pair's outputs, in raster order: the
// overlap convGatherInt8 allows. Arguments, scratch and layout are
// convGatherInt8's; anything else (padding, other filters, an odd number
// of output channels, requantizations convPWQ does not compute exactly)
// runs as convGatherInt8.
func convGatherPWInt8(p *convRowsParams, in []int8, wt, rq string, scr []int32, out []int8) {
	N, K := p.outC, p.inC
	K8 := K / 8
	if p.filterH != 1 || p.filterW != 1 || K%8 != 0 || K8 == 0 || N%2 != 0 || N == 0 || N > convGatherMaxC ||
		K > convGatherMax || p.padH != 0 || p.padW != 0 || p.outW <= 0 || p.outH <= 0 || p.batches <= 0 ||
		(p.outH-1)*p.strideH >= p.inH || (p.outW-1)*p.strideW >= p.inW {
		convGatherInt8(p, in, wt, rq, scr, out)
		return
	}
	scr = scr[:convGatherScratch(K, N)]
	recs := unsafe.Slice((*convPWCh)(unsafe.Pointer(&scr[convGatherWinWords(K)])), N)
	if !convPWChDecode(rq, K, p.outOffset, p.actMin, recs) {
		convGatherInt8(p, in, wt, rq, scr, out)
		return
	}
	img := p.inH * p.inW * K
	row := p.outW * N
	in = in[:p.batches*img]
	out = out[:p.batches*p.outH*row]
	w := constI8(wt)[:N*K]
	var buf [3 * convGatherMaxC / 4]uint32 // word-aligned
	var g convPWRunArgs
	g.nb, g.K8, g.span, g.hi = N, K8, p.actMax-p.actMin, p.actMax
	g.pin, g.pwt, g.tp = unsafe.Pointer(unsafe.SliceData(in)), unsafe.Pointer(unsafe.SliceData(w)), unsafe.Pointer(&recs[0])
	g.pout = unsafe.Pointer(&buf[0])
	tile := 0 // convPWGridPair
	switch {
	case K8 == 2:
		tile = 1 // convPWGridPair16
	case K8%4 == 0:
		tile = 2 // convPWGridPairL
	}
	sx := p.strideW * K // from one pixel's row to the next's
	// Three pixels at a time on 32-bit cores (convPWGridTri: gc's twelve
	// ARM registers); 64-bit ones keep the pairs.
	tri3 := tile == 2 && !convPW64 && uintptr(g.pin)&3 == 0
	// Rows of W pixels: an image of stride 1 is one row (its pixels'
	// rows are contiguous, in and out).
	H, W := p.outH, p.outW
	if p.strideH == 1 && p.strideW == 1 {
		H, W = 1, p.outH*p.outW
		row = W * N
	}
	for b := 0; b < p.batches; b++ {
		for oy := 0; oy < H; oy++ {
			xa := b*img + oy*p.strideH*p.inW*K
			o := out[(b*H+oy)*row : (b*H+oy+1)*row]
			po := unsafe.Pointer(unsafe.SliceData(o))
			ox := 0
			if tri3 {
				ox, xa = convGatherPWTri(&g, po, xa, sx, W, &buf)
			}
			for ; ox < W; ox += 2 {
				g.xa, g.xb, g.oa, g.ob = xa, xa, 0, 0
				m := N
				if ox+1 < W {
					g.xb, g.ob, m = xa+sx, N, 2*N
				}
				switch tile {
				case 1:
					convPWGridPair16(&g)
				case 2:
					convPWGridPairL(&g)
				default:
					convPWGridPair(&g)
				}
				convGatherPWCopy(unsafe.Add(po, ox*N), &buf, m)
				xa += 2 * sx
			}
		}
	}
}

// convGatherPWTri runs convGatherPWInt8's row of W pixels whose rows start
// at g.pin + xa, sx bytes apart, with outputs at po, three pixels at a
// time (convPWGridTri, their rows copied into tri by convPWTriRows; the
// outputs go to buf, then to po), as long as more than four pixels are
// left (four left go as two pairs). It returns the first pixel left and
// the offset of its row.
func convGatherPWTri(g *convPWRunArgs, po unsafe.Pointer, xa, sx, W int, buf *[3 * convGatherMaxC / 4]uint32) (int, int) {
	var tri [3 * convGatherMax / 4]uint32 // word-aligned
	K, N := 8*g.K8, g.nb
	g.oa, g.ob, g.oc = 0, N, 2*N
	ox := 0
	for ; ox+3 <= W && W-ox != 4; ox += 3 {
		if g.K8%8 == 0 {
			convPWTriRows(unsafe.Add(g.pin, xa), sx, unsafe.Pointer(&tri), K, 64)
			convPWGridTri64(g, unsafe.Pointer(&tri))
		} else {
			convPWTriRows(unsafe.Add(g.pin, xa), sx, unsafe.Pointer(&tri), K, 32)
			convPWGridTri(g, unsafe.Pointer(&tri))
		}
		convGatherPWCopy(unsafe.Add(po, ox*N), buf, 3*N)
		xa += 3 * sx
	}
	return ox, xa
}

// convGatherPWCopy copies the first m bytes of buf (m even, at most
// len(buf)*4) to dst: a word at a time where dst is word-aligned and m a
// multiple of four, otherwise two bytes at a time.
func convGatherPWCopy(dst unsafe.Pointer, buf *[3 * convGatherMaxC / 4]uint32, m int) {
	if uintptr(dst)&3 == 0 && m&3 == 0 {
		for i := range buf[:m/4] {
			*(*uint32)(unsafe.Add(dst, 4*i)) = buf[i]
		}
		return
	}
	b := (*[3 * convGatherMaxC]int8)(unsafe.Pointer(buf))
	for i := 0; i < m; i += 2 {
		*(*[2]int8)(unsafe.Add(dst, i)) = [2]int8{b[i], b[i+1]}
	}
}
