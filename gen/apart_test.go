package gen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/layout"
)

// TestApartReasons: in every fused program of the fixtures and reference
// models, each operator either runs in one fused group with the operator
// before it (the last before it not folded into another) or has exactly
// one reason, in layout.txt too, why it runs apart; a view says so.
func TestApartReasons(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "testdata", "*.tflite"))
	if shared := sharedModels(); shared != "" {
		more, _ := filepath.Glob(filepath.Join(shared, "*.tflite"))
		paths = append(paths, more...)
	}
	fused := 0
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		p, _, err := Lower(filepath.Base(path), data, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Apart) == 0 && len(p.Groups) == 0 {
			continue // not lowered with fusion (no operator pair to fuse)
		}
		fused++
		reasons, from := map[int]int{}, map[int]int{}
		for _, a := range p.Apart {
			reasons[a.Op]++
			from[a.Op] = a.From
			if a.Why == "" {
				t.Errorf("%s: operator %d: empty reason", path, a.Op)
			}
			if code := p.Ops[a.From].Code.String(); (code == "RESHAPE" || code == "SQUEEZE") && !strings.Contains(a.Why, "view") {
				t.Errorf("%s: operator %d after a %s: %q", path, a.Op, code, a.Why)
			}
		}
		// The operator before i: i-1, or the last before it not folded
		// into another (gen/fold), which has no reason of its own.
		prev := -1
		for i := range p.Ops {
			if p.Graph.Ops[i].Folded {
				if reasons[i] != 0 {
					t.Errorf("%s: operator %d, folded, has a reason to run apart", path, i)
				}
				continue
			}
			if prev >= 0 {
				g := p.GroupOf(i)
				together := g != nil && g.First <= prev
				if together == (reasons[i] == 1) || reasons[i] > 1 || reasons[i] == 1 && from[i] != prev {
					t.Errorf("%s: operator %d: in a group with %d: %v, reasons %d (from %d)", path, i, prev, together, reasons[i], from[i])
				}
			} else if reasons[i] != 0 {
				t.Errorf("%s: operator %d, the first not folded, has a reason to run apart", path, i)
			}
			prev = i
		}
		files, err := Generate(filepath.Base(path), data, Options{Package: "p", NoTests: true})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(files.Files["layout.txt"]), "not fused    why each operator") {
			t.Errorf("%s: layout.txt does not say why operators run apart", path)
		}
	}
	if fused == 0 {
		t.Fatal("no fused program checked")
	}
}

// TestAccessWeighsWindows: the bytes layout.Access counts for a model's
// input read by a convolution alone are its bytes times the windows that
// cover each (program.Op.InputReads: a 3x3 window of stride 1 nine).
func TestAccessWeighsWindows(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "tiny_conv_int8.tflite"))
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := Lower("tiny_conv_int8.tflite", data, Options{NoFuse: true})
	if err != nil {
		t.Fatal(err)
	}
	op := p.Ops[0]
	if op.Code.String() != "CONV_2D" || op.InputReads < 2 {
		t.Fatalf("operator 0: %s reading its input %d times; want a convolution with a window", op.Code, op.InputReads)
	}
	in := p.Graph.Inputs[0]
	b := p.TensorBuf[in]
	if len(p.Buffers[b].Tensors) != 1 || p.Buffers[b].Last != 0 {
		t.Fatalf("the input's buffer is shared or read later: %+v", p.Buffers[b])
	}
	want := int64(p.Graph.Tensors[in].Bytes() * op.InputReads)
	if got := layout.Access(p)[b]; got != want {
		t.Errorf("input accessed %d bytes, want %d (%d bytes x %d windows)", got, want, p.Graph.Tensors[in].Bytes(), op.InputReads)
	}
}
