// Package gen turns a TensorFlow Lite model into a self-contained Go package.
//
// Generation is a pure function: model bytes and options in, file contents
// out (Generate). It runs the stages in one direction, each a package with
// plain data between them:
//
//	internal/model  bytes -> validated graph
//	gen/fold        graph -> graph: a PAD folded into the convolution
//	                or max pool reading it
//	gen/lower       graph -> fragments (kernel calls per operator, the choices
//	                it offers) and, assembled, a program over numbered buffers
//	gen/schedule    the choices: kernel variants (gen/variant), overlapped
//	                pairs, fused groups, by planning candidates
//	gen/layout      program -> layout (an offset per buffer, via planner)
//	gen/emit        program + layout -> Go files (and gen/report's layout.txt)
//
// Generate touches no disk. To put its files into a directory as the
// tflm-gen command does, WriteDir writes them (every check before the first
// write, each file written beside its name and renamed, files tflm-gen did
// not write never replaced) and CheckDir compares them with what the
// directory holds (-check). CheckPackageName validates a package name.
package gen

import (
	"errors"
	"fmt"
	"go/token"
	"slices"

	"github.com/tflm-gen/tflm-gen/gen/emit"
	"github.com/tflm-gen/tflm-gen/gen/fold"
	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/lower"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/gen/schedule"
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
	// Effort bounds the exact planner search: the search nodes of all the
	// plans one generation makes, together (0 = planner.DefaultEffort).
	Effort int64
	// MaxArena, when positive, fails generation if the arena is larger.
	MaxArena int
	// Speed keeps every fast kernel variant even where its scratch memory
	// makes the arena larger (by default they are used only where the
	// memory is free anyway), and runs operators layer by layer (no fused
	// groups or overlapped pairs, which cost a few per cent of
	// instructions).
	Speed bool
	// GC generates for gc (-compiler gc): the kernels tuned for gc's code
	// generation, instead of those for TinyGo on a Cortex-M4/M7, whose
	// inner loops are Thumb-2 assembly there and Go everywhere else (a
	// package for TinyGo runs under gc too, only slower).
	GC bool
	// NoShare disables in-place operators (an elementwise output taking
	// over the memory of an input that dies there).
	NoShare bool
	// NoFuse keeps the layer-by-layer plan: no fused groups
	// (schedule/fuse.go), and no operator writes its output over its dying
	// input at a shift (overlapped pairs, lower/overlap.go).
	NoFuse bool
	// NoFold keeps every operator the model has: no PAD is folded into
	// the explicit padding of the convolution or max pool reading it
	// (gen/fold).
	NoFold bool
	// Recompute, when positive, lets a stage of the graph's first
	// operators run in column strips (gen/strips, -recompute=N%): the
	// stage and strip count that make the arena smallest, within Recompute
	// per cent more multiply-accumulates per Invoke than the model's (the
	// strips' halos, computed twice). 0: off.
	Recompute float64
	// NoTests leaves out generated_test.go (allocation, independence and
	// benchmark tests of the generated package).
	NoTests bool
	// Pools, when set, places the buffers in several memories (-pool):
	// each buffer in the pool that makes the access cost of an Invoke
	// least, every pool within its capacity (layout.Options.Pools).
	Pools []planner.Pool
	// Bind makes the generated Model take its memory (the arena, or each
	// pool) from the application through Model.Bind instead of holding it.
	Bind bool
	// ExternalIO keeps the graph's inputs and outputs out of the arena, in
	// arrays the application owns and passes to Invoke (-io external).
	ExternalIO bool
	// Version, when not empty, is stamped into every generated file. Leave
	// it empty for committed golden output.
	Version string
}

// Result is a generated package.
type Result struct {
	// Files maps file names (no directories) to contents.
	Files map[string][]byte
	// Program is the lowered model the files render.
	Program *program.Program
	// Layout is its memory plan.
	Layout *layout.Layout
}

// ErrUnsupported is wrapped by errors listing operators tflm-gen cannot lower.
var ErrUnsupported = model.ErrUnsupported

// ErrTooLarge is wrapped when the plan exceeds Options.MaxArena.
var ErrTooLarge = layout.ErrTooLarge

// ErrTooComplex is wrapped when the memory plan has more pairs of buffers
// live at a common operator than planner.MaxLivePairs.
var ErrTooComplex = planner.ErrTooComplex

// Generate generates the package for the model in data; name is the model's
// file name, used in messages and in the generated header.
func Generate(name string, data []byte, opt Options) (*Result, error) {
	if err := CheckPackageName(opt.Package); err != nil {
		return nil, err
	}
	p, lay, err := Lower(name, data, opt)
	if err != nil {
		return nil, err
	}
	files, err := emit.Files(p, lay, emit.Options{Package: opt.Package, NoTests: opt.NoTests, Version: opt.Version, Bind: opt.Bind})
	if err != nil {
		return nil, err
	}
	return &Result{Files: files, Program: p, Layout: lay}, nil
}

// CheckPackageName returns an error when name cannot be the name of a
// generated package: it must be a Go identifier, not a keyword, and not
// "main" (a command, which nothing can import), "init" or "_".
func CheckPackageName(name string) error {
	switch {
	case token.IsKeyword(name):
		return fmt.Errorf("package name %q is a Go keyword", name)
	case !token.IsIdentifier(name):
		return fmt.Errorf("package name %q is not a Go identifier", name)
	case name == "main":
		return fmt.Errorf("package name %q would make a command, which no code can import; the generated package is a library", name)
	case name == "init" || name == "_":
		return fmt.Errorf("package name %q is not allowed by Go", name)
	}
	return nil
}

// Lower parses, lowers and plans the model without emitting code; used by
// the plan command and by tests.
func Lower(name string, data []byte, opt Options) (*program.Program, *layout.Layout, error) {
	g, err := parse(name, data)
	if err != nil {
		return nil, nil, err
	}
	return lowerGraph(g, opt, 0)
}

// parse reads a model. When the model reader finds unsupported features
// (tensor types, more subgraphs), the operators are lowered anyway so that
// one error lists the operators' problems too.
func parse(name string, data []byte) (*model.Graph, error) {
	g, err := model.Parse(name, data)
	var unsup *model.UnsupportedError
	if err == nil || !errors.As(err, &unsup) || g == nil || len(g.Ops) == 0 {
		return g, err
	}
	_, lerr := lower.Lower(g, nil, lower.Kernels{})
	var more *model.UnsupportedError
	if errors.As(lerr, &more) {
		all := &model.UnsupportedError{Problems: slices.Clone(unsup.Problems)}
		for _, p := range more.Problems {
			if !slices.Contains(all.Problems, p) {
				all.Problems = append(all.Problems, p)
			}
		}
		return nil, all
	}
	return nil, err
}

// lowerGraph lowers, schedules and plans a parsed graph (schedule.Program, then
// layout.Make; schedulePlan), after the graph rewrites (gen/fold, and
// gen/strips with Options.Recompute). Unless Options.Speed is set, a fast kernel is kept only
// where its scratch memory does not make the arena larger. A plan over Options.MaxArena fails with
// ErrTooLarge and the peak explained. budget is an arena the model gets
// anyway (schedule.Options.Budget; 0: none).
func lowerGraph(g *model.Graph, opt Options, budget int) (*program.Program, *layout.Layout, error) {
	if !opt.NoFold {
		g = fold.Pads(g)
	}
	var p *program.Program
	var lay *layout.Layout
	var err error
	planned := false
	if opt.Recompute > 0 && g.Strips == nil {
		c := recompute(g, opt, budget)
		g = c.g
		if len(opt.Pools) == 0 {
			// The chooser's plan of the graph it keeps is the final
			// plan where no pools come in.
			p, lay, err, planned = c.p, c.lay, c.err, true
		}
	}
	if !planned {
		p, lay, err = schedulePlan(g, opt, budget, true)
	}
	if err == nil {
		if err := layout.CheckLimit(p, lay, opt.MaxArena); err != nil {
			return nil, nil, err
		}
		return p, lay, nil
	}
	if errors.Is(err, layout.ErrIOShared) && !opt.NoShare {
		// An operator writes a graph output in place of a graph input
		// (simple_add's ADD): with the two in separate arrays of the
		// application it cannot; lower without in-place operators.
		noShare := opt
		noShare.NoShare = true
		return lowerGraph(g, noShare, budget)
	}
	return nil, nil, err
}

// schedulePlan lowers and schedules g as opt says and plans its memory,
// in opt's pools where pools is set (else one arena). One search budget
// serves every plan it makes: the candidate selections of variant choice,
// the final plan and the plain plan. The candidates are planned with the
// graph's inputs and outputs where the final plan puts them (-io
// external: out of the arena), so that a fast kernel's scratch is weighed
// against the arena the user gets; pools come in with the final plan only.
func schedulePlan(g *model.Graph, opt Options, budget int, pools bool) (*program.Program, *layout.Layout, error) {
	popt := layout.Options{Align: opt.Align, Strategy: opt.Planner, Effort: opt.Effort, Session: planner.NewSession(opt.Effort),
		ExternalIO: opt.ExternalIO}
	p, plain, err := schedule.Program(g, schedule.Options{Lower: lower.Options{NoShare: opt.NoShare}, Kernels: lower.Kernels{Speed: opt.Speed, GC: opt.GC},
		Fuse: !opt.NoFuse && !opt.Speed, Plan: popt, Budget: budget})
	if err != nil {
		return nil, nil, err
	}
	if pools {
		popt.Pools = opt.Pools
	}
	lay, err := layout.Make(p, plain, popt)
	if err != nil {
		return nil, nil, err
	}
	return p, lay, nil
}
