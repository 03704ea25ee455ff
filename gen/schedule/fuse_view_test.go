package schedule

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// reshape adds a RESHAPE of x to h x w x c (the new shape as a constant
// input, as converters write it).
func (nb *netBuilder) reshape(x, h, w, c int) int {
	y := nb.tensor(h, w, c, nb.q[x])
	shape := nb.m.ConstI32(fmt.Sprint("s", nb.n), []int{4}, nil, []int32{1, int32(h), int32(w), int32(c)})
	nb.m.Op(model.OpReshape, []int{x, shape}, []int{y}, nil)
	return y
}

// transposeWC adds a TRANSPOSE of x's width and channels (perm
// [0, 1, 3, 2]).
func (nb *netBuilder) transposeWC(x int) int {
	y := nb.tensor(nb.h[x], nb.c[x], nb.w[x], nb.q[x])
	perm := nb.m.ConstI32(fmt.Sprint("perm", nb.n), []int{4}, nil, []int32{0, 1, 3, 2})
	nb.m.Op(model.OpTranspose, []int{x, perm}, []int{y}, nil)
	return y
}

// sliceC adds a SLICE of channels [c0, c0+n) of x.
func (nb *netBuilder) sliceC(x, c0, n int) int {
	y := nb.tensor(nb.h[x], nb.w[x], n, nb.q[x])
	begin := nb.m.ConstI32(fmt.Sprint("begin", nb.n), []int{4}, nil, []int32{0, 0, 0, int32(c0)})
	size := nb.m.ConstI32(fmt.Sprint("size", nb.n), []int{4}, nil, []int32{1, int32(nb.h[x]), int32(nb.w[x]), int32(n)})
	nb.m.Op(model.OpSlice, []int{x, begin, size}, []int{y}, nil)
	return y
}

// viewNet has RESHAPEs between convolutions: two that keep the rows
// (width and channels regrouped: [1,20,16,8] -> [1,20,8,16], and
// [1,10,4,8] -> [1,10,32,1]) and one that does not ([1,10,32,1] ->
// [1,5,64,1]: two rows make one).
func viewNet(r *rand.Rand) ([]byte, int) {
	nb, x := newNet(r, "row views", 20, 16, 4)
	in := x
	x = nb.conv(x, 8, 3, 3, 1, false, true)
	x = nb.reshape(x, 20, 8, 16)
	x = nb.conv(x, 0, 3, 3, 2, true, true)
	x = nb.conv(x, 8, 1, 1, 1, false, true)
	x = nb.reshape(x, 10, 32, 1)
	x = nb.conv(x, 4, 3, 3, 1, false, true)
	x = nb.conv(x, 1, 3, 3, 1, false, false)
	x = nb.reshape(x, 5, 64, 1)
	x = nb.conv(x, 2, 3, 3, 1, false, true)
	nb.m.IO([]int{in}, []int{x})
	return nb.m.Bytes(), 20 * 16 * 4
}

// moveNet has a TRANSPOSE of width and channels and a SLICE of channels
// between convolutions, where the activations are largest, and a
// RESHAPE that regroups width and channels at the end.
func moveNet(r *rand.Rand) ([]byte, int) {
	nb, x := newNet(r, "row moves", 12, 10, 4)
	in := x
	x = nb.conv(x, 16, 3, 3, 1, false, true)
	x = nb.transposeWC(x)
	x = nb.conv(x, 16, 3, 3, 1, false, true)
	x = nb.sliceC(x, 3, 8)
	x = nb.conv(x, 8, 3, 3, 2, false, true)
	x = nb.reshape(x, 6, 16, 4)
	x = nb.conv(x, 4, 1, 1, 1, false, false)
	nb.m.IO([]int{in}, []int{x})
	return nb.m.Bytes(), 12 * 10 * 4
}

// TestFusedRowView: an operator that moves bytes within rows joins
// chains anywhere: a group steps over a RESHAPE whose rows are its
// input's (its reader reads its input's line), a TRANSPOSE of width and channels and a SLICE of
// channels read their band's rows only. Every span through one of them
// that can be fused is fused alone, replayed byte by byte and run to the
// layer-by-layer output (the short ones also as generated code); a
// RESHAPE that mixes rows has no band form, and layout.txt's reason says
// so; the default build fuses across them, gives the same output, and its
// arena is smaller than with RESHAPEs cutting chains and the copies
// reading their whole input.
func TestFusedRowView(t *testing.T) {
	for _, net := range []struct {
		name  string
		build func(*rand.Rand) ([]byte, int)
		views []int // the RESHAPEs that keep rows
		// mixing is the RESHAPE that mixes rows (-1: none).
		mixing, minSpans, minJoined int
	}{
		{"views", viewNet, []int{1, 4}, 7, 8, 1},
		{"moves", moveNet, []int{5}, -1, 15, 2},
	} {
		t.Run(net.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(8, 25))
			data, n := net.build(r)
			x := difftest.RandVals(r, model.Int8, n)
			g, err := model.Parse(net.name+".tflite", data)
			if err != nil {
				t.Fatal(err)
			}
			mover := func(i int) bool {
				c := g.Ops[i].Code
				return c == model.OpReshape || c == model.OpTranspose || c == model.OpSlice
			}
			p, lay, want := planSimulateRun(t, g, Options{}, x.Raw())
			var views []int
			for i := range g.Ops {
				if isRowView(p, i) {
					views = append(views, i)
				}
			}
			if !slices.Equal(views, net.views) {
				t.Fatalf("row views %v, want operators %v", views, net.views)
			}
			fp := newFusePlanner(p, nil, 0, nil)
			for i := range g.Ops {
				b := fp.band[i]
				switch {
				case !mover(i):
				case i == net.mixing:
					if b != nil {
						t.Errorf("operator %d (RESHAPE of two rows into one) has a band form", i)
					}
				case g.Ops[i].Code == model.OpReshape:
					if b == nil || !b.view || !b.folded {
						t.Errorf("operator %d (RESHAPE): band form %+v, want a view a group steps over", i, b)
					}
				case b == nil || b.stride != 1 || b.pad != 0 || b.span != 1:
					t.Errorf("operator %d (%s): band form %+v, want each output row from its input row", i, g.Ops[i].Code, b)
				}
			}
			var runs spanRuns
			spans := 0
			for i := range p.Ops {
				for j := i + 1; j < len(p.Ops); j++ {
					sp := fuseSpan{i, j}
					if fp.band[j] != nil && fp.band[j].view {
						continue // a group does not end with a view
					}
					if !fp.fusable(sp) {
						break
					}
					if fp.group(sp) < 0 || !slices.ContainsFunc(g.Ops[i:j+1], func(op *model.Op) bool { return mover(op.Index) }) {
						continue
					}
					spans++
					f, _ := checkSpan(t, "", p, sp, x.Raw(), want)
					if j-i <= 2 {
						runs.add(t, f, fmt.Sprintf("v%d", len(runs.pkgs)), x.Raw(), want)
					}
				}
			}
			if spans < net.minSpans {
				t.Errorf("%d spans through a RESHAPE, TRANSPOSE or SLICE fused, want at least %d", spans, net.minSpans)
			}
			noRowViews, noRowMoves = true, true
			b, bl, _ := planSimulateRun(t, g, Options{Fuse: true}, x.Raw())
			noRowViews, noRowMoves = false, false
			before := bl.Plan.Size
			d, dl, got := planSimulateRun(t, g, Options{Fuse: true}, x.Raw())
			if !slices.Equal(got, want) {
				t.Errorf("default and layer-by-layer outputs differ")
			}
			joined := 0
			for _, grp := range d.Groups {
				t.Logf("fused group: operators %d-%d", grp.First, grp.Last)
				for i := grp.First + 1; i < grp.Last; i++ {
					if mover(i) {
						joined++
					}
					if view := g.Ops[i].Code == model.OpReshape; view != d.ViewInGroup(&grp, i) {
						t.Errorf("operator %d (%s): ViewInGroup %v", i, g.Ops[i].Code, !view)
					}
				}
			}
			t.Logf("arena %d bytes layer by layer, %d default with RESHAPEs cutting chains and copies read whole (%d fused groups), %d now (%d fused groups, %d of these operators inside them); %d spans checked",
				lay.Plan.Size, before, len(b.Groups), dl.Plan.Size, len(d.Groups), joined, spans)
			if joined < net.minJoined {
				t.Errorf("%d RESHAPEs, TRANSPOSEs or SLICEs inside fused groups, want at least %d", joined, net.minJoined)
			}
			if dl.Plan.Size >= before {
				t.Errorf("arena %d, not smaller than %d with RESHAPEs cutting chains and copies read whole", dl.Plan.Size, before)
			}
			if net.mixing >= 0 {
				found := false
				for _, a := range d.Apart {
					if a.Op == net.mixing || a.Op == net.mixing+1 {
						found = true
						if !strings.Contains(a.Why, "view of its input (no code) whose rows are not") {
							t.Errorf("operator %d apart: %q, want the RESHAPE called a view whose rows are not its input's", a.Op, a.Why)
						}
					}
				}
				if !found {
					t.Errorf("no reason given for operator %d or %d running apart", net.mixing, net.mixing+1)
				}
			}
			runPackages(t, runs.pkgs, runs.jobs, runs.wants)
		})
	}
}

// randRowNet is a random network of 4-9 layers on a small image:
// convolutions and depthwise convolutions (SAME, stride 1 or 2), RESHAPEs
// that regroup width and channels, TRANSPOSEs of width and channels,
// SLICEs of channels and residual ADDs whose skip operand may be a view.
func randRowNet(r *rand.Rand) ([]byte, int) {
	h, w, c := 6+r.IntN(10), 4+r.IntN(8), 2+r.IntN(4)
	nb, x := newNet(r, "random row moves", h, w, c)
	in := x
	x = nb.conv(x, 2*(1+r.IntN(4)), 3, 3, 1, false, true)
	for range 4 + r.IntN(6) {
		switch r.IntN(6) {
		case 0:
			x = nb.conv(x, 2*(1+r.IntN(4)), 1+2*r.IntN(2), 1+2*r.IntN(2), 1+r.IntN(2), false, r.IntN(2) == 0)
		case 1:
			x = nb.conv(x, 0, 3, 3, 1+r.IntN(2), true, true)
		case 2:
			// A regrouping of the row's elements: width halved or
			// doubled where it divides.
			wc := nb.w[x] * nb.c[x]
			nw := nb.w[x] * 2
			if nb.w[x]%2 == 0 && r.IntN(2) == 0 {
				nw = nb.w[x] / 2
			}
			if wc%nw != 0 {
				nw = wc
			}
			x = nb.reshape(x, nb.h[x], nw, wc/nw)
		case 3:
			x = nb.transposeWC(x)
		case 4:
			if nb.c[x] > 1 {
				n := 1 + r.IntN(nb.c[x]-1)
				x = nb.sliceC(x, r.IntN(nb.c[x]-n+1), n)
			}
		case 5:
			// A residual block over x, or over a view of x.
			skip := x
			if nb.w[x]%2 == 0 && r.IntN(2) == 0 {
				skip = nb.reshape(x, nb.h[x], nb.w[x]/2, nb.c[x]*2)
			}
			y := nb.conv(skip, nb.c[skip], 3, 3, 1, false, true)
			x = nb.add(y, skip)
		}
	}
	x = nb.conv(x, 3, 3, 3, 1, false, false)
	nb.m.IO([]int{in}, []int{x})
	return nb.m.Bytes(), h * w * c
}

// TestFusedRowMovesRandom: random networks with RESHAPEs, TRANSPOSEs and
// SLICEs that keep rows (randRowNet): every span of up to 6 operators
// through one of them, fused alone, and the default build, their fused
// groups replayed byte by byte, give the layer-by-layer output, and the
// default arena is no larger than with those operators cutting chains.
func TestFusedRowMovesRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 6))
	through := 0 // groups through one of these operators
	spans := 0   // spans through them checked alone
	mover := func(c model.OpCode) bool {
		return c == model.OpReshape || c == model.OpTranspose || c == model.OpSlice
	}
	for k := range 60 {
		data, n := randRowNet(r)
		x := difftest.RandVals(r, model.Int8, n)
		g, err := model.Parse(fmt.Sprintf("rows%d.tflite", k), data)
		if err != nil {
			t.Fatal(err)
		}
		p, _, want := planSimulateRun(t, g, Options{}, x.Raw())
		// Every span through one of these operators, fused alone.
		fp := newFusePlanner(p, nil, 0, nil)
		for i := range p.Ops {
			for j := i + 1; j < len(p.Ops) && j-i < 6; j++ {
				sp := fuseSpan{i, j}
				if fp.band[j] != nil && fp.band[j].view {
					continue
				}
				if !fp.fusable(sp) {
					break
				}
				if fp.group(sp) >= 0 && slices.ContainsFunc(g.Ops[i:j+1], func(op *model.Op) bool { return mover(op.Code) }) {
					checkSpan(t, fmt.Sprintf("network %d ", k), p, sp, x.Raw(), want)
					spans++
				}
			}
		}
		noRowViews, noRowMoves = true, true
		_, bl, _ := planSimulateRun(t, g, Options{Fuse: true}, x.Raw())
		noRowViews, noRowMoves = false, false
		d, dl, got := planSimulateRun(t, g, Options{Fuse: true}, x.Raw())
		if !slices.Equal(got, want) {
			t.Fatalf("network %d: default and layer-by-layer outputs differ", k)
		}
		if dl.Plan.Size > bl.Plan.Size {
			t.Errorf("network %d: arena %d, larger than %d with these operators cutting chains", k, dl.Plan.Size, bl.Plan.Size)
		}
		for _, grp := range d.Groups {
			if slices.ContainsFunc(g.Ops[grp.First+1:grp.Last], func(op *model.Op) bool { return mover(op.Code) }) {
				through++
			}
		}
	}
	t.Logf("%d fused groups through a RESHAPE, TRANSPOSE or SLICE in 60 networks; %d spans through them fused alone and checked", through, spans)
	if spans < 200 {
		t.Errorf("%d spans through a RESHAPE, TRANSPOSE or SLICE checked, want at least 200", spans)
	}
	if through < 10 {
		t.Errorf("%d fused groups through a RESHAPE, TRANSPOSE or SLICE, want at least 10", through)
	}
}
