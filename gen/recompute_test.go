package gen

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/gen/run"
	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
)

// runOnce runs p, planned as lay, in-process on input x and returns its
// first output.
func runOnce(t *testing.T, p *program.Program, lay *layout.Layout, x []byte) []byte {
	t.Helper()
	m, err := run.New(p, lay)
	if err != nil {
		t.Fatal(err)
	}
	copy(m.Input(0), x)
	m.Invoke()
	return slices.Clone(m.Output(0))
}

// TestRecompute: -recompute on the mobilenet_v2_int8 example (MobileNet
// V2 0.35, 96x96, 7 blocks) runs its first operators in column strips,
// within the extra multiply-accumulates allowed, with a smaller arena, the
// outputs of the model as written (in-process, random inputs; TinyGo's on
// the board: CI's board step runs the committed example), layout.txt's
// strips section, the same files from two generations. With -io external
// the arena is smaller too; with a tiny extra only stages that compute
// nothing twice may run in strips.
func TestRecompute(t *testing.T) {
	data := builder.MobileNetV2Int8()
	r := rand.New(rand.NewPCG(6, 12))
	for _, ext := range []bool{false, true} {
		off, err := Generate("mobilenet_v2_int8.tflite", data, Options{Package: "m", ExternalIO: ext})
		if err != nil {
			t.Fatal(err)
		}
		on, err := Generate("mobilenet_v2_int8.tflite", data, Options{Package: "m", ExternalIO: ext, Recompute: 10})
		if err != nil {
			t.Fatal(err)
		}
		if !ext {
			again, err := Generate("mobilenet_v2_int8.tflite", data, Options{Package: "m", Recompute: 10})
			if err != nil {
				t.Fatal(err)
			}
			for n, b := range on.Files {
				if !slices.Equal(b, again.Files[n]) {
					t.Errorf("two generations of %s differ", n)
				}
			}
		}
		st := on.Program.Graph.Strips
		if st == nil {
			t.Fatalf("-io external %v: no stage runs in strips", ext)
		}
		extra := float64(st.MACs-st.ModelMACs) / float64(st.ModelMACs) * 100
		t.Logf("-io external %v: arena %d bytes, with -recompute=10%% %d: operators %d-%d in %d strips, %d multiply-accumulates against %d (%+.1f%%)",
			ext, off.Layout.Plan.Size, on.Layout.Plan.Size, st.First, st.Last, st.Count, st.MACs, st.ModelMACs, extra)
		if on.Layout.Plan.Size >= off.Layout.Plan.Size {
			t.Errorf("-io external %v: arena %d, not smaller than %d without strips", ext, on.Layout.Plan.Size, off.Layout.Plan.Size)
		}
		if extra > 10 || st.MACs != on.Program.MACs() || st.ModelMACs != off.Program.MACs() {
			t.Errorf("-io external %v: %d multiply-accumulates (the program's %d) against the model's %d (the program's %d): %+.1f%%, over the 10%% allowed or miscounted",
				ext, st.MACs, on.Program.MACs(), st.ModelMACs, off.Program.MACs(), extra)
		}
		if txt := string(on.Files["layout.txt"]); !strings.Contains(txt, "\nstrips       operators 0-") || !strings.Contains(txt, "strip 1: columns ") {
			t.Errorf("-io external %v: layout.txt has no strips section", ext)
		}
		if ext {
			continue // run.Machine holds the inputs and outputs in its arena
		}
		in := off.Program.Graph.Tensors[off.Program.Graph.Inputs[0]]
		for range 3 {
			x := make([]byte, in.Bytes())
			for i := range x {
				x[i] = byte(r.Uint32())
			}
			if !slices.Equal(runOnce(t, on.Program, on.Layout, x), runOnce(t, off.Program, off.Layout, x)) {
				t.Fatalf("-io external %v: the strips' output differs from the model's", ext)
			}
		}
	}
	few, err := Generate("mobilenet_v2_int8.tflite", data, Options{Package: "m", Recompute: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	if st := few.Program.Graph.Strips; st != nil {
		// A stage of one operator computes nothing twice (its strips'
		// inputs overlap, their outputs do not).
		t.Logf("-recompute=0.01%%: operators %d-%d in %d strips, %+d multiply-accumulates, arena %d", st.First, st.Last, st.Count, st.MACs-st.ModelMACs, few.Layout.Plan.Size)
		if float64(st.MACs-st.ModelMACs) > 0.0001*float64(st.ModelMACs) {
			t.Errorf("-recompute=0.01%%: %+d multiply-accumulates, over the 0.01%% allowed", st.MACs-st.ModelMACs)
		}
	}
}

// TestRecomputeBounded: on a chain of 200 convolutions, where every
// operator ends a candidate stage, -recompute's search stays within the
// time of its plans (at most maxStages of them, each of the whole graph)
// and keeps the outputs.
func TestRecomputeBounded(t *testing.T) {
	data := builder.ConvChain(200)
	start := cpuTime(t)
	off, err := Generate("chain.tflite", data, Options{Package: "m"})
	if err != nil {
		t.Fatal(err)
	}
	mid := cpuTime(t)
	on, err := Generate("chain.tflite", data, Options{Package: "m", Recompute: 10})
	if err != nil {
		t.Fatal(err)
	}
	end := cpuTime(t)
	t.Logf("arena %d bytes in %v of CPU, with -recompute=10%% %d in %v", off.Layout.Plan.Size, mid-start, on.Layout.Plan.Size, end-mid)
	if limit := 3 * (maxStages + 1) * (mid - start); end-mid > limit+time.Second {
		t.Errorf("-recompute took %v of CPU, over %v", end-mid, limit+time.Second)
	}
	if on.Layout.Plan.Size > off.Layout.Plan.Size {
		t.Errorf("arena %d with -recompute, larger than %d", on.Layout.Plan.Size, off.Layout.Plan.Size)
	}
	x := make([]byte, 128)
	for i := range x {
		x[i] = byte(i * 37)
	}
	if !slices.Equal(runOnce(t, on.Program, on.Layout, x), runOnce(t, off.Program, off.Layout, x)) {
		t.Errorf("outputs differ")
	}
}
