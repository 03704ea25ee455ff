package buildtag

// Model is a model.
type Model struct{ out int32 }

// Invoke runs it.
func (m *Model) Invoke() { m.out = step(m.out) }
