package kernels

import (
	"encoding/binary"
	"math/rand"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// Tests of the specialised int8 convolution kernels: each must equal the
// reference-order kernel (convInt8 / dwInt8, which TestConvInt8,
// TestConvReference and friends check against TFLM) bit for bit.

// convTRQ builds the requantization triples the lowering emits
// (conv_rq.go) from the bias ("" for none), the per-channel multipliers and
// exponents as strings, the per-channel weight sums and the input offset.
func convTRQ(bias, mult, shift string, wsum []int32, inOffset int32) string {
	b := make([]byte, 12*len(wsum))
	for c := range wsum {
		var bv int32
		if bias != "" {
			bv = ld32(bias, c)
		}
		binary.LittleEndian.PutUint32(b[12*c:], uint32(bv+inOffset*wsum[c]))
		binary.LittleEndian.PutUint32(b[12*c+4:], uint32(ld32(mult, c)))
		binary.LittleEndian.PutUint32(b[12*c+8:], uint32(ld32(shift, c)))
	}
	return string(b)
}

// convTRQSet fills one record through convRQLoad.
func convTRQSet(r []int64, folded, mult int32, shift int) {
	convRQLoad(convTI32s([]int32{folded, mult, int32(shift)}), r)
}

// convTRandI8 returns n pseudo-random int8 values.
func convTRandI8(r *rand.Rand, n int) []int8 {
	v := make([]int8, n)
	for i := range v {
		v[i] = int8(r.Intn(256) - 128)
	}
	return v
}

// convTRandQ returns random per-channel bias, multipliers and exponents.
func convTRandQ(r *rand.Rand, n int) (bias, mult, shift string) {
	b := make([]int32, n)
	m := make([]int32, n)
	s := make([]int32, n)
	for i := range b {
		b[i] = int32(r.Intn(40001) - 20000)
		m[i] = int32(1<<30 + r.Intn(1<<30))
		s[i] = int32(r.Intn(26) - 20)
	}
	return convTI32s(b), convTI32s(m), convTI32s(s)
}

// convTRandQRight is convTRandQ with right shifts of 1 to 21 only, the
// requantizations convPWQ takes (convPWChDecode), so that the tile kernels
// (convPWGrid, convPWRunK8, convGatherGrid) run instead of their
// fallbacks.
func convTRandQRight(r *rand.Rand, n int) (bias, mult, shift string) {
	b := make([]int32, n)
	m := make([]int32, n)
	s := make([]int32, n)
	for i := range b {
		b[i] = int32(r.Intn(40001) - 20000)
		m[i] = int32(1<<30 + r.Intn(1<<30))
		s[i] = -int32(1 + r.Intn(21))
	}
	return convTI32s(b), convTI32s(m), convTI32s(s)
}

// convTPWSums sums each output channel's weights of a [outC][k] filter.
func convTPWSums(filter []int8, outC int) []int32 {
	k := len(filter) / outC
	s := make([]int32, outC)
	for c := range s {
		for _, w := range filter[c*k : (c+1)*k] {
			s[c] += int32(w)
		}
	}
	return s
}

// convTPWLayout stores a [outC][k] filter as the matrix kernels want it:
// uint8 w+128, rows padded with 128 to a multiple of four.
func convTPWLayout(filter []int8, outC int) string {
	k := len(filter) / outC
	b := make([]byte, (outC+3)/4*4*k)
	for i := range b {
		b[i] = 128
	}
	for i, v := range filter {
		b[i] = byte(int(v) + 128)
	}
	return string(b)
}

// convTPWPairs stores a [outC][k] filter as convPWInt8 wants it: for each
// pair of output channels (the missing one zero), for each group of eight
// columns the first channel's weights then the second's, then the k%8
// last columns as (first, second) pairs.
func convTPWPairs(filter []int8, outC int) string {
	k := len(filter) / outC
	w := func(oc, i int) byte {
		if oc >= outC {
			return 0
		}
		return byte(filter[oc*k+i])
	}
	var b []byte
	for ob := 0; ob < outC; ob += 2 {
		for g := 0; g+8 <= k; g += 8 {
			for j := 0; j < 2; j++ {
				for i := g; i < g+8; i++ {
					b = append(b, w(ob+j, i))
				}
			}
		}
		for i := k / 8 * 8; i < k; i++ {
			b = append(b, w(ob, i), w(ob+1, i))
		}
	}
	return string(b)
}

// convTRQScale is the rescale the kernels inline (conv_rq.go):
// mulByQuantMul(acc + folded bias, multiplier, shift) for record r.
func convTRQScale(acc int32, r []int64) int32 {
	x := int64((acc+int32(r[0]))<<(uint64(r[2])&31)) * r[1]
	return int32((x + r[4] - (x+1<<30)>>63&r[5]) >> (uint64(r[3]) & 63))
}

// TestConvRQScale compares the merged-rounding rescale with mulByQuantMul on
// edge and random accumulators, multipliers and exponents.
func TestConvRQScale(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	accs := []int32{0, 1, -1, 2, -2, 3, -3, 1 << 30, -1 << 30, 1<<31 - 1, -1 << 31, 12345, -12345}
	mults := []int32{0, 1, 1 << 30, 1<<31 - 1, 1518500250, 1073741825}
	for i := 0; i < 40000; i++ {
		accs = append(accs, int32(r.Uint32())>>uint(r.Intn(31)))
	}
	for i := 0; i < 50; i++ {
		mults = append(mults, int32(r.Uint32()>>1))
	}
	for _, m := range mults {
		for sh := -31; sh <= 31; sh++ {
			rec := make([]int64, convRQLen)
			convTRQSet(rec, 0, m, sh)
			for i, a := range accs {
				if i > 40 && (i+sh)%13 != 0 {
					continue
				}
				if got, want := convTRQScale(a, rec), mulByQuantMul(a, m, sh); got != want {
					t.Fatalf("acc %d mult %d shift %d: got %d, want %d", a, m, sh, got, want)
				}
			}
			// The folded bias is added in wrapping int32 arithmetic first.
			convTRQSet(rec, 1<<31-1, m, sh)
			if got, want := convTRQScale(5, rec), mulByQuantMul(-1<<31+4, m, sh); got != want {
				t.Fatalf("wrapped bias, mult %d shift %d: got %d, want %d", m, sh, got, want)
			}
		}
	}
}

// convTPWShapes are person_detect's pointwise layers (pixels, inC, outC)
// plus odd sizes that exercise the pixel and channel tails.
var convTPWShapes = [][3]int{
	{2304, 8, 16}, {576, 16, 32}, {576, 32, 32}, {144, 32, 64}, {144, 64, 64},
	{36, 64, 128}, {36, 128, 128}, {9, 128, 256}, {9, 256, 256}, {1, 256, 2},
	{7, 5, 7}, {3, 1, 1}, {5, 300, 6}, {4, 9000, 3},
	// convPWRunK8 and convPWTile: odd pixel counts, blocks of convPWBlk
	// channels with odd and even tails, rows of odd and even groups.
	{5, 8, 16}, {7, 8, 18}, {3, 8, 34}, {9, 8, 7}, {5, 16, 17}, {7, 24, 33}, {3, 40, 20}, {1, 8, 2},
	// convPWGridTri and convPWGridTri64 (rows of 32 and 64 columns a
	// step): pixel counts of each remainder modulo three, rows up to
	// convPWTriK and just beyond it.
	{7, 32, 6}, {8, 64, 34}, {10, 96, 4}, {4, 128, 18}, {5, 256, 2}, {11, 160, 20}, {6, 192, 8}, {5, 288, 4},
}

// TestConvPWInt8 checks the pointwise kernel against convInt8 on random
// tensors, including zero points at the int8 limits and narrow clamps.
func TestConvPWInt8(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for _, sh := range convTPWShapes {
		for _, zp := range []int32{-128, -1, 0, 127, -128 + 256, -1 + 256} {
			// The last two are -128 and -1 again with right shifts only:
			// the tile kernels' path.
			right := zp > 127
			if right {
				zp -= 256
			}
			px, k, n := sh[0], sh[1], sh[2]
			in := convTRandI8(r, px*k)
			filter := convTRandI8(r, n*k)
			bias, mult, shift := convTRandQ(r, n)
			if right {
				bias, mult, shift = convTRandQRight(r, n)
			}
			lo, hi := int32(-128), int32(127)
			if zp == -1 {
				lo, hi = -100, 50
			}
			cp := &convParams{batches: 1, inH: 1, inW: px, inC: k, filterH: 1, filterW: 1, filterC: k,
				outH: 1, outW: px, outC: n, groupOutC: n, strideH: 1, strideW: 1, dilationH: 1, dilationW: 1,
				inOffset: -zp, outOffset: zp / 2, actMin: lo, actMax: hi}
			want := make([]int8, px*n)
			convInt8(cp, in, filter, bias, mult, shift, want)
			pp := &convPWParams{pixels: px, inC: k, outC: n, outOffset: zp / 2, actMin: lo, actMax: hi}
			got := make([]int8, px*n)
			rq := convTRQ(bias, mult, shift, convTPWSums(filter, n), -zp)
			if right && k < 1<<12 && !convPWChDecode(rq, k, pp.outOffset, lo, make([]convPWCh, n)) {
				t.Fatalf("%v zp %d: right shifts only, but convPWQ is not exact", sh, zp)
			}
			convPWInt8(pp, in, convTPWPairs(filter, n), rq, make([]int32, convPWScratch(pp.outC)), got)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%v zp %d: output %d is %d, want %d", sh, zp, i, got[i], want[i])
				}
			}
			// The input one byte past a word boundary (convPWGridTri's
			// word copies are then not taken).
			odd := make([]int8, len(in)+1)[1:]
			copy(odd, in)
			clear(got)
			convPWInt8(pp, odd, convTPWPairs(filter, n), rq, make([]int32, convPWScratch(pp.outC)), got)
			if !slices.Equal(got, want) {
				t.Fatalf("%v zp %d, input at an odd address: %v, want %v", sh, zp, got, want)
			}
		}
	}
}

// convTWinCase is a random convolution geometry for TestConvWinInt8.
type convTWinCase struct {
	b, inH, inW, inC, fH, fW, outC, sH, sW, dH, dW int
	same                                           bool
}

// TestConvWinInt8 checks the gathered-window kernel against convInt8 on
// random tensors: SAME and VALID padding, strides, dilation, batches, zero
// points at the int8 limits and filters holding -128.
func TestConvWinInt8(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	cases := []convTWinCase{
		{1, 5, 7, 3, 3, 3, 5, 1, 1, 1, 1, true},
		{2, 6, 6, 2, 3, 3, 4, 2, 2, 1, 1, true},
		{1, 9, 8, 1, 4, 3, 6, 2, 3, 1, 1, true},
		{1, 7, 9, 2, 2, 2, 3, 1, 2, 2, 3, false},
		{1, 10, 10, 4, 5, 5, 9, 2, 2, 1, 1, true},
		{1, 3, 3, 30, 3, 3, 7, 1, 1, 1, 1, true},
		{1, 4, 5, 3, 1, 1, 2, 2, 2, 1, 1, true},
		{1, 3, 2, 2, 5, 5, 3, 1, 1, 1, 1, true},
		{1, 49, 40, 1, 10, 8, 8, 2, 2, 1, 1, true},
	}
	for ci, c := range cases {
		for _, zp := range []int32{-128, -5, 127} {
			oh := convTOutSize(c.same, c.inH, c.fH, c.sH, c.dH)
			ow := convTOutSize(c.same, c.inW, c.fW, c.sW, c.dW)
			cp := &convParams{batches: c.b, inH: c.inH, inW: c.inW, inC: c.inC, filterH: c.fH, filterW: c.fW,
				filterC: c.inC, outH: oh, outW: ow, outC: c.outC, groupOutC: c.outC, strideH: c.sH, strideW: c.sW,
				dilationH: c.dH, dilationW: c.dW, padH: convTPad(c.sH, c.dH, c.inH, c.fH, oh),
				padW: convTPad(c.sW, c.dW, c.inW, c.fW, ow), inOffset: -zp, outOffset: 3, actMin: -128, actMax: 127}
			in := convTRandI8(r, c.b*c.inH*c.inW*c.inC)
			filter := convTRandI8(r, c.outC*c.fH*c.fW*c.inC)
			bias, mult, shift := convTRandQ(r, c.outC)
			want := make([]int8, c.b*oh*ow*c.outC)
			convInt8(cp, in, filter, bias, mult, shift, want)
			wp := &convWinParams{batches: c.b, inH: c.inH, inW: c.inW, inC: c.inC, filterH: c.fH, filterW: c.fW,
				outH: oh, outW: ow, outC: c.outC, strideH: c.sH, strideW: c.sW, dilationH: c.dH, dilationW: c.dW,
				padH: cp.padH, padW: cp.padW, inZP: int64(zp), outOffset: 3, actMin: -128, actMax: 127}
			got := make([]int8, len(want))
			k := c.fH * c.fW * c.inC
			rq := convTRQ(bias, mult, shift, convTPWSums(filter, c.outC), -zp)
			convWinInt8(wp, in, convTPWLayout(filter, c.outC), rq, make([]int64, c.outC*convRQLen), make([]int64, k), got)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("case %d zp %d: output %d is %d, want %d", ci, zp, i, got[i], want[i])
				}
			}
		}
	}
}

// BenchmarkConvPW times the pointwise kernel on person_detect's shapes.
func BenchmarkConvPW(b *testing.B) {
	r := rand.New(rand.NewSource(3))
	for _, sh := range convTPWShapes[:10] {
		px, k, n := sh[0], sh[1], sh[2]
		in := convTRandI8(r, px*k)
		filter := convTRandI8(r, n*k)
		bias, mult, shift := convTRandQ(r, n)
		rq := convTRQ(bias, mult, shift, convTPWSums(filter, n), 128)
		pp := &convPWParams{pixels: px, inC: k, outC: n, outOffset: -128, actMin: -128, actMax: 127}
		wt := convTPWPairs(filter, n)
		out := make([]int8, px*n)
		b.Run(convTShapeName(sh), func(b *testing.B) {
			for b.Loop() {
				convPWInt8(pp, in, wt, rq, make([]int32, convPWScratch(pp.outC)), out)
			}
			b.ReportMetric(float64(px*k*n)*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "MAC/ns")
		})
		cp := &convParams{batches: 1, inH: 1, inW: px, inC: k, filterH: 1, filterW: 1, filterC: k,
			outH: 1, outW: px, outC: n, groupOutC: n, strideH: 1, strideW: 1, dilationH: 1, dilationW: 1,
			inOffset: 128, outOffset: -128, actMin: -128, actMax: 127}
		b.Run(convTShapeName(sh)+"/ref", func(b *testing.B) {
			for b.Loop() {
				convInt8(cp, in, filter, bias, mult, shift, out)
			}
			b.ReportMetric(float64(px*k*n)*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "MAC/ns")
		})
	}
}

// convTShapeName names a benchmark shape.
func convTShapeName(sh [3]int) string {
	return strconv.Itoa(sh[0]) + "x" + strconv.Itoa(sh[1]) + "x" + strconv.Itoa(sh[2])
}

// TestConvFastReference runs every int8 CONV_2D and DEPTHWISE_CONV_2D of
// the reference models through the specialised kernel the lowering picks
// (and, for pointwise layers, through the gathered-window kernel too) on
// the input TFLM recorded, and requires the recorded output bit for bit.
func TestConvFastReference(t *testing.T) {
	shared := convTSharedDir(t)
	for _, name := range []string{"person_detect", "micro_speech_quantized"} {
		g := convTModel(t, filepath.Join(shared, "models", name+".tflite"))
		for _, op := range g.Ops {
			if op.Code != model.OpConv2D && op.Code != model.OpDepthwiseConv2D {
				continue
			}
			t.Run(name+"/"+op.Describe(), func(t *testing.T) {
				in, filter, bias, out := g.Input(op, 0), g.Input(op, 1), g.Input(op, 2), g.Output(op, 0)
				x := convTBytesI8(convTRefTensor(t, shared, name, in.Index))
				want := convTBytesI8(convTRefTensor(t, shared, name, out.Index))
				w := convTBytesI8(filter.Data)
				var p *convParams
				var rows []int8 // [outC][K]
				var act quant.Activation
				if op.Code == model.OpConv2D {
					p, act = convTConvParams(t, g, op)
					rows = w
				} else {
					o := op.Options()
					same := o.Uint8(0, 0) == 0
					sw, sh := int(o.Int32(1, 0)), int(o.Int32(2, 0))
					dm := int(o.Int32(3, 0))
					act = quant.Activation(o.Uint8(4, 0))
					p = &convParams{batches: in.Shape[0], inH: in.Shape[1], inW: in.Shape[2], inC: in.Shape[3],
						filterH: filter.Shape[1], filterW: filter.Shape[2], filterC: 1,
						outH: out.Shape[1], outW: out.Shape[2], outC: out.Shape[3], strideH: sh, strideW: sw,
						dilationH: int(o.Int32(5, 1)), dilationW: int(o.Int32(6, 1))}
					p.padH = convTPad(sh, p.dilationH, p.inH, p.filterH, convTOutSize(same, p.inH, p.filterH, sh, p.dilationH))
					p.padW = convTPad(sw, p.dilationW, p.inW, p.filterW, convTOutSize(same, p.inW, p.filterW, sw, p.dilationW))
					if dm*p.inC != p.outC {
						t.Fatalf("depth multiplier %d", dm)
					}
					if dm == 1 {
						q := convTQuantFromOp(t, in, filter, out, act, p.outC, -128, 127)
						wt, sums := dwTRowsLayout(w, p.outC)
						rp := &dwRowsParams{batches: p.batches, inH: p.inH, inW: p.inW, chans: p.inC,
							filterH: p.filterH, filterW: p.filterW, outH: p.outH, outW: p.outW,
							strideH: sh, strideW: sw, dilationH: p.dilationH, dilationW: p.dilationW,
							padH: p.padH, padW: p.padW, inZP: int64(q.inZP), outOffset: q.outZP,
							actMin: q.actMin, actMax: q.actMax}
						T := (p.outW + 2) / 3
						got := make([]int8, len(want))
						dwRowsInt8(rp, x, wt, convTRQ(string(bias.Data), q.mult, q.shift, sums, -q.inZP),
							make([]int64, p.outC*convRQLen), make([]int64, p.filterH*p.outC*T*p.filterW),
							make([]int8, p.inC), got)
						convTNear(t, got, convTI32sOf(want), 0)
						return
					}
					if p.inC != 1 {
						t.Skipf("depthwise with %d input channels and multiplier %d has no fast kernel", p.inC, dm)
					}
					// One input channel: a convolution whose rows are the
					// filter's columns.
					taps := p.filterH * p.filterW
					rows = make([]int8, len(w))
					for oc := 0; oc < p.outC; oc++ {
						for k := 0; k < taps; k++ {
							rows[oc*taps+k] = w[k*p.outC+oc]
						}
					}
				}
				q := convTQuantFromOp(t, in, filter, out, act, p.outC, -128, 127)
				rq := convTRQ(string(bias.Data), q.mult, q.shift, convTPWSums(rows, p.outC), -q.inZP)
				wt := convTPWLayout(rows, p.outC)
				k := len(rows) / p.outC
				wp := &convWinParams{batches: p.batches, inH: p.inH, inW: p.inW, inC: p.inC,
					filterH: p.filterH, filterW: p.filterW, outH: p.outH, outW: p.outW, outC: p.outC,
					strideH: p.strideH, strideW: p.strideW, dilationH: p.dilationH, dilationW: p.dilationW,
					padH: p.padH, padW: p.padW, inZP: int64(q.inZP), outOffset: q.outZP, actMin: q.actMin, actMax: q.actMax}
				got := make([]int8, len(want))
				convWinInt8(wp, x, wt, rq, make([]int64, p.outC*convRQLen), make([]int64, k), got)
				convTNear(t, got, convTI32sOf(want), 0)
				if p.filterH == 1 && p.filterW == 1 && p.strideH == 1 && p.strideW == 1 {
					pp := &convPWParams{pixels: p.batches * p.outH * p.outW, inC: p.inC, outC: p.outC,
						outOffset: q.outZP, actMin: q.actMin, actMax: q.actMax}
					clear(got)
					convPWInt8(pp, x, convTPWPairs(rows, p.outC), rq, make([]int32, convPWScratch(pp.outC)), got)
					convTNear(t, got, convTI32sOf(want), 0)
				}
			})
		}
	}
}

// convTI32sOf widens int8 values.
func convTI32sOf(v []int8) []int32 {
	w := make([]int32, len(v))
	for i, x := range v {
		w[i] = int32(x)
	}
	return w
}

// BenchmarkConvWin times the gathered-window kernel on the depthwise layers
// with one input channel of person_detect (96x96x1, 3x3, stride 2, 8
// outputs) and micro_speech (49x40x1, 10x8, stride 2, 8 outputs), against
// dwInt8.
func BenchmarkConvWin(b *testing.B) {
	r := rand.New(rand.NewSource(7))
	for _, c := range []convTWinCase{
		{1, 96, 96, 1, 3, 3, 8, 2, 2, 1, 1, true},
		{1, 49, 40, 1, 10, 8, 8, 2, 2, 1, 1, true},
	} {
		oh := convTOutSize(true, c.inH, c.fH, c.sH, 1)
		ow := convTOutSize(true, c.inW, c.fW, c.sW, 1)
		dp := &dwParams{batches: 1, inH: c.inH, inW: c.inW, inC: 1, filterH: c.fH, filterW: c.fW,
			outH: oh, outW: ow, outC: c.outC, depthMul: c.outC, strideH: c.sH, strideW: c.sW, dilationH: 1, dilationW: 1,
			padH: convTPad(c.sH, 1, c.inH, c.fH, oh), padW: convTPad(c.sW, 1, c.inW, c.fW, ow),
			inOffset: 128, outOffset: -128, actMin: -128, actMax: 127}
		in := convTRandI8(r, c.inH*c.inW)
		filter := convTRandI8(r, c.fH*c.fW*c.outC)
		bias, mult, shift := convTRandQ(r, c.outC)
		taps := c.fH * c.fW
		rows := make([]int8, len(filter))
		for oc := 0; oc < c.outC; oc++ {
			for k := 0; k < taps; k++ {
				rows[oc*taps+k] = filter[k*c.outC+oc]
			}
		}
		wp := &convWinParams{batches: 1, inH: c.inH, inW: c.inW, inC: 1, filterH: c.fH, filterW: c.fW,
			outH: oh, outW: ow, outC: c.outC, strideH: c.sH, strideW: c.sW, dilationH: 1, dilationW: 1,
			padH: dp.padH, padW: dp.padW, inZP: -128, outOffset: -128, actMin: -128, actMax: 127}
		rq := convTRQ(bias, mult, shift, convTPWSums(rows, c.outC), 128)
		wt := convTPWLayout(rows, c.outC)
		rqs, xp := make([]int64, c.outC*convRQLen), make([]int64, taps)
		out := make([]int8, oh*ow*c.outC)
		name := strconv.Itoa(c.inH) + "x" + strconv.Itoa(c.inW) + "f" + strconv.Itoa(c.fH) + "x" + strconv.Itoa(c.fW)
		macs := float64(oh * ow * c.outC * taps)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				convWinInt8(wp, in, wt, rq, rqs, xp, out)
			}
			b.ReportMetric(macs*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "MAC/ns")
		})
		b.Run(name+"/ref", func(b *testing.B) {
			for b.Loop() {
				dwInt8(dp, in, filter, bias, mult, shift, out)
			}
			b.ReportMetric(macs*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "MAC/ns")
		})
	}
}

// TestConvPWOut compares convPWOut's 32-bit rescale with mulByQuantMul on
// edge and random accumulators, biases, multipliers and exponents.
func TestConvPWOut(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	accs := []int32{0, 1, -1, 2, -2, 3, -3, 1 << 30, -1 << 30, 1<<31 - 1, -1 << 31, 12345, -12345}
	mults := []int32{0, 1, 1 << 30, 1<<31 - 1, 1518500250, 1073741825}
	for i := 0; i < 20000; i++ {
		accs = append(accs, int32(r.Uint32())>>uint(r.Intn(31)))
	}
	for i := 0; i < 40; i++ {
		mults = append(mults, int32(r.Uint32()>>1))
	}
	for _, m := range mults {
		for sh := -31; sh <= 31; sh++ {
			for _, bias := range []int32{0, 1<<31 - 1, -77} {
				var q convPWRQ
				convPWRQLoad(convTI32s([]int32{bias, m, int32(sh)}), 0, &q)
				for i, a := range accs {
					if i > 40 && (i+sh)%11 != 0 {
						continue
					}
					want := int8(max(min(mulByQuantMul(a+bias, m, sh)+3, 100), -128))
					if got := convPWOut(a, &q, 3, -128, 100); got != want {
						t.Fatalf("acc %d bias %d mult %d shift %d: got %d, want %d", a, bias, m, sh, got, want)
					}
					if sh <= -2 {
						want := mulByQuantMul(a+bias, m, sh)
						if got := convRQR(a+bias, uint32(m), q.kh, q.rm1); got != want {
							t.Fatalf("convRQR: acc %d bias %d mult %d shift %d: got %d, want %d", a, bias, m, sh, got, want)
						}
					}
				}
			}
		}
	}
}

// TestConvRQRTies checks convRQR against mulByQuantMul where the rounding
// right shift meets exact ties (power-of-two multipliers, small
// accumulators of both signs) and at the int32 limits.
func TestConvRQRTies(t *testing.T) {
	vs := []int32{1<<31 - 1, -1 << 31, 1<<31 - 2, -1<<31 + 1, 1 << 30, -1 << 30}
	for v := int32(-4100); v <= 4100; v++ {
		vs = append(vs, v)
	}
	for _, m := range []int32{0, 1, 2, 1 << 29, 1 << 30, 3 << 29, 1<<31 - 1, 1<<30 + 1} {
		for sh := -31; sh <= -2; sh++ {
			var q convPWRQ
			convPWRQLoad(convTI32s([]int32{0, m, int32(sh)}), 0, &q)
			for _, v := range vs {
				if got, want := convRQR(v, uint32(m), q.kh, q.rm1), mulByQuantMul(v, m, sh); got != want {
					t.Fatalf("v %d mult %d shift %d: got %d, want %d", v, m, sh, got, want)
				}
				if sh < -23 {
					continue
				}
				// The output zero point added in the high word.
				for _, zo := range []int32{-128, -1, 1, 127, 128} {
					kh := q.kh + uint32(zo)<<q.rm1
					if got, want := convRQR(v, uint32(m), kh, q.rm1), mulByQuantMul(v, m, sh)+zo; got != want {
						t.Fatalf("v %d mult %d shift %d zo %d: got %d, want %d", v, m, sh, zo, got, want)
					}
				}
			}
		}
	}
}

// TestConvPWQ checks convPWQ (through convPWChDecode) against mulByQuantMul,
// the output zero point and the clamp where the rounding meets exact ties
// and at the bound |v| < 2^30 it relies on, for every right shift it takes.
func TestConvPWQ(t *testing.T) {
	vs := []int32{1<<30 - 1, -1<<30 + 1, 1<<29 + 12345, -1<<29 - 12345}
	for v := int32(-4100); v <= 4100; v++ {
		vs = append(vs, v)
	}
	r := rand.New(rand.NewSource(9))
	for i := 0; i < 2000; i++ {
		vs = append(vs, int32(r.Uint32())>>2>>uint(r.Intn(28)))
	}
	for _, m := range []int32{0, 1, 2, 1 << 29, 1 << 30, 3 << 29, 1<<31 - 1, 1<<30 + 1, 1518500250} {
		for sh := -21; sh <= -1; sh++ {
			for _, zp := range [][3]int32{{-128, -128, 127}, {-1, -100, 50}, {127, 127, 127}, {5, -128, 127}, {-128, -128, -128}} {
				var cs [1]convPWCh
				if !convPWChDecode(convTI32s([]int32{0, m, int32(sh)}), 1, zp[0], zp[1], cs[:]) {
					t.Fatalf("mult %d shift %d: not exact", m, sh)
				}
				c := &cs[0]
				span := zp[2] - zp[1]
				for _, v := range vs {
					want := int8(max(min(mulByQuantMul(v, m, sh)+zp[0], zp[2]), zp[1]))
					if got := int8(zp[2] - convPWQ(v+c.bias, c, span)); got != want {
						t.Fatalf("v %d mult %d shift %d zp %v: got %d, want %d", v, m, sh, zp, got, want)
					}
				}
			}
		}
	}
}
