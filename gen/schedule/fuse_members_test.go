package schedule

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/lower"
	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// unary adds an elementwise operator of x's shape: HARD_SWISH, RELU,
// LEAKY_RELU (alpha 0.1), LOGISTIC (output 1/256, -128, as TFLM wants) or
// QUANTIZE (int8 to int8: a new scale), each with a new output
// quantization.
func (nb *netBuilder) unary(x int, code model.OpCode) int {
	q := builder.PerTensor(0.02+0.02*nb.r.Float32(), int64(nb.r.IntN(64)-32))
	if code == model.OpLogistic {
		q = builder.PerTensor(1.0/256, -128)
	}
	y := nb.tensor(nb.h[x], nb.w[x], nb.c[x], q)
	var opts *builder.Options
	if code == model.OpLeakyRelu {
		opts = &builder.Options{Type: model.UnionLeakyReluOptions, Fields: []builder.Field{builder.Float(model.LeakyReluOptionsAlpha, 0.1)}}
	}
	nb.m.Op(code, []int{x}, []int{y}, opts)
	return y
}

// mobileNetV3 is MobileNet V3-style: convolutions without a fused
// activation, each followed by a HARD_SWISH (or RELU) operator of its own,
// inverted residual blocks, on a 48x48x3 image.
func mobileNetV3(r *rand.Rand) ([]byte, int) {
	nb, x := newNet(r, "mobilenet v3 style", 48, 48, 3)
	in := x
	x = nb.unary(nb.conv(x, 16, 3, 3, 2, false, false), model.OpHardSwish)
	for _, b := range []invertedBlock{{1, 16, 1, model.OpRelu}, {4, 24, 2, model.OpRelu}, {3, 24, 1, model.OpHardSwish}, {4, 32, 2, model.OpHardSwish}} {
		x = nb.inverted(x, b, false)
	}
	x = nb.avgPoolAll(x)
	nb.m.IO([]int{in}, []int{x})
	return nb.m.Bytes(), 48 * 48 * 3
}

// floatIO is an int8 network between float32 input and output: QUANTIZE
// first, DEQUANTIZE last, and in between LEAKY_RELU, LOGISTIC, RELU and an
// int8 to int8 QUANTIZE, each an operator of its own.
func floatIO(r *rand.Rand) ([]byte, int) {
	nb := &netBuilder{m: builder.New("float io"), r: r, h: map[int]int{}, w: map[int]int{}, c: map[int]int{}, q: map[int]*builder.Quant{}}
	in := nb.m.Tensor("input", model.Float32, []int{1, 20, 16, 3}, nil)
	x := nb.tensor(20, 16, 3, builder.PerTensor(0.03, 5))
	nb.m.Op(model.OpQuantize, []int{in}, []int{x}, nil)
	x = nb.unary(nb.conv(x, 24, 3, 3, 1, false, false), model.OpLeakyRelu)
	x = nb.unary(nb.conv(x, 0, 3, 3, 1, true, false), model.OpLogistic)
	x = nb.unary(nb.conv(x, 8, 1, 1, 1, false, false), model.OpRelu)
	x = nb.unary(x, model.OpQuantize)
	x = nb.conv(x, 6, 3, 3, 2, false, true)
	out := nb.m.Tensor("output", model.Float32, []int{1, nb.h[x], nb.w[x], nb.c[x]}, nil)
	nb.m.Op(model.OpDequantize, []int{x}, []int{out}, nil)
	nb.m.IO([]int{in}, []int{out})
	return nb.m.Bytes(), 20 * 16 * 3
}

// TestFusedUnarySpans: every span of the two networks above that can be
// fused (their elementwise operators given buffers of their own, as fusion
// does) is simulated byte by byte and gives the layer-by-layer outputs, in
// the planned program and in the generated code; and the default build
// fuses chains through the elementwise operators, with an arena no larger
// than without them in chains.
func TestFusedUnarySpans(t *testing.T) {
	nets := []struct {
		name  string
		build func(*rand.Rand) ([]byte, int)
		in    model.DType
	}{{"mobilenet_v3", mobileNetV3, model.Int8}, {"float_io", floatIO, model.Float32}}
	var runs spanRuns
	for _, net := range nets {
		r := rand.New(rand.NewPCG(5, 2))
		data, n := net.build(r)
		x := difftest.RandVals(r, net.in, n)
		if net.in == model.Float32 {
			// Inputs of the range the network was quantized for.
			for i := range x.Flts {
				x.Flts[i] = float32(r.NormFloat64())
			}
		}
		g, err := model.Parse(net.name+".tflite", data)
		if err != nil {
			t.Fatal(err)
		}
		p, lay, want0 := planSimulateRun(t, g, Options{}, x.Raw())
		want := [][]byte{want0}
		unary, _ := bandInPlace(p)
		if len(unary) == 0 {
			t.Fatalf("%s: no elementwise operator in place", net.name)
		}
		q, _, err := Program(g, Options{Lower: lower.Options{NotInPlace: unary}})
		if err != nil {
			t.Fatal(err)
		}
		fp := newFusePlanner(q, nil, 0, nil)
		spans := 0
		for i := range q.Ops {
			for j := i + 1; j < len(q.Ops) && fp.fusable(fuseSpan{i, j}); j++ {
				sp := fuseSpan{i, j}
				hasUnary := false
				for _, b := range fp.band[i : j+1] {
					hasUnary = hasUnary || b.kind == bandUnary
				}
				if fp.group(sp) < 0 || !hasUnary {
					continue
				}
				spans++
				f, _ := checkSpan(t, net.name+" ", q, sp, x.Raw(), want[0])
				if j-i <= 2 {
					// The generated code of the short groups, built and run below.
					runs.add(t, f, fmt.Sprintf("u%d", len(runs.pkgs)), x.Raw(), want[0])
				}
			}
		}
		if spans == 0 {
			t.Errorf("%s: no span through an elementwise operator", net.name)
		}
		// The default build, and the same without elementwise operators
		// in chains.
		var before int
		withoutBands(bandUnary, func() {
			b, _, err := Program(g, Options{Fuse: true})
			if err != nil {
				t.Fatal(err)
			}
			bl, err := layout.Make(b, nil, layout.Options{})
			if err != nil {
				t.Fatal(err)
			}
			before = bl.Plan.Size
		})
		d, dl, got := planSimulateRun(t, g, Options{Fuse: true}, x.Raw())
		if !slices.Equal(got, want[0]) {
			t.Errorf("%s: default and layer-by-layer outputs differ", net.name)
		}
		joined := 0
		for _, grp := range d.Groups {
			for i := grp.First; i <= grp.Last; i++ {
				if unary[i] {
					joined++
				}
			}
		}
		if joined == 0 {
			t.Errorf("%s: no elementwise operator joined a fused group", net.name)
		}
		t.Logf("%s: arena %d bytes layer by layer, %d default with no elementwise operator in chains, %d now (%d fused groups, %d of %d in-place elementwise operators in them); %d spans checked",
			net.name, lay.Plan.Size, before, dl.Plan.Size, len(d.Groups), joined, len(unary), spans)
		if dl.Plan.Size >= before {
			t.Errorf("%s: arena %d, not smaller than %d without elementwise operators in chains", net.name, dl.Plan.Size, before)
		}
	}
	runPackages(t, runs.pkgs, runs.jobs, runs.wants)
}

// withoutBands runs f with the kernel calls of one band kind running
// whole (no test of this package runs in parallel).
func withoutBands(kind bandKind, f func()) {
	defer func() { withoutBand = 0 }()
	withoutBand = kind
	f()
}

// TestFusedSwappedResidual: the ResNet-style network with its ADDs'
// operands swapped (ADD(y, x): in place, the output would take over y,
// the chain operand) fuses as with ADD(x, y): the same arena, the outputs
// of layer by layer.
func TestFusedSwappedResidual(t *testing.T) {
	arena := map[bool]int{}
	for _, swap := range []bool{false, true} {
		r := rand.New(rand.NewPCG(3, 3))
		data, n := resNetOrder(r, swap)
		x := difftest.RandVals(r, model.Int8, n)
		g, err := model.Parse("resnet.tflite", data)
		if err != nil {
			t.Fatal(err)
		}
		var outs [2][]byte
		for k, fused := range []bool{false, true} {
			p, lay, got := planSimulateRun(t, g, Options{Fuse: fused}, x.Raw())
			outs[k] = got
			if fused {
				arena[swap] = lay.Plan.Size
				t.Logf("swapped %v: arena %d bytes, %d fused groups", swap, lay.Plan.Size, len(p.Groups))
			}
		}
		if !slices.Equal(outs[0], outs[1]) {
			t.Errorf("swapped %v: default and layer-by-layer outputs differ", swap)
		}
	}
	if arena[true] != arena[false] {
		t.Errorf("arena %d with ADD(y, x), %d with ADD(x, y)", arena[true], arena[false])
	}
}

// torchInput is a network as converted from PyTorch with its NCHW input
// kept: a TRANSPOSE to NHWC first, then an explicit PAD, a VALID 3x3
// convolution of stride 2 to 8 channels, a depthwise-separable block and a global
// average pool, on a 3x40x32 image.
func torchInput(r *rand.Rand) ([]byte, int) {
	nb := &netBuilder{m: builder.New("nchw input"), r: r, h: map[int]int{}, w: map[int]int{}, c: map[int]int{}, q: map[int]*builder.Quant{}}
	q := builder.PerTensor(0.02, -3)
	in := nb.m.Tensor("input", model.Int8, []int{1, 3, 40, 32}, q)
	x := nb.tensor(40, 32, 3, q)
	perm := nb.m.ConstI32("perm", []int{4}, nil, []int32{0, 2, 3, 1})
	nb.m.Op(model.OpTranspose, []int{in, perm}, []int{x}, nil)
	x = nb.convPad(nb.pad(x, 1, 1, 1, 1), 8, 3, 3, 2, false, true, true)
	x = nb.conv(x, 0, 3, 3, 1, true, true)
	x = nb.conv(x, 16, 1, 1, 1, false, true)
	out := nb.avgPoolAll(x)
	nb.m.IO([]int{in}, []int{out})
	return nb.m.Bytes(), 3 * 40 * 32
}

// TestFusedTransposeInput: the TRANSPOSE of an NCHW input joins the first
// chain (a band of output rows gathers its rows from every channel plane
// of the input, kept whole): every span from it is simulated byte by byte
// and gives the layer-by-layer output, in the planned program and in the
// generated code, and the default build's arena is smaller than without
// the TRANSPOSE in the chain.
func TestFusedTransposeInput(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 1))
	data, n := torchInput(r)
	x := difftest.RandVals(r, model.Int8, n)
	g, err := model.Parse("nchw_input.tflite", data)
	if err != nil {
		t.Fatal(err)
	}
	p, lay, want := planSimulateRun(t, g, Options{}, x.Raw())
	fp := newFusePlanner(p, nil, 0, nil)
	if fp.band[0] == nil || fp.band[0].kind != bandMove {
		t.Fatalf("the TRANSPOSE cannot run in bands")
	}
	var runs spanRuns
	tied := 0 // spans whose output is tied over the NCHW input
	for j := 1; j < len(p.Ops) && fp.fusable(fuseSpan{0, j}); j++ {
		sp := fuseSpan{0, j}
		if fp.group(sp) < 0 {
			t.Errorf("ops 0-%d: fusable but no cost", j)
			continue
		}
		f, _ := checkSpan(t, "", p, sp, x.Raw(), want)
		if in := f.Buffers[f.Groups[0].In]; in.Tie != nil && f.Groups[0].MinShift > 0 {
			// The output over the NCHW input, as close as the
			// TRANSPOSE's reads allow (moveLowest): one alignment step
			// closer, a band reads a byte already overwritten.
			tied++
			closer := *f
			closer.Buffers = slices.Clone(f.Buffers)
			tie := *in.Tie
			tie.Shift -= 16
			closer.Buffers[f.Groups[0].In].Tie = &tie
			cl, err := layout.Make(&closer, nil, layout.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := simulateGroups(&closer, cl); err == nil {
				t.Errorf("ops 0-%d: the output 16 bytes closer to the input (%d bytes below it, at least %d needed) overwrites nothing still to be read", j, tie.Shift, f.Groups[0].MinShift)
			}
		}
		runs.add(t, f, fmt.Sprintf("tr%d", j), x.Raw(), want)
	}
	if len(runs.pkgs) < 3 || tied == 0 {
		t.Fatalf("%d spans from the TRANSPOSE (%d with the output over the input), want at least 3 (1)", len(runs.pkgs), tied)
	}
	var before int
	withoutBands(bandMove, func() {
		_, bl, _ := planSimulateRun(t, g, Options{Fuse: true}, x.Raw())
		before = bl.Plan.Size
	})
	d, dl, got := planSimulateRun(t, g, Options{Fuse: true}, x.Raw())
	if !slices.Equal(got, want) {
		t.Errorf("default and layer-by-layer outputs differ")
	}
	if len(d.Groups) == 0 || d.Groups[0].First != 0 {
		t.Errorf("no fused group starts at the TRANSPOSE")
	}
	t.Logf("arena %d bytes layer by layer, %d default without the TRANSPOSE in chains, %d now (%d fused groups); %d spans built and run",
		lay.Plan.Size, before, dl.Plan.Size, len(d.Groups), len(runs.pkgs))
	if dl.Plan.Size >= before {
		t.Errorf("arena %d, not smaller than %d without the TRANSPOSE in chains", dl.Plan.Size, before)
	}
	runPackages(t, runs.pkgs, runs.jobs, runs.wants)
}

// TestFusedSubMul: residual SUB and MUL (of the chain's output and a skip
// tensor of its shape, either operand order; MUL int8 through mulInt8, the
// kernel of gc builds: the DSP kernel's record holds the element count)
// join chains as ADD does: every span through them is simulated byte by
// byte and gives the layer-by-layer output, in the planned program and in
// the generated code.
func TestFusedSubMul(t *testing.T) {
	var pkgs []e2e.Package
	var jobs []e2e.Job
	var wants [][]byte
	for _, code := range []model.OpCode{model.OpSub, model.OpMul} {
		for _, swap := range []bool{false, true} {
			r := rand.New(rand.NewPCG(uint64(code), 7))
			nb, in := newNet(r, "residual "+code.String(), 10, 6, 4)
			x := nb.conv(in, 6, 1, 1, 1, false, true)
			y := nb.conv(nb.conv(x, 6, 3, 3, 1, true, true), 6, 1, 1, 1, false, false)
			a, b := x, y
			if swap {
				a, b = y, x
			}
			z := nb.tensor(nb.h[x], nb.w[x], nb.c[x], builder.PerTensor(0.03+0.02*nb.r.Float32(), int64(nb.r.IntN(64)-32)))
			nb.m.Op(code, []int{a, b}, []int{z}, nil)
			out := nb.conv(nb.conv(z, 5, 3, 3, 2, false, true), 3, 1, 1, 1, false, false)
			nb.m.IO([]int{in}, []int{out})
			data := nb.m.Bytes()
			xin := difftest.RandVals(r, model.Int8, 10*6*4)
			name := fmt.Sprintf("%s swap=%v", code, swap)
			g, err := model.Parse(name+".tflite", data)
			if err != nil {
				t.Fatal(err)
			}
			opt := Options{Kernels: lower.Kernels{GC: true}, Lower: lower.Options{NoShare: true}}
			p, _, want := planSimulateRun(t, g, opt, xin.Raw())
			fp := newFusePlanner(p, nil, 0, nil)
			if b := fp.band[3]; b == nil || b.kind != bandElems {
				t.Fatalf("%s: operator 3 (%s) cannot run in bands", name, p.Ops[3].Calls[0].Fn)
			}
			spans := 0
			for i := range p.Ops {
				for j := i + 1; j < len(p.Ops) && fp.fusable(fuseSpan{i, j}); j++ {
					if i > 3 || j < 3 || fp.group(fuseSpan{i, j}) < 0 {
						continue // spans through the SUB or MUL (operator 3)
					}
					spans++
					f, err := fuse(p, []fuseSpan{{i, j}})
					if err != nil {
						t.Fatalf("%s ops %d-%d: %v", name, i, j, err)
					}
					fl, err := layout.Make(f, nil, layout.Options{})
					if err != nil {
						t.Fatal(err)
					}
					if err := simulateGroups(f, fl); err != nil {
						t.Fatalf("%s ops %d-%d: %v", name, i, j, err)
					}
					got, err := difftest.RunPlanned(f, fl, xin.Raw())
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got[0], want) {
						t.Errorf("%s ops %d-%d: fused and layer-by-layer outputs differ", name, i, j)
					}
					pkg := fmt.Sprintf("sm%d", len(pkgs))
					res, err := difftest.Emit(f, nil, difftest.EmitOptions{Package: pkg, NoTests: true})
					if err != nil {
						t.Fatalf("%s ops %d-%d: %v", name, i, j, err)
					}
					pkgs = append(pkgs, e2e.Package{Name: pkg, Files: res.Files})
					jobs = append(jobs, e2e.Job{Package: pkg, Inputs: [][]byte{xin.Raw()}, Invokes: 1})
					wants = append(wants, want)
				}
			}
			if spans == 0 {
				t.Errorf("%s: no span through it", name)
			}
		}
	}
	runPackages(t, pkgs, jobs, wants)
}

// TestFusedGlobalPool: random int8, int16 and float32 chains ending in a
// global average pool or a MEAN over the pixels (randTypedChainPool), for
// the DSP build and gc's,
// fused in every span that ends at the pool: the pool runs as sums
// (asSums), every group replays byte by byte (simulateGroups) and the
// output equals layer by layer's, bit for bit; the default build's own
// choice too. Some of the spans are generated, built and run.
func TestFusedGlobalPool(t *testing.T) {
	var pkgs []e2e.Package
	var jobs []e2e.Job
	var wants [][]byte
	for _, dt := range []model.DType{model.Int8, model.Int16, model.Float32} {
		for _, gc := range []bool{false, true} {
			r := rand.New(rand.NewPCG(uint64(dt), 29))
			spans, chosen, means := 0, 0, 0
			for i := 0; i < 12; i++ {
				data, x, desc := randTypedChainPool(r, dt, true)
				name := fmt.Sprintf("%s gc=%v chain %d (%s)", dt, gc, i, desc)
				g, err := model.Parse("chain.tflite", data)
				if err != nil {
					t.Fatal(err)
				}
				p, _, want := planSimulateRun(t, g, Options{Kernels: lower.Kernels{GC: gc}, Lower: lower.Options{NoShare: true}}, x.Raw())
				last := len(p.Ops) - 1
				fp := newFusePlanner(p, nil, 0, nil)
				if b := fp.band[last]; b == nil || !b.global {
					t.Fatalf("%s: the pool (%s) is not a global pool in bands", name, p.Ops[last].Calls[0].Fn)
				}
				if fp.band[last].mean {
					means++
				}
				for first := last - 1; first >= 0 && fp.fusable(fuseSpan{first, last}); first-- {
					if fp.group(fuseSpan{first, last}) < 0 {
						continue
					}
					f, err := fuse(p, []fuseSpan{{first, last}})
					if err != nil {
						t.Fatalf("%s ops %d-%d: %v", name, first, last, err)
					}
					// As sums where that holds the pool's input in fewer
					// bytes (asSums), else as a window.
					if _, sums := fp.band[last].asSums(); f.Groups[0].Sums != sums {
						t.Fatalf("%s ops %d-%d: the pool runs as sums: %v, want %v", name, first, last, f.Groups[0].Sums, sums)
					} else if sums {
						spans++
					}
					fl, err := layout.Make(f, nil, layout.Options{})
					if err != nil {
						t.Fatal(err)
					}
					if err := simulateGroups(f, fl); err != nil {
						t.Fatalf("%s ops %d-%d: %v", name, first, last, err)
					}
					got, err := difftest.RunPlanned(f, fl, x.Raw())
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got[0], want) {
						t.Errorf("%s ops %d-%d: fused and layer-by-layer outputs differ", name, first, last)
					}
					if i < 2 {
						pkg := fmt.Sprintf("gp%d", len(pkgs))
						res, err := difftest.Emit(f, nil, difftest.EmitOptions{Package: pkg, NoTests: true})
						if err != nil {
							t.Fatalf("%s ops %d-%d: %v", name, first, last, err)
						}
						pkgs = append(pkgs, e2e.Package{Name: pkg, Files: res.Files})
						jobs = append(jobs, e2e.Job{Package: pkg, Inputs: [][]byte{x.Raw()}, Invokes: 1})
						wants = append(wants, want)
					}
				}
				// The default build, as it chooses.
				q, _, got := planSimulateRun(t, g, Options{Kernels: lower.Kernels{GC: gc}, Fuse: true}, x.Raw())
				if !slices.Equal(got, want) {
					t.Errorf("%s: default and layer-by-layer outputs differ", name)
				}
				for _, grp := range q.Groups {
					if grp.Sums {
						chosen++
					}
				}
			}
			t.Logf("%s gc=%v: %d spans through the pool run as sums; the default build chose the sums in %d of 12 chains (%d ending in MEAN)", dt, gc, spans, chosen, means)
			if spans == 0 || means == 0 {
				t.Errorf("%s gc=%v: %d spans end in the pool, %d chains in MEAN", dt, gc, spans, means)
			}
		}
	}
	runPackages(t, pkgs, jobs, wants)
}

// squeezeNet is a SqueezeNet-style network (32x32x3): a 3x3 convolution
// of stride 2, three fire modules (a max pool after the first), a 1x1
// convolution and a global average pool.
func squeezeNet(r *rand.Rand) ([]byte, int) {
	nb, in := newNet(r, "squeezenet", 32, 32, 3)
	x := nb.conv(in, 16, 3, 3, 2, false, true)
	x = nb.fire(x, 4, 8)
	x = nb.fire(x, 4, 8)
	x = nb.fire(x, 8, 16)
	x = nb.avgPoolAll(nb.conv(x, 10, 1, 1, 1, false, false))
	nb.m.IO([]int{in}, []int{x})
	return nb.m.Bytes(), 32 * 32 * 3
}

// denseNet is a DenseNet-style block (16x16x8): each layer's output
// concatenated to its input, the input read whole by the CONCATENATION.
func denseNet(r *rand.Rand) ([]byte, int) {
	nb, in := newNet(r, "densenet", 16, 16, 8)
	x := nb.conv(in, 8, 3, 3, 1, false, true)
	for k := 0; k < 3; k++ {
		nb.outQ = nb.q[x]
		y := nb.conv(nb.conv(x, 8, 1, 1, 1, false, true), 8, 3, 3, 1, false, true)
		nb.outQ = nil
		x = nb.concat(x, y)
	}
	x = nb.avgPoolAll(x)
	nb.m.IO([]int{in}, []int{x})
	return nb.m.Bytes(), 16 * 16 * 8
}

// TestFusedConcat: CONCATENATION along channels joins chains, its chain
// operand read by bands from its line and its other inputs whole: in
// SqueezeNet's fire modules (the 3x3 expansion's output a line, the
// concatenation's too, into the next squeeze) and a DenseNet block (the
// input concatenated with the layer's output). Every fusable span through
// a CONCATENATION is fused alone, replayed byte by byte (simulateGroups),
// run against layer by layer, and the short ones generated, built and
// run; the default build's arena is compared with the one without
// CONCATENATION in chains.
func TestFusedConcat(t *testing.T) {
	var pkgs []e2e.Package
	var jobs []e2e.Job
	var wants [][]byte
	for _, net := range []struct {
		name  string
		build func(*rand.Rand) ([]byte, int)
	}{{"squeezenet", squeezeNet}, {"densenet", denseNet}} {
		r := rand.New(rand.NewPCG(5, 11))
		data, n := net.build(r)
		x := difftest.RandVals(r, model.Int8, n)
		g, err := model.Parse(net.name+".tflite", data)
		if err != nil {
			t.Fatal(err)
		}
		p, lay, want := planSimulateRun(t, g, Options{Kernels: lower.Kernels{GC: true}, Lower: lower.Options{NoShare: true}}, x.Raw())
		fp := newFusePlanner(p, nil, 0, nil)
		spans, concats := 0, 0
		for i := range p.Ops {
			if g.Ops[i].Code != model.OpConcatenation {
				continue
			}
			concats++
			if b := fp.band[i]; b == nil || b.kind != bandConcat {
				t.Fatalf("%s: operator %d (CONCATENATION) cannot run in bands", net.name, i)
			}
			for first := i; first >= 0 && (first == i || fp.fusable(fuseSpan{first, i})); first-- {
				for last := max(i, first+1); last < len(p.Ops) && fp.fusable(fuseSpan{first, last}); last++ {
					if fp.group(fuseSpan{first, last}) < 0 {
						continue
					}
					spans++
					sp := fuseSpan{first, last}
					f, err := fuse(p, []fuseSpan{sp})
					if err != nil {
						t.Fatalf("%s ops %d-%d: %v", net.name, first, last, err)
					}
					checkFused(t, net.name, f, sp, x.Raw(), want)
					if last-first <= 2 && len(pkgs) < 12 {
						pkgs, jobs, wants = addPackage(t, "cc", pkgs, jobs, wants, f, x.Raw(), want)
					}
				}
			}
		}
		if spans == 0 {
			t.Errorf("%s: no span through a CONCATENATION (%d of them)", net.name, concats)
		}
		var before int
		fuseConcat = false
		_, bl, got := planSimulateRun(t, g, Options{Fuse: true}, x.Raw())
		fuseConcat = true
		before = bl.Plan.Size
		if !slices.Equal(got, want) {
			t.Errorf("%s: default (no CONCATENATION in chains) and layer-by-layer outputs differ", net.name)
		}
		d, dl, got := planSimulateRun(t, g, Options{Fuse: true}, x.Raw())
		if !slices.Equal(got, want) {
			t.Errorf("%s: default and layer-by-layer outputs differ", net.name)
		}
		t.Logf("%s: arena %d bytes layer by layer, %d default without CONCATENATION in chains, %d now (%d fused groups); %d spans through %d CONCATENATIONs checked",
			net.name, lay.Plan.Size, before, dl.Plan.Size, len(d.Groups), spans, concats)
		if dl.Plan.Size > before {
			t.Errorf("%s: arena %d, larger than %d without CONCATENATION in chains", net.name, dl.Plan.Size, before)
		}
	}
	runPackages(t, pkgs, jobs, wants)
}
