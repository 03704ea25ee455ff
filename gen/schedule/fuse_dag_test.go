package schedule

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/fold"
	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/program"
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
