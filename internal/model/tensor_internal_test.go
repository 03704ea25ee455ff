package model

import (
	"errors"
	"strings"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"
)

// rawTensor is a Tensor table with the fields internal/devtools/builder cannot write.
type rawTensor struct {
	shape, signature []int32
	dtype            byte
	buffer           uint32
	variable         bool
	sparse           bool
}

// build writes the tensor table as the root of its own flatbuffer and
// returns the checked table.
func (r rawTensor) build(t *testing.T) table {
	b := flatbuffers.NewBuilder(64)
	vec := func(v []int32) flatbuffers.UOffsetT {
		b.StartVector(4, len(v), 4)
		for i := len(v) - 1; i >= 0; i-- {
			b.PrependInt32(v[i])
		}
		return b.EndVector(len(v))
	}
	shape := vec(r.shape)
	var sig, sp flatbuffers.UOffsetT
	if r.signature != nil {
		sig = vec(r.signature)
	}
	if r.sparse {
		b.StartObject(3)
		sp = b.EndObject()
	}
	name := b.CreateString("t")
	b.StartObject(8)
	b.PrependUOffsetTSlot(0, shape, 0)
	b.PrependByteSlot(1, r.dtype, 0)
	b.PrependUint32Slot(2, r.buffer, 0)
	b.PrependUOffsetTSlot(3, name, 0)
	b.PrependBoolSlot(5, r.variable, false)
	if sp != 0 {
		b.PrependUOffsetTSlot(6, sp, 0)
	}
	if sig != 0 {
		b.PrependUOffsetTSlot(7, sig, 0)
	}
	b.Finish(b.EndObject())
	f := &fbuf{b: b.FinishedBytes()}
	tt, err := f.root()
	if err != nil {
		t.Fatal(err)
	}
	return tt
}

// TestTensorFeatures covers tensor fields the builder does not write:
// sparsity, shape signatures and initialised variables. Unsupported
// features are collected, not returned, so that all are reported at once.
func TestTensorFeatures(t *testing.T) {
	buffers := [][]byte{nil, make([]byte, 16), make([]byte, 3)}
	cases := []struct {
		name  string
		t     rawTensor
		unsup string // collected unsupported features, "; "-joined
		err   string
	}{
		{name: "dynamic batch", t: rawTensor{shape: []int32{1, 4}, signature: []int32{-1, 4}}},
		{name: "static signature", t: rawTensor{shape: []int32{1, 4}, signature: []int32{1, 4}}},
		{name: "dynamic dimension", t: rawTensor{shape: []int32{1, 4}, signature: []int32{1, -1}},
			unsup: `tensor 0 "t": dynamic shape (shape_signature [1 -1])`},
		{name: "signature rank", t: rawTensor{shape: []int32{1, 4}, signature: []int32{-1}},
			unsup: `tensor 0 "t": dynamic rank (shape [1 4], shape_signature of another length)`},
		{name: "signature too long", t: rawTensor{shape: []int32{1}, signature: make([]int32, 17)},
			unsup: `tensor 0 "t": dynamic rank (shape [1], shape_signature of another length)`},
		{name: "rank 17", t: rawTensor{shape: []int32{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
			unsup: `tensor 0 "t": 17 dimensions, at most 16 supported`},
		{name: "sparse constant", t: rawTensor{shape: []int32{4, 4}, dtype: byte(Int8), buffer: 2, sparse: true},
			unsup: `tensor 0 "t": sparse tensors are not supported`},
		{name: "variable with data", t: rawTensor{shape: []int32{4}, buffer: 1, variable: true},
			unsup: `tensor 0 "t": variable tensor with initial data in buffer 1`},
		{name: "several", t: rawTensor{shape: []int32{2, 2}, signature: []int32{2, -1}, dtype: byte(String), sparse: true},
			unsup: `tensor 0 "t": sparse tensors are not supported; tensor 0 "t": element type string is not supported; tensor 0 "t": dynamic shape (shape_signature [2 -1])`},
		{name: "dense constant of the wrong size", t: rawTensor{shape: []int32{4, 4}, dtype: byte(Int8), buffer: 2},
			err: `invalid model: tensor 0 "t": constant buffer 2 has 3 bytes, shape [4 4] of int8 needs 16`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &parser{}
			_, err := p.readTensor(0, c.t.build(t), buffers)
			if got := errString(err); got != c.err {
				t.Errorf("error\n got: %s\nwant: %s", got, c.err)
			}
			if got := strings.Join(p.unsup, "; "); got != c.unsup {
				t.Errorf("unsupported\n got: %s\nwant: %s", got, c.unsup)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestVectorBudget: fields pointing at one shared vector would make the
// reader decode more than the file holds; the budget stops it.
func TestVectorBudget(t *testing.T) {
	tt := rawTensor{shape: []int32{1, 2, 3, 4}}.build(t)
	tt.f.charging, tt.f.budget = true, 20
	if _, err := tt.int32s(0, MaxRank); err != nil {
		t.Fatalf("first read: %v", err)
	}
	_, err := tt.int32s(0, MaxRank)
	if !errors.Is(err, errCorrupt) || !strings.Contains(err.Error(), "vectors overlap") {
		t.Fatalf("second read: %v", err)
	}
	// Options are read after parsing, without a budget but with a cap.
	tt.f.charging = false
	if _, err := tt.int32s(0, 3); !errors.Is(err, errTooLong) {
		t.Fatalf("capped read: %v", err)
	}
}
