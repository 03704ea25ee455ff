package closure

// Model is a model.
type Model struct{ out [4]int32 }

// Invoke runs it.
func (m *Model) Invoke() {
	k := int32(3)
	scale := func(x int32) int32 { return x * k } // want `closure \(function literal\)`
	for i := range m.out {
		m.out[i] = scale(int32(i)) // want `call through a function value`
	}
}
