package maps

type lut map[int32]int32

// Model is a model.
type Model struct{ out int32 }

// Invoke runs it.
func (m *Model) Invoke() {
	t := make(map[int32]int32, 4) // want `map` `make allocates`
	t[1] = 2
	m.out = t[1] + lookup(nil)
}

func lookup(l lut) int32 { return l[0] } // want `map \(type lut\) on the Invoke path \(in lookup\)`
