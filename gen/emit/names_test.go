package emit

import (
	"strings"
	"testing"
)

// TestShortNames: identifiers come from the layer path a converter's fused
// name shares, not from its last words; comments write the shared path
// once and cut long names (issue 26, item 14).
func TestShortNames(t *testing.T) {
	const fused = "sequential/conv2d/Relu;sequential/conv2d/BiasAdd;sequential/conv2d/Conv2D;sequential/conv2d/BiasAdd/ReadVariableOp/resource1"
	long := strings.Repeat("block/", 20) + "out"
	for _, tc := range []struct {
		in, camel, short string
	}{
		{"conv1/relu", "Conv1Relu", "conv1/relu"},
		{"MobilenetV1/MobilenetV1/Conv2d_3_pointwise/Relu6", "MobilenetV1Conv2d3PointwiseRelu6", "MobilenetV1/MobilenetV1/Conv2d_3_pointwise/Relu6"},
		{"sequential/dense/MatMul;sequential/dense/Relu;sequential/dense/BiasAdd", "SequentialDense", "sequential/dense/{MatMul;Relu;BiasAdd}"},
		{"model_6/dense_20/Tensordot;model_6/dense_20/BiasAdd", "Model6Dense20", "model_6/dense_20/{Tensordot;BiasAdd}"},
		{fused, "SequentialConv2d", "sequential/conv2d/{Relu;BiasAdd;Conv2D;BiasAdd/ReadVariableOp/resource1}"},
		// No shared path: the first part names it.
		{"a/x;b/y", "AX", "a/x;b/y"},
		{"x;y", "X", "x;y"},
		// A part that is the shared path itself keeps its last element.
		{"a/b;a/b/c", "A", "a/{b;b/c}"},
		{long, "BlockBlockBlockBlockBlockOut", strings.Repeat("block/", 11) + "blo..."},
		{"", "Fallback", ""},
		{";", "Fallback", ";"},
	} {
		if got := camel(tc.in, "Fallback"); got != tc.camel {
			t.Errorf("camel(%q) = %q, want %q", tc.in, got, tc.camel)
		}
		if got := shortName(tc.in); got != tc.short {
			t.Errorf("shortName(%q) = %q, want %q", tc.in, got, tc.short)
		}
		if n := len([]rune(shortName(tc.in))); n > maxCommentName {
			t.Errorf("shortName(%q) has %d runes, over %d", tc.in, n, maxCommentName)
		}
	}
}
