package kernels

import "unsafe"

// slideDownWords copies src into dst (the same length), dst starting at or
// below src: a fused group's line buffer moving the rows it still needs
// down to its start. Where both start on a word boundary it moves four
// words an iteration, loading each four before storing them (safe for
// overlap with dst below src: a store never reaches bytes not yet
// loaded), then the rest byte by byte. TinyGo's memmove on the Cortex-M
// moves a byte at a time (slideDown).
func slideDownWords(dst, src []byte) {
	n := min(len(dst), len(src))
	if n == 0 {
		return
	}
	pd, ps := unsafe.Pointer(unsafe.SliceData(dst)), unsafe.Pointer(unsafe.SliceData(src))
	i := 0
	if (uintptr(pd)|uintptr(ps))&3 == 0 {
		for ; i+16 <= n; i += 16 {
			s := (*[4]uint32)(unsafe.Add(ps, i))
			a, b, c, d := s[0], s[1], s[2], s[3]
			o := (*[4]uint32)(unsafe.Add(pd, i))
			o[0], o[1], o[2], o[3] = a, b, c, d
		}
	}
	for ; i < n; i++ {
		*(*byte)(unsafe.Add(pd, i)) = *(*byte)(unsafe.Add(ps, i))
	}
}
