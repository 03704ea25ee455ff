package lower

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/devtools/oracle"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// fuzzGenerators are random single-operator cases whose outputs must equal
// TFLM's bit for bit (the float operators compared with a tolerance are
// left to their own tests). Each operator and type here has a reference
// implementation in fuzz_ref_test.go, which checks the inputs TFLM's
// recording does not cover.
var fuzzGenerators = []struct {
	name string
	gen  func(r *rand.Rand) diffCase
}{
	{"RESIZE_BILINEAR_int8", func(r *rand.Rand) diffCase { return randResize(r, model.OpResizeBilinear, model.Int8, true) }},
	{"RESIZE_NEAREST_NEIGHBOR_int16", func(r *rand.Rand) diffCase {
		return randResize(r, model.OpResizeNearestNeighbor, model.Int16, true)
	}},
	{"GATHER_int8", func(r *rand.Rand) diffCase { return randGather(r, model.Int8, model.Int32) }},
	{"GATHER_ND_float32", func(r *rand.Rand) diffCase { return randGatherNd(r, model.Float32, model.Int32) }},
	{"EMBEDDING_LOOKUP_int8", func(r *rand.Rand) diffCase { return randEmbedding(r, model.Int8, model.Float32) }},
	{"LESS_int8", func(r *rand.Rand) diffCase { return randBinaryBool(r, model.OpLess, model.Int8) }},
	{"EQUAL_float32", func(r *rand.Rand) diffCase { return randBinaryBool(r, model.OpEqual, model.Float32) }},
	{"SELECT_V2_int8", func(r *rand.Rand) diffCase { return randSelect(r, model.Int8) }},
	{"CAST_float32_int16", func(r *rand.Rand) diffCase { return randCast(r, model.Float32, model.Int16, model.Int32) }},
	{"BROADCAST_TO_int8", func(r *rand.Rand) diffCase { return randBroadcastTo(r, model.Int8, model.Int32) }},
	{"FLOOR_DIV_float32", func(r *rand.Rand) diffCase { return randDivmod(r, model.OpFloorDiv, model.Float32, 4) }},
	{"SQUARED_DIFFERENCE_int8", func(r *rand.Rand) diffCase { return randSqDiff(r, model.Int8) }},
	{"ADD_N_int8", func(r *rand.Rand) diffCase { return randAddN(r, model.Int8) }},
	{"SUM_int8", func(r *rand.Rand) diffCase {
		return randReduce(r, model.OpSum, model.Int8, reduceOpt{axisDT: model.Int32})
	}},
	{"REDUCE_MAX_float32", func(r *rand.Rand) diffCase {
		return randReduce(r, model.OpReduceMax, model.Float32, reduceOpt{axisDT: model.Int32})
	}},
	{"BATCH_MATMUL_int8", func(r *rand.Rand) diffCase { return randBatchMatmul(r, model.Int8, bmmOpt{outDT: model.Int8}) }},
	{"L2_NORMALIZATION_int8", func(r *rand.Rand) diffCase { return randL2Norm(r, model.Int8, 0, false) }},
	{"CUMSUM_int8", func(r *rand.Rand) diffCase { return randCumsum(r, model.Int8, false) }},
	{"SPLIT_V_int16", func(r *rand.Rand) diffCase { return randSplitV(r, model.Int16) }},
	{"SPACE_TO_BATCH_ND_int8", func(r *rand.Rand) diffCase { return randSpaceToBatch(r, model.Int8) }},
	{"MIRROR_PAD_float32", func(r *rand.Rand) diffCase { return randMirrorPad(r, model.Float32) }},
	{"REVERSE_V2_int32", func(r *rand.Rand) diffCase { return randReverse(r, model.Int32) }},
	{"DYNAMIC_UPDATE_SLICE_int8", func(r *rand.Rand) diffCase { return randDynamicUpdateSlice(r, model.Int8, model.Int32) }},
}

// FuzzDifferentialTFLM keeps drawing random cases of the differential
// tests (a generator and a seed per input) and runs each in-process and
// through TFLM: a model TFLM rejects must be refused, a model tflm-gen
// refuses must be refused as unsupported (never a crash or an invalid-model
// error), and every output byte must equal TFLM's, and the reference
// implementations' (refRun) where they cover the case. The oracle's replay
// has recordings of the seed corpus only: a new input is checked against
// the reference implementations alone, and a refusal must be an
// unsupported-model or invalid-model error (difftest.RefusedCleanly). The seed
// corpus runs in go test; `go test ./gen/lower -run '^$' -fuzz
// FuzzDifferentialTFLM` keeps going.
func FuzzDifferentialTFLM(f *testing.F) {
	for i := range fuzzGenerators {
		f.Add(uint8(i), uint64(i)*7919)
	}
	o := oracle.New(f)
	f.Fuzz(func(t *testing.T, which uint8, seed uint64) {
		g := fuzzGenerators[int(which)%len(fuzzGenerators)]
		c := g.gen(rand.New(rand.NewPCG(seed, uint64(which))))
		var csvs [][]string
		var raws [][]byte
		for _, v := range c.inputs {
			csvs = append(csvs, v.CSV())
			raws = append(raws, v.Raw())
		}
		want, oerr := o.Run(c.model, csvs...)
		got, gerr := inProcess(c.model, raws...)
		if errors.Is(oerr, oracle.ErrNotRecorded) {
			fuzzCheckRef(t, g.name, c, got, gerr)
			return
		}
		switch {
		case oerr != nil && errors.Is(oerr, oracle.ErrRejected):
			if gerr == nil {
				t.Fatalf("%s (%s): TFLM rejects the model (%v) but tflm-gen lowers it", g.name, c.desc, oerr)
			}
		case oerr != nil:
			t.Fatalf("oracle: %v", oerr)
		case gerr != nil:
			if !errors.Is(gerr, ErrUnsupported) {
				t.Fatalf("%s (%s): TFLM runs it, tflm-gen: %v", g.name, c.desc, gerr)
			}
		default:
			for k := range want {
				if k >= len(got) {
					t.Fatalf("%s (%s): %d outputs, TFLM has %d", g.name, c.desc, len(got), len(want))
				}
				dt := c.outDT
				if k > 0 {
					gr, _ := model.Parse("case.tflite", c.model)
					dt = gr.Tensors[gr.Outputs[k]].Type
				}
				if err := difftest.CompareRaw(dt, got[k], want[k]); err != nil {
					t.Fatalf("%s (%s): output %d: %v", g.name, c.desc, k, err)
				}
			}
			if err := refCheck(c, want); err != nil {
				t.Fatalf("%s (%s): %v", g.name, c.desc, err)
			}
		}
	})
}

// fuzzCheckRef checks a case the oracle has no recording of: tflm-gen's
// outputs must equal the reference implementations' bit for bit (float32
// NaNs of any payload equal), and a refusal must be clean
// (difftest.RefusedCleanly). A case the references do not cover is skipped.
func fuzzCheckRef(t *testing.T, name string, c diffCase, got [][]byte, gerr error) {
	t.Helper()
	if gerr != nil {
		if !difftest.RefusedCleanly(gerr) {
			t.Fatalf("%s (%s): tflm-gen: %v, neither an unsupported-model nor an invalid-model error", name, c.desc, gerr)
		}
		return
	}
	var raws [][]byte
	for _, v := range c.inputs {
		raws = append(raws, v.Raw())
	}
	ref, err := refRun(c.model, raws...)
	switch {
	case errors.Is(err, errNoRef):
		t.Skipf("%s (%s): no TFLM recording and %v", name, c.desc, err)
	case err != nil:
		t.Fatalf("%s (%s): reference implementation: %v", name, c.desc, err)
	case len(ref) != len(got):
		t.Fatalf("%s (%s): %d outputs, the reference implementation has %d", name, c.desc, len(got), len(ref))
	}
	for k, v := range ref {
		if err := difftest.CompareRaw(v.DT, got[k], v.CSV()); err != nil {
			t.Fatalf("%s (%s): output %d against the reference implementation (fuzz_ref_test.go, no TFLM recording): %v", name, c.desc, k, err)
		}
	}
}
