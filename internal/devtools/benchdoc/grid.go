package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// gridRow is one line of the grid table: a single-operator model of
// ../shared/grid.
type gridRow struct {
	Model, Op, DType, MACs              string
	TinyGo, TinyGo2, Gc, CMSIS          string
	RatioTinyGo, RatioTinyGo2, RatioGc  string
	PerMACTinyGo, PerMACGc, PerMACCMSIS string
	Outputs                             string
}

// gridFamily is one line of the grid's summary: the geometric mean of the
// ratios to CMSIS-NN of a family of shapes.
type gridFamily struct {
	Family, N, GeoTinyGo, MaxTinyGo, GeoTinyGo2, MaxTinyGo2, GeoGc, MaxGc string
}

// gridEntry is a grid model with TFLM + CMSIS-NN's recorded count.
type gridEntry struct {
	name, op, dtype string
	macs, cmsis     int64
}

// readGrid reads ../shared/grid/grid.tsv.
func readGrid(shared string) ([]gridEntry, error) {
	f, err := os.Open(filepath.Join(shared, "grid", "grid.tsv"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma, r.FieldsPerRecord = '\t', -1
	head, err := r.Read()
	if err != nil {
		return nil, err
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	var out []gridEntry
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		macs, _ := strconv.ParseInt(rec[col["macs"]], 10, 64)
		cmsis, _ := strconv.ParseInt(rec[col["cmsis_instr"]], 10, 64)
		out = append(out, gridEntry{name: rec[col["name"]], op: rec[col["op"]], dtype: rec[col["dtype"]], macs: macs, cmsis: cmsis})
	}
	return out, nil
}

// gridCounts counts every grid model: TinyGo at -opt=z and at -opt=2 on
// the emulated Cortex-M4 (shared/tinygo/count; -opt=z's output 0 compared
// with TFLM's recorded ramp output in grid/ref) and gc's A32 build of -compiler gc
// (shared/arm/count), against TFLM + CMSIS-NN's recorded count.
func gridCounts(o options, tmp string) ([]gridRow, []gridFamily, error) {
	grid, err := readGrid(o.shared)
	if err != nil {
		return nil, nil, err
	}
	tinygo := counter{tool: filepath.Join(o.shared, "tinygo", "count")}
	arm := counter{tool: o.countTool}
	var rows []gridRow
	type ratios struct{ tg, tg2, gc []float64 }
	fam := map[string]*ratios{}
	for _, e := range grid {
		model := filepath.Join(o.shared, "grid", "models", e.name+".tflite")
		out := filepath.Join(tmp, "grid-"+e.name)
		z, err := tinygo.run(model, "-out", out)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", e.name, err)
		}
		two, err := tinygo.run(model, "-opt", "2")
		if err != nil {
			return nil, nil, fmt.Errorf("%s -opt=2: %w", e.name, err)
		}
		g, err := arm.run(model, "-compiler", "gc")
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", e.name, err)
		}
		got, err1 := os.ReadFile(filepath.Join(out, "out0.bin"))
		want, err2 := os.ReadFile(filepath.Join(o.shared, "grid", "ref", e.name+".ramp.out0.bin"))
		outputs := "equal"
		switch {
		case err1 != nil || err2 != nil:
			outputs = "**not compared**"
		case !bytes.Equal(got, want) && e.dtype == "float32":
			outputs = "float: last bits differ"
		case !bytes.Equal(got, want):
			outputs = "**differ**"
			fmt.Fprintf(os.Stderr, "benchdoc: %s: the board's output differs from TFLM's\n", e.name)
		}
		r := gridRow{Model: e.name, Op: e.op, DType: e.dtype, MACs: strconv.FormatInt(e.macs, 10),
			TinyGo: strconv.FormatInt(z.ir, 10), TinyGo2: strconv.FormatInt(two.ir, 10), Gc: strconv.FormatInt(g.ir, 10), CMSIS: strconv.FormatInt(e.cmsis, 10),
			RatioTinyGo: ratio(z.ir, e.cmsis), RatioTinyGo2: ratio(two.ir, e.cmsis), RatioGc: ratio(g.ir, e.cmsis),
			PerMACTinyGo: perMAC(z.ir, e.macs), PerMACGc: perMAC(g.ir, e.macs), PerMACCMSIS: perMAC(e.cmsis, e.macs), Outputs: outputs}
		rows = append(rows, r)
		if e.cmsis > 0 {
			for _, key := range []string{family(e), "all " + e.dtype} {
				if fam[key] == nil {
					fam[key] = &ratios{}
				}
				fam[key].tg = append(fam[key].tg, float64(z.ir)/float64(e.cmsis))
				fam[key].tg2 = append(fam[key].tg2, float64(two.ir)/float64(e.cmsis))
				fam[key].gc = append(fam[key].gc, float64(g.ir)/float64(e.cmsis))
			}
		}
	}
	var keys []string
	for k := range fam {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var fams []gridFamily
	for _, k := range keys {
		f := fam[k]
		fams = append(fams, gridFamily{Family: k, N: strconv.Itoa(len(f.tg)),
			GeoTinyGo: fmt.Sprintf("%.2f", geomean(f.tg)), MaxTinyGo: fmt.Sprintf("%.2f", maxOf(f.tg)),
			GeoTinyGo2: fmt.Sprintf("%.2f", geomean(f.tg2)), MaxTinyGo2: fmt.Sprintf("%.2f", maxOf(f.tg2)),
			GeoGc: fmt.Sprintf("%.2f", geomean(f.gc)), MaxGc: fmt.Sprintf("%.2f", maxOf(f.gc))})
	}
	return rows, fams, nil
}

// family names a grid shape's family: the operator, the type and, for
// convolutions, the filter size (conv2d_k3x3_..., dwconv_k5x5_...).
func family(e gridEntry) string {
	f := e.op + " " + e.dtype
	if strings.Contains(e.op, "CONV") {
		for _, part := range strings.Split(e.name, "_") {
			if strings.HasPrefix(part, "k") && strings.Contains(part, "x") {
				return f + " " + part[1:]
			}
		}
	}
	return f
}

func ratio(a, b int64) string {
	if b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(a)/float64(b))
}

func perMAC(ir, macs int64) string {
	if macs <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(ir)/float64(macs))
}

func geomean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(v)))
}

func maxOf(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, x)
	}
	return m
}
