package lower

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/devtools/oracle"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// bmmOpt selects unusual BATCH_MATMUL cases.
type bmmOpt struct {
	badDepth, badBatch bool // accumulation depths or batch dimensions that do not match
	int16ZP            bool // a nonzero int16 zero point
	outDT              model.DType
}

// randBatchMatmul is a random BATCH_MATMUL: operands of rank 2-5 with
// batch dimensions broadcast from either side, adj_x and adj_y, the rhs
// constant one case in three and the lhs one in six.
func randBatchMatmul(r *rand.Rand, dt model.DType, opt bmmOpt) diffCase {
	lr, rr := 2+r.IntN(4), 2+r.IntN(4)
	n := max(lr, rr)
	var lBatch, rBatch, oBatch []int
	for i := 0; i < n-2; i++ {
		d := 1 + r.IntN(3)
		l, rd := d, d
		switch r.IntN(4) {
		case 0:
			l = 1
		case 1:
			rd = 1
		}
		if i >= n-lr { // the dimension exists in the lhs
			lBatch = append(lBatch, l)
		} else {
			l = 1
		}
		if i >= n-rr {
			rBatch = append(rBatch, rd)
		} else {
			rd = 1
		}
		oBatch = append(oBatch, max(l, rd))
	}
	if opt.badBatch && len(lBatch) > 0 && len(rBatch) > 0 {
		lBatch[len(lBatch)-1], rBatch[len(rBatch)-1] = 2, 3
	}
	A, B, C := 1+r.IntN(6), 1+r.IntN(6), 1+r.IntN(6)
	if r.IntN(5) == 0 {
		B = 1 + r.IntN(60)
	}
	adjX, adjY := r.IntN(2) == 0, r.IntN(2) == 0
	lm, rm := []int{A, B}, []int{B, C}
	if adjX {
		lm = []int{B, A}
	}
	if adjY {
		rm = []int{C, B}
	}
	if opt.badDepth {
		rm[0]++
		if adjY {
			rm[0]--
			rm[1]++
		}
	}
	ls := append(append([]int{}, lBatch...), lm...)
	rs := append(append([]int{}, rBatch...), rm...)
	os := append(append([]int{}, oBatch...), A, C)
	outDT := dt
	if opt.outDT != 0 {
		outDT = opt.outDT
	}
	var ql, qr, qo *builder.Quant
	switch dt {
	case model.Int8:
		ql, qr = difftest.RandQuant(r, dt), difftest.RandQuant(r, dt)
		// Products of up to 2^14 summed B times: an output scale 2^6 to
		// 2^13 times B above the product scale keeps most results in
		// range, also with zero points at the limits.
		zo := difftest.RandQuant(r, dt).ZeroPoint[0]
		if r.IntN(2) == 0 {
			zo /= 8 // near the middle as often as at the limits
		}
		qo = builder.PerTensor(ql.Scale[0]*qr.Scale[0]*float32(math.Exp2(6+7*r.Float64()+math.Log2(float64(B)))), zo)
	case model.Int16:
		ql, qr = difftest.RandQuant(r, dt), difftest.RandQuant(r, dt)
		qo = builder.PerTensor(ql.Scale[0]*qr.Scale[0]*float32(math.Exp2(13+10*r.Float64()+0.5*math.Log2(float64(B)))), 0)
		if opt.int16ZP {
			qr.ZeroPoint[0] = 1
		}
	}
	c := diffCase{outDT: outDT, desc: fmt.Sprintf("BATCH_MATMUL %s lhs %v rhs %v adj_x %v adj_y %v", dt, ls, rs, adjX, adjY)}
	m := builder.New("batch_matmul differential case")
	var ins []int
	constR := r.IntN(3) == 0
	constL := !constR && r.IntN(5) == 0
	tl := addInput(m, &c, &ins, "lhs", ls, ql, difftest.RandVals(r, dt, shapeProd(ls)), constL)
	tr := addInput(m, &c, &ins, "rhs", rs, qr, difftest.RandVals(r, dt, shapeProd(rs)), constR)
	to := m.Tensor("out", outDT, os, qo)
	m.Op(model.OpBatchMatmul, []int{tl, tr}, []int{to}, &builder.Options{Type: model.UnionBatchMatMulOptions, Fields: []builder.Field{
		builder.Bool(model.BatchMatMulOptionsAdjX, adjX), builder.Bool(model.BatchMatMulOptionsAdjY, adjY)}})
	m.IO(ins, []int{to})
	c.model = m.Bytes()
	return c
}

// TestBatchMatmulMatchesTFLM: random BATCH_MATMUL models of each type,
// through TFLM and in-process, compared bit for bit; one case in 20 has
// mismatched depths and one in 20 batch dimensions that do not broadcast,
// which TFLM rejects and the lowering must refuse.
func TestBatchMatmulMatchesTFLM(t *testing.T) {
	o := oracle.New(t)
	for _, dt := range []model.DType{model.Float32, model.Int8, model.Int16} {
		name := fmt.Sprintf("BATCH_MATMUL_%s", dt)
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(dt), 101))
			gen := func(r *rand.Rand) diffCase {
				return randBatchMatmul(r, dt, bmmOpt{badDepth: r.IntN(20) == 0, badBatch: r.IntN(20) == 0})
			}
			runDiffCases(t, o, diffN{20, 200}, r, gen, nil)
		})
	}
}

// TestBatchMatmulRefusedAsTFLM: types TFLM rejects, mixed types, int16
// zero points, and shapes that do not multiply.
func TestBatchMatmulRefusedAsTFLM(t *testing.T) {
	o := oracle.New(t)
	r := rand.New(rand.NewPCG(101, 2))
	for _, tc := range []struct {
		dt   model.DType
		opt  bmmOpt
		want string
	}{
		{model.Int32, bmmOpt{}, "not supported"},
		{model.Int8, bmmOpt{outDT: model.Int32}, "one type"},
		{model.Int16, bmmOpt{int16ZP: true}, "zero points must be 0"},
		{model.Float32, bmmOpt{badDepth: true}, "depths"},
		{model.Int8, bmmOpt{badDepth: true}, "depths"},
	} {
		checkRefusedAsTFLM(t, o, randBatchMatmul(r, tc.dt, tc.opt), model.OpBatchMatmul, tc.want)
	}
}
