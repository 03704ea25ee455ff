package lower

import (
	"slices"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// The custom operators TFLite Micro registers (CIRCULAR_BUFFER and
// TFLite_Detection_PostProcess), found by their custom name. Their options
// are a flexbuffer in the operator's custom_options, which TFLM reads by
// element index (FlexbufferWrapper), not by key: the indices below are the
// positions of the keys in sorted order, and so are the reads here.

// customLowerings maps custom operator names to their lowerings; other
// custom operators are refused.
var customLowerings = map[string]registration{
	"CIRCULAR_BUFFER":              {lower: lowerCircularBuffer, mem: ownBuffer},
	"TFLite_Detection_PostProcess": {lower: lowerDetectionPostProcess, mem: ownBuffer},
}

// Flexbuffer element indices of CIRCULAR_BUFFER's options
// (circular_buffer_common.cc).
const circularBufferCyclesMax = 0 // "cycles_max"

// customOptions reads the operator's custom_options as TFLM's
// FlexbufferWrapper does; ok is false when there are none.
func customOptions(c *opCtx) (v model.FlexVector, ok bool, err error) {
	if len(c.Op.CustomOptions) == 0 {
		return v, false, nil
	}
	v, err = model.ParseFlexVector(c.Op.CustomOptions)
	if err != nil {
		return v, false, c.Errorf("custom options: %v", err)
	}
	return v, true, nil
}

// customInputsReady checks what the model reader leaves to the lowering
// for custom operators: every input is a constant, a variable, a graph
// input or written by an earlier operator.
func customInputsReady(c *opCtx) error {
	for k, ti := range c.Op.Inputs {
		if ti < 0 {
			continue
		}
		t := c.G.Tensors[ti]
		if t.IsConst() || t.IsVariable || slices.Contains(c.G.Inputs, ti) {
			continue
		}
		written := false
		for _, op := range c.G.Ops[:c.Op.Index] {
			written = written || slices.Contains(op.Outputs, ti)
		}
		if !written {
			return c.Errorf("input %d: %s is read before any operator writes it", k, t.Describe())
		}
	}
	return nil
}

// lowerCircularBuffer follows TFLM's circular_buffer.cc and
// circular_buffer_common.cc. Input [b, 1, h, d] and output [b, slots, h, d]
// (rank 4; TFLM reads four dimensions of each without checking the rank),
// both int8; each Invoke drops the output's oldest of slots samples of h*d
// values and appends the input's first h*d values (of batch 0 only, as in
// TFLM).
//
// The samples must survive between Invokes. A variable output tensor is
// kept for the whole program by the planner and shifted in place (Reset
// and the first Invoke fill it with its zero point, as TFLM's
// ResetVariableTensors does); any other output is shifted in a persistent
// buffer of its size (zero at start and after Reset, as the zeroed arena
// TFLM starts from) and copied to the output. TFLM itself shifts a
// non-variable output in its planned memory, which starts with whatever
// the arena held (its Prepare's temporary structures, other tensors) and
// can be reused by other tensors between Invokes: generated code keeps it
// always, with zeros in the samples not yet written, and matches TFLM on
// every sample written so far.
//
// cycles_max (option 0) makes TFLM's Invoke return kTfLiteAbort, and skip
// the remaining operators, on all but one of every cycles_max Invokes; a
// generated Invoke is a fixed sequence of kernel calls that cannot end
// early or report it, so only a period of 1 is supported: cycles_max 1,
// or no option (or <= 0) with an output of 5, 13 or 25 slots, for which
// TFLM's Prepare picks 1. Its other default, 1 for the fifth such operator
// of shape [., ., 2, 96] since the last reset of a process-wide counter,
// depends on TFLM's history in the process and is refused with the
// period 2 it picks otherwise.
func lowerCircularBuffer(c *opCtx) error {
	if c.NumIn() < 1 || c.NumOut() < 1 {
		return c.Errorf("needs an input and an output, has %d and %d", c.NumIn(), c.NumOut())
	}
	if c.NumIn() != 1 || c.NumOut() != 1 {
		return c.Errorf("%d inputs and %d outputs not supported (one each; TFLM ignores the others)", c.NumIn(), c.NumOut())
	}
	if err := customInputsReady(c); err != nil {
		return err
	}
	in, out := c.In(0), c.Out(0)
	if in == nil {
		return c.Errorf("input 0 is omitted")
	}
	if len(in.Shape) != 4 || len(out.Shape) != 4 {
		return c.Errorf("input %s and output %s must have rank 4", in.Describe(), out.Describe())
	}
	if in.Shape[0] != out.Shape[0] || in.Shape[1] != 1 || in.Shape[2] != out.Shape[2] || in.Shape[3] != out.Shape[3] {
		return c.Errorf("input %s must be [b, 1, h, d] for output %s [b, slots, h, d]", in.Describe(), out.Describe())
	}
	if in.Type != out.Type {
		return c.Errorf("input type %s and output type %s differ", in.Type, out.Type)
	}
	if in.Type != model.Int8 {
		return c.Errorf("type %s not supported (int8 only, as in TFLite Micro)", in.Type)
	}
	slots, depth := out.Shape[1], out.Shape[2]*out.Shape[3]
	if slots < 1 {
		return c.Errorf("output %s has no slots", out.Describe())
	}
	cycles := int32(0)
	opts, ok, err := customOptions(c)
	if err != nil {
		return err
	}
	if ok {
		if cycles, err = opts.Int32(circularBufferCyclesMax); err != nil {
			return c.Errorf("custom options: cycles_max: %v", err)
		}
	}
	if cycles <= 0 {
		switch {
		case slots == 5 || slots == 13 || slots == 25:
			cycles = 1
		case out.Shape[2] == 2 && out.Shape[3] == 96:
			return c.Errorf("without cycles_max, TFLM's period for output %s depends on how many circular buffers it prepared before in the process", out.Describe())
		default:
			cycles = 2
		}
	}
	if cycles != 1 {
		return c.Errorf("a period of %d Invokes (cycles_max) is not supported: TFLM's Invoke returns kTfLiteAbort and skips the later operators on %d of every %d Invokes, which a generated Invoke cannot do (period 1 only)", cycles, cycles-1, cycles)
	}
	state := View(out)
	if !out.IsVariable {
		state = c.Persistent(model.Int8, out.NumElements())
	}
	c.Call(kernelsig.CircularBufferInt8, View(in), state, View(out), I32(int32(slots)), I32(int32(depth)))
	return nil
}

// lowerDetectionPostProcess follows TFLM's detection_postprocess.cc, which
// runs float32 only (its Eval fails on other types): box encodings
// [1, n, >= 4], scores [1, n, classes (+1 background)], constant anchors
// [n, 4] (y, x, h, w), four float32 outputs. Options are read by key from
// the flexbuffer map as TFLM reads them (absent: 0; detections_per_class
// 100, use_regular_nms false). Refused besides what TFLM rejects: outputs
// smaller than what TFLM writes (it would write past them), a regular-NMS
// merge list longer than TFLM's scratch (max_detections*n), no classes,
// and non-constant anchors.
func lowerDetectionPostProcess(c *opCtx) error {
	if c.NumIn() != 3 || c.NumOut() != 4 {
		return c.Errorf("needs 3 inputs and 4 outputs, has %d and %d", c.NumIn(), c.NumOut())
	}
	if err := customInputsReady(c); err != nil {
		return err
	}
	enc, sc, anc := c.In(0), c.In(1), c.In(2)
	if enc == nil || sc == nil || anc == nil {
		return c.Errorf("an input is omitted")
	}
	if len(enc.Shape) != 3 || len(sc.Shape) != 3 || len(anc.Shape) != 2 {
		return c.Errorf("box encodings %s and scores %s must have rank 3, anchors %s rank 2", enc.Describe(), sc.Describe(), anc.Describe())
	}
	opts, ok, err := customOptions(c)
	if err != nil {
		return err
	}
	if !ok {
		return c.Errorf("has no custom options (TFLM reads them without checking)")
	}
	get := func(key string) (model.FlexRef, error) {
		r, err := opts.Lookup(key)
		if err != nil {
			return r, c.Errorf("custom options: %v", err)
		}
		return r, nil
	}
	var refs [11]model.FlexRef
	for i, k := range []string{"max_detections", "max_classes_per_detection", "detections_per_class", "use_regular_nms", "nms_score_threshold", "nms_iou_threshold", "num_classes", "y_scale", "x_scale", "h_scale", "w_scale"} {
		if refs[i], err = get(k); err != nil {
			return err
		}
	}
	maxDet, maxCls := refs[0].Int32(), refs[1].Int32()
	perClass := int32(100)
	if !refs[2].Null {
		perClass = refs[2].Int32()
	}
	regular := !refs[3].Null && refs[3].Bool()
	scoreTh, iou, numClasses := refs[4].Float32(), refs[5].Float32(), refs[6].Int32()
	for _, t := range []*model.Tensor{enc, sc, anc, c.Out(0), c.Out(1), c.Out(2), c.Out(3)} {
		if t.Type != model.Float32 {
			return c.Errorf("%s: type %s not supported (float32 only, as in TFLite Micro)", t.Describe(), t.Type)
		}
	}
	nb := enc.Shape[1]
	switch {
	case enc.Shape[0] != 1 || enc.Shape[2] < 4:
		return c.Errorf("box encodings %s must be [1, n, >= 4]", enc.Describe())
	case sc.Shape[0] != 1 || sc.Shape[1] != nb:
		return c.Errorf("scores %s must be [1, %d, classes]", sc.Describe(), nb)
	case numClasses < 1 || sc.Shape[2] < int(numClasses) || sc.Shape[2]-int(numClasses) > 1:
		return c.Errorf("num_classes %d does not fit scores %s (classes, plus at most one background)", numClasses, sc.Describe())
	case maxDet < 0:
		return c.Errorf("max_detections %d is negative", maxDet)
	case !(iou > 0 && iou <= 1):
		return c.Errorf("nms_iou_threshold %g is not in (0, 1]", iou)
	case !regular && maxCls <= 0:
		return c.Errorf("max_classes_per_detection %d must be positive", maxCls)
	case regular && perClass <= 0:
		return c.Errorf("detections_per_class %d must be positive", perClass)
	case !anc.IsConst():
		return c.Errorf("anchors %s must be a constant", anc.Describe())
	case anc.Shape[0] < nb || anc.Shape[1] != 4:
		return c.Errorf("anchors %s must be [%d, 4]", anc.Describe(), nb)
	}
	cats := min(maxCls, numClasses)
	dets := int(maxDet)
	if !regular {
		// Fast NMS writes its k-th of up to max_detections*cats detections
		// at cats*k + category (TFLM's offsets).
		dets = int(maxDet) * int(cats) * int(cats)
	}
	merge := int(maxDet) + min(nb, int(perClass))
	if regular && merge > int(maxDet)*nb {
		return c.Errorf("regular NMS keeps up to %d candidates, more than TFLM's scratch of max_detections*n = %d", merge, int(maxDet)*nb)
	}
	for k, want := range []int{4 * dets, dets, dets, 1} {
		if o := c.Out(k); o.NumElements() < want {
			return c.Errorf("output %d %s holds fewer than the %d values TFLM writes", k, o.Describe(), want)
		}
	}
	p := Struct(kernelsig.DetectionParams,
		F("NumBoxes", I32(int32(nb))), F("BoxStride", I32(int32(enc.Shape[2]))),
		F("NumClasses", I32(numClasses)), F("ClassesWithBg", I32(int32(sc.Shape[2]))),
		F("MaxDetections", I32(maxDet)), F("Categories", I32(cats)), F("DetectionsPerClass", I32(perClass)),
		F("Regular", Bool(regular)), F("ScoreThreshold", F32(scoreTh)), F("IoU", F32(iou)),
		F("YScale", F32(refs[7].Float32())), F("XScale", F32(refs[8].Float32())),
		F("HScale", F32(refs[9].Float32())), F("WScale", F32(refs[10].Float32())))
	wide := max(nb, int(maxDet))
	classIdx, mergeN := 0, 0
	if regular {
		mergeN = merge
	} else {
		classIdx = nb * int(numClasses)
	}
	s := Struct(kernelsig.DetectionScratch,
		F("Boxes", c.Scratch(model.Float32, 4*nb)), F("Scores", c.Scratch(model.Float32, nb)),
		F("KeepScores", c.Scratch(model.Float32, wide)), F("MergedScores", c.Scratch(model.Float32, mergeN)),
		F("Keep", c.Scratch(model.Int32, nb)), F("Order", c.Scratch(model.Int32, nb)),
		F("Tmp", c.Scratch(model.Int32, wide)), F("Selected", c.Scratch(model.Int32, nb)),
		F("ClassIdx", c.Scratch(model.Int32, classIdx)), F("Merged", c.Scratch(model.Int32, mergeN)),
		F("SortIdx", c.Scratch(model.Int32, mergeN)), F("Active", c.Scratch(model.Int8, nb)))
	c.Call(kernelsig.DetectionPostProcessF32, View(enc), View(sc), Str(anc),
		View(c.Out(0)), View(c.Out(1)), View(c.Out(2)), View(c.Out(3)), p, s)
	return nil
}
