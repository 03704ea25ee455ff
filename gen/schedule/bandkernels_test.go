package schedule

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/gen/lower"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"
)

// paramFields returns the fields of fn's parameter struct (its first
// argument of a *struct type), nil when it has none.
func paramFields(t *testing.T, fn kernelsig.Func) []string {
	t.Helper()
	params, ok := fn.Params()
	if !ok {
		t.Fatalf("%s is not a kernel", fn)
	}
	for _, p := range params {
		fields, ok := kernelsig.Struct(strings.TrimPrefix(p.Type, "*")).Fields()
		if !ok {
			continue
		}
		var names []string
		for _, f := range fields {
			names = append(names, f.Name)
		}
		return names
	}
	return nil
}

// declaredBands lowers the fixtures and the reference and grid models of
// ../shared (skipping the test without it) with both kernel sets, lean and fast, and
// returns the band geometry each kernel's calls declare. A kernel whose
// calls declare different geometries fails: one forgotten BandCall of a
// band kernel would silently keep that call out of chains.
func declaredBands(t *testing.T) map[kernelsig.Func]program.Band {
	t.Helper()
	shared := e2e.SharedDir(t)
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "*.tflite"))
	more, _ := filepath.Glob(filepath.Join(shared, "models", "*.tflite"))
	grid, _ := filepath.Glob(filepath.Join(shared, "grid", "models", "*.tflite"))
	files = append(append(files, more...), grid...)
	bands := map[kernelsig.Func]program.Band{}
	where := map[kernelsig.Func]string{}
	for _, f := range files {
		g := e2e.ParseModel(t, f)
		for _, k := range []lower.Kernels{{}, {GC: true}} {
			for _, lean := range []bool{false, true} {
				flags := make([]bool, len(g.Ops))
				for i := range flags {
					flags[i] = lean
				}
				frags, err := lower.Lower(g, flags, k)
				if err != nil {
					t.Fatal(err)
				}
				p, err := lower.Assemble(g, frags, lower.Options{})
				if err != nil {
					t.Fatal(err)
				}
				for _, op := range p.Ops {
					for _, c := range op.Calls {
						fn, at := kernelsig.Func(c.Fn), fmt.Sprintf("%s operator %d (%s)", g.Name, op.Index, op.Code)
						if b, seen := bands[fn]; seen && b != c.Band {
							t.Errorf("%s: %s declares band %+v, %s declared %+v", fn, at, c.Band, where[fn], b)
						}
						bands[fn], where[fn] = c.Band, at
					}
				}
			}
		}
	}
	for fn, b := range bands {
		if b.Kind == program.NoBand {
			delete(bands, fn)
		}
	}
	return bands
}

// TestBandKernelFields: the parameter structs of the kernels that
// lowerings declare band kernels (BandCall) have the fields fusion reads
// and rewrites by name (bandable, bandCall), so that renaming a field fails
// here instead of turning fusion off, or worse, leaving a field fusion
// assumes to be 1 (batches, strideH, dilationH) unread.
func TestBandKernelFields(t *testing.T) {
	// The window kernels whose structs have no such field (padRows*: one
	// image, stride 1; the pools and the kernels for undilated
	// convolutions: no dilation). A kernel listed here that gains the
	// field fails too: fusion would not read it.
	padRows := []kernelsig.Func{kernelsig.PadRowsInt8, kernelsig.PadRowsInt16}
	without := map[string][]kernelsig.Func{
		"batches": padRows,
		"strideH": padRows,
		"dilationH": append([]kernelsig.Func{kernelsig.AvgPoolInt8, kernelsig.AvgPoolInt16, kernelsig.AvgPoolF32, kernelsig.AvgPoolDSPInt8,
			kernelsig.AvgPoolInt8Blocks, kernelsig.MaxPoolInt8Blocks, kernelsig.AvgPoolInt8Rows, kernelsig.MaxPoolInt8Rows,
			kernelsig.MaxPoolInt8, kernelsig.MaxPoolInt16, kernelsig.MaxPoolF32, kernelsig.MaxPoolDSPInt8,
			kernelsig.ConvGatherInt8, kernelsig.ConvRowsInt8, kernelsig.ConvRowsTriInt8, kernelsig.Dw3x3Int8}, padRows...),
	}
	bands := declaredBands(t)
	kinds := map[program.BandKind]int{}
	for fn, bk := range bands {
		kinds[bk.Kind]++
		fields := paramFields(t, fn)
		need := func(names ...string) {
			for _, n := range names {
				if !slices.Contains(fields, n) {
					t.Errorf("%s (band kind %d): its parameter struct has no field %s (fields %v)", fn, bk.Kind, n, fields)
				}
			}
		}
		switch bk.Kind {
		case program.BandWindow:
			need("inH", "outH", "padH")
			if bk.FilterH == 0 {
				need("filterH")
			} else if slices.Contains(fields, "filterH") {
				t.Errorf("%s declares filter height %d but its struct has filterH", fn, bk.FilterH)
			}
			for field, fns := range without {
				if has, exempt := slices.Contains(fields, field), slices.Contains(fns, fn); has == exempt {
					t.Errorf("%s: field %s %v, but listed without it %v", fn, field, has, exempt)
				}
			}
		case program.BandPixels:
			need("pixels")
		case program.BandMove:
			need("run", "src", "dst")
			for j := range kernelsig.MoveLoops {
				need(fmt.Sprint("n", j), fmt.Sprint("s", j), fmt.Sprint("d", j))
			}
			if slices.Contains(fields, fmt.Sprint("n", kernelsig.MoveLoops)) {
				t.Errorf("%s has more loops than kernelsig.MoveLoops (%d)", fn, kernelsig.MoveLoops)
			}
		}
	}
	t.Logf("band kernels by kind: %v (%d kernels)", kinds, len(bands))
	// A floor that says the scan found the models' kernels (18 window
	// kernels since the gc build's dilated convolutions, depth multipliers
	// and 16x8 layers left the reference loops).
	if kinds[program.BandWindow] < 16 || kinds[program.BandPixels] < 3 {
		t.Errorf("band kernels by kind %v: not what the reference and grid models call", kinds)
	}
}
