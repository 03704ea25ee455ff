package lower

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/devtools/oracle"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// reduceOpt says how randReduce picks an unusual case.
type reduceOpt struct {
	badAxis   bool // one axis out of range (TFLM's Invoke fails)
	diffQuant bool // int8 MIN/MAX: output quantization differs from the input's
	axisDT    model.DType
}

// randReduce is a random reduction: rank 0-5 input, 1 to rank+1 axes
// (negative and repeated ones included), keep_dims either way. Quantized
// SUM and MEAN outputs get a scale that keeps most results in range;
// REDUCE_MAX and REDUCE_MIN keep the input's quantization.
func randReduce(r *rand.Rand, code model.OpCode, dt model.DType, opt reduceOpt) diffCase {
	rank := r.IntN(6)
	if rank == 0 && r.IntN(4) > 0 {
		rank = 1 + r.IntN(5)
	}
	maxDim := 6
	if rank >= 4 {
		maxDim = 4
	}
	shape := randDims(r, rank, maxDim)
	if rank == 1 && r.IntN(4) == 0 {
		shape[0] = 1 + r.IntN(300)
	}
	nAxes := 1 + r.IntN(rank+1)
	axes := make([]int32, nAxes)
	reduced := make([]bool, rank)
	for i := range axes {
		if rank == 0 {
			axes[i] = int32(r.IntN(3) - 1) // ignored by TFLM for a scalar
			continue
		}
		a := r.IntN(rank)
		reduced[a] = true
		if r.IntN(3) == 0 {
			a -= rank
		}
		axes[i] = int32(a)
	}
	if opt.badAxis && rank > 0 {
		bad := []int32{int32(rank), int32(-rank - 1), int32(rank + 3)}
		axes[r.IntN(nAxes)] = bad[r.IntN(len(bad))]
	}
	keep := r.IntN(2) == 0
	var outShape []int
	count := 1
	for d, n := range shape {
		switch {
		case !reduced[d]:
			outShape = append(outShape, n)
		case keep:
			outShape = append(outShape, 1)
			count *= n
		default:
			count *= n
		}
	}
	c := diffCase{outDT: dt, desc: fmt.Sprintf("%s %s %v axes %v keep_dims %v", code, dt, shape, axes, keep)}
	m := builder.New("reduce differential case")
	var qi, qo *builder.Quant
	if dt == model.Int8 || dt == model.Int16 {
		qi = difftest.RandQuant(r, dt)
		if dt == model.Int16 && r.IntN(4) == 0 {
			qi.ZeroPoint[0] = int64(r.IntN(2001) - 1000) // TFLM allows any int16 zero point here
		}
		qo = qi
		switch code {
		case model.OpSum, model.OpMean:
			// Sums of count values (zero points at the limits make them
			// all of one sign): an output scale about count times the
			// input's for SUM, near the input's for MEAN, and an output
			// zero point near the middle as often as at the limits.
			grow := 0.0
			if code == model.OpSum {
				grow = math.Log2(float64(count))
			}
			so := qi.Scale[0] * float32(math.Exp2(grow+4*r.Float64()-1))
			zo := difftest.RandQuant(r, dt).ZeroPoint[0]
			if r.IntN(2) == 0 {
				zo /= 8
			}
			qo = builder.PerTensor(so, zo)
		default:
			if opt.diffQuant {
				if r.IntN(2) == 0 {
					qo = builder.PerTensor(qi.Scale[0]*1.5, qi.ZeroPoint[0])
				} else {
					qo = builder.PerTensor(qi.Scale[0], qi.ZeroPoint[0]^1)
				}
			}
		}
	}
	var vals difftest.Vals
	if dt == model.Bool {
		vals = difftest.Vals{DT: dt}
		p := r.Float64() // mostly true, so that ALL is not always false
		for i := 0; i < shapeProd(shape); i++ {
			v := int64(0)
			if r.Float64() < 0.8+0.2*p {
				v = 1
			}
			vals.Ints = append(vals.Ints, v)
		}
	} else {
		vals = difftest.RandVals(r, dt, shapeProd(shape))
	}
	in := m.Tensor("in", dt, shape, qi)
	axisShape := []int{nAxes}
	if nAxes == 1 && r.IntN(3) == 0 {
		axisShape = []int{}
	}
	axisDT := model.Int32
	if opt.axisDT != 0 {
		axisDT = opt.axisDT
	}
	av := difftest.Vals{DT: axisDT}
	for _, a := range axes {
		av.Ints = append(av.Ints, int64(a))
	}
	ax := av.ConstTensor(m, "axis", axisShape, nil)
	out := m.Tensor("out", dt, outShape, qo)
	m.Op(code, []int{in, ax}, []int{out}, &builder.Options{Type: model.UnionReducerOptions, Fields: []builder.Field{builder.Bool(model.ReducerOptionsKeepDims, keep)}})
	m.IO([]int{in}, []int{out})
	c.inputs = []difftest.Vals{vals}
	c.model = m.Bytes()
	return c
}

// TestReduceMatchesTFLM: random SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_ALL
// (and MEAN, lowered in mean.go with the same axis handling) models of
// every type TFLM runs, through TFLM and in-process, compared bit for bit.
// One case in 25 has an axis out of range and one in 10 of the int8
// REDUCE_MAX/MIN cases differing quantization: TFLM rejects those and so
// must the lowering.
func TestReduceMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	for _, tc := range []struct {
		code model.OpCode
		dt   model.DType
	}{
		{model.OpSum, model.Float32},
		{model.OpSum, model.Int8},
		{model.OpSum, model.Int16},
		{model.OpReduceMax, model.Float32},
		{model.OpReduceMax, model.Int8},
		{model.OpReduceMin, model.Float32},
		{model.OpReduceMin, model.Int8},
		{model.OpReduceAll, model.Bool},
		{model.OpMean, model.Float32},
		{model.OpMean, model.Int8},
		{model.OpMean, model.Int16},
	} {
		name := fmt.Sprintf("%s_%s", tc.code, tc.dt)
		t.Run(name, func(t *testing.T) {
			seed := uint64(0)
			for _, b := range name {
				seed = seed*31 + uint64(b)
			}
			r := rand.New(rand.NewPCG(seed, 27))
			gen := func(r *rand.Rand) diffCase {
				opt := reduceOpt{badAxis: r.IntN(25) == 0}
				if tc.dt == model.Int8 && (tc.code == model.OpReduceMax || tc.code == model.OpReduceMin) {
					opt.diffQuant = r.IntN(10) == 0
				}
				return randReduce(r, tc.code, tc.dt, opt)
			}
			// An axis out of range fails TFLM's float, bool and MIN/MAX
			// Invoke; its int8 and int16 SUM and MEAN ignore the failed
			// ResolveAxis and write zeros. The lowering refuses them all.
			var allow func(error) bool
			if tc.dt == model.Int8 || tc.dt == model.Int16 {
				allow = func(err error) bool { return strings.Contains(err.Error(), "out of range") }
			}
			runDiffCases(t, o, diffN{20, 200}, r, gen, allow)
		})
	}
}

// TestReduceRefusedAsTFLM: the types TFLM's reductions reject, int64 axes,
// and int8 REDUCE_MAX with differing quantization.
func TestReduceRefusedAsTFLM(t *testing.T) {
	o := oracle.New(t)
	r := rand.New(rand.NewPCG(27, 1))
	for _, tc := range []struct {
		code model.OpCode
		dt   model.DType
		opt  reduceOpt
		want string
	}{
		{model.OpSum, model.Int32, reduceOpt{}, "not supported"},
		{model.OpSum, model.Float32, reduceOpt{axisDT: model.Int64}, "must be int32"},
		{model.OpReduceMax, model.Int16, reduceOpt{}, "not supported"},
		{model.OpReduceMax, model.Int32, reduceOpt{}, "not supported"},
		{model.OpReduceMin, model.Int16, reduceOpt{}, "not supported"},
		{model.OpReduceMax, model.Int8, reduceOpt{diffQuant: true}, "quantization differ"},
		{model.OpReduceMin, model.Int8, reduceOpt{diffQuant: true}, "quantization differ"},
		{model.OpReduceAll, model.Float32, reduceOpt{}, "not supported"},
		{model.OpReduceAll, model.Int8, reduceOpt{}, "not supported"},
	} {
		c := randReduce(r, tc.code, tc.dt, tc.opt)
		checkRefusedAsTFLM(t, o, c, tc.code, tc.want)
	}
}

// randCumsum is a random CUMSUM: rank 1-5, any axis (negative half the
// time, out of range when badAxis), exclusive and reverse either way; int8
// outputs with a scale that grows with the depth.
func randCumsum(r *rand.Rand, dt model.DType, badAxis bool) diffCase {
	rank := 1 + r.IntN(5)
	shape := randDims(r, rank, 5)
	if rank == 1 && r.IntN(3) == 0 {
		shape[0] = 1 + r.IntN(100)
	}
	a := r.IntN(rank)
	axis := a
	if r.IntN(2) == 0 {
		axis -= rank
	}
	if badAxis {
		axis = []int{rank, -rank - 1}[r.IntN(2)]
	}
	exclusive, reverse := r.IntN(2) == 0, r.IntN(2) == 0
	c := diffCase{outDT: dt, desc: fmt.Sprintf("CUMSUM %s %v axis %d exclusive %v reverse %v", dt, shape, axis, exclusive, reverse)}
	m := builder.New("cumsum differential case")
	qi := difftest.RandQuant(r, dt)
	qo := qi
	if dt == model.Int8 {
		so := qi.Scale[0] * float32(math.Exp2(math.Log2(float64(shape[a]))*r.Float64()+2*r.Float64()-1))
		zo := difftest.RandQuant(r, dt).ZeroPoint[0]
		if r.IntN(2) == 0 {
			zo /= 8
		}
		qo = builder.PerTensor(so, zo)
	}
	in := m.Tensor("in", dt, shape, qi)
	axisShape := []int{1}
	if r.IntN(2) == 0 {
		axisShape = []int{}
	}
	ax := m.ConstI32("axis", axisShape, nil, []int32{int32(axis)})
	out := m.Tensor("out", dt, shape, qo)
	m.Op(model.OpCumsum, []int{in, ax}, []int{out}, &builder.Options{Type: model.UnionCumsumOptions, Fields: []builder.Field{
		builder.Bool(model.CumsumOptionsExclusive, exclusive), builder.Bool(model.CumsumOptionsReverse, reverse)}})
	m.IO([]int{in}, []int{out})
	c.inputs = []difftest.Vals{difftest.RandVals(r, dt, shapeProd(shape))}
	c.model = m.Bytes()
	return c
}

// TestCumsumMatchesTFLM: random CUMSUM models through TFLM and
// in-process, compared bit for bit; one case in 25 has an axis out of
// range, which TFLM rejects and the lowering must refuse.
func TestCumsumMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	for _, dt := range []model.DType{model.Float32, model.Int8} {
		name := fmt.Sprintf("CUMSUM_%s", dt)
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(dt), 102))
			gen := func(r *rand.Rand) diffCase { return randCumsum(r, dt, r.IntN(25) == 0) }
			runDiffCases(t, o, diffN{20, 200}, r, gen, nil)
		})
	}
}

// TestCumsumRefusedAsTFLM: the types TFLM's CUMSUM rejects.
func TestCumsumRefusedAsTFLM(t *testing.T) {
	o := oracle.New(t)
	r := rand.New(rand.NewPCG(102, 1))
	for _, dt := range []model.DType{model.Int16, model.Int32} {
		checkRefusedAsTFLM(t, o, randCumsum(r, dt, false), model.OpCumsum, "not supported")
	}
	checkRefusedAsTFLM(t, o, randCumsum(r, model.Float32, true), model.OpCumsum, "out of range")
}
