package kernels

import (
	"math/rand"
	"runtime"
	"syscall"
	"testing"
	"unsafe"
)

func xThreadCPU() int64 {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}

func xMeasure(f func()) float64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	n := 1
	for {
		s := xThreadCPU()
		for i := 0; i < n; i++ {
			f()
		}
		if xThreadCPU()-s > 1e6 {
			break
		}
		n *= 2
	}
	best := 1e18
	for r := 0; r < 200; r++ {
		s := xThreadCPU()
		for i := 0; i < n; i++ {
			f()
		}
		d := float64(xThreadCPU()-s) / float64(n)
		best = min(best, d)
	}
	return best
}

func xOldFcInt8(p *fcParams, in, w []int8, bias, mult, shift string, out []int8) {
	k := p.accumDepth
	n := p.outDepth
	for b := 0; b < p.batches; b++ {
		x := in[b*k : b*k+k]
		o := out[b*n : b*n+n]
		for c := range o {
			acc := fcDotI8(x, w[c*k:c*k+k]) + ld32(bias, c)
			acc = mulByQuantMul(acc, ld32(mult, c), int(ld32(shift, c)))
			o[c] = int8(clampI32(acc+p.outOffset, p.actMin, p.actMax))
		}
	}
}

func TestXExploreFC(t *testing.T) {
	if testing.Short() {
		t.Skip()
	}
	r := rand.New(rand.NewSource(1))
	for _, sh := range [][2]int{{1, 16}, {16, 16}, {16, 1}, {64, 16}, {4000, 4}} {
		k, n := sh[0], sh[1]
		in := make([]int8, k)
		w := make([]int8, k*n)
		for i := range in {
			in[i] = int8(r.Intn(256))
		}
		for i := range w {
			w[i] = int8(r.Intn(256))
		}
		b32 := make([]int32, n)
		m := make([]int32, n)
		s := make([]int32, n)
		for i := range m {
			m[i], s[i] = 1<<30+r.Int31n(1<<30), -8
		}
		p := &fcParams{batches: 1, outDepth: n, accumDepth: k, outOffset: 3, actMin: -128, actMax: 127}
		q := fcTRQ(m[0], -8)
		p.mult, p.lsh, p.rsh, p.half = q.mult, q.lsh, q.rsh, q.half
		out := make([]int8, n)
		bs, ms, ss := fcTStr32(b32), fcTStr32(m), fcTStr32(s)
		tab := fcTTable(bs, ms, ss)
		t.Logf("%5dx%-3d old %7.1f  table %7.1f  PT %7.1f", k, n,
			xMeasure(func() { xOldFcInt8(p, in, w, bs, ms, ss, out) }),
			xMeasure(func() { fcInt8(p, in, w, tab, out) }),
			xMeasure(func() { fcInt8PT(p, in, w, bs, out) }))
	}
}
