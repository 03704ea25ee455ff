package model

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Flexbuffer types of a root that TFLite Micro reads as a vector
// (flexbuffers.h FBT_MAP and FBT_VECTOR).
const (
	flexTypeMap    = 9
	flexTypeVector = 10
)

// FlexVector is the root of a flexbuffer (a custom operator's
// custom_options) read the way TFLite Micro's FlexbufferWrapper reads it: a
// map or vector whose elements are addressed by index, each element's raw
// bytes read at the vector's element width whatever type the element has.
// For a map, index i is the value of the i-th key in sorted order.
type FlexVector struct {
	b     []byte
	data  int // offset of element 0
	width int // element width in bytes: 1, 2, 4 or 8
	n     int
}

// ParseFlexVector reads the root of flexbuffer b as a map or vector. Every
// offset is checked against b, so a malformed buffer is an error, never a
// read outside b.
func ParseFlexVector(b []byte) (FlexVector, error) {
	if len(b) < 3 {
		return FlexVector{}, fmt.Errorf("flexbuffer of %d bytes is too short", len(b))
	}
	rootWidth := int(b[len(b)-1])
	packed := b[len(b)-2]
	if !flexWidthOK(rootWidth) {
		return FlexVector{}, fmt.Errorf("flexbuffer root width %d is not 1, 2, 4 or 8", rootWidth)
	}
	root := len(b) - 2 - rootWidth
	if root < 0 {
		return FlexVector{}, fmt.Errorf("flexbuffer root is outside the %d-byte buffer", len(b))
	}
	if typ := packed >> 2; typ != flexTypeMap && typ != flexTypeVector {
		return FlexVector{}, fmt.Errorf("flexbuffer root has type %d, want a map (%d) or vector (%d)", typ, flexTypeMap, flexTypeVector)
	}
	width := 1 << (packed & 3)
	off := flexUint(b[root:], rootWidth)
	if off > uint64(root) {
		return FlexVector{}, fmt.Errorf("flexbuffer root offset %d points before the buffer", off)
	}
	data := root - int(off)
	if data < width {
		return FlexVector{}, fmt.Errorf("flexbuffer vector size is outside the buffer")
	}
	n := flexUint(b[data-width:], width)
	if n > uint64(len(b)-data)/uint64(width) {
		return FlexVector{}, fmt.Errorf("flexbuffer vector of %d elements of %d bytes is longer than the buffer", n, width)
	}
	return FlexVector{b: b, data: data, width: width, n: int(n)}, nil
}

func flexWidthOK(w int) bool { return w == 1 || w == 2 || w == 4 || w == 8 }

// flexUint reads an unsigned little-endian integer of w bytes.
func flexUint(b []byte, w int) uint64 {
	switch w {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}

// Len is the number of elements.
func (v FlexVector) Len() int { return v.n }

// elem returns element i's bytes, an error when i is out of range (TFLite
// Micro would read past the vector).
func (v FlexVector) elem(i int) ([]byte, error) {
	if i < 0 || i >= v.n {
		return nil, fmt.Errorf("flexbuffer element %d of a vector of %d", i, v.n)
	}
	return v.b[v.data+i*v.width:], nil
}

// Int64 reads element i as a signed integer (ElementAsInt64).
func (v FlexVector) Int64(i int) (int64, error) {
	e, err := v.elem(i)
	if err != nil {
		return 0, err
	}
	u := flexUint(e, v.width)
	shift := 64 - 8*v.width
	return int64(u<<shift) >> shift, nil
}

// Int32 is Int64 truncated to 32 bits, as ElementAsInt32 does.
func (v FlexVector) Int32(i int) (int32, error) {
	x, err := v.Int64(i)
	return int32(x), err
}

// Bool reads element i as ElementAsBool does: its unsigned value is not 0.
func (v FlexVector) Bool(i int) (bool, error) {
	e, err := v.elem(i)
	if err != nil {
		return false, err
	}
	return flexUint(e, v.width) != 0, nil
}

// Float64 reads element i as ElementAsDouble does: a float32 or float64 at
// widths 4 and 8, and at widths 1 and 2 (which flexbuffers has no floats
// of) the signed integer value.
func (v FlexVector) Float64(i int) (float64, error) {
	e, err := v.elem(i)
	if err != nil {
		return 0, err
	}
	switch v.width {
	case 4:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(e))), nil
	case 8:
		return math.Float64frombits(binary.LittleEndian.Uint64(e)), nil
	}
	x, _ := v.Int64(i)
	return float64(x), nil
}

// Float32 is Float64 converted to float32, as ElementAsFloat does.
func (v FlexVector) Float32(i int) (float32, error) {
	x, err := v.Float64(i)
	return float32(x), err
}

// Inline flexbuffer value types (flexbuffers.h FBT_NULL ... FBT_BOOL).
const (
	flexTypeNull  = 0
	flexTypeInt   = 1
	flexTypeUint  = 2
	flexTypeFloat = 3
	flexTypeBool  = 26
)

// FlexRef is one map value with its type, read as flexbuffers::Reference
// reads inline values; Null when the key is absent.
type FlexRef struct {
	typ  byte
	v    FlexVector
	i    int
	Null bool
}

// Lookup finds key in a map root as flexbuffers::Map::operator[] does; a
// missing key gives a Null reference. Values of types other than null,
// int, uint, float and bool (strings, vectors, indirect numbers) are an
// error.
func (v FlexVector) Lookup(key string) (FlexRef, error) {
	w := v.width
	if v.data < 3*w {
		return FlexRef{}, fmt.Errorf("flexbuffer map has no keys vector")
	}
	kpos := v.data - 3*w
	koff := flexUint(v.b[kpos:], w)
	kw := int(flexUint(v.b[kpos+w:], w))
	if koff > uint64(kpos) || !flexWidthOK(kw) {
		return FlexRef{}, fmt.Errorf("flexbuffer map keys vector is malformed")
	}
	keys := kpos - int(koff)
	if keys+v.n*kw > len(v.b) || keys < 0 {
		return FlexRef{}, fmt.Errorf("flexbuffer map keys vector is outside the buffer")
	}
	if v.data+v.n*w+v.n > len(v.b) {
		return FlexRef{}, fmt.Errorf("flexbuffer map types are outside the buffer")
	}
	for i := 0; i < v.n; i++ {
		p := keys + i*kw
		off := flexUint(v.b[p:], kw)
		if off > uint64(p) {
			return FlexRef{}, fmt.Errorf("flexbuffer map key %d points before the buffer", i)
		}
		s := p - int(off)
		e := s
		for e < len(v.b) && v.b[e] != 0 {
			e++
		}
		if e == len(v.b) {
			return FlexRef{}, fmt.Errorf("flexbuffer map key %d is not terminated", i)
		}
		if string(v.b[s:e]) != key {
			continue
		}
		typ := v.b[v.data+v.n*w+i] >> 2
		switch typ {
		case flexTypeNull, flexTypeInt, flexTypeUint, flexTypeFloat, flexTypeBool:
		default:
			return FlexRef{}, fmt.Errorf("flexbuffer map value %q has type %d, not a number or bool", key, typ)
		}
		return FlexRef{typ: typ, v: v, i: i, Null: typ == flexTypeNull}, nil
	}
	return FlexRef{Null: true}, nil
}

// Int64 is Reference::AsInt64 for inline values: floats truncated, null 0.
func (r FlexRef) Int64() int64 {
	switch r.typ {
	case flexTypeInt, flexTypeBool:
		x, _ := r.v.Int64(r.i)
		return x
	case flexTypeUint:
		e, _ := r.v.elem(r.i)
		return int64(flexUint(e, r.v.width))
	case flexTypeFloat:
		f, _ := r.v.Float64(r.i)
		return flexTruncInt64(f)
	}
	return 0
}

// flexTruncInt64 truncates f towards zero as static_cast<int64_t> does on
// x86-64 (out of range and NaN: the minimum int64).
func flexTruncInt64(f float64) int64 {
	if !(f > -9.223372036854776e18 && f < 9.223372036854776e18) {
		return math.MinInt64
	}
	return int64(f)
}

// Int32 is Reference::AsInt32: Int64 truncated to 32 bits.
func (r FlexRef) Int32() int32 { return int32(r.Int64()) }

// Float32 is Reference::AsFloat for inline values: ints converted, null 0.
func (r FlexRef) Float32() float32 {
	switch r.typ {
	case flexTypeFloat:
		f, _ := r.v.Float64(r.i)
		return float32(f)
	case flexTypeInt, flexTypeBool:
		x, _ := r.v.Int64(r.i)
		return float32(float64(x))
	case flexTypeUint:
		e, _ := r.v.elem(r.i)
		return float32(float64(flexUint(e, r.v.width)))
	}
	return 0
}

// Bool is Reference::AsBool: a non-zero value.
func (r FlexRef) Bool() bool {
	switch r.typ {
	case flexTypeFloat:
		f, _ := r.v.Float64(r.i)
		return uint64(f) != 0
	case flexTypeNull:
		return false
	}
	e, _ := r.v.elem(r.i)
	return flexUint(e, r.v.width) != 0
}
