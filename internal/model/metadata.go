package model

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// errExternalBuffers is returned for models whose buffers carry absolute
// file offsets, which shifting the file would break.
var errExternalBuffers = errors.New("model stores buffer data outside the flatbuffer; cannot add metadata")

// WithMetadata returns a copy of a model file with metadata entry name set
// to payload (in a new buffer), replacing an entry of that name; the rest of
// the model is unchanged. The copy is the original file shifted behind a new
// root table whose buffers and metadata vectors gain one entry each, so all
// of the original's internal offsets stay valid.
func WithMetadata(old []byte, name string, payload []byte) ([]byte, error) {
	f := &fbuf{b: old}
	root, err := f.root()
	if err != nil {
		return nil, err
	}
	const modelSlots = 8
	bufTables, err := root.tables(4, "buffer", maxVectorElems)
	if err != nil {
		return nil, err
	}
	for i, bt := range bufTables {
		if off, err := bt.uint64(1, 0); err != nil || off > 1 {
			return nil, fmt.Errorf("buffer %d: %w", i, errExternalBuffers)
		}
	}
	metaTables, err := root.tables(6, "metadata", maxVectorElems)
	if err != nil {
		return nil, err
	}
	var keepMeta []table
	for _, mt := range metaTables {
		if n, err := mt.str(0, maxName); err != nil {
			return nil, err
		} else if n != name {
			keepMeta = append(keepMeta, mt)
		}
	}

	// Prefix layout, low to high addresses (references always point up).
	var p []byte
	put32 := func(at int, v uint32) { binary.LittleEndian.PutUint32(p[at:], v) }
	grow := func(n int) int { at := len(p); p = append(p, make([]byte, n)...); return at }
	alignTo := func(a, extra int) {
		for (len(p)+extra)%a != 0 {
			p = append(p, 0)
		}
	}
	grow(8)
	copy(p[4:], "TFL3")
	// Root vtable and table: version + 7 offsets.
	rootVT := grow(4 + 2*modelSlots)
	alignTo(4, 0)
	rootT := grow(4 + 4*modelSlots)
	binary.LittleEndian.PutUint16(p[rootVT:], uint16(4+2*modelSlots))
	binary.LittleEndian.PutUint16(p[rootVT+2:], uint16(4+4*modelSlots))
	put32(rootT, uint32(int32(rootT-rootVT)))
	for s := 0; s < modelSlots; s++ {
		binary.LittleEndian.PutUint16(p[rootVT+4+2*s:], uint16(4+4*s))
	}
	put32(0, uint32(rootT))
	// Vectors of buffers and metadata: old entries plus one new table each.
	bufVec := grow(4 + 4*(len(bufTables)+1))
	metaVec := grow(4 + 4*(len(keepMeta)+1))
	// New Metadata table {name, buffer}.
	metaVT := grow(8)
	binary.LittleEndian.PutUint16(p[metaVT:], 8)
	binary.LittleEndian.PutUint16(p[metaVT+2:], 12)
	binary.LittleEndian.PutUint16(p[metaVT+4:], 4)
	binary.LittleEndian.PutUint16(p[metaVT+6:], 8)
	metaT := grow(12)
	put32(metaT, uint32(int32(metaT-metaVT)))
	put32(metaT+8, uint32(len(bufTables)))
	// New Buffer table {data}.
	bufVT := grow(6)
	binary.LittleEndian.PutUint16(p[bufVT:], 6)
	binary.LittleEndian.PutUint16(p[bufVT+2:], 8)
	binary.LittleEndian.PutUint16(p[bufVT+4:], 4)
	alignTo(4, 0)
	bufT := grow(8)
	put32(bufT, uint32(int32(bufT-bufVT)))
	// Strings and data.
	nameAt := grow(4 + len(name) + 1)
	put32(nameAt, uint32(len(name)))
	copy(p[nameAt+4:], name)
	alignTo(16, 4) // the data vector's elements are 16-byte aligned
	dataAt := grow(4 + len(payload))
	put32(dataAt, uint32(len(payload)))
	copy(p[dataAt+4:], payload)
	alignTo(16, 0)
	shift := len(p)

	ref := func(at, target int) { put32(at, uint32(target-at)) }
	ref(metaT+4, nameAt)
	ref(bufT+4, dataAt)
	// Old entries: their tables are in the shifted old file.
	put32(bufVec, uint32(len(bufTables)+1))
	for i, bt := range bufTables {
		ref(bufVec+4+4*i, shift+bt.pos)
	}
	ref(bufVec+4+4*len(bufTables), bufT)
	put32(metaVec, uint32(len(keepMeta)+1))
	for i, mt := range keepMeta {
		ref(metaVec+4+4*i, shift+mt.pos)
	}
	ref(metaVec+4+4*len(keepMeta), metaT)
	// Root fields: version copied, offsets re-pointed into the old file.
	version, err := root.int32(0, 0)
	if err != nil {
		return nil, err
	}
	put32(rootT+4, uint32(version))
	for s := 1; s < modelSlots; s++ {
		at := rootT + 4 + 4*s
		switch s {
		case 4:
			ref(at, bufVec)
		case 6:
			ref(at, metaVec)
		default:
			q, err := root.indirect(s)
			if err != nil {
				return nil, err
			}
			if q == 0 {
				// Absent field: point the vtable entry at nothing.
				binary.LittleEndian.PutUint16(p[rootVT+4+2*s:], 0)
				continue
			}
			ref(at, shift+q)
		}
	}
	if root.vtLen > 4+2*modelSlots {
		return nil, fmt.Errorf("model root table has fields newer than this tool (%d bytes of vtable)", root.vtLen)
	}
	return append(p, old...), nil
}
