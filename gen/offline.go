package gen

import (
	"encoding/binary"
	"fmt"

	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/lower"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/planner"
)

// OfflineMetadataName is the metadata entry TensorFlow Lite Micro reads an
// offline memory plan from.
const OfflineMetadataName = "OfflineMemoryAllocation"

// offlinePlan plans the model's activation tensors the way TensorFlow Lite
// Micro can use them: one buffer per non-constant, non-variable tensor,
// shared only between tensors whose lifetimes are disjoint (no views, no
// in-place operators, which TFLM's kernels do not expect), with room left
// for the scratch buffers TFLM's kernels request at each operator
// (lower.TFLMScratch), which TFLM places around the offline tensors. It returns
// one arena offset per tensor, -1 for tensors TFLM allocates itself
// (constants and variables), and the plan.
func offlinePlan(g *model.Graph, opt Options) ([]int32, *planner.Plan, error) {
	p, err := lower.Assemble(g, lower.Bare(g), lower.Options{NoShare: true, NoViews: true})
	if err != nil {
		return nil, nil, err
	}
	sess := planner.NewSession(opt.Effort)
	popt := layout.Options{Align: opt.Align, Strategy: opt.Planner, Session: sess}
	lay, err := layout.Make(p, nil, popt)
	if err != nil {
		return nil, nil, err
	}
	// Variable tensors live in TFLM's persistent tail; plan again without
	// them so that the offsets start at the head.
	var bufs []planner.Buffer
	var owner [][]int
	for _, b := range p.Buffers {
		if b.Kind == planner.Activation {
			bufs = append(bufs, b.Buffer)
			owner = append(owner, b.Tensors)
		}
	}
	// Room for the scratch TFLM's own kernels ask for at each operator,
	// which TFLM places around the offline tensors.
	for _, op := range g.Ops {
		for k, n := range lower.TFLMScratch(g, op) {
			bufs = append(bufs, planner.Buffer{Name: fmt.Sprintf("TFLM scratch %d of operator %d", k, op.Index), Size: n, First: op.Index, Last: op.Index, Kind: planner.Scratch})
			owner = append(owner, nil)
		}
	}
	plan, err := planner.Make(bufs, planner.Options{Align: lay.Align, Strategy: opt.Planner, Session: sess})
	if err != nil {
		return nil, nil, err
	}
	offs := make([]int32, len(g.Tensors))
	for i := range offs {
		offs[i] = -1
	}
	for i, ts := range owner {
		for _, t := range ts {
			offs[t] = int32(plan.Offsets[i])
		}
	}
	return offs, plan, nil
}

// EmitOffline returns a copy of the model with TFLite Micro's
// OfflineMemoryAllocation metadata set from offlinePlan; everything else in
// the model is unchanged. The copy is the original file shifted behind a new
// root table whose buffers and metadata vectors gain one entry each.
func EmitOffline(name string, data []byte, opt Options) ([]byte, error) {
	g, err := parse(name, data)
	if err != nil {
		return nil, err
	}
	offs, _, err := offlinePlan(g, opt)
	if err != nil {
		return nil, err
	}
	payload := make([]byte, 4*(3+len(offs)))
	binary.LittleEndian.PutUint32(payload[0:], 0) // format version
	binary.LittleEndian.PutUint32(payload[4:], 1) // subgraphs
	binary.LittleEndian.PutUint32(payload[8:], uint32(len(offs)))
	for i, o := range offs {
		binary.LittleEndian.PutUint32(payload[12+4*i:], uint32(o))
	}
	return model.WithMetadata(data, OfflineMetadataName, payload)
}
