package lower

import (
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// padCase builds a PAD (value nil) or PADV2 model.
func padCase(name string, dt model.DType, inShape []int, pads []int32, outShape []int, q, vq *builder.Quant, value []float64, in, want []float64) shapeCase {
	ins := []shapeT{{dt: dt, shape: inShape, q: q}, {dt: model.Int32, shape: []int{len(pads) / 2, 2}, data: shapeI32(pads...)}}
	code, opts := model.OpPad, shapeOpts(shapeOptPad)
	if value != nil {
		ins = append(ins, shapeT{dt: dt, shape: []int{1}, q: vq, data: shapeVals(dt, value)})
		code, opts = model.OpPadv2, shapeOpts(shapeOptPadV2)
	}
	return shapeCase{name: name, model: shapeModel(code, opts, ins, []shapeT{{dt: dt, shape: outShape, q: q}}),
		inputs: [][]byte{shapeVals(dt, in)}, want: [][]byte{shapeVals(dt, want)}}
}

// padNaive pads like TFLM's reference PadImpl: walk the output (extended
// to 5-D) in order, taking the next input element inside the padding and
// the pad value outside.
func padNaive(inShape []int, pads [][2]int, value float64, in []float64) (out []float64, outShape []int) {
	var n, l, r [5]int
	off := 5 - len(inShape)
	for i := range n {
		n[i] = 1
	}
	for i, d := range inShape {
		n[off+i], l[off+i], r[off+i] = d, pads[i][0], pads[i][1]
		outShape = append(outShape, d+pads[i][0]+pads[i][1])
	}
	var o [5]int
	for i := range o {
		o[i] = n[i] + l[i] + r[i]
	}
	k := 0
	for a := 0; a < o[0]; a++ {
		for b := 0; b < o[1]; b++ {
			for c := 0; c < o[2]; c++ {
				for d := 0; d < o[3]; d++ {
					for e := 0; e < o[4]; e++ {
						idx := [5]int{a, b, c, d, e}
						pad := false
						for j := range idx {
							if idx[j] < l[j] || idx[j] >= o[j]-r[j] {
								pad = true
							}
						}
						if pad {
							out = append(out, value)
						} else {
							out = append(out, in[k])
							k++
						}
					}
				}
			}
		}
	}
	return out, outShape
}

// TestPadTFLM ports pad_test.cc and adds cases the reference pad.cc
// defines: int8 PAD pads with the output zero point, int16 PAD with 0.
func TestPadTFLM(t *testing.T) {
	q := builder.PerTensor(1, 0)
	p2d := []int32{1, 1, 0, 0, 1, 1, 0, 0}
	in := []float64{1, 2, 3, 4}
	golden0 := []float64{0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	golden42 := []float64{42, 42, 42, 42, 42, 42, 42, 42, 42, 1, 2, 42, 42, 3, 4, 42, 42, 42, 42, 42, 42, 42, 42, 42}
	golden4d := make([]float64, 81)
	golden4d[40] = 42
	zp := func(z int64) *builder.Quant { return builder.PerTensor(1, z) }
	goldenZP := append([]float64{}, golden0...)
	for i, v := range goldenZP {
		if v == 0 {
			goldenZP[i] = -5
		}
	}
	cases := []shapeCase{
		padCase("Test2DFloat", model.Float32, []int{1, 2, 2, 1}, p2d, []int{3, 2, 4, 1}, nil, nil, nil, in, golden0),
		padCase("Test4DFloat", model.Float32, []int{1, 1, 1, 1}, []int32{1, 1, 1, 1, 1, 1, 1, 1}, []int{3, 3, 3, 3}, nil, nil, nil, []float64{42}, golden4d),
		padCase("Test2DFloatV2", model.Float32, []int{1, 2, 2, 1}, p2d, []int{3, 2, 4, 1}, nil, nil, []float64{42}, in, golden42),
		padCase("Test2DInt8", model.Int8, []int{1, 2, 2, 1}, p2d, []int{3, 2, 4, 1}, q, nil, nil, in, golden0),
		padCase("Test2DInt16", model.Int16, []int{1, 2, 2, 1}, p2d, []int{3, 2, 4, 1}, q, nil, nil, in, golden0),
		padCase("Test2DInt32", model.Int32, []int{1, 2, 2, 1}, p2d, []int{3, 2, 4, 1}, nil, nil, nil, in, golden0),
		padCase("Test2DInt8V2", model.Int8, []int{1, 2, 2, 1}, p2d, []int{3, 2, 4, 1}, q, q, []float64{42}, in, golden42),
		padCase("Test2DInt16V2", model.Int16, []int{1, 2, 2, 1}, p2d, []int{3, 2, 4, 1}, q, q, []float64{42}, in, golden42),
		padCase("Test2DInt32V2", model.Int32, []int{1, 2, 2, 1}, p2d, []int{3, 2, 4, 1}, nil, nil, []float64{42}, in, golden42),
		// pad.cc: int8 PAD without constant_values pads with the output
		// zero point; int16 PAD pads with 0 whatever the zero point.
		padCase("Int8ZeroPoint", model.Int8, []int{1, 2, 2, 1}, p2d, []int{3, 2, 4, 1}, zp(-5), nil, nil, in, goldenZP),
		padCase("Int16ZeroPointIgnored", model.Int16, []int{1, 2, 2, 1}, p2d, []int{3, 2, 4, 1}, zp(7), nil, nil, in, golden0),
	}
	// Test2DInt8V2ExpectFailurePadValueQuantizationMismatch2.
	bad := padCase("Test2DInt8V2ExpectFailurePadValueQuantizationMismatch2", model.Int8, []int{1, 2, 2, 1}, p2d, []int{3, 2, 4, 1}, q, builder.PerTensor(0.5, 0), []float64{42}, in, golden42)
	bad.wantErr = "quantization"
	cases = append(cases, bad)
	// Test2DInt8ExpectFailureQuantizationRangeExcludesZero: zero point 129.
	zpBad := padCase("Test2DInt8ExpectFailureQuantizationRangeExcludesZero", model.Int8, []int{1, 2, 2, 1}, p2d, []int{3, 2, 4, 1}, zp(129), nil, nil, in, golden0)
	zpBad.wantErr = "outside the int8 range" // refused by model validation already
	cases = append(cases, zpBad)
	// Output shape not equal to input plus paddings.
	wrong := padCase("WrongOutputShape", model.Float32, []int{1, 2, 2, 1}, p2d, []int{3, 2, 5, 1}, nil, nil, nil, in, nil)
	wrong.wantErr = "does not give output"
	cases = append(cases, wrong)

	// Shapes that exercise the dimension merging, against the reference
	// walk: 1-D to 5-D, padding on every mix of dimensions, int8 to int32.
	shapes := []struct {
		in   []int
		pads [][2]int
		dt   model.DType
	}{
		{[]int{5}, [][2]int{{2, 3}}, model.Int8},
		{[]int{2, 3}, [][2]int{{0, 0}, {1, 0}}, model.Int16},
		{[]int{2, 3, 4}, [][2]int{{1, 0}, {0, 0}, {0, 0}}, model.Int32},
		{[]int{2, 3, 4}, [][2]int{{0, 0}, {2, 1}, {0, 0}}, model.Int8},
		{[]int{1, 2, 160, 2}, [][2]int{{0, 0}, {0, 0}, {3, 3}, {0, 0}}, model.Int16},
		{[]int{2, 1, 3, 1, 2}, [][2]int{{1, 1}, {0, 2}, {0, 0}, {1, 0}, {0, 1}}, model.Float32},
		{[]int{3, 2, 2, 2, 3}, [][2]int{{0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}, model.Int8},
		{[]int{2, 2, 2, 2, 2}, [][2]int{{1, 2}, {2, 1}, {0, 1}, {1, 0}, {3, 3}}, model.Int16},
		{[]int{4, 1, 1}, [][2]int{{0, 0}, {1, 1}, {0, 0}}, model.Float32},
	}
	for i, s := range shapes {
		n := 1
		for _, d := range s.in {
			n *= d
		}
		vals := make([]float64, n)
		for k := range vals {
			vals[k] = float64(k%100 + 1)
		}
		want, outShape := padNaive(s.in, s.pads, -7, vals)
		var flat []int32
		for _, p := range s.pads {
			flat = append(flat, int32(p[0]), int32(p[1]))
		}
		cases = append(cases, padCase("Merge"+string(rune('A'+i)), s.dt, s.in, flat, outShape, shapeQ(s.dt), shapeQ(s.dt), []float64{-7}, vals, want))
	}
	shapeRun(t, cases)
}

// TestPadSeanet runs TFLM's int16 seanet PAD vectors end to end.
func TestPadSeanet(t *testing.T) { shapeSeanet(t, "pad") }
