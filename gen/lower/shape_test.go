package lower

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// The shape, slice, pad and arg-min/max tests build small single-operator
// models (internal/devtools/builder) from TFLM's kernel tests, generate a package for
// each, build them all into one driver (internal/devtools/e2e) and compare every
// output with TFLM's golden data byte for byte. This covers the lowering's
// generation-time index computation and the kernels together.

// shapeCase is one model run end to end.
type shapeCase struct {
	name    string
	model   []byte
	inputs  [][]byte // one per graph input
	want    [][]byte // one per graph output
	wantErr string   // when set, generation must fail with this text
}

// shapeT describes one tensor of a test model; data makes it a constant.
type shapeT struct {
	dt    model.DType
	shape []int
	data  []byte
	q     *builder.Quant
}

// shapeModel builds a one-operator model; non-constant inputs become graph
// inputs in order and all outputs graph outputs.
func shapeModel(code model.OpCode, opts *builder.Options, ins, outs []shapeT) []byte {
	m := builder.New("shape test")
	var in, out, gin []int
	for i, t := range ins {
		name := fmt.Sprintf("in%d", i)
		if t.data != nil {
			in = append(in, m.Const(name, t.dt, t.shape, t.q, t.data))
			continue
		}
		k := m.Tensor(name, t.dt, t.shape, t.q)
		in = append(in, k)
		gin = append(gin, k)
	}
	for i, t := range outs {
		out = append(out, m.Tensor(fmt.Sprintf("out%d", i), t.dt, t.shape, t.q))
	}
	m.Op(code, in, out, opts)
	m.IO(gin, out)
	return m.Bytes()
}

// shapeOpts builds an options table of the given union type.
func shapeOpts(typ uint8, fields ...builder.Field) *builder.Options {
	return &builder.Options{Type: typ, Fields: fields}
}

// shapeVals encodes values as little-endian elements of type dt.
func shapeVals(dt model.DType, v []float64) []byte {
	b := make([]byte, len(v)*dt.Size())
	for i, x := range v {
		switch dt {
		case model.Int8, model.Uint8:
			b[i] = byte(int8(x))
		case model.Bool:
			if x != 0 {
				b[i] = 1
			}
		case model.Int16:
			binary.LittleEndian.PutUint16(b[2*i:], uint16(int16(x)))
		case model.Int32:
			binary.LittleEndian.PutUint32(b[4*i:], uint32(int32(x)))
		case model.Int64:
			binary.LittleEndian.PutUint64(b[8*i:], uint64(int64(x)))
		case model.Float32:
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(x)))
		default:
			panic("shapeVals: type " + dt.String())
		}
	}
	return b
}

// shapeI32 encodes int32 values.
func shapeI32(v ...int32) []byte {
	f := make([]float64, len(v))
	for i, x := range v {
		f[i] = float64(x)
	}
	return shapeVals(model.Int32, f)
}

// shapeSeq returns 1, 2, ..., n.
func shapeSeq(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i + 1)
	}
	return v
}

// shapeQ returns the per-tensor quantization the test models give int8 and
// int16 tensors (nil for other types).
func shapeQ(dt model.DType) *builder.Quant {
	if dt == model.Int8 || dt == model.Int16 {
		return builder.PerTensor(1, 0)
	}
	return nil
}

// shapeRun generates, builds and runs the cases, for the host and for each
// extra GOARCH given.
func shapeRun(t *testing.T, cases []shapeCase, arches ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs generated code")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go tool not found")
	}
	var pkgs []e2e.Package
	var jobs []e2e.Job
	var run []shapeCase
	for i, c := range cases {
		pkg := fmt.Sprintf("c%03d", i)
		res, err := testGenerate(c.name+".tflite", c.model, difftest.EmitOptions{Package: pkg})
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: generate error %v, want one containing %q", c.name, err, c.wantErr)
			} else {
				t.Logf("%s: rejected as expected: %v", c.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: generate: %v", c.name, err)
			continue
		}
		if shapeEmpty(c.want) {
			// Nothing to compare, and a model whose only operator emits no
			// call is the emitter's business: generating it is enough.
			continue
		}
		pkgs = append(pkgs, e2e.Package{Name: pkg, Files: res.Files})
		jobs = append(jobs, e2e.Job{Package: pkg, Inputs: c.inputs, Invokes: 1})
		run = append(run, c)
	}
	if len(pkgs) == 0 {
		return
	}
	for _, arch := range append([]string{""}, arches...) {
		var env []string
		if arch != "" {
			env = []string{"GOARCH=" + arch}
		}
		mod, err := e2e.Build(t.TempDir(), pkgs, env...)
		if err != nil {
			t.Fatal(err)
		}
		var runner []string
		if arch == "arm" {
			// 32-bit ARM runs under qemu-user when it is installed; without
			// it the build alone still checks the 32-bit target.
			if q, err := exec.LookPath("qemu-arm"); err == nil {
				runner = []string{q}
			}
		}
		results, err := mod.Run(jobs, runner...)
		if err != nil && arch != "" && strings.Contains(err.Error(), "exec format error") {
			t.Logf("GOARCH=%s: built, but this machine cannot run the binary: %v", arch, err)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range results {
			c := run[i]
			if len(r.Outputs) != 1 || len(r.Outputs[0]) != len(c.want) {
				t.Errorf("%s %s: got %d invokes / outputs, want 1 / %d", arch, c.name, len(r.Outputs), len(c.want))
				continue
			}
			for o, want := range c.want {
				if got := r.Outputs[0][o]; !bytes.Equal(got, want) {
					t.Errorf("%s %s: output %d\n got % x\nwant % x", arch, c.name, o, got, want)
				}
			}
		}
	}
}

// shapeEmpty reports whether every expected output has zero bytes.
func shapeEmpty(want [][]byte) bool {
	for _, w := range want {
		if len(w) > 0 {
			return false
		}
	}
	return true
}

// BuiltinOptions union types of tables without fields that the tests
// write (schema order); the others are internal/model's Union constants.
const (
	shapeOptPad        = 22
	shapeOptTranspose  = 26
	shapeOptPadV2      = 43
	shapeOptSlice      = 48
	shapeOptExpandDims = 52
)

// shapeViewModel builds x -> PAD -> t1 -> view -> t2 -> PAD -> y with
// zero paddings, so the view's input and output are intermediate tensors
// read and written by real kernels around the alias. consts are extra
// constant inputs of the view operator.
func shapeViewModel(code model.OpCode, opts *builder.Options, in shapeT, consts []shapeT, out shapeT) []byte {
	m := builder.New("view test")
	zeroPads := func(rank int) int {
		return m.Const(fmt.Sprintf("pads%d", rank), model.Int32, []int{rank, 2}, nil, make([]byte, 8*rank))
	}
	x := m.Tensor("x", in.dt, in.shape, in.q)
	t1 := m.Tensor("t1", in.dt, in.shape, in.q)
	m.Op(model.OpPad, []int{x, zeroPads(len(in.shape))}, []int{t1}, nil)
	ins := []int{t1}
	for i, c := range consts {
		ins = append(ins, m.Const(fmt.Sprintf("k%d", i), c.dt, c.shape, c.q, c.data))
	}
	t2 := m.Tensor("t2", out.dt, out.shape, out.q)
	m.Op(code, ins, []int{t2}, opts)
	y := m.Tensor("y", out.dt, out.shape, out.q)
	m.Op(model.OpPad, []int{t2, zeroPads(len(out.shape))}, []int{y}, nil)
	m.IO([]int{x}, []int{y})
	return m.Bytes()
}

// TestShapeViews covers RESHAPE, SQUEEZE and EXPAND_DIMS: activations are
// aliased (no call), constants copied, and shapes validated as TFLM's
// reshape_common.cc, squeeze.cc and expand_dims.cc do.
func TestShapeViews(t *testing.T) {
	f32 := func(shape ...int) shapeT { return shapeT{dt: model.Float32, shape: shape} }
	i32 := func(v ...int32) shapeT { return shapeT{dt: model.Int32, shape: []int{len(v)}, data: shapeI32(v...)} }
	vals := shapeVals(model.Float32, shapeSeq(6))
	reshapeOpts := func(s ...int32) *builder.Options {
		o := builder.Options{Type: model.UnionReshapeOptions}.IntVector(model.ReshapeOptionsNewShape, s)
		return &o
	}
	squeezeOpts := func(s ...int32) *builder.Options {
		o := builder.Options{Type: model.UnionSqueezeOptions}.IntVector(model.SqueezeOptionsSqueezeDims, s)
		return &o
	}
	i8 := shapeT{dt: model.Int8, shape: []int{1, 4}, q: shapeQ(model.Int8)}
	i8out := shapeT{dt: model.Int8, shape: []int{2, 2}, q: shapeQ(model.Int8)}
	cases := []shapeCase{
		// reshape_test.cc: the new shape from input 1 (with -1), from the
		// options, or absent.
		{name: "ReshapeShapeInput", model: shapeViewModel(model.OpReshape, nil, f32(2, 3), []shapeT{i32(3, -1)}, f32(3, 2)),
			inputs: [][]byte{vals}, want: [][]byte{vals}},
		{name: "ReshapeNewShapeOption", model: shapeViewModel(model.OpReshape, reshapeOpts(-1), f32(2, 3), nil, f32(6)),
			inputs: [][]byte{vals}, want: [][]byte{vals}},
		{name: "ReshapeInt8NoShape", model: shapeViewModel(model.OpReshape, nil, i8, nil, i8out),
			inputs: [][]byte{{1, 0x80, 0x7f, 3}}, want: [][]byte{{1, 0x80, 0x7f, 3}}},
		{name: "ReshapeMismatch", model: shapeViewModel(model.OpReshape, nil, f32(2, 3), []shapeT{i32(2, 2)}, f32(3, 2)),
			wantErr: "does not match the output shape"},
		{name: "ReshapeCount", model: shapeViewModel(model.OpReshape, nil, f32(2, 3), nil, f32(5)), wantErr: "elements"},
		{name: "ReshapeType", model: shapeViewModel(model.OpReshape, nil, f32(2, 3), nil, shapeT{dt: model.Int32, shape: []int{6}}), wantErr: "differs"},
		// squeeze_test.cc: all size-1 dimensions, or selected ones.
		{name: "SqueezeAll", model: shapeViewModel(model.OpSqueeze, nil, f32(1, 6, 1), nil, f32(6)), inputs: [][]byte{vals}, want: [][]byte{vals}},
		{name: "SqueezeSelected", model: shapeViewModel(model.OpSqueeze, squeezeOpts(-1), f32(1, 6, 1), nil, f32(1, 6)),
			inputs: [][]byte{vals}, want: [][]byte{vals}},
		{name: "SqueezeNotOne", model: shapeViewModel(model.OpSqueeze, squeezeOpts(1), f32(1, 6, 1), nil, f32(6)), wantErr: "squeeze dimension 1"},
		// expand_dims_test.cc: positive and negative axis.
		{name: "ExpandDimsNegative", model: shapeViewModel(model.OpExpandDims, nil, shapeT{dt: model.Int16, shape: []int{2, 3}}, []shapeT{i32(-1)},
			shapeT{dt: model.Int16, shape: []int{2, 3, 1}}),
			inputs: [][]byte{shapeVals(model.Int16, shapeSeq(6))}, want: [][]byte{shapeVals(model.Int16, shapeSeq(6))}},
		{name: "ExpandDimsPositive", model: shapeViewModel(model.OpExpandDims, nil, i8, []shapeT{i32(0)}, shapeT{dt: model.Int8, shape: []int{1, 1, 4}, q: shapeQ(model.Int8)}),
			inputs: [][]byte{{1, 0x80, 0x7f, 3}}, want: [][]byte{{1, 0x80, 0x7f, 3}}},
		{name: "ExpandDimsWrongShape", model: shapeViewModel(model.OpExpandDims, nil, f32(2, 3), []shapeT{i32(1)}, f32(2, 3, 1)),
			wantErr: "output shape"},
		// A constant input is copied (copyConst) instead of aliased.
		{name: "ReshapeConst", model: func() []byte {
			m := builder.New("const reshape")
			x := m.Tensor("x", model.Float32, []int{2}, nil)
			k := m.Const("k", model.Float32, []int{1, 2}, nil, shapeVals(model.Float32, []float64{7, -8}))
			z := m.Tensor("z", model.Float32, []int{2}, nil)
			y := m.Tensor("y", model.Float32, []int{4}, nil)
			m.Op(model.OpReshape, []int{k}, []int{z}, reshapeOpts(2))
			m.Op(model.OpConcatenation, []int{x, z}, []int{y}, shapeOpts(model.UnionConcatenationOptions, builder.Int(model.ConcatenationOptionsAxis, 0)))
			m.IO([]int{x}, []int{y})
			return m.Bytes()
		}(), inputs: [][]byte{shapeVals(model.Float32, []float64{1, 2})}, want: [][]byte{shapeVals(model.Float32, []float64{1, 2, 7, -8})}},
	}
	shapeRun(t, cases)
}

// shapeConcatCase builds a CONCATENATION model.
func shapeConcatCase(name string, dt model.DType, axis int, shapes [][]int, vals [][]float64, outShape []int, want []float64) shapeCase {
	var ins []shapeT
	var inputs [][]byte
	for i, s := range shapes {
		ins = append(ins, shapeT{dt: dt, shape: s, q: shapeQ(dt)})
		inputs = append(inputs, shapeVals(dt, vals[i]))
	}
	return shapeCase{name: name,
		model:  shapeModel(model.OpConcatenation, shapeOpts(model.UnionConcatenationOptions, builder.Int(model.ConcatenationOptionsAxis, axis)), ins, []shapeT{{dt: dt, shape: outShape, q: shapeQ(dt)}}),
		inputs: inputs, want: [][]byte{shapeVals(dt, want)}}
}

// TestShapeConcatenation ports concatenation_test.cc.
func TestShapeConcatenation(t *testing.T) {
	in1, in2 := shapeSeq(6), []float64{7, 8, 9, 10, 11, 12}
	in5a, in5b := shapeSeq(12), []float64{13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24}
	axis0 := shapeSeq(12)
	axis1 := []float64{1, 2, 3, 7, 8, 9, 4, 5, 6, 10, 11, 12}
	five4 := []float64{1, 2, 3, 13, 14, 15, 4, 5, 6, 16, 17, 18, 7, 8, 9, 19, 20, 21, 10, 11, 12, 22, 23, 24}
	cases := []shapeCase{
		shapeConcatCase("BoolTypeOneInput", model.Bool, 1, [][]int{{2, 1, 2}}, [][]float64{{1, 0, 0, 1}}, []int{2, 1, 2}, []float64{1, 0, 0, 1}),
		shapeConcatCase("BoolTypeTwoInputs", model.Bool, 1, [][]int{{2, 1, 2}, {2, 3, 2}}, [][]float64{{0, 0, 0, 0}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
			[]int{2, 4, 2}, []float64{0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1}),
		shapeConcatCase("TwoInputsAllAxesCombinations0", model.Float32, 0, [][]int{{2, 3}, {2, 3}}, [][]float64{in1, in2}, []int{4, 3}, axis0),
		shapeConcatCase("TwoInputsAllAxesCombinations-2", model.Float32, -2, [][]int{{2, 3}, {2, 3}}, [][]float64{in1, in2}, []int{4, 3}, axis0),
		shapeConcatCase("TwoInputsAllAxesCombinations1", model.Float32, 1, [][]int{{2, 3}, {2, 3}}, [][]float64{in1, in2}, []int{2, 6}, axis1),
		shapeConcatCase("TwoInputsAllAxesCombinations-1", model.Float32, -1, [][]int{{2, 3}, {2, 3}}, [][]float64{in1, in2}, []int{2, 6}, axis1),
		shapeConcatCase("TwoInputsQuantizedInt8", model.Int8, 2, [][]int{{2, 1, 2}, {2, 1, 2}}, [][]float64{{1, 2, 3, 4}, {5, 6, 7, 8}}, []int{2, 1, 4}, []float64{1, 2, 5, 6, 3, 4, 7, 8}),
		shapeConcatCase("TwoInputsQuantizedInt16", model.Int16, 2, [][]int{{2, 1, 2}, {2, 1, 2}}, [][]float64{{1, 2, 3, 4}, {5, 6, 7, 8}}, []int{2, 1, 4}, []float64{1, 2, 5, 6, 3, 4, 7, 8}),
		shapeConcatCase("ThreeDimensionalTwoInputsDifferentShapes", model.Float32, 1, [][]int{{2, 1, 2}, {2, 3, 2}}, [][]float64{{1, 3, 4, 7}, shapeSeq(12)},
			[]int{2, 4, 2}, []float64{1, 3, 1, 2, 3, 4, 5, 6, 4, 7, 7, 8, 9, 10, 11, 12}),
		shapeConcatCase("TwoInputsFiveDimensionsAllAxesCombinations0", model.Float32, 0, [][]int{{2, 1, 2, 1, 3}, {2, 1, 2, 1, 3}}, [][]float64{in5a, in5b}, []int{4, 1, 2, 1, 3}, shapeSeq(24)),
		shapeConcatCase("TwoInputsFiveDimensionsAllAxesCombinations4", model.Float32, 4, [][]int{{2, 1, 2, 1, 3}, {2, 1, 2, 1, 3}}, [][]float64{in5a, in5b}, []int{2, 1, 2, 1, 6}, five4),
		shapeConcatCase("TwoInputsFiveDimensionsAllAxesCombinations-2", model.Float32, -2, [][]int{{2, 1, 2, 1, 3}, {2, 1, 2, 1, 3}}, [][]float64{in5a, in5b}, []int{2, 1, 2, 2, 3}, five4),
		shapeConcatCase("TwoInputsQuantizedInt8FiveDimensions", model.Int8, 2, [][]int{{2, 1, 2, 1, 3}, {2, 1, 2, 1, 3}}, [][]float64{in5a, in5b}, []int{2, 1, 4, 1, 3},
			[]float64{1, 2, 3, 4, 5, 6, 13, 14, 15, 16, 17, 18, 7, 8, 9, 10, 11, 12, 19, 20, 21, 22, 23, 24}),
		shapeConcatCase("Int64ThreeInputs", model.Int64, 0, [][]int{{1, 2}, {2, 2}, {1, 2}}, [][]float64{{-1, 1 << 40}, {3, 4, 5, 6}, {7, -8}},
			[]int{4, 2}, []float64{-1, 1 << 40, 3, 4, 5, 6, 7, -8}),
	}
	// A constant input is read from read-only data (moveStridedConst).
	cases = append(cases, shapeCase{name: "ConstInput",
		model: shapeModel(model.OpConcatenation, shapeOpts(model.UnionConcatenationOptions, builder.Int(model.ConcatenationOptionsAxis, 1)),
			[]shapeT{{dt: model.Float32, shape: []int{2, 1}}, {dt: model.Float32, shape: []int{2, 2}, data: shapeVals(model.Float32, []float64{5, 6, 7, 8})}},
			[]shapeT{{dt: model.Float32, shape: []int{2, 3}}}),
		inputs: [][]byte{shapeVals(model.Float32, []float64{1, 2})},
		want:   [][]byte{shapeVals(model.Float32, []float64{1, 5, 6, 2, 7, 8})}})
	// TFLM's Prepare rejects int8 inputs quantized differently from the
	// output and any fused activation.
	bad := shapeModel(model.OpConcatenation, shapeOpts(model.UnionConcatenationOptions, builder.Int(model.ConcatenationOptionsAxis, 0)),
		[]shapeT{{dt: model.Int8, shape: []int{1}, q: builder.PerTensor(0.5, 0)}, {dt: model.Int8, shape: []int{1}, q: builder.PerTensor(1, 0)}},
		[]shapeT{{dt: model.Int8, shape: []int{2}, q: builder.PerTensor(1, 0)}})
	act := shapeModel(model.OpConcatenation, shapeOpts(model.UnionConcatenationOptions, builder.Int(model.ConcatenationOptionsAxis, 0), builder.Byte(model.ConcatenationOptionsFusedActivationFunction, 1)),
		[]shapeT{{dt: model.Float32, shape: []int{1}}, {dt: model.Float32, shape: []int{1}}}, []shapeT{{dt: model.Float32, shape: []int{2}}})
	cases = append(cases, shapeCase{name: "Int8Rescale", model: bad, wantErr: "quantization"},
		shapeCase{name: "FusedActivation", model: act, wantErr: "fused activation"})
	shapeRun(t, cases)
}

// TestShapePackUnpackSplit ports pack_test.cc, unpack_test.cc and
// split_test.cc.
func TestShapePackUnpackSplit(t *testing.T) {
	pack := func(name string, dt model.DType, axis int, inShape []int, vals [][]float64, outShape []int, want []float64) shapeCase {
		var ins []shapeT
		var inputs [][]byte
		for _, v := range vals {
			ins = append(ins, shapeT{dt: dt, shape: inShape})
			inputs = append(inputs, shapeVals(dt, v))
		}
		return shapeCase{name: name,
			model:  shapeModel(model.OpPack, shapeOpts(model.UnionPackOptions, builder.Int(model.PackOptionsValuesCount, len(vals)), builder.Int(model.PackOptionsAxis, axis)), ins, []shapeT{{dt: dt, shape: outShape}}),
			inputs: inputs, want: [][]byte{shapeVals(dt, want)}}
	}
	unpack := func(name string, dt model.DType, axis int, inShape []int, vals []float64, outShape []int, want [][]float64) shapeCase {
		var outs []shapeT
		var w [][]byte
		for _, v := range want {
			outs = append(outs, shapeT{dt: dt, shape: outShape})
			w = append(w, shapeVals(dt, v))
		}
		return shapeCase{name: name,
			model:  shapeModel(model.OpUnpack, shapeOpts(model.UnionUnpackOptions, builder.Int(model.UnpackOptionsNum, len(want)), builder.Int(model.UnpackOptionsAxis, axis)), []shapeT{{dt: dt, shape: inShape}}, outs),
			inputs: [][]byte{shapeVals(dt, vals)}, want: w}
	}
	split := func(name string, dt model.DType, axis int32, inShape []int, vals []float64, outShape []int, want [][]float64) shapeCase {
		var outs []shapeT
		var w [][]byte
		for _, v := range want {
			outs = append(outs, shapeT{dt: dt, shape: outShape})
			w = append(w, shapeVals(dt, v))
		}
		return shapeCase{name: name,
			model: shapeModel(model.OpSplit, shapeOpts(model.UnionSplitOptions, builder.Int(model.SplitOptionsNumSplits, len(want))),
				[]shapeT{{dt: model.Int32, shape: []int{1}, data: shapeI32(axis)}, {dt: dt, shape: inShape}}, outs),
			inputs: [][]byte{shapeVals(dt, vals)}, want: w}
	}
	p1, p2, p3 := []float64{1, 4}, []float64{2, 5}, []float64{3, 6}
	m1, m2 := shapeSeq(6), []float64{7, 8, 9, 10, 11, 12}
	mWant := []float64{1, 2, 3, 7, 8, 9, 4, 5, 6, 10, 11, 12}
	s16 := shapeSeq(16)
	cases := []shapeCase{
		pack("PackFloatThreeInputs", model.Float32, 0, []int{2}, [][]float64{p1, p2, p3}, []int{3, 2}, []float64{1, 4, 2, 5, 3, 6}),
		pack("PackFloatThreeInputsDifferentAxis", model.Float32, 1, []int{2}, [][]float64{p1, p2, p3}, []int{2, 3}, shapeSeq(6)),
		pack("PackFloatThreeInputsNegativeAxis", model.Float32, -1, []int{2}, [][]float64{p1, p2, p3}, []int{2, 3}, shapeSeq(6)),
		pack("PackFloatMultiDimensions", model.Float32, 1, []int{2, 3}, [][]float64{m1, m2}, []int{2, 2, 3}, mWant),
		pack("PackInt8MultiDimensions", model.Int8, 1, []int{2, 3}, [][]float64{m1, m2}, []int{2, 2, 3}, mWant),
		pack("PackInt16MultiDimensions", model.Int16, 1, []int{2, 3}, [][]float64{m1, m2}, []int{2, 2, 3}, mWant),
		pack("PackInt32MultiDimensions", model.Int32, 1, []int{2, 3}, [][]float64{m1, m2}, []int{2, 2, 3}, mWant),
		unpack("UnpackFloatThreeOutputs", model.Float32, 0, []int{3, 2}, shapeSeq(6), []int{2}, [][]float64{{1, 2}, {3, 4}, {5, 6}}),
		unpack("UnpackFloatThreeOutputsNegativeAxisTwo", model.Float32, -2, []int{3, 2}, shapeSeq(6), []int{2}, [][]float64{{1, 2}, {3, 4}, {5, 6}}),
		unpack("UnpackFloatOneOutput", model.Float32, 0, []int{1, 6}, shapeSeq(6), []int{6}, [][]float64{shapeSeq(6)}),
		unpack("UnpackInt16ThreeOutputs", model.Int16, 0, []int{3, 2}, shapeSeq(6), []int{2}, [][]float64{{1, 2}, {3, 4}, {5, 6}}),
		unpack("UnpackInt32ThreeOutputs", model.Int32, 0, []int{3, 2}, shapeSeq(6), []int{2}, [][]float64{{1, 2}, {3, 4}, {5, 6}}),
		unpack("UnpackAxis1", model.Int8, 1, []int{3, 2}, shapeSeq(6), []int{3}, [][]float64{{1, 3, 5}, {2, 4, 6}}),
		split("TwoSplitFourDimensionalAxisZero", model.Float32, 0, []int{2, 2, 2, 2}, s16, []int{1, 2, 2, 2}, [][]float64{shapeSeq(8), {9, 10, 11, 12, 13, 14, 15, 16}}),
		split("TwoSplitFourDimensionalAxisOne", model.Float32, 1, []int{2, 2, 2, 2}, s16, []int{2, 1, 2, 2}, [][]float64{{1, 2, 3, 4, 9, 10, 11, 12}, {5, 6, 7, 8, 13, 14, 15, 16}}),
		split("TwoSplitFourDimensionalAxisTwo", model.Float32, 2, []int{2, 2, 2, 2}, s16, []int{2, 2, 1, 2}, [][]float64{{1, 2, 5, 6, 9, 10, 13, 14}, {3, 4, 7, 8, 11, 12, 15, 16}}),
		split("TwoSplitFourDimensionalAxisThree", model.Float32, 3, []int{2, 2, 2, 2}, s16, []int{2, 2, 2, 1}, [][]float64{{1, 3, 5, 7, 9, 11, 13, 15}, {2, 4, 6, 8, 10, 12, 14, 16}}),
		split("TwoSplitFourDimensionalNegativeAxis", model.Float32, -4, []int{2, 2, 2, 2}, s16, []int{1, 2, 2, 2}, [][]float64{shapeSeq(8), {9, 10, 11, 12, 13, 14, 15, 16}}),
		split("FourSplit", model.Float32, 0, []int{4}, shapeSeq(4), []int{1}, [][]float64{{1}, {2}, {3}, {4}}),
		split("TwoSplitOneDimensional", model.Float32, 0, []int{2}, shapeSeq(2), []int{1}, [][]float64{{1}, {2}}),
		split("TwoSplitFourDimensionalQuantized", model.Int8, 1, []int{2, 2, 2, 2}, s16, []int{2, 1, 2, 2}, [][]float64{{1, 2, 3, 4, 9, 10, 11, 12}, {5, 6, 7, 8, 13, 14, 15, 16}}),
		split("TwoSplitFourDimensionalQuantized32", model.Int32, 1, []int{2, 2, 2, 2}, s16, []int{2, 1, 2, 2}, [][]float64{{1, 2, 3, 4, 9, 10, 11, 12}, {5, 6, 7, 8, 13, 14, 15, 16}}),
	}
	shapeRun(t, cases)
}

// TestShapeReshapeInRealModels lowers the RESHAPE operators of the shared
// reference models: each must become an alias with no kernel call.
func TestShapeReshapeInRealModels(t *testing.T) {
	shared := e2e.SharedDir(t)
	files, _ := filepath.Glob(filepath.Join(shared, "models", "*.tflite"))
	n := 0
	for _, f := range files {
		g := e2e.ParseModel(t, f)
		for _, op := range g.Ops {
			if op.Code != model.OpReshape {
				continue
			}
			c := &opCtx{G: g, Op: op}
			if err := lowerReshape(c); err != nil {
				t.Errorf("%s: %v", g.Name, err)
				continue
			}
			if len(c.calls) != 0 || len(c.aliases) != 1 {
				t.Errorf("%s: %s: %d calls and %d aliases, want an alias only", g.Name, op.Describe(), len(c.calls), len(c.aliases))
			}
			n++
		}
	}
	if n == 0 {
		t.Skip("no RESHAPE in the shared models")
	}
}

// shapeCSV reads a comma-separated list of integers.
func shapeCSV(t *testing.T, path string) []float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v []float64
	for _, f := range strings.FieldsFunc(string(b), func(r rune) bool { return r == ',' || r == '\n' || r == '\r' || r == ' ' }) {
		x, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		v = append(v, float64(x))
	}
	return v
}

// shapeSeanet runs TFLM's int16 seanet vectors of one operator
// (shared/vectors/seanet/<op>/): every model with its input and golden CSV,
// for the host and, where qemu-arm is installed, for 32-bit GOARCH=arm.
func shapeSeanet(t *testing.T, op string) {
	dir := filepath.Join(e2e.SharedDir(t), "vectors", "seanet", op)
	models, _ := filepath.Glob(filepath.Join(dir, "*.tflite"))
	if len(models) == 0 {
		t.Skipf("no seanet %s vectors in %s", op, dir)
	}
	var cases []shapeCase
	for _, m := range models {
		base := strings.TrimSuffix(filepath.Base(m), ".tflite")
		data, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		in := shapeCSV(t, filepath.Join(dir, base+"_input0_int16.csv"))
		want := shapeCSV(t, filepath.Join(dir, base+"_golden_int16.csv"))
		cases = append(cases, shapeCase{name: base, model: data,
			inputs: [][]byte{shapeVals(model.Int16, in)}, want: [][]byte{shapeVals(model.Int16, want)}})
	}
	shapeRun(t, cases, "arm")
}

// TestArgMinMaxTFLM ports arg_min_max_test.cc (int8 values quantized with
// scale 0.5 and zero point -9 as the C++ test does) and adds int16 input,
// int64 output and the reference comparator's NaN rules.
func TestArgMinMaxTFLM(t *testing.T) {
	argCase := func(name string, code model.OpCode, dt, ot model.DType, in []int, axis int32, vals []float64, want []float64) shapeCase {
		var q *builder.Quant
		if dt == model.Int8 || dt == model.Int16 {
			q = builder.PerTensor(0.5, -9)
			if dt == model.Int16 {
				q = builder.PerTensor(0.5, 0)
			}
		}
		out := append(append([]int{}, in[:(int(axis)+len(in))%len(in)]...), in[(int(axis)+len(in))%len(in)+1:]...)
		typ, slot := uint8(model.UnionArgMaxOptions), model.ArgMaxOptionsOutputType
		if code == model.OpArgMin {
			typ, slot = model.UnionArgMinOptions, model.ArgMinOptionsOutputType
		}
		return shapeCase{name: name,
			model: shapeModel(code, shapeOpts(typ, builder.Byte(slot, int(ot))),
				[]shapeT{{dt: dt, shape: in, q: q}, {dt: model.Int32, shape: []int{1}, data: shapeI32(axis)}},
				[]shapeT{{dt: ot, shape: out}}),
			inputs: [][]byte{shapeVals(dt, vals)}, want: [][]byte{shapeVals(ot, want)}}
	}
	// Quantized inputs of 1, 9, 7, 3 (scale 0.5, zero point -9).
	qv := func(v ...float64) []float64 {
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = math.Round(x/0.5) - 9
		}
		return out
	}
	nan := math.NaN()
	cases := []shapeCase{
		argCase("GetMaxArgFloat", model.OpArgMax, model.Float32, model.Int32, []int{1, 1, 1, 4}, 3, []float64{0.1, 0.9, 0.7, 0.3}, []float64{1}),
		argCase("GetMinArgFloat", model.OpArgMin, model.Float32, model.Int32, []int{1, 1, 1, 4}, 3, []float64{0.1, 0.9, 0.7, 0.3}, []float64{0}),
		argCase("GetMaxArgInt8", model.OpArgMax, model.Int8, model.Int32, []int{1, 1, 1, 4}, 3, qv(1, 9, 7, 3), []float64{1}),
		argCase("GetMinArgInt8", model.OpArgMin, model.Int8, model.Int32, []int{1, 1, 1, 4}, 3, qv(1, 9, 7, 3), []float64{0}),
		argCase("GetMaxArgMulDimensions", model.OpArgMax, model.Int8, model.Int32, []int{1, 1, 2, 4}, 3, qv(1, 2, 7, 8, 1, 9, 7, 3), []float64{3, 1}),
		argCase("GetMinArgMulDimensions", model.OpArgMin, model.Int8, model.Int32, []int{1, 1, 2, 4}, 3, qv(1, 2, 7, 8, 1, 9, 7, 3), []float64{0, 0}),
		argCase("GetMaxArgNegativeAxis", model.OpArgMax, model.Int8, model.Int32, []int{1, 1, 2, 4}, -2, qv(1, 2, 7, 8, 1, 9, 7, 3), []float64{0, 1, 0, 0}),
		argCase("Int16Int64", model.OpArgMax, model.Int16, model.Int64, []int{2, 3}, 0, []float64{-32768, 32767, 5, 0, 32767, 6}, []float64{1, 0, 1}),
		argCase("FloatInt64Min", model.OpArgMin, model.Float32, model.Int64, []int{3, 2}, 1, []float64{1, -1, 2, 2, -3, 0}, []float64{1, 0, 0}),
		argCase("FloatNaN", model.OpArgMax, model.Float32, model.Int32, []int{1, 4}, 1, []float64{nan, 1, 3, nan}, []float64{2}),
	}
	cases = append(cases, shapeCase{name: "OutputTypeMismatch",
		model: shapeModel(model.OpArgMax, shapeOpts(model.UnionArgMaxOptions, builder.Byte(model.ArgMaxOptionsOutputType, int(model.Int64))),
			[]shapeT{{dt: model.Float32, shape: []int{4}}, {dt: model.Int32, shape: []int{1}, data: shapeI32(0)}},
			[]shapeT{{dt: model.Int32, shape: []int{}}}), wantErr: "output_type"})
	shapeRun(t, cases)
}
