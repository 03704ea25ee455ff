package model_test

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

var update = flag.Bool("update", false, "rewrite testdata/broken/*.golden from the current errors")

// A spec is a model in plain data, so broken variants are one-line edits of
// a valid base model; Build writes it with internal/devtools/builder, which does not
// validate anything.
type spec struct {
	tensors []tspec
	ops     []ospec
	in, out []int
}

type tspec struct {
	name     string
	dt       model.DType
	shape    []int
	q        *builder.Quant
	data     []byte
	variable bool
}

type ospec struct {
	code    model.OpCode
	in, out []int
	opts    *builder.Options
}

func (s *spec) build() []byte {
	m := builder.New("broken model test")
	for _, t := range s.tensors {
		switch {
		case t.data != nil:
			m.Const(t.name, t.dt, t.shape, t.q, t.data)
		case t.variable:
			m.Variable(t.name, t.dt, t.shape, t.q)
		default:
			m.Tensor(t.name, t.dt, t.shape, t.q)
		}
	}
	for _, o := range s.ops {
		m.Op(o.code, o.in, o.out, o.opts)
	}
	m.IO(s.in, s.out)
	return m.Bytes()
}

// base is a valid int8 FULLY_CONNECTED + SOFTMAX model:
//
//	tensor 0 "x" int8[1 4] input -> FC(x, w, b) -> tensor 3 "y" int8[1 3]
//	-> SOFTMAX -> tensor 4 "z" int8[1 3] output
//
// w (tensor 1, buffer 1) is int8[3 4] per-channel, b (tensor 2, buffer 2)
// int32[3].
func base() *spec {
	return &spec{
		tensors: []tspec{
			{name: "x", dt: model.Int8, shape: []int{1, 4}, q: builder.PerTensor(0.5, -1)},
			{name: "w", dt: model.Int8, shape: []int{3, 4}, data: make([]byte, 12),
				q: &builder.Quant{Scale: []float32{0.1, 0.2, 0.3}, ZeroPoint: []int64{0, 0, 0}}},
			{name: "b", dt: model.Int32, shape: []int{3}, data: make([]byte, 12),
				q: &builder.Quant{Scale: []float32{0.05, 0.1, 0.15}, ZeroPoint: []int64{0, 0, 0}}},
			{name: "y", dt: model.Int8, shape: []int{1, 3}, q: builder.PerTensor(0.25, 0)},
			{name: "z", dt: model.Int8, shape: []int{1, 3}, q: builder.PerTensor(1.0/256, -128)},
		},
		ops: []ospec{
			{code: model.OpFullyConnected, in: []int{0, 1, 2}, out: []int{3},
				opts: &builder.Options{Type: 8, Fields: []builder.Field{builder.Byte(0, 0)}}},
			{code: model.OpSoftmax, in: []int{3}, out: []int{4},
				opts: &builder.Options{Type: 9, Fields: []builder.Field{builder.Float(0, 1)}}},
		},
		in: []int{0}, out: []int{4},
	}
}

// Byte-level edits of a built model; paths are those of model.Locate
// (schema slots: model 1 operator_codes, 2 subgraphs, 4 buffers; subgraph 0
// tensors, 3 operators; tensor 0 shape, 2 buffer; operator 0 opcode_index,
// 1 inputs).
func put32(at int, v uint32) func([]byte) {
	return func(b []byte) { binary.LittleEndian.PutUint32(b[at:], v) }
}

func field32(v uint32, path ...string) func([]byte) {
	return func(b []byte) {
		l := model.Locate(b, path...)
		if l.Field == 0 {
			panic(fmt.Sprintf("field %v absent", path))
		}
		binary.LittleEndian.PutUint32(b[l.Field:], v)
	}
}

func target32(v uint32, path ...string) func([]byte) {
	return func(b []byte) { binary.LittleEndian.PutUint32(b[model.Locate(b, path...).Target:], v) }
}

func vtable16(off int, v uint16, path ...string) func([]byte) {
	return func(b []byte) { binary.LittleEndian.PutUint16(b[model.Locate(b, path...).VTable+off:], v) }
}

func soffset(v int32, path ...string) func([]byte) {
	return func(b []byte) { binary.LittleEndian.PutUint32(b[model.Locate(b, path...).Table:], uint32(v)) }
}

func pq(scale float32, zp int64) *builder.Quant { return builder.PerTensor(scale, zp) }

// brokenCases: a spec edit and/or a byte edit, the sentinel error and the
// exact message.
var brokenCases = []struct {
	name string
	mod  func(*spec)
	edit func([]byte)
	kind error
	want string
}{
	// File framing.
	{name: "identifier and root offset", edit: func(b []byte) { copy(b[4:], "TFL2"); put32(0, 0xfffffff0)(b) }, kind: model.ErrInvalid,
		want: `invalid model: file identifier is "TFL2", not "TFL3" (probably not a TensorFlow Lite model), and the file does not read as a model without one: model: corrupt flatbuffer: root table at byte 4294967280 is outside the 912-byte file`},
	{name: "root offset past end", edit: put32(0, 0xfffffff0), kind: model.ErrInvalid,
		want: `invalid model: model: corrupt flatbuffer: root table at byte 4294967280 is outside the 912-byte file`},
	{name: "root offset negative on 32-bit", edit: put32(0, 0x80000000), kind: model.ErrInvalid,
		want: `invalid model: model: corrupt flatbuffer: root table at byte 2147483648 is outside the 912-byte file`},
	// Vtables.
	{name: "tensor 1 vtable odd length", edit: vtable16(0, 5, "2[0]", "0[1]", "0"), kind: model.ErrInvalid,
		want: `invalid model: subgraph 0 tensors: corrupt flatbuffer: tensor 1: vtable length 5 invalid`},
	{name: "tensor 1 vtable too short", edit: vtable16(0, 2, "2[0]", "0[1]", "0"), kind: model.ErrInvalid,
		want: `invalid model: subgraph 0 tensors: corrupt flatbuffer: tensor 1: vtable length 2 invalid`},
	{name: "tensor 1 vtable past end", edit: vtable16(0, 0xfffe, "2[0]", "0[1]", "0"), kind: model.ErrInvalid,
		want: `invalid model: the file looks truncated: it refers to data past its end (subgraph 0 tensors: corrupt flatbuffer: tensor 1 vtable at byte 626 (+65534) is outside the 912-byte file)`},
	{name: "tensor 1 table size 0", edit: vtable16(2, 0, "2[0]", "0[1]", "0"), kind: model.ErrInvalid,
		want: `invalid model: subgraph 0 tensors: corrupt flatbuffer: tensor 1: table size 0 is smaller than its vtable offset`},
	{name: "tensor 1 field outside table", edit: vtable16(4, 0x7ff0, "2[0]", "0[1]", "0"), kind: model.ErrInvalid,
		want: `invalid model: tensor 1: corrupt flatbuffer: field 0 at table offset 32752 (+4) is outside the 24-byte table`},
	{name: "operator code 0 fields outside its table", edit: vtable16(2, 4, "1[0]", "0"), kind: model.ErrInvalid,
		want: `invalid model: operator code 0: corrupt flatbuffer: field 0 at table offset 11 (+1) is outside the 4-byte table`},
	{name: "operator 1 vtable before file", edit: soffset(0x7fffffff, "2[0]", "3[1]", "0"), kind: model.ErrInvalid,
		want: `invalid model: subgraph 0 operators: corrupt flatbuffer: operator 1: vtable offset -2147483427 out of range`},
	{name: "operator 1 vtable after file", edit: soffset(-0x7fffffff, "2[0]", "3[1]", "0"), kind: model.ErrInvalid,
		want: `invalid model: subgraph 0 operators: corrupt flatbuffer: operator 1: vtable offset 2147483867 out of range`},
	// Offsets and vector lengths.
	{name: "tensors vector offset past end", edit: field32(0x7ffffff0, "2[0]", "0"), kind: model.ErrInvalid,
		want: `invalid model: subgraph 0 tensors: corrupt flatbuffer: field 0 points past the end of the file`},
	{name: "operator 0 inputs huge length", edit: target32(0x7fffffff, "2[0]", "3[0]", "1"), kind: model.ErrInvalid,
		want: `invalid model: operator 0 (FULLY_CONNECTED): inputs: corrupt flatbuffer: field 1: vector of 2147483647 elements is longer than the file`},
	{name: "operator 0 inputs length past end", edit: target32(3000, "2[0]", "3[0]", "1"), kind: model.ErrInvalid,
		want: `invalid model: the file looks truncated: it refers to data past its end (operator 0 (FULLY_CONNECTED): inputs: corrupt flatbuffer: field 1: vector of 3000 elements is longer than the file)`},
	{name: "tensor 4 shape length max uint32", edit: target32(0xffffffff, "2[0]", "0[4]", "0"), kind: model.ErrInvalid,
		want: `invalid model: tensor 4: corrupt flatbuffer: field 0: vector of 4294967295 elements is longer than the file`},
	{name: "buffer 1 data length off by one", edit: func(b []byte) {
		l := model.Locate(b, "4[1]", "0")
		binary.LittleEndian.PutUint32(b[l.Target:], 13)
	}, kind: model.ErrInvalid,
		want: `invalid model: tensor 1 "w": constant buffer 1 has 13 bytes, shape [3 4] of int8 needs 12`},
	{name: "two subgraphs, the second past the vector", edit: target32(2, "2"), kind: model.ErrInvalid,
		want: `invalid model: subgraph 1: corrupt flatbuffer: subgraph 1: vtable offset -18087846 out of range`},
	{name: "no subgraph", edit: target32(0, "2"), kind: model.ErrInvalid,
		want: `invalid model: model has no subgraph`},
	// Indices off by one.
	{name: "operator 1 opcode index", edit: field32(2, "2[0]", "3[1]", "0"), kind: model.ErrInvalid,
		want: `invalid model: operator 1: opcode index 2 out of range [0, 2)`},
	{name: "tensor 1 buffer index", edit: field32(3, "2[0]", "0[1]", "2"), kind: model.ErrInvalid,
		want: `invalid model: tensor 1 "w": buffer index 3 out of range [0, 3)`},
	{name: "tensor 2 buffer index negative", edit: field32(0xffffffff, "2[0]", "0[2]", "2"), kind: model.ErrInvalid,
		want: `invalid model: tensor 2 "b": buffer index 4294967295 out of range [0, 3)`},
	{name: "operator input index", mod: func(s *spec) { s.ops[0].in[1] = 5 }, kind: model.ErrInvalid,
		want: `invalid model: operator 0 (FULLY_CONNECTED): inputs: entry 1: tensor index 5 out of range [0, 5)`},
	{name: "operator input index -2", mod: func(s *spec) { s.ops[0].in[2] = -2 }, kind: model.ErrInvalid,
		want: `invalid model: operator 0 (FULLY_CONNECTED): inputs: entry 2: tensor index -2 out of range [0, 5)`},
	{name: "operator output index -1", mod: func(s *spec) { s.ops[1].out[0] = -1 }, kind: model.ErrInvalid,
		want: `invalid model: operator 1 (SOFTMAX): outputs: entry 0: tensor index -1 out of range [0, 5)`},
	{name: "graph input index", mod: func(s *spec) { s.in[0] = 5 }, kind: model.ErrInvalid,
		want: `invalid model: subgraph inputs: entry 0: tensor index 5 out of range [0, 5)`},
	{name: "graph output index", mod: func(s *spec) { s.out[0] = -1 }, kind: model.ErrInvalid,
		want: `invalid model: subgraph outputs: entry 0: tensor index -1 out of range [0, 5)`},
	// Shapes and sizes.
	{name: "negative dimension", mod: func(s *spec) { s.tensors[3].shape = []int{1, -3} }, kind: model.ErrInvalid,
		want: `invalid model: tensor 3 "y": negative dimension -3 in shape [1 -3]`},
	{name: "huge dimensions", mod: func(s *spec) { s.tensors[3].shape = []int{65536, 32768} }, kind: model.ErrInvalid,
		want: `invalid model: tensor 3 "y": shape [65536 32768] is larger than 2147483647 bytes`},
	{name: "huge int32 tensor", mod: func(s *spec) { s.tensors[3].dt = model.Int32; s.tensors[3].shape = []int{1 << 29} }, kind: model.ErrInvalid,
		want: `invalid model: tensor 3 "y": shape [536870912] is larger than 2147483647 bytes`},
	{name: "huge dimensions around a zero", mod: func(s *spec) { s.tensors[4].shape = []int{0, math.MaxInt32, math.MaxInt32} }, kind: model.ErrInvalid,
		want: `invalid model: tensor 4 "z": the nonzero dimensions of shape [0 2147483647 2147483647] multiply to more than 2147483647 bytes`},
	{name: "activations over 1 GiB", mod: func(s *spec) { s.tensors[3].shape = []int{1, 1 << 29}; s.tensors[4].shape = []int{1, 1 << 29} }, kind: model.ErrUnsupported,
		want: `unsupported model feature: 1 problem(s): the non-constant tensors need 1073741828 bytes in total, more than 1073741824`},
	{name: "rank 17", mod: func(s *spec) { s.tensors[4].shape = make([]int, 17) }, kind: model.ErrUnsupported,
		want: `unsupported model feature: 1 problem(s): tensor 4 "z": 17 dimensions, at most 16 supported`},
	{name: "constant one byte short", mod: func(s *spec) { s.tensors[1].data = make([]byte, 11) }, kind: model.ErrInvalid,
		want: `invalid model: tensor 1 "w": constant buffer 1 has 11 bytes, shape [3 4] of int8 needs 12`},
	{name: "constant one byte long", mod: func(s *spec) { s.tensors[2].data = make([]byte, 13) }, kind: model.ErrInvalid,
		want: `invalid model: tensor 2 "b": constant buffer 2 has 13 bytes, shape [3] of int32 needs 12`},
	// Quantization.
	{name: "scales without zero points", mod: func(s *spec) { s.tensors[0].q = &builder.Quant{Scale: []float32{1, 2}, ZeroPoint: []int64{0}} }, kind: model.ErrInvalid,
		want: `invalid model: tensor 0 "x": quantization has 2 scales but 1 zero points`},
	{name: "per-channel count", mod: func(s *spec) {
		s.tensors[1].q.Scale = s.tensors[1].q.Scale[:2]
		s.tensors[1].q.ZeroPoint = s.tensors[1].q.ZeroPoint[:2]
	}, kind: model.ErrInvalid,
		want: `invalid model: tensor 1 "w": 2 per-channel scales for dimension 0 of size 3`},
	{name: "per-channel axis", mod: func(s *spec) { s.tensors[1].q.Axis = 2 }, kind: model.ErrInvalid,
		want: `invalid model: tensor 1 "w": quantized dimension 2 outside shape [3 4]`},
	{name: "per-channel axis negative", mod: func(s *spec) { s.tensors[1].q.Axis = -1 }, kind: model.ErrInvalid,
		want: `invalid model: tensor 1 "w": quantized dimension -1 outside shape [3 4]`},
	{name: "zero scale", mod: func(s *spec) { s.tensors[3].q = pq(0, 0) }, kind: model.ErrInvalid,
		want: `invalid model: tensor 3 "y": quantization scale 0 is 0, must be positive and finite`},
	{name: "NaN scale", mod: func(s *spec) { s.tensors[3].q = pq(float32(math.NaN()), 0) }, kind: model.ErrInvalid,
		want: `invalid model: tensor 3 "y": quantization scale 0 is NaN, must be positive and finite`},
	{name: "infinite scale", mod: func(s *spec) { s.tensors[3].q = pq(float32(math.Inf(1)), 0) }, kind: model.ErrInvalid,
		want: `invalid model: tensor 3 "y": quantization scale 0 is +Inf, must be positive and finite`},
	{name: "int8 zero point", mod: func(s *spec) { s.tensors[4].q = pq(1, 128) }, kind: model.ErrInvalid,
		want: `invalid model: tensor 4 "z": quantization zero point 0 is 128, outside the int8 range`},
	// Dataflow.
	{name: "read before write", mod: func(s *spec) { s.ops[0], s.ops[1] = s.ops[1], s.ops[0] }, kind: model.ErrInvalid,
		want: `invalid model: operator 0 (SOFTMAX): input 0: tensor 3 "y" int8[1 3] is read before any operator writes it (cycle or wrong operator order)`},
	{name: "cycle", mod: func(s *spec) { s.ops[0].in[0] = 4 }, kind: model.ErrInvalid,
		want: `invalid model: operator 0 (FULLY_CONNECTED): input 0: tensor 4 "z" int8[1 3] is read before any operator writes it (cycle or wrong operator order)`},
	{name: "written twice", mod: func(s *spec) { s.ops[1].out[0] = 3; s.ops[1].in[0] = 0; s.out[0] = 3 }, kind: model.ErrInvalid,
		want: `invalid model: operator 1 (SOFTMAX): output 0: tensor 3 "y" int8[1 3] is already written by operator 0`},
	{name: "same output twice", mod: func(s *spec) { s.ops[1].out = []int{4, 4} }, kind: model.ErrInvalid,
		want: `invalid model: operator 1 (SOFTMAX): outputs 0 and 1 are both tensor 4`},
	{name: "operator writes graph input", mod: func(s *spec) { s.in = []int{0, 3} }, kind: model.ErrInvalid,
		want: `invalid model: operator 0 (FULLY_CONNECTED): output 0: tensor 3 "y" int8[1 3] is already written by the graph input`},
	{name: "operator writes a constant", mod: func(s *spec) { s.ops[1].out[0] = 1; s.out[0] = 3 }, kind: model.ErrInvalid,
		want: `invalid model: operator 1 (SOFTMAX): output 0: tensor 1 "w" int8[3 4] is a constant`},
	{name: "no outputs", mod: func(s *spec) { s.ops[1].out = nil; s.out[0] = 3 }, kind: model.ErrInvalid,
		want: `invalid model: operator 1 (SOFTMAX): has no outputs`},
	{name: "constant graph input", mod: func(s *spec) { s.in = []int{0, 1} }, kind: model.ErrInvalid,
		want: `invalid model: subgraph input 1: tensor 1 "w" int8[3 4] is a constant`},
	{name: "graph input twice", mod: func(s *spec) { s.in = []int{0, 0} }, kind: model.ErrInvalid,
		want: `invalid model: subgraph input 1: tensor 0 "x" int8[1 4] is listed twice`},
	{name: "graph output twice", mod: func(s *spec) { s.out = []int{4, 4} }, kind: model.ErrInvalid,
		want: `invalid model: subgraph outputs 0 and 1 are both tensor 4 "z" int8[1 3]`},
	{name: "graph output never written", mod: func(s *spec) {
		s.tensors = append(s.tensors, tspec{name: "u", dt: model.Int8, shape: []int{1}})
		s.out = []int{4, 5}
	}, kind: model.ErrInvalid,
		want: `invalid model: subgraph output 1: tensor 5 "u" int8[1] is never written`},
	// Options and names.
	{name: "options of another operator", mod: func(s *spec) { s.ops[0].opts.Type = 9 }, kind: model.ErrInvalid,
		want: `invalid model: operator 0 (FULLY_CONNECTED): builtin options have union type 9, want 8 (FullyConnectedOptions)`},
	{name: "newline in tensor name", mod: func(s *spec) { s.tensors[3].name = "y\n/* */" }, kind: model.ErrInvalid,
		want: `invalid model: tensor 3: name "y\n/* */" contains control character U+000A`},
	{name: "comment in tensor name", mod: func(s *spec) { s.tensors[3].name = "/**/ evil() //" }, kind: model.ErrInvalid,
		want: `invalid model: tensor 3: name "/**/ evil() //" contains a Go comment delimiter`},
	{name: "invalid UTF-8 in tensor name", mod: func(s *spec) { s.tensors[3].name = "y\xff" }, kind: model.ErrInvalid,
		want: `invalid model: tensor 3: name "y\xff" is not valid UTF-8`},
	// Unsupported features, all named in one error.
	{name: "string tensor", mod: func(s *spec) { s.tensors[3].dt = model.String }, kind: model.ErrUnsupported,
		want: `unsupported model feature: 1 problem(s): tensor 3 "y": element type string is not supported`},
	{name: "several unsupported features", mod: func(s *spec) {
		s.tensors[3].dt = model.Int4
		s.tensors[4].dt = model.DType(11)
		s.tensors = append(s.tensors, tspec{name: "deep", dt: model.Int8, shape: make([]int, 17)})
		s.out = []int{4, 1}
	}, kind: model.ErrUnsupported,
		want: `unsupported model feature: 4 problem(s): tensor 3 "y": element type int4 is not supported; tensor 4 "z": element type complex128 is not supported; tensor 5 "deep": 17 dimensions, at most 16 supported; subgraph output 1: tensor 1 "w" int8[3 4] is a constant`},
}

func TestBrokenModels(t *testing.T) {
	for _, c := range brokenCases {
		t.Run(c.name, func(t *testing.T) {
			s := base()
			if c.mod != nil {
				c.mod(s)
			}
			data := s.build()
			if c.edit != nil {
				c.edit(data)
			}
			g, err := model.Parse("broken.tflite", data)
			if err == nil {
				t.Fatalf("Parse accepted the model (%d tensors, %d operators)", len(g.Tensors), len(g.Ops))
			}
			if !errors.Is(err, c.kind) {
				t.Errorf("error does not wrap %q: %v", c.kind, err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error has several lines: %q", err)
			}
			if err.Error() != c.want {
				t.Errorf("error\n got: %s\nwant: %s", err, c.want)
			}
		})
	}
}

// TestBaseModelValid makes sure every broken case starts from a good model.
func TestBaseModelValid(t *testing.T) {
	g, err := model.Parse("base.tflite", base().build())
	if err != nil {
		t.Fatal(err)
	}
	if err := model.CheckInvariants(g); err != nil {
		t.Fatal(err)
	}
}

// TestTruncated parses the base model cut at every length: each must fail
// with ErrInvalid and the one-line message recorded in
// testdata/broken/truncated.golden. TestZeroedTail keeps the length but
// zeroes everything from an offset on (zeroed.golden; "ok" when the model
// is still valid). Rewrite both with -update after a change to the builder's
// layout and review the diff. Consecutive offsets with the same message are
// one line; {n} stands for the file length in messages.
func TestTruncated(t *testing.T) {
	data := base().build()
	var lines []string
	for n := 0; n < len(data); n++ {
		_, err := model.Parse("cut.tflite", data[:n:n])
		if err == nil {
			t.Errorf("truncated to %d of %d bytes: accepted", n, len(data))
			continue
		}
		if !errors.Is(err, model.ErrInvalid) || strings.Contains(err.Error(), "\n") {
			t.Errorf("truncated to %d bytes: %v", n, err)
		}
		lines = append(lines, strings.ReplaceAll(err.Error(), fmt.Sprintf(" %d-byte", n), " {n}-byte"))
	}
	golden(t, "truncated.golden", ranges(lines))
}

func TestZeroedTail(t *testing.T) {
	data := base().build()
	buf := make([]byte, len(data))
	var lines []string
	for n := 0; n < len(data); n++ {
		copy(buf, data)
		clear(buf[n:])
		g, err := model.Parse("zeroed.tflite", buf)
		switch {
		case err == nil:
			if err := model.CheckInvariants(g); err != nil {
				t.Errorf("zeroed from %d: %v", n, err)
			}
			lines = append(lines, "ok")
		case strings.Contains(err.Error(), "\n"):
			t.Errorf("zeroed from %d: %q", n, err)
		default:
			lines = append(lines, err.Error())
		}
	}
	golden(t, "zeroed.golden", ranges(lines))
}

// ranges prints one line per run of equal messages: "FIRST-LAST: message".
func ranges(msgs []string) string {
	var b strings.Builder
	for i := 0; i < len(msgs); {
		j := i
		for j+1 < len(msgs) && msgs[j+1] == msgs[i] {
			j++
		}
		if i == j {
			fmt.Fprintf(&b, "%d: %s\n", i, msgs[i])
		} else {
			fmt.Fprintf(&b, "%d-%d: %s\n", i, j, msgs[i])
		}
		i = j + 1
	}
	return b.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "broken", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			g, w := "", ""
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Errorf("%s line %d:\n got: %s\nwant: %s", name, i+1, g, w)
				break
			}
		}
	}
}

// TestCorruptBytes flips every byte of the base model to a few values: Parse
// must never panic, and what it accepts must satisfy the invariants.
func TestCorruptBytes(t *testing.T) {
	data := base().build()
	buf := make([]byte, len(data))
	accepted := 0
	for i := range data {
		for _, v := range []byte{0, 1, 0x7f, 0x80, 0xff, data[i] ^ 0x04} {
			copy(buf, data)
			buf[i] = v
			g, err := model.Parse("flip.tflite", buf)
			if err != nil {
				if !errors.Is(err, model.ErrInvalid) && !errors.Is(err, model.ErrUnsupported) {
					t.Fatalf("byte %d = %#x: error wraps neither sentinel: %v", i, v, err)
				}
				continue
			}
			accepted++
			if err := model.CheckInvariants(g); err != nil {
				t.Fatalf("byte %d = %#x: %v", i, v, err)
			}
		}
	}
	t.Logf("%d of %d byte edits accepted", accepted, 6*len(data))
}
