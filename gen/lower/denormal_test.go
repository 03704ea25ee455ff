package lower

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/devtools/oracle"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// TestMulZeroConstantDenormalScale: a MUL of a run-time tensor by an
// all-zeros constant whose output scale is denormal (seen in a public int16
// LSTM model: scale 3.6e-43) has a rescaling factor far over 2^31. TFLM
// computes the multiplier and runs it, every product being 0; tflm-gen
// generates it too and gives TFLM's outputs.
func TestMulZeroConstantDenormalScale(t *testing.T) {
	o := oracle.New(t)
	gen := func(dt model.DType) func(r *rand.Rand) diffCase {
		return func(r *rand.Rand) diffCase {
			shape := randShape(r)
			n := shapeProd(shape)
			zp := int64(0)
			if dt == model.Int8 {
				zp = int64(r.IntN(256) - 128)
			}
			tiny := []float32{3.6e-43, 1e-40, 1.4e-45, 2e-38}[r.IntN(4)]
			m := builder.New("mul by zeros")
			x := m.Tensor("x", dt, shape, builder.PerTensor(difftest.RandScale(r), zp))
			zq := builder.PerTensor(difftest.RandScale(r), zp)
			zeros := difftest.Vals{DT: dt, Ints: make([]int64, n)}
			for i := range zeros.Ints {
				zeros.Ints[i] = zp
			}
			k := zeros.ConstTensor(m, "zeros", shape, zq)
			out := m.Tensor("out", dt, shape, builder.PerTensor(tiny, zp))
			ins := []int{x, k}
			if r.IntN(2) == 0 {
				ins = []int{k, x}
			}
			m.Op(model.OpMul, ins, []int{out}, nil)
			m.IO([]int{x}, []int{out})
			return diffCase{model: m.Bytes(), inputs: []difftest.Vals{difftest.RandVals(r, dt, n)}, outDT: dt,
				desc: fmt.Sprintf("MUL %s %v by zeros, scale %g", dt, shape, tiny)}
		}
	}
	for _, dt := range []model.DType{model.Int8, model.Int16} {
		t.Run(fmt.Sprintf("MUL_%s_zero_constant_denormal_scale", dt), func(t *testing.T) {
			runDiffCases(t, o, diffN{5, 40}, rand.New(rand.NewPCG(uint64(dt), 43)), gen(dt), nil)
		})
	}
}
