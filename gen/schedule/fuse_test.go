package schedule

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/kernelsig"
	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/lower"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/devtools/difftest"
	"github.com/tflm-gen/tflm-gen/internal/devtools/e2e"
	"github.com/tflm-gen/tflm-gen/internal/devtools/oracle"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/planner"
)

// fuseAll returns the layer-by-layer program of g with every run of
// operators that can be fused (up to maxGroup each) run as fused groups,
// whether or not that makes the arena smaller: the tests check the
// execution of groups, not the choice of them. A run whose output would
// be written in place over its input too early (a residual ADD over the
// group's input) ends before its last operator.
func fuseAll(g *model.Graph) (*program.Program, error) {
	p, _, err := Program(g, Options{})
	if err != nil {
		return nil, err
	}
	return fuseRuns(p)
}

// apartFromSkip returns the layer-by-layer program of g whose in-place
// elementwise operators that a chain could bring their input, and whose
// residual operators written in place over their skip tensor, keep
// buffers of their own (as chooseSchedule estimates groups), so that
// fused runs may hold a skip tensor made in them as a line (DAG groups).
func apartFromSkip(g *model.Graph) (*program.Program, error) {
	flat, _, err := Program(g, Options{})
	if err != nil {
		return nil, err
	}
	p, _, err := Program(g, Options{Lower: lower.Options{NotInPlace: union(bandInPlace(flat))}})
	return p, err
}

// fuseAllDAG is fuseAll on apartFromSkip's program.
func fuseAllDAG(g *model.Graph) (*program.Program, error) {
	p, err := apartFromSkip(g)
	if err != nil {
		return nil, err
	}
	return fuseRuns(p)
}

// fuseRuns is fuseAll's grouping of p.
func fuseRuns(p *program.Program) (*program.Program, error) {
	fp := newFusePlanner(p, nil, 0, nil)
	var spans []fuseSpan
	for i := 0; i < len(p.Ops); {
		j := i
		for j+1 < len(p.Ops) && fp.link[j+1] && j+1-i < maxGroup {
			j++
		}
		for j > i && fp.group(fuseSpan{i, j}) < 0 {
			j--
		}
		if j > i {
			spans = append(spans, fuseSpan{i, j})
		}
		i = j + 1
	}
	return fuse(p, spans)
}

// simulateGroups replays the calls of every fused group of p byte by byte
// over the arena as lay places it: each byte carries the tensor element it
// holds. Every band must find in its input view exactly the input rows it
// reads (and in the view of a skip tensor, an elementwise operator's or a
// CONCATENATION's other operand, whole or a line of the group, the rows of
// its band), the group's output must end whole, and no byte of another
// buffer live during the group may change, nor a skip tensor, but where
// the group's output is written over it. An operator folded into another
// (gen/fold) has no calls: the next one reads the line before it.
func simulateGroups(p *program.Program, lay *layout.Layout) error {
	g := p.Graph
	rowBytes := func(t int) int {
		sh := g.Tensors[t].Shape
		return int(sh[2]*sh[3]) * g.Tensors[t].Type.Size()
	}
	// A view's bytes are its input's (a RESHAPE a group steps over): its
	// tensor is tagged as the tensor it views.
	viewOf := make([]int, len(g.Tensors))
	for t := range viewOf {
		viewOf[t] = t
	}
	for i, op := range g.Ops {
		if isRowView(p, i) {
			viewOf[op.Outputs[0]] = viewOf[op.Inputs[0]]
		}
	}
	for _, grp := range p.Groups {
		tags := make([]int64, lay.Plan.Size)
		for i := range tags {
			tags[i] = -1
		}
		tag := func(t, k int) int64 { return int64(viewOf[t])<<32 | int64(k) }
		mine := map[program.BufID]bool{grp.In: true, grp.Out: true}
		for _, l := range grp.Lines {
			mine[l.Buf] = true
		}
		// Other buffers live during the group: a sentinel per byte.
		for b, buf := range p.Buffers {
			if mine[program.BufID(b)] || buf.First > grp.Last || buf.Last < grp.First || buf.Kind == planner.Scratch && buf.Op >= grp.First && buf.Op <= grp.Last {
				continue
			}
			o := lay.Offset(program.BufID(b))
			for k := 0; k < buf.Size; k++ {
				tags[o+k] = -2 - int64(b)
			}
		}
		lineOf := map[int]program.BufID{} // operator -> its output line
		for i := grp.First; i < grp.Last; i++ {
			if g.Ops[i].Folded {
				// No code, no output (gen/fold): the next operator's
				// chain operand is the line before.
				lineOf[i] = lineOf[i-1]
				continue
			}
			lineOf[i] = p.TensorBuf[g.Ops[i].Outputs[0]]
		}
		// Each operator's chain operand (the input in the group's input
		// or the previous operator's line) and skip tensor (another
		// activation input, read whole), -1 where it has none.
		// Along a chain the chain operand is the previous operator's
		// line; a branch (a DAG group) reads its input 0 from the
		// group's input or an earlier line.
		chainOf, skipOf := map[int]int{}, map[int]int{}
		for i := grp.First; i <= grp.Last; i++ {
			from := grp.In
			if i > grp.First {
				from = lineOf[i-1]
			}
			chainOf[i], skipOf[i] = -1, -1
			if g.Ops[i].Folded {
				continue
			}
			if in0 := g.Ops[i].Inputs[0]; in0 >= 0 && !slices.ContainsFunc(g.Ops[i].Inputs, func(t int) bool { return t >= 0 && p.TensorBuf[t] == from }) {
				chainOf[i] = in0
			}
			for _, t := range g.Ops[i].Inputs {
				switch {
				case t < 0 || g.Tensors[t].IsConst() || t == chainOf[i]:
				case p.TensorBuf[t] == from && chainOf[i] < 0:
					chainOf[i] = t
				default:
					skipOf[i] = t
				}
			}
		}
		inT := chainOf[grp.First]
		o := lay.Offset(grp.In)
		for k := 0; k < g.Tensors[inT].Bytes(); k++ {
			tags[o+k] = tag(inT, k)
		}
		// A skip tensor's bytes hold its elements (the group's input's
		// when it is that buffer).
		skipTag := map[int]int{} // skip tensor -> the tensor its tags name
		var skips [][2]int       // (operator, skip tensor)
		for i := grp.First; i <= grp.Last; i++ {
			if g.Ops[i].Code == model.OpConcatenation {
				for _, t := range g.Ops[i].Inputs {
					if t >= 0 && t != chainOf[i] {
						skips = append(skips, [2]int{i, t})
					}
				}
			} else if skipOf[i] >= 0 {
				skips = append(skips, [2]int{i, skipOf[i]})
			}
		}
		for _, sk := range skips {
			t := sk[1]
			b := p.TensorBuf[t]
			if b == grp.In {
				skipTag[t] = inT
				continue
			}
			if mine[b] && b != grp.Out {
				// A residual operand or CONCATENATION input made in the
				// group: its line must hold the band's rows when it is
				// read.
				skipTag[t] = t
				continue
			}
			skipTag[t] = t
			o := lay.Offset(b)
			for k := 0; k < g.Tensors[t].Bytes(); k++ {
				tags[o+k] = tag(t, k)
			}
		}
		sentinels := slices.Clone(tags)
		computed := map[int][]int{} // operator -> times each output row was computed
		for i := grp.First; i <= grp.Last; i++ {
			if !g.Ops[i].Folded && !isRowView(p, i) {
				computed[i] = make([]int, g.Tensors[g.Ops[i].Outputs[0]].Shape[1])
			}
		}
		sumsRows := -1 // input rows added to the sums so far (grp.Sums)
		if grp.Sums {
			// Each input row of the global pool added once, then the
			// output row computed once.
			computed[grp.Last] = make([]int, g.Tensors[chainOf[grp.Last]].Shape[1]+1)
		}
		viewBytes := func(v program.View) (int, int) {
			s := v.Type.Size()
			return lay.Offset(v.Buf) + v.Off*s, v.N * s
		}
		for n, s := range grp.Expand() {
			c := s.Call
			if s.Rows.Hi == s.Rows.Lo { // a line's slide: copyBytes(dst, src)
				dst, n := viewBytes(c.Args[0].(program.View))
				src, m := viewBytes(c.Args[1].(program.View))
				if c.Fn != string(kernelsig.SlideDown) || n != m {
					return fmt.Errorf("group %d-%d, call %d: %s of %d and %d bytes is not a slide", grp.First, grp.Last, n, c.Fn, n, m)
				}
				copy(tags[dst:dst+n], tags[src:src+n])
				continue
			}
			if g.Ops[s.Op].Code == model.OpConcatenation {
				chainBuf := grp.In
				if s.Op > grp.First {
					chainBuf = lineOf[s.Op-1]
				}
				if err := simulateConcat(g, grp, s, n, tags, viewBytes, tag, chainOf[s.Op], chainBuf, rowBytes, p); err != nil {
					return err
				}
				if v, _ := s.Call.Args[2].(program.View); v.Buf == chainBuf {
					for y := s.Rows.Lo; y < s.Rows.Hi; y++ {
						computed[s.Op][y]++
					}
				}
				continue
			}
			if grp.Sums && s.Op == grp.Last {
				if err := simulateSums(g, grp, s, n, tags, viewBytes, tag, chainOf[s.Op], g.Ops[s.Op].Outputs[0], rowBytes, lineOf, computed, &sumsRows); err != nil {
					return err
				}
				continue
			}
			op := g.Ops[s.Op]
			inBuf, outBuf := p.TensorBuf[chainOf[s.Op]], grp.Out
			if s.Op < grp.Last {
				outBuf = lineOf[s.Op]
			}
			// The input view is the first of the chain operand's
			// buffer, the output view the last of the output's, the
			// skip view another of the skip tensor's buffer (the
			// output's too when the output is written over it).
			it, st, ot := chainOf[s.Op], skipOf[s.Op], op.Outputs[0]
			var in, out, skip *program.View
			inAt, outAt := -1, -1
			for k, a := range c.Args {
				if v, ok := a.(program.View); ok {
					if v.Buf == inBuf && in == nil {
						in, inAt = &v, k
					}
					if v.Buf == outBuf {
						out, outAt = &v, k
					}
				}
			}
			for k, a := range c.Args {
				if v, ok := a.(program.View); ok && st >= 0 && v.Buf == p.TensorBuf[st] && k != inAt && k != outAt {
					skip = &v
				}
			}
			if in == nil || out == nil || st >= 0 && skip == nil {
				return fmt.Errorf("group %d-%d, call %d (%s, operator %d): no input, skip or output view", grp.First, grp.Last, n, c.Fn, s.Op)
			}
			check := func(what string, v program.View, t, tt, lo, hi int) error {
				at, size := viewBytes(v)
				if size != (hi-lo)*rowBytes(t) {
					return fmt.Errorf("group %d-%d, call %d: %s view of %d bytes for rows %d-%d", grp.First, grp.Last, n, what, size, lo, hi)
				}
				for k := 0; k < size; k++ {
					if want := tag(tt, lo*rowBytes(t)+k); tags[at+k] != want {
						return fmt.Errorf("group %d-%d, call %d (operator %d, rows %d-%d): %s byte %d holds %x, want %x (tensor %d byte %d)",
							grp.First, grp.Last, n, s.Op, s.Rows.Lo, s.Rows.Hi, what, k, tags[at+k], want, tt, lo*rowBytes(t)+k)
					}
				}
				return nil
			}
			if c.Fn == string(kernelsig.MoveStrided) {
				// A strided copy reads bytes of its whole input: the
				// bytes it reads must hold the input's, the others may
				// be overwritten already (moveLowest). One that reads
				// its band's rows alone (moveRowLocal) may read them
				// from a line: its view starts at the band's first row.
				at, _ := viewBytes(*in)
				base := in.Off * in.Type.Size() // the view may start past the input's first byte
				if in.Buf != grp.In {
					base = s.InRows.Lo * rowBytes(it)
				}
				for _, k := range moveReads(c) {
					if want := tag(it, base+k); tags[at+k] != want {
						return fmt.Errorf("group %d-%d, call %d (operator %d, rows %d-%d): moveStrided reads input byte %d, which holds %x, want %x",
							grp.First, grp.Last, n, s.Op, s.Rows.Lo, s.Rows.Hi, k, tags[at+k], want)
					}
				}
			} else if err := check("input", *in, it, it, s.InRows.Lo, s.InRows.Hi); err != nil {
				return err
			}
			if skip != nil {
				if err := check("skip", *skip, st, skipTag[st], s.Rows.Lo, s.Rows.Hi); err != nil {
					return err
				}
			}
			at, size := viewBytes(*out)
			if size != (s.Rows.Hi-s.Rows.Lo)*rowBytes(ot) {
				return fmt.Errorf("group %d-%d, call %d: output view of %d bytes for rows %d-%d", grp.First, grp.Last, n, size, s.Rows.Lo, s.Rows.Hi)
			}
			for k := 0; k < size; k++ {
				tags[at+k] = tag(ot, s.Rows.Lo*rowBytes(ot)+k)
			}
			for y := s.Rows.Lo; y < s.Rows.Hi; y++ {
				computed[s.Op][y]++
			}
		}
		// Every row of every tensor computed exactly once: the same
		// multiply-accumulates as layer by layer.
		for i := grp.First; i <= grp.Last; i++ {
			for y, n := range computed[i] {
				if n != 1 {
					return fmt.Errorf("group %d-%d: operator %d computes row %d %d times", grp.First, grp.Last, i, y, n)
				}
			}
		}
		outT := g.Ops[grp.Last].Outputs[0]
		o = lay.Offset(grp.Out)
		for k := 0; k < g.Tensors[outT].Bytes(); k++ {
			if tags[o+k] != tag(outT, k) {
				return fmt.Errorf("group %d-%d: output byte %d holds %x at the end", grp.First, grp.Last, k, tags[o+k])
			}
		}
		for i, s := range sentinels {
			if s <= -2 && tags[i] != s {
				return fmt.Errorf("group %d-%d: arena byte %d of buffer %d was overwritten", grp.First, grp.Last, i, -2-s)
			}
		}
		for t, tt := range skipTag {
			if b := p.TensorBuf[t]; b == grp.In || b == grp.Out || mine[b] {
				continue
			}
			o := lay.Offset(p.TensorBuf[t])
			for k := 0; k < g.Tensors[t].Bytes(); k++ {
				if tags[o+k] != tag(tt, k) {
					return fmt.Errorf("group %d-%d: byte %d of skip tensor %d was overwritten", grp.First, grp.Last, k, t)
				}
			}
		}
	}
	return nil
}

// fusedCounts counts, over compareFused's chains, those whose default
// build chose groups and those fused into DAG groups (fuseAllDAG).
type fusedCounts struct{ chosen, dag int }

// moveReads lists the source bytes a moveStrided call reads, from its
// parameters (kernels.moveParams), in the order it reads them.
func moveReads(c program.Call) []int { return moveBytes(c, "s", "src") }

// moveWrites lists the destination bytes a moveStrided call writes.
func moveWrites(c program.Call) []int { return moveBytes(c, "d", "dst") }

// moveBytes lists the bytes a moveStrided call moves on one side: the
// strides named stride0..4 from offset start.
func moveBytes(c program.Call, stride, start string) []int {
	var p program.Struct
	for _, a := range c.Args {
		if s, ok := a.(program.Struct); ok {
			p = s
		}
	}
	get := func(name string) int {
		v, _ := structInt(p, name)
		return v
	}
	var n, st [kernelsig.MoveLoops]int
	for j := range kernelsig.MoveLoops {
		n[j], st[j] = get(fmt.Sprint("n", j)), get(fmt.Sprint(stride, j))
	}
	var out []int
	var walk func(j, off int)
	walk = func(j, off int) {
		if j == kernelsig.MoveLoops {
			for b := 0; b < get("run"); b++ {
				out = append(out, off+b)
			}
			return
		}
		for i := 0; i < n[j]; i++ {
			walk(j+1, off+i*st[j])
		}
	}
	walk(0, get(start))
	return out
}

// simulateConcat replays call n of a group, a copy of one input of a
// CONCATENATION (step s): the bytes it reads must hold that input's (the
// chain operand's band rows, in its line or the group's input, or
// another input's, whole), and the bytes it writes become the output's.
func simulateConcat(g *model.Graph, grp program.Group, s program.Step, n int, tags []int64, viewBytes func(program.View) (int, int), tag func(t, k int) int64,
	chainT int, chainBuf program.BufID, rowBytes func(int) int, p *program.Program) error {
	c := s.Call
	dst, ok1 := c.Args[1].(program.View)
	src, ok2 := c.Args[2].(program.View)
	if c.Fn != string(kernelsig.MoveStrided) || !ok1 || !ok2 {
		return fmt.Errorf("group %d-%d, call %d (%s, operator %d): not a strided copy", grp.First, grp.Last, n, c.Fn, s.Op)
	}
	ot := g.Ops[s.Op].Outputs[0]
	outBuf := grp.Out
	if s.Op < grp.Last {
		outBuf = p.TensorBuf[ot]
	}
	if dst.Buf != outBuf {
		return fmt.Errorf("group %d-%d, call %d (operator %d): writes buffer %d, not its output's", grp.First, grp.Last, n, s.Op, dst.Buf)
	}
	t, base := chainT, s.InRows.Lo*rowBytes(chainT)
	if src.Buf != chainBuf {
		t, base = -1, src.Off*src.Type.Size() // a band's rows of the whole input
		for _, x := range g.Ops[s.Op].Inputs {
			if x >= 0 && p.TensorBuf[x] == src.Buf && x != chainT {
				t = x
			}
		}
		if t < 0 {
			return fmt.Errorf("group %d-%d, call %d (operator %d): reads buffer %d, none of its inputs'", grp.First, grp.Last, n, s.Op, src.Buf)
		}
		for _, l := range grp.Lines {
			if l.Buf == src.Buf {
				base = s.Rows.Lo * rowBytes(t) // a line of the group: the view starts at the band's rows
			}
		}
	}
	at, _ := viewBytes(src)
	for _, k := range moveReads(c) {
		if want := tag(t, base+k); tags[at+k] != want {
			return fmt.Errorf("group %d-%d, call %d (operator %d, rows %d-%d): reads byte %d of tensor %d's view, which holds %x, want %x",
				grp.First, grp.Last, n, s.Op, s.Rows.Lo, s.Rows.Hi, k, t, tags[at+k], want)
		}
	}
	o, size := viewBytes(dst)
	if size != (s.Rows.Hi-s.Rows.Lo)*rowBytes(ot) {
		return fmt.Errorf("group %d-%d, call %d: output view of %d bytes for rows %d-%d", grp.First, grp.Last, n, size, s.Rows.Lo, s.Rows.Hi)
	}
	for _, k := range moveWrites(c) {
		if k < 0 || k >= size {
			return fmt.Errorf("group %d-%d, call %d: writes byte %d outside its %d-byte output view", grp.First, grp.Last, n, k, size)
		}
		tags[o+k] = tag(ot, s.Rows.Lo*rowBytes(ot)+k)
	}
	return nil
}

// simulateSums replays call n of a group ending in a global pool run as
// sums (step s of its last operator): a band must read the input rows it
// names from the chain operand's line (or the group's input) and find
// the sums holding exactly the rows before it (the first band starts
// them); the last call must find every row added, and writes the output.
// The sums' bytes are tagged with the rows added so far.
func simulateSums(g *model.Graph, grp program.Group, s program.Step, n int, tags []int64, viewBytes func(program.View) (int, int), tag func(t, k int) int64,
	chainT, outT int, rowBytes func(int) int, lineOf map[int]program.BufID, computed map[int][]int, added *int) error {
	sumsTag := func(rows int) int64 { return -(1 << 40) - int64(rows) }
	c := s.Call
	var sums, in, out *program.View
	for _, a := range c.Args {
		v, ok := a.(program.View)
		if !ok {
			continue
		}
		switch {
		case v.Buf == grp.SumsBuf:
			sums = &v
		case v.Buf == grp.Out:
			out = &v
		default:
			in = &v
		}
	}
	if sums == nil {
		return fmt.Errorf("group %d-%d, call %d (%s): no view of the sums", grp.First, grp.Last, n, c.Fn)
	}
	at, size := viewBytes(*sums)
	if chans := g.Tensors[outT].NumElements(); size != 4*chans {
		return fmt.Errorf("group %d-%d, call %d (%s): sums of %d bytes for %d channels", grp.First, grp.Last, n, c.Fn, size, chans)
	}
	have := func(rows int) error {
		for k := 0; k < size; k++ {
			if tags[at+k] != sumsTag(rows) {
				return fmt.Errorf("group %d-%d, call %d (%s): sums byte %d holds %x, want the sums of %d rows", grp.First, grp.Last, n, c.Fn, k, tags[at+k], rows)
			}
		}
		return nil
	}
	cnt := computed[grp.Last]
	if s.InRows.Hi == s.InRows.Lo { // the output from the sums
		if out == nil || in != nil {
			return fmt.Errorf("group %d-%d, call %d (%s): the last call must read the sums and write the output", grp.First, grp.Last, n, c.Fn)
		}
		if err := have(len(cnt) - 1); err != nil {
			return err
		}
		o, m := viewBytes(*out)
		for k := 0; k < m; k++ {
			tags[o+k] = tag(outT, k)
		}
		cnt[len(cnt)-1]++
		return nil
	}
	start := s.InRows.Lo == 0
	if l, ok := c.Args[len(c.Args)-1].(program.Lit); !ok || l.Value != start {
		return fmt.Errorf("group %d-%d, call %d (%s): the start flag must be set on the first band only", grp.First, grp.Last, n, c.Fn)
	}
	if !start {
		if err := have(*added); err != nil {
			return err
		}
	}
	if s.InRows.Lo != max(*added, 0) || in == nil {
		return fmt.Errorf("group %d-%d, call %d (%s): adds rows %d-%d after %d rows", grp.First, grp.Last, n, c.Fn, s.InRows.Lo, s.InRows.Hi, *added)
	}
	ia, isz := viewBytes(*in)
	want := lineOf[s.Op-1]
	if s.Op == grp.First {
		want = grp.In
	}
	if in.Buf != want || isz != (s.InRows.Hi-s.InRows.Lo)*rowBytes(chainT) {
		return fmt.Errorf("group %d-%d, call %d (%s): input view of %d bytes in buffer %d for rows %d-%d", grp.First, grp.Last, n, c.Fn, isz, in.Buf, s.InRows.Lo, s.InRows.Hi)
	}
	for k := 0; k < isz; k++ {
		if w := tag(chainT, s.InRows.Lo*rowBytes(chainT)+k); tags[ia+k] != w {
			return fmt.Errorf("group %d-%d, call %d (%s, rows %d-%d): input byte %d holds %x, want %x", grp.First, grp.Last, n, c.Fn, s.InRows.Lo, s.InRows.Hi, k, tags[ia+k], w)
		}
	}
	*added = s.InRows.Hi
	for k := 0; k < size; k++ {
		tags[at+k] = sumsTag(*added)
	}
	for y := s.InRows.Lo; y < s.InRows.Hi; y++ {
		cnt[y]++
	}
	return nil
}

// TestFusedGroupsSimulated replays every fused group the generator chooses
// for the reference models and the fixtures, and every group of the
// random chains run fused whole, on the arena as planned.
func TestFusedGroupsSimulated(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "*.tflite"))
	more, _ := filepath.Glob(filepath.Join(e2e.SharedDir(t), "models", "*.tflite"))
	groups := 0
	for _, f := range append(files, more...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		g, err := model.Parse(f, data)
		if err != nil {
			t.Fatal(err)
		}
		popt := layout.Options{Session: planner.NewSession(0)}
		p, _, err := Program(g, Options{Fuse: true, Plan: popt})
		if err != nil {
			t.Fatal(err)
		}
		lay, err := layout.Make(p, nil, popt)
		if err != nil {
			t.Fatal(err)
		}
		if err := simulateGroups(p, lay); err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
		}
		for _, grp := range p.Groups {
			t.Logf("%s: operators %d-%d fused: %d calls (%d in the loop, %d runs)", filepath.Base(f), grp.First, grp.Last, grp.Calls(), len(grp.Body), grp.Iter)
		}
		groups += len(p.Groups)
	}
	r := rand.New(rand.NewPCG(5, 8))
	for i := 0; i < difftest.Count(50, 400); i++ {
		data, _, desc := difftest.RandChain(r)
		g, err := model.Parse("chain.tflite", data)
		if err != nil {
			t.Fatal(err)
		}
		p, err := fuseAll(g)
		if err != nil {
			t.Fatalf("chain %d (%s): %v", i, desc, err)
		}
		lay, err := layout.Make(p, nil, layout.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := simulateGroups(p, lay); err != nil {
			t.Errorf("chain %d (%s): %v", i, desc, err)
		}
		groups += len(p.Groups)
	}
	t.Logf("%d fused groups simulated", groups)
	if groups == 0 {
		t.Error("no fused group")
	}
}

// TestFusedChainsMatchTFLM: random chains of convolution, pointwise,
// depthwise and pool layers run fused whole give byte-identical outputs to
// the layer-by-layer build and TFLM's outputs; the chains where the
// generator chooses groups itself are run that way too.
func TestFusedChainsMatchTFLM(t *testing.T) {
	o := oracle.New(t)
	t.Run("CONV_2D_chains_fused", func(t *testing.T) {
		r := rand.New(rand.NewPCG(21, 4))
		var n difftest.Tally
		var sw difftest.Sweep
		var counts fusedCounts
		for i := 0; n.Done() < difftest.Count(20, 150) && i < 2000; i++ {
			data, x, desc := difftest.RandChain(r)
			flat, ferr := inProcess(data, x.Raw())
			if !sw.All() && !sw.Pick(i, chainPath(data)) {
				// Fused against layer by layer only.
				n.UnrunCase(ferr)
				if ferr == nil {
					if err := compareFused(data, x.Raw(), flat[0], nil, &counts); err != nil {
						t.Errorf("chain %d (%s): %v", i, desc, err)
						n.Mismatches++
					}
				}
				continue
			}
			want, oerr := o.Run(data, x.CSV())
			if n.Skip(t, oerr, i, desc) {
				continue
			}
			if oerr != nil || ferr != nil {
				if (oerr == nil) != (ferr == nil) {
					t.Errorf("chain %d (%s): TFLM %v, layer by layer %v", i, desc, oerr, ferr)
					n.Mismatches++
				}
				n.Refused++
				continue
			}
			if err := compareFused(data, x.Raw(), flat[0], want[0], &counts); err != nil {
				t.Errorf("chain %d (%s): %v", i, desc, err)
				n.Mismatches++
			}
			n.Compared++
		}
		t.Logf("%d chains, %d where the generator chose groups itself, %d fused into DAG groups too", n.Compared+n.Unrun, counts.chosen, counts.dag)
		n.Log(t)
	})
}

// chainPath is the path of a chain through the generator (sweep): run
// fused whole (fuseAll) and as the generator chooses.
func chainPath(data []byte) []string {
	g, err := model.Parse("chain.tflite", data)
	if err != nil {
		return difftest.RefusalPath("invalid", err)
	}
	p, err := fuseAll(g)
	if err != nil {
		return difftest.RefusalPath("refused", err)
	}
	path := pathOf(data, Options{Fuse: true})
	for _, e := range difftest.ProgramPath(p) {
		path = append(path, "fused whole: "+e)
	}
	return path
}

// compareFused runs the chain fused whole and as the generator chooses,
// and compares both with the layer-by-layer output and TFLM's (want; nil
// when there is no TFLM reference).
func compareFused(data, input, flat []byte, want []string, n *fusedCounts) error {
	g, err := model.Parse("chain.tflite", data)
	if err != nil {
		return err
	}
	p, err := fuseAll(g)
	if err != nil {
		return err
	}
	if len(p.Groups) == 0 && !hasADD(g) {
		return fmt.Errorf("no group formed")
	}
	q, _, err := Program(g, Options{Fuse: true})
	if err != nil {
		return err
	}
	if len(q.Groups) > 0 {
		n.chosen++
	}
	progs := []*program.Program{p, q}
	d, err := fuseAllDAG(g)
	if err != nil {
		return err
	}
	if dagLines(d) > 0 {
		n.dag++
		progs = append(progs, d)
	}
	for _, prog := range progs {
		lay, err := layout.Make(prog, nil, layout.Options{})
		if err != nil {
			return err
		}
		if err := simulateGroups(prog, lay); err != nil {
			return err
		}
		got, err := difftest.RunPlanned(prog, lay, input)
		if err != nil {
			return err
		}
		if !slices.Equal(got[0], flat) {
			return fmt.Errorf("fused (%d groups) and layer-by-layer outputs differ", len(prog.Groups))
		}
		if want == nil {
			continue
		}
		if err := difftest.CompareRaw(g.Tensors[g.Outputs[0]].Type, got[0], want); err != nil {
			return err
		}
	}
	return nil
}

// FuzzFusedChains keeps drawing random chains (randTypedChain, one seed
// per input, int8, int16 or float32 by the seed): run fused whole and as
// chosen, the outputs must be byte-identical to the layer-by-layer build
// and equal TFLM's. The oracle has recordings of the seed corpus only: a
// new input is checked against the layer-by-layer build alone (whose
// kernels the differential tests check against TFLM), and a refusal must be
// an unsupported-model or invalid-model error (difftest.RefusedCleanly).
func FuzzFusedChains(f *testing.F) {
	for s := uint64(0); s < 8; s++ {
		f.Add(s)
	}
	o := oracle.New(f)
	f.Fuzz(func(t *testing.T, seed uint64) {
		dt := []model.DType{model.Int8, model.Int16, model.Float32}[seed%3]
		data, x, desc := randTypedChain(rand.New(rand.NewPCG(seed, 91)), dt)
		flat, ferr := inProcess(data, x.Raw())
		want, oerr := o.Run(data, x.CSV())
		if errors.Is(oerr, oracle.ErrNotRecorded) {
			if ferr != nil {
				if !difftest.RefusedCleanly(ferr) {
					t.Fatalf("%s: layer by layer %v, neither an unsupported-model nor an invalid-model error", desc, ferr)
				}
				return
			}
			var counts fusedCounts
			if err := compareFused(data, x.Raw(), flat[0], nil, &counts); err != nil {
				t.Fatalf("%s: %v", desc, err)
			}
			return
		}
		if ferr != nil && oerr == nil && difftest.ConvTooLarge(ferr) {
			return
		}
		if (ferr == nil) != (oerr == nil) {
			t.Fatalf("%s: layer by layer %v, TFLM %v", desc, ferr, oerr)
		}
		if ferr != nil {
			return
		}
		var counts fusedCounts
		if err := compareFused(data, x.Raw(), flat[0], want[0], &counts); err != nil {
			t.Fatalf("%s: %v", desc, err)
		}
	})
}

// hasADD says whether g has an ADD, which can leave a chain without two
// linked layers to fuse.
func hasADD(g *model.Graph) bool {
	for _, op := range g.Ops {
		if op.Code == model.OpAdd {
			return true
		}
	}
	return false
}
