package lower

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/model"
)

// TestOperatorFacts: every operator declares, in its registration, the
// facts the generator needs of it, and no other operator declares them.
// The lists are the specification: the operators whose kernels
// multiply-accumulate (MACs in report.json and layout.txt), those whose
// TFLite Micro kernel requests scratch in its Prepare (TFLMScratch, for
// -emit-offline; from TFLM's kernels at the commit of shared/ref), and
// those that read their input in windows (program.Op.InputReads).
func TestOperatorFacts(t *testing.T) {
	want := map[string][]model.OpCode{
		"MACs (withMACs)": {model.OpConv2D, model.OpDepthwiseConv2D, model.OpTransposeConv, model.OpFullyConnected,
			model.OpBatchMatmul, model.OpUnidirectionalSequenceLstm, model.OpSvdf},
		"TFLM scratch (withTFLMScratch)": {model.OpSvdf, model.OpTransposeConv, model.OpUnidirectionalSequenceLstm,
			model.OpMean, model.OpSum, model.OpReduceMax, model.OpReduceMin, model.OpReduceAll, model.OpMirrorPad, model.OpAddN},
		"input reads (withInputReads)": {model.OpConv2D, model.OpDepthwiseConv2D, model.OpAveragePool2D, model.OpMaxPool2D},
	}
	has := map[string]func(registration) bool{
		"MACs (withMACs)":                func(r registration) bool { return r.macs != nil },
		"TFLM scratch (withTFLMScratch)": func(r registration) bool { return r.tflmScratch != nil },
		"input reads (withInputReads)":   func(r registration) bool { return r.reads != nil },
	}
	if len(lowerings) < 90 {
		t.Fatalf("%d registrations: not the table this test expects", len(lowerings))
	}
	for name, codes := range want {
		for code, r := range lowerings {
			if need, got := slices.Contains(codes, code), has[name](r); need != got {
				t.Errorf("%s: declares %s %v, want %v", code, name, got, need)
			}
		}
		for _, code := range codes {
			if _, ok := lowerings[code]; !ok {
				t.Errorf("%s needs %s but has no lowering", code, name)
			}
		}
	}
}

// TestBatchMatmulMACs: a BATCH_MATMUL counts one MAC per output element
// and step of its accumulation depth, which the test reads from the
// right-hand side (batchMatmulMACs reads the left), adj_x and adj_y
// included.
func TestBatchMatmulMACs(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for range 20 {
		c := randBatchMatmul(r, model.Float32, bmmOpt{})
		g, err := model.Parse("bmm.tflite", c.model)
		if err != nil {
			t.Fatal(err)
		}
		op := g.Ops[0]
		b, out := g.Input(op, 1), g.Output(op, 0)
		depth := b.Shape[len(b.Shape)-2]
		if op.Options().BatchMatMul().AdjY {
			depth = b.Shape[len(b.Shape)-1]
		}
		if got, want := MACs(g), int64(out.NumElements()*depth); got != want || want == 0 {
			t.Errorf("%s: %d MACs, want %d", c.desc, got, want)
		}
	}
}
