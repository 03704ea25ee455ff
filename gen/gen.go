// Package gen turns a TensorFlow Lite model into a self-contained Go package.
//
// Generation is a pure function: model bytes and options in, file contents
// out (Generate). It parses and validates the model (internal/model), lowers
// every operator to kernel calls with constants computed here, plans every
// buffer in one arena (planner), and emits Go code with jennifer plus copies
// of the kernels the model uses. Nothing touches the disk.
package gen

import (
	"errors"
	"fmt"
	"go/token"
	"strings"

	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/planner"
)

// Options control generation.
type Options struct {
	// Package is the generated package name; it must be a Go identifier.
	Package string
	// Align is the buffer offset alignment in bytes (power of two, default 16).
	Align int
	// Planner selects the memory planner strategy.
	Planner planner.Strategy
	// Effort bounds the exact planner search (search nodes, 0 = default).
	Effort int64
	// MaxArena, when positive, fails generation if the arena is larger.
	MaxArena int
	// Speed keeps every fast kernel variant even where its scratch memory
	// makes the arena larger (by default they are used only where the
	// memory is free anyway).
	Speed bool
	// NoShare disables in-place operators (an elementwise output taking
	// over the memory of an input that dies there).
	NoShare bool
	// NoTests leaves out generated_test.go (allocation, independence and
	// benchmark tests of the generated package).
	NoTests bool
	// Version, when not empty, is stamped into every generated file. Leave
	// it empty for committed golden output.
	Version string
}

// Result is a generated package.
type Result struct {
	// Files maps file names (no directories) to contents.
	Files map[string][]byte
	// Layout is the memory plan, for reports.
	Layout *Layout
}

// ErrUnsupported is wrapped by errors listing operators tflm-gen cannot lower.
var ErrUnsupported = model.ErrUnsupported

// ErrTooLarge is wrapped when the plan exceeds Options.MaxArena.
var ErrTooLarge = errors.New("arena larger than the limit")

// Generate generates the package for the model in data; name is the model's
// file name, used in messages and in the generated header.
func Generate(name string, data []byte, opt Options) (*Result, error) {
	if !token.IsIdentifier(opt.Package) || opt.Package == "_" {
		return nil, fmt.Errorf("package name %q is not a Go identifier", opt.Package)
	}
	g, err := model.Parse(name, data)
	if err != nil {
		return nil, err
	}
	lw, lay, err := lowerAndPlan(g, opt)
	if err != nil {
		return nil, err
	}
	files, err := emit(g, lw, lay, opt)
	if err != nil {
		return nil, err
	}
	return &Result{Files: files, Layout: lay}, nil
}

// Lower parses the model and lowers it without emitting code; used by the
// plan command and by tests.
func Lower(name string, data []byte, opt Options) (*model.Graph, *Layout, error) {
	g, err := model.Parse(name, data)
	if err != nil {
		return nil, nil, err
	}
	_, lay, err := lowerAndPlan(g, opt)
	if err != nil {
		return nil, nil, err
	}
	return g, lay, nil
}

// lowerAndPlan lowers every operator with its fastest kernels, plans, and
// then, unless Options.Speed is set, gives up fast kernels whose scratch
// memory makes the arena larger than with the lean kernels: operators
// switch to their lean variant, the one at the plan's peak first, until the
// arena is no larger than the all-lean plan. RAM is what a microcontroller
// lacks; speed is only bought with memory that is free anyway. A plan over
// Options.MaxArena fails with ErrTooLarge and the peak explained.
func lowerAndPlan(g *model.Graph, opt Options) (*lowered, *Layout, error) {
	lw, lay, err := lowerAndPlanFast(g, opt)
	if err == nil && opt.MaxArena > 0 && lay.Plan.Size > opt.MaxArena {
		return nil, nil, fmt.Errorf("%w: %s", ErrTooLarge, lay.explainOver(opt.MaxArena))
	}
	return lw, lay, err
}

// lowerAndPlanFast does the work of lowerAndPlan but for the arena limit.
func lowerAndPlanFast(g *model.Graph, opt Options) (*lowered, *Layout, error) {
	lean := make([]bool, len(g.Ops))
	lw, err := lowerGraph(g, lean)
	if err != nil {
		return nil, nil, err
	}
	lay, err := planGraph(g, lw, opt)
	if err != nil || opt.Speed {
		return lw, lay, err
	}
	for i := range lean {
		lean[i] = true
	}
	base, err := lowerGraph(g, lean)
	if err != nil {
		return nil, nil, err
	}
	baseLay, err := planGraph(g, base, opt)
	if err != nil {
		return nil, nil, err
	}
	// Operators whose fast variant needs more scratch.
	extra := map[int]int{}
	for i := range g.Ops {
		if d := lw.ops[i].scratchBytes() - base.ops[i].scratchBytes(); d > 0 {
			extra[i] = d
		}
	}
	for lay.Plan.Size > baseLay.Plan.Size && len(extra) > 0 {
		// Scratch lives only during its operator: give up the fast
		// variant at the peak first, else the one with the most scratch.
		pick := -1
		if _, ok := extra[lay.Plan.PeakStep]; ok {
			pick = lay.Plan.PeakStep
		} else {
			for i, d := range extra {
				if pick < 0 || d > extra[pick] || d == extra[pick] && i < pick {
					pick = i
				}
			}
		}
		delete(extra, pick)
		lw.ops[pick] = base.ops[pick]
		if lay, err = planGraph(g, lw, opt); err != nil {
			return nil, nil, err
		}
	}
	if lay.Plan.Size > baseLay.Plan.Size {
		return base, baseLay, nil
	}
	return lw, lay, nil
}

// lowered is the whole graph as kernel calls.
type lowered struct {
	ops []*opCtx
}

// lowerGraph lowers every operator; lean[i] asks operator i for its
// variant with the least scratch memory.
func lowerGraph(g *model.Graph, lean []bool) (*lowered, error) {
	if len(g.Ops) == 0 {
		return nil, fmt.Errorf("%w: model has no operators", model.ErrInvalid)
	}
	lw := &lowered{}
	var errs []string
	for _, op := range g.Ops {
		c := &opCtx{G: g, Op: op, lean: lean[op.Index]}
		lw.ops = append(lw.ops, c)
		l, ok := lowerings[op.Code]
		if !ok {
			errs = append(errs, fmt.Sprintf("%s: no kernel for this operator (%s)", op.Describe(), signature(g, op)))
			continue
		}
		if err := safeLower(l, c); err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if c.err != nil {
			errs = append(errs, c.err.Error())
			continue
		}
		if err := checkAliases(c); err != nil {
			errs = append(errs, err.Error())
		}
	}
	for k, idx := range append(append([]int{}, g.Inputs...), g.Outputs...) {
		t := g.Tensors[idx]
		if typedName(t.Type) == "" {
			errs = append(errs, fmt.Sprintf("graph input/output %d: %s: element type not supported for model inputs and outputs", k, t.Describe()))
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %d problem(s): %s", ErrUnsupported, len(errs), strings.Join(errs, "; "))
	}
	return lw, nil
}

// safeLower runs one lowering, turning a panic (a bug on some input the
// lowering did not validate) into an error naming the operator.
func safeLower(l lowering, c *opCtx) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error lowering %s: %v", c.Op.Describe(), r)
		}
	}()
	return l(c)
}

func checkAliases(c *opCtx) error {
	for _, a := range c.aliases {
		in, out := c.In(a.in), c.Out(a.out)
		if in == nil || out == nil {
			return c.Errorf("alias of a missing tensor")
		}
		if in.IsConst() {
			return c.Errorf("output %d aliases constant input %d", a.out, a.in)
		}
		if in.Bytes() != out.Bytes() {
			return c.Errorf("output %d (%d bytes) cannot alias input %d (%d bytes)", a.out, out.Bytes(), a.in, in.Bytes())
		}
	}
	return nil
}

// signature describes an operator's tensor types for error messages.
func signature(g *model.Graph, op *model.Op) string {
	var in, out []string
	for _, i := range op.Inputs {
		if i < 0 {
			in = append(in, "-")
			continue
		}
		t := g.Tensors[i]
		s := fmt.Sprintf("%s%v", t.Type, t.Shape)
		if t.IsConst() {
			s = "const " + s
		}
		in = append(in, s)
	}
	for _, i := range op.Outputs {
		t := g.Tensors[i]
		out = append(out, fmt.Sprintf("%s%v", t.Type, t.Shape))
	}
	return fmt.Sprintf("inputs %s; outputs %s", strings.Join(in, ", "), strings.Join(out, ", "))
}
