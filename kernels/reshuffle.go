package kernels

// DYNAMIC_UPDATE_SLICE writes its update tensor into a copy of its operand
// at start indices given at run time. The operand copy is an ordinary
// moveStrided; these kernels place the update. Like TFLite Micro, every
// start index is clamped into [0, operand dim - update dim] before use, so
// the update always lies inside the output whatever the index data, and
// Invoke never reads or writes outside its tensors.

// dusParams describes the placement of an update of up to six dimensions:
// lim0..lim5 are the largest start index of each dimension (operand size
// minus update size), st0..st5 the output's strides in bytes, and move the
// copy of the whole update to start indices zero (its dst is the byte
// offset of that position, normally 0). Unused dimensions have lim 0.
type dusParams struct {
	rank                         int
	lim0, lim1, lim2, lim3, lim4 int
	lim5                         int
	st0, st1, st2, st3, st4, st5 int
	move                         *moveParams
}

// dusClamp clamps a start index into [0, lim].
func dusClamp(v int64, lim int) int {
	if v < 0 {
		return 0
	}
	if v > int64(lim) {
		return lim
	}
	return int(v)
}

// dusI32 writes the update upd into dst (which already holds the operand)
// at the int32 start indices in start, each clamped into [0, operand dim -
// update dim] as TFLite Micro does: a negative start is 0, one past the
// last fitting position is that position.
func dusI32(p *dusParams, dst, upd []byte, start []int32) {
	start = start[:p.rank]
	lim := [6]int{p.lim0, p.lim1, p.lim2, p.lim3, p.lim4, p.lim5}
	st := [6]int{p.st0, p.st1, p.st2, p.st3, p.st4, p.st5}
	off := 0
	for i, v := range start {
		off += dusClamp(int64(v), lim[i]) * st[i]
	}
	q := *p.move
	q.dst += off
	moveStrided(&q, dst, upd)
}

// dusI64 is dusI32 with int64 start indices, clamped the same way.
func dusI64(p *dusParams, dst, upd []byte, start []int64) {
	start = start[:p.rank]
	lim := [6]int{p.lim0, p.lim1, p.lim2, p.lim3, p.lim4, p.lim5}
	st := [6]int{p.st0, p.st1, p.st2, p.st3, p.st4, p.st5}
	off := 0
	for i, v := range start {
		off += dusClamp(v, lim[i]) * st[i]
	}
	q := *p.move
	q.dst += off
	moveStrided(&q, dst, upd)
}

// dusI32Const is dusI32 for an update held in read-only data.
func dusI32Const(p *dusParams, dst []byte, upd string, start []int32) {
	dusI32(p, dst, constU8(upd), start)
}

// dusI64Const is dusI64 for an update held in read-only data.
func dusI64Const(p *dusParams, dst []byte, upd string, start []int64) {
	dusI64(p, dst, constU8(upd), start)
}
