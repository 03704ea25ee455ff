// Package run executes a lowered program in-process: it calls the kernels
// of package kernels through their generated dispatch (kernels.Call and
// kernels.NewParams) over an arena laid out as the generated package lays
// out its own, without emitting or building any code.
//
// It exists for tests: differential and random tests can run thousands of
// programs with no go build per case, and a test checks that a Machine and
// the generated package of the same program agree byte for byte. The
// generator itself never uses it.
//
// A Machine reproduces the semantics of the generated model.go: arena views
// are typed slices at the planned offsets, constant tensors and tables are
// passed as the generated code passes them, literals take the type of the
// parameter they are assigned to, and the first Invoke runs Reset when
// persistent state has a non-zero initial value.
package run

import (
	"fmt"
	"math"
	"strings"
	"unsafe"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/kernels"
)

// minAlign is the least alignment of the arena base: enough for every view
// type (int64 and float32 need at most 8) and equal to the default plan
// alignment.
const minAlign = 16

// Machine runs one program with its own arena. It is not safe for
// concurrent use; several Machines of one program are independent.
type Machine struct {
	p     *program.Program
	l     *layout.Layout
	mem   []uint64 // backing store of arena, allocated as words for alignment
	arena []byte   // the aligned arena, len == l.Plan.Size
	steps []step
	// resets lists the buffers Reset restores, in buffer order.
	resets []reset
	// needsInit is set when some persistent buffer starts non-zero, so the
	// first Invoke must Reset (the generated Model's ready flag).
	needsInit, ready bool
}

// call is one kernel call with its arguments converted for kernels.Call.
type call struct {
	op   int
	fn   string
	args []any
}

// step is one kernel call or one control flow statement (program.Flow).
type step struct {
	call *call
	flow *flowStep
}

// flowStep is a Flow with its blocks prepared; cond is the arena offset of
// its condition byte.
type flowStep struct {
	kind   program.FlowKind
	cond   int
	blocks [][]step
}

// reset is one persistent buffer: arena[off:off+n] filled with fill.
type reset struct {
	off, n int
	fill   byte
}

// New prepares program p, planned as l, for running. It checks every call
// against the kernels' real signatures (kernelsig) and converts its
// arguments once, so that an unknown kernel or parameter type, an argument
// that would not compile in the generated code, or a view outside the arena
// is an error naming the operator and kernel rather than a panic in Invoke.
// The Machine keeps p and l and changes neither.
func New(p *program.Program, l *layout.Layout) (*Machine, error) {
	if p == nil || p.Graph == nil || l == nil || l.Plan == nil {
		return nil, fmt.Errorf("run: nil program, graph or layout")
	}
	if len(l.Plan.Offsets) != len(p.Buffers) {
		return nil, fmt.Errorf("run: layout has %d offsets for %d buffers", len(l.Plan.Offsets), len(p.Buffers))
	}
	align := max(l.Align, minAlign)
	if align&(align-1) != 0 {
		return nil, fmt.Errorf("run: alignment %d is not a power of two", l.Align)
	}
	size := l.Plan.Size
	if size < 0 {
		return nil, fmt.Errorf("run: negative arena size %d", size)
	}
	m := &Machine{p: p, l: l}
	m.mem = make([]uint64, (size+align+7)/8)
	base := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(m.mem))), len(m.mem)*8)
	off := int(-uintptr(unsafe.Pointer(unsafe.SliceData(base))) & uintptr(align-1))
	m.arena = base[off : off+size : off+size]

	for i, b := range p.Buffers {
		if o := l.Plan.Offsets[i]; o < 0 || o+b.Size > size {
			return nil, fmt.Errorf("run: buffer %d %q (%d bytes at %d) outside the %d-byte arena", i, b.Name, b.Size, o, size)
		}
		if b.Reset >= 0 && b.Size > 0 {
			if b.Reset > 255 {
				return nil, fmt.Errorf("run: buffer %d %q: reset value %d is not a byte", i, b.Name, b.Reset)
			}
			m.resets = append(m.resets, reset{l.Plan.Offsets[i], b.Size, byte(b.Reset)})
		}
		m.needsInit = m.needsInit || b.Reset > 0
	}
	for _, k := range [][]int{p.Graph.Inputs, p.Graph.Outputs} {
		for _, ti := range k {
			if _, err := m.tensorBytes(ti); err != nil {
				return nil, err
			}
		}
	}
	steps, err := m.prepareOps(p.Ops, true)
	if err != nil {
		return nil, err
	}
	m.steps = steps
	return m, nil
}

// prepareOps prepares the calls and control flow of ops, recursively; top
// says ops are the program's own (subgraph 0), where fused groups run their
// calls, loops unrolled, at their first operator.
func (m *Machine) prepareOps(ops []program.Op, top bool) ([]step, error) {
	var out []step
	for _, op := range ops {
		calls := op.Calls
		if top {
			if g := m.p.GroupOf(op.Index); g != nil {
				if len(calls) > 0 {
					return nil, fmt.Errorf("run: operator %d (%s) of a fused group has calls of its own", op.Index, op.Code)
				}
				if g.First == op.Index {
					for _, s := range g.Expand() {
						calls = append(calls, s.Call)
					}
				}
			}
		}
		for _, c := range calls {
			args, err := m.prepare(c)
			if err != nil {
				return nil, fmt.Errorf("run: operator %d (%s): kernel %s: %w", op.Index, op.Code, c.Fn, err)
			}
			out = append(out, step{call: &call{op.Index, c.Fn, args}})
		}
		if f := op.Flow; f != nil {
			if f.Cond.Type.Size() != 1 || f.Cond.N < 1 {
				return nil, fmt.Errorf("run: operator %d (%s): condition is not a byte view", op.Index, op.Code)
			}
			if _, err := m.view(f.Cond); err != nil {
				return nil, fmt.Errorf("run: operator %d (%s): condition: %w", op.Index, op.Code, err)
			}
			want := map[program.FlowKind]int{program.FlowOnce: 1, program.FlowIf: 2, program.FlowWhile: 2}[f.Kind]
			if want == 0 || len(f.Blocks) != want {
				return nil, fmt.Errorf("run: operator %d (%s): flow kind %d with %d blocks", op.Index, op.Code, f.Kind, len(f.Blocks))
			}
			fs := &flowStep{kind: f.Kind, cond: m.l.Offset(f.Cond.Buf)}
			for _, b := range f.Blocks {
				bs, err := m.prepareOps(b.Ops, false)
				if err != nil {
					return nil, err
				}
				fs.blocks = append(fs.blocks, bs)
			}
			out = append(out, step{flow: fs})
		}
	}
	return out, nil
}

// Input returns the raw little-endian bytes of graph input i, a view into
// the arena: write the input there before Invoke. It panics if i is out of
// range.
func (m *Machine) Input(i int) []byte {
	b, err := m.tensorBytes(m.p.Graph.Inputs[i])
	if err != nil {
		panic(err) // checked by New
	}
	return b
}

// Output returns the raw little-endian bytes of graph output i, a view into
// the arena valid until the next Invoke. It panics if i is out of range.
func (m *Machine) Output(i int) []byte {
	b, err := m.tensorBytes(m.p.Graph.Outputs[i])
	if err != nil {
		panic(err) // checked by New
	}
	return b
}

// Reset restores the persistent state (recurrent state and the like) to its
// initial value, as the generated Model's Reset does.
func (m *Machine) Reset() {
	for _, r := range m.resets {
		s := m.arena[r.off : r.off+r.n]
		if r.fill == 0 {
			clear(s)
			continue
		}
		for i := range s {
			s[i] = r.fill
		}
	}
	if m.needsInit {
		m.ready = true
	}
}

// Invoke runs the program once on the current inputs: every kernel call in
// order, after Reset on the first Invoke when persistent state starts
// non-zero (as in the generated Invoke). A kernel that panics panics here.
func (m *Machine) Invoke() {
	if m.needsInit && !m.ready {
		m.Reset()
	}
	m.exec(m.steps)
}

// exec runs steps as the generated code does: kernel calls in order, and
// control flow as Go statements (program.FlowKind).
func (m *Machine) exec(steps []step) {
	for _, s := range steps {
		if c := s.call; c != nil {
			if !kernels.Call(c.fn, c.args) {
				panic(fmt.Sprintf("run: operator %d: kernels.Call does not know %s", c.op, c.fn))
			}
			continue
		}
		f := s.flow
		switch f.kind {
		case program.FlowOnce:
			if m.arena[f.cond] == 0 {
				m.exec(f.blocks[0])
				m.arena[f.cond] = 1
			}
		case program.FlowIf:
			if m.arena[f.cond] != 0 {
				m.exec(f.blocks[0])
			} else {
				m.exec(f.blocks[1])
			}
		case program.FlowWhile:
			for {
				m.exec(f.blocks[0])
				if m.arena[f.cond] == 0 {
					break
				}
				m.exec(f.blocks[1])
			}
		}
	}
}

// tensorBytes is the arena range of non-constant tensor ti.
func (m *Machine) tensorBytes(ti int) ([]byte, error) {
	if ti < 0 || ti >= len(m.p.Graph.Tensors) {
		return nil, fmt.Errorf("run: tensor index %d out of range", ti)
	}
	b, ok := m.p.TensorBuf[ti]
	if !ok || int(b) < 0 || int(b) >= len(m.p.Buffers) {
		return nil, fmt.Errorf("run: tensor %d has no buffer", ti)
	}
	off, n := m.l.Offset(b), m.p.Graph.Tensors[ti].Bytes()
	if off < 0 || off+n > len(m.arena) {
		return nil, fmt.Errorf("run: tensor %d (%d bytes at %d) outside the %d-byte arena", ti, n, off, len(m.arena))
	}
	return m.arena[off : off+n : off+n], nil
}

// prepare checks call c against the kernel's signature and converts its
// arguments for kernels.Call.
func (m *Machine) prepare(c program.Call) ([]any, error) {
	f := kernelsig.Func(c.Fn)
	params, ok := f.Params()
	if !ok {
		return nil, fmt.Errorf("no such kernel function")
	}
	if f.Results() != 0 {
		return nil, fmt.Errorf("a function with results is not a program step")
	}
	vals := make([]kernelsig.Value, len(c.Args))
	for i, a := range c.Args {
		v, err := m.value(a)
		if err != nil {
			return nil, fmt.Errorf("argument %d: %w", i+1, err)
		}
		vals[i] = v
	}
	if err := kernelsig.Check(f, vals); err != nil {
		return nil, err
	}
	args := make([]any, len(c.Args))
	for i, a := range c.Args {
		if strings.HasPrefix(params[i].Type, "...") {
			return nil, fmt.Errorf("variadic parameter %s is not callable through kernels.Call", params[i].Name)
		}
		v, err := m.convert(a, params[i].Type)
		if err != nil {
			return nil, fmt.Errorf("parameter %s (argument %d): %w", params[i].Name, i+1, err)
		}
		args[i] = v
	}
	return args, nil
}

// value describes argument a as kernelsig checks it: its Go type as the
// generated code renders it.
func (m *Machine) value(a program.Arg) (kernelsig.Value, error) {
	switch a := a.(type) {
	case program.View:
		t, err := viewType(a.Type, a.Raw)
		return kernelsig.Value{Kind: kernelsig.Typed, Type: t}, err
	case program.ConstTensor:
		t, err := m.constTensor(a.Tensor)
		if err != nil {
			return kernelsig.Value{}, err
		}
		switch {
		case a.String:
			return kernelsig.Value{Kind: kernelsig.Typed, Type: "string"}, nil
		case a.Raw || t.Type == model.Uint8 || t.Type == model.Bool:
			return kernelsig.Value{Kind: kernelsig.Typed, Type: "[]uint8"}, nil
		}
		return kernelsig.Value{Kind: kernelsig.Typed, Type: "[]int8"}, nil
	case program.ConstTable:
		if a.Index < 0 || a.Index >= len(m.p.Consts) {
			return kernelsig.Value{}, fmt.Errorf("constant table %d out of range", a.Index)
		}
		switch {
		case a.Bytes && a.Unsigned:
			return kernelsig.Value{Kind: kernelsig.Typed, Type: "[]uint8"}, nil
		case a.Bytes:
			return kernelsig.Value{Kind: kernelsig.Typed, Type: "[]int8"}, nil
		}
		return kernelsig.Value{Kind: kernelsig.Typed, Type: "string"}, nil
	case program.Lit:
		switch a.Value.(type) {
		case int, int32, int64:
			return kernelsig.Value{Kind: kernelsig.UntypedInt}, nil
		case float32, float64:
			return kernelsig.Value{Kind: kernelsig.UntypedFloat}, nil
		case bool:
			return kernelsig.Value{Kind: kernelsig.UntypedBool}, nil
		}
		return kernelsig.Value{}, fmt.Errorf("unsupported literal %T", a.Value)
	case program.Struct:
		v := kernelsig.Value{Kind: kernelsig.StructPtr, Struct: kernelsig.Struct(a.Type)}
		for _, f := range a.Fields {
			fv, err := m.value(f.Value)
			if err != nil {
				return kernelsig.Value{}, fmt.Errorf("field %s of %s: %w", f.Name, a.Type, err)
			}
			v.Fields = append(v.Fields, kernelsig.Field{Name: f.Name, Value: fv})
		}
		return v, nil
	}
	return kernelsig.Value{}, fmt.Errorf("unknown argument %T", a)
}

// convert turns argument a, already checked against Go type want, into the
// value kernels.Call or kernels.NewParams takes for want.
func (m *Machine) convert(a program.Arg, want string) (any, error) {
	switch a := a.(type) {
	case program.View:
		return m.view(a)
	case program.ConstTensor:
		t := m.p.Graph.Tensors[a.Tensor]
		switch {
		case a.String:
			return string(t.Data), nil
		case a.Raw || t.Type == model.Uint8 || t.Type == model.Bool:
			return append([]uint8{}, t.Data...), nil
		}
		// A copy, so that a kernel writing its constant cannot change the
		// graph (the generated code would fault on flash instead).
		out := make([]int8, len(t.Data))
		for i, b := range t.Data {
			out[i] = int8(b)
		}
		return out, nil
	case program.ConstTable:
		d := m.p.Consts[a.Index].Data
		switch {
		case a.Bytes && a.Unsigned:
			return append([]uint8{}, d...), nil
		case a.Bytes:
			out := make([]int8, len(d))
			for i, b := range d {
				out[i] = int8(b)
			}
			return out, nil
		}
		return string(d), nil
	case program.Lit:
		return literal(a.Value, want)
	case program.Struct:
		fs, _ := kernelsig.Struct(a.Type).Fields() // checked
		fields := make(map[string]any, len(a.Fields))
		for _, f := range a.Fields {
			typ := ""
			for _, p := range fs {
				if p.Name == f.Name {
					typ = p.Type
				}
			}
			v, err := m.convert(f.Value, typ)
			if err != nil {
				return nil, fmt.Errorf("field %s of %s: %w", f.Name, a.Type, err)
			}
			fields[f.Name] = v
		}
		p := kernels.NewParams(a.Type, fields)
		if p == nil {
			return nil, fmt.Errorf("kernels.NewParams does not know %s or one of its fields", a.Type)
		}
		return p, nil
	}
	return nil, fmt.Errorf("unknown argument %T", a)
}

func (m *Machine) constTensor(ti int) (*model.Tensor, error) {
	if ti < 0 || ti >= len(m.p.Graph.Tensors) {
		return nil, fmt.Errorf("tensor index %d out of range", ti)
	}
	t := m.p.Graph.Tensors[ti]
	if !t.IsConst() {
		return nil, fmt.Errorf("tensor %d %q passed as a constant but has no data", ti, t.Name)
	}
	return t, nil
}

// viewType is the Go slice type of an arena view.
func viewType(dt model.DType, raw bool) (string, error) {
	// A raw view is bytes: any type of known element size (uint32 for
	// CAST) has one, typed views only the kernels' element types.
	if raw && dt.Size() > 0 {
		return "[]uint8", nil
	}
	g := program.GoType(dt)
	if g == "" || raw {
		return "", fmt.Errorf("no arena view for type %s", dt)
	}
	return "[]" + g, nil
}

// view is the typed slice of the arena a View names, like the generated
// a.i8(off, n) (length and capacity n).
func (m *Machine) view(v program.View) (any, error) {
	if int(v.Buf) < 0 || int(v.Buf) >= len(m.p.Buffers) {
		return nil, fmt.Errorf("buffer %d out of range", v.Buf)
	}
	if _, err := viewType(v.Type, v.Raw); err != nil {
		return nil, err
	}
	off, n, size := m.l.Offset(v.Buf), v.N, v.Type.Size()
	if v.Step != 0 || v.Off < 0 || n < 0 || (v.Off+n)*size > m.p.Buffers[v.Buf].Size {
		return nil, fmt.Errorf("view of %d %s at element %d (step %d) outside its %d-byte buffer %d", n, v.Type, v.Off, v.Step, m.p.Buffers[v.Buf].Size, v.Buf)
	}
	off += v.Off * size
	if n < 0 || off < 0 || off+n*size > len(m.arena) {
		return nil, fmt.Errorf("view of %d %s at %d outside the %d-byte arena", n, v.Type, off, len(m.arena))
	}
	if off%size != 0 && !v.Raw {
		return nil, fmt.Errorf("view of %s at offset %d is misaligned", v.Type, off)
	}
	b := m.arena[off : off+n*size : off+n*size]
	if v.Raw {
		return b, nil
	}
	switch v.Type {
	case model.Int8:
		return sliceOf[int8](b, n), nil
	case model.Uint8, model.Bool:
		return b, nil
	case model.Int16:
		return sliceOf[int16](b, n), nil
	case model.Int32:
		return sliceOf[int32](b, n), nil
	case model.Int64:
		return sliceOf[int64](b, n), nil
	case model.Float32:
		return sliceOf[float32](b, n), nil
	}
	return nil, fmt.Errorf("no arena view for type %s", v.Type)
}

// sliceOf reinterprets b as n values of T.
func sliceOf[T any](b []byte, n int) []T {
	if n == 0 {
		return []T{}
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// literal converts an untyped-constant literal to the dispatch's form for a
// parameter of Go type want: int64 for integers, float64 for floats, bool.
// An integer that does not fit want is an error, as it would not compile.
func literal(v any, want string) (any, error) {
	switch want {
	case "float32", "float64":
		switch v := v.(type) {
		case int:
			return float64(v), nil
		case int32:
			return float64(v), nil
		case int64:
			return float64(v), nil
		case float32:
			return float64(v), nil
		case float64:
			return v, nil
		}
	case "bool":
		if b, ok := v.(bool); ok {
			return b, nil
		}
	default:
		var i int64
		switch v := v.(type) {
		case int:
			i = int64(v)
		case int32:
			i = int64(v)
		case int64:
			i = v
		default:
			return nil, fmt.Errorf("literal %v (%T) for a %s", v, v, want)
		}
		lo, hi, ok := intRange(want)
		if !ok {
			return nil, fmt.Errorf("literal %d for a %s", i, want)
		}
		if i < lo || i > hi {
			return nil, fmt.Errorf("literal %d overflows %s", i, want)
		}
		return i, nil
	}
	return nil, fmt.Errorf("literal %v (%T) for a %s", v, v, want)
}

// intRange is the range of an integer type that an int64 can hold (hi is
// capped at MaxInt64).
func intRange(t string) (lo, hi int64, ok bool) {
	switch t {
	case "int8":
		return math.MinInt8, math.MaxInt8, true
	case "int16":
		return math.MinInt16, math.MaxInt16, true
	case "int32", "rune":
		return math.MinInt32, math.MaxInt32, true
	case "int", "int64":
		return math.MinInt64, math.MaxInt64, true
	case "uint8", "byte":
		return 0, math.MaxUint8, true
	case "uint16":
		return 0, math.MaxUint16, true
	case "uint32":
		return 0, math.MaxUint32, true
	case "uint", "uint64", "uintptr":
		return 0, math.MaxInt64, true
	}
	return 0, 0, false
}
