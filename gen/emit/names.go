package emit

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/tflm-gen/tflm-gen/gen/program"
)

// maxNameChars bounds the characters an identifier takes from a tensor
// name: long names keep their last words ("MobilenetV1/Conv2d_3/Relu6" ->
// "Conv2d3Relu6"), the part that tells layers apart.
const maxNameChars = 32

// names are the identifiers of the generated package that a reader follows
// in a diff: one offset constant per arena buffer and one string constant
// per model constant and per generation-time table, named after the tensor
// or the operator's output tensor, not after indices that shift when a
// layer is inserted.
type names struct {
	buf    []string       // by BufID: "offConv1Relu"
	tensor map[int]string // constant tensor index: "tensorConv3Bias"
	table  []string       // by Program.Consts index: "opConv1ReluRQ"
}

// hintText says in words what a lowering's constant hint holds.
var hintText = map[string]string{
	"RQ": "requantization records", "Mult": "per-channel multipliers", "Shift": "per-channel shifts",
	"Bias": "folded biases", "NoBias": "folded biases", "TimeBias": "folded time biases",
	"FeatureBias": "folded feature biases", "SvdfBias": "biases", "ZP": "zero points",
	"Weights": "re-laid-out weights", "FeatureWeights": "re-laid-out feature weights",
	"Lean": "re-laid-out weights", "DW": "re-laid-out weights", "PW": "re-laid-out weights", "Conv": "re-laid-out weights",
	"Rec": "requantization records",
	"Win": "re-laid-out weights", "InW": "re-laid-out input weights", "RecW": "re-laid-out recurrent weights",
	"Tab": "lookup table", "ExpLUT": "exponential lookup table", "RecipLUT": "reciprocal lookup table",
	"Bias4": "folded biases, four copies (one word-aligned)", "FeatureBiasRing": "folded feature biases, four copies (one word-aligned)",
	"TimeBiasRing": "folded time biases, four copies (one word-aligned)", "TimeWeightsRing": "weights_time, each row twice (int16: all of it twice more)",
}

func makeNames(p *program.Program) *names {
	g := p.Graph
	used := map[string]bool{}
	unique := func(base, suffix string) string {
		n := base
		if used[n] {
			n = base + suffix
		}
		for k := 2; used[n]; k++ {
			n = fmt.Sprintf("%s%s_%d", base, suffix, k)
		}
		used[n] = true
		return n
	}
	nm := &names{tensor: map[int]string{}}
	perOp := map[[2]int]int{} // (operator, state?) -> buffers named so far
	for id, b := range p.Buffers {
		var base, suffix string
		switch {
		case len(b.Tensors) > 0:
			t := b.Tensors[0]
			base, suffix = "off"+camel(g.Tensors[t].Name, fmt.Sprintf("Tensor%d", t)), fmt.Sprintf("T%d", t)
		default:
			kind, key := "Scratch", [2]int{b.Op, 0}
			if b.Reset >= 0 {
				kind, key = "State", [2]int{b.Op, 1}
			}
			base = fmt.Sprintf("off%s%s%d", opName(p, b.Op), kind, perOp[key])
			suffix = fmt.Sprintf("B%d", id)
			perOp[key]++
		}
		nm.buf = append(nm.buf, unique(base, suffix))
	}
	for _, t := range p.UsedTensors() {
		nm.tensor[t] = unique("tensor"+camel(g.Tensors[t].Name, fmt.Sprintf("%d", t)), fmt.Sprintf("T%d", t))
	}
	// A table with the data of an earlier one is that one.
	for k, f := range p.SameTables() {
		if f < k {
			nm.table = append(nm.table, nm.table[f])
			continue
		}
		c := p.Consts[k]
		nm.table = append(nm.table, unique("op"+opName(p, c.Op)+c.Hint, fmt.Sprintf("Op%d", c.Op)))
	}
	return nm
}

// opName names an operator after its first output tensor.
func opName(p *program.Program, op int) string {
	g := p.Graph
	o := g.Ops[op]
	if len(o.Outputs) == 0 || o.Outputs[0] < 0 {
		return fmt.Sprintf("Op%d", op)
	}
	return camel(g.Tensors[o.Outputs[0]].Name, fmt.Sprintf("Op%d", op))
}

// fusedName splits a tensor name that the TensorFlow Lite converter made
// by joining the names of fused operations with ";" into the path prefix
// its parts share and what follows it in each part:
//
//	"seq/dense/MatMul;seq/dense/Relu;seq/dense/BiasAdd" -> "seq/dense", [MatMul Relu BiasAdd]
//
// prefix is "" when the parts share no path element (or the name has no
// ";"); every part keeps at least its last element.
func fusedName(s string) (prefix string, parts []string) {
	parts = strings.Split(s, ";")
	if len(parts) < 2 {
		return "", parts
	}
	elems := strings.Split(parts[0], "/")
	n := len(elems) - 1 // elements shared, at most all but the last of each part
	for _, p := range parts[1:] {
		pe := strings.Split(p, "/")
		k := 0
		for k < n && k < len(pe)-1 && pe[k] == elems[k] {
			k++
		}
		n = k
	}
	if n == 0 {
		return "", parts
	}
	prefix = strings.Join(elems[:n], "/")
	rest := make([]string, len(parts))
	for i, p := range parts {
		rest[i] = p[len(prefix)+1:]
	}
	return prefix, rest
}

// layerName is the part of a tensor name that identifiers are made from:
// the layer path a fused name's parts share ("seq/dense"), else its first
// part, else the name.
func layerName(s string) string {
	prefix, parts := fusedName(s)
	if prefix != "" {
		return prefix
	}
	return parts[0]
}

// maxCommentName bounds a tensor name in a generated comment, in runes;
// layout.txt and report.json give every name in full.
const maxCommentName = 72

// shortName shortens a tensor name for a comment: a fused name's shared
// path written once ("seq/dense/{MatMul;Relu;BiasAdd}"), and a name longer
// than maxCommentName runes cut, with "..." where it was cut.
func shortName(s string) string {
	if prefix, parts := fusedName(s); prefix != "" {
		s = prefix + "/{" + strings.Join(parts, ";") + "}"
	}
	if r := []rune(s); len(r) > maxCommentName {
		s = string(r[:maxCommentName-3]) + "..."
	}
	return s
}

// camel turns a tensor name into an exported-style identifier part: words
// of letters and digits of its layer name (layerName), each capitalised;
// fallback when nothing is left.
func camel(s, fallback string) string {
	words := strings.FieldsFunc(layerName(s), func(r rune) bool {
		return !(r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)))
	})
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	for len(words) > 1 && len(strings.Join(words, "")) > maxNameChars {
		words = words[1:]
	}
	out := strings.Join(words, "")
	if len(out) > maxNameChars {
		out = out[len(out)-maxNameChars:]
		out = strings.ToUpper(out[:1]) + out[1:]
	}
	if out == "" {
		return fallback
	}
	return out
}
