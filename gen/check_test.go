package gen

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/model"
)

// oneWeightByte returns the model with one byte of its largest constant
// tensor changed.
func oneWeightByte(t *testing.T, data []byte) []byte {
	t.Helper()
	g, err := model.Parse("m.tflite", data)
	if err != nil {
		t.Fatal(err)
	}
	var w []byte
	for _, tt := range g.Tensors {
		if tt.IsConst() && len(tt.Data) > len(w) {
			w = tt.Data
		}
	}
	at := bytes.Index(data, w)
	if len(w) < 16 || at < 0 || bytes.Contains(data[at+1:], w) {
		t.Fatal("no weight tensor found once in the file")
	}
	out := bytes.Clone(data)
	out[at+len(w)/2] ^= 1
	return out
}

// TestCheckSummary (issue 26, item 7): what -check tells a CI log about a
// directory generated from tiny_conv_int8 when the model or the flags
// change: the files that differ, with lines and declarations, and the plan
// before and after. The model's SHA-256 is in model.go, layout.txt and
// report.json only, so one changed weight byte changes those and
// weights.go, nothing else.
func TestCheckSummary(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "tiny_conv_int8.tflite"))
	if err != nil {
		t.Fatal(err)
	}
	base := Options{Package: "tc"}
	for _, tc := range []struct {
		name  string
		data  []byte
		opt   Options
		setup func(dir string) // changes the directory generated from the base model
		files []string         // "name state +added -removed"
		decls map[string][]string
		want  []string // substrings of the summary
	}{
		{name: "same model", data: data, opt: base,
			want: []string{"is up to date (10 files)"}},
		{name: "one weight byte", data: oneWeightByte(t, data), opt: base,
			files: []string{"layout.txt changed +1 -1", "model.go changed +1 -1", "report.json changed +1 -1", "weights.go changed"},
			decls: map[string][]string{"model.go": {"header"}},
			want: []string{"differs from the generated package: 4 files\n",
				"\n  model.go     changed  +1 -1 line, in header\n",
				"plan, before -> after:\n  model        tiny_conv_int8.tflite (sha256 b993b26937ed...) -> tiny_conv_int8.tflite (sha256 ",
				// The stack figure follows the kernels' measured frames
				// (gen/kernelsig/stack.go), so it is not spelled here.
				"  unchanged: ArenaSize 800, lower bound 800, plan optimal (= lower bound), stack ",
				", constants 1048, MACs 17472, operators 7\n",
				"  operators that changed: none\n"}},
		{name: "-fuse=off", data: data, opt: Options{Package: "tc", NoFuse: true},
			want: []string{"  ArenaSize    800 -> 1616 (+816)\n", "  lower bound  800 -> 1616 (+816)\n",
				"  model.go            changed  +29 -43 lines, in ArenaSize, offsets, Invoke, InvokeTraced, op0, op1, 3 more\n",
				"  operators that changed: 5 of 7\n",
				"    1 DEPTHWISE_CONV_2D: live 744 -> 1176; no longer writes over its input; output at 0 (512 bytes) -> at 1024 (512 bytes)\n",
				"    2 CONV_2D: live 800 -> 1608; scratch 80 -> 72; fused in 2-3 -> no; output at 512 (1024 bytes) -> at 0 (1024 bytes)\n",
				"    3 AVERAGE_POOL_2D: kernels poolSumInt8,poolMeanInt8 -> avgPoolDSPInt8; constants 0 -> 24; live 800 -> 1040; scratch 64 -> 0; fused in 2-3 -> no; output at 784 (16 bytes) -> at 1024 (16 bytes)\n"}},
		{name: "package from before report.json", data: data, opt: base,
			setup: func(dir string) { os.Remove(filepath.Join(dir, "report.json")) },
			files: []string{"report.json missing"},
			want:  []string{"plan: no report.json of tflm-gen in the directory to compare with (a package from before report.json, or it was removed)\n"}},
		{name: "no package yet", data: data, opt: base,
			setup: func(dir string) { os.RemoveAll(dir) },
			want:  []string{"differs from the generated package: 10 files\n", "\n  model.go             missing  +", "(no generated package there yet)\n"}},
		{name: "package from before fixed kernel file names", data: data, opt: base,
			setup: func(dir string) {
				os.WriteFile(filepath.Join(dir, "kernel_conv_pw.go"), []byte(GeneratedHeader+"\n\npackage tc\n\nfunc old() {}\n"), 0o644)
			},
			files: []string{"kernel_conv_pw.go stale +0 -5"},
			decls: map[string][]string{"kernel_conv_pw.go": nil},
			want:  []string{"  kernel_conv_pw.go  stale    +0 -5 lines\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "tc")
			res, err := Generate("tiny_conv_int8.tflite", data, base)
			if err != nil {
				t.Fatal(err)
			}
			if err := WriteDir(dir, res.Files); err != nil {
				t.Fatal(err)
			}
			if tc.setup != nil {
				tc.setup(dir)
			}
			now, err := Generate("tiny_conv_int8.tflite", tc.data, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			d, err := CheckDir(dir, now.Files)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range d.Files {
				line := strings.Join([]string{f.Name, f.State, "+" + strconv.Itoa(f.Added), "-" + strconv.Itoa(f.Removed)}, " ")
				if f.Name == "weights.go" || f.State == "missing" {
					// Lines: as the weights' re-layout goes, as long as
					// the file is.
					line = f.Name + " " + f.State
				}
				got = append(got, line)
				if want, ok := tc.decls[f.Name]; ok && !slices.Equal(f.Decls, want) {
					t.Errorf("%s: declarations %q, want %q", f.Name, f.Decls, want)
				}
				if !strings.HasPrefix(f.Diff, "--- ") {
					t.Errorf("%s: diff %q", f.Name, f.Diff)
				}
			}
			if tc.files != nil && !slices.Equal(got, tc.files) {
				t.Errorf("files %q, want %q", got, tc.files)
			}
			var sum bytes.Buffer
			if err := d.WriteSummary(&sum); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(sum.String(), w) {
					t.Errorf("summary lacks %q:\n%s", w, sum.String())
				}
			}
			if d.Changed() && !strings.HasPrefix(sum.String(), dir+" differs") {
				t.Errorf("summary starts %q", sum.String())
			}
		})
	}
}
