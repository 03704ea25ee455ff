package emit

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/gen/report"
)

// Stack figures of the TinyGo 0.40 build for the Cortex-M4 (-opt=z), in
// bytes, set from measurements of the reference models and the grid
// (internal/devtools/stacktable; TestOnTheBoard checks
// them on the board):
const (
	// stackInvoke is Invoke's own frame and the call into it.
	stackInvoke = 48
	// stackOpFrame is an operator function's frame besides its parameter
	// blocks: saved registers, stack arguments, spills.
	stackOpFrame = 96
	// stackGroupFrame is the same for a fused group's loop.
	stackGroupFrame = 160
	// stackReset bounds Reset's stack (a few copies and fills).
	stackReset = 64
)

// StackOf bounds the stack the package of p takes on the board. Invoke
// calls one function per operator (or fused group), which calls its
// kernels, each a function of its own (//go:noinline), so the deepest call
// is an operator function's frame plus its deepest kernel's: the kernels'
// from the measured table (kernelsig.StackBytes), the operator function's
// from its parameter blocks and the measured overhead above.
func StackOf(p *program.Program) report.Stack {
	deepestKernel := 0
	for _, f := range kernelsig.Funcs() {
		if n, ok := kernelsig.StackBytes(f); ok {
			deepestKernel = max(deepestKernel, n)
		}
	}
	st := report.Stack{Bytes: stackReset, Op: -1}
	unmeasured := map[string]bool{}
	fn := func(op int, calls []program.Call, frame int) {
		structs := map[string]bool{}
		kernel := 0
		for _, c := range calls {
			n, ok := kernelsig.StackBytes(kernelsig.Func(c.Fn))
			if !ok {
				unmeasured[c.Fn] = true
				n = deepestKernel
			}
			kernel = max(kernel, n)
			for _, a := range c.Args {
				if s, ok := a.(program.Struct); ok {
					key := fmt.Sprintf("%#v", s)
					if !structs[key] {
						structs[key] = true
						frame += structBytes(s.Type)
					}
				}
			}
		}
		if n := stackInvoke + frame + kernel; n > st.Bytes {
			st.Bytes, st.Op = n, op
		}
	}
	for _, op := range p.Ops {
		if g := p.GroupOf(op.Index); g != nil {
			if g.First == op.Index {
				fn(op.Index, g.StepCalls(), stackGroupFrame)
			}
			continue
		}
		var calls []program.Call
		program.Walk([]program.Op{op}, func(o *program.Op) { calls = append(calls, o.Calls...) })
		if len(calls) > 0 {
			fn(op.Index, calls, stackOpFrame)
		}
	}
	for k := range unmeasured {
		st.Unmeasured = append(st.Unmeasured, k)
	}
	sort.Strings(st.Unmeasured)
	return st
}

// structBytes is the size of a kernel parameter struct on a 32-bit target
// under TinyGo (int and pointers 4 bytes, 64-bit fields 8-byte aligned).
func structBytes(s string) int {
	fields, ok := kernelsig.Struct(s).Fields()
	if !ok {
		return 64
	}
	off, align := 0, 1
	for _, f := range fields {
		n, a := typeBytes(f.Type)
		off = (off + a - 1) / a * a
		off += n
		align = max(align, a)
	}
	return (off + align - 1) / align * align
}

// typeBytes is the size and alignment of a field type on a 32-bit target.
func typeBytes(t string) (size, align int) {
	switch {
	case strings.HasPrefix(t, "[]"):
		return 12, 4
	case strings.HasPrefix(t, "*"), t == "unsafe.Pointer", t == "int", t == "uint", t == "int32", t == "uint32", t == "float32", t == "uintptr":
		return 4, 4
	case t == "string":
		return 8, 4
	case t == "int64", t == "uint64", t == "float64":
		return 8, 8
	case t == "int16", t == "uint16":
		return 2, 2
	case t == "int8", t == "uint8", t == "byte", t == "bool":
		return 1, 1
	case strings.HasPrefix(t, "["):
		i := strings.Index(t, "]")
		n, err := strconv.Atoi(t[1:i])
		if err != nil {
			return 64, 4
		}
		s, a := typeBytes(t[i+1:])
		return n * s, a
	}
	if fields, ok := kernelsig.Struct(t).Fields(); ok && len(fields) > 0 {
		return structBytes(t), 8
	}
	return 16, 4
}
