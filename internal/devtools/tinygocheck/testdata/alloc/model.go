package alloc

// Model is a model.
type Model struct {
	buf []int32
	p   *int32
}

// Invoke runs it.
func (m *Model) Invoke() {
	m.buf = append(m.buf, 1) // want `append allocates`
	m.p = new(int32)         // want `new allocates`
	tmp := make([]int32, 4)  // want `make allocates`
	m.buf[0] = tmp[0] + *m.p
}
