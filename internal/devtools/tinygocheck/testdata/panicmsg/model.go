package panicmsg

// Model is a model.
type Model struct{ out [2]int32 }

// Invoke runs it.
func (m *Model) Invoke() { m.out[0]++ }

// Output panics off the Invoke path: allowed with a constant message only.
func (m *Model) Output(i int) []int32 {
	if i < 0 {
		panic("panicmsg: negative index")
	}
	if i > 0 {
		panic(errIndex(i)) // want `panic with a non-constant value`
	}
	return m.out[:]
}

type errIndex int

func (e errIndex) Error() string { return "panicmsg: index out of range" }
