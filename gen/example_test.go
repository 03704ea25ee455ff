package gen_test

import (
	"bytes"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/tflm-gen/tflm-gen/gen"
)

// Generate is a pure function: the model's bytes in, the package's files
// out.
func ExampleGenerate() {
	data, err := os.ReadFile("../testdata/tiny_conv_int8.tflite")
	if err != nil {
		log.Fatal(err)
	}
	res, err := gen.Generate("tiny_conv_int8.tflite", data, gen.Options{Package: "tinyconv"})
	if err != nil {
		log.Fatal(err) // one line naming the operator or tensor
	}
	// res.Files maps file names to contents: model.go, weights.go, the
	// kernels the model uses, generated_test.go, layout.txt.
	model := res.Files["model.go"]
	fmt.Println(bytes.HasPrefix(model, []byte(gen.GeneratedHeader+"\n")))
	fmt.Println("arena", res.Layout.Plan.Size, "bytes,", res.Layout.Plan.CertText())
	// Output:
	// true
	// arena 800 bytes, optimal (= lower bound)
}

// WriteDir puts the files into a directory beside the user's own files,
// and never replaces a file tflm-gen did not write.
func ExampleWriteDir() {
	data, err := os.ReadFile("../testdata/tiny_conv_int8.tflite")
	if err != nil {
		log.Fatal(err)
	}
	res, err := gen.Generate("tiny_conv_int8.tflite", data, gen.Options{Package: "tinyconv"})
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "tinyconv")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// The user's own test stays; the package is written around it.
	os.WriteFile(filepath.Join(dir, "model_test.go"), []byte("package tinyconv\n"), 0o644)
	if err := gen.WriteDir(dir, res.Files); err != nil {
		log.Fatal(err)
	}
	// A user's own weights.go is never replaced: WriteDir refuses before
	// writing anything.
	os.WriteFile(filepath.Join(dir, "weights.go"), []byte("package tinyconv\n"), 0o644)
	err = gen.WriteDir(dir, res.Files)
	fmt.Println(errors.Is(err, gen.ErrNotOurs))
	// Output:
	// true
}

// CheckDir is -check: does the directory hold what generation gives?
func ExampleCheckDir() {
	data, err := os.ReadFile("../testdata/tiny_conv_int8.tflite")
	if err != nil {
		log.Fatal(err)
	}
	res, err := gen.Generate("tiny_conv_int8.tflite", data, gen.Options{Package: "tinyconv"})
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "tinyconv")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := gen.WriteDir(dir, res.Files); err != nil {
		log.Fatal(err)
	}
	drift, err := gen.CheckDir(dir, res.Files)
	fmt.Println(drift.Changed(), err)

	// Someone edits a generated file: CheckDir reports it, with a summary
	// for a CI log and a unified diff.
	model := filepath.Join(dir, "model.go")
	src, _ := os.ReadFile(model)
	os.WriteFile(model, bytes.Replace(src, []byte("const ArenaSize = 800"), []byte("const ArenaSize = 1024"), 1), 0o644)
	drift, err = gen.CheckDir(dir, res.Files)
	fmt.Println(drift.Changed(), err)
	f := drift.Files[0]
	fmt.Println(f.Name, f.State, f.Added, f.Removed, f.Decls)
	fmt.Println(strings.Contains(f.Diff, "-const ArenaSize = 1024\n+const ArenaSize = 800\n"))
	// Output:
	// false <nil>
	// true <nil>
	// model.go changed 1 1 [ArenaSize]
	// true
}
