package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/planner"
)

// handCalls gives handProgram kernel calls: operator 0 reads constant
// tensor 6 (100 bytes) and table 0 (20 bytes), operator 2 reads tensor 6
// again (counted for operator 0 only) and table 1 (12 bytes) inside a
// parameter struct, operator 3 calls two kernels, the second twice.
func handCalls(p *program.Program) {
	p.Graph.Tensors = append(p.Graph.Tensors, &model.Tensor{Index: 6, Name: "w", Type: model.Int8, Shape: []int{100}, Data: make([]byte, 100)})
	p.Consts = []program.Const{{Hint: "RQ", Op: 0, Data: make([]byte, 20)}, {Hint: "Tab", Op: 2, Data: make([]byte, 12)}}
	p.Ops[0].Calls = []program.Call{{Fn: "convA", Args: []program.Arg{program.ConstTensor{Tensor: 6}, program.ConstTable{Index: 0}}}}
	p.Ops[0].MACs = 512
	p.Ops[2].Calls = []program.Call{{Fn: "addB", Args: []program.Arg{program.ConstTensor{Tensor: 6},
		program.Struct{Type: "params", Fields: []program.Field{{Name: "tab", Value: program.ConstTable{Index: 1}}}}}}}
	p.Ops[3].Calls = []program.Call{{Fn: "svdfC"}, {Fn: "svdfD"}, {Fn: "svdfD"}}
}

func TestJSON(t *testing.T) {
	p, l := handProgram(), handLayout()
	handCalls(p)
	p.Graph.Inputs, p.Graph.Outputs = []int{0}, []int{4}
	// A name with JSON's syntax in it, escapes and HTML characters.
	const odd = `in "x":{[1,2]}, \ <&>`
	p.Graph.Tensors[0].Name = odd
	r := Make(p, l, &ConstBytes{Stored: 100, Derived: 32, Model: 400}, &Stack{Bytes: 700, Op: 2}, "")
	b, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte(JSONHead+"\n")) || !json.Valid(b) {
		t.Fatalf("report.json does not start with %q or is not valid JSON:\n%s", JSONHead, b)
	}
	back, err := ParseJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := back.JSON()
	if !bytes.Equal(again, b) {
		t.Errorf("report.json does not survive a round trip:\n%s\n%s", b, again)
	}
	// Operators in execution order: kernels in the order of their first
	// call; constants counted for the first operator that reads them;
	// live bytes the union of the live buffers' ranges (operator 0: in
	// [0,16), scratch [16,56), conv/out [64,96), state [96,104) = 96);
	// operator 1: conv/out, state, zero (empty) = 40; operator 3:
	// conv/out, state, out [0,10) = 50.
	want := []struct {
		kernels          string
		macs             int64
		consts, live     int
		scratch, state   int
		inPlace, outputs int
	}{
		{"convA", 512, 120, 96, 40, 0, 0, 1},
		{"", 0, 0, 40, 0, 0, 0, 2},
		{"addB", 0, 12, 40, 0, 0, 1, 1},
		{"svdfC svdfD", 0, 0, 50, 0, 8, 0, 1},
	}
	for i, w := range want {
		o := back.Operators[i]
		inPlace := 0
		if o.InPlace {
			inPlace = 1
		}
		if got := strings.Join(o.Kernels, " "); got != w.kernels || o.MACs != w.macs || o.ConstBytes != w.consts || o.LiveBytes != w.live ||
			o.ScratchBytes != w.scratch || o.StateBytes != w.state || inPlace != w.inPlace || len(o.Outputs) != w.outputs || o.Group != nil {
			t.Errorf("operator %d: %+v, want %+v", i, o, w)
		}
	}
	sum := 0
	for _, o := range back.Operators {
		sum += o.ConstBytes
	}
	if sum != back.Constants.Total {
		t.Errorf("operators' constants add up to %d, total %d", sum, back.Constants.Total)
	}
	if r.ArenaSize != 112 || r.LowerBound != 112 || r.CertificateKind != "at_lower_bound" || r.RAM != 812 || r.PlainArena != 144 ||
		r.Activations != 58 || r.Scratch != 40 || r.Persistent != 8 || r.MACs != 512 || r.Stack.Target != StackTarget {
		t.Errorf("totals: %+v", r)
	}
	if in := r.Inputs[0]; in.Name != odd || in.Buffer != "b1" || in.Offset != 0 || in.Bytes != 16 {
		t.Errorf("input: %+v", in)
	}
	if out := r.Outputs[0]; out.Buffer != "b5" || out.Bytes != 10 {
		t.Errorf("output: %+v", out)
	}
	// Buffers numbered and ordered as in layout.txt.
	var ids []string
	for _, jb := range r.Buffers {
		ids = append(ids, jb.ID+"="+jb.Name)
	}
	if got := strings.Join(ids, " "); got != "b0=conv/out b1=in b2=conv/scratch b3=state b4=zero b5=out" {
		t.Errorf("buffers %s", got)
	}
	if !strings.Contains(string(b), `"name": "in \"x\":{[1,2]}, \\ <&>"`) {
		t.Errorf("the odd name is not written as it is, escaped for JSON only:\n%s", b)
	}
	// One operator a line.
	if n := strings.Count(string(b), "\n    {\"index\": "); n != 4 {
		t.Errorf("%d operator lines, want 4:\n%s", n, b)
	}
}

// TestJSONVariants: no code emitted (no constants, stack or RAM keys), a
// stamped version, a fused group, an overlapped pair, and the certificate
// kinds.
func TestJSONVariants(t *testing.T) {
	p, l := handProgram(), handLayout()
	p.Groups = []program.Group{{First: 0, Last: 1, In: 2, Out: 3, MinShift: -1, Lines: []program.Line{{Buf: 1}}}}
	p.Overlaps = []program.Overlap{{Op: 3, In: 3, Out: 0}}
	for _, tc := range []struct {
		cert planner.Certificate
		kind string
	}{
		{planner.AtLowerBound, "at_lower_bound"}, {planner.Exhaustive, "exhaustive"}, {planner.BestFound, "best_found"},
		{planner.AllOrders, "all_orders"}, {planner.Heuristic, "heuristic"},
	} {
		l.Plan.Cert = tc.cert
		r := Make(p, l, nil, nil, "9.9")
		b, err := r.JSON()
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		if r.CertificateKind != tc.kind || r.BudgetRanOut != (tc.cert == planner.BestFound) {
			t.Errorf("%v: kind %q, budget ran out %v", tc.cert, r.CertificateKind, r.BudgetRanOut)
		}
		for _, absent := range []string{`"constants"`, `"stack"`, `"ram"`} {
			if strings.Contains(s, absent) {
				t.Errorf("report without code has %s", absent)
			}
		}
		if !strings.HasPrefix(s, JSONHead+"\n  \"version\": \"9.9\",\n") {
			t.Errorf("no version after the generator key:\n%s", s[:100])
		}
		if g := r.Operators[1].Group; g == nil || *g != 0 || r.Operators[2].Group != nil {
			t.Errorf("fused groups of operators 1 and 2: %v, %v", r.Operators[1].Group, r.Operators[2].Group)
		}
		if jg := r.Groups[0]; jg.First != 0 || jg.Last != 1 || strings.Join(jg.Lines, ",") != "b2" || jg.OverInput {
			t.Errorf("group: %+v", jg)
		}
		if !r.Operators[3].WritesOverInput || r.Operators[2].WritesOverInput {
			t.Errorf("overlapped pair not at operator 3")
		}
	}
}

// TestWriteSpaced: spaces after ':' and ',' outside strings only.
func TestWriteSpaced(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":1,"b":[1,2]}`, `{"a": 1, "b": [1, 2]}`},
		{`{"n":"x:y, z"}`, `{"n": "x:y, z"}`},
		{`{"n":"q\"a:b\\","m":2}`, `{"n": "q\"a:b\\", "m": 2}`},
	} {
		var b bytes.Buffer
		writeSpaced(&b, []byte(tc.in))
		if b.String() != tc.want {
			t.Errorf("writeSpaced(%s) = %s, want %s", tc.in, b.String(), tc.want)
		}
	}
}
