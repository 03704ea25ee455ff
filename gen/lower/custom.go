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
	"CIRCULAR_BUFFER": {lower: lowerCircularBuffer, mem: ownBuffer},
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
