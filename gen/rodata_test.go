package gen

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"
)

// sectionSizes builds dir's ./main for GOARCH=arm and returns the sizes of
// its read-only data and of its writable data plus bss.
func sectionSizes(t *testing.T, dir string) (rodata, ram uint64) {
	t.Helper()
	bin := filepath.Join(dir, "main.elf")
	cmd := exec.Command("go", "build", "-o", bin, "./main")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm", "GOARM=7", "GOWORK=off", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, s := range f.Sections {
		switch s.Name {
		case ".rodata":
			rodata += s.Size
		case ".data", ".noptrdata", ".bss", ".noptrbss":
			ram += s.Size
		}
	}
	return rodata, ram
}

// TestWeightsInReadOnlyData shows where a generated package's bytes go on a
// 32-bit ARM build: the model's constants grow read-only data by at least
// their size, while writable data and bss grow by about ArenaSize (the
// Model) and not by the weights.
func TestWeightsInReadOnlyData(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two ARM binaries; skipped with -short")
	}
	name, path := "tiny_conv_int8", filepath.Join("..", "testdata", "tiny_conv_int8.tflite")
	if dir := os.Getenv("TFLM_SHARED"); dir != "" || fileExists(filepath.Join("..", "..", "shared", "models", "person_detect.tflite")) {
		shared := e2e.SharedDir(t)
		name, path = "person_detect", filepath.Join(shared, "models", "person_detect.tflite")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Generate(name+".tflite", data, Options{Package: "model", NoTests: true})
	if err != nil {
		t.Fatal(err)
	}
	constBytes := 0
	for _, tt := range res.Program.Graph.Tensors {
		constBytes += len(tt.Data)
	}
	arena := res.Layout.Plan.Size

	build := func(withModel bool) (uint64, uint64) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module fw\n\ngo 1.26\n"), 0o644)
		os.MkdirAll(filepath.Join(dir, "main"), 0o755)
		main := "package main\n\nfunc main() { println(\"hi\") }\n"
		if withModel {
			os.MkdirAll(filepath.Join(dir, "model"), 0o755)
			for n, b := range res.Files {
				os.WriteFile(filepath.Join(dir, "model", n), b, 0o644)
			}
			main = "package main\n\nimport \"fw/model\"\n\nvar m model.Model\n\nfunc main() {\n\tm.Input(0)[0] = 1\n\tm.Invoke()\n\tprintln(m.Output(0)[0])\n}\n"
		}
		os.WriteFile(filepath.Join(dir, "main", "main.go"), []byte(main), 0o644)
		return sectionSizes(t, dir)
	}
	ro0, ram0 := build(false)
	ro1, ram1 := build(true)
	dRO, dRAM := int64(ro1-ro0), int64(ram1-ram0)
	t.Logf("%s on GOARCH=arm: constants %d bytes, ArenaSize %d; read-only data +%d bytes, data+bss +%d bytes",
		name, constBytes, arena, dRO, dRAM)
	if dRO < int64(constBytes) {
		t.Errorf("read-only data grew by %d bytes, less than the %d bytes of constants", dRO, constBytes)
	}
	// The Model adds ArenaSize plus alignment slack; the Go runtime's own
	// tables may move by a few KiB between the two builds.
	if dRAM > int64(arena)+8192 {
		t.Errorf("data+bss grew by %d bytes, more than ArenaSize %d plus 8 KiB: constants are in RAM", dRAM, arena)
	}
	if dRAM < int64(arena) {
		t.Errorf("data+bss grew by %d bytes, less than ArenaSize %d: where is the Model?", dRAM, arena)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
