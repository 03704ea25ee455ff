package lower

import (
	"fmt"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// Resource variables (VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE), as TFLite
// Micro's MicroResourceVariables keeps them: each distinct resource is one
// buffer in the persistent part of the arena, sized by the first
// ASSIGN_VARIABLE that TFLM prepares for it (subgraphs in order, operators in
// order) and filled at Reset with that value's zero point (as an int8 byte;
// 0 when it is not quantized), as TFLM's Allocate and ResetAll do. A
// resource handle (a tensor of type resource) holds no data: which variable
// it names is resolved at generation time from the VAR_HANDLE that produces
// it, so VAR_HANDLE emits no code, READ_VARIABLE is one copy out of the
// variable and ASSIGN_VARIABLE one copy into it.

func init() {
	register(model.OpVarHandle, lowerVarHandle, ownBuffer)
	register(model.OpReadVariable, lowerReadVariable, ownBuffer)
	register(model.OpAssignVariable, lowerAssignVariable, ownBuffer)
}

// resourceVar is one resource variable of the model.
type resourceVar struct {
	container, name string
	hasContainer    bool
	// req is its persistent buffer once an ASSIGN_VARIABLE sized it (nil
	// before: TFLM has no buffer for it either).
	req  *scratchReq
	fill int // the Reset byte
}

func (v *resourceVar) describe() string {
	if v.hasContainer {
		return fmt.Sprintf("resource variable %q (container %q)", v.name, v.container)
	}
	return fmt.Sprintf("resource variable %q", v.name)
}

// lowerState is what the lowerings of one model share across operators and
// subgraphs: the resource variables.
type lowerState struct {
	root *model.Graph // subgraph 0, with the model's other subgraphs
	vars []*resourceVar
	// handle maps each VAR_HANDLE operator to its variable; handleErr holds
	// why one names none.
	handle    map[*model.Op]*resourceVar
	handleErr map[*model.Op]string
	// kernels says which kernels the lowerings may pick (-speed's
	// flash-for-speed variants, gc's or TinyGo's).
	kernels Kernels
	// dus holds, per graph, the DYNAMIC_UPDATE_SLICEs that write in place
	// (dusInPlace), computed at the first one lowered.
	dus map[*model.Graph]map[*model.Op]bool
}

// newLowerState finds the model's resource variables in TFLM's Prepare
// order: VAR_HANDLE creates an id per (container, shared_name), found as
// MicroResourceVariables::FindId does (a VAR_HANDLE without container
// matches any container), and the first ASSIGN_VARIABLE of a variable sizes
// its buffer and sets its reset value.
func newLowerState(g *model.Graph) *lowerState {
	st := &lowerState{root: g, handle: map[*model.Op]*resourceVar{}, handleErr: map[*model.Op]string{}}
	for k := 0; k <= len(g.Subgraphs); k++ {
		sg := g.Subgraph(k)
		for _, op := range sg.Ops {
			switch op.Code {
			case model.OpVarHandle:
				st.varHandle(op)
			case model.OpAssignVariable:
				v := st.varOf(sg, op)
				value := sg.Input(op, 1)
				if v == nil || v.req != nil || value == nil || value.Type.Size() == 0 {
					continue
				}
				v.req = &scratchReq{op: -1, n: len(st.vars), bytes: value.Bytes(), dtype: model.Uint8}
				if q := value.Quant; q != nil && len(q.ZeroPoint) > 0 {
					v.fill = int(uint8(int8(q.ZeroPoint[0])))
				}
			}
		}
	}
	return st
}

func (st *lowerState) varHandle(op *model.Op) {
	o := op.Options()
	opt := o.VarHandle()
	container, hasC := opt.Container, opt.HasContainer
	name, hasN := opt.SharedName, opt.HasSharedName
	switch {
	case o.Err() != nil:
		st.handleErr[op] = o.Err().Error()
		return
	case !hasN:
		// TFLM compares a null shared_name with strcmp.
		st.handleErr[op] = "has no shared_name (TFLite Micro would compare a null name)"
		return
	}
	for _, v := range st.vars {
		if (!hasC || (v.hasContainer && v.container == container)) && v.name == name {
			st.handle[op] = v
			return
		}
		if hasC && !v.hasContainer && v.name == name {
			st.handleErr[op] = fmt.Sprintf("container %q meets %s created without a container (TFLite Micro would compare a null container)", container, v.describe())
			return
		}
	}
	v := &resourceVar{container: container, name: name, hasContainer: hasC}
	st.vars = append(st.vars, v)
	st.handle[op] = v
}

// varOf is the variable named by input 0 of a READ_VARIABLE or
// ASSIGN_VARIABLE in subgraph sg, nil when it is not a VAR_HANDLE's output.
func (st *lowerState) varOf(sg *model.Graph, op *model.Op) *resourceVar {
	if len(op.Inputs) == 0 || op.Inputs[0] < 0 {
		return nil
	}
	p := producer(sg, op.Inputs[0])
	if p == nil || p.Code != model.OpVarHandle {
		return nil
	}
	return st.handle[p]
}

// producer is the operator of g that writes tensor t, nil when none does.
func producer(g *model.Graph, t int) *model.Op {
	for _, op := range g.Ops {
		for _, o := range op.Outputs {
			if o == t {
				return op
			}
		}
	}
	return nil
}

func lowerVarHandle(c *opCtx) error {
	if c.NumIn() != 0 || c.NumOut() != 1 {
		return c.Errorf("has %d inputs and %d outputs, want 0 and 1", c.NumIn(), c.NumOut())
	}
	if out := c.Out(0); out.Type != model.Resource {
		return c.Errorf("output %s is not a resource handle", out.Describe())
	}
	if why, bad := c.st.handleErr[c.Op]; bad {
		return c.Errorf("%s", why)
	}
	return nil
}

// variable checks input 0 of READ_VARIABLE or ASSIGN_VARIABLE: a resource
// handle of one element from a VAR_HANDLE of the same subgraph (handles
// passed between subgraphs are not supported), whose variable some
// ASSIGN_VARIABLE sizes.
func (c *opCtx) variable() (*resourceVar, error) {
	h := c.In(0)
	if h == nil || h.Type != model.Resource || h.NumElements() != 1 {
		return nil, c.Errorf("input 0 must be a resource handle of one element")
	}
	v := c.st.varOf(c.G, c.Op)
	if v == nil {
		return nil, c.Errorf("input 0 %s does not come from a VAR_HANDLE of the same subgraph (resource handles passed between subgraphs are not supported)", h.Describe())
	}
	if v.req == nil {
		return nil, c.Errorf("%s is never assigned: TFLite Micro gives it no buffer", v.describe())
	}
	return v, nil
}

func lowerReadVariable(c *opCtx) error {
	if c.NumIn() != 1 || c.NumOut() != 1 {
		return c.Errorf("has %d inputs and %d outputs, want 1 and 1", c.NumIn(), c.NumOut())
	}
	v, err := c.variable()
	if err != nil {
		return err
	}
	out := c.Out(0)
	if program.GoType(out.Type) == "" {
		return c.Errorf("output type %s is not supported", out.Type)
	}
	if out.Bytes() != v.req.bytes {
		// TFLM only DCHECKs this and copies the variable's size.
		return c.Errorf("output %s has %d bytes, %s has %d", out.Describe(), out.Bytes(), v.describe(), v.req.bytes)
	}
	c.Call(kernelsig.CopyBytes, Bytes(out), reqArg{v.req})
	return nil
}

func lowerAssignVariable(c *opCtx) error {
	if c.NumIn() != 2 || c.NumOut() != 0 {
		return c.Errorf("has %d inputs and %d outputs, want 2 and 0", c.NumIn(), c.NumOut())
	}
	v, err := c.variable()
	if err != nil {
		return err
	}
	val := c.In(1)
	if val == nil || program.GoType(val.Type) == "" {
		return c.Errorf("value must be a tensor of a supported type")
	}
	if val.Bytes() != v.req.bytes {
		// TFLM only DCHECKs this and copies the variable's size.
		return c.Errorf("value %s has %d bytes, %s has %d (sized by its first ASSIGN_VARIABLE)", val.Describe(), val.Bytes(), v.describe(), v.req.bytes)
	}
	if val.IsConst() {
		c.Call(kernelsig.CopyConst, reqArg{v.req}, Str(val))
	} else {
		c.Call(kernelsig.CopyBytes, reqArg{v.req}, Bytes(val))
	}
	return nil
}
