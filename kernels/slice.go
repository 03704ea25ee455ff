package kernels

// Data movement between tensors: TRANSPOSE, SLICE, STRIDED_SLICE,
// CONCATENATION, PACK, UNPACK and SPLIT all reduce to one strided byte copy.
// The generator turns each operator into up to five nested loops around a
// contiguous run of bytes, with every count, stride and start offset
// computed at generation time, so one kernel serves every element type.

// moveParams describes a strided copy: for every index (i0..i4) below the
// counts n0..n4 it copies run bytes from
// src[src + i0*s0 + ... + i4*s4] to dst[dst + i0*d0 + ... + i4*d4].
// Strides are in bytes and may be negative (reversed strided slices); unused
// outer loops have count 1.
type moveParams struct {
	run                int
	n0, n1, n2, n3, n4 int
	s0, s1, s2, s3, s4 int
	d0, d1, d2, d3, d4 int
	src, dst           int
}

// moveLoops is the number of loops moveStrided runs around its contiguous
// run: moveParams' counts n0..n4.
const moveLoops = 5

// moveStrided performs the copy described by p from src to dst.
func moveStrided(p *moveParams, dst, src []byte) {
	for i0 := 0; i0 < p.n0; i0++ {
		s0 := p.src + i0*p.s0
		d0 := p.dst + i0*p.d0
		for i1 := 0; i1 < p.n1; i1++ {
			s1 := s0 + i1*p.s1
			d1 := d0 + i1*p.d1
			for i2 := 0; i2 < p.n2; i2++ {
				s2 := s1 + i2*p.s2
				d2 := d1 + i2*p.d2
				for i3 := 0; i3 < p.n3; i3++ {
					moveRow(dst, src, d2+i3*p.d3, s2+i3*p.s3, p.n4, p.d4, p.s4, p.run)
				}
			}
		}
	}
}

// moveStridedConst is moveStrided for a source held in read-only data.
func moveStridedConst(p *moveParams, dst []byte, src string) {
	moveStrided(p, dst, constU8(src))
}

// moveRow copies n runs of run bytes, the k-th from src[s+k*ss] to
// dst[d+k*ds]. Runs of one, two and four bytes (single elements) are moved
// without calling copy.
func moveRow(dst, src []byte, d, s, n, ds, ss, run int) {
	switch run {
	case 1:
		for k := 0; k < n; k++ {
			dst[d] = src[s]
			d += ds
			s += ss
		}
	case 2:
		for k := 0; k < n; k++ {
			o := dst[d : d+2 : d+2]
			i := src[s : s+2 : s+2]
			o[0], o[1] = i[0], i[1]
			d += ds
			s += ss
		}
	case 4:
		for k := 0; k < n; k++ {
			o := dst[d : d+4 : d+4]
			i := src[s : s+4 : s+4]
			o[0], o[1], o[2], o[3] = i[0], i[1], i[2], i[3]
			d += ds
			s += ss
		}
	default:
		for k := 0; k < n; k++ {
			copy(dst[d:d+run], src[s:s+run])
			d += ds
			s += ss
		}
	}
}
