package model

import (
	"errors"
	"fmt"
	"math"

	flatbuffers "github.com/google/flatbuffers/go"
)

// errCorrupt is wrapped by every structural flatbuffer error.
var errCorrupt = errors.New("corrupt flatbuffer")

// fbuf is a bounds-checked view of a flatbuffer. Every access validates
// offsets before handing them to the flatbuffers runtime, which itself does
// no checking and would panic on a hostile file.
type fbuf struct {
	b []byte
	// budget, while charging is set, is how many more vector bytes the
	// reader may decode. A well-formed file never decodes more than its own
	// size (vectors do not overlap); a hostile one could point thousands of
	// fields at one large vector to make the reader allocate without bound.
	budget   int64
	charging bool
	// pastEnd records that some offset pointed past the end of the file,
	// but not absurdly far (below truncatedLimit): what a truncated file
	// gives. Its errors say so.
	pastEnd bool
}

// truncatedLimit: a reference past the end of the file below this
// position suggests a file cut short (no model tflm-gen reads is larger);
// one above it, a corrupt offset.
const truncatedLimit = 1 << 30

// past records a reference to position pos when it lies past the end of
// the file (pastEnd).
func (f *fbuf) past(pos int64) {
	if pos >= int64(len(f.b)) && pos < truncatedLimit {
		f.pastEnd = true
	}
}

// beyond reports whether pos, a position the file refers to, lies past its
// end, and records it (past).
func (f *fbuf) beyond(pos int64) bool {
	f.past(pos)
	return pos >= int64(len(f.b))
}

// maxVectorElems is the length limit for vectors bounded only by the file
// size (every vector is: its bytes must lie in the file, whose length is an
// int, so no length or byte count overflows an int, even on 32 bits).
const maxVectorElems = math.MaxInt32

// table is a checked flatbuffer table: pos is the table start, vt the vtable
// start and vtLen the vtable length in bytes.
type table struct {
	f      *fbuf
	t      flatbuffers.Table
	vtLen  int
	objLen int
	pos    int
}

func (f *fbuf) need(pos, n int, what string) error {
	if pos < 0 || n < 0 || pos > len(f.b) || n > len(f.b)-pos {
		if pos >= 0 && n >= 0 {
			f.past(int64(pos) + int64(n))
		}
		return fmt.Errorf("%w: %s at byte %d (+%d) is outside the %d-byte file", errCorrupt, what, pos, n, len(f.b))
	}
	return nil
}

func (f *fbuf) u32(pos int) uint32 { return flatbuffers.GetUint32(f.b[pos:]) }

// root returns the root table of the buffer.
func (f *fbuf) root() (table, error) {
	if err := f.need(0, 8, "root offset"); err != nil {
		return table{}, err
	}
	if pos := int64(f.u32(0)); pos > int64(len(f.b)) {
		f.past(pos)
		return table{}, fmt.Errorf("%w: root table at byte %d is outside the %d-byte file", errCorrupt, pos, len(f.b))
	}
	return f.tableAt(int(f.u32(0)), "root table")
}

// tableAt validates the table starting at pos and its vtable.
func (f *fbuf) tableAt(pos int, what string) (table, error) {
	if err := f.need(pos, 4, what); err != nil {
		return table{}, err
	}
	soff := int64(int32(f.u32(pos)))
	vt := int64(pos) - soff
	if vt < 0 || vt > int64(len(f.b)) {
		f.past(vt)
		return table{}, fmt.Errorf("%w: %s: vtable offset %d out of range", errCorrupt, what, vt)
	}
	if err := f.need(int(vt), 4, what+" vtable"); err != nil {
		return table{}, err
	}
	vtLen := int(flatbuffers.GetUint16(f.b[vt:]))
	objLen := int(flatbuffers.GetUint16(f.b[vt+2:]))
	if vtLen < 4 || vtLen%2 != 0 {
		return table{}, fmt.Errorf("%w: %s: vtable length %d invalid", errCorrupt, what, vtLen)
	}
	if objLen < 4 {
		return table{}, fmt.Errorf("%w: %s: table size %d is smaller than its vtable offset", errCorrupt, what, objLen)
	}
	if err := f.need(int(vt), vtLen, what+" vtable"); err != nil {
		return table{}, err
	}
	if err := f.need(pos, objLen, what); err != nil {
		return table{}, err
	}
	t := table{f: f, vtLen: vtLen, objLen: objLen, pos: pos}
	t.t.Bytes = f.b
	t.t.Pos = flatbuffers.UOffsetT(pos)
	return t, nil
}

// field returns the absolute position of field slot, or 0 when absent, after
// checking that size bytes are readable there.
func (t table) field(slot, size int) (int, error) {
	vo := 4 + 2*slot
	if vo+2 > t.vtLen {
		return 0, nil
	}
	off := int(t.t.Offset(flatbuffers.VOffsetT(vo)))
	if off == 0 {
		return 0, nil
	}
	if off < 4 || off+size > t.objLen {
		return 0, fmt.Errorf("%w: field %d at table offset %d (+%d) is outside the %d-byte table", errCorrupt, slot, off, size, t.objLen)
	}
	p := t.pos + off
	if err := t.f.need(p, size, fmt.Sprintf("field %d", slot)); err != nil {
		return 0, err
	}
	return p, nil
}

func (t table) valid() bool { return t.f != nil }

func (t table) uint8(slot int, def uint8) (uint8, error) {
	p, err := t.field(slot, 1)
	if err != nil || p == 0 {
		return def, err
	}
	return t.t.GetUint8(flatbuffers.UOffsetT(p)), nil
}

func (t table) int32(slot int, def int32) (int32, error) {
	p, err := t.field(slot, 4)
	if err != nil || p == 0 {
		return def, err
	}
	return t.t.GetInt32(flatbuffers.UOffsetT(p)), nil
}

func (t table) uint64(slot int, def uint64) (uint64, error) {
	p, err := t.field(slot, 8)
	if err != nil || p == 0 {
		return def, err
	}
	return t.t.GetUint64(flatbuffers.UOffsetT(p)), nil
}

func (t table) float32(slot int, def float32) (float32, error) {
	p, err := t.field(slot, 4)
	if err != nil || p == 0 {
		return def, err
	}
	return t.t.GetFloat32(flatbuffers.UOffsetT(p)), nil
}

// indirect follows the uoffset stored in field slot.
func (t table) indirect(slot int) (int, error) {
	p, err := t.field(slot, 4)
	if err != nil || p == 0 {
		return 0, err
	}
	q := int64(p) + int64(t.f.u32(p))
	if t.f.beyond(q) {
		return 0, fmt.Errorf("%w: field %d points past the end of the file", errCorrupt, slot)
	}
	return int(q), nil
}

// subTable returns the table referenced by slot; ok is false when absent.
func (t table) subTable(slot int, what string) (table, bool, error) {
	q, err := t.indirect(slot)
	if err != nil || q == 0 {
		return table{}, false, err
	}
	st, err := t.f.tableAt(q, what)
	return st, err == nil, err
}

// errTooLong is wrapped when a vector is longer than its caller allows.
var errTooLong = errors.New("vector too long")

// vector returns the element start and length of a vector field with
// elements of elemSize bytes; start is 0 when the field is absent. Vectors
// longer than maxN elements are refused before anything is allocated.
func (t table) vector(slot, elemSize, maxN int) (start, n int, err error) {
	q, err := t.indirect(slot)
	if err != nil || q == 0 {
		return 0, 0, err
	}
	if err := t.f.need(q, 4, "vector length"); err != nil {
		return 0, 0, err
	}
	ln := int64(t.f.u32(q))
	if ln*int64(elemSize) > int64(len(t.f.b)) {
		t.f.past(int64(q) + 4 + ln*int64(elemSize))
		return 0, 0, fmt.Errorf("%w: field %d: vector of %d elements is longer than the file", errCorrupt, slot, ln)
	}
	if ln > int64(maxN) {
		return 0, 0, fmt.Errorf("%w: field %d: %d elements, at most %d supported", errTooLong, slot, ln, maxN)
	}
	if err := t.f.need(q+4, int(ln)*elemSize, fmt.Sprintf("field %d vector", slot)); err != nil {
		return 0, 0, err
	}
	if t.f.charging {
		t.f.budget -= ln * int64(elemSize)
		if t.f.budget < 0 {
			return 0, 0, fmt.Errorf("%w: field %d: vectors overlap (more vector data decoded than the %d-byte file holds)", errCorrupt, slot, len(t.f.b))
		}
	}
	return q + 4, int(ln), nil
}

func (t table) int32s(slot, maxN int) ([]int32, error) {
	s, n, err := t.vector(slot, 4, maxN)
	if err != nil || s == 0 {
		return nil, err
	}
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(t.f.u32(s + 4*i))
	}
	return out, nil
}

func (t table) int64s(slot, maxN int) ([]int64, error) {
	s, n, err := t.vector(slot, 8, maxN)
	if err != nil || s == 0 {
		return nil, err
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = flatbuffers.GetInt64(t.f.b[s+8*i:])
	}
	return out, nil
}

func (t table) float32s(slot, maxN int) ([]float32, error) {
	s, n, err := t.vector(slot, 4, maxN)
	if err != nil || s == 0 {
		return nil, err
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = flatbuffers.GetFloat32(t.f.b[s+4*i:])
	}
	return out, nil
}

func (t table) bytes(slot, maxN int) ([]byte, error) {
	s, n, err := t.vector(slot, 1, maxN)
	if err != nil || s == 0 {
		return nil, err
	}
	return t.f.b[s : s+n : s+n], nil
}

func (t table) str(slot, maxN int) (string, error) {
	b, err := t.bytes(slot, maxN)
	return string(b), err
}

// tables returns the tables of a vector-of-tables field.
func (t table) tables(slot int, what string, maxN int) ([]table, error) {
	s, n, err := t.vector(slot, 4, maxN)
	if err != nil || s == 0 {
		return nil, err
	}
	out := make([]table, n)
	for i := range out {
		p := s + 4*i
		q := int64(p) + int64(t.f.u32(p))
		if t.f.beyond(q) {
			return nil, fmt.Errorf("%w: %s %d: offset past the end of the file", errCorrupt, what, i)
		}
		if out[i], err = t.f.tableAt(int(q), fmt.Sprintf("%s %d", what, i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}
