package lower

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/internal/devtools/builder"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/internal/quant"
)

// End-to-end tests of the FULLY_CONNECTED lowering: small random models
// (per-tensor and per-channel int8, float32; shapes that leave partial
// 4-channel blocks and odd depths; several rows; fused activations) are
// generated, built and run, and every output byte must equal a
// transcription of TFLite Micro's reference kernels computed here. This
// covers the generation-time packing, folded biases and requantization
// records together with the kernels.

// fcgRescale transcribes MultiplyByQuantizedMultiplier (gemmlowp's
// SaturatingRoundingDoublingHighMul then RoundingDivideByPOT).
func fcgRescale(x, m int32, shift int) int32 {
	left, right := 0, 0
	if shift > 0 {
		left = shift
	} else {
		right = -shift
	}
	a := x * (1 << uint(left))
	var hi int32
	if a == math.MinInt32 && m == math.MinInt32 {
		hi = math.MaxInt32
	} else {
		ab := int64(a) * int64(m)
		nudge := int64(1 << 30)
		if ab < 0 {
			nudge = 1 - (1 << 30)
		}
		hi = int32((ab + nudge) / (1 << 31))
	}
	mask := int32(1)<<uint(right) - 1
	rem, threshold := hi&mask, mask>>1
	if hi < 0 {
		threshold++
	}
	r := hi >> uint(right)
	if rem > threshold {
		r++
	}
	return r
}

// fcgCase is one generated model and its expected output.
type fcgCase struct {
	name   string
	model  []byte
	input  []byte
	output []byte
	// exact and bound, for the float cases: each output's exact value
	// (the terms' sum in float64, the bias added, clamped) and the bound
	// of block floating point's distance from it (fcgBFPBound).
	exact, bound []float64
}

// fcgInt8Case builds an int8 FULLY_CONNECTED model with random data and
// computes TFLM's reference result (reference_integer_ops::FullyConnected
// and its per-channel variant).
func fcgInt8Case(r *rand.Rand, rows, depth, units int, perChannel bool, act quant.Activation, withBias bool) fcgCase {
	return fcgInt8CaseOut(r, rows, depth, units, perChannel, act, withBias, false)
}

// fcgInt8CaseOut is fcgInt8Case; with tiny, the output scale is so large
// (a rescale by 2^-23 or less) that the one-multiply requantization does not
// apply (kernelsig.PlanRQOne declines it), and the biases reach 2^30 so that
// the outputs still vary.
func fcgInt8CaseOut(r *rand.Rand, rows, depth, units int, perChannel bool, act quant.Activation, withBias, tiny bool) fcgCase {
	inS, outS := float32(0.02+r.Float64()*0.1), float32(0.05+r.Float64()*0.5)
	biasMax := int32(1 << 13)
	if tiny {
		outS, biasMax = float32(20000+r.Float64()*10000), 1<<30
	}
	inZP, outZP := int32(r.Intn(256)-128), int32(r.Intn(256)-128)
	wS := []float32{float32(0.002 + r.Float64()*0.02)}
	if perChannel {
		wS = make([]float32, units)
		for i := range wS {
			wS[i] = float32(0.002 + r.Float64()*0.02)
		}
	}
	w := make([]int8, units*depth)
	for i := range w {
		w[i] = int8(r.Intn(255) - 127)
	}
	bias := make([]int32, units)
	for i := range bias {
		bias[i] = int32(r.Int63n(2*int64(biasMax)) - int64(biasMax))
	}
	x := make([]int8, rows*depth)
	for i := range x {
		x[i] = int8(r.Intn(256) - 128)
	}

	m := builder.New("fc test")
	in := m.Tensor("in", model.Int8, []int{rows, depth}, builder.PerTensor(inS, int64(inZP)))
	wq := &builder.Quant{Scale: wS, ZeroPoint: make([]int64, len(wS))}
	wt := m.ConstI8("w", []int{units, depth}, wq, w)
	ins := []int{in, wt}
	if withBias {
		bs := make([]float32, len(wS))
		for i, s := range wS {
			bs[i] = inS * s
		}
		ins = append(ins, m.ConstI32("b", []int{units}, &builder.Quant{Scale: bs, ZeroPoint: make([]int64, len(bs))}, bias))
	}
	out := m.Tensor("out", model.Int8, []int{rows, units}, builder.PerTensor(outS, int64(outZP)))
	m.Op(model.OpFullyConnected, ins, []int{out}, &builder.Options{Type: model.UnionFullyConnectedOptions, Fields: []builder.Field{builder.Byte(model.FullyConnectedOptionsFusedActivationFunction, int(act))}})
	m.IO([]int{in}, []int{out})

	lo, hi, _ := quant.RangeQuantized(act, float64(outS), outZP, -128, 127)
	want := make([]byte, rows*units)
	for b := 0; b < rows; b++ {
		for c := 0; c < units; c++ {
			var acc int32
			for d := 0; d < depth; d++ {
				acc += int32(w[c*depth+d]) * (int32(x[b*depth+d]) - inZP)
			}
			if withBias {
				acc += bias[c]
			}
			var mult int32
			var shift int
			if perChannel {
				mult, shift = quant.Multiplier(float64(inS) * float64(wS[c]) / float64(outS))
			} else {
				mult, shift = quant.Multiplier(float64(inS*wS[0]) / float64(outS))
			}
			v := fcgRescale(acc, mult, shift) + outZP
			want[b*units+c] = byte(int8(min(max(v, lo), hi)))
		}
	}
	xb := make([]byte, len(x))
	for i, v := range x {
		xb[i] = byte(v)
	}
	name := fmt.Sprintf("int8_%dx%dx%d_pc%v_%v_bias%v", rows, depth, units, perChannel, act, withBias)
	if tiny {
		name += "_tiny"
	}
	return fcgCase{name, m.Bytes(), xb, want, nil, nil}
}

// fcgFloatCase builds a float32 FULLY_CONNECTED model; the expected output
// sums the products in input order, adds the bias and clamps, in float32.
func fcgFloatCase(r *rand.Rand, rows, depth, units int, act quant.Activation, withBias bool) fcgCase {
	w := make([]float32, units*depth)
	for i := range w {
		w[i] = float32(r.NormFloat64())
	}
	bias := make([]float32, units)
	for i := range bias {
		bias[i] = float32(r.NormFloat64())
	}
	x := make([]float32, rows*depth)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	m := builder.New("fc float test")
	in := m.Tensor("in", model.Float32, []int{rows, depth}, nil)
	ins := []int{in, m.ConstF32("w", []int{units, depth}, w)}
	if withBias {
		ins = append(ins, m.ConstF32("b", []int{units}, bias))
	}
	out := m.Tensor("out", model.Float32, []int{rows, units}, nil)
	m.Op(model.OpFullyConnected, ins, []int{out}, &builder.Options{Type: model.UnionFullyConnectedOptions, Fields: []builder.Field{builder.Byte(model.FullyConnectedOptionsFusedActivationFunction, int(act))}})
	m.IO([]int{in}, []int{out})

	lo, hi, _ := quant.RangeFloat(act)
	want := make([]byte, 4*rows*units)
	exact, bound := make([]float64, rows*units), make([]float64, rows*units)
	for b := 0; b < rows; b++ {
		for c := 0; c < units; c++ {
			var total float32
			var sum, mag float64 // the exact products' sum (to float64's precision) and magnitudes
			for d := 0; d < depth; d++ {
				p := x[b*depth+d] * w[c*depth+d]
				total += float32(p)
				sum += float64(x[b*depth+d]) * float64(w[c*depth+d])
				mag += math.Abs(float64(x[b*depth+d]) * float64(w[c*depth+d]))
			}
			var bv float32
			if withBias {
				bv = bias[c]
			}
			v := min(max(total+bv, lo), hi)
			binary.LittleEndian.PutUint32(want[4*(b*units+c):], math.Float32bits(v))
			k := b*units + c
			exact[k] = min(max(sum+float64(bv), float64(lo)), float64(hi))
			bound[k] = fcgBFPBound(x[b*depth:(b+1)*depth], w[c*depth:(c+1)*depth], exact[k], mag)
		}
	}
	xb := make([]byte, 4*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint32(xb[4*i:], math.Float32bits(v))
	}
	name := fmt.Sprintf("float_%dx%dx%d_%v_bias%v", rows, depth, units, act, withBias)
	return fcgCase{name, m.Bytes(), xb, want, exact, bound}
}

// fcgBFPBound bounds the distance of block floating point's dot product
// of x and w (-speed's fcF32BFP) from the exact value v of the output, as
// kernels/bfp.go states it: with bx and bw bits for the two vectors'
// significands (kernels.bfpBits: bx+bw+bits.Len(n) <= 61, each at most
// 30), below 2^-bx*max|x|*sum|w| + 2^-bw*max|w|*sum|x| +
// n*2^-(bx+bw)*max|x|*max|w| before the one rounding to float32 (half a
// last place of v), plus float64's own error in v (mag, the sum of the
// terms' magnitudes, times 2^-50). A bound relative to v alone would fail
// where the terms cancel.
func fcgBFPBound(x, w []float32, v, mag float64) float64 {
	n := len(x)
	t := 61 - bits.Len(uint(n))
	bw := min(30, (t+1)/2)
	bx := min(30, t-bw)
	var maxX, maxW, sumX, sumW float64
	for i := range x {
		ax, aw := math.Abs(float64(x[i])), math.Abs(float64(w[i]))
		maxX, maxW, sumX, sumW = max(maxX, ax), max(maxW, aw), sumX+ax, sumW+aw
	}
	return math.Ldexp(maxX*sumW, -bx) + math.Ldexp(maxW*sumX, -bw) + float64(n)*math.Ldexp(maxX*maxW, -bx-bw) +
		math.Ldexp(math.Abs(v), -24) + math.Ldexp(mag, -50)
}

func TestFullyConnectedGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs generated code")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go tool not found")
	}
	r := rand.New(rand.NewSource(11))
	var cases []fcgCase
	// Every int8 shape uses fcDSPInt8 where its depth is a multiple of
	// four, fcOctInt8 (or fcOctInt8PT, fcOctInt8PTQ) otherwise.
	shapes := [][3]int{{1, 1, 1}, {1, 16, 16}, {2, 7, 5}, {1, 33, 13}, {3, 4, 9}, {1, 64, 3}, {1, 250, 4}, {2, 10, 45}, {1, 1100, 25}, {1, 1, 16}, {2, 3, 8}}
	for i, s := range shapes {
		act := []quant.Activation{quant.ActNone, quant.ActRelu, quant.ActRelu6}[i%3]
		cases = append(cases,
			fcgInt8Case(r, s[0], s[1], s[2], false, act, i%4 != 3),
			fcgInt8Case(r, s[0], s[1], s[2], true, act, true),
			fcgFloatCase(r, s[0], s[1], s[2], act, i%4 != 2))
	}
	// Requantizations the generator's plan declines (fcOctInt8PT).
	cases = append(cases, fcgInt8CaseOut(r, 1, 16, 16, false, quant.ActNone, true, true), fcgInt8CaseOut(r, 2, 33, 13, false, quant.ActRelu, true, true))
	// The float cases again with -speed: block floating point
	// (fcF32BFP) from four inputs on, within the float tolerance of the
	// in-order float32 sums.
	for _, c := range slices.Clone(cases) {
		if strings.HasPrefix(c.name, "float_") {
			c.name = "speed_" + c.name
			cases = append(cases, c)
		}
	}
	// The int8 cases again in the build for gc (-compiler gc): fcRowsInt8
	// (or fcRowsInt8Q) where blocks of eight units would pad too many or
	// the rows are shorter than four, fcOctInt8 (PT, PTQ) otherwise.
	for _, c := range slices.Clone(cases) {
		if strings.HasPrefix(c.name, "int8_") {
			c.name = "gc_" + c.name
			cases = append(cases, c)
		}
	}
	var pkgs []e2e.Package
	var jobs []e2e.Job
	for i, c := range cases {
		pkg := fmt.Sprintf("fc%03d", i)
		speed := strings.HasPrefix(c.name, "speed_")
		gc := strings.HasPrefix(c.name, "gc_")
		res, err := testGenerate(c.name+".tflite", c.model, difftest.EmitOptions{Package: pkg, Speed: speed, GC: gc})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if speed {
			var batch, depth, units int
			fmt.Sscanf(c.name, "speed_float_%dx%dx%d", &batch, &depth, &units)
			if bfp := bytes.Contains(res.Files["model.go"], []byte("fcF32BFP(")); bfp != (depth >= kernelsig.FCBFPMinDepth) {
				t.Errorf("%s: fcF32BFP used %v, want %v (depth %d)", c.name, bfp, !bfp, depth)
			}
		}
		if gc {
			var batch, depth, units int
			fmt.Sscanf(c.name, "gc_int8_%dx%dx%d", &batch, &depth, &units)
			want := "fcOctInt8"
			if fcRowsWins(units) || depth < 4 {
				want = "fcRowsInt8"
			}
			src := res.Files["model.go"]
			if !bytes.Contains(src, []byte(want+"PTQ(")) && !bytes.Contains(src, []byte(want+"PT(")) &&
				!bytes.Contains(src, []byte(want+"Q(")) && !bytes.Contains(src, []byte(want+"(")) {
				t.Errorf("%s: %s not used", c.name, want)
			}
		}
		if strings.HasPrefix(c.name, "int8") {
			// int8_BxDEPTHxUNITS_...: the DSP kernel where it applies (a
			// depth that is a multiple of four, a requantization its
			// records take: not the tiny ones), else octDot unless its
			// padding wastes flash or the rows are shorter than four.
			var batch, depth, units int
			fmt.Sscanf(c.name, "int8_%dx%dx%d", &batch, &depth, &units)
			want := "fcOctInt8"
			switch {
			case depth%4 == 0 && !strings.HasSuffix(c.name, "_tiny"):
				want = "fcDSPInt8"
			case fcOctWastes(units, depth) || depth < 4:
				want = "fcInt8"
			}
			src := res.Files["model.go"]
			if !bytes.Contains(src, []byte(want+"PTQ(")) && !bytes.Contains(src, []byte(want+"PT(")) && !bytes.Contains(src, []byte(want+"(")) {
				t.Errorf("%s: %s not used", c.name, want)
			}
			// Per tensor, the planned kernel unless the plan declines.
			if want == "fcOctInt8" && strings.Contains(c.name, "pcfalse") {
				pt := want + "PTQ("
				if strings.HasSuffix(c.name, "_tiny") {
					pt = want + "PT("
				}
				if !bytes.Contains(src, []byte(pt)) {
					t.Errorf("%s: %s not used", c.name, pt)
				}
			}
		}
		pkgs = append(pkgs, e2e.Package{Name: pkg, Files: res.Files})
		jobs = append(jobs, e2e.Job{Package: pkg, Inputs: [][]byte{c.input}, Invokes: 1})
	}
	mod, err := e2e.Build(t.TempDir(), pkgs)
	if err != nil {
		t.Fatal(err)
	}
	results, err := mod.Run(jobs)
	if err != nil {
		t.Fatal(err)
	}
	for i, res := range results {
		c := cases[i]
		if len(res.Outputs) != 1 || len(res.Outputs[0]) != 1 {
			t.Errorf("%s: got %d invokes", c.name, len(res.Outputs))
			continue
		}
		got := res.Outputs[0][0]
		if strings.HasPrefix(c.name, "speed_float_") {
			if len(got) != len(c.output) {
				t.Errorf("%s: %d bytes, want %d", c.name, len(got), len(c.output))
				continue
			}
			var batch, depth, units int
			fmt.Sscanf(c.name, "speed_float_%dx%dx%d", &batch, &depth, &units)
			if depth < kernelsig.FCBFPMinDepth {
				// fcF32, in order: the reference's bits.
				if !bytes.Equal(got, c.output) {
					t.Errorf("%s:\n got % x\nwant % x", c.name, got, c.output)
				}
				continue
			}
			for k := range c.exact {
				g := float64(math.Float32frombits(binary.LittleEndian.Uint32(got[4*k:])))
				if d := math.Abs(g - c.exact[k]); !(d <= c.bound[k]) {
					t.Errorf("%s: output %d is %g, the exact value %g: %.3g apart, beyond block floating point's bound %.3g", c.name, k, g, c.exact[k], d, c.bound[k])
				}
			}
			continue
		}
		if !bytes.Equal(got, c.output) {
			t.Errorf("%s:\n got % x\nwant % x", c.name, got, c.output)
		}
	}
	// The same packages must also compile for a 32-bit target.
	if _, err := e2e.Build(t.TempDir(), pkgs, "GOARCH=386"); err != nil {
		t.Errorf("GOARCH=386: %v", err)
	}
}
