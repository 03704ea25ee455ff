package main

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tflm-gen/tflm-gen/internal/devtools/board"
)

// boardRow is one line of the board table: a package built by TinyGo for
// the Cortex-M4.
type boardRow struct {
	Model, OptZ, Opt2, GcArm, CMSIS, RatioZ, Ratio2 string
	Code, ROData, PkgCode, PkgROData                string
	Arena, Stack, RAM                               string
	Exact                                           string
}

// boardCounts counts every entry's Invoke under TinyGo at -opt=z and
// -opt=2 (shared/tinygo/count) and measures its firmware: the bytes of code
// and read-only data of a program that calls Invoke, and of the package
// alone. gc's A32 count and TFLM + CMSIS-NN's come from the ARM table.
func boardCounts(o options, tmp string, entries []entry, arm []armRow) ([]boardRow, error) {
	tools, err := board.Find()
	if err != nil {
		return nil, err
	}
	tinygo := counter{tool: filepath.Join(o.shared, "tinygo", "count")}
	armBy := map[string]armRow{}
	for _, r := range arm {
		armBy[r.Model] = r
	}
	var rows []boardRow
	for _, e := range entries {
		z, err := tinygo.run(e.model, "-opt", "z")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.name, err)
		}
		two, err := tinygo.run(e.model, "-opt", "2")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.name, err)
		}
		r := boardRow{Model: e.name, OptZ: strconv.FormatInt(z.ir, 10), Opt2: strconv.FormatInt(two.ir, 10),
			GcArm: "-", CMSIS: "-", RatioZ: "-", Ratio2: "-",
			Arena: strconv.Itoa(e.arena), Stack: strconv.Itoa(e.stack), RAM: strconv.Itoa(e.arena + e.stack), Exact: "equal"}
		if a, ok := armBy[e.name]; ok {
			r.GcArm, r.CMSIS = a.Ir, a.CMSIS
			if c, err := strconv.ParseFloat(a.CMSIS, 64); err == nil && c > 0 {
				r.RatioZ = fmt.Sprintf("%.2f", float64(z.ir)/c)
				r.Ratio2 = fmt.Sprintf("%.2f", float64(two.ir)/c)
			}
		}
		var bad []string
		if e.ref {
			bad = append(z.mismatches("shared/ref"), two.mismatches("shared/ref")...)
		} else {
			bad = sameOutputs(z, two)
		}
		switch {
		case len(bad) > 0 && e.float:
			r.Exact = "float: last bits differ"
		case len(bad) > 0:
			r.Exact = "**error: " + strings.Join(bad, "; ") + "**"
		}
		sz, err := firmwareSizes(tools, filepath.Join(tmp, "board-"+e.pkg), filepath.Join(tmp, e.pkg))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.name, err)
		}
		r.Code, r.ROData = strconv.Itoa(sz.code), strconv.Itoa(sz.rodata)
		r.PkgCode, r.PkgROData = strconv.Itoa(sz.pkgCode), strconv.Itoa(sz.pkgROData)
		rows = append(rows, r)
	}
	return rows, nil
}

// sizes are the flash bytes of a firmware and of the package in it.
type sizes struct{ code, rodata, pkgCode, pkgROData int }

// sizeMain is the smallest firmware that runs a Model: it calls Invoke and
// reads an output (so nothing of it is dropped).
const sizeMain = `package main

import p "tg/p"

var m p.Model

func main() {
	m.Invoke()
	println(m.Output(0)[0])
}
`

// firmwareSizes builds the package in pkgDir with TinyGo for the
// Cortex-M4 (-opt=z) and sums its ELF's code (function symbols) and
// read-only data (the rest of flash), in all and in the package's own
// symbols.
func firmwareSizes(tools *board.Tools, dir, pkgDir string) (sizes, error) {
	var s sizes
	if err := board.Module(dir, pkgDir, map[string]string{"main.go": sizeMain}); err != nil {
		return s, err
	}
	path, _, err := tools.Build(dir, "-target=cortex-m4-qemu")
	if err != nil {
		return s, err
	}
	f, err := elf.Open(path)
	if err != nil {
		return s, err
	}
	defer f.Close()
	// TinyGo places code and constants in the same flash sections, so
	// they are told apart by symbol type: functions are code, objects in
	// read-only sections read-only data.
	flash := 0
	for _, sec := range f.Sections {
		if sec.Flags&elf.SHF_ALLOC != 0 && sec.Flags&elf.SHF_WRITE == 0 && sec.Type == elf.SHT_PROGBITS {
			flash += int(sec.Size)
		}
	}
	syms, err := f.Symbols()
	if err != nil {
		return s, err
	}
	// A function or object may have several symbols (aliases) at one
	// address: each address counts once, as the package's when any of its
	// names is (mlp_float's functions summed over their symbols exceed
	// .text by 376 bytes).
	type block struct {
		size       int
		code, mine bool
	}
	blocks := map[uint64]*block{}
	for _, sym := range syms {
		if int(sym.Section) >= len(f.Sections) || sym.Section == elf.SHN_UNDEF {
			continue
		}
		if f.Sections[sym.Section].Flags&elf.SHF_WRITE != 0 {
			continue
		}
		typ := elf.ST_TYPE(sym.Info)
		if typ != elf.STT_FUNC && typ != elf.STT_OBJECT {
			continue
		}
		b := blocks[sym.Value]
		if b == nil {
			b = &block{}
			blocks[sym.Value] = b
		}
		b.size = max(b.size, int(sym.Size))
		b.code = b.code || typ == elf.STT_FUNC
		b.mine = b.mine || strings.HasPrefix(sym.Name, "tg/p.") || strings.HasPrefix(sym.Name, "tg/p$")
	}
	for _, b := range blocks {
		switch {
		case b.code:
			s.code += b.size
			if b.mine {
				s.pkgCode += b.size
			}
		case b.mine:
			s.pkgROData += b.size
		}
	}
	s.rodata = flash - s.code
	os.RemoveAll(dir)
	return s, nil
}
