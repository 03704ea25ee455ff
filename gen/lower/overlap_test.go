package lower

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"
	"github.com/tflm-gen/tflm-gen/internal/devtools/oracle"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// randOverlapGeom is a random convolution geometry of the kind
// convGatherInt8 runs: small windows, strides 1-3, SAME or VALID padding.
func randOverlapGeom(r *rand.Rand) convFastGeom {
	g := convFastGeom{batches: 1 + r.IntN(2), inH: 1 + r.IntN(12), inW: 1 + r.IntN(12), inC: 1 + r.IntN(4),
		fH: 1 + r.IntN(4), fW: 1 + r.IntN(4), outC: 1 + r.IntN(12),
		strideH: 1 + r.IntN(3), strideW: 1 + r.IntN(3), dilH: 1, dilW: 1}
	g.fH, g.fW = min(g.fH, g.inH), min(g.fW, g.inW)
	if r.IntN(2) == 0 { // SAME
		g.outH, g.outW = (g.inH+g.strideH-1)/g.strideH, (g.inW+g.strideW-1)/g.strideW
		g.padH = max(0, ((g.outH-1)*g.strideH+g.fH-g.inH)/2)
		g.padW = max(0, ((g.outW-1)*g.strideW+g.fW-g.inW)/2)
	} else {
		g.outH, g.outW = (g.inH-g.fH)/g.strideH+1, (g.inW-g.fW)/g.strideW+1
	}
	return g
}

// simulateBlocks replays a raster kernel's memory accesses byte by byte
// with the output at 0 and the input shift bytes above it: blocks of block
// columns of a row; with readFirst (convGatherInt8) all the block's input
// windows are read, then all its pixels written; otherwise (dw3x3Int8,
// depthwise: inC == outC) channel by channel, the channel's taps of the
// block's windows read, then the channel of its pixels written. It reports
// the first read of an input byte that an earlier write overwrote.
func simulateBlocks(g convFastGeom, shift, block int, readFirst bool) error {
	in := g.batches * g.inH * g.inW * g.inC
	out := g.batches * g.outH * g.outW * g.outC
	mem := make([]int, max(out, shift+in)) // 1: input byte intact, 2: overwritten
	for i := 0; i < in; i++ {
		mem[shift+i] = 1
	}
	read := func(b, oy, ox, c0, c1 int) error {
		for ky := 0; ky < g.fH; ky++ {
			for kx := 0; kx < g.fW; kx++ {
				iy, ix := oy*g.strideH-g.padH+ky, ox*g.strideW-g.padW+kx
				if iy < 0 || iy >= g.inH || ix < 0 || ix >= g.inW {
					continue
				}
				for c := c0; c < c1; c++ {
					a := shift + ((b*g.inH+iy)*g.inW+ix)*g.inC + c
					if mem[a] != 1 {
						return fmt.Errorf("pixel (%d,%d,%d) reads input byte %d after it was overwritten", b, oy, ox, a-shift)
					}
				}
			}
		}
		return nil
	}
	write := func(b, oy, ox, c0, c1 int) {
		q := ((b*g.outH+oy)*g.outW + ox) * g.outC
		for c := c0; c < c1; c++ {
			mem[q+c] = 2
		}
	}
	for b := 0; b < g.batches; b++ {
		for oy := 0; oy < g.outH; oy++ {
			for ox := 0; ox < g.outW; ox += block {
				end := min(ox+block, g.outW)
				if readFirst {
					for x := ox; x < end; x++ {
						if err := read(b, oy, x, 0, g.inC); err != nil {
							return err
						}
					}
					for x := ox; x < end; x++ {
						write(b, oy, x, 0, g.outC)
					}
					continue
				}
				for c := 0; c < g.outC; c++ {
					for x := ox; x < end; x++ {
						if err := read(b, oy, x, c, c+1); err != nil {
							return err
						}
					}
					for x := ox; x < end; x++ {
						write(b, oy, x, c, c+1)
					}
				}
			}
		}
	}
	return nil
}

// TestRasterWindowShiftSafe proves the overlap distance of convGatherInt8
// safe and minimal on random geometries by simulating its reads and writes
// byte by byte: at the computed distance no read meets an overwritten
// byte; one byte less, some read does.
func TestRasterWindowShiftSafe(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 1))
	for trial := 0; trial < 3000; trial++ {
		g := randOverlapGeom(r)
		if g.outH < 1 || g.outW < 1 {
			continue
		}
		block, readFirst := 2, true // convGatherInt8
		if trial%2 == 1 {           // dw3x3Int8: depthwise, blocks of 3 or 4
			g.outC = g.inC
			block, readFirst = 3+r.IntN(2), false
		}
		d := rasterWindowShift(g, 1, 1, block, readFirst)
		if err := simulateBlocks(g, d, block, readFirst); err != nil {
			t.Fatalf("%+v, blocks of %d, shift %d: %v", g, block, d, err)
		}
		if d > 0 {
			if err := simulateBlocks(g, d-1, block, readFirst); err == nil {
				t.Fatalf("%+v, blocks of %d: shift %d is not the smallest safe one", g, block, d)
			}
		}
	}
}

// inProcessOverlap is inProcess with overlapped pairs allowed; it also
// returns the program's overlapped pairs.
func inProcessOverlap(data []byte, inputs ...[]byte) ([][]byte, int, error) {
	outs, p, err := difftest.InProcessProgram(overlapProgram, data, inputs...)
	if p == nil {
		return nil, 0, err
	}
	return outs, len(p.Overlaps), err
}

// TestOverlapMatchesTFLM: random int8 convolutions whose output is written
// over their input (convGatherInt8 with the input at the computed shift)
// give TFLM's outputs bit for bit.
func TestOverlapMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	t.Run("CONV_2D_int8_overlapped", func(t *testing.T) { overlapCases(t, o, false) })
	t.Run("DEPTHWISE_CONV_2D_int8_overlapped", func(t *testing.T) { overlapCases(t, o, true) })
}

// overlapCases runs random int8 convolutions (depthwise: 3x3, multiplier 1)
// that the generator writes over their input.
func overlapCases(t *testing.T, o *oracle.Oracle, depthwise bool) {
	r := rand.New(rand.NewPCG(12, 2))
	var n difftest.Tally
	var sw difftest.Sweep
	for i := 0; n.Done() < difftest.Count(20, 200) && i < 4000; i++ {
		g := randOverlapGeom(r)
		if depthwise {
			g.inC = 1 + r.IntN(16)
			g.outC, g.fH, g.fW, g.strideW = g.inC, 3, 3, 1+r.IntN(2)
			g.inH, g.inW = 3+r.IntN(10), 3+r.IntN(10)
			if r.IntN(2) == 0 {
				g.outH, g.outW = (g.inH+g.strideH-1)/g.strideH, (g.inW+g.strideW-1)/g.strideW
				g.padH = max(0, ((g.outH-1)*g.strideH+3-g.inH)/2)
				g.padW = max(0, ((g.outW-1)*g.strideW+3-g.inW)/2)
			} else {
				g.outH, g.outW = (g.inH-3)/g.strideH+1, (g.inW-3)/g.strideW+1
				g.padH, g.padW = 0, 0
			}
		}
		if g.outH < 1 || g.outW < 1 || g.batches != 1 {
			continue
		}
		m := builder.New("overlap case")
		iq := difftest.RandQuant(r, model.Int8)
		in := m.Tensor("in", model.Int8, []int{1, g.inH, g.inW, g.inC}, iq)
		code, wshape, opts := model.OpConv2D, []int{g.outC, g.fH, g.fW, g.inC}, uint8(model.UnionConv2DOptions)
		if depthwise {
			code, wshape, opts = model.OpDepthwiseConv2D, []int{1, 3, 3, g.outC}, model.UnionDepthwiseConv2DOptions
		}
		// Per-channel filter scales and an int32 bias, as converters write
		// them (TFLM's depthwise kernel needs both).
		wq := &builder.Quant{Axis: 0}
		if depthwise {
			wq.Axis = 3
		}
		bq := &builder.Quant{}
		bias := make([]int32, g.outC)
		for c := 0; c < g.outC; c++ {
			wq.Scale = append(wq.Scale, 0.01+0.002*float32(c))
			wq.ZeroPoint = append(wq.ZeroPoint, 0)
			bq.Scale = append(bq.Scale, 0)
			bq.ZeroPoint = append(bq.ZeroPoint, 0)
			bias[c] = int32(r.IntN(2001) - 1000)
		}
		w := m.ConstI8("w", wshape, wq, difftest.RandInt8s(r, shapeProd(wshape)))
		out := m.Tensor("out", model.Int8, []int{1, g.outH, g.outW, g.outC}, builder.PerTensor(difftest.RandScale(r)*4, int64(r.IntN(256)-128)))
		pad := 1 // VALID
		if g.padH > 0 || g.padW > 0 || (g.outH == (g.inH+g.strideH-1)/g.strideH && g.outW == (g.inW+g.strideW-1)/g.strideW) {
			pad = 0 // SAME
		}
		fields := []builder.Field{builder.Byte(model.Conv2DOptionsPadding, pad), builder.Int(model.Conv2DOptionsStrideW, g.strideW), builder.Int(model.Conv2DOptionsStrideH, g.strideH),
			builder.Byte(model.Conv2DOptionsFusedActivationFunction, 0), builder.Int(model.Conv2DOptionsDilationWFactor, 1), builder.Int(model.Conv2DOptionsDilationHFactor, 1)}
		if depthwise { // depth_multiplier 1, activation NONE
			fields = []builder.Field{builder.Byte(model.DepthwiseConv2DOptionsPadding, pad), builder.Int(model.DepthwiseConv2DOptionsStrideW, g.strideW), builder.Int(model.DepthwiseConv2DOptionsStrideH, g.strideH),
				builder.Int(model.DepthwiseConv2DOptionsDepthMultiplier, 1), builder.Byte(model.DepthwiseConv2DOptionsFusedActivationFunction, 0),
				builder.Int(model.DepthwiseConv2DOptionsDilationWFactor, 1), builder.Int(model.DepthwiseConv2DOptionsDilationHFactor, 1)}
		}
		for c := range bq.Scale {
			bq.Scale[c] = iq.Scale[0] * wq.Scale[c]
		}
		bt := m.ConstI32("b", []int{g.outC}, bq, bias)
		m.Op(code, []int{in, w, bt}, []int{out}, &builder.Options{Type: opts, Fields: fields})
		m.IO([]int{in}, []int{out})
		x := difftest.RandVals(r, model.Int8, g.inH*g.inW*g.inC)
		got, pairs, gerr := inProcessOverlap(m.Bytes(), x.Raw())
		if !sw.Take(i, m.Bytes(), overlapProgram) {
			// Overlapped against layer by layer only.
			switch {
			case gerr != nil:
				n.UnrunRefused++
			case pairs > 0:
				n.Unrun++
				if plain, err := inProcess(m.Bytes(), x.Raw()); err != nil || !slices.Equal(got[0], plain[0]) {
					t.Errorf("case %d %+v: overlapped and layer-by-layer outputs differ (layer by layer: %v)", i, g, err)
					n.Mismatches++
				}
			}
			continue
		}
		want, oerr := o.Run(m.Bytes(), x.CSV())
		if n.Skip(t, oerr, i, fmt.Sprintf("%+v", g)) {
			continue
		}
		if oerr != nil || gerr != nil {
			if (oerr == nil) != (gerr == nil) {
				t.Errorf("case %d %+v: TFLM %v, tflm-gen %v", i, g, oerr, gerr)
				n.Mismatches++
			}
			n.Refused++
			continue
		}
		if pairs == 0 {
			continue // another kernel, or no arena saved
		}
		if err := difftest.CompareRaw(model.Int8, got[0], want[0]); err != nil {
			plain, _ := inProcess(m.Bytes(), x.Raw())
			t.Errorf("case %d %+v: %v (without overlap: %v)", i, g, err, difftest.CompareRaw(model.Int8, plain[0], want[0]))
			n.Mismatches++
		}
		n.Compared++
	}
	n.Log(t)
}

// structInts reads the integer fields of a kernel's parameter block.
func structInts(s program.Struct) map[string]int {
	out := map[string]int{}
	for _, f := range s.Fields {
		if l, ok := f.Value.(program.Lit); ok {
			switch v := l.Value.(type) {
			case int:
				out[f.Name] = v
			case int32:
				out[f.Name] = int(v)
			case int64:
				out[f.Name] = int(v)
			}
		}
	}
	return out
}

// simulateDWDSP is simulateBlocks for the depthwise DSP kernels
// (kernels/dw_dsp.go) with depth multiplier m: output rows in order; in a
// row, the pixels whose window reaches into the padding each group of four
// channels by group (the last group of a channel count that is not a
// multiple of four ends at the last channel), and the pixels whose window
// lies inside the image (a row inside, columns inside) group by group,
// pixel by pixel; a group of a pixel reads its input channels at every tap
// inside the image, then writes its four channels. With q8
// (dwDSPInt8Q8), groups of eight channels, and a window's columns inside
// counted with its rows' taps rounded up to four, and a padded row's
// pixels inside its columns run group by group too.
func simulateDWDSP(g convFastGeom, m, shift int, q8 bool) error {
	in := g.batches * g.inH * g.inW * g.inC
	out := g.batches * g.outH * g.outW * g.outC
	mem := make([]int, max(out, shift+in)) // 1: input byte intact, 2: overwritten
	for i := 0; i < in; i++ {
		mem[shift+i] = 1
	}
	inside := func(o0, dil, f, size int) bool { return o0 >= 0 && o0+(f-1)*dil < size }
	gw, G, fW := 4, (g.outC+3)/4, g.fW
	if q8 {
		gw, G, fW = 8, g.outC/8, (g.fW+3)/4*4
	}
	item := func(b, oy, ox, grp int) error {
		s := min(gw*grp, g.outC-gw)
		var lanes []int
		switch {
		case m == 1:
			lanes = []int{s, s + 1, s + 2, s + 3}
		case m == 2:
			lanes = []int{s / 2, s/2 + 1}
		default:
			lanes = []int{s / m}
		}
		for ky := 0; ky < g.fH; ky++ {
			for kx := 0; kx < g.fW; kx++ {
				iy, ix := oy*g.strideH-g.padH+ky*g.dilH, ox*g.strideW-g.padW+kx*g.dilW
				if iy < 0 || iy >= g.inH || ix < 0 || ix >= g.inW {
					continue
				}
				for _, c := range lanes {
					a := shift + ((b*g.inH+iy)*g.inW+ix)*g.inC + c
					if mem[a] != 1 {
						return fmt.Errorf("pixel (%d,%d,%d) group %d reads input byte %d after it was overwritten", b, oy, ox, grp, a-shift)
					}
				}
			}
		}
		q := ((b*g.outH+oy)*g.outW+ox)*g.outC + s
		for c := q; c < q+gw; c++ {
			mem[c] = 2
		}
		return nil
	}
	for b := 0; b < g.batches; b++ {
		for oy := 0; oy < g.outH; oy++ {
			row := q8 || inside(oy*g.strideH-g.padH, g.dilH, g.fH, g.inH)
			for ox := 0; ox < g.outW; {
				if row && inside(ox*g.strideW-g.padW, g.dilW, fW, g.inW) {
					end := ox
					for end < g.outW && inside(end*g.strideW-g.padW, g.dilW, fW, g.inW) {
						end++
					}
					for grp := 0; grp < G; grp++ {
						for x := ox; x < end; x++ {
							if err := item(b, oy, x, grp); err != nil {
								return err
							}
						}
					}
					ox = end
					continue
				}
				for grp := 0; grp < G; grp++ {
					if err := item(b, oy, ox, grp); err != nil {
						return err
					}
				}
				ox++
			}
		}
	}
	return nil
}

// simulatePWDSP is simulateBlocks for the pointwise DSP kernels
// (kernels/conv_pw_dsp.go): pixel pairs in order (an odd last pixel paired
// with itself); for each pair, channel pair by channel pair (an odd last
// channel last), both pixels' rows are read, then the channels of both
// pixels written. widened (convPWDSPW) reads both rows once, into its copy,
// before the first channel pair, and again for an odd last channel.
func simulatePWDSP(pixels, inC, outC, shift int, widened bool) error {
	mem := make([]int, max(pixels*outC, shift+pixels*inC))
	for i := 0; i < pixels*inC; i++ {
		mem[shift+i] = 1
	}
	for p := 0; p < pixels; p += 2 {
		q := min(p+1, pixels-1)
		for c := 0; c < outC; c += 2 {
			if !widened || c == 0 || c == outC-1 {
				for _, px := range []int{p, q} {
					for k := 0; k < inC; k++ {
						if a := shift + px*inC + k; mem[a] != 1 {
							return fmt.Errorf("pixel %d reads input byte %d after it was overwritten", px, a-shift)
						}
					}
				}
			}
			for _, px := range []int{p, q} {
				for j := c; j < min(c+2, outC); j++ {
					mem[px*outC+j] = 2
				}
			}
		}
	}
	return nil
}

// TestOverlapPairsSimulated replays, byte by byte, every overlapped pair
// the generator emits for the reference models and the fixtures, at the
// distance the plan gives it (simulateBlocks, from the kernel call's own
// parameters): no input byte is read after it was overwritten.
func TestOverlapPairsSimulated(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "*.tflite"))
	more, _ := filepath.Glob(filepath.Join(e2e.SharedDir(t), "models", "*.tflite"))
	pairs := 0
	var progs []*program.Program
	for _, f := range append(files, more...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		g, err := model.Parse(f, data)
		if err != nil {
			t.Fatal(err)
		}
		// Every overlap the lowerings offer, first ways and second.
		for _, alt := range []bool{false, true} {
			p, err := overlapProgramWith(g, alt)
			if err != nil {
				t.Fatal(err)
			}
			progs = append(progs, p)
		}
	}
	for _, p := range progs {
		f := p.Graph.Name
		lay, err := layout.Make(p, nil, layout.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Overlaps) > 0 {
			t.Logf("%s: %d overlapped pairs", filepath.Base(f), len(p.Overlaps))
		}
		for _, ov := range p.Overlaps {
			calls := p.Ops[ov.Op].Calls
			if len(calls) != 1 {
				t.Fatalf("%s: operator %d: %d calls", f, ov.Op, len(calls))
			}
			c := calls[0]
			v := structInts(c.Args[0].(program.Struct))
			geom := convFastGeom{batches: v["batches"], inH: v["inH"], inW: v["inW"], inC: v["inC"],
				fH: v["filterH"], fW: v["filterW"], outH: v["outH"], outW: v["outW"], outC: v["outC"],
				strideH: v["strideH"], strideW: v["strideW"], dilH: 1, dilW: 1, padH: v["padH"], padW: v["padW"]}
			shift := lay.Offset(ov.In) - lay.Offset(ov.Out)
			block, readFirst := 2, true
			switch c.Fn {
			case string(kernelsig.DwDSPInt8M1), string(kernelsig.DwDSPInt8M2), string(kernelsig.DwDSPInt8MQ), string(kernelsig.DwDSPInt8Q8):
				geom.dilH, geom.dilW = v["dilationH"], v["dilationW"]
				if err := simulateDWDSP(geom, v["depthMul"], shift, c.Fn == string(kernelsig.DwDSPInt8Q8)); err != nil {
					t.Errorf("%s: operator %d (%s): %v", filepath.Base(f), ov.Op, c.Fn, err)
				}
				pairs++
				continue
			case string(kernelsig.ConvPWDSP), string(kernelsig.ConvPWDSPW):
				if err := simulatePWDSP(v["pixels"], v["inC"], v["outC"], shift, c.Fn == string(kernelsig.ConvPWDSPW)); err != nil {
					t.Errorf("%s: operator %d (%s): %v", filepath.Base(f), ov.Op, c.Fn, err)
				}
				pairs++
				continue
			case string(kernelsig.ConvDSP), string(kernelsig.ConvDSPW):
				geom.dilH, geom.dilW = v["dilationH"], v["dilationW"]
			case string(kernelsig.ConvGatherInt8):
			case string(kernelsig.Dw3x3Int8):
				geom.inC, geom.outC, geom.fH, geom.fW = v["chans"], v["chans"], 3, 3
				block, readFirst = 4, false
				if geom.outW%4 != 0 && geom.outW%3 == 0 {
					block = 3
				}
			default:
				t.Fatalf("%s: operator %d overlapped with kernel %s, which has no simulation", f, ov.Op, c.Fn)
			}
			if err := simulateBlocks(geom, shift, block, readFirst); err != nil {
				t.Errorf("%s: operator %d (%s): %v", filepath.Base(f), ov.Op, c.Fn, err)
			}
			pairs++
		}
	}
	t.Logf("%d overlapped pairs simulated", pairs)
	if pairs == 0 {
		t.Error("no overlapped pair")
	}
}

// TestOverlapChainsMatchTFLM: random chains of convolution, depthwise and
// pool layers give byte-identical outputs with overlapped pairs and
// layer by layer (-fuse=off), and TFLM's outputs; it counts the chains
// where some pair was overlapped and their arena against layer by layer.
func TestOverlapChainsMatchTFLM(t *testing.T) {
	o := oracle.New(t)
	t.Run("CONV_2D_chains_overlapped", func(t *testing.T) {
		r := rand.New(rand.NewPCG(12, 3))
		var n difftest.Tally
		var sw difftest.Sweep
		saved := 0
		for i := 0; n.Done() < difftest.Count(20, 150) && i < 2000; i++ {
			data, x, desc := difftest.RandChain(r)
			got, pairs, gerr := inProcessOverlap(data, x.Raw())
			flat, ferr := inProcess(data, x.Raw())
			if !sw.Take(i, data, overlapProgram) {
				// Overlapped against layer by layer only.
				switch {
				case gerr != nil || ferr != nil:
					if (gerr == nil) != (ferr == nil) {
						t.Errorf("chain %d (%s): overlapped %v, layer by layer %v", i, desc, gerr, ferr)
						n.Mismatches++
					}
					n.UnrunRefused++
				case pairs > 0:
					if !slices.Equal(got[0], flat[0]) {
						t.Errorf("chain %d (%s): overlapped and layer-by-layer outputs differ", i, desc)
						n.Mismatches++
					}
					saved += pairs
					n.Unrun++
				}
				continue
			}
			want, oerr := o.Run(data, x.CSV())
			if n.Skip(t, oerr, i, desc) {
				continue
			}
			if oerr != nil || gerr != nil || ferr != nil {
				if (oerr == nil) != (gerr == nil) || (gerr == nil) != (ferr == nil) {
					t.Errorf("chain %d (%s): TFLM %v, overlapped %v, layer by layer %v", i, desc, oerr, gerr, ferr)
					n.Mismatches++
				}
				n.Refused++
				continue
			}
			if pairs == 0 {
				continue
			}
			if !slices.Equal(got[0], flat[0]) {
				t.Errorf("chain %d (%s): overlapped and layer-by-layer outputs differ", i, desc)
				n.Mismatches++
			} else if err := difftest.CompareRaw(model.Int8, got[0], want[0]); err != nil {
				t.Errorf("chain %d (%s): %v", i, desc, err)
				n.Mismatches++
			}
			saved += pairs
			n.Compared++
		}
		t.Logf("%d overlapped pairs in %d chains", saved, n.Compared+n.Unrun)
		n.Log(t)
	})
}

// FuzzOverlapChains keeps drawing random chains (randChain, one seed per
// input): with overlapped pairs the outputs must be byte-identical to the
// layer-by-layer build and equal TFLM's. The oracle has recordings of the
// seed corpus only: a new input is checked against the layer-by-layer build
// alone, and a refusal must be a clean one (difftest.RefusedCleanly) of both builds.
func FuzzOverlapChains(f *testing.F) {
	for s := uint64(0); s < 8; s++ {
		f.Add(s)
	}
	o := oracle.New(f)
	f.Fuzz(func(t *testing.T, seed uint64) {
		data, x, desc := difftest.RandChain(rand.New(rand.NewPCG(seed, 77)))
		got, _, gerr := inProcessOverlap(data, x.Raw())
		flat, ferr := inProcess(data, x.Raw())
		want, oerr := o.Run(data, x.CSV())
		if errors.Is(oerr, oracle.ErrNotRecorded) {
			switch {
			case (gerr == nil) != (ferr == nil) || gerr != nil && !difftest.RefusedCleanly(gerr):
				t.Fatalf("%s: overlapped %v, layer by layer %v", desc, gerr, ferr)
			case gerr == nil && !slices.Equal(got[0], flat[0]):
				t.Fatalf("%s: overlapped and layer-by-layer outputs differ", desc)
			}
			return
		}
		if (gerr == nil) != (ferr == nil) || (gerr == nil) != (oerr == nil) {
			t.Fatalf("%s: overlapped %v, layer by layer %v, TFLM %v", desc, gerr, ferr, oerr)
		}
		if gerr != nil {
			return
		}
		if !slices.Equal(got[0], flat[0]) {
			t.Fatalf("%s: overlapped and layer-by-layer outputs differ", desc)
		}
		if err := difftest.CompareRaw(model.Int8, got[0], want[0]); err != nil {
			t.Fatalf("%s: %v", desc, err)
		}
	})
}

// TestPairwiseShiftSafe: the distances the pointwise DSP kernels offer
// (pairwiseShift for convPWDSP and an odd channel count, pairwiseShiftWidened
// for convPWDSPW) are safe on random layers, simulated byte by byte;
// pairwiseShiftWidened is the least that is (pairwiseShift, which lets the
// whole of a pair's outputs end before its rows, may be a few bytes more).
func TestPairwiseShiftSafe(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 1))
	for trial := 0; trial < 2000; trial++ {
		pixels, inC, outC := 1+r.IntN(40), 4*(1+r.IntN(16)), 1+r.IntN(64)
		widened := r.IntN(2) == 0
		shift, least := pairwiseShift(pixels, inC, outC), false
		if widened && outC%2 == 0 {
			shift, least = pairwiseShiftWidened(pixels, inC, outC), true
		}
		if err := simulatePWDSP(pixels, inC, outC, shift, widened); err != nil {
			t.Fatalf("pixels %d, %d -> %d channels, widened %v, shift %d: %v", pixels, inC, outC, widened, shift, err)
		}
		if least && shift > 0 && simulatePWDSP(pixels, inC, outC, shift-1, widened) == nil {
			t.Fatalf("pixels %d, %d -> %d channels, widened %v: safe at %d, below the offered %d", pixels, inC, outC, widened, shift-1, shift)
		}
	}
}
