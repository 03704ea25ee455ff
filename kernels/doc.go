// Package kernels holds the operator implementations that tflm-gen copies into
// every generated package (only the files a model needs, found by following
// references between top-level declarations).
//
// Conventions, which every kernel file follows:
//   - Functions and types are unexported: in a generated package they are
//     implementation details, never API. Tests live in this package.
//   - Imports: only math, math/bits and unsafe. No allocation, goroutines,
//     maps, interfaces, closures, defer or panics on purpose; indices are int
//     and every value computed in int fits 32 bits for tensors the planner
//     accepts.
//   - Activations arrive as typed slices over the arena ([]int8, []int16,
//     []int32, []float32). Constant int8/uint8 tensors arrive as slices over
//     read-only data (never written). Wider constants (biases, float weights,
//     per-channel multipliers and shifts) arrive as strings of little-endian
//     bytes read with ld32, ld64 and ldf32, because read-only data carries no
//     alignment guarantee.
//   - Shapes, strides, padding, zero points and multipliers are computed at
//     generation time and passed in a parameter struct (one per kernel
//     family, e.g. convParams) as constants.
//   - Integer results match TensorFlow Lite Micro's reference kernels bit for
//     bit; float32 results to within rounding of the same operation order.
package kernels
