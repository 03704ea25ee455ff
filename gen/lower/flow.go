package lower

import (
	"fmt"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// Control flow: CALL_ONCE, IF and WHILE run other subgraphs of the model.
// There is no interpreter: each called subgraph is lowered like subgraph 0,
// operator by operator, into a block of kernel calls, and the operator
// becomes Go control flow around its blocks (program.Flow), with byte
// copies between its tensors and the subgraph's inputs and outputs where
// TFLite Micro copies them (kernel_util.cc's CopyOpInputsToSubgraphInputs
// and the like).
//
// Memory: every non-constant tensor of a called subgraph has a buffer of
// its own, live during the calling operator's step of subgraph 0 (scratch of
// that operator; the buffers of one subgraph do not share memory with each
// other), and each call site has its own copy of the subgraph's tensors.
// Views (RESHAPE) inside a subgraph share buffers as in subgraph 0; in-place
// operators do not. State of a subgraph's operators is persistent as in
// subgraph 0.
//
// A WHILE whose cond subgraph never gives false loops forever, as it does in
// TFLite Micro.

func init() {
	register(model.OpCallOnce, lowerCallOnce, ownBuffer)
	register(model.OpIf, lowerIf, ownBuffer)
	register(model.OpWhile, lowerWhile, ownBuffer)
}

// flowSpec is what a control flow lowering records: the statement, its
// condition and its blocks.
type flowSpec struct {
	kind program.FlowKind
	cond Arg
	// condBlock is the block whose subgraph holds cond (WHILE), -1 when
	// cond is the caller's.
	condBlock int
	blocks    []*flowBlock
}

// flowBlock is one called subgraph lowered: copies in, its operators,
// copies out.
type flowBlock struct {
	sub       *model.Graph
	pre, post []kcall
	ops       []*opCtx
}

// subgraph returns subgraph k of the model for a call from c, checked: in
// range and not subgraph 0 (the model reader refuses recursion).
func (c *opCtx) subgraph(what string, k int) (*model.Graph, error) {
	root := c.st.root
	if k <= 0 || k > len(root.Subgraphs) {
		return nil, c.Errorf("%s subgraph %d is out of range [1, %d]", what, k, len(root.Subgraphs))
	}
	return root.Subgraph(k), nil
}

// lowerBlock lowers every operator of subgraph sub as called from c.
func (c *opCtx) lowerBlock(sub *model.Graph) (*flowBlock, error) {
	b := &flowBlock{sub: sub}
	for _, op := range sub.Ops {
		cc := &opCtx{G: sub, Op: op, lean: c.lean, st: c.st}
		l, ok := lowerings[op.Code]
		if !ok {
			return nil, c.Errorf("subgraph %d: %s: no kernel for this operator (%s)", sub.SubgraphIndex, op.Describe(), signature(sub, op))
		}
		err := safeLower(l.lower, cc)
		if err == nil {
			err = cc.err
		}
		if err == nil {
			err = checkAliases(cc)
		}
		if err != nil {
			return nil, c.Errorf("subgraph %d: %v", sub.SubgraphIndex, err)
		}
		b.ops = append(b.ops, cc)
	}
	return b, nil
}

// copies emits dst[i] = src[i] for tensor lists of the caller (or of a
// subgraph) as byte copies, checking that types and sizes match (TFLM's
// ValidateAndGetTensorSizes: equal byte sizes, equal types).
func (c *opCtx) copies(what string, dst, src []*model.Tensor) ([]kcall, error) {
	if len(dst) != len(src) {
		return nil, c.Errorf("%s: %d tensors for %d", what, len(src), len(dst))
	}
	var out []kcall
	for i := range dst {
		d, s := dst[i], src[i]
		if d.Type != s.Type || d.Bytes() != s.Bytes() {
			return nil, c.Errorf("%s %d: %s does not match %s (types and byte sizes must be equal)", what, i, s.Describe(), d.Describe())
		}
		if program.GoType(d.Type) == "" {
			return nil, c.Errorf("%s %d: type %s is not supported", what, i, d.Type)
		}
		if s.IsConst() {
			out = append(out, kcall{Fn: kernelsig.CopyConst, Args: []Arg{Bytes(d), Str(s)}})
			continue
		}
		out = append(out, kcall{Fn: kernelsig.CopyBytes, Args: []Arg{Bytes(d), Bytes(s)}})
	}
	return out, nil
}

func tensors(g *model.Graph, idx []int) []*model.Tensor {
	out := make([]*model.Tensor, len(idx))
	for i, t := range idx {
		out[i] = g.Tensors[t]
	}
	return out
}

// CALL_ONCE: the init subgraph runs at the first Invoke after New or Reset
// (a persistent flag byte that Reset clears). TFLM's own Reset does not
// clear CALL_ONCE's has_run (call_once.cc has no reset function) while it
// does reset resource variables, so after a Reset TFLM would not run the
// init subgraph again; tflm-gen's Reset returns to the state after New.
func lowerCallOnce(c *opCtx) error {
	if c.NumIn() != 0 || c.NumOut() != 0 {
		return c.Errorf("has %d inputs and %d outputs, want none", c.NumIn(), c.NumOut())
	}
	sub, err := c.subgraph("init", int(c.Op.Options().CallOnce().InitSubgraphIndex))
	if err != nil {
		return err
	}
	if len(sub.Inputs) != 0 || len(sub.Outputs) != 0 {
		// TFLM invokes it with whatever its inputs hold and drops its outputs.
		return c.Errorf("init subgraph %d has %d inputs and %d outputs, want none", sub.SubgraphIndex, len(sub.Inputs), len(sub.Outputs))
	}
	b, err := c.lowerBlock(sub)
	if err != nil {
		return err
	}
	c.flow = &flowSpec{kind: program.FlowOnce, cond: c.Persistent(model.Uint8, 1), condBlock: -1, blocks: []*flowBlock{b}}
	return nil
}

// IF: cond (bool, one element) picks the then or else subgraph; inputs 1...
// are copied to its inputs and its outputs to the operator's outputs.
func lowerIf(c *opCtx) error {
	if c.NumIn() < 1 {
		return c.Errorf("has no condition input")
	}
	cond := c.In(0)
	if cond == nil || cond.Type != model.Bool || cond.NumElements() != 1 {
		return c.Errorf("condition must be a bool tensor of one element")
	}
	if cond.IsConst() {
		return c.Errorf("a constant condition is not supported")
	}
	opt := c.Op.Options().If()
	ins := tensors(c.G, c.Op.Inputs[1:])
	for _, t := range c.Op.Inputs[1:] {
		if t < 0 {
			return c.Errorf("omitted inputs are not supported")
		}
	}
	outs := tensors(c.G, c.Op.Outputs)
	spec := &flowSpec{kind: program.FlowIf, cond: View(cond), condBlock: -1}
	for _, br := range []struct {
		what string
		sub  int32
	}{{"then", opt.ThenSubgraphIndex}, {"else", opt.ElseSubgraphIndex}} {
		sub, err := c.subgraph(br.what, int(br.sub))
		if err != nil {
			return err
		}
		b, err := c.lowerBlock(sub)
		if err != nil {
			return err
		}
		if b.pre, err = c.copies(fmt.Sprintf("%s subgraph %d input", br.what, sub.SubgraphIndex), tensors(sub, sub.Inputs), ins); err != nil {
			return err
		}
		if b.post, err = c.copies(fmt.Sprintf("%s subgraph %d output", br.what, sub.SubgraphIndex), outs, tensors(sub, sub.Outputs)); err != nil {
			return err
		}
		spec.blocks = append(spec.blocks, b)
	}
	c.flow = spec
	return nil
}

// WHILE, as while.cc runs it: inputs are copied to the cond subgraph's
// inputs and to the outputs; then, while the cond subgraph's output 0 is
// true, the outputs are copied to the body's inputs, the body runs, its
// outputs are copied to the operator's outputs and from there to the cond
// subgraph's inputs.
func lowerWhile(c *opCtx) error {
	opt := c.Op.Options().While()
	condSub, err := c.subgraph("cond", int(opt.CondSubgraphIndex))
	if err != nil {
		return err
	}
	body, err := c.subgraph("body", int(opt.BodySubgraphIndex))
	if err != nil {
		return err
	}
	if condSub == body {
		return c.Errorf("cond and body are the same subgraph %d", body.SubgraphIndex)
	}
	for _, t := range c.Op.Inputs {
		if t < 0 {
			return c.Errorf("omitted inputs are not supported")
		}
	}
	ins, outs := tensors(c.G, c.Op.Inputs), tensors(c.G, c.Op.Outputs)
	if len(ins) != len(outs) {
		return c.Errorf("has %d inputs and %d outputs, want as many", len(ins), len(outs))
	}
	if len(condSub.Outputs) < 1 {
		return c.Errorf("cond subgraph %d has no output", condSub.SubgraphIndex)
	}
	condOut := condSub.Tensors[condSub.Outputs[0]]
	if condOut.Type != model.Bool || condOut.NumElements() < 1 || condOut.IsConst() {
		return c.Errorf("cond subgraph %d: output 0 %s must be a non-constant bool tensor", condSub.SubgraphIndex, condOut.Describe())
	}
	cb, err := c.lowerBlock(condSub)
	if err != nil {
		return err
	}
	bb, err := c.lowerBlock(body)
	if err != nil {
		return err
	}
	condIn := tensors(condSub, condSub.Inputs)
	pre1, err := c.copies(fmt.Sprintf("cond subgraph %d input", condSub.SubgraphIndex), condIn, ins)
	if err != nil {
		return err
	}
	pre2, err := c.copies("output", outs, ins)
	if err != nil {
		return err
	}
	if bb.pre, err = c.copies(fmt.Sprintf("body subgraph %d input", body.SubgraphIndex), tensors(body, body.Inputs), outs); err != nil {
		return err
	}
	post1, err := c.copies(fmt.Sprintf("body subgraph %d output", body.SubgraphIndex), outs, tensors(body, body.Outputs))
	if err != nil {
		return err
	}
	post2, err := c.copies(fmt.Sprintf("cond subgraph %d input", condSub.SubgraphIndex), condIn, outs)
	if err != nil {
		return err
	}
	bb.post = append(post1, post2...)
	c.calls = append(c.calls, pre1...)
	c.calls = append(c.calls, pre2...)
	c.flow = &flowSpec{kind: program.FlowWhile, cond: Bytes(condOut), condBlock: 0, blocks: []*flowBlock{cb, bb}}
	return nil
}
