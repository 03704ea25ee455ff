package model_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// fuzzSeeds are the project's own models and a few mutations of them.
func fuzzSeeds(f *testing.F) [][]byte {
	var seeds [][]byte
	files, _ := filepath.Glob("../../testdata/*.tflite")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	for _, e := range builder.Examples() {
		seeds = append(seeds, e.Build())
	}
	seeds = append(seeds, base().build())
	var mutated [][]byte
	for _, s := range seeds {
		half := append([]byte(nil), s[:len(s)/2]...)
		flip := append([]byte(nil), s...)
		flip[len(flip)/3] ^= 0xff
		mutated = append(mutated, half, flip)
	}
	// Every hand-made broken model, so each check starts covered.
	for _, c := range brokenCases {
		s := base()
		if c.mod != nil {
			c.mod(s)
		}
		data := s.build()
		if c.edit != nil {
			c.edit(data)
		}
		mutated = append(mutated, data)
	}
	return append(seeds, mutated...)
}

// FuzzParse: Parse never panics, its errors wrap ErrInvalid or
// ErrUnsupported and are one line, and every graph it returns satisfies the
// invariants the generator relies on.
//
//	go test ./internal/model -run '^$' -fuzz FuzzParse -fuzztime 60s
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := model.Parse("fuzz.tflite", data)
		if err != nil {
			if !errors.Is(err, model.ErrInvalid) && !errors.Is(err, model.ErrUnsupported) {
				t.Fatalf("error wraps neither ErrInvalid nor ErrUnsupported: %v", err)
			}
			if strings.Contains(err.Error(), "unexpected structure") {
				t.Fatalf("reader panicked (recovered): %v", err)
			}
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("error has several lines: %q", err)
			}
			return
		}
		if err := model.CheckInvariants(g); err != nil {
			t.Fatalf("accepted graph breaks an invariant: %v", err)
		}
	})
}
