// Package builder writes TensorFlow Lite flatbuffers from Go, so the project
// can make its own small fixture models: tests and examples never depend on
// models from elsewhere.
package builder

import (
	"encoding/binary"
	"fmt"
	"math"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/tflm-gen/tflm-gen/internal/model"
)

// Quant is a tensor's quantization; Axis matters only with several scales.
type Quant struct {
	Scale     []float32
	ZeroPoint []int64
	Axis      int
}

// PerTensor is a one-scale quantization.
func PerTensor(scale float32, zp int64) *Quant {
	return &Quant{Scale: []float32{scale}, ZeroPoint: []int64{zp}}
}

type tensor struct {
	name     string
	dtype    model.DType
	shape    []int
	quant    *Quant
	data     []byte
	variable bool
}

// Field is one scalar field of an options table.
type Field struct {
	Slot  int
	Kind  byte // 'b' byte/bool/enum, 'i' int32, 'f' float32
	Value float64
}

// Byte, Int and Float make option fields.
func Byte(slot int, v int) Field       { return Field{slot, 'b', float64(v)} }
func Int(slot int, v int) Field        { return Field{slot, 'i', float64(v)} }
func Float(slot int, v float32) Field  { return Field{slot, 'f', float64(v)} }
func Bool(slot int, v bool) Field      { return Field{slot, 'b', map[bool]float64{true: 1}[v]} }
func vec(slot int, v []int32) vecField { return vecField{slot, v} }

type vecField struct {
	slot int
	v    []int32
}

// Options is an operator's builtin options: the union type and fields.
type Options struct {
	Type    uint8
	Fields  []Field
	Vectors []vecField
	Strings []strField
}

type strField struct {
	slot int
	s    string
}

// String adds a string field to the options.
func (o Options) String(slot int, s string) Options {
	o.Strings = append(append([]strField{}, o.Strings...), strField{slot, s})
	return o
}

// IntVector adds an [int] field to the options.
func (o Options) IntVector(slot int, v []int32) Options {
	o.Vectors = append(append([]vecField{}, o.Vectors...), vec(slot, v))
	return o
}

type op struct {
	code    model.OpCode
	inputs  []int
	outputs []int
	opts    *Options
	// custom is the custom operator's name and customOpts its
	// custom_options bytes (Code OpCustom).
	custom     string
	customOpts []byte
}

// metadata is one entry of the model's metadata vector.
type metadata struct {
	name string
	data []byte
}

// Model accumulates a model: subgraph 0, and the subgraphs Subgraph adds.
type Model struct {
	// subs are subgraphs 1, 2, ... (only in the Model New returned).
	subs        []*Model
	tensors     []tensor
	ops         []op
	inputs      []int
	outputs     []int
	description string
	metadata    []metadata
	// NoFileIdentifier writes the flatbuffer without the "TFL3" file
	// identifier, as some converters do (TFLite Micro does not check it).
	NoFileIdentifier bool
}

// New starts an empty model.
func New(description string) *Model { return &Model{description: description} }

// Subgraph adds the next subgraph (1, 2, ...) and returns it: its Tensor,
// Const, Variable, Op and IO methods build that subgraph, with tensor
// indices of its own. Only the Model that New returned serializes (Bytes),
// writing its subgraphs after subgraph 0.
func (m *Model) Subgraph() *Model {
	s := &Model{}
	m.subs = append(m.subs, s)
	return s
}

// Tensor adds an activation tensor and returns its index.
func (m *Model) Tensor(name string, dt model.DType, shape []int, q *Quant) int {
	m.tensors = append(m.tensors, tensor{name: name, dtype: dt, shape: shape, quant: q})
	return len(m.tensors) - 1
}

// Variable adds a variable (state) tensor.
func (m *Model) Variable(name string, dt model.DType, shape []int, q *Quant) int {
	i := m.Tensor(name, dt, shape, q)
	m.tensors[i].variable = true
	return i
}

// Const adds a constant tensor with raw little-endian data.
func (m *Model) Const(name string, dt model.DType, shape []int, q *Quant, data []byte) int {
	i := m.Tensor(name, dt, shape, q)
	m.tensors[i].data = data
	return i
}

// ConstI8 adds an int8 constant.
func (m *Model) ConstI8(name string, shape []int, q *Quant, v []int8) int {
	b := make([]byte, len(v))
	for i, x := range v {
		b[i] = byte(x)
	}
	return m.Const(name, model.Int8, shape, q, b)
}

// ConstI32 adds an int32 constant.
func (m *Model) ConstI32(name string, shape []int, q *Quant, v []int32) int {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return m.Const(name, model.Int32, shape, q, b)
}

// ConstF32 adds a float32 constant.
func (m *Model) ConstF32(name string, shape []int, v []float32) int {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return m.Const(name, model.Float32, shape, nil, b)
}

// Op appends an operator; opts may be nil.
func (m *Model) Op(code model.OpCode, inputs, outputs []int, opts *Options) {
	m.ops = append(m.ops, op{code: code, inputs: inputs, outputs: outputs, opts: opts})
}

// Custom adds a custom operator with the given name and custom_options
// bytes (nil: none).
func (m *Model) Custom(name string, inputs, outputs []int, customOptions []byte) {
	m.ops = append(m.ops, op{code: model.OpCustom, inputs: inputs, outputs: outputs, custom: name, customOpts: customOptions})
}

// Metadata adds a metadata entry (names may repeat, as in some converted
// models).
func (m *Model) Metadata(name string, data []byte) {
	m.metadata = append(m.metadata, metadata{name, data})
}

// IO sets the graph inputs and outputs.
func (m *Model) IO(inputs, outputs []int) { m.inputs, m.outputs = inputs, outputs }

func i32s(v []int) []int32 {
	out := make([]int32, len(v))
	for i, x := range v {
		out[i] = int32(x)
	}
	return out
}

// Bytes serializes the model.
func (m *Model) Bytes() []byte {
	b := flatbuffers.NewBuilder(1024)
	sgs := append([]*Model{m}, m.subs...)
	// Buffer 0 is the empty sentinel, as converters write it.
	bufOffs := []flatbuffers.UOffsetT{emptyBuffer(b)}
	bufIndex := make([][]int, len(sgs))
	for k, sm := range sgs {
		bufIndex[k] = make([]int, len(sm.tensors))
		for i, t := range sm.tensors {
			if t.data == nil {
				continue
			}
			b.StartVector(1, len(t.data), 16)
			for j := len(t.data) - 1; j >= 0; j-- {
				b.PrependByte(t.data[j])
			}
			d := b.EndVector(len(t.data))
			b.StartObject(3)
			b.PrependUOffsetTSlot(0, d, 0)
			bufIndex[k][i] = len(bufOffs)
			bufOffs = append(bufOffs, b.EndObject())
		}
	}
	metaBuf := make([]int, len(m.metadata))
	for i, md := range m.metadata {
		d := b.CreateByteVector(md.data)
		b.StartObject(3)
		b.PrependUOffsetTSlot(0, d, 0)
		metaBuf[i] = len(bufOffs)
		bufOffs = append(bufOffs, b.EndObject())
	}
	// Operator codes, one per distinct code (and custom name) in order of
	// first use.
	var codes []opKey
	codeIndex := map[opKey]int{}
	for _, sm := range sgs {
		for _, o := range sm.ops {
			k := opKey{o.code, o.custom}
			if _, ok := codeIndex[k]; !ok {
				codeIndex[k] = len(codes)
				codes = append(codes, k)
			}
		}
	}
	sgOffs := make([]flatbuffers.UOffsetT, len(sgs))
	var codeOffs []flatbuffers.UOffsetT
	for k, sm := range sgs {
		sgOffs[k] = sm.subgraph(b, bufIndex[k], codeIndex, func(b *flatbuffers.Builder) {
			// The codes are written with subgraph 0, where they have always been.
			codeOffs = make([]flatbuffers.UOffsetT, len(codes))
			for i, c := range codes {
				var name flatbuffers.UOffsetT
				if c.code == model.OpCustom {
					name = b.CreateString(c.custom)
				}
				b.StartObject(4)
				b.PrependInt8Slot(0, int8(min(int32(c.code), 127)), 0)
				if name != 0 {
					b.PrependUOffsetTSlot(1, name, 0)
				}
				b.PrependInt32Slot(2, 1, 1)
				b.PrependInt32Slot(3, int32(c.code), 0)
				codeOffs[i] = b.EndObject()
			}
		}, k == 0, sgName(k))
	}
	codesV := offsetVector(b, codeOffs)
	sgV := offsetVector(b, sgOffs)
	bufV := offsetVector(b, bufOffs)
	desc := b.CreateString(m.description)
	var metaV flatbuffers.UOffsetT
	if len(m.metadata) > 0 {
		offs := make([]flatbuffers.UOffsetT, len(m.metadata))
		for i, md := range m.metadata {
			name := b.CreateString(md.name)
			b.StartObject(2)
			b.PrependUOffsetTSlot(0, name, 0)
			b.PrependUint32Slot(1, uint32(metaBuf[i]), 0)
			offs[i] = b.EndObject()
		}
		metaV = offsetVector(b, offs)
	}
	b.StartObject(8)
	b.PrependUint32Slot(0, 3, 0)
	b.PrependUOffsetTSlot(1, codesV, 0)
	b.PrependUOffsetTSlot(2, sgV, 0)
	b.PrependUOffsetTSlot(3, desc, 0)
	b.PrependUOffsetTSlot(4, bufV, 0)
	if metaV != 0 {
		b.PrependUOffsetTSlot(6, metaV, 0)
	}
	root := b.EndObject()
	if m.NoFileIdentifier {
		b.Finish(root)
	} else {
		b.FinishWithFileIdentifier(root, []byte("TFL3"))
	}
	return b.FinishedBytes()
}

// subgraph writes m's tensors and operators as one subgraph table; codes
// writes the operator codes (between the tensors and the operators, where
// single-subgraph models have always had them) when withCodes is set.
func (m *Model) subgraph(b *flatbuffers.Builder, bufIndex []int, codeIndex map[opKey]int, codes func(*flatbuffers.Builder), withCodes bool, sgNameText string) flatbuffers.UOffsetT {
	tensorOffs := make([]flatbuffers.UOffsetT, len(m.tensors))
	for i, t := range m.tensors {
		name := b.CreateString(t.name)
		shape := intVector(b, i32s(t.shape))
		var q flatbuffers.UOffsetT
		if t.quant != nil {
			scale := floatVector(b, t.quant.Scale)
			b.StartVector(8, len(t.quant.ZeroPoint), 8)
			for k := len(t.quant.ZeroPoint) - 1; k >= 0; k-- {
				b.PrependInt64(t.quant.ZeroPoint[k])
			}
			zp := b.EndVector(len(t.quant.ZeroPoint))
			b.StartObject(7)
			b.PrependUOffsetTSlot(2, scale, 0)
			b.PrependUOffsetTSlot(3, zp, 0)
			b.PrependInt32Slot(6, int32(t.quant.Axis), 0)
			q = b.EndObject()
		}
		b.StartObject(8)
		b.PrependUOffsetTSlot(0, shape, 0)
		b.PrependByteSlot(1, byte(t.dtype), 0)
		b.PrependUint32Slot(2, uint32(bufIndex[i]), 0)
		b.PrependUOffsetTSlot(3, name, 0)
		if q != 0 {
			b.PrependUOffsetTSlot(4, q, 0)
		}
		b.PrependBoolSlot(5, t.variable, false)
		tensorOffs[i] = b.EndObject()
	}
	if withCodes {
		codes(b)
	}
	opOffs := make([]flatbuffers.UOffsetT, len(m.ops))
	for i, o := range m.ops {
		ins := intVector(b, i32s(o.inputs))
		outs := intVector(b, i32s(o.outputs))
		var opt, custOpt flatbuffers.UOffsetT
		if o.customOpts != nil {
			custOpt = b.CreateByteVector(o.customOpts)
		}
		if o.opts != nil {
			vecs := make([]flatbuffers.UOffsetT, len(o.opts.Vectors))
			for k, v := range o.opts.Vectors {
				vecs[k] = intVector(b, v.v)
			}
			strs := make([]flatbuffers.UOffsetT, len(o.opts.Strings))
			for k, v := range o.opts.Strings {
				strs[k] = b.CreateString(v.s)
			}
			maxSlot := 0
			for _, f := range o.opts.Fields {
				maxSlot = max(maxSlot, f.Slot+1)
			}
			for _, v := range o.opts.Vectors {
				maxSlot = max(maxSlot, v.slot+1)
			}
			for _, v := range o.opts.Strings {
				maxSlot = max(maxSlot, v.slot+1)
			}
			b.StartObject(maxSlot)
			for _, f := range o.opts.Fields {
				switch f.Kind {
				case 'b':
					b.PrependByteSlot(f.Slot, byte(int(f.Value)), 255^byte(int(f.Value)))
				case 'i':
					b.PrependInt32Slot(f.Slot, int32(f.Value), ^int32(f.Value))
				case 'f':
					b.PrependFloat32Slot(f.Slot, float32(f.Value), float32(f.Value)+1)
				}
			}
			for k, v := range o.opts.Vectors {
				b.PrependUOffsetTSlot(v.slot, vecs[k], 0)
			}
			for k, v := range o.opts.Strings {
				b.PrependUOffsetTSlot(v.slot, strs[k], 0)
			}
			opt = b.EndObject()
		}
		b.StartObject(9)
		b.PrependUint32Slot(0, uint32(codeIndex[opKey{o.code, o.custom}]), 0)
		b.PrependUOffsetTSlot(1, ins, 0)
		b.PrependUOffsetTSlot(2, outs, 0)
		if o.opts != nil {
			b.PrependByteSlot(3, o.opts.Type, 0)
			b.PrependUOffsetTSlot(4, opt, 0)
		}
		if custOpt != 0 {
			b.PrependUOffsetTSlot(5, custOpt, 0)
		}
		opOffs[i] = b.EndObject()
	}
	tv := offsetVector(b, tensorOffs)
	iv := intVector(b, i32s(m.inputs))
	ov := intVector(b, i32s(m.outputs))
	opv := offsetVector(b, opOffs)
	sgName := b.CreateString(sgNameText)
	b.StartObject(5)
	b.PrependUOffsetTSlot(0, tv, 0)
	b.PrependUOffsetTSlot(1, iv, 0)
	b.PrependUOffsetTSlot(2, ov, 0)
	b.PrependUOffsetTSlot(3, opv, 0)
	b.PrependUOffsetTSlot(4, sgName, 0)
	return b.EndObject()

}

func sgName(k int) string {
	if k == 0 {
		return "main"
	}
	return fmt.Sprintf("subgraph%d", k)
}

// opKey identifies an operator code: builtin code and custom name.
type opKey struct {
	code   model.OpCode
	custom string
}

func emptyBuffer(b *flatbuffers.Builder) flatbuffers.UOffsetT {
	b.StartObject(3)
	return b.EndObject()
}

func intVector(b *flatbuffers.Builder, v []int32) flatbuffers.UOffsetT {
	b.StartVector(4, len(v), 4)
	for i := len(v) - 1; i >= 0; i-- {
		b.PrependInt32(v[i])
	}
	return b.EndVector(len(v))
}

func floatVector(b *flatbuffers.Builder, v []float32) flatbuffers.UOffsetT {
	b.StartVector(4, len(v), 4)
	for i := len(v) - 1; i >= 0; i-- {
		b.PrependFloat32(v[i])
	}
	return b.EndVector(len(v))
}

func offsetVector(b *flatbuffers.Builder, v []flatbuffers.UOffsetT) flatbuffers.UOffsetT {
	b.StartVector(4, len(v), 4)
	for i := len(v) - 1; i >= 0; i-- {
		b.PrependUOffsetT(v[i])
	}
	return b.EndVector(len(v))
}
