package difftest

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/oracle"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// Vals is the value list of one graph input (or a constant tensor).
type Vals struct {
	DT   model.DType
	Ints []int64
	Flts []float32
	// Bounds, for index inputs: value i indexes a dimension of size
	// Bounds[i % len(Bounds)].
	Bounds []int
}

// Raw is the values as the tensor's little-endian bytes.
func (v Vals) Raw() []byte {
	var b []byte
	switch v.DT {
	case model.Float32:
		for _, x := range v.Flts {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
	case model.Int16:
		for _, x := range v.Ints {
			b = binary.LittleEndian.AppendUint16(b, uint16(x))
		}
	case model.Int32:
		for _, x := range v.Ints {
			b = binary.LittleEndian.AppendUint32(b, uint32(x))
		}
	case model.Int64:
		for _, x := range v.Ints {
			b = binary.LittleEndian.AppendUint64(b, uint64(x))
		}
	default:
		for _, x := range v.Ints {
			b = append(b, byte(x))
		}
	}
	return b
}

// CSV is the values as the oracle takes them.
func (v Vals) CSV() []string {
	if v.DT == model.Float32 {
		return oracle.Floats(v.Flts)
	}
	return oracle.Ints(v.Ints)
}

// ConstTensor adds v as a constant tensor of the given shape.
func (v Vals) ConstTensor(m *builder.Model, name string, shape []int, q *builder.Quant) int {
	return m.Const(name, v.DT, shape, q, v.Raw())
}

// RandVals draws n values of type dt: integers over the whole type range,
// float32 mostly normal with some zeros of both signs, infinities and
// extremes.
func RandVals(r *rand.Rand, dt model.DType, n int) Vals {
	v := Vals{DT: dt}
	for i := 0; i < n; i++ {
		if dt == model.Float32 {
			specials := []float32{0, float32(math.Copysign(0, -1)), 1, -1, float32(math.Inf(1)), float32(math.Inf(-1)), 3.4e38, 1.2e-38}
			if r.IntN(16) == 0 {
				v.Flts = append(v.Flts, specials[r.IntN(len(specials))])
				continue
			}
			v.Flts = append(v.Flts, float32(r.NormFloat64()*math.Exp2(float64(r.IntN(12)-6))))
			continue
		}
		lo, hi := dt.IntRange()
		v.Ints = append(v.Ints, int64(lo)+r.Int64N(int64(hi)-int64(lo)+1))
	}
	return v
}

// RandScale is a random quantization scale, 2^-10 to 2^4.
func RandScale(r *rand.Rand) float32 {
	return float32(math.Exp2(-10 + 14*r.Float64()))
}

// RandQuant is a per-tensor quantization for int8/int16 with zero points
// often at the type limits (int16: 0), nil for other types.
func RandQuant(r *rand.Rand, dt model.DType) *builder.Quant {
	if dt != model.Int8 && dt != model.Int16 {
		return nil
	}
	lo, hi := dt.IntRange()
	zp := int64(0)
	if dt == model.Int8 {
		switch r.IntN(4) {
		case 0:
			zp = int64(lo)
		case 1:
			zp = int64(hi)
		default:
			zp = int64(lo) + r.Int64N(int64(hi)-int64(lo)+1)
		}
	}
	return builder.PerTensor(RandScale(r), zp)
}

// RandInt8s draws n int8 values over the whole range.
func RandInt8s(r *rand.Rand, n int) []int8 {
	v := make([]int8, n)
	for i := range v {
		v[i] = int8(r.IntN(256) - 128)
	}
	return v
}

// CompareRaw checks output bytes of type dt against the oracle's values:
// integers exactly, float32 by bits (any NaN matching any NaN).
func CompareRaw(dt model.DType, got []byte, want []string) error {

	if dt == model.Float32 {
		w, err := oracle.ParseFloats(want)
		if err != nil {
			return err
		}
		if len(w)*4 != len(got) {
			return fmt.Errorf("%d output values, TFLM has %d", len(got)/4, len(w))
		}
		for i, x := range w {
			g := math.Float32frombits(binary.LittleEndian.Uint32(got[4*i:]))
			nx, ng := math.IsNaN(float64(x)), math.IsNaN(float64(g))
			if nx != ng || !nx && math.Float32bits(g) != math.Float32bits(x) {
				return fmt.Errorf("element %d: got %v (%#x), TFLM %v (%#x)", i, g, math.Float32bits(g), x, math.Float32bits(x))
			}
		}
		return nil
	}
	w, err := oracle.ParseInts(want)
	if err != nil {
		return err
	}
	size := dt.Size()
	if len(w)*size != len(got) {
		return fmt.Errorf("%d output values, TFLM has %d", len(got)/size, len(w))
	}
	for i, x := range w {
		var g int64
		switch dt {
		case model.Int8:
			g = int64(int8(got[i]))
		case model.Int16:
			g = int64(int16(binary.LittleEndian.Uint16(got[2*i:])))
		case model.Int32:
			g = int64(int32(binary.LittleEndian.Uint32(got[4*i:])))
		case model.Int64:
			g = int64(binary.LittleEndian.Uint64(got[8*i:]))
		default:
			g = int64(got[i])
		}
		if g != x {
			return fmt.Errorf("element %d: got %d, TFLM %d", i, g, x)
		}
	}
	return nil
}

// Elems is the number of elements of a tensor of the given shape.
func Elems(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}
