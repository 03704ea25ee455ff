// Command optgen writes internal/model/options_gen.go, the typed readers of
// the builtin options tflm-gen reads, from internal/model/options.fbs (a
// transcription of part of TensorFlow Lite's schema; its header describes
// the format) and the operator names of internal/model/opcodes.go:
//
//	go run ./internal/devtools/optgen > internal/model/options_gen.go
//
// run from the repository root (-dir names another model directory). Per
// options table it writes the slots of its fields as constants, a struct,
// and two methods of model.Options that read the table into the struct
// (one with the schema's defaults, one with the caller's); then the union
// type constants and the operators' table types (optionsTypes), which the
// model reader checks.
//
// TestOptionsCurrent fails when the committed file differs from its output
// (go test ./internal/devtools/optgen -update rewrites it).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"io"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("optgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", filepath.Join("internal", "model"), "the directory of options.fbs and opcodes.go")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "optgen: unexpected arguments %q\n", fs.Args())
		return 2
	}
	src, err := generateDir(*dir)
	if err != nil {
		fmt.Fprintln(stderr, "optgen:", err)
		return 1
	}
	if _, err := stdout.Write(src); err != nil {
		fmt.Fprintln(stderr, "optgen:", err)
		return 1
	}
	return 0
}

// generateDir reads dir's options.fbs and opcodes.go and returns the text
// of options_gen.go.
func generateDir(dir string) ([]byte, error) {
	fbs, err := os.ReadFile(filepath.Join(dir, "options.fbs"))
	if err != nil {
		return nil, err
	}
	opcodes, err := os.ReadFile(filepath.Join(dir, "opcodes.go"))
	if err != nil {
		return nil, err
	}
	return generate(fbs, opcodes)
}

// generate returns the text of options_gen.go for the schema text fbs and
// the source of opcodes.go, gofmt'ed.
func generate(fbs, opcodes []byte) ([]byte, error) {
	s, err := parseSchema("options.fbs", string(fbs))
	if err != nil {
		return nil, err
	}
	ops, err := parseOpcodes(opcodes)
	if err != nil {
		return nil, fmt.Errorf("opcodes.go: %w", err)
	}
	f, err := render(s, ops)
	if err != nil {
		return nil, err
	}
	f.NoFormat = true
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return nil, err
	}
	out, err := format.Source(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("the output does not format: %w\n%s", err, numbered(buf.String()))
	}
	return out, nil
}

// numbered prefixes each line of src with its number.
func numbered(src string) string {
	var b strings.Builder
	for i, l := range strings.Split(src, "\n") {
		fmt.Fprintf(&b, "%5d  %s\n", i+1, l)
	}
	return b.String()
}
