package kernels

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// Tests of the table-driven kernels lutInt8, addInt8Tab, subInt8Tab and
// ewTab32. The tables are built here as the generator builds them (gen's
// logisticTanhInt8Table and ewAddTable, with the generator's encoding), and
// every output is compared over all int8 inputs with a direct transcription,
// written below, of TFLite Micro's reference integer arithmetic:
// reference_integer_ops Logistic and Tanh with gemmlowp's fixed-point
// logistic and tanh (fixedpoint.h), and the int8 AddFunc / SubElementwise.
// Nothing here calls the kernels' own arithmetic.

// gemmlowp's fixedpoint.h on int32: a FixedPoint<int32, n> is its raw
// value, and its integer bits n, a template parameter there, are an
// argument here.

// glpSRDHM is SaturatingRoundingDoublingHighMul.
func glpSRDHM(a, b int32) int32 {
	overflow := a == b && a == math.MinInt32
	ab := int64(a) * int64(b)
	nudge := int64(1 - 1<<30)
	if ab >= 0 {
		nudge = 1 << 30
	}
	high := int32((ab + nudge) / (1 << 31))
	if overflow {
		return math.MaxInt32
	}
	return high
}

// glpRoundingDivideByPOT is RoundingDivideByPOT (0 <= exponent <= 31).
func glpRoundingDivideByPOT(x int32, exponent int) int32 {
	mask := int32(int64(1)<<exponent - 1)
	remainder := x & mask
	threshold := mask >> 1
	if x < 0 {
		threshold++
	}
	r := x >> exponent
	if remainder > threshold {
		r++
	}
	return r
}

// glpSatRoundMulByPOT is SaturatingRoundingMultiplyByPOT<exponent>.
func glpSatRoundMulByPOT(x int32, exponent int) int32 {
	switch {
	case exponent == 0:
		return x
	case exponent < 0:
		return glpRoundingDivideByPOT(x, -exponent)
	}
	threshold := int32(1)<<(31-exponent) - 1
	switch {
	case x > threshold:
		return math.MaxInt32
	case x < -threshold:
		return math.MinInt32
	}
	return x << exponent
}

// glpRescale is Rescale<dst> of a FixedPoint<int32, src>.
func glpRescale(x int32, src, dst int) int32 { return glpSatRoundMulByPOT(x, src-dst) }

// glpRoundingHalfSum is RoundingHalfSum for int32.
func glpRoundingHalfSum(a, b int32) int32 {
	sum := int64(a) + int64(b)
	sign := int64(1)
	if sum < 0 {
		sign = -1
	}
	return int32((sum + sign) / 2)
}

const (
	glpOne0 = math.MaxInt32 // FixedPoint<int32, 0>::One()
	glpOne2 = 1 << 29       // FixedPoint<int32, 2>::One()
)

// glpExpQuarter is exp_on_interval_between_negative_one_quarter_and_0_excl
// (Q0.31 in and out).
func glpExpQuarter(a int32) int32 {
	const constantTerm = 1895147668 // exp(-1/8)
	const constant1Over3 = 715827883
	x := a + 1<<28 // a + ConstantPOT<-3>
	x2 := glpSRDHM(x, x)
	x3 := glpSRDHM(x2, x)
	x4 := glpSRDHM(x2, x2)
	x4Over4 := glpSatRoundMulByPOT(x4, -2)
	poly := glpSatRoundMulByPOT(glpSRDHM(x4Over4+x3, constant1Over3)+x2, -1)
	return constantTerm + glpSRDHM(constantTerm, x+poly)
}

// glpExpOnNegativeValues is exp_on_negative_values of a FixedPoint<int32,
// intBits> (Q0.31 out).
func glpExpOnNegativeValues(a int32, intBits int) int32 {
	fracBits := 31 - intBits
	oneQuarter := int32(1) << (fracBits - 2) // ConstantPOT<-2>
	mask := oneQuarter - 1
	aModQuarterMinusOneQuarter := (a & mask) - oneQuarter
	result := glpExpQuarter(glpRescale(aModQuarterMinusOneQuarter, intBits, 0))
	remainder := aModQuarterMinusOneQuarter - a
	// GEMMLOWP_EXP_BARREL_SHIFTER(Exponent, FixedPointMultiplier).
	for _, b := range []struct {
		exponent   int
		multiplier int32
	}{{-2, 1672461947}, {-1, 1302514674}, {0, 790015084}, {1, 290630308}, {2, 39332535}, {3, 720401}, {4, 242}} {
		if intBits > b.exponent && remainder&(int32(1)<<(fracBits+b.exponent)) != 0 {
			result = glpSRDHM(result, b.multiplier)
		}
	}
	if intBits > 5 && a < -(int32(1)<<(36-intBits)) { // clamp at -32
		result = 0
	}
	if a == 0 {
		result = glpOne0
	}
	return result
}

// glpNewtonRaphson is the division shared by one_over_one_plus_x_for_x_in_0_1
// and one_minus_x_over_one_plus_x_for_x_in_0_1: x ~ 1/((1+a)/2) as a
// FixedPoint<int32, 2>.
func glpNewtonRaphson(a int32) int32 {
	const constant48Over17, constantNeg32Over17 = 1515870810, -1010580540
	halfDenominator := glpRoundingHalfSum(a, glpOne0)
	x := constant48Over17 + glpSRDHM(halfDenominator, constantNeg32Over17)
	for i := 0; i < 3; i++ {
		halfDenominatorTimesX := glpSRDHM(halfDenominator, x)
		oneMinusHalfDenominatorTimesX := glpOne2 - halfDenominatorTimesX
		x += glpRescale(glpSRDHM(x, oneMinusHalfDenominatorTimesX), 4, 2)
	}
	return x
}

// glpLogistic is gemmlowp::logistic (Q0.31 out).
func glpLogistic(a int32, intBits int) int32 {
	absInput := -a
	if a > 0 {
		absInput = a
	}
	// logistic_on_positive_values: one_over_one_plus_x_for_x_in_0_1 of
	// exp_on_negative_values(-a), whose last step is
	// Rescale<0>(ExactMulByPot<-1>(x)): raw x as a FixedPoint<int32, 1>.
	resultIfPositive := glpRescale(glpNewtonRaphson(glpExpOnNegativeValues(-absInput, intBits)), 1, 0)
	resultIfNegative := glpOne0 - resultIfPositive
	switch {
	case a == 0:
		return 1 << 30 // one half
	case a > 0:
		return resultIfPositive
	}
	return resultIfNegative
}

// glpTanh is gemmlowp::tanh (Q0.31 out).
func glpTanh(a int32, intBits int) int32 {
	n := -a
	if a < 0 {
		n = a
	}
	// neg_tanh_on_negative_values: one_minus_x_over_one_plus_x_for_x_in_0_1
	// of exp_on_negative_values(ExactMulByPot<1>(n)), the same raw value with
	// one more integer bit; its last step is Rescale<0>(x - F2::One()).
	t := glpRescale(glpNewtonRaphson(glpExpOnNegativeValues(n, intBits+1))-glpOne2, 2, 0)
	switch {
	case a == 0:
		return 0
	case a < 0:
		return -t
	}
	return t
}

// tabtMulByQuantMul is TFLM's MultiplyByQuantizedMultiplier.
func tabtMulByQuantMul(x, m int32, shift int) int32 {
	left, right := max(shift, 0), max(-shift, 0)
	return glpRoundingDivideByPOT(glpSRDHM(x*(int32(1)<<left), m), right)
}

// tabtMulBelowOne is TFLM's MultiplyByQuantizedMultiplierSmallerThanOneExp.
func tabtMulBelowOne(x, m int32, leftShift int) int32 {
	return glpRoundingDivideByPOT(glpSRDHM(x, m), -leftShift)
}

// tabtLogisticTanhRef is reference_integer_ops::Logistic (tanh=false) or
// Tanh for one int8 value: Q4.27 input, output zero point -128 and scale
// 1/256 (logistic) or 0 and 1/128 (tanh).
func tabtLogisticTanhRef(p *logisticTanhParams, tanh bool, v int8) int8 {
	const inputIntegerBits = 4
	input := int32(v) - p.inZP
	switch {
	case input <= -p.radius:
		return math.MinInt8
	case input >= p.radius:
		return math.MaxInt8
	}
	inputInQ4 := tabtMulByQuantMul(input, p.mult, p.shift)
	if tanh {
		const outputScale = 7
		o := glpRoundingDivideByPOT(glpTanh(inputInQ4, inputIntegerBits), 31-outputScale)
		return int8(min(max(o, math.MinInt8), math.MaxInt8))
	}
	const outputIntegerBits, outputZeroPoint = 8, -128
	o := glpRoundingDivideByPOT(glpLogistic(inputInQ4, inputIntegerBits), 31-outputIntegerBits)
	return int8(min(max(o+outputZeroPoint, math.MinInt8), math.MaxInt8))
}

// tabtLUT builds lutInt8's table as the generator's logisticTanhInt8Table
// does: entry uint8(v) is the output for input v, the input rescaled as
// SRDHM(x << shift, mult) (the generator's shift is never negative).
func tabtLUT(p *logisticTanhParams, tanh bool) string {
	var t [256]byte
	for v := int32(-128); v < 128; v++ {
		x := v - p.inZP
		var o int32
		switch {
		case x <= -p.radius:
			o = -128
		case x >= p.radius:
			o = 127
		case tanh:
			a := glpSRDHM(x*(int32(1)<<uint(p.shift)), p.mult)
			o = min(max(glpRoundingDivideByPOT(glpTanh(a, 4), 24), -128), 127)
		default:
			a := glpSRDHM(x*(int32(1)<<uint(p.shift)), p.mult)
			o = min(max(glpRoundingDivideByPOT(glpLogistic(a, 4), 23)-128, -128), 127)
		}
		t[uint8(v)] = byte(int8(o))
	}
	return string(t[:])
}

// tabtAllInt8 returns the 256 int8 values in increasing order.
func tabtAllInt8() []int8 {
	v := make([]int8, 256)
	for i := range v {
		v[i] = int8(i - 128)
	}
	return v
}

// TestTableLutInt8 checks lutInt8 with the generator's table against the
// reference LOGISTIC and TANH on all 256 inputs, over input scales from
// saturating almost everywhere (radius 1) to nowhere, and zero points at
// the int8 limits; then against float64 within one step, and against TFLM's
// recorded dtln LOGISTIC.
func TestTableLutInt8(t *testing.T) {
	in := tabtAllInt8()
	// Reversed and repeated inputs, and an output longer than the input
	// (lutInt8 writes len(in) outputs).
	perm := append(append([]int8{}, in...), in...)
	for i, j := 0, len(perm)-1; i < j; i, j = i+1, j-1 {
		perm[i], perm[j] = perm[j], perm[i]
	}
	sat := 0
	for _, tanh := range []bool{false, true} {
		for _, scale := range []float32{1.0 / 4096, 1.0 / 256, 0.01, 0.05, 0.1, 16.0 / 256, 0.25, 1, 4} {
			for _, zp := range []int32{-128, -37, 0, 5, 127} {
				p := actTSigParams(t, scale, zp)
				tab := tabtLUT(p, tanh)
				got := make([]int8, len(perm)+3)
				got[len(perm)], got[len(perm)+1], got[len(perm)+2] = 11, 22, 33
				lutInt8(tab, perm, got)
				want := make([]int8, len(perm))
				for i, v := range perm {
					want[i] = tabtLogisticTanhRef(p, tanh, v)
					if want[i] == math.MinInt8 || want[i] == math.MaxInt8 {
						sat++
					}
				}
				name := "logistic"
				if tanh {
					name = "tanh"
				}
				name += " scale " + strconv.FormatFloat(float64(scale), 'g', -1, 32) + " zp " + strconv.Itoa(int(zp))
				ewtCheckInts(t, name, got[:len(perm)], want, 0)
				if got[len(perm)] != 11 || got[len(perm)+1] != 22 || got[len(perm)+2] != 33 {
					t.Errorf("%s: lutInt8 wrote past len(in): %v", name, got[len(perm):])
				}
				// Inside the radius the fixed-point functions are within a
				// step of float64. (From the radius on TFLM saturates, which
				// for large scales is well before the function does: from
				// 4.0 on at scale 4.)
				for i, v := range perm {
					if d := int32(v) - zp; d <= -p.radius || d >= p.radius {
						continue
					}
					x := float64(scale) * float64(int32(v)-zp)
					f := math.Round(256*actTSigmoid(x)) - 128
					if tanh {
						f = math.Round(128 * math.Tanh(x))
					}
					f = max(-128, min(127, f))
					if d := math.Abs(float64(got[i]) - f); d > 1 {
						t.Errorf("%s: input %d gives %d, float64 %v", name, v, got[i], f)
					}
				}
			}
		}
	}
	if sat == 0 {
		t.Error("no case saturates")
	}

	// TFLM's output on dtln_noise_suppression's LOGISTIC, exactly.
	shared := ewtShared(t, "ref")
	const m = "dtln_noise_suppression"
	g := ewtModel(t, filepath.Join(shared, "..", "models", m+".tflite"))
	n := 0
	for _, op := range g.Ops {
		if op.Code != model.OpLogistic {
			continue
		}
		in, out := g.Input(op, 0), g.Output(op, 0)
		si, zi := ewtTensorQuant(t, in)
		inB, err := os.ReadFile(filepath.Join(shared, "tensors", m, "t"+strconv.Itoa(in.Index)+".bin"))
		if err != nil {
			t.Fatal(err)
		}
		wantB, err := os.ReadFile(filepath.Join(shared, "tensors", m, "t"+strconv.Itoa(out.Index)+".bin"))
		if err != nil {
			t.Fatal(err)
		}
		got := make([]int8, out.NumElements())
		lutInt8(tabtLUT(actTSigParams(t, si, zi), false), ewtRaw[int8](inB), got)
		ewtCheckInts(t, m+" "+op.Describe(), got, ewtRaw[int8](wantB), 0)
		n++
	}
	if n == 0 {
		t.Fatalf("%s has no LOGISTIC operator", m)
	}
}

// tabtAddTable builds addInt8Tab's (sub=false) or subInt8Tab's table as the
// generator's ewAddTable does, encoded as its constants are (512
// little-endian int32): entry uint8(x) is input 1's rescaled term for x,
// entry 256+uint8(y) input 2's for y, negated for SUB.
func tabtAddTable(p *ewQuantParams, sub bool) string {
	t := make([]int32, 512)
	for v := int32(-128); v < 128; v++ {
		t[uint8(v)] = tabtMulBelowOne((p.in1Off+v)*(int32(1)<<p.leftShift), p.in1Mult, p.in1Shift)
		y := tabtMulBelowOne((p.in2Off+v)*(int32(1)<<p.leftShift), p.in2Mult, p.in2Shift)
		if sub {
			y = -y
		}
		t[256+int(uint8(v))] = y
	}
	b := make([]byte, 0, 2048)
	for _, x := range t {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	return string(b)
}

// tabtAddSubRef is TFLM's int8 AddFunc (sub=false) or SubElementwise for
// one pair of inputs.
func tabtAddSubRef(p *ewQuantParams, sub bool, x, y int8) int8 {
	input1Val := p.in1Off + int32(x)
	input2Val := p.in2Off + int32(y)
	shiftedInput1Val := input1Val * (int32(1) << p.leftShift)
	shiftedInput2Val := input2Val * (int32(1) << p.leftShift)
	scaledInput1Val := tabtMulBelowOne(shiftedInput1Val, p.in1Mult, p.in1Shift)
	scaledInput2Val := tabtMulBelowOne(shiftedInput2Val, p.in2Mult, p.in2Shift)
	raw := scaledInput1Val + scaledInput2Val
	if sub {
		raw = scaledInput1Val - scaledInput2Val
	}
	rawOutput := tabtMulBelowOne(raw, p.outMult, p.outShift) + p.outOff
	return int8(min(p.actMax, max(p.actMin, rawOutput)))
}

// tabtEwCase is the quantization of an int8 ADD or SUB.
type tabtEwCase struct {
	s   [3]float32
	z   [3]int32
	act quant.Activation
}

// TestTableAddSubInt8 checks addInt8Tab and subInt8Tab with the generator's
// tables against the reference on all 65,536 input pairs, laid out three
// ways (contiguous, an outer product that takes the strided path, and a
// broadcast row over contiguous rows), for fixed cases (the TFLM tests'
// quantizations, zero points at the limits, outputs that saturate, every
// fused activation) and random ones.
func TestTableAddSubInt8(t *testing.T) {
	cases := []tabtEwCase{
		{[3]float32{0.25, 0.5, 1.0}, [3]int32{-10, 4, 13}, quant.ActNone},
		{[3]float32{0.25, 0.5, 1.0}, [3]int32{-10, 4, 13}, quant.ActReluN1To1},
		{[3]float32{0.1, 0.05, 0.1}, [3]int32{-9, 5, 14}, quant.ActNone},
		{[3]float32{0.5, 0.5, 0.5}, [3]int32{-128, 127, -128}, quant.ActNone},
		{[3]float32{0.5, 0.5, 0.5}, [3]int32{-128, 127, 0}, quant.ActRelu},
		{[3]float32{0.05, 0.05, 0.05}, [3]int32{0, 0, -100}, quant.ActRelu6},
		{[3]float32{1, 1, 1.0 / 64}, [3]int32{127, -128, 0}, quant.ActNone}, // saturates both ways
		{[3]float32{1, 0.001, 0.002}, [3]int32{3, -3, 1}, quant.ActNone},    // input scales far apart
	}
	r := rand.New(rand.NewPCG(14, 15))
	acts := []quant.Activation{quant.ActNone, quant.ActRelu, quant.ActRelu6, quant.ActReluN1To1}
	for range 12 {
		var c tabtEwCase
		for k := range 3 {
			c.s[k] = float32(math.Exp2(-10 + 12*r.Float64()))
			c.z[k] = int32(r.IntN(256)) - 128
		}
		c.act = acts[r.IntN(len(acts))]
		cases = append(cases, c)
	}

	// Layouts of the 65,536 pairs; pair(o) is the (a, b) indices that output o
	// reads.
	all := make([]int8, 65536)
	hi := make([]int8, 65536)
	for k := range all {
		all[k], hi[k] = int8(k), int8(k>>8)
	}
	row := all[:256]
	layouts := []struct {
		name       string
		s1, s2, so []int
		a, b       []int8
	}{
		{"contiguous", []int{65536}, []int{65536}, []int{65536}, all, hi},
		{"outer product", []int{256, 1}, []int{1, 256}, []int{256, 256}, row, row},
		{"broadcast row", []int{1, 256}, []int{256, 256}, []int{256, 256}, row, hi},
	}
	refAt := func(l int, o int) (x, y int8) {
		switch l {
		case 0:
			return all[o], hi[o]
		case 1:
			return row[o>>8], row[o&255]
		}
		return row[o&255], hi[o]
	}

	var limits [2]bool
	fast := 0 // cases whose contiguous layout takes addInt8TabFast
	got := make([]int8, 65536)
	for ci, c := range cases {
		for _, sub := range []bool{false, true} {
			p := ewtAddSubParams[int8](t, sub, c.s, c.z, c.act)
			if p.outShift <= -1 && p.outShift >= -21 && p.outMult >= 0 && p.outOff >= -128 && p.outOff <= 128 {
				fast++
			}
			tab := tabtAddTable(p, sub)
			var ref [65536]int8 // ref[uint8(x)<<8|uint8(y)]
			for k := range ref {
				ref[k] = tabtAddSubRef(p, sub, int8(k>>8), int8(k))
				limits[0] = limits[0] || ref[k] == math.MinInt8
				limits[1] = limits[1] || ref[k] == math.MaxInt8
			}
			fn, op := addInt8Tab, "add"
			if sub {
				fn, op = subInt8Tab, "sub"
			}
			for l, lay := range layouts {
				clear(got)
				fn(p, tab, ewtBcast(t, lay.s1, lay.s2, lay.so), lay.a, lay.b, got)
				bad := 0
				for o, g := range got {
					x, y := refAt(l, o)
					if w := ref[int(uint8(x))<<8|int(uint8(y))]; g != w {
						if bad < 3 {
							t.Errorf("case %d %+v %s, %s: %d and %d give %d, want %d", ci, c, op, lay.name, x, y, g, w)
						}
						bad++
					}
				}
				if bad > 0 {
					t.Errorf("case %d %s, %s: %d of 65536 outputs differ", ci, op, lay.name, bad)
				}
			}
		}
	}
	if !limits[0] || !limits[1] {
		t.Errorf("the cases reach the int8 limits %v (want both)", limits)
	}
	if fast == 0 {
		t.Error("no case takes addInt8TabFast")
	}
	t.Logf("%d of %d add/sub cases take addInt8TabFast", fast, 2*len(cases))
}

// TestTableEwTab32 checks ewTab32 on a table of random and extreme int32
// values encoded as the generator encodes them.
func TestTableEwTab32(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 17))
	want := make([]int32, 512)
	for i := range want {
		want[i] = int32(r.Uint32())
	}
	want[0], want[1], want[2], want[255], want[256], want[511] = math.MinInt32, math.MaxInt32, -1, 0, 1, -2
	var tab [2048]byte
	for i, v := range want {
		binary.LittleEndian.PutUint32(tab[4*i:], uint32(v))
	}
	for i, w := range want {
		if g := ewTab32(&tab, i); g != w {
			t.Errorf("ewTab32(%d) = %d, want %d", i, g, w)
		}
	}
}
