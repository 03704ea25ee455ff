package deferstmt

// Model is a model.
type Model struct{ busy bool }

// Invoke runs it.
func (m *Model) Invoke() {
	m.busy = true
	defer m.done() // want `defer statement`
}

func (m *Model) done() { m.busy = false }
