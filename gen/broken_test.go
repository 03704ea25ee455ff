package gen

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// brokenGenModel is a float32 graph: x -> op0 -> a -> op1 -> b -> op2 -> c,
// the three operators given, each with one input and one output.
func brokenGenModel(codes [3]model.OpCode, names [4]string, variable bool) []byte {
	m := builder.New("broken generate test")
	var t [4]int
	for i, n := range names {
		if i == 0 && variable {
			t[i] = m.Variable(n, model.Float32, []int{1, 4}, nil)
			continue
		}
		t[i] = m.Tensor(n, model.Float32, []int{1, 4}, nil)
	}
	for i, c := range codes {
		m.Op(c, []int{t[i]}, []int{t[i+1]}, nil)
	}
	if variable {
		m.IO(nil, []int{t[3]})
	} else {
		m.IO([]int{t[0]}, []int{t[3]})
	}
	return m.Bytes()
}

// TestGenerateBrokenModels: model errors come out of Generate unchanged,
// and every operator the generator cannot lower is listed in one error.
func TestGenerateBrokenModels(t *testing.T) {
	relu := model.OpRelu
	good := brokenGenModel([3]model.OpCode{relu, relu, relu}, [4]string{"x", "a", "b", "c"}, false)
	cases := []struct {
		name string
		data []byte
		kind error
		want string
	}{
		{"empty file", nil, model.ErrInvalid,
			`invalid model: file is 0 bytes, too short for a flatbuffer (truncated, or not a model)`},
		{"text file", []byte("package main\n\nfunc main() {}\n"), model.ErrInvalid,
			`invalid model: file identifier is "age ", not "TFL3" (probably not a TensorFlow Lite model), and the file does not read as a model without one: model: corrupt flatbuffer: root table at byte 1801675120 is outside the 29-byte file`},
		{"truncated", good[:len(good)/2], model.ErrInvalid,
			`invalid model: the file looks truncated: it refers to data past its end (buffers: corrupt flatbuffer: buffer 0: offset past the end of the file)`},
		{"no operators", func() []byte {
			m := builder.New("no operators")
			x := m.Tensor("x", model.Float32, []int{4}, nil)
			m.IO([]int{x}, []int{x})
			return m.Bytes()
		}(), model.ErrInvalid,
			`invalid model: model has no operators`},
		{"unsupported operators listed together",
			brokenGenModel([3]model.OpCode{model.OpCustom, relu, model.OpHashtableLookup}, [4]string{"x", "a", "b", "c"}, false),
			model.ErrUnsupported,
			`unsupported model feature: 2 problem(s): operator 0 (CUSTOM ""): no kernel for this custom operator; NPU and EdgeTPU operators need their vendor's runtime (inputs float32[1 4]; outputs float32[1 4]); operator 2 (HASHTABLE_LOOKUP): no kernel for this operator (inputs float32[1 4]; outputs float32[1 4])`},
		{"NPU custom operator reading its own scratch", func() []byte {
			m := builder.New("ethos-u")
			in := m.Tensor("in", model.Int8, []int{1, 4}, builder.PerTensor(0.5, 0))
			cmd := m.Const("cmd", model.Uint8, []int{8}, nil, make([]byte, 8))
			scratch := m.Tensor("scratch", model.Uint8, []int{64}, nil) // written by nothing
			out := m.Tensor("out", model.Int8, []int{1, 4}, builder.PerTensor(0.5, 0))
			m.Custom("ethos-u", []int{cmd, scratch, in}, []int{out}, nil)
			m.IO([]int{in}, []int{out})
			return m.Bytes()
		}(), model.ErrUnsupported,
			`unsupported model feature: 1 problem(s): operator 0 (CUSTOM "ethos-u"): no kernel for this custom operator; NPU and EdgeTPU operators need their vendor's runtime (inputs const uint8[8], uint8[64], int8[1 4]; outputs int8[1 4])`},
		{"73 NPU operators: one entry", func() []byte {
			m := builder.New("ethos-u")
			q := builder.PerTensor(0.5, 0)
			cmd := m.Const("cmd", model.Uint8, []int{8}, nil, make([]byte, 8))
			prev := m.Tensor("in", model.Int8, []int{1, 4}, q)
			in := prev
			for i := range 73 {
				out := m.Tensor(fmt.Sprint("t", i), model.Int8, []int{1, 4 + i%3}, q)
				m.Custom("ethos-u", []int{cmd, prev}, []int{out}, nil)
				prev = out
			}
			m.IO([]int{in}, []int{prev})
			return m.Bytes()
		}(), model.ErrUnsupported,
			`unsupported model feature: 73 problem(s): 73 operators 0, 1, 2, 3, 4, 5 and 67 more (CUSTOM "ethos-u"): no kernel for this custom operator; NPU and EdgeTPU operators need their vendor's runtime`},
		{"tensor types and operators listed together", func() []byte {
			m := builder.New("types")
			x := m.Tensor("x", model.DType(8), []int{4}, nil) // complex64
			y := m.Tensor("y", model.DType(8), []int{4}, nil)
			z := m.Tensor("z", model.Float32, []int{4}, nil)
			w := m.Tensor("w", model.Float32, []int{4}, nil)
			m.Op(model.OpAbs, []int{x}, []int{y}, nil)
			m.Op(model.OpHashtableLookup, []int{z}, []int{w}, nil)
			m.IO([]int{x, z}, []int{y, w})
			return m.Bytes()
		}(), model.ErrUnsupported,
			`unsupported model feature: 6 problem(s): tensor 0 "x": element type complex64 is not supported; tensor 1 "y": element type complex64 is not supported; operator 0 (ABS): type complex64 not supported (float32, int8, int16); operator 1 (HASHTABLE_LOOKUP): no kernel for this operator (inputs float32[4]; outputs float32[4]); graph input/output 0: tensor 0 "x" complex64[4]: element type not supported for model inputs and outputs; graph input/output 2: tensor 1 "y" complex64[4]: element type not supported for model inputs and outputs`},
		{"comment in a variable's name", // Reset's comments name variables
			brokenGenModel([3]model.OpCode{relu, relu, relu}, [4]string{"/**/ evil() //", "a", "b", "c"}, true),
			model.ErrInvalid,
			`invalid model: tensor 0: name "/**/ evil() //" contains a Go comment delimiter`},
	}
	if _, err := Generate("good.tflite", good, Options{Package: "good"}); err != nil {
		t.Fatalf("base model: %v", err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Generate("broken.tflite", c.data, Options{Package: "broken"})
			if err == nil {
				t.Fatal("generated a package")
			}
			if !errors.Is(err, c.kind) {
				t.Errorf("error does not wrap %q", c.kind)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error has several lines")
			}
			if err.Error() != c.want {
				t.Errorf("error\n got: %s\nwant: %s", err, c.want)
			}
		})
	}
}

// TestWideConstantAsView: a float32 constant fed to a kernel input that
// must be in the arena is refused with an error naming the operator
// (found by FuzzGenerateEdits).
func TestWideConstantAsView(t *testing.T) {
	m := builder.New("wide const")
	c := m.ConstF32("c", []int{1, 3}, []float32{1, 2, 3})
	out := m.Tensor("out", model.Float32, []int{1, 3}, nil)
	in := m.Tensor("in", model.Float32, []int{1, 3}, nil)
	sum := m.Tensor("sum", model.Float32, []int{1, 3}, nil)
	m.Op(model.OpSoftmax, []int{c}, []int{out}, &builder.Options{Type: model.UnionSoftmaxOptions, Fields: []builder.Field{builder.Float(model.SoftmaxOptionsBeta, 1)}})
	m.Op(model.OpAdd, []int{out, in}, []int{sum}, &builder.Options{Type: model.UnionAddOptions})
	m.IO([]int{in}, []int{sum})
	_, err := Generate("wide.tflite", m.Bytes(), Options{Package: "p"})
	if err == nil || !strings.Contains(err.Error(), "operator 0 (SOFTMAX)") || strings.Contains(err.Error(), "internal error") {
		t.Fatalf("got %v, want a clear error about operator 0 (SOFTMAX)", err)
	}
}
