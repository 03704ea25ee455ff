package lower

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// Reference implementations of operators as TFLite Micro computes them,
// for the random models of the fuzz targets (FuzzDifferentialTFLM). The
// oracle's replay has recordings of the seed corpus only, so a new fuzzing
// input is checked against these instead of TFLM.
//
// Each one follows TFLM's reference kernel step for step (TFLM 90b983c2b3f1,
// the build behind shared/tflm: tensorflow/lite/micro/kernels/*.cc and
// tensorflow/lite/kernels/internal/reference/*.h, gemmlowp's fixed-point
// helpers, double rounding as TFLITE_SINGLE_ROUNDING is not set), with the
// same integer widths and the same order of float operations, and none of
// them calls this package's kernels. They cover the operators and types of
// the fuzz generators and a few more; anything else is errNoRef. The
// differential harness (runDiffCasesWith) also checks them against TFLM on
// every case it compares, so that they stay exact.

// errNoRef is wrapped when the reference implementations do not cover a
// model: an operator, a type or a case they do not implement (including
// cases where TFLM's result is undefined or TFLM would fail).
var errNoRef = errors.New("no reference implementation")

// refFn computes the outputs of one operator.
type refFn func(r refOp) error

// refOps are the reference implementations by operator (set in init:
// the table refers to functions that refer to it through refRun).
var refOps map[model.OpCode]refFn

func init() {
	refOps = map[model.OpCode]refFn{
		model.OpGather:                refGather,
		model.OpGatherNd:              refGatherNd,
		model.OpEmbeddingLookup:       refEmbeddingLookup,
		model.OpEqual:                 refComparison(func(a, b int64) bool { return a == b }, func(a, b float32) bool { return a == b }),
		model.OpNotEqual:              refComparison(func(a, b int64) bool { return a != b }, func(a, b float32) bool { return a != b }),
		model.OpLess:                  refComparison(func(a, b int64) bool { return a < b }, func(a, b float32) bool { return a < b }),
		model.OpLessEqual:             refComparison(func(a, b int64) bool { return a <= b }, func(a, b float32) bool { return a <= b }),
		model.OpGreater:               refComparison(func(a, b int64) bool { return a > b }, func(a, b float32) bool { return a > b }),
		model.OpGreaterEqual:          refComparison(func(a, b int64) bool { return a >= b }, func(a, b float32) bool { return a >= b }),
		model.OpSelectV2:              refSelectV2,
		model.OpCast:                  refCast,
		model.OpBroadcastTo:           refBroadcastTo,
		model.OpFloorDiv:              refFloorDiv,
		model.OpSquaredDifference:     refSquaredDifference,
		model.OpAddN:                  refAddN,
		model.OpSum:                   refSum,
		model.OpReduceMax:             refReduceMinMax(func(cur, in float32) bool { return in > cur }, func(cur, in int64) bool { return in > cur }),
		model.OpReduceMin:             refReduceMinMax(func(cur, in float32) bool { return in < cur }, func(cur, in int64) bool { return in < cur }),
		model.OpBatchMatmul:           refBatchMatmul,
		model.OpL2Normalization:       refL2Normalization,
		model.OpCumsum:                refCumsum,
		model.OpSplitV:                refSplitV,
		model.OpSpaceToBatchNd:        refSpaceToBatchNd,
		model.OpMirrorPad:             refMirrorPad,
		model.OpReverseV2:             refReverseV2,
		model.OpDynamicUpdateSlice:    refDynamicUpdateSlice,
		model.OpResizeBilinear:        refResizeBilinear,
		model.OpResizeNearestNeighbor: refResizeNearest,
	}
}

// refRun runs a model with the reference implementations on the given
// graph inputs (raw little-endian bytes) and returns the values of every
// graph output.
func refRun(data []byte, inputs ...[]byte) ([]difftest.Vals, error) {
	g, err := model.Parse("case.tflite", data)
	if err != nil {
		return nil, err
	}
	if len(g.Subgraphs) > 0 || len(inputs) != len(g.Inputs) {
		return nil, fmt.Errorf("%w: %d subgraphs, %d inputs for %d", errNoRef, len(g.Subgraphs)+1, len(inputs), len(g.Inputs))
	}
	vals := make([]*difftest.Vals, len(g.Tensors))
	for k, ti := range g.Inputs {
		v, err := refDecode(g.Tensors[ti], inputs[k])
		if err != nil {
			return nil, fmt.Errorf("input %d: %w", k, err)
		}
		vals[ti] = &v
	}
	for i, t := range g.Tensors {
		if t.IsConst() {
			v, err := refDecode(t, t.Data)
			if err != nil {
				return nil, fmt.Errorf("constant tensor %d: %w", i, err)
			}
			vals[i] = &v
		}
	}
	for _, op := range g.Ops {
		f := refOps[op.Code]
		if f == nil {
			return nil, fmt.Errorf("%w for %s", errNoRef, op.Describe())
		}
		for k, ti := range op.Inputs {
			if ti >= 0 && vals[ti] == nil {
				return nil, fmt.Errorf("%s: input %d has no value", op.Describe(), k)
			}
		}
		if err := f(refOp{g: g, op: op, vals: vals}); err != nil {
			return nil, fmt.Errorf("%s: %w", op.Describe(), err)
		}
	}
	var outs []difftest.Vals
	for k, ti := range g.Outputs {
		if vals[ti] == nil {
			return nil, fmt.Errorf("output %d has no value", k)
		}
		outs = append(outs, *vals[ti])
	}
	return outs, nil
}

// refDecode reads a tensor's raw little-endian bytes: integers (bool as 0
// and 1) into ints, float32 into flts.
func refDecode(t *model.Tensor, b []byte) (difftest.Vals, error) {
	n, size := t.NumElements(), t.Type.Size()
	v := difftest.Vals{DT: t.Type}
	if size == 0 || len(b) != n*size {
		return v, fmt.Errorf("%w: %s with %d bytes", errNoRef, t.Describe(), len(b))
	}
	for i := 0; i < n; i++ {
		switch t.Type {
		case model.Float32:
			v.Flts = append(v.Flts, math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
		case model.Int8:
			v.Ints = append(v.Ints, int64(int8(b[i])))
		case model.Uint8, model.Bool:
			v.Ints = append(v.Ints, int64(b[i]))
		case model.Int16:
			v.Ints = append(v.Ints, int64(int16(binary.LittleEndian.Uint16(b[2*i:]))))
		case model.Int32:
			v.Ints = append(v.Ints, int64(int32(binary.LittleEndian.Uint32(b[4*i:]))))
		case model.Uint32:
			v.Ints = append(v.Ints, int64(binary.LittleEndian.Uint32(b[4*i:])))
		case model.Int64:
			v.Ints = append(v.Ints, int64(binary.LittleEndian.Uint64(b[8*i:])))
		default:
			return v, fmt.Errorf("%w: %s", errNoRef, t.Describe())
		}
	}
	return v, nil
}

// refOp is one operator being run: its graph and the values of the
// tensors computed so far.
type refOp struct {
	g    *model.Graph
	op   *model.Op
	vals []*difftest.Vals
}

// in returns input i's tensor and values (nil tensor when omitted).
func (r refOp) in(i int) (*model.Tensor, difftest.Vals) {
	t := r.g.Input(r.op, i)
	if t == nil {
		return nil, difftest.Vals{}
	}
	return t, *r.vals[t.Index]
}

// out returns output i's tensor.
func (r refOp) out(i int) *model.Tensor { return r.g.Output(r.op, i) }

// set stores output i's values, checking their count.
func (r refOp) set(i int, v difftest.Vals) error {
	t := r.out(i)
	v.DT = t.Type
	if n := max(len(v.Ints), len(v.Flts)); n != t.NumElements() {
		return fmt.Errorf("output %d: %d values for %s", i, n, t.Describe())
	}
	r.vals[t.Index] = &v
	return nil
}

// --- shapes and element moves ---

// refStrides are the row-major strides of shape.
func refStrides(shape []int) []int {
	s := make([]int, len(shape))
	n := 1
	for i := len(shape) - 1; i >= 0; i-- {
		s[i] = n
		n *= shape[i]
	}
	return s
}

// refCoords are the coordinates of flat index i in shape.
func refCoords(shape []int, i int) []int {
	c := make([]int, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		if shape[d] > 0 {
			c[d] = i % shape[d]
			i /= shape[d]
		}
	}
	return c
}

// refPick returns the elements of v at the given flat indices; -1 gives a
// zero element.
func refPick(v difftest.Vals, idx []int) difftest.Vals {
	out := difftest.Vals{DT: v.DT}
	for _, i := range idx {
		switch {
		case v.DT == model.Float32 && i < 0:
			out.Flts = append(out.Flts, 0)
		case v.DT == model.Float32:
			out.Flts = append(out.Flts, v.Flts[i])
		case i < 0:
			out.Ints = append(out.Ints, 0)
		default:
			out.Ints = append(out.Ints, v.Ints[i])
		}
	}
	return out
}

// refBroadcast maps every element of out (numpy broadcasting, shapes
// aligned at the last dimension; dimensions of in beyond out's rank must
// be 1) to the element of in it reads.
func refBroadcast(out, in []int) ([]int, error) {
	for len(in) > len(out) {
		if in[0] != 1 {
			return nil, fmt.Errorf("%w: shape %v does not broadcast to %v", errNoRef, in, out)
		}
		in = in[1:]
	}
	st := refStrides(in)
	lead := len(out) - len(in)
	idx := make([]int, shapeProd(out))
	for i := range idx {
		c := refCoords(out, i)
		k := 0
		for d, n := range in {
			switch {
			case n == out[lead+d]:
				k += c[lead+d] * st[d]
			case n != 1:
				return nil, fmt.Errorf("%w: shape %v does not broadcast to %v", errNoRef, in, out)
			}
		}
		idx[i] = k
	}
	return idx, nil
}

// refZP and refScale are a tensor's per-tensor zero point and scale (0
// and 0 without quantization).
func refZP(t *model.Tensor) int32 {
	if t.Quant == nil || len(t.Quant.ZeroPoint) == 0 {
		return 0
	}
	return int32(t.Quant.ZeroPoint[0])
}

func refScale(t *model.Tensor) float32 {
	if t.Quant == nil || len(t.Quant.Scale) == 0 {
		return 0
	}
	return t.Quant.Scale[0]
}

// refLimits is the value range of an integer type.
func refLimits(dt model.DType) (lo, hi int32, err error) {
	switch dt {
	case model.Int8:
		return math.MinInt8, math.MaxInt8, nil
	case model.Int16:
		return math.MinInt16, math.MaxInt16, nil
	}
	return 0, 0, fmt.Errorf("%w: type %s", errNoRef, dt)
}

// --- TFLM's fixed-point arithmetic (gemmlowp, kernels/internal/common.cc,
// quantization_util.cc) ---

// refSRDHM is gemmlowp's SaturatingRoundingDoublingHighMul.
func refSRDHM(a, b int32) int32 {
	if a == b && a == math.MinInt32 {
		return math.MaxInt32
	}
	ab := int64(a) * int64(b)
	nudge := int64(1 << 30)
	if ab < 0 {
		nudge = 1 - 1<<30
	}
	return int32((ab + nudge) / (1 << 31))
}

// refRDBPOT is gemmlowp's RoundingDivideByPOT.
func refRDBPOT(x int32, exponent int) int32 {
	mask := int32(uint32(1)<<uint(exponent) - 1)
	remainder := x & mask
	threshold := mask >> 1
	if x < 0 {
		threshold++
	}
	r := x >> uint(exponent)
	if remainder > threshold {
		r++
	}
	return r
}

// refMBQM is MultiplyByQuantizedMultiplier (int32, double rounding); the
// Exp variants are the same function. The left shift wraps as TFLM's does.
func refMBQM(x, m int32, shift int) int32 {
	left, right := 0, 0
	if shift > 0 {
		left = shift
	} else {
		right = -shift
	}
	return refRDBPOT(refSRDHM(x*int32(1<<uint(left)), m), right)
}

// refQuantizeMultiplier is QuantizeMultiplier: the multiplier as a Q31
// value and a power-of-two exponent.
func refQuantizeMultiplier(d float64) (m int32, shift int, err error) {
	if d == 0 {
		return 0, 0, nil
	}
	q, e := math.Frexp(d)
	qf := int64(math.Round(q * (1 << 31)))
	if qf > 1<<31 {
		return 0, 0, fmt.Errorf("%w: multiplier %g", errNoRef, d) // TFLITE_CHECK aborts
	}
	if qf == 1<<31 {
		qf /= 2
		e++
	}
	if e < -31 {
		e, qf = 0, 0
	}
	return int32(qf), e, nil
}

// refQuantizeMultiplierSmallerThanOne is QuantizeMultiplierSmallerThanOneExp,
// whose TFLITE_CHECKs abort TFLM outside (0, 1).
func refQuantizeMultiplierSmallerThanOne(d float64) (int32, int, error) {
	if !(d > 0 && d < 1) {
		return 0, 0, fmt.Errorf("%w: multiplier %g not in (0, 1)", errNoRef, d)
	}
	return refQuantizeMultiplier(d)
}

// refSatMulPOT is gemmlowp's SaturatingRoundingMultiplyByPOT for a
// positive exponent.
func refSatMulPOT(x int32, exponent int) int32 {
	threshold := int32(1)<<uint(31-exponent) - 1
	switch {
	case x > threshold:
		return math.MaxInt32
	case x < -threshold:
		return math.MinInt32
	}
	return x << uint(exponent)
}

// refInvSqrt is GetInvSqrtQuantizedMultiplierExp with reverse_shift -1:
// gemmlowp fixed point, F3 (3 integer bits) Newton-Raphson iterations.
func refInvSqrt(input int32) (int32, int) {
	if input <= 1 {
		return math.MaxInt32, 0
	}
	shift := 11
	for input >= 1<<29 {
		input /= 4
		shift++
	}
	maxLeftShiftBits := bits.LeadingZeros32(uint32(input)) - 1
	leftShiftBitPairs := maxLeftShiftBits/2 - 1
	shift -= leftShiftBitPairs
	input <<= uint(2 * leftShiftBitPairs)
	// F3 values are raw int32s with 28 fractional bits; a product of Fa and
	// Fb is F(a+b) with raw SRDHM, and Rescale<3> of F(a) multiplies the
	// raw value by 2^(a-3), saturating.
	fixedInput := input >> 1
	halfInput := refRDBPOT(fixedInput, 1)
	const halfThree = 1<<28 + 1<<27
	x := int32(1 << 28)
	for range 5 {
		x3 := refSatMulPOT(refSRDHM(refSRDHM(x, x), x), 6)
		x = refSatMulPOT(refSRDHM(halfThree, x)-refSRDHM(halfInput, x3), 3)
	}
	const halfSqrt2 = 1518500250
	x = refSRDHM(x, halfSqrt2)
	if shift < 0 {
		x <<= uint(-shift)
		shift = 0
	}
	return x, -shift
}

// --- operators ---

// refGather is GATHER (gather.cc: Gather).
func refGather(r refOp) error {
	pt, params := r.in(0)
	ct, coords := r.in(1)
	opt := r.op.Options().Gather()
	axis, bd := int(opt.Axis), int(opt.BatchDims)
	rank, crank := len(pt.Shape), len(ct.Shape)
	if axis < 0 {
		axis += rank
	}
	if bd < 0 {
		bd += crank
	}
	if axis < 0 || axis >= rank || bd < 0 || bd > axis || bd >= rank || bd > crank {
		return fmt.Errorf("%w: axis %d batch_dims %d", errNoRef, axis, bd)
	}
	prod := func(s []int) int { return shapeProd(s) }
	batch, outer, inner := prod(pt.Shape[:bd]), prod(pt.Shape[bd:axis]), prod(pt.Shape[axis+1:])
	coordSize, axisSize := prod(ct.Shape[bd:]), pt.Shape[axis]
	var idx []int
	for b := 0; b < batch; b++ {
		for o := 0; o < outer; o++ {
			for c := 0; c < coordSize; c++ {
				k := int(coords.Ints[b*coordSize+c])
				if k < 0 || k >= axisSize {
					return fmt.Errorf("%w: index %d out of range", errNoRef, k)
				}
				for i := 0; i < inner; i++ {
					idx = append(idx, ((b*outer+o)*axisSize+k)*inner+i)
				}
			}
		}
	}
	return r.set(0, refPick(params, idx))
}

// refGatherNd is GATHER_ND (gather_nd.cc: GatherNd).
func refGatherNd(r refOp) error {
	pt, params := r.in(0)
	it, indices := r.in(1)
	nd := it.Shape[len(it.Shape)-1]
	slices := shapeProd(it.Shape[:len(it.Shape)-1])
	slice := shapeProd(pt.Shape[nd:])
	flat := shapeProd(pt.Shape)
	count := make([]int, nd)
	remain := flat
	for i := 0; i < nd; i++ {
		count[i] = remain / pt.Shape[i]
		remain = count[i]
	}
	var idx []int
	for i := 0; i < slices; i++ {
		from := 0
		for j := 0; j < nd; j++ {
			from += int(indices.Ints[i*nd+j]) * count[j]
		}
		if from < 0 || from+slice > flat {
			return fmt.Errorf("%w: TFLM's Invoke fails on index %d", errNoRef, from)
		}
		for k := 0; k < slice; k++ {
			idx = append(idx, from+k)
		}
	}
	return r.set(0, refPick(params, idx))
}

// refEmbeddingLookup is EMBEDDING_LOOKUP (embedding_lookup.cc: EvalSimple,
// and EvalHybrid for an int8 table into float32: value * scale in float).
func refEmbeddingLookup(r refOp) error {
	_, ids := r.in(0)
	tt, table := r.in(1)
	rows := tt.Shape[0]
	cols := shapeProd(tt.Shape) / max(rows, 1)
	var idx []int
	for _, id := range ids.Ints {
		if id < 0 || int(id) >= rows {
			return fmt.Errorf("%w: TFLM's Invoke fails on id %d", errNoRef, id)
		}
		for c := 0; c < cols; c++ {
			idx = append(idx, int(id)*cols+c)
		}
	}
	v := refPick(table, idx)
	if tt.Type == model.Int8 && r.out(0).Type == model.Float32 {
		if refZP(tt) != 0 {
			return fmt.Errorf("%w: zero point %d", errNoRef, refZP(tt))
		}
		scale := refScale(tt)
		f := difftest.Vals{DT: model.Float32}
		for _, x := range v.Ints {
			f.Flts = append(f.Flts, float32(x)*scale)
		}
		v = f
	} else if tt.Type != r.out(0).Type {
		return fmt.Errorf("%w: %s table into %s", errNoRef, tt.Type, r.out(0).Type)
	}
	return r.set(0, v)
}

// refComparison is EQUAL ... GREATER_EQUAL (comparisons.cc): bool, int32,
// int64 and float32 as they are, int8 with TFLM's rescaling
// (ComparisonWithScaling: offsets, a left shift of 8 and each input's
// scale as a multiplier), broadcasting both inputs. (TFLM's int16
// comparisons use parameters its Prepare never sets: errNoRef.)
func refComparison(icmp func(a, b int64) bool, fcmp func(a, b float32) bool) refFn {
	return func(r refOp) error {
		t1, a := r.in(0)
		t2, b := r.in(1)
		shape := r.out(0).Shape
		i1, err := refBroadcast(shape, t1.Shape)
		if err != nil {
			return err
		}
		i2, err := refBroadcast(shape, t2.Shape)
		if err != nil {
			return err
		}
		scaled := func(t *model.Tensor) (func(x int64) int64, error) {
			if t.Type != model.Int8 {
				return func(x int64) int64 { return x }, nil
			}
			m, s, err := refQuantizeMultiplierSmallerThanOne(float64(refScale(t)))
			if err != nil {
				return nil, err
			}
			off := -refZP(t)
			return func(x int64) int64 { return int64(refMBQM((off+int32(x))*(1<<8), m, s)) }, nil
		}
		s1, err := scaled(t1)
		if err != nil {
			return err
		}
		s2, err := scaled(t2)
		if err != nil {
			return err
		}
		out := difftest.Vals{DT: model.Bool}
		for i := range i1 {
			var c bool
			switch t1.Type {
			case model.Float32:
				c = fcmp(a.Flts[i1[i]], b.Flts[i2[i]])
			case model.Int8, model.Int32, model.Int64, model.Bool:
				c = icmp(s1(a.Ints[i1[i]]), s2(b.Ints[i2[i]]))
			default:
				return fmt.Errorf("%w: type %s", errNoRef, t1.Type)
			}
			out.Ints = append(out.Ints, refBool(c))
		}
		return r.set(0, out)
	}
}

func refBool(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// refSelectV2 is SELECT_V2: cond ? x : y, broadcasting all three.
func refSelectV2(r refOp) error {
	tc, cond := r.in(0)
	tx, x := r.in(1)
	ty, y := r.in(2)
	shape := r.out(0).Shape
	ic, err := refBroadcast(shape, tc.Shape)
	if err != nil {
		return err
	}
	ix, err := refBroadcast(shape, tx.Shape)
	if err != nil {
		return err
	}
	iy, err := refBroadcast(shape, ty.Shape)
	if err != nil {
		return err
	}
	pick := make([]int, len(ic))
	xs, ys := refPick(x, ix), refPick(y, iy)
	both := difftest.Vals{DT: x.DT, Ints: append(xs.Ints, ys.Ints...), Flts: append(xs.Flts, ys.Flts...)}
	for i := range pick {
		pick[i] = i
		if cond.Ints[ic[i]] == 0 {
			pick[i] = len(ic) + i
		}
	}
	return r.set(0, refPick(both, pick))
}

// refCast is CAST (cast.cc: static_cast): integers wrap to the target,
// integers to float32 round to nearest, float32 to integers truncate
// toward zero (outside the target's range C++ leaves it undefined:
// errNoRef), bool is 0 or 1.
func refCast(r refOp) error {
	_, in := r.in(0)
	to := r.out(0).Type
	out := difftest.Vals{DT: to}
	wrap := func(x int64) (int64, error) {
		switch to {
		case model.Int8:
			return int64(int8(x)), nil
		case model.Int16:
			return int64(int16(x)), nil
		case model.Int32:
			return int64(int32(x)), nil
		case model.Uint32:
			return int64(uint32(x)), nil
		}
		return 0, fmt.Errorf("%w: cast to %s", errNoRef, to)
	}
	n := max(len(in.Ints), len(in.Flts))
	for i := 0; i < n; i++ {
		switch {
		case in.DT == model.Float32 && to == model.Float32:
			out.Flts = append(out.Flts, in.Flts[i])
		case in.DT == model.Float32:
			f := math.Trunc(float64(in.Flts[i]))
			w, err := wrap(int64(f))
			if math.IsNaN(f) || math.Abs(f) > 1<<62 || err == nil && float64(w) != f {
				return fmt.Errorf("%w: %g out of the range of %s", errNoRef, in.Flts[i], to)
			}
			if err != nil {
				return err
			}
			out.Ints = append(out.Ints, w)
		case to == model.Float32:
			out.Flts = append(out.Flts, float32(in.Ints[i]))
		default:
			w, err := wrap(in.Ints[i])
			if err != nil {
				return err
			}
			out.Ints = append(out.Ints, w)
		}
	}
	return r.set(0, out)
}

// refBroadcastTo is BROADCAST_TO.
func refBroadcastTo(r refOp) error {
	t, in := r.in(0)
	idx, err := refBroadcast(r.out(0).Shape, t.Shape)
	if err != nil {
		return err
	}
	return r.set(0, refPick(in, idx))
}

// refFloorDiv is float32 FLOOR_DIV (floor_div.h: std::floor of the
// quotient in double, then float).
func refFloorDiv(r refOp) error {
	t1, a := r.in(0)
	t2, b := r.in(1)
	if t1.Type != model.Float32 {
		return fmt.Errorf("%w: type %s", errNoRef, t1.Type)
	}
	shape := r.out(0).Shape
	i1, err := refBroadcast(shape, t1.Shape)
	if err != nil {
		return err
	}
	i2, err := refBroadcast(shape, t2.Shape)
	if err != nil {
		return err
	}
	out := difftest.Vals{DT: model.Float32}
	for i := range i1 {
		out.Flts = append(out.Flts, float32(math.Floor(float64(a.Flts[i1[i]])/float64(b.Flts[i2[i]]))))
	}
	return r.set(0, out)
}

// refSquaredDifference is SQUARED_DIFFERENCE (squared_difference.cc):
// float32 and int32 as (a-b)^2, int8 and int16 with PrepareQuantized's
// rescaling (left shift 7 for int8, 0 for int16).
func refSquaredDifference(r refOp) error {
	t1, a := r.in(0)
	t2, b := r.in(1)
	to := r.out(0)
	i1, err := refBroadcast(to.Shape, t1.Shape)
	if err != nil {
		return err
	}
	i2, err := refBroadcast(to.Shape, t2.Shape)
	if err != nil {
		return err
	}
	out := difftest.Vals{DT: to.Type}
	switch t1.Type {
	case model.Float32:
		for i := range i1 {
			d := a.Flts[i1[i]] - b.Flts[i2[i]]
			out.Flts = append(out.Flts, d*d)
		}
		return r.set(0, out)
	case model.Int32:
		for i := range i1 {
			d := int32(a.Ints[i1[i]]) - int32(b.Ints[i2[i]])
			out.Ints = append(out.Ints, int64(d*d))
		}
		return r.set(0, out)
	}
	lo, hi, err := refLimits(t1.Type)
	if err != nil {
		return err
	}
	left := 7
	if t1.Type == model.Int16 {
		left = 0
	}
	s1, s2, so := refScale(t1), refScale(t2), refScale(to)
	twiceMax := 2 * float64(max(s1, s2))
	m1, sh1, err := refQuantizeMultiplierSmallerThanOne(float64(s1) / twiceMax)
	if err != nil {
		return err
	}
	m2, sh2, err := refQuantizeMultiplierSmallerThanOne(float64(s2) / twiceMax)
	if err != nil {
		return err
	}
	mo, sho, err := refQuantizeMultiplier(twiceMax * twiceMax / float64(float32(int32(1)<<uint(left*2))*so))
	if err != nil {
		return err
	}
	off1, off2, offo := -refZP(t1), -refZP(t2), refZP(to)
	for i := range i1 {
		x := refMBQM((off1+int32(a.Ints[i1[i]]))*(1<<uint(left)), m1, sh1)
		y := refMBQM((off2+int32(b.Ints[i2[i]]))*(1<<uint(left)), m2, sh2)
		d := x - y
		v := refMBQM(d*d, mo, sho) + offo
		out.Ints = append(out.Ints, int64(min(hi, max(lo, v))))
	}
	return r.set(0, out)
}

// refAddN is ADD_N (add_n.h): float32 summed in input order from 0; int8
// with a left shift of 20 and TFLM's quirk of adding the rescaled negated
// zero point once more (its accumulator starts at input1_offset).
func refAddN(r refOp) error {
	t0, _ := r.in(0)
	to := r.out(0)
	n := to.NumElements()
	out := difftest.Vals{DT: to.Type}
	switch t0.Type {
	case model.Float32:
		for i := 0; i < n; i++ {
			var x float32
			for k := range r.op.Inputs {
				_, v := r.in(k)
				x += v.Flts[i]
			}
			out.Flts = append(out.Flts, x)
		}
		return r.set(0, out)
	case model.Int8:
	default:
		return fmt.Errorf("%w: type %s", errNoRef, t0.Type)
	}
	const left = 20
	twiceMax := 2 * float64(refScale(t0))
	mi, shi, err := refQuantizeMultiplierSmallerThanOne(float64(refScale(t0)) / twiceMax)
	if err != nil {
		return err
	}
	mo, sho, err := refQuantizeMultiplierSmallerThanOne(twiceMax / (1 << left * float64(refScale(to))))
	if err != nil {
		return err
	}
	off, offo := -refZP(t0), refZP(to)
	for i := 0; i < n; i++ {
		acc := refMBQM(off*(1<<left), mi, shi)
		for k := range r.op.Inputs {
			_, v := r.in(k)
			acc += refMBQM((off+int32(v.Ints[i]))*(1<<left), mi, shi)
		}
		o := refMBQM(acc, mo, sho) + offo
		out.Ints = append(out.Ints, int64(min(math.MaxInt8, max(math.MinInt8, o))))
	}
	return r.set(0, out)
}

// refReduce maps every input element to its output element (reduce.h:
// ReducedOutputOffset over the resolved axes; a scalar input ignores the
// axes) and counts the elements per output.
func refReduce(r refOp) (idx []int, count int, err error) {
	t, _ := r.in(0)
	_, axes := r.in(1)
	rank := len(t.Shape)
	reduced := make([]bool, rank)
	if rank > 0 {
		for _, a := range axes.Ints {
			if a < 0 {
				a += int64(rank)
			}
			if a < 0 || a >= int64(rank) {
				return nil, 0, fmt.Errorf("%w: axis %d", errNoRef, a)
			}
			reduced[a] = true
		}
	}
	var kept []int
	count = 1
	for d, n := range t.Shape {
		if reduced[d] {
			count *= n
		} else {
			kept = append(kept, n)
		}
	}
	st := refStrides(kept)
	idx = make([]int, t.NumElements())
	for i := range idx {
		c := refCoords(t.Shape, i)
		k, j := 0, 0
		for d := range t.Shape {
			if !reduced[d] {
				k += c[d] * st[j]
				j++
			}
		}
		idx[i] = k
	}
	return idx, count, nil
}

// refSum is SUM (reduce_common.cc): float32 summed in input order from 0;
// int8 and int16 by QuantizedMeanOrSum (an int32 sum, less the zero point
// times the count, rescaled by in/out scale).
func refSum(r refOp) error {
	t, in := r.in(0)
	to := r.out(0)
	idx, count, err := refReduce(r)
	if err != nil {
		return err
	}
	n := to.NumElements()
	out := difftest.Vals{DT: to.Type}
	if t.Type == model.Float32 {
		out.Flts = make([]float32, n)
		for i, k := range idx {
			out.Flts[k] = in.Flts[i] + out.Flts[k]
		}
		return r.set(0, out)
	}
	lo, hi, err := refLimits(t.Type)
	if err != nil {
		return err
	}
	m, s, err := refQuantizeMultiplier(float64(refScale(t)) / float64(refScale(to)))
	if err != nil {
		return err
	}
	sums := make([]int32, n)
	for i, k := range idx {
		sums[k] += int32(in.Ints[i])
	}
	for _, sum := range sums {
		v := refMBQM(int32(int64(sum)-int64(refZP(t))*int64(count)), m, s) + refZP(to)
		out.Ints = append(out.Ints, int64(min(hi, max(lo, v))))
	}
	return r.set(0, out)
}

// refReduceMinMax is REDUCE_MAX and REDUCE_MIN (reduce_common.cc:
// ReduceGeneric from the type's lowest or highest value, replacing the
// current value when better says so, in input order).
func refReduceMinMax(fbetter func(cur, in float32) bool, ibetter func(cur, in int64) bool) refFn {
	return func(r refOp) error {
		t, in := r.in(0)
		to := r.out(0)
		idx, _, err := refReduce(r)
		if err != nil {
			return err
		}
		n := to.NumElements()
		out := difftest.Vals{DT: to.Type}
		isMax := fbetter(0, 1)
		switch t.Type {
		case model.Float32:
			init := float32(-math.MaxFloat32)
			if !isMax {
				init = math.MaxFloat32
			}
			for range n {
				out.Flts = append(out.Flts, init)
			}
			for i, k := range idx {
				if fbetter(out.Flts[k], in.Flts[i]) {
					out.Flts[k] = in.Flts[i]
				}
			}
		case model.Int8:
			init := int64(math.MinInt8)
			if !isMax {
				init = math.MaxInt8
			}
			for range n {
				out.Ints = append(out.Ints, init)
			}
			for i, k := range idx {
				if ibetter(out.Ints[k], in.Ints[i]) {
					out.Ints[k] = in.Ints[i]
				}
			}
		default:
			return fmt.Errorf("%w: type %s", errNoRef, t.Type)
		}
		return r.set(0, out)
	}
}

// refBatchMatmul is BATCH_MATMUL (batch_matmul.h): float32 accumulated
// from 0 in depth order; int8 as an int32 sum of (lhs - zp) * (rhs - zp)
// rescaled by lhs*rhs/out scale (the scale product in float). Batch
// dimensions broadcast.
func refBatchMatmul(r refOp) error {
	tl, l := r.in(0)
	tr, rv := r.in(1)
	to := r.out(0)
	opt := r.op.Options().BatchMatMul()
	adjX, adjY := opt.AdjX, opt.AdjY
	ls, rs, os := tl.Shape, tr.Shape, to.Shape
	if len(ls) < 2 || len(rs) < 2 || len(os) < 2 {
		return fmt.Errorf("%w: rank", errNoRef)
	}
	rows, depth := ls[len(ls)-2], ls[len(ls)-1]
	if adjX {
		rows, depth = depth, rows
	}
	cols := rs[len(rs)-1]
	if adjY {
		cols = rs[len(rs)-2]
	}
	batch := os[:len(os)-2]
	lb, err := refBroadcast(batch, ls[:len(ls)-2])
	if err != nil {
		return err
	}
	rb, err := refBroadcast(batch, rs[:len(rs)-2])
	if err != nil {
		return err
	}
	lAt := func(b, i, k int) int {
		if adjX {
			return lb[b]*rows*depth + k*rows + i
		}
		return lb[b]*rows*depth + i*depth + k
	}
	rAt := func(b, k, j int) int {
		if adjY {
			return rb[b]*depth*cols + j*depth + k
		}
		return rb[b]*depth*cols + k*cols + j
	}
	out := difftest.Vals{DT: to.Type}
	switch {
	case tl.Type == model.Float32 && tr.Type == model.Float32:
		for b := range lb {
			for i := 0; i < rows; i++ {
				for j := 0; j < cols; j++ {
					var acc float32
					for k := 0; k < depth; k++ {
						acc += rv.Flts[rAt(b, k, j)] * l.Flts[lAt(b, i, k)]
					}
					out.Flts = append(out.Flts, acc)
				}
			}
		}
		return r.set(0, out)
	case tl.Type == model.Int8 && tr.Type == model.Int8 && to.Type == model.Int8:
	default:
		return fmt.Errorf("%w: types %s %s -> %s", errNoRef, tl.Type, tr.Type, to.Type)
	}
	m, s, err := refQuantizeMultiplier(float64(refScale(tl)*refScale(tr)) / float64(refScale(to)))
	if err != nil {
		return err
	}
	zl, zr, zo := refZP(tl), refZP(tr), refZP(to)
	for b := range lb {
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				var acc int32
				for k := 0; k < depth; k++ {
					acc += (int32(rv.Ints[rAt(b, k, j)]) - zr) * (int32(l.Ints[lAt(b, i, k)]) - zl)
				}
				v := refMBQM(acc, m, s) + zo
				out.Ints = append(out.Ints, int64(min(math.MaxInt8, max(math.MinInt8, v))))
			}
		}
	}
	return r.set(0, out)
}

// refL2Normalization is int8 L2_NORMALIZATION (integer_ops/
// l2normalization.h): per row of the last dimension, the sum of squares'
// inverse square root as a multiplier, the output in 1/128 units whatever
// the output's quantization.
func refL2Normalization(r refOp) error {
	t, in := r.in(0)
	if t.Type != model.Int8 || r.out(0).Type != model.Int8 || len(t.Shape) == 0 {
		return fmt.Errorf("%w: type %s", errNoRef, t.Type)
	}
	if act := r.op.Options().L2Norm().FusedActivationFunction; act != 0 {
		return fmt.Errorf("%w: activation %d", errNoRef, act) // TFLM's Prepare rejects it
	}
	depth := t.Shape[len(t.Shape)-1]
	zp := refZP(t)
	out := difftest.Vals{DT: model.Int8}
	for row := 0; row*depth < len(in.Ints); row++ {
		var acc int32
		for k := 0; k < depth; k++ {
			x := int32(in.Ints[row*depth+k]) - zp
			acc += x * x
		}
		m, s := refInvSqrt(acc)
		for k := 0; k < depth; k++ {
			x := int32(in.Ints[row*depth+k]) - zp
			v := refMBQM(x, m, s+7)
			out.Ints = append(out.Ints, int64(min(math.MaxInt8, max(math.MinInt8, v))))
		}
	}
	return r.set(0, out)
}

// refCumsum is CUMSUM (cumsum.h): float32 accumulated in order; int8 with
// a left shift of 20, the accumulator starting at the rescaled negated
// input zero point (TFLM's input1_offset).
func refCumsum(r refOp) error {
	t, in := r.in(0)
	_, ax := r.in(1)
	to := r.out(0)
	opt := r.op.Options().Cumsum()
	exclusive, reverse := opt.Exclusive, opt.Reverse
	rank := len(t.Shape)
	axis := int(ax.Ints[0])
	if axis < 0 {
		axis += rank
	}
	if axis < 0 || axis >= rank {
		return fmt.Errorf("%w: axis %d", errNoRef, ax.Ints[0])
	}
	outer, depth, inner := shapeProd(t.Shape[:axis]), t.Shape[axis], shapeProd(t.Shape[axis+1:])
	n := t.NumElements()
	out := difftest.Vals{DT: to.Type, Ints: make([]int64, n)}
	var scaleIn func(x int64) int32
	var scaleOut func(acc int32) int64
	switch t.Type {
	case model.Float32:
		out.Ints, out.Flts = nil, make([]float32, n)
	case model.Int8:
		const left = 20
		twiceMax := 2 * float64(refScale(t))
		mi, shi, err := refQuantizeMultiplierSmallerThanOne(float64(refScale(t)) / twiceMax)
		if err != nil {
			return err
		}
		mo, sho, err := refQuantizeMultiplierSmallerThanOne(twiceMax / (1 << left * float64(refScale(to))))
		if err != nil {
			return err
		}
		off, offo := -refZP(t), refZP(to)
		scaleIn = func(x int64) int32 { return refMBQM((off+int32(x))*(1<<left), mi, shi) }
		scaleOut = func(acc int32) int64 {
			return int64(min(math.MaxInt8, max(math.MinInt8, refMBQM(acc, mo, sho)+offo)))
		}
	default:
		return fmt.Errorf("%w: type %s", errNoRef, t.Type)
	}
	for a := 0; a < outer; a++ {
		for c := 0; c < inner; c++ {
			var facc float32
			var iacc int32
			if scaleIn != nil {
				iacc = scaleIn(0) // TFLM's accumulator starts at input1_offset, rescaled
			}
			for d := 0; d < depth; d++ {
				dd := d
				if reverse {
					dd = depth - 1 - d
				}
				i := (a*depth+dd)*inner + c
				if t.Type == model.Float32 {
					if exclusive {
						out.Flts[i] = facc
						facc += in.Flts[i]
					} else {
						facc += in.Flts[i]
						out.Flts[i] = facc
					}
					continue
				}
				y := scaleIn(in.Ints[i])
				var v int32
				if exclusive {
					v = iacc
					iacc += y
				} else {
					iacc += y
					v = iacc
				}
				out.Ints[i] = scaleOut(v)
			}
		}
	}
	return r.set(0, out)
}

// refSplitV is SPLIT_V: consecutive slices along the axis, one per output.
func refSplitV(r refOp) error {
	t, in := r.in(0)
	_, ax := r.in(2)
	rank := len(t.Shape)
	axis := int(ax.Ints[0])
	if axis < 0 {
		axis += rank
	}
	if axis < 0 || axis >= rank {
		return fmt.Errorf("%w: axis %d", errNoRef, ax.Ints[0])
	}
	outer, inner := shapeProd(t.Shape[:axis]), shapeProd(t.Shape[axis+1:])
	at := 0
	for k := range r.op.Outputs {
		size := r.out(k).Shape[axis]
		var idx []int
		for a := 0; a < outer; a++ {
			for d := at; d < at+size; d++ {
				for c := 0; c < inner; c++ {
					idx = append(idx, (a*t.Shape[axis]+d)*inner+c)
				}
			}
		}
		if err := r.set(k, refPick(in, idx)); err != nil {
			return err
		}
		at += size
	}
	if at != t.Shape[axis] {
		return fmt.Errorf("%w: outputs of %d along the axis", errNoRef, at)
	}
	return nil
}

// refSpaceToBatchNd is SPACE_TO_BATCH_ND (space_to_batch_nd.h) for 3-D
// and 4-D inputs; padding is zero bytes (TFLM's pad value is its unset,
// zeroed output_offset).
func refSpaceToBatchNd(r refOp) error {
	t, in := r.in(0)
	_, block := r.in(1)
	_, pads := r.in(2)
	to := r.out(0)
	ext := func(s []int) [4]int {
		if len(s) == 4 {
			return [4]int{s[0], s[1], s[2], s[3]}
		}
		return [4]int{s[0], s[1], 1, s[2]}
	}
	if len(t.Shape) < 3 || len(t.Shape) > 4 || len(to.Shape) != len(t.Shape) {
		return fmt.Errorf("%w: rank %d", errNoRef, len(t.Shape))
	}
	is, os := ext(t.Shape), ext(to.Shape)
	bh, bw, top, left := int(block.Ints[0]), 1, int(pads.Ints[0]), 0
	if len(t.Shape) == 4 {
		bw, left = int(block.Ints[1]), int(pads.Ints[2])
	}
	var idx []int
	for ob := 0; ob < os[0]; ob++ {
		b := ob % is[0]
		sw := (ob / is[0]) % bw
		sh := (ob / is[0]) / bw
		for oh := 0; oh < os[1]; oh++ {
			for ow := 0; ow < os[2]; ow++ {
				h, w := oh*bh+sh-top, ow*bw+sw-left
				for c := 0; c < os[3]; c++ {
					if h < 0 || h >= is[1] || w < 0 || w >= is[2] {
						idx = append(idx, -1)
						continue
					}
					idx = append(idx, ((b*is[1]+h)*is[2]+w)*is[3]+c)
				}
			}
		}
	}
	return r.set(0, refPick(in, idx))
}

// refMirrorPad is MIRROR_PAD (mirror_pad.cc: GetInputDimension, which
// clamps paddings larger than TFLite allows to the edge element).
func refMirrorPad(r refOp) error {
	t, in := r.in(0)
	_, pads := r.in(1)
	to := r.out(0)
	offset := 1 // REFLECT
	if r.op.Options().MirrorPad().Mode != mirrorPadReflect {
		offset = 0
	}
	inputIndex := func(p, lp, size int) int {
		if p < lp {
			orig := lp + offset - 1
			return orig - min(p, orig-offset)
		}
		p -= lp
		if p >= size {
			p -= size
			orig := size - (1 + offset)
			return orig - min(p, orig)
		}
		return p
	}
	st := refStrides(t.Shape)
	idx := make([]int, to.NumElements())
	for i := range idx {
		c := refCoords(to.Shape, i)
		k := 0
		for d := range c {
			k += inputIndex(c[d], int(pads.Ints[2*d]), t.Shape[d]) * st[d]
		}
		idx[i] = k
	}
	return r.set(0, refPick(in, idx))
}

// refReverseV2 is REVERSE_V2: each axis listed reversed (TFLM takes a
// contiguous run of axes only).
func refReverseV2(r refOp) error {
	t, in := r.in(0)
	_, axes := r.in(1)
	rank := len(t.Shape)
	rev := make([]bool, rank)
	lo, hi := rank, -1
	for _, a := range axes.Ints {
		if a < 0 {
			a += int64(rank)
		}
		if a < 0 || a >= int64(rank) {
			return fmt.Errorf("%w: axis %d", errNoRef, a)
		}
		rev[a] = true
		lo, hi = min(lo, int(a)), max(hi, int(a))
	}
	for a := lo; a <= hi; a++ {
		if !rev[a] {
			return fmt.Errorf("%w: axes not contiguous", errNoRef)
		}
	}
	st := refStrides(t.Shape)
	idx := make([]int, t.NumElements())
	for i := range idx {
		c := refCoords(t.Shape, i)
		k := 0
		for d := range c {
			if rev[d] {
				c[d] = t.Shape[d] - 1 - c[d]
			}
			k += c[d] * st[d]
		}
		idx[i] = k
	}
	return r.set(0, refPick(in, idx))
}

// refDynamicUpdateSlice is DYNAMIC_UPDATE_SLICE: the update written over
// the operand at the start indices, each clamped into [0, operand -
// update].
func refDynamicUpdateSlice(r refOp) error {
	t, operand := r.in(0)
	tu, update := r.in(1)
	_, start := r.in(2)
	rank := len(t.Shape)
	if len(tu.Shape) != rank || len(start.Ints) != rank {
		return fmt.Errorf("%w: ranks", errNoRef)
	}
	begin := make([]int, rank)
	for d := range begin {
		begin[d] = int(min(max(0, start.Ints[d]), int64(t.Shape[d]-tu.Shape[d])))
	}
	n := t.NumElements()
	both := difftest.Vals{DT: operand.DT, Ints: append(append([]int64{}, operand.Ints...), update.Ints...),
		Flts: append(append([]float32{}, operand.Flts...), update.Flts...)}
	idx := make([]int, n)
	ust := refStrides(tu.Shape)
	for i := range idx {
		idx[i] = i
		c := refCoords(t.Shape, i)
		k, inside := 0, true
		for d := range c {
			u := c[d] - begin[d]
			if u < 0 || u >= tu.Shape[d] {
				inside = false
				break
			}
			k += u * ust[d]
		}
		if inside {
			idx[i] = n + k
		}
	}
	return r.set(0, refPick(both, idx))
}

// refResizeSize returns the input's batches, height, width and depth and
// the output's height and width of a 4-D resize.
func refResizeSize(r refOp) (b, h, w, d, oh, ow int, err error) {
	t, _ := r.in(0)
	to := r.out(0)
	if len(t.Shape) != 4 || len(to.Shape) != 4 {
		return 0, 0, 0, 0, 0, 0, fmt.Errorf("%w: rank %d", errNoRef, len(t.Shape))
	}
	return t.Shape[0], t.Shape[1], t.Shape[2], t.Shape[3], to.Shape[1], to.Shape[2], nil
}

// refResizeBilinear is int8 RESIZE_BILINEAR (resize_bilinear.h:
// ResizeBilinearInteger, 10 fractional bits, the 20-bit sum rounded half
// away from zero).
func refResizeBilinear(r refOp) error {
	t, in := r.in(0)
	if t.Type != model.Int8 {
		return fmt.Errorf("%w: type %s", errNoRef, t.Type)
	}
	opt := r.op.Options().ResizeBilinear()
	align, half := opt.AlignCorners, opt.HalfPixelCenters
	if align && half {
		return fmt.Errorf("%w: align_corners and half_pixel_centers", errNoRef)
	}
	b, h, w, d, oh, ow, err := refResizeSize(r)
	if err != nil {
		return err
	}
	scale := func(in, out int) int32 {
		if align && out > 1 {
			return int32(((1<<10)*(in-1) + (out-1)/2) / (out - 1))
		}
		return int32(((1<<10)*in + out/2) / out)
	}
	interp := func(v, scale10 int32, size int) (scaled, lo, hi int32) {
		if half {
			scaled = v*scale10 + scale10/2 - (1 << 9)
		} else {
			scaled = v * scale10
		}
		return scaled, max(scaled/(1<<10), 0), min((scaled+(1<<10)-1)/(1<<10), int32(size-1))
	}
	hs, ws := scale(h, oh), scale(w, ow)
	at := func(bb, y, x, c int32) int64 { return in.Ints[((int(bb)*h+int(y))*w+int(x))*d+int(c)] }
	out := difftest.Vals{DT: model.Int8}
	for bb := int32(0); bb < int32(b); bb++ {
		for y := int32(0); y < int32(oh); y++ {
			iy, y0, y1 := interp(y, hs, h)
			for x := int32(0); x < int32(ow); x++ {
				ix, x0, x1 := interp(x, ws, w)
				for c := int32(0); c < int32(d); c++ {
					fy, fx := int64(iy-(1<<10)*y0), int64(ix-(1<<10)*x0)
					sum := at(bb, y0, x0, c)*((1<<10)-fy)*((1<<10)-fx) +
						at(bb, y1, x0, c)*fy*((1<<10)-fx) +
						at(bb, y0, x1, c)*((1<<10)-fy)*fx +
						at(bb, y1, x1, c)*fy*fx
					round := int64(1 << 19)
					if sum <= 0 {
						round = -round
					}
					out.Ints = append(out.Ints, int64(int8((sum+round)/(1<<20))))
				}
			}
		}
	}
	return r.set(0, out)
}

// refResizeNearest is RESIZE_NEAREST_NEIGHBOR (resize_nearest_neighbor.h:
// GetNearestNeighbor in float32, rounded with align_corners, floored
// without).
func refResizeNearest(r refOp) error {
	_, in := r.in(0)
	opt := r.op.Options().ResizeNearestNeighbor()
	align, half := opt.AlignCorners, opt.HalfPixelCenters
	b, h, w, d, oh, ow, err := refResizeSize(r)
	if err != nil {
		return err
	}
	nearest := func(v, size, outSize int) int {
		var scale float32
		if align && outSize > 1 {
			scale = float32(size-1) / float32(outSize-1)
		} else {
			scale = float32(size) / float32(outSize)
		}
		var offset float32
		if half {
			offset = 0.5
		}
		p := (float32(v) + offset) * scale
		var k int
		if align {
			k = int(int32(math.Round(float64(p))))
		} else {
			k = int(int32(math.Floor(float64(p))))
		}
		k = min(k, size-1)
		if half {
			k = max(0, k)
		}
		return k
	}
	var idx []int
	for bb := 0; bb < b; bb++ {
		for y := 0; y < oh; y++ {
			iy := nearest(y, h, oh)
			for x := 0; x < ow; x++ {
				ix := nearest(x, w, ow)
				for c := 0; c < d; c++ {
					idx = append(idx, ((bb*h+iy)*w+ix)*d+c)
				}
			}
		}
	}
	return r.set(0, refPick(in, idx))
}
