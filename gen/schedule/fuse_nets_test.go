package schedule

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/fold"
	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/lower"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"
	"github.com/tflm-gen/tflm-gen/internal/devtools/oracle"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// netBuilder builds int8 networks layer by layer with random weights and
// quantization, as converters write them (per-channel weights).
type netBuilder struct {
	m       *builder.Model
	r       *rand.Rand
	n       int
	h, w, c map[int]int
	q       map[int]*builder.Quant
	// outQ, when set, quantizes the next convolutions' outputs (the
	// inputs of a CONCATENATION share one quantization).
	outQ *builder.Quant
}

func newNet(r *rand.Rand, name string, h, w, c int) (*netBuilder, int) {
	nb := &netBuilder{m: builder.New(name), r: r, h: map[int]int{}, w: map[int]int{}, c: map[int]int{}, q: map[int]*builder.Quant{}}
	return nb, nb.tensor(h, w, c, builder.PerTensor(0.02+0.01*r.Float32(), int64(r.IntN(64)-32)))
}

func (nb *netBuilder) tensor(h, w, c int, q *builder.Quant) int {
	t := nb.m.Tensor(fmt.Sprint("t", nb.n), model.Int8, []int{1, h, w, c}, q)
	nb.n++
	nb.h[t], nb.w[t], nb.c[t], nb.q[t] = h, w, c, q
	return t
}

// conv adds a CONV_2D (depthwise when dw) with SAME padding and RELU6.
func (nb *netBuilder) conv(x, oc, fh, fw, stride int, dw, relu bool) int {
	return nb.convPad(x, oc, fh, fw, stride, dw, relu, false)
}

// convPad is conv with VALID padding when valid.
func (nb *netBuilder) convPad(x, oc, fh, fw, stride int, dw, relu, valid bool) int {
	h, w, c := nb.h[x], nb.w[x], nb.c[x]
	oh, ow := (h+stride-1)/stride, (w+stride-1)/stride
	padding := 0
	if valid {
		oh, ow, padding = (h-fh)/stride+1, (w-fw)/stride+1, 1
	}
	if dw {
		oc = c
	}
	q := nb.outQ
	if q == nil {
		q = builder.PerTensor(0.02+0.02*nb.r.Float32(), int64(nb.r.IntN(64)-100))
	}
	y := nb.tensor(oh, ow, oc, q)
	shape := []int{oc, fh, fw, c}
	wq, bq := &builder.Quant{}, &builder.Quant{}
	if dw {
		shape, wq.Axis = []int{1, fh, fw, oc}, 3
	}
	bias := make([]int32, oc)
	for i := 0; i < oc; i++ {
		wq.Scale = append(wq.Scale, 0.002+0.004*nb.r.Float32())
		wq.ZeroPoint = append(wq.ZeroPoint, 0)
		bq.Scale = append(bq.Scale, nb.q[x].Scale[0]*wq.Scale[i])
		bq.ZeroPoint = append(bq.ZeroPoint, 0)
		bias[i] = int32(nb.r.IntN(2001) - 1000)
	}
	wt := nb.m.ConstI8(fmt.Sprint("w", nb.n), shape, wq, difftest.RandInt8s(nb.r, difftest.Elems(shape)))
	bt := nb.m.ConstI32(fmt.Sprint("b", nb.n), []int{oc}, bq, bias)
	act := 0
	if relu {
		act = 3
	}
	if dw {
		nb.m.Op(model.OpDepthwiseConv2D, []int{x, wt, bt}, []int{y}, &builder.Options{Type: model.UnionDepthwiseConv2DOptions, Fields: []builder.Field{
			builder.Byte(model.DepthwiseConv2DOptionsPadding, padding), builder.Int(model.DepthwiseConv2DOptionsStrideW, stride), builder.Int(model.DepthwiseConv2DOptionsStrideH, stride), builder.Int(model.DepthwiseConv2DOptionsDepthMultiplier, 1), builder.Byte(model.DepthwiseConv2DOptionsFusedActivationFunction, act), builder.Int(model.DepthwiseConv2DOptionsDilationWFactor, 1), builder.Int(model.DepthwiseConv2DOptionsDilationHFactor, 1)}})
	} else {
		nb.m.Op(model.OpConv2D, []int{x, wt, bt}, []int{y}, &builder.Options{Type: model.UnionConv2DOptions, Fields: []builder.Field{
			builder.Byte(model.Conv2DOptionsPadding, padding), builder.Int(model.Conv2DOptionsStrideW, stride), builder.Int(model.Conv2DOptionsStrideH, stride), builder.Byte(model.Conv2DOptionsFusedActivationFunction, act), builder.Int(model.Conv2DOptionsDilationWFactor, 1), builder.Int(model.Conv2DOptionsDilationHFactor, 1)}})
	}
	return y
}

// pad adds a PAD of top, bottom, left and right rows and columns (the
// input's zero point, as converters write PyTorch's zero padding).
func (nb *netBuilder) pad(x, top, bottom, left, right int) int {
	y := nb.tensor(nb.h[x]+top+bottom, nb.w[x]+left+right, nb.c[x], nb.q[x])
	pads := nb.m.ConstI32(fmt.Sprint("p", nb.n), []int{4, 2}, nil, []int32{0, 0, int32(top), int32(bottom), int32(left), int32(right), 0, 0})
	nb.m.Op(model.OpPad, []int{x, pads}, []int{y}, nil)
	return y
}

// concat adds a CONCATENATION of xs along the channels (one
// quantization: the first input's).
func (nb *netBuilder) concat(xs ...int) int {
	c := 0
	for _, x := range xs {
		c += nb.c[x]
	}
	y := nb.tensor(nb.h[xs[0]], nb.w[xs[0]], c, nb.q[xs[0]])
	nb.m.Op(model.OpConcatenation, xs, []int{y}, &builder.Options{Type: model.UnionConcatenationOptions, Fields: []builder.Field{builder.Int(model.ConcatenationOptionsAxis, 3), builder.Byte(model.ConcatenationOptionsFusedActivationFunction, 0)}})
	return y
}

// fire adds SqueezeNet's fire module: a 1x1 squeeze to s channels, then
// 1x1 and 3x3 expansions to e channels each, concatenated.
func (nb *netBuilder) fire(x, s, e int) int {
	sq := nb.conv(x, s, 1, 1, 1, false, true)
	nb.outQ = builder.PerTensor(0.02+0.02*nb.r.Float32(), int64(nb.r.IntN(64)-100))
	a := nb.conv(sq, e, 1, 1, 1, false, true)
	b := nb.conv(sq, e, 3, 3, 1, false, true)
	nb.outQ = nil
	return nb.concat(a, b)
}

func (nb *netBuilder) add(a, b int) int {
	y := nb.tensor(nb.h[a], nb.w[a], nb.c[a], builder.PerTensor(0.03+0.02*nb.r.Float32(), int64(nb.r.IntN(64)-32)))
	nb.m.Op(model.OpAdd, []int{a, b}, []int{y}, nil)
	return y
}

func (nb *netBuilder) avgPoolAll(x int) int {
	y := nb.tensor(1, 1, nb.c[x], nb.q[x])
	nb.m.Op(model.OpAveragePool2D, []int{x}, []int{y}, &builder.Options{Type: model.UnionPool2DOptions, Fields: []builder.Field{
		builder.Byte(model.Pool2DOptionsPadding, 1), builder.Int(model.Pool2DOptionsStrideW, 1), builder.Int(model.Pool2DOptionsStrideH, 1), builder.Int(model.Pool2DOptionsFilterWidth, nb.w[x]), builder.Int(model.Pool2DOptionsFilterHeight, nb.h[x]), builder.Byte(model.Pool2DOptionsFusedActivationFunction, 0)}})
	return y
}

// invertedBlock is an inverted residual block: a 1x1 expansion by t (none
// for 1), a 3x3 depthwise convolution of stride s, a 1x1 projection to c
// channels, and a residual ADD where shapes allow. act 0 is RELU6 fused
// into the first two convolutions; another code is that activation as an
// operator of its own after each.
type invertedBlock struct {
	t, c, s int
	act     model.OpCode
}

var mobileNetV2Blocks = []invertedBlock{{1, 8, 1, 0}, {6, 12, 2, 0}, {6, 12, 1, 0}, {6, 16, 2, 0}, {6, 16, 1, 0}, {6, 24, 2, 0}}

// inverted adds block b after x; torch puts an explicit PAD before the
// depthwise convolution, which then has VALID padding (as PyTorch's
// converters write it).
func (nb *netBuilder) inverted(x int, b invertedBlock, torch bool) int {
	fused := b.act == 0
	act := func(y int) int {
		if fused {
			return y
		}
		return nb.unary(y, b.act)
	}
	y := x
	if b.t > 1 {
		y = act(nb.conv(y, nb.c[x]*b.t, 1, 1, 1, false, fused))
	}
	if torch {
		y = nb.convPad(nb.pad(y, 1, 1, 1, 1), 0, 3, 3, b.s, true, fused, true)
	} else {
		y = nb.conv(y, 0, 3, 3, b.s, true, fused)
	}
	y = nb.conv(act(y), b.c, 1, 1, 1, false, false)
	if b.s == 1 && b.c == nb.c[x] {
		y = nb.add(x, y)
	}
	return y
}

// mobileNetV2 is MobileNet V2-style: inverted residual blocks (1x1
// expansion, 3x3 depthwise, 1x1 projection, residual ADD where shapes
// allow) on a 64x64x3 image.
func mobileNetV2(r *rand.Rand) ([]byte, int) {
	nb, x := newNet(r, "mobilenet v2 style", 64, 64, 3)
	in := x
	x = nb.conv(x, 16, 3, 3, 2, false, true)
	for _, b := range mobileNetV2Blocks {
		x = nb.inverted(x, b, false)
	}
	x = nb.avgPoolAll(x)
	nb.m.IO([]int{in}, []int{x})
	return nb.m.Bytes(), 64 * 64 * 3
}

// mobileNetV2Torch is mobileNetV2 as converted from PyTorch: an explicit
// PAD before every 3x3 convolution, which then has VALID padding.
func mobileNetV2Torch(r *rand.Rand) ([]byte, int) {
	nb, x := newNet(r, "mobilenet v2 from pytorch", 64, 64, 3)
	in := x
	x = nb.convPad(nb.pad(x, 1, 1, 1, 1), 16, 3, 3, 2, false, true, true)
	for _, b := range mobileNetV2Blocks {
		x = nb.inverted(x, b, true)
	}
	x = nb.avgPoolAll(x)
	nb.m.IO([]int{in}, []int{x})
	return nb.m.Bytes(), 64 * 64 * 3
}

// dsCNN is a DS-CNN keyword model: a 10x4 convolution with stride 2 on a
// 49x10 spectrogram, four depthwise-separable blocks, global average pool.
func dsCNN(r *rand.Rand) ([]byte, int) {
	nb, x := newNet(r, "ds-cnn style", 49, 10, 1)
	in := x
	x = nb.conv(x, 32, 10, 4, 2, false, true)
	for k := 0; k < 4; k++ {
		x = nb.conv(x, 0, 3, 3, 1, true, true)
		x = nb.conv(x, 32, 1, 1, 1, false, true)
	}
	x = nb.avgPoolAll(x)
	nb.m.IO([]int{in}, []int{x})
	return nb.m.Bytes(), 49 * 10
}

// resNet is ResNet-style: 3x3 convolutions with residual ADDs on a
// 32x32x3 image, downsampling by strided convolutions.
func resNet(r *rand.Rand) ([]byte, int) { return resNetOrder(r, false) }

// resNetOrder is resNet, its ADDs' operands swapped (ADD(y, x), the skip
// tensor second) when swap.
func resNetOrder(r *rand.Rand, swap bool) ([]byte, int) {
	nb, x := newNet(r, "resnet style", 32, 32, 3)
	in := x
	x = nb.conv(x, 16, 3, 3, 1, false, true)
	for _, c := range []int{16, 16, 24} {
		if c != nb.c[x] {
			x = nb.conv(x, c, 3, 3, 2, false, true)
		}
		y := nb.conv(x, c, 3, 3, 1, false, true)
		y = nb.conv(y, c, 3, 3, 1, false, false)
		if swap {
			x = nb.add(y, x)
		} else {
			x = nb.add(x, y)
		}
	}
	x = nb.avgPoolAll(x)
	nb.m.IO([]int{in}, []int{x})
	return nb.m.Bytes(), 32 * 32 * 3
}

// TestFusedNetworks: MobileNet V2-, DS-CNN- and ResNet-style networks the
// team does not see in ../shared: the default build (fused groups and
// overlapped pairs as chosen) is byte-identical to the layer-by-layer build
// and to TFLM, and its arena is never larger; so is the default build of
// the graph with its PADs folded into the convolutions (gen/fold), whose
// arena is no larger than without; the log gives the arenas.
func TestFusedNetworks(t *testing.T) {
	o := oracle.New(t)
	for _, net := range []struct {
		name  string
		build func(*rand.Rand) ([]byte, int)
	}{{"mobilenet_v2", mobileNetV2}, {"mobilenet_v2_torch", mobileNetV2Torch}, {"ds_cnn", dsCNN}, {"resnet", resNet}} {
		t.Run(net.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, 3))
			data, n := net.build(r)
			x := difftest.RandVals(r, model.Int8, n)
			g, err := model.Parse(net.name+".tflite", data)
			if err != nil {
				t.Fatal(err)
			}
			arena := map[bool]int{}
			var outs [2][]byte
			for k, fused := range []bool{false, true} {
				p, lay, got := planSimulateRun(t, g, Options{Fuse: fused}, x.Raw())
				arena[fused], outs[k] = lay.Plan.Size, got
				if fused {
					t.Logf("%s: arena %d bytes layer by layer, %d default (%d fused groups, %d overlapped pairs; plan %s, lower bound %d), %d MACs", net.name, arena[false], arena[true], len(p.Groups), len(p.Overlaps), lay.Plan.CertText(), lay.Plan.LowerBound, p.MACs())
				}
			}
			if !slices.Equal(outs[0], outs[1]) {
				t.Errorf("default and layer-by-layer outputs differ")
			}
			if arena[true] > arena[false] {
				t.Errorf("default arena %d larger than layer by layer %d", arena[true], arena[false])
			}
			if gf := fold.Pads(g); gf != g {
				p, lay, got := planSimulateRun(t, gf, Options{Fuse: true}, x.Raw())
				t.Logf("%s, PADs folded: arena %d bytes default (%d fused groups, %d overlapped pairs; plan %s, lower bound %d)", net.name, lay.Plan.Size, len(p.Groups), len(p.Overlaps), lay.Plan.CertText(), lay.Plan.LowerBound)
				if !slices.Equal(got, outs[0]) {
					t.Errorf("PADs folded: default and layer-by-layer outputs differ")
				}
				if lay.Plan.Size > arena[true] {
					t.Errorf("PADs folded: arena %d larger than the %d without", lay.Plan.Size, arena[true])
				}
			}
			want, err := o.Run(data, x.CSV())
			oracle.SkipIfNotRecorded(t, err, net.name)
			if err != nil {
				t.Fatal(err)
			}
			if err := difftest.CompareRaw(model.Int8, outs[1], want[0]); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestFixturesMatchTFLM: the project's example models (builder.Examples,
// committed in testdata/ and generated_examples/), default build with their
// fused groups and overlapped pairs, give TFLM's outputs on random inputs.
func TestFixturesMatchTFLM(t *testing.T) {
	o := oracle.New(t)
	r := rand.New(rand.NewPCG(7, 1))
	for _, ex := range builder.Examples() {
		t.Run(ex.Name, func(t *testing.T) {
			data := ex.Build()
			g, err := model.Parse(ex.Name+".tflite", data)
			if err != nil {
				t.Fatal(err)
			}
			var n difftest.Tally
			for k := 0; k < 3; k++ {
				in := g.Tensors[g.Inputs[0]]
				x := difftest.RandVals(r, in.Type, in.NumElements())
				want, err := o.Run(data, x.CSV())
				if n.Skip(t, err, k, "random input") {
					continue // r has drawn this input: later subtests draw the full run's inputs
				}
				if err != nil {
					t.Fatal(err)
				}
				got, _, err := inProcessOverlap(data, x.Raw())
				if err != nil {
					t.Fatal(err)
				}
				out := g.Tensors[g.Outputs[0]]
				if out.Type == model.Float32 {
					// SOFTMAX's exp is C's libm in TFLM: within 1e-5.
					w, err := oracle.ParseFloats(want[0])
					if err != nil {
						t.Fatal(err)
					}
					for i, v := range w {
						gv := math.Float32frombits(binary.LittleEndian.Uint32(got[0][4*i:]))
						if d := math.Abs(float64(gv - v)); d > 1e-5*max(1, math.Abs(float64(v))) {
							t.Errorf("input %d: output %d is %g, TFLM %g", k, i, gv, v)
						}
					}
					n.Compared++
					continue
				}
				if err := difftest.CompareRaw(out.Type, got[0], want[0]); err != nil {
					t.Errorf("input %d: %v", k, err)
				}
				n.Compared++
			}
			n.SkipIfNoneCompared(t)
		})
	}
}

// TestFusedResidualSpans fuses, one at a time, every span that can be
// fused of two small residual networks (ADD(x, conv(conv(x))) and a
// residual ADD in the middle of a chain, its operands swapped), with and
// without in-place operators and with the swapped ADD alone not in place
// (bandInPlace's chain set): the skip tensor is then the group's input
// and output buffer, its output buffer only, another buffer, or the
// group's input with the output tied below it. Each is simulated byte by
// byte and byte-identical to layer by layer.
func TestFusedResidualSpans(t *testing.T) {
	nets := []struct {
		name  string
		build func(*rand.Rand) ([]byte, int)
	}{
		{"skip_end", func(r *rand.Rand) ([]byte, int) {
			nb, in := newNet(r, "residual end", 12, 7, 5)
			x := nb.conv(in, 6, 3, 3, 1, false, true)
			y := nb.conv(nb.conv(x, 4, 3, 3, 1, false, true), 6, 3, 3, 1, false, false)
			out := nb.avgPoolAll(nb.add(x, y))
			nb.m.IO([]int{in}, []int{out})
			return nb.m.Bytes(), 12 * 7 * 5
		}},
		{"skip_mid", func(r *rand.Rand) ([]byte, int) {
			nb, in := newNet(r, "residual middle", 11, 6, 4)
			x := nb.conv(in, 6, 1, 1, 1, false, true)
			y := nb.conv(x, 6, 3, 3, 1, true, true)
			z := nb.add(y, x)
			out := nb.conv(nb.conv(z, 5, 3, 3, 2, false, true), 3, 1, 1, 1, false, false)
			nb.m.IO([]int{in}, []int{out})
			return nb.m.Bytes(), 11 * 6 * 4
		}},
	}
	cases := map[string]int{}
	var pkgs []e2e.Package
	var jobs []e2e.Job
	var wants [][]byte
	for _, net := range nets {
		r := rand.New(rand.NewPCG(9, 4))
		data, n := net.build(r)
		x := difftest.RandVals(r, model.Int8, n)
		g, err := model.Parse(net.name+".tflite", data)
		if err != nil {
			t.Fatal(err)
		}
		shared, _, err := Program(g, Options{})
		if err != nil {
			t.Fatal(err)
		}
		// In place, with no in-place operator, and with no in-place ADD
		// where it would write over its chain operand (ADD(y, x), as
		// fusion assembles it).
		for _, mode := range []string{"share", "noShare", "notInPlace"} {
			opts := lower.Options{NoShare: mode == "noShare"}
			if mode == "notInPlace" {
				if opts.NotInPlace, _ = bandInPlace(shared); len(opts.NotInPlace) == 0 {
					continue
				}
			}
			p, _, err := Program(g, Options{Lower: opts})
			if err != nil {
				t.Fatal(err)
			}
			lay, err := layout.Make(p, nil, layout.Options{})
			if err != nil {
				t.Fatal(err)
			}
			want, err := difftest.RunPlanned(p, lay, x.Raw())
			if err != nil {
				t.Fatal(err)
			}
			fp := newFusePlanner(p, nil, 0, nil)
			for i := range p.Ops {
				for j := i + 1; j < len(p.Ops) && fp.fusable(fuseSpan{i, j}); j++ {
					sp := fuseSpan{i, j}
					name := fmt.Sprintf("%s %s ops %d-%d", net.name, mode, i, j)
					var add *bandOp
					for _, b := range fp.band[i : j+1] {
						if b.skip >= 0 {
							add = b
						}
					}
					if fp.group(sp) < 0 {
						if add == nil || fp.band[i].inBuf != fp.band[j].outBuf {
							t.Errorf("%s: fusable but no cost", name)
						}
						continue
					}
					q, err := fuse(p, []fuseSpan{sp})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					grp := q.Groups[0]
					if add != nil {
						c := "skip elsewhere"
						switch {
						case grp.In == grp.Out:
							c = "skip is input and output"
						case add.skipBuf == grp.Out:
							c = "skip is output"
						case add.skipBuf == grp.In && grp.MinShift >= 0:
							c = "skip is input, output tied below"
						case add.skipBuf == grp.In:
							c = "skip is input"
						}
						cases[c]++
						if mode == "notInPlace" {
							cases[c+", notInPlace"]++
						}
						t.Logf("%s: %s (MinShift %d)", name, c, grp.MinShift)
					}
					ql, err := layout.Make(q, nil, layout.Options{})
					if err != nil {
						t.Fatal(err)
					}
					if err := simulateGroups(q, ql); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					got, err := difftest.RunPlanned(q, ql, x.Raw())
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got[0], want[0]) {
						t.Errorf("%s: fused and layer-by-layer outputs differ", name)
					}
					if add == nil {
						continue
					}
					// The generated code of the group, built and run below.
					pkg := fmt.Sprintf("r%d", len(pkgs))
					res, err := difftest.Emit(q, nil, difftest.EmitOptions{Package: pkg, NoTests: true})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					pkgs = append(pkgs, e2e.Package{Name: pkg, Files: res.Files})
					jobs = append(jobs, e2e.Job{Package: pkg, Inputs: [][]byte{x.Raw()}, Invokes: 1})
					wants = append(wants, want[0])
				}
			}
		}
	}
	for _, c := range []string{"skip is input and output", "skip is output", "skip elsewhere", "skip is input, output tied below", "skip is input, output tied below, notInPlace"} {
		if cases[c] == 0 {
			t.Errorf("no span where %s", c)
		}
	}
	runPackages(t, pkgs, jobs, wants)
}

// planSimulateRun lowers g with opt, plans it, replays its fused groups
// byte by byte (simulateGroups) and runs it on input x: the program, its
// layout and output 0.
func planSimulateRun(t *testing.T, g *model.Graph, opt Options, x []byte) (*program.Program, *layout.Layout, []byte) {
	t.Helper()
	p, lay := planSimulate(t, g, opt)
	got, err := difftest.RunPlanned(p, lay, x)
	if err != nil {
		t.Fatal(err)
	}
	return p, lay, got[0]
}

// planSimulate lowers g with opt, plans it and replays its fused groups
// byte by byte (simulateGroups).
func planSimulate(t *testing.T, g *model.Graph, opt Options) (*program.Program, *layout.Layout) {
	t.Helper()
	p, _, err := Program(g, opt)
	if err != nil {
		t.Fatal(err)
	}
	lay, err := layout.Make(p, nil, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := simulateGroups(p, lay); err != nil {
		t.Fatal(err)
	}
	return p, lay
}

// runPackages builds the generated packages and runs the jobs (one input
// and one Invoke each): output 0 of job k must be wants[k], the
// layer-by-layer output. Skipped with -short.
func runPackages(t *testing.T, pkgs []e2e.Package, jobs []e2e.Job, wants [][]byte) {
	t.Helper()
	if testing.Short() {
		t.Skip("skipping the build of the generated packages with -short")
	}
	mod, err := e2e.Build(t.TempDir(), pkgs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := mod.Run(jobs)
	if err != nil {
		t.Fatal(err)
	}
	for k, r := range res {
		if !slices.Equal(r.Outputs[0][0], wants[k]) {
			t.Errorf("package %s: the generated code's output differs from layer by layer", jobs[k].Package)
		}
	}
}
