package lower

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// TestCallsMatchKernelSignatures lowers every reference model, test vector
// model and fixture with all operators fast and with all operators lean, and
// assembles each: Assemble checks every call against the kernel's signature
// (kernelsig.Check), so a renamed kernel, parameter or field on any lowering
// path these models reach fails here, without generating or building code.
func TestCallsMatchKernelSignatures(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "*.tflite"))
	if len(files) == 0 {
		t.Fatal("no fixtures in testdata/")
	}
	if dir := sharedDirOrSkip(t); dir != "" {
		ms, _ := filepath.Glob(filepath.Join(dir, "models", "*.tflite"))
		files = append(files, ms...)
		filepath.WalkDir(filepath.Join(dir, "vectors"), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".tflite") {
				files = append(files, p)
			}
			return nil
		})
	}
	calls := 0
	for _, f := range files {
		g := e2e.ParseModel(t, f)
		for _, lean := range []bool{false, true} {
			flags := make([]bool, len(g.Ops))
			for i := range flags {
				flags[i] = lean
			}
			frags, err := Lower(g, flags, Kernels{})
			if err != nil {
				t.Errorf("%s (lean %v): %v", f, lean, err)
				continue
			}
			p, err := Assemble(g, frags, Options{})
			if err != nil {
				t.Errorf("%s (lean %v): %v", f, lean, err)
				continue
			}
			for _, op := range p.Ops {
				calls += len(op.Calls)
			}
		}
	}
	t.Logf("%d models, %d kernel calls checked", len(files), calls)
}

// sharedDirOrSkip returns the reference data directory, or "" (with a log
// line saying so) when it is absent: the fixtures are checked regardless.
func sharedDirOrSkip(t *testing.T) (dir string) {
	t.Run("shared", func(t *testing.T) { dir = e2e.SharedDir(t) })
	if dir == "" {
		t.Log("reference data absent: checking the fixtures in testdata/ only")
	}
	return dir
}

// TestWrongCallIsReported: a lowering whose call does not fit the kernel's
// signature is an internal error naming the operator, reported by Assemble.
func TestWrongCallIsReported(t *testing.T) {
	code := model.OpHashtableLookup
	if _, taken := lowerings[code]; taken {
		t.Skipf("%s has a lowering now; pick another code", code)
	}
	defer delete(lowerings, code)
	for _, tc := range []struct {
		name string
		l    lowering
		want string
	}{
		{"no such field", func(c *opCtx) error {
			c.Call(kernelsig.ReluInt8, Struct(kernelsig.ReluParams, F("noSuchField", I32(1))), View(c.In(0)), View(c.Out(0)))
			return nil
		}, `operator 1 (HASHTABLE_LOOKUP): internal error: kernelsig: reluInt8: parameter p (argument 1): reluParams has no field "noSuchField"`},
		{"wrong view type", func(c *opCtx) error {
			c.Call(kernelsig.ReluInt8, Struct(kernelsig.ReluParams), View(c.In(0)), View(c.Out(0)))
			return nil
		}, `operator 1 (HASHTABLE_LOOKUP): internal error: kernelsig: reluInt8: parameter in (argument 2): have []float32, want []int8`},
		{"argument count", func(c *opCtx) error {
			c.Call(kernelsig.ReluF32, View(c.In(0)))
			return nil
		}, `operator 1 (HASHTABLE_LOOKUP): internal error: kernelsig: reluF32: 1 arguments, want 2`},
		{"float literal for an int field", func(c *opCtx) error {
			c.Call(kernelsig.ReluInt8, Struct(kernelsig.ReluParams, F("shift", F32(1))), View(c.In(0)), View(c.Out(0)))
			return nil
		}, `operator 1 (HASHTABLE_LOOKUP): internal error: kernelsig: reluInt8: parameter p (argument 1): field shift of reluParams: have untyped float constant, want int`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lowerings[code] = registration{lower: tc.l}
			g := chainGraph(t, [3]model.OpCode{model.OpRelu, code, model.OpRelu})
			frags, err := Lower(g, make([]bool, 3), Kernels{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = Assemble(g, frags, Options{})
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error\n got: %v\nwant: %s", err, tc.want)
			}
		})
	}
}
