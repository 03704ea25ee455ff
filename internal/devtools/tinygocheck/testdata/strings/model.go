package strings

const prefix = "layer:" + "0" // constant concatenation is fine

// Model is a model.
type Model struct {
	name string
	out  int
}

// Invoke runs it.
func (m *Model) Invoke() {
	s := prefix + m.name     // want `string concatenation at run time`
	s += "!"                 // want `string concatenation at run time`
	b := []byte(s)           // want `conversion of a string to \[\]byte allocates`
	t := string(b[:2])       // want `conversion \[\]byte to string allocates`
	r := string(rune(m.out)) // want `conversion of an integer to string allocates`
	m.out = len(t) + len(r) + len(string(rune(65)))
}
