package kernels

import (
	"slices"
	"testing"
)

// TestCircularBufferInt8 replays TFLM's circular_buffer_test.cc
// (OutputTensorOnEveryIterationLength4 and OutputTensorLength5): input i
// is i*depth+1 ... i*depth+depth, the output starts zeroed, and after
// Invoke i the output is the golden row i.
func TestCircularBufferInt8(t *testing.T) {
	cases := []struct {
		name         string
		depth, slots int32
		goldens      [][]int8
	}{
		{"Length4", 3, 4, [][]int8{
			{0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3},
			{0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6},
			{0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9},
			{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
			{4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
		}},
		{"Length5", 4, 5, [][]int8{
			{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4},
			{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8},
			{0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
			{0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
			{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20},
			{5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24},
		}},
	}
	for _, c := range cases {
		for _, separate := range []bool{false, true} {
			state := make([]int8, c.depth*c.slots)
			out := state
			if separate {
				out = make([]int8, len(state))
			}
			in := make([]int8, c.depth)
			for i, want := range c.goldens {
				for j := range in {
					in[j] = int8(int32(i)*c.depth + int32(j) + 1)
				}
				circularBufferInt8(in, state, out, c.slots, c.depth)
				if !slices.Equal(out, want) {
					t.Errorf("%s (separate output %v): Invoke %d: got %v, want %v", c.name, separate, i, out, want)
				}
			}
		}
	}
}
