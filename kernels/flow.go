package kernels

// Resource variables and control flow move whole tensors as bytes: READ_VARIABLE
// copies a variable's buffer into its output, ASSIGN_VARIABLE copies its value
// into the variable (copyConst for a constant value), and IF, WHILE and
// CALL_ONCE copy the operator's inputs and outputs to and from the called
// subgraph's tensors. The branching itself is Go code in Invoke.

// copyBytes copies src into dst; both have the same length (checked at
// generation time). They may overlap: a fused group's line buffer slides
// the rows it still needs down to its start with it.
func copyBytes(dst, src []byte) {
	copy(dst, src)
}
