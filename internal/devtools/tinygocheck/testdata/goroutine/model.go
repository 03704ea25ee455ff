package goroutine

// Model is a model.
type Model struct{ out [2]int32 }

// Invoke runs it; the goroutine is two calls deep.
func (m *Model) Invoke() { m.step() }

func (m *Model) step() { half(m.out[:]) }

func half(out []int32) {
	go fill(out[:1]) // want `go statement on the Invoke path \(in half\)`
	fill(out[1:])
}

func fill(out []int32) { out[0] = 1 }
