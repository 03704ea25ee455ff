package globals

var table = [4]int32{1, 2, 3, 4} // want `package-level variable table`

var ( // the rule covers every form of var declaration
	scale, bias float32 = 1, 0 // want `package-level variable scale` `package-level variable bias`
)

// Model is a model.
type Model struct{ out int32 }

// Invoke runs it.
func (m *Model) Invoke() { m.out = table[2] + int32(scale+bias) }
