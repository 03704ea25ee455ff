package kernels

import (
	"bytes"
	"math"
	"testing"
)

// The cases of TFLM's dynamic_update_slice_test.cc, each for every element
// size the operator has (int8, int16, int32/float32), with int32 and int64
// start indices; plus out-of-range starts, which TFLM clamps the same way.
func TestDynamicUpdateSliceTFLM(t *testing.T) {
	operand := []int{1, 2, 3, 4, 5, 6, 7, 8, 9} // [3, 3]
	cases := []struct {
		name   string
		upd    []int // values
		shape  []int // update shape
		start  []int64
		golden []int
	}{
		{"Simple", []int{-1, -2}, []int{2, 1}, []int64{1, 1}, []int{1, 2, 3, 4, -1, 6, 7, -2, 9}},
		{"BoundaryTest", []int{-1, -2, -3, -4}, []int{2, 2}, []int64{2, 2}, []int{1, 2, 3, 4, -1, -2, 7, -3, -4}},
		// Beyond TFLM's tests: starts below 0 and far past the end clamp.
		{"NegativeStart", []int{-1, -2}, []int{2, 1}, []int64{-5, math.MinInt32}, []int{-1, 2, 3, -2, 5, 6, 7, 8, 9}},
		{"LargeStart", []int{-1, -2}, []int{1, 2}, []int64{math.MaxInt32, 7}, []int{1, 2, 3, 4, 5, 6, 7, -1, -2}},
	}
	for _, esz := range []int{1, 2, 4} {
		for _, c := range cases {
			st := moveTestStrides([]int{3, 3})
			mv := moveTestParams(esz, c.shape, moveTestStrides(c.shape), st, 0, 0)
			p := dusParams{rank: 2, lim0: 3 - c.shape[0], lim1: 3 - c.shape[1], st0: st[0] * esz, st1: st[1] * esz, move: &mv}
			want := moveTestBytes(esz, c.golden)
			upd := moveTestBytes(esz, c.upd)

			dst := moveTestBytes(esz, operand)
			dusI32(&p, dst, upd, []int32{int32(c.start[0]), int32(c.start[1])})
			if !bytes.Equal(dst, want) {
				t.Errorf("%s esz %d int32: got % x, want % x", c.name, esz, dst, want)
			}
			dst = moveTestBytes(esz, operand)
			dusI64Const(&p, dst, string(upd), c.start)
			if !bytes.Equal(dst, want) {
				t.Errorf("%s esz %d int64: got % x, want % x", c.name, esz, dst, want)
			}
		}
	}
}
