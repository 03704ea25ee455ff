package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen"
	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
)

const exampleModel = "../../testdata/tiny_conv_int8.tflite"

// denseModel is a second fixture, for packages running several models.
const denseModel = "../../testdata/dense_int8.tflite"

func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, e := range es {
		n = append(n, e.Name())
	}
	return n
}

// TestExitCodes checks exit codes and the one-line error of each failure;
// no failure may create the output directory.
func TestExitCodes(t *testing.T) {
	tmp := t.TempDir()
	corrupt := filepath.Join(tmp, "corrupt.tflite")
	data, err := os.ReadFile(exampleModel)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(corrupt, data[:len(data)/3], 0o644); err != nil {
		t.Fatal(err)
	}
	notModel := filepath.Join(tmp, "text.tflite")
	os.WriteFile(notModel, []byte("hello, this is not a model"), 0o644)
	// Hostile models (issue 26): one line naming the file and the limit.
	hostile := func(name string, data []byte) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	recursive := hostile("recursive.tflite", builder.MutualCallOnce())
	tree := hostile("tree.tflite", builder.CallOnceTree(16))
	fan := hostile("fan.tflite", builder.FanOut(5000))
	out := filepath.Join(tmp, "out")
	tests := []struct {
		name    string
		args    []string
		code    int
		stderr  string // substring of stderr
		written bool
	}{
		{"no model", []string{"-o", out}, 2, "no model file given", false},
		{"two models without -o", []string{exampleModel, exampleModel}, 2, "2 model files: give the package's directory with -o", false},
		{"two models, same name", []string{exampleModel, exampleModel, "-o", out}, 1, "would both be type TinyConvInt8 in the package", false},
		{"two models with pools and -io external", []string{exampleModel, denseModel, "-pool", "a:512:1", "-pool", "b:64K:4", "-io", "external", "-o", out}, 0, "", true},
		{"two models, pools too small", []string{exampleModel, denseModel, "-pool", "a:256:1", "-pool", "b:512:4", "-o", out}, 1, `tiny_conv_int8.tflite: arena larger than the limit: pool "b" (512 bytes) is`, false},
		{"two models", []string{exampleModel, denseModel, "-o", out}, 0, "", true},
		{"two models, plan", []string{"plan", exampleModel, denseModel}, 2, "one model file expected, got 2", false},
		{"bad flag", []string{"-bogus", exampleModel}, 2, "flag provided but not defined: -bogus", false},
		{"bad align", []string{exampleModel, "-align", "3", "-o", out}, 2, "-align 3: must be a power of two", false},
		{"bad fuse", []string{exampleModel, "-fuse", "yes", "-o", out}, 2, `-fuse "yes": want on or off`, false},
		{"bad recompute", []string{exampleModel, "-recompute", "ten", "-o", out}, 2, `-recompute "ten": want off or a percentage above 0 and at most 1000`, false},
		{"recompute 0", []string{exampleModel, "-recompute", "0%", "-o", out}, 2, `-recompute "0%": want off or a percentage`, false},
		{"recompute", []string{exampleModel, "-recompute", "12.5%", "-o", out}, 0, "", true},
		{"bad planner", []string{exampleModel, "-planner", "best", "-o", out}, 2, `-planner "best": must be optimal or greedy`, false},
		{"bad package", []string{exampleModel, "-pkg", "1x", "-o", out}, 2, `-pkg: package name "1x" is not a Go identifier`, false},
		{"package main", []string{exampleModel, "-pkg", "main", "-o", out}, 2, `-pkg: package name "main" would make a command`, false},
		{"package init", []string{exampleModel, "-pkg", "init", "-o", out}, 2, `-pkg: package name "init" is not allowed by Go`, false},
		{"package keyword", []string{exampleModel, "-pkg", "func", "-o", out}, 2, `-pkg: package name "func" is a Go keyword`, false},
		{"model is a directory", []string{tmp, "-o", out}, 1, tmp + " is a directory, not a model file", false},
		{"missing file", []string{filepath.Join(tmp, "nope.tflite"), "-o", out}, 1, "nope.tflite: no such file or directory", false},
		{"truncated", []string{corrupt, "-o", out}, 1, "corrupt.tflite: invalid model: the file looks truncated: it refers to data past its end (", false},
		{"not a model", []string{notModel, "-o", out}, 1, `text.tflite: invalid model: file identifier is`, false},
		{"too large", []string{exampleModel, "-max-model-size", "100", "-o", out}, 1, "over the -max-model-size limit of 100", false},
		{"arena limit", []string{exampleModel, "-max-arena", "700", "-o", out}, 1, "arena needs 800 bytes, 100 over the limit of 700; the plan equals the lower bound, so no plan of these buffers is smaller; peak at operator 2 (CONV_2D)", false},
		{"arena limit layer by layer", []string{exampleModel, "-max-arena", "1000", "-fuse=off", "-o", out}, 1, "arena needs 1616 bytes, 616 over the limit of 1000; the plan equals the lower bound, so no plan of these buffers is smaller; peak at operator 2 (CONV_2D)", false},
		{"recursive subgraphs", []string{recursive, "-o", out}, 1, "recursive.tflite: unsupported model feature: 1 problem(s): subgraph 2: operator 0 (CALL_ONCE): calls subgraph 1 recursively (call cycle 1 -> 2 -> 1)", false},
		{"call tree", []string{tree, "-o", out}, 1, "tree.tflite: unsupported model feature: 1 problem(s): operator 0 (CALL_ONCE): runs 131069 operators of called subgraphs", false},
		{"live pairs", []string{fan, "-o", out}, 1, "fan.tflite: memory plan too large: 12497500 pairs of buffers are live at a common operator, more than the planner's limit of 1048576 (planner.MaxLivePairs); 5000 buffers are live at operator 4998 (ABS)", false},
		{"live pairs, plan", []string{"plan", fan}, 1, "fan.tflite: memory plan too large: 12497500 pairs", false},
		{"pool without size", []string{exampleModel, "-pool", "dtcm", "-o", out}, 2, `invalid value "dtcm" for flag -pool: "dtcm": want NAME:BYTES or NAME:BYTES:COST`, false},
		{"pool bad name", []string{exampleModel, "-pool", "DTCM:64K", "-o", out}, 2, `pool name "DTCM": want 1 to 16 lower-case letters and digits`, false},
		{"pool bad size", []string{exampleModel, "-pool", "dtcm:64Q", "-o", out}, 2, `pool "dtcm": size "64Q": want a byte count`, false},
		{"pool huge size", []string{exampleModel, "-pool", "dtcm:4096M", "-o", out}, 2, `pool "dtcm": size "4096M": want a byte count from 0 to 2147483647`, false},
		{"pool bad cost", []string{exampleModel, "-pool", "dtcm:64K:0", "-o", out}, 2, `pool "dtcm": cost "0": want an integer from 1`, false},
		{"pool twice", []string{exampleModel, "-pool", "a:1K", "-pool", "a:2K", "-o", out}, 2, `pool "a" given twice`, false},
		{"pools too small", []string{exampleModel, "-pool", "dtcm:256:1", "-pool", "sram:512:2", "-o", out}, 1, `tiny_conv_int8.tflite: arena larger than the limit: pool "sram" (512 bytes) is `, false},
		{"pools", []string{exampleModel, "-pool", "dtcm:512:1", "-pool", "sram:64K:3", "-bind", "-o", out}, 0, "", true},
		{"bad io", []string{exampleModel, "-io", "dma", "-o", out}, 2, `-io "dma": want arena or external`, false},
		{"offline pools", []string{"plan", exampleModel, "-pool", "a:1K", "-emit-offline", filepath.Join(tmp, "off.tflite")}, 2, "-emit-offline writes one arena", false},
		{"io external", []string{exampleModel, "-io", "external", "-pool", "dtcm:512:1", "-pool", "sram:64K:3", "-bind", "-o", out}, 0, "", true},
		{"version", []string{"-version"}, 0, "", false},
		{"flags after model", []string{exampleModel, "-o", out, "-pkg", "tiny"}, 0, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			os.RemoveAll(out)
			code, _, stderr := runCLI(tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr %q does not contain %q", stderr, tc.stderr)
			}
			if tc.code != 0 {
				if !strings.HasPrefix(stderr, "tflm-gen: ") {
					t.Errorf("stderr %q lacks the tflm-gen: prefix", stderr)
				}
				if lines := strings.Count(strings.TrimSpace(stderr), "\n"); lines > 0 && tc.code == 1 {
					t.Errorf("error is %d lines, want one: %q", lines+1, stderr)
				}
			}
			if got := len(dirFiles(t, out)) > 0; got != tc.written {
				t.Errorf("output written = %v, want %v", got, tc.written)
			}
		})
	}
}

// TestWriteAndCheck covers writing, replacing stale generated files while
// keeping the user's own files, and -check's drift detection.
func TestWriteAndCheck(t *testing.T) {
	out := filepath.Join(t.TempDir(), "tiny-conv")
	if code, stdout, stderr := runCLI("-o", out, exampleModel); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	} else if !strings.Contains(stdout, "(package tinyconv)") {
		t.Errorf("stdout %q does not name the derived package tinyconv", stdout)
	}
	model, err := os.ReadFile(filepath.Join(out, "model.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(model, []byte("\npackage tinyconv\n")) {
		t.Error("model.go is not in package tinyconv")
	}
	// A stale generated file goes away; the user's file stays.
	stale := filepath.Join(out, "kernel_old.go")
	os.WriteFile(stale, []byte(gen.GeneratedHeader+"\npackage tinyconv\n"), 0o644)
	user := filepath.Join(out, "model_test.go")
	os.WriteFile(user, []byte("package tinyconv\n"), 0o644)

	if code, stdout, _ := runCLI(exampleModel, "-o", out, "-check"); code != 1 || !strings.Contains(stdout, "kernel_old.go  stale") || strings.Contains(stdout, "--- a/") {
		t.Errorf("-check with a stale file: exit %d, summary %q", code, stdout)
	}
	if code, stdout, _ := runCLI(exampleModel, "-o", out, "-check", "-diff"); code != 1 || !strings.Contains(stdout, "--- a/"+stale) {
		t.Errorf("-check -diff with a stale file: exit %d, diff %q", code, stdout)
	}
	if code, _, stderr := runCLI(exampleModel, "-o", out); code != 0 {
		t.Fatalf("regenerate: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Error("stale generated file was not removed")
	}
	if _, err := os.Stat(user); err != nil {
		t.Error("user file was removed")
	}
	if code, stdout, stderr := runCLI(exampleModel, "-o", out, "-check"); code != 0 || stdout != "" {
		t.Errorf("-check on fresh output: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// Edit one constant: -check prints a summary (-diff: and a unified
	// diff) and writes nothing.
	edited := bytes.Replace(model, []byte("const ArenaSize = "), []byte("const ArenaSize = 1 + "), 1)
	os.WriteFile(filepath.Join(out, "model.go"), edited, 0o644)
	code, stdout, stderr := runCLI(exampleModel, "-o", out, "-check")
	if code != 1 || !strings.Contains(stderr, "out of date") {
		t.Errorf("-check after edit: exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{out + " differs from the generated package: 1 file\n", "  model.go  changed  +1 -1 line, in ArenaSize\n",
		"plan, before -> after:\n  unchanged: model, ArenaSize 800,", "operators that changed: none\n", "(tflm-gen -check -diff prints the full diff)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	code, stdout, _ = runCLI(exampleModel, "-o", out, "-check", "-diff")
	for _, want := range []string{"model.go  changed", "--- a/" + filepath.Join(out, "model.go"), "@@ ", "-const ArenaSize = 1 + ", "+const ArenaSize = "} {
		if code != 1 || !strings.Contains(stdout, want) {
			t.Errorf("-diff: exit %d, output lacks %q:\n%s", code, want, stdout)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(out, "model.go")); !bytes.Equal(after, edited) {
		t.Error("-check modified the output directory")
	}
}

func TestPlanCommand(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "plan.svg")
	code, stdout, stderr := runCLI("plan", exampleModel, "-svg", svg)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"arena        800 bytes", "lower bound  800 bytes", "operator 1 (DEPTHWISE_CONV_2D) writes b3 (t2) over b0 (t1)", "operators 2-3 (CONV_2D, AVERAGE_POOL_2D) fused", "Timeline"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("plan output lacks %q", want)
		}
	}
	// -fuse=off: the layer-by-layer plan, conv3 and its input apart.
	_, flat, _ := runCLI("plan", exampleModel, "-fuse=off")
	for _, want := range []string{"arena        1616 bytes", "lower bound  1616 bytes", "schedule     layer by layer"} {
		if !strings.Contains(flat, want) {
			t.Errorf("plan -fuse=off output lacks %q", want)
		}
	}
	b, err := os.ReadFile(svg)
	if err != nil || !bytes.HasPrefix(b, []byte("<svg ")) || !bytes.Contains(b, []byte("lower bound")) {
		t.Errorf("svg not written correctly: %v", err)
	}
	// -json writes the report.json that generation writes.
	js := filepath.Join(t.TempDir(), "plan.json")
	if code, _, stderr := runCLI("plan", exampleModel, "-json", js); code != 0 {
		t.Fatalf("plan -json: exit %d: %s", code, stderr)
	}
	out := filepath.Join(t.TempDir(), "m")
	if code, _, stderr := runCLI(exampleModel, "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, _ := os.ReadFile(js)
	want, _ := os.ReadFile(filepath.Join(out, "report.json"))
	if len(want) == 0 || !bytes.Equal(got, want) {
		t.Errorf("plan -json wrote\n%s\nreport.json is\n%s", got, want)
	}
}

func TestPackageName(t *testing.T) {
	for in, want := range map[string]string{
		"out/person-detect": "persondetect",
		"model":             "model",
		"./x/9lives":        "m9lives",
		"--":                "model",
		"Tiny_Conv":         "tiny_conv",
		"go":                "gomodel", // keywords, main and init are not package names
		"out/func":          "funcmodel",
		"main":              "mainmodel",
		"init":              "initmodel",
	} {
		if got := packageName(in); got != want {
			t.Errorf("packageName(%q) = %q, want %q", in, got, want)
		}
	}
}

// readmeRecipe returns the firmware-module recipe of the README: the
// commands of the sh block that makes tflm-gen a tool dependency, and the
// //go:generate line.
func readmeRecipe(t *testing.T, root string) (cmds [][]string, directive string) {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, block := range strings.Split(string(readme), "```sh\n")[1:] {
		block, _, _ = strings.Cut(block, "```")
		if !strings.Contains(block, "go mod edit -tool") {
			continue
		}
		for _, l := range strings.Split(block, "\n") {
			if f := strings.Fields(l); len(f) > 0 && !strings.HasPrefix(f[0], "#") {
				cmds = append(cmds, f)
			}
		}
	}
	for _, l := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(l, "//go:generate go tool tflm-gen ") {
			directive = l
		}
	}
	if len(cmds) == 0 || directive == "" {
		t.Fatalf("README.md has no tool-dependency recipe (commands %q, directive %q)", cmds, directive)
	}
	return cmds, directive
}

// TestGoGenerate runs the README's firmware-module recipe exactly as
// written: in a fresh module, the commands that make tflm-gen a tool
// dependency (its clone, ../tflm-gen, is this checkout), the //go:generate
// line, go generate, go build, and a program that uses the package.
func TestGoGenerate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module; skipped with -short")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmds, directive := readmeRecipe(t, root)
	dir := t.TempDir()
	model, err := os.ReadFile(exampleModel)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"model.tflite": string(model),
		"gen.go":       "package firmware\n\n" + directive + "\n",
		"main/main.go": "package main\n\nimport \"example.com/firmware/model\"\n\nfunc main() {\n\tvar m model.Model\n\tm.InputInt8(0)[0] = 1\n\tm.Invoke()\n\tprintln(\"ok\", len(m.OutputInt8(0)))\n}\n",
	}
	for n, c := range files {
		p := filepath.Join(dir, n)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goCmd := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = dir
		// The scratch module alone: no workspace, no flags of the caller.
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	goCmd("go", "mod", "init", "example.com/firmware")
	for _, c := range cmds {
		for i, a := range c {
			c[i] = strings.ReplaceAll(a, "../tflm-gen", root)
		}
		goCmd(c...)
	}
	goCmd("go", "generate", "./...")
	if _, err := os.Stat(filepath.Join(dir, "model", "model.go")); err != nil {
		t.Fatalf("go generate did not write the package: %v", err)
	}
	goCmd("go", "build", "./...")
	if out := goCmd("go", "run", "./main"); !strings.Contains(out, "ok 4") {
		t.Errorf("the program printed %q", out)
	}
	// The generated package needs nothing but the standard library.
	if out := goCmd("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "./model"); strings.TrimSpace(out) != "example.com/firmware/model" {
		t.Errorf("the generated package depends on %q", out)
	}
	// A model that needs fewer kernels (issue 26, item 6): go generate
	// lists the packages' files before running tflm-gen, so a run that
	// removed a file of the package would fail on it. The package keeps
	// its file names whatever the model.
	before := snapshotNames(t, filepath.Join(dir, "model"))
	smaller, err := os.ReadFile("../../testdata/dense_int8.tflite")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "model.tflite"), smaller, 0o644); err != nil {
		t.Fatal(err)
	}
	goCmd("go", "generate", "./...")
	if after := snapshotNames(t, filepath.Join(dir, "model")); !slices.Equal(before, after) {
		t.Errorf("the package's files changed with the model: %v, then %v", before, after)
	}
	goCmd("go", "build", "./...")
	if out := goCmd("go", "run", "./main"); !strings.Contains(out, "ok 1") {
		t.Errorf("the program printed %q", out)
	}
}

// snapshotNames lists the names in dir, sorted.
func snapshotNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}
