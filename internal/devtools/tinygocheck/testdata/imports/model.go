package imports

import (
	"fmt" // want `import "fmt" is not allowed`
	"math"
)

// Model is a model.
type Model struct{ x float64 }

// Invoke runs it.
func (m *Model) Invoke() { m.x = math.Sqrt(m.x) }

// String is off the Invoke path, but fmt may not be imported at all.
func (m *Model) String() string { return fmt.Sprint(m.x) }
