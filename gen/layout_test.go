package gen

import (
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// chainModel builds input -> FC(hidden) -> FC(8) -> FC(8) -> FC(4) (int8),
// where only the first layer's width changes with hidden.
func chainModel(hidden int) []byte {
	m := builder.New("layout stability")
	q := builder.PerTensor(0.05, 0)
	in := m.Tensor("input", model.Int8, []int{1, 16}, q)
	prev, prevW := in, 16
	widths := []int{hidden, 8, 8, 4}
	names := []string{"dense_a", "dense_b", "dense_c", "dense_d"}
	for k, w := range widths {
		out := m.Tensor(names[k]+"/out", model.Int8, []int{1, w}, q)
		wt := m.ConstI8(names[k]+"/w", []int{w, prevW}, builder.PerTensor(0.01, 0), make([]int8, w*prevW))
		b := m.ConstI32(names[k]+"/b", []int{w}, builder.PerTensor(0.0005, 0), make([]int32, w))
		m.Op(model.OpFullyConnected, []int{prev, wt, b}, []int{out}, &builder.Options{Type: model.UnionFullyConnectedOptions})
		prev, prevW = out, w
	}
	m.IO([]int{in}, []int{prev})
	return m.Bytes()
}

// tableRows returns the buffer table of layout.txt keyed by name, in order.
func tableRows(t *testing.T, layout []byte) (names []string, rows map[string][]string) {
	t.Helper()
	rows = map[string][]string{}
	in := false
	for _, l := range strings.Split(string(layout), "\n") {
		if strings.HasPrefix(l, " buf ") {
			in = true
			continue
		}
		if in && strings.TrimSpace(l) == "" {
			break
		}
		if in {
			f := strings.Fields(l) // buf offset size ops kind name...
			name := strings.Join(f[5:], " ")
			names = append(names, name)
			rows[name] = f
		}
	}
	return names, rows
}

// TestLayoutStableUnderSmallChange widens one layer and checks that the
// layout report keeps every buffer on the same line, and that buffers the
// change does not touch keep their size and lifetime: a reviewer sees a
// small diff.
func TestLayoutStableUnderSmallChange(t *testing.T) {
	a, err := Generate("chain.tflite", chainModel(8), Options{Package: "chain"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Generate("chain.tflite", chainModel(12), Options{Package: "chain"})
	if err != nil {
		t.Fatal(err)
	}
	na, ra := tableRows(t, a.Files["layout.txt"])
	nb, rb := tableRows(t, b.Files["layout.txt"])
	if strings.Join(na, "|") != strings.Join(nb, "|") {
		t.Fatalf("buffer order changed:\n%v\n%v", na, nb)
	}
	changed := 0
	for _, n := range na {
		x, y := ra[n], rb[n]
		if x[0] != y[0] {
			t.Errorf("%s: line label moved from %s to %s", n, x[0], y[0])
		}
		if strings.HasPrefix(n, "dense_a/out") {
			if x[2] == y[2] {
				t.Errorf("%s: size did not change", n)
			}
			continue
		}
		if x[2] != y[2] || x[3] != y[3] || x[4] != y[4] {
			t.Errorf("%s: unrelated buffer changed: %v -> %v", n, x, y)
		}
		if strings.Join(x, " ") != strings.Join(y, " ") {
			changed++
		}
	}
	t.Logf("%d buffers; besides the widened one, %d lines changed (offsets only)", len(na), changed)
}
