package panics

// Model is a model.
type Model struct{ out [4]int32 }

// Invoke runs it.
func (m *Model) Invoke() { m.at(2) }

func (m *Model) at(i int) {
	if i >= len(m.out) {
		panic("panics: out of range") // want `panic call on the Invoke path \(in \(\*Model\).at\)`
	}
	m.out[i] = 1
}

// Reset is on the Invoke path too.
func (m *Model) Reset() {
	if r := recover(); r != nil { // want `recover call` `interface value`
		m.out = [4]int32{}
	}
}
