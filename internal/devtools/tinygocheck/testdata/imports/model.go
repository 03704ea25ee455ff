package imports

import (
	"fmt" // want `import "fmt" is not allowed`
	"math"
	"runtime"
)

// onX86 picks a path by a build constant, which is allowed.
const onX86 = runtime.GOARCH == "amd64" || runtime.GOARCH == "386"

// Model is a model.
type Model struct{ x float64 }

// Invoke runs it.
func (m *Model) Invoke() { m.x = math.Sqrt(m.x) }

// String is off the Invoke path, but fmt may not be imported at all.
func (m *Model) String() string { return fmt.Sprint(m.x, onX86) }

// Procs calls into the runtime, which is not allowed.
func (m *Model) Procs() int { return runtime.NumCPU() } // want `runtime.NumCPU is not allowed`
