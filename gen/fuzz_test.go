package gen

import (
	"bytes"
	"encoding/binary"
	"errors"
	"go/format"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// fuzzGenSeeds are the project's own models (testdata and the builder
// examples), a few mutations of them and, when the shared reference data is
// beside the checkout, its small single-operator models (not committed).
func fuzzGenSeeds(f *testing.F) [][]byte {
	var seeds [][]byte
	add := func(pattern string, maxSize int) {
		files, _ := filepath.Glob(pattern)
		for _, p := range files {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			if len(b) <= maxSize {
				seeds = append(seeds, b)
			}
		}
	}
	add(filepath.Join("..", "testdata", "*.tflite"), 1<<20)
	for _, e := range builder.Examples() {
		seeds = append(seeds, e.Build())
	}
	// The hostile families of issue 26, small (hostile_test.go has them
	// at full size).
	seeds = append(seeds, builder.MutualCallOnce(), builder.CallOnceTree(12), builder.CallOnceTree(3),
		builder.FanOut(2000), builder.FanOut(40), builder.Chain(300), builder.ConvChain(40),
		builder.NoInputs(), builder.NoOutputs())
	var mutated [][]byte
	for _, s := range seeds {
		half := append([]byte(nil), s[:len(s)/2]...)
		flip := append([]byte(nil), s...)
		flip[len(flip)/3] ^= 0xff
		mutated = append(mutated, half, flip)
	}
	seeds = append(seeds, mutated...)
	shared := os.Getenv("TFLM_SHARED")
	if shared == "" {
		shared = filepath.Join("..", "..", "shared")
	}
	add(filepath.Join(shared, "vectors", "*", "*", "*.tflite"), 16<<10)
	add(filepath.Join(shared, "models", "*.tflite"), 16<<10)
	return seeds
}

// fuzzSlow, when set (TFLM_FUZZ_SLOW=2s), makes a slow generation a
// failure, to find models that make the generator do too much work.
var fuzzSlow, _ = time.ParseDuration(os.Getenv("TFLM_FUZZ_SLOW"))

// fuzzOptions keep one generation fast: a small planner search budget.
var fuzzOptions = Options{Package: "fuzzed", Effort: 20_000}

// FuzzGenerate: Generate never panics (a lowering that panics is reported
// as an internal error, which counts as a failure here too), its errors say
// what is wrong with the model, and what it generates is gofmt'ed Go.
//
//	go test ./gen -run '^$' -fuzz FuzzGenerate -fuzztime 60s
func FuzzGenerate(f *testing.F) {
	for _, s := range fuzzGenSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkGenerate(t, data) })
}

// checkGenerate generates data and checks the outcome: a model error, or
// gofmt'ed Go that also yields a plan report.
func checkGenerate(t *testing.T, data []byte) {
	start := time.Now()
	res, err := Generate("fuzz.tflite", data, fuzzOptions)
	if d := time.Since(start); fuzzSlow > 0 && d > fuzzSlow {
		t.Fatalf("Generate took %v (error: %v)", d, err)
	}
	if err != nil {
		msg := err.Error()
		if strings.Contains(msg, "internal error") || strings.Contains(msg, "unexpected structure") {
			t.Fatalf("internal error: %v", err)
		}
		if !errors.Is(err, model.ErrInvalid) && !errors.Is(err, model.ErrUnsupported) && !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrTooComplex) {
			t.Fatalf("error wraps no model error: %v", err)
		}
		return
	}
	for name, src := range res.Files {
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		out, err := format.Source(src)
		if err != nil {
			t.Fatalf("%s does not parse: %v", name, err)
		}
		if !bytes.Equal(out, src) {
			t.Fatalf("%s is not gofmt'ed", name)
		}
	}
	if _, err := PlanReport("fuzz.tflite", data, fuzzOptions); err != nil {
		t.Fatalf("Generate succeeded but PlanReport failed: %v", err)
	}
}

// Byte-level mutations of a flatbuffer mostly break its structure, so
// FuzzGenerate rarely gets past the reader. FuzzGenerateEdits keeps the
// structure and edits values instead: the scalars a lowering relies on
// (tensor shapes, types, quantization, operator inputs and outputs, graph
// inputs and outputs, every builtin options field and option vector
// element) of a valid seed model, so the fuzzer explores the lowerings'
// validation with well-formed but hostile models.

// fuzzScalar is one editable value in a model file.
type fuzzScalar struct {
	pos  int
	kind byte // 'b' byte, 'i' int32, 'f' float32, 'l' int64
}

// fuzzScalars lists the editable values of a valid model.
func fuzzScalars(b []byte) []fuzzScalar {
	var out []fuzzScalar
	root := fbTable(b, int(flatbuffers.GetUint32(b)))
	vec := func(t flatbuffers.Table, slot int, kind byte, size int) {
		o := t.Offset(flatbuffers.VOffsetT(4 + 2*slot))
		if o == 0 {
			return
		}
		start := t.Vector(flatbuffers.UOffsetT(o))
		for i := 0; i < t.VectorLen(flatbuffers.UOffsetT(o)); i++ {
			out = append(out, fuzzScalar{int(start) + i*size, kind})
		}
	}
	field := func(t flatbuffers.Table, slot int, kind byte) {
		if o := t.Offset(flatbuffers.VOffsetT(4 + 2*slot)); o != 0 {
			out = append(out, fuzzScalar{int(t.Pos) + int(o), kind})
		}
	}
	sgs := fbTables(b, root, 2)
	if len(sgs) == 0 {
		return nil
	}
	sg := sgs[0]
	vec(sg, 1, 'i', 4)
	vec(sg, 2, 'i', 4)
	for _, t := range fbTables(b, sg, 0) {
		vec(t, 0, 'i', 4)
		field(t, 1, 'b')
		field(t, 5, 'b')
		if o := t.Offset(4 + 2*4); o != 0 {
			q := fbTable(b, int(t.Indirect(t.Pos+flatbuffers.UOffsetT(o))))
			vec(q, 2, 'f', 4)
			vec(q, 3, 'l', 8)
			field(q, 6, 'i')
		}
	}
	for _, op := range fbTables(b, sg, 3) {
		vec(op, 1, 'i', 4)
		vec(op, 2, 'i', 4)
		field(op, 3, 'b')
		if o := op.Offset(4 + 2*4); o != 0 {
			opts := fbTable(b, int(op.Indirect(op.Pos+flatbuffers.UOffsetT(o))))
			vt := int(opts.Pos) - int(int32(flatbuffers.GetUint32(b[opts.Pos:])))
			n := (int(flatbuffers.GetUint16(b[vt:])) - 4) / 2
			for slot := 0; slot < n; slot++ {
				fo := opts.Offset(flatbuffers.VOffsetT(4 + 2*slot))
				if fo == 0 {
					continue
				}
				// Field types are not known here: an int or float field is
				// edited as int32 or float32, a byte field as a byte, and a
				// vector field (an offset) by its elements.
				next := int(flatbuffers.GetUint16(b[vt+2:]))
				for s2 := 0; s2 < n; s2++ {
					if o2 := int(opts.Offset(flatbuffers.VOffsetT(4 + 2*s2))); o2 > int(fo) && o2 < next {
						next = o2
					}
				}
				switch {
				case next-int(fo) < 4:
					out = append(out, fuzzScalar{int(opts.Pos) + int(fo), 'b'})
				default:
					out = append(out, fuzzScalar{int(opts.Pos) + int(fo), 'i'}, fuzzScalar{int(opts.Pos) + int(fo), 'f'})
					p := int(opts.Pos) + int(fo)
					if v := p + int(flatbuffers.GetUint32(b[p:])); v+4 <= len(b) {
						// Possibly a vector: edit its elements if the length
						// is plausible.
						if n := int(flatbuffers.GetUint32(b[v:])); n > 0 && n <= 8 && v+4+4*n <= len(b) {
							for i := 0; i < n; i++ {
								out = append(out, fuzzScalar{v + 4 + 4*i, 'i'})
							}
						}
					}
				}
			}
		}
	}
	return out
}

func fbTable(b []byte, pos int) flatbuffers.Table {
	return flatbuffers.Table{Bytes: b, Pos: flatbuffers.UOffsetT(pos)}
}

func fbTables(b []byte, t flatbuffers.Table, slot int) []flatbuffers.Table {
	o := t.Offset(flatbuffers.VOffsetT(4 + 2*slot))
	if o == 0 {
		return nil
	}
	start := t.Vector(flatbuffers.UOffsetT(o))
	var out []flatbuffers.Table
	for i := 0; i < t.VectorLen(flatbuffers.UOffsetT(o)); i++ {
		p := start + flatbuffers.UOffsetT(4*i)
		out = append(out, fbTable(b, int(t.Indirect(p))))
	}
	return out
}

// fuzzEdit applies one 4-byte edit record to the model: which value, and
// how to change it (small value, nudge, raw bits or an extreme value).
func fuzzEdit(b []byte, scalars []fuzzScalar, rec []byte) {
	s := scalars[int(binary.LittleEndian.Uint16(rec))%len(scalars)]
	mode, arg := rec[2]%4, rec[3]
	switch s.kind {
	case 'b':
		switch mode {
		case 0, 2:
			b[s.pos] = arg
		case 1:
			b[s.pos] += byte(int8(arg) % 4)
		case 3:
			b[s.pos] = []byte{0, 1, 0x7f, 0x80, 0xff}[arg%5]
		}
	case 'i', 'l':
		var v int64
		cur := int64(int32(binary.LittleEndian.Uint32(b[s.pos:])))
		switch mode {
		case 0:
			v = int64(int8(arg))
		case 1:
			v = cur + int64(int8(arg)%4)
		case 2:
			v = cur * int64(arg)
		case 3:
			v = []int64{math.MaxInt32, math.MinInt32, -1, 1 << 16, 1 << 20, math.MaxInt64, math.MinInt64}[arg%7]
		}
		if s.kind == 'i' {
			binary.LittleEndian.PutUint32(b[s.pos:], uint32(int32(v)))
		} else {
			binary.LittleEndian.PutUint64(b[s.pos:], uint64(v))
		}
	case 'f':
		cur := math.Float32frombits(binary.LittleEndian.Uint32(b[s.pos:]))
		var v float32
		switch mode {
		case 0:
			v = float32(int8(arg))
		case 1:
			v = cur * float32(arg) / 16
		case 2:
			v = cur + float32(int8(arg))/64
		case 3:
			v = []float32{0, float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 1e-38, 1e38, -1, math.SmallestNonzeroFloat32}[arg%8]
		}
		binary.LittleEndian.PutUint32(b[s.pos:], math.Float32bits(v))
	}
}

// fuzzEditSeeds are the valid models the edits apply to: the project's own,
// then (when present) the shared small models.
func fuzzEditSeeds() [][]byte {
	var out [][]byte
	for _, e := range builder.Examples() {
		out = append(out, e.Build())
	}
	shared := os.Getenv("TFLM_SHARED")
	if shared == "" {
		shared = filepath.Join("..", "..", "shared")
	}
	for _, pat := range []string{"models/*.tflite", "vectors/*/*/*.tflite"} {
		files, _ := filepath.Glob(filepath.Join(shared, pat))
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil && len(b) <= 64<<10 {
				out = append(out, b)
			}
		}
	}
	return out
}

// FuzzGenerateEdits: like FuzzGenerate, on value edits of valid models.
// model selects the seed model (modulo their number), edits is a list of
// 4-byte edit records (fuzzEdit).
//
//	go test ./gen -run '^$' -fuzz FuzzGenerateEdits -fuzztime 60s
func FuzzGenerateEdits(f *testing.F) {
	seeds := fuzzEditSeeds()
	scalars := make([][]fuzzScalar, len(seeds))
	for i, s := range seeds {
		scalars[i] = fuzzScalars(s)
	}
	for i := range seeds {
		f.Add(uint16(i), []byte{})
		f.Add(uint16(i), []byte{0, 0, 0, 1, 5, 0, 1, 3, 9, 0, 3, 2})
	}
	f.Fuzz(func(t *testing.T, which uint16, edits []byte) {
		k := int(which) % len(seeds)
		if len(scalars[k]) == 0 {
			return
		}
		data := append([]byte(nil), seeds[k]...)
		for i := 0; i+4 <= len(edits) && i < 4*16; i += 4 {
			fuzzEdit(data, scalars[k], edits[i:i+4])
		}
		checkGenerate(t, data)
	})
}
