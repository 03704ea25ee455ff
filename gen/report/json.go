package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/planner"
)

// Generator is the value of a report's first key, "generator": JSON has no
// comments, so this key is how a report.json says tflm-gen wrote it.
const Generator = "tflm-gen"

// JSONHead is how every report.json starts: its first line and first key.
const JSONHead = "{\n  \"generator\": \"" + Generator + "\","

// Report is report.json: the plan and the generated package in numbers, per
// operator and in total, for tools (a CI step, a dashboard, a comparison of
// two generations). Sizes are in bytes. Field order is the file's key
// order; every value is computed from the program and its plan, so the
// same model and flags give the same file.
type Report struct {
	// Generator is always "tflm-gen" (the ownership mark, see JSONHead).
	Generator string `json:"generator"`
	// Version is the tflm-gen version when generation stamps it (-stamp).
	Version string `json:"version,omitempty"`
	Model   string `json:"model"`
	SHA256  string `json:"sha256"`

	// ArenaSize is the generated ArenaSize: every buffer, aligned.
	ArenaSize int `json:"arena_size"`
	// LowerBound is the largest total (aligned) of the buffers live at one
	// operator, or more where a block of tied buffers leaves the others no
	// way to fit in that total (planner.BlockBound); no plan of these
	// buffers can be smaller.
	LowerBound int `json:"lower_bound"`
	// Certificate is layout.txt's wording; CertificateKind names it for
	// programs: at_lower_bound, exhaustive, all_orders, best_found or
	// heuristic (CertKind).
	Certificate     string `json:"certificate"`
	CertificateKind string `json:"certificate_kind"`
	// Gap is ArenaSize - LowerBound.
	Gap         int    `json:"gap"`
	Method      string `json:"method"`
	SearchSteps int64  `json:"search_steps"`
	// BudgetRanOut is set when the search stopped before proving the plan
	// optimal (-plan-effort raises the budget).
	BudgetRanOut bool `json:"budget_ran_out"`
	PeakOperator int  `json:"peak_operator"`
	Alignment    int  `json:"alignment"`
	// PlainArena is the arena with one buffer per tensor (no views,
	// in-place operators, overlapped pairs or fused groups).
	PlainArena int `json:"plain_arena"`
	// Activations, Scratch and Persistent sum the (unaligned) sizes of
	// every buffer of each kind over the whole run; buffers not live at the
	// same time share memory, so they add up to more than the arena.
	Activations int   `json:"activations_total"`
	Scratch     int   `json:"scratch_total"`
	Persistent  int   `json:"persistent"`
	MACs        int64 `json:"macs"`
	// Constants and Stack are absent when no code is emitted.
	Constants *JSONConstants `json:"constants,omitempty"`
	Stack     *JSONStack     `json:"stack,omitempty"`
	// RAM is ArenaSize plus the stack (0 without Stack).
	RAM int `json:"ram,omitempty"`

	Inputs    []JSONTensor   `json:"inputs"`
	Outputs   []JSONTensor   `json:"outputs"`
	Operators []JSONOperator `json:"operators"`
	Groups    []JSONGroup    `json:"fused_groups"`
	Buffers   []JSONBuffer   `json:"buffers"`
	// Pools is set for a multi-pool layout (tflm-gen -pool): each
	// buffer's Offset is then inside its Pool.
	Pools *JSONPools `json:"pools,omitempty"`
}

// JSONPools is a multi-pool layout: the pools and the access cost.
type JSONPools struct {
	Pools []JSONPool `json:"pools"`
	// Cost is the access cost of the assignment (bytes accessed per
	// Invoke times the pool's cost); Bound a lower bound on the cost of
	// any assignment within the capacities; FastCost with every buffer in
	// the cheapest pool, SlowCost in the dearest.
	Cost     int64 `json:"cost"`
	Bound    int64 `json:"cost_bound"`
	FastCost int64 `json:"cost_all_cheapest"`
	SlowCost int64 `json:"cost_all_dearest"`
}

// JSONPool is one pool: its capacity and cost as given, the bytes its plan
// takes (the generated <NAME>Size), its lower bound and the bytes an
// Invoke accesses in it.
type JSONPool struct {
	Name       string `json:"name"`
	Capacity   int    `json:"capacity"`
	Cost       int64  `json:"cost"`
	Size       int    `json:"size"`
	LowerBound int    `json:"lower_bound"`
	Accessed   int64  `json:"accessed"`
	Buffers    int    `json:"buffers"`
}

// JSONConstants is the package's read-only data (ConstBytes).
type JSONConstants struct {
	// Total is Stored + Derived: weights.go's data.
	Total int `json:"total"`
	// Stored counts the model's constant tensors used as they are stored.
	Stored int `json:"stored"`
	// Derived counts what generation made: re-laid-out weights, folded
	// biases, requantization records, lookup tables.
	Derived int `json:"derived"`
	// Model is the size of all the model's constant tensors.
	Model int `json:"model_constants"`
}

// JSONStack is the stack a call of Invoke or Reset takes (Stack).
type JSONStack struct {
	Bytes int `json:"bytes"`
	// Operator is where it is deepest (the first of a fused group), -1 in
	// Reset.
	Operator int `json:"operator"`
	// Unmeasured lists the kernels without a measurement, each counted as
	// the deepest measured kernel.
	Unmeasured []string `json:"unmeasured,omitempty"`
	// Target is the build the figure is for.
	Target string `json:"target"`
}

// StackTarget is the build the stack figures are measured on.
const StackTarget = "TinyGo 0.40, cortex-m4, -opt=z"

// JSONTensor is a graph input or output, or an operator's output.
type JSONTensor struct {
	Tensor int    `json:"tensor"`
	Name   string `json:"name"`
	Type   string `json:"type"`
	Shape  []int  `json:"shape"`
	// Buffer is the arena buffer holding it ("b3", as in layout.txt), ""
	// for a constant.
	Buffer string `json:"buffer,omitempty"`
	Offset int    `json:"offset"`
	Bytes  int    `json:"bytes"`
}

// JSONOperator is one operator, in execution order.
type JSONOperator struct {
	Index int    `json:"index"`
	Code  string `json:"code"`
	// Kernels are the functions the generated code calls for it, in the
	// order of their first call (for a fused group's operator, its band
	// calls and line slides; for control flow, its subgraphs' calls too);
	// empty for a view (RESHAPE and the like).
	Kernels []string `json:"kernels"`
	// Why says, per kernel the lowering chose among the operator's other
	// forms, why (the predicates that held); absent when it has one form.
	Why  map[string]string `json:"why,omitempty"`
	MACs int64             `json:"macs"`
	// ConstBytes is the read-only data its calls read first: a constant
	// read by several operators counts for the first, so the operators'
	// figures add up to Constants.Total.
	ConstBytes int `json:"constant_bytes"`
	// LiveBytes are the arena bytes held by the buffers live at the
	// operator (bytes shared by an overlapped pair counted once); the
	// peak operator's are at most the lower bound, which counts aligned
	// sizes.
	LiveBytes int `json:"live_bytes"`
	// ScratchBytes and StateBytes are the operator's own scratch and
	// persistent buffers.
	ScratchBytes int `json:"scratch_bytes"`
	StateBytes   int `json:"state_bytes"`
	// Group is the index in fused_groups of the group it runs in, absent
	// when it runs on its own.
	Group *int `json:"fused_group,omitempty"`
	// WritesOverInput is set for an overlapped pair: its output written
	// over its dying input.
	WritesOverInput bool `json:"writes_over_input,omitempty"`
	// InPlace is set when its output takes the buffer of a dying input.
	InPlace bool `json:"in_place,omitempty"`
	// FoldedInto is the operator that does its work (a PAD folded into
	// the padding of the convolution reading it), absent for the others;
	// a folded operator has no kernels and no outputs.
	FoldedInto *int `json:"folded_into,omitempty"`
	// Padding is a convolution's explicit padding (top, bottom, left,
	// right) where it absorbed a PAD, absent otherwise.
	Padding []int `json:"padding,omitempty"`
	// ModelOp and Strip, where a stage runs in column strips
	// (-recompute), are the model's operator this one computes (part of)
	// and its strip (-1 outside the stage and for the operators joining
	// the strips); absent otherwise.
	ModelOp *int         `json:"model_op,omitempty"`
	Strip   *int         `json:"strip,omitempty"`
	Outputs []JSONTensor `json:"outputs"`
}

// JSONGroup is a fused group: operators First..Last run row by row.
type JSONGroup struct {
	First int `json:"first"`
	Last  int `json:"last"`
	Calls int `json:"calls"`
	// Lines are the line buffers ("b4"), OverInput is set when the output
	// is written over the dying input.
	Lines     []string `json:"line_buffers"`
	OverInput bool     `json:"output_over_input"`
}

// JSONBuffer is one arena buffer, numbered as in layout.txt (ID "b0", ...).
type JSONBuffer struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Offset  int    `json:"offset"`
	Size    int    `json:"size"`
	First   int    `json:"first"`
	Last    int    `json:"last"`
	Tensors []int  `json:"tensors"`
	// Pool and Accessed are set for a multi-pool layout.
	Pool     string `json:"pool,omitempty"`
	Accessed int64  `json:"accessed,omitempty"`
}

// CertKind names a certificate in report.json.
func CertKind(c planner.Certificate) string {
	switch c {
	case planner.AtLowerBound:
		return "at_lower_bound"
	case planner.Exhaustive:
		return "exhaustive"
	case planner.BestFound:
		return "best_found"
	case planner.AllOrders:
		return "all_orders"
	}
	return "heuristic"
}

// Make builds the report of program pr planned as l; consts and stack, when
// not nil, add the package's read-only data and stack; version, when not
// empty, is stamped.
func Make(pr *program.Program, l *layout.Layout, consts *ConstBytes, stack *Stack, version string) *Report {
	p := l.Plan
	g := pr.Graph
	r := &Report{Generator: Generator, Version: version, Model: g.Name, SHA256: g.SHA256,
		ArenaSize: p.Size, LowerBound: p.LowerBound, Certificate: p.CertText(), CertificateKind: CertKind(p.Cert),
		Gap: p.Gap(), Method: p.Method, SearchSteps: p.Steps, BudgetRanOut: p.Cert == planner.BestFound,
		PeakOperator: p.PeakStep, Alignment: l.Align, PlainArena: l.PlainSize,
		Activations: pr.Bytes(planner.Activation), Scratch: pr.Bytes(planner.Scratch), Persistent: pr.Bytes(planner.Persistent),
		MACs:   pr.MACs(),
		Inputs: []JSONTensor{}, Outputs: []JSONTensor{}, Operators: []JSONOperator{}, Groups: []JSONGroup{}, Buffers: []JSONBuffer{},
	}
	if consts != nil {
		r.Constants = &JSONConstants{Total: consts.Total(), Stored: consts.Stored, Derived: consts.Derived, Model: consts.Model}
	}
	if stack != nil {
		r.Stack = &JSONStack{Bytes: stack.Bytes, Operator: stack.Op, Unmeasured: stack.Unmeasured, Target: StackTarget}
		r.RAM = p.Size + stack.Bytes
	}
	order := Order(pr)
	id := make([]string, len(pr.Buffers))
	for n, i := range order {
		id[i] = fmt.Sprintf("b%d", n)
		b := pr.Buffers[i]
		jb := JSONBuffer{ID: id[i], Name: b.Name, Kind: b.Kind.String(), Offset: l.Offset(program.BufID(i)),
			Size: b.Size, First: b.First, Last: b.Last, Tensors: append([]int{}, b.Tensors...)}
		if l.Pools != nil {
			jb.Pool, jb.Accessed = l.PoolName(program.BufID(i)), l.Access[i]
		}
		r.Buffers = append(r.Buffers, jb)
	}
	if l.Pools != nil {
		jp := &JSONPools{Cost: l.Cost, Bound: l.Bound, FastCost: l.FastCost, SlowCost: l.SlowCost}
		for _, pool := range l.Pools {
			jp.Pools = append(jp.Pools, JSONPool{Name: pool.Name, Capacity: pool.Size, Cost: pool.Cost, Size: pool.Plan.Size,
				LowerBound: pool.Plan.LowerBound, Accessed: pool.Access, Buffers: len(pool.Members)})
		}
		r.Pools = jp
	}
	tensor := func(t int) JSONTensor {
		tt := g.Tensors[t]
		jt := JSONTensor{Tensor: t, Name: tt.Name, Type: tt.Type.String(), Shape: append([]int{}, tt.Shape...), Bytes: tt.Bytes()}
		if b, ok := pr.TensorBuf[t]; ok {
			jt.Buffer, jt.Offset = id[b], l.Offset(b)
		}
		return jt
	}
	for _, t := range g.Inputs {
		r.Inputs = append(r.Inputs, tensor(t))
	}
	for _, t := range g.Outputs {
		r.Outputs = append(r.Outputs, tensor(t))
	}
	for _, grp := range pr.Groups {
		jg := JSONGroup{First: grp.First, Last: grp.Last, Calls: grp.Calls(), Lines: []string{}, OverInput: grp.MinShift >= 0}
		for _, ln := range grp.Lines {
			jg.Lines = append(jg.Lines, id[ln.Buf])
		}
		r.Groups = append(r.Groups, jg)
	}
	f := operatorFacts(pr, l)
	for i, op := range pr.Ops {
		jo := JSONOperator{Index: i, Code: op.Code.String(), Kernels: f.kernels[i], Why: f.why[i], MACs: op.MACs, ConstBytes: f.constBytes[i],
			LiveBytes: f.live[i], ScratchBytes: f.scratch[i], StateBytes: f.state[i], WritesOverInput: f.over[i], InPlace: f.inPlace[i],
			Outputs: []JSONTensor{}}
		if jo.Kernels == nil {
			jo.Kernels = []string{}
		}
		if k := f.groupOf[i] - 1; k >= 0 {
			jo.Group = &k
		}
		if op.Index >= 0 && op.Index < len(g.Ops) {
			if gop := g.Ops[op.Index]; gop.Folded {
				into := gop.FoldedInto
				jo.FoldedInto = &into
			} else if p := gop.Padding; p != nil {
				jo.Padding = []int{p.Top, p.Bottom, p.Left, p.Right}
			}
			if st := g.Strips; st != nil && op.Index < len(st.Source) {
				src, k := st.Source[op.Index], st.Strip[op.Index]
				jo.ModelOp, jo.Strip = &src, &k
			}
		}
		if op.Index >= 0 && op.Index < len(g.Ops) {
			for _, t := range g.Ops[op.Index].Outputs {
				if t >= 0 {
					jo.Outputs = append(jo.Outputs, tensor(t))
				}
			}
		}
		r.Operators = append(r.Operators, jo)
	}
	return r
}

// JSON renders the report as report.json, starting with JSONHead: the
// top-level keys in the order of Report's fields, one a line, and the
// objects among them (constants, stack) the same way; every element of an
// array of objects (operators, buffers, ...) on a line of its own, so that
// a change to one operator is a change of one line.
func (r *Report) JSON() ([]byte, error) {
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("report.json: %w", err)
	}
	var out bytes.Buffer
	out.Grow(compact.Len() + compact.Len()/4)
	writeObject(&out, bytes.TrimSpace(compact.Bytes()), "", 2)
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// writeObject writes obj, a compact JSON object as encoding/json writes
// it, with one key a line at indent+"  ", expanding the objects among its
// values while depth > 1; arrays of objects get one element a line,
// everything else stays on its line (spaced, writeSpaced).
func writeObject(w *bytes.Buffer, obj []byte, indent string, depth int) {
	in := indent + "  "
	w.WriteString("{")
	i := 1 // after '{'
	for i < len(obj) && obj[i] != '}' {
		if obj[i] == ',' {
			w.WriteByte(',')
			i++
		}
		k := valueEnd(obj, i)
		w.WriteString("\n" + in)
		w.Write(obj[i:k])
		w.WriteString(": ")
		i = k + 1 // after ':'
		e := valueEnd(obj, i)
		v := obj[i:e]
		switch {
		case len(v) > 2 && v[0] == '{' && depth > 1:
			writeObject(w, v, in, depth-1)
		case len(v) > 2 && v[0] == '[' && v[1] == '{':
			w.WriteString("[")
			for j := 1; j < len(v)-1; {
				if v[j] == ',' {
					w.WriteByte(',')
					j++
				}
				f := valueEnd(v, j)
				w.WriteString("\n" + in + "  ")
				writeSpaced(w, v[j:f])
				j = f
			}
			w.WriteString("\n" + in + "]")
		default:
			writeSpaced(w, v)
		}
		i = e
	}
	w.WriteString("\n" + indent + "}")
}

// valueEnd returns the end of the compact JSON value that starts at b[i]:
// a string, an object or array (brackets counted outside strings), or a
// number, true, false or null.
func valueEnd(b []byte, i int) int {
	depth, inString, escaped := 0, false, false
	for j := i; j < len(b); j++ {
		c := b[j]
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
			if depth == 0 {
				return j + 1
			}
		case inString:
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth == 0 {
				return j // the end of the enclosing value
			}
			depth--
			if depth == 0 {
				return j + 1
			}
		case (c == ',' || c == ':') && depth == 0:
			return j
		}
	}
	return len(b)
}

// writeSpaced writes compact JSON with a space after every ':' and ','
// outside strings.
func writeSpaced(w *bytes.Buffer, v []byte) {
	inString, escaped := false, false
	for _, c := range v {
		w.WriteByte(c)
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ':' || c == ','):
			w.WriteByte(' ')
		}
	}
}

// ParseJSON reads a report.json.
func ParseJSON(data []byte) (*Report, error) {
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("report.json: %w", err)
	}
	if r.Generator != Generator {
		return nil, fmt.Errorf("report.json: generator %q, not %s", r.Generator, Generator)
	}
	return &r, nil
}

// opFacts are per-operator figures of a plan, as report.json and
// layout.txt give them.
type opFacts struct {
	groupOf        []int // fused group index + 1, 0 on its own
	scratch, state []int // its own scratch and persistent bytes
	over, inPlace  []bool
	kernels        [][]string
	// why is, per operator, the lowering's reason for each kernel it
	// calls that has one (program.Op.Why), nil when none has.
	why        []map[string]string
	constBytes []int
	live       []int
}

// operatorFacts gathers the opFacts of pr planned as l.
func operatorFacts(pr *program.Program, l *layout.Layout) opFacts {
	n := len(pr.Ops)
	f := opFacts{groupOf: make([]int, n), scratch: make([]int, n), state: make([]int, n), over: make([]bool, n), inPlace: make([]bool, n)}
	for k, grp := range pr.Groups {
		for i := grp.First; i <= grp.Last; i++ {
			f.groupOf[i] = k + 1
		}
	}
	for _, b := range pr.Buffers {
		switch {
		case b.Op < 0 || b.Op >= n:
		case b.Kind == planner.Scratch:
			f.scratch[b.Op] += b.Size
		case b.Kind == planner.Persistent:
			f.state[b.Op] += b.Size
		}
	}
	for _, ov := range pr.Overlaps {
		f.over[ov.Op] = true
	}
	for _, ip := range pr.InPlace {
		f.inPlace[ip.Op] = true
	}
	f.kernels, f.constBytes = opKernels(pr, f.groupOf)
	f.why = make([]map[string]string, n)
	for i, op := range pr.Ops {
		for _, k := range f.kernels[i] {
			if why, ok := op.Why[k]; ok {
				if f.why[i] == nil {
					f.why[i] = map[string]string{}
				}
				f.why[i][k] = why
			}
		}
	}
	f.live = liveBytes(pr, l)
	return f
}

// opKernels returns, per operator, the functions its code calls (in the
// order of their first call) and the bytes of the constants it is the
// first to read; groupOf is the fused group of each operator, plus one (0:
// none).
func opKernels(pr *program.Program, groupOf []int) ([][]string, []int) {
	kernels := make([][]string, len(pr.Ops))
	constBytes := make([]int, len(pr.Ops))
	seenTensor, seenTable := map[int]bool{}, map[int]bool{}
	// A table with the data of an earlier one is that one in weights.go
	// (emit): its bytes count once, for the first operator reading either.
	same := pr.SameTables()
	var arg func(op int, a program.Arg)
	arg = func(op int, a program.Arg) {
		switch a := a.(type) {
		case program.ConstTensor:
			if !seenTensor[a.Tensor] {
				seenTensor[a.Tensor] = true
				constBytes[op] += len(pr.Graph.Tensors[a.Tensor].Data)
			}
		case program.ConstTable:
			if k := same[a.Index]; !seenTable[k] {
				seenTable[k] = true
				constBytes[op] += len(pr.Consts[k].Data)
			}
		case program.Struct:
			for _, f := range a.Fields {
				arg(op, f.Value)
			}
		}
	}
	call := func(op int, c program.Call) {
		found := false
		for _, k := range kernels[op] {
			found = found || k == c.Fn
		}
		if !found {
			kernels[op] = append(kernels[op], c.Fn)
		}
		for _, a := range c.Args {
			arg(op, a)
		}
	}
	var calls func(op int, o *program.Op)
	calls = func(op int, o *program.Op) {
		for _, c := range o.Calls {
			call(op, c)
		}
		if o.Flow != nil {
			for _, b := range o.Flow.Blocks {
				for k := range b.Ops {
					calls(op, &b.Ops[k])
				}
			}
		}
	}
	// Operators and groups in execution order: a group's steps run where
	// its first operator is.
	for i := range pr.Ops {
		if k := groupOf[i] - 1; k >= 0 {
			if grp := &pr.Groups[k]; grp.First == i {
				for _, ss := range [][]program.Step{grp.Pre, grp.Body, grp.Post} {
					for _, s := range ss {
						call(s.Op, s.Call)
					}
				}
			}
			continue
		}
		calls(i, &pr.Ops[i])
	}
	// Tables no call reads (none today) count for the operator that made
	// them, so that the operators' figures add up to the total.
	for k, c := range pr.Consts {
		if f := same[k]; !seenTable[f] && c.Op >= 0 && c.Op < len(pr.Ops) {
			seenTable[f] = true
			constBytes[c.Op] += len(c.Data)
		}
	}
	return kernels, constBytes
}

// liveBytes returns, per operator, the arena bytes covered by the buffers
// live at it: the union of their [offset, offset+size) ranges.
func liveBytes(pr *program.Program, l *layout.Layout) []int {
	n := len(pr.Ops)
	out := make([]int, n)
	// Buffers by first operator; a sweep keeps those live.
	byFirst := make([][]int, n)
	for i, b := range pr.Buffers {
		if b.Size > 0 && b.First >= 0 && b.First < n {
			byFirst[b.First] = append(byFirst[b.First], i)
		}
	}
	var live []int
	type span struct{ lo, hi int }
	var spans []span
	for s := 0; s < n; s++ {
		live = append(live, byFirst[s]...)
		k := 0
		spans = spans[:0]
		for _, i := range live {
			if pr.Buffers[i].Last >= s {
				live[k] = i
				k++
				off := l.Plan.Offsets[i]
				spans = append(spans, span{off, off + pr.Buffers[i].Size})
			}
		}
		live = live[:k]
		sort.Slice(spans, func(a, b int) bool { return spans[a].lo < spans[b].lo })
		total, end := 0, 0
		for _, sp := range spans {
			lo := max(sp.lo, end)
			if sp.hi > lo {
				total += sp.hi - lo
				end = sp.hi
			}
		}
		out[s] = total
	}
	return out
}
