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
	for _, r := range f.c.scratch {
		n += planner.AlignedSize(r.bytes, align)
	}
	return n
}

// Ops lowers every operator of g; lean[i] asks operator i for its kernel
// variant with the least scratch memory. Every operator that cannot be
// lowered is reported in one error wrapping ErrUnsupported.
func Ops(g *model.Graph, lean []bool) ([]*Fragment, error) {
	if len(g.Ops) == 0 {
		return nil, fmt.Errorf("%w: model has no operators", model.ErrInvalid)
	}
	if len(lean) != len(g.Ops) {
		return nil, fmt.Errorf("internal error: %d lean flags for %d operators", len(lean), len(g.Ops))
	}
	frags := make([]*Fragment, 0, len(g.Ops))
	var errs []string
	for _, op := range g.Ops {
		c := &opCtx{G: g, Op: op, lean: lean[op.Index]}
		frags = append(frags, &Fragment{c})
		l, ok := lowerings[op.Code]
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
		inPlace = findInPlace(g, find)
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
	touch := func(t, step int) {
		if t < 0 || g.Tensors[t].IsConst() {
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
		found := false
		for _, x := range gr.tensors {
			found = found || x == t
		}
		if !found {
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
	for _, f := range frags {
		c := f.c
		for _, r := range c.scratch {
			reqBuf[r] = program.BufID(len(p.Buffers))
			p.Buffers = append(p.Buffers, program.Buffer{
				Buffer: planner.Buffer{
					Name: fmt.Sprintf("op%d scratch%d (%s)", c.Op.Index, r.n, c.Op.Code),
					Size: r.bytes, First: c.Op.Index, Last: c.Op.Index, Kind: planner.Scratch,
				},
				Reset: -1, Op: c.Op.Index,
			})
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
	var tied map[int]bool
	if len(opt.Overlap) > 0 && !opt.NoShare {
		tied = tieOverlaps(g, frags, p, opt.Overlap)
	}
	consts := map[*constData]int{}
	for _, f := range frags {
		for _, cd := range f.c.consts {
			consts[cd] = len(p.Consts)
			p.Consts = append(p.Consts, program.Const{Hint: cd.hint, Op: f.c.Op.Index, Data: cd.data})
		}
	}
	rs := &resolver{p: p, reqBuf: reqBuf, consts: consts}
	for _, f := range frags {
		c := f.c
		op := program.Op{Index: c.Op.Index, Code: c.Op.Code, MACs: opMACs(g, c.Op)}
		calls := c.calls
		if tied[c.Op.Index] && c.overlap.calls != nil {
			calls = c.overlap.calls
		}
		for _, k := range calls {
			call := program.Call{Fn: string(k.Fn), Args: make([]program.Arg, 0, len(k.Args))}
			for _, a := range k.Args {
				call.Args = append(call.Args, rs.arg(a))
			}
			if rs.err == nil {
				if err := checkCall(k); err != nil {
					rs.err = fmt.Errorf("internal error: %w", err)
				}
			}
			op.Calls = append(op.Calls, call)
		}
		if rs.err != nil {
			return nil, fmt.Errorf("%s: %w", c.Op.Describe(), rs.err)
		}
		p.Ops = append(p.Ops, op)
	}
	return p, nil
}

// resolver turns the arguments lowerings record into program arguments.
type resolver struct {
	p      *program.Program
	reqBuf map[*scratchReq]program.BufID
	consts map[*constData]int
	err    error
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
		if program.GoType(t.Type) == "" {
			return r.fail("%s: no arena view for type %s", t.Describe(), t.Type)
		}
		return program.View{Buf: b, Type: t.Type, N: t.NumElements(), Raw: a.raw}
	case strArg:
		if !a.t.IsConst() {
			return r.fail("%s passed as a constant string but has no data", a.t.Describe())
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
