// Code generated from the BuiltinOperator enum of the TensorFlow Lite schema. DO NOT EDIT.

package model

// Builtin operator codes, numbered as in the TensorFlow Lite schema.
const (
	OpAdd                          OpCode = 0
	OpAveragePool2D                OpCode = 1
	OpConcatenation                OpCode = 2
	OpConv2D                       OpCode = 3
	OpDepthwiseConv2D              OpCode = 4
	OpDepthToSpace                 OpCode = 5
	OpDequantize                   OpCode = 6
	OpEmbeddingLookup              OpCode = 7
	OpFloor                        OpCode = 8
	OpFullyConnected               OpCode = 9
	OpHashtableLookup              OpCode = 10
	OpL2Normalization              OpCode = 11
	OpL2Pool2D                     OpCode = 12
	OpLocalResponseNormalization   OpCode = 13
	OpLogistic                     OpCode = 14
	OpLshProjection                OpCode = 15
	OpLstm                         OpCode = 16
	OpMaxPool2D                    OpCode = 17
	OpMul                          OpCode = 18
	OpRelu                         OpCode = 19
	OpReluN1To1                    OpCode = 20
	OpRelu6                        OpCode = 21
	OpReshape                      OpCode = 22
	OpResizeBilinear               OpCode = 23
	OpRnn                          OpCode = 24
	OpSoftmax                      OpCode = 25
	OpSpaceToDepth                 OpCode = 26
	OpSvdf                         OpCode = 27
	OpTanh                         OpCode = 28
	OpConcatEmbeddings             OpCode = 29
	OpSkipGram                     OpCode = 30
	OpCall                         OpCode = 31
	OpCustom                       OpCode = 32
	OpEmbeddingLookupSparse        OpCode = 33
	OpPad                          OpCode = 34
	OpUnidirectionalSequenceRnn    OpCode = 35
	OpGather                       OpCode = 36
	OpBatchToSpaceNd               OpCode = 37
	OpSpaceToBatchNd               OpCode = 38
	OpTranspose                    OpCode = 39
	OpMean                         OpCode = 40
	OpSub                          OpCode = 41
	OpDiv                          OpCode = 42
	OpSqueeze                      OpCode = 43
	OpUnidirectionalSequenceLstm   OpCode = 44
	OpStridedSlice                 OpCode = 45
	OpBidirectionalSequenceRnn     OpCode = 46
	OpExp                          OpCode = 47
	OpTopkV2                       OpCode = 48
	OpSplit                        OpCode = 49
	OpLogSoftmax                   OpCode = 50
	OpDelegate                     OpCode = 51
	OpBidirectionalSequenceLstm    OpCode = 52
	OpCast                         OpCode = 53
	OpPrelu                        OpCode = 54
	OpMaximum                      OpCode = 55
	OpArgMax                       OpCode = 56
	OpMinimum                      OpCode = 57
	OpLess                         OpCode = 58
	OpNeg                          OpCode = 59
	OpPadv2                        OpCode = 60
	OpGreater                      OpCode = 61
	OpGreaterEqual                 OpCode = 62
	OpLessEqual                    OpCode = 63
	OpSelect                       OpCode = 64
	OpSlice                        OpCode = 65
	OpSin                          OpCode = 66
	OpTransposeConv                OpCode = 67
	OpSparseToDense                OpCode = 68
	OpTile                         OpCode = 69
	OpExpandDims                   OpCode = 70
	OpEqual                        OpCode = 71
	OpNotEqual                     OpCode = 72
	OpLog                          OpCode = 73
	OpSum                          OpCode = 74
	OpSqrt                         OpCode = 75
	OpRsqrt                        OpCode = 76
	OpShape                        OpCode = 77
	OpPow                          OpCode = 78
	OpArgMin                       OpCode = 79
	OpFakeQuant                    OpCode = 80
	OpReduceProd                   OpCode = 81
	OpReduceMax                    OpCode = 82
	OpPack                         OpCode = 83
	OpLogicalOr                    OpCode = 84
	OpOneHot                       OpCode = 85
	OpLogicalAnd                   OpCode = 86
	OpLogicalNot                   OpCode = 87
	OpUnpack                       OpCode = 88
	OpReduceMin                    OpCode = 89
	OpFloorDiv                     OpCode = 90
	OpReduceAny                    OpCode = 91
	OpSquare                       OpCode = 92
	OpZerosLike                    OpCode = 93
	OpFill                         OpCode = 94
	OpFloorMod                     OpCode = 95
	OpRange                        OpCode = 96
	OpResizeNearestNeighbor        OpCode = 97
	OpLeakyRelu                    OpCode = 98
	OpSquaredDifference            OpCode = 99
	OpMirrorPad                    OpCode = 100
	OpAbs                          OpCode = 101
	OpSplitV                       OpCode = 102
	OpUnique                       OpCode = 103
	OpCeil                         OpCode = 104
	OpReverseV2                    OpCode = 105
	OpAddN                         OpCode = 106
	OpGatherNd                     OpCode = 107
	OpCos                          OpCode = 108
	OpWhere                        OpCode = 109
	OpRank                         OpCode = 110
	OpElu                          OpCode = 111
	OpReverseSequence              OpCode = 112
	OpMatrixDiag                   OpCode = 113
	OpQuantize                     OpCode = 114
	OpMatrixSetDiag                OpCode = 115
	OpRound                        OpCode = 116
	OpHardSwish                    OpCode = 117
	OpIf                           OpCode = 118
	OpWhile                        OpCode = 119
	OpNonMaxSuppressionV4          OpCode = 120
	OpNonMaxSuppressionV5          OpCode = 121
	OpScatterNd                    OpCode = 122
	OpSelectV2                     OpCode = 123
	OpDensify                      OpCode = 124
	OpSegmentSum                   OpCode = 125
	OpBatchMatmul                  OpCode = 126
	OpPlaceholderForGreaterOpCodes OpCode = 127
	OpCumsum                       OpCode = 128
	OpCallOnce                     OpCode = 129
	OpBroadcastTo                  OpCode = 130
	OpRfft2d                       OpCode = 131
	OpConv3D                       OpCode = 132
	OpImag                         OpCode = 133
	OpReal                         OpCode = 134
	OpComplexAbs                   OpCode = 135
	OpHashtable                    OpCode = 136
	OpHashtableFind                OpCode = 137
	OpHashtableImport              OpCode = 138
	OpHashtableSize                OpCode = 139
	OpReduceAll                    OpCode = 140
	OpConv3DTranspose              OpCode = 141
	OpVarHandle                    OpCode = 142
	OpReadVariable                 OpCode = 143
	OpAssignVariable               OpCode = 144
	OpBroadcastArgs                OpCode = 145
	OpRandomStandardNormal         OpCode = 146
	OpBucketize                    OpCode = 147
	OpRandomUniform                OpCode = 148
	OpMultinomial                  OpCode = 149
	OpGelu                         OpCode = 150
	OpDynamicUpdateSlice           OpCode = 151
	OpRelu0To1                     OpCode = 152
	OpUnsortedSegmentProd          OpCode = 153
	OpUnsortedSegmentMax           OpCode = 154
	OpUnsortedSegmentSum           OpCode = 155
	OpAtan2                        OpCode = 156
	OpUnsortedSegmentMin           OpCode = 157
	OpSign                         OpCode = 158
	OpBitcast                      OpCode = 159
	OpBitwiseXor                   OpCode = 160
	OpRightShift                   OpCode = 161
	OpStablehloLogistic            OpCode = 162
	OpStablehloAdd                 OpCode = 163
	OpStablehloDivide              OpCode = 164
	OpStablehloMultiply            OpCode = 165
	OpStablehloMaximum             OpCode = 166
	OpStablehloReshape             OpCode = 167
	OpStablehloClamp               OpCode = 168
	OpStablehloConcatenate         OpCode = 169
	OpStablehloBroadcastInDim      OpCode = 170
	OpStablehloConvolution         OpCode = 171
	OpStablehloSlice               OpCode = 172
	OpStablehloCustomCall          OpCode = 173
	OpStablehloReduce              OpCode = 174
	OpStablehloAbs                 OpCode = 175
	OpStablehloAnd                 OpCode = 176
	OpStablehloCosine              OpCode = 177
	OpStablehloExponential         OpCode = 178
	OpStablehloFloor               OpCode = 179
	OpStablehloLog                 OpCode = 180
	OpStablehloMinimum             OpCode = 181
	OpStablehloNegate              OpCode = 182
	OpStablehloOr                  OpCode = 183
	OpStablehloPower               OpCode = 184
	OpStablehloRemainder           OpCode = 185
	OpStablehloRsqrt               OpCode = 186
	OpStablehloSelect              OpCode = 187
	OpStablehloSubtract            OpCode = 188
	OpStablehloTanh                OpCode = 189
	OpStablehloScatter             OpCode = 190
	OpStablehloCompare             OpCode = 191
	OpStablehloConvert             OpCode = 192
	OpStablehloDynamicSlice        OpCode = 193
	OpStablehloDynamicUpdateSlice  OpCode = 194
	OpStablehloPad                 OpCode = 195
	OpStablehloIota                OpCode = 196
	OpStablehloDotGeneral          OpCode = 197
	OpStablehloReduceWindow        OpCode = 198
	OpStablehloSort                OpCode = 199
	OpStablehloWhile               OpCode = 200
	OpStablehloGather              OpCode = 201
	OpStablehloTranspose           OpCode = 202
	OpDilate                       OpCode = 203
	OpStablehloRngBitGenerator     OpCode = 204
	OpReduceWindow                 OpCode = 205
	OpStablehloComposite           OpCode = 206
	OpStablehloShiftLeft           OpCode = 207
	OpStablehloCbrt                OpCode = 208
	OpStablehloCase                OpCode = 209
)

// opNames maps an operator code to its schema name.
var opNames = [...]string{
	0:   "ADD",
	1:   "AVERAGE_POOL_2D",
	2:   "CONCATENATION",
	3:   "CONV_2D",
	4:   "DEPTHWISE_CONV_2D",
	5:   "DEPTH_TO_SPACE",
	6:   "DEQUANTIZE",
	7:   "EMBEDDING_LOOKUP",
	8:   "FLOOR",
	9:   "FULLY_CONNECTED",
	10:  "HASHTABLE_LOOKUP",
	11:  "L2_NORMALIZATION",
	12:  "L2_POOL_2D",
	13:  "LOCAL_RESPONSE_NORMALIZATION",
	14:  "LOGISTIC",
	15:  "LSH_PROJECTION",
	16:  "LSTM",
	17:  "MAX_POOL_2D",
	18:  "MUL",
	19:  "RELU",
	20:  "RELU_N1_TO_1",
	21:  "RELU6",
	22:  "RESHAPE",
	23:  "RESIZE_BILINEAR",
	24:  "RNN",
	25:  "SOFTMAX",
	26:  "SPACE_TO_DEPTH",
	27:  "SVDF",
	28:  "TANH",
	29:  "CONCAT_EMBEDDINGS",
	30:  "SKIP_GRAM",
	31:  "CALL",
	32:  "CUSTOM",
	33:  "EMBEDDING_LOOKUP_SPARSE",
	34:  "PAD",
	35:  "UNIDIRECTIONAL_SEQUENCE_RNN",
	36:  "GATHER",
	37:  "BATCH_TO_SPACE_ND",
	38:  "SPACE_TO_BATCH_ND",
	39:  "TRANSPOSE",
	40:  "MEAN",
	41:  "SUB",
	42:  "DIV",
	43:  "SQUEEZE",
	44:  "UNIDIRECTIONAL_SEQUENCE_LSTM",
	45:  "STRIDED_SLICE",
	46:  "BIDIRECTIONAL_SEQUENCE_RNN",
	47:  "EXP",
	48:  "TOPK_V2",
	49:  "SPLIT",
	50:  "LOG_SOFTMAX",
	51:  "DELEGATE",
	52:  "BIDIRECTIONAL_SEQUENCE_LSTM",
	53:  "CAST",
	54:  "PRELU",
	55:  "MAXIMUM",
	56:  "ARG_MAX",
	57:  "MINIMUM",
	58:  "LESS",
	59:  "NEG",
	60:  "PADV2",
	61:  "GREATER",
	62:  "GREATER_EQUAL",
	63:  "LESS_EQUAL",
	64:  "SELECT",
	65:  "SLICE",
	66:  "SIN",
	67:  "TRANSPOSE_CONV",
	68:  "SPARSE_TO_DENSE",
	69:  "TILE",
	70:  "EXPAND_DIMS",
	71:  "EQUAL",
	72:  "NOT_EQUAL",
	73:  "LOG",
	74:  "SUM",
	75:  "SQRT",
	76:  "RSQRT",
	77:  "SHAPE",
	78:  "POW",
	79:  "ARG_MIN",
	80:  "FAKE_QUANT",
	81:  "REDUCE_PROD",
	82:  "REDUCE_MAX",
	83:  "PACK",
	84:  "LOGICAL_OR",
	85:  "ONE_HOT",
	86:  "LOGICAL_AND",
	87:  "LOGICAL_NOT",
	88:  "UNPACK",
	89:  "REDUCE_MIN",
	90:  "FLOOR_DIV",
	91:  "REDUCE_ANY",
	92:  "SQUARE",
	93:  "ZEROS_LIKE",
	94:  "FILL",
	95:  "FLOOR_MOD",
	96:  "RANGE",
	97:  "RESIZE_NEAREST_NEIGHBOR",
	98:  "LEAKY_RELU",
	99:  "SQUARED_DIFFERENCE",
	100: "MIRROR_PAD",
	101: "ABS",
	102: "SPLIT_V",
	103: "UNIQUE",
	104: "CEIL",
	105: "REVERSE_V2",
	106: "ADD_N",
	107: "GATHER_ND",
	108: "COS",
	109: "WHERE",
	110: "RANK",
	111: "ELU",
	112: "REVERSE_SEQUENCE",
	113: "MATRIX_DIAG",
	114: "QUANTIZE",
	115: "MATRIX_SET_DIAG",
	116: "ROUND",
	117: "HARD_SWISH",
	118: "IF",
	119: "WHILE",
	120: "NON_MAX_SUPPRESSION_V4",
	121: "NON_MAX_SUPPRESSION_V5",
	122: "SCATTER_ND",
	123: "SELECT_V2",
	124: "DENSIFY",
	125: "SEGMENT_SUM",
	126: "BATCH_MATMUL",
	127: "PLACEHOLDER_FOR_GREATER_OP_CODES",
	128: "CUMSUM",
	129: "CALL_ONCE",
	130: "BROADCAST_TO",
	131: "RFFT2D",
	132: "CONV_3D",
	133: "IMAG",
	134: "REAL",
	135: "COMPLEX_ABS",
	136: "HASHTABLE",
	137: "HASHTABLE_FIND",
	138: "HASHTABLE_IMPORT",
	139: "HASHTABLE_SIZE",
	140: "REDUCE_ALL",
	141: "CONV_3D_TRANSPOSE",
	142: "VAR_HANDLE",
	143: "READ_VARIABLE",
	144: "ASSIGN_VARIABLE",
	145: "BROADCAST_ARGS",
	146: "RANDOM_STANDARD_NORMAL",
	147: "BUCKETIZE",
	148: "RANDOM_UNIFORM",
	149: "MULTINOMIAL",
	150: "GELU",
	151: "DYNAMIC_UPDATE_SLICE",
	152: "RELU_0_TO_1",
	153: "UNSORTED_SEGMENT_PROD",
	154: "UNSORTED_SEGMENT_MAX",
	155: "UNSORTED_SEGMENT_SUM",
	156: "ATAN2",
	157: "UNSORTED_SEGMENT_MIN",
	158: "SIGN",
	159: "BITCAST",
	160: "BITWISE_XOR",
	161: "RIGHT_SHIFT",
	162: "STABLEHLO_LOGISTIC",
	163: "STABLEHLO_ADD",
	164: "STABLEHLO_DIVIDE",
	165: "STABLEHLO_MULTIPLY",
	166: "STABLEHLO_MAXIMUM",
	167: "STABLEHLO_RESHAPE",
	168: "STABLEHLO_CLAMP",
	169: "STABLEHLO_CONCATENATE",
	170: "STABLEHLO_BROADCAST_IN_DIM",
	171: "STABLEHLO_CONVOLUTION",
	172: "STABLEHLO_SLICE",
	173: "STABLEHLO_CUSTOM_CALL",
	174: "STABLEHLO_REDUCE",
	175: "STABLEHLO_ABS",
	176: "STABLEHLO_AND",
	177: "STABLEHLO_COSINE",
	178: "STABLEHLO_EXPONENTIAL",
	179: "STABLEHLO_FLOOR",
	180: "STABLEHLO_LOG",
	181: "STABLEHLO_MINIMUM",
	182: "STABLEHLO_NEGATE",
	183: "STABLEHLO_OR",
	184: "STABLEHLO_POWER",
	185: "STABLEHLO_REMAINDER",
	186: "STABLEHLO_RSQRT",
	187: "STABLEHLO_SELECT",
	188: "STABLEHLO_SUBTRACT",
	189: "STABLEHLO_TANH",
	190: "STABLEHLO_SCATTER",
	191: "STABLEHLO_COMPARE",
	192: "STABLEHLO_CONVERT",
	193: "STABLEHLO_DYNAMIC_SLICE",
	194: "STABLEHLO_DYNAMIC_UPDATE_SLICE",
	195: "STABLEHLO_PAD",
	196: "STABLEHLO_IOTA",
	197: "STABLEHLO_DOT_GENERAL",
	198: "STABLEHLO_REDUCE_WINDOW",
	199: "STABLEHLO_SORT",
	200: "STABLEHLO_WHILE",
	201: "STABLEHLO_GATHER",
	202: "STABLEHLO_TRANSPOSE",
	203: "DILATE",
	204: "STABLEHLO_RNG_BIT_GENERATOR",
	205: "REDUCE_WINDOW",
	206: "STABLEHLO_COMPOSITE",
	207: "STABLEHLO_SHIFT_LEFT",
	208: "STABLEHLO_CBRT",
	209: "STABLEHLO_CASE",
}
