package escape

// Model is a model.
type Model struct {
	state *int32
	view  []int32
}

// Invoke runs it: nothing in the source rules is broken, but two locals
// end up on the heap.
func (m *Model) Invoke() {
	acc := int32(0) // want `heap allocation on the Invoke path \(in \(\*Model\).Invoke\).*moved to heap: acc`
	m.state = &acc
	m.keep() // want `heap allocation on the Invoke path \(in \(\*Model\).Invoke\).*moved to heap: buf`
}

func (m *Model) keep() {
	var buf [8]int32 // want `heap allocation on the Invoke path \(in \(\*Model\).keep\)`
	m.view = buf[:]
}

// Snapshot also lets a local escape, but it is not on the Invoke path.
func (m *Model) Snapshot() *int32 {
	v := *m.state
	return &v
}
