package broken

import "example.com/not/there" // want `import "example.com/not/there" is not allowed`

// Model is a model.
type Model struct{}

// Invoke runs it.
func (m *Model) Invoke() { there.Do() }
