package model_test

import (
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// TestFlexVector reads maps written by the test-side flexbuffer writer at
// every width: values in sorted key order, ints sign-extended, floats at
// widths 4 and 8.
func TestFlexVector(t *testing.T) {
	for _, w := range []int{1, 2, 4, 8} {
		m := map[string]builder.FlexValue{
			"cycles_max": builder.FlexInt(-3),
			"b":          builder.FlexBool(true),
			"a":          builder.FlexInt(100),
		}
		if w >= 4 {
			m["c_float"] = builder.FlexFloat(0.5)
		}
		v, err := model.ParseFlexVector(builder.FlexMap(m, w))
		if err != nil {
			t.Fatalf("width %d: %v", w, err)
		}
		if v.Len() != len(m) {
			t.Fatalf("width %d: %d elements, want %d", w, v.Len(), len(m))
		}
		a, _ := v.Int32(0)
		b, _ := v.Bool(1)
		if a != 100 || !b {
			t.Errorf("width %d: a=%d b=%v", w, a, b)
		}
		last := 2
		if w >= 4 {
			f, _ := v.Float32(2)
			if f != 0.5 {
				t.Errorf("width %d: c_float=%v", w, f)
			}
			last = 3
		}
		if c, _ := v.Int64(last); c != -3 {
			t.Errorf("width %d: cycles_max=%d", w, c)
		}
		if _, err := v.Int64(len(m)); err == nil {
			t.Errorf("width %d: element past the end read without error", w)
		}
	}
}

// TestFlexVectorMalformed: truncated or corrupt buffers are errors, never
// reads outside the buffer.
func TestFlexVectorMalformed(t *testing.T) {
	good := builder.FlexMap(map[string]builder.FlexValue{"cycles_max": builder.FlexInt(1)}, 1)
	cases := map[string][]byte{
		"empty":      nil,
		"short":      {1, 1},
		"bad width":  append(append([]byte{}, good[:len(good)-1]...), 3),
		"int root":   append(append([]byte{}, good[:len(good)-2]...), 1<<2, 1),
		"far offset": append(append([]byte{}, good[:len(good)-3]...), 250, good[len(good)-2], 1),
	}
	for i := 1; i < len(good)-3; i++ {
		cases["truncated"+string(rune('a'+i))] = good[i:]
	}
	for name, b := range cases {
		if v, err := model.ParseFlexVector(b); err == nil {
			for i := 0; i < v.Len(); i++ {
				v.Int64(i)
				v.Float64(i)
			}
			if name == "empty" || name == "short" || name == "bad width" || name == "int root" || name == "far offset" {
				t.Errorf("%s: no error", name)
			}
		}
	}
}

// TestFlexLookup reads map values by key with their types, as
// flexbuffers::Map::operator[] and Reference::As* do.
func TestFlexLookup(t *testing.T) {
	for _, w := range []int{4, 8} {
		v, err := model.ParseFlexVector(builder.FlexMap(map[string]builder.FlexValue{
			"max_detections":    builder.FlexInt(10),
			"nms_iou_threshold": builder.FlexFloat(0.6),
			"use_regular_nms":   builder.FlexBool(true),
			"y_scale":           builder.FlexInt(-2),
		}, w))
		if err != nil {
			t.Fatal(err)
		}
		md, _ := v.Lookup("max_detections")
		iou, _ := v.Lookup("nms_iou_threshold")
		reg, _ := v.Lookup("use_regular_nms")
		ys, _ := v.Lookup("y_scale")
		miss, _ := v.Lookup("num_classes")
		if md.Int32() != 10 || iou.Float32() != float32(0.6) || !reg.Bool() || ys.Float32() != -2 || !miss.Null || miss.Int32() != 0 {
			t.Errorf("width %d: %d %v %v %v %v", w, md.Int32(), iou.Float32(), reg.Bool(), ys.Float32(), miss.Null)
		}
		if iou.Int32() != 0 {
			t.Errorf("width %d: float 0.6 as int: %d", w, iou.Int32())
		}
	}
}
