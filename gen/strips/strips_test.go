package strips

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/fold"
	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/lower"
	"github.com/tflm-gen/tflm-gen/gen/schedule"
	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// net builds random int8 image networks of the operators strips split.
type net struct {
	m       *builder.Model
	r       *rand.Rand
	n       int
	h, w, c map[int]int
	q       map[int]*builder.Quant
}

func newNet(r *rand.Rand, h, w, c int) (*net, int) {
	nt := &net{m: builder.New("strips case"), r: r, h: map[int]int{}, w: map[int]int{}, c: map[int]int{}, q: map[int]*builder.Quant{}}
	return nt, nt.tensor(h, w, c)
}

func (nt *net) tensor(h, w, c int) int {
	return nt.tensorQ(h, w, c, builder.PerTensor(0.02+0.02*nt.r.Float32(), int64(nt.r.IntN(64)-32)))
}

func (nt *net) tensorQ(h, w, c int, q *builder.Quant) int {
	t := nt.m.Tensor(fmt.Sprint("t", nt.n), model.Int8, []int{1, h, w, c}, q)
	nt.n++
	nt.h[t], nt.w[t], nt.c[t], nt.q[t] = h, w, c, q
	return t
}

// outSize is the output size of a window of span s and stride st over n,
// SAME or VALID (0 where VALID leaves none).
func outSize(n, s, st int, same bool) int {
	if same {
		return (n + st - 1) / st
	}
	return max((n-s)/st+1, 0)
}

// conv adds a CONV_2D or DEPTHWISE_CONV_2D; ok is false where the window
// does not fit.
func (nt *net) conv(x, oc, kh, kw, stride, dil int, dw, same bool) (int, bool) {
	h, w, c := nt.h[x], nt.w[x], nt.c[x]
	oh, ow := outSize(h, (kh-1)*dil+1, stride, same), outSize(w, (kw-1)*dil+1, stride, same)
	if oh < 1 || ow < 1 || (kh-1)*dil+1 > h || (kw-1)*dil+1 > w {
		return x, false
	}
	if dw {
		oc = c
	}
	y := nt.tensor(oh, ow, oc)
	shape := []int{oc, kh, kw, c}
	wq, bq := &builder.Quant{}, &builder.Quant{}
	if dw {
		shape, wq.Axis = []int{1, kh, kw, oc}, 3
	}
	bias := make([]int32, oc)
	for i := range oc {
		wq.Scale = append(wq.Scale, 0.002+0.004*nt.r.Float32())
		wq.ZeroPoint = append(wq.ZeroPoint, 0)
		bq.Scale = append(bq.Scale, nt.q[x].Scale[0]*wq.Scale[i])
		bq.ZeroPoint = append(bq.ZeroPoint, 0)
		bias[i] = int32(nt.r.IntN(2001) - 1000)
	}
	wt := nt.m.ConstI8(fmt.Sprint("w", nt.n), shape, wq, difftest.RandInt8s(nt.r, difftest.Elems(shape)))
	bt := nt.m.ConstI32(fmt.Sprint("b", nt.n), []int{oc}, bq, bias)
	pad := 1
	if same {
		pad = 0
	}
	act := nt.r.IntN(2) * 3
	if dw {
		nt.m.Op(model.OpDepthwiseConv2D, []int{x, wt, bt}, []int{y}, &builder.Options{Type: model.UnionDepthwiseConv2DOptions, Fields: []builder.Field{
			builder.Byte(model.DepthwiseConv2DOptionsPadding, pad), builder.Int(model.DepthwiseConv2DOptionsStrideW, stride), builder.Int(model.DepthwiseConv2DOptionsStrideH, stride), builder.Int(model.DepthwiseConv2DOptionsDepthMultiplier, 1), builder.Byte(model.DepthwiseConv2DOptionsFusedActivationFunction, act), builder.Int(model.DepthwiseConv2DOptionsDilationWFactor, dil), builder.Int(model.DepthwiseConv2DOptionsDilationHFactor, dil)}})
	} else {
		nt.m.Op(model.OpConv2D, []int{x, wt, bt}, []int{y}, &builder.Options{Type: model.UnionConv2DOptions, Fields: []builder.Field{
			builder.Byte(model.Conv2DOptionsPadding, pad), builder.Int(model.Conv2DOptionsStrideW, stride), builder.Int(model.Conv2DOptionsStrideH, stride), builder.Byte(model.Conv2DOptionsFusedActivationFunction, act), builder.Int(model.Conv2DOptionsDilationWFactor, dil), builder.Int(model.Conv2DOptionsDilationHFactor, dil)}})
	}
	return y, true
}

// pool adds a MAX_POOL_2D or AVERAGE_POOL_2D (same quantization).
func (nt *net) pool(x, k, stride int, avg, same bool) (int, bool) {
	oh, ow := outSize(nt.h[x], k, stride, same), outSize(nt.w[x], k, stride, same)
	if oh < 1 || ow < 1 || k > nt.h[x] || k > nt.w[x] {
		return x, false
	}
	y := nt.tensorQ(oh, ow, nt.c[x], nt.q[x])
	pad := 1
	if same {
		pad = 0
	}
	code := model.OpMaxPool2D
	if avg {
		code = model.OpAveragePool2D
	}
	nt.m.Op(code, []int{x}, []int{y}, &builder.Options{Type: model.UnionPool2DOptions, Fields: []builder.Field{
		builder.Byte(model.Pool2DOptionsPadding, pad), builder.Int(model.Pool2DOptionsStrideW, stride), builder.Int(model.Pool2DOptionsStrideH, stride),
		builder.Int(model.Pool2DOptionsFilterWidth, k), builder.Int(model.Pool2DOptionsFilterHeight, k), builder.Byte(model.Pool2DOptionsFusedActivationFunction, 0)}})
	return y, true
}

// pad adds a PAD of the input's zero point (folded into a VALID reader).
func (nt *net) pad(x, p int) int {
	y := nt.tensorQ(nt.h[x]+2*p, nt.w[x]+2*p, nt.c[x], nt.q[x])
	pads := nt.m.ConstI32(fmt.Sprint("p", nt.n), []int{4, 2}, nil, []int32{0, 0, int32(p), int32(p), int32(p), int32(p), 0, 0})
	nt.m.Op(model.OpPad, []int{x, pads}, []int{y}, nil)
	return y
}

func (nt *net) add(a, b int) int {
	y := nt.tensor(nt.h[a], nt.w[a], nt.c[a])
	nt.m.Op(model.OpAdd, []int{a, b}, []int{y}, nil)
	return y
}

func (nt *net) relu(x int) int {
	y := nt.tensorQ(nt.h[x], nt.w[x], nt.c[x], nt.q[x])
	nt.m.Op(model.OpRelu, []int{x}, []int{y}, nil)
	return y
}

// randNet is a random network of 3-7 layers on a random image (one in
// three NCHW, transposed first, as PyTorch's exports have it): strided,
// dilated, SAME and VALID convolutions and depthwise convolutions,
// PyTorch's PAD before a VALID one, pools, RELUs and residual blocks
// (the skip operand read by the ADD beside the block's convolutions),
// then a 1x1 convolution.
func randNet(r *rand.Rand) ([]byte, int) {
	h, w, c := 6+r.IntN(20), 6+r.IntN(20), 1+r.IntN(4)
	nt, x := newNet(r, h, w, c)
	in := x
	if r.IntN(3) == 0 {
		// PyTorch's NCHW input, transposed.
		in = nt.m.Tensor("nchw", model.Int8, []int{1, c, h, w}, nt.q[x])
		perm := nt.m.ConstI32("perm", []int{4}, nil, []int32{0, 2, 3, 1})
		nt.m.Op(model.OpTranspose, []int{in, perm}, []int{x}, nil)
	}
	for range 3 + r.IntN(5) {
		switch r.IntN(7) {
		case 0, 1:
			k := 1 + r.IntN(5)
			x, _ = nt.conv(x, 1+r.IntN(8), k, 1+r.IntN(5), 1+r.IntN(2), 1+r.IntN(2)*r.IntN(2), false, r.IntN(2) == 0)
		case 2:
			x, _ = nt.conv(x, 0, 3, 3, 1+r.IntN(2), 1+r.IntN(2)*r.IntN(2), true, r.IntN(2) == 0)
		case 3:
			x, _ = nt.conv(nt.pad(x, 1), 1+r.IntN(8), 3, 3, 1+r.IntN(2), 1, r.IntN(2) == 0, false)
		case 4:
			x, _ = nt.pool(x, 2+r.IntN(2), 1+r.IntN(2), r.IntN(2) == 0, r.IntN(2) == 0)
		case 5:
			x = nt.relu(x)
		case 6:
			y, _ := nt.conv(x, nt.c[x]*2, 1, 1, 1, 1, false, true)
			y, _ = nt.conv(y, 0, 3, 3, 1, 1, true, true)
			y, _ = nt.conv(y, nt.c[x], 1, 1, 1, 1, false, true)
			if r.IntN(2) == 0 {
				x = nt.add(y, x)
			} else {
				x = nt.add(x, y)
			}
		}
	}
	x, _ = nt.conv(x, 3, 1, 1, 1, 1, false, true)
	nt.m.IO([]int{in}, []int{x})
	return nt.m.Bytes(), h * w * c
}

// run lowers, plans and runs g, fused or layer by layer.
func run(t *testing.T, name string, g *model.Graph, fuse bool, x []byte) []byte {
	t.Helper()
	p, plain, err := schedule.Program(g, schedule.Options{Fuse: fuse})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	lay, err := layout.Make(p, plain, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := difftest.RunPlanned(p, lay, x)
	if err != nil {
		t.Fatal(err)
	}
	return out[0]
}

// TestSplitBitExact: 120 random networks (NCHW inputs transposed among
// them), a random stage of each split into a
// random number of strips, run layer by layer and fused: outputs byte for
// byte those of the network as written. The stages that cannot be split
// are refused with a reason.
func TestSplitBitExact(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 4))
	split, refused, nchw, extra := 0, 0, 0, int64(0)
	n := 120
	if testing.Short() {
		n = 40
	}
	for i := range n {
		data, n := randNet(r)
		x := difftest.RandVals(r, model.Int8, n).Raw()
		g0, err := model.Parse("strips.tflite", data)
		if err != nil {
			t.Fatal(err)
		}
		g0 = fold.Pads(g0)
		want := run(t, fmt.Sprintf("case %d as written", i), g0, false, x)
		first := 0
		if r.IntN(4) == 0 {
			first = r.IntN(len(g0.Ops))
		}
		st := Stage{First: first, Last: first + r.IntN(len(g0.Ops)-first), Strips: 2 + r.IntN(5)}
		g, err := Split(g0, st)
		if err != nil {
			refused++
			continue
		}
		split++
		if st.First == 0 && g0.Ops[0].Code == model.OpTranspose {
			nchw++
		}
		name := fmt.Sprintf("case %d, stage %+v", i, st)
		if info := g.Strips; info == nil || len(info.Source) != len(g.Ops) || len(info.OutCols) != st.Strips {
			t.Fatalf("%s: no Strips, or not for %d operators and %d strips", name, len(g.Ops), st.Strips)
		}
		// Fewer where a VALID window leaves columns of a tensor of the
		// stage unread: the strips do not compute them.
		extra += lower.MACs(g) - lower.MACs(g0)
		for _, fuse := range []bool{false, true} {
			if got := run(t, name, g, fuse, x); !slices.Equal(got, want) {
				t.Fatalf("%s (fused %v): output differs from the network's", name, fuse)
			}
		}
	}
	t.Logf("%d stages split and run (%d from a TRANSPOSE of an NCHW input), %d refused; %+d multiply-accumulates in all", split, nchw, refused, extra)
	if split < n/3 || nchw == 0 {
		t.Errorf("only %d of %d stages split, %d from an NCHW input", split, n, nchw)
	}
}

// TestSplitRefused: stages that cannot run in column strips are refused,
// saying why.
func TestSplitRefused(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	nt, x := newNet(r, 12, 12, 3)
	in := x
	a, _ := nt.conv(x, 8, 3, 3, 1, 1, false, true) // op 0
	b, _ := nt.conv(a, 8, 3, 3, 1, 1, false, true) // op 1
	c := nt.add(a, b)                              // op 2
	d, _ := nt.conv(c, 4, 3, 3, 2, 1, false, true) // op 3: 6x6
	shape := nt.m.ConstI32("shape", []int{2}, nil, []int32{1, 144})
	flat := nt.m.Tensor("flat", model.Int8, []int{1, 144}, nt.q[d])
	nt.m.Op(model.OpReshape, []int{d, shape}, []int{flat}, nil) // op 4
	nt.m.IO([]int{in}, []int{flat})
	g, err := model.Parse("refused.tflite", nt.m.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	split, err := Split(g, Stage{0, 3, 2})
	if err != nil {
		t.Fatal(err)
	}
	// A TRANSPOSE that does not make an NCHW input NHWC.
	nt2, x2 := newNet(r, 6, 6, 6)
	y2 := nt2.tensorQ(6, 6, 6, nt2.q[x2])
	perm := nt2.m.ConstI32("perm", []int{4}, nil, []int32{0, 2, 1, 3})
	nt2.m.Op(model.OpTranspose, []int{x2, perm}, []int{y2}, nil)
	z2, _ := nt2.conv(y2, 4, 3, 3, 1, 1, false, true)
	nt2.m.IO([]int{x2}, []int{z2})
	transposed, err := model.Parse("transpose.tflite", nt2.m.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		g    *model.Graph
		st   Stage
		want string
	}{
		{g, Stage{0, 3, 1}, "fewer than 2 strips"},
		{g, Stage{2, 1, 2}, "not a range of the graph's 5 operators"},
		{g, Stage{0, 5, 2}, "not a range"},
		{g, Stage{0, 3, 7}, "narrower than 7 columns"},
		{g, Stage{0, 4, 2}, `operator 4 (RESHAPE): output tensor 12 "flat" int8[1 144] is not a batch-1 image`},
		{g, Stage{0, 1, 2}, "operator 2 (ADD), outside the stage, reads tensor 1 made in it"},
		{g, Stage{2, 2, 2}, "operator 2 (ADD) reads tensor 4, a second input of the stage (the first is tensor 1)"},
		{split, Stage{0, 1, 2}, "the graph runs in strips already"},
		{transposed, Stage{0, 1, 2}, "operator 0 (TRANSPOSE): not a constant permutation [0, 2, 3, 1] (NCHW to NHWC)"},
	} {
		_, err := Split(tc.g, tc.st)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("stage %+v: error %v, want one containing %q", tc.st, err, tc.want)
		}
		if err2 := Check(tc.g, tc.st); fmt.Sprint(err2) != fmt.Sprint(err) {
			t.Errorf("stage %+v: Check says %v, Split %v", tc.st, err2, err)
		}
	}
}
