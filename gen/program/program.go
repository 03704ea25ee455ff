// Package program is the plain data that flows between the stages of
// tflm-gen: lowering (package lower) turns a validated graph into a Program,
// a list of kernel calls per operator over numbered buffers and constants
// with no memory offsets in it; planning (package layout) assigns an offset
// to every buffer id without changing the program; emission (package emit)
// and the reports (package report) render program and plan.
//
// A Program is never modified after lowering has built it: later stages
// keep what they compute (offsets, sizes, certificates) in values of their
// own, keyed by BufID.
package program

import (
	"slices"

	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/planner"
)

// Program is a lowered model.
type Program struct {
	// Graph is the validated model the program was lowered from (read-only:
	// tensor names, shapes, quantization and constant data).
	Graph *model.Graph
	// Ops holds one entry per operator, in execution order.
	Ops []Op
	// Buffers are the arena buffers; a BufID indexes this slice.
	Buffers []Buffer
	// Consts are the tables computed at generation time (folded biases,
	// requantization records, packed weights, lookup tables).
	Consts []Const
	// InPlace lists the operators whose output overwrites a dying input.
	InPlace []InPlace
	// TensorBuf maps a non-constant tensor index to its buffer.
	TensorBuf map[int]BufID
	// Overlaps lists the operators that write their output over their
	// dying input (the input's buffer is tied to the output's, see
	// planner.Tie).
	Overlaps []Overlap
	// Groups lists the fused groups: chains of operators that run row band
	// by row band, their intermediate tensors held as line buffers of a few
	// rows (fused row streaming). The operators of a group have no Calls of
	// their own; the group's steps hold them.
	Groups []Group
	// Apart says, for each operator that runs on its own after its
	// predecessor (not in one fused group with it), why: which rule kept
	// the two apart. Set by lowering when it fuses (empty otherwise).
	Apart []Apart
	// Lean lists the operators lowered with their lean kernel (the least
	// scratch) where a faster one would have made the arena larger.
	Lean []int
}

// Apart is operator Op running apart from operator From, and why: From is
// Op-1, or the last operator before Op that is not folded into another
// (gen/fold).
type Apart struct {
	Op, From int
	Why      string
}

// Group is a chain of operators First..Last (execution order, each
// reading the previous one's output, or in a DAG group an earlier one's:
// a branch such as a residual block's shortcut, a residual operator's
// skip tensor) run together: the first reads the whole tensor In, the
// last writes the whole tensor Out, and every tensor in between lives
// only as a line buffer (Lines) holding the rows its readers still need. Its code is Pre, then Iter runs of Body (loop
// counter t = 0 ... Iter-1, each view at Off + t*Step), then Post; Expand
// gives the calls in the order they run. Every output element is computed
// once, by the same kernel call arithmetic as layer by layer.
type Group struct {
	First, Last int
	In, Out     BufID
	Lines       []Line
	Pre         []Step
	Iter        int
	Body        []Step
	Post        []Step
	// MinShift is the least distance In may start above Out so that no
	// write of Out reaches input rows still to be read (In's planner Tie
	// holds it when the two overlap), -1 when they do not overlap; 0 when
	// In is Out (a residual ADD writing in place over its skip tensor,
	// the group's input).
	MinShift int
	// Sums is set when the last operator is a global average pool (one
	// window over the whole image) run as sums: its bands add their
	// input rows (Rows and InRows both name them) to the per-channel
	// sums in buffer SumsBuf, a scratch buffer living through the group,
	// and the group's last call divides them into the output (Rows: row
	// 0, InRows empty).
	Sums    bool
	SumsBuf BufID
}

// Line is the line buffer of one intermediate tensor of a group: Rows rows
// of RowBytes bytes, always holding consecutive rows of the tensor from its
// start (a slide call moves the rows still needed down before new rows are
// written).
type Line struct {
	Buf            BufID
	Tensor         int
	Rows, RowBytes int
	// TensorRows is the tensor's height: the line holds Rows of them.
	TensorRows int
	// Readers are the operators of the group reading the line where
	// that is not the next operator alone (a DAG group), nil otherwise.
	Readers []int
}

// Step is one call of a group, made for operator Op (a kernel call on a
// band of rows, or a slide of Op's line buffer).
type Step struct {
	Op   int
	Call Call
	// Rows are the output rows a band computes and InRows the input rows
	// it reads (empty for a slide).
	Rows, InRows RowRange
}

// RowRange is the rows [Lo, Hi) of a tensor, plus t*Step in loop run t.
type RowRange struct{ Lo, Hi, Step int }

func (r RowRange) at(t int) RowRange {
	return RowRange{Lo: r.Lo + t*r.Step, Hi: r.Hi + t*r.Step}
}

// IsView reports whether operator i is a view: a RESHAPE, SQUEEZE or
// EXPAND_DIMS whose output shares its input's buffer (no code of its own;
// in a fused group, a reader reads through it).
func (p *Program) IsView(i int) bool {
	op := p.Graph.Ops[i]
	switch op.Code {
	case model.OpReshape, model.OpSqueeze, model.OpExpandDims:
	default:
		return false
	}
	if len(p.Ops[i].Calls) > 0 || p.Ops[i].Flow != nil || len(op.Inputs) == 0 || op.Inputs[0] < 0 || len(op.Outputs) != 1 {
		return false
	}
	in, ok1 := p.TensorBuf[op.Inputs[0]]
	out, ok2 := p.TensorBuf[op.Outputs[0]]
	return ok1 && ok2 && in == out
}

// ViewInGroup reports whether operator i of group grp is a view its
// reader reads through (a RESHAPE whose rows are its input's rows): inside
// the group, its output in the buffer of its input, a line.
func (p *Program) ViewInGroup(grp *Group, i int) bool {
	return i > grp.First && i < grp.Last && p.IsView(i)
}

// Expand returns the group's calls in the order they run, with the loop
// unrolled: each view's offset is Off + t*Step for loop run t.
func (g *Group) Expand() []Step {
	out := append([]Step(nil), g.Pre...)
	for t := 0; t < g.Iter; t++ {
		for _, s := range g.Body {
			out = append(out, Step{Op: s.Op, Call: s.Call.At(t), Rows: s.Rows.at(t), InRows: s.InRows.at(t)})
		}
	}
	return append(out, g.Post...)
}

// Calls counts the calls Expand gives (kernel bands and line slides).
func (g *Group) Calls() int { return len(g.Pre) + g.Iter*len(g.Body) + len(g.Post) }

// StepCalls returns the calls of the group's steps as written: Pre, Body
// (once, not unrolled) and Post.
func (g *Group) StepCalls() []Call {
	out := make([]Call, 0, len(g.Pre)+len(g.Body)+len(g.Post))
	for _, ss := range [][]Step{g.Pre, g.Body, g.Post} {
		for _, s := range ss {
			out = append(out, s.Call)
		}
	}
	return out
}

// At returns the call with every view at loop run t: Off + t*Step, Step 0.
func (c Call) At(t int) Call {
	args := make([]Arg, len(c.Args))
	for i, a := range c.Args {
		if v, ok := a.(View); ok {
			v.Off += t * v.Step
			v.Step = 0
			a = v
		}
		args[i] = a
	}
	c.Args = args
	return c
}

// GroupCalls calls fn on every call of the fused groups (loop bodies once).
func (p *Program) GroupCalls(fn func(Call)) {
	for i := range p.Groups {
		for _, c := range p.Groups[i].StepCalls() {
			fn(c)
		}
	}
}

// GroupOf returns the group operator op belongs to, nil when it runs on
// its own.
func (p *Program) GroupOf(op int) *Group {
	for i := range p.Groups {
		if g := &p.Groups[i]; g.First <= op && op <= g.Last {
			return g
		}
	}
	return nil
}

// Overlap is an operator writing buffer Out over its dying input In, which
// starts at least MinShift bytes above Out (In's planner Tie holds the
// shift, MinShift rounded up to the alignment).
type Overlap struct {
	Op       int
	In, Out  BufID
	MinShift int
}

// BufID names one buffer of a Program.
type BufID int

// Buffer is one arena buffer: a tensor (or several tensors that share
// memory through views and in-place operators), an operator's scratch, or
// persistent state. Its planner.Buffer gives name, size, lifetime and kind.
type Buffer struct {
	planner.Buffer
	// Tensors lists the tensors stored in the buffer, ascending; empty for
	// scratch and operator state.
	Tensors []int
	// Reset is the byte value Reset fills the buffer with, or -1 when Reset
	// leaves it alone (everything but persistent state).
	Reset int
	// Op is the operator owning a scratch or state buffer, -1 for tensors.
	Op int
}

// Op is one operator lowered to kernel calls.
type Op struct {
	// Index is the operator's position in execution order.
	Index int
	// Code is the operator type (CONV_2D, ...).
	Code model.OpCode
	// Calls are the kernel calls, in order; none for views (RESHAPE, ...).
	Calls []Call
	// MACs counts the operator's multiply-accumulates (0 where that is not
	// a meaningful measure).
	MACs int64
	// InputReads is how many times, on average, the operator's kernels
	// read each byte of its input 0: its window over its stride for
	// convolutions and pools (kh*kw/(sh*sw), rounded up), else 1 (0 for an
	// operator without code). layout.Access weighs input views by it.
	InputReads int
	// Flow is the control flow of IF, WHILE and CALL_ONCE, run after
	// Calls; nil for the other operators.
	Flow *Flow
	// Why says, per kernel the lowering chose among others, why: the
	// predicates that chose it (layout.txt, report.json). Kernels an
	// operator always calls have none.
	Why map[string]string
}

// FlowKind is the Go statement a Flow stands for.
type FlowKind int

// Control flow. Cond is a one-byte view: a bool tensor or a flag.
const (
	// FlowOnce: if Cond[0] == 0 { Blocks[0]; Cond[0] = 1 } (CALL_ONCE,
	// Cond a persistent flag that Reset clears).
	FlowOnce FlowKind = iota + 1
	// FlowIf: if Cond[0] != 0 { Blocks[0] } else { Blocks[1] } (IF).
	FlowIf
	// FlowWhile: for { Blocks[0]; if Cond[0] == 0 { break }; Blocks[1] }
	// (WHILE: Blocks[0] is the cond subgraph, Cond its output).
	FlowWhile
)

// Flow is Go control flow over blocks of subgraph code.
type Flow struct {
	Kind   FlowKind
	Cond   View
	Blocks []Block
}

// Block is the code of one called subgraph: its operators in order, with
// the copies between the caller's tensors and the subgraph's inputs and
// outputs as operators of Index -1 (Code the caller's) before and after
// them. The subgraph's tensors, scratch and state are buffers of the
// program like any other, live during the calling operator of subgraph 0.
type Block struct {
	Subgraph int
	Ops      []Op
}

// Call is one kernel call: Fn(Args...).
type Call struct {
	// Fn names a function of package kernels.
	Fn string
	// Args are its arguments, in order.
	Args []Arg
	// Band is how scheduling may run the call on a band of output rows
	// (fusion), as the lowering declared it; NoBand for a call that only
	// runs whole.
	Band Band
}

// BandKind says how a kernel call computes its output's rows from its
// input's, so that scheduling can run it on a band of rows: a call on a
// shorter geometry of the same parameter struct.
type BandKind uint8

// The band kinds a lowering declares.
const (
	// NoBand: the call runs whole.
	NoBand BandKind = iota
	// BandWindow: output rows from windows of input rows; the parameter
	// struct holds inH, outH and padH, filterH (or Band.FilterH), and
	// strideH, dilationH and batches where the kernel has them (1 where
	// it has not).
	BandWindow
	// BandPixels: a pointwise kernel whose parameter struct counts pixels.
	BandPixels
	// BandElems: a binary elementwise kernel (an ewBcast argument) on
	// operands of the output's shape.
	BandElems
	// BandUnary: element i of the output from element i of the input.
	BandUnary
	// BandMove: moveStrided, whose outermost loop walks the output's rows.
	BandMove
	// BandMirror: mirrorPadRows (MIRROR_PAD over height and width), each
	// output row a reflected input row: the parameter struct holds inH
	// and outH, the band's first output row row0 and first input row in0
	// (rows of the whole tensors), and the whole input's height imgH,
	// its top padding and the mirror offset.
	BandMirror
)

// Band is a call's band geometry (Call.Band).
type Band struct {
	Kind BandKind
	// FilterH is the filter height of a BandWindow kernel whose
	// parameter struct has no filterH (0: read the struct's).
	FilterH int
	// PadRows: output rows may read no input row at all (a PAD's rows of
	// padding above and below the image).
	PadRows bool
}

// Const is a table computed at generation time, emitted as a read-only
// string constant.
type Const struct {
	// Hint says what it holds, as the lowering named it ("Mult", "RQ");
	// emission names the constant after its operator and the hint.
	Hint string
	// Op is the operator that uses it.
	Op int
	// Data is its little-endian content.
	Data []byte
}

// InPlace is an operator whose output tensor shares the buffer of one of
// its input tensors.
type InPlace struct{ Op, In, Out int }

// Arg is one argument of a kernel call: View, ConstTensor, ConstTable, Lit
// or Struct.
type Arg interface{ isArg() }

// View is a typed slice over an arena buffer ([]int8, []float32, ...), or
// over its raw bytes when Raw is set; N counts elements of Type. It starts
// Off elements of Type into the buffer, plus t*Step in the loop of a fused
// group (Group.Body; Step is 0 everywhere else).
type View struct {
	Buf  BufID
	Type model.DType
	N    int
	Raw  bool
	Off  int
	Step int
}

// ConstTensor is a constant tensor of the model: a string constant when
// String is set, else a []int8 or []uint8 view over its read-only data
// (one-byte types only; []uint8 also when Raw is set).
type ConstTensor struct {
	Tensor int
	String bool
	Raw    bool
}

// ConstTable is one of Program.Consts, passed as a string; when Bytes is
// set, as a []int8 view of its data ([]uint8 when Unsigned is set too), as
// ConstTensor passes a one-byte constant (the constants of subgraphs other
// than 0 are tables).
type ConstTable struct {
	Index           int
	Bytes, Unsigned bool
}

// Lit is an integer, float32 or bool literal (int, int32, int64, float32
// or bool), rendered as an untyped constant.
type Lit struct{ Value any }

// Struct is &Type{Fields...}: a parameter block of constants.
type Struct struct {
	Type   string
	Fields []Field
}

// Field is one field of a Struct.
type Field struct {
	Name  string
	Value Arg
}

func (View) isArg()        {}
func (ConstTensor) isArg() {}
func (ConstTable) isArg()  {}
func (Lit) isArg()         {}
func (Struct) isArg()      {}

// SameTables returns, for each of p.Consts, the index of the first
// table with the same data: k itself for the first, an earlier index for
// a table that is that one (emission writes it once; the byte counts
// count it once). The column strips of gen/strips make each operator's
// tables once a strip.
func (p *Program) SameTables() []int {
	first := make(map[string]int, len(p.Consts))
	out := make([]int, len(p.Consts))
	for k, c := range p.Consts {
		f, ok := first[string(c.Data)]
		if !ok {
			f = k
			first[string(c.Data)] = k
		}
		out[k] = f
	}
	return out
}

// IsGraphOutput reports whether buffer b holds an output of the graph.
func (p *Program) IsGraphOutput(b BufID) bool {
	for _, t := range p.Graph.Outputs {
		if p.TensorBuf[t] == b {
			return true
		}
	}
	return false
}

// OpNames lists the operator types in execution order.
func (p *Program) OpNames() []string {
	out := make([]string, len(p.Ops))
	for i, op := range p.Ops {
		out[i] = op.Code.String()
	}
	return out
}

// PlannerBuffers returns the buffers as the planner takes them, in BufID
// order.
func (p *Program) PlannerBuffers() []planner.Buffer {
	out := make([]planner.Buffer, len(p.Buffers))
	for i, b := range p.Buffers {
		out[i] = b.Buffer
	}
	return out
}

// Bytes sums the sizes of the buffers of one kind.
func (p *Program) Bytes(k planner.Kind) int {
	n := 0
	for _, b := range p.Buffers {
		if b.Kind == k {
			n += b.Size
		}
	}
	return n
}

// MACs totals the multiply-accumulates of one Invoke.
func (p *Program) MACs() int64 {
	var n int64
	for _, op := range p.Ops {
		n += op.MACs
	}
	return n
}

// UsedTensors lists, ascending, the constant tensors the calls pass.
func (p *Program) UsedTensors() []int {
	seen := map[int]bool{}
	var walk func(a Arg)
	walk = func(a Arg) {
		switch a := a.(type) {
		case ConstTensor:
			seen[a.Tensor] = true
		case Struct:
			for _, f := range a.Fields {
				walk(f.Value)
			}
		}
	}
	for _, op := range p.Ops {
		for _, c := range op.Calls {
			for _, a := range c.Args {
				walk(a)
			}
		}
	}
	p.GroupCalls(func(c Call) {
		for _, a := range c.Args {
			walk(a)
		}
	})
	out := make([]int, 0, len(seen))
	for t := range p.Graph.Tensors {
		if seen[t] {
			out = append(out, t)
		}
	}
	return out
}

// GoType returns the Go element type of a tensor type ("int8"), "" when
// tensors of that type cannot be a graph input or output.
func GoType(dt model.DType) string {
	switch dt {
	case model.Int8:
		return "int8"
	case model.Uint8, model.Bool:
		return "uint8"
	case model.Int16:
		return "int16"
	case model.Int32:
		return "int32"
	case model.Int64:
		return "int64"
	case model.Float32:
		return "float32"
	}
	return ""
}

// Walk calls fn on every operator of ops and, depth first, on the operators
// of their Flow blocks.
func Walk(ops []Op, fn func(op *Op)) {
	for i := range ops {
		fn(&ops[i])
		if f := ops[i].Flow; f != nil {
			for _, b := range f.Blocks {
				Walk(b.Ops, fn)
			}
		}
	}
}

// WithoutUnusedConsts returns p without the tables (Consts) that no call
// reads, the others renumbered, or p itself when every table is read. A
// lowering makes tables for the calls it emits; a fused group's calls can
// replace an operator's and leave its table unread (a global average
// pool's DSP record, where the pool runs as sums). p is not modified.
func (p *Program) WithoutUnusedConsts() *Program {
	used := make([]bool, len(p.Consts))
	p.eachCall(func(c *Call) {
		for _, a := range c.Args {
			mapArg(a, func(a Arg) Arg {
				if t, ok := a.(ConstTable); ok && t.Index >= 0 && t.Index < len(used) {
					used[t.Index] = true
				}
				return a
			})
		}
	})
	remap := make([]int, len(p.Consts))
	q := *p
	q.Consts = nil
	for k, c := range p.Consts {
		remap[k] = len(q.Consts)
		if used[k] {
			q.Consts = append(q.Consts, c)
		}
	}
	if len(q.Consts) == len(p.Consts) {
		return p
	}
	// New slices for every call, so that replacing one leaves p's alone.
	q.Ops = cloneOps(p.Ops)
	q.Groups = slices.Clone(p.Groups)
	for k := range q.Groups {
		g := &q.Groups[k]
		g.Pre, g.Body, g.Post = slices.Clone(g.Pre), slices.Clone(g.Body), slices.Clone(g.Post)
	}
	q.eachCall(func(c *Call) {
		args := make([]Arg, len(c.Args))
		for i, a := range c.Args {
			args[i] = mapArg(a, func(a Arg) Arg {
				if t, ok := a.(ConstTable); ok {
					t.Index = remap[t.Index]
					return t
				}
				return a
			})
		}
		c.Args = args
	})
	return &q
}

// eachCall calls f on every call of p: operators', those of control flow
// blocks, fused groups'.
func (p *Program) eachCall(f func(*Call)) {
	var ops func(os []Op)
	ops = func(os []Op) {
		for i := range os {
			for k := range os[i].Calls {
				f(&os[i].Calls[k])
			}
			if fl := os[i].Flow; fl != nil {
				for _, b := range fl.Blocks {
					ops(b.Ops)
				}
			}
		}
	}
	ops(p.Ops)
	for k := range p.Groups {
		g := &p.Groups[k]
		for _, ss := range [][]Step{g.Pre, g.Body, g.Post} {
			for i := range ss {
				f(&ss[i].Call)
			}
		}
	}
}

// mapArg returns a with f applied to every argument in it that is not a
// parameter struct (a struct's fields, recursively), in new structs where
// a has them; a itself is not modified.
func mapArg(a Arg, f func(Arg) Arg) Arg {
	s, ok := a.(Struct)
	if !ok {
		return f(a)
	}
	fields := make([]Field, len(s.Fields))
	for i, fd := range s.Fields {
		fields[i] = Field{Name: fd.Name, Value: mapArg(fd.Value, f)}
	}
	return Struct{Type: s.Type, Fields: fields}
}

// cloneOps copies operators with new slices of calls and of control flow
// blocks (the calls' arguments shared).
func cloneOps(os []Op) []Op {
	out := slices.Clone(os)
	for i := range out {
		out[i].Calls = slices.Clone(out[i].Calls)
		if fl := out[i].Flow; fl != nil {
			f := *fl
			f.Blocks = slices.Clone(fl.Blocks)
			for b := range f.Blocks {
				f.Blocks[b].Ops = cloneOps(f.Blocks[b].Ops)
			}
			out[i].Flow = &f
		}
	}
	return out
}
