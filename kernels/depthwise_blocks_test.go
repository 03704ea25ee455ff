package kernels

import (
	"encoding/binary"
	"math/rand"
	"testing"
)

// TestDwInt8Blocks: dwInt8Blocks (multiplier 1, channels a multiple of
// four) and dwInt8BlocksMul (multiplier 2, 4 or 8, any channel count)
// equal the reference dwInt8 bit for bit on random depthwise layers: the
// grid's filter shapes (KxK to 7x7, 1xK, Kx1, DS-CNN's 10x4), strides,
// dilations, SAME and VALID padding, batches, zero points and clamps.
func TestDwInt8Blocks(t *testing.T) {
	tests := []struct {
		name     string
		depthMul int
		chans    func(r *rand.Rand) int
		kernel   func(p *dwParams, in, filter []int8, rq string, out []int8)
	}{
		{"multiplier 1", 1, func(r *rand.Rand) int { return 4 * (1 + r.Intn(6)) }, dwInt8Blocks},
		{"multiplier 2", 2, func(r *rand.Rand) int { return 1 + r.Intn(9) }, dwInt8BlocksMul},
		{"multiplier 4", 4, func(r *rand.Rand) int { return 1 + r.Intn(5) }, dwInt8BlocksMul},
		{"multiplier 8", 8, func(r *rand.Rand) int { return 1 + r.Intn(4) }, dwInt8BlocksMul},
		{"multiplier 2, raster", 2, func(r *rand.Rand) int { return 1 + r.Intn(9) }, dwInt8BlocksMulRaster},
		{"multiplier 8, raster", 8, func(r *rand.Rand) int { return 1 + r.Intn(4) }, dwInt8BlocksMulRaster},
		{"multiplier 2, raster over its input", 2, func(r *rand.Rand) int { return 1 + r.Intn(9) }, dwRasterOverInput},
		{"multiplier 4, raster over its input", 4, func(r *rand.Rand) int { return 1 + r.Intn(5) }, dwRasterOverInput},
	}
	for k, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewSource(71 + int64(k)))
			for i := range 400 {
				dwBlocksCase(t, r, i, tc.depthMul, tc.chans(r), tc.kernel)
			}
		})
	}
}

// dwBlocksCase runs random layer i of inC input channels and multiplier
// dm through the reference dwInt8 and through kernel, with dwBlocksRQ's
// records, and compares.
func dwBlocksCase(t *testing.T, r *rand.Rand, i, dm, inC int, kernel func(p *dwParams, in, filter []int8, rq string, out []int8)) {
	t.Helper()
	filters := [][2]int{{3, 3}, {5, 5}, {7, 7}, {1, 3}, {3, 1}, {1, 9}, {9, 1}, {10, 4}, {2, 3}, {1, 1}}
	f := filters[i%len(filters)]
	c := dwTRowsCase{b: 1 + r.Intn(2), inH: 1 + r.Intn(12), inW: 1 + r.Intn(12), c: inC,
		fH: f[0], fW: f[1], sH: 1 + r.Intn(2), sW: 1 + r.Intn(2), dH: 1 + r.Intn(2), dW: 1 + r.Intn(2), same: r.Intn(2) == 0}
	oh := convTOutSize(c.same, c.inH, c.fH, c.sH, c.dH)
	ow := convTOutSize(c.same, c.inW, c.fW, c.sW, c.dW)
	if oh <= 0 || ow <= 0 {
		return
	}
	oc := inC * dm
	zp := int32(r.Intn(256) - 128)
	lo, hi := int32(-128), int32(127)
	if i%3 == 1 {
		lo, hi = int32(r.Intn(100)-128), int32(r.Intn(100))
	}
	dp := &dwParams{batches: c.b, inH: c.inH, inW: c.inW, inC: inC, filterH: c.fH, filterW: c.fW,
		outH: oh, outW: ow, outC: oc, depthMul: dm, strideH: c.sH, strideW: c.sW, dilationH: c.dH, dilationW: c.dW,
		padH: convTPad(c.sH, c.dH, c.inH, c.fH, oh), padW: convTPad(c.sW, c.dW, c.inW, c.fW, ow),
		inOffset: -zp, outOffset: int32(r.Intn(256) - 128), actMin: lo, actMax: hi}
	in := convTRandI8(r, c.b*c.inH*c.inW*inC)
	filter := convTRandI8(r, c.fH*c.fW*oc)
	bias, mult, shift := convTRandQ(r, oc)
	if i%5 == 2 {
		bias = ""
	}
	want, got := make([]int8, c.b*oh*ow*oc), make([]int8, c.b*oh*ow*oc)
	dwInt8(dp, in, filter, bias, mult, shift, want)
	var rq []byte
	for ch := range oc {
		var b int32
		if bias != "" {
			b = ld32(bias, ch)
		}
		q, ok := fcRQFor(ld32(mult, ch), int(ld32(shift, ch)))
		if !ok {
			t.Fatalf("case %d: channel %d's requantization has no record", i, ch)
		}
		rq = binary.LittleEndian.AppendUint32(rq, uint32(b))
		rq = binary.LittleEndian.AppendUint32(rq, uint32(q.mult))
		rq = binary.LittleEndian.AppendUint32(rq, uint32(int32(q.hi>>31)))
		rq = append(rq, uint8(q.sh), uint8(q.sh>>8), 0, 0)
	}
	kernel(dp, in, filter, string(rq), got)
	for j := range want {
		if got[j] != want[j] {
			t.Fatalf("case %d %+v multiplier %d: out[%d] = %d, dwInt8 gives %d", i, c, dm, j, got[j], want[j])
		}
	}
}

// dwRasterOverInput runs dwInt8BlocksMulRaster written over its input
// (rasterOverInput, groups of dwRasterPix pixels) and copies the output
// to out.
func dwRasterOverInput(p *dwParams, in, filter []int8, rq string, out []int8) {
	g := tRasterGeom{p.batches, p.inH, p.inW, p.inC, p.outH, p.outW, p.outC, p.filterH, p.filterW,
		p.strideH, p.strideW, p.dilationH, p.dilationW, p.padH, p.padW}
	rasterOverInput(g, dwRasterPix, in, out, func(in, out []int8) { dwInt8BlocksMulRaster(p, in, filter, rq, out) })
}

// tRasterGeom is a window kernel's geometry, for rasterOverInput.
type tRasterGeom struct {
	batches, inH, inW, inC, outH, outW, outC int
	fH, fW, sH, sW, dH, dW, padH, padW       int
}

// rasterOverInput runs a raster-order window kernel (run) with its output
// written over its input, the input the least distance above the output
// at which a kernel that reads the windows of a group of block pixels of
// a row (from a multiple of block) before it writes them never overwrites
// a byte a later group reads (found by replaying the reads and writes),
// and copies the output to out.
func rasterOverInput(g tRasterGeom, block int, in, out []int8, run func(in, out []int8)) {
	shift, written := 0, 0
	for b := 0; b < g.batches; b++ {
		for oy := 0; oy < g.outH; oy++ {
			for ox := 0; ox < g.outW; ox++ {
				if ox%block == 0 {
					// The bytes the groups before this one wrote.
					written = ((b*g.outH+oy)*g.outW + ox) * g.outC
				}
				for fy := 0; fy < g.fH; fy++ {
					for fx := 0; fx < g.fW; fx++ {
						iy, ix := oy*g.sH-g.padH+fy*g.dH, ox*g.sW-g.padW+fx*g.dW
						if iy < 0 || iy >= g.inH || ix < 0 || ix >= g.inW {
							continue
						}
						shift = max(shift, written-((b*g.inH+iy)*g.inW+ix)*g.inC)
					}
				}
			}
		}
	}
	buf := make([]int8, max(len(out), shift+len(in)))
	copy(buf[shift:], in)
	run(buf[shift:shift+len(in)], buf[:len(out)])
	copy(out, buf[:len(out)])
}
