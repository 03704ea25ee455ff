package lower

import "github.com/tflm-gen/tflm-gen/internal/model"

// MACs estimates the multiply-accumulates one Invoke performs: the
// convolution, fully connected and recurrent layers, which dominate the
// work. Other operators count zero.
func MACs(g *model.Graph) int64 {
	var total int64
	for _, op := range g.Ops {
		total += opMACs(g, op)
	}
	return total
}

// opMACs is one operator's share of MACs.
func opMACs(g *model.Graph, op *model.Op) int64 {
	var total int64
	dims := func(t *model.Tensor) []int64 {
		if t == nil {
			return nil
		}
		d := make([]int64, len(t.Shape))
		for i, x := range t.Shape {
			d[i] = int64(x)
		}
		return d
	}
	elems := func(t *model.Tensor) int64 {
		if t == nil {
			return 0
		}
		return int64(t.NumElements())
	}
	if len(op.Outputs) == 0 {
		return 0 // ASSIGN_VARIABLE, CALL_ONCE
	}
	{
		in, out := g.Input(op, 0), g.Output(op, 0)
		switch op.Code {
		case model.OpConv2D:
			f := dims(g.Input(op, 1)) // [outC, kH, kW, inC]
			if len(f) == 4 {
				total += elems(out) * f[1] * f[2] * f[3]
			}
		case model.OpDepthwiseConv2D:
			f := dims(g.Input(op, 1)) // [1, kH, kW, outC]
			if len(f) == 4 {
				total += elems(out) * f[1] * f[2]
			}
		case model.OpTransposeConv:
			f := dims(g.Input(op, 1)) // [outC, kH, kW, inC]
			x := g.Input(op, 2)
			if len(f) == 4 {
				total += elems(x) * f[0] * f[1] * f[2]
			}
		case model.OpFullyConnected:
			w := dims(g.Input(op, 1)) // [units, depth]
			if len(w) == 2 && w[1] > 0 {
				total += elems(in) / w[1] * w[0] * w[1]
			}
		case model.OpUnidirectionalSequenceLstm:
			wi := dims(g.Input(op, 2)) // input-to-forget [units, inputSize]
			wr := dims(g.Input(op, 6)) // recurrent-to-forget [units, units]
			if len(wi) == 2 && len(wr) == 2 && wi[1] > 0 {
				steps := elems(in) / wi[1]
				total += steps * 4 * wi[0] * (wi[1] + wr[1])
			}
		case model.OpSvdf:
			wf := dims(g.Input(op, 1)) // [filters, inputSize]
			wt := dims(g.Input(op, 2)) // [filters, memory]
			if len(wf) == 2 && len(wt) == 2 && wf[1] > 0 {
				batch := elems(in) / wf[1]
				total += batch * (wf[0]*wf[1] + wt[0]*wt[1])
			}
		}
	}
	return total
}

// inputReads is how many times, on average, operator op's kernel reads
// each byte of its input 0 (program.Op.InputReads): for a convolution or a
// pool the windows covering a byte, its window's area over its strides'
// product, rounded up; 1 for the others.
func inputReads(g *model.Graph, op *model.Op) int {
	o := op.Options()
	sw, sh := int(o.Int32(convStrideW, 1)), int(o.Int32(convStrideH, 1))
	kh, kw := 1, 1
	switch op.Code {
	case model.OpConv2D, model.OpDepthwiseConv2D:
		if f := g.Input(op, 1); f != nil && len(f.Shape) == 4 {
			kh, kw = f.Shape[1], f.Shape[2]
		}
	case model.OpAveragePool2D, model.OpMaxPool2D:
		kw, kh = int(o.Int32(poolFilterW, 1)), int(o.Int32(poolFilterH, 1))
	default:
		return 1
	}
	if o.Err() != nil || sw < 1 || sh < 1 || kh < 1 || kw < 1 {
		return 1
	}
	return max(1, (kh*kw+sw*sh-1)/(sw*sh))
}
