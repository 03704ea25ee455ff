package kernels

// Fused row streaming (tflm-gen's fused groups) keeps each intermediate
// tensor of a chain of operators as a line buffer: a few consecutive rows
// of the tensor, always from the buffer's start, so that the next
// operator's kernel reads them as an ordinary, shorter input tensor.

// slideRows moves the rows of a line buffer that are still needed to its
// start before new rows are written after them: b holds the rows the line
// has, the first from bytes of them are no longer needed, and the rest
// move down (copy handles the overlap).
func slideRows(b []uint8, from int) {
	copy(b, b[from:])
}
