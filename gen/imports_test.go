package gen

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const modulePath = "github.com/tflm-gen/tflm-gen"

// deps runs go list -deps on one package of the module (path relative to
// the module root) and returns the module-internal packages it depends on
// (itself excluded) and the other non-standard ones.
func deps(t *testing.T, root, pkg string) (internal, external []string) {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}}", "./"+pkg)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps ./%s: %v\n%s", pkg, err, out)
	}
	self := modulePath + "/" + pkg
	found := false
	for line := range strings.Lines(string(out)) {
		path, std, ok := strings.Cut(strings.TrimSpace(line), " ")
		switch {
		case !ok:
			t.Fatalf("go list -deps ./%s: unexpected line %q", pkg, line)
		case path == self:
			found = true
		case std == "true":
		case path == modulePath || strings.HasPrefix(path, modulePath+"/"):
			internal = append(internal, strings.TrimPrefix(path, modulePath+"/"))
		default:
			external = append(external, path)
		}
	}
	// -deps lists the package itself last; without it the output is not
	// what this test parses, and every "does not depend" would pass.
	if !found {
		t.Fatalf("go list -deps ./%s does not list %s:\n%s", pkg, self, out)
	}
	slices.Sort(internal)
	slices.Sort(external)
	return internal, external
}

// TestImportGraph checks the direction of the stages (issues 14, 23):
// lowering imports neither scheduling, planning nor emission, planning imports neither, emission does not
// reach back into lowering, the variant choice and the planner know
// nothing of the generator, and the kernels (copied into generated
// packages) import nothing but the standard library. With -v it logs each
// package's module-internal dependencies (transitive).
func TestImportGraph(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not on PATH")
	}
	root, err := filepath.Abs("..") // the test runs in gen/
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		pkg string
		// forbidden are module packages pkg must not depend on.
		forbidden []string
		// nothingInternal: pkg depends on no package of the module;
		// stdOnly: and on nothing outside the standard library.
		nothingInternal, stdOnly bool
		// required are dependencies that must be present: they show the
		// listing is the transitive one (not vacuous).
		required []string
		// notImported are module packages pkg must not import itself
		// (it may depend on them through another).
		notImported []string
	}{
		{pkg: "gen/program", forbidden: []string{"gen/lower", "gen/schedule", "gen/layout", "gen/variant", "gen/emit", "gen/report"},
			required: []string{"internal/model", "planner"}},
		// Lowering offers choices; scheduling makes them by planning
		// candidates (gen/schedule), so lowering knows no planner.
		// It reaches the kernels' planning code through gen/kernelsig only.
		{pkg: "gen/lower", forbidden: []string{"gen/schedule", "gen/layout", "gen/variant", "gen/emit", "gen/report"},
			required: []string{"gen/program", "gen/kernelsig"}, notImported: []string{"kernels"}},
		{pkg: "gen/schedule", forbidden: []string{"gen/emit", "gen/report"},
			required: []string{"gen/program", "gen/lower", "gen/layout", "gen/variant"}},
		{pkg: "gen/layout", forbidden: []string{"gen/lower", "gen/schedule", "gen/emit", "gen/report"},
			required: []string{"gen/program", "planner"}},
		{pkg: "gen/variant", nothingInternal: true},
		{pkg: "gen/emit", forbidden: []string{"gen/lower", "gen/schedule", "gen/variant"},
			required: []string{"gen/program", "gen/layout"}},
		{pkg: "gen/report", forbidden: []string{"gen/lower", "gen/schedule", "gen/variant", "gen/emit"},
			required: []string{"gen/program", "gen/layout"}},
		{pkg: "planner", nothingInternal: true, stdOnly: true},
		{pkg: "kernels", nothingInternal: true, stdOnly: true},
		// The orchestrator reaches every stage (directly or not).
		{pkg: "gen", required: []string{"gen/program", "gen/lower", "gen/schedule", "gen/layout", "gen/variant", "gen/emit", "gen/report"}},
		// The differential tests' harness runs what a test hands it.
		{pkg: "internal/devtools/difftest", forbidden: []string{"gen/lower", "gen/schedule"}},
		{pkg: "cmd/tflm-gen", required: []string{"gen"}},
	}
	for _, tc := range tests {
		t.Run(tc.pkg, func(t *testing.T) {
			internal, external := deps(t, root, tc.pkg)
			if len(internal) == 0 {
				t.Logf("%s -> (nothing of the module)", tc.pkg)
			} else {
				t.Logf("%s -> %s", tc.pkg, strings.Join(internal, ", "))
			}
			if len(external) > 0 {
				t.Logf("%s -> (outside the module) %s", tc.pkg, strings.Join(external, ", "))
			}
			for _, f := range tc.forbidden {
				if slices.Contains(internal, f) {
					t.Errorf("%s depends on %s", tc.pkg, f)
				}
			}
			if tc.nothingInternal && len(internal) > 0 {
				t.Errorf("%s depends on packages of the module: %s", tc.pkg, strings.Join(internal, ", "))
			}
			if tc.stdOnly && len(external) > 0 {
				t.Errorf("%s depends on packages outside the standard library: %s", tc.pkg, strings.Join(external, ", "))
			}
			// Developer tools are never part of the generator itself.
			for _, d := range internal {
				if strings.HasPrefix(d, "internal/devtools/") && !strings.HasPrefix(tc.pkg, "internal/devtools/") {
					t.Errorf("%s depends on the developer tool %s", tc.pkg, d)
				}
			}
			if len(tc.notImported) > 0 {
				cmd := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, "./"+tc.pkg)
				cmd.Dir = root
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("go list -f .Imports ./%s: %v", tc.pkg, err)
				}
				imports := strings.Fields(string(out))
				if !slices.Contains(imports, "fmt") {
					t.Fatalf("go list -f .Imports ./%s lists %v: not what the test expects", tc.pkg, imports)
				}
				for _, n := range tc.notImported {
					if slices.Contains(imports, modulePath+"/"+n) {
						t.Errorf("%s imports %s", tc.pkg, n)
					}
				}
			}
			for _, r := range tc.required {
				if !slices.Contains(internal, r) {
					t.Errorf("%s does not depend on %s: the listing is not what the test expects", tc.pkg, r)
				}
			}
		})
	}
}
