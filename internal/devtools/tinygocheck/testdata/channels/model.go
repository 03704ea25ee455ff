package channels

// Model is a model.
type Model struct{ out int32 }

// Invoke runs it.
func (m *Model) Invoke() {
	ch := make(chan int32, 1) // want `channel` `make allocates`
	ch <- 3                   // want `channel send`
	select {                  // want `select statement`
	case v := <-ch: // want `channel receive`
		m.out = v
	default:
	}
}
