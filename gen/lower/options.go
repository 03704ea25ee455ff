package lower

// The builtin options the lowerings read, by field number (the slot of
// model.Options' getters: the field's position in its table in
// tensorflow/lite/schema/schema.fbs, counting from 0). The model reader
// rejects an options table whose union type is not the operator's
// (internal/model's optionsTypes), so a lowering reads its slots without
// checking the type again.
const (
	// Conv2DOptions, DepthwiseConv2DOptions and TransposeConv2DOptions
	// start alike.
	convPadding = 0 // .padding (SAME 0, VALID 1)
	convStrideW = 1 // .stride_w
	convStrideH = 2 // .stride_h

	conv2DAct       = 3 // Conv2DOptions.fused_activation_function
	conv2DDilationW = 4 // Conv2DOptions.dilation_w_factor
	conv2DDilationH = 5 // Conv2DOptions.dilation_h_factor
	conv2DBiasType  = 6 // Conv2DOptions.quantized_bias_type

	dwDepthMul  = 3 // DepthwiseConv2DOptions.depth_multiplier
	dwAct       = 4 // DepthwiseConv2DOptions.fused_activation_function
	dwDilationW = 5 // DepthwiseConv2DOptions.dilation_w_factor
	dwDilationH = 6 // DepthwiseConv2DOptions.dilation_h_factor

	tconvAct = 3 // TransposeConvOptions.fused_activation_function

	poolPadding = 0 // Pool2DOptions.padding
	poolStrideW = 1 // Pool2DOptions.stride_w
	poolStrideH = 2 // Pool2DOptions.stride_h
	poolFilterW = 3 // Pool2DOptions.filter_width
	poolFilterH = 4 // Pool2DOptions.filter_height
	poolAct     = 5 // Pool2DOptions.fused_activation_function

	fcAct         = 0 // FullyConnectedOptions.fused_activation_function
	fcFormat      = 1 // FullyConnectedOptions.weights_format
	fcKeepDims    = 2 // FullyConnectedOptions.keep_num_dims
	fcAsymmetric  = 3 // FullyConnectedOptions.asymmetric_quantize_inputs
	fcBiasType    = 4 // FullyConnectedOptions.quantized_bias_type
	softmaxBeta   = 0 // SoftmaxOptions.beta
	leakyAlpha    = 0 // LeakyReluOptions.alpha
	argOutputType = 0 // ArgMaxOptions.output_type, ArgMinOptions.output_type
	reduceKeep    = 0 // ReducerOptions.keep_dims

	// AddOptions, SubOptions and MulOptions start with the fused
	// activation; ADD and SUB have pot_scale_int16 next.
	ewAct          = 0 // .fused_activation_function
	ewPotScale16   = 1 // AddOptions.pot_scale_int16, SubOptions.pot_scale_int16
	reshapeShape   = 0 // ReshapeOptions.new_shape
	squeezeDims    = 0 // SqueezeOptions.squeeze_dims
	concatAxis     = 0 // ConcatenationOptions.axis
	concatAct      = 1 // ConcatenationOptions.fused_activation_function
	packCount      = 0 // PackOptions.values_count
	packAxis       = 1 // PackOptions.axis
	unpackNum      = 0 // UnpackOptions.num
	unpackAxis     = 1 // UnpackOptions.axis
	splitNum       = 0 // SplitOptions.num_splits
	ssBeginMask    = 0 // StridedSliceOptions.begin_mask
	ssEndMask      = 1 // StridedSliceOptions.end_mask
	ssEllipsis     = 2 // StridedSliceOptions.ellipsis_mask
	ssNewAxis      = 3 // StridedSliceOptions.new_axis_mask
	ssShrinkMask   = 4 // StridedSliceOptions.shrink_axis_mask
	ssOffset       = 5 // StridedSliceOptions.offset
	svdfRank       = 0 // SVDFOptions.rank
	svdfAct        = 1 // SVDFOptions.fused_activation_function
	svdfAsymmetric = 2 // SVDFOptions.asymmetric_quantize_inputs

	lstmAct        = 0 // UnidirectionalSequenceLSTMOptions.fused_activation_function
	lstmCellClip   = 1 // UnidirectionalSequenceLSTMOptions.cell_clip
	lstmProjClip   = 2 // UnidirectionalSequenceLSTMOptions.proj_clip
	lstmTimeMajor  = 3 // UnidirectionalSequenceLSTMOptions.time_major
	lstmAsymmetric = 4 // UnidirectionalSequenceLSTMOptions.asymmetric_quantize_inputs
	lstmDiagonal   = 5 // UnidirectionalSequenceLSTMOptions.diagonal_recurrent_tensors
)

// BuiltinOptions union types (schema.fbs) that the tests of this package
// build options tables with.
const (
	unionFullyConnected = 8  // FullyConnectedOptions
	unionAdd            = 11 // AddOptions
	unionMul            = 21 // MulOptions
	unionSub            = 28 // SubOptions
)
