package emit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/planner"
)

// memory is one memory the operator functions take as a parameter: the
// arena, one pool of a multi-pool layout (tflm-gen -pool), or a graph
// input or output in the application's memory (-io external).
type memory struct {
	param string // the parameter and local variable: "a", "pDTCM", "ioIn0"
	get   string // the Model method returning it: "arena", "poolDTCM"; "" for io
	field string // the Model field holding it: "mem", "memDTCM"
	size  string // the constant of its size: "ArenaSize", "DTCMSize"
	typ   string // with Bind, the type the application provides: "Memory", "DTCMMemory"; for io "Input0"
	pool  int    // index into layout.Pools, -1 for the single arena
	name  string // the pool's name, "" for the single arena
	// io is the Invoke parameter of an input or output in the
	// application's memory ("in0"), "" for the others.
	io string
	// bytes is an io memory's size.
	bytes int
}

// memories lists the memories of layout lay: the arena, or every pool that
// holds a buffer, in the order the pools were given, then the inputs and
// outputs of -io external.
func memories(lay *layout.Layout) []memory {
	arena := memory{param: "a", get: "arena", field: "mem", size: "ArenaSize", typ: "Memory", pool: -1}
	if lay.Pools == nil {
		return []memory{arena}
	}
	var out []memory
	for i, p := range lay.Pools {
		switch {
		case p.IO != "":
			kind, k := "Output", strings.TrimPrefix(p.IO, "out")
			if strings.HasPrefix(p.IO, "in") {
				kind, k = "Input", strings.TrimPrefix(p.IO, "in")
			}
			out = append(out, memory{param: "io" + kind + k, typ: kind + k, pool: i, name: p.IO, io: p.IO, bytes: p.Plan.Size})
		case p.Name == "":
			arena.pool = i
			out = append(out, arena)
		case len(p.Members) > 0 || p.Shared:
			up := poolIdent(p.Name)
			out = append(out, memory{param: "p" + up, get: "pool" + up, field: "mem" + up, size: up + "Size", typ: up + "Memory", pool: i, name: p.Name})
		}
	}
	return out
}

// oneArena reports whether the Model holds one arena, as without -pool
// (with -io external too).
func (e *emitter) oneArena() bool {
	for _, m := range e.mems {
		if m.io == "" && m.name != "" {
			return false
		}
	}
	return true
}

// extIO reports whether the inputs and outputs are in the application's
// memory (-io external).
func (e *emitter) extIO() bool {
	for _, m := range e.mems {
		if m.io != "" {
			return true
		}
	}
	return false
}

// poolIdent is the identifier part a pool's name gives ("dtcm" -> "DTCM";
// pool names are lower-case letters and digits, see CheckPoolName).
func poolIdent(name string) string { return strings.ToUpper(name) }

// memIndex is the index in e.mems of buffer b's memory.
func (e *emitter) memIndex(b program.BufID) int {
	if e.lay.Pools == nil {
		return 0
	}
	pool := e.lay.PoolOf[b]
	for k, m := range e.mems {
		if m.pool == pool {
			return k
		}
	}
	e.fail("buffer %d: pool %d has no memory", b, pool)
	return 0
}

// memOf is the parameter naming buffer b's memory in operator functions;
// it records that the function being rendered uses that memory.
func (e *emitter) memOf(b program.BufID) string {
	k := e.memIndex(b)
	if e.used != nil {
		e.used[k] = true
	}
	return e.mems[k].param
}

// fnMems lists the memories an operator function takes: with one arena
// always the arena, else those its code uses (used), in e.mems order.
func (e *emitter) fnMems(used map[int]bool) []memory {
	if e.lay.Pools == nil {
		return e.mems
	}
	var out []memory
	for k, m := range e.mems {
		if used[k] {
			out = append(out, m)
		}
	}
	return out
}

// memParams are an operator function's parameters: a arena, or one per
// memory its code uses.
func (e *emitter) memParams(used map[int]bool) []jen.Code {
	mems := e.fnMems(used)
	var out []jen.Code
	for k, m := range mems {
		if k == len(mems)-1 {
			out = append(out, jen.Id(m.param).Id("arena"))
		} else {
			out = append(out, jen.Id(m.param))
		}
	}
	return out
}

// memArgs are the arguments of an operator function call.
func (e *emitter) memArgs(used map[int]bool) []jen.Code {
	var out []jen.Code
	for _, m := range e.fnMems(used) {
		out = append(out, jen.Id(m.param))
	}
	return out
}

// memDecls declare every memory in a Model method: a := m.arena(), and
// for an input or output of -io external its bytes from Invoke's argument:
// ioInput0 := arena(unsafe.Slice((*byte)(unsafe.Pointer(in0)), 9216)).
func (e *emitter) memDecls() []jen.Code {
	var out []jen.Code
	for _, m := range e.mems {
		if m.io != "" {
			out = append(out, jen.Id(m.param).Op(":=").Id("arena").Call(jen.Qual(pathUnsafe, "Slice").Call(
				jen.Parens(jen.Op("*").Byte()).Call(jen.Qual(pathUnsafe, "Pointer").Call(jen.Id(m.io))), jen.Lit(m.bytes))))
			continue
		}
		out = append(out, jen.Id(m.param).Op(":=").Id("m").Dot(m.get).Call())
	}
	return out
}

// oneMemDecl is a := m.arena() with a single arena, nothing with pools
// (the accessors then name each buffer's pool).
func (e *emitter) oneMemDecl() jen.Code {
	if e.lay.Pools == nil {
		return e.memDecls()[0]
	}
	return jen.Null()
}

// ioParams are Invoke's parameters with -io external: in0 *Input0, ...
func (e *emitter) ioParams() []jen.Code {
	var out []jen.Code
	for _, m := range e.mems {
		if m.io != "" {
			out = append(out, jen.Id(m.io).Op("*").Id(m.typ))
		}
	}
	return out
}

// arenaMems are the memories the Model holds or binds: all but the inputs
// and outputs of -io external.
func (e *emitter) arenaMems() []memory {
	var out []memory
	for _, m := range e.mems {
		if m.io == "" {
			out = append(out, m)
		}
	}
	return out
}

// sizeDoc is the ArenaSize comment's first sentences with pools.
func (e *emitter) sizeDoc() string {
	lay := e.lay
	var names []string
	for _, m := range e.arenaMems() {
		names = append(names, m.size)
	}
	doc := fmt.Sprintf("ArenaSize is the working memory of a Model in bytes, in pools (tflm-gen\n"+
		"-pool; layout.txt shows each): every activation, scratch and persistent\n"+
		"buffer is in one pool, chosen so that the bytes an Invoke moves times each\n"+
		"pool's cost are least, at offsets that never overlap buffers live at the\n"+
		"same time. Access cost %d: all in the cheapest pool %d, all in the\n"+
		"dearest %d; no assignment within the capacities costs less than %d.\n"+
		"Persistent state takes %d bytes of it. ArenaSize = %s.",
		lay.Cost, lay.FastCost, lay.SlowCost, lay.Bound,
		e.p.Bytes(planner.Persistent), strings.Join(names, " + "))
	for _, p := range lay.Pools {
		if len(p.Members) == 0 && p.IO == "" {
			doc += fmt.Sprintf("\nPool %q (capacity %d bytes, cost %d) holds no buffer: the cheaper pools\nhold them all.", p.Name, p.Size, p.Cost)
		}
	}
	return doc
}

// memoryDecls emits ArenaSize (and the pools' sizes), Model and the methods
// returning its memories.
func (e *emitter) memoryDecls(f *jen.File, arenaDoc string, needsInit bool) {
	lay, align := e.lay, e.lay.Align
	mems := e.arenaMems()
	switch {
	case e.inMulti:
		// ArenaSize and Memory are the package's, shared by its models.
	case e.oneArena():
		comment(f, arenaDoc)
		f.Const().Id("ArenaSize").Op("=").Lit(lay.ArenaSize())
	default:
		comment(f, e.sizeDoc()+arenaDoc[strings.Index(arenaDoc, "\n\nRAM:"):])
		poolSizeConsts(f, mems, lay.Pools, func(p layout.Pool) string {
			return fmt.Sprintf("; %d buffers, %d bytes accessed per Invoke", len(p.Members), p.Access)
		})
	}
	if !e.opt.Bind && e.oneArena() {
		e.modelDecl(f, needsInit)
		return
	}
	var fields []jen.Code
	for _, m := range mems {
		if e.opt.Bind {
			fields = append(fields, jen.Id(m.field).Op("*").Id(m.typ))
		} else {
			fields = append(fields,
				jen.Comment(fmt.Sprintf("%s holds pool %q; %s() returns its %d-byte-aligned window.", m.field, m.name, m.get, align)),
				jen.Id(m.field).Index(jen.Id(m.size).Op("+").Lit(align-1)).Byte())
		}
	}
	if needsInit {
		fields = append(fields,
			jen.Comment("ready is set once persistent state holds its initial value (the zero point of int8 state)."),
			jen.Id("ready").Bool())
	}
	if e.opt.Bind && !e.inMulti {
		memoryTypes(f, mems, align, func(m memory) string {
			what := "the whole working memory of a Model"
			if m.name != "" {
				what = fmt.Sprintf("pool %q of a Model's working memory", m.name)
			}
			return fmt.Sprintf("%s is memory the application provides for Bind, %s:\n"+
				"%s bytes and up to %d more, as the Model aligns it to %d bytes. Put it\n"+
				"where the firmware wants it (a linker section: see the README).", m.typ, what, m.size, align-1, align)
		})
		comment(f, "Model is one instance of the network, working in memory the application\n"+
			"provides: call Bind before Reset or Invoke (an unbound Model dereferences a\n"+
			"nil pointer). Two Models bound to the same memory overwrite each other.")
	} else if e.inMulti {
		comment(f, fmt.Sprintf("Model runs the TensorFlow Lite model %s, compiled ahead of time:\n"+
			"one instance of it, working in memory the application provides and the\n"+
			"package's other models share (Bind; see the package documentation). Call\n"+
			"Bind before Reset or Invoke.", commentText(e.g.Name)))
	} else {
		comment(f, "Model is one instance of the network with its own memory. The zero value is\nready to use; a Model must not be copied after first use.")
	}
	f.Type().Id("Model").Struct(fields...)
	if e.opt.Bind {
		var params, body []jen.Code
		var names []string
		for _, m := range mems {
			arg := strings.ToLower(m.field[3:])
			if arg == "" {
				arg = "mem"
			}
			names = append(names, arg)
			params = append(params, jen.Id(arg).Op("*").Id(m.typ))
			body = append(body, jen.Id("m").Dot(m.field).Op("=").Id(arg))
		}
		if needsInit {
			body = append(body, jen.Id("m").Dot("ready").Op("=").False())
		}
		doc := fmt.Sprintf("Bind makes m work in %s, memory the application owns; Invoke and\nReset use nothing else. ", strings.Join(names, " and "))
		if needsInit {
			doc += "The persistent state is initialised at the next Invoke\n(as after Reset). "
		}
		doc += "Bind does not allocate; it may be called again to move\nthe Model to other memory (the state is not carried over)."
		comment(f, doc)
		f.Func().Params(jen.Id("m").Op("*").Id("Model")).Id("Bind").Params(params...).Block(body...)
	}
	for _, m := range mems {
		mem := jen.Id("m").Dot(m.field)
		comment(f, fmt.Sprintf("%s returns the aligned %s.", m.get, map[bool]string{true: "working memory", false: fmt.Sprintf("memory of pool %q", m.name)}[m.name == ""]))
		f.Func().Params(jen.Id("m").Op("*").Id("Model")).Id(m.get).Params().Id("arena").Block(
			jen.Id("off").Op(":=").Int().Parens(jen.Op("-").Uintptr().Parens(jen.Qual(pathUnsafe, "Pointer").Call(jen.Op("&").Add(mem.Clone()).Index(jen.Lit(0)))).Op("&").Lit(align-1)),
			jen.Return(mem.Clone().Index(jen.Id("off").Op(":").Id("off").Op("+").Id(m.size).Op(":").Id("off").Op("+").Id(m.size))),
		)
	}
}

// ioTypes emits, with -io external, the type of every input or output,
// which the application holds and passes to Invoke:
//
//	type Input0 struct {
//		_    [0]uint64
//		Data [Input0Elements]int8
//	}
//	func (x *Input0) Bytes() []byte { ... }
func (e *emitter) ioTypes(f *jen.File, kind string, idx []int) {
	for k, ti := range idx {
		t := e.g.Tensors[ti]
		name := fmt.Sprintf("%s%d", kind, k)
		verb := "Invoke reads it where it is: a DMA may fill it in place"
		if kind == "Output" {
			verb = "Invoke writes it where it is"
		}
		comment(f, fmt.Sprintf("%s holds graph %s %d, tensor %d %q (%s%v), in the\napplication's memory: %s.", name, strings.ToLower(kind), k, ti, shortName(t.Name), t.Type, t.Shape, verb))
		f.Type().Id(name).Struct(
			jen.Id("_").Index(jen.Lit(0)).Uint64().Comment("aligns Data for the kernels' word loads"),
			jen.Id("Data").Index(jen.Id(name+"Elements")).Id(program.GoType(t.Type)),
		)
		comment(f, fmt.Sprintf("Bytes returns the raw little-endian bytes of x.Data (%d bytes).", t.Bytes()))
		f.Func().Params(jen.Id("x").Op("*").Id(name)).Id("Bytes").Params().Index().Byte().Block(
			jen.Return(jen.Qual(pathUnsafe, "Slice").Call(jen.Parens(jen.Op("*").Byte()).Call(jen.Qual(pathUnsafe, "Pointer").Call(jen.Id("x"))), jen.Lit(t.Bytes()))),
		)
	}
}

// poolSizeConsts emits ArenaSize as the sum of the pools' sizes and each
// pool's size, commented with its name, capacity, cost and note(pool):
//
//	const (
//		ArenaSize = DTCMSize + SRAMSize
//		DTCMSize  = 7248 // pool "dtcm": capacity 8192 bytes, cost 1...
//	)
func poolSizeConsts(f *jen.File, mems []memory, pools []layout.Pool, note func(layout.Pool) string) {
	var total []jen.Code
	defs := []jen.Code{nil}
	for k, m := range mems {
		if k > 0 {
			total = append(total, jen.Op("+"))
		}
		total = append(total, jen.Id(m.size))
		p := pools[m.pool]
		defs = append(defs, jen.Id(m.size).Op("=").Lit(p.Plan.Size).Comment(
			fmt.Sprintf("pool %q: capacity %d bytes, cost %d%s", p.Name, p.Size, p.Cost, note(p))))
	}
	if len(total) == 0 {
		total = []jen.Code{jen.Lit(0)} // every buffer is an input or output of the application's
	}
	defs[0] = jen.Id("ArenaSize").Op("=").Add(total...)
	f.Const().Defs(defs...)
}

// memoryTypes emits the type of every memory the application provides for
// Bind, its size plus align-1 bytes (the Model aligns its window), with
// the comment doc(memory).
func memoryTypes(f *jen.File, mems []memory, align int, doc func(memory) string) {
	for _, m := range mems {
		comment(f, doc(m))
		f.Type().Id(m.typ).Index(jen.Id(m.size).Op("+").Lit(align - 1)).Byte()
	}
}
