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
//
// # Locals under TinyGo
//
// TinyGo keeps a local whose address is taken on the stack only when its
// escape analysis (transform/allocs.go, run before inlining) can see every
// use; otherwise the local is heap-allocated on every call, which the
// generated packages promise never happens (CI runs `tinygo build
// -print-allocs` on every package). So, in every kernel:
//   - a local array or struct is at most 256 bytes (TinyGo's limit for stack
//     objects); working memory beyond that is planned scratch in the arena,
//     passed in by the generated code;
//   - in the function that declares it, such a local is indexed or passed to
//     calls, never walked with a pointer variable (a pointer phi escapes);
//   - a function that receives a pointer into a caller's local never
//     compares that pointer with another one (LLVM then cannot mark the
//     parameter nocapture): loops end on a counter or on a pointer into the
//     arena or the constants; nor converts a slice over it to an array
//     pointer ((*[8]T)(s[i:i+8]) checks the pointer for nil, which counts
//     as a capture there): it reslices with s[i:i+8:i+8] instead.
//
// # Thumb-2 loops for the DSP extension
//
// TinyGo cannot express SXTB16 or SMLAD in Go (LLVM's ARMParallelDSP pass,
// which forms SMLAD, runs only at -O3 codegen, which TinyGo never uses), so
// inner loops that need them are inline assembly (dsp.go explains the
// three files):
//   - dsp_arm.go carries "//go:build tinygo && cortexm && !nodsp" and
//     imports device/arm; dsp_go.go carries the negation and declares the
//     same functions in Go, calling the *Ref functions of dsp.go (no build
//     line), which every build compiles and the tests compare with.
//     gen/emit copies a declaration's twin from the other file with it.
//     The depthwise loops follow the same pattern in dw_dsp_arm.go,
//     dw_dsp_go.go and dw_dsp.go, octDot's in dsp_oct_arm.go,
//     dsp_oct_go.go and oct.go.
//   - An assembly function takes one pointer to an argument block in the
//     kernel's planned scratch (never a Go local: its address converted to
//     a number moves it to the heap), reads {g} before touching any
//     register, saves r0-r12, lr and the flags (mrs/msr apsr_nzcvq) and
//     restores them: TinyGo's inline assembly declares no clobbers.
//   - A kernel with no argument block (fc_dsp.go, which must not grow
//     an arena that a fully connected layer sets; octPass8, whose only
//     scratch is the eight words it stores its sums to) instead passes a
//     few values as operands (at most four: pointers into the arena and the
//     constants, the rest in a record the generator wrote), and the
//     assembly pushes r0-r12 and lr, moves sp down and stores every operand
//     in that frame before it changes any register.
//   - Every loop has a board test: TestDSPOnBoard runs both forms on the
//     emulated Cortex-M4 on random operands and compares them.
//   - Loads from flash (weights, records) may be unaligned: LDR and LDRB,
//     never LDRD or LDM, on them.
//   - Pointers go into an argument block or a table in the scratch through
//     dspSetPtr (or as uintptr): a pointer store's write barrier under gc
//     would hand the arena's old contents to the garbage collector.
package kernels
