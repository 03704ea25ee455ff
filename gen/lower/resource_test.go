package lower

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/run"
	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/devtools/oracle"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// varHandle adds VAR_HANDLE(shared_name) to m and returns its handle tensor.
func varHandle(m *builder.Model, name string) int {
	h := m.Tensor(name+"/handle", model.Resource, []int{}, nil)
	o := builder.Options{Type: model.UnionVarHandleOptions}.String(model.VarHandleOptionsSharedName, name)
	m.Op(model.OpVarHandle, nil, []int{h}, &o)
	return h
}

// machine lowers, plans and prepares a model for several Invokes.
func machine(data []byte) (*run.Machine, error) {
	g, err := model.Parse("case.tflite", data)
	if err != nil {
		return nil, err
	}
	p, err := testProgram(g)
	if err != nil {
		return nil, err
	}
	lay, err := layout.Make(p, nil, layout.Options{})
	if err != nil {
		return nil, err
	}
	return run.New(p, lay)
}

// delayModel is y = the previous Invoke's x, through a resource variable:
// READ_VARIABLE before ASSIGN_VARIABLE in one subgraph.
func delayModel(dt model.DType, q *builder.Quant, shape []int) []byte {
	m := builder.New("delay")
	x := m.Tensor("x", dt, shape, q)
	y := m.Tensor("y", dt, shape, q)
	h := varHandle(m, "state")
	m.Op(model.OpReadVariable, []int{h}, []int{y}, nil)
	h2 := varHandle(m, "state") // the same variable through a second handle
	m.Op(model.OpAssignVariable, []int{h2, x}, nil, nil)
	m.IO([]int{x}, []int{y})
	return m.Bytes()
}

// TestResourceVariables runs the delay line over several Invokes and a
// Reset: the variable starts as TFLM's MicroResourceVariables::Allocate
// fills it (the value's zero point as an int8 byte, else 0), READ_VARIABLE
// gives the value of the previous ASSIGN_VARIABLE, and Reset (ResetAll)
// restores the fill. TFLM itself cannot be run on these models: the oracle
// passes no MicroResourceVariables to its interpreter, so VAR_HANDLE's
// Prepare fails (TestResourceVariablesOracle).
func TestResourceVariables(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 13))
	for _, tc := range []struct {
		dt   model.DType
		q    *builder.Quant
		fill byte
	}{
		{model.Float32, nil, 0},
		{model.Int32, nil, 0},
		{model.Int16, builder.PerTensor(0.5, 0), 0},
		{model.Int8, builder.PerTensor(0.25, -128), 0x80},
		{model.Int8, builder.PerTensor(0.25, 5), 5},
		{model.Bool, nil, 0},
	} {
		t.Run("ASSIGN_VARIABLE_"+tc.dt.String(), func(t *testing.T) {
			shape := []int{2, 3}
			m, err := machine(delayModel(tc.dt, tc.q, shape))
			if err != nil {
				t.Fatal(err)
			}
			fill := bytes.Repeat([]byte{tc.fill}, 6*tc.dt.Size())
			prev := fill
			for i := 0; i < 4; i++ {
				if i == 3 {
					m.Reset()
					prev = fill
				}
				x := difftest.RandVals(r, tc.dt, 6).Raw()
				copy(m.Input(0), x)
				m.Invoke()
				if got := m.Output(0); !bytes.Equal(got, prev) {
					t.Fatalf("invoke %d: got %v, want %v", i, got, prev)
				}
				prev = x
			}
		})
	}
}

// TestResourceVariablesOracle records what TFLM does with a resource
// variable model: tflm_ref passes no MicroResourceVariables to its
// MicroInterpreter, so VAR_HANDLE's Prepare fails. When the oracle gains a
// store, this test fails and the delay line can be compared with TFLM.
func TestResourceVariablesOracle(t *testing.T) {
	o := oracle.New(t)
	_, err := o.Run(delayModel(model.Float32, nil, []int{3}), []string{"1", "2", "3"})
	oracle.SkipIfNotRecorded(t, err, "float32 delay line")
	if !errors.Is(err, oracle.ErrRejected) || !strings.Contains(err.Error(), "VAR_HANDLE requires resource variables") {
		t.Fatalf("TFLM oracle: %v; want the rejection of VAR_HANDLE without a resource store", err)
	}
}

// TestResourceVariablesRefused: models TFLM would run with undefined
// behaviour (reads of a variable no ASSIGN_VARIABLE sizes, copies of another
// size, handles without a name) are refused, naming the operator.
func TestResourceVariablesRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		code model.OpCode
		want string
		mk   func(m *builder.Model, x, y int)
	}{
		{"never assigned", model.OpReadVariable, "is never assigned", func(m *builder.Model, x, y int) {
			h := varHandle(m, "v")
			m.Op(model.OpReadVariable, []int{h}, []int{y}, nil)
		}},
		{"read size", model.OpReadVariable, "has 12 bytes", func(m *builder.Model, x, y int) {
			h := varHandle(m, "v")
			small := m.Tensor("small", model.Float32, []int{2}, nil)
			m.Op(model.OpAssignVariable, []int{h, m.ConstF32("c", []int{2}, []float32{1, 2})}, nil, nil)
			m.Op(model.OpReadVariable, []int{h}, []int{y}, nil)
			_ = small
		}},
		{"assign size", model.OpAssignVariable, "sized by its first ASSIGN_VARIABLE", func(m *builder.Model, x, y int) {
			h := varHandle(m, "v")
			m.Op(model.OpAssignVariable, []int{h, x}, nil, nil)
			m.Op(model.OpAssignVariable, []int{h, m.ConstF32("c", []int{2}, []float32{1, 2})}, nil, nil)
			m.Op(model.OpReadVariable, []int{h}, []int{y}, nil)
		}},
		{"no shared_name", model.OpVarHandle, "has no shared_name", func(m *builder.Model, x, y int) {
			h := m.Tensor("h", model.Resource, []int{}, nil)
			m.Op(model.OpVarHandle, nil, []int{h}, &builder.Options{Type: model.UnionVarHandleOptions})
			m.Op(model.OpAssignVariable, []int{h, x}, nil, nil)
			m.Op(model.OpReadVariable, []int{h}, []int{y}, nil)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := builder.New(tc.name)
			x := m.Tensor("x", model.Float32, []int{3}, nil)
			y := m.Tensor("y", model.Float32, []int{3}, nil)
			tc.mk(m, x, y)
			m.IO([]int{x}, []int{y})
			_, err := inProcess(m.Bytes(), make([]byte, 12))
			if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "("+tc.code.String()+")") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one naming %s and saying %q", err, tc.code, tc.want)
			}
		})
	}
}
