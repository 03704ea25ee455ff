package schedule

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// mirrorPad adds a MIRROR_PAD of top, bottom, left and right rows and
// columns, REFLECT (mode 0) or SYMMETRIC (mode 1).
func (nb *netBuilder) mirrorPad(x, top, bottom, left, right, mode int) int {
	y := nb.tensor(nb.h[x]+top+bottom, nb.w[x]+left+right, nb.c[x], nb.q[x])
	pads := nb.m.ConstI32(fmt.Sprint("p", nb.n), []int{4, 2}, nil, []int32{0, 0, int32(top), int32(bottom), int32(left), int32(right), 0, 0})
	nb.m.Op(model.OpMirrorPad, []int{x, pads}, []int{y}, &builder.Options{Type: model.UnionMirrorPadOptions, Fields: []builder.Field{builder.Byte(model.MirrorPadOptionsMode, mode)}})
	return y
}

// styleNet is a fast style transfer or super-resolution network as
// TensorFlow writes it: a MIRROR_PAD before every VALID convolution
// (REFLECT of 4 before the 9x9 stem, of 1 before the 3x3 ones, one
// SYMMETRIC, and one whose bottom padding reaches past what TFLite allows,
// where TFLM repeats row 0), a strided convolution and a residual block.
func styleNet(r *rand.Rand) ([]byte, int) {
	nb, x := newNet(r, "style transfer", 26, 22, 3)
	in := x
	x = nb.convPad(nb.mirrorPad(x, 4, 4, 4, 4, 0), 8, 9, 9, 1, false, true, true)
	x = nb.convPad(nb.mirrorPad(x, 1, 1, 1, 1, 1), 12, 3, 3, 2, false, true, true)
	skip := x
	y := nb.convPad(nb.mirrorPad(x, 1, 1, 1, 1, 0), 12, 3, 3, 1, false, true, true)
	y = nb.convPad(nb.mirrorPad(y, 1, 1, 1, 1, 0), 12, 3, 3, 1, false, false, true)
	x = nb.add(y, skip)
	x = nb.convPad(nb.mirrorPad(x, 2, nb.h[x]+1, 0, 2, 0), 4, 3, 3, 1, false, false, true)
	nb.m.IO([]int{in}, []int{x})
	return nb.m.Bytes(), 26 * 22 * 3
}

// TestFusedMirrorPad: MIRROR_PAD joins chains. Every span of styleNet
// through a MIRROR_PAD that can be fused is fused alone, replayed byte by
// byte and run to the layer-by-layer output (the short ones also as
// generated code); every MIRROR_PAD has a row-band form, and the default
// build fuses MIRROR_PADs (where that lowers its estimated peak: here 4 of
// the 5, the one before the residual block's first convolution is left
// apart, as layout.txt says), with the same output and an arena smaller
// than with MIRROR_PAD run whole.
func TestFusedMirrorPad(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 21))
	data, n := styleNet(r)
	x := difftest.RandVals(r, model.Int8, n)
	g, err := model.Parse("style.tflite", data)
	if err != nil {
		t.Fatal(err)
	}
	mirror := func(i int) bool { return g.Ops[i].Code == model.OpMirrorPad }
	p, lay, want := planSimulateRun(t, g, Options{}, x.Raw())
	fp := newFusePlanner(p, nil, 0, nil)
	var runs spanRuns
	spans := 0
	for i := range p.Ops {
		for j := i + 1; j < len(p.Ops) && fp.fusable(fuseSpan{i, j}); j++ {
			sp := fuseSpan{i, j}
			if fp.group(sp) < 0 || !slices.ContainsFunc(fp.band[i:j+1], func(b *bandOp) bool { return b.kind == bandMirror }) {
				continue
			}
			spans++
			f, _ := checkSpan(t, "", p, sp, x.Raw(), want)
			if j-i <= 2 {
				runs.add(t, f, fmt.Sprintf("m%d", len(runs.pkgs)), x.Raw(), want)
			}
		}
	}
	mirrors := 0
	for i := range g.Ops {
		if mirror(i) {
			mirrors++
			if fp.band[i] == nil || fp.band[i].kind != bandMirror {
				t.Errorf("operator %d (MIRROR_PAD) has no row-band form", i)
			}
		}
	}
	if spans < mirrors {
		t.Errorf("%d spans through a MIRROR_PAD fused, fewer than its %d MIRROR_PADs", spans, mirrors)
	}
	var before int
	withoutBands(bandMirror, func() {
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
	if !slices.Equal(got, want) {
		t.Errorf("default and layer-by-layer outputs differ")
	}
	joined := 0
	for _, grp := range d.Groups {
		for i := grp.First; i <= grp.Last; i++ {
			if mirror(i) {
				joined++
			}
		}
	}
	t.Logf("arena %d bytes layer by layer, %d default with MIRROR_PAD run whole, %d now (%d fused groups, %d of %d MIRROR_PADs in them); %d spans checked",
		lay.Plan.Size, before, dl.Plan.Size, len(d.Groups), joined, mirrors, spans)
	if joined == 0 {
		t.Errorf("no MIRROR_PAD joined a fused group")
	}
	if dl.Plan.Size >= before {
		t.Errorf("arena %d, not smaller than %d with MIRROR_PAD run whole", dl.Plan.Size, before)
	}
	runPackages(t, runs.pkgs, runs.jobs, runs.wants)
}

// checkSpan fuses span sp of p alone (of network name, "" or ending in
// a space), replays its group byte by byte
// (simulateGroups) and runs it, failing t unless its output is want.
func checkSpan(t *testing.T, name string, p *program.Program, sp fuseSpan, x, want []byte) (*program.Program, *layout.Layout) {
	t.Helper()
	name = fmt.Sprintf("%sops %d-%d", name, sp.first, sp.last)
	f, err := fuse(p, []fuseSpan{sp})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	fl, err := layout.Make(f, nil, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := simulateGroups(f, fl); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	got, err := difftest.RunPlanned(f, fl, x)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got[0], want) {
		t.Errorf("%s: fused and layer-by-layer outputs differ", name)
	}
	return f, fl
}

// spanRuns are generated packages of fused programs, with their inputs
// and expected outputs, for runPackages.
type spanRuns struct {
	pkgs  []e2e.Package
	jobs  []e2e.Job
	wants [][]byte
}

// add generates f as package pkg, to be run once on x and give want.
func (r *spanRuns) add(t *testing.T, f *program.Program, pkg string, x, want []byte) {
	t.Helper()
	res, err := difftest.Emit(f, nil, difftest.EmitOptions{Package: pkg, NoTests: true})
	if err != nil {
		t.Fatalf("%s: %v", pkg, err)
	}
	r.pkgs = append(r.pkgs, e2e.Package{Name: pkg, Files: res.Files})
	r.jobs = append(r.jobs, e2e.Job{Package: pkg, Inputs: [][]byte{x}, Invokes: 1})
	r.wants = append(r.wants, want)
}
