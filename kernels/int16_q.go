package kernels

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// The 16x8 convolution and fully connected layer for the gc build where
// every channel's accumulator provably fits in 32 bits: its bias plus its
// weights' largest sum of products over int16 inputs lies in int32. The
// sums then wrap in uint32 and come out exact, with no widening, and the
// 64-bit rescale (mulByQuantMul64) is one 32x32->64-bit unsigned multiply:
//
// For a channel with reduced multiplier r and total shift t (16 <= t <=
// 32), let R = r<<(32-t). Then (acc*r + 2^(t-1)) >> t equals
// floor((acc*R + 2^31) / 2^32). The accumulator starts at bias+B (B >= 0
// chosen at generation time with B*R = 2^31 + m*2^32, m an integer, and
// acc+B in [0, 2^32) for every input): with u = acc+B, acc*R + 2^31 =
// u*R - m*2^32, so the result is the high word of u*R minus m.
//
// The weights and records are one constant, in blocks of four output
// channels (the last block padded with zero channels, their records all
// zero): a block is its four channels' initial sums (bias+B, uint32), its
// [k][4] int8 weights (the input value's four weights side by side), then
// the four channels' R and their m plus the activation minimum lo (uint32
// each), then hi-lo and the activation maximum hi: 4*k+int16QRecLen bytes.
// The kernel walks one pointer through a block.

// int16QRecLen is the bytes of a block's records (initial sums, R, m+lo,
// hi-lo, hi).
const int16QRecLen = 56

// int16QBuf is the most window values (filterH*filterW*inC) convInt16Q
// gathers (on the stack) for windows the image does not hold as one run.
const int16QBuf = 512

// int16QPlan returns the blocks (weights and records, see above) of the
// accumulate-in-32-bits kernels (convInt16Q, fcInt16Q) for channels with
// weight rows rows (all of one length), int64 biases (nil: none) and
// TFLite Micro multipliers and exponents, and whether those kernels take
// the layer: every channel's total shift 15-shift in [16, 32], its sums
// plus bias inside int32 for all int16 inputs, a B found, and no output
// offset. The outputs are clamped to [actMin, actMax] (int16 values).
func int16QPlan(rows [][]int8, bias []int64, mult, shift []int32, outOffset, actMin, actMax int32) (blocks []byte, ok bool) {
	if outOffset != 0 || len(rows) != len(mult) || len(shift) != len(mult) || len(mult) == 0 ||
		actMin > actMax || actMin < -32768 || actMax > 32767 {
		return nil, false
	}
	n := len(mult)
	k := len(rows[0])
	bl := 4*k + int16QRecLen
	blocks = make([]byte, (n+3)/4*bl)
	for at := 0; at < len(blocks); at += bl {
		for c := range 4 {
			binary.LittleEndian.PutUint32(blocks[at+32+4*k+4*c:], uint32(actMin))
		}
		binary.LittleEndian.PutUint32(blocks[at+48+4*k:], uint32(actMax-actMin))
		binary.LittleEndian.PutUint32(blocks[at+52+4*k:], uint32(actMax))
	}
	for j := range n {
		var b int64
		if bias != nil {
			b = bias[j]
		}
		if mult[j] < 0 || shift[j] > -1 || shift[j] < -17 {
			return nil, false
		}
		t := uint(15 - shift[j])
		reduced := int64(0x7FFF)
		if mult[j] < 0x7FFF0000 {
			reduced = (int64(mult[j]) + 1<<15) >> 16
		}
		R := uint64(reduced) << (32 - t)
		lo, hi := b, b
		for _, v := range rows[j] {
			p, q := int64(v)*-32768, int64(v)*32767
			lo, hi = lo+min(p, q), hi+max(p, q)
		}
		if lo < -1<<31 || hi > 1<<31-1 {
			return nil, false
		}
		// B: at least -lo, at most 2^32-1-hi, and B*R = 2^31 + m*2^32.
		need := uint64(0)
		if lo < 0 {
			need = uint64(-lo)
		}
		B, m := need, uint64(0)
		if R != 0 {
			e := uint(bits.TrailingZeros64(R))
			o := R >> e
			mod := uint64(1) << (32 - e)
			inv := uint64(1) // o^-1 mod 2^32 by Newton's iteration
			for range 5 {
				inv *= 2 - o*inv
			}
			B = (uint64(1) << (31 - e)) * inv % mod
			if B < need {
				B += (need - B + mod - 1) / mod * mod
			}
		}
		if int64(B)+hi > 1<<32-1 {
			return nil, false
		}
		if R != 0 {
			if B*R < 1<<31 || (B*R-1<<31)%(1<<32) != 0 {
				return nil, false
			}
			m = (B*R - 1<<31) >> 32
		}
		if len(rows[j]) != k {
			return nil, false
		}
		blk := blocks[j/4*bl:]
		c := j % 4
		binary.LittleEndian.PutUint32(blk[4*c:], uint32(uint64(b)+B))
		for i, v := range rows[j] {
			blk[16+4*i+c] = byte(v)
		}
		binary.LittleEndian.PutUint32(blk[16+4*k+4*c:], uint32(R))
		binary.LittleEndian.PutUint32(blk[32+4*k+4*c:], uint32(m)+uint32(actMin))
	}
	return blocks, true
}

// q4I16 computes one block of four output channels (at w, see above) for
// one input row of k int16 values at x: the sums start at the block's
// initial values, are rescaled, clamped and stored at out.
// Not inlined, a block a call: with few values live, gc keeps the sums,
// the pointers and the count in registers.
//
//go:noinline
func q4I16(x, w, out unsafe.Pointer, k int) {
	s := (*[4]uint32)(w)
	a0, a1, a2, a3 := s[0], s[1], s[2], s[3]
	w = unsafe.Add(w, 16)
	// The k%4 first values one at a time, then four a step: k is not
	// live past the loops (gc would reload it every step).
	for h := k & 3; h > 0; h-- {
		q := (*[4]int8)(w)
		u := uint32(*(*int16)(x))
		a0 += u * uint32(q[0])
		a1 += u * uint32(q[1])
		a2 += u * uint32(q[2])
		a3 += u * uint32(q[3])
		x, w = unsafe.Add(x, 2), unsafe.Add(w, 4)
	}
	// The weights' end ends the loop: no count to keep (with one, gc
	// spills the weights pointer every step).
	for we := unsafe.Add(w, 16*(k>>2)); w != we; {
		p, q := (*[4]int16)(x), (*[16]int8)(w)
		u := uint32(p[0])
		a0 += u * uint32(q[0])
		a1 += u * uint32(q[1])
		a2 += u * uint32(q[2])
		a3 += u * uint32(q[3])
		u = uint32(p[1])
		a0 += u * uint32(q[4])
		a1 += u * uint32(q[5])
		a2 += u * uint32(q[6])
		a3 += u * uint32(q[7])
		u = uint32(p[2])
		a0 += u * uint32(q[8])
		a1 += u * uint32(q[9])
		a2 += u * uint32(q[10])
		a3 += u * uint32(q[11])
		u = uint32(p[3])
		a0 += u * uint32(q[12])
		a1 += u * uint32(q[13])
		a2 += u * uint32(q[14])
		a3 += u * uint32(q[15])
		x, w = unsafe.Add(x, 8), unsafe.Add(w, 16)
	}
	r, o := (*[10]uint32)(w), (*[4]int16)(out)
	d, hi := int32(r[8]), int32(r[9])
	o[0] = int16(clampQ(int32(uint32(uint64(a0)*uint64(r[0])>>32)-r[4]), d, hi))
	o[1] = int16(clampQ(int32(uint32(uint64(a1)*uint64(r[1])>>32)-r[5]), d, hi))
	o[2] = int16(clampQ(int32(uint32(uint64(a2)*uint64(r[2])>>32)-r[6]), d, hi))
	o[3] = int16(clampQ(int32(uint32(uint64(a3)*uint64(r[3])>>32)-r[7]), d, hi))
}

// clampQ returns v clamped to [lo, hi] without branches, given t = v-lo
// (|v| < 2^30), d = hi-lo >= 0 and hi.
func clampQ(t, d, hi int32) int32 {
	t &^= t >> 31
	t = d - t
	t &^= t >> 31
	return hi - t
}

// q4I16Row runs q4I16 over the blocks for the n = len(o) output channels
// of one input row x of k values: the full blocks in place, a last
// partial block through a stack row.
func q4I16Row(x []int16, k int, w string, o []int16) {
	n := len(o)
	bl := 4*k + int16QRecLen
	blocks := (n + 3) / 4
	// One bounds check a row; q4I16 reads through unsafe.Add.
	_ = x[k-1]
	_ = w[bl*blocks-1]
	px, pw, po := unsafe.Pointer(unsafe.SliceData(x)), unsafe.Pointer(unsafe.StringData(w)), unsafe.Pointer(unsafe.SliceData(o))
	for range n / 4 {
		q4I16(px, pw, po, k)
		pw, po = unsafe.Add(pw, bl), unsafe.Add(po, 8)
	}
	if tail := n % 4; tail > 0 {
		var t [4]int16
		q4I16(px, pw, unsafe.Pointer(&t), k)
		copy(o[n-tail:], t[:tail])
	}
}

// fcInt16Q is fcInt16 for layers int16QPlan takes, on its blocks.
func fcInt16Q(p *fcParams, in []int16, w string, out []int16) {
	k, n := p.accumDepth, p.outDepth
	if k <= 0 || n <= 0 {
		return
	}
	for b := 0; b < p.batches; b++ {
		q4I16Row(in[b*k:b*k+k], k, w, out[b*n:b*n+n])
	}
}

// convInt16Q is convInt16 for an ungrouped convolution int16QPlan takes,
// on its blocks (weights [fy][fx][c][4] int8 a block). A
// window inside the image whose values are one run (a 1x1 filter, or
// window rows spanning whole image rows) is read in place; any other
// window (at most int16QBuf values) is gathered into a stack row, zeros
// for its padding taps.
func convInt16Q(p *convParams, in []int16, w string, out []int16) {
	cin := p.inC
	inRow := p.inW * cin
	inImg := p.inH * inRow
	fRow := p.filterW * cin
	k := p.filterH * fRow
	if k <= 0 || p.outC <= 0 {
		return
	}
	run := (p.filterW == 1 || p.dilationW == 1) && (p.filterH == 1 || p.dilationH == 1 && fRow == inRow)
	var buf [int16QBuf]int16
	o := 0
	for b := 0; b < p.batches; b++ {
		img := in[b*inImg : (b+1)*inImg]
		for oy := 0; oy < p.outH; oy++ {
			iy0 := oy*p.strideH - p.padH
			rowsIn := iy0 >= 0 && iy0+(p.filterH-1)*p.dilationH < p.inH
			for ox := 0; ox < p.outW; ox++ {
				ix0 := ox*p.strideW - p.padW
				var x []int16
				if rowsIn && ix0 >= 0 && ix0+(p.filterW-1)*p.dilationW < p.inW && (run || p.dilationW == 1) {
					at := iy0*inRow + ix0*cin
					if run {
						x = img[at : at+k]
					} else {
						// Inside the image, rows of fRow values: one
						// copy a row.
						x = buf[:k]
						for fy := 0; fy < p.filterH; fy++ {
							copyI16(x[fy*fRow:fy*fRow+fRow], img[at+fy*p.dilationH*inRow:])
						}
					}
				} else {
					x = buf[:k]
					convInt16QGather(p, img, iy0, ix0, x)
				}
				q4I16Row(x, k, w, out[o:o+p.outC])
				o += p.outC
			}
		}
	}
}

// convInt16QGather writes the window at (iy0, ix0) of img into x, [fy][fx][c]
// order, zeros for taps outside the image.
func convInt16QGather(p *convParams, img []int16, iy0, ix0 int, x []int16) {
	cin := p.inC
	inRow := p.inW * cin
	fRow := p.filterW * cin
	for fy := 0; fy < p.filterH; fy++ {
		row := x[fy*fRow : fy*fRow+fRow]
		iy := iy0 + fy*p.dilationH
		if iy < 0 || iy >= p.inH {
			zeroI16(row)
			continue
		}
		src := img[iy*inRow : iy*inRow+inRow]
		if p.dilationW == 1 {
			fx0, fx1 := convTaps(ix0, 1, p.filterW, p.inW)
			// Loops inline for short runs (rows of a few values).
			i := 0
			if fx0*cin >= 16 {
				clear(row[:fx0*cin])
				i = fx0 * cin
			}
			for ; i < fx0*cin; i++ {
				row[i] = 0
			}
			if fx1 > fx0 {
				copyI16(row[fx0*cin:fx1*cin], src[(ix0+fx0)*cin:])
				i = fx1 * cin
			}
			if fRow-i >= 16 {
				clear(row[i:])
				i = fRow
			}
			for ; i < fRow; i++ {
				row[i] = 0
			}
			continue
		}
		for fx := 0; fx < p.filterW; fx++ {
			d := row[fx*cin : fx*cin+cin]
			ix := ix0 + fx*p.dilationW
			if ix < 0 || ix >= p.inW {
				zeroI16(d)
				continue
			}
			copy(d, src[ix*cin:ix*cin+cin])
		}
	}
}

// copyI16 copies len(d) values of s to d: copy's memmove for long runs,
// a loop for short ones (a call costs more than a few values).
func copyI16(d, s []int16) {
	if len(d) >= 16 {
		copy(d, s)
		return
	}
	s = s[:len(d)]
	for j := range d {
		d[j] = s[j]
	}
}

// zeroI16 zeroes d: clear's memclr for long runs, a loop for short ones.
func zeroI16(d []int16) {
	if len(d) >= 16 {
		clear(d)
		return
	}
	for j := range d {
		d[j] = 0
	}
}
