package schedule

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/fold"
	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// The four networks of issue 25's table, built with random weights in the
// shapes the issue names: the arenas TFLM and an earlier tflm-gen took on
// the real networks, the targets (the bound of a fused and
// overlapped schedule + 10%), and what the default build takes now.

// studyMobileNetV2 is MobileNet V2 (224x224, width 1.0) as converted from
// PyTorch: the NCHW input transposed, an explicit PAD before every 3x3
// convolution (VALID), residual ADDs.
func studyMobileNetV2(r *rand.Rand) ([]byte, int) {
	nb := &netBuilder{m: builder.New("mobilenet v2 224 from pytorch"), r: r, h: map[int]int{}, w: map[int]int{}, c: map[int]int{}, q: map[int]*builder.Quant{}}
	q := builder.PerTensor(0.02, -3)
	in := nb.m.Tensor("input", model.Int8, []int{1, 3, 224, 224}, q)
	x := nb.tensor(224, 224, 3, q)
	perm := nb.m.ConstI32("perm", []int{4}, nil, []int32{0, 2, 3, 1})
	nb.m.Op(model.OpTranspose, []int{in, perm}, []int{x}, nil)
	x = nb.convPad(nb.pad(x, 1, 1, 1, 1), 32, 3, 3, 2, false, true, true)
	for _, b := range []struct{ t, c, n, s int }{{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2}, {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}} {
		for k := 0; k < b.n; k++ {
			s := b.s
			if k > 0 {
				s = 1
			}
			x = nb.inverted(x, invertedBlock{b.t, b.c, s, 0}, true)
		}
	}
	x = nb.avgPoolAll(nb.conv(x, 1280, 1, 1, 1, false, true))
	nb.m.IO([]int{in}, []int{x})
	return nb.m.Bytes(), 3 * 224 * 224
}

// studyResNet8 is MLPerf Tiny's ResNet-8 (32x32x3; 16, 32 and 64
// channels; a 1x1 convolution of stride 2 on the downsampling shortcuts).
func studyResNet8(r *rand.Rand) ([]byte, int) {
	nb, x := newNet(r, "resnet-8", 32, 32, 3)
	in := x
	x = nb.conv(x, 16, 3, 3, 1, false, true)
	for _, c := range []int{16, 32, 64} {
		s := 1
		if c != 16 {
			s = 2
		}
		y := nb.conv(nb.conv(x, c, 3, 3, s, false, true), c, 3, 3, 1, false, false)
		if s == 2 {
			x = nb.conv(x, c, 1, 1, 2, false, false)
		}
		x = nb.add(x, y)
	}
	x = nb.avgPoolAll(x)
	nb.m.IO([]int{in}, []int{x})
	return nb.m.Bytes(), 32 * 32 * 3
}

// studyDSCNN is MLPerf Tiny's DS-CNN keyword network (49x10x1; a 10x4
// convolution of stride 2 to 64 channels, four depthwise-separable blocks
// of 64).
func studyDSCNN(r *rand.Rand) ([]byte, int) {
	nb, x := newNet(r, "ds-cnn", 49, 10, 1)
	in := x
	x = nb.conv(x, 64, 10, 4, 2, false, true)
	for k := 0; k < 4; k++ {
		x = nb.conv(nb.conv(x, 0, 3, 3, 1, true, true), 64, 1, 1, 1, false, true)
	}
	x = nb.avgPoolAll(x)
	nb.m.IO([]int{in}, []int{x})
	return nb.m.Bytes(), 49 * 10
}

// studyVWW is MobileNet V1 0.25 for visual wake words (96x96x3).
func studyVWW(r *rand.Rand) ([]byte, int) {
	nb, x := newNet(r, "mobilenet v1 0.25 vww", 96, 96, 3)
	in := x
	x = nb.conv(x, 8, 3, 3, 2, false, true)
	for _, b := range []struct{ c, s int }{{16, 1}, {32, 2}, {32, 1}, {64, 2}, {64, 1}, {128, 2}, {128, 1}, {128, 1}, {128, 1}, {128, 1}, {128, 1}, {256, 2}, {256, 1}} {
		x = nb.conv(nb.conv(x, 0, 3, 3, b.s, true, true), b.c, 1, 1, 1, false, true)
	}
	x = nb.avgPoolAll(x)
	nb.m.IO([]int{in}, []int{x})
	return nb.m.Bytes(), 96 * 96 * 3
}

// TestBoundStudyNetworks: the default build of the four networks, every
// fused group simulated byte by byte; the three smaller ones run, fused
// and layer by layer, to the same output. The arenas are logged against
// issue 25's figures, and each must meet its target. With the inputs and
// outputs outside the arena (-io external) each plan must come within 1%
// of its lower bound (MobileNet V2 224 was 15% above it before the order
// search of planner/repair.go), and no larger than ext, what it took when
// the fusion estimate stopped counting the inputs and outputs that live
// outside the arena (before: MobileNet V2 211,328, VWW 27,792; ResNet-8
// 26,928 before DAG groups held its residual blocks' inputs as lines, 26,928
// by default too, now 17,680; MobileNet V2 148,480 before its PADs were
// folded into the convolutions, 246,768 by default, now 231,184; a
// regression guard). The networks are planned as tflm-gen plans them, PADs
// folded (gen/fold).
func TestBoundStudyNetworks(t *testing.T) {
	for _, net := range []struct {
		name         string
		build        func(*rand.Rand) ([]byte, int)
		tflm, before int  // the figures for the real network
		target       int  // the target
		ext          int  // -io external, measured
		met          bool // asserted
		run          bool
	}{
		{"mobilenet_v2_224_torch", studyMobileNetV2, 2606896, 2451840, 307507, 131504, true, false},
		{"resnet_8", studyResNet8, 55712, 34304, 27667, 16080, true, true},
		{"ds_cnn", studyDSCNN, 24000, 10048, 8448, 6016, true, true},
		{"vww", studyVWW, 103392, 28176, 28176, 14448, true, true},
	} {
		t.Run(net.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(2, 5))
			data, n := net.build(r)
			g, err := model.Parse(net.name+".tflite", data)
			if err != nil {
				t.Fatal(err)
			}
			g = fold.Pads(g) // as tflm-gen generates it
			p, lay := planSimulate(t, g, Options{Fuse: true})
			t.Logf("%s: arena %d bytes (plan %s, lower bound %d; %d fused groups, %d overlapped pairs); the issue's target %d, TFLM %d and tflm-gen %d on the real network",
				net.name, lay.Plan.Size, lay.Plan.CertText(), lay.Plan.LowerBound, len(p.Groups), len(p.Overlaps), net.target, net.tflm, net.before)
			if net.met && lay.Plan.Size > net.target {
				t.Errorf("arena %d, above the target %d", lay.Plan.Size, net.target)
			}
			ext := layout.Options{ExternalIO: true}
			pe, _, err := Program(g, Options{Fuse: true, Plan: ext})
			if err != nil {
				t.Fatal(err)
			}
			le, err := layout.Make(pe, nil, ext)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s -io external: arena %d bytes, lower bound %d (%s)", net.name, le.Plan.Size, le.Plan.LowerBound, le.Plan.CertText())
			if le.Plan.Gap()*100 > le.Plan.LowerBound {
				t.Errorf("-io external: arena %d, more than 1%% above the lower bound %d", le.Plan.Size, le.Plan.LowerBound)
			}
			if le.Plan.Size > net.ext {
				t.Errorf("-io external: arena %d, above the %d measured before", le.Plan.Size, net.ext)
			}
			if !net.run {
				return
			}
			x := difftest.RandVals(r, model.Int8, n)
			got, err := difftest.RunPlanned(p, lay, x.Raw())
			if err != nil {
				t.Fatal(err)
			}
			_, _, want := planSimulateRun(t, g, Options{}, x.Raw())
			if !slices.Equal(got[0], want) {
				t.Errorf("default and layer-by-layer outputs differ")
			}
			// The memories laid end to end (as layout.txt draws them),
			// run as one arena.
			whole, plan := *le, *le.Plan
			for k, b := range pe.Buffers {
				plan.Size = max(plan.Size, plan.Offsets[k]+b.Size)
			}
			whole.Plan, whole.Pools, whole.PoolOf = &plan, nil, nil
			if got, err = difftest.RunPlanned(pe, &whole, x.Raw()); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got[0], want) {
				t.Errorf("-io external and layer-by-layer outputs differ")
			}
		})
	}
}
