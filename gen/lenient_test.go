package gen

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/run"
	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/oracle"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// TestLenientAsTFLM: models that TFLite Micro runs although they bend the
// schema's conventions are generated too, and give TFLM's outputs: no
// "TFL3" file identifier, and a metadata name that appears twice (the
// first entry is the one read).
func TestLenientAsTFLM(t *testing.T) {
	relu := func(edit func(m *builder.Model)) []byte {
		m := builder.New("lenient")
		x := m.Tensor("x", model.Float32, []int{1, 4}, nil)
		y := m.Tensor("y", model.Float32, []int{1, 4}, nil)
		m.Op(model.OpRelu, []int{x}, []int{y}, nil)
		m.IO([]int{x}, []int{y})
		edit(m)
		return m.Bytes()
	}
	cases := []struct {
		name string
		data []byte
	}{
		{"no file identifier", relu(func(m *builder.Model) { m.NoFileIdentifier = true })},
		{"metadata name twice", relu(func(m *builder.Model) {
			m.Metadata("min_runtime_version", []byte("1.5.0\x00"))
			m.Metadata("min_runtime_version", []byte("1.14.0\x00"))
		})},
	}
	o := oracle.New(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "no file identifier" && bytes.Equal(c.data[4:8], []byte("TFL3")) {
				t.Fatal("the builder wrote the identifier")
			}
			g, err := model.Parse("lenient.tflite", c.data)
			if err != nil {
				t.Fatal(err)
			}
			if v, ok := g.Metadata["min_runtime_version"]; ok && string(v) != "1.5.0\x00" {
				t.Errorf("metadata min_runtime_version = %q, want the first entry", v)
			}
			if _, err := Generate("lenient.tflite", c.data, Options{Package: "lenient"}); err != nil {
				t.Fatal(err)
			}
			p, lay, err := Lower("lenient.tflite", c.data, Options{})
			if err != nil {
				t.Fatal(err)
			}
			m, err := run.New(p, lay)
			if err != nil {
				t.Fatal(err)
			}
			in := []float32{-1.5, 0, 2.25, -7}
			for i, v := range in {
				binary.LittleEndian.PutUint32(m.Input(0)[4*i:], math.Float32bits(v))
			}
			m.Invoke()
			var got []float32
			for i := range in {
				got = append(got, math.Float32frombits(binary.LittleEndian.Uint32(m.Output(0)[4*i:])))
			}
			want, err := o.Run(c.data, oracle.Floats(in))
			oracle.SkipIfNotRecorded(t, err, c.name)
			if err != nil {
				t.Fatalf("TFLM: %v", err)
			}
			if !slices.Equal(want[0], oracle.Floats(got)) {
				t.Errorf("got %v, TFLM %v", got, want[0])
			}
		})
	}
}
