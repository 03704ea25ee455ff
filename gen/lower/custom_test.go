package lower

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/run"
	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/devtools/oracle"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// invokeRun is what TFLM gave for one input pattern over n Invokes: the
// inputs and outputs of every Invoke ([invoke][k] raw bytes).
type invokeRun struct {
	ins, outs [][][]byte
}

// invokeOracle runs tflm_ref's pattern mode with -invokes n in dir: per
// pattern (ramp, xorshift) one interpreter runs n Invokes, the input
// pattern continuing across them. It returns each pattern's run, or an
// error wrapping oracle.ErrRejected when TFLM's AllocateTensors or an
// Invoke fails (with the JSON's status and error), or
// oracle.ErrNotRecorded when the replay has no recording of the case.
func invokeOracle(o *oracle.Oracle, dir string, modelBytes []byte, n, nIn, nOut int) (map[string]invokeRun, error) {
	stem := filepath.Join(dir, "case")
	os.Remove(stem + ".json")
	if err := os.WriteFile(stem+".tflite", modelBytes, 0o644); err != nil {
		return nil, err
	}
	if _, err := o.Exec("-arena", "1048576", "-invokes", fmt.Sprint(n), stem+".tflite", stem); err != nil {
		if errors.Is(err, oracle.ErrRejected) {
			var j struct{ Status, Error string }
			b, _ := os.ReadFile(stem + ".json")
			json.Unmarshal(b, &j)
			return nil, fmt.Errorf("%s: %s: %w", j.Status, j.Error, err)
		}
		return nil, err
	}
	res := map[string]invokeRun{}
	for _, pat := range []string{"ramp", "xorshift"} {
		var r invokeRun
		for i := 0; i < n; i++ {
			var ins, outs [][]byte
			for k := 0; k < nIn; k++ {
				b, err := os.ReadFile(fmt.Sprintf("%s.%s.inv%d.in%d.bin", stem, pat, i, k))
				if err != nil {
					return nil, err
				}
				ins = append(ins, b)
			}
			for k := 0; k < nOut; k++ {
				b, err := os.ReadFile(fmt.Sprintf("%s.%s.inv%d.out%d.bin", stem, pat, i, k))
				if err != nil {
					return nil, err
				}
				outs = append(outs, b)
			}
			r.ins, r.outs = append(r.ins, ins), append(r.outs, outs)
		}
		res[pat] = r
	}
	return res, nil
}

// inProcessMachine lowers and plans a model for in-process runs.
func inProcessMachine(data []byte) (*run.Machine, *model.Graph, error) {
	g, err := model.Parse("case.tflite", data)
	if err != nil {
		return nil, nil, err
	}
	p, err := testProgram(g)
	if err != nil {
		return nil, nil, err
	}
	lay, err := layout.Make(p, nil, layout.Options{})
	if err != nil {
		return nil, nil, err
	}
	m, err := run.New(p, lay)
	return m, g, err
}

// compareInvokes runs a fresh machine per pattern over the oracle's inputs
// and compares every Invoke's outputs byte for byte: all of them, or when
// written is not nil only bytes [lo, hi) of output 0 after Invoke i.
func compareInvokes(data []byte, want map[string]invokeRun, written func(i int) (lo, hi int)) error {
	for _, pat := range []string{"ramp", "xorshift"} {
		m, g, err := inProcessMachine(data)
		if err != nil {
			return err
		}
		r := want[pat]
		for i := range r.ins {
			for k, in := range r.ins[i] {
				copy(m.Input(k), in)
			}
			m.Invoke()
			for k := range g.Outputs {
				got, w := m.Output(k), r.outs[i][k]
				if written != nil && k == 0 && len(got) == len(w) {
					lo, hi := written(i)
					got, w = got[lo:hi], w[lo:hi]
				}
				if !bytes.Equal(got, w) {
					return fmt.Errorf("%s Invoke %d output %d: got %v, TFLM %v", pat, i, k, got, w)
				}
			}
		}
	}
	return nil
}

// cbCase is a random CIRCULAR_BUFFER model: shapes [b,1,h,d] -> [b,slots,h,d]
// with cycles_max 1 at a random flexbuffer width, or no options with 5, 13
// or 25 slots (TFLM's default period 1), and now and then periods TFLM
// aborts on (cycles_max 0, 2, 3, a key sorting before cycles_max, no
// options with other slot counts), which must be refused. The output is a
// variable tensor in one case in three.
//
// TFLM leaves a non-variable output's memory as its arena held it (its
// Prepare's temporary structures, for one), so for those only the samples
// written so far are compared: the newest min(i+1, slots) of batch 0 after
// Invoke i. Generated code has zeros where TFLM has that garbage.
func cbCase(r *rand.Rand) (desc string, data []byte, written func(i int) (lo, hi int)) {
	b, h, d := 1, 1+r.IntN(3), 1+r.IntN(8)
	if r.IntN(4) == 0 {
		b = 2
	}
	slots := 1 + r.IntN(6)
	var opts []byte
	what := "cycles_max 1"
	switch r.IntN(8) {
	case 0:
		slots = []int{5, 13, 25}[r.IntN(3)]
		what = "no options"
	case 1:
		what = "no options"
	case 2:
		cm := []int64{0, 2, 3, -1}[r.IntN(4)]
		what = fmt.Sprintf("cycles_max %d", cm)
		opts = builder.FlexMap(map[string]builder.FlexValue{"cycles_max": builder.FlexInt(cm)}, 1)
	case 3:
		what = "cycles_max 1 after key a"
		opts = builder.FlexMap(map[string]builder.FlexValue{"a": builder.FlexInt(int64(r.IntN(3))), "cycles_max": builder.FlexInt(1)}, 4)
	default:
		opts = builder.FlexMap(map[string]builder.FlexValue{"cycles_max": builder.FlexInt(1)}, []int{1, 2, 4, 8}[r.IntN(4)])
	}
	q := difftest.RandQuant(r, model.Int8)
	variable := r.IntN(3) == 0
	m := builder.New("circular buffer differential case")
	in := m.Tensor("in", model.Int8, []int{b, 1, h, d}, q)
	var out int
	if variable {
		out = m.Variable("out", model.Int8, []int{b, slots, h, d}, q)
	} else {
		out = m.Tensor("out", model.Int8, []int{b, slots, h, d}, q)
	}
	m.Custom("CIRCULAR_BUFFER", []int{in}, []int{out}, opts)
	m.IO([]int{in}, []int{out})
	if !variable {
		depth := h * d
		written = func(i int) (int, int) { return (slots - min(i+1, slots)) * depth, slots * depth }
	}
	return fmt.Sprintf("[%d 1 %d %d] -> %d slots, %s, variable %v, zp %d", b, h, d, slots, what, variable, q.ZeroPoint[0]), m.Bytes(), written
}

// TestCircularBufferMatchesTFLM compares random CIRCULAR_BUFFER models
// with TFLM over 7 Invokes per input pattern (state carried over).
func TestCircularBufferMatchesTFLM(t *testing.T) {
	t.Run("CIRCULAR_BUFFER_int8", func(t *testing.T) {
		o := oracle.New(t)
		dir := t.TempDir()
		r := rand.New(rand.NewPCG(13, 1))
		var n difftest.Tally
		var sw difftest.Sweep
		for i := 0; i < difftest.Count(20, 200); i++ {
			desc, data, written := cbCase(r)
			_, _, gerr := inProcessMachine(data)
			if !sw.Take(i, data, testProgram) {
				n.UnrunCase(gerr)
				continue
			}
			want, oerr := invokeOracle(o, dir, data, 7, 1, 1)
			if n.Skip(t, oerr, i, desc) {
				continue
			}
			switch {
			case oerr != nil && errors.Is(oerr, oracle.ErrRejected):
				if gerr == nil {
					t.Errorf("case %d (%s): TFLM rejects the model (%v) but tflm-gen lowers it", i, desc, oerr)
					n.Mismatches++
				}
				n.Refused++
				continue
			case oerr != nil:
				t.Fatalf("case %d (%s): oracle: %v", i, desc, oerr)
			case gerr != nil:
				t.Errorf("case %d (%s): TFLM runs it, tflm-gen: %v", i, desc, gerr)
				n.Mismatches++
				n.Refused++
				continue
			}
			if err := compareInvokes(data, want, written); err != nil {
				t.Errorf("case %d (%s): %v", i, desc, err)
				n.Mismatches++
			}
			n.Compared++
		}
		n.Log(t)
	})
}

// TestCircularBufferRefusedAsTFLM: models TFLM's Prepare rejects, and
// periods other than 1 (TFLM's first Invoke returns kTfLiteAbort), are
// refused.
func TestCircularBufferRefusedAsTFLM(t *testing.T) {
	o := oracle.New(t)
	one := builder.FlexMap(map[string]builder.FlexValue{"cycles_max": builder.FlexInt(1)}, 1)
	two := builder.FlexMap(map[string]builder.FlexValue{"cycles_max": builder.FlexInt(2)}, 1)
	q := builder.PerTensor(0.5, 3)
	cases := []struct {
		name          string
		inDT, outDT   model.DType
		inSh, outSh   []int
		opts          []byte
		want, opLabel string
	}{
		{"int16", model.Int16, model.Int16, []int{1, 1, 1, 4}, []int{1, 3, 1, 4}, one, "int8 only", ""},
		{"types differ", model.Int8, model.Int16, []int{1, 1, 1, 4}, []int{1, 3, 1, 4}, one, "differ", ""},
		{"input slots", model.Int8, model.Int8, []int{1, 2, 1, 4}, []int{1, 3, 1, 4}, one, "must be [b, 1, h, d]", ""},
		{"depth", model.Int8, model.Int8, []int{1, 1, 1, 4}, []int{1, 3, 1, 5}, one, "must be [b, 1, h, d]", ""},
		{"batch", model.Int8, model.Int8, []int{2, 1, 1, 4}, []int{1, 3, 1, 4}, one, "must be [b, 1, h, d]", ""},
		{"period 2", model.Int8, model.Int8, []int{1, 1, 1, 4}, []int{1, 3, 1, 4}, two, "period of 2", ""},
		{"default period 2", model.Int8, model.Int8, []int{1, 1, 1, 4}, []int{1, 3, 1, 4}, nil, "period of 2", ""},
		{"unknown custom op", model.Int8, model.Int8, []int{1, 1, 1, 4}, []int{1, 3, 1, 4}, one, "no kernel for this custom operator", "CIRCULAR_BUFFER2"},
	}
	for _, c := range cases {
		m := builder.New("circular buffer refusal")
		in := m.Tensor("in", c.inDT, c.inSh, q)
		out := m.Tensor("out", c.outDT, c.outSh, q)
		name := "CIRCULAR_BUFFER"
		if c.opLabel != "" {
			name = c.opLabel
		}
		m.Custom(name, []int{in}, []int{out}, c.opts)
		m.IO([]int{in}, []int{out})
		n := 1
		for _, d := range c.inSh {
			n *= d
		}
		dc := diffCase{desc: c.name, model: m.Bytes(), inputs: []difftest.Vals{difftest.RandVals(rand.New(rand.NewPCG(1, 2)), c.inDT, n)}}
		checkCustomRefusedAsTFLM(t, o, dc, name, c.want)
	}
}

// checkCustomRefusedAsTFLM is checkRefusedAsTFLM for a custom operator,
// which errors name as CUSTOM "name".
func checkCustomRefusedAsTFLM(t *testing.T, o *oracle.Oracle, c diffCase, name, want string) {
	t.Helper()
	checkRefused(t, o, c, fmt.Sprintf("(CUSTOM %q)", name), want)
}

// dppCase is a random TFLite_Detection_PostProcess model: n anchors with
// positive sizes, box encodings small enough that every decoded box is
// valid, scores in [0, 1) with ties, fast or regular NMS.
//
// cats is 0 for regular NMS, else the categories per anchor: TFLM's fast
// NMS writes its k-th detection at cats*k + k%cats only.
func dppCase(r *rand.Rand) (desc string, data []byte, inputs []difftest.Vals, cats int) {
	nb := 1 + r.IntN(40)
	numClasses := 1 + r.IntN(5)
	bg := r.IntN(2)
	stride := 4 + r.IntN(2)
	maxDet := 1 + r.IntN(12)
	maxCls := 1 + r.IntN(3)
	perClass := 1 + r.IntN(10)
	regular := r.IntN(2) == 0
	if regular && maxDet == 1 {
		maxDet = 2
	}
	opts := map[string]builder.FlexValue{
		"max_detections":            builder.FlexInt(int64(maxDet)),
		"max_classes_per_detection": builder.FlexInt(int64(maxCls)),
		"detections_per_class":      builder.FlexInt(int64(perClass)),
		"use_regular_nms":           builder.FlexBool(regular),
		"nms_score_threshold":       builder.FlexFloat(float64(float32(r.Float64() * 0.5))),
		"nms_iou_threshold":         builder.FlexFloat(float64(float32(0.1 + 0.9*r.Float64()))),
		"num_classes":               builder.FlexInt(int64(numClasses)),
		"y_scale":                   builder.FlexFloat(10),
		"x_scale":                   builder.FlexFloat(10),
		"h_scale":                   builder.FlexFloat(5),
		"w_scale":                   builder.FlexFloat(5),
	}
	anchors := make([]float32, 4*nb)
	for i := 0; i < nb; i++ {
		anchors[4*i] = float32(r.Float64())
		anchors[4*i+1] = float32(r.Float64())
		anchors[4*i+2] = float32(0.05 + 0.5*r.Float64())
		anchors[4*i+3] = float32(0.05 + 0.5*r.Float64())
	}
	enc := difftest.Vals{DT: model.Float32}
	for i := 0; i < nb*stride; i++ {
		enc.Flts = append(enc.Flts, float32(r.NormFloat64()*2))
	}
	scores := difftest.Vals{DT: model.Float32}
	for i := 0; i < nb*(numClasses+bg); i++ {
		scores.Flts = append(scores.Flts, float32(r.IntN(16))/16)
	}
	dets := maxDet
	if !regular {
		cats := min(maxCls, numClasses)
		dets = maxDet * cats * cats
	}
	m := builder.New("detection postprocess differential case")
	te := m.Tensor("box_encodings", model.Float32, []int{1, nb, stride}, nil)
	ts := m.Tensor("scores", model.Float32, []int{1, nb, numClasses + bg}, nil)
	ta := m.ConstF32("anchors", []int{nb, 4}, anchors)
	ob := m.Tensor("boxes", model.Float32, []int{1, dets, 4}, nil)
	oc := m.Tensor("classes", model.Float32, []int{1, dets}, nil)
	os := m.Tensor("scores_out", model.Float32, []int{1, dets}, nil)
	on := m.Tensor("num", model.Float32, []int{1}, nil)
	m.Custom("TFLite_Detection_PostProcess", []int{te, ts, ta}, []int{ob, oc, os, on}, builder.FlexMap(opts, []int{4, 8}[r.IntN(2)]))
	m.IO([]int{te, ts}, []int{ob, oc, os, on})
	desc = fmt.Sprintf("%d boxes, %d+%d classes, max %d, regular %v", nb, numClasses, bg, maxDet, regular)
	if !regular {
		cats = min(maxCls, numClasses)
	}
	return desc, m.Bytes(), []difftest.Vals{enc, scores}, cats
}

// TestDetectionPostProcessMatchesTFLM compares all four outputs bit for
// bit: in fast NMS only the detections TFLM writes (it leaves the rest).
func TestDetectionPostProcessMatchesTFLM(t *testing.T) {
	t.Run("TFLite_Detection_PostProcess_float32", func(t *testing.T) {
		o := oracle.New(t)
		r := rand.New(rand.NewPCG(13, 2))
		var tally difftest.Tally
		var sw difftest.Sweep
		for i := 0; i < difftest.Count(20, 200); i++ {
			desc, data, inputs, cats := dppCase(r)
			got, path, gerr := inProcessPath(data, inputs[0].Raw(), inputs[1].Raw())
			if !sw.Pick(i, path) {
				tally.UnrunCase(gerr)
				continue
			}
			want, oerr := o.Run(data, inputs[0].CSV(), inputs[1].CSV())
			if tally.Skip(t, oerr, i, desc) {
				continue
			}
			if oerr == nil && errors.Is(gerr, ErrUnsupported) && strings.Contains(gerr.Error(), "TFLM's scratch") {
				tally.Refused++ // documented: TFLM would write past its scratch
				continue
			}
			if oerr != nil || gerr != nil {
				t.Errorf("case %d (%s): TFLM %v, tflm-gen %v", i, desc, oerr, gerr)
				tally.Mismatches++
				tally.Refused++
				continue
			}
			if err := difftest.CompareRaw(model.Float32, got[3], want[3]); err != nil {
				t.Errorf("case %d (%s): num_detections: %v", i, desc, err)
				tally.Mismatches++
				continue
			}
			n := int(math.Float32frombits(binary.LittleEndian.Uint32(got[3])))
			bad := false
			for k, per := range []int{4, 1, 1} {
				g, w := got[k], want[k]
				if cats > 0 {
					var gs []byte
					var ws []string
					for j := 0; j < n; j++ {
						o := cats*j + j%cats
						gs = append(gs, g[4*per*o:4*per*(o+1)]...)
						ws = append(ws, w[per*o:per*(o+1)]...)
					}
					g, w = gs, ws
				}
				if err := difftest.CompareRaw(model.Float32, g, w); err != nil {
					t.Errorf("case %d (%s): output %d: %v", i, desc, k, err)
					bad = true
				}
			}
			if bad {
				tally.Mismatches++
			}
			tally.Compared++
		}
		tally.Log(t)
	})
}

// TestDetectionPostProcessRefusedAsTFLM: what TFLM's Prepare or Eval
// rejects is refused.
func TestDetectionPostProcessRefusedAsTFLM(t *testing.T) {
	o := oracle.New(t)
	base := map[string]builder.FlexValue{
		"max_detections": builder.FlexInt(3), "max_classes_per_detection": builder.FlexInt(1),
		"nms_score_threshold": builder.FlexFloat(0), "nms_iou_threshold": builder.FlexFloat(0.5),
		"num_classes": builder.FlexInt(2), "y_scale": builder.FlexFloat(10), "x_scale": builder.FlexFloat(10),
		"h_scale": builder.FlexFloat(5), "w_scale": builder.FlexFloat(5),
	}
	with := func(k string, v builder.FlexValue) map[string]builder.FlexValue {
		m := map[string]builder.FlexValue{}
		for a, b := range base {
			m[a] = b
		}
		m[k] = v
		return m
	}
	cases := []struct {
		name  string
		dt    model.DType
		encSh []int
		opts  map[string]builder.FlexValue
		want  string
	}{
		{"int8", model.Int8, []int{1, 4, 4}, base, "float32 only"},
		{"rank", model.Float32, []int{4, 4}, base, "rank 3"},
		{"iou 0", model.Float32, []int{1, 4, 4}, with("nms_iou_threshold", builder.FlexFloat(0)), "nms_iou_threshold"},
		{"classes", model.Float32, []int{1, 4, 4}, with("num_classes", builder.FlexInt(5)), "num_classes"},
		{"max classes 0", model.Float32, []int{1, 4, 4}, with("max_classes_per_detection", builder.FlexInt(0)), "max_classes_per_detection"},
	}
	for _, c := range cases {
		m := builder.New("detection postprocess refusal")
		var q *builder.Quant
		if c.dt == model.Int8 {
			q = builder.PerTensor(0.1, 0)
		}
		te := m.Tensor("enc", c.dt, c.encSh, q)
		ts := m.Tensor("scores", c.dt, []int{1, 4, 3}, q)
		ta := m.ConstF32("anchors", []int{4, 4}, make([]float32, 16))
		var outs []int
		for k, sh := range [][]int{{1, 3, 4}, {1, 3}, {1, 3}, {1}} {
			outs = append(outs, m.Tensor(fmt.Sprint("out", k), model.Float32, sh, nil))
		}
		m.Custom("TFLite_Detection_PostProcess", []int{te, ts, ta}, outs, builder.FlexMap(c.opts, 8))
		m.IO([]int{te, ts}, outs)
		n := 1
		for _, d := range c.encSh {
			n *= d
		}
		rr := rand.New(rand.NewPCG(1, 3))
		dc := diffCase{desc: c.name, model: m.Bytes(), inputs: []difftest.Vals{difftest.RandVals(rr, c.dt, n), difftest.RandVals(rr, c.dt, 12)}}
		checkCustomRefusedAsTFLM(t, o, dc, "TFLite_Detection_PostProcess", c.want)
	}
}
