package layout

import "github.com/tflm-gen/tflm-gen/gen/program"

// Access counts, per buffer (indexed by BufID), the bytes one Invoke's
// kernel calls move through it: every view of a call counts its bytes
// once (a kernel reads an input view and writes an output view), the view
// of an operator's input 0 as many times as the operator reads each of its
// bytes (program.Op.InputReads: a 3x3 convolution of stride 1 reads each
// input byte for nine windows), the calls of a fused group's loop once per
// run, the blocks of control flow once each. It is the weight multi-pool
// planning (-pool) gives a buffer: the bytes Invoke moves through the
// memory the buffer is placed in. It does not model caches or registers
// that keep a value between reads.
func Access(p *program.Program) []int64 {
	acc := make([]int64, len(p.Buffers))
	g := p.Graph
	// input returns operator op's input 0 buffers: the tensor's, and in a
	// fused group the line buffer holding its rows.
	lines := map[int]program.BufID{} // tensor -> line buffer
	for _, grp := range p.Groups {
		for _, l := range grp.Lines {
			lines[l.Tensor] = l.Buf
		}
	}
	reads := func(op int, b program.BufID) int64 {
		if op < 0 || op >= len(p.Ops) || g == nil || op >= len(g.Ops) || p.Ops[op].InputReads <= 1 {
			return 1
		}
		in := g.Ops[op].Inputs
		if len(in) == 0 || in[0] < 0 {
			return 1
		}
		if tb, ok := p.TensorBuf[in[0]]; ok && tb == b {
			return int64(p.Ops[op].InputReads)
		}
		if lb, ok := lines[in[0]]; ok && lb == b {
			return int64(p.Ops[op].InputReads)
		}
		return 1
	}
	add := func(op int, c program.Call, runs int64) {
		for _, a := range c.Args {
			if v, ok := a.(program.View); ok && int(v.Buf) >= 0 && int(v.Buf) < len(acc) {
				acc[v.Buf] += int64(v.N) * int64(v.Type.Size()) * runs * reads(op, v.Buf)
			}
		}
	}
	var ops func(list []program.Op, top bool)
	ops = func(list []program.Op, top bool) {
		for _, op := range list {
			at := -1
			if top {
				at = op.Index
			}
			for _, c := range op.Calls {
				add(at, c, 1)
			}
			if f := op.Flow; f != nil {
				acc[f.Cond.Buf]++
				for _, b := range f.Blocks {
					ops(b.Ops, false)
				}
			}
		}
	}
	ops(p.Ops, true)
	for _, grp := range p.Groups {
		for _, s := range grp.Pre {
			add(s.Op, s.Call, 1)
		}
		for _, s := range grp.Body {
			add(s.Op, s.Call, int64(grp.Iter))
		}
		for _, s := range grp.Post {
			add(s.Op, s.Call, 1)
		}
	}
	return acc
}
