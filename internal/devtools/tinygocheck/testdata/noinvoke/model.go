package noinvoke // want `no method Model.Invoke`

// Model has no Invoke method.
type Model struct{ out int32 }

// Run is not what the checker looks for.
func (m *Model) Run() { m.out++ }
