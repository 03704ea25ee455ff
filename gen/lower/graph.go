// Package lower is the lowering stage of tflm-gen: it turns each operator of
// a validated graph (internal/model) into kernel calls with every constant
// computed at generation time (Ops, one Fragment per operator, one file per
// operator family), and assembles fragments into a program.Program: tensors
// grouped into buffers through views and in-place operators, scratch and
// state buffers, calls resolved to buffer ids and checked against the real
// kernel signatures (gen/kernelsig). Program also chooses, per operator,
// between a fast kernel and a lean one (gen/variant). Nothing here knows
// arena offsets or emits Go.
package lower

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/planner"
)

// ErrUnsupported is wrapped by errors listing operators tflm-gen cannot lower.
var ErrUnsupported = model.ErrUnsupported

// Fragment is one operator lowered to kernel calls, with the scratch,
// state, constants and views it asked for. Fragments of different variant
// selections can be mixed freely: Assemble turns any list of them, one per
// operator, into a Program.
type Fragment struct{ c *opCtx }

// ScratchBytes totals the operator's scratch buffers, each rounded up to
// align (0: the planner's default) as the planner places them.
func (f *Fragment) ScratchBytes(align int) int {
	n := 0
	f.c.walk(func(c *opCtx) {
		for _, r := range c.scratch {
			n += planner.AlignedSize(r.bytes, align)
		}
	})
	return n
}

// Kernels say which kernels the lowerings may pick besides the lean or
// fast variant of each operator.
type Kernels struct {
	// Speed lets lowerings take variants that trade flash for speed
	// (-speed).
	Speed bool
	// GC asks for the kernels tuned for gc instead of the Thumb-2 DSP
	// loops for TinyGo on a Cortex-M (-compiler gc).
	GC bool
}

// Lower lowers every operator of g for the build k describes; lean[i]
// asks operator i for its kernel variant with the least scratch memory
// (nil: none does). Every operator that cannot be lowered is reported in
// one error wrapping ErrUnsupported.
func Lower(g *model.Graph, lean []bool, k Kernels) ([]*Fragment, error) {
	if lean == nil {
		lean = make([]bool, len(g.Ops))
	}
	if len(g.Ops) == 0 {
		return nil, fmt.Errorf("%w: model has no operators", model.ErrInvalid)
	}
	if len(lean) != len(g.Ops) {
		return nil, fmt.Errorf("internal error: %d lean flags for %d operators", len(lean), len(g.Ops))
	}
	// Subgraphs are inlined at each call site: lowering must not start on
	// recursive calls or a call tree too large to inline.
	if probs := model.CallProblems(g); len(probs) > 0 {
		return nil, &model.UnsupportedError{Problems: probs}
	}
	frags := make([]*Fragment, 0, len(g.Ops))
	var errs []string
	st := newLowerState(g)
	st.kernels = k
	for _, op := range g.Ops {
		c := &opCtx{G: g, Op: op, lean: lean[op.Index], st: st}
		frags = append(frags, &Fragment{c})
		if op.Folded {
			// Another operator does its work (gen/fold): no code.
			continue
		}
		l, ok := lowerings[op.Code]
		if op.Code == model.OpCustom {
			l, ok = customLowerings[op.Custom]
		}
		if !ok && op.Code == model.OpCustom {
			errs = append(errs, fmt.Sprintf("%s: no kernel for this custom operator; NPU and EdgeTPU operators need their vendor's runtime (%s)", op.Describe(), signature(g, op)))
			continue
		}
		if !ok {
			errs = append(errs, fmt.Sprintf("%s: no kernel for this operator (%s)", op.Describe(), signature(g, op)))
			continue
		}
		if err := safeLower(l.lower, c); err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if c.err != nil {
			errs = append(errs, c.err.Error())
			continue
		}
		if err := checkAliases(c); err != nil {
			errs = append(errs, err.Error())
		}
	}
	for k, idx := range append(append([]int{}, g.Inputs...), g.Outputs...) {
		t := g.Tensors[idx]
		if program.GoType(t.Type) == "" {
			errs = append(errs, fmt.Sprintf("graph input/output %d: %s: element type not supported for model inputs and outputs", k, t.Describe()))
		}
	}
	if len(errs) > 0 {
		return nil, &model.UnsupportedError{Problems: errs}
	}
	return frags, nil
}

// Bare returns one empty fragment per operator: no calls, no scratch, no
// views. Assembled, they give the buffers of a plain layer-by-layer plan
// with one buffer per tensor (what TFLite Micro's own kernels need).
func Bare(g *model.Graph) []*Fragment {
	frags := make([]*Fragment, len(g.Ops))
	for i, op := range g.Ops {
		frags[i] = &Fragment{&opCtx{G: g, Op: op}}
	}
	return frags
}

// Plain returns the program of frags with one buffer per tensor (no views,
// no in-place operators), for reporting what the sharing in p (assembled
// from frags) saves; nil when no buffer of p holds more than one tensor.
func Plain(g *model.Graph, frags []*Fragment, p *program.Program) (*program.Program, error) {
	for _, b := range p.Buffers {
		if len(b.Tensors) > 1 {
			return Assemble(g, frags, Options{NoShare: true, NoViews: true})
		}
	}
	return nil, nil
}

// Options control how Assemble shares memory between tensors.
type Options struct {
	// NoShare disables in-place operators (an elementwise output taking
	// over the memory of an input that dies there).
	NoShare bool
	// NoViews gives every tensor its own buffer even where an operator is
	// a view of its input (RESHAPE, SQUEEZE, EXPAND_DIMS).
	NoViews bool
	// Overlap lists the operators that write their output over their
	// dying input, shifted, where their kernels allow it (overlap.go).
	Overlap map[int]bool
	// OverlapAlt lists the operators of Overlap that write their output
	// over their input their second way (offerOverlapAlt).
	OverlapAlt map[int]bool
	// NotInPlace lists elementwise operators whose output keeps its own
	// buffer although it could take over an input's: the members of a
	// fused group that would write over their chain operand, which write
	// a line of their own (gen/schedule).
	NotInPlace map[int]bool
}

// Assemble builds the program from one fragment per operator: it groups
// tensors that share memory (views, in-place operators) into buffers with
// their lifetimes, adds every operator's scratch and state buffers, and
// resolves the calls' tensor arguments to buffer ids.
func Assemble(g *model.Graph, frags []*Fragment, opt Options) (*program.Program, error) {
	if len(frags) != len(g.Ops) {
		return nil, fmt.Errorf("internal error: %d fragments for %d operators", len(frags), len(g.Ops))
	}
	last := len(g.Ops) - 1
	// Union-find over tensors that share a buffer.
	parent := map[int]int{}
	var find func(int) int
	find = func(t int) int {
		p, ok := parent[t]
		if !ok || p == t {
			return t
		}
		r := find(p)
		parent[t] = r
		return r
	}
	if !opt.NoViews {
		for _, f := range frags {
			for _, a := range f.c.aliases {
				parent[find(f.c.Op.Outputs[a.out])] = find(f.c.Op.Inputs[a.in])
			}
		}
	}
	var inPlace []program.InPlace
	if !opt.NoShare {
		inPlace = findInPlace(g, find, opt.NotInPlace)
		for _, p := range inPlace {
			parent[find(p.Out)] = find(p.In)
		}
	}

	type group struct {
		first, last int
		tensors     []int
		variable    bool
	}
	groups := map[int]*group{}
	var roots []int
	// listed marks the tensors already in their group's list: a group can
	// hold every tensor of a long chain of in-place operators.
	listed := make([]bool, len(g.Tensors))
	touch := func(t, step int) {
		if t < 0 || g.Tensors[t].IsConst() || g.Tensors[t].Type == model.Resource {
			// A resource handle holds no data (resource.go).
			return
		}
		r := find(t)
		gr, ok := groups[r]
		if !ok {
			gr = &group{first: step, last: step}
			groups[r] = gr
			roots = append(roots, r)
		}
		gr.first, gr.last = min(gr.first, step), max(gr.last, step)
		if !listed[t] {
			listed[t] = true
			gr.tensors = append(gr.tensors, t)
		}
		if g.Tensors[t].IsVariable {
			gr.variable = true
		}
	}
	for _, t := range g.Inputs {
		touch(t, 0)
	}
	for _, op := range g.Ops {
		for _, t := range op.Inputs {
			touch(t, op.Index)
		}
		for _, t := range op.Outputs {
			touch(t, op.Index)
		}
	}
	for _, t := range g.Outputs {
		touch(t, last)
	}

	p := &program.Program{Graph: g, InPlace: inPlace, TensorBuf: map[int]program.BufID{}}
	for _, r := range roots {
		gr := groups[r]
		sort.Ints(gr.tensors)
		t := g.Tensors[r]
		b := program.Buffer{
			Buffer:  planner.Buffer{Name: t.Name, Size: t.Bytes(), First: gr.first, Last: gr.last, Kind: planner.Activation},
			Tensors: gr.tensors, Reset: -1, Op: -1,
		}
		if gr.variable {
			b.First, b.Last, b.Kind = 0, last, planner.Persistent
			b.Reset = 0
			if t.Type == model.Int8 && t.Quant != nil && len(t.Quant.ZeroPoint) > 0 {
				// TFLite Micro resets int8 state to the zero point.
				b.Reset = int(uint8(int8(t.Quant.ZeroPoint[0])))
			}
		}
		if b.Name == "" {
			b.Name = fmt.Sprintf("tensor%d", r)
		}
		for _, x := range gr.tensors {
			p.TensorBuf[x] = program.BufID(len(p.Buffers))
		}
		p.Buffers = append(p.Buffers, b)
	}
	reqBuf := map[*scratchReq]program.BufID{}
	addScratch := func(c *opCtx, r *scratchReq) {
		reqBuf[r] = program.BufID(len(p.Buffers))
		p.Buffers = append(p.Buffers, program.Buffer{
			Buffer: planner.Buffer{
				Name: fmt.Sprintf("op%d scratch%d (%s)", c.Op.Index, r.n, c.Op.Code),
				Size: r.bytes, First: c.Op.Index, Last: c.Op.Index, Kind: planner.Scratch,
			},
			Reset: -1, Op: c.Op.Index,
		})
	}
	// Overlapped pairs first: an overlapped operator's calls, and so the
	// scratch they use, are those of its overlap offer.
	var tied map[int]bool
	if len(opt.Overlap) > 0 && !opt.NoShare {
		tied = tieOverlaps(frags, p, opt.Overlap, opt.OverlapAlt)
	}
	for _, f := range frags {
		c := f.c
		scratch := c.scratch
		if o := c.offer(opt.OverlapAlt); tied[c.Op.Index] && o.calls != nil {
			scratch = usedScratch(o.calls, append(slices.Clone(c.scratch), o.scratch...))
		}
		for _, r := range scratch {
			addScratch(c, r)
		}
		for _, r := range c.persist {
			reqBuf[r] = program.BufID(len(p.Buffers))
			p.Buffers = append(p.Buffers, program.Buffer{
				Buffer: planner.Buffer{
					Name: fmt.Sprintf("op%d state%d (%s)", c.Op.Index, r.n, c.Op.Code),
					Size: r.bytes, First: 0, Last: last, Kind: planner.Persistent,
				},
				Reset: 0, Op: c.Op.Index,
			})
		}
	}
	addResources(p, frags, reqBuf, last)
	consts := map[*constData]int{}
	for _, f := range frags {
		for _, cd := range f.c.consts {
			consts[cd] = len(p.Consts)
			p.Consts = append(p.Consts, program.Const{Hint: cd.hint, Op: f.c.Op.Index, Data: cd.data})
		}
	}
	rs := &resolver{p: p, reqBuf: reqBuf, consts: consts, tied: tied, alt: opt.OverlapAlt}
	for _, f := range frags {
		c := f.c
		if c.flow != nil {
			rs.sites(c, c.Op.Index, nil)
		}
	}
	for _, f := range frags {
		c := f.c
		rs.step = c.Op.Index
		op := rs.op(c, g, nil)
		if rs.err != nil {
			return nil, fmt.Errorf("%s: %w", c.Op.Describe(), rs.err)
		}
		p.Ops = append(p.Ops, op)
	}
	return p, nil
}

// usedScratch returns the requests of reqs that the arguments of calls
// use, in the order of reqs.
func usedScratch(calls []kcall, reqs []*scratchReq) []*scratchReq {
	used := map[*scratchReq]bool{}
	var walk func(a Arg)
	walk = func(a Arg) {
		switch a := a.(type) {
		case reqArg:
			used[a.r] = true
		case structArg:
			for _, f := range a.fields {
				walk(f.Value)
			}
		}
	}
	for _, k := range calls {
		for _, a := range k.Args {
			walk(a)
		}
	}
	var out []*scratchReq
	for _, r := range reqs {
		if used[r] {
			out = append(out, r)
		}
	}
	return out
}

// op resolves the calls of one lowered operator (and of the subgraphs it
// calls) in scope, the buffers of the called subgraphs' tensors.
func (rs *resolver) op(c *opCtx, g *model.Graph, scope map[*model.Tensor]program.BufID) program.Op {
	op := program.Op{Index: c.Op.Index, Code: c.Op.Code, MACs: opMACs(g, c.Op), InputReads: inputReads(g, c.Op)}
	callScope := scope
	if c.flow != nil {
		callScope = rs.callScope[c]
	}
	rs.scope = callScope
	calls := c.calls
	if o := c.offer(rs.alt); scope == nil && rs.tied[c.Op.Index] && o != nil && o.calls != nil {
		calls = o.calls // the raster-order kernel of an overlapped pair
	}
	op.Calls = rs.calls(calls)
	for _, k := range op.Calls {
		if why, ok := c.why[kernelsig.Func(k.Fn)]; ok {
			if op.Why == nil {
				op.Why = map[string]string{}
			}
			op.Why[k.Fn] = why
		}
	}
	if f := c.flow; f != nil {
		pf := &program.Flow{Kind: f.kind}
		rs.scope = callScope
		if f.condBlock >= 0 {
			rs.scope = rs.blockScope[f.blocks[f.condBlock]]
		}
		if v, ok := rs.arg(f.cond).(program.View); ok {
			pf.Cond = v
		} else {
			rs.fail("control flow condition is not an arena view")
		}
		for _, b := range f.blocks {
			bs := rs.blockScope[b]
			pb := program.Block{Subgraph: b.sub.SubgraphIndex}
			rs.scope = bs
			if len(b.pre) > 0 {
				pb.Ops = append(pb.Ops, program.Op{Index: -1, Code: c.Op.Code, Calls: rs.calls(b.pre)})
			}
			for _, cc := range b.ops {
				pb.Ops = append(pb.Ops, rs.op(cc, b.sub, bs))
			}
			rs.scope = bs
			if len(b.post) > 0 {
				pb.Ops = append(pb.Ops, program.Op{Index: -1, Code: c.Op.Code, Calls: rs.calls(b.post)})
			}
			pf.Blocks = append(pf.Blocks, pb)
		}
		op.Flow = pf
	}
	return op
}

func (rs *resolver) calls(ks []kcall) []program.Call {
	var out []program.Call
	for _, k := range ks {
		call := program.Call{Fn: string(k.Fn), Args: make([]program.Arg, 0, len(k.Args)), Band: k.Band}
		for _, a := range k.Args {
			call.Args = append(call.Args, rs.arg(a))
		}
		if rs.err == nil {
			if err := checkCall(k); err != nil {
				rs.err = fmt.Errorf("internal error: %w", err)
			}
		}
		out = append(out, call)
	}
	return out
}

// sites gives buffers to the tensors of the subgraphs control flow operator
// c calls, at step (its operator of subgraph 0), and to their operators'
// scratch and state, recursively; scope holds the caller's own subgraph
// tensors (nil in subgraph 0).
func (rs *resolver) sites(c *opCtx, step int, scope map[*model.Tensor]program.BufID) {
	p := rs.p
	last := len(p.Graph.Ops) - 1
	all := maps.Clone(scope)
	if all == nil {
		all = map[*model.Tensor]program.BufID{}
	}
	for _, b := range c.flow.blocks {
		bs := maps.Clone(scope)
		if bs == nil {
			bs = map[*model.Tensor]program.BufID{}
		}
		sub := b.sub
		// Views inside the subgraph share a buffer.
		parent := make([]int, len(sub.Tensors))
		for i := range parent {
			parent[i] = i
		}
		find := func(t int) int {
			for parent[t] != t {
				t = parent[t]
			}
			return t
		}
		for _, cc := range b.ops {
			for _, a := range cc.aliases {
				parent[find(cc.Op.Outputs[a.out])] = find(cc.Op.Inputs[a.in])
			}
		}
		rootBuf := map[int]program.BufID{}
		for _, t := range sub.Tensors {
			if t.IsConst() || t.Type == model.Resource {
				continue
			}
			r := find(t.Index)
			id, ok := rootBuf[r]
			if !ok {
				rt := sub.Tensors[r]
				id = program.BufID(len(p.Buffers))
				rootBuf[r] = id
				buf := program.Buffer{
					Buffer: planner.Buffer{Name: fmt.Sprintf("op%d subgraph%d tensor%d %q", step, sub.SubgraphIndex, r, rt.Name), Size: rt.Bytes(), First: step, Last: step, Kind: planner.Scratch},
					Reset:  -1, Op: step,
				}
				if rt.IsVariable {
					buf.First, buf.Last, buf.Kind, buf.Reset = 0, last, planner.Persistent, 0
					if rt.Type == model.Int8 && rt.Quant != nil && len(rt.Quant.ZeroPoint) > 0 {
						buf.Reset = int(uint8(int8(rt.Quant.ZeroPoint[0])))
					}
				}
				p.Buffers = append(p.Buffers, buf)
			}
			bs[t] = id
			all[t] = id
		}
		for _, cc := range b.ops {
			for _, r := range cc.scratch {
				rs.reqBuf[r] = program.BufID(len(p.Buffers))
				p.Buffers = append(p.Buffers, program.Buffer{
					Buffer: planner.Buffer{Name: fmt.Sprintf("op%d subgraph%d op%d scratch%d (%s)", step, sub.SubgraphIndex, cc.Op.Index, r.n, cc.Op.Code), Size: r.bytes, First: step, Last: step, Kind: planner.Scratch},
					Reset:  -1, Op: step,
				})
			}
			for _, r := range cc.persist {
				rs.reqBuf[r] = program.BufID(len(p.Buffers))
				p.Buffers = append(p.Buffers, program.Buffer{
					Buffer: planner.Buffer{Name: fmt.Sprintf("op%d subgraph%d op%d state%d (%s)", step, sub.SubgraphIndex, cc.Op.Index, r.n, cc.Op.Code), Size: r.bytes, First: 0, Last: last, Kind: planner.Persistent},
					Reset:  0, Op: step,
				})
			}
			for _, cd := range cc.consts {
				rs.consts[cd] = len(p.Consts)
				p.Consts = append(p.Consts, program.Const{Hint: cd.hint, Op: step, Data: cd.data})
			}
		}
		if rs.blockScope == nil {
			rs.blockScope = map[*flowBlock]map[*model.Tensor]program.BufID{}
			rs.callScope = map[*opCtx]map[*model.Tensor]program.BufID{}
		}
		rs.blockScope[b] = bs
		for _, cc := range b.ops {
			if cc.flow != nil {
				rs.sites(cc, step, bs)
			}
		}
	}
	// The copies of WHILE's body name the cond subgraph's inputs too: when
	// no subgraph repeats (IF may run one subgraph for both branches, each
	// an instance of its own), every block sees every block's tensors.
	seen := map[*model.Graph]bool{}
	repeat := false
	for _, b := range c.flow.blocks {
		repeat = repeat || seen[b.sub]
		seen[b.sub] = true
	}
	if !repeat {
		for _, b := range c.flow.blocks {
			rs.blockScope[b] = all
		}
	}
	rs.callScope[c] = all
}

// resolver turns the arguments lowerings record into program arguments.
type resolver struct {
	p      *program.Program
	reqBuf map[*scratchReq]program.BufID
	consts map[*constData]int
	err    error
	tied   map[int]bool // operators of subgraph 0 writing over their input
	alt    map[int]bool // those of them that do it their second way
	// scope maps the tensors of called subgraphs to their buffers while
	// their calls are resolved (subgraphs.go); blockScope and callScope
	// hold it per block and per control flow operator.
	scope      map[*model.Tensor]program.BufID
	blockScope map[*flowBlock]map[*model.Tensor]program.BufID
	callScope  map[*opCtx]map[*model.Tensor]program.BufID
	// step is the operator of subgraph 0 being resolved; subTables holds
	// the tables made of subgraphs' constant tensors.
	step      int
	subTables map[*model.Tensor]int
}

// subConst returns the table holding constant tensor t of a subgraph other
// than 0.
func (r *resolver) subConst(t *model.Tensor) int {
	if i, ok := r.subTables[t]; ok {
		return i
	}
	if r.subTables == nil {
		r.subTables = map[*model.Tensor]int{}
	}
	i := len(r.p.Consts)
	r.p.Consts = append(r.p.Consts, program.Const{Hint: camelHint(t), Op: r.step, Data: t.Data})
	r.subTables[t] = i
	return i
}

// camelHint names a subgraph constant's table after the tensor's index.
func camelHint(t *model.Tensor) string { return fmt.Sprintf("SubConst%d", t.Index) }

// inMain reports whether t is a tensor of subgraph 0.
func (r *resolver) inMain(t *model.Tensor) bool {
	return t.Index < len(r.p.Graph.Tensors) && r.p.Graph.Tensors[t.Index] == t
}

func (r *resolver) fail(format string, args ...any) program.Arg {
	if r.err == nil {
		r.err = fmt.Errorf("internal error: "+format, args...)
	}
	return program.Lit{Value: 0}
}

func (r *resolver) arg(a Arg) program.Arg {
	switch a := a.(type) {
	case viewArg:
		t := a.t
		if t.IsConst() && !r.inMain(t) {
			if t.Type.Size() != 1 && !a.raw {
				return r.fail("constant %s passed as a view; wide constants must use Str", t.Describe())
			}
			return program.ConstTable{Index: r.subConst(t), Bytes: true, Unsigned: a.raw || t.Type == model.Uint8 || t.Type == model.Bool}
		}
		if !r.inMain(t) {
			b, ok := r.scope[t]
			if !ok {
				return r.fail("%s of a subgraph has no planned buffer", t.Describe())
			}
			if program.GoType(t.Type) == "" {
				return r.fail("%s: no arena view for type %s", t.Describe(), t.Type)
			}
			return program.View{Buf: b, Type: t.Type, N: t.NumElements(), Raw: a.raw}
		}
		if t.IsConst() {
			if t.Type.Size() != 1 && !a.raw {
				return r.fail("constant %s passed as a view; wide constants must use Str", t.Describe())
			}
			return program.ConstTensor{Tensor: t.Index, Raw: a.raw}
		}
		b, ok := r.p.TensorBuf[t.Index]
		if !ok {
			return r.fail("%s has no planned buffer", t.Describe())
		}
		// Raw (byte) views need only an element size (uint32 for CAST).
		if a.raw && t.Type.Size() == 0 || !a.raw && program.GoType(t.Type) == "" {
			return r.fail("%s: no arena view for type %s", t.Describe(), t.Type)
		}
		return program.View{Buf: b, Type: t.Type, N: t.NumElements(), Raw: a.raw}
	case strArg:
		if !a.t.IsConst() {
			return r.fail("%s passed as a constant string but has no data", a.t.Describe())
		}
		if !r.inMain(a.t) {
			return program.ConstTable{Index: r.subConst(a.t)}
		}
		return program.ConstTensor{Tensor: a.t.Index, String: true}
	case litArg:
		return program.Lit{Value: a.v}
	case structArg:
		s := program.Struct{Type: string(a.typ), Fields: make([]program.Field, 0, len(a.fields))}
		for _, f := range a.fields {
			s.Fields = append(s.Fields, program.Field{Name: f.Name, Value: r.arg(f.Value)})
		}
		return s
	case reqArg:
		return program.View{Buf: r.reqBuf[a.r], Type: a.r.dtype, N: a.r.bytes / a.r.dtype.Size()}
	case constArg:
		return program.ConstTable{Index: r.consts[a.c]}
	}
	return r.fail("unknown argument %T", a)
}

// checkCall checks a kernel call against the kernel's signature: the Go
// types the emitter gives its arguments must be assignable to the
// parameters, so that every call Assemble accepts compiles.
func checkCall(k kcall) error {
	vs := make([]kernelsig.Value, len(k.Args))
	for i, a := range k.Args {
		vs[i] = sigValue(a)
	}
	return kernelsig.Check(k.Fn, vs)
}

// sigValue is the type of an argument as the emitter renders it.
func sigValue(a Arg) kernelsig.Value {
	typed := func(t string) kernelsig.Value { return kernelsig.Value{Kind: kernelsig.Typed, Type: t} }
	switch a := a.(type) {
	case viewArg:
		switch {
		case a.raw:
			return typed("[]uint8") // a.u8(...) or constU8(...)
		case a.t.IsConst() && (a.t.Type == model.Uint8 || a.t.Type == model.Bool):
			return typed("[]uint8") // constU8(...)
		case a.t.IsConst():
			return typed("[]int8") // constI8(...)
		}
		return typed("[]" + program.GoType(a.t.Type))
	case strArg, constArg:
		return typed("string")
	case reqArg:
		return typed("[]" + program.GoType(a.r.dtype))
	case litArg:
		switch a.v.(type) {
		case int, int32, int64:
			return kernelsig.Value{Kind: kernelsig.UntypedInt}
		case float32:
			return kernelsig.Value{Kind: kernelsig.UntypedFloat}
		case bool:
			return kernelsig.Value{Kind: kernelsig.UntypedBool}
		}
	case structArg:
		v := kernelsig.Value{Kind: kernelsig.StructPtr, Struct: a.typ, Fields: make([]kernelsig.Field, len(a.fields))}
		for i, f := range a.fields {
			v.Fields[i] = kernelsig.Field{Name: f.Name, Value: sigValue(f.Value)}
		}
		return v
	}
	return kernelsig.Value{Kind: -1} // Check reports an invalid kind
}

// safeLower runs one lowering, turning a panic (a bug on some input the
// lowering did not validate) into an error naming the operator.
func safeLower(l lowering, c *opCtx) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error lowering %s: %v", c.Op.Describe(), r)
		}
	}()
	return l(c)
}

func checkAliases(c *opCtx) error {
	for _, a := range c.aliases {
		in, out := c.In(a.in), c.Out(a.out)
		if in == nil || out == nil {
			return c.Errorf("alias of a missing tensor")
		}
		if in.IsConst() {
			return c.Errorf("output %d aliases constant input %d", a.out, a.in)
		}
		if in.Bytes() != out.Bytes() {
			return c.Errorf("output %d (%d bytes) cannot alias input %d (%d bytes)", a.out, out.Bytes(), a.in, in.Bytes())
		}
	}
	return nil
}

// signature describes an operator's tensor types for error messages.
func signature(g *model.Graph, op *model.Op) string {
	var in, out []string
	for _, i := range op.Inputs {
		if i < 0 {
			in = append(in, "-")
			continue
		}
		t := g.Tensors[i]
		s := fmt.Sprintf("%s%v", t.Type, t.Shape)
		if t.IsConst() {
			s = "const " + s
		}
		in = append(in, s)
	}
	for _, i := range op.Outputs {
		t := g.Tensors[i]
		out = append(out, fmt.Sprintf("%s%v", t.Type, t.Shape))
	}
	return fmt.Sprintf("inputs %s; outputs %s", strings.Join(in, ", "), strings.Join(out, ", "))
}

// addResources adds one persistent buffer per sized resource variable,
// owned by the first operator that reads or assigns it.
func addResources(p *program.Program, frags []*Fragment, reqBuf map[*scratchReq]program.BufID, last int) {
	if len(frags) == 0 || frags[0].c.st == nil {
		return
	}
	owner := map[*scratchReq]int{}
	for _, f := range frags {
		f.c.walk(func(c *opCtx) {
			for _, k := range c.calls {
				for _, a := range k.Args {
					if r, ok := a.(reqArg); ok && r.r.op == -1 {
						if _, seen := owner[r.r]; !seen {
							owner[r.r] = f.c.Op.Index
						}
					}
				}
			}
		})
	}
	for _, v := range frags[0].c.st.vars {
		op, used := owner[v.req]
		if v.req == nil || !used {
			continue
		}
		reqBuf[v.req] = program.BufID(len(p.Buffers))
		p.Buffers = append(p.Buffers, program.Buffer{
			Buffer: planner.Buffer{Name: v.describe(), Size: v.req.bytes, First: 0, Last: last, Kind: planner.Persistent},
			Reset:  v.fill, Op: op,
		})
	}
}
