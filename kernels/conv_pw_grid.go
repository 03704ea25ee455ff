package kernels

import "unsafe"

// convPWGrid computes the block of g.nb output channels (an even number;
// g.t holds their requantizations, convPWBlock) of every pixel, for rows
// of K = 8*g.K8 inputs: g.in holds the pixels' rows, g.wt the block's
// weights from its first channel pair on (convPWPairs' layout: per pair,
// per group of eight columns, the first channel's eight weights then the
// second's) and g.out the outputs from the block's first channel of pixel
// 0 on, pixels g.N apart.
//
// The loops run pixel pair by pixel pair and, for each, channel pair by
// channel pair (a tile): the four sums of two pixels by two channels start
// at the folded biases and take one multiply-add per product, 32 columns
// a step, then 16 and 8 as K requires. Only the sums, the three row
// pointers and the step count are live across the column loop, which a
// 32-bit core keeps in its registers; the loop state lives in g, as
// offsets, and what a tile needs besides (its requantizations, the output
// pointers) is read once per tile, after the column loop. An odd last
// pixel is paired with itself: its second sums equal its first and are
// stored at the same place.
//
// The lengths are checked once on entry; the loops then address the rows,
// weights, records and outputs through pointers, with no bounds checks,
// and never form a pointer beyond the last element they read or write.
//
//go:noinline
func convPWGrid(g *convPWRunArgs) {
	P, N, nb, K := g.P, g.N, g.nb&^1, 8*g.K8
	if P <= 0 || nb <= 0 || K <= 0 || nb > len(g.t) {
		return
	}
	_ = g.in[P*K-1]
	_ = g.wt[nb*K-1]
	_ = g.out[(P-1)*N+nb-1]
	g.nb = nb
	g.pin = unsafe.Pointer(unsafe.SliceData(g.in))
	g.pwt = unsafe.Pointer(unsafe.SliceData(g.wt))
	g.pout = unsafe.Pointer(unsafe.SliceData(g.out))
	for g.px = 0; g.px < g.P; g.px += 2 {
		g.xa, g.oa = g.px*8*g.K8, g.px*g.N
		g.xb, g.ob = g.xa, g.oa
		if g.px+1 < g.P {
			g.xb, g.ob = g.xa+8*g.K8, g.oa+g.N
		}
		g.wo = 0
		for g.j = 0; g.j < g.nb; g.j += 2 {
			t := (*[2]convPWCh)(unsafe.Add(unsafe.Pointer(&g.t), uintptr(g.j)*unsafe.Sizeof(g.t[0])))
			s00, s01 := t[0].bias, t[1].bias
			s10, s11 := s00, s01
			a, b, r := unsafe.Add(g.pin, g.xa), unsafe.Add(g.pin, g.xb), unsafe.Add(g.pwt, g.wo)
			if n := g.K8 >> 2; n > 0 {
				for {
					x, u := int32(*(*int8)(a)), int32(*(*int8)(r))
					s00 += x * u
					y := int32(*(*int8)(b))
					s10 += y * u
					v := int32(*(*int8)(unsafe.Add(r, 8)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 1))), int32(*(*int8)(unsafe.Add(r, 1)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 1)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 9)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 2))), int32(*(*int8)(unsafe.Add(r, 2)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 2)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 10)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 3))), int32(*(*int8)(unsafe.Add(r, 3)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 3)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 11)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 4))), int32(*(*int8)(unsafe.Add(r, 4)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 4)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 12)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 5))), int32(*(*int8)(unsafe.Add(r, 5)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 5)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 13)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 6))), int32(*(*int8)(unsafe.Add(r, 6)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 6)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 14)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 7))), int32(*(*int8)(unsafe.Add(r, 7)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 7)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 15)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 8))), int32(*(*int8)(unsafe.Add(r, 16)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 8)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 24)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 9))), int32(*(*int8)(unsafe.Add(r, 17)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 9)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 25)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 10))), int32(*(*int8)(unsafe.Add(r, 18)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 10)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 26)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 11))), int32(*(*int8)(unsafe.Add(r, 19)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 11)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 27)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 12))), int32(*(*int8)(unsafe.Add(r, 20)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 12)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 28)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 13))), int32(*(*int8)(unsafe.Add(r, 21)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 13)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 29)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 14))), int32(*(*int8)(unsafe.Add(r, 22)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 14)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 30)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 15))), int32(*(*int8)(unsafe.Add(r, 23)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 15)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 31)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 16))), int32(*(*int8)(unsafe.Add(r, 32)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 16)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 40)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 17))), int32(*(*int8)(unsafe.Add(r, 33)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 17)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 41)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 18))), int32(*(*int8)(unsafe.Add(r, 34)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 18)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 42)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 19))), int32(*(*int8)(unsafe.Add(r, 35)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 19)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 43)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 20))), int32(*(*int8)(unsafe.Add(r, 36)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 20)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 44)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 21))), int32(*(*int8)(unsafe.Add(r, 37)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 21)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 45)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 22))), int32(*(*int8)(unsafe.Add(r, 38)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 22)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 46)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 23))), int32(*(*int8)(unsafe.Add(r, 39)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 23)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 47)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 24))), int32(*(*int8)(unsafe.Add(r, 48)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 24)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 56)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 25))), int32(*(*int8)(unsafe.Add(r, 49)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 25)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 57)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 26))), int32(*(*int8)(unsafe.Add(r, 50)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 26)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 58)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 27))), int32(*(*int8)(unsafe.Add(r, 51)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 27)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 59)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 28))), int32(*(*int8)(unsafe.Add(r, 52)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 28)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 60)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 29))), int32(*(*int8)(unsafe.Add(r, 53)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 29)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 61)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 30))), int32(*(*int8)(unsafe.Add(r, 54)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 30)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 62)))
					s01 += x * v
					s11 += y * v
					x, u = int32(*(*int8)(unsafe.Add(a, 31))), int32(*(*int8)(unsafe.Add(r, 55)))
					s00 += x * u
					y = int32(*(*int8)(unsafe.Add(b, 31)))
					s10 += y * u
					v = int32(*(*int8)(unsafe.Add(r, 63)))
					s01 += x * v
					s11 += y * v
					if n--; n == 0 {
						break
					}
					a, b, r = unsafe.Add(a, 32), unsafe.Add(b, 32), unsafe.Add(r, 64)
				}
				// A store, so that what the loop does not use is read
				// from g again below instead of being kept in registers
				// from before the loop (gc would reuse those loads).
				g.s = s00
				if g.K8%4 != 0 {
					a, b, r = unsafe.Add(a, 32), unsafe.Add(b, 32), unsafe.Add(r, 64)
				}
			}
			if g.K8&2 != 0 {
				x, u := int32(*(*int8)(a)), int32(*(*int8)(r))
				s00 += x * u
				y := int32(*(*int8)(b))
				s10 += y * u
				v := int32(*(*int8)(unsafe.Add(r, 8)))
				s01 += x * v
				s11 += y * v
				x, u = int32(*(*int8)(unsafe.Add(a, 1))), int32(*(*int8)(unsafe.Add(r, 1)))
				s00 += x * u
				y = int32(*(*int8)(unsafe.Add(b, 1)))
				s10 += y * u
				v = int32(*(*int8)(unsafe.Add(r, 9)))
				s01 += x * v
				s11 += y * v
				x, u = int32(*(*int8)(unsafe.Add(a, 2))), int32(*(*int8)(unsafe.Add(r, 2)))
				s00 += x * u
				y = int32(*(*int8)(unsafe.Add(b, 2)))
				s10 += y * u
				v = int32(*(*int8)(unsafe.Add(r, 10)))
				s01 += x * v
				s11 += y * v
				x, u = int32(*(*int8)(unsafe.Add(a, 3))), int32(*(*int8)(unsafe.Add(r, 3)))
				s00 += x * u
				y = int32(*(*int8)(unsafe.Add(b, 3)))
				s10 += y * u
				v = int32(*(*int8)(unsafe.Add(r, 11)))
				s01 += x * v
				s11 += y * v
				x, u = int32(*(*int8)(unsafe.Add(a, 4))), int32(*(*int8)(unsafe.Add(r, 4)))
				s00 += x * u
				y = int32(*(*int8)(unsafe.Add(b, 4)))
				s10 += y * u
				v = int32(*(*int8)(unsafe.Add(r, 12)))
				s01 += x * v
				s11 += y * v
				x, u = int32(*(*int8)(unsafe.Add(a, 5))), int32(*(*int8)(unsafe.Add(r, 5)))
				s00 += x * u
				y = int32(*(*int8)(unsafe.Add(b, 5)))
				s10 += y * u
				v = int32(*(*int8)(unsafe.Add(r, 13)))
				s01 += x * v
				s11 += y * v
				x, u = int32(*(*int8)(unsafe.Add(a, 6))), int32(*(*int8)(unsafe.Add(r, 6)))
				s00 += x * u
				y = int32(*(*int8)(unsafe.Add(b, 6)))
				s10 += y * u
				v = int32(*(*int8)(unsafe.Add(r, 14)))
				s01 += x * v
				s11 += y * v
				x, u = int32(*(*int8)(unsafe.Add(a, 7))), int32(*(*int8)(unsafe.Add(r, 7)))
				s00 += x * u
				y = int32(*(*int8)(unsafe.Add(b, 7)))
				s10 += y * u
				v = int32(*(*int8)(unsafe.Add(r, 15)))
				s01 += x * v
				s11 += y * v
				x, u = int32(*(*int8)(unsafe.Add(a, 8))), int32(*(*int8)(unsafe.Add(r, 16)))
				s00 += x * u
				y = int32(*(*int8)(unsafe.Add(b, 8)))
				s10 += y * u
				v = int32(*(*int8)(unsafe.Add(r, 24)))
				s01 += x * v
				s11 += y * v
				x, u = int32(*(*int8)(unsafe.Add(a, 9))), int32(*(*int8)(unsafe.Add(r, 17)))
				s00 += x * u
				y = int32(*(*int8)(unsafe.Add(b, 9)))
				s10 += y * u
				v = int32(*(*int8)(unsafe.Add(r, 25)))
				s01 += x * v
				s11 += y * v
				x, u = int32(*(*int8)(unsafe.Add(a, 10))), int32(*(*int8)(unsafe.Add(r, 18)))
				s00 += x * u
				y = int32(*(*int8)(unsafe.Add(b, 10)))
				s10 += y * u
				v = int32(*(*int8)(unsafe.Add(r, 26)))
				s01 += x * v
				s11 += y * v
				x, u = int32(*(*int8)(unsafe.Add(a, 11))), int32(*(*int8)(unsafe.Add(r, 19)))
				s00 += x * u
				y = int32(*(*int8)(unsafe.Add(b, 11)))
				s10 += y * u
				v = int32(*(*int8)(unsafe.Add(r, 27)))
				s01 += x * v
				s11 += y * v
				x, u = int32(*(*int8)(unsafe.Add(a, 12))), int32(*(*int8)(unsafe.Add(r, 20)))
				s00 += x * u
				y = int32(*(*int8)(unsafe.Add(b, 12)))
				s10 += y * u
				v = int32(*(*int8)(unsafe.Add(r, 28)))
				s01 += x * v
				s11 += y * v
				x, u = int32(*(*int8)(unsafe.Add(a, 13))), int32(*(*int8)(unsafe.Add(r, 21)))
				s00 += x * u
				y = int32(*(*int8)(unsafe.Add(b, 13)))
				s10 += y * u
				v = int32(*(*int8)(unsafe.Add(r, 29)))
				s01 += x * v
				s11 += y * v
				x, u = int32(*(*int8)(unsafe.Add(a, 14))), int32(*(*int8)(unsafe.Add(r, 22)))
				s00 += x * u
				y = int32(*(*int8)(unsafe.Add(b, 14)))
				s10 += y * u
				v = int32(*(*int8)(unsafe.Add(r, 30)))
				s01 += x * v
				s11 += y * v
				x, u = int32(*(*int8)(unsafe.Add(a, 15))), int32(*(*int8)(unsafe.Add(r, 23)))
				s00 += x * u
				y = int32(*(*int8)(unsafe.Add(b, 15)))
				s10 += y * u
				v = int32(*(*int8)(unsafe.Add(r, 31)))
				s01 += x * v
				s11 += y * v
				if g.K8&1 != 0 {
					a, b, r = unsafe.Add(a, 16), unsafe.Add(b, 16), unsafe.Add(r, 32)
				}
			}
			if g.K8&1 != 0 {
				x, u := int32(*(*int8)(a)), int32(*(*int8)(r))
				s00 += x * u
				y := int32(*(*int8)(b))
				s10 += y * u
				v := int32(*(*int8)(unsafe.Add(r, 8)))
				s01 += x * v
				s11 += y * v
				x, u = int32(*(*int8)(unsafe.Add(a, 1))), int32(*(*int8)(unsafe.Add(r, 1)))
				s00 += x * u
				y = int32(*(*int8)(unsafe.Add(b, 1)))
				s10 += y * u
				v = int32(*(*int8)(unsafe.Add(r, 9)))
				s01 += x * v
				s11 += y * v
				x, u = int32(*(*int8)(unsafe.Add(a, 2))), int32(*(*int8)(unsafe.Add(r, 2)))
				s00 += x * u
				y = int32(*(*int8)(unsafe.Add(b, 2)))
				s10 += y * u
				v = int32(*(*int8)(unsafe.Add(r, 10)))
				s01 += x * v
				s11 += y * v
				x, u = int32(*(*int8)(unsafe.Add(a, 3))), int32(*(*int8)(unsafe.Add(r, 3)))
				s00 += x * u
				y = int32(*(*int8)(unsafe.Add(b, 3)))
				s10 += y * u
				v = int32(*(*int8)(unsafe.Add(r, 11)))
				s01 += x * v
				s11 += y * v
				x, u = int32(*(*int8)(unsafe.Add(a, 4))), int32(*(*int8)(unsafe.Add(r, 4)))
				s00 += x * u
				y = int32(*(*int8)(unsafe.Add(b, 4)))
				s10 += y * u
				v = int32(*(*int8)(unsafe.Add(r, 12)))
				s01 += x * v
				s11 += y * v
				x, u = int32(*(*int8)(unsafe.Add(a, 5))), int32(*(*int8)(unsafe.Add(r, 5)))
				s00 += x * u
				y = int32(*(*int8)(unsafe.Add(b, 5)))
				s10 += y * u
				v = int32(*(*int8)(unsafe.Add(r, 13)))
				s01 += x * v
				s11 += y * v
				x, u = int32(*(*int8)(unsafe.Add(a, 6))), int32(*(*int8)(unsafe.Add(r, 6)))
				s00 += x * u
				y = int32(*(*int8)(unsafe.Add(b, 6)))
				s10 += y * u
				v = int32(*(*int8)(unsafe.Add(r, 14)))
				s01 += x * v
				s11 += y * v
				x, u = int32(*(*int8)(unsafe.Add(a, 7))), int32(*(*int8)(unsafe.Add(r, 7)))
				s00 += x * u
				y = int32(*(*int8)(unsafe.Add(b, 7)))
				s10 += y * u
				v = int32(*(*int8)(unsafe.Add(r, 15)))
				s01 += x * v
				s11 += y * v
			}
			// Channel by channel, the two pixels' outputs, so that a
			// channel's requantization is read once (a store might alias
			// it, for all gc knows).
			t = (*[2]convPWCh)(unsafe.Add(unsafe.Pointer(&g.t), uintptr(g.j)*unsafe.Sizeof(g.t[0])))
			span, hi := g.span, g.hi
			oa, ob := unsafe.Add(g.pout, g.oa+g.j), unsafe.Add(g.pout, g.ob+g.j)
			y0, y1 := hi-convPWQ(s00, &t[0], span), hi-convPWQ(s10, &t[0], span)
			*(*int8)(oa), *(*int8)(ob) = int8(y0), int8(y1)
			y0, y1 = hi-convPWQ(s01, &t[1], span), hi-convPWQ(s11, &t[1], span)
			*(*int8)(unsafe.Add(oa, 1)), *(*int8)(unsafe.Add(ob, 1)) = int8(y0), int8(y1)
			if g.j+2 < g.nb {
				g.wo += 16 * g.K8
			}
		}
	}
}
