package schedule

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
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

// TestBandKernelFields: the band kernels' parameter structs have the
// fields fusion reads and rewrites by name (bandable, bandCall), so that
// renaming a field fails here instead of turning fusion off, or worse,
// leaving a field fusion assumes to be 1 (batches, strideH, dilationH)
// unread.
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
			kernelsig.MaxPoolInt8, kernelsig.MaxPoolInt16, kernelsig.MaxPoolF32, kernelsig.MaxPoolDSPInt8,
			kernelsig.ConvGatherInt8, kernelsig.ConvRowsInt8, kernelsig.Dw3x3Int8}, padRows...),
	}
	kinds := map[bandKind]int{}
	for fn, bk := range bandKernels {
		kinds[bk.kind]++
		fields := paramFields(t, fn)
		need := func(names ...string) {
			for _, n := range names {
				if !slices.Contains(fields, n) {
					t.Errorf("%s (band kind %d): its parameter struct has no field %s (fields %v)", fn, bk.kind, n, fields)
				}
			}
		}
		switch bk.kind {
		case bandWindow:
			need("inH", "outH", "padH")
			if bk.filterH == 0 {
				need("filterH")
			}
			for field, fns := range without {
				if has, exempt := slices.Contains(fields, field), slices.Contains(fns, fn); has == exempt {
					t.Errorf("%s: field %s %v, but listed without it %v", fn, field, has, exempt)
				}
			}
		case bandPixels:
			need("pixels")
		case bandMove:
			need("run", "src", "dst")
			for j := range kernelsig.MoveLoops {
				need(fmt.Sprint("n", j), fmt.Sprint("s", j), fmt.Sprint("d", j))
			}
			if slices.Contains(fields, fmt.Sprint("n", kernelsig.MoveLoops)) {
				t.Errorf("%s has more loops than kernelsig.MoveLoops (%d)", fn, kernelsig.MoveLoops)
			}
		}
	}
	t.Logf("band kernels by kind: %v", kinds)
	if kinds[bandWindow] < 20 || kinds[bandPixels] < 3 {
		t.Errorf("band kernels by kind %v: not the table this test expects", kinds)
	}
}
