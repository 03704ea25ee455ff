package board

import (
	"regexp"
	"sort"
)

// softDouble matches the names of double-precision software routines:
// compiler-rt's and libgcc's arithmetic, comparisons and conversions
// (__aeabi_dadd, __muldf3, __extendsfdf2, __fixdfsi, __floatsidf, ...) and
// C's double libm functions (exp, log, sqrt, floor, ...).
var softDouble = regexp.MustCompile(`^(__aeabi_(d[a-z0-9]+|[a-z0-9]+2d)|__[a-z]+df[0-9]|__(extendsf|truncdf|fix(uns)?df|float(un)?[sdt]idf)[a-z0-9]*|` +
	`(exp|exp2|expm1|log|log2|log10|log1p|pow|sqrt|cbrt|sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|fmod|remainder|floor|ceil|trunc|round|rint|nearbyint|ldexp|frexp|modf|hypot|erf|erfc)l?)$`)

// IsSoftDouble reports whether a symbol name is a double-precision software
// routine.
func IsSoftDouble(name string) bool { return softDouble.MatchString(name) }

// SoftDouble returns the double-precision software routines the firmware
// holds (TinyGo links with section garbage collection: a routine present
// is reachable) and, as "caller -> routine", the calls to them from other
// functions, both sorted.
func (f *Frames) SoftDouble() (routines, calls []string) {
	for fn := range f.Self {
		if IsSoftDouble(fn) {
			routines = append(routines, fn)
		}
	}
	for fn, cs := range f.Calls {
		if IsSoftDouble(fn) {
			continue
		}
		for _, c := range cs {
			if IsSoftDouble(c) {
				calls = append(calls, fn+" -> "+c)
			}
		}
	}
	sort.Strings(routines)
	sort.Strings(calls)
	return routines, calls
}
