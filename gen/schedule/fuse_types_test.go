package schedule

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/devtools/oracle"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// randTypedChain is a random chain of 2-6 layers of element type dt
// (int8, int16 or float32): convolutions 1x1, 3x3 and 5x5 (dilated
// sometimes), depthwise 3x3 and 5x5 with depth multiplier 1 or 2, average
// and max pools, strides 1 and 2, SAME and VALID, residual ADDs where a
// layer keeps its shape, on images up to 24 rows,
// so that every band kernel of fuse.go meets chains.
func randTypedChain(r *rand.Rand, dt model.DType) ([]byte, difftest.Vals, string) {
	return randTypedChainPool(r, dt, false)
}

// randTypedChainPool is randTypedChain, ending, with pool, in a global
// average pool (one window over the whole image, SAME or VALID, a random
// activation), as classifiers end.
func randTypedChainPool(r *rand.Rand, dt model.DType, pool bool) ([]byte, difftest.Vals, string) {
	m := builder.New("fused chain")
	h, w, c := 5+r.IntN(20), 3+r.IntN(12), 1+r.IntN(6)
	q := difftest.RandQuant(r, dt)
	if dt == model.Int16 {
		q = builder.PerTensor(difftest.RandScale(r), 0)
	}
	in := m.Tensor("in", dt, []int{1, h, w, c}, q)
	vals := difftest.RandVals(r, dt, h*w*c)
	if dt == model.Float32 {
		// Finite inputs: infinities through a convolution give NaN
		// payloads that say nothing about the schedule.
		for i := range vals.Flts {
			vals.Flts[i] = float32(r.NormFloat64())
		}
	}
	desc := fmt.Sprintf("%s %dx%dx%d", dt, h, w, c)
	x, xq := in, q
	layers := 2 + r.IntN(5)
	for k := 0; k < layers; k++ {
		kind := r.IntN(5) // 0 conv, 1 pointwise, 2 depthwise, 3 average pool, 4 max pool
		f := []int{3, 3, 5}[r.IntN(3)]
		stride, dil := 1+r.IntN(2), 1
		if kind == 0 && r.IntN(4) == 0 {
			dil, stride = 2, 1
		}
		if kind == 1 {
			f, stride = 1, 1
		}
		if kind >= 3 {
			f = 2 + r.IntN(2)
		}
		ef := (f-1)*dil + 1
		same := r.IntN(2) == 0 || h < ef || w < ef
		oh, ow, pad := (h-ef)/stride+1, (w-ef)/stride+1, 1
		if same {
			oh, ow, pad = (h+stride-1)/stride, (w+stride-1)/stride, 0
		}
		mult := 1
		if kind == 2 && r.IntN(3) == 0 {
			mult = 2
		}
		oc := c * mult
		if kind <= 1 {
			oc = 1 + r.IntN(10)
		}
		oq := xq
		if kind <= 2 && dt != model.Float32 {
			zp := int64(r.IntN(256) - 128)
			if dt == model.Int16 {
				zp = 0
			}
			oq = builder.PerTensor(difftest.RandScale(r)*4, zp)
		}
		y := m.Tensor(fmt.Sprint("l", k), dt, []int{1, oh, ow, oc}, oq)
		desc += fmt.Sprintf(" -> %s%d/%d%s %dx%dx%d", [...]string{"conv", "pw", "dw", "avg", "max"}[kind], f, stride, map[bool]string{true: "d2"}[dil == 2], oh, ow, oc)
		if kind >= 3 {
			code := model.OpAveragePool2D
			if kind == 4 {
				code = model.OpMaxPool2D
			}
			m.Op(code, []int{x}, []int{y}, &builder.Options{Type: model.UnionPool2DOptions, Fields: []builder.Field{
				builder.Byte(model.Pool2DOptionsPadding, pad), builder.Int(model.Pool2DOptionsStrideW, stride), builder.Int(model.Pool2DOptionsStrideH, stride), builder.Int(model.Pool2DOptionsFilterWidth, f), builder.Int(model.Pool2DOptionsFilterHeight, f), builder.Byte(model.Pool2DOptionsFusedActivationFunction, r.IntN(2))}})
			x, h, w = y, oh, ow
			continue
		}
		shape := []int{oc, f, f, c}
		if kind == 2 {
			shape = []int{1, f, f, oc}
		}
		n := difftest.Elems(shape)
		var wt, bt int
		switch dt {
		case model.Float32:
			wv, bv := make([]float32, n), make([]float32, oc)
			for i := range wv {
				wv[i] = float32(r.NormFloat64() * 0.3)
			}
			for i := range bv {
				bv[i] = float32(r.NormFloat64())
			}
			wt, bt = m.ConstF32(fmt.Sprint("w", k), shape, wv), m.ConstF32(fmt.Sprint("b", k), []int{oc}, bv)
		default:
			wq, bq := &builder.Quant{}, &builder.Quant{}
			if kind == 2 {
				wq.Axis = 3
			}
			for i := 0; i < oc; i++ {
				wq.Scale = append(wq.Scale, 0.005+0.003*float32(r.IntN(8)))
				wq.ZeroPoint = append(wq.ZeroPoint, 0)
				bq.Scale = append(bq.Scale, xq.Scale[0]*wq.Scale[i])
				bq.ZeroPoint = append(bq.ZeroPoint, 0)
			}
			wt = m.ConstI8(fmt.Sprint("w", k), shape, wq, difftest.RandInt8s(r, n))
			if dt == model.Int16 {
				var raw []byte
				for i := 0; i < oc; i++ {
					raw = binary.LittleEndian.AppendUint64(raw, uint64(int64(r.IntN(40001)-20000)))
				}
				bt = m.Const(fmt.Sprint("b", k), model.Int64, []int{oc}, bq, raw)
			} else {
				bias := make([]int32, oc)
				for i := range bias {
					bias[i] = int32(r.IntN(4001) - 2000)
				}
				bt = m.ConstI32(fmt.Sprint("b", k), []int{oc}, bq, bias)
			}
		}
		act := []int{0, 1, 3}[r.IntN(3)] // NONE, RELU, RELU6
		if kind == 2 {
			m.Op(model.OpDepthwiseConv2D, []int{x, wt, bt}, []int{y}, &builder.Options{Type: model.UnionDepthwiseConv2DOptions, Fields: []builder.Field{
				builder.Byte(model.DepthwiseConv2DOptionsPadding, pad), builder.Int(model.DepthwiseConv2DOptionsStrideW, stride), builder.Int(model.DepthwiseConv2DOptionsStrideH, stride), builder.Int(model.DepthwiseConv2DOptionsDepthMultiplier, mult), builder.Byte(model.DepthwiseConv2DOptionsFusedActivationFunction, act), builder.Int(model.DepthwiseConv2DOptionsDilationWFactor, 1), builder.Int(model.DepthwiseConv2DOptionsDilationHFactor, 1)}})
		} else {
			m.Op(model.OpConv2D, []int{x, wt, bt}, []int{y}, &builder.Options{Type: model.UnionConv2DOptions, Fields: []builder.Field{
				builder.Byte(model.Conv2DOptionsPadding, pad), builder.Int(model.Conv2DOptionsStrideW, stride), builder.Int(model.Conv2DOptionsStrideH, stride), builder.Byte(model.Conv2DOptionsFusedActivationFunction, act), builder.Int(model.Conv2DOptionsDilationWFactor, dil), builder.Int(model.Conv2DOptionsDilationHFactor, dil)}})
		}
		if oh == h && ow == w && oc == c && r.IntN(3) == 0 {
			// A residual ADD of the layer's input and output: the input
			// lives past the layer, so a chain ends here.
			aq := oq
			if dt != model.Float32 {
				aq = builder.PerTensor(difftest.RandScale(r)*4, map[bool]int64{true: 0, false: int64(r.IntN(256) - 128)}[dt == model.Int16])
			}
			z := m.Tensor(fmt.Sprint("add", k), dt, []int{1, oh, ow, oc}, aq)
			m.Op(model.OpAdd, []int{x, y}, []int{z}, nil)
			desc += " +add"
			y, oq = z, aq
		}
		x, xq, h, w, c = y, oq, oh, ow, oc
	}
	if pool && r.IntN(3) == 0 {
		// MEAN over height and width (Keras' global average pooling),
		// keep_dims or not, its own output scale.
		keep := r.IntN(2) == 0
		shape := []int{1, c}
		if keep {
			shape = []int{1, 1, 1, c}
		}
		oq := xq
		if dt != model.Float32 {
			zp := int64(r.IntN(256) - 128)
			if dt == model.Int16 {
				zp = 0
			}
			oq = builder.PerTensor(xq.Scale[0]*float32(0.5+r.Float64()), zp)
		}
		y := m.Tensor("mean", dt, shape, oq)
		ax := m.ConstI32("axes", []int{2}, nil, []int32{1, 2})
		m.Op(model.OpMean, []int{x, ax}, []int{y}, &builder.Options{Type: model.UnionReducerOptions, Fields: []builder.Field{builder.Bool(model.ReducerOptionsKeepDims, keep)}})
		desc += fmt.Sprintf(" -> mean keep_dims=%v", keep)
		x = y
	} else if pool {
		// SAME pads the window to twice the image less one at most.
		fh, fw, pad := h, w, 1
		if r.IntN(2) == 0 {
			fh, fw, pad = h+r.IntN(h), w+r.IntN(w), 0
		}
		y := m.Tensor("global", dt, []int{1, 1, 1, c}, xq)
		m.Op(model.OpAveragePool2D, []int{x}, []int{y}, &builder.Options{Type: model.UnionPool2DOptions, Fields: []builder.Field{
			builder.Byte(model.Pool2DOptionsPadding, pad), builder.Int(model.Pool2DOptionsStrideW, fw), builder.Int(model.Pool2DOptionsStrideH, fh), builder.Int(model.Pool2DOptionsFilterWidth, fw), builder.Int(model.Pool2DOptionsFilterHeight, fh), builder.Byte(model.Pool2DOptionsFusedActivationFunction, []int{0, 1, 3}[r.IntN(3)])}})
		desc += fmt.Sprintf(" -> global avg %dx%d", fh, fw)
		x = y
	}
	m.IO([]int{in}, []int{x})
	return m.Bytes(), vals, desc
}

// TestFusedTypedChainsMatchTFLM: random int8, int16 and float32 chains
// (randTypedChain) run fused whole are byte-identical to the layer-by-layer
// build and match TFLM (float32 bit for bit as well: the same kernel
// arithmetic in the same order); the log lists the kernels the groups ran.
func TestFusedTypedChainsMatchTFLM(t *testing.T) {
	o := oracle.New(t)
	for _, dt := range []model.DType{model.Int8, model.Int16, model.Float32} {
		t.Run("CONV_2D_chains_fused_"+strings.ToLower(dt.String()), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(dt), 17))
			var tally difftest.Tally
			var sw difftest.Sweep
			kernelsRun := map[string]int{}
			var counts fusedCounts
			for i := 0; tally.Done() < difftest.Count(20, 120) && i < 2000; i++ {
				data, x, desc := randTypedChain(r, dt)
				flat, ferr := inProcess(data, x.Raw())
				run := sw.All() || sw.Pick(i, chainPath(data))
				var want [][]string
				var oerr error
				if run {
					want, oerr = o.Run(data, x.CSV())
					if tally.Skip(t, oerr, i, desc) {
						continue
					}
				} else {
					// Fused against layer by layer only.
					tally.UnrunCase(ferr)
					if ferr != nil {
						continue
					}
				}
				if oerr != nil || ferr != nil {
					if (oerr == nil) != (ferr == nil) && !(ferr != nil && difftest.ConvTooLarge(ferr)) {
						t.Errorf("chain %d (%s): TFLM %v, layer by layer %v", i, desc, oerr, ferr)
						tally.Mismatches++
					}
					tally.Refused++
					continue
				}
				g, err := model.Parse("chain.tflite", data)
				if err != nil {
					t.Fatal(err)
				}
				p, err := fuseAll(g)
				if err != nil {
					t.Fatalf("chain %d (%s): %v", i, desc, err)
				}
				for _, grp := range p.Groups {
					for _, s := range grp.Expand() {
						kernelsRun[s.Call.Fn]++
					}
				}
				var w []string // nil: fused against layer by layer only
				if run {
					w = want[0]
				}
				if err := compareFused(data, x.Raw(), flat[0], w, &counts); err != nil {
					t.Errorf("chain %d (%s): %v", i, desc, err)
					tally.Mismatches++
				}
				if run {
					tally.Compared++
				}
			}
			var ks []string
			for k, n := range kernelsRun {
				ks = append(ks, fmt.Sprintf("%s %d", k, n))
			}
			sort.Strings(ks)
			t.Logf("band calls per kernel: %s", strings.Join(ks, ", "))
			t.Logf("%d chains fused into DAG groups (a residual ADD's skip tensor made in the group) too", counts.dag)
			if counts.dag == 0 {
				t.Errorf("no chain fused into a DAG group")
			}
			tally.Log(t)
		})
	}
}
