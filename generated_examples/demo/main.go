// Command demo runs the generated example packages once on a fixed input
// and prints their outputs and memory figures.
package main

import (
	"fmt"
	"math"

	"github.com/tflm-gen/tflm-gen/generated_examples/dense_int8"
	"github.com/tflm-gen/tflm-gen/generated_examples/mlp_float"
	"github.com/tflm-gen/tflm-gen/generated_examples/mobilenet_int8"
	"github.com/tflm-gen/tflm-gen/generated_examples/tiny_conv_int8"
)

func main() {
	// dense_int8: a 1 -> 16 -> 16 -> 1 perceptron; inputs are quantized with
	// the exported scale and zero point. The input view is only valid until
	// Invoke, which reuses its memory for later layers.
	var s dense_int8.Model
	fmt.Printf("dense_int8: arena %d bytes\n", dense_int8.ArenaSize)
	for _, x := range []float64{0, 1, 2, 3, 4, 5, 6} {
		q := int8(max(-128, min(127, math.Round(x/dense_int8.Input0Scale)+dense_int8.Input0ZeroPoint)))
		s.InputInt8(0)[0] = q
		s.Invoke()
		y := float64(int(s.OutputInt8(0)[0])-dense_int8.Output0ZeroPoint) * dense_int8.Output0Scale
		fmt.Printf("  x=%.1f -> q=%4d -> y=%+.4f\n", x, q, y)
	}

	// tiny_conv_int8: a 16x16 diagonal stripe image, four class scores.
	var c tiny_conv_int8.Model
	img := c.InputInt8(0)
	for y := 0; y < tiny_conv_int8.Input0Dim1; y++ {
		for x := 0; x < tiny_conv_int8.Input0Dim2; x++ {
			v := int8(-128)
			if (x+y)%4 < 2 {
				v = 127
			}
			img[y*tiny_conv_int8.Input0Dim2+x] = v
		}
	}
	c.Invoke()
	fmt.Printf("tiny_conv_int8: arena %d bytes, class probabilities:", tiny_conv_int8.ArenaSize)
	for _, q := range c.OutputInt8(0) {
		fmt.Printf(" %.3f", float64(int(q)-tiny_conv_int8.Output0ZeroPoint)*tiny_conv_int8.Output0Scale)
	}
	fmt.Println()

	// mlp_float: six features, three class probabilities.
	var f mlp_float.Model
	copy(f.InputFloat32(0), []float32{0.5, -1, 0.25, 2, -0.75, 1})
	f.Invoke()
	fmt.Printf("mlp_float: arena %d bytes, probabilities %.4f\n", mlp_float.ArenaSize, f.OutputFloat32(0))

	// mobilenet_int8: a 32x32 ring; its first four layers run fused, row by
	// row, so the arena holds a few rows of them instead of whole tensors.
	var n mobilenet_int8.Model
	ring := n.InputInt8(0)
	for y := 0; y < mobilenet_int8.Input0Dim1; y++ {
		for x := 0; x < mobilenet_int8.Input0Dim2; x++ {
			dy, dx := y-16, x-16
			v := int8(-128)
			if d := dx*dx + dy*dy; d > 64 && d < 144 {
				v = 127
			}
			ring[y*mobilenet_int8.Input0Dim2+x] = v
		}
	}
	n.Invoke()
	fmt.Printf("mobilenet_int8: arena %d bytes, class probabilities:", mobilenet_int8.ArenaSize)
	for _, q := range n.OutputInt8(0) {
		fmt.Printf(" %.3f", float64(int(q)-mobilenet_int8.Output0ZeroPoint)*mobilenet_int8.Output0Scale)
	}
	fmt.Println()
}
