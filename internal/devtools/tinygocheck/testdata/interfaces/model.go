package interfaces

type stepper interface{ step(x int32) int32 }

type doubler struct{}

func (doubler) step(x int32) int32 { return 2 * x }

// Model is a model.
type Model struct{ out int32 }

// Invoke runs it.
func (m *Model) Invoke() {
	var s stepper = doubler{} // want `interface value \(type stepper\)`
	m.out = s.step(3)         // want `method call on an interface`
	m.out += describe(m.out)  // want `conversion of int32 to interface any`
}

func describe(v any) int32 { // want `interface value \(type any\) on the Invoke path \(in describe\)`
	if x, ok := v.(int32); ok { // want `type assertion`
		return x
	}
	return 0
}
