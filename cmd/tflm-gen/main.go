// Command tflm-gen compiles a TensorFlow Lite model into a self-contained Go
// package with an ahead-of-time memory plan.
//
//	tflm-gen [flags] MODEL.tflite
//	tflm-gen plan [flags] MODEL.tflite
//
// Flags may also follow the model path. Run tflm-gen -h for the flags.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tflm-gen/tflm-gen/gen"
	"github.com/tflm-gen/tflm-gen/planner"
)

// Version is the tflm-gen release.
const Version = "0.1.0"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1 // model or I/O error, drift found by -check
	exitUsage = 2
)

// errUsage marks command-line mistakes (exit 2).
var errUsage = errors.New("usage")

type config struct {
	out, pkg       string
	check, version bool
	diff           bool
	stamp          bool
	speed          bool
	fuse           string
	fold           string
	recompute      string
	recomputePct   float64
	compiler       string
	align          int
	plannerName    string
	effort         int64
	maxArena       int
	maxModel       int64
	svg            string
	json           string
	emitOffline    string
	pools          poolFlags
	bind           bool
	io             string
	more           []string // models after the first: one package runs them all
}

func run(args []string, stdout, stderr io.Writer) int {
	plan := len(args) > 0 && args[0] == "plan"
	if plan {
		args = args[1:]
	}
	cfg, model, err := parseArgs(args, plan, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(stderr, "tflm-gen: %v\n", err)
		return exitUsage
	}
	if cfg.version {
		fmt.Fprintf(stdout, "tflm-gen %s\n", Version)
		return exitOK
	}
	if plan {
		err = runPlan(cfg, model, stdout)
	} else {
		err = runGenerate(cfg, model, stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "tflm-gen: %v\n", err)
		if errors.Is(err, errUsage) {
			return exitUsage
		}
		return exitFail
	}
	return exitOK
}

// newFlags makes the flag set of the generate or plan command.
func newFlags(cfg *config, plan bool) *flag.FlagSet {
	name := "tflm-gen"
	if plan {
		name = "tflm-gen plan"
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// Parse errors are reported by run as one line; the full usage is
	// printed only for -h.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	addFlags(fs, cfg, plan)
	return fs
}

// printUsage writes the -h text.
func printUsage(fs *flag.FlagSet, plan bool, stderr io.Writer) {
	fs.SetOutput(stderr)
	defer fs.SetOutput(io.Discard)
	if plan {
		fmt.Fprintf(stderr, "usage: tflm-gen plan [flags] MODEL.tflite\n\nPrints the memory plan of a model without generating code.\n\n")
	} else {
		fmt.Fprintf(stderr, "usage: tflm-gen [flags] MODEL.tflite\n       tflm-gen [flags] -o DIR MODEL.tflite MORE.tflite ...\n       tflm-gen plan [flags] MODEL.tflite\n\nGenerates a Go package that runs the model (several models: one package running\nthem one at a time in one arena planned for all).\n\n")
	}
	fs.PrintDefaults()
}

func addFlags(fs *flag.FlagSet, cfg *config, plan bool) {
	if !plan {
		fs.StringVar(&cfg.out, "o", "", "output `directory` (created if needed; default: the model's base name)")
		fs.StringVar(&cfg.pkg, "pkg", "", "package `name` (default: last element of the output directory)")
		fs.BoolVar(&cfg.check, "check", false, "compare with the files in the output directory, print what differs (files, plan, operators) and exit 1 on drift; write nothing")
		fs.BoolVar(&cfg.diff, "diff", false, "with -check, print the full unified diff too")
		fs.BoolVar(&cfg.stamp, "stamp", false, "write the tflm-gen version into generated headers")
	} else {
		fs.StringVar(&cfg.svg, "svg", "", "also draw the arena as an SVG picture into `file`")
		fs.StringVar(&cfg.json, "json", "", "also write the machine-readable report (report.json of a generated package) into `file`")
		fs.StringVar(&cfg.emitOffline, "emit-offline", "", "write a copy of the model with TFLite Micro's OfflineMemoryAllocation metadata set from the plan into `file`")
	}
	fs.BoolVar(&cfg.version, "version", false, "print the version and exit")
	fs.IntVar(&cfg.align, "align", 16, "buffer offset alignment in `bytes` (power of two)")
	fs.StringVar(&cfg.plannerName, "planner", "optimal", "memory planner: optimal or greedy (TFLite Micro's rule)")
	fs.Int64Var(&cfg.effort, "plan-effort", planner.DefaultEffort, "exact planner search budget in search `steps`, for all plans of one run together (machine independent)")
	fs.BoolVar(&cfg.speed, "speed", false, "use every fast kernel even where its scratch memory makes the arena larger, run layer by layer (as -fuse=off), and trade flash for speed (SVDF rings, four-copy biases)")
	fs.StringVar(&cfg.compiler, "compiler", "tinygo", "tinygo: kernels for TinyGo on a Cortex-M4/M7 (Thumb-2 DSP loops there, Go elsewhere); gc: kernels tuned for gc")
	fs.StringVar(&cfg.recompute, "recompute", "off", "N%: let the first operators run in column strips where that makes the arena smaller, recomputing the strips' overlapping halos for at most N per cent more multiply-accumulates per Invoke (patch-based execution; layout.txt states the stage and the extra); off: never")
	fs.StringVar(&cfg.fold, "fold", "on", "on: a PAD of height and width, read only by a VALID convolution (padding with the zero point) or max pool (with the least value), becomes that operator's own padding (no copy, no padded tensor); off: every operator as the model has it")
	fs.StringVar(&cfg.fuse, "fuse", "on", "on: chains of convolutions run fused row by row (line buffers) and operators write their output over their dying input, where that makes the arena smaller; off: the layer-by-layer plan")
	fs.Var(&cfg.pools, "pool", "place the buffers in several memories: `NAME:BYTES[:COST]` (repeatable; BYTES may end in K or M, COST is the relative cost of a byte accessed, default 1), e.g. -pool dtcm:64K:1 -pool sram:256K:2")
	fs.StringVar(&cfg.io, "io", "arena", "arena: inputs and outputs are views into the arena; external: arrays the application owns, passed to Invoke (the arena shrinks by what they took)")
	if !plan {
		fs.BoolVar(&cfg.bind, "bind", false, "generated Model takes its memory (the arena, or each -pool) from the application: Model.Bind(&mem)")
	}
	fs.IntVar(&cfg.maxArena, "max-arena", 0, "fail when the arena needs more than `bytes` (0: no limit)")
	fs.Int64Var(&cfg.maxModel, "max-model-size", 256<<20, "refuse model files larger than `bytes`")
}

// parseArgs accepts flags before and after the model path.
func parseArgs(args []string, plan bool, stderr io.Writer) (*config, string, error) {
	cfg := &config{}
	fs := newFlags(cfg, plan)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				printUsage(fs, plan, stderr)
				return nil, "", err
			}
			return nil, "", fmt.Errorf("%w (run %s -h for usage)", err, fs.Name())
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if cfg.version {
		return cfg, "", nil
	}
	switch {
	case len(pos) == 0:
		return nil, "", fmt.Errorf("no model file given (run %s -h for usage)", fs.Name())
	case len(pos) > 1 && plan:
		return nil, "", fmt.Errorf("one model file expected, got %d: %s", len(pos), strings.Join(pos, " "))
	case len(pos) > 1 && cfg.out == "":
		return nil, "", fmt.Errorf("%d model files: give the package's directory with -o (they run in one package)", len(pos))
	}
	cfg.more = pos[1:]
	if cfg.align < 1 || cfg.align&(cfg.align-1) != 0 || cfg.align > 4096 {
		return nil, "", fmt.Errorf("-align %d: must be a power of two from 1 to 4096", cfg.align)
	}
	if cfg.plannerName != "optimal" && cfg.plannerName != "greedy" {
		return nil, "", fmt.Errorf("-planner %q: must be optimal or greedy", cfg.plannerName)
	}
	if cfg.compiler != "tinygo" && cfg.compiler != "gc" {
		return nil, "", fmt.Errorf("-compiler %q: want tinygo or gc", cfg.compiler)
	}
	if cfg.fuse != "on" && cfg.fuse != "off" {
		return nil, "", fmt.Errorf("-fuse %q: want on or off", cfg.fuse)
	}
	if cfg.fold != "on" && cfg.fold != "off" {
		return nil, "", fmt.Errorf("-fold %q: want on or off", cfg.fold)
	}
	if cfg.recompute != "off" {
		v, err := strconv.ParseFloat(strings.TrimSuffix(cfg.recompute, "%"), 64)
		if err != nil || !(v > 0 && v <= 1000) {
			return nil, "", fmt.Errorf("-recompute %q: want off or a percentage above 0 and at most 1000, such as 10%%", cfg.recompute)
		}
		cfg.recomputePct = v
	}
	if cfg.io != "arena" && cfg.io != "external" {
		return nil, "", fmt.Errorf("-io %q: want arena or external", cfg.io)
	}
	if cfg.emitOffline != "" && (len(cfg.pools) > 0 || cfg.io == "external") {
		return nil, "", fmt.Errorf("-emit-offline writes one arena, as TensorFlow Lite Micro has: it cannot be combined with -pool or -io external")
	}
	if cfg.effort < 1 {
		return nil, "", fmt.Errorf("-plan-effort %d: must be positive", cfg.effort)
	}
	if cfg.maxArena < 0 {
		return nil, "", fmt.Errorf("-max-arena %d: must not be negative", cfg.maxArena)
	}
	if cfg.maxModel < 1 {
		return nil, "", fmt.Errorf("-max-model-size %d: must be positive", cfg.maxModel)
	}
	if !plan {
		if cfg.out == "" {
			base := filepath.Base(pos[0])
			cfg.out = strings.TrimSuffix(base, filepath.Ext(base))
		}
		if cfg.pkg == "" {
			cfg.pkg = packageName(cfg.out)
		} else if err := gen.CheckPackageName(cfg.pkg); err != nil {
			return nil, "", fmt.Errorf("-pkg: %w", err)
		}
	}
	return cfg, pos[0], nil
}

func (c *config) options() gen.Options {
	o := gen.Options{Package: c.pkg, Align: c.align, Effort: c.effort, MaxArena: c.maxArena, Speed: c.speed, GC: c.compiler == "gc", NoFuse: c.fuse == "off", NoFold: c.fold == "off",
		Recompute: c.recomputePct, Pools: c.pools, Bind: c.bind, ExternalIO: c.io == "external"}
	if c.plannerName == "greedy" {
		o.Planner = planner.Greedy
	}
	if c.stamp {
		o.Version = Version
	}
	return o
}

// readModel reads the model file, refusing files over the size limit before
// reading them whole.
func readModel(path string, limit int64) ([]byte, error) {
	// Stat before opening: opening a FIFO would wait for a writer.
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := regularModel(path, st); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := regularModel(path, st); err != nil {
		return nil, err
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes is over the -max-model-size limit of %d", path, st.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: over the -max-model-size limit of %d bytes", path, limit)
	}
	return data, nil
}

// regularModel refuses a model path that is not a regular file.
func regularModel(path string, st os.FileInfo) error {
	if st.IsDir() {
		return fmt.Errorf("%s is a directory, not a model file", path)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (%s), not a model file", path, st.Mode().Type())
	}
	return nil
}

// packageName makes a package name from a directory name: a Go
// identifier that gen.CheckPackageName accepts ("go" gives "gomodel").
func packageName(dir string) string {
	name := identifier(dir)
	if gen.CheckPackageName(name) != nil {
		name += "model"
	}
	return name
}

// identifier makes a Go identifier from a directory name.
func identifier(dir string) string {
	base := filepath.Base(filepath.Clean(dir))
	var b strings.Builder
	for _, r := range strings.ToLower(base) {
		switch {
		case r >= 'a' && r <= 'z', r == '_':
			b.WriteRune(r)
		case r >= '0' && r <= '9':
			if b.Len() == 0 {
				b.WriteString("m")
			}
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 || b.String() == "_" {
		return "model"
	}
	return b.String()
}

func runGenerate(cfg *config, path string, stdout io.Writer) error {
	if len(cfg.more) > 0 {
		return runMulti(cfg, append([]string{path}, cfg.more...), stdout)
	}
	data, err := readModel(path, cfg.maxModel)
	if err != nil {
		return err
	}
	res, err := gen.Generate(path, data, cfg.options())
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if written, err := checkOrWrite(cfg, path, res.Files, stdout); !written || err != nil {
		return err
	}
	p := res.Layout.Plan
	budget := ""
	if p.Cert == planner.BestFound {
		budget = " (the planner's search budget ran out before the plan was proven optimal; -plan-effort raises it)"
	}
	l := res.Layout
	var mems []string
	for _, pool := range l.Pools {
		switch {
		case pool.IO != "":
			mems = append(mems, fmt.Sprintf("%s %d outside it", pool.IO, pool.Plan.Size))
		case pool.Name != "":
			mems = append(mems, fmt.Sprintf("%s %d", pool.Name, pool.Plan.Size))
		}
	}
	where := ""
	if len(mems) > 0 {
		where = " (" + strings.Join(mems, ", ") + ")"
	}
	fmt.Fprintf(stdout, "tflm-gen: %s -> %s (package %s): arena %d bytes%s, lower bound %d, %s%s\n",
		path, cfg.out, cfg.pkg, l.ArenaSize(), where, p.LowerBound, p.CertText(), budget)
	return nil
}

// checkOrWrite writes the generated files into cfg.out, or with -check
// compares them with it: nothing printed when they match, else the drift
// (and with -diff the full diff) and an error naming what (the model
// files). written reports whether files were written.
func checkOrWrite(cfg *config, what string, files map[string][]byte, stdout io.Writer) (written bool, err error) {
	if !cfg.check {
		if err := gen.WriteDir(cfg.out, files); err != nil {
			return false, err
		}
		return true, nil
	}
	drift, err := gen.CheckDir(cfg.out, files)
	if err != nil || !drift.Changed() {
		return false, err
	}
	if err := drift.WriteSummary(stdout); err != nil {
		return false, err
	}
	if cfg.diff {
		err = drift.WriteDiff(stdout)
	} else {
		_, err = fmt.Fprintln(stdout, "(tflm-gen -check -diff prints the full diff)")
	}
	if err != nil {
		return false, err
	}
	return false, fmt.Errorf("%s: generated code in %s is out of date; rerun tflm-gen", what, cfg.out)
}

// runMulti generates one package running several models in one arena.
func runMulti(cfg *config, paths []string, stdout io.Writer) error {
	var models []gen.ModelFile
	for _, p := range paths {
		data, err := readModel(p, cfg.maxModel)
		if err != nil {
			return err
		}
		models = append(models, gen.ModelFile{Name: p, Data: data})
	}
	res, err := gen.GenerateMulti(models, cfg.options())
	if err != nil {
		return err
	}
	if written, err := checkOrWrite(cfg, strings.Join(paths, ", "), res.Files, stdout); !written || err != nil {
		return err
	}
	p := res.Joint.Plan
	fmt.Fprintf(stdout, "tflm-gen: %s -> %s (package %s, types %s): one arena of %d bytes for all, lower bound %d, %s\n",
		strings.Join(paths, ", "), cfg.out, cfg.pkg, strings.Join(res.Types, ", "), p.Size, p.LowerBound, p.CertText())
	return nil
}

func runPlan(cfg *config, path string, stdout io.Writer) error {
	data, err := readModel(path, cfg.maxModel)
	if err != nil {
		return err
	}
	opt := cfg.options()
	opt.Package = "plan"
	rep, err := gen.PlanReport(path, data, opt)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if _, err := stdout.Write(rep.Text); err != nil {
		return err
	}
	if cfg.svg != "" {
		if err := gen.WriteFile(cfg.svg, rep.SVG); err != nil {
			return fmt.Errorf("-svg: %w", err)
		}
	}
	if cfg.json != "" {
		if err := gen.WriteFile(cfg.json, rep.JSON); err != nil {
			return fmt.Errorf("-json: %w", err)
		}
	}
	if cfg.emitOffline != "" {
		out, err := gen.EmitOffline(path, data, opt)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := gen.WriteFile(cfg.emitOffline, out); err != nil {
			return fmt.Errorf("-emit-offline: %w", err)
		}
	}
	return nil
}
