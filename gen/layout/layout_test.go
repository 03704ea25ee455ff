package layout

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/planner"
)

// prog builds a program over ops (one model.Op per code) and bufs.
func prog(codes []model.OpCode, bufs ...program.Buffer) *program.Program {
	g := &model.Graph{Name: "hand.tflite"}
	p := &program.Program{Graph: g, Buffers: bufs}
	for i, c := range codes {
		g.Ops = append(g.Ops, &model.Op{Index: i, Code: c})
		p.Ops = append(p.Ops, program.Op{Index: i, Code: c})
	}
	return p
}

func act(name string, size, first, last int, tensors ...int) program.Buffer {
	return program.Buffer{Buffer: planner.Buffer{Name: name, Size: size, First: first, Last: last, Kind: planner.Activation}, Tensors: tensors, Reset: -1, Op: -1}
}

func buf(name string, kind planner.Kind, size, first, last, op int) program.Buffer {
	reset := -1
	if kind == planner.Persistent {
		reset = 0
	}
	return program.Buffer{Buffer: planner.Buffer{Name: name, Size: size, First: first, Last: last, Kind: kind}, Reset: reset, Op: op}
}

// chain is a four-operator program: A (ops 0-1), B (1-2) and C (2-3)
// activations, scratch S of operator 1 and persistent state P (0-3).
// Operator 1 is the only step where A, B, S and P are all live.
func chain() *program.Program {
	return prog([]model.OpCode{model.OpConv2D, model.OpDepthwiseConv2D, model.OpFullyConnected, model.OpSoftmax},
		act("A", 100, 0, 1, 1),
		act("B", 50, 1, 2, 2),
		buf("S", planner.Scratch, 20, 1, 1, 1),
		act("C", 30, 2, 3, 3),
		buf("P", planner.Persistent, 10, 0, 3, 3),
	)
}

// checkPlan checks the layout l of p: one offset per buffer, offsets
// multiples of the alignment, every buffer inside the arena (aligned size),
// no two buffers live at the same step overlapping.
func checkPlan(t *testing.T, p *program.Program, l *Layout, align int) {
	t.Helper()
	if l.Align != align {
		t.Errorf("Align = %d, want %d", l.Align, align)
	}
	if len(l.Plan.Offsets) != len(p.Buffers) {
		t.Fatalf("%d offsets for %d buffers", len(l.Plan.Offsets), len(p.Buffers))
	}
	for i, b := range p.Buffers {
		off := l.Offset(program.BufID(i))
		if off != l.Plan.Offsets[i] {
			t.Errorf("Offset(%d) = %d, Plan.Offsets[%d] = %d", i, off, i, l.Plan.Offsets[i])
		}
		if off%align != 0 {
			t.Errorf("buffer %q at offset %d, not a multiple of %d", b.Name, off, align)
		}
		if off < 0 || off+planner.AlignedSize(b.Size, align) > l.Plan.Size {
			t.Errorf("buffer %q at [%d, %d) outside the arena of %d bytes", b.Name, off, off+planner.AlignedSize(b.Size, align), l.Plan.Size)
		}
	}
	if i, j, bad := planner.FirstOverlap(p.PlannerBuffers(), l.Plan.Offsets); bad {
		t.Errorf("buffers %q and %q are live together and overlap", p.Buffers[i].Name, p.Buffers[j].Name)
	}
	if l.Plan.Size < l.Plan.LowerBound {
		t.Errorf("arena %d below the lower bound %d", l.Plan.Size, l.Plan.LowerBound)
	}
}

func TestMakeChain(t *testing.T) {
	// The lower bound is the aligned total at operator 1: A+B+S+P. The
	// optimal planner reaches it: A, B, S and P conflict pairwise and are
	// stacked; C conflicts only with B and P, so it fits in A's place.
	tests := []struct {
		align, wantAlign, wantBound int
	}{
		{0, 16, 112 + 64 + 32 + 16}, // default 16: 100->112, 50->64, 20->32, 10->16
		{1, 1, 100 + 50 + 20 + 10},
		{4, 4, 100 + 52 + 20 + 12},
		{16, 16, 112 + 64 + 32 + 16},
		{64, 64, 128 + 64 + 64 + 64},
	}
	for _, tc := range tests {
		for _, s := range []planner.Strategy{planner.Optimal, planner.Greedy} {
			t.Run(fmt.Sprintf("align %d strategy %d", tc.align, s), func(t *testing.T) {
				p := chain()
				l, err := Make(p, nil, Options{Align: tc.align, Strategy: s})
				if err != nil {
					t.Fatal(err)
				}
				checkPlan(t, p, l, tc.wantAlign)
				if l.Plan.LowerBound != tc.wantBound || l.Plan.PeakStep != 1 {
					t.Errorf("lower bound %d at operator %d, want %d at operator 1", l.Plan.LowerBound, l.Plan.PeakStep, tc.wantBound)
				}
				if s == planner.Optimal && l.Plan.Size != tc.wantBound {
					t.Errorf("optimal arena %d, want the lower bound %d", l.Plan.Size, tc.wantBound)
				}
				if l.PlainSize != l.Plan.Size {
					t.Errorf("PlainSize %d without a plain program, want the arena %d", l.PlainSize, l.Plan.Size)
				}
			})
		}
	}
}

// TestMakeRandom plans pseudo-random programs (fixed seeds, so the test is
// reproducible) and checks the invariants of every plan.
func TestMakeRandom(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		steps := 2 + r.IntN(8)
		codes := make([]model.OpCode, steps)
		for i := range codes {
			codes[i] = model.OpAdd
		}
		var bufs []program.Buffer
		for i := range 3 + r.IntN(10) {
			first := r.IntN(steps)
			last := first + r.IntN(steps-first)
			kind := planner.Kind(r.IntN(3))
			if kind == planner.Persistent {
				first, last = 0, steps-1
			}
			bufs = append(bufs, buf(fmt.Sprint("b", i), kind, r.IntN(300), first, last, first))
		}
		p := prog(codes, bufs...)
		for _, align := range []int{1, 8, 16, 32} {
			for _, s := range []planner.Strategy{planner.Optimal, planner.Greedy} {
				t.Run(fmt.Sprintf("seed %d align %d strategy %d", seed, align, s), func(t *testing.T) {
					l, err := Make(p, nil, Options{Align: align, Strategy: s, Effort: 20000})
					if err != nil {
						t.Fatal(err)
					}
					checkPlan(t, p, l, align)
				})
			}
		}
	}
}

func TestMakePlainSize(t *testing.T) {
	// p: tensors 1 and 2 (a view, op 1) share one 64-byte buffer live
	// 0-2; input t0 (32, op 0) and output t3 (32, op 2). Step totals 96,
	// 64, 96: arena 96. plain has t1 (0-1) and t2 (1-2) in buffers of
	// their own: step 1 holds both, 128 bytes, and 128 is reachable (t1
	// at 0, t2 at 64; t0, live before t2, at 64; t3, live after t1, at 0).
	codes := []model.OpCode{model.OpConv2D, model.OpReshape, model.OpFullyConnected}
	p := prog(codes, act("t0", 32, 0, 0, 0), act("t1", 64, 0, 2, 1, 2), act("t3", 32, 2, 2, 3))
	plain := prog(codes, act("t0", 32, 0, 0, 0), act("t1", 64, 0, 1, 1), act("t2", 64, 1, 2, 2), act("t3", 32, 2, 2, 3))
	l, err := Make(p, plain, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkPlan(t, p, l, 16)
	if l.Plan.Size != 96 || l.PlainSize != 128 {
		t.Errorf("arena %d, plain %d; want 96 and 128", l.Plan.Size, l.PlainSize)
	}
	// Plan.Offsets are those of p's buffers, not of plain's.
	if len(l.Plan.Offsets) != len(p.Buffers) {
		t.Errorf("%d offsets for %d buffers", len(l.Plan.Offsets), len(p.Buffers))
	}
}

func TestMakeErrors(t *testing.T) {
	codes := []model.OpCode{model.OpAdd, model.OpAdd}
	good := prog(codes, act("x", 16, 0, 1))
	bad := prog(codes, act("x", 16, 1, 0)) // Last < First
	tests := []struct {
		name        string
		p, plain    *program.Program
		opt         Options
		is          error // nil: any error
		wantMessage string
	}{
		{name: "alignment not a power of two", p: good, opt: Options{Align: 12},
			wantMessage: "planning: alignment 12 is not a power of two"},
		{name: "bad buffer", p: bad, is: planner.ErrBadBuffer,
			wantMessage: `planning: invalid buffer: buffer 0 "x": size 16, lifetime [1, 0]`},
		{name: "bad plain program", p: good, plain: bad, is: planner.ErrBadBuffer},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Make(tc.p, tc.plain, tc.opt)
			if err == nil {
				t.Fatalf("no error, layout %+v", l)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %q does not wrap %q", err, tc.is)
			}
			if tc.wantMessage != "" && err.Error() != tc.wantMessage {
				t.Errorf("error %q, want %q", err, tc.wantMessage)
			}
		})
	}
}

func TestMakeArenaTooLargeForInt32(t *testing.T) {
	if strconv.IntSize < 64 {
		t.Skip("a buffer above 2^31-1 bytes cannot be described with a 32-bit int")
	}
	size := model.MaxTensorBytes
	size++ // 2^31: aligned to 16 it is still 2^31 > MaxInt32
	p := prog([]model.OpCode{model.OpAdd}, act("huge", size, 0, 0))
	_, err := Make(p, nil, Options{})
	if !errors.Is(err, model.ErrUnsupported) {
		t.Errorf("error %v, want one wrapping %v", err, model.ErrUnsupported)
	}
}

func TestCheckLimit(t *testing.T) {
	p := chain()
	l, err := Make(p, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Plan.Size != 224 || l.Plan.PeakStep != 1 {
		t.Fatalf("chain planned as %d bytes, peak %d; want 224 at operator 1", l.Plan.Size, l.Plan.PeakStep)
	}
	// A second, hand-made layout over a plan that is not at its lower
	// bound: the message then gives bound and certificate. Aligned step
	// totals: 16 (x), 16+48+16+48 = 128 (x, y, w, v), 16+64 = 80 (w, z):
	// lower bound 128 at operator 1; the offsets reach 112+48 = 160 and
	// overlap nothing live at the same time. At the peak x and w are tied
	// at 16 bytes and keep buffer order; z (60 bytes) is larger than v, x
	// and w but not live there.
	q := prog([]model.OpCode{model.OpConv2D, model.OpAdd, model.OpMean},
		act("x", 16, 0, 1),
		act("y", 48, 1, 1),
		buf("w", planner.Scratch, 16, 1, 2, 1),
		buf("v", planner.Scratch, 40, 1, 1, 1),
		act("z", 60, 2, 2),
	)
	ql := &Layout{Align: 16, PlainSize: 160, Plan: &planner.Plan{
		Offsets: []int{0, 16, 64, 112, 0}, Size: 160, LowerBound: 128, Cert: planner.BestFound, PeakStep: 1,
	}}
	if i, j, bad := planner.FirstOverlap(q.PlannerBuffers(), ql.Plan.Offsets); bad {
		t.Fatalf("hand-made plan overlaps buffers %d and %d", i, j)
	}
	tests := []struct {
		name  string
		p     *program.Program
		l     *Layout
		limit int
		want  string // "" for no error
	}{
		{name: "no limit", p: p, l: l, limit: 0},
		{name: "negative limit", p: p, l: l, limit: -1},
		{name: "limit equal to the arena", p: p, l: l, limit: 224},
		{name: "limit above the arena", p: p, l: l, limit: 1 << 20},
		{
			// 224-200 = 24 over; the plan is at its lower bound; the
			// live buffers at operator 1 (A, B, S, P) largest first with
			// their unaligned sizes and offsets.
			name: "over, at the lower bound", p: p, l: l, limit: 200,
			want: `arena larger than the limit: arena needs 224 bytes, 24 over the limit of 200; ` +
				`the plan equals the lower bound, so no plan of these buffers is smaller; ` +
				`peak at operator 1 (DEPTHWISE_CONV_2D), where 224 bytes are live (aligned sizes, bytes an output shares with its dying input counted once), in these buffers: ` +
				fmt.Sprintf(`"A" 100 bytes at offset %d (activation, ops 0-1); "B" 50 bytes at offset %d (activation, ops 1-2); `, l.Plan.Offsets[0], l.Plan.Offsets[1]) +
				fmt.Sprintf(`"S" 20 bytes at offset %d (scratch, ops 1-1); "P" 10 bytes at offset %d (persistent, ops 0-3)`, l.Plan.Offsets[2], l.Plan.Offsets[4]),
		},
		{
			// 160-64 = 96 over; gap 160-128 = 32, the bound over the
			// limit too.
			name: "over, bound over too", p: q, l: ql, limit: 64,
			want: `arena larger than the limit: arena needs 160 bytes, 96 over the limit of 64; ` +
				`the lower bound, 128 bytes, is over the limit too, so no plan of these buffers fits (this one is best found, gap 32 bytes); ` +
				`peak at operator 1 (ADD), where 128 bytes are live (aligned sizes, bytes an output shares with its dying input counted once), in these buffers: ` +
				`"y" 48 bytes at offset 16 (activation, ops 1-1); "v" 40 bytes at offset 112 (scratch, ops 1-1); ` +
				`"x" 16 bytes at offset 0 (activation, ops 0-1); "w" 16 bytes at offset 64 (scratch, ops 1-2)`,
		},
		{
			// The bound fits the limit: what the certificate says
			// about a plan that fits.
			name: "over, bound within, budget out", p: q, l: ql, limit: 144,
			want: `the lower bound, 128 bytes, is within the limit and the plan is best found, gap 32 bytes: the search stopped at its budget, so a plan that fits may exist (-plan-effort raises the budget); peak at operator 1`,
		},
		{
			name: "over, bound within, exhaustive", p: q, l: withCert(ql, planner.Exhaustive), limit: 144,
			want: `the lower bound, 128 bytes, is within the limit, but the plan is optimal (exhaustive): the search tried every placement and none is smaller; peak`,
		},
		{
			name: "over, bound within, all orders", p: q, l: withCert(ql, planner.AllOrders), limit: 144,
			want: `is within the limit and the plan is best of every placement order, gap 32 bytes: no placement order does better, though a plan that fits may exist; peak`,
		},
		{
			name: "over, bound within, greedy", p: q, l: withCert(ql, planner.Heuristic), limit: 144,
			want: `is within the limit and the plan is greedy (heuristic), 32 bytes above the lower bound: -planner optimal searches for a smaller one; peak`,
		},
		{
			// Overlapped pair: T is written over U, which dies at
			// operator 1; U's 32 bytes at 16 and T's at 0 share 16.
			name: "shared bytes", limit: 40,
			p: prog([]model.OpCode{model.OpConv2D, model.OpConv2D}, act("U", 32, 0, 1), act("T", 32, 1, 1)),
			l: &Layout{Align: 16, PlainSize: 64, Plan: &planner.Plan{Offsets: []int{16, 0}, Size: 48, LowerBound: 48, PeakStep: 1}},
			want: `peak at operator 1 (CONV_2D), where 48 bytes are live (aligned sizes, bytes an output shares with its dying input counted once), in these buffers: ` +
				`"U" 32 bytes at offset 16 (activation, ops 0-1); "T" 32 bytes at offset 0 (activation, ops 1-1; written over "U", sharing 16 bytes with it)`,
		},
		{
			// Many live buffers: the largest few, then a count.
			name: "many", limit: 100, p: many(12),
			l:    &Layout{Align: 16, Plan: &planner.Plan{Offsets: []int{0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176}, Size: 192, LowerBound: 192}},
			want: `"b7" 16 bytes at offset 112 (activation, ops 0-0); 4 more, 64 bytes in all`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckLimit(tc.p, tc.l, tc.limit)
			if tc.want == "" {
				if err != nil {
					t.Errorf("CheckLimit(%d) = %v, want nil", tc.limit, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("CheckLimit(%d) = nil, want an error", tc.limit)
			}
			if !errors.Is(err, ErrTooLarge) {
				t.Errorf("error %q does not wrap ErrTooLarge", err)
			}
			if !strings.Contains(err.Error(), tc.want) || strings.HasPrefix(tc.want, "arena") && err.Error() != tc.want {
				t.Errorf("error\n%s\nwant (in it)\n%s", err, tc.want)
			}
		})
	}
}

// withCert returns a copy of l with the certificate c.
func withCert(l *Layout, c planner.Certificate) *Layout {
	plan := *l.Plan
	plan.Cert = c
	return &Layout{Align: l.Align, PlainSize: l.PlainSize, Plan: &plan}
}

// many is one operator with n 16-byte activations b0, b1, ... live at it.
func many(n int) *program.Program {
	var bufs []program.Buffer
	for i := range n {
		bufs = append(bufs, act(fmt.Sprintf("b%d", i), 16, 0, 0))
	}
	return prog([]model.OpCode{model.OpAdd}, bufs...)
}
