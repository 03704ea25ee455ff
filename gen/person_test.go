package gen

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"
)

// readBMP8 returns the pixels of an 8-bit palettized BMP in top-down row
// order (BMP stores rows bottom-up, padded to 4 bytes).
func readBMP8(path string) ([]byte, int, int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, 0, err
	}
	if len(b) < 54 || string(b[:2]) != "BM" {
		return nil, 0, 0, fmt.Errorf("%s: not a BMP file", path)
	}
	off := int(binary.LittleEndian.Uint32(b[10:]))
	w := int(int32(binary.LittleEndian.Uint32(b[18:])))
	h := int(int32(binary.LittleEndian.Uint32(b[22:])))
	bpp := binary.LittleEndian.Uint16(b[28:])
	if bpp != 8 {
		return nil, 0, 0, fmt.Errorf("%s: %d bits per pixel, want 8", path, bpp)
	}
	topDown := h < 0
	if topDown {
		h = -h
	}
	stride := (w + 3) &^ 3
	if off+stride*h > len(b) {
		return nil, 0, 0, fmt.Errorf("%s: truncated pixel data", path)
	}
	px := make([]byte, 0, w*h)
	for y := 0; y < h; y++ {
		row := h - 1 - y
		if topDown {
			row = y
		}
		px = append(px, b[off+row*stride:off+row*stride+w]...)
	}
	return px, w, h, nil
}

// TestPersonDetectImages runs person_detect on the two real images with the
// input convention of TFLite Micro's own test (top-down pixel bytes copied
// as int8) and expects exactly the scores TFLM_CHECK.txt records.
func TestPersonDetectImages(t *testing.T) {
	shared := e2e.SharedDir(t)
	dir := filepath.Join(shared, "vectors", "person_detection")
	check, err := os.ReadFile(filepath.Join(dir, "TFLM_CHECK.txt"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(shared, "models", "person_detect.tflite"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Generate("person_detect.tflite", data, Options{Package: "persondetect"})
	if err != nil {
		t.Fatal(err)
	}
	mod, err := e2e.Build(t.TempDir(), []e2e.Package{{Name: "persondetect", Files: res.Files}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []string{"person.bmp", "no_person.bmp"}
	var jobs []e2e.Job
	for _, img := range cases {
		px, w, h, err := readBMP8(filepath.Join(dir, img))
		if err != nil {
			t.Fatal(err)
		}
		if w != 96 || h != 96 {
			t.Fatalf("%s is %dx%d, want 96x96", img, w, h)
		}
		jobs = append(jobs, e2e.Job{Package: "persondetect", Inputs: [][]byte{px}, Invokes: 1})
	}
	out, err := mod.Run(jobs)
	if err != nil {
		t.Fatal(err)
	}
	for i, img := range cases {
		m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(img) + `\s+->\s+\[(-?\d+), (-?\d+)\]`).FindSubmatch(check)
		if m == nil {
			t.Fatalf("TFLM_CHECK.txt has no scores for %s", img)
		}
		got := out[i].Outputs[0][0]
		for k := 0; k < 2; k++ {
			want, _ := strconv.Atoi(string(m[k+1]))
			if int(int8(got[k])) != want {
				t.Errorf("%s score %d = %d, TFLM gives %d", img, k, int8(got[k]), want)
			}
		}
		t.Logf("%s -> [no_person %d, person %d]", img, int8(got[0]), int8(got[1]))
	}
}
