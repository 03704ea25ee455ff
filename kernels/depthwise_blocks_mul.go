package kernels

import "unsafe"

// dwInt8BlocksMul is dwInt8Blocks for a depth multiplier of 2 or a
// multiple of 4: output channel o reads input channel o/depthMul, so a
// block of four output channels reads one input channel (multiplier 4k:
// dwRow4One) or two (multiplier 2: dwRow4Two), each input value loaded
// once for the block's products. A last block of two channels (multiplier
// 2, an odd input channel count) takes dwRow2One. filter is the model's
// [fH][fW][inC*depthMul] weights, rq one fcRQRecordLen record an output
// channel (dwBlocksRQ's).
func dwInt8BlocksMul(p *dwParams, in, filter []int8, rq string, out []int8) {
	dm, oc := p.depthMul, p.outC
	for c0 := 0; c0 < oc; c0 += 4 {
		ic := c0 / dm
		switch {
		case oc-c0 < 4:
			dwBlockRun(p, in, filter, rq, out, c0, ic, 2, dwRowTwoOne)
		case dm == 2:
			dwBlockRun(p, in, filter, rq, out, c0, ic, 4, dwRowFourTwo)
		default:
			dwBlockRun(p, in, filter, rq, out, c0, ic, 4, dwRowFourOne)
		}
	}
}

// dwWin4One is dwWin4 for four output channels of one input channel:
// each tap's one input value times its four weights.
//
//go:noinline
func dwWin4One(x, w unsafe.Pointer, t *dwBlockT, a *[4]int32) {
	var a0, a1, a2, a3 int32
	xs, ws, off := t.xs, t.ws, t.off
	for m := t.m; ; {
		xk, wk := x, w
		for n := t.n; ; {
			v, q := int32(*(*int8)(xk))+off, (*[4]int8)(wk)
			a0 += v * int32(q[0])
			a1 += v * int32(q[1])
			a2 += v * int32(q[2])
			a3 += v * int32(q[3])
			if n--; n == 0 {
				break
			}
			xk, wk = unsafe.Add(xk, xs), unsafe.Add(wk, ws)
		}
		if m--; m == 0 {
			break
		}
		x, w = unsafe.Add(x, t.xo), unsafe.Add(w, t.wo)
	}
	a[0], a[1], a[2], a[3] = a0, a1, a2, a3
}

// dwWin4Two is dwWin4 for four output channels of two input channels
// (depth multiplier 2): the first input value times the first two
// weights, the second times the other two.
//
//go:noinline
func dwWin4Two(x, w unsafe.Pointer, t *dwBlockT, a *[4]int32) {
	var a0, a1, a2, a3 int32
	xs, ws, off := t.xs, t.ws, t.off
	for m := t.m; ; {
		xk, wk := x, w
		for n := t.n; ; {
			p, q := (*[2]int8)(xk), (*[4]int8)(wk)
			v0, v1 := int32(p[0])+off, int32(p[1])+off
			a0 += v0 * int32(q[0])
			a1 += v0 * int32(q[1])
			a2 += v1 * int32(q[2])
			a3 += v1 * int32(q[3])
			if n--; n == 0 {
				break
			}
			xk, wk = unsafe.Add(xk, xs), unsafe.Add(wk, ws)
		}
		if m--; m == 0 {
			break
		}
		x, w = unsafe.Add(x, t.xo), unsafe.Add(w, t.wo)
	}
	a[0], a[1], a[2], a[3] = a0, a1, a2, a3
}

// dwWin2One is dwWin4One for the last two output channels of a pixel
// (depth multiplier 2 and an odd input channel count): a[0] and a[1].
//
//go:noinline
func dwWin2One(x, w unsafe.Pointer, t *dwBlockT, a *[4]int32) {
	var a0, a1 int32
	xs, ws, off := t.xs, t.ws, t.off
	for m := t.m; ; {
		xk, wk := x, w
		for n := t.n; ; {
			v, q := int32(*(*int8)(xk))+off, (*[2]int8)(wk)
			a0 += v * int32(q[0])
			a1 += v * int32(q[1])
			if n--; n == 0 {
				break
			}
			xk, wk = unsafe.Add(xk, xs), unsafe.Add(wk, ws)
		}
		if m--; m == 0 {
			break
		}
		x, w = unsafe.Add(x, t.xo), unsafe.Add(w, t.wo)
	}
	a[0], a[1] = a0, a1
}
