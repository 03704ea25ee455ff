package funcvalue

// Model is a model.
type Model struct{ out [4]int32 }

// Invoke runs it.
func (m *Model) Invoke() {
	apply(m.out[:], relu)  // want `function value relu`
	for i := range count { // want `range over a function \(iterator\)` `function value count`
		m.out[i]++
	}
}

func apply(xs []int32, f func(int32) int32) {
	for i, x := range xs {
		xs[i] = f(x) // want `call through a function value`
	}
}

func relu(x int32) int32 { return max(x, 0) }

func count(yield func(int) bool) {
	for i := 0; i < 4; i++ {
		if !yield(i) { // want `call through a function value`
			return
		}
	}
}
