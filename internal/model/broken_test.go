package model_test

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/builder"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

var update = flag.Bool("update", false, "rewrite testdata/broken/*.golden from the current errors")

// A spec is a model in plain data, so broken variants are one-line edits of
// a valid base model; Build writes it with internal/builder, which does not
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
	{name: "identifier", edit: func(b []byte) { copy(b[4:], "TFL2") }, kind: model.ErrInvalid,
		want: `invalid model: file identifier is "TFL2", want "TFL3" (not a TensorFlow Lite model)`},
	{name: "root offset past end", edit: put32(0, 0xfffffff0), kind: model.ErrInvalid,
		want: ``},
	{name: "root offset negative on 32-bit", edit: put32(0, 0x80000000), kind: model.ErrInvalid,
		want: ``},
	// Vtables.
	{name: "tensor 1 vtable odd length", edit: vtable16(0, 5, "2[0]", "0[1]", "0"), kind: model.ErrInvalid,
		want: ``},
	{name: "tensor 1 vtable too short", edit: vtable16(0, 2, "2[0]", "0[1]", "0"), kind: model.ErrInvalid,
		want: ``},
	{name: "tensor 1 vtable past end", edit: vtable16(0, 0xfffe, "2[0]", "0[1]", "0"), kind: model.ErrInvalid,
		want: ``},
	{name: "tensor 1 table size 0", edit: vtable16(2, 0, "2[0]", "0[1]", "0"), kind: model.ErrInvalid,
		want: ``},
	{name: "tensor 1 field outside table", edit: vtable16(4, 0x7ff0, "2[0]", "0[1]", "0"), kind: model.ErrInvalid,
		want: ``},
	{name: "operator 1 vtable before file", edit: soffset(0x7fffffff, "2[0]", "3[1]", "0"), kind: model.ErrInvalid,
		want: ``},
	{name: "operator 1 vtable after file", edit: soffset(-0x7fffffff, "2[0]", "3[1]", "0"), kind: model.ErrInvalid,
		want: ``},
	// Offsets and vector lengths.
	{name: "tensors vector offset past end", edit: field32(0x7ffffff0, "2[0]", "0"), kind: model.ErrInvalid,
		want: ``},
	{name: "operator 0 inputs huge length", edit: target32(0x7fffffff, "2[0]", "3[0]", "1"), kind: model.ErrInvalid,
		want: ``},
	{name: "operator 0 inputs length past end", edit: target32(3000, "2[0]", "3[0]", "1"), kind: model.ErrInvalid,
		want: ``},
	{name: "tensor 4 shape length max uint32", edit: target32(0xffffffff, "2[0]", "0[4]", "0"), kind: model.ErrInvalid,
		want: ``},
	{name: "buffer 1 data length off by one", edit: func(b []byte) {
		l := model.Locate(b, "4[1]", "0")
		binary.LittleEndian.PutUint32(b[l.Target:], 13)
	}, kind: model.ErrInvalid,
		want: ``},
	{name: "two subgraphs", edit: target32(2, "2"), kind: model.ErrUnsupported,
		want: ``},
	{name: "no subgraph", edit: target32(0, "2"), kind: model.ErrInvalid,
		want: `invalid model: model has no subgraph`},
	// Indices off by one.
	{name: "operator 1 opcode index", edit: field32(2, "2[0]", "3[1]", "0"), kind: model.ErrInvalid,
		want: ``},
	{name: "tensor 1 buffer index", edit: field32(3, "2[0]", "0[1]", "2"), kind: model.ErrInvalid,
		want: ``},
	{name: "tensor 2 buffer index negative", edit: field32(0xffffffff, "2[0]", "0[2]", "2"), kind: model.ErrInvalid,
		want: ``},
	{name: "operator input index", mod: func(s *spec) { s.ops[0].in[1] = 5 }, kind: model.ErrInvalid,
		want: ``},
	{name: "operator input index -2", mod: func(s *spec) { s.ops[0].in[2] = -2 }, kind: model.ErrInvalid,
		want: ``},
	{name: "operator output index -1", mod: func(s *spec) { s.ops[1].out[0] = -1 }, kind: model.ErrInvalid,
		want: ``},
	{name: "graph input index", mod: func(s *spec) { s.in[0] = 5 }, kind: model.ErrInvalid,
		want: ``},
	{name: "graph output index", mod: func(s *spec) { s.out[0] = -1 }, kind: model.ErrInvalid,
		want: ``},
	// Shapes and sizes.
	{name: "negative dimension", mod: func(s *spec) { s.tensors[3].shape = []int{1, -3} }, kind: model.ErrInvalid,
		want: ``},
	{name: "huge dimensions", mod: func(s *spec) { s.tensors[3].shape = []int{65536, 32768} }, kind: model.ErrInvalid,
		want: ``},
	{name: "huge int32 tensor", mod: func(s *spec) { s.tensors[3].dt = model.Int32; s.tensors[3].shape = []int{1 << 29} }, kind: model.ErrInvalid,
		want: ``},
	{name: "huge dimensions around a zero", mod: func(s *spec) { s.tensors[4].shape = []int{0, math.MaxInt32, math.MaxInt32} }, kind: model.ErrInvalid,
		want: ``},
	{name: "rank 17", mod: func(s *spec) { s.tensors[4].shape = make([]int, 17) }, kind: model.ErrUnsupported,
		want: ``},
	{name: "constant one byte short", mod: func(s *spec) { s.tensors[1].data = make([]byte, 11) }, kind: model.ErrInvalid,
		want: ``},
	{name: "constant one byte long", mod: func(s *spec) { s.tensors[2].data = make([]byte, 13) }, kind: model.ErrInvalid,
		want: ``},
	// Quantization.
	{name: "scales without zero points", mod: func(s *spec) { s.tensors[0].q = &builder.Quant{Scale: []float32{1, 2}, ZeroPoint: []int64{0}} }, kind: model.ErrInvalid,
		want: ``},
	{name: "per-channel count", mod: func(s *spec) { s.tensors[1].q.Scale = s.tensors[1].q.Scale[:2]; s.tensors[1].q.ZeroPoint = s.tensors[1].q.ZeroPoint[:2] }, kind: model.ErrInvalid,
		want: ``},
	{name: "per-channel axis", mod: func(s *spec) { s.tensors[1].q.Axis = 2 }, kind: model.ErrInvalid,
		want: ``},
	{name: "per-channel axis negative", mod: func(s *spec) { s.tensors[1].q.Axis = -1 }, kind: model.ErrInvalid,
		want: ``},
	{name: "zero scale", mod: func(s *spec) { s.tensors[3].q = pq(0, 0) }, kind: model.ErrInvalid,
		want: ``},
	{name: "NaN scale", mod: func(s *spec) { s.tensors[3].q = pq(float32(math.NaN()), 0) }, kind: model.ErrInvalid,
		want: ``},
	{name: "infinite scale", mod: func(s *spec) { s.tensors[3].q = pq(float32(math.Inf(1)), 0) }, kind: model.ErrInvalid,
		want: ``},
	{name: "int8 zero point", mod: func(s *spec) { s.tensors[4].q = pq(1, 128) }, kind: model.ErrInvalid,
		want: ``},
	// Dataflow.
	{name: "read before write", mod: func(s *spec) { s.ops[0], s.ops[1] = s.ops[1], s.ops[0] }, kind: model.ErrInvalid,
		want: ``},
	{name: "cycle", mod: func(s *spec) { s.ops[0].in[0] = 4 }, kind: model.ErrInvalid,
		want: ``},
	{name: "written twice", mod: func(s *spec) { s.ops[1].out[0] = 3; s.ops[1].in[0] = 0; s.out[0] = 3 }, kind: model.ErrInvalid,
		want: ``},
	{name: "same output twice", mod: func(s *spec) { s.ops[1].out = []int{4, 4} }, kind: model.ErrInvalid,
		want: ``},
	{name: "operator writes graph input", mod: func(s *spec) { s.in = []int{0, 3} }, kind: model.ErrInvalid,
		want: ``},
	{name: "operator writes a constant", mod: func(s *spec) { s.ops[1].out[0] = 1; s.out[0] = 3 }, kind: model.ErrInvalid,
		want: ``},
	{name: "no outputs", mod: func(s *spec) { s.ops[1].out = nil; s.out[0] = 3 }, kind: model.ErrInvalid,
		want: ``},
	{name: "constant graph input", mod: func(s *spec) { s.in = []int{0, 1} }, kind: model.ErrInvalid,
		want: ``},
	{name: "graph input twice", mod: func(s *spec) { s.in = []int{0, 0} }, kind: model.ErrInvalid,
		want: ``},
	{name: "graph output twice", mod: func(s *spec) { s.out = []int{4, 4} }, kind: model.ErrInvalid,
		want: ``},
	{name: "graph output never written", mod: func(s *spec) { s.tensors = append(s.tensors, tspec{name: "u", dt: model.Int8, shape: []int{1}}); s.out = []int{4, 5} }, kind: model.ErrInvalid,
		want: ``},
	// Options and names.
	{name: "options of another operator", mod: func(s *spec) { s.ops[0].opts.Type = 9 }, kind: model.ErrInvalid,
		want: ``},
	{name: "newline in tensor name", mod: func(s *spec) { s.tensors[3].name = "y\n/* */" }, kind: model.ErrInvalid,
		want: ``},
	{name: "invalid UTF-8 in tensor name", mod: func(s *spec) { s.tensors[3].name = "y\xff" }, kind: model.ErrInvalid,
		want: ``},
	// Unsupported features, all named in one error.
	{name: "string tensor", mod: func(s *spec) { s.tensors[3].dt = model.String }, kind: model.ErrUnsupported,
		want: ``},
	{name: "several unsupported features", mod: func(s *spec) {
		s.tensors[3].dt = model.Int4
		s.tensors[4].dt = model.DType(11)
		s.tensors = append(s.tensors, tspec{name: "state", dt: model.Int8, shape: []int{2}, data: []byte{1, 2}, variable: true})
		s.out = []int{4, 1}
	}, kind: model.ErrUnsupported,
		want: ``},
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
// testdata/broken/truncated.golden (rewrite it with -update after a change
// to the builder's layout, and review the diff).
func TestTruncated(t *testing.T) {
	data := base().build()
	var got strings.Builder
	for n := 0; n < len(data); n++ {
		_, err := model.Parse("cut.tflite", data[:n:n])
		if err == nil {
			t.Errorf("truncated to %d of %d bytes: accepted", n, len(data))
			continue
		}
		if !errors.Is(err, model.ErrInvalid) || strings.Contains(err.Error(), "\n") {
			t.Errorf("truncated to %d bytes: %v", n, err)
		}
		fmt.Fprintf(&got, "%d: %s\n", n, err)
	}
	golden(t, "truncated.golden", got.String())
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

var _ = strconv.Itoa
