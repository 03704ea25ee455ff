package schedule

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/fold"
	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// dagLines counts the lines of p's groups read by more than the next
// operator (a branch or a residual operator's skip tensor).
func dagLines(p *program.Program) int {
	n := 0
	for _, grp := range p.Groups {
		for _, l := range grp.Lines {
			if l.Readers != nil {
				n++
			}
		}
	}
	return n
}

// TestFusedDAG: residual networks whose groups hold a residual block's
// input as a line read by the block's first operator and by its ADD (and,
// with a 1x1 shortcut convolution, by that branch too). Every span of
// operators that makes such a group is fused on its own, replayed byte by
// byte (simulateGroups: each band finds its rows in its lines, every row
// computed once) and run to the layer-by-layer output; so is the default
// build, whose arena is logged against the default build without DAG
// groups and must be no larger. The default packages and a few of the
// spans are generated, built and run.
func TestFusedDAG(t *testing.T) {
	var pkgs []e2e.Package
	var jobs []e2e.Job
	var wants [][]byte
	for _, net := range []struct {
		name  string
		build func(*rand.Rand) ([]byte, int)
		dag   bool // the default build has DAG groups
		arena int  // its arena, measured (a regression guard)
		fold  bool // its PADs folded into the convolutions (gen/fold)
	}{
		{"resnet_8", studyResNet8, true, 17680, false},
		{"resnet", resNet, true, 15792, false},
		{"resnet_swapped", func(r *rand.Rand) ([]byte, int) { return resNetOrder(r, true) }, true, 15792, false},
		{"mobilenet_v2_torch", mobileNetV2Torch, false, 15792, false},
		{"mobilenet_v2_torch_folded", mobileNetV2Torch, false, 14576, true},
		{"mobilenet_v3", mobileNetV3, true, 15520, false},
		{"squeezenet", squeezeNet, true, 3680, false},
	} {
		r := rand.New(rand.NewPCG(7, 13))
		data, n := net.build(r)
		x := difftest.RandVals(r, model.Int8, n)
		g, err := model.Parse(net.name+".tflite", data)
		if err != nil {
			t.Fatal(err)
		}
		if net.fold {
			g = fold.Pads(g)
		}
		_, lay, want := planSimulateRun(t, g, Options{}, x.Raw())
		fuseDAG = false
		_, bl, got := planSimulateRun(t, g, Options{Fuse: true}, x.Raw())
		fuseDAG = true
		if !slices.Equal(got, want) {
			t.Errorf("%s: default without DAG groups and layer-by-layer outputs differ", net.name)
		}
		d, dl, got := planSimulateRun(t, g, Options{Fuse: true}, x.Raw())
		if !slices.Equal(got, want) {
			t.Errorf("%s: default and layer-by-layer outputs differ", net.name)
		}
		// Every span making a DAG group, on the program whose residual
		// operators keep their output apart from their skip tensor (as
		// chooseSchedule estimates them).
		q, err := apartFromSkip(g)
		if err != nil {
			t.Fatal(err)
		}
		fp := newFusePlanner(q, nil, 0, nil)
		spans := 0
		for first := range q.Ops {
			for last := first + 1; last < len(q.Ops) && last-first < maxGroup; last++ {
				sp := fuseSpan{first, last}
				if !fp.fusable(sp) || fp.group(sp) < 0 {
					continue
				}
				f, err := fuse(q, []fuseSpan{sp})
				if err != nil {
					t.Fatalf("%s ops %d-%d: %v", net.name, first, last, err)
				}
				if dagLines(f) == 0 {
					continue
				}
				spans++
				checkFused(t, net.name, f, sp, x.Raw(), want)
				if spans%7 == 1 {
					pkgs, jobs, wants = addPackage(t, "dag", pkgs, jobs, wants, f, x.Raw(), want)
				}
			}
		}
		t.Logf("%s: arena %d bytes layer by layer, %d default without DAG groups, %d with (%d fused groups, %d lines read by more than the next operator); %d spans making DAG groups checked",
			net.name, lay.Plan.Size, bl.Plan.Size, dl.Plan.Size, len(d.Groups), dagLines(d), spans)
		if dl.Plan.Size > bl.Plan.Size {
			t.Errorf("%s: arena %d, larger than the %d without DAG groups", net.name, dl.Plan.Size, bl.Plan.Size)
		}
		if net.arena > 0 && dl.Plan.Size > net.arena {
			t.Errorf("%s: arena %d, larger than the %d measured", net.name, dl.Plan.Size, net.arena)
		}
		if net.dag {
			if dagLines(d) == 0 {
				t.Errorf("%s: the default build has no DAG group", net.name)
			}
			if spans == 0 {
				t.Errorf("%s: no span makes a DAG group", net.name)
			}
			pkgs, jobs, wants = addPackage(t, "dag", pkgs, jobs, wants, d, x.Raw(), want)
		}
	}
	runPackages(t, pkgs, jobs, wants)
}

// checkFused lays out f, span sp of a network's program fused on its own,
// replays its group byte by byte (simulateGroups) and runs it on input x:
// its output must be want, the layer-by-layer output.
func checkFused(t *testing.T, name string, f *program.Program, sp fuseSpan, x, want []byte) {
	t.Helper()
	fl, err := layout.Make(f, nil, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := simulateGroups(f, fl); err != nil {
		t.Fatalf("%s ops %d-%d: %v", name, sp.first, sp.last, err)
	}
	out, err := difftest.RunPlanned(f, fl, x)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out[0], want) {
		t.Errorf("%s ops %d-%d: fused and layer-by-layer outputs differ", name, sp.first, sp.last)
	}
}

// addPackage generates p as the next package of a runPackages batch
// (named prefix and a number), to run on input x to output want.
func addPackage(t *testing.T, prefix string, pkgs []e2e.Package, jobs []e2e.Job, wants [][]byte, p *program.Program, x, want []byte) ([]e2e.Package, []e2e.Job, [][]byte) {
	t.Helper()
	pkg := fmt.Sprintf("%s%d", prefix, len(pkgs))
	res, err := difftest.Emit(p, nil, difftest.EmitOptions{Package: pkg, NoTests: true})
	if err != nil {
		t.Fatalf("%s: %v", pkg, err)
	}
	return append(pkgs, e2e.Package{Name: pkg, Files: res.Files}), append(jobs, e2e.Job{Package: pkg, Inputs: [][]byte{x}, Invokes: 1}), append(wants, want)
}

// torchStem is the stem of a ResNet as PyTorch converts it, on a 64x64x3
// image: a PAD of 3 and a VALID 7x7 convolution of stride 2 with RELU
// (output zero point -128), a PAD of 1 (that zero point, the least int8
// value) and a VALID 3x3 max pool of stride 2, then a basic block of two
// padded 3x3 convolutions and a residual ADD, and a global average pool.
func torchStem(r *rand.Rand) ([]byte, int) {
	nb, x := newNet(r, "resnet stem from pytorch", 64, 64, 3)
	in := x
	nb.outQ = builder.PerTensor(0.03+0.01*r.Float32(), -128)
	y := nb.convPad(nb.pad(x, 3, 3, 3, 3), 16, 7, 7, 2, false, true, true)
	nb.outQ = nil
	p := nb.pad(y, 1, 1, 1, 1)
	y = nb.tensor((nb.h[p]-3)/2+1, (nb.w[p]-3)/2+1, nb.c[p], nb.q[p])
	nb.m.Op(model.OpMaxPool2D, []int{p}, []int{y}, &builder.Options{Type: model.UnionPool2DOptions, Fields: []builder.Field{
		builder.Byte(model.Pool2DOptionsPadding, 1), builder.Int(model.Pool2DOptionsStrideW, 2), builder.Int(model.Pool2DOptionsStrideH, 2),
		builder.Int(model.Pool2DOptionsFilterWidth, 3), builder.Int(model.Pool2DOptionsFilterHeight, 3), builder.Byte(model.Pool2DOptionsFusedActivationFunction, 0)}})
	b := nb.convPad(nb.pad(y, 1, 1, 1, 1), 16, 3, 3, 1, false, true, true)
	b = nb.convPad(nb.pad(b, 1, 1, 1, 1), 16, 3, 3, 1, false, false, true)
	x = nb.avgPoolAll(nb.add(y, b))
	nb.m.IO([]int{in}, []int{x})
	return nb.m.Bytes(), 64 * 64 * 3
}

// TestFoldedTorchStem: PyTorch's ResNet stem, its PADs folded into the
// convolutions and the max pool (gen/fold): every PAD folds, the default
// build's groups replay byte by byte, and its output equals the
// layer-by-layer build's of the graph as written; the arenas are logged.
func TestFoldedTorchStem(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	data, n := torchStem(r)
	x := difftest.RandVals(r, model.Int8, n)
	g, err := model.Parse("torch_stem.tflite", data)
	if err != nil {
		t.Fatal(err)
	}
	_, lay, want := planSimulateRun(t, g, Options{}, x.Raw())
	_, dl, _ := planSimulateRun(t, g, Options{Fuse: true}, x.Raw())
	gf := fold.Pads(g)
	for _, op := range g.Ops {
		if op.Code == model.OpPad && !gf.Ops[op.Index].Folded {
			t.Errorf("operator %d (PAD) is not folded", op.Index)
		}
	}
	p, fl, got := planSimulateRun(t, gf, Options{Fuse: true}, x.Raw())
	if !slices.Equal(got, want) {
		t.Errorf("folded default and layer-by-layer outputs differ")
	}
	t.Logf("arena %d bytes layer by layer, %d default, %d with the PADs folded (%d fused groups)", lay.Plan.Size, dl.Plan.Size, fl.Plan.Size, len(p.Groups))
	if fl.Plan.Size > dl.Plan.Size {
		t.Errorf("folded: arena %d, larger than the %d without", fl.Plan.Size, dl.Plan.Size)
	}
}
