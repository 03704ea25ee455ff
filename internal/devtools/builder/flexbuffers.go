package builder

import (
	"encoding/binary"
	"math"
	"sort"
)

// FlexValue is one value of a flexbuffer map (custom_options of custom
// operators): an int, a float or a bool.
type FlexValue struct {
	Kind  byte // 'i' int, 'f' float, 'b' bool
	Int   int64
	Float float64
}

// FlexInt, FlexFloat and FlexBool make flexbuffer map values.
func FlexInt(v int64) FlexValue     { return FlexValue{Kind: 'i', Int: v} }
func FlexFloat(v float64) FlexValue { return FlexValue{Kind: 'f', Float: v} }
func FlexBool(v bool) FlexValue {
	if v {
		return FlexValue{Kind: 'b', Int: 1}
	}
	return FlexValue{Kind: 'b'}
}

// Flexbuffer types and bit widths used here (flexbuffers.h).
const (
	flexInt     = 1
	flexFloat   = 3
	flexMap     = 9
	flexVecKey  = 14
	flexBool    = 26
	flexWidth8  = 0
	flexWidth16 = 1
	flexWidth32 = 2
	flexWidth64 = 3
)

// FlexMap serializes a flexbuffer whose root is a map of the given entries,
// keys sorted as flexbuffers sorts them, every element (offsets and values)
// width bytes wide (1, 2, 4 or 8; floats need 4 or 8). It writes what
// flexbuffers::Builder writes for a map with ForceMinimumBitWidth(width),
// which is the layout TFLite converters produce.
func FlexMap(entries map[string]FlexValue, width int) []byte {
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b []byte
	keyPos := make([]int, len(keys))
	for i, k := range keys {
		keyPos[i] = len(b)
		b = append(append(b, k...), 0)
	}
	pad := func() {
		for len(b)%width != 0 {
			b = append(b, 0)
		}
	}
	put := func(v uint64) {
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], v)
		b = append(b, w[:width]...)
	}
	bits := map[int]byte{1: flexWidth8, 2: flexWidth16, 4: flexWidth32, 8: flexWidth64}[width]
	// The keys vector: size, then offsets back to each key.
	pad()
	put(uint64(len(keys)))
	keysVec := len(b)
	for i := range keys {
		put(uint64(len(b) - keyPos[i]))
	}
	// The map: offset back to the keys vector, its width, size, values,
	// then one packed type byte per value.
	put(uint64(len(b) - keysVec))
	put(uint64(width))
	put(uint64(len(keys)))
	values := len(b)
	var types []byte
	for _, k := range keys {
		v := entries[k]
		switch v.Kind {
		case 'f':
			if width == 4 {
				put(uint64(math.Float32bits(float32(v.Float))))
			} else {
				put(math.Float64bits(v.Float))
			}
			types = append(types, flexFloat<<2|bits)
		case 'b':
			put(uint64(v.Int))
			types = append(types, flexBool<<2|flexWidth8)
		default:
			put(uint64(v.Int))
			types = append(types, flexInt<<2|bits)
		}
	}
	b = append(b, types...)
	// Root: the offset back to the map, its packed type and the root width.
	pad()
	put(uint64(len(b) - values))
	return append(b, flexMap<<2|bits, byte(width))
}
