package layout

import "github.com/tflm-gen/tflm-gen/gen/program"

// Access counts, per buffer (indexed by BufID), the bytes one Invoke's
// kernel calls pass of it: every view of a call counts its bytes once
// (a kernel reads an input view and writes an output view), the calls of
// a fused group's loop once per run, the blocks of control flow once
// each. It is the weight multi-pool planning (-pool) gives a buffer: the
// bytes Invoke moves through the memory the buffer is placed in. It does
// not model caches or a kernel reading its input more than once (a
// convolution reads each input byte once per window that covers it).
func Access(p *program.Program) []int64 {
	acc := make([]int64, len(p.Buffers))
	add := func(c program.Call, runs int64) {
		for _, a := range c.Args {
			if v, ok := a.(program.View); ok && int(v.Buf) >= 0 && int(v.Buf) < len(acc) {
				acc[v.Buf] += int64(v.N) * int64(v.Type.Size()) * runs
			}
		}
	}
	var ops func(list []program.Op)
	ops = func(list []program.Op) {
		for _, op := range list {
			for _, c := range op.Calls {
				add(c, 1)
			}
			if f := op.Flow; f != nil {
				acc[f.Cond.Buf]++
				for _, b := range f.Blocks {
					ops(b.Ops)
				}
			}
		}
	}
	ops(p.Ops)
	for _, g := range p.Groups {
		for _, s := range g.Pre {
			add(s.Call, 1)
		}
		for _, s := range g.Body {
			add(s.Call, int64(g.Iter))
		}
		for _, s := range g.Post {
			add(s.Call, 1)
		}
	}
	return acc
}
