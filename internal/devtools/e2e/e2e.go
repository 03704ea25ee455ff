// Package e2e builds generated packages into a throwaway module together
// with a driver program and runs them, so tests can compare real outputs of
// generated code with reference data.
package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"text/template"
)

// Package is one generated package to include.
type Package struct {
	Name  string            // package name and directory
	Files map[string][]byte // generated files
	// Bind lists the memory types of a package generated with -bind, in
	// the order Model.Bind takes them: the driver binds a new one of each.
	Bind []string
	// IO is set for a package generated with -io external: the driver
	// passes an Input<k> and Output<k> of its own to Invoke; In and Out
	// list the inputs and outputs (0, 1, ...).
	IO      bool
	In, Out []int
}

// Job asks the driver to run one package: set the inputs and invoke,
// Invokes times (the inputs set again before every Invoke, which may reuse
// their memory), and return the outputs after every invoke.
type Job struct {
	Package string   `json:"package"`
	Inputs  [][]byte `json:"inputs"`
	Invokes int      `json:"invokes"`
}

// Result holds, per invoke, every output's bytes.
type Result struct {
	Outputs [][][]byte `json:"outputs"`
}

// Module is a built driver.
type Module struct {
	Dir string
	Bin string
}

var driverTmpl = template.Must(template.New("driver").Parse(`package main

import (
	"encoding/json"
	"os"
{{range .}}
	{{printf "%q" (print "e2emod/" .Name)}}{{end}}
)

type job struct {
	Package string   ` + "`json:\"package\"`" + `
	Inputs  [][]byte ` + "`json:\"inputs\"`" + `
	Invokes int      ` + "`json:\"invokes\"`" + `
}

type result struct {
	Outputs [][][]byte ` + "`json:\"outputs\"`" + `
}

func main() {
	var jobs []job
	if err := json.NewDecoder(os.Stdin).Decode(&jobs); err != nil {
		panic(err)
	}
	var out []result
	for _, j := range jobs {
		var r result
		switch j.Package {
{{range .}}		case {{printf "%q" .Name}}:
			m := new({{.Name}}.Model){{if .Bind}}
			m.Bind({{$p := .Name}}{{range $i, $t := .Bind}}{{if $i}}, {{end}}new({{$p}}.{{$t}}){{end}}){{end}}{{if .IO}}{{$p := .Name}}{{range .In}}
			in{{.}} := new({{$p}}.Input{{.}}){{end}}{{range .Out}}
			out{{.}} := new({{$p}}.Output{{.}}){{end}}
			for k := 0; k < j.Invokes; k++ {
				{{range .In}}copy(in{{.}}.Bytes(), j.Inputs[{{.}}])
				{{end}}m.Invoke({{range .In}}in{{.}}, {{end}}{{range .Out}}out{{.}}, {{end}})
				var outs [][]byte{{range .Out}}
				outs = append(outs, append([]byte(nil), out{{.}}.Bytes()...)){{end}}
				r.Outputs = append(r.Outputs, outs)
			}{{else}}
			for k := 0; k < j.Invokes; k++ {
				// Before every Invoke, as the API asks: an Invoke may
				// reuse its inputs' memory.
				for i, in := range j.Inputs {
					copy(m.Input(i), in)
				}
				m.Invoke()
				var outs [][]byte
				for i := 0; i < {{.Name}}.NumOutputs; i++ {
					outs = append(outs, append([]byte(nil), m.Output(i)...))
				}
				r.Outputs = append(r.Outputs, outs)
			}{{end}}
{{end}}		default:
			panic("unknown package " + j.Package)
		}
		out = append(out, r)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		panic(err)
	}
}
`))

// Build writes the packages and the driver into dir (a new module named
// e2emod) and builds the driver with the given extra environment (e.g.
// GOARCH=386).
func Build(dir string, pkgs []Package, env ...string) (*Module, error) {
	for _, p := range pkgs {
		pd := filepath.Join(dir, p.Name)
		if err := os.MkdirAll(pd, 0o755); err != nil {
			return nil, err
		}
		for n, b := range p.Files {
			if err := os.WriteFile(filepath.Join(pd, n), b, 0o644); err != nil {
				return nil, err
			}
		}
	}
	sorted := append([]Package(nil), pkgs...)
	sort.Slice(sorted, func(a, b int) bool { return sorted[a].Name < sorted[b].Name })
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module e2emod\n\ngo 1.26\n"), 0o644); err != nil {
		return nil, err
	}
	var drv bytes.Buffer
	if err := driverTmpl.Execute(&drv, sorted); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "driver"), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "driver", "main.go"), drv.Bytes(), 0o644); err != nil {
		return nil, err
	}
	bin := filepath.Join(dir, "driver.bin")
	cmd := exec.Command("go", "build", "-o", bin, "./driver")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append([]string{"GOWORK=off", "GOFLAGS=-mod=mod"}, env...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build of generated code failed: %v\n%s", err, out)
	}
	return &Module{Dir: dir, Bin: bin}, nil
}

// Run runs the jobs in one driver process. runner, when not empty, is a
// command prefix such as "qemu-arm".
func (m *Module) Run(jobs []Job, runner ...string) ([]Result, error) {
	in, err := json.Marshal(jobs)
	if err != nil {
		return nil, err
	}
	argv := append(append([]string{}, runner...), m.Bin)
	var out []byte
	for try := 1; ; try++ {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Stdin = bytes.NewReader(in)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err = cmd.Output()
		if err == nil {
			break
		}
		// qemu-user's emulation of clone now and then crashes Go's
		// runtime as it starts a thread, before any code of the driver
		// runs (runtime.clone, then "morestack on g0"): an emulator
		// fault, run again. Every other failure is the driver's.
		if len(runner) > 0 && try < 3 && strings.Contains(stderr.String(), "fatal error: morestack on g0") {
			continue
		}
		return nil, fmt.Errorf("driver %s: %v\n%s", strings.Join(argv, " "), err, stderr.String())
	}
	var res []Result
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("driver output: %w", err)
	}
	return res, nil
}
