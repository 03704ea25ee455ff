package lower

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// svdfShared is the reference material: models and TFLM's tensors after one
// xorshift Invoke from zero state (see /work/shared/ref/README.md).
const svdfShared = "/work/shared"

// svdfRefModels are the models with SVDF layers: int16 and int8 state.
var svdfRefModels = []string{"keyword_scrambled", "keyword_scrambled_8bit"}

// svdfLoadModel parses a shared model, skipping the test when the reference
// material is absent.
func svdfLoadModel(t *testing.T, name string) *model.Graph {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(svdfShared, "models", name+".tflite"))
	if os.IsNotExist(err) {
		t.Skipf("reference models not available (%v)", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	g, err := model.Parse(name+".tflite", data)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestSvdfLayersMatchTFLM lowers every SVDF operator of the keyword models,
// runs each emitted call once on TFLM's recorded input tensor with a zero
// activation state, and requires the output and the new state to equal
// TFLM's bit for bit. The call is rendered as Go source and run with the
// kernel files in a scratch module, so the test covers the lowering's
// constants as well as the kernel.
func TestSvdfLayersMatchTFLM(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a scratch module")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not found")
	}
	var src strings.Builder
	src.WriteString(svdfCheckPrelude)
	nops := 0
	for _, m := range svdfRefModels {
		g := svdfLoadModel(t, m)
		refDir := filepath.Join(svdfShared, "ref", "tensors", m)
		if _, err := os.Stat(refDir); err != nil {
			t.Skipf("reference tensors not available (%v)", err)
		}
		for _, op := range g.Ops {
			if op.Code != model.OpSvdf {
				continue
			}
			c := &opCtx{G: g, Op: op}
			if err := lowerSVDF(c); err != nil {
				t.Fatalf("%s: %v", m, err)
			}
			// One buffer: the kernel's scratch for octDot's sums, which
			// its assembly stores to memory (kernels/dsp_oct_arm.go).
			if len(c.calls) != 1 || len(c.scratch) != 1 || len(c.persist) != 0 {
				t.Fatalf("%s: %s: want one call and one scratch buffer, got %+v", m, op.Describe(), c)
			}
			words, ok := svdfScratchWords[c.calls[0].Fn]
			if r := c.scratch[0]; !ok || r.dtype != model.Int32 || r.bytes != 4*words {
				t.Fatalf("%s: %s: %s: scratch of %d bytes (%s), want %d int32", m, op.Describe(), c.calls[0].Fn, r.bytes, r.dtype, words)
			}
			body, err := svdfRenderCall(c, refDir)
			if err != nil {
				t.Fatalf("%s: %s: %v", m, op.Describe(), err)
			}
			fmt.Fprintf(&src, "\nfunc TestOp_%s_%d(t *testing.T) {\n%s}\n", m, op.Index, body)
			nops++
		}
	}
	if nops != 14 {
		t.Fatalf("found %d SVDF operators, want 7 per model", nops)
	}

	dir := t.TempDir()
	for _, f := range []string{"common.go", "view.go", "svdf.go", "svdf_fast.go", "fc_rq.go", "fully_connected.go", "fully_connected_words.go", "f32words_other.go", "f32words_armv6.go", "float_dot.go", "oct.go", "dsp_oct_go.go", "svdf_time_go.go"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "kernels", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		"go.mod":        "module svdfcheck\n\ngo 1.21\n",
		"check_test.go": src.String(),
	}
	for name, s := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(goTool, "test", "-count=1", "-v", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	outb, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scratch module failed: %v\n%s", err, outb)
	}
	if n := strings.Count(string(outb), "--- PASS: TestOp_"); n != nops {
		t.Fatalf("%d of %d operator checks passed:\n%s", n, nops, outb)
	}
	t.Logf("%d SVDF operators bit-exact against TFLM", nops)
}

// svdfScratchWords is each integer SVDF kernel's scratch in int32 words.
var svdfScratchWords = map[kernelsig.Func]int{
	kernelsig.SvdfInt8x8:      kernelsig.SVDFInt8x8Scratch,
	kernelsig.SvdfInt8x16:     kernelsig.SVDFInt8x16Scratch,
	kernelsig.SvdfInt8x8Fast:  kernelsig.SVDFFastScratch,
	kernelsig.SvdfInt8x16Fast: kernelsig.SVDFFastScratch,
	kernelsig.SvdfInt8x8Ring:  kernelsig.SVDFFastScratch,
	kernelsig.SvdfInt8x16Ring: kernelsig.SVDFFastScratch,
}

// svdfCheckPrelude starts the scratch module's test file.
const svdfCheckPrelude = `package kernels

import (
	"bytes"
	"os"
	"testing"
	"unsafe"
)

func chkRead(t *testing.T, path string, n int) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != n {
		t.Fatalf("%s: %d bytes, want %d", path, len(b), n)
	}
	return b
}

func chkFrom[T any](b []byte) []T {
	var z T
	s := make([]T, len(b)/int(unsafe.Sizeof(z)))
	copy(chkBytes(s), b)
	return s
}

func chkBytes[T any](s []T) []byte {
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}

func chkEq(t *testing.T, what string, got, want []byte) {
	if !bytes.Equal(got, want) {
		n := 0
		for i := range got {
			if got[i] != want[i] {
				n++
			}
		}
		t.Errorf("%s: %d of %d bytes differ from TFLM", what, n, len(got))
	}
}
`

// svdfGoType names the Go element type of a tensor's arena view.
func svdfGoType(t *model.Tensor) (string, error) {
	switch t.Type {
	case model.Int8:
		return "int8", nil
	case model.Int16:
		return "int16", nil
	case model.Int32:
		return "int32", nil
	case model.Float32:
		return "float32", nil
	}
	return "", fmt.Errorf("%s: no view type", t.Describe())
}

// svdfRenderCall renders a lowered SVDF operator as the body of a test: the
// input is TFLM's recorded tensor, the state starts as after Reset, and
// output and state are compared with TFLM's afterwards.
func svdfRenderCall(c *opCtx, refDir string) (string, error) {
	in, state, out := c.In(0), c.In(4), c.Out(0)
	var b strings.Builder
	ref := func(x *model.Tensor) string {
		return strconv.Quote(filepath.Join(refDir, fmt.Sprintf("t%d.bin", x.Index)))
	}
	for _, x := range []*model.Tensor{in, state, out} {
		typ, err := svdfGoType(x)
		if err != nil {
			return "", err
		}
		if x == in {
			fmt.Fprintf(&b, "\tv%d := chkFrom[%s](chkRead(t, %s, %d))\n", x.Index, typ, ref(x), x.Bytes())
			continue
		}
		fmt.Fprintf(&b, "\tv%d := make([]%s, %d)\n", x.Index, typ, x.NumElements())
		if x == state && x.Type == model.Int8 {
			// Reset: TFLM (and the generated Reset) fills int8 state with its zero point.
			fmt.Fprintf(&b, "\tfor i := range v%d {\n\t\tv%d[i] = %d\n\t}\n", x.Index, x.Index, x.Quant.ZeroPoint[0])
		}
	}
	for _, call := range c.calls {
		var args []string
		for _, a := range call.Args {
			s, err := svdfRenderArg(a)
			if err != nil {
				return "", err
			}
			args = append(args, s)
		}
		fmt.Fprintf(&b, "\t%s(%s)\n", call.Fn, strings.Join(args, ", "))
	}
	for _, x := range []*model.Tensor{out, state} {
		fmt.Fprintf(&b, "\tchkEq(t, %q, chkBytes(v%d), chkRead(t, %s, %d))\n", x.Describe(), x.Index, ref(x), x.Bytes())
	}
	return b.String(), nil
}

// svdfRenderArg renders an argument as a Go expression.
func svdfRenderArg(a Arg) (string, error) {
	switch a := a.(type) {
	case viewArg:
		if a.raw {
			return "", fmt.Errorf("raw view not expected")
		}
		if !a.t.IsConst() {
			return fmt.Sprintf("v%d", a.t.Index), nil
		}
		if a.t.Type != model.Int8 {
			return "", fmt.Errorf("view of a wide constant %s", a.t.Describe())
		}
		return "constI8(" + strconv.Quote(string(a.t.Data)) + ")", nil
	case strArg:
		return strconv.Quote(string(a.t.Data)), nil
	case constArg:
		return strconv.Quote(string(a.c.data)), nil
	case reqArg:
		// A fresh scratch buffer (the test runs each call once).
		if a.r.dtype != model.Int32 {
			return "", fmt.Errorf("scratch of type %s not expected", a.r.dtype)
		}
		return fmt.Sprintf("make([]int32, %d)", a.r.bytes/4), nil
	case litArg:
		switch v := a.v.(type) {
		case int:
			return strconv.Itoa(v), nil
		case int32:
			return strconv.FormatInt(int64(v), 10), nil
		case int64:
			return strconv.FormatInt(v, 10), nil
		case float32:
			return strconv.FormatFloat(float64(v), 'g', -1, 32), nil
		case bool:
			return strconv.FormatBool(v), nil
		}
		return "", fmt.Errorf("literal of type %T", a.v)
	case structArg:
		var fs []string
		for _, f := range a.fields {
			s, err := svdfRenderArg(f.Value)
			if err != nil {
				return "", err
			}
			fs = append(fs, f.Name+": "+s)
		}
		return "&" + string(a.typ) + "{" + strings.Join(fs, ", ") + "}", nil
	}
	return "", fmt.Errorf("argument %T not expected", a)
}

// TestSvdfLoweringErrors checks that the lowering refuses what TFLM refuses
// or what the kernels do not implement, naming the operator.
func TestSvdfLoweringErrors(t *testing.T) {
	cases := []struct {
		name  string
		model string
		edit  func(g *model.Graph, op *model.Op)
		want  string
	}{
		{"state not variable", "keyword_scrambled", func(g *model.Graph, op *model.Op) {
			g.Tensors[op.Inputs[4]].IsVariable = false
		}, "must be a variable tensor"},
		{"state type differs from weights_time", "keyword_scrambled", func(g *model.Graph, op *model.Op) {
			g.Tensors[op.Inputs[4]].Type = model.Int8
		}, "type must match weights_time"},
		{"missing bias", "keyword_scrambled_8bit", func(g *model.Graph, op *model.Op) {
			op.Inputs[3] = -1
		}, "without bias"},
		{"bias scale mismatch", "keyword_scrambled", func(g *model.Graph, op *model.Op) {
			g.Tensors[op.Inputs[3]].Quant = &model.Quant{Scale: []float32{1}, ZeroPoint: []int64{0}}
		}, "bias scale"},
		{"weights zero point", "keyword_scrambled", func(g *model.Graph, op *model.Op) {
			g.Tensors[op.Inputs[1]].Quant = &model.Quant{Scale: []float32{0.01}, ZeroPoint: []int64{3}}
		}, "zero point 0"},
		{"per-channel weights", "keyword_scrambled", func(g *model.Graph, op *model.Op) {
			wf := g.Tensors[op.Inputs[1]]
			wf.Quant = &model.Quant{Scale: make([]float32, wf.Shape[0]), ZeroPoint: make([]int64, wf.Shape[0])}
		}, "per-tensor"},
		{"state shape", "keyword_scrambled", func(g *model.Graph, op *model.Op) {
			g.Tensors[op.Inputs[4]].Shape = []int{1, 256}
		}, "activation state"},
		{"output units", "keyword_scrambled_8bit", func(g *model.Graph, op *model.Op) {
			g.Tensors[op.Outputs[0]].Shape = []int{1, 32}
		}, "output"},
		{"uint8 input", "keyword_scrambled", func(g *model.Graph, op *model.Op) {
			g.Tensors[op.Inputs[0]].Type = model.Uint8
		}, "not supported"},
		{"hybrid weights", "keyword_scrambled", func(g *model.Graph, op *model.Op) {
			g.Tensors[op.Inputs[0]].Type = model.Float32
		}, "hybrid"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := svdfLoadModel(t, tc.model)
			op := g.Ops[1]
			if op.Code != model.OpSvdf {
				t.Fatalf("operator 1 is %s", op.Code)
			}
			c := &opCtx{G: g, Op: op}
			if err := lowerSVDF(c); err != nil {
				t.Fatalf("unedited model: %v", err)
			}
			tc.edit(g, op)
			c = &opCtx{G: g, Op: op}
			err := lowerSVDF(c)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "operator 1 (SVDF)") {
				t.Fatalf("error %v, want one naming operator 1 and containing %q", err, tc.want)
			}
		})
	}
}

// TestSvdfQuantScales checks the effective scales of keyword_scrambled's
// first SVDF against values computed by hand from its tensor scales with
// TFLM's float32 arithmetic and QuantizeMultiplier.
func TestSvdfQuantScales(t *testing.T) {
	g := svdfLoadModel(t, "keyword_scrambled")
	op := g.Ops[1]
	s := func(i int) float32 { return g.Tensors[op.Inputs[i]].Quant.Scale[0] }
	sc, err := svdfQuantScales(s(0), s(1), s(2), s(4), g.Tensors[op.Outputs[0]].Quant.Scale[0])
	if err != nil {
		t.Fatal(err)
	}
	// 0.059208333*0.0091712065/0.004370165 ≈ 0.124254 = 0.994035 * 2^-3;
	// 0.004370165*0.0037055062/0.23618338 ≈ 6.8564e-05 = 0.561676 * 2^-13.
	if sc.shift1 != -3 || sc.shift2 != -13 {
		t.Fatalf("shifts %d %d, want -3 -13", sc.shift1, sc.shift2)
	}
	for _, x := range []struct {
		m    int32
		real float64
		exp  int
	}{{sc.mult1, 0.124254, 3}, {sc.mult2, 6.8564e-05, 13}} {
		got := float64(x.m) / (1 << 31) / float64(int64(1)<<x.exp)
		if d := got/x.real - 1; d > 1e-4 || d < -1e-4 {
			t.Errorf("multiplier %d means %g, want ≈ %g", x.m, got, x.real)
		}
	}
}
