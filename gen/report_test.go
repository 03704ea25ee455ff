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
	"testing"
)

// TestLayoutConstants checks the "constants" line of every committed
// example's layout.txt against its weights.go: the total must be the
// summed length of the string constants there.
func TestLayoutConstants(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("..", "generated_examples", "*", "layout.txt"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no generated examples found: %v", err)
	}
	re := regexp.MustCompile(`(?m)^constants +(\d+) bytes read-only \(the model's constant tensors: (\d+)\): (\d+) used as stored, (\d+) re-laid`)
	for _, lp := range dirs {
		dir := filepath.Dir(lp)
		text, err := os.ReadFile(lp)
		if err != nil {
			t.Fatal(err)
		}
		m := re.FindSubmatch(text)
		if m == nil {
			t.Fatalf("%s: no constants line", lp)
		}
		num := func(i int) int { n, _ := strconv.Atoi(string(m[i])); return n }
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, "weights.go"), nil, 0)
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
			t.Errorf("%s: %s, but weights.go holds %d bytes", dir, m[0], sum)
		}
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
