package schedule

import (
	"slices"

	"github.com/tflm-gen/tflm-gen/gen/lower"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/model"
)

// maxOverlapWork bounds the work of chooseOverlaps: operators tried times
// buffers planned. Each trial plans the whole program, so on a program of n
// buffers with as many candidates the work would grow as n squared; the
// models of ../shared stay far below (person_detect: 14 candidates of 32
// buffers).
const maxOverlapWork = 1 << 16

// chooseOverlaps picks the operators to overlap: starting from none, each
// operator that offers an overlap, in order, is kept when its pair is
// possible and the arena comes out smaller with it (plan returns the arena
// of a program). It returns the chosen program. Where candidates times
// buffers exceed maxOverlapWork, only the candidates at the steps with the
// most bytes live are tried (maxOverlapWork/buffers of them).
func chooseOverlaps(g *model.Graph, frags []*lower.Fragment, opt lower.Options, flat *program.Program, plan func(*program.Program) (int, error)) (*program.Program, map[int]bool, error) {
	var cands []*lower.Fragment
	for _, f := range frags {
		if f.OffersOverlap() {
			cands = append(cands, f)
		}
	}
	if n := len(flat.Buffers); len(cands)*max(n, 1) > maxOverlapWork {
		cands = heaviest(flat, cands, maxOverlapWork/max(n, 1))
	}
	bestSize := -1
	var chosen map[int]bool
	for _, c := range cands {
		if bestSize < 0 {
			n, err := plan(flat)
			if err != nil {
				return nil, nil, err
			}
			bestSize = n
		}
		try := map[int]bool{c.Op(): true}
		for op := range chosen {
			try[op] = true
		}
		// The ties change no buffer but the input's: plan a copy of the
		// flat program's buffers with them, and assemble the calls only
		// for the choice.
		q := *flat
		q.Buffers, q.Overlaps = slices.Clone(flat.Buffers), nil
		if !opt.NoShare {
			lower.TieOverlaps(frags, &q, try)
		}
		if len(q.Overlaps) != len(try) {
			continue // this operator's input does not die there
		}
		n, err := plan(&q)
		if err != nil {
			return nil, nil, err
		}
		if n < bestSize {
			bestSize, chosen = n, try
		}
	}
	if chosen == nil {
		return flat, nil, nil
	}
	o := opt
	o.Overlap = chosen
	p, err := lower.Assemble(g, frags, o)
	return p, chosen, err
}

// heaviest returns the first keep of cands (at least one) by the bytes live
// at their step in p, most first, in program order.
func heaviest(p *program.Program, cands []*lower.Fragment, keep int) []*lower.Fragment {
	n := len(p.Ops)
	live := make([]int, n+1)
	for _, b := range p.Buffers {
		if b.First >= 0 && b.First < n {
			live[b.First] += b.Size
			live[min(b.Last+1, n)] -= b.Size
		}
	}
	for i := 1; i <= n; i++ {
		live[i] += live[i-1]
	}
	byLive := slices.Clone(cands)
	slices.SortStableFunc(byLive, func(a, b *lower.Fragment) int { return live[b.Op()] - live[a.Op()] })
	byLive = byLive[:max(1, min(keep, len(byLive)))]
	slices.SortFunc(byLive, func(a, b *lower.Fragment) int { return a.Op() - b.Op() })
	return byLive
}
