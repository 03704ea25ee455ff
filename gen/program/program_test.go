package program

import (
	"reflect"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/planner"
)

// graph returns a graph of n tensors (only their count matters to
// UsedTensors, which lists indices of g.Tensors).
func graph(n int) *model.Graph {
	g := &model.Graph{Name: "hand.tflite"}
	for i := range n {
		g.Tensors = append(g.Tensors, &model.Tensor{Index: i, Type: model.Int8, Shape: []int{4}, Data: make([]byte, 4)})
	}
	return g
}

func TestUsedTensors(t *testing.T) {
	tests := []struct {
		name string
		ops  []Op
		want []int
	}{
		{name: "no operators", want: []int{}},
		{name: "views only", ops: []Op{{Calls: nil}}, want: []int{}},
		{
			// Tensors 6, 1 and 3 are passed (6 twice, in two calls of two
			// operators); the result is ascending and without duplicates.
			// View.Buf 2 is a buffer id and ConstTable.Index 5 an index
			// into Consts: neither is a tensor, so 2 and 5 are absent.
			// Tensor 3 is only reached inside a Struct inside a Struct, 1
			// inside one Struct level.
			name: "ascending, deduplicated, through structs",
			ops: []Op{
				{Index: 0, Calls: []Call{
					{Fn: "convInt8", Args: []Arg{
						View{Buf: 2, Type: model.Int8, N: 4},
						ConstTensor{Tensor: 6},
						ConstTable{Index: 5},
						Struct{Type: "ConvParams", Fields: []Field{
							{Name: "W", Value: ConstTensor{Tensor: 1, String: true}},
							{Name: "Z", Value: Lit{Value: int32(-128)}},
							{Name: "Inner", Value: Struct{Type: "Q", Fields: []Field{
								{Name: "T", Value: ConstTensor{Tensor: 3, Raw: true}},
							}}},
						}},
					}},
				}},
				{Index: 1},
				{Index: 2, Calls: []Call{
					{Fn: "a", Args: []Arg{Lit{Value: 7}}},
					{Fn: "b", Args: []Arg{ConstTensor{Tensor: 6}, Lit{Value: true}}},
				}},
			},
			want: []int{1, 3, 6},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &Program{Graph: graph(8), Ops: tc.ops}
			got := p.UsedTensors()
			if got == nil {
				got = []int{}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("UsedTensors = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestBytes(t *testing.T) {
	p := &Program{Buffers: []Buffer{
		{Buffer: planner.Buffer{Name: "a", Size: 100, Kind: planner.Activation}},
		{Buffer: planner.Buffer{Name: "s", Size: 40, Kind: planner.Scratch}},
		{Buffer: planner.Buffer{Name: "b", Size: 7, Kind: planner.Activation}},
		{Buffer: planner.Buffer{Name: "z", Size: 0, Kind: planner.Activation}},
		{Buffer: planner.Buffer{Name: "s2", Size: 3, Kind: planner.Scratch}},
	}}
	// Sizes are summed unaligned: activations 100+7+0, scratch 40+3, and
	// no persistent buffer at all.
	for _, tc := range []struct {
		kind planner.Kind
		want int
	}{
		{planner.Activation, 107},
		{planner.Scratch, 43},
		{planner.Persistent, 0},
	} {
		if got := p.Bytes(tc.kind); got != tc.want {
			t.Errorf("Bytes(%v) = %d, want %d", tc.kind, got, tc.want)
		}
	}
	if got := (&Program{}).Bytes(planner.Activation); got != 0 {
		t.Errorf("Bytes of an empty program = %d, want 0", got)
	}
}

func TestPlannerBuffers(t *testing.T) {
	bufs := []planner.Buffer{
		{Name: "x", Size: 16, First: 0, Last: 2, Kind: planner.Activation},
		{Name: "s", Size: 8, First: 1, Last: 1, Kind: planner.Scratch},
		{Name: "p", Size: 4, First: 0, Last: 3, Kind: planner.Persistent},
	}
	p := &Program{}
	for i, b := range bufs {
		p.Buffers = append(p.Buffers, Buffer{Buffer: b, Tensors: []int{i}, Reset: -1, Op: i})
	}
	if got := p.PlannerBuffers(); !reflect.DeepEqual(got, bufs) {
		t.Errorf("PlannerBuffers = %+v, want %+v (BufID order)", got, bufs)
	}
}

func TestMACs(t *testing.T) {
	tests := []struct {
		macs []int64
		want int64
	}{
		{nil, 0},
		{[]int64{0, 0}, 0},
		{[]int64{1000, 0, 24}, 1024},
		// A total above 2^31 must not wrap: 3 * 2^31 = 6442450944.
		{[]int64{1 << 31, 1 << 31, 1 << 31}, 6442450944},
	}
	for _, tc := range tests {
		p := &Program{}
		for i, m := range tc.macs {
			p.Ops = append(p.Ops, Op{Index: i, MACs: m})
		}
		if got := p.MACs(); got != tc.want {
			t.Errorf("MACs of %v = %d, want %d", tc.macs, got, tc.want)
		}
	}
}

func TestOpNames(t *testing.T) {
	// Names are the schema's BuiltinOperator names (CONV_2D = 3,
	// RESHAPE = 22, FULLY_CONNECTED = 9); a code without a name renders
	// as OP_<code>.
	p := &Program{Ops: []Op{
		{Index: 0, Code: model.OpConv2D},
		{Index: 1, Code: model.OpReshape},
		{Index: 2, Code: model.OpFullyConnected},
		{Index: 3, Code: model.OpCode(9999)},
	}}
	want := []string{"CONV_2D", "RESHAPE", "FULLY_CONNECTED", "OP_9999"}
	if got := p.OpNames(); !reflect.DeepEqual(got, want) {
		t.Errorf("OpNames = %q, want %q", got, want)
	}
	if got := (&Program{}).OpNames(); len(got) != 0 {
		t.Errorf("OpNames of no operators = %q, want none", got)
	}
}

func TestGoType(t *testing.T) {
	// The Go element types of the typed Input/Output views: bool tensors
	// are bytes (uint8); types without a view in the generated API
	// (float16, float64, string, uint16, uint32, int4) give "".
	tests := []struct {
		dt   model.DType
		want string
	}{
		{model.Int8, "int8"},
		{model.Uint8, "uint8"},
		{model.Bool, "uint8"},
		{model.Int16, "int16"},
		{model.Int32, "int32"},
		{model.Int64, "int64"},
		{model.Float32, "float32"},
		{model.Float16, ""},
		{model.Float64, ""},
		{model.String, ""},
		{model.Uint16, ""},
		{model.Uint32, ""},
		{model.Int4, ""},
		{model.DType(200), ""},
	}
	for _, tc := range tests {
		if got := GoType(tc.dt); got != tc.want {
			t.Errorf("GoType(%v) = %q, want %q", tc.dt, got, tc.want)
		}
	}
}

// TestWithoutUnusedConsts: tables no call reads are dropped, the others
// renumbered wherever a call reads them (arguments, struct fields, control
// flow blocks, fused groups), and the original program is left as it was.
func TestWithoutUnusedConsts(t *testing.T) {
	tab := func(i int) ConstTable { return ConstTable{Index: i} }
	p := &Program{
		Consts: []Const{{Hint: "A", Data: []byte{1}}, {Hint: "B", Data: []byte{2}}, {Hint: "C", Data: []byte{3}}, {Hint: "D", Data: []byte{4}}},
		Ops: []Op{
			{Calls: []Call{{Fn: "f", Args: []Arg{tab(1), Struct{Type: "s", Fields: []Field{{Name: "t", Value: tab(3)}}}}}}},
			{Flow: &Flow{Blocks: []Block{{Ops: []Op{{Calls: []Call{{Fn: "g", Args: []Arg{tab(3)}}}}}}}}},
		},
		Groups: []Group{{Body: []Step{{Call: Call{Fn: "h", Args: []Arg{tab(1), Lit{Value: 2}}}}}}},
	}
	q := p.WithoutUnusedConsts()
	if got := []string{q.Consts[0].Hint, q.Consts[1].Hint}; len(q.Consts) != 2 || got[0] != "B" || got[1] != "D" {
		t.Fatalf("consts %v, want B and D", q.Consts)
	}
	for _, c := range []struct {
		name      string
		got, want Arg
	}{
		{"operator argument", q.Ops[0].Calls[0].Args[0], tab(0)},
		{"struct field", q.Ops[0].Calls[0].Args[1].(Struct).Fields[0].Value, tab(1)},
		{"control flow block", q.Ops[1].Flow.Blocks[0].Ops[0].Calls[0].Args[0], tab(1)},
		{"fused group", q.Groups[0].Body[0].Call.Args[0], tab(0)},
		{"original argument", p.Ops[0].Calls[0].Args[0], tab(1)},
		{"original struct field", p.Ops[0].Calls[0].Args[1].(Struct).Fields[0].Value, tab(3)},
		{"original block", p.Ops[1].Flow.Blocks[0].Ops[0].Calls[0].Args[0], tab(3)},
		{"original group", p.Groups[0].Body[0].Call.Args[0], tab(1)},
	} {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
	if len(p.Consts) != 4 {
		t.Errorf("the original program lost tables: %d", len(p.Consts))
	}
	if r := (&Program{}).WithoutUnusedConsts(); len(r.Consts) != 0 {
		t.Errorf("empty program: %v", r.Consts)
	}
}

// TestSameTables: each table maps to the first with its data.
func TestSameTables(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []string
		want []int
	}{
		{"none", nil, []int{}},
		{"distinct", []string{"a", "b", "c"}, []int{0, 1, 2}},
		{"repeats", []string{"a", "b", "a", "b", "a"}, []int{0, 1, 0, 1, 0}},
		{"empty tables", []string{"", "x", ""}, []int{0, 1, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Program{}
			for i, d := range tc.data {
				p.Consts = append(p.Consts, Const{Hint: "T", Op: i, Data: []byte(d)})
			}
			if got := p.SameTables(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("SameTables() = %v, want %v", got, tc.want)
			}
		})
	}
}
