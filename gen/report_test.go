package gen

import (
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/report"
)

// TestLayoutConstants checks the "constants" line of every committed
// example's layout.txt against its weights.go: the total must be the
// summed length of the string constants there.
func TestLayoutConstants(t *testing.T) {
	// layout.txt and weights.go; in a package running several models,
	// layout_<model>.txt and <model>_weights.go per model (its layout.txt
	// is the joint plan).
	dirs, err := filepath.Glob(filepath.Join("..", "generated_examples", "*", "layout*.txt"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no generated examples found: %v", err)
	}
	weightsOf := func(lp string) string {
		base := filepath.Base(lp)
		if base == "layout.txt" {
			return filepath.Join(filepath.Dir(lp), "weights.go")
		}
		return filepath.Join(filepath.Dir(lp), strings.TrimSuffix(strings.TrimPrefix(base, "layout_"), ".txt")+"_weights.go")
	}
	multi := 0
	re := regexp.MustCompile(`(?m)^constants +(\d+) bytes read-only \(the model's constant tensors: (\d+)\): (\d+) used as stored, (\d+) re-laid`)
	for _, lp := range dirs {
		dir := filepath.Dir(lp)
		wf := weightsOf(lp)
		if _, err := os.Stat(filepath.Join(dir, "arena.go")); err == nil && filepath.Base(lp) == "layout.txt" {
			multi++
			continue // the joint plan of several models
		}
		text, err := os.ReadFile(lp)
		if err != nil {
			t.Fatal(err)
		}
		m := re.FindSubmatch(text)
		if m == nil {
			t.Fatalf("%s: no constants line", lp)
		}
		num := func(i int) int { n, _ := strconv.Atoi(string(m[i])); return n }
		f, err := parser.ParseFile(token.NewFileSet(), wf, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		sum := 0
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, sp := range gd.Specs {
				for _, v := range sp.(*ast.ValueSpec).Values {
					sum += len(constant.StringVal(stringConst(t, v)))
				}
			}
		}
		if num(1) != sum || num(3)+num(4) != num(1) || num(2) == 0 {
			t.Errorf("%s: %s, but %s holds %d bytes", lp, m[0], filepath.Base(wf), sum)
		}
	}
	if multi == 0 {
		t.Errorf("no package running several models among the examples")
	}
}

// stringConst evaluates a string constant expression of weights.go: a
// literal or a sum of literals.
func stringConst(t *testing.T, e ast.Expr) constant.Value {
	switch e := e.(type) {
	case *ast.BasicLit:
		return constant.MakeFromLiteral(e.Value, e.Kind, 0)
	case *ast.BinaryExpr:
		return constant.BinaryOp(stringConst(t, e.X), e.Op, stringConst(t, e.Y))
	case *ast.ParenExpr:
		return stringConst(t, e.X)
	}
	t.Fatalf("weights.go: unexpected constant expression %T", e)
	return nil
}

// TestReportJSON generates the fixtures and the reference models (when
// ../shared is there), default and -speed, and checks report.json against
// the package: it parses and starts with the generator key; every kernel
// it names is called in model.go; the operators' constants add up to the
// total, which is weights.go's (TestLayoutConstants); no operator has more
// bytes live than the lower bound; totals match the plan.
func TestReportJSON(t *testing.T) {
	models, _ := filepath.Glob(filepath.Join("..", "testdata", "*.tflite"))
	if shared := os.Getenv("TFLM_SHARED"); shared != "" || dirExists(filepath.Join("..", "..", "shared", "models")) {
		if shared == "" {
			shared = filepath.Join("..", "..", "shared")
		}
		more, _ := filepath.Glob(filepath.Join(shared, "models", "*.tflite"))
		models = append(models, more...)
	}
	for _, path := range models {
		for _, speed := range []bool{false, true} {
			name := strings.TrimSuffix(filepath.Base(path), ".tflite")
			if speed {
				name += "/speed"
			}
			t.Run(name, func(t *testing.T) {
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				res, err := Generate(filepath.Base(path), data, Options{Package: "m", Speed: speed})
				if err != nil {
					t.Fatal(err)
				}
				b := res.Files["report.json"]
				if !generated("report.json", b) {
					t.Fatalf("report.json is not recognised as generated:\n%.200s", b)
				}
				r, err := report.ParseJSON(b)
				if err != nil {
					t.Fatal(err)
				}
				model := string(res.Files["model.go"])
				sum := 0
				for _, o := range r.Operators {
					for _, k := range o.Kernels {
						if !strings.Contains(model, k+"(") {
							t.Errorf("operator %d: kernel %s is not called in model.go", o.Index, k)
						}
					}
					sum += o.ConstBytes
					if o.LiveBytes > r.LowerBound {
						t.Errorf("operator %d: %d bytes live, over the lower bound %d", o.Index, o.LiveBytes, r.LowerBound)
					}
				}
				if sum != r.Constants.Total {
					t.Errorf("operators' constants add up to %d, total %d", sum, r.Constants.Total)
				}
				pl := res.Layout.Plan
				if r.ArenaSize != pl.Size || r.LowerBound != pl.LowerBound || r.Certificate != pl.CertText() || len(r.Operators) != len(res.Program.Ops) ||
					len(r.Buffers) != len(res.Program.Buffers) || r.Stack == nil || r.RAM != pl.Size+r.Stack.Bytes {
					t.Errorf("totals: %+v", r)
				}
			})
		}
	}
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
