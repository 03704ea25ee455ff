package planner

import "slices"

// The block bound. A unit of tied buffers is one rigid block: it takes its
// whole extent E in the arena, and at a step where its live members cover
// one interval [A, B) of it (no hole), every other buffer live there lies
// below the unit's live part or above it, whole. With the unit at offset
// o >= 0, the buffers below sum to at most o+A and those above to at most
// H-o-B, and H >= o+E. Buffers do not split, so when no subset of them
// sums to what the room below holds, the arena must exceed the step's
// live total: for each subset sum b of the other buffers (a set of pieces
// S in all, where each other unit's live members count as the contiguous
// pieces of their union, a relaxation of that unit's rigidity),
//
//	H >= max(o + E, o + B + S - b), o = max(0, b - A),
//
// and H is at least the least of these over the sums b that a subset
// reaches. The bound is the largest such figure over the units of two or
// more members and the steps where their live members cover one interval.

// BlockBound says where the block bound exceeds the largest live total.
type BlockBound struct {
	Step    int   // the step
	Unit    []int // the tied buffers of the block, in the order of their ties
	Below   int   // bytes under the block's live part at that step (A)
	Between int   // bytes of other buffers live at that step (S)
	Live    int   // the largest live total, which the bound exceeds
}

// maxBlockWork bounds the block bound's work (members of the unit and of
// other units visited plus subset-sum words), so that planning stays fast on programs
// with many ties; past it the bound keeps what it has found.
const maxBlockWork = 1 << 22

// blockBound returns the block bound, at least bound, and where it is
// reached when above bound.
func (p *tiedProblem) blockBound(bound int) (int, *BlockBound) {
	live := bound
	var where *BlockBound
	work := 0
	var pieces []span
	var sizes []int
	var set []uint64
	for u, ms := range p.units {
		if len(ms) < 2 || p.extent[u] == 0 {
			continue
		}
		for s := p.first[u]; s <= p.last[u] && work < maxBlockWork; s++ {
			work += len(ms)
			pieces = pieces[:0]
			for _, m := range ms {
				if m.size > 0 && m.first <= s && s <= m.last {
					pieces = append(pieces, span{m.rel, m.rel + m.size})
				}
			}
			if len(pieces) == 0 {
				continue
			}
			pieces = unionOf(pieces)
			if len(pieces) != 1 {
				continue // a hole could hold another buffer
			}
			lo, hi := pieces[0].lo, pieces[0].hi
			// The other units' live members at s, as the pieces of each
			// unit's union.
			sizes = sizes[:0]
			other := map[int][]span{}
			for _, m := range ms {
				if m.first > s || s > m.last {
					continue
				}
				for _, b := range p.conflicts[m.buf] {
					work++
					if p.bufFirst[b] <= s && s <= p.bufLast[b] {
						v := p.unitOf[b]
						sp := span{p.rel[b], p.rel[b] + p.size[b]}
						if !slices.Contains(other[v], sp) {
							other[v] = append(other[v], sp)
						}
					}
				}
			}
			total, g := 0, 0
			for _, sps := range other {
				for _, sp := range unionOf(sps) {
					sizes = append(sizes, sp.hi-sp.lo)
					total += sp.hi - sp.lo
					g = gcd(g, sp.hi-sp.lo)
				}
			}
			// Subset sums in units of g, the sizes' greatest common
			// divisor.
			n := 0
			if g > 0 {
				n = total / g
			}
			work += (n/64 + 1) * (len(sizes) + 1)
			if work >= maxBlockWork {
				break
			}
			set = subsetSums(set, sizes, g, n)
			best := -1
			for b := 0; b <= n; b++ {
				if set[b/64]>>(b%64)&1 == 0 {
					continue
				}
				below := b * g
				o := max(0, below-lo)
				h := max(o+p.extent[u], o+hi+total-below)
				if best < 0 || h < best {
					best = h
				}
			}
			if best > bound {
				bound = best
				unit := make([]int, 0, len(ms))
				for _, m := range ms {
					unit = append(unit, m.buf)
				}
				where = &BlockBound{Step: s, Unit: unit, Below: lo, Between: total, Live: live}
			}
		}
	}
	return bound, where
}

// gcd is the greatest common divisor of a and b (gcd(0, b) = b).
func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// unionOf returns the union of spans as disjoint spans in order (sps is
// reordered).
func unionOf(sps []span) []span {
	slices.SortFunc(sps, func(a, b span) int { return a.lo - b.lo })
	out := sps[:0:0]
	for _, s := range sps {
		if n := len(out); n > 0 && s.lo <= out[n-1].hi {
			out[n-1].hi = max(out[n-1].hi, s.hi)
			continue
		}
		out = append(out, s)
	}
	return out
}

// subsetSums returns the set of subset sums of sizes, in units of g (which
// divides them all), up to n, as a bitset (set is reused).
func subsetSums(set []uint64, sizes []int, g, n int) []uint64 {
	words := n/64 + 1
	set = slices.Grow(set[:0], words)[:words]
	clear(set)
	set[0] = 1
	for _, z := range sizes {
		k := z / g
		if k == 0 {
			continue
		}
		// set |= set << k, from the top word down.
		ws, bs := k/64, uint(k%64)
		for w := words - 1; w >= ws; w-- {
			v := set[w-ws] << bs
			if bs > 0 && w-ws > 0 {
				v |= set[w-ws-1] >> (64 - bs)
			}
			set[w] |= v
		}
	}
	if r := (n + 1) % 64; r != 0 {
		set[words-1] &= 1<<uint(r) - 1
	}
	return set
}
