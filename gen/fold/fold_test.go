package fold_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/fold"
	"github.com/tflm-gen/tflm-gen/gen/lower"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/gen/schedule"
	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// padConv is a PAD (or PADV2) of an image's height and width followed by a
// VALID convolution, depthwise convolution or max pool reading the padded
// image.
type padConv struct {
	dt                 model.DType
	depthwise, pool    bool
	v2                 bool
	h, w, c, oc, mult  int
	kh, kw, sh, sw     int
	dilH, dilW         int
	pads               [4]int // top, bottom, left, right
	otherValue         bool   // PADV2's constant is neither 0 (the zero point) nor the type's least value
	leastValue         bool   // PADV2's constant is the type's least value (a max pool's)
	infWeight          bool   // a float32 filter has an infinite weight
	effH, effW, oh, ow int
}

func (pc padConv) String() string {
	kind := "CONV_2D"
	switch {
	case pc.pool:
		kind = "MAX_POOL_2D"
	case pc.depthwise:
		kind = fmt.Sprintf("DEPTHWISE_CONV_2D x%d", pc.mult)
	}
	return fmt.Sprintf("%s %dx%dx%d PAD%v (v2 %v, other value %v, least value %v) %s %dx%d (infinite weight %v) stride %dx%d dilation %dx%d -> %dx%dx%d",
		pc.dt, pc.h, pc.w, pc.c, pc.pads, pc.v2, pc.otherValue, pc.leastValue, kind, pc.kh, pc.kw, pc.infWeight, pc.sh, pc.sw, pc.dilH, pc.dilW, pc.oh, pc.ow, pc.oc)
}

// randPadConv draws a case: paddings mostly within the window (where the
// fold applies), sometimes beyond it or with another pad value (where it
// must not).
func randPadConv(r *rand.Rand, dt model.DType) padConv {
	pc := padConv{dt: dt, v2: r.IntN(3) == 0}
	switch r.IntN(3) {
	case 0:
		pc.depthwise = true
	case 1:
		pc.pool = true
	}
	pc.h, pc.w = 1+r.IntN(12), 1+r.IntN(12)
	pc.kh, pc.kw = 1+r.IntN(5), 1+r.IntN(5)
	if r.IntN(2) == 0 {
		pc.kh, pc.kw = 3, 3
	}
	pc.sh, pc.sw, pc.dilH, pc.dilW = 1+r.IntN(3), 1+r.IntN(3), 1, 1
	if r.IntN(5) == 0 && !pc.pool {
		pc.dilH, pc.dilW = 1+r.IntN(3), 1+r.IntN(3)
	}
	pc.effH, pc.effW = (pc.kh-1)*pc.dilH+1, (pc.kw-1)*pc.dilW+1
	for i := range pc.pads {
		eff := pc.effH
		if i >= 2 {
			eff = pc.effW
		}
		pc.pads[i] = r.IntN(eff)
		if r.IntN(10) == 0 {
			pc.pads[i] = r.IntN(eff + 3)
		}
	}
	pc.c = []int{1, 3, 4, 8, 16}[r.IntN(5)]
	pc.mult = 1
	switch {
	case pc.pool:
		pc.oc = pc.c
	case pc.depthwise:
		if r.IntN(4) == 0 {
			pc.mult = 2
		}
		pc.oc = pc.c * pc.mult
	default:
		pc.oc = []int{1, 4, 8, 12}[r.IntN(4)]
	}
	if pc.v2 {
		switch r.IntN(4) {
		case 0:
			pc.otherValue = true
		case 1, 2:
			pc.leastValue = pc.pool
		}
	}
	pc.infWeight = dt == model.Float32 && !pc.pool && r.IntN(8) == 0
	H, W := pc.h+pc.pads[0]+pc.pads[1], pc.w+pc.pads[2]+pc.pads[3]
	if H < pc.effH {
		pc.pads[1] += pc.effH - H
		H = pc.effH
	}
	if W < pc.effW {
		pc.pads[3] += pc.effW - W
		W = pc.effW
	}
	pc.oh, pc.ow = (H-pc.effH)/pc.sh+1, (W-pc.effW)/pc.sw+1
	return pc
}

// foldable is the rule of the package comment, written again from it:
// the pad value is the input's zero point (a convolution's) or the type's
// least value (a max pool's), no side pads a whole window, and the padding
// the operator reads after the input is less than one; a float32 filter's
// weights are finite. zp is the input's zero point.
func (pc padConv) foldable(zp int64) bool {
	readH := max((pc.oh-1)*pc.sh+pc.effH-pc.h-pc.pads[0], 0)
	readW := max((pc.ow-1)*pc.sw+pc.effW-pc.w-pc.pads[2], 0)
	value := !pc.otherValue
	if pc.pool {
		// The zero point (PAD's int8 value, PADV2's default here) is
		// the least value only at -128.
		value = pc.leastValue || !pc.otherValue && pc.dt == model.Int8 && zp == -128
	}
	return value && !pc.infWeight && pc.pads[0] < pc.effH && pc.pads[2] < pc.effW && readH < pc.effH && readW < pc.effW
}

// build writes the case's model and draws an input for it; zp is the
// input's zero point.
func (pc padConv) build(r *rand.Rand) (data, x []byte, zp int64) {
	m := builder.New("pad conv " + pc.String())
	q := difftest.RandQuant(r, pc.dt)
	if q != nil {
		zp = q.ZeroPoint[0]
	}
	x0 := m.Tensor("x", pc.dt, []int{1, pc.h, pc.w, pc.c}, q)
	pads := m.ConstI32("pads", []int{4, 2}, nil, []int32{0, 0, int32(pc.pads[0]), int32(pc.pads[1]), int32(pc.pads[2]), int32(pc.pads[3]), 0, 0})
	y := m.Tensor("padded", pc.dt, []int{1, pc.h + pc.pads[0] + pc.pads[1], pc.w + pc.pads[2] + pc.pads[3], pc.c}, q)
	if pc.v2 {
		v := make([]byte, pc.dt.Size())
		switch pc.dt {
		case model.Int8:
			switch {
			case pc.leastValue:
				v[0] = 0x80
			case pc.otherValue:
				v[0] = byte(int8(zp) ^ 1)
				if int8(v[0]) == math.MinInt8 {
					v[0] ^= 2
				}
			default:
				v[0] = byte(int8(zp))
			}
		case model.Int16:
			switch {
			case pc.leastValue:
				binary.LittleEndian.PutUint16(v, 0x8000)
			case pc.otherValue:
				binary.LittleEndian.PutUint16(v, 7)
			}
		case model.Float32:
			switch {
			case pc.leastValue:
				binary.LittleEndian.PutUint32(v, math.Float32bits(float32(math.Inf(-1))))
			case pc.otherValue:
				binary.LittleEndian.PutUint32(v, math.Float32bits(0.5))
			}
		}
		cv := m.Const("value", pc.dt, []int{1}, q, v)
		m.Op(model.OpPadv2, []int{x0, pads, cv}, []int{y}, nil)
	} else {
		m.Op(model.OpPad, []int{x0, pads}, []int{y}, nil)
	}
	act := r.IntN(2) // none or RELU
	if pc.pool {
		z := m.Tensor("z", pc.dt, []int{1, pc.oh, pc.ow, pc.oc}, q)
		m.Op(model.OpMaxPool2D, []int{y}, []int{z}, &builder.Options{Type: model.UnionPool2DOptions, Fields: []builder.Field{
			builder.Byte(model.Pool2DOptionsPadding, 1), builder.Int(model.Pool2DOptionsStrideW, pc.sw), builder.Int(model.Pool2DOptionsStrideH, pc.sh),
			builder.Int(model.Pool2DOptionsFilterWidth, pc.kw), builder.Int(model.Pool2DOptionsFilterHeight, pc.kh), builder.Byte(model.Pool2DOptionsFusedActivationFunction, act)}})
		m.IO([]int{x0}, []int{z})
		return m.Bytes(), difftest.RandVals(r, pc.dt, pc.h*pc.w*pc.c).Raw(), zp
	}
	inScale := float32(1)
	if q != nil {
		inScale = q.Scale[0]
	}
	shape := []int{pc.oc, pc.kh, pc.kw, pc.c}
	wq := &builder.Quant{}
	if pc.depthwise {
		shape, wq.Axis = []int{1, pc.kh, pc.kw, pc.oc}, 3
	}
	var wt, bt int
	var oq *builder.Quant
	if pc.dt == model.Float32 {
		w := make([]float32, difftest.Elems(shape))
		for i := range w {
			w[i] = float32(r.NormFloat64())
		}
		if pc.infWeight {
			w[r.IntN(len(w))] = float32(math.Inf(1))
		}
		wt = m.ConstF32("w", shape, w)
		b := make([]float32, pc.oc)
		for i := range b {
			b[i] = float32(r.NormFloat64())
		}
		bt = m.ConstF32("b", []int{pc.oc}, b)
	} else {
		bq := &builder.Quant{}
		for range pc.oc {
			wq.Scale = append(wq.Scale, 0.002+0.004*r.Float32())
			wq.ZeroPoint = append(wq.ZeroPoint, 0)
			bq.Scale = append(bq.Scale, inScale*wq.Scale[len(wq.Scale)-1])
			bq.ZeroPoint = append(bq.ZeroPoint, 0)
		}
		wt = m.ConstI8("w", shape, wq, difftest.RandInt8s(r, difftest.Elems(shape)))
		if pc.dt == model.Int8 {
			b := make([]int32, pc.oc)
			for i := range b {
				b[i] = int32(r.IntN(4001) - 2000)
			}
			bt = m.ConstI32("b", []int{pc.oc}, bq, b)
		} else {
			b := make([]byte, 8*pc.oc)
			for i := range pc.oc {
				binary.LittleEndian.PutUint64(b[8*i:], uint64(int64(r.IntN(40001)-20000)))
			}
			bt = m.Const("b", model.Int64, []int{pc.oc}, bq, b)
		}
		oq = difftest.RandQuant(r, pc.dt)
		oq.Scale[0] = inScale * float32(pc.kh*pc.kw) * 0.003 * float32(1+r.IntN(8))
	}
	z := m.Tensor("z", pc.dt, []int{1, pc.oh, pc.ow, pc.oc}, oq)
	if pc.depthwise {
		m.Op(model.OpDepthwiseConv2D, []int{y, wt, bt}, []int{z}, &builder.Options{Type: model.UnionDepthwiseConv2DOptions, Fields: []builder.Field{
			builder.Byte(model.DepthwiseConv2DOptionsPadding, 1), builder.Int(model.DepthwiseConv2DOptionsStrideW, pc.sw), builder.Int(model.DepthwiseConv2DOptionsStrideH, pc.sh),
			builder.Int(model.DepthwiseConv2DOptionsDepthMultiplier, pc.mult), builder.Byte(model.DepthwiseConv2DOptionsFusedActivationFunction, act),
			builder.Int(model.DepthwiseConv2DOptionsDilationWFactor, pc.dilW), builder.Int(model.DepthwiseConv2DOptionsDilationHFactor, pc.dilH)}})
	} else {
		m.Op(model.OpConv2D, []int{y, wt, bt}, []int{z}, &builder.Options{Type: model.UnionConv2DOptions, Fields: []builder.Field{
			builder.Byte(model.Conv2DOptionsPadding, 1), builder.Int(model.Conv2DOptionsStrideW, pc.sw), builder.Int(model.Conv2DOptionsStrideH, pc.sh),
			builder.Byte(model.Conv2DOptionsFusedActivationFunction, act),
			builder.Int(model.Conv2DOptionsDilationWFactor, pc.dilW), builder.Int(model.Conv2DOptionsDilationHFactor, pc.dilH)}})
	}
	m.IO([]int{x0}, []int{z})
	return m.Bytes(), difftest.RandVals(r, pc.dt, pc.h*pc.w*pc.c).Raw(), zp
}

// TestPadsFoldBitExact: random PADs before VALID convolutions, depthwise
// convolutions and max pools (int8, int16 and float32; every kernel set: the
// default TinyGo build and its lean variants, -speed, -compiler gc, and
// fused): the graph with its PAD folded gives the same output bytes as the
// graph as written, whose PAD and convolution are each checked against
// TFLM by gen/lower's tests; and the PAD is folded exactly where the rule
// says.
func TestPadsFoldBitExact(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 11))
	opts := []struct {
		name string
		opt  schedule.Options
	}{
		{"default", schedule.Options{Fuse: true}},
		{"layer by layer", schedule.Options{}},
		{"-speed", schedule.Options{Kernels: lower.Kernels{Speed: true}}},
		{"-compiler gc", schedule.Options{Kernels: lower.Kernels{GC: true}, Fuse: true}},
	}
	folded, pools := map[model.DType]int{}, 0
	n := difftest.Count(300, 3000)
	for i := range n {
		dt := []model.DType{model.Int8, model.Int8, model.Int16, model.Float32}[i%4]
		pc := randPadConv(r, dt)
		data, x, zp := pc.build(r)
		g, err := model.Parse("case.tflite", data)
		if err != nil {
			t.Fatalf("case %d %v: %v", i, pc, err)
		}
		fg := fold.Pads(g)
		if got := fg != g; got != pc.foldable(zp) {
			t.Errorf("case %d %v (zero point %d): folded %v, want %v", i, pc, zp, got, pc.foldable(zp))
		}
		if fg == g {
			continue
		}
		folded[dt]++
		if pc.pool {
			pools++
		}
		if !fg.Ops[0].Folded || fg.Ops[0].FoldedInto != 1 || g.Ops[0].Folded || g.Ops[1].Padding != nil {
			t.Fatalf("case %d %v: the graph as written was modified, or the fold is not marked", i, pc)
		}
		for _, o := range opts {
			want, err := difftest.InProcess(programOf(o.opt, false), data, x)
			if err != nil {
				if difftest.RefusedCleanly(err) {
					continue
				}
				t.Fatalf("case %d %v %s: as written: %v", i, pc, o.name, err)
			}
			got, p, err := difftest.InProcessProgram(programOf(o.opt, true), data, x)
			if err != nil {
				t.Fatalf("case %d %v %s: folded: %v", i, pc, o.name, err)
			}
			if len(p.Ops[0].Calls) != 0 || p.Buffers[p.TensorBuf[g.Inputs[0]]].Size != len(x) {
				t.Errorf("case %d %v %s: the folded PAD has code, or the input's buffer is not the input", i, pc, o.name)
			}
			if !slices.Equal(got[0], want[0]) {
				t.Errorf("case %d %v %s: folded output differs from the graph as written\n got %v\nwant %v", i, pc, o.name, got[0], want[0])
			}
		}
	}
	t.Logf("%d cases; folded: %v, %d of them max pools", n, folded, pools)
	if pools == 0 {
		t.Errorf("no max pool folded")
	}
	for _, dt := range []model.DType{model.Int8, model.Int16, model.Float32} {
		if folded[dt] == 0 {
			t.Errorf("no %s case folded", dt)
		}
	}
}

// programOf makes the program schedule.Program makes with opt, of the
// graph folded or as written.
func programOf(opt schedule.Options, folded bool) difftest.ProgramFunc {
	return func(g *model.Graph) (*program.Program, error) {
		if folded {
			g = fold.Pads(g)
		}
		p, _, err := schedule.Program(g, opt)
		return p, err
	}
}

// TestPadsNotFolded: the structural rules, one broken at a time on an
// int8 PAD + 3x3 CONV_2D that folds as built, and the readers: an average
// pool never (it divides by the cells it counts), a max pool where the
// pad value, the zero point, is the least int8 value.
func TestPadsNotFolded(t *testing.T) {
	type net struct {
		pads      []int32 // the paddings tensor's values
		padQ      *builder.Quant
		same      bool // the convolution's padding SAME
		second    bool // a second convolution reads the padded tensor
		output    bool // the padded tensor is a graph output too
		transpose bool // a TRANSPOSE_CONV reads it instead
		avgPool   bool // an AVERAGE_POOL_2D reads it instead
		maxPool   bool // a MAX_POOL_2D reads it instead
		inQ       *builder.Quant
	}
	build := func(n net) []byte {
		m := builder.New("pad conv")
		q := builder.PerTensor(0.05, -3)
		if n.inQ != nil {
			q = n.inQ
		}
		x := m.Tensor("x", model.Int8, []int{1, 8, 8, 4}, q)
		pads := m.ConstI32("pads", []int{4, 2}, nil, n.pads)
		ph, pw, pc := 8+int(n.pads[2]+n.pads[3]), 8+int(n.pads[4]+n.pads[5]), 4+int(n.pads[6]+n.pads[7])
		pq := q
		if n.padQ != nil {
			pq = n.padQ
		}
		y := m.Tensor("padded", model.Int8, []int{1, ph, pw, pc}, pq)
		m.Op(model.OpPad, []int{x, pads}, []int{y}, nil)
		wq, bq := &builder.Quant{Axis: 0}, &builder.Quant{}
		for range 2 {
			wq.Scale, wq.ZeroPoint = append(wq.Scale, 0.01), append(wq.ZeroPoint, 0)
			bq.Scale, bq.ZeroPoint = append(bq.Scale, 0.05*0.01), append(bq.ZeroPoint, 0)
		}
		w := m.ConstI8("w", []int{2, 3, 3, pc}, wq, make([]int8, 2*9*pc))
		b := m.ConstI32("b", []int{2}, bq, []int32{1, 2})
		padding := 1
		oh, ow := ph-2, pw-2
		if n.same {
			padding, oh, ow = 0, ph, pw
		}
		opts := &builder.Options{Type: model.UnionConv2DOptions, Fields: []builder.Field{
			builder.Byte(model.Conv2DOptionsPadding, padding), builder.Int(model.Conv2DOptionsStrideW, 1), builder.Int(model.Conv2DOptionsStrideH, 1)}}
		z := m.Tensor("z", model.Int8, []int{1, oh, ow, 2}, builder.PerTensor(0.1, 0))
		outs := []int{z}
		switch {
		case n.avgPool || n.maxPool:
			code := model.OpAveragePool2D
			if n.maxPool {
				code = model.OpMaxPool2D
			}
			z = m.Tensor("z", model.Int8, []int{1, oh, ow, pc}, pq)
			m.Op(code, []int{y}, []int{z}, &builder.Options{Type: model.UnionPool2DOptions, Fields: []builder.Field{
				builder.Byte(model.Pool2DOptionsPadding, 1), builder.Int(model.Pool2DOptionsStrideW, 1), builder.Int(model.Pool2DOptionsStrideH, 1),
				builder.Int(model.Pool2DOptionsFilterWidth, 3), builder.Int(model.Pool2DOptionsFilterHeight, 3)}})
			outs = []int{z}
		case n.transpose:
			shape := m.ConstI32("shape", []int{4}, nil, []int32{1, int32(ph + 2), int32(pw + 2), 2})
			z = m.Tensor("z", model.Int8, []int{1, ph + 2, pw + 2, 2}, builder.PerTensor(0.1, 0))
			wt := m.ConstI8("wt", []int{2, 3, 3, pc}, wq, make([]int8, 2*9*pc))
			m.Op(model.OpTransposeConv, []int{shape, wt, y}, []int{z}, &builder.Options{Type: model.UnionTransposeConvOptions, Fields: []builder.Field{
				builder.Byte(model.TransposeConvOptionsPadding, 1), builder.Int(model.TransposeConvOptionsStrideW, 1), builder.Int(model.TransposeConvOptionsStrideH, 1)}})
			outs = []int{z}
		default:
			m.Op(model.OpConv2D, []int{y, w, b}, []int{z}, opts)
		}
		if n.second {
			z2 := m.Tensor("z2", model.Int8, []int{1, oh, ow, 2}, builder.PerTensor(0.1, 0))
			m.Op(model.OpConv2D, []int{y, w, b}, []int{z2}, opts)
			outs = append(outs, z2)
		}
		if n.output {
			outs = append(outs, y)
		}
		m.IO([]int{x}, outs)
		return m.Bytes()
	}
	ok := []int32{0, 0, 1, 1, 1, 1, 0, 0}
	for _, tc := range []struct {
		name string
		n    net
		fold bool
	}{
		{"as built", net{pads: ok}, true},
		{"padding over the channels", net{pads: []int32{0, 0, 1, 1, 1, 1, 0, 4}}, false},
		{"padding over the batch", net{pads: []int32{1, 0, 1, 1, 1, 1, 0, 0}}, false},
		{"a negative padding", net{pads: []int32{0, 0, -1, 1, 1, 1, 0, 0}}, false},
		{"another quantization after the PAD", net{pads: ok, padQ: builder.PerTensor(0.05, 5)}, false},
		{"SAME convolution", net{pads: ok, same: true}, false},
		{"read by two convolutions", net{pads: ok, second: true}, false},
		{"the padded tensor a graph output", net{pads: ok, output: true}, false},
		{"read by TRANSPOSE_CONV", net{pads: ok, transpose: true}, false},
		{"read by AVERAGE_POOL_2D", net{pads: ok, avgPool: true}, false},
		{"read by MAX_POOL_2D, the zero point not the least value", net{pads: ok, maxPool: true}, false},
		{"read by MAX_POOL_2D, the zero point the least value", net{pads: ok, maxPool: true, padQ: builder.PerTensor(0.05, -128), inQ: builder.PerTensor(0.05, -128)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := model.Parse("case.tflite", build(tc.n))
			if err != nil {
				t.Fatal(err)
			}
			if got := fold.Pads(g) != g; got != tc.fold {
				t.Errorf("folded %v, want %v", got, tc.fold)
			}
		})
	}
}
