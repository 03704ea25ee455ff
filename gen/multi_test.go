package gen

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/devtools/board"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/planner"
)

// multiMain is a driver for TestMultiModel: it runs models round robin,
// three Invokes each, every model's inputs filled with a pattern before its
// Invoke, and prints a hash of each model's outputs after each Invoke.
// %s: imports, declarations, the binding statements, one block per model.
const multiMain = `package main

import (
%s)

%s
func pattern(in []byte, i, k int) {
	for j := range in {
		in[j] = byte((uint32(j)*2654435761 + uint32(k)*40503 + uint32(i)*97) >> 24)
	}
}

func hash(h uint32, out []byte) uint32 {
	for _, b := range out {
		h = (h ^ uint32(b)) * 16777619
	}
	return h
}

func main() {
	%s
	for k := 0; k < 3; k++ {
%s	}
}
`

// sayHost and sayBoard print one hash line, on the host and through the
// board's semihosting.
const (
	sayHost = `//go:build !tinygo

package main

import "fmt"

func say(name string, h uint32) { fmt.Printf("%s %08x\n", name, h) }
`
	sayBoard = `//go:build tinygo

package main

import (
	"device/arm"
	"unsafe"
)

var line [64]byte

func say(name string, v uint32) {
	n := copy(line[:], name)
	line[n] = ' '
	n++
	for s := 28; s >= 0; s -= 4 {
		line[n] = "0123456789abcdef"[v>>uint(s)&15]
		n++
	}
	line[n], line[n+1] = '\n', 0
	arm.SemihostingCall(arm.SemihostingWrite0, uintptr(unsafe.Pointer(&line[0])))
}
`
)

// TestMultiModel generates one package running several models in one arena
// (fixtures and, with ../shared, three reference models, two with
// persistent state) and checks: the joint arena is each model's own plan
// of its non-persistent buffers, the largest of them, plus every model's
// persistent state; with one arena, with two pools, and with two pools and
// the inputs and outputs in the application's arrays (-io external), run
// round robin in one memory, every model gives the outputs its own
// package gives alone, three Invokes each (state carries over across the
// others' Invokes), on the host and, with TinyGo, on the emulated
// Cortex-M4, with nothing on the heap; the package's generated tests pass.
func TestMultiModel(t *testing.T) {
	if testing.Short() {
		t.Skip("builds generated packages")
	}
	paths, _ := filepath.Glob(filepath.Join("..", "testdata", "*.tflite"))
	if shared := sharedModels(); shared != "" {
		for _, m := range []string{"micro_speech_quantized", "keyword_scrambled", "dtln_noise_suppression"} {
			paths = append(paths, filepath.Join(shared, m+".tflite"))
		}
	} else {
		t.Log("../shared/models absent: the fixtures only")
	}
	var models []ModelFile
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, ModelFile{Name: p, Data: data})
	}
	multi, err := GenerateMulti(models, Options{Package: "p"})
	if err != nil {
		t.Fatal(err)
	}
	// The joint arena: the tallest model, persistent state apart, plus
	// every model's persistent state.
	tallest, persistent := 0, 0
	for k, m := range models {
		alone, err := Generate(filepath.Base(m.Name), m.Data, Options{Package: "p"})
		if err != nil {
			t.Fatal(err)
		}
		st := alone.Program.Bytes(planner.Persistent)
		persistent += multi.Programs[k].Bytes(planner.Persistent)
		tallest = max(tallest, alone.Layout.Plan.Size-st)
	}
	if got := multi.Joint.Plan.Size; got > tallest+persistent {
		t.Errorf("joint arena %d bytes, more than the tallest model without its state (%d) plus all state (%d)", got, tallest, persistent)
	}
	t.Logf("joint arena %d bytes (lower bound %d), %s; tallest model alone without state %d, persistent %d", multi.Joint.Plan.Size, multi.Joint.Plan.LowerBound, multi.Joint.Plan.CertText(), tallest, persistent)

	dir := t.TempDir()
	write := func(sub string, files map[string][]byte) string {
		d := filepath.Join(dir, sub)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for n, b := range files {
			if err := os.WriteFile(filepath.Join(d, n), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	goRun := func(d string) string {
		cmd := exec.Command("go", "run", ".")
		cmd.Dir = d
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go run in %s: %v\n%s", d, err, out)
		}
		return string(out)
	}
	// The reference: each model's own package, alone.
	var imports, decls, blocks strings.Builder
	single := map[string]string{"go.mod": "module tg\n\ngo 1.25\n", "say_host.go": sayHost}
	for k, m := range models {
		res, err := Generate(filepath.Base(m.Name), m.Data, Options{Package: fmt.Sprintf("s%d", k), NoTests: true})
		if err != nil {
			t.Fatal(err)
		}
		write(filepath.Join("single", fmt.Sprintf("s%d", k)), res.Files)
		fmt.Fprintf(&imports, "\t\"tg/s%d\"\n", k)
		fmt.Fprintf(&decls, "var m%d s%d.Model\n", k, k)
		blocks.WriteString(driverBlock(&decls, k, fmt.Sprintf("s%d.", k), "", nil, multi.Types[k]))
	}
	single["main.go"] = fmt.Sprintf(multiMain, imports.String(), decls.String(), "", blocks.String())
	for n, b := range single {
		if err := os.WriteFile(filepath.Join(dir, "single", n), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := goRun(filepath.Join(dir, "single"))
	if n := strings.Count(want, "\n"); n != 3*len(models) {
		t.Fatalf("%d output lines, want %d:\n%s", n, 3*len(models), want)
	}
	tools, berr := board.Find()
	if berr != nil {
		t.Logf("not on the board: %v", berr)
	}

	a := multi.Joint.Plan.Size
	pools := []planner.Pool{{Name: "fast", Size: a / 4, Cost: 1}, {Name: "slow", Size: 4 * a, Cost: 3}}
	for v, opt := range []Options{{}, {Pools: pools}, {Pools: pools, ExternalIO: true}} {
		name := fmt.Sprintf("pools %d, io external %v", len(opt.Pools), opt.ExternalIO)
		opt.Package = "p"
		multi, err := GenerateMulti(models, opt)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		pkgDir := write(fmt.Sprintf("gen%d", v), multi.Files)
		// The driver over the multi package, every model bound to the
		// same memories, run round robin.
		var decls, bind, blocks strings.Builder
		var mems []string
		for _, p := range multi.Joint.Layouts[0].Pools {
			switch {
			case p.IO != "":
			case p.Name == "":
				mems = append(mems, "Memory")
			case len(p.Members) > 0 || p.Shared:
				mems = append(mems, strings.ToUpper(p.Name)+"Memory")
			}
		}
		if multi.Joint.Memories == nil {
			mems = []string{"Memory"}
		}
		var args []string
		for i, m := range mems {
			fmt.Fprintf(&decls, "var mem%d p.%s\n", i, m)
			args = append(args, fmt.Sprintf("&mem%d", i))
		}
		for k, typ := range multi.Types {
			fmt.Fprintf(&decls, "var m%d p.%s\n", k, typ)
			fmt.Fprintf(&bind, "m%d.Bind(%s)\n\t", k, strings.Join(args, ", "))
			var g *model.Graph
			if opt.ExternalIO {
				g = multi.Programs[k].Graph
			}
			blocks.WriteString(driverBlock(&decls, k, "p.", typ, g, typ))
		}
		multiSrc := fmt.Sprintf(multiMain, "\tp \"tg/p\"\n", decls.String(), bind.String(), blocks.String())
		hostMod := filepath.Join(dir, fmt.Sprintf("host%d", v))
		if err := board.Module(hostMod, pkgDir, map[string]string{"main.go": multiSrc, "say_host.go": sayHost}); err != nil {
			t.Fatal(err)
		}
		if got := goRun(hostMod); got != want {
			t.Errorf("%s: round robin in one memory:\n%s\neach model alone:\n%s", name, got, want)
		}
		// The package's own tests: each model's, and the interleaved run.
		if err := os.WriteFile(filepath.Join(pkgDir, "go.mod"), []byte("module tgm\n\ngo 1.26\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("go", "test", ".")
		cmd.Dir = pkgDir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: go test of the package: %v\n%s", name, err, out)
		}
		checkTinyGo(t, pkgDir) // every model's Invoke path: what TinyGo lacks or what allocates
		if err := os.Remove(filepath.Join(pkgDir, "go.mod")); err != nil {
			t.Fatal(err)
		}
		if berr != nil {
			continue
		}
		boardMod := filepath.Join(dir, fmt.Sprintf("board%d", v))
		if err := board.Module(boardMod, pkgDir, map[string]string{"main.go": multiSrc, "say_board.go": sayBoard, "say_host.go": sayHost}); err != nil {
			t.Fatal(err)
		}
		elf, allocs, err := tools.Build(boardMod, "-target=cortex-m4-qemu")
		if err != nil {
			t.Fatal(err)
		}
		if len(allocs) > 0 {
			t.Errorf("%s: heap allocations on the board: %v", name, allocs)
		}
		out, err := tools.Run(elf, 5*time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != want {
			t.Errorf("%s: on the board:\n%s\neach model alone on the host:\n%s", name, out, want)
		}
		t.Logf("%s: arena %d bytes; on the board, round robin: %d output hashes equal to each model's alone", name, multi.Joint.Layouts[0].ArenaSize(), strings.Count(string(out), "\n"))
	}
}

// driverBlock is the body multiMain's loop runs for model m<k>: fill its
// inputs with the pattern, Invoke, hash its outputs into h<k> and say(name,
// h<k>). q qualifies the package ("p.", "s0.") and typ prefixes its names
// in a package of several models ("PersonDetect": p.PersonDetectNumInputs).
// With g set (-io external) the inputs and outputs are arrays of the
// package's Input<i>/Output<i> types, declared into decls.
func driverBlock(decls *strings.Builder, k int, q, typ string, g *model.Graph, name string) string {
	var b strings.Builder
	if g == nil {
		fmt.Fprintf(&b, "\t\tfor i := 0; i < %s%sNumInputs; i++ {\n\t\t\tpattern(m%d.Input(i), i, k)\n\t\t}\n\t\tm%d.Invoke()\n\t\th%d := uint32(2166136261)\n\t\tfor i := 0; i < %s%sNumOutputs; i++ {\n\t\t\th%d = hash(h%d, m%d.Output(i))\n\t\t}\n",
			q, typ, k, k, k, q, typ, k, k, k)
	} else {
		var args []string
		for i := range g.Inputs {
			fmt.Fprintf(decls, "var in%d_%d %s%sInput%d\n", k, i, q, typ, i)
			fmt.Fprintf(&b, "\t\tpattern(in%d_%d.Bytes(), %d, k)\n", k, i, i)
			args = append(args, fmt.Sprintf("&in%d_%d", k, i))
		}
		for i := range g.Outputs {
			fmt.Fprintf(decls, "var out%d_%d %s%sOutput%d\n", k, i, q, typ, i)
			args = append(args, fmt.Sprintf("&out%d_%d", k, i))
		}
		fmt.Fprintf(&b, "\t\tm%d.Invoke(%s)\n\t\th%d := uint32(2166136261)\n", k, strings.Join(args, ", "), k)
		for i := range g.Outputs {
			fmt.Fprintf(&b, "\t\th%d = hash(h%d, out%d_%d.Bytes())\n", k, k, k, i)
		}
	}
	fmt.Fprintf(&b, "\t\tsay(%q, h%d)\n", name, k)
	return b.String()
}

// TestMultiModelBudget: in a package of several models, a model smaller
// than the others keeps what the shared arena pays for anyway. The
// fixtures' tiny_conv fuses its first operators on its own (to 624 bytes);
// beside mobilenet, whose arena is larger, it runs them one after another,
// and the joint arena is no larger than that of the two programs planned
// for their smallest arenas.
func TestMultiModelBudget(t *testing.T) {
	var models []ModelFile
	var alone []*program.Program
	for _, name := range []string{"mobilenet_int8", "tiny_conv_int8"} {
		p := filepath.Join("..", "testdata", name+".tflite")
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, ModelFile{Name: p, Data: data})
		prog, _, err := Lower(filepath.Base(p), data, Options{Package: "p"})
		if err != nil {
			t.Fatal(err)
		}
		alone = append(alone, prog)
	}
	smallest, err := layout.MakeJoint(alone, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	multi, err := GenerateMulti(models, Options{Package: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := multi.Joint.Plan.Size, smallest.Plan.Size; got > want {
		t.Errorf("joint arena %d bytes, more than the %d of the programs of the smallest arenas", got, want)
	}
	if len(alone[1].Groups) == 0 {
		t.Fatal("tiny_conv alone runs no fused group: the fixture no longer shows the budget")
	}
	if n := len(multi.Programs[1].Groups); n != 0 {
		t.Errorf("tiny_conv beside mobilenet runs %d fused groups, want none (the shared arena holds it unfused)", n)
	}
	why := false
	for _, a := range multi.Programs[1].Apart {
		why = why || strings.Contains(a.Why, "for its other models anyway")
	}
	if !why {
		t.Errorf("tiny_conv's reasons for running operators apart do not name the shared arena: %+v", multi.Programs[1].Apart)
	}
	// The first model, the largest, is planned for its smallest arena.
	if !reflect.DeepEqual(multi.Programs[0].Groups, alone[0].Groups) {
		t.Errorf("mobilenet's fused groups changed beside a smaller model")
	}
}
