package lower

import (
	"encoding/binary"
	"fmt"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// PAD and PADV2 as TFLM's pad.cc / pad_common.cc: constant int32 paddings,
// up to 5-D, float32, int8, int16 and int32. The pad value is PADV2's
// constant third input, else 0, except int8 PAD, which pads with the output
// zero point (TFLM pads int16 with 0 whatever the zero point).

func init() {
	register(model.OpPad, lowerPad, ownBuffer)
	register(model.OpPadv2, lowerPad, ownBuffer)
}

// padPlan holds the fields of kernels.padParams.
type padPlan struct {
	esz                      int
	value                    int64
	n, lo, hi, block         [4]int
	rowLeft, rowIn, rowRight int
}

// padDim is one dimension of a pad: input size and padding before/after.
type padDim struct{ n, l, r int }

// newPadPlan lays out a pad of an input of the given shape by the given
// (before, after) paddings per dimension, for elements of esz bytes.
// Dimensions of size one without padding are dropped and a dimension
// without padding is merged into the one outside it, so the kernel's rows
// are as long as possible.
func newPadPlan(esz int, shape []int, pads [][2]int) (padPlan, error) {
	var dims []padDim
	for i, n := range shape {
		x := padDim{n, pads[i][0], pads[i][1]}
		if x.l < 0 || x.r < 0 {
			return padPlan{}, fmt.Errorf("dimension %d: negative padding %v", i, pads[i])
		}
		if x.n == 1 && x.l == 0 && x.r == 0 {
			continue
		}
		if k := len(dims) - 1; k >= 0 && x.l == 0 && x.r == 0 && x.n > 0 {
			dims[k] = padDim{dims[k].n * x.n, dims[k].l * x.n, dims[k].r * x.n}
			continue
		}
		dims = append(dims, x)
	}
	if len(dims) > 5 {
		return padPlan{}, fmt.Errorf("pad needs %d dimensions, the kernel has 5", len(dims))
	}
	for len(dims) < 5 {
		dims = append([]padDim{{1, 0, 0}}, dims...)
	}
	p := padPlan{esz: esz}
	block := esz * (dims[4].n + dims[4].l + dims[4].r)
	for j := 3; j >= 0; j-- {
		d := dims[j]
		p.n[j] = d.n + d.l + d.r
		p.lo[j] = d.l
		p.hi[j] = d.l + d.n
		p.block[j] = block
		block *= p.n[j]
	}
	p.rowLeft, p.rowIn, p.rowRight = dims[4].l*esz, dims[4].n*esz, dims[4].r*esz
	return p, nil
}

// arg renders the plan as the kernel's parameter struct.
func (p padPlan) arg() Arg {
	f := []Field{F("esz", Int(p.esz)), F("value", I64(p.value))}
	for j := range 4 {
		f = append(f, F(fmt.Sprintf("n%d", j), Int(p.n[j])))
	}
	for j := range 4 {
		f = append(f, F(fmt.Sprintf("lo%d", j), Int(p.lo[j])))
	}
	for j := range 4 {
		f = append(f, F(fmt.Sprintf("hi%d", j), Int(p.hi[j])))
	}
	for j := range 4 {
		f = append(f, F(fmt.Sprintf("block%d", j), Int(p.block[j])))
	}
	f = append(f, F("rowLeft", Int(p.rowLeft)), F("rowIn", Int(p.rowIn)), F("rowRight", Int(p.rowRight)))
	return Struct(kernelsig.PadParams, f...)
}

// padQuant returns a tensor's per-tensor scale and zero point as TFLM's
// params field sees them (zero when unquantized).
func padQuant(t *model.Tensor) (float32, int64) {
	if t.Quant == nil || len(t.Quant.Scale) == 0 {
		return 0, 0
	}
	return t.Quant.Scale[0], t.Quant.ZeroPoint[0]
}

// lowerPad lowers PAD (2 inputs) and PADV2 (3 inputs).
func lowerPad(c *opCtx) error {
	if (c.NumIn() != 2 && c.NumIn() != 3) || c.NumOut() != 1 {
		return c.Errorf("has %d inputs and %d outputs, want 2 or 3 and 1", c.NumIn(), c.NumOut())
	}
	in, out := c.In(0), c.Out(0)
	if in == nil {
		return c.Errorf("input 0 is missing")
	}
	if in.Type != out.Type {
		return c.Errorf("input type %s differs from output type %s", in.Type, out.Type)
	}
	switch in.Type {
	case model.Float32, model.Int8, model.Int16, model.Int32:
	default:
		return c.Errorf("type %s is not supported", in.Type)
	}
	if len(in.Shape) > 5 {
		return c.Errorf("input has %d dimensions, at most 5 are supported", len(in.Shape))
	}
	if len(in.Shape) != len(out.Shape) {
		return c.Errorf("input shape %v and output shape %v differ in rank", in.Shape, out.Shape)
	}
	pv, err := moveConstInts(c.In(1), false)
	if err != nil {
		return c.Errorf("paddings: %v", err)
	}
	if len(pv) != 2*len(out.Shape) {
		return c.Errorf("paddings hold %d values for %d dimensions", len(pv), len(out.Shape))
	}
	pads := make([][2]int, len(in.Shape))
	for i := range pads {
		l, r := pv[2*i], pv[2*i+1]
		if l < 0 || r < 0 || int64(in.Shape[i])+l+r != int64(out.Shape[i]) {
			return c.Errorf("dimension %d: input %d padded by (%d, %d) does not give output %d", i, in.Shape[i], l, r, out.Shape[i])
		}
		pads[i] = [2]int{int(l), int(r)}
	}

	// The pad value's bytes, little-endian.
	var value []byte
	outScale, outZP := padQuant(out)
	if cv := c.In(2); cv != nil {
		if cv.Type != in.Type {
			return c.Errorf("constant_values type %s differs from input type %s", cv.Type, in.Type)
		}
		if cv.NumElements() != 1 {
			return c.Errorf("constant_values has %d elements, want 1", cv.NumElements())
		}
		if !cv.IsConst() {
			return c.Errorf("non-constant constant_values is not supported")
		}
		if in.Type == model.Int8 {
			if s, zp := padQuant(cv); s != outScale || zp != outZP {
				return c.Errorf("constant_values quantization (%g, %d) differs from the output's (%g, %d)", s, zp, outScale, outZP)
			}
		}
		value = cv.Data
	} else {
		value = make([]byte, in.Type.Size())
		if in.Type == model.Int8 {
			if outZP < -128 || outZP > 127 {
				return c.Errorf("output zero point %d is outside int8", outZP)
			}
			value[0] = byte(int8(outZP))
		}
	}

	p, err := newPadPlan(in.Type.Size(), in.Shape, pads)
	if err != nil {
		return c.Errorf("%v", err)
	}
	var vb [8]byte
	copy(vb[:], value)
	p.value = int64(binary.LittleEndian.Uint64(vb[:]))
	if out.NumElements() == 0 {
		return nil
	}
	if fn, ok := padRowsKernel(in, pads); ok {
		// Height and width of a batch-1 image: row by row, so that fused
		// row streaming can run it on bands of rows.
		row := in.Shape[3]
		c.BandCall(padBand, fn, Struct(kernelsig.PadRowsParams,
			F("inH", Int(in.Shape[1])), F("outH", Int(out.Shape[1])), F("padH", Int(pads[1][0])),
			F("rowLeft", Int(pads[2][0]*row)), F("rowIn", Int(in.Shape[2]*row)), F("rowRight", Int(pads[2][1]*row)),
			F("value", I32(padValue32(in.Type, p.value)))), View(out), View(in))
		return nil
	}
	if in.IsConst() {
		c.Call(kernelsig.PadBytesConst, p.arg(), Bytes(out), Str(in))
	} else {
		c.Call(kernelsig.PadBytes, p.arg(), Bytes(out), Bytes(in))
	}
	return nil
}

// padRowsKernel returns the row kernel for a pad of a batch-1 NHWC int8 or
// int16 image over height and width only (ok false otherwise).
func padRowsKernel(in *model.Tensor, pads [][2]int) (kernelsig.Func, bool) {
	if in.IsConst() || len(in.Shape) != 4 || in.Shape[0] != 1 || pads[0] != [2]int{} || pads[3] != [2]int{} {
		return "", false
	}
	for _, d := range in.Shape {
		if d <= 0 {
			return "", false
		}
	}
	switch in.Type {
	case model.Int8:
		return kernelsig.PadRowsInt8, true
	case model.Int16:
		return kernelsig.PadRowsInt16, true
	}
	return "", false
}

// padValue32 is the pad element of an int8 or int16 pad, sign-extended
// from the low bytes of v.
func padValue32(t model.DType, v int64) int32 {
	if t == model.Int8 {
		return int32(int8(v))
	}
	return int32(int16(v))
}
